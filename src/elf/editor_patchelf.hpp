// Private to src/elf: the copy that a growing edit works on, and the slow
// path of the search-path editor. The grower (editor_grow.hpp) and, for
// programs and unusual layouts, patchelf change a copy beside the file,
// which then replaces it with rename(2), so a process that has the old file
// mapped keeps its inode and a crash leaves either file whole.
#pragma once

#include <filesystem>
#include <string>

#include <sys/stat.h>

#include "elf/elf_file.hpp"

namespace wheelmod::elf::detail {

/// A copy of `file` (symbolic links resolved) in the same directory
/// (".NAME.wheelmod-XXXXXX"), made in the kernel (copy_file_range(2), a
/// reflink where the file system shares extents), removed on destruction
/// unless commit() renamed it over the original.
class SiblingCopy {
 public:
  explicit SiblingCopy(const std::filesystem::path& link_or_file);
  ~SiblingCopy();
  SiblingCopy(const SiblingCopy&) = delete;
  SiblingCopy& operator=(const SiblingCopy&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  /// Gives the copy the original's mode bits (and owner, where allowed),
  /// flushes it to disk and renames it over the original.
  void commit();

 private:
  std::filesystem::path m_original;
  std::filesystem::path m_path;
  struct stat m_original_status {};
  bool m_committed = false;
};

/// Runs `patchelf --set-rpath VALUE [--force-rpath] FILE`; --force-rpath
/// makes it write DT_RPATH instead of its default DT_RUNPATH. Throws IoError
/// about `subject`: patchelf missing (hint: apt-get install patchelf), or
/// failing (its stderr as detail).
void run_patchelf(const std::string& program, const std::filesystem::path& file,
                  const std::string& value, SearchPathTag tag,
                  const std::filesystem::path& subject);

}  // namespace wheelmod::elf::detail
