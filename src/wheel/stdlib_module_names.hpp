// The top-level modules of CPython's standard library by version: sys.stdlib_module_names of
// 3.10-3.13, 3.14's additions, and the older versions' own standard libraries; the table is
// generated (stdlib_module_names.cpp, by generate_stdlib_module_names.py, which names each source).
#pragma once

#include <span>
#include <string_view>

namespace wheelmod::wheel {

/// A module of the standard library of Python 3.`first_minor` to 3.`last_minor`, both included.
struct StdlibModule {
  std::string_view name;
  int first_minor = 0;
  int last_minor = 0;
};

/// Every row of the table, sorted by name (a name has more than one row only if it left the
/// standard library and came back, which none has yet).
std::span<const StdlibModule> stdlib_modules();

/// The oldest and newest Python 3 minor versions the table knows.
int stdlib_oldest_minor();
int stdlib_newest_minor();

}  // namespace wheelmod::wheel
