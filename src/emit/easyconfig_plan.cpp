#include "emit/easyconfig_plan.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/url.hpp"
#include "easyconfig_plan_detail.hpp"
#include "pep/version.hpp"

namespace wheelmod::emit {

using detail::PlanContext;

std::optional<std::string> modulename_expression(const wheel::ExtensionImport& imports) {
  switch (imports.kind) {
    case wheel::ExtensionImport::Kind::project_name:
      return std::nullopt;
    case wheel::ExtensionImport::Kind::other_name:
      return "'" + imports.name + "'";  // identifiers and dots only
    case wheel::ExtensionImport::Kind::nothing:
      return "False";
  }
  return std::nullopt;
}

std::string public_version(std::string_view version) {
  return std::string(version.substr(0, version.find('+')));
}

std::optional<RocmLibrariesChoice> choose_rocm_libraries(const StackRequest& request) {
  using easybuild::RocmLibraryMode;
  const auto mode = request.rocm_libraries;
  if (request.accelerator != index_client::AcceleratorKind::rocm) {
    if (mode == RocmLibraryMode::modules)
      throw UsageError("--rocm-libraries modules",
                       "the wheels are " +
                           std::string(index_client::kind_text(request.accelerator)) +
                           " builds, which bundle no ROCm libraries",
                       "leave --rocm-libraries out, or name a ROCm variant with --accelerator");
    return std::nullopt;
  }
  const auto& generation = *request.generation;
  RocmLibrariesChoice choice;
  choice.wheel_rocm = easybuild::rocm_major_minor(request.variant).value_or("");
  if (generation.rocm) choice.stack = generation.rocm->version;
  const auto refuse = [&](const std::string& why, const std::string& hint) {
    if (mode == RocmLibraryMode::modules) throw UsageError("--rocm-libraries modules", why, hint);
    choice.why = why;
    return choice;
  };
  const auto keep_hint = "--rocm-libraries auto or bundled keeps the wheel's own";
  if (mode == RocmLibraryMode::bundled) {
    choice.why = "--rocm-libraries bundled";
    return choice;
  }
  if (request.relink != RelinkStep::relink)
    return refuse(
        "without --with-relink pip installs the wheel as published: nothing would remove its "
        "copies of the libraries the ROCm modules provide",
        std::string("add --with-relink, whose `wheelmod relink --rocm-libraries modules` removes "
                    "them; ") +
            keep_hint);
  if (!generation.rocm || generation.rocm_libraries.empty())
    return refuse("generation " + generation.name +
                      " has no ROCm stack in the tables (config/toolchains.yaml `rocm`)",
                  keep_hint);
  if (choice.wheel_rocm.empty()) return choice;  // `rocm`, before resolving: decided later
  if (easybuild::rocm_major_minor(choice.stack) != choice.wheel_rocm)
    return refuse("the wheel is built for ROCm " + choice.wheel_rocm + ", generation " +
                      generation.name + "'s ROCm modules are " + choice.stack +
                      ": ROCm libraries of two releases are not mixed in one process",
                  "use a wheel of the stack's ROCm (--accelerator rocm" +
                      easybuild::rocm_major_minor(choice.stack).value_or("X.Y") + "); " +
                      keep_hint);
  // Each library's first provider built for the wheel's ROCm (the rule of
  // easybuild::plan_rocm_libraries, without looking at the site: the easyconfig names what eb
  // --robot builds or finds).
  for (const auto& [file, library] : generation.rocm_libraries) {
    const auto provider = std::ranges::find_if(library.provided_by, [&](const auto& each) {
      return !each.rocm || easybuild::rocm_major_minor(*each.rocm) == choice.wheel_rocm;
    });
    if (provider == library.provided_by.end()) {
      choice.bundled.push_back(file);
      continue;
    }
    if (!easybuild::is_toolchain_module(generation, provider->module) &&
        std::ranges::find(choice.modules, provider->module) == choice.modules.end())
      choice.modules.push_back(provider->module);
  }
  if (choice.modules.empty())
    return refuse("no module of generation " + generation.name + "'s ROCm " + choice.stack +
                      " stack provides a library the wheel bundles",
                  keep_hint);
  choice.from_modules = true;
  return choice;
}

namespace {

// The wheels of `arch` that belong to the easyconfig of `roots`: the
// roots and, transitively, the wheels bundled for their requirements.
std::vector<const resolve::ChosenWheel*> closure(const resolve::ResolveReport& report,
                                                 const std::set<std::string>& roots,
                                                 const std::set<std::string>& taken) {
  std::map<std::string, const resolve::ChosenWheel*> by_file;
  for (const auto& wheel : report.wheels) by_file.emplace(wheel.filename, &wheel);
  std::vector<const resolve::ChosenWheel*> out;
  std::set<std::string> seen;
  std::vector<const resolve::ChosenWheel*> todo;
  for (const auto& wheel : report.wheels)
    if (wheel.requested && roots.contains(wheel.name)) todo.push_back(&wheel);
  while (!todo.empty()) {
    const auto* wheel = todo.back();
    todo.pop_back();
    if (taken.contains(wheel->filename) || !seen.insert(wheel->filename).second) continue;
    out.push_back(wheel);
    for (const auto& requirement : wheel->dependencies)
      if (requirement.resolution == resolve::DependencyResolution::bundled_wheel)
        if (const auto it = by_file.find(requirement.provider); it != by_file.end())
          todo.push_back(it->second);
  }
  return out;
}

// The extensions of a group over all architectures: bundled wheels first
// (sorted), then the requested projects in the order they were asked for.
std::vector<Extension> merge_extensions(
    const std::map<std::string, std::vector<const resolve::ChosenWheel*>>& per_arch,
    const std::vector<std::string>& requested,
    const std::map<std::string, wheel::ExtensionImport>& imports) {
  std::map<std::pair<std::string, std::string>, Extension> merged;
  std::map<std::pair<std::string, std::string>, bool> is_requested;
  for (const auto& [arch, wheels] : per_arch) {
    for (const auto* wheel : wheels) {
      const std::pair key{wheel->name, public_version(wheel->version)};
      auto& extension = merged[key];
      extension.name = wheel->name;
      extension.version = key.second;
      const auto found = imports.find(wheel->filename);
      if (found == imports.end())
        throw std::invalid_argument("plan_easyconfigs: no import decision for " + wheel->filename);
      const auto modulename = modulename_expression(found->second);
      // One exts_list entry serves every architecture: its wheels must install the same name.
      if (!extension.files.empty() && extension.modulename != modulename)
        throw UnsatisfiableError(
            wheel->name + " " + key.second,
            "its wheels install different modules per architecture (" +
                extension.modulename.value_or("the project's name") + ", " +
                modulename.value_or("the project's name") + " for " + arch + ")",
            "one exts_list entry checks one import: generate per architecture with --arch");
      extension.modulename = modulename;
      // EasyBuild's sympy easyblock runs `python setup.py test` as the extension's test step,
      // in a directory where no setup.py is for a wheel: a failure the easyblock only logs
      // (easyblocks s/sympy.py), skipped here so that the log holds no error that is none.
      if (wheel->name == "sympy") extension.skipsteps = {"test"};
      // Without the index's credentials: an easyconfig is shared and committed, and EasyBuild
      // cannot use a masked password; the site gives eb its own access to the index.
      extension.files[arch] =
          WheelFile{wheel->filename, without_credentials(wheel->url), wheel->sha256.value_or(""),
                    Url(wheel->url).host() == "files.pythonhosted.org"};
      is_requested[key] = is_requested[key] || wheel->requested;
    }
  }
  std::vector<Extension> out;
  for (const auto& [key, extension] : merged)
    if (!is_requested[key]) out.push_back(extension);
  for (const auto& project : requested)
    for (const auto& [key, extension] : merged)
      if (key.first == project && is_requested.at(key)) out.push_back(extension);
  return out;
}

}  // namespace

EasyconfigPlan plan_easyconfigs(const StackRequest& request) {
  if (std::ranges::find(request.requested, "torch") == request.requested.end())
    throw UsageError("easyconfig", "torch is not among the requested projects",
                     "the PyTorch easyconfig is what the others depend on: name it, e.g. "
                     "`wheelmod easyconfig torch==2.6.0 torchvision torchaudio ...`");
  PlanContext context(request);
  EasyconfigPlan plan;

  // Which wheels go where, per architecture: torch and what it needs into
  // PyTorch, the other requested projects and their needs into PyTorch-bundle.
  std::set<std::string> others(request.requested.begin(), request.requested.end());
  others.erase("torch");
  std::map<std::string, std::vector<const resolve::ChosenWheel*>> torch_wheels;
  std::map<std::string, std::vector<const resolve::ChosenWheel*>> bundle_wheels;
  for (const auto& [arch, report] : request.reports) {
    torch_wheels[arch] = closure(report, {"torch"}, {});
    std::set<std::string> taken;
    for (const auto* wheel : torch_wheels[arch]) taken.insert(wheel->filename);
    if (!others.empty()) bundle_wheels[arch] = closure(report, others, taken);
  }

  std::vector<std::string> torch_only{"torch"};
  auto pytorch =
      context.easyconfig("PyTorch", merge_extensions(torch_wheels, torch_only, request.imports));
  context.add_requirements(pytorch, torch_wheels);
  context.add_sanity_checks_for_torch(pytorch);
  context.add_rocm_libraries(pytorch);
  if (request.relink == RelinkStep::relink) context.add_relink(pytorch);

  std::optional<Easyconfig> bundle;
  if (!others.empty()) {
    std::vector<std::string> order;
    for (const auto& project : request.requested)
      if (project != "torch") order.push_back(project);
    bundle = context.easyconfig("PyTorch-bundle",
                                merge_extensions(bundle_wheels, order, request.imports));
    context.add_pytorch_dependency(*bundle);
    context.add_requirements(*bundle, bundle_wheels);
    context.add_sanity_checks_for_bundle(*bundle);
  }

  // Dummy nvidia-* packages (keep): the generation's CUDA-wheel-bundle
  // when it pins exactly these versions, else one written here.
  auto wheel_bundle = context.cuda_wheel_bundle(pytorch);

  for (auto* easyconfig :
       {&pytorch, bundle ? &*bundle : nullptr, wheel_bundle ? &*wheel_bundle : nullptr})
    if (easyconfig != nullptr) context.finish(*easyconfig);
  plan.easyconfigs.push_back(std::move(pytorch));
  if (bundle) plan.easyconfigs.push_back(std::move(*bundle));
  if (wheel_bundle) plan.easyconfigs.push_back(std::move(*wheel_bundle));
  plan.to_add = context.to_add();
  plan.unmet = context.unmet();
  return plan;
}

}  // namespace wheelmod::emit
