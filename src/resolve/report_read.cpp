// Reads a `wheelmod resolve --format json` report back (schema_version 1,
// docs/resolve-report.md) for `wheelmod fetch --from-report`. The file may
// have been edited by hand, and its file names and URLs decide what is
// downloaded and where it is written, so every field is type-checked and
// each wheel is checked against its own file name before it is trusted.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "index_client/candidates.hpp"
#include "pep/name.hpp"
#include "pep/version.hpp"
#include "pep/wheel_filename.hpp"
#include "resolve/report.hpp"

namespace wheelmod::resolve {

namespace {

using nlohmann::json;

constexpr std::uint64_t k_schema_version = 1;
constexpr std::size_t k_sha256_hex_digits = 64;
constexpr std::size_t k_shown_max = 60;
constexpr std::string_view k_hint =
    "write the report with `wheelmod resolve --format json`, or fix the field";

constexpr std::array k_resolutions{
    DependencyResolution::chosen_wheel, DependencyResolution::eb_module,
    DependencyResolution::bundled_wheel, DependencyResolution::missing};
constexpr std::array k_compatibilities{Compatibility::exact, Compatibility::compatible,
                                       Compatibility::incompatible, Compatibility::unknown};

enum class Presence { required, optional };

// A value as JSON for a message, shortened. A hand-edited file may hold
// invalid UTF-8, which dump() would otherwise throw on.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= k_shown_max) return text;
  std::size_t cut = k_shown_max - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
  return text.substr(0, cut) + "...";
}

std::string member_path(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

std::string element_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// What the downloader can fetch: http(s) and file URLs (schemes are
// case-insensitive, RFC 3986 section 3.1) or an absolute local path.
bool is_fetchable_url(std::string_view url) {
  for (const char c : url) {
    if (static_cast<unsigned char>(c) < 0x20U || c == '\x7f') return false;
  }
  if (url.size() > 1 && url.front() == '/') return true;
  for (const std::string_view scheme : {"http://", "https://", "file://"}) {
    if (url.size() <= scheme.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < scheme.size() && same; ++i) {
      same = ascii_lower(url[i]) == scheme[i];
    }
    if (same) return true;
  }
  return false;
}

// An integer >= 0. Parsed numbers are stored unsigned, but ones set from a
// signed C++ value (as to_json does) are stored signed.
std::optional<std::uint64_t> non_negative(const json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  }
  return std::nullopt;
}

class Reader {
 public:
  explicit Reader(std::string_view source) : m_source(source) {}

  ResolveReport report(const json& document) const;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& what,
                         std::string_view hint = k_hint) const {
    throw UsageError(std::string(m_source), path + ": " + what, std::string(hint));
  }

  [[noreturn]] void fail_type(const std::string& path, std::string_view expected,
                              const json& value) const {
    fail(path, "expected " + std::string(expected) + ", got " + shown(value));
  }

  // `key` of `object`, or nullptr when it is absent and optional.
  const json* member(const json& object, const std::string& path, std::string_view key,
                     Presence presence) const {
    const auto it = object.find(key);
    if (it != object.end()) return &*it;
    if (presence == Presence::required) fail(member_path(path, key), "missing (required)");
    return nullptr;
  }

  // Reads `key` into `out` with `read` when present; `out` keeps its
  // default (the struct's) when the key is absent and optional.
  template <class T, class Read>
  void field(const json& object, const std::string& path, std::string_view key, T& out, Read read,
             Presence presence = Presence::optional) const {
    if (const json* value = member(object, path, key, presence)) {
      out = std::invoke(read, this, *value, member_path(path, key));
    }
  }

  const json& object(const json& value, const std::string& path) const {
    if (!value.is_object()) fail_type(path, "an object", value);
    return value;
  }

  const json& array(const json& value, const std::string& path) const {
    if (!value.is_array()) fail_type(path, "an array", value);
    return value;
  }

  std::string text(const json& value, const std::string& path) const {
    if (!value.is_string()) fail_type(path, "a string", value);
    return value.get<std::string>();
  }

  std::optional<std::string> nullable_text(const json& value, const std::string& path) const {
    if (value.is_null()) return std::nullopt;
    if (!value.is_string()) fail_type(path, "a string or null", value);
    return value.get<std::string>();
  }

  bool boolean(const json& value, const std::string& path) const {
    if (!value.is_boolean()) fail_type(path, "true or false", value);
    return value.get<bool>();
  }

  std::uint64_t count(const json& value, const std::string& path) const {
    const auto number = non_negative(value);
    if (!number) fail_type(path, "a non-negative integer", value);
    return *number;
  }

  std::optional<std::uint64_t> nullable_count(const json& value, const std::string& path) const {
    if (value.is_null()) return std::nullopt;
    const auto number = non_negative(value);
    if (!number) fail_type(path, "a non-negative integer or null", value);
    return number;
  }

