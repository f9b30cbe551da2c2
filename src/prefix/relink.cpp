#include "prefix/relink.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <set>
#include <string_view>
#include <system_error>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/timings.hpp"
#include "core/tree_walk.hpp"
#include "core/unique_fd.hpp"
#include "dist_info.hpp"
#include "elf/elf_file.hpp"
#include "prefix/staging.hpp"
#include "rocm_drop.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

namespace {

// What a killed edit leaves behind: elf::SiblingCopy fills ".NAME.wheelmod-XXXXXX"
// (mkstemp) beside NAME and renames it over NAME; SIGKILL before the rename
// leaves the copy, often cut short. It is no library of the prefix: walking
// it as one made every later relink fail on a "broken ELF file".
bool is_edit_leftover(int directory_fd, std::string_view name) {
  constexpr std::string_view marker = ".wheelmod-";
  constexpr std::size_t random = 6;  // mkstemp's XXXXXX
  if (name.size() < 2 + marker.size() + random || name.front() != '.') return false;
  const std::size_t stem_end = name.size() - random - marker.size();
  if (name.compare(stem_end, marker.size(), marker) != 0) return false;
  if (!std::all_of(name.end() - random, name.end(),
                   [](unsigned char c) { return std::isalnum(c) != 0; }))
    return false;
  // NAME itself, as fs::exists would see it (symlinks followed).
  struct stat status {};
  const std::string stem(name.substr(1, stem_end - 1));
  return ::fstatat(directory_fd, stem.c_str(), &status, 0) == 0;
}

// One ELF file of the prefix: its dynamic facts, read while the walk had it open, or what
// reading them threw (rethrown in path order, as when each file was read after the walk).
struct ElfFile {
  fs::path path;
  std::optional<elf::DynamicInfo> info;
  std::exception_ptr error;
};

struct PrefixFiles {
  std::vector<ElfFile> elf;         // in path order
  std::vector<fs::path> leftovers;  // a killed relink's copies
};

// One walk of the prefix: regular files that are neither a killed edit's copy nor text by name
// (elf::is_text_by_name) are opened once, beside their directory (openat), to see the ELF magic
// and, with `read_info`, the dynamic section. A torch-shaped prefix holds ~8,000 files of which
// ~150 are opened and 6 are ELF: no file is stat(2)ed, and the 50-600 MiB libraries are read
// only where their headers and dynamic strings lie.
PrefixFiles scan_prefix(const fs::path& prefix, bool read_info) {
  const timings::Scope phase("tree-walk");
  PrefixFiles found;
  const auto error = walk_tree(prefix, [&](const TreeEntry& entry) {
    if (entry.type != TreeEntryType::regular) return;
    if (is_edit_leftover(entry.directory_fd, entry.name)) {
      found.leftovers.emplace_back(entry.path());
      return;
    }
    if (elf::is_text_by_name(entry.name)) return;
    // O_NONBLOCK as in elf::is_elf: a FIFO swapped in meanwhile must not hang the open. A file
    // that cannot be opened is no ELF file of the prefix (is_elf says false).
    const std::string name(entry.name);
    const UniqueFd fd(
        ::openat(entry.directory_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) return;
    ElfFile file{.path = entry.path(), .info = std::nullopt, .error = nullptr};
    if (!read_info) {
      if (!elf::is_elf(fd.get())) return;
    } else {
      try {
        file.info = elf::read_dynamic(fd.get(), file.path);
        if (!file.info) return;
      } catch (const Error&) {
        file.error = std::current_exception();
      }
    }
    found.elf.push_back(std::move(file));
  });
  if (error) throw IoError(prefix.string(), "cannot walk the directory: " + error.message());
  std::ranges::sort(found.elf, {}, &ElfFile::path);
  return found;
}

// The edit set_search_path would report as `unchanged`, known from the walk's read: the file's
// one search-path entry already has `value` under `tag` (search_path_editor.cpp returns before
// writing anything then). nullopt: ask set_search_path.
std::optional<elf::SearchPathEdit> already_set(const elf::DynamicInfo& info,
                                               const std::string& value, elf::SearchPathTag tag) {
  if (info.search_path_entries != 1) return std::nullopt;
  const auto& current = tag == elf::SearchPathTag::rpath ? info.rpath : info.runpath;
  if (!current || *current != value) return std::nullopt;
  return elf::SearchPathEdit{.old_value = current,
                             .old_tag = tag,
                             .new_value = value,
                             .new_tag = tag,
                             .method = elf::EditMethod::unchanged};
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
  for (auto& file : scan_prefix(prefix, false).elf) files.push_back(std::move(file.path));
  return files;
}

std::vector<PrefixElfFile> elf_files_with_dynamic(const fs::path& prefix) {
  std::vector<PrefixElfFile> files;
  for (auto& file : scan_prefix(prefix, true).elf) {
    if (file.error) std::rethrow_exception(file.error);
    if (file.info) files.push_back({std::move(file.path), std::move(*file.info)});
  }
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
      !options.dry_run && !options.staging && fs::is_directory(target, error)) {
    const timings::Scope phase("lock");
    lock = lock_prefix(target, [&](const std::string& line) { reporter.on_warning(line); });
  }
  const fs::path site_packages = find_site_packages(prefix);
  RelinkReport report{.prefix = prefix, .elf_files = 0, .files = {}, .rocm_removed = {}};
  auto rocm_links = options.rocm_links;
  if (options.rocm_take) {
    if (!options.dry_run)
      report.rocm_removed = drop_module_provided_rocm(prefix, site_packages, *options.rocm_take,
                                                      installed_wheels(prefix, site_packages));
    rocm_links.merge(options.rocm_take->links());
  }

  // First plan everything: a prefix is either relinked completely or not at all.
  std::map<std::string, std::vector<std::string>> unmapped;  // package -> files
  const auto scanned = scan_prefix(prefix, true);
  std::vector<const elf::DynamicInfo*> infos;  // of report.files, in step
  for (const auto& [file, info, read_error] : scanned.elf) {
    ++report.elf_files;
    if (read_error) std::rethrow_exception(read_error);
    if (!info) continue;
    const auto& current = info->rpath ? info->rpath : info->runpath;
    const easybuild::FileLocation location{
        .directory = file.parent_path(), .prefix = prefix, .site_packages = site_packages};
    const timings::Scope phase("plan");
    auto plan = easybuild::plan_search_path(current, location, *options.generation, options.modules,
                                            options.locator, info->needed,
                                            rocm_links.empty() ? nullptr : &rocm_links);
    if (!current && plan.entries.empty()) continue;  // nothing to map, nothing to add
    for (const auto& entry : plan.entries)
      if (entry.action == easybuild::EntryAction::unmapped)
        unmapped[entry.provider].push_back(file.lexically_relative(prefix).string());
    report.files.push_back(
        FileRelink{.file = file.lexically_relative(prefix), .plan = std::move(plan), .edit = {}});
    infos.push_back(&*info);
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
    for (const auto& leftover : scanned.leftovers) {
      std::error_code error;
      if (!fs::remove(leftover, error) && error)
        throw IoError(leftover.string(),
                      "cannot remove a killed relink's copy: " + error.message());
    }

  // Each edit takes microseconds (patchelf, when a path must grow, up to
  // seconds): no progress bar, a warning-free finish.
  // A file whose path is already the planned one is not opened again (a relink with nothing to
  // change reads each file once).
  const timings::Scope phase("writes");
  for (std::size_t i = 0; i < report.files.size(); ++i) {
    auto& file = report.files[i];
    if (auto unchanged = already_set(*infos[i], file.plan.new_value, options.tag)) {
      file.edit = std::move(*unchanged);
      continue;
    }
    file.edit = elf::set_search_path(
        prefix / file.file, file.plan.new_value, options.tag,
        elf::EditOptions{
            .patchelf = options.patchelf, .dry_run = options.dry_run, .unmapped = options.staging});
  }

  // An installed prefix's RECORD stays true to the edited libraries (install keeps its own
  // staged RECORDs so, and re-hashes beside its check).
  if (!options.dry_run && !options.staging) {
    const auto wheels = installed_wheels(prefix, site_packages);
    for (const auto& installed : wheels) {
      std::vector<std::string> changed;
      for (const auto& file : report.files) {
        if (file.edit.method == elf::EditMethod::unchanged) continue;
        const auto relative =
            (prefix / file.file).lexically_relative(site_packages).generic_string();
        if (std::ranges::any_of(installed.record,
                                [&](const auto& entry) { return entry.path == relative; }))
          changed.push_back(relative);
      }
      if (!changed.empty()) add_to_record(prefix, installed.dist_info, site_packages, changed);
    }
  }
  return report;
}

}  // namespace wheelmod::prefix
