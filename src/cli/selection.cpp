#include "cli/selection.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>

#include "cli/host.hpp"
#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "index/url.hpp"
#include "net/fetcher.hpp"
#include "resolve/resolver.hpp"

namespace wheelmod::cli {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

resolve::ResolveRequest build_request(const SelectionOptions& options,
                                      const easybuild::SiteConfig& config) {
  resolve::ResolveRequest request;
  for (const auto& text : options.specs) {
    auto requirement = pep::Requirement::parse(text);
    if (!requirement)
      throw UsageError(
          text, "not a valid requirement: " + requirement.error().message,
          "write requirements as PEP 508 specifiers, e.g. torch==2.6.0 'torchvision>=0.21'");
    if (requirement->url)
      throw UsageError(text, "direct URL requirements are not resolved against an index",
                       "give the wheel itself with `wheelmod install --wheel FILE`");
    request.specs.push_back(std::move(*requirement));
  }
  auto accelerator = resolve::Accelerator::parse(options.accelerator);
  if (!accelerator)
    throw UsageError("--accelerator " + options.accelerator, accelerator.error().message);
  request.accelerator = *accelerator;

  if (!options.toolchain.empty()) {
    request.generation = config.find_generation(options.toolchain);
    if (request.generation == nullptr)
      throw UsageError(
          "--toolchain " + options.toolchain, "unknown toolchain",
          "known toolchains: " + joined(config.toolchain_names()) + " (add one with --config DIR)");
    request.toolchain = options.toolchain;
  }
  if (!options.python.empty()) {
    request.python = options.python;
    request.python_source = "--python";
  } else if (request.generation) {
    const auto& full = request.generation->python.version;  // 3.12.3 -> 3.12
    request.python = full.substr(0, full.find('.', full.find('.') + 1));
    request.python_source = request.generation->python.module;
  } else {
    throw UsageError("resolve", "no target Python: neither --toolchain nor --python given",
                     "name the toolchain (--toolchain foss-2024a) or the Python (--python 3.12)");
  }

  auto glibc = host_glibc();
  if (!options.glibc.empty()) {
    const auto parsed = pep::GlibcVersion::parse(options.glibc);
    if (!parsed)
      throw UsageError("--glibc " + options.glibc, parsed.error().message,
                       "give it as 2.NN, e.g. --glibc 2.28");
    glibc = *parsed;
  }
  const auto arch = options.arch.empty() ? host_arch() : options.arch;
  if (!is_known_arch(arch))
    throw UsageError("--arch " + arch, "unknown architecture",
                     "use one of: " + known_arches_text());
  auto target = pep::TagTarget::with_python(request.python, arch, glibc);
  if (!target) throw UsageError("--python " + request.python, target.error().message);
  request.tag_target = *target;
  // The marker environment wants X.Y; a free-threaded "3.13t" is 3.13 there.
  if (request.python.ends_with('t')) request.python.pop_back();
  request.index_root = index::to_url(options.index);
  request.no_deps = options.no_deps;
  request.missing_libraries = options.bundle_missing ? resolve::MissingLibraries::bundle
                                                     : resolve::MissingLibraries::report;
  return request;
}

}  // namespace

std::string cache_dir_or_default(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/wheelmod";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.cache/wheelmod";
  return "";
}

