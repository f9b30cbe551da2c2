#include "mirror/spec.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <utility>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "pep/name.hpp"
#include "yaml/cursor.hpp"

namespace wheelmod::mirror {

namespace {

using yaml::Cursor;

constexpr std::array<std::string_view, 4> k_arches = {"x86_64", "aarch64", "ppc64le", "s390x"};

constexpr std::string_view k_variant_hint =
    "write cpu, xpu, cu<digits> (cu126), rocm<X.Y[.Z]> (rocm6.2.4), or a range: "
    "{cuda: \">=12.4\"} / {rocm: \">=6.2\"}";

constexpr std::string_view k_size_hint =
    "write a whole number with a unit, e.g. \"200 GiB\" or \"512 MB\" (B, kB, MB, GB, TB; "
    "KiB, MiB, GiB, TiB), or a number of bytes";

// The cursor has no type query; `dependencies` and the `variants` items may
// be a scalar or a map, and only entries() tells a map apart.
bool is_map(const Cursor& value) {
  try {
    (void)value.entries();
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

// YAML 1.2 core schema booleans only: `yes`/`on` are YAML 1.1 and read as
// strings by other tools, so they would mean different things to different readers.
bool read_bool(const Cursor& value) {
  if (value.is_null()) value.fail("expected true or false, got null");
  const std::string text = value.text();
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  value.fail("expected true or false, got '" + text + "'");
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// The directory names download.pytorch.org uses: cpu, xpu, cu<digits>
// (cu92, cu126), rocm<digits>(.<digits>)+ (rocm6.2, rocm6.2.4).
bool is_variant_name(std::string_view name) {
  if (name == "cpu" || name == "xpu") return true;
  if (name.starts_with("cu")) return all_digits(name.substr(2));
  if (!name.starts_with("rocm")) return false;
  std::string_view rest = name.substr(4);
  std::size_t parts = 0;
  while (true) {
    const auto dot = rest.find('.');
    if (!all_digits(rest.substr(0, dot))) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    rest = rest.substr(dot + 1);
  }
  return parts >= 2;
}

// An index root: http(s):// or file:// URL, or an absolute path. Trailing
// slashes go, because variant directories are joined on with '/'.
std::string read_index(const Cursor& value) {
  std::string url = value.text();
  const auto scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  const std::string rest = scheme_end == std::string::npos ? url : url.substr(scheme_end + 3);
  bool ok = false;
  if (scheme == "http" || scheme == "https") {
    const std::string authority = rest.substr(0, rest.find('/'));
    const auto at = authority.rfind('@');
    ok = authority.size() > (at == std::string::npos ? 0 : at + 1);  // a host after any user:pass@
  } else if (scheme == "file") {
    ok = rest.starts_with('/');  // file:///abs/path (RFC 8089, empty authority)
  } else if (scheme_end == std::string::npos) {
    ok = url.starts_with('/');
  }
  if (!ok) {
    value.fail("'" + mask_credentials(url) + "' is not an index root",
               "write an https:// or http:// URL, a file:///absolute/path URL, or an absolute "
               "path (/srv/wheels)");
  }
  while (url.size() > 1 && url.back() == '/' && !url.ends_with(":///") && !url.ends_with("://")) {
    url.pop_back();
  }
  return url;
}

// "*", empty and null all mean every version.
pep::SpecifierSet read_specifier(const Cursor& value, std::string_view example) {
  if (value.is_null()) return {};
  const std::string text = value.text();
  if (text == "*") return {};
  auto parsed = pep::SpecifierSet::parse(text);
  if (!parsed) {
    value.fail(parsed.error().describe("version specifier"),
               "write a PEP 440 specifier set such as \"" + std::string(example) +
                   "\", or \"*\" for any version");
  }
  return std::move(*parsed);
}

VariantSelection read_variants(const Cursor& list) {
  VariantSelection out;
  const auto items = list.items();
  if (items.empty()) list.fail("expected at least one variant", std::string(k_variant_hint));
  for (const auto& item : items) {
    if (!is_map(item)) {
      const std::string name = item.text();
      if (!is_variant_name(name)) {
        item.fail("'" + name + "' is not a variant name", std::string(k_variant_hint));
      }
      if (std::ranges::find(out.names, name) != out.names.end()) {
        item.fail("variant '" + name + "' is listed twice");
      }
      out.names.push_back(name);
      continue;
    }
    const auto fields = item.entries({"cuda", "rocm"});
    if (fields.size() != 1) {
      item.fail("expected one key, cuda or rocm", "write each range as its own list item");
    }
    const Cursor& range = fields.front();
    const bool cuda = range.key() == "cuda";
    auto& slot = cuda ? out.cuda : out.rocm;
    if (slot) {
      yaml::fail(range.key_origin(), "a " + range.key() + " range is given twice",
                 "join the clauses into one specifier set (\">=12.4,<13\")");
    }
    slot = read_specifier(range, cuda ? ">=12.4" : ">=6.2,<7");
  }
  return out;
}

std::vector<PackageSelection> read_packages(const Cursor& map) {
  std::vector<PackageSelection> out;
  std::vector<std::string> spelled;  // the key as written, for the clash message
  const auto entries = map.entries();
  if (entries.empty()) map.fail("expected at least one package", "write `torch: \">=2.6\"`");
  for (const auto& entry : entries) {
    if (!pep::is_valid_name(entry.key())) {
      yaml::fail(entry.key_origin(), "'" + entry.key() + "' is not a project name",
                 "PEP 508 names are ASCII letters and digits with '-', '_', '.' inside");
    }
    std::string name = pep::canonicalize_name(entry.key());
    const auto same = std::ranges::find(out, name, &PackageSelection::name);
    if (same != out.end()) {
      const auto& first = spelled[static_cast<std::size_t>(same - out.begin())];
      yaml::fail(entry.key_origin(),
                 "'" + entry.key() + "' and '" + first + "' are the same project (" + name + ")",
                 "PEP 503 normalises case and runs of '-', '_', '.'; keep one entry");
    }
    out.push_back({std::move(name), read_specifier(entry, ">=2.6,<2.7")});
    spelled.push_back(entry.key());
  }
  return out;
}

std::vector<std::string> read_python(const Cursor& list) {
  std::vector<std::string> out;
  const auto items = list.items();
  if (items.empty()) list.fail("expected at least one Python version", "write [\"3.12\"]");
  for (const auto& item : items) {
    std::string python = item.version();
    if (auto checked = pep::TagTarget::with_python(python, "x86_64", {}); !checked) {
      item.fail(checked.error().describe("Python version"), "write \"3.12\" or \"3.13t\"");
    }
    if (std::ranges::find(out, python) != out.end()) {
      item.fail("Python " + python + " is listed twice");
    }
    out.push_back(std::move(python));
  }
  return out;
}

std::vector<std::string> read_arches(const Cursor& list) {
  std::vector<std::string> out;
  const auto items = list.items();
  if (items.empty()) list.fail("expected at least one architecture", "write [x86_64]");
  for (const auto& item : items) {
    std::string arch = item.text();
    if (std::ranges::find(k_arches, arch) == k_arches.end()) {
      item.fail("unknown architecture '" + arch + "'",
                "write one of " + join(k_arches, ", ") + " (as `uname -m` prints them)");
    }
    if (std::ranges::find(out, arch) != out.end()) item.fail(arch + " is listed twice");
    out.push_back(std::move(arch));
  }
  return out;
}

void read_dependencies(const Cursor& value, MirrorSpec& spec) {
  if (!is_map(value)) {
    spec.follow_dependencies = read_bool(value);
    return;
  }
  const auto fields = value.entries({"follow", "index"});
  if (const Cursor* follow = yaml::find(fields, "follow")) {
    spec.follow_dependencies = read_bool(*follow);
  }
  if (const Cursor* index = yaml::find(fields, "index")) spec.dependency_index = read_index(*index);
}

std::uint64_t read_size(const Cursor& value) {
  const std::string text = value.text();
  const auto size = parse_size(text);
  if (!size || *size == 0) {
    value.fail("expected a positive size, got '" + text + "'", std::string(k_size_hint));
  }
  return *size;
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text) {
  constexpr std::string_view k_space = " \t";
  const auto first = text.find_first_not_of(k_space);
  if (first == std::string_view::npos) return std::nullopt;
  text = text.substr(first, text.find_last_not_of(k_space) - first + 1);

  const auto digits_end = text.find_first_not_of("0123456789");
  std::uint64_t number = 0;
  const std::string_view digits = text.substr(0, digits_end);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (digits.empty() || error != std::errc{}) return std::nullopt;

  std::string_view unit = digits_end == std::string_view::npos ? "" : text.substr(digits_end);
  unit.remove_prefix(std::min(unit.size(), unit.find_first_not_of(k_space)));
  struct Unit {
    std::string_view name;
    std::uint64_t bytes;
  };
  constexpr std::uint64_t k_kilo = 1000;
  constexpr std::uint64_t k_kibi = 1024;
  static constexpr std::array<Unit, 11> k_units = {{
      {"", 1},
      {"B", 1},
      {"kB", k_kilo},
      {"KB", k_kilo},
      {"MB", k_kilo * k_kilo},
      {"GB", k_kilo * k_kilo * k_kilo},
      {"TB", k_kilo * k_kilo * k_kilo * k_kilo},
      {"KiB", k_kibi},
      {"MiB", k_kibi * k_kibi},
      {"GiB", k_kibi * k_kibi * k_kibi},
      {"TiB", k_kibi * k_kibi * k_kibi * k_kibi},
  }};
  const auto found = std::ranges::find(k_units, unit, &Unit::name);
  if (found == k_units.end()) return std::nullopt;
  if (number > std::numeric_limits<std::uint64_t>::max() / found->bytes) return std::nullopt;
  return number * found->bytes;
}

MirrorSpec load_spec(const std::filesystem::path& file) {
  const Cursor root = Cursor::load_file(file);
  MirrorSpec spec;
  spec.file = file;
  const auto fields = root.entries(
      {"index", "variants", "packages", "python", "arches", "glibc", "dependencies", "size_limit"});
  if (const Cursor* index = yaml::find(fields, "index")) {
    spec.index = read_index(*index);
    spec.index_given = true;
  }
  spec.variants = read_variants(yaml::require(root, fields, "variants"));
  spec.packages = read_packages(yaml::require(root, fields, "packages"));
  spec.python = read_python(yaml::require(root, fields, "python"));
  spec.arches = read_arches(yaml::require(root, fields, "arches"));
  if (const Cursor* glibc = yaml::find(fields, "glibc")) {
    auto parsed = pep::GlibcVersion::parse(glibc->version());
    if (!parsed) glibc->fail(parsed.error().describe("glibc version"), "write \"2.28\"");
    spec.glibc = *parsed;
  }
  if (const Cursor* dependencies = yaml::find(fields, "dependencies")) {
    read_dependencies(*dependencies, spec);
  }
  // `size_limit:` with no value means no limit, as leaving the key out does.
  if (const Cursor* size = yaml::find(fields, "size_limit"); size && !size->is_null()) {
    spec.size_limit = read_size(*size);
  }
  return spec;
}

}  // namespace wheelmod::mirror
