#include "core/tree_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#include <sys/stat.h>

#include "core/unique_fd.hpp"

namespace wheelmod {

namespace {

std::error_code last_error() { return {errno, std::system_category()}; }

TreeEntryType type_of(unsigned char d_type, int directory_fd, const char* name) {
  switch (d_type) {
    case DT_REG:
      return TreeEntryType::regular;
    case DT_DIR:
      return TreeEntryType::directory;
    case DT_LNK:
      return TreeEntryType::symlink;
    case DT_UNKNOWN:
      break;
    default:
      return TreeEntryType::other;
  }
  // readdir(3): "Currently, only some filesystems ... have full support for returning the file
  // type in d_type"; the others say DT_UNKNOWN.
  struct stat status {};
  if (::fstatat(directory_fd, name, &status, AT_SYMLINK_NOFOLLOW) != 0)
    return TreeEntryType::other;  // vanished meanwhile
  if (S_ISREG(status.st_mode)) return TreeEntryType::regular;
  if (S_ISDIR(status.st_mode)) return TreeEntryType::directory;
  if (S_ISLNK(status.st_mode)) return TreeEntryType::symlink;
  return TreeEntryType::other;
}

std::string joined(std::string_view directory, std::string_view name) {
  std::string path;
  path.reserve(directory.size() + 1 + name.size());
  path.append(directory);
  if (!path.empty() && path.back() != '/') path.push_back('/');
  path.append(name);
  return path;
}

// getdents64(2) records, as the kernel writes them (glibc's struct dirent64 has this layout).
// Read directly rather than through fdopendir/readdir: those cost an fstat(2) and a 32 KiB
// buffer per directory, here one buffer serves every directory, each read to its end before
// its subdirectories are entered.
constexpr std::size_t k_buffer_size = 64 * 1024;

class Walker {
 public:
  Walker(const std::function<void(const TreeEntry&)>& visit, const TreeWalkOptions& options)
      : m_visit(visit), m_options(options), m_buffer(k_buffer_size) {}

  // Lists the directory open as `fd` (taken over), then walks its subdirectories.
  std::error_code walk(int fd, const std::string& path) {
    const UniqueFd directory(fd);
    std::vector<std::string> subdirectories;
    for (;;) {
      const ssize_t got = ::getdents64(fd, m_buffer.data(), m_buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return last_error();
      if (got == 0) break;
      for (std::size_t at = 0; at < static_cast<std::size_t>(got);) {
        const auto* entry = reinterpret_cast<const dirent64*>(m_buffer.data() + at);
        at += entry->d_reclen;
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") continue;
        const TreeEntry visited{.directory_fd = fd,
                                .directory = path,
                                .name = name,
                                .type = type_of(entry->d_type, fd, entry->d_name)};
        m_visit(visited);
        if (visited.type == TreeEntryType::directory) subdirectories.emplace_back(name);
      }
    }
    for (const auto& name : subdirectories) {
      // O_NOFOLLOW: a directory replaced by a symlink meanwhile is not followed.
      const int child = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (child < 0) {
        if (errno == EACCES && m_options.skip_permission_denied) continue;
        return last_error();
      }
      if (const auto error = walk(child, joined(path, name))) return error;
    }
    return {};
  }

 private:
  const std::function<void(const TreeEntry&)>& m_visit;
  const TreeWalkOptions& m_options;
  std::vector<char> m_buffer;
};

}  // namespace

std::string TreeEntry::path() const { return joined(directory, name); }

std::error_code walk_tree(const std::filesystem::path& root,
                          const std::function<void(const TreeEntry&)>& visit,
                          const TreeWalkOptions& options) {
  // O_DIRECTORY: getdents64 on anything else fails; the error is opendir's (ENOTDIR).
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return last_error();
  // A root spelt with a trailing slash ("/p/") keeps it: joined() adds none then.
  return Walker(visit, options).walk(fd, root.string());
}

}  // namespace wheelmod
