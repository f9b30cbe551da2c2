#include "pep/version.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <tuple>
#include <utility>

#include "ascii.hpp"
#include "python_space.hpp"

namespace wheelmod::pep {
namespace {

using detail::is_alnum;
using detail::is_digit;
using detail::is_separator;
using detail::to_lower;

// PEP 440 "Pre-release spelling": longer words first, so `alpha` is not read
// as `a` followed by junk (the regex's backtracking reaches the same result).
constexpr std::array<std::string_view, 8> k_pre_words{"preview", "pre", "alpha", "a",
                                                      "beta",    "b",   "rc",    "c"};
constexpr std::array<PrePhase, 8> k_pre_phases{PrePhase::rc,    PrePhase::rc,   PrePhase::alpha,
                                               PrePhase::alpha, PrePhase::beta, PrePhase::beta,
                                               PrePhase::rc,    PrePhase::rc};
// PEP 440 "Post-release spelling".
constexpr std::array<std::string_view, 3> k_post_spellings{"post", "rev", "r"};
constexpr std::array<std::string_view, 1> k_dev_spellings{"dev"};

/// Reads the version grammar left to right. Every optional part is tried
/// greedily and given back when its keyword does not follow, which is where
/// packaging's backtracking regex ends up too.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : m_text(text) {}

  [[nodiscard]] std::size_t pos() const { return m_pos; }
  [[nodiscard]] bool at_end() const { return m_pos >= m_text.size(); }
  [[nodiscard]] char peek(std::size_t ahead = 0) const {
    return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
  }
  [[nodiscard]] bool digit_at(std::size_t ahead = 0) const { return is_digit(peek(ahead)); }
  [[nodiscard]] std::string_view done() const { return m_text.substr(0, m_pos); }
  [[nodiscard]] std::string_view rest() const { return m_text.substr(m_pos); }
  void skip(std::size_t n = 1) { m_pos += n; }
  void rewind(std::size_t pos) { m_pos = pos; }

  bool take_separator() {
    if (!is_separator(peek())) return false;
    ++m_pos;
    return true;
  }

  /// Case-insensitive keyword.
  bool take_word(std::string_view word) {
    if (m_text.size() - m_pos < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (to_lower(m_text[m_pos + i]) != word[i]) return false;
    }
    m_pos += word.size();
    return true;
  }

  /// A run of digits (the caller checked one is there), as uint64.
  std::expected<std::uint64_t, std::string> take_number(std::string_view part) {
    const std::size_t start = m_pos;
    std::uint64_t value = 0;
    bool overflow = false;
    constexpr std::uint64_t k_max = std::numeric_limits<std::uint64_t>::max();
    while (digit_at()) {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (value > (k_max - digit) / 10) overflow = true;
      value = value * 10 + digit;
      ++m_pos;
    }
    if (overflow) {
      // Python's int is unbounded; wheelmod stores uint64 (see version.hpp).
      return std::unexpected(std::string(part) + " number '" +
                             std::string(m_text.substr(start, m_pos - start)) +
                             "' is too large (at most " + std::to_string(k_max) + ")");
    }
    return value;
  }

  /// `[-_.]? word [-_.]? digits?` (PEP 440 "Pre-release separators",
  /// "Implicit pre-release number" and the same for post and dev). Returns
  /// the index of the word, or nullopt with nothing consumed.
  template <std::size_t N>
  std::expected<std::optional<std::pair<std::size_t, std::uint64_t>>, std::string> take_suffix(
      const std::array<std::string_view, N>& words, std::string_view part) {
    const std::size_t start = m_pos;
    take_separator();
    for (std::size_t i = 0; i < N; ++i) {
      if (!take_word(words[i])) continue;
      take_separator();          // a trailing separator with no number belongs here
      std::uint64_t number = 0;  // implicit number is 0
      if (digit_at()) {
        auto n = take_number(part);
        if (!n) return std::unexpected(n.error());
        number = *n;
      }
      return std::pair{i, number};
    }
    rewind(start);
    return std::nullopt;
  }

