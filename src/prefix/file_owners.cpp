#include "file_owners.hpp"

#include <algorithm>
#include <map>

#include "core/errors.hpp"
#include "dist_info.hpp"
#include "pep/wheel_filename.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

std::vector<fs::path> unpack_order(const std::vector<fs::path>& wheels,
                                   const std::set<std::string>& winners) {
  auto ordered = wheels;
  std::ranges::stable_partition(ordered, [&](const fs::path& file) {
    const auto name = pep::WheelFilename::parse(file.filename().string());
    return !name || !winners.contains(name->name);
  });
  return ordered;
}

void settle_file_owners(std::vector<wheel::InstalledWheel>& wheels, const fs::path& root,
                        const fs::path& site_packages, const std::set<std::string>& winners,
                        Reporter& reporter) {
  const auto site = site_packages.lexically_relative(root);
  struct Owner {
    std::size_t wheel;
    const pep::RecordEntry* entry;
  };
  std::map<fs::path, Owner> owner;  // prefix-relative path -> first wheel that ships it
  std::map<std::size_t, std::set<std::string>> dropped;  // wheel -> RECORD paths it loses
  const auto who = [&](std::size_t i) { return wheels[i].name + " " + wheels[i].version; };
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    for (const auto& entry : wheels[i].record) {
      const auto path = (site / entry.path).lexically_normal();
      if (!path.empty() && *path.begin() == "easybuild")
        throw IntegrityError(who(i),
                             "ships " + path.generic_string() +
                                 ", where wheelmod keeps its own records of the installation",
                             "a wheel must not write into PREFIX/easybuild/; it was not installed");
      const auto [it, added] = owner.try_emplace(path, Owner{i, &entry});
      if (added || it->second.wheel == i) continue;
      const auto& first = *it->second.entry;
      if (first.hash && entry.hash && *first.hash == *entry.hash && first.size == entry.size)
        continue;
      const auto earlier = it->second.wheel;
      const bool later_wins = winners.contains(wheels[i].name);
      if (winners.contains(wheels[earlier].name) || !later_wins)
        throw IntegrityError(
            path.generic_string(),
            "shipped by two wheels of this install, with different bytes: " + who(earlier) +
                " and " + who(i),
            "say which wheel's file to keep with --clash-winner " + wheels[earlier].name + " (or " +
                wheels[i].name + "), or install them into separate prefixes");
      dropped[earlier].insert(first.path);
      reporter.on_warning(path.generic_string() + ": shipped by " + who(earlier) + " and " +
                          who(i) + " with different bytes; " + wheels[i].name +
                          "'s is kept (--clash-winner)");
      it->second = Owner{i, &entry};
    }
  }
  for (auto& [index, paths] : dropped) {
    remove_from_record(root, wheels[index].dist_info, site_packages, paths);
    std::erase_if(wheels[index].record,
                  [&](const pep::RecordEntry& entry) { return paths.contains(entry.path); });
  }
}

}  // namespace wheelmod::prefix
