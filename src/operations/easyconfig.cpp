#include "operations/easyconfig.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <utility>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "emit/templates.hpp"
#include "index_client/accelerator.hpp"
#include "operations/version.hpp"
#include "pep/requirement.hpp"

namespace wheelmod::operations {

namespace {

namespace fs = std::filesystem;

// The target glibc when --glibc is not given: 2.28, that of RHEL 8 and its
// rebuilds (the oldest RHEL major in support) and the baseline of
// manylinux_2_28 (PEP 600), on which torch >= 2.6 wheels are built.
constexpr std::string_view k_default_glibc = "2.28";
constexpr std::string_view k_default_arches = "x86_64,aarch64";

std::vector<std::string> split_arches(const std::string& text) {
  std::vector<std::string> arches;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    const auto arch = text.substr(start, comma - start);
    if (!arch.empty() && std::ranges::find(arches, arch) == arches.end()) arches.push_back(arch);
    start = comma + 1;
  }
  std::ranges::sort(arches);
  return arches;
}

// The CUDA module the easyconfigs depend on: the generation's CUDA whose
// version is the accelerator's, as the resolver maps the CUDA libraries.
// A variant named with --accelerator (cu130) on a generation of a newer CUDA of the same major
// (13.3.0) is served by that CUDA's modules: the wheels run on it (CUDA minor version
// compatibility), as the resolver maps their libraries.
std::string cuda_module_version(const index_client::Accelerator& accelerator,
                                const easybuild::Generation& generation) {
  const auto wanted = accelerator.version.value_or(generation.cuda ? generation.cuda->version : "");
  if (auto version = easybuild::cuda_module_version(generation, wanted)) return *version;
  if (accelerator.variant)
    if (auto version = easybuild::cuda_module_serving(generation, wanted)) return *version;
  std::string list;
  for (const auto& version : easybuild::cuda_versions(generation))
    list += (list.empty() ? "" : ", ") + version;
  throw UsageError("--accelerator " + accelerator.str(),
                   "generation " + generation.name + " has no CUDA " + wanted + " module",
                   list.empty() ? "it has no CUDA at all" : "its CUDA versions: " + list);
}

std::string shell_word(const std::string& word) {
  const bool plain = std::ranges::all_of(word, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_.=+-,:/%").find(c) != std::string_view::npos;
  });
  return plain ? word : "'" + word + "'";
}

// What the header records: the options that shape the output, not where
// it goes (--output-dir, --cache-dir) nor the index, whose URLs are in
// source_urls anyway.
std::vector<std::string> command_words(const EasyconfigOptions& options) {
  const auto& selection = options.selection;
  std::vector<std::string> words{"wheelmod", "easyconfig"};
  for (const auto& spec : selection.specs) words.push_back(shell_word(spec));
  words.insert(words.end(),
               {"--toolchain", selection.toolchain, "--accelerator", selection.accelerator});
  if (!selection.arch.empty()) words.insert(words.end(), {"--arch", selection.arch});
  if (!selection.glibc.empty()) words.insert(words.end(), {"--glibc", selection.glibc});
  if (selection.bundle_missing) words.emplace_back("--bundle-missing");
  if (options.metadata == easybuild::MetadataPolicy::keep)
    words.insert(words.end(), {"--metadata", "keep"});
  if (options.with_relink) words.emplace_back("--with-relink");
  if (!options.versionsuffix.empty())
    words.insert(words.end(), {"--versionsuffix", shell_word(options.versionsuffix)});
  return words;
}

// Everything the plan needs but the resolutions.
emit::StackRequest stack_request(const EasyconfigOptions& options,
                                 const easybuild::Generation& generation) {
  const auto& selection = options.selection;
  const auto& python = generation.python.version;
  if (!selection.python.empty() && !python.starts_with(selection.python + "."))
    throw UsageError("--python " + selection.python,
                     "an easyconfig installs for its toolchain's Python (" + python + ")",
                     "leave --python out");
  const auto accelerator = index_client::Accelerator::parse(selection.accelerator);
  if (!accelerator)
    throw UsageError("--accelerator " + selection.accelerator, accelerator.error().message);
  emit::StackRequest request;
  request.generation = &generation;
  request.toolchain = selection.toolchain;
  request.accelerator = accelerator->kind;
  if (request.accelerator == index_client::AcceleratorKind::cuda)
    request.cuda_version = cuda_module_version(*accelerator, generation);
  for (const auto& spec : selection.specs)
    if (const auto parsed = pep::Requirement::parse(spec))
      request.requested.push_back(parsed->canonical_name());
  if (std::ranges::find(request.requested, "torch") == request.requested.end())
    throw UsageError("easyconfig", "torch is not among the requested projects",
                     "the PyTorch easyconfig is what the others depend on: name it, e.g. "
                     "`wheelmod easyconfig torch==2.6.0 torchvision torchaudio ...`");
  request.metadata = options.metadata;
  request.relink = options.with_relink ? emit::RelinkStep::relink : emit::RelinkStep::none;
  request.wheelmod_version = wheelmod_version();
  if (!options.versionsuffix.empty()) request.versionsuffix = options.versionsuffix;
  request.command = command_words(options);
  return request;
}

