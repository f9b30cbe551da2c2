// The commit this binary was built from, defined in a file the build writes
// (cmake/GitCommit.cmake) so that only it is rebuilt when HEAD moves.
#pragma once

namespace wheelmod::operations {

/// `git describe --always --dirty` of the source tree at build time, or "unknown".
const char* git_commit();

}  // namespace wheelmod::operations
