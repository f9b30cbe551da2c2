// A static model of ld.so's library search (ld.so(8)), for `wheelmod
// check`: which file each DT_NEEDED of an object resolves to, without
// loading anything. (Being written; the interface below is a draft the
// implementation may refine.)
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "elf/elf_file.hpp"

namespace wheelmod::elf {}  // namespace wheelmod::elf