 private:
  std::string_view m_text;
  std::size_t m_pos = 0;
};

// What may still follow once the parser has read up to a given part.
constexpr std::array<std::string_view, 4> k_expected_after{
    "another release number (.1), a pre-release (a1, b1, rc1), a post-release (.post1), "
    "a dev-release (.dev1) or a local label (+abc)",
    "a post-release (.post1), a dev-release (.dev1) or a local label (+abc)",
    "a dev-release (.dev1) or a local label (+abc)",
    "a local label (+abc)",
};

}  // namespace

Parsed<Version> Version::parse(std::string_view text) {
  const auto fail = [&](std::string message) -> Parsed<Version> {
    return std::unexpected(ParseError{std::string(text), std::move(message)});
  };
  // packaging wraps VERSION_PATTERN in `^\s*` and `\s*$`, case-insensitive.
  const std::string_view body = detail::strip_python_space(text);
  if (body.empty()) return fail("version is empty");

  Version v;
  Scanner s(body);
  if (to_lower(s.peek()) == 'v') s.skip();  // PEP 440 "Preceding v character"
  if (!s.digit_at()) {
    return fail("a version starts with a number (like '1.0'), got '" + std::string(s.rest()) + "'");
  }
  auto first = s.take_number("release");
  if (!first) return fail(first.error());
  if (s.peek() == '!') {  // PEP 440 "Version epochs"
    v.m_epoch = *first;
    s.skip();
    if (!s.digit_at()) {
      return fail("epoch '" + std::string(s.done()) + "' must be followed by a release number");
    }
    first = s.take_number("release");
    if (!first) return fail(first.error());
  }
  v.m_release.push_back(*first);
  while (s.peek() == '.' && s.digit_at(1)) {
    s.skip();
    auto n = s.take_number("release");
    if (!n) return fail(n.error());
    v.m_release.push_back(*n);
  }
  std::size_t stage = 0;  // index into k_expected_after

  auto pre = s.take_suffix(k_pre_words, "pre-release");
  if (!pre) return fail(pre.error());
  if (*pre) {
    v.m_pre = PreRelease{k_pre_phases[(*pre)->first], (*pre)->second};
    stage = 1;
  }

  // PEP 440 "Implicit post releases": `1.0-1` is `1.0.post1`.
  if (s.peek() == '-' && s.digit_at(1)) {
    s.skip();
    auto n = s.take_number("post-release");
    if (!n) return fail(n.error());
    v.m_post = *n;
    stage = 2;
  } else {
    auto post = s.take_suffix(k_post_spellings, "post-release");
    if (!post) return fail(post.error());
    if (*post) {
      v.m_post = (*post)->second;
      stage = 2;
    }
  }

  auto dev = s.take_suffix(k_dev_spellings, "dev-release");
  if (!dev) return fail(dev.error());
  if (*dev) {
    v.m_dev = (*dev)->second;
    stage = 3;
  }

  // PEP 440 "Local version identifiers" and "Local version segments":
  // alphanumerics separated by `.`, `-` or `_`, lower-cased.
  if (s.peek() == '+') {
    const std::size_t plus = s.pos();
    s.skip();
    while (true) {
      const std::size_t start = s.pos();
      bool numeric = true;
      while (is_alnum(s.peek())) {
        numeric = numeric && s.digit_at();
        s.skip();
      }
      if (s.pos() == start) {
        return fail("local label '" + std::string(body.substr(plus)) +
                    "' must be letters and digits separated by '.', '-' or '_'");
      }
      if (numeric) {
        s.rewind(start);
        auto n = s.take_number("local label");
        if (!n) return fail(n.error());
        v.m_local.emplace_back(*n);
      } else {
        std::string segment(body.substr(start, s.pos() - start));
        std::ranges::transform(segment, segment.begin(), to_lower);
        v.m_local.emplace_back(std::move(segment));
      }
      if (!s.take_separator()) break;
    }
    if (!s.at_end()) {
      return fail("local label '" + std::string(body.substr(plus)) +
                  "' must be letters and digits separated by '.', '-' or '_'");
    }
  }

  if (!s.at_end()) {
    return fail("unexpected '" + std::string(s.rest()) + "' after '" + std::string(s.done()) +
                "'; expected " + std::string(k_expected_after[stage]));
  }
  return v;
}