void add_selection_options(CLI::App& sub, SelectionOptions& options, SpecArity specs) {
  auto* spec =
      sub.add_option("SPEC", options.specs, "PEP 508 requirements, e.g. torch==2.6.0 torchvision");
  if (specs == SpecArity::required) spec->required();
  sub.add_option("--toolchain", options.toolchain,
                 "EasyBuild toolchain, e.g. foss-2024a (gives Python and CUDA versions)");
  sub.add_option("--accelerator", options.accelerator,
                 "cpu, cuda, cuda:12.6, cu126, rocm, rocm:6.2 or rocm6.2.4 (default: cpu)");
  sub.add_option("--index", options.index,
                 "Index root with variants below it: https://, http://, file:// or a path "
                 "(default: https://download.pytorch.org/whl)");
  sub.add_option("--python", options.python, "Target Python X.Y (default: the toolchain's)");
  sub.add_option("--arch", options.arch, "Target architecture (default: this host)");
  sub.add_option("--glibc", options.glibc, "Target glibc 2.NN (default: this host)");
  sub.add_option("--cache-dir", options.cache_dir,
                 "HTTP and wheel cache (default: $XDG_CACHE_HOME/wheelmod)");
  sub.add_option("--config", options.config_dir,
                 "Site directory with toolchains.yaml / eb-dependencies.yaml overrides");
  sub.add_flag("--no-deps", options.no_deps,
               "Select only the named projects; read no metadata (pins are not checked)");
  sub.add_flag("--bundle-missing", options.bundle_missing,
               "Bundle the index's nvidia-* wheel for a CUDA library no module provides "
               "(default: report it missing)");
}

resolve::ResolveReport resolve_selection(const SelectionOptions& options, CommandContext& context,
                                         Reporter& reporter,
                                         std::function<bool(const std::string&)> module_installed) {
  const auto config = easybuild::SiteConfig::load(
      easybuild::SiteConfig::default_dir(),
      options.config_dir.empty() ? std::nullopt
                                 : std::optional<std::filesystem::path>(options.config_dir));
  auto request = build_request(options, config);
  request.module_installed = std::move(module_installed);
  net::FetcherOptions fetch_options;
  fetch_options.cache_dir = cache_dir_or_default(options.cache_dir);
  net::Fetcher fetcher(fetch_options);
  auto report = resolve::resolve(request, fetcher, reporter);
  if (context.global.verbosity != Verbosity::quiet && fetcher.stats().requests > 0) {
    // What the index cost, as pip and uv print it: a second run against an
    // unchanged index should show its pages answered from the cache.
    const auto& stats = fetcher.stats();
    context.err << "index: " << stats.requests << " requests, " << format_bytes(stats.body_bytes)
                << " received, " << stats.not_modified << " pages unchanged (cache)\n";
  }
  return report;
}

void add_download_options(CLI::App& sub, DownloadSettings& settings) {
  sub.add_option("--jobs,-j", settings.jobs, "Transfers at once (default: 4)");
  sub.add_option("--retries", settings.retries,
                 "Retries per file after failed attempts in a row (one that brought 1 MiB or "
                 "more is progress, not a failure; default: 5)");
  sub.add_option("--stall-timeout", settings.stall_timeout,
                 "Seconds without a byte before a transfer is retried (default: 60)");
  sub.add_option("--cacert", settings.cacert,
                 "CA bundle for TLS (default: SSL_CERT_FILE, CURL_CA_BUNDLE, the system's)");
  sub.add_flag("--no-cache", settings.no_cache,
               "Neither use nor fill the wheel cache under --cache-dir");
}

net::DownloadBatch download_report_wheels(const resolve::ResolveReport& report,
                                          const std::filesystem::path& dest,
                                          const DownloadSettings& settings,
                                          const std::string& cache_dir, Reporter& reporter) {
  if (settings.jobs == 0 || settings.jobs > 64)
    throw UsageError("--jobs " + std::to_string(settings.jobs), "must be between 1 and 64");
  std::vector<net::DownloadRequest> requests;
  for (const auto& wheel : report.wheels)
    requests.push_back(net::DownloadRequest{.url = wheel.url,
                                            .destination = dest / wheel.filename,
                                            .sha256 = wheel.sha256,
                                            .size = wheel.size,
                                            .label = wheel.filename});
  net::DownloadOptions download;
  download.jobs = settings.jobs;
  download.attempts = settings.retries + 1;
  download.stall_timeout = std::chrono::seconds(settings.stall_timeout);
  download.cacert = settings.cacert;
  if (!settings.no_cache) {
    const auto cache = cache_dir_or_default(cache_dir);
    if (!cache.empty()) download.cache_dir = cache;
  }
  return net::download_all(requests, download, reporter);
}

}  // namespace wheelmod::cli
