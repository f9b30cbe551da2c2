// Which wheel of an install owns a path that several ship: the unpacking order (clash winners
// last) and the settlement of RECORDs once every wheel is unpacked. Private to wheelmod_prefix.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "wheel/installer.hpp"

namespace wheelmod::prefix {

/// The wheels in the order they are unpacked: those whose project is one of `winners` last, so
/// that where two ship one path their file is the one on disk; otherwise as given.
std::vector<std::filesystem::path> unpack_order(const std::vector<std::filesystem::path>& wheels,
                                                const std::set<std::string>& winners);

/// Before anything is committed: a file two wheels of one install ship with different bytes (the
/// second replaced the first and left the first's RECORD false) is refused, unless exactly one of
/// them is a clash winner, whose file is on disk (unpack_order): then the other's RECORD row is
/// dropped, on disk (below `root`) and in `wheels`, with a warning. A path under easybuild/, where
/// wheelmod writes its provenance and log (a wheel's .data/data/easybuild/...), is refused too.
/// The same bytes at one path (namespace packages' empty __init__.py) are no clash: both RECORDs
/// stay true, as pip leaves them. Throws IntegrityError (exit 5) naming the file and the wheels.
void settle_file_owners(std::vector<wheel::InstalledWheel>& wheels,
                        const std::filesystem::path& root,
                        const std::filesystem::path& site_packages,
                        const std::set<std::string>& winners, Reporter& reporter);

}  // namespace wheelmod::prefix
