#include "pep/specifier.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "ascii.hpp"
#include "python_space.hpp"

namespace wheelmod::pep {
namespace {

using detail::ascii_lower;
using detail::is_digit;

struct OperatorSpelling {
  std::string_view text;
  Operator op;
};

// `===` before `==` and two-character operators before `<`/`>`: the first
// that prefixes the clause is the only one packaging's regex can accept.
constexpr std::array k_operators{
    OperatorSpelling{"===", Operator::arbitrary}, OperatorSpelling{"~=", Operator::compatible},
    OperatorSpelling{"==", Operator::equal},      OperatorSpelling{"!=", Operator::not_equal},
    OperatorSpelling{"<=", Operator::less_equal}, OperatorSpelling{">=", Operator::greater_equal},
    OperatorSpelling{"<", Operator::less},        OperatorSpelling{">", Operator::greater},
};

bool all_digits(std::string_view s) { return !s.empty() && std::ranges::all_of(s, is_digit); }

/// packaging.utils.canonicalize_version(v) with strip_trailing_zero=True:
/// str(v) with trailing `.0` release components dropped (`1.0.0` -> `1`).
std::string canonical_stripped(const Version& v) {
  const std::string full = v.str();
  const Version base = v.base_version();
  const std::string base_text = base.str();  // a prefix of `full`
  std::size_t n = base.release().size();
  while (n > 1 && base.release()[n - 1] == 0) --n;
  std::string out = v.epoch() != 0 ? std::to_string(v.epoch()) + "!" : "";
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0) out += '.';
    out += std::to_string(base.release()[i]);
  }
  return out + full.substr(base_text.size());
}

