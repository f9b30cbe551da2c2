// wheelmod-mirror.json: read with every field checked (a damaged manifest
// would otherwise make a re-run skip or trust the wrong files), written
// with sorted keys so that an unchanged mirror rewrites nothing.
#include "manifest.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "tree.hpp"

namespace wheelmod::mirror {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int k_schema_version = 1;

constexpr std::string_view k_not_ours_hint =
    "this is not a manifest wheelmod can read (another tool's file, a damaged one, or one a "
    "newer wheelmod wrote); upgrade wheelmod, or move the file away and run again (files "
    "already in the mirror are then downloaded again)";

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

enum class Kind { string, boolean, object, array, unsigned_integer };

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::string:
      return "a string";
    case Kind::boolean:
      return "a boolean";
    case Kind::object:
      return "an object";
    case Kind::array:
      return "an array";
    case Kind::unsigned_integer:
      return "a non-negative integer";
  }
  return "?";
}

bool is_kind(const json& value, Kind kind) {
  switch (kind) {
    case Kind::string:
      return value.is_string();
    case Kind::boolean:
      return value.is_boolean();
    case Kind::object:
      return value.is_object();
    case Kind::array:
      return value.is_array();
    case Kind::unsigned_integer:
      return value.is_number_unsigned();
  }
  return false;
}

// Typed access to one JSON object's members; every failure names the file
// and the member's path (`files["torch-….whl"].size`).
class Fields {
 public:
  Fields(const fs::path& file, const json& object, std::string prefix)
      : m_file(file), m_object(object), m_prefix(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw IoError(m_file.string(), "field '" + m_prefix + key + "' " + problem,
                  std::string(k_not_ours_hint));
  }

  [[nodiscard]] const json* find(const std::string& key) const {
    const auto found = m_object.find(key);
    return found == m_object.end() ? nullptr : &*found;
  }

  [[nodiscard]] const json& require(const std::string& key, Kind kind) const {
    const json* value = find(key);
    if (value == nullptr) fail(key, "is missing");
    if (!is_kind(*value, kind)) {
      fail(key, "must be " + std::string(kind_name(kind)) + ", not " + value->type_name());
    }
    return *value;
  }

  [[nodiscard]] std::string string(const std::string& key) const {
    return require(key, Kind::string).get<std::string>();
  }

  [[nodiscard]] std::optional<std::string> optional_string(const std::string& key) const {
    if (find(key) == nullptr) return std::nullopt;
    return string(key);
  }

  [[nodiscard]] std::string sha256(const std::string& key) const {
    std::string hex = string(key);
    if (!is_sha256_hex(hex)) fail(key, "is not a lower-case hex sha256 digest: '" + hex + "'");
    return hex;
  }

  [[nodiscard]] std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    for (const json& item : require(key, Kind::array)) {
      if (!item.is_string()) fail(key, std::string("must hold strings, not ") + item.type_name());
      out.push_back(item.get<std::string>());
    }
    return out;
  }

 private:
  const fs::path& m_file;
  const json& m_object;
  std::string m_prefix;
};

ManifestFile read_file_entry(const fs::path& file, const std::string& filename, const json& value) {
  const std::string prefix = "files[" + json(filename).dump() + "]";
  if (!value.is_object()) {
    throw IoError(file.string(),
                  "field '" + prefix + "' must be an object, not " + value.type_name(),
                  std::string(k_not_ours_hint));
  }
  const Fields fields(file, value, prefix + ".");
  ManifestFile entry;
  entry.filename = filename;
  entry.project = fields.string("project");
  entry.url = fields.string("url");
  entry.sha256 = fields.sha256("sha256");
  entry.sha256_from_index = fields.require("sha256_from_index", Kind::boolean).get<bool>();
  entry.size = fields.require("size", Kind::unsigned_integer).get<std::uint64_t>();
  entry.fetched = fields.string("fetched");
  if (fields.find("metadata_sha256") != nullptr) {
    entry.metadata_sha256 = fields.sha256("metadata_sha256");
  }
  entry.requires_python = fields.optional_string("requires_python");
  entry.variants = fields.strings("variants");
  std::sort(entry.variants.begin(), entry.variants.end());
  entry.variants.erase(std::unique(entry.variants.begin(), entry.variants.end()),
                       entry.variants.end());
  return entry;
}

