#include "rocm_drop.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "dist_info.hpp"
#include "elf/elf_file.hpp"
#include "pep/record.hpp"
#include "prefix/relink.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

namespace {

// Where torch's bundled libraries are, relative to site-packages (build_common.sh: $PREFIX/lib).
const fs::path k_torch_lib = "torch/lib";

std::optional<std::string> soname_of(const fs::path& file) {
  const auto info = elf::read_dynamic(file);
  return info ? info->soname : std::nullopt;
}

}  // namespace

std::vector<wheel::InstalledWheel> installed_wheels(const fs::path& root,
                                                    const fs::path& site_packages) {
  std::vector<wheel::InstalledWheel> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(site_packages, error)) {
    const auto name = entry.path().filename().string();
    if (!name.ends_with(".dist-info")) continue;
    const auto record = read_file_if_exists(entry.path() / "RECORD");
    if (!record) continue;
    auto rows = pep::parse_record(*record);
    if (!rows)
      throw IoError((entry.path() / "RECORD").string(), "not a RECORD file wheelmod can read");
    wheel::InstalledWheel installed;
    installed.dist_info = entry.path().lexically_relative(root);
    installed.record = std::move(*rows);
    out.push_back(std::move(installed));
  }
  if (error) throw IoError(site_packages.string(), "cannot list it: " + error.message());
  return out;
}

std::vector<std::string> drop_module_provided_rocm(
    const fs::path& root, const fs::path& site_packages, const easybuild::RocmPlan& plan,
    const std::vector<wheel::InstalledWheel>& wheels) {
  std::set<std::string> removed;
  for (const auto& library : plan.libraries) {
    if (!library.from_module()) continue;
    const fs::path relative = k_torch_lib / library.file;
    const fs::path bundled = site_packages / relative;
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(bundled, error))) continue;  // not in this wheel
    const auto theirs = soname_of(library.directory / library.file);
    const auto ours = soname_of(bundled);
    if (ours && theirs && *ours != *theirs)
      throw CheckFailedError(
          relative.string(),
          "the wheel's copy is " + *ours + ", " + library.module + "'s " + library.file + " is " +
              *theirs + ": another library, which torch's would not run against",
          "keep the wheel's ROCm libraries (--rocm-libraries bundled), or correct the site's "
          "table (--config, config/README.md \"rocm\")");
    if (!fs::remove(bundled, error) && error)
      throw IoError(bundled.string(), "cannot remove the bundled copy: " + error.message());
    removed.insert(relative.generic_string());
    // The SONAME link an install made beside it (link_bundled_sonames) goes with it.
    for (const auto& entry : fs::directory_iterator(bundled.parent_path(), error)) {
      std::error_code link_error;
      if (entry.is_symlink(link_error) &&
          fs::read_symlink(entry.path(), link_error) == library.file &&
          fs::remove(entry.path(), link_error))
        removed.insert((k_torch_lib / entry.path().filename()).generic_string());
    }
    for (const auto& data : library.wheel_data) {
      const fs::path directory = site_packages / data;
      if (!fs::is_directory(fs::symlink_status(directory, error))) continue;
      for (fs::recursive_directory_iterator it(directory, error), end; !error && it != end;
           it.increment(error)) {
        if (it->is_regular_file(error) || it->is_symlink(error))
          removed.insert(it->path().lexically_relative(site_packages).generic_string());
      }
      if (error)
        throw IoError(directory.string(), "cannot list the bundled data: " + error.message());
      fs::remove_all(directory, error);
      if (error)
        throw IoError(directory.string(), "cannot remove the bundled data: " + error.message());
      // Its parents that held nothing else go too (torch/lib/rocblas of rocblas/library), as
      // pip's uninstall leaves no empty directory; torch/ itself stays.
      for (auto parent = directory.parent_path();
           parent.lexically_relative(site_packages).begin() !=
               parent.lexically_relative(site_packages).end() &&
           *parent.lexically_relative(site_packages).begin() == "torch" &&
           parent != site_packages / "torch" && parent != site_packages / k_torch_lib;
           parent = parent.parent_path())
        if (!fs::is_empty(parent, error) || error || !fs::remove(parent, error)) break;
    }
  }
  // Each removed file leaves the RECORD that lists it.
  for (const auto& installed : wheels) {
    std::set<std::string> rows;
    for (const auto& entry : installed.record)
      if (removed.contains(entry.path)) rows.insert(entry.path);
    if (!rows.empty()) remove_from_record(root, installed.dist_info, site_packages, rows);
  }
  return {removed.begin(), removed.end()};
}

}  // namespace wheelmod::prefix

namespace wheelmod::prefix {

std::vector<std::string> link_bundled_sonames(const fs::path& root, const fs::path& site_packages,
                                              const std::vector<wheel::InstalledWheel>& wheels) {
  const fs::path lib = site_packages / k_torch_lib;
  // Every library torch/lib holds under a link name (libX.so) that carries another SONAME: the
  // table's and any other (a generation without a ROCm table, a newer ROCm's additions).
  std::map<std::string, std::string> by_soname;  // SONAME -> the file in torch/lib
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(lib, error)) {
    const auto name = entry.path().filename().string();
    std::error_code status_error;
    if (!name.ends_with(".so") || !fs::is_regular_file(entry.symlink_status(status_error)))
      continue;
    const auto soname = soname_of(entry.path());
    if (soname && *soname != name && soname->find('/') == std::string::npos &&
        soname->starts_with(name.substr(0, name.size() - 3)) &&
        !fs::exists(fs::symlink_status(lib / *soname, status_error)))
      by_soname.emplace(*soname, name);
  }
  if (by_soname.empty()) return {};
  std::set<std::string> wanted;
  for (const auto& file : elf_files_with_dynamic(site_packages))
    for (const auto& needed : file.info.needed)
      if (by_soname.contains(needed)) wanted.insert(needed);
  std::vector<std::string> made;
  for (const auto& soname : wanted) {
    fs::create_symlink(by_soname.at(soname), lib / soname, error);
    if (error) throw IoError((lib / soname).string(), "cannot make the link: " + error.message());
    made.push_back((k_torch_lib / soname).generic_string());
  }
  // Each link joins the RECORD of the wheel whose library it names.
  for (const auto& installed : wheels) {
    std::vector<std::string> rows;
    for (const auto& soname : wanted) {
      const auto target = (k_torch_lib / by_soname.at(soname)).generic_string();
      if (std::ranges::any_of(installed.record,
                              [&](const auto& entry) { return entry.path == target; }))
        rows.push_back((k_torch_lib / soname).generic_string());
    }
    if (!rows.empty()) add_to_record(root, installed.dist_info, site_packages, rows);
  }
  return made;
}

}  // namespace wheelmod::prefix
