// `wheelmod easyconfig`: Stage-1 easyconfigs (PythonBundles of the
// official wheels) for a toolchain and accelerator, resolved once per
// architecture, every wheel with its sha256 (from the index, or computed
// from the downloaded file), written atomically into --output-dir.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <set>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/selection.hpp"
#include "core/errors.hpp"
#include "easybuild/easyconfig_plan.hpp"
#include "pep/requirement.hpp"
#include "resolve/accelerator.hpp"

namespace wheelmod::cli {

namespace {

namespace fs = std::filesystem;
namespace eb = easybuild;

// The target glibc when --glibc is not given: 2.28, that of RHEL 8 and its
// rebuilds (the oldest RHEL major in support) and the baseline of
// manylinux_2_28 (PEP 600), on which torch >= 2.6 wheels are built.
constexpr std::string_view k_default_glibc = "2.28";
constexpr std::string_view k_default_arches = "x86_64,aarch64";

struct EasyconfigOptions {
  SelectionOptions selection;
  DownloadSettings download;
  std::string output_dir;
  std::string templates;
  std::string versionsuffix;
  eb::MetadataStrategy metadata = eb::MetadataStrategy::keep;
  bool with_relink = false;
  bool force = false;
  OutputFormat format = OutputFormat::text;
};

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

std::vector<unsigned> version_numbers(std::string_view version) {
  std::vector<unsigned> out;
  unsigned value = 0;
  for (const char c : version) {
    if (c == '.') {
      out.push_back(value);
      value = 0;
    } else if (c >= '0' && c <= '9') {
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
  }
  out.push_back(value);
  return out;
}

// The CUDA module the easyconfigs depend on: the generation's CUDA (main
// or other) whose major.minor is the accelerator's, as the resolver maps
// the CUDA libraries.
std::string cuda_module_version(const resolve::Accelerator& accelerator,
                                const eb::Generation& generation) {
  std::vector<std::string> known;
  if (generation.cuda) known.push_back(generation.cuda->version);
  known.insert(known.end(), generation.cuda_other.begin(), generation.cuda_other.end());
  const auto wanted = accelerator.version.value_or(generation.cuda ? generation.cuda->version : "");
  const auto want = version_numbers(wanted);
  for (const auto& version : known) {
    const auto have = version_numbers(version);
    if (have.size() >= 2 && want.size() >= 2 && have[0] == want[0] && have[1] == want[1] &&
        (want.size() < 3 || have == want))
      return version;
  }
  std::string list;
  for (const auto& version : known) list += (list.empty() ? "" : ", ") + version;
  throw UsageError("--accelerator " + accelerator.str(),
                   "generation " + generation.name + " has no CUDA " + wanted + " module",
                   list.empty() ? "it has no CUDA at all" : "its CUDA versions: " + list);
}

eb::RequirementSource source_of(resolve::DependencyResolution resolution) {
  switch (resolution) {
    case resolve::DependencyResolution::chosen_wheel:
      return eb::RequirementSource::wheel;
    case resolve::DependencyResolution::eb_module:
      return eb::RequirementSource::module;
    case resolve::DependencyResolution::bundled_wheel:
      return eb::RequirementSource::bundled_wheel;
    case resolve::DependencyResolution::missing:
      return eb::RequirementSource::missing;
  }
  return eb::RequirementSource::missing;
}

eb::ArchResolution to_arch_resolution(const std::string& arch,
                                      const resolve::ResolveReport& report) {
  eb::ArchResolution out{arch, {}};
  for (const auto& wheel : report.wheels) {
    eb::ResolvedWheel resolved{wheel.name,
                               wheel.version,
                               wheel.filename,
                               wheel.url,
                               wheel.sha256.value_or(""),
                               wheel.requested,
                               {}};
    for (const auto& dependency : wheel.dependencies)
      resolved.requirements.push_back(
          {dependency.name, dependency.requirement, source_of(dependency.resolution),
           dependency.provider, dependency.provided_version,
           dependency.compatibility == resolve::Compatibility::incompatible, dependency.note});
    out.wheels.push_back(std::move(resolved));
  }
  return out;
}

// Wheels the index gives no sha256 for are downloaded (through the wheel
// cache) and hashed: an easyconfig never goes without a checksum.
std::map<std::string, std::string> compute_missing_hashes(
    const std::vector<resolve::ResolveReport>& reports, const EasyconfigOptions& options,
    const fs::path& output_dir, Reporter& reporter) {
  resolve::ResolveReport unhashed;
  std::set<std::string> urls;
  for (const auto& report : reports)
    for (const auto& wheel : report.wheels)
      if (!wheel.sha256 && urls.insert(wheel.url).second) unhashed.wheels.push_back(wheel);
  if (unhashed.wheels.empty()) return {};
  const fs::path scratch = output_dir / (".wheelmod-easyconfig-" + std::to_string(::getpid()));
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } cleanup{scratch};
  std::error_code error;
  fs::create_directories(scratch, error);
  if (error)
    throw IoError(scratch.string(), "cannot create a directory for hashing: " + error.message());
  const auto batch = download_report_wheels(unhashed, scratch, options.download,
                                            options.selection.cache_dir, reporter);
  if (!batch.failures.empty()) throw net::combined_failure(batch);
  std::map<std::string, std::string> hashes;
  for (std::size_t i = 0; i < unhashed.wheels.size(); ++i)
    hashes.emplace(unhashed.wheels[i].url, batch.results[i]->sha256);
  return hashes;
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
  if (options.metadata == eb::MetadataStrategy::strip)
    words.insert(words.end(), {"--metadata", "strip"});
  if (options.with_relink) words.emplace_back("--with-relink");
  if (!options.versionsuffix.empty())
    words.insert(words.end(), {"--versionsuffix", shell_word(options.versionsuffix)});
  return words;
}

struct Written {
  fs::path path;
  const eb::Easyconfig* easyconfig;
};

// All files are checked before any is written, all are written to
// temporary names, and only then renamed into place: a run never leaves a
// half-written .eb, nor replaces one without --force.
std::vector<Written> write_all(const std::vector<eb::Easyconfig>& easyconfigs,
                               const std::vector<std::string>& texts, const fs::path& dir,
                               bool force) {
  std::vector<Written> out;
  for (const auto& easyconfig : easyconfigs) {
    const auto path = dir / eb::easyconfig_file_name(easyconfig);
    if (!force && fs::exists(path))
      throw UsageError(path.string(), "already exists",
                       "pass --force to replace it, or choose another --output-dir");
    out.push_back({path, &easyconfig});
  }
  std::vector<fs::path> temporaries;
  const auto discard = [&temporaries] {
    std::error_code ignored;
    for (const auto& temporary : temporaries) fs::remove(temporary, ignored);
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    temporaries.push_back(
        dir / ("." + out[i].path.filename().string() + ".tmp-" + std::to_string(::getpid())));
    std::ofstream file(temporaries.back(), std::ios::binary | std::ios::trunc);
    file << texts[i];
    file.close();
    if (!file) {
      discard();
      throw IoError(temporaries.back().string(), "cannot write the easyconfig",
                    "check that --output-dir is writable");
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::error_code error;
    fs::rename(temporaries[i], out[i].path, error);
    if (error) {
      discard();
      throw IoError(out[i].path.string(),
                    "cannot move the easyconfig into place: " + error.message());
    }
  }
  return out;
}

void run_easyconfig(EasyconfigOptions& options, CommandContext& context) {
  auto& selection = options.selection;
  if (selection.toolchain.empty())
    throw UsageError("easyconfig", "no --toolchain given",
                     "name the toolchain, e.g. --toolchain foss-2024a");
  if (selection.no_deps)
    throw UsageError("--no-deps",
                     "an easyconfig needs the wheels' requirements to map its dependencies");
  const auto config = eb::SiteConfig::load(
      eb::SiteConfig::default_dir(),
      selection.config_dir.empty() ? std::nullopt : std::optional<fs::path>(selection.config_dir));
  const auto* generation = config.find_generation(selection.toolchain);
  if (generation == nullptr) {
    std::string known;
    for (const auto& name : config.toolchain_names()) known += (known.empty() ? "" : ", ") + name;
    throw UsageError("--toolchain " + selection.toolchain, "unknown toolchain",
                     "known toolchains: " + known + " (add one with --config DIR)");
  }
  const auto& python = generation->python.version;
  if (!selection.python.empty() && !python.starts_with(selection.python + "."))
    throw UsageError("--python " + selection.python,
                     "an easyconfig installs for its toolchain's Python (" + python + ")",
                     "leave --python out");
  const auto accelerator = resolve::Accelerator::parse(selection.accelerator);
  if (!accelerator)
    throw UsageError("--accelerator " + selection.accelerator, accelerator.error().message);
  eb::StackRequest request;
  request.generation = generation;
  request.toolchain = selection.toolchain;
  request.build = accelerator->kind == resolve::AcceleratorKind::cuda   ? eb::BuildKind::cuda
                  : accelerator->kind == resolve::AcceleratorKind::rocm ? eb::BuildKind::rocm
                                                                        : eb::BuildKind::cpu;
  if (request.build == eb::BuildKind::cuda)
    request.cuda_version = cuda_module_version(*accelerator, *generation);
  for (const auto& spec : selection.specs)
    if (const auto parsed = pep::Requirement::parse(spec))
      request.requested.push_back(parsed->canonical_name());
  if (std::ranges::find(request.requested, "torch") == request.requested.end())
    throw UsageError("easyconfig", "torch is not among the requested projects",
                     "the PyTorch easyconfig is what the others depend on: name it, e.g. "
                     "`wheelmod easyconfig torch==2.6.0 torchvision torchaudio ...`");

  auto reporter = make_stderr_reporter(context.global.verbosity);
  std::vector<resolve::ResolveReport> reports;
  const auto arches =
      split_arches(selection.arch.empty() ? std::string(k_default_arches) : selection.arch);
  for (const auto& arch : arches) {
    auto one = selection;
    one.arch = arch;
    if (one.glibc.empty()) one.glibc = k_default_glibc;
    try {
      reports.push_back(resolve_selection(one, context, *reporter));
    } catch (const UnsatisfiableError& error) {
      throw UnsatisfiableError(error.subject() + " (" + arch + ")", error.cause(),
                               "the easyconfig covers " + std::string(k_default_arches) +
                                   " unless --arch names fewer; e.g. --arch x86_64");
    }
    if (reports.back().variant.variant != reports.front().variant.variant)
      throw UnsatisfiableError("--accelerator " + selection.accelerator,
                               arches.front() + " resolves to " + reports.front().variant.variant +
                                   ", " + arch + " to " + reports.back().variant.variant,
                               "one easyconfig installs one variant: name it (e.g. --accelerator " +
                                   reports.front().variant.variant +
                                   ") or fewer architectures with --arch");
  }
  request.variant = reports.front().variant.variant;

  const fs::path output_dir = fs::absolute(options.output_dir).lexically_normal();
  std::error_code error;
  fs::create_directories(output_dir, error);
  if (error)
    throw IoError(output_dir.string(), "cannot create the output directory: " + error.message());
  const auto computed = compute_missing_hashes(reports, options, output_dir, *reporter);
  for (std::size_t i = 0; i < arches.size(); ++i) {
    auto resolution = to_arch_resolution(arches[i], reports[i]);
    for (auto& wheel : resolution.wheels)
      if (wheel.sha256.empty()) wheel.sha256 = computed.at(wheel.url);
    request.arches.push_back(std::move(resolution));
  }
  request.metadata = options.metadata;
  request.relink = options.with_relink ? eb::RelinkStep::relink : eb::RelinkStep::none;
  request.wheelmod_version = WHEELMOD_VERSION;
  if (!options.versionsuffix.empty()) request.versionsuffix = options.versionsuffix;
  request.command = command_words(options);

  const auto plan = eb::plan_easyconfigs(request);
  const eb::TemplateSet templates(
      eb::TemplateSet::default_dir(),
      options.templates.empty() ? std::nullopt : std::optional<fs::path>(options.templates));
  std::vector<std::string> texts;
  for (const auto& easyconfig : plan.easyconfigs)
    texts.push_back(eb::render_easyconfig(easyconfig, templates));
  const auto written = write_all(plan.easyconfigs, texts, output_dir, options.force);
  std::map<std::string, std::string> computed_by_file;
  for (const auto& report : reports)
    for (const auto& wheel : report.wheels)
      if (!wheel.sha256) computed_by_file.emplace(wheel.filename, computed.at(wheel.url));

  if (options.format == OutputFormat::json) {
    using nlohmann::json;
    json files = json::array();
    for (const auto& item : written)
      files.push_back({{"path", item.path.string()},
                       {"name", item.easyconfig->name},
                       {"version", item.easyconfig->version},
                       {"versionsuffix", item.easyconfig->versionsuffix},
                       {"toolchain", item.easyconfig->toolchain.name + "-" +
                                         item.easyconfig->toolchain.version}});
    json to_add = json::array();
    for (const auto& item : plan.to_add)
      to_add.push_back({{"subject", item.subject}, {"reason", item.reason}});
    json hashes = json::array();
    for (const auto& [filename, sha256] : computed_by_file)
      hashes.push_back({{"filename", filename}, {"sha256", sha256}});
    context.out << json{{"schema_version", 1},        {"output_dir", output_dir.string()},
                        {"variant", request.variant}, {"written", files},
                        {"computed_sha256", hashes},  {"to_add", to_add}}
                       .dump(2)
                << '\n';
    return;
  }
  for (const auto& item : written) context.out << "wrote   " << item.path.string() << "\n";
  for (const auto& [filename, sha256] : computed_by_file)
    context.out << "sha256  " << filename << ": " << sha256
                << " (computed: the index gives none)\n";
  for (const auto& item : plan.to_add)
    context.out << "to add  " << item.subject << ": " << item.reason << "\n";
}

}  // namespace

CommandRunner add_easyconfig_command(CLI::App& app) {
  auto options = std::make_shared<EasyconfigOptions>();
  auto* sub = app.add_subcommand(
      "easyconfig",
      "Write Stage-1 EasyBuild easyconfigs (PythonBundles of the official wheels) for a toolchain "
      "and accelerator, for x86_64 and aarch64, every wheel with its sha256");
  add_selection_options(*sub, options->selection, SpecArity::required);
  sub->get_option("--arch")->description(
      "Target architectures, comma-separated (default: x86_64,aarch64)");
  sub->get_option("--glibc")->description(
      "Target glibc 2.NN (default: 2.28, RHEL 8 and manylinux_2_28)");
  add_download_options(*sub, options->download);
  sub->add_option("--output-dir", options->output_dir,
                  "Directory for the .eb files (created when missing)")
      ->required();
  sub->add_option(
      "--templates", options->templates,
      "Directory with site templates (easyconfig.eb.mustache) used before the shipped ones");
  sub->add_option("--metadata", options->metadata,
                  "keep: nvidia-* requirements stay, met by a CUDA-wheel-bundle of dummy packages; "
                  "strip: postinstallcmds delete them from the installed METADATA (default: keep)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, eb::MetadataStrategy>{{"keep", eb::MetadataStrategy::keep},
                                                      {"strip", eb::MetadataStrategy::strip}},
          CLI::ignore_case));
  sub->add_flag("--with-relink", options->with_relink,
                "Add postinstallcmds running `wheelmod relink` and `wheelmod check` (wheelmod as a "
                "build dependency)");
  sub->add_option("--versionsuffix", options->versionsuffix,
                  "versionsuffix of the PyTorch easyconfigs (default: -whl, -CUDA-%(cudaver)s-whl, "
                  "-ROCm-<version>-whl)");
  sub->add_flag("--force", options->force, "Replace .eb files that exist");
  add_format_option(*sub, options->format);
  return [options](CommandContext& context) { run_easyconfig(*options, context); };
}

}  // namespace wheelmod::cli
