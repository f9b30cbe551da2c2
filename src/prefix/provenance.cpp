#include "prefix/provenance.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int k_schema_version = 1;
constexpr const char* k_reinstall = "reinstall with `wheelmod install --force`";

std::string optional_text(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string required_text(const json& object, const char* key, const fs::path& file) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    throw UsageError(file.string(), std::string("no \"") + key + "\" text in it", k_reinstall);
  return it->get<std::string>();
}

void set_if_given(json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

}  // namespace

void write_provenance(const fs::path& prefix, const Provenance& provenance) {
  auto modules = provenance.modules;
  std::ranges::sort(modules);
  modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
  json out{{"schema_version", k_schema_version},
           {"installer", provenance.installer},
           {"toolchain", provenance.toolchain},
           {"generation", provenance.generation},
           {"python", provenance.python},
           {"python_module", provenance.python_module},
           {"accelerator", provenance.accelerator},
           {"modules", modules},
           {"metadata", provenance.metadata == easybuild::MetadataPolicy::strip ? "strip" : "keep"},
           {"site_packages", provenance.site_packages},
           {"installed", json::array()}};
  set_if_given(out, "toolchain_module", provenance.toolchain_module);
  set_if_given(out, "cuda_module", provenance.cuda_module);
  set_if_given(out, "index", provenance.index);
  set_if_given(out, "software_path", provenance.software_path);
  for (const auto& project : provenance.installed)
    out["installed"].push_back(
        {{"name", project.name}, {"version", project.version}, {"dist_info", project.dist_info}});
  if (!provenance.wheels.empty()) {
    out["wheels"] = json::array();
    for (const auto& wheel : provenance.wheels) {
      json entry{{"filename", wheel.filename}};
      entry["sha256"] = wheel.sha256.empty() ? json(nullptr) : json(wheel.sha256);
      set_if_given(entry, "url", wheel.url);
      out["wheels"].push_back(std::move(entry));
    }
  }
  if (!provenance.module_libraries.empty()) out["module_libraries"] = provenance.module_libraries;
  write_if_changed(prefix / k_provenance_file, out.dump(2) + "\n");
}

Provenance read_provenance(const fs::path& prefix) {
  const fs::path file = prefix / k_provenance_file;
  const auto text = read_file_if_exists(file);
  if (!text)
    throw UsageError(prefix.string(),
                     "not an installation wheelmod made (no " + file.string() + ")",
                     "run `wheelmod install ... --prefix " + prefix.string() + "` first");
  if (json_too_deep(*text))
    throw UsageError(file.string(), "nested deeper than any provenance file", k_reinstall);
  const json document = json::parse(*text, nullptr, false);
  if (!document.is_object()) throw UsageError(file.string(), "not a JSON object", k_reinstall);
  const auto schema = document.find("schema_version");
  if (schema == document.end() || !schema->is_number_integer() ||
      schema->get<int>() != k_schema_version)
    throw UsageError(file.string(), "an unknown schema_version",
                     "use the wheelmod that installed the prefix, or a newer one");
  const auto installed = document.find("installed");
  if (installed == document.end() || !installed->is_array() || installed->empty())
    throw UsageError(file.string(), "no installed wheels listed", k_reinstall);

  Provenance out;
  for (const auto& entry : *installed) {
    if (!entry.is_object()) throw UsageError(file.string(), "an installed entry is no object");
    out.installed.push_back({required_text(entry, "name", file),
                             required_text(entry, "version", file),
                             required_text(entry, "dist_info", file)});
  }
  out.installer = optional_text(document, "installer");
  out.toolchain = optional_text(document, "toolchain");
  out.generation = optional_text(document, "generation");
  out.python = optional_text(document, "python");
  out.python_module = optional_text(document, "python_module");
  out.accelerator = optional_text(document, "accelerator");
  if (const auto modules = document.find("modules");
      modules != document.end() && modules->is_array())
    for (const auto& module : *modules)
      if (module.is_string()) out.modules.push_back(module.get<std::string>());
  out.metadata = optional_text(document, "metadata") == "keep" ? easybuild::MetadataPolicy::keep
                                                               : easybuild::MetadataPolicy::strip;
  out.toolchain_module = optional_text(document, "toolchain_module");
  out.cuda_module = optional_text(document, "cuda_module");
  out.index = optional_text(document, "index");
  out.software_path = optional_text(document, "software_path");
  out.site_packages = optional_text(document, "site_packages");
  if (const auto wheels = document.find("wheels"); wheels != document.end() && wheels->is_array())
    for (const auto& wheel : *wheels)
      if (wheel.is_object())
        out.wheels.push_back({optional_text(wheel, "filename"), optional_text(wheel, "sha256"),
                              optional_text(wheel, "url")});
  if (const auto libraries = document.find("module_libraries");
      libraries != document.end() && libraries->is_object())
    for (const auto& [soname, module] : libraries->items())
      if (module.is_string()) out.module_libraries.emplace(soname, module.get<std::string>());
  return out;
}

}  // namespace wheelmod::prefix
