// PEP 508 environment markers, evaluated against a target environment given as a value (the
// machine resolved for, not this host). Reference: python3-packaging 23.0 (packaging/markers.py).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::pep {

/// The marker variables of PEP 508 "Environment Markers" for one target.
struct MarkerEnvironment {
  std::string implementation_name = "cpython";
  std::string implementation_version;  // "3.12.0"
  std::string os_name = "posix";
  std::string platform_machine;  // "x86_64", "aarch64"
  std::string platform_release;
  std::string platform_system = "Linux";
  std::string platform_version;
  std::string python_full_version;  // "3.12.0"
  std::string platform_python_implementation = "CPython";
  std::string python_version;  // "3.12"
  std::string sys_platform = "linux";

  /// The value of a marker variable, nullopt for an unknown name. The deprecated spellings
  /// (`os.name`, `python_implementation`, ...) are accepted as packaging does.
  [[nodiscard]] std::optional<std::string_view> lookup(std::string_view variable) const;

  /// A Linux CPython target: `python` "3.12" (".0" added) or "3.12.4", `machine` from uname -m.
  static MarkerEnvironment linux_cpython(std::string_view python, std::string_view machine);
};

/// Marker::evaluate's error for a comparison PEP 508 leaves undefined (`python_version ~= "foo"`:
/// neither side a version, not a string operator). Carries the comparison text.
struct UndefinedComparison {
  std::string message;
};

class Marker {
 public:
  struct Node;  // expression tree, defined in marker_grammar.hpp (private)

  /// Parses a marker expression (`python_version >= "3.12" and extra == 'x'`).
  static Parsed<Marker> parse(std::string_view text);

  /// Evaluates against `env`, `extra` being the extra resolved ("" for none; compared after PEP
  /// 685 normalisation). Version operators when the right side parses as a PEP 440 specifier,
  /// else Python string comparison (packaging's `_eval_op`). Returns an unexpected
  /// UndefinedComparison where packaging raises.
  [[nodiscard]] std::expected<bool, UndefinedComparison> evaluate(
      const MarkerEnvironment& env, std::string_view extra = "") const;

  /// As packaging's str(Marker): double quotes, single spaces, redundant parentheses kept.
  [[nodiscard]] std::string str() const;

  Marker(const Marker& other);
  Marker& operator=(const Marker& other);
  Marker(Marker&&) noexcept;
  Marker& operator=(Marker&&) noexcept;
  ~Marker();

 private:
  explicit Marker(std::unique_ptr<Node> root);
  std::unique_ptr<Node> m_root;
};

}  // namespace wheelmod::pep