/// specifiers.py `_version_split`: split at dots, and `1rc1` into `1`, `rc1`
/// (case-sensitive, as packaging's _prefix_regex).
std::vector<std::string> version_split(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    const std::string_view item = text.substr(start, dot - start);
    std::size_t digits = 0;
    while (digits < item.size() && is_digit(item[digits])) ++digits;
    const std::string_view tail = item.substr(digits);
    std::size_t letters = 0;
    for (const std::string_view phase : {"rc", "a", "b", "c"}) {
      if (tail.starts_with(phase)) {
        letters = phase.size();
        break;
      }
    }
    if (digits > 0 && letters > 0 && all_digits(tail.substr(letters))) {
      out.emplace_back(item.substr(0, digits));
      out.emplace_back(tail);
    } else {
      out.emplace_back(item);
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

/// PEP 440 "Version matching": `==V.*` is a prefix match of the release,
/// with the candidate zero-padded to the prefix length (specifiers.py
/// `_compare_equal` with `_pad_version`), local label ignored.
bool prefix_match(const Version& prospective, std::string_view spec_prefix) {
  const std::vector<std::string> spec = version_split(canonicalize_version_text(spec_prefix));
  const std::vector<std::string> candidate =
      version_split(canonical_stripped(prospective.public_version()));
  const auto release_length = [](const std::vector<std::string>& items) {
    return static_cast<std::size_t>(std::ranges::find_if_not(items, all_digits) - items.begin());
  };
  const std::size_t candidate_release = release_length(candidate);
  const std::size_t spec_release = release_length(spec);
  std::vector<std::string> padded(
      candidate.begin(), candidate.begin() + static_cast<std::ptrdiff_t>(candidate_release));
  if (spec_release > candidate_release) padded.resize(spec_release, "0");
  padded.insert(padded.end(), candidate.begin() + static_cast<std::ptrdiff_t>(candidate_release),
                candidate.end());
  if (padded.size() > spec.size()) padded.resize(spec.size());
  return padded == spec;
}

bool compare_equal(const Version& prospective, std::string_view spec) {
  if (spec.ends_with(".*")) return prefix_match(prospective, spec.substr(0, spec.size() - 2));
  const auto spec_version = Version::parse(spec);
  if (!spec_version) return false;
  // PEP 440 "Version matching": without a local label in the specifier the
  // candidate's local label is ignored (`==2.6.0` matches `2.6.0+cu126`).
  if (!spec_version->has_local()) return prospective.public_version() == *spec_version;
  return prospective == *spec_version;
}

/// PEP 440 "Compatible release": `~=V.N` is `>=V.N, ==V.*`. The prefix is
/// cut from the text as written, dropping suffix items as specifiers.py's
/// `_compare_compatible` does (so `~=1.4.5.pre4` keeps `pre4`, like packaging).
bool compare_compatible(const Version& prospective, std::string_view spec) {
  const auto spec_version = Version::parse(spec);
  if (!spec_version || prospective.public_version() < *spec_version) return false;
  std::vector<std::string> items = version_split(spec);
  const auto is_suffix = [](const std::string& item) {
    return std::ranges::any_of(std::array<std::string_view, 5>{"dev", "a", "b", "rc", "post"},
                               [&](std::string_view p) { return item.starts_with(p); });
  };
  items.erase(std::ranges::find_if(items, is_suffix), items.end());
  if (!items.empty()) items.pop_back();
  std::string prefix;
  for (const std::string& item : items) prefix += item + ".";
  return compare_equal(prospective, prefix + "*");
}

bool compare_less(const Version& prospective, const Version& spec) {
  if (!(prospective < spec)) return false;
  // PEP 440 "Exclusive ordered comparison": `<V` excludes pre-releases of V
  // unless V is itself a pre-release.
  return spec.is_prerelease() || !prospective.is_prerelease() ||
         prospective.base_version() != spec.base_version();
}

bool compare_greater(const Version& prospective, const Version& spec) {
  if (!(prospective > spec)) return false;
  // PEP 440 "Exclusive ordered comparison": `>V` excludes post-releases of V
  // unless V is one, and local versions of V.
  const bool same_base = prospective.base_version() == spec.base_version();
  if (!spec.is_postrelease() && prospective.is_postrelease() && same_base) return false;
  return !(prospective.has_local() && same_base);
}

/// Why `version_text` is not acceptable after `op` (empty when it is), per
/// packaging 23.0's Specifier._regex_str.
std::string check_version_text(Operator op, std::string_view version_text) {
  const std::string op_text(operator_text(op));
  if (op == Operator::arbitrary) {
    // PEP 440 "Arbitrary equality": any text without whitespace; packaging
    // also stops at `;` and `)` (markers and parenthesised specifiers).
    if (detail::contains_python_space(version_text) ||
        version_text.find_first_of(";)") != std::string_view::npos) {
      return "'===' takes a single word without spaces, ';' or ')', got '" +
             std::string(version_text) + "'";
    }
    return {};
  }
  if (version_text.empty()) return "operator '" + op_text + "' needs a version after it";
  const bool may_wildcard = op == Operator::equal || op == Operator::not_equal;
  if (version_text.ends_with(".*")) {
    // PEP 440 "Version matching": prefix matching only on a release.
    if (!may_wildcard) {
      return "'.*' is only allowed with == and != (PEP 440 prefix matching), got '" + op_text +
             std::string(version_text) + "'";
    }
    const std::string_view prefix = version_text.substr(0, version_text.size() - 2);
    const auto version = Version::parse(prefix);
    const bool plain = prefix.find_first_not_of("0123456789.!vV") == std::string_view::npos;
    if (!version || !plain || version->pre() || version->post() || version->dev()) {
      const std::string why = version ? "" : " (" + version.error().message + ")";
      return "'.*' must follow a release such as '2.6', got '" + std::string(prefix) + "'" + why;
    }
    return {};
  }
  const auto version = Version::parse(version_text);
  if (!version) return "version '" + std::string(version_text) + "': " + version.error().message;
  if (version->has_local() && !may_wildcard) {
    return "a local label ('+" + version->local_str() + "') is only allowed with == and != (PEP " +
           "440 \"Local version identifiers\")";
  }
  if (op == Operator::compatible && version->release().size() < 2) {
    return "'~=' needs at least two release numbers, such as '~=" + version->str() +
           ".0' (PEP 440 \"Compatible release\")";
  }
  return {};
}

/// The identity packaging's Specifier.__hash__/__eq__ use, which decides
/// duplicates in a SpecifierSet: operator plus canonicalize_version of the
/// text, trailing zeros stripped except for `~=`.
std::pair<Operator, std::string> canonical_key(const Specifier& spec) {
  if (spec.op() == Operator::compatible)
    return {spec.op(), canonicalize_version_text(spec.version_text())};
  const auto version = Version::parse(spec.version_text());
  return {spec.op(), version ? canonical_stripped(*version) : spec.version_text()};
}

}  // namespace

std::string_view operator_text(Operator op) {
  for (const OperatorSpelling& spelling : k_operators) {
    if (spelling.op == op) return spelling.text;
  }
  return "==";
}

Parsed<Specifier> Specifier::parse(std::string_view text) {
  const auto fail = [&](std::string message) -> Parsed<Specifier> {
    return std::unexpected(ParseError{std::string(text), std::move(message)});
  };
  const std::string_view body = detail::strip_python_space(text);
  if (body.empty()) return fail("a specifier needs an operator and a version, such as '>=2.6'");
  const auto spelling = std::ranges::find_if(
      k_operators, [&](const OperatorSpelling& s) { return body.starts_with(s.text); });
  if (spelling == k_operators.end()) {
    return fail("a specifier starts with one of ~= == != <= >= < > ===, got '" + std::string(body) +
                "'");
  }
  Specifier spec;
  spec.m_op = spelling->op;
  const std::string_view version_text =
      detail::strip_python_space(body.substr(spelling->text.size()));
  if (std::string why = check_version_text(spec.m_op, version_text); !why.empty()) {
    return fail(std::move(why));
  }
  spec.m_version_text = std::string(version_text);
  spec.m_wildcard = (spec.m_op == Operator::equal || spec.m_op == Operator::not_equal) &&
                    version_text.ends_with(".*");
  return spec;
}

std::string Specifier::str() const { return std::string(operator_text(m_op)) + m_version_text; }

bool Specifier::implies_prereleases() const {
  // specifiers.py Specifier.prereleases: only inclusive operators, and only
  // when their own version is a pre-release (`.*` stripped for ==).
  switch (m_op) {
    case Operator::equal:
    case Operator::greater_equal:
    case Operator::less_equal:
    case Operator::compatible:
    case Operator::arbitrary: {
      std::string_view text = m_version_text;
      if (m_op == Operator::equal && text.ends_with(".*")) text.remove_suffix(2);
      // packaging raises for `===` with a non-version; no pre-release then.
      const auto version = Version::parse(text);
      return version && version->is_prerelease();
    }
    case Operator::not_equal:
    case Operator::less:
    case Operator::greater:
      return false;
  }
  return false;
}

bool Specifier::contains(const Version& v, Prereleases pre) const {
  const bool allowed =
      pre == Prereleases::allow || (pre == Prereleases::implied && implies_prereleases());
  // PEP 440 "Handling of pre-releases": excluded unless allowed.
  if (v.is_prerelease() && !allowed) return false;
  return matches(v);
}

bool Specifier::matches(const Version& v) const {
  switch (m_op) {
    case Operator::compatible:
      return compare_compatible(v, m_version_text);
    case Operator::equal:
      return compare_equal(v, m_version_text);
    case Operator::not_equal:
      return !compare_equal(v, m_version_text);
    case Operator::arbitrary:
      // packaging 23.0 _compare_arbitrary: str(Version).lower() == spec.lower().
      return v.str() == ascii_lower(m_version_text);
    case Operator::less_equal:
    case Operator::greater_equal:
    case Operator::less:
    case Operator::greater:
      break;
  }
  const auto spec = Version::parse(m_version_text);
  if (!spec) return false;
  switch (m_op) {
    // Inclusive ordered comparison ignores the candidate's local label
    // (PEP 440: local labels are not permitted in these specifiers).
    case Operator::less_equal:
      return v.public_version() <= *spec;
    case Operator::greater_equal:
      return v.public_version() >= *spec;
    case Operator::less:
      return compare_less(v, *spec);
    case Operator::greater:
      return compare_greater(v, *spec);
    default:
      return false;
  }
}

Parsed<SpecifierSet> SpecifierSet::parse(std::string_view text) {
  SpecifierSet set;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view clause = detail::strip_python_space(text.substr(start, comma - start));
    start = comma + 1;
    if (clause.empty()) continue;  // packaging skips empty clauses (`>=1,,<2`)
    auto spec = Specifier::parse(clause);
    if (!spec) {
      // Name the clause when the set has more than one.
      std::string message = clause == detail::strip_python_space(text)
                                ? spec.error().message
                                : "clause '" + std::string(clause) + "': " + spec.error().message;
      return std::unexpected(ParseError{std::string(text), std::move(message)});
    }
    SpecifierSet single;
    single.m_specifiers.push_back(std::move(*spec));
    set.add(single);
  }
  return set;
}