// Whether CUDA variants `a` and `b` (cu129, cu128) both run on the same CUDA module of the
// generation of `toolchain` (easybuild::cuda_module_serving: the same major, not older): the
// easyconfig's sources are chosen per ARCH, its dependencies are that module's.
bool same_cuda_module(const easybuild::SiteConfig& config, const std::string& toolchain,
                      const std::string& a, const std::string& b) {
  const auto* generation = config.find_generation(toolchain);
  const auto cuda_a = index_client::cuda_version_of_variant(a);
  const auto cuda_b = index_client::cuda_version_of_variant(b);
  if (generation == nullptr || !cuda_a || !cuda_b) return false;
  const auto module_a = easybuild::cuda_module_serving(*generation, *cuda_a);
  return module_a && module_a == easybuild::cuda_module_serving(*generation, *cuda_b);
}

// One resolution per architecture, all of one variant or of variants one CUDA module runs: an
// easyconfig installs for one.
std::map<std::string, resolve::ResolveReport> resolve_arches(
    const EasyconfigOptions& options, const easybuild::SiteConfig& config,
    const std::function<bool(const std::string&)>& installed, Reporter& reporter) {
  const auto& selection = options.selection;
  std::map<std::string, resolve::ResolveReport> reports;
  const auto arches =
      split_arches(selection.arch.empty() ? std::string(k_default_arches) : selection.arch);
  for (const auto& arch : arches) {
    auto one = selection;
    one.arch = arch;
    if (one.glibc.empty()) one.glibc = k_default_glibc;
    try {
      reports.emplace(arch, resolve_selection(one, config, reporter, installed));
    } catch (const UnsatisfiableError& error) {
      throw UnsatisfiableError(error.subject() + " (" + arch + ")", error.cause(),
                               "the easyconfig covers " + std::string(k_default_arches) +
                                   " unless --arch names fewer; e.g. --arch x86_64");
    }
    const auto& first = reports.at(arches.front()).variant.variant;
    if (const auto& variant = reports.at(arch).variant.variant;
        variant != first && !same_cuda_module(config, selection.toolchain, first, variant))
      throw UnsatisfiableError(
          "--accelerator " + selection.accelerator,
          arches.front() + " resolves to " + first + ", " + arch + " to " + variant +
              ", which no one CUDA module of the generation runs",
          "one easyconfig installs for one CUDA module: name a variant (e.g. --accelerator " +
              first + ") or fewer architectures with --arch");
  }
  return reports;
}

// Wheels the index gives no sha256 for are downloaded (through the wheel
// cache) and hashed: an easyconfig never goes without a checksum. Fills
// them in and returns them by file name.
std::map<std::string, std::string> fill_missing_hashes(
    std::map<std::string, resolve::ResolveReport>& reports, const EasyconfigOptions& options,
    const fs::path& output_dir, Reporter& reporter) {
  resolve::ResolveReport unhashed;
  std::set<std::string> urls;
  for (const auto& [arch, report] : reports)
    for (const auto& wheel : report.wheels)
      if (!wheel.sha256 && urls.insert(wheel.url).second) unhashed.wheels.push_back(wheel);
  if (unhashed.wheels.empty()) return {};
  const TemporaryDirectory scratch(output_dir, ".wheelmod-easyconfig-",
                                   "check that --output-dir is writable");
  const auto batch = download_report_wheels(unhashed, scratch.path(), options.download,
                                            options.selection, reporter);
  if (!batch.failures.empty()) throw net::combined_failure(batch);
  std::map<std::string, std::string> by_url;
  for (std::size_t i = 0; i < unhashed.wheels.size(); ++i)
    by_url.emplace(unhashed.wheels[i].url, batch.results[i]->sha256);
  std::map<std::string, std::string> by_file;
  for (auto& [arch, report] : reports)
    for (auto& wheel : report.wheels)
      if (!wheel.sha256) {
        wheel.sha256 = by_url.at(wheel.url);
        by_file.emplace(wheel.filename, *wheel.sha256);
      }
  return by_file;
}

// --with-relink: the easyconfig of wheelmod itself the project ships for the generation's GCCcore
// (easyconfigs/ in the data directory), to be written beside the others so that `eb --robot`
// finds the build dependency; nullopt when there is none.
std::optional<std::pair<WrittenEasyconfig, std::string>> wheelmod_easyconfig(
    const easybuild::Generation& generation, const fs::path& dir) {
  const std::string name =
      "wheelmod-" + wheelmod_version() + "-GCCcore-" + generation.gcccore + ".eb";
  auto text = read_file_if_exists(shipped_data_dir("easyconfigs") / name);
  if (!text) return std::nullopt;
  return std::pair{WrittenEasyconfig{dir / name, "wheelmod", wheelmod_version(), "",
                                     "GCCcore-" + generation.gcccore},
                   std::move(*text)};
}

