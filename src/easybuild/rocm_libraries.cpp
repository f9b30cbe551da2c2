#include "easybuild/rocm_libraries.hpp"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "core/errors.hpp"

namespace wheelmod::easybuild {

namespace fs = std::filesystem;

std::string_view rocm_mode_text(RocmLibraryMode mode) {
  switch (mode) {
    case RocmLibraryMode::automatic:
      return "auto";
    case RocmLibraryMode::modules:
      return "modules";
    case RocmLibraryMode::bundled:
      return "bundled";
  }
  return "auto";
}

std::optional<RocmLibraryMode> parse_rocm_mode(std::string_view text) {
  if (text == "auto") return RocmLibraryMode::automatic;
  if (text == "modules") return RocmLibraryMode::modules;
  if (text == "bundled") return RocmLibraryMode::bundled;
  return std::nullopt;
}

std::optional<std::string> rocm_major_minor(std::string_view text) {
  if (text.starts_with("rocm")) text.remove_prefix(4);
  while (!text.empty() && (text.front() == ' ' || text.front() == ':')) text.remove_prefix(1);
  const auto digits = [](std::string_view part) {
    return !part.empty() &&
           std::ranges::all_of(part, [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  const auto first = text.find('.');
  if (first == std::string_view::npos || !digits(text.substr(0, first))) return std::nullopt;
  const auto rest = text.substr(first + 1);
  const auto minor = rest.substr(0, rest.find('.'));
  if (!digits(minor)) return std::nullopt;
  return std::string(text.substr(0, first)) + "." + std::string(minor);
}

bool is_toolchain_module(const Generation& generation, std::string_view module) {
  return module == "GCCcore/" + generation.gcccore;
}

std::vector<std::string> RocmPlan::modules() const {
  std::vector<std::string> out;
  for (const auto& library : libraries)
    if (library.from_module() && std::ranges::find(out, library.module) == out.end())
      out.push_back(library.module);
  return out;
}

std::map<std::string, RocmLink> RocmPlan::links() const {
  std::map<std::string, RocmLink> out;
  for (const auto& library : libraries) {
    if (!library.from_module()) continue;
    const RocmLink link{library.module, library.directory.string()};
    out.emplace(library.file, link);
    if (!library.soname.empty()) out.emplace(library.soname, link);
  }
  return out;
}

namespace {

// What the provider of `library` offers here: its directory holding the file, or why not.
struct ProviderLook {
  const LibraryProvider* provider = nullptr;
  fs::path directory;
  std::string why_not;  // of the first provider, when none serves
};

ProviderLook look_for_provider(const std::string& file, const RocmLibrary& library,
                               const std::string& wheel_rocm, const ModuleLocator* locator) {
  ProviderLook look;
  for (const auto& provider : library.provided_by) {
    std::string why;
    if (provider.rocm && rocm_major_minor(*provider.rocm) != wheel_rocm) {
      why = provider.module + " is built for ROCm " + *provider.rocm + ", the wheel for ROCm " +
            wheel_rocm;
    } else if (locator == nullptr) {
      look.provider = &provider;
      return look;
    } else if (const auto root = locator->root_of(provider.module); !root) {
      why = provider.module + " is not installed here";
    } else if (const auto directory = locator->directory_with(*root, provider.libdir, file);
               !directory) {
      why = provider.module + " has no " + file + " (looked in " +
            (*root / provider.libdir).string() + " and below)";
    } else {
      for (const auto& data : provider.data) {
        std::error_code error;
        if (!fs::is_directory(*root / data, error)) {
          why = provider.module + " has no " + data + ", where its " + file + " looks for its data";
          break;
        }
      }
      if (why.empty()) {
        look.provider = &provider;
        look.directory = *directory;
        return look;
      }
    }
    if (look.why_not.empty()) look.why_not = why;
  }
  if (library.provided_by.empty()) look.why_not = "no module of the generation provides it";
  return look;
}

}  // namespace

RocmPlan plan_rocm_libraries(const Generation& generation, std::string_view wheel_rocm,
                             const ModuleLocator* locator, RocmLibraryMode mode) {
  RocmPlan plan;
  plan.mode = mode;
  plan.wheel_rocm = rocm_major_minor(wheel_rocm).value_or(std::string(wheel_rocm));
  if (generation.rocm) plan.stack_rocm = generation.rocm->version;
  const auto keep_all = [&](const std::string& why) {
    plan.summary = why;
    for (const auto& [file, library] : generation.rocm_libraries)
      plan.libraries.push_back(RocmLibraryChoice{.file = file,
                                                 .soname = library.soname,
                                                 .module = {},
                                                 .module_rocm = std::nullopt,
                                                 .directory = {},
                                                 .wheel_data = library.wheel_data,
                                                 .note = why});
  };
  std::string refusal;
  if (mode == RocmLibraryMode::bundled) {
    keep_all("--rocm-libraries bundled: the wheel's ROCm libraries are kept as published");
    return plan;
  }
  if (!generation.rocm || generation.rocm_libraries.empty()) {
    refusal = "generation " + generation.name +
              " has no ROCm stack in the tables (config/toolchains.yaml `rocm`): nothing to "
              "relink, the wheel keeps its own ROCm libraries";
  } else if (rocm_major_minor(plan.stack_rocm) != plan.wheel_rocm) {
    refusal = "the wheel is built for ROCm " + plan.wheel_rocm + ", generation " + generation.name +
              "'s ROCm modules are " + plan.stack_rocm +
              ": ROCm libraries of two releases are not mixed in one process, so the wheel keeps "
              "its own";
  }
  if (!refusal.empty()) {
    if (mode == RocmLibraryMode::modules)
      throw CheckFailedError("--rocm-libraries modules", refusal,
                             "use a wheel of the stack's ROCm (--accelerator rocm" +
                                 rocm_major_minor(plan.stack_rocm).value_or("X.Y") +
                                 "), or --rocm-libraries auto|bundled to keep the wheel's");
    keep_all(refusal);
    return plan;
  }
  std::vector<std::string> refused;
  for (const auto& [file, library] : generation.rocm_libraries) {
    RocmLibraryChoice choice{.file = file,
                             .soname = library.soname,
                             .module = {},
                             .module_rocm = std::nullopt,
                             .directory = {},
                             .wheel_data = library.wheel_data,
                             .note = {}};
    const auto look = look_for_provider(file, library, plan.wheel_rocm, locator);
    if (look.provider) {
      choice.module = look.provider->module;
      choice.module_rocm = look.provider->rocm;
      choice.directory = look.directory;
      choice.note = locator == nullptr
                        ? look.provider->module + " (the table's; the site was not read)"
                        : look.provider->module + " has " + (look.directory / file).string();
      plan.relinked = true;
    } else {
      choice.note = look.why_not;
      if (!library.provided_by.empty()) refused.push_back(file + ": " + look.why_not);
    }
    plan.libraries.push_back(std::move(choice));
  }
  if (mode == RocmLibraryMode::modules && !refused.empty()) {
    CheckFailedError error("--rocm-libraries modules",
                           std::to_string(refused.size()) +
                               " bundled ROCm libraries have a module in the tables that cannot "
                               "serve here",
                           "install the modules (eb --robot) and point --eb-installpath at them, "
                           "load them, or use --rocm-libraries auto to keep those bundled");
    for (const auto& line : refused) error.with_detail(line);
    throw error;
  }
  const auto kept = std::ranges::count_if(
      plan.libraries, [](const RocmLibraryChoice& choice) { return !choice.from_module(); });
  if (!plan.relinked && locator == nullptr)
    plan.summary = "no module of the ROCm " + plan.stack_rocm + " stack provides these libraries";
  else if (!plan.relinked)
    plan.summary = "no module of the ROCm " + plan.stack_rocm +
                   " stack is installed here: the wheel keeps its own ROCm libraries";
  else if (kept == 0)
    plan.summary = "every bundled ROCm library comes from the ROCm " + plan.stack_rocm + " modules";
  else
    plan.summary = std::to_string(kept) + " bundled librar" + (kept == 1 ? "y stays" : "ies stay") +
                   " beside the ROCm " + plan.stack_rocm +
                   " modules: the same ROCm major.minor as the wheel's (" + plan.wheel_rocm +
                   "), whose libraries keep their SONAMEs within a release";
  return plan;
}

}  // namespace wheelmod::easybuild
