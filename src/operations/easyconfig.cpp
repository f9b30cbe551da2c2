#include "operations/easyconfig.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "emit/templates.hpp"
#include "hash/sha256.hpp"
#include "index/page.hpp"
#include "index_client/accelerator.hpp"
#include "index_client/metadata_source.hpp"
#include "mirror/origins.hpp"
#include "operations/version.hpp"
#include "pep/requirement.hpp"
#include "wheel/import_names.hpp"

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

// POSIX shell quoting: a word with anything but these characters in single quotes, each single
// quote in it as '\'' (a header comment may be pasted into a shell).
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::ranges::all_of(word, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_.=+-,:/%").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
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
  if (options.rocm_libraries != easybuild::RocmLibraryMode::automatic)
    words.insert(words.end(), {"--rocm-libraries",
                               std::string(easybuild::rocm_mode_text(options.rocm_libraries))});
  if (options.write_unmet) words.emplace_back("--write-unmet");
  if (options.source_urls == SourceUrls::upstream)
    words.insert(words.end(), {"--source-urls", "upstream"});
  if (options.source_urls == SourceUrls::index)
    words.insert(words.end(), {"--source-urls", "index"});
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
  auto accelerator = index_client::Accelerator::parse(selection.accelerator);
  if (!accelerator)
    throw UsageError("--accelerator " + selection.accelerator, accelerator.error().message);
  settle_cuda_major(*accelerator, &generation);
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
  request.rocm_libraries = options.rocm_libraries;
  // --rocm-libraries modules that cannot be met is refused before anything is resolved, as far
  // as the accelerator tells (a named variant, rocm6.4, or a version, rocm:6.4); planning decides
  // again with the resolved variant.
  request.variant =
      accelerator->variant.value_or(accelerator->kind == index_client::AcceleratorKind::rocm
                                        ? "rocm" + accelerator->version.value_or("")
                                        : std::string());
  (void)emit::choose_rocm_libraries(request);
  request.variant.clear();
  request.wheelmod_version = wheelmod_version();
  if (!options.versionsuffix.empty()) {
    // It becomes part of file and module names: what EasyBuild's own suffixes use, templates
    // such as %(cudaver)s included, and nothing a path, a shell or a comment would read otherwise.
    const bool fits = std::ranges::all_of(options.versionsuffix, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::string_view("._+-%()").find(c) != std::string_view::npos;
    });
    if (!fits)
      throw UsageError("--versionsuffix " + printable(options.versionsuffix),
                       "holds a character outside letters, digits and ._+-%()",
                       "e.g. --versionsuffix -CUDA-%(cudaver)s-whl");
    request.versionsuffix = options.versionsuffix;
  }
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
std::map<std::string, resolve::ResolveReport> resolve_arches(const EasyconfigOptions& options,
                                                             const easybuild::SiteConfig& config,
                                                             const ModuleRoots& installed,
                                                             Reporter& reporter) {
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

// The sha256 computed for the wheel at a URL, kept in the cache directory (`url-sha256/ab/<sha256
// of the URL>`: the URL, then the digest) so that a second run downloads nothing to hash it.
// The index gave no hash for these files; a file replaced at its URL makes `eb --fetch` fail the
// checksum, as it would for a hash from the index.
class UrlHashCache {
 public:
  explicit UrlHashCache(fs::path root) : m_root(std::move(root)) {}

  [[nodiscard]] std::optional<std::string> find(const std::string& url) const {
    const auto text = read_file_if_exists(place(url)).value_or("");
    const auto newline = text.find('\n');
    if (newline == std::string::npos || text.substr(0, newline) != url) return std::nullopt;
    auto digest = text.substr(newline + 1, 64);
    const bool valid = digest.size() == 64 && std::ranges::all_of(digest, [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                       });
    return valid ? std::optional(digest) : std::nullopt;
  }

  // A cache that cannot be written costs a download next time, nothing more.
  void remember(const std::string& url, const std::string& digest) const noexcept {
    try {
      write_if_changed(place(url), url + "\n" + digest + "\n", Flush::later);
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): see above
    }
  }

 private:
  [[nodiscard]] fs::path place(const std::string& url) const {
    hash::Sha256 hasher;
    hasher.update(url);
    const auto key = hash::to_hex(hasher.finish());
    return m_root / "url-sha256" / key.substr(0, 2) / key;
  }
  fs::path m_root;
};