std::string SpecifierSet::str() const {
  std::vector<std::string> clauses;
  clauses.reserve(m_specifiers.size());
  for (const Specifier& spec : m_specifiers) clauses.push_back(spec.str());
  std::ranges::sort(clauses);
  std::string out;
  for (const std::string& clause : clauses) {
    if (!out.empty()) out += ',';
    out += clause;
  }
  return out;
}

bool SpecifierSet::contains(const Version& v, Prereleases pre) const {
  // specifiers.py SpecifierSet.contains: the set decides once for all
  // clauses; with no clause and no caller choice pre-releases are denied.
  bool allowed = pre == Prereleases::allow;
  if (pre == Prereleases::implied) {
    allowed = std::ranges::any_of(m_specifiers, &Specifier::implies_prereleases);
  }
  if (v.is_prerelease() && !allowed) return false;
  const Prereleases each = allowed ? Prereleases::allow : Prereleases::deny;
  return std::ranges::all_of(m_specifiers,
                             [&](const Specifier& spec) { return spec.contains(v, each); });
}

void SpecifierSet::add(const SpecifierSet& other) {
  // A frozenset in packaging: a clause equal (by canonical key) to one
  // already present is dropped, and the first spelling is kept.
  for (const Specifier& spec : other.m_specifiers) {
    const auto key = canonical_key(spec);
    const bool present = std::ranges::any_of(
        m_specifiers, [&](const Specifier& mine) { return canonical_key(mine) == key; });
    if (!present) m_specifiers.push_back(spec);
  }
}

}  // namespace wheelmod::pep