  std::vector<std::string> texts(const json& value, const std::string& path) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; const json& element : array(value, path)) {
      out.push_back(text(element, element_path(path, i++)));
    }
    return out;
  }

  // The index's digest, lower-cased so that it compares with ours.
  std::optional<std::string> sha256(const json& value, const std::string& path) const {
    if (value.is_null()) return std::nullopt;
    std::string hex = value.is_string() ? value.get<std::string>() : std::string();
    bool valid = hex.size() == k_sha256_hex_digits;
    for (char& c : hex) {
      valid = valid && is_hex_digit(c);
      c = ascii_lower(c);
    }
    if (!valid) fail_type(path, "64 hex digits or null", value);
    return hex;
  }

  template <class Enum, std::size_t N>
  Enum enumerator(const json& value, const std::string& path, const std::array<Enum, N>& all,
                  std::string_view (*text_of)(Enum)) const {
    if (value.is_string()) {
      for (const Enum e : all) {
        if (value.get_ref<const std::string&>() == text_of(e)) return e;
      }
    }
    std::string choices = "one of";
    for (std::size_t i = 0; i < N; ++i) {
      choices += (i == 0 ? " \"" : ", \"") + std::string(text_of(all[i])) + "\"";
    }
    fail_type(path, choices, value);
  }

  DependencyResolution resolution(const json& value, const std::string& path) const {
    return enumerator(value, path, k_resolutions, &resolution_text);
  }

  Compatibility compatibility(const json& value, const std::string& path) const {
    return enumerator(value, path, k_compatibilities, &compatibility_text);
  }

  Dependency dependency(const json& value, const std::string& path) const;
  std::vector<Dependency> dependencies(const json& value, const std::string& path) const;
  TargetSummary target(const json& value, const std::string& path) const;
  VariantChoice variant(const json& value, const std::string& path) const;
  ChosenWheel wheel(const json& value, const std::string& path) const;
  void check_wheel(ChosenWheel& wheel, const std::string& path) const;
  void check_schema_version(const json& document) const;

  std::string_view m_source;
};

Dependency Reader::dependency(const json& value, const std::string& path) const {
  const json& o = object(value, path);
  Dependency d;
  field(o, path, "requirement", d.requirement, &Reader::text);
  field(o, path, "name", d.name, &Reader::text);
  field(o, path, "resolution", d.resolution, &Reader::resolution);
  // to_json writes an empty provider as null.
  std::optional<std::string> provider;
  field(o, path, "provider", provider, &Reader::nullable_text);
  d.provider = provider.value_or("");
  field(o, path, "provided_version", d.provided_version, &Reader::nullable_text);
  field(o, path, "compatibility", d.compatibility, &Reader::compatibility);
  field(o, path, "note", d.note, &Reader::text);
  if (o.contains("module_source")) field(o, path, "module_source", d.module_source, &Reader::text);
  return d;
}

std::vector<Dependency> Reader::dependencies(const json& value, const std::string& path) const {
  std::vector<Dependency> out;
  for (std::size_t i = 0; const json& element : array(value, path)) {
    out.push_back(dependency(element, element_path(path, i++)));
  }
  return out;
}

TargetSummary Reader::target(const json& value, const std::string& path) const {
  const json& o = object(value, path);
  TargetSummary t;
  field(o, path, "toolchain", t.toolchain, &Reader::nullable_text);
  field(o, path, "generation", t.generation, &Reader::nullable_text);
  field(o, path, "python", t.python, &Reader::text);
  field(o, path, "python_source", t.python_source, &Reader::text);
  field(o, path, "arch", t.arch, &Reader::text);
  field(o, path, "glibc", t.glibc, &Reader::text);
  field(o, path, "accelerator", t.accelerator, &Reader::text);
  field(o, path, "accelerator_source", t.accelerator_source, &Reader::text);
  field(o, path, "nvidia_driver", t.nvidia_driver, &Reader::nullable_text);
  return t;
}

VariantChoice Reader::variant(const json& value, const std::string& path) const {
  const json& o = object(value, path);
  VariantChoice v;
  field(o, path, "name", v.variant, &Reader::text);
  field(o, path, "exact", v.exact, &Reader::boolean);
  field(o, path, "reason", v.reason, &Reader::text);
  field(o, path, "tried", v.tried, &Reader::texts);
  field(o, path, "minimum_driver", v.minimum_driver, &Reader::nullable_text);
  return v;
}

ChosenWheel Reader::wheel(const json& value, const std::string& path) const {
  const json& o = object(value, path);
  constexpr auto required = Presence::required;
  ChosenWheel w;
  field(o, path, "name", w.name, &Reader::text, required);
  field(o, path, "version", w.version, &Reader::text, required);
  field(o, path, "filename", w.filename, &Reader::text, required);
  field(o, path, "url", w.url, &Reader::text, required);
  field(o, path, "sha256", w.sha256, &Reader::sha256, required);
  field(o, path, "size", w.size, &Reader::nullable_count, required);
  field(o, path, "variant", w.variant, &Reader::text);
  field(o, path, "requested", w.requested, &Reader::boolean);
  field(o, path, "best_tag", w.best_tag, &Reader::text);
  field(o, path, "tag_rank", w.tag_rank, &Reader::count);
  field(o, path, "tags_total", w.tags_total, &Reader::count);
  field(o, path, "why", w.why, &Reader::text);
  field(o, path, "metadata_source", w.metadata_source, &Reader::nullable_text);
  field(o, path, "dependencies", w.dependencies, &Reader::dependencies);
  check_wheel(w, path);
  return w;
}

