// The loader model on the real file system: probes are stat(2) plus
// read_dynamic, remembered for the Loader's lifetime, so that checking a
// prefix of a hundred libraries reads each of them once.
#include "elf/loader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <unordered_map>
#include <utility>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/timings.hpp"
#include "core/tree_walk.hpp"
#include "core/unique_fd.hpp"
#include "loader_model.hpp"

namespace wheelmod::elf {

namespace fs = std::filesystem;

class FileSystemObjects final : public ObjectSource {
 public:
  const Probe& probe(const std::string& path) override {
    auto [entry, inserted] = m_probes.try_emplace(path);
    if (inserted && directory_exists(path)) entry->second = examine(path, -1);
    return entry->second;  // a default Probe is `missing`
  }

  /// probe(path) for a regular file a tree walk has open as `fd` (the path not looked up again).
  const Probe& probe_open(const std::string& path, int fd) {
    auto [entry, inserted] = m_probes.try_emplace(path);
    if (inserted) entry->second = examine(path, fd);
    return entry->second;
  }

 private:
  // With `fd` >= 0 the file is open already: fstat(2) instead of stat(2), and readable, as
  // access(R_OK) asks, since the open for reading succeeded.
  static Probe examine(const std::string& path, int fd) {
    const timings::Scope phase("loader-probe");
    timings::count("loader probes");
    Probe probe;
    struct stat status {};
    // ld.so goes on searching past a file it cannot open (ENOENT, EACCES).
    if (fd >= 0 ? ::fstat(fd, &status) != 0
                : ::stat(path.c_str(), &status) != 0 || ::access(path.c_str(), R_OK) != 0)
      return probe;
    probe.id = {static_cast<std::uint64_t>(status.st_dev),
                static_cast<std::uint64_t>(status.st_ino)};
    if (char* real = ::realpath(path.c_str(), nullptr); real != nullptr) {
      probe.real_path = real;
      std::free(real);  // realpath(3) allocates with malloc
    }
    if (S_ISDIR(status.st_mode)) {
      probe.kind = ProbeKind::broken;
      probe.problem = "is a directory";
      return probe;
    }
    try {
      auto info = fd >= 0 ? read_dynamic(fd, path) : read_dynamic(path);
      if (!info) {
        probe.kind = ProbeKind::not_elf;
        probe.problem = "invalid ELF header";
        return probe;
      }
      probe.kind = ProbeKind::object;
      probe.info = std::move(*info);
    } catch (const Error& error) {
      probe.kind = ProbeKind::broken;
      probe.problem = error.cause();
    }
    return probe;
  }

  // Whether the directory part of `path` is a directory, asked once per directory: most of
  // what the search probes lies in hwcap subdirectories that do not exist (glibc-hwcaps/x86-64-v3,
  // tls/x86_64, ... of every search-path entry), and ld.so does the same, marking each
  // (directory, subdirectory) of a search path `nonexisting` after one stat (elf/dl-load.c
  // open_path, `this_dir->status`). A file below a missing directory is missing.
  bool directory_exists(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos || slash == 0) return true;
    auto [entry, inserted] = m_directories.try_emplace(path.substr(0, slash), true);
    if (inserted) {
      struct stat status {};
      entry->second = ::stat(entry->first.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
    }
    return entry->second;
  }