// Wheels the index gives no sha256 for are downloaded (through the wheel
// cache) and hashed, once: an easyconfig never goes without a checksum. Fills
// them in and returns them by file name.
std::map<std::string, std::string> fill_missing_hashes(
    std::map<std::string, resolve::ResolveReport>& reports, const EasyconfigOptions& options,
    const fs::path& output_dir, Reporter& reporter) {
  const UrlHashCache cache(
      cache_dir_or_default(options.selection.cache_dir, options.selection.getenv));
  std::map<std::string, std::string> by_url;
  resolve::ResolveReport unhashed;
  for (const auto& [arch, report] : reports)
    for (const auto& wheel : report.wheels) {
      if (wheel.sha256 || by_url.contains(wheel.url)) continue;
      if (auto known = cache.find(wheel.url)) {
        by_url.emplace(wheel.url, std::move(*known));
      } else {
        by_url.emplace(wheel.url, "");
        unhashed.wheels.push_back(wheel);
      }
    }
  if (by_url.empty()) return {};
  if (!unhashed.wheels.empty()) {
    const TemporaryDirectory scratch(output_dir, ".wheelmod-easyconfig-",
                                     "check that --output-dir is writable");
    const auto batch = download_report_wheels(unhashed, scratch.path(), options.download,
                                              options.selection, reporter);
    if (!batch.failures.empty()) throw net::combined_failure(batch);
    for (std::size_t i = 0; i < unhashed.wheels.size(); ++i) {
      by_url[unhashed.wheels[i].url] = batch.results[i]->sha256;
      cache.remember(unhashed.wheels[i].url, batch.results[i]->sha256);
    }
  }
  std::map<std::string, std::string> by_file;
  for (auto& [arch, report] : reports)
    for (auto& wheel : report.wheels)
      if (!wheel.sha256) {
        wheel.sha256 = by_url.at(wheel.url);
        by_file.emplace(wheel.filename, *wheel.sha256);
      }
  return by_file;
}

// What each wheel installs for import (its extension's modulename), from its central directory:
// range requests of a few KiB for most wheels, once per URL.
std::map<std::string, wheel::ExtensionImport> read_extension_imports(
    const std::map<std::string, resolve::ResolveReport>& reports, const Selection& selection) {
  net::Fetcher fetcher(fetcher_options(selection));
  std::map<std::string, wheel::ExtensionImport> by_url;
  std::map<std::string, wheel::ExtensionImport> by_file;
  for (const auto& [arch, report] : reports)
    for (const auto& chosen : report.wheels) {
      auto found = by_url.find(chosen.url);
      if (found == by_url.end()) {
        index::Link link;
        link.filename = chosen.filename;
        link.url = chosen.url;
        if (chosen.sha256) link.hashes.push_back({"sha256", *chosen.sha256});
        const auto names = index_client::fetch_wheel_entry_names(fetcher, link);
        found = by_url.emplace(chosen.url, wheel::extension_import(chosen.name, names)).first;
      }
      by_file.emplace(chosen.filename, found->second);
    }
  return by_file;
}