// The file name becomes a path in the destination directory and names what
// is installed, so it must be a PEP 427 wheel name of this very project and
// version. Name and version are kept normalised, as resolve writes them.
void Reader::check_wheel(ChosenWheel& wheel, const std::string& path) const {
  const std::string filename_path = member_path(path, "filename");
  const std::string& filename = wheel.filename;
  if (filename.empty() || filename == "." || filename == ".." ||
      filename.find_first_of(std::string_view("/\0", 2)) != std::string::npos) {
    fail(filename_path,
         "must be a plain file name (no \"/\", not \".\" or \"..\"), got " + shown(json(filename)));
  }
  // As an index's names (index_client::is_wheel_name_char): a report is a file anyone may have
  // edited, and the name reaches --dest, easyconfig sources and EasyBuild's shell.
  if (const auto unsafe = std::ranges::find_if_not(filename, index_client::is_wheel_name_char);
      unsafe != filename.end())
    fail(filename_path, "holds " + shown(json(std::string(1, *unsafe))) +
                            ", which no wheel name of an index uses (letters, digits and ._+- "
                            "only), in " +
                            shown(json(filename)));
  const auto parsed = pep::WheelFilename::parse(filename);
  if (!parsed) fail(filename_path, parsed.error().describe("wheel file name"));

  const std::string name = pep::canonicalize_name(wheel.name);
  if (name != parsed->name) {
    fail(member_path(path, "name"), shown(json(wheel.name)) +
                                        " does not match the project of the filename, \"" +
                                        parsed->name + "\"");
  }
  const auto version = pep::Version::parse(wheel.version);
  if (!version) fail(member_path(path, "version"), version.error().describe("version"));
  if (*version != parsed->version) {
    fail(member_path(path, "version"), shown(json(wheel.version)) +
                                           " does not match the version of the filename, \"" +
                                           parsed->version.str() + "\"");
  }
  wheel.name = name;
  wheel.version = version->str();

  if (!is_fetchable_url(wheel.url)) {
    fail(member_path(path, "url"),
         "expected an http://, https:// or file:// URL or an absolute path, got " +
             shown(json(wheel.url)));
  }
}

void Reader::check_schema_version(const json& document) const {
  const json& value = *member(document, "", "schema_version", Presence::required);
  const std::string expected = std::to_string(k_schema_version);
  const auto number = non_negative(value);
  if (number && *number > k_schema_version) {
    // Fields only change meaning with a new schema version, so a newer
    // report cannot be read safely by guessing.
    fail("schema_version",
         "this wheelmod reads schema " + expected + ", the report has " + shown(value),
         "upgrade wheelmod, or write the report with this wheelmod's `wheelmod resolve --format "
         "json`");
  }
  if (number != k_schema_version) {
    fail_type("schema_version", expected, value);
  }
}

ResolveReport Reader::report(const json& document) const {
  if (!document.is_object()) {
    throw UsageError(std::string(m_source),
                     "expected a JSON object (a resolve report), got " + shown(document),
                     std::string(k_hint));
  }
  check_schema_version(document);
  constexpr auto required = Presence::required;
  ResolveReport r;
  field(document, "", "index", r.index, &Reader::text, required);
  field(document, "", "specs", r.specs, &Reader::texts, required);
  field(document, "", "no_deps", r.no_deps, &Reader::boolean);
  field(document, "", "target", r.target, &Reader::target);
  field(document, "", "variant", r.variant, &Reader::variant);

  const json& wheels = array(*member(document, "", "wheels", required), "wheels");
  std::map<std::string, std::size_t, std::less<>> seen;  // filename -> index
  for (std::size_t i = 0; const json& element : wheels) {
    const std::string path = element_path("wheels", i);
    ChosenWheel w = wheel(element, path);
    if (const auto [it, added] = seen.emplace(w.filename, i); !added) {
      fail(path + ".filename", shown(json(w.filename)) + " is listed twice (also " +
                                   element_path("wheels", it->second) + ")");
    }
    r.wheels.push_back(std::move(w));
    ++i;
  }

  field(document, "", "modules", r.modules, &Reader::texts);
  field(document, "", "missing", r.missing, &Reader::dependencies);
  field(document, "", "warnings", r.warnings, &Reader::texts);
  field(document, "", "notes", r.notes, &Reader::texts);
  return r;
}

}  // namespace

ResolveReport report_from_json(const nlohmann::json& document, std::string_view source) {
  try {
    return Reader(source).report(document);
  } catch (const json::exception& error) {
    // Every access above checks the type first; this only keeps a library
    // exception from reaching `main` as an internal error (exit 1).
    throw UsageError(std::string(source), std::string("unreadable report: ") + error.what(),
                     std::string(k_hint));
  }
}

}  // namespace wheelmod::resolve