  // Node-based: references handed out stay valid while the map grows.
  std::unordered_map<std::string, Probe> m_probes;
  std::unordered_map<std::string, bool> m_directories;
};

namespace {

constexpr std::uint16_t k_et_exec = 2;
constexpr std::uint16_t k_et_dyn = 3;

}  // namespace

Loader::Loader(LoaderEnvironment environment)
    : m_environment(std::move(environment)), m_objects(std::make_unique<FileSystemObjects>()) {
  // A prefix reached through a symlink is still the prefix.
  std::vector<fs::path> canonical;
  for (const auto& root : m_environment.allowed_roots) {
    std::error_code error;
    auto real = fs::weakly_canonical(m_environment.working_directory / root, error);
    if (!error && real != root) canonical.push_back(std::move(real));
  }
  m_environment.allowed_roots.insert(m_environment.allowed_roots.end(), canonical.begin(),
                                     canonical.end());
}

Loader::~Loader() = default;

std::optional<CheckResult> Loader::check(const fs::path& file,
                                         std::span<const std::string> loaded_before) {
  const std::string path =
      file.is_absolute() ? file.string() : (m_environment.working_directory / file).string();
  const timings::Scope phase("loader-model");
  const Probe& probe = m_objects->probe(path);
  if (probe.kind == ProbeKind::missing)
    throw IoError(file.string(), "cannot open: no such readable file");
  if (probe.kind == ProbeKind::not_elf) return std::nullopt;
  if (probe.kind == ProbeKind::broken) throw IoError(file.string(), probe.problem);
  return resolve_dependencies(path, m_environment, *m_objects, loaded_before);
}

std::vector<CheckResult> Loader::check_tree(const fs::path& root) {
  std::optional<timings::Scope> walk(std::in_place, "tree-walk");
  const fs::path base = root.is_absolute() ? root : m_environment.working_directory / root;
  std::vector<fs::path> files;
  std::vector<fs::path> links;
  // Each regular file is opened once, beside its directory: what is no ELF file is passed over
  // at once (its probe would say not_elf: skipped below), an ELF file is probed through the open
  // descriptor. Symlinks are probed after the walk, by path, as ld.so would open them.
  const auto error = walk_tree(
      base,
      [&](const TreeEntry& entry) {
        if (entry.type == TreeEntryType::symlink) {
          links.emplace_back(entry.path());
          return;
        }
        if (entry.type != TreeEntryType::regular || is_text_by_name(entry.name)) return;
        const std::string name(entry.name);
        const UniqueFd fd(
            ::openat(entry.directory_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
        if (!fd) return;  // unreadable: a missing probe, skipped below
        if (!is_elf(fd.get())) return;
        std::string path = entry.path();
        m_objects->probe_open(path, fd.get());
        files.emplace_back(std::move(path));
      },
      TreeWalkOptions{.skip_permission_denied = true});
  if (error) throw IoError(root.string(), "cannot list: " + error.message());
  std::sort(files.begin(), files.end());
  std::sort(links.begin(), links.end());
  files.insert(files.end(), links.begin(), links.end());  // real paths win over links
  walk.reset();
  const timings::Scope model("loader-model");

  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  std::vector<CheckResult> results;
  for (const auto& file : files) {
    const Probe& probe = m_objects->probe(file.string());
    if (probe.kind == ProbeKind::missing || probe.kind == ProbeKind::not_elf) continue;
    if (probe.kind == ProbeKind::broken && probe.problem == "is a directory") continue;
    if (!seen.emplace(probe.id.device, probe.id.inode).second) continue;
    if (probe.kind == ProbeKind::broken) {
      CheckResult broken;
      broken.file = file;
      broken.error = probe.problem;
      results.push_back(std::move(broken));
      continue;
    }
    // Object files (ET_REL) and core dumps are never loaded.
    if (probe.info.type != k_et_exec && probe.info.type != k_et_dyn) continue;
    results.push_back(resolve_dependencies(file.string(), m_environment, *m_objects));
  }
  std::sort(results.begin(), results.end(),
            [](const CheckResult& a, const CheckResult& b) { return a.file < b.file; });
  return results;
}

bool has_failures(const CheckResult& result) {
  if (!result.error.empty() || result.interpreter_missing) return true;
  for (const auto& object : result.objects)
    for (const auto& needed : object.needed)
      if (needed.status == NeededStatus::missing || needed.status == NeededStatus::invalid)
        return true;
  return false;
}

std::vector<const LoadedObject*> from_outside(const CheckResult& result) {
  std::vector<const LoadedObject*> outside;
  for (std::size_t i = 1; i < result.objects.size(); ++i)
    if (result.objects[i].placement == Placement::outside) outside.push_back(&result.objects[i]);
  return outside;
}

}  // namespace wheelmod::elf