std::string Version::local_str() const {
  std::string out;
  for (const LocalSegment& segment : m_local) {
    if (!out.empty()) out += '.';
    if (const auto* number = std::get_if<std::uint64_t>(&segment)) {
      out += std::to_string(*number);
    } else {
      out += std::get<std::string>(segment);
    }
  }
  return out;
}

std::string Version::str() const {
  std::string out;
  if (m_epoch != 0) out += std::to_string(m_epoch) + "!";
  for (std::size_t i = 0; i < m_release.size(); ++i) {
    if (i != 0) out += '.';
    out += std::to_string(m_release[i]);
  }
  if (m_pre) out += std::string(pre_phase_text(m_pre->phase)) + std::to_string(m_pre->number);
  if (m_post) out += ".post" + std::to_string(*m_post);
  if (m_dev) out += ".dev" + std::to_string(*m_dev);
  if (!m_local.empty()) out += "+" + local_str();
  return out;
}

Version Version::public_version() const {
  Version v = *this;
  v.m_local.clear();
  return v;
}

Version Version::base_version() const {
  Version v;
  v.m_epoch = m_epoch;
  v.m_release = m_release;
  return v;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (const auto c = a.m_epoch <=> b.m_epoch; c != 0) return c;
  // packaging's _cmpkey drops trailing zeros of the release; comparing with
  // missing components read as 0 gives the same order.
  const std::size_t n = std::max(a.m_release.size(), b.m_release.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = i < a.m_release.size() ? a.m_release[i] : 0;
    const std::uint64_t y = i < b.m_release.size() ? b.m_release[i] : 0;
    if (const auto c = x <=> y; c != 0) return c;
  }
  // PEP 440 "Summary of permitted suffixes and relative ordering": a dev-only
  // release (1.0.dev1) sorts before all pre-releases of 1.0, a final after.
  const auto pre_key = [](const Version& v) {
    if (v.m_pre) return std::tuple{1, static_cast<int>(v.m_pre->phase), v.m_pre->number};
    const int rank = (!v.m_post && v.m_dev) ? 0 : 2;
    return std::tuple{rank, 0, std::uint64_t{0}};
  };
  if (const auto c = pre_key(a) <=> pre_key(b); c != 0) return c;
  if (const auto c = a.m_post <=> b.m_post; c != 0) return c;  // no post < any post
  // No dev segment sorts after any dev segment.
  if (a.m_dev != b.m_dev) {
    if (!a.m_dev) return std::strong_ordering::greater;
    if (!b.m_dev) return std::strong_ordering::less;
    return *a.m_dev <=> *b.m_dev;
  }
  // No local < any local; segments lexicographic, a shorter prefix first;
  // variant order puts alphanumeric (index 0) before numeric (index 1).
  return std::lexicographical_compare_three_way(a.m_local.begin(), a.m_local.end(),
                                                b.m_local.begin(), b.m_local.end());
}

std::string canonicalize_version_text(std::string_view text) {
  const auto version = Version::parse(text);
  return version ? version->str() : std::string(text);
}

std::string_view pre_phase_text(PrePhase phase) {
  switch (phase) {
    case PrePhase::alpha:
      return "a";
    case PrePhase::beta:
      return "b";
    case PrePhase::rc:
      return "rc";
  }
  return "rc";
}

}  // namespace wheelmod::pep
