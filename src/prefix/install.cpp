#include "prefix/install.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "core/cpus.hpp"
#include "core/errors.hpp"
#include "core/files.hpp"
#include "dist_info.hpp"
#include "pep/wheel_filename.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

namespace {

// Which project owns each installed file (site-packages-relative path ->
// the dist-info, prefix-relative), for updating the right RECORD.
std::map<std::string, fs::path> owners(const std::vector<wheel::InstalledWheel>& wheels) {
  std::map<std::string, fs::path> out;
  for (const auto& installed : wheels)
    for (const auto& entry : installed.record) out.emplace(entry.path, installed.dist_info);
  return out;
}

// Appends each file to its owner's RECORD (rows are replaced when present).
void update_records(const fs::path& root, const fs::path& site_packages,
                    const std::map<std::string, fs::path>& owned,
                    const std::vector<std::string>& files) {
  std::map<fs::path, std::vector<std::string>> by_dist;
  for (const auto& file : files) {
    if (const auto it = owned.find(file); it != owned.end()) by_dist[it->second].push_back(file);
  }
  for (const auto& [dist_info, list] : by_dist) add_to_record(root, dist_info, site_packages, list);
}

// The wheels in the order they are unpacked: those of `winners` last, so that where two ship one
// path their file is the one on disk.
std::vector<fs::path> unpack_order(const std::vector<fs::path>& wheels,
                                   const std::set<std::string>& winners) {
  auto ordered = wheels;
  std::ranges::stable_partition(ordered, [&](const fs::path& file) {
    const auto name = pep::WheelFilename::parse(file.filename().string());
    return !name || !winners.contains(name->name);
  });
  return ordered;
}

// Before anything is committed: a file two wheels of one install ship with different bytes (the
// second replaced the first and left the first's RECORD false), unless exactly one of them is a
// clash winner, whose file is on disk (unpack_order) and the other's row is dropped; or one under
// easybuild/, where wheelmod writes its provenance and log (a wheel's .data/data/easybuild/...).
// The same bytes at one path (namespace packages' empty __init__.py) are no clash: both RECORDs
// are true, as pip leaves them. IntegrityError (exit 5) naming the file and the wheels.
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

}  // namespace

PrefixInstallResult install_into_prefix(const PrefixInstallRequest& request, Reporter& reporter) {
  Staging staging(request.prefix, request.replace,
                  [&](const std::string& line) { reporter.on_warning(line); });
  const wheel::InstallScheme scheme{.root = staging.dir(),
                                    .python_version = request.python_version};
  PrefixInstallResult result;
  result.prefix = staging.target();
  const fs::path site = scheme.purelib();
  // Sources are compiled as they are written, beside the unpacking (declared after the staging
  // directory: on failure its workers are killed before the tree is removed).
  std::optional<ByteCompiler> compiler;
  auto wheel_options = request.wheel_options;
  if (request.python_exe) {
    // --threads, else the CPUs this process may use (affinity, cgroup quota), never more.
    compiler.emplace(*request.python_exe, request.python_version, site,
                     staging.target() / site.lexically_relative(staging.dir()),
                     threads_or_usable(request.wheel_options.threads));
    if (compiler->running())
      wheel_options.written_files = {
          .wants = [&](const fs::path& file) { return compiler->wants(file); },
          .take = [&](const fs::path& file, std::uint64_t size) { compiler->add(file, size); }};
  }
  for (const auto& file : unpack_order(request.wheels, request.clash_winners))
    result.wheels.push_back(wheel::install_wheel(file, scheme, wheel_options, reporter));
  settle_file_owners(result.wheels, staging.dir(), site, request.clash_winners, reporter);

  if (request.metadata == easybuild::MetadataPolicy::strip && !request.module_provided.empty())
    for (const auto& installed : result.wheels)
      strip_module_requirements(staging.dir(), site, installed, request.module_provided,
                                request.provided_by);

  const auto owned = owners(result.wheels);
  std::future<void> rehashed;
  if (request.relink) {
    auto relink = *request.relink;
    relink.staging = true;  // nothing outside this install has the staged files mapped
    result.relink = relink_prefix(staging.dir(), relink, reporter);
    // Relinked libraries have new bytes: their RECORD rows must say so.
    std::vector<std::string> changed;
    for (const auto& file : result.relink->files)
      if (file.edit.method != elf::EditMethod::unchanged)
        changed.push_back(
            file.file.lexically_relative(site.lexically_relative(staging.dir())).generic_string());
    // Re-hashing the relinked libraries (a GiB for torch) goes on beside the check.
    rehashed = std::async(std::launch::async, [&, changed = std::move(changed)] {
      update_records(staging.dir(), site, owned, changed);
    });
  }

  // The check reads ELF files only: it runs while the last sources compile.
  if (request.check) {
    result.check = check_prefix(staging.dir(), *request.check);
    if (!result.check->passed()) throw check_failure(*result.check);
  }

  if (rehashed.valid()) rehashed.get();  // its RECORDs are written again below

  if (compiler) {
    result.compile = compiler->finish();
    if (!result.compile.ran)
      reporter.on_warning("not byte-compiled: " + result.compile.skipped);
    else if (!result.compile.warnings.empty())
      reporter.on_warning("some files did not byte-compile:\n" + result.compile.warnings);
    std::vector<std::string> owned_pycs;
    std::map<std::string, fs::path> pyc_owners = owned;
    for (const auto& pyc : result.compile.pyc_files) {
      const auto source = source_of_pyc(pyc);
      if (const auto it = owned.find(source); it != owned.end()) {
        pyc_owners.emplace(pyc, it->second);
        owned_pycs.push_back(pyc);
      }
    }
    update_records(staging.dir(), site, pyc_owners, owned_pycs);
  }

  if (request.provenance) {
    auto provenance = *request.provenance;
    provenance.site_packages = site.lexically_relative(staging.dir()).generic_string();
    for (const auto& installed : result.wheels)
      provenance.installed.push_back(
          {installed.name, installed.version, installed.dist_info.generic_string()});
    write_provenance(staging.dir(), provenance);
  }
  if (request.log)
    write_if_changed(staging.dir() / "easybuild" / "wheelmod-install.log", request.log(result));

  staging.commit();
  return result;
}

}  // namespace wheelmod::prefix
