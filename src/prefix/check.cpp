#include "prefix/check.hpp"

#include <algorithm>
#include <set>

#include "core/errors.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

CheckSummary check_prefix(const fs::path& given, const CheckOptions& options) {
  const fs::path prefix = fs::absolute(given).lexically_normal();
  auto environment = elf::host_environment(
      options.use_ld_library_path ? elf::LdLibraryPath::from_process : elf::LdLibraryPath::unset);
  environment.allowed_roots = options.allowed_roots;
  environment.allowed_roots.push_back(prefix);
  elf::Loader loader(std::move(environment));
  CheckSummary summary;
  summary.prefix = prefix;
  std::set<std::pair<std::string, std::string>> reported;
  std::set<std::string> drivers;
  std::set<std::string> outside;
  std::set<std::string> misplaced;
  for (const auto& result : loader.check_tree(prefix)) {
    ++summary.files;
    const auto file = result.file.lexically_relative(prefix).string();
    if (!result.error.empty()) {
      summary.unresolved.push_back(UnresolvedLibrary{
          .file = file, .library = "", .needed_by = file, .problem = result.error});
      continue;
    }
    for (const auto& object : result.objects) {
      for (const auto& needed : object.needed) {
        if (needed.status == elf::NeededStatus::driver) drivers.insert(needed.name);
        if (needed.status != elf::NeededStatus::missing &&
            needed.status != elf::NeededStatus::invalid)
          continue;
        if (!reported.emplace(file, needed.name).second) continue;
        summary.unresolved.push_back(
            UnresolvedLibrary{.file = file,
                              .library = needed.name,
                              .needed_by = object.path,
                              .problem = needed.problem.empty() ? "not found" : needed.problem});
      }
    }
    for (const auto* object : elf::from_outside(result)) outside.insert(object->path);
    for (const auto& object : result.objects) {
      if (object.placement == elf::Placement::allowed) continue;
      const auto module = options.module_libraries.find(object.loaded_as);
      if (module == options.module_libraries.end() || !misplaced.insert(object.loaded_as).second)
        continue;
      summary.misplaced.push_back(MisplacedLibrary{.library = object.loaded_as,
                                                   .path = object.path,
                                                   .module = module->second,
                                                   .file = file});
    }
  }
  summary.drivers.assign(drivers.begin(), drivers.end());
  summary.outside.assign(outside.begin(), outside.end());
  return summary;
}

CheckFailedError check_failure(const CheckSummary& summary) {
  // A file that cannot be read has no library name: it is counted apart.
  std::set<std::string> libraries;
  std::size_t broken = 0;
  for (const auto& item : summary.unresolved) {
    if (item.library.empty())
      ++broken;
    else
      libraries.insert(item.library);
  }
  std::string what;
  if (!libraries.empty())
    what = std::to_string(libraries.size()) +
           (libraries.size() == 1 ? " library cannot" : " libraries cannot") +
           " be found without LD_LIBRARY_PATH";
  if (broken > 0)
    what += (what.empty() ? "" : "; ") + std::to_string(broken) +
            (broken == 1 ? " ELF file cannot be read" : " ELF files cannot be read");
  if (!summary.misplaced.empty())
    what += (what.empty() ? "" : "; ") + std::to_string(summary.misplaced.size()) +
            (summary.misplaced.size() == 1 ? " library loads" : " libraries load") +
            " from outside the module that provides it (" + summary.misplaced.front().library +
            " from " + summary.misplaced.front().path + ", not " +
            summary.misplaced.front().module + "): a node without that place would not find it";
  CheckFailedError error(summary.prefix.string(), what,
                         "load or install the modules that provide them and relink (`wheelmod "
                         "relink PREFIX --toolchain T --eb-installpath DIR`); `wheelmod check "
                         "--format json` lists every file");
  for (const auto& item : summary.misplaced)
    error.with_detail(item.file + ": " + item.library + " loads from " + item.path + ", not from " +
                      item.module + " (relink the prefix, or --allow that place)");
  std::size_t shown = 0;
  for (const auto& item : summary.unresolved) {
    if (++shown > 10) {
      error.with_detail("... and " + std::to_string(summary.unresolved.size() - 10) + " more");
      break;
    }
    error.with_detail(
        item.file + ": " + (item.library.empty() ? "" : item.library + " ") + item.problem +
        (item.needed_by.ends_with(item.file) ? "" : " (needed by " + item.needed_by + ")"));
  }
  return error;
}

}  // namespace wheelmod::prefix
