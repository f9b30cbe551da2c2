// Files as every layer needs them: read whole, with the path and the system's reason in every
// error; replaced atomically, one or several at once; scratch directories that never outlive a run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wheelmod {

/// The whole of `file`. Throws IoError naming it ("cannot read: No such file or directory").
std::string read_file(const std::filesystem::path& file);

/// read_file, or nullopt when there is no such file (ENOENT, ENOTDIR).
std::optional<std::string> read_file_if_exists(const std::filesystem::path& file);

/// With Flush::later the fsyncs are left to one flush_file_system() of the
/// whole batch before whatever commits it (hundreds of small files).
enum class Flush { now, later };

/// Replaces `file` with `text` through a sibling temporary renamed over it (a reader sees the old
/// bytes or the new, never half), creating directories. Returns false, writing nothing, when the
/// file already holds exactly these bytes. Throws IoError naming the file.
bool write_if_changed(const std::filesystem::path& file, const std::string& text,
                      Flush flush = Flush::now);

/// syncfs(2) of the file system holding `directory`.
void flush_file_system(const std::filesystem::path& directory);

/// Several files replaced as one: add() writes each to a temporary beside it, commit() renames
/// them all into place. Uncommitted temporaries are removed: a failure leaves no half of the set.
class AtomicFileSet {
 public:
  AtomicFileSet() = default;
  ~AtomicFileSet();
  AtomicFileSet(const AtomicFileSet&) = delete;
  AtomicFileSet& operator=(const AtomicFileSet&) = delete;

  /// Writes `text` to the temporary of `file` and flushes it. Throws IoError.
  void add(const std::filesystem::path& file, std::string_view text);
  /// Renames each temporary over its file in the order added, flushes their directories. IoError.
  void commit();

 private:
  struct Entry {
    std::filesystem::path file;
    std::filesystem::path temporary;
  };
  std::vector<Entry> m_entries;
};

/// Where wheelmod's shipped data (config/, templates/) was found, and why there.
struct DataDirectory {
  std::filesystem::path path;
  std::string source;  // "$WHEELMOD_DATA_DIR", "installed beside the binary", "source tree ..."
};

/// wheelmod's data directory: `$WHEELMOD_DATA_DIR` when set; else `<bin>/../share/wheelmod` of
/// the running binary (an installation, wherever it was moved); else, only for a binary still
/// inside the build tree it was built in, the source tree. An installed or copied binary never
/// reads the source tree. Throws UsageError (exit 2) naming the places it looked.
DataDirectory data_directory();

/// `data_directory().path / name` (name: "config", "templates").
std::filesystem::path shipped_data_dir(std::string_view name);

/// A new directory `<parent>/<name>XXXXXX` (mkdtemp(3); `parent` is created when missing),
/// removed with everything in it when this goes out of scope.
class TemporaryDirectory {
 public:
  /// Throws IoError naming the directory, with `hint`.
  TemporaryDirectory(const std::filesystem::path& parent, std::string_view name,
                     std::string hint = {});
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace wheelmod
