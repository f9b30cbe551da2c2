#include "prefix/install.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "core/cpus.hpp"
#include "core/errors.hpp"
#include "core/files.hpp"
#include "dist_info.hpp"
#include "elf/elf_file.hpp"
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

// Appends each file to its owner's RECORD (rows are replaced when present); `hashed` are rows
// whose hash is known already.
void update_records(const fs::path& root, const fs::path& site_packages,
                    const std::map<std::string, fs::path>& owned,
                    const std::vector<std::string>& files,
                    std::vector<pep::RecordEntry> hashed = {}) {
  std::map<fs::path, std::vector<std::string>> by_dist;
  std::map<fs::path, std::vector<pep::RecordEntry>> rows_by_dist;
  for (const auto& file : files) {
    if (const auto it = owned.find(file); it != owned.end()) by_dist[it->second].push_back(file);
  }
  for (auto& row : hashed) {
    if (const auto it = owned.find(row.path); it != owned.end())
      rows_by_dist[it->second].push_back(std::move(row));
  }
  for (const auto& [dist_info, list] : by_dist) add_to_record(root, dist_info, site_packages, list);
  for (auto& [dist_info, rows] : rows_by_dist)
    add_rows_to_record(root, dist_info, site_packages, std::move(rows));
}

// Relinks each library of the staging prefix as soon as it is unpacked, on the thread that wrote
// it, and hashes its new bytes for RECORD there (relink_file). The largest library is unpacked
// first: its relink and re-hash (600 MiB of SHA-256 for torch) then run beside the rest of the
// unpacking, where they followed all of it. relink_prefix plans each file again once all are
// there, and keeps the edit, and this hash, only where its plan is the same.
class EarlyRelinker {
 public:
  EarlyRelinker(fs::path root, fs::path site_packages, RelinkOptions options)
      : m_root(std::move(root)), m_site(std::move(site_packages)), m_options(std::move(options)) {
    m_options.staging = true;
  }

  [[nodiscard]] static bool wants(const fs::path& file) {
    return !elf::is_text_by_name(file.filename().string());
  }

  void take(const fs::path& file) {
    auto row = relink_file(m_root, m_site, file, m_options);
    std::optional<pep::RecordEntry> hashed;
    if (row && row->edit.method != elf::EditMethod::unchanged) {
      try {
        hashed = record_entry(file, file.lexically_relative(m_site).generic_string());
      } catch (const Error&) {  // hashed again after the relink, and any failure reported then
      }
    }
    const std::lock_guard lock(m_mutex);
    // A later wheel's file at the same path replaces an earlier one's: the last word stands.
    const auto relative = file.lexically_relative(m_root);
    if (row)
      m_done.insert_or_assign(relative, std::move(*row));
    else
      m_done.erase(relative);
    if (hashed)
      m_hashed.insert_or_assign(relative, std::move(*hashed));
    else
      m_hashed.erase(relative);
  }

  /// Once unpacking is over (no thread takes files any more).
  [[nodiscard]] const RelinkedFiles& done() const { return m_done; }

  /// The RECORD row of a relinked file, when relink_prefix kept the edit made here.
  [[nodiscard]] std::optional<pep::RecordEntry> hashed(const FileRelink& relinked) const {
    const auto done = m_done.find(relinked.file);
    const auto row = m_hashed.find(relinked.file);
    if (done == m_done.end() || row == m_hashed.end() ||
        done->second.plan.new_value != relinked.plan.new_value)
      return std::nullopt;
    return row->second;
  }

 private:
  fs::path m_root;
  fs::path m_site;
  RelinkOptions m_options;
  std::mutex m_mutex;
  RelinkedFiles m_done;                           // prefix-relative path -> the edit made
  std::map<fs::path, pep::RecordEntry> m_hashed;  // prefix-relative path -> its new row
};

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
  if (request.python_exe)
    // --threads, else the CPUs this process may use (affinity, cgroup quota), never more.
    compiler.emplace(*request.python_exe, request.python_version, site,
                     staging.target() / site.lexically_relative(staging.dir()),
                     threads_or_usable(request.wheel_options.threads));
  std::optional<EarlyRelinker> early;
  if (request.relink) early.emplace(staging.dir(), site, *request.relink);
  const bool compiling = compiler && compiler->running();
  const auto compiles = [&](const fs::path& file) { return compiling && compiler->wants(file); };
  auto wheel_options = request.wheel_options;
  if (compiling || early)
    wheel_options.written_files = {
        .wants =
            [&](const fs::path& file) { return compiles(file) || (early && early->wants(file)); },
        .take =
            [&](const fs::path& file, std::uint64_t size) {
              if (compiles(file))
                compiler->add(file, size);
              else
                early->take(file);
            },
        // Sources first, for the compilers; libraries keep their place by size.
        .early = compiles};
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
    result.relink = relink_prefix(staging.dir(), relink, reporter, early->done());
    // Relinked libraries have new bytes: their RECORD rows must say so. Most were hashed as they
    // were relinked (EarlyRelinker); the rest are hashed beside the check.
    std::vector<std::string> changed;
    std::vector<pep::RecordEntry> hashed;
    for (const auto& file : result.relink->files) {
      if (file.edit.method == elf::EditMethod::unchanged) continue;
      if (auto row = early->hashed(file))
        hashed.push_back(std::move(*row));
      else
        changed.push_back(
            file.file.lexically_relative(site.lexically_relative(staging.dir())).generic_string());
    }
    rehashed = std::async(std::launch::async,
                          [&, changed = std::move(changed), hashed = std::move(hashed)]() mutable {
                            update_records(staging.dir(), site, owned, changed, std::move(hashed));
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
