// Platform compatibility tags (PEP 425, PEP 600 manylinux_x_y) and the tags a target accepts, best
// first: the list and order of python3-packaging's `packaging.tags.sys_tags()` on such a machine,
// which pip and `pip debug --verbose` use.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pep/parse_error.hpp"

namespace wheelmod::pep {

/// One `interpreter-abi-platform` triple, lower case.
struct Tag {
  std::string interpreter;  // cp312, py3
  std::string abi;          // cp312, cp313t, abi3, none
  std::string platform;     // manylinux_2_28_x86_64, linux_x86_64, any

  [[nodiscard]] std::string str() const;
  friend auto operator<=>(const Tag&, const Tag&) = default;
};

/// Expands a compressed tag set (PEP 425), lower-cased as packaging.tags.parse_tag does:
/// `cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64` gives two tags.
Parsed<std::vector<Tag>> parse_tag_set(std::string_view text);

/// glibc version, as `ldd --version` or gnu_get_libc_version() gives it.
struct GlibcVersion {
  unsigned major = 2;
  unsigned minor = 17;
  static Parsed<GlibcVersion> parse(std::string_view text);  // "2.28"
  friend auto operator<=>(const GlibcVersion&, const GlibcVersion&) = default;
};

/// The machine a wheel is chosen for: CPython X.Y (free-threaded or not), arch (uname -m), glibc.
struct TagTarget {
  unsigned python_major = 3;
  unsigned python_minor = 12;
  bool free_threaded = false;  // `3.13t`
  std::string arch = "x86_64";
  GlibcVersion glibc;

  /// Parses "3.12" or "3.13t" into the python fields.
  static Parsed<TagTarget> with_python(std::string_view python, std::string_view arch,
                                       GlibcVersion glibc);
};

/// Tags `target` accepts, best first (packaging.tags.cpython_tags / compatible_tags):
///   cpXY-cpXY[t]-P, cpXY-abi3-P, cpXY-none-P, then cpXW-abi3-P for older minors (P over the
///   platforms), then pyXY-none-P, py3-none-P, ... and the `any` tags.
/// Platforms, best first: manylinux_2_N down to the oldest glibc for the arch, the legacy aliases
/// manylinux2014 (2.17), manylinux2010 (2.12) and manylinux1 (2.5) right after their PEP 600
/// name, then linux_<arch>.
std::vector<Tag> supported_tags(const TagTarget& target);

/// The platform tags alone, best first (the P list above).
std::vector<std::string> supported_platforms(const TagTarget& target);

/// Rank of tags for one target: lower is better.
class TagPriority {
 public:
  explicit TagPriority(const std::vector<Tag>& supported);
  /// Index of `tag` in the supported list; nullopt when not supported.
  [[nodiscard]] std::optional<std::size_t> rank(const Tag& tag) const;
  /// Best rank among `tags` (a wheel's tag set); nullopt if none is supported.
  [[nodiscard]] std::optional<std::size_t> best_rank(const std::vector<Tag>& tags) const;

 private:
  std::unordered_map<std::string, std::size_t> m_rank;
};

}  // namespace wheelmod::pep
