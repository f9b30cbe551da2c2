// The loader model on the real file system: probes are stat(2) plus
// read_dynamic, remembered for the Loader's lifetime, so that checking a
// prefix of a hundred libraries reads each of them once.
#include "elf/loader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <unordered_map>
#include <utility>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "loader_model.hpp"

namespace wheelmod::elf {

namespace fs = std::filesystem;

class FileSystemObjects final : public ObjectSource {
 public:
  const Probe& probe(const std::string& path) override {
    auto [entry, inserted] = m_probes.try_emplace(path);
    if (inserted) entry->second = examine(path);
    return entry->second;
  }

 private:
  static Probe examine(const std::string& path) {
    Probe probe;
    struct stat status {};
    // ld.so goes on searching past a file it cannot open (ENOENT, EACCES).
    if (::stat(path.c_str(), &status) != 0 || ::access(path.c_str(), R_OK) != 0) return probe;
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
      auto info = read_dynamic(path);
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

  // Node-based: references handed out stay valid while the map grows.
  std::unordered_map<std::string, Probe> m_probes;
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
  const Probe& probe = m_objects->probe(path);
  if (probe.kind == ProbeKind::missing)
    throw IoError(file.string(), "cannot open: no such readable file");
  if (probe.kind == ProbeKind::not_elf) return std::nullopt;
  if (probe.kind == ProbeKind::broken) throw IoError(file.string(), probe.problem);
  return resolve_dependencies(path, m_environment, *m_objects, loaded_before);
}

std::vector<CheckResult> Loader::check_tree(const fs::path& root) {
  const fs::path base = root.is_absolute() ? root : m_environment.working_directory / root;
  std::vector<fs::path> files;
  std::vector<fs::path> links;
  std::error_code error;
  fs::recursive_directory_iterator entry(base, fs::directory_options::skip_permission_denied,
                                         error);
  if (error) throw IoError(root.string(), "cannot list: " + error.message());
  for (; entry != fs::recursive_directory_iterator(); entry.increment(error)) {
    if (error) throw IoError(root.string(), "cannot list: " + error.message());
    const auto status = entry->symlink_status(error);
    if (error) continue;  // vanished while listing
    if (fs::is_symlink(status))
      links.push_back(entry->path());
    else if (fs::is_regular_file(status) && !is_text_by_name(entry->path().filename().string()))
      files.push_back(entry->path());
  }
  std::sort(files.begin(), files.end());
  std::sort(links.begin(), links.end());
  files.insert(files.end(), links.begin(), links.end());  // real paths win over links

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
