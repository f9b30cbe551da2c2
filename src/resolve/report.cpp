#include "resolve/report.hpp"

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/url.hpp"

namespace wheelmod::resolve {

using nlohmann::json;

std::string_view resolution_text(DependencyResolution resolution) {
  switch (resolution) {
    case DependencyResolution::chosen_wheel:
      return "wheel";
    case DependencyResolution::eb_module:
      return "module";
    case DependencyResolution::bundled_wheel:
      return "bundled";
    case DependencyResolution::missing:
      return "missing";
  }
  return "missing";
}

std::string_view compatibility_text(Compatibility compatibility) {
  switch (compatibility) {
    case Compatibility::exact:
      return "exact";
    case Compatibility::compatible:
      return "compatible";
    case Compatibility::incompatible:
      return "incompatible";
    case Compatibility::unknown:
      return "unknown";
  }
  return "unknown";
}

namespace {

json optional(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json dependency_json(const Dependency& d) {
  json out{{"requirement", d.requirement},
           {"name", d.name},
           {"resolution", resolution_text(d.resolution)},
           {"provider", d.provider.empty() ? json(nullptr) : json(d.provider)},
           {"provided_version", optional(d.provided_version)},
           {"compatibility", compatibility_text(d.compatibility)},
           {"note", d.note}};
  if (!d.module_source.empty()) out["module_source"] = d.module_source;
  return out;
}

}  // namespace

// The schema is documented in docs/resolve-report.md; bump
// "schema_version" on any change that is not a pure addition.
json to_json(const ResolveReport& report) {
  json doc;
  doc["schema_version"] = 1;
  doc["index"] = report.index;
  doc["specs"] = report.specs;
  doc["no_deps"] = report.no_deps;
  const auto& t = report.target;
  doc["target"] = {{"toolchain", optional(t.toolchain)},
                   {"generation", optional(t.generation)},
                   {"python", t.python},
                   {"python_source", t.python_source},
                   {"arch", t.arch},
                   {"glibc", t.glibc},
                   {"accelerator", t.accelerator},
                   {"accelerator_source", t.accelerator_source},
                   {"nvidia_driver", optional(t.nvidia_driver)}};
  doc["variant"] = {{"name", report.variant.variant},
                    {"exact", report.variant.exact},
                    {"reason", report.variant.reason},
                    {"tried", report.variant.tried},
                    {"minimum_driver", optional(report.variant.minimum_driver)}};
  auto& wheels = doc["wheels"] = json::array();
  for (const auto& w : report.wheels) {
    json dependencies = json::array();
    for (const auto& d : w.dependencies) dependencies.push_back(dependency_json(d));
    wheels.push_back({{"name", w.name},
                      {"version", w.version},
                      {"filename", w.filename},
                      {"url", mask_credentials(w.url)},
                      {"sha256", optional(w.sha256)},
                      {"size", w.size ? json(*w.size) : json(nullptr)},
                      {"variant", w.variant},
                      {"requested", w.requested},
                      {"best_tag", w.best_tag},
                      {"tag_rank", w.tag_rank},
                      {"tags_total", w.tags_total},
                      {"why", w.why},
                      {"metadata_source", optional(w.metadata_source)},
                      {"dependencies", dependencies}});
  }
  doc["modules"] = report.modules;
  auto& missing = doc["missing"] = json::array();
  for (const auto& d : report.missing) missing.push_back(dependency_json(d));
  doc["warnings"] = report.warnings;
  doc["notes"] = report.notes;
  if (report.rocm) {
    json libraries = json::array();
    for (const auto& library : report.rocm->libraries)
      libraries.push_back(
          {{"file", library.file},
           {"soname", library.soname},
           {"module", library.module.empty() ? json(nullptr) : json(library.module)},
           {"note", library.note}});
    doc["rocm"] = {{"wheel_rocm", report.rocm->wheel_rocm},
                   {"stack_rocm", report.rocm->stack_rocm.empty() ? json(nullptr)
                                                                  : json(report.rocm->stack_rocm)},
                   {"relinked", report.rocm->relinked},
                   {"site_read", report.rocm->site_read},
                   {"summary", report.rocm->summary},
                   {"libraries", libraries}};
  } else {
    doc["rocm"] = nullptr;
  }
  return doc;
}

}  // namespace wheelmod::resolve
