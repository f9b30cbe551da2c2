#include "operations/selection.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/suggest.hpp"
#include "core/url.hpp"
#include "host.hpp"
#include "index_client/accelerator.hpp"
#include "net/fetcher.hpp"
#include "operations/index_setting.hpp"
#include "operations/site.hpp"
#include "pep/requirement.hpp"
#include "pep/version.hpp"
#include "resolve/resolver.hpp"

namespace wheelmod::operations {

void settle_cuda_major(index_client::Accelerator& accelerator,
                       const easybuild::Generation* generation) {
  if (accelerator.kind != index_client::AcceleratorKind::cuda || !accelerator.major_only() ||
      generation == nullptr)
    return;
  const auto& major = *accelerator.version;
  // The generation's CUDA of that major, the main one first: the newest variant it runs is the
  // one to take (CUDA minor version compatibility), as for a bare `cuda`.
  const auto serving = easybuild::cuda_module_serving(*generation, major);
  if (!serving) {
    std::string list;
    for (const auto& version : easybuild::cuda_versions(*generation))
      list += (list.empty() ? "" : ", ") + version;
    throw UsageError(
        "--accelerator cuda:" + major,
        "toolchain generation " + generation->name + " has no CUDA " + major + " module",
        list.empty() ? "it has no CUDA at all" : "its CUDA versions: " + list);
  }
  accelerator.version = *serving;
}

namespace {

std::vector<pep::Requirement> parse_specs(const std::vector<std::string>& specs) {
  std::vector<pep::Requirement> out;
  for (const auto& text : specs) {
    auto requirement = pep::Requirement::parse(text);
    if (!requirement)
      throw UsageError(
          text, "not a valid requirement: " + requirement.error().message,
          "write requirements as PEP 508 specifiers, e.g. torch==2.6.0 'torchvision>=0.21'");
    if (requirement->url)
      throw UsageError(text, "direct URL requirements are not resolved against an index",
                       "give the wheel itself with `wheelmod install --wheel FILE`");
    out.push_back(std::move(*requirement));
  }
  return out;
}

// The target machine: --python (else the toolchain's), --arch and --glibc
// (else this host's).
void set_target(const Selection& selection, resolve::ResolveRequest& request) {
  if (!selection.python.empty()) {
    request.python = selection.python;
    request.python_source = "--python";
  } else if (request.generation) {
    request.python = major_minor(request.generation->python.version);
    request.python_source = request.generation->python.module;
  } else {
    throw UsageError("resolve", "no target Python: neither --toolchain nor --python given",
                     "name the toolchain (--toolchain foss-2024a) or the Python (--python 3.12)");
  }
  auto glibc = host_glibc();
  if (!selection.glibc.empty()) glibc = glibc_option(selection.glibc);
  const auto arch = selection.arch.empty() ? host_arch() : selection.arch;
  if (!is_known_arch(arch))
    throw UsageError("--arch " + arch, "unknown architecture",
                     "use one of: " + known_arches_text());
  auto target = pep::TagTarget::with_python(request.python, arch, glibc);
  if (!target) throw UsageError("--python " + request.python, target.error().message);
  request.tag_target = *target;
  // The marker environment wants X.Y; a free-threaded "3.13t" is 3.13 there.
  if (request.python.ends_with('t')) request.python.pop_back();
}

resolve::ResolveRequest build_request(const Selection& selection,
                                      const easybuild::SiteConfig& config) {
  resolve::ResolveRequest request;
  request.specs = parse_specs(selection.specs);
  auto accelerator = index_client::Accelerator::parse(selection.accelerator);
  if (!accelerator)
    throw UsageError("--accelerator " + selection.accelerator, accelerator.error().message);
  request.accelerator = *accelerator;
  if (!selection.toolchain.empty()) {
    request.generation = &find_generation(config, selection.toolchain);
    request.toolchain = selection.toolchain;
  }
  settle_cuda_major(request.accelerator, request.generation);
  set_target(selection, request);
  request.index_root = to_url(selection.index);
  request.no_deps = selection.no_deps;
  request.missing_libraries = selection.bundle_missing ? resolve::MissingLibraries::bundle
                                                       : resolve::MissingLibraries::report;
  if (!selection.wheel_variant.empty()) request.wheel_variant = selection.wheel_variant;
  if (selection.driver == "none") {
    // not checked
  } else if (!selection.driver.empty()) {
    if (!pep::Version::parse(selection.driver) ||
        selection.driver.find_first_not_of("0123456789.") != std::string::npos)
      throw UsageError(
          "--driver " + selection.driver, "not a driver version",
          "give it as nvidia-smi prints it, e.g. --driver 550.54.15, or --driver none");
    request.nvidia_driver = resolve::DriverVersion{selection.driver, "--driver"};
  } else if (request.accelerator.kind == index_client::AcceleratorKind::cuda) {
    if (auto running = host_nvidia_driver())
      request.nvidia_driver =
          resolve::DriverVersion{*running, "this machine's, /proc/driver/nvidia/version"};
  }
  return request;
}

// The last path segment of `url` and the URL without it ("…/whl/cu126/" -> "cu126", "…/whl").
std::pair<std::string, std::string> split_last_segment(const std::string& url) {
  auto end = url.size();
  while (end > 0 && url[end - 1] == '/') --end;
  const auto slash = url.rfind('/', end == 0 ? 0 : end - 1);
  if (slash == std::string::npos) return {"", url};
  return {percent_decode(std::string_view(url).substr(slash + 1, end - slash - 1)),
          url.substr(0, slash)};
}

}  // namespace

net::ConnectionOptions connection_options(const ConnectionSettings& settings,
                                          const Getenv& environment) {
  const auto set = [&](const char* name) {
    auto value = environment(name);
    return value && !value->empty() ? value : std::nullopt;
  };
  net::ConnectionOptions out;
  out.cacert = settings.cacert;
  for (const char* name : {"SSL_CERT_FILE", "CURL_CA_BUNDLE"})
    if (out.cacert.empty()) out.cacert = set(name).value_or("");
  out.netrc_file = set("NETRC").value_or("");
  out.stall_timeout = std::chrono::seconds(settings.stall_timeout);
  return out;
}

Selection with_index_variant(Selection selection, Reporter& reporter) {
  const auto setting = index_setting(selection.index, selection.getenv);
  selection.index = setting.url;
  // What the messages call it: the option, or where the configured value came from.
  const auto subject = setting.origin == "--index" ? "--index " + mask_credentials(selection.index)
                                                   : "index " + mask_credentials(selection.index) +
                                                         " (" + setting.origin + ")";
  const auto url = to_url(selection.index);
  const auto [segment, root] = split_last_segment(url);
  const auto kind = index_client::classify_directory(segment);
  if (kind == index_client::DirectoryKind::legacy_variant)
    throw UsageError(subject,
                     "names " + segment +
                         ", a legacy directory of download.pytorch.org that is no longer "
                         "updated (pytorch/test-infra manage_v2.py NOT_ACCEPTED_SUBDIR_PATTERNS)",
                     "give the index root, --index " + mask_credentials(root) +
                         ", and the accelerator with --accelerator");
  if (kind == index_client::DirectoryKind::variant) {
    const auto given = ascii_lower(selection.accelerator);
    const auto given_parsed = index_client::Accelerator::parse(given);
    const bool same = given.empty() ||
                      (given_parsed && given_parsed->variant && *given_parsed->variant == segment);
    if (!same)
      throw UsageError(subject,
                       "names the " + segment + " variant directory, but --accelerator " +
                           selection.accelerator + " asks for another",
                       "give the index root, --index " + mask_credentials(root) +
                           ", and let --accelerator choose the variant");
    reporter.on_note("--index names the " + segment + " variant directory: using the index root " +
                     mask_credentials(root) + " with --accelerator " + segment);
    selection.index = root;
    selection.accelerator = segment;
  }
  if (selection.accelerator.empty()) selection.accelerator = "cpu";
  return selection;
}

std::string cache_dir_or_default(const std::string& given, const Getenv& environment) {
  if (!given.empty()) return given;
  if (const auto xdg = environment("XDG_CACHE_HOME"); xdg && !xdg->empty())
    return *xdg + "/wheelmod";
  if (const auto home = environment("HOME"); home && !home->empty())
    return *home + "/.cache/wheelmod";
  return "";
}

easybuild::SiteConfig load_site_config(const std::string& config_dir,
                                       const std::string& toolchain) {
  return easybuild::SiteConfig::load_for_toolchain(
      easybuild::SiteConfig::default_dir(),
      config_dir.empty() ? std::nullopt : std::optional<std::filesystem::path>(config_dir),
      toolchain);
}

const easybuild::Generation& find_generation(const easybuild::SiteConfig& config,
                                             const std::string& toolchain,
                                             const std::string& hint) {
  const auto* generation = config.find_generation(toolchain);
  if (generation == nullptr) {
    const auto names = config.toolchain_names();
    const auto nearest = closest(toolchain, names);
    throw UsageError("--toolchain " + toolchain, "unknown toolchain",
                     (nearest ? "did you mean " + *nearest + "? " : std::string()) +
                         (!hint.empty() ? hint
                                        : "known toolchains: " + join(names, ", ") +
                                              " (add one with --config DIR)"));
  }
  return *generation;
}

void add_installed_providers(easybuild::SiteConfig& config, const std::string& toolchain,
                             const easybuild::ModuleLocator& locator,
                             const std::vector<std::string>& preferred, Reporter& reporter) {
  const auto* generation = config.find_generation(toolchain);
  if (generation == nullptr) return;  // find_generation says so, with the known ones
  for (auto& found : easybuild::installed_providers(*generation, locator, preferred)) {
    reporter.on_note(found.provider.module + " provides " + found.soname + " (" + found.package +
                     "): installed here; the " + generation->name +
                     " table names no module the site has for it");
    config.add_library_provider(toolchain, found.package, std::move(found.provider));
  }
}

std::optional<easybuild::ModuleLocator> site_locator(const Selection& selection,
                                                     const SiteModules& site) {
  const auto settings = site_settings(site.eb_installpath, selection.getenv);
  std::error_code error;
  const bool site_known = !site.eb_installpath.empty() ||
                          (settings.software.origin != "EasyBuild's default" &&
                           std::filesystem::is_directory(settings.software.value, error));
  if (!site_known) return std::nullopt;
  return easybuild::environment_locator(std::filesystem::path(settings.software.value),
                                        selection.getenv);
}

ModuleRoots read_site(easybuild::SiteConfig& config, const Selection& selection,
                      const SiteModules& site, Reporter& reporter) {
  auto found = site_locator(selection, site);
  if (!found) return {};
  auto locator = std::move(*found);
  add_installed_providers(config, selection.toolchain, locator, site.preferred, reporter);
  return
      [locator = std::move(locator)](const std::string& module) { return locator.root_of(module); };
}

void require_one_source(std::string_view command, std::string_view verb, bool first_given,
                        std::string_view first, bool second_given, std::string_view second,
                        std::string example) {
  if (first_given != second_given) return;
  const std::string choice = std::string(first) + " or " + std::string(second);
  throw UsageError(std::string(command),
                   first_given ? "give " + choice + ", not both"
                               : "nothing to " + std::string(verb) + ": give " + choice,
                   std::move(example));
}

pep::GlibcVersion glibc_option(const std::string& value) {
  // The whole value: pep::GlibcVersion::parse reads `major.minor` at the start as packaging reads
  // a glibc's own version string ("2.20-2014.11"), but an option with more after it ("2.28\n...")
  // was accepted as 2.28 and then copied whole into the command an easyconfig's header quotes.
  const auto parsed = pep::GlibcVersion::parse(value);
  const bool whole =
      std::ranges::all_of(value, [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
      std::ranges::count(value, '.') == 1;
  if (!parsed || !whole)
    throw UsageError("--glibc " + printable(value),
                     parsed ? "is not a glibc version: only major.minor, nothing after it"
                            : parsed.error().message,
                     "give it as 2.NN, e.g. --glibc 2.28 (ldd --version shows it)");
  return *parsed;
}

net::FetcherOptions fetcher_options(const Selection& selection) {
  net::FetcherOptions options;
  options.cache_dir = cache_dir_or_default(selection.cache_dir, selection.getenv);
  options.page_timeout = std::chrono::seconds(selection.page_timeout);
  options.connection = connection_options(selection.connection, selection.getenv);
  return options;
}

resolve::ResolveReport resolve_selection(const Selection& given,
                                         const easybuild::SiteConfig& config, Reporter& reporter,
                                         ModuleRoots module_roots) {
  const auto selection = with_index_variant(given, reporter);
  auto request = build_request(selection, config);
  // A local index root that is not there is a file-system problem (exit 4), not "no wheel fits"
  // (exit 3): every page would be missing for the same reason.
  if (const Url root(request.index_root); root.scheme() == "file") {
    const std::filesystem::path directory = percent_decode(root.path());
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error))
      throw IoError(mask_credentials(request.index_root), "no such directory",
                    "give the root of a mirror or index tree (the directory holding cpu/, "
                    "cu126/, ... or the project pages)");
  }
  if (module_roots) {
    request.module_installed = [module_roots](const std::string& module) {
      return module_roots(module).has_value();
    };
    request.module_root = std::move(module_roots);
  }
  net::Fetcher fetcher(fetcher_options(selection));
  auto report = resolve::resolve(request, fetcher, reporter);
  if (const auto& stats = fetcher.stats(); stats.requests > 0)
    // What the index cost, as pip and uv print it: a second run against an
    // unchanged index should show its pages answered from the cache.
    reporter.on_note("index: " + std::to_string(stats.requests) + " requests, " +
                     format_bytes(stats.body_bytes) + " received, " +
                     std::to_string(stats.not_modified) + " pages unchanged (cache)");
  return report;
}

void check_jobs(const DownloadSettings& settings) {
  if (settings.jobs == 0 || settings.jobs > 64)
    throw UsageError("--jobs " + std::to_string(settings.jobs), "must be between 1 and 64");
}

net::DownloadBatch download_report_wheels(const resolve::ResolveReport& report,
                                          const std::filesystem::path& dest,
                                          const DownloadSettings& settings,
                                          const Selection& selection, Reporter& reporter) {
  check_jobs(settings);
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
  download.max_size = settings.max_download_size;
  download.connection = connection_options(selection.connection, selection.getenv);
  if (!settings.no_cache) {
    const auto cache = cache_dir_or_default(selection.cache_dir, selection.getenv);
    if (!cache.empty()) download.cache_dir = cache;
  }
  return net::download_all(requests, download, reporter);
}

}  // namespace wheelmod::operations
