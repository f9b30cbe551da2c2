#include "pep/tags.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "ascii.hpp"

namespace wheelmod::pep {
namespace {

using detail::ascii_lower;
using detail::is_digit;

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t pos = text.find(sep); pos != std::string_view::npos;
       pos = text.find(sep, start)) {
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// Leading ASCII digits of `text` as a number no larger than `limit`;
// consumes them. nullopt when there are none or the value is too large.
std::optional<unsigned> take_number(std::string_view& text, unsigned limit) {
  std::size_t len = 0;
  while (len < text.size() && is_digit(text[len])) ++len;
  unsigned value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + len, value);
  if (len == 0 || ec != std::errc{} || value > limit) return std::nullopt;
  text.remove_prefix(len);
  return value;
}

// Bounds that keep the generated lists small (each glibc major above 2 adds
// 51 platforms); real values are far below.
constexpr unsigned k_max_glibc_major = 9;
constexpr unsigned k_max_glibc_minor = 999;
constexpr unsigned k_max_python_minor = 999;

// packaging._manylinux._LAST_GLIBC_MINOR: a guess at the last minor of an
// older glibc major, used only if glibc ever reaches 3.x.
constexpr unsigned k_last_glibc_minor = 50;

// Python's str.replace(old, new): every occurrence.
std::string replace_all(std::string text, std::string_view old, std::string_view replacement) {
  for (std::size_t pos = text.find(old); pos != std::string::npos;
       pos = text.find(old, pos + replacement.size())) {
    text.replace(pos, old.size(), replacement);
  }
  return text;
}

// packaging._manylinux._have_compatible_abi on a normal CPython of `arch`:
// the armv7l (hard-float) and i686 ELF probes succeed; any other arch outside
// this set gets no manylinux tags in packaging 23.0 (riscv64, loongarch64).
bool has_manylinux_abi(std::string_view arch) {
  constexpr std::string_view k_arches[] = {"x86_64", "aarch64", "ppc64", "ppc64le",
                                           "s390x",  "i686",    "armv7l"};
  return std::ranges::find(k_arches, arch) != std::end(k_arches);
}

// PEP 600 manylinux_x_y tags from the target glibc down, with the legacy
// names of PEP 513 / 571 / 599 right after the glibc they stand for, as
// packaging._manylinux.platform_tags yields them.
void append_manylinux(const TagTarget& target, std::vector<std::string>& out) {
  if (!has_manylinux_abi(target.arch)) return;
  // PEP 599/600: no manylinux below glibc 2.17, except 2.5 on x86 (PEP 513).
  const bool x86 = target.arch == "x86_64" || target.arch == "i686";
  const unsigned oldest_2x_minor = x86 ? 5 : 17;
  const std::string linux_tag = "linux_" + target.arch;

  // Newer glibc majors are compatible with older ones: after the target's
  // own major, each older major from its guessed last minor down to 0.
  for (unsigned major = target.glibc.major; major >= 2; --major) {
    const unsigned top = major == target.glibc.major ? target.glibc.minor : k_last_glibc_minor;
    const unsigned bottom = major == 2 ? oldest_2x_minor : 0;
    for (unsigned minor = top + 1; minor-- > bottom;) {
      const std::string pep600 = "manylinux_" + std::to_string(major) + "_" + std::to_string(minor);
      out.push_back(replace_all(linux_tag, "linux", pep600));
      const char* legacy = nullptr;
      if (major == 2 && minor == 17) legacy = "manylinux2014";  // PEP 599
      if (major == 2 && minor == 12) legacy = "manylinux2010";  // PEP 571
      if (major == 2 && minor == 5) legacy = "manylinux1";      // PEP 513
      if (legacy != nullptr) out.push_back(replace_all(linux_tag, "linux", legacy));
    }
  }
  // packaging also walks majors below 2 when the host glibc is 0.x or 1.x
  // (down to x.0); keep that for fidelity, though no such glibc exists.
  if (target.glibc.major < 2) {
    for (unsigned minor = target.glibc.minor + 1; minor-- > 0;) {
      out.push_back(replace_all(
          linux_tag, "linux",
          "manylinux_" + std::to_string(target.glibc.major) + "_" + std::to_string(minor)));
    }
  }
}

std::string python_nodot(unsigned major, unsigned minor) {
  return std::to_string(major) + std::to_string(minor);
}

}  // namespace

std::string Tag::str() const { return interpreter + "-" + abi + "-" + platform; }

// packaging.tags.parse_tag: exactly three '-'-separated fields, each a
// '.'-separated set (PEP 425 "Compressed Tag Sets"); empty members are kept
// as packaging 23.0 keeps them. A set, so duplicates are dropped.
Parsed<std::vector<Tag>> parse_tag_set(std::string_view text) {
  const auto fields = split(text, '-');
  if (fields.size() != 3) {
    return std::unexpected(ParseError{
        std::string(text), "expected interpreter-abi-platform (3 '-'-separated fields), got " +
                               std::to_string(fields.size()) + " fields"});
  }
  std::vector<Tag> tags;
  for (const auto interpreter : split(fields[0], '.')) {
    for (const auto abi : split(fields[1], '.')) {
      for (const auto platform : split(fields[2], '.')) {
        Tag tag{ascii_lower(interpreter), ascii_lower(abi), ascii_lower(platform)};
        if (std::ranges::find(tags, tag) == tags.end()) tags.push_back(std::move(tag));
      }
    }
  }
  return tags;
}