// "13.3.0, 14.3.0": the GCCcore versions of the shipped wheelmod easyconfigs.
std::string shipped_gcccores() {
  const std::string prefix = "wheelmod-" + wheelmod_version() + "-GCCcore-";
  std::vector<std::string> versions;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(shipped_data_dir("easyconfigs"), error)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".eb"))
      versions.push_back(name.substr(prefix.size(), name.size() - prefix.size() - 3));
  }
  std::ranges::sort(versions);
  std::string out;
  for (const auto& version : versions) out += (out.empty() ? "" : ", ") + version;
  return out.empty() ? "no version" : out;
}

// An easyconfig of `plan` already in `dir` is refused without --force. Asked once the
// resolution names the files and again before writing: a re-run stops before it downloads a wheel
// to hash it.
void refuse_existing(const emit::EasyconfigPlan& plan, const fs::path& dir, bool force) {
  if (force) return;
  for (const auto& easyconfig : plan.easyconfigs) {
    const auto path = dir / emit::easyconfig_file_name(easyconfig);
    std::error_code error;
    if (fs::exists(fs::symlink_status(path, error)))
      throw UsageError(path.string(), "already exists",
                       "pass --force to replace it, or choose another --output-dir");
  }
}

// All files are checked before any is written and written together: a run
// never leaves a half-written .eb, nor replaces one without --force.
std::vector<WrittenEasyconfig> write_easyconfigs(
    const emit::EasyconfigPlan& plan, const emit::TemplateSet& templates, const fs::path& dir,
    bool force, const std::optional<std::pair<WrittenEasyconfig, std::string>>& own) {
  refuse_existing(plan, dir, force);
  std::vector<WrittenEasyconfig> written;
  for (const auto& easyconfig : plan.easyconfigs) {
    const auto path = dir / emit::easyconfig_file_name(easyconfig);
    written.push_back({path, easyconfig.name, easyconfig.version, easyconfig.versionsuffix,
                       easyconfig.toolchain.name + "-" + easyconfig.toolchain.version});
  }
  std::vector<std::string> texts;
  for (const auto& easyconfig : plan.easyconfigs)
    texts.push_back(emit::render_easyconfig(easyconfig, templates));
  if (own) {  // the same bytes again are no clash
    if (!force && fs::exists(own->first.path) &&
        read_file_if_exists(own->first.path).value_or("") != own->second)
      throw UsageError(own->first.path.string(), "already exists",
                       "pass --force to replace it, or choose another --output-dir");
    written.push_back(own->first);
    texts.push_back(own->second);
  }
  AtomicFileSet files;
  for (std::size_t i = 0; i < written.size(); ++i) files.add(written[i].path, texts[i]);
  files.commit();
  return written;
}

}  // namespace

EasyconfigResult easyconfig(const EasyconfigOptions& given, Reporter& reporter) {
  auto options = given;
  options.selection = with_index_variant(given.selection, reporter);
  const auto& selection = options.selection;
  if (selection.toolchain.empty())
    throw UsageError("easyconfig", "no --toolchain given",
                     "name the toolchain, e.g. --toolchain foss-2024a");
  if (selection.no_deps)
    throw UsageError("--no-deps",
                     "an easyconfig needs the wheels' requirements to map its dependencies");
  auto config = load_site_config(selection.config_dir, selection.toolchain);
  const auto installed = read_site(config, selection, options.site, reporter);
  auto request = stack_request(options, find_generation(config, selection.toolchain));
  request.reports = resolve_arches(options, config, installed, reporter);
  request.variant = request.reports.begin()->second.variant.variant;

  EasyconfigResult result;
  result.output_dir = fs::absolute(options.output_dir).lexically_normal();
  result.variant = request.variant;
  std::error_code error;
  fs::create_directories(result.output_dir, error);
  if (error)
    throw IoError(result.output_dir.string(),
                  "cannot create the output directory: " + error.message());
  // The files' names are the resolution's: an existing one stops the run before any wheel is
  // downloaded for its hash.
  refuse_existing(emit::plan_easyconfigs(request), result.output_dir, options.force);
  result.computed_sha256 =
      fill_missing_hashes(request.reports, options, result.output_dir, reporter);
  const auto plan = emit::plan_easyconfigs(request);
  const emit::TemplateSet templates(
      emit::TemplateSet::default_dir(),
      options.templates.empty() ? std::nullopt : std::optional<fs::path>(options.templates));
  const auto& generation = find_generation(config, selection.toolchain);
  std::optional<std::pair<WrittenEasyconfig, std::string>> own;
  if (options.with_relink) own = wheelmod_easyconfig(generation, result.output_dir);
  result.written = write_easyconfigs(plan, templates, result.output_dir, options.force, own);
  result.to_add = plan.to_add;
  if (options.with_relink && !own)
    result.to_add.push_back(
        {"wheelmod " + wheelmod_version() + " (build dependency, --with-relink)",
         "wheelmod ships easyconfigs for GCCcore " + shipped_gcccores() +
             " (easyconfigs/), none "
             "for " +
             generation.gcccore + ": copy one as wheelmod-" + wheelmod_version() + "-GCCcore-" +
             generation.gcccore + ".eb with this generation's dependency versions"});
  return result;
}

}  // namespace wheelmod::operations
