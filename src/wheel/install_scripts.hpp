// Scripts: console and GUI entry points turned into `bin/` wrappers, and the
// `#!python` line of `.data/scripts` files rewritten while they stream.
// Specs: PyPA "Entry points specification" (file format, "Use for scripts")
// and "Binary distribution format" ("Installing a wheel": `#!python`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::wheel {

enum class ScriptKind { console, gui };

/// One `name = module:attr.path` line of [console_scripts] or [gui_scripts].
struct ScriptEntryPoint {
  std::string name;       // the file name under bin/
  std::string module;     // dotted importable module
  std::string attribute;  // dotted path to the callable inside it
  ScriptKind kind = ScriptKind::console;
  friend bool operator==(const ScriptEntryPoint&, const ScriptEntryPoint&) = default;
};

/// The script entry points of an `entry_points.txt`, in file order; other
/// groups are skipped. Errors: a missing `:attr` (scripts need a callable),
/// names that are not identifiers (they become Python source), script
/// names that are not plain file names, a name given twice.
pep::Parsed<std::vector<ScriptEntryPoint>> parse_script_entry_points(std::string_view text);

/// The wrapper pip writes for `entry` (distlib's template), starting with
/// "#!" + `interpreter`.
std::string script_wrapper(const ScriptEntryPoint& entry, std::string_view interpreter);

/// Streams a script, replacing a first line that starts with `#!python`
/// (which covers `#!pythonw`) with "#!" + interpreter, as pip does: the
/// whole line goes, arguments included.
class ShebangRewriter {
 public:
  explicit ShebangRewriter(std::string_view interpreter);
  /// Appends to `out` what `input` becomes.
  void feed(std::span<const std::uint8_t> input, std::vector<std::uint8_t>& out);
  /// Flushes what is held back at the end of the file.
  void finish(std::vector<std::uint8_t>& out);

 private:
  enum class State { deciding, skipping_first_line, copying };
  std::string m_shebang;  // "#!<interpreter>\n"
  std::vector<std::uint8_t> m_held;
  State m_state = State::deciding;
};

}  // namespace wheelmod::wheel
