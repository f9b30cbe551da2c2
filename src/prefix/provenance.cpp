#include "prefix/provenance.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <ranges>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/strings.hpp"
#include "pep/name.hpp"
#include "pep/version.hpp"

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

// The provenance file lies in a prefix its owner (or anyone who can write there) may edit, and
// what is read from it reaches module files that Lmod runs for every user, shell commands,
// paths and terminals. Each field is checked for the shape wheelmod writes before anything uses
// it, and a file with one that does not fit is refused naming that field.

bool only(std::string_view text, const char* extra) {
  return std::ranges::all_of(text, [extra](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(extra, c) != nullptr;
  });
}

bool has_control(std::string_view text) {
  return std::ranges::any_of(text, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

// A release's version as the wheel's METADATA gave it: PEP 440, no blanks or other characters
// its spellings do not use.
bool is_version(std::string_view text) {
  return !text.empty() && only(text, ".+!_-") && pep::Version::parse(text).has_value();
}

// An EasyBuild module name (Python/3.12.3-GCCcore-13.3.0, MPI/GCC/13.3.0/OpenMPI/5.0.3/x/1.0):
// the characters EasyBuild's names use, relative, no empty or dot-only component.
bool is_module_name(std::string_view text) {
  if (text.empty() || !only(text, "._+-/")) return false;
  for (const auto part : std::views::split(text, '/')) {
    const std::string_view piece(part.begin(), part.end());
    if (piece.empty() || piece == "." || piece == "..") return false;
  }
  return true;
}

// lib/pythonX.Y/site-packages, as prefix::install writes it.
bool is_site_packages(std::string_view text) {
  constexpr std::string_view head = "lib/python", tail = "/site-packages";
  if (!text.starts_with(head) || !text.ends_with(tail) || text.size() <= head.size() + tail.size())
    return false;
  const auto version = text.substr(head.size(), text.size() - head.size() - tail.size());
  return std::isdigit(static_cast<unsigned char>(version.front())) && only(version, ".") &&
         std::ranges::count(version, '.') == 1 && !version.ends_with('.');
}

bool is_python_version(std::string_view text) {
  return is_site_packages("lib/python" + std::string(text) + "/site-packages");
}

// <site-packages>/<name>-<version>.dist-info, the directory the wheel's own files name.
bool is_dist_info(std::string_view text, std::string_view site_packages) {
  const auto slash = text.rfind('/');
  if (slash == std::string_view::npos) return false;
  const auto site = text.substr(0, slash), directory = text.substr(slash + 1);
  if (!is_site_packages(site) || (!site_packages.empty() && site != site_packages)) return false;
  constexpr std::string_view suffix = ".dist-info";
  return directory.size() > suffix.size() && directory.ends_with(suffix) &&
         only(directory.substr(0, directory.size() - suffix.size()), "._+!-");
}

bool is_sha256(std::string_view text) {
  return text.size() == 64 && std::ranges::all_of(text, [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

bool is_plain_text(std::string_view text) { return !has_control(text); }

bool is_url(std::string_view text) { return !has_control(text) && text.find(' ') == text.npos; }

class FieldChecker {
 public:
  explicit FieldChecker(fs::path file) : m_file(std::move(file)) {}

  // Refuses the file when `value` is given (not "") and does not fit `what`.
  void optional(const std::string& field, const std::string& value, const char* what,
                const std::function<bool(std::string_view)>& fits) const {
    if (!value.empty()) required(field, value, what, fits);
  }
  void required(const std::string& field, const std::string& value, const char* what,
                const std::function<bool(std::string_view)>& fits) const {
    if (!fits(value))
      throw UsageError(
          m_file.string(),
          "its field " + field + " is not " + what + ": '" + terminal_text(value) + "'",
          "the file was edited or damaged; " + std::string(k_reinstall));
  }

 private:
  fs::path m_file;
};

void check_fields(const Provenance& provenance, const fs::path& file) {
  const FieldChecker check(file);
  check.optional("installer", provenance.installer, "plain text", is_plain_text);
  check.optional("toolchain", provenance.toolchain, "a toolchain name",
                 [](std::string_view text) { return only(text, "._+-"); });
  check.optional("generation", provenance.generation, "a toolchain generation",
                 [](std::string_view text) { return only(text, "._+-"); });
  check.optional("python", provenance.python, "a Python version X.Y", is_python_version);
  check.optional("accelerator", provenance.accelerator, "an accelerator (cpu, cuda 12.6.0)",
                 [](std::string_view text) { return only(text, "._+- "); });
  for (std::size_t i = 0; i < provenance.modules.size(); ++i)
    check.required("modules[" + std::to_string(i) + "]", provenance.modules[i], "a module name",
                   is_module_name);
  check.optional("python_module", provenance.python_module, "a module name", is_module_name);
  check.optional("toolchain_module", provenance.toolchain_module, "a module name", is_module_name);
  check.optional("cuda_module", provenance.cuda_module, "a module name", is_module_name);
  check.optional("index", provenance.index, "a URL", is_url);
  check.optional(
      "software_path", provenance.software_path, "an absolute path",
      [](std::string_view text) { return text.starts_with('/') && is_plain_text(text); });
  check.optional("site_packages", provenance.site_packages, "lib/pythonX.Y/site-packages",
                 is_site_packages);
  for (std::size_t i = 0; i < provenance.installed.size(); ++i) {
    const auto& project = provenance.installed[i];
    const std::string field = "installed[" + std::to_string(i) + "].";
    check.required(field + "name", project.name, "a project name", pep::is_valid_name);
    check.required(field + "version", project.version, "a PEP 440 version", is_version);
    check.required(
        field + "dist_info", project.dist_info,
        "a <site-packages>/<name>-<version>.dist-info directory",
        [&](std::string_view text) { return is_dist_info(text, provenance.site_packages); });
  }
  for (std::size_t i = 0; i < provenance.wheels.size(); ++i) {
    const auto& wheel = provenance.wheels[i];
    const std::string field = "wheels[" + std::to_string(i) + "].";
    check.required(
        field + "filename", wheel.filename, "a wheel file name",
        [](std::string_view text) { return text.ends_with(".whl") && only(text, "._+-"); });
    check.optional(field + "sha256", wheel.sha256, "a SHA-256 in hex", is_sha256);
    check.optional(field + "url", wheel.url, "a URL", is_url);
  }
  for (const auto& [soname, module] : provenance.module_libraries) {
    check.required("module_libraries", soname, "a library SONAME",
                   [](std::string_view text) { return !text.empty() && only(text, "._+-"); });
    check.required("module_libraries[" + soname + "]", module, "a module name", is_module_name);
  }
  if (provenance.rocm) {
    const auto& rocm = *provenance.rocm;
    const auto is_release = [](std::string_view text) { return only(text, "."); };
    check.optional("rocm.wheel", rocm.wheel, "a ROCm version", is_release);
    check.optional("rocm.stack", rocm.stack, "a ROCm version", is_release);
    check.required("rocm.mode", rocm.mode, "auto, modules or bundled", [](std::string_view text) {
      return text == "auto" || text == "modules" || text == "bundled";
    });
    check.optional("rocm.summary", rocm.summary, "plain text", is_plain_text);
    for (std::size_t i = 0; i < rocm.libraries.size(); ++i) {
      const auto& library = rocm.libraries[i];
      const std::string field = "rocm.libraries[" + std::to_string(i) + "].";
      const auto is_library = [](std::string_view text) {
        return text.starts_with("lib") && only(text, "._+-");
      };
      check.required(field + "file", library.file, "a library file name", is_library);
      check.required(field + "soname", library.soname, "a library SONAME", is_library);
      check.optional(field + "module", library.module, "a module name", is_module_name);
      check.optional(field + "module_rocm", library.module_rocm, "a ROCm version", is_release);
    }
  }
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
  if (provenance.rocm) {
    json rocm{{"wheel", provenance.rocm->wheel},
              {"stack", provenance.rocm->stack},
              {"mode", provenance.rocm->mode},
              {"summary", provenance.rocm->summary},
              {"libraries", json::array()}};
    for (const auto& library : provenance.rocm->libraries) {
      json entry{{"file", library.file}, {"soname", library.soname}};
      entry["module"] = library.module.empty() ? json(nullptr) : json(library.module);
      set_if_given(entry, "module_rocm", library.module_rocm);
      rocm["libraries"].push_back(std::move(entry));
    }
    out["rocm"] = std::move(rocm);
  }
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
  const std::string metadata = optional_text(document, "metadata");
  if (!metadata.empty() && metadata != "keep" && metadata != "strip")
    throw UsageError(file.string(),
                     "its field metadata is not keep or strip: '" + terminal_text(metadata) + "'",
                     k_reinstall);
  out.metadata =
      metadata == "keep" ? easybuild::MetadataPolicy::keep : easybuild::MetadataPolicy::strip;
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
  if (const auto rocm = document.find("rocm"); rocm != document.end() && rocm->is_object()) {
    RocmProvenance record{optional_text(*rocm, "wheel"),
                          optional_text(*rocm, "stack"),
                          optional_text(*rocm, "mode"),
                          optional_text(*rocm, "summary"),
                          {}};
    if (const auto libraries = rocm->find("libraries");
        libraries != rocm->end() && libraries->is_array())
      for (const auto& library : *libraries)
        if (library.is_object())
          record.libraries.push_back(
              {optional_text(library, "file"), optional_text(library, "soname"),
               optional_text(library, "module"), optional_text(library, "module_rocm")});
    out.rocm = std::move(record);
  }
  check_fields(out, file);
  return out;
}

}  // namespace wheelmod::prefix
