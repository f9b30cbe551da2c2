#include "elf/loader.hpp"