// The origins of the index's files when the index is a wheelmod mirror (its root holds the
// manifest); nullopt for any other index (an HTTP index answers 404 or 403).
std::optional<mirror::MirrorOrigins> mirror_origins(const Selection& selection,
                                                    Reporter& reporter) {
  std::string root = selection.index;
  while (root.ends_with('/')) root.pop_back();
  if (const Url url(root); url.scheme() == "file")
    return mirror::read_origins(percent_decode(url.path()));
  net::Fetcher fetcher(fetcher_options(selection));
  const auto manifest = root + "/" + mirror::k_manifest_file;
  std::optional<net::Response> page;
  try {
    page = fetcher.get_page(manifest, "*/*");
  } catch (const IoError& error) {
    // Indexes answer what is not theirs in many ways (a PEP 691 server: 406): not a mirror.
    reporter.on_note("source_urls: no mirror manifest at " + mask_credentials(manifest) + " (" +
                     error.cause() + ")");
    return std::nullopt;
  }
  if (!page) return std::nullopt;
  return mirror::parse_origins(page->body, mask_credentials(manifest));
}

// --source-urls: each wheel's URL in the reports becomes the one the easyconfig names (after the
// wheels were read from where they are). Throws UsageError for an explicit `upstream` that is not
// public, IoError for a mirror whose manifest lacks one of its files.
void point_at_sources(std::map<std::string, resolve::ResolveReport>& reports,
                      const EasyconfigOptions& options, Reporter& reporter) {
  if (options.source_urls == SourceUrls::index) return;
  const auto& selection = options.selection;
  const auto origins = mirror_origins(selection, reporter);
  const bool explicit_upstream = options.source_urls == SourceUrls::upstream;
  if (!origins && !explicit_upstream) return;
  std::string files = selection.index;
  while (files.ends_with('/')) files.pop_back();
  files += "/files/";
  std::map<std::string, std::string> upstream;  // download URL -> origin
  std::vector<std::string> not_public;
  std::string first_not_public;
  for (const auto& [arch, report] : reports)
    for (const auto& wheel : report.wheels) {
      std::string origin = wheel.url;
      if (origins && wheel.url.starts_with(files)) {
        const auto relative = wheel.url.substr(files.size());
        const auto key = percent_decode(relative.substr(0, relative.find_first_of("#?")));
        const auto found = origins->by_path.find(key);
        if (found == origins->by_path.end())
          throw IoError(mask_credentials(selection.index) + "/" + mirror::k_manifest_file,
                        "does not list files/" + key + ", which the mirror's pages link",
                        "check the mirror with `wheelmod mirror SPEC --dest DIR --verify`");
        origin = found->second;
      }
      if (Url(origin).scheme() != "https" &&
          std::ranges::find(not_public, wheel.filename) == not_public.end()) {
        if (not_public.empty()) first_not_public = origin;
        not_public.push_back(wheel.filename);
      }
      upstream.emplace(wheel.url, origin);
    }
  if (!not_public.empty()) {
    if (explicit_upstream)
      throw UsageError(
          "--source-urls upstream",
          join(not_public, ", ") + (not_public.size() == 1 ? " has" : " have") +
              " no public https:// origin here (" + mask_credentials(first_not_public) + ")",
          origins ? "the mirror was made from a non-public index; --source-urls index names the "
                    "mirror's copies"
                  : "the index is not a wheelmod mirror, whose manifest would record each "
                    "file's origin; --source-urls index names the files where they are");
    reporter.on_note("source_urls: the mirror's origins are not all https (" +
                     mask_credentials(origins->source_index) + "): they name the mirror's files");
    return;
  }
  for (auto& [arch, report] : reports)
    for (auto& wheel : report.wheels) wheel.url = upstream.at(wheel.url);
}

// The plan's file names only, before anything is fetched: any import decision names them alike.
emit::EasyconfigPlan plan_for_names(emit::StackRequest request) {
  for (const auto& [arch, report] : request.reports)
    for (const auto& chosen : report.wheels) request.imports.try_emplace(chosen.filename);
  return emit::plan_easyconfigs(request);
}

