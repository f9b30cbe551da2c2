#include "prefix/relink.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>
#include <system_error>

#include "core/errors.hpp"
#include "elf/elf_file.hpp"
#include "prefix/staging.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

namespace {

// What a killed edit leaves behind: elf::SiblingCopy fills ".NAME.wheelmod-XXXXXX"
// (mkstemp) beside NAME and renames it over NAME; SIGKILL before the rename
// leaves the copy, often cut short. It is no library of the prefix: walking
// it as one made every later relink fail on a "broken ELF file".
bool is_edit_leftover(const fs::path& file) {
  const std::string name = file.filename().string();
  constexpr std::string_view marker = ".wheelmod-";
  constexpr std::size_t random = 6;  // mkstemp's XXXXXX
  if (name.size() < 2 + marker.size() + random || name.front() != '.') return false;
  const std::size_t stem_end = name.size() - random - marker.size();
  if (name.compare(stem_end, marker.size(), marker) != 0) return false;
  if (!std::all_of(name.end() - random, name.end(),
                   [](unsigned char c) { return std::isalnum(c) != 0; }))
    return false;
  std::error_code error;
  return fs::exists(file.parent_path() / name.substr(1, stem_end - 1), error);
}

std::vector<fs::path> edit_leftovers(const fs::path& prefix) {
  std::vector<fs::path> found;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(prefix, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error))
    if (!it->is_symlink(error) && it->is_regular_file(error) && is_edit_leftover(it->path()))
      found.push_back(it->path());
  return found;
}

}  // namespace

fs::path find_site_packages(const fs::path& prefix) {
  std::vector<fs::path> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(prefix / "lib", error)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("python") && fs::is_directory(entry.path() / "site-packages", error))
      found.push_back(entry.path() / "site-packages");
  }
  if (found.size() == 1) return found.front();
  if (found.empty())
    throw UsageError(prefix.string(), "no lib/pythonX.Y/site-packages in it",
                     "give the prefix `wheelmod install` wrote (the EasyBuild installation "
                     "directory of the PyTorch module)");
  std::string list;
  for (const auto& path : found) list += (list.empty() ? "" : ", ") + path.string();
  throw UsageError(prefix.string(), "more than one site-packages: " + list,
                   "a prefix holds one Python version's packages");
}

std::vector<fs::path> elf_files(const fs::path& prefix) {
  std::vector<fs::path> files;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(prefix, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_symlink(error) || !it->is_regular_file(error)) continue;
    if (is_edit_leftover(it->path())) continue;
    if (elf::is_text_by_name(it->path().filename().string())) continue;
    if (elf::is_elf(it->path())) files.push_back(it->path());
  }
  if (error) throw IoError(prefix.string(), "cannot walk the directory: " + error.message());
  std::ranges::sort(files);
  return files;
}

RelinkReport relink_prefix(const fs::path& given, const RelinkOptions& options,
                           Reporter& reporter) {
  if (options.generation == nullptr)
    throw UsageError("relink", "no toolchain generation", "give --toolchain");
  const fs::path prefix = fs::absolute(given).lexically_normal();
  // The lock `install` holds on the prefix: a relink waits for an install
  // --force of it, or another relink, whose temporary copies it would
  // otherwise take for a killed run's. A staging directory is its
  // install's, locked already.
  DirectoryLock lock;
  auto target = prefix;
  if (target.filename().empty()) target = target.parent_path();  // "p/"
  if (std::error_code error;
      !options.dry_run && !options.staging && fs::is_directory(target, error))
    lock = lock_prefix(target, [&](const std::string& line) { reporter.on_warning(line); });
  const fs::path site_packages = find_site_packages(prefix);
  RelinkReport report{.prefix = prefix, .elf_files = 0, .files = {}};

  // First plan everything: a prefix is either relinked completely or not at all.
  std::map<std::string, std::vector<std::string>> unmapped;  // package -> files
  for (const auto& file : elf_files(prefix)) {
    ++report.elf_files;
    const auto info = elf::read_dynamic(file);
    if (!info) continue;
    const auto& current = info->rpath ? info->rpath : info->runpath;
    const easybuild::FileLocation location{
        .directory = file.parent_path(), .prefix = prefix, .site_packages = site_packages};
    auto plan = easybuild::plan_search_path(current, location, *options.generation, options.modules,
                                            options.locator, info->needed);
    if (!current && plan.entries.empty()) continue;  // nothing to map, nothing to add
    for (const auto& entry : plan.entries)
      if (entry.action == easybuild::EntryAction::unmapped)
        unmapped[entry.provider].push_back(file.lexically_relative(prefix).string());
    report.files.push_back(
        FileRelink{.file = file.lexically_relative(prefix), .plan = std::move(plan), .edit = {}});
  }
  if (!unmapped.empty()) {
    CheckFailedError error(prefix.string(),
                           std::to_string(unmapped.size()) +
                               " CUDA libraries the wheels need are in no installed module",
                           "install the modules (eb --robot), then point --eb-installpath at "
                           "the EasyBuild installation that has them or load them (their "
                           "EBROOT* variables are read)");
    for (const auto& [package, files] : unmapped)
      error.with_detail(
          package + ": needed by " + files.front() +
          (files.size() > 1 ? " and " + std::to_string(files.size() - 1) + " more" : ""));
    throw error;
  }

  // A killed relink's copies go before this one writes (nothing else edits
  // the prefix meanwhile: relink runs once per prefix, install on a private
  // staging directory).
  if (!options.dry_run)
    for (const auto& leftover : edit_leftovers(prefix)) {
      std::error_code error;
      if (!fs::remove(leftover, error) && error)
        throw IoError(leftover.string(),
                      "cannot remove a killed relink's copy: " + error.message());
    }

  // Each edit takes microseconds (patchelf, when a path must grow, up to
  // seconds): no progress bar, a warning-free finish.
  for (auto& file : report.files)
    file.edit = elf::set_search_path(
        prefix / file.file, file.plan.new_value, options.tag,
        elf::EditOptions{
            .patchelf = options.patchelf, .dry_run = options.dry_run, .unmapped = options.staging});

  return report;
}

}  // namespace wheelmod::prefix
