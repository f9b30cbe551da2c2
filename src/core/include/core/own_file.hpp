// Files wheelmod creates in directories others may write to as well (a shared --dest or cache, a
// module tree, the directory above a prefix): opened so that a symbolic or hard link planted
// under the name is never written through. Run as root, following one would let anyone who can
// write the directory truncate or overwrite any file of the system.
#pragma once

#include <filesystem>

#include <sys/types.h>

#include "core/unique_fd.hpp"

namespace wheelmod {

enum class ExistingFile {
  reuse,    // open the regular file that is there (a lock, a .part to resume), else create it
  replace,  // remove whatever is there, then create a new file exclusively (temporaries, copies)
};

/// Opens `path` with O_NOFOLLOW for `access` (O_WRONLY or O_RDWR). A reused file must be a regular
/// file with one link (a hard link to another file would be written through). Throws IoError (exit
/// 4) naming the path: a symbolic link, another kind of file, a second link, or the open failing.
UniqueFd open_own_file(const std::filesystem::path& path, ExistingFile existing, int access,
                       mode_t mode = 0644);

}  // namespace wheelmod