// An easyconfig that EasyBuild's own sanity step must fail is not written unless asked for
// (--write-unmet): each requirement that nothing meets is named, with the architectures where.
void refuse_unmet(const emit::EasyconfigPlan& plan, const std::optional<emit::ToAdd>& own_missing,
                  bool write_unmet) {
  if ((plan.unmet.empty() && !own_missing) || write_unmet) return;
  struct Where {
    std::string needed_by;
    std::vector<std::string> arches;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Where> grouped;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  for (const auto& unmet : plan.unmet) {
    const std::tuple key{unmet.requirement, unmet.easyconfig, unmet.why};
    auto [it, fresh] = grouped.try_emplace(key);
    if (fresh) {
      order.push_back(key);
      // torch-2.12.0+cu130-cp314-...whl -> torch 2.12.0+cu130
      const auto& file = unmet.needed_by;
      const auto dash = file.find('-');
      const auto second = dash == std::string::npos ? dash : file.find('-', dash + 1);
      it->second.needed_by =
          dash == std::string::npos
              ? file
              : file.substr(0, dash) + " " + file.substr(dash + 1, second - dash - 1);
    }
    if (std::ranges::find(it->second.arches, unmet.arch) == it->second.arches.end())
      it->second.arches.push_back(unmet.arch);
  }
  const auto count = order.size() + (own_missing ? 1 : 0);
  UnsatisfiableError error(
      "easyconfig",
      std::to_string(count) + (count == 1 ? " requirement" : " requirements") +
          " would be unmet where the easyconfigs install, so EasyBuild would fail them (its "
          "sanity check runs pip check; its robot resolves build dependencies); nothing was "
          "written",
      "--bundle-missing installs the index's wheel where one fits; the site's modules count "
      "with --eb-installpath or --config; --write-unmet writes the files anyway, each listed as "
      "`# wheelmod: to add`");
  for (const auto& key : order) {
    const auto& [requirement, easyconfig, why] = key;
    const auto& where = grouped.at(key);
    error.with_detail(requirement + " (needed by " + where.needed_by + ", " + easyconfig + ", " +
                      join(where.arches, " and ") + "): " + why);
  }
  if (own_missing) error.with_detail(own_missing->subject + ": " + own_missing->reason);
  throw error;
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
  const auto& generation = find_generation(config, selection.toolchain);
  std::optional<std::pair<WrittenEasyconfig, std::string>> own;
  std::optional<emit::ToAdd> own_missing;
  if (options.with_relink) own = wheelmod_easyconfig(generation, result.output_dir);
  if (options.with_relink && !own)
    own_missing = emit::ToAdd{
        "wheelmod " + wheelmod_version() + " (build dependency, --with-relink)",
        "wheelmod ships easyconfigs for GCCcore " + shipped_gcccores() +
            " (easyconfigs/), none for " + generation.gcccore +
            ", so eb --robot finds none: " + "copy one as wheelmod-" + wheelmod_version() +
            "-GCCcore-" + generation.gcccore + ".eb with this generation's dependency versions"};
  // The files' names are the resolution's: an existing one, or a requirement nothing meets,
  // stops the run before any wheel is downloaded for its hash or anything is created.
  const auto named = plan_for_names(request);
  refuse_existing(named, result.output_dir, options.force);
  refuse_unmet(named, own_missing, options.write_unmet);
  std::error_code error;
  fs::create_directories(result.output_dir, error);
  if (error)
    throw IoError(result.output_dir.string(),
                  "cannot create the output directory: " + error.message());
  result.computed_sha256 =
      fill_missing_hashes(request.reports, options, result.output_dir, reporter);
  request.imports = read_extension_imports(request.reports, selection);
  point_at_sources(request.reports, options, reporter);
  const auto plan = emit::plan_easyconfigs(request);
  const emit::TemplateSet templates(
      emit::TemplateSet::default_dir(),
      options.templates.empty() ? std::nullopt : std::optional<fs::path>(options.templates));
  result.written = write_easyconfigs(plan, templates, result.output_dir, options.force, own);
  result.to_add = plan.to_add;
  if (own_missing) result.to_add.push_back(*own_missing);
  return result;
}

}  // namespace wheelmod::operations
