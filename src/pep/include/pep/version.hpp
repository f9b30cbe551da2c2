// PEP 440 versions: parse, normalise, compare.
// Reference: https://peps.python.org/pep-0440/ and python3-packaging 23.0
// (packaging/version.py), which pip uses; the differential tests hold this
// code to it.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::pep {

/// The pre-release phase, after normalisation (alpha→a, beta→b, c/pre/preview→rc).
enum class PrePhase { alpha, beta, rc };

/// The normalised spelling: "a", "b", "rc".
std::string_view pre_phase_text(PrePhase phase);

struct PreRelease {
  PrePhase phase;
  std::uint64_t number;
  friend auto operator<=>(const PreRelease&, const PreRelease&) = default;
};

/// One dot-separated segment of a local label (`cu126`, `4`). Numeric
/// segments compare numerically and sort after alphanumeric ones (PEP 440
/// "Local version identifiers").
using LocalSegment = std::variant<std::string, std::uint64_t>;

/// A PEP 440 version. Numbers are held as uint64; a component that does not
/// fit is a parse error (a deliberate difference from Python's unbounded
/// ints, documented in tests/differential/README.md).
class Version {
 public:
  /// Parses `text` (surrounding whitespace allowed, case-insensitive, the
  /// spellings PEP 440 "Normalization" allows: `v` prefix, `-`/`_` separators,
  /// implicit numbers, `1.0-1` post releases).
  static Parsed<Version> parse(std::string_view text);

  [[nodiscard]] std::uint64_t epoch() const { return m_epoch; }
  [[nodiscard]] const std::vector<std::uint64_t>& release() const { return m_release; }
  [[nodiscard]] const std::optional<PreRelease>& pre() const { return m_pre; }
  [[nodiscard]] const std::optional<std::uint64_t>& post() const { return m_post; }
  [[nodiscard]] const std::optional<std::uint64_t>& dev() const { return m_dev; }
  [[nodiscard]] const std::vector<LocalSegment>& local() const { return m_local; }

  /// Normalised form: `1!2.0rc1.post2.dev3+cu126`, as packaging's str().
  [[nodiscard]] std::string str() const;
  /// Normalised local label without the `+` (`cu126`); empty when none.
  [[nodiscard]] std::string local_str() const;
  /// The version without its local label (packaging's `.public`).
  [[nodiscard]] Version public_version() const;
  /// Epoch and release only (packaging's `.base_version`).
  [[nodiscard]] Version base_version() const;

  /// True for dev and pre-releases (packaging's `is_prerelease`).
  [[nodiscard]] bool is_prerelease() const { return m_pre.has_value() || m_dev.has_value(); }
  [[nodiscard]] bool is_postrelease() const { return m_post.has_value(); }
  [[nodiscard]] bool is_devrelease() const { return m_dev.has_value(); }
  [[nodiscard]] bool has_local() const { return !m_local.empty(); }

  /// Total order of PEP 440 "Summary of permitted suffixes and relative
  /// ordering"; trailing zeros of the release do not count (1.0 == 1.0.0).
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) {
    return (a <=> b) == std::strong_ordering::equal;
  }

 private:
  std::uint64_t m_epoch = 0;
  std::vector<std::uint64_t> m_release;
  std::optional<PreRelease> m_pre;
  std::optional<std::uint64_t> m_post;
  std::optional<std::uint64_t> m_dev;
  std::vector<LocalSegment> m_local;
};

/// packaging.utils.canonicalize_version with strip_trailing_zero=false:
/// the normalised string of a valid version, else `text` unchanged.
std::string canonicalize_version_text(std::string_view text);

}  // namespace wheelmod::pep
