#include "core/tree_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

#include <sys/stat.h>

namespace wheelmod {

namespace {

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

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

class Walker {
 public:
  Walker(const std::function<void(const TreeEntry&)>& visit, const TreeWalkOptions& options)
      : m_visit(visit), m_options(options) {}

  // Lists the directory open as `fd` (taken over), then walks its subdirectories.
  std::error_code walk(int fd, const std::string& path) {
    DirHandle dir(::fdopendir(fd));
    if (!dir) {
      const auto error = last_error();
      ::close(fd);
      return error;
    }
    std::vector<std::string> subdirectories;
    for (;;) {
      errno = 0;
      const dirent* entry = ::readdir(dir.get());
      if (entry == nullptr) {
        if (errno != 0) return last_error();
        break;
      }
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      const TreeEntry visited{.directory_fd = ::dirfd(dir.get()),
                              .directory = path,
                              .name = name,
                              .type = type_of(entry->d_type, ::dirfd(dir.get()), entry->d_name)};
      m_visit(visited);
      if (visited.type == TreeEntryType::directory) subdirectories.emplace_back(name);
    }
    for (const auto& name : subdirectories) {
      // O_NOFOLLOW: a directory replaced by a symlink meanwhile is not followed.
      const int child = ::openat(::dirfd(dir.get()), name.c_str(),
                                 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
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
};

}  // namespace

std::string TreeEntry::path() const { return joined(directory, name); }

std::error_code walk_tree(const std::filesystem::path& root,
                          const std::function<void(const TreeEntry&)>& visit,
                          const TreeWalkOptions& options) {
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return last_error();
  // A root spelt with a trailing slash ("/p/") keeps it: joined() adds none then.
  return Walker(visit, options).walk(fd, root.string());
}

}  // namespace wheelmod