json file_entry_json(const ManifestFile& entry) {
  std::vector<std::string> variants = entry.variants;
  std::sort(variants.begin(), variants.end());
  variants.erase(std::unique(variants.begin(), variants.end()), variants.end());
  json out = json::object();
  out["project"] = entry.project;
  out["url"] = entry.url;
  out["sha256"] = entry.sha256;
  out["sha256_from_index"] = entry.sha256_from_index;
  out["size"] = entry.size;
  out["fetched"] = entry.fetched;
  if (entry.metadata_sha256) out["metadata_sha256"] = *entry.metadata_sha256;
  if (entry.requires_python) out["requires_python"] = *entry.requires_python;
  out["variants"] = variants;
  return out;
}

}  // namespace

Manifest read_manifest(const fs::path& dir) {
  const fs::path file = dir / k_manifest_name;
  std::optional<std::string> text;
  try {
    text = read_file_if_exists(file);
  } catch (IoError& error) {
    error.with_hint("check the mirror directory's permissions");
    throw;
  }
  if (!text) return {};
  return parse_manifest(*text, file);
}

Manifest parse_manifest(const std::string& text, const fs::path& file) {
  if (const auto at = json_too_deep(text))
    throw IoError(file.string(),
                  "is nested deeper than " + std::to_string(k_json_max_depth) + " levels (byte " +
                      std::to_string(*at) + ")",
                  std::string(k_not_ours_hint));
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {  // parse_error, or out_of_range 406 (1e999)
    IoError failure(file.string(), "is not valid JSON", std::string(k_not_ours_hint));
    failure.with_detail(error.what());
    throw failure;
  }
  if (!document.is_object()) {
    throw IoError(
        file.string(),
        std::string("holds a JSON ") + document.type_name() + ", not the manifest's object",
        std::string(k_not_ours_hint));
  }
  const Fields top(file, document, "");
  const json& version = top.require("schema_version", Kind::unsigned_integer);
  if (version.get<std::uint64_t>() != k_schema_version) {
    top.fail("schema_version", "is " + version.dump() + "; this wheelmod reads version " +
                                   std::to_string(k_schema_version));
  }
  Manifest manifest;
  manifest.source_index = top.string("source_index");
  for (const auto& [filename, value] : top.require("files", Kind::object).items()) {
    manifest.files.emplace(filename, read_file_entry(file, filename, value));
  }
  return manifest;
}

bool write_manifest(const fs::path& dir, const Manifest& manifest) {
  const fs::path file = dir / k_manifest_name;
  json document = json::object();
  document["schema_version"] = k_schema_version;
  document["source_index"] = manifest.source_index;
  json files = json::object();
  // The map's key is the file name; an entry's own `filename` is a copy.
  for (const auto& [filename, entry] : manifest.files) files[filename] = file_entry_json(entry);
  document["files"] = std::move(files);

  std::string text;
  try {
    // nlohmann::json's objects are std::maps: keys come out sorted.
    text = document.dump(2) + "\n";
  } catch (const json::type_error& error) {
    // Only a string that is not UTF-8 (a file name from a broken index).
    IoError failure(file.string(), "cannot be written as JSON",
                    "a file name or URL in the mirror is not valid UTF-8");
    failure.with_detail(error.what());
    throw failure;
  }
  return write_if_changed(file, text);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  // RFC 3339 §5.6 date-time, in UTC ("Z"), whole seconds.
  std::array<char, 32> buffer{};
  const std::size_t length =
      std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return std::string(buffer.data(), length);
}

MirrorOrigins origins_of(const Manifest& manifest) {
  MirrorOrigins origins;
  origins.source_index = manifest.source_index;
  for (const auto& [path, file] : manifest.files) origins.by_path.emplace(path, file.url);
  return origins;
}

std::optional<MirrorOrigins> read_origins(const fs::path& dir) {
  if (!fs::exists(dir / k_manifest_name)) return std::nullopt;
  return origins_of(read_manifest(dir));
}

MirrorOrigins parse_origins(const std::string& text, const std::string& where) {
  return origins_of(parse_manifest(text, where));
}

}  // namespace wheelmod::mirror
