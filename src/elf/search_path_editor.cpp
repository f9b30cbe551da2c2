#include "elf/search_path_editor.hpp"
