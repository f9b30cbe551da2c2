#include "elf/elf_file.hpp"
