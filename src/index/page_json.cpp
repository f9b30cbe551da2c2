// PEP 691 JSON pages (`application/vnd.pypi.simple.v1+json`), with the
// PEP 700 and PEP 714 keys.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_depth.hpp"
#include "core/url.hpp"
#include "index/page.hpp"
#include "page_common.hpp"

namespace wheelmod::index {

namespace {

using detail::page_error;

using nlohmann::json;

// Preference order when a dict holds several digests: sha256 first, the
// one the rest of wheelmod checks.
constexpr std::array<std::string_view, 5> k_preference{"sha256", "sha384", "sha512", "blake2b",
                                                       "md5"};

std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

detail::Checked<json> parse_document(std::string_view text) {
  if (const auto at = json_too_deep(text))
    return std::unexpected("nested deeper than " + std::to_string(k_json_max_depth) +
                           " levels (byte " + std::to_string(*at) + ")");
  try {
    json document = json::parse(text.begin(), text.end());
    if (!document.is_object()) {
      return std::unexpected("expected a JSON object, got " + shown(document));
    }
    return document;
  } catch (const json::exception& error) {
    // parse_error, and out_of_range for a number too large for a double
    // ("77777e777", exception 406): both mean the page is not valid here.
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    std::string_view message = error.what();
    if (message.starts_with('[')) {
      message.remove_prefix(std::min(message.find("] ") + 2, message.size()));
    }
    return std::unexpected("invalid JSON: " + std::string(message));
  }
}

// PEP 691 "Project List" / "Project Detail": `meta.api-version` is
// required, and a major version other than 1 must be refused (PEP 629).
detail::Checked<void> check_meta(const json& document) {
  const auto meta = document.find("meta");
  if (meta == document.end() || !meta->is_object()) {
    return std::unexpected("no 'meta' object (PEP 691 requires meta.api-version)");
  }
  const auto version = meta->find("api-version");
  if (version == meta->end() || !version->is_string()) {
    return std::unexpected("no 'meta.api-version' string (PEP 691 requires it)");
  }
  return detail::check_api_version(version->get_ref<const std::string&>());
}

// Hashes from a PEP 691 dict {"sha256": "<hex>", ...}, sha256 first.
detail::Checked<std::vector<FileHash>> hashes_of(const json& dict, std::string_view key) {
  if (!dict.is_object()) {
    return std::unexpected("'" + std::string(key) + "' must be a dict of hashes, got " +
                           shown(dict));
  }
  std::vector<FileHash> out;
  for (const std::string_view algorithm : k_preference) {
    const auto value = dict.find(std::string(algorithm));
    if (value == dict.end()) continue;
    if (!value->is_string()) {
      return std::unexpected("'" + std::string(key) + "." + std::string(algorithm) +
                             "' must be a hex string, got " + shown(*value));
    }
    auto hash = detail::make_hash(algorithm, value->get_ref<const std::string&>());
    if (!hash) return std::unexpected(hash.error() + " in '" + std::string(key) + "'");
    if (*hash) out.push_back(std::move(**hash));
  }
  return out;
}

detail::Checked<Link> parse_file(const json& file, std::string_view page_url) {
  if (!file.is_object()) return std::unexpected("expected a file object, got " + shown(file));
  const auto string_field = [&](const char* key) -> const std::string* {
    const auto it = file.find(key);
    return it != file.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
  };
  Link link;
  const std::string* filename = string_field("filename");
  const std::string* url = string_field("url");
  if (filename == nullptr) {
    return std::unexpected("a file has no 'filename' string: " + shown(file));
  }
  link.filename = *filename;
  if (!detail::is_file_name(link.filename)) {
    return std::unexpected("'filename' must be a file name, got " + shown(file.at("filename")));
  }
  const auto fail = [&](const std::string& message) -> detail::Checked<Link> {
    return std::unexpected(link.filename + ": " + message);
  };
  if (url == nullptr) return fail("no 'url' string");
  // PEP 691: relative URLs are resolved against the page's URL.
  link.url = detail::clean_url(without_fragment(resolve_url(page_url, *url)));

  if (const auto hashes = file.find("hashes"); hashes != file.end()) {
    auto parsed = hashes_of(*hashes, "hashes");
    if (!parsed) return fail(parsed.error());
    link.hashes = std::move(*parsed);
  }
  if (const auto value = file.find("requires-python"); value != file.end() && !value->is_null()) {
    if (!value->is_string()) {
      return fail("'requires-python' must be a string, got " + shown(*value));
    }
    if (!value->get_ref<const std::string&>().empty()) {
      link.requires_python = value->get<std::string>();
    }
  }
  // PEP 691 (from PEP 592): a boolean, or a non-empty reason string. pip
  // reads an empty string as not yanked, and so do we.
  if (const auto value = file.find("yanked"); value != file.end() && !value->is_null()) {
    if (value->is_boolean()) {
      if (value->get<bool>()) link.yanked = "";
    } else if (value->is_string()) {
      if (!value->get_ref<const std::string&>().empty()) link.yanked = value->get<std::string>();
    } else {
      return fail("'yanked' must be a boolean or a string, got " + shown(*value));
    }
  }
  // PEP 714: `core-metadata` wins; `dist-info-metadata` (PEP 691's name)
  // is read only when it is absent. Either is a boolean or a dict of hashes.
  auto metadata = file.find("core-metadata");
  if (metadata == file.end()) metadata = file.find("dist-info-metadata");
  if (metadata != file.end() && !metadata->is_null()) {
    if (metadata->is_boolean()) {
      link.has_core_metadata = metadata->get<bool>();
    } else {
      auto parsed = hashes_of(*metadata, "core-metadata");
      if (!parsed) return fail(parsed.error());
      link.has_core_metadata = true;
      if (!parsed->empty()) link.core_metadata_hash = std::move(parsed->front());
    }
  }
  // PEP 700: `size` in bytes and `upload-time` (ISO 8601).
  if (const auto value = file.find("size"); value != file.end() && !value->is_null()) {
    if (!value->is_number_unsigned()) {
      return fail("'size' must be a non-negative integer, got " + shown(*value));
    }
    link.size = value->get<std::uint64_t>();
  }
  if (const auto value = file.find("upload-time"); value != file.end() && !value->is_null()) {
    if (!value->is_string()) return fail("'upload-time' must be a string, got " + shown(*value));
    link.upload_time = value->get<std::string>();
  }
  return link;
}

}  // namespace

Parsed<ProjectPage> parse_project_json(std::string_view text, std::string_view page_url) {
  auto document = parse_document(text);
  if (!document) return std::unexpected(page_error(page_url, document.error()));
  if (auto ok = check_meta(*document); !ok) {
    return std::unexpected(page_error(page_url, ok.error()));
  }

  ProjectPage page;
  page.url = std::string(page_url);
  if (const auto name = document->find("name"); name != document->end()) {
    if (!name->is_string()) {
      return std::unexpected(page_error(page_url, "'name' must be a string, got " + shown(*name)));
    }
    page.name = name->get<std::string>();
  }
  const auto files = document->find("files");
  if (files == document->end() || !files->is_array()) {
    return std::unexpected(page_error(page_url, "no 'files' list (PEP 691 requires it)"));
  }
  for (const json& file : *files) {
    auto link = parse_file(file, page_url);
    if (!link) return std::unexpected(page_error(page_url, link.error()));
    if (auto added = page.links.add(*link); !added) {
      return std::unexpected(page_error(page_url, added.error()));
    }
  }
  return page;
}

Parsed<std::vector<std::string>> parse_root_json(std::string_view text) {
  constexpr std::string_view k_subject = "root page";
  auto document = parse_document(text);
  if (!document) return std::unexpected(page_error(k_subject, document.error()));
  if (auto ok = check_meta(*document); !ok) {
    return std::unexpected(page_error(k_subject, ok.error()));
  }
  // PEP 691 "Project List": {"projects": [{"name": "..."}, ...]}.
  const auto projects = document->find("projects");
  if (projects == document->end() || !projects->is_array()) {
    return std::unexpected(page_error(k_subject, "no 'projects' list (PEP 691 requires it)"));
  }
  std::vector<std::string> names;
  names.reserve(projects->size());
  for (const json& project : *projects) {
    const auto name = project.find("name");  // end() for a non-object
    if (name == project.end() || !name->is_string()) {
      return std::unexpected(
          page_error(k_subject, "a project has no 'name' string: " + shown(project)));
    }
    names.push_back(name->get<std::string>());
  }
  return names;
}

}  // namespace wheelmod::index
