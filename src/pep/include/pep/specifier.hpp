// PEP 440 version specifiers and comma-separated specifier sets. Reference behaviour:
// python3-packaging 23.0 (packaging/specifiers.py), including its pre-release rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pep/parse_error.hpp"
#include "pep/version.hpp"

namespace wheelmod::pep {

enum class Operator {
  compatible,     // ~=
  equal,          // ==  (with `.*`: prefix match)
  not_equal,      // !=  (with `.*`: prefix mismatch)
  less_equal,     // <=
  greater_equal,  // >=
  less,           // <
  greater,        // >
  arbitrary,      // ===  (string equality, PEP 440 "Arbitrary equality")
};

std::string_view operator_text(Operator op);

/// Whether pre-releases may match: decided by the specifier (`implied`,
/// packaging's `prereleases=None`), or forced by the caller.
enum class Prereleases { implied, allow, deny };

class Specifier {
 public:
  /// Parses one clause (`>=2.6`, `==2.6.*`, `== 2.6.0+cu126`, `===foobar`); rejects what PEP 440
  /// does not allow (`~=1`, `<=1.0.*`, `>=1.0+local`).
  static Parsed<Specifier> parse(std::string_view text);

  [[nodiscard]] Operator op() const { return m_op; }
  /// The version part as written, whitespace removed (`2.6.*`, `2.6.0+cu126`).
  [[nodiscard]] const std::string& version_text() const { return m_version_text; }
  /// True for `==X.*` and `!=X.*`.
  [[nodiscard]] bool wildcard() const { return m_wildcard; }

  /// `~=2.6`, `==2.6.*`: operator then version text, no spaces.
  [[nodiscard]] std::string str() const;

  /// True when its own version is a pre-release and the operator is ==, ===, >=, <= or ~=.
  [[nodiscard]] bool implies_prereleases() const;

  /// packaging's Specifier.contains: a pre-release `v` is rejected unless allowed (explicitly, or
  /// implied by this clause); local labels follow PEP 440 (`==2.6.0` matches `2.6.0+cu126`,
  /// `==2.6.0+cu126` does not match `2.6.0+cpu`).
  [[nodiscard]] bool contains(const Version& v, Prereleases pre = Prereleases::implied) const;

  /// The comparison alone, without the pre-release gate.
  [[nodiscard]] bool matches(const Version& v) const;

  friend bool operator==(const Specifier&, const Specifier&) = default;

 private:
  Operator m_op = Operator::equal;
  std::string m_version_text;
  bool m_wildcard = false;
};

class SpecifierSet {
 public:
  SpecifierSet() = default;
  /// Parses `>=2.6,<2.8` (empty text = matches every final release).
  static Parsed<SpecifierSet> parse(std::string_view text);

  [[nodiscard]] const std::vector<Specifier>& specifiers() const { return m_specifiers; }
  [[nodiscard]] bool empty() const { return m_specifiers.empty(); }

  /// Clauses sorted by their text and joined with ",", as packaging's str().
  [[nodiscard]] std::string str() const;

  /// packaging's SpecifierSet.contains (pre-releases allowed when asked, or
  /// when any clause implies them; an empty set denies them).
  [[nodiscard]] bool contains(const Version& v, Prereleases pre = Prereleases::implied) const;

  /// Adds the clauses of `other` (intersection of the two sets).
  void add(const SpecifierSet& other);

 private:
  std::vector<Specifier> m_specifiers;
};

}  // namespace wheelmod::pep