// packaging._manylinux._parse_glibc_version: `major.minor` at the start,
// anything after ignored (Linaro's "2.20-2014.11"). Surrounding whitespace
// of command output is trimmed first.
Parsed<GlibcVersion> GlibcVersion::parse(std::string_view text) {
  std::string_view rest = text;
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  const auto fail = [&] {
    return std::unexpected(ParseError{
        std::string(text), "glibc version must look like '2.28' (major.minor, major at most " +
                               std::to_string(k_max_glibc_major) + ")"});
  };
  const auto major = take_number(rest, k_max_glibc_major);
  if (!major || rest.empty() || rest.front() != '.') return fail();
  rest.remove_prefix(1);
  const auto minor = take_number(rest, k_max_glibc_minor);
  if (!minor) return fail();
  return GlibcVersion{*major, *minor};
}

// packaging 23.0 itself needs Python >= 3.7, so sys_tags() exists only for
// CPython 3.7 and newer; Python 2 is rejected. `t` (free-threaded, PEP 703)
// exists from 3.13 on.
Parsed<TagTarget> TagTarget::with_python(std::string_view python, std::string_view arch,
                                         GlibcVersion glibc) {
  const auto fail = [&](std::string message) {
    return std::unexpected(ParseError{std::string(python), std::move(message)});
  };
  std::string_view rest = python;
  const auto major = take_number(rest, 9);
  std::optional<unsigned> minor;
  if (major && !rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    minor = take_number(rest, k_max_python_minor);
  }
  const bool free_threaded = rest == "t";
  if (!major || !minor || !(rest.empty() || free_threaded)) {
    return fail("python version must look like '3.12' or '3.13t' (free-threaded)");
  }
  if (*major != 3 || *minor < 7) {
    return fail("only CPython 3.7 and newer are supported (packaging's tag rules)");
  }
  if (free_threaded && *minor < 13) {
    return fail("free-threaded ('t') builds exist from CPython 3.13 on");
  }
  // sysconfig.get_platform() gives `linux-<uname -m>`: lower case, and
  // '.'/'-' would be normalised away, so accept only what can appear.
  const bool arch_ok = !arch.empty() && std::ranges::all_of(arch, [](char c) {
    return (c >= 'a' && c <= 'z') || is_digit(c) || c == '_';
  });
  if (!arch_ok) {
    return std::unexpected(ParseError{
        std::string(arch),
        "architecture must be a `uname -m` name in lower case, such as x86_64 or aarch64"});
  }
  TagTarget target;
  target.python_major = *major;
  target.python_minor = *minor;
  target.free_threaded = free_threaded;
  target.arch = std::string(arch);
  target.glibc = glibc;
  return target;
}

// packaging.tags._linux_platforms on a glibc host: manylinux tags, no
// musllinux, then the plain `linux_<arch>` of PEP 425.
std::vector<std::string> supported_platforms(const TagTarget& target) {
  std::vector<std::string> platforms;
  append_manylinux(target, platforms);
  platforms.push_back("linux_" + target.arch);
  return platforms;
}

// packaging.tags.sys_tags on CPython = cpython_tags() then compatible_tags().
std::vector<Tag> supported_tags(const TagTarget& target) {
  const auto platforms = supported_platforms(target);
  const unsigned major = target.python_major;
  const unsigned minor = target.python_minor;
  const std::string interpreter = "cp" + python_nodot(major, minor);
  // _cpython_abis on a non-debug build: `m` (pymalloc) before 3.8; the
  // free-threaded `t` flag as packaging >= 24.1 adds it (Py_GIL_DISABLED).
  std::string abi = interpreter;
  if (target.free_threaded) abi += "t";
  if (major == 3 && minor < 8) abi += "m";
  // PEP 384's stable ABI, from 3.2 on; PEP 703: not available on
  // free-threaded builds, so packaging >= 24.1 yields no abi3 tags for them
  // (packaging 23.0 predates free-threading; 26.x adds `abi3t`, PEP 803,
  // which no wheel for 3.13t/3.14t carries).
  const bool abi3 = !target.free_threaded && (major > 3 || (major == 3 && minor >= 2));

  std::vector<Tag> tags;
  const auto add_all = [&](const std::string& interp, const std::string& tag_abi) {
    for (const auto& platform : platforms) tags.push_back(Tag{interp, tag_abi, platform});
  };
  add_all(interpreter, abi);
  if (abi3) add_all(interpreter, "abi3");
  add_all(interpreter, "none");
  if (abi3) {
    for (unsigned older = minor; older-- > 2;) add_all("cp" + python_nodot(major, older), "abi3");
  }

  // compatible_tags / _py_interpreter_range: pyXY, pyX, then pyX(Y-1)..pyX0.
  std::vector<std::string> py_range{"py" + python_nodot(major, minor),
                                    "py" + std::to_string(major)};
  for (unsigned older = minor; older-- > 0;) py_range.push_back("py" + python_nodot(major, older));
  for (const auto& py : py_range) add_all(py, "none");
  tags.push_back(Tag{interpreter, "none", "any"});
  for (const auto& py : py_range) tags.push_back(Tag{py, "none", "any"});
  return tags;
}

TagPriority::TagPriority(const std::vector<Tag>& supported) {
  for (std::size_t i = 0; i < supported.size(); ++i) m_rank.try_emplace(supported[i].str(), i);
}

std::optional<std::size_t> TagPriority::rank(const Tag& tag) const {
  const auto it = m_rank.find(tag.str());
  if (it == m_rank.end()) return std::nullopt;
  return it->second;
}

std::optional<std::size_t> TagPriority::best_rank(const std::vector<Tag>& tags) const {
  std::optional<std::size_t> best;
  for (const auto& tag : tags) {
    const auto r = rank(tag);
    if (r && (!best || *r < *best)) best = r;
  }
  return best;
}

}  // namespace wheelmod::pep
