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
#include "file_owners.hpp"
#include "pep/wheel_filename.hpp"
#include "rocm_drop.hpp"

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

  if (request.relink && request.rocm && request.rocm->relinked)
    result.rocm_removed =
        drop_module_provided_rocm(staging.dir(), site, *request.rocm, result.wheels);
  if (request.relink && request.rocm)
    result.rocm_links = link_bundled_sonames(staging.dir(), site, result.wheels);

  const auto owned = owners(result.wheels);
  std::future<void> rehashed;
  if (request.relink) {
    auto relink = *request.relink;
    if (request.rocm) relink.rocm_links = request.rocm->links();
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
