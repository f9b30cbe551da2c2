// What resolve, fetch, install and easyconfig share: the wheels asked for and the machine they
// are for (README "What works today"), the site tables, and the download settings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"
#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "easybuild/library_map.hpp"
#include "index_client/accelerator.hpp"
#include "net/download.hpp"
#include "net/fetcher.hpp"
#include "pep/tags.hpp"
#include "resolve/report.hpp"

namespace wheelmod::operations {

inline constexpr std::string_view k_default_index = "https://download.pytorch.org/whl";

/// How wheelmod talks to the servers, for index pages and downloads alike.
struct ConnectionSettings {
  std::string cacert;           // CA bundle; "": SSL_CERT_FILE, CURL_CA_BUNDLE, the system's
  unsigned stall_timeout = 60;  // seconds without a byte before a transfer is retried
};

/// net's connection options for `settings` in `environment`: the CA bundle is --cacert, else
/// SSL_CERT_FILE (OpenSSL's), else CURL_CA_BUNDLE (curl's), else the system's; the netrc file
/// $NETRC (as pip's requests reads it), else ~/.netrc.
net::ConnectionOptions connection_options(const ConnectionSettings& settings,
                                          const Getenv& environment);

struct Selection {
  std::vector<std::string> specs;  // PEP 508 requirements
  std::string toolchain;           // foss-2024a; "" with --python
  /// cpu, cuda, cuda:12.6, cu126, rocm, rocm:6.2, rocm6.2.4; "": the variant an --index URL of a
  /// variant directory names, else cpu.
  std::string accelerator;
  /// The index root; a variant directory's URL (…/whl/cu126, as pytorch.org tells pip users) is
  /// taken as the root and that variant (with_index_variant). "": the configured one
  /// (index_setting.hpp: WHEELMOD_INDEX_URL, the configuration file, download.pytorch.org).
  std::string index;
  std::string python;      // X.Y; "": the toolchain's
  std::string arch;        // "": this host's
  std::string glibc;       // 2.NN; "": this host's
  std::string cache_dir;   // "": cache_dir_or_default
  std::string config_dir;  // site tables merged over the shipped ones; "": none
  bool no_deps = false;
  bool bundle_missing = false;
  /// The compute nodes' NVIDIA driver (550.54.15): CUDA variants it cannot run are passed over.
  /// "": this machine's, where /proc/driver/nvidia/version exists; "none": not checked.
  std::string driver;
  std::string wheel_variant;  // PEP 825 variant label to accept; "": variant wheels are skipped
  /// Seconds an index page (or .metadata file) may take in all, retries included (1 to 86400).
  unsigned page_timeout = 300;
  ConnectionSettings connection;
  /// The environment: WHEELMOD_INDEX_URL and the configuration file's place, the cache
  /// (XDG_CACHE_HOME, HOME), the CA bundle and netrc, EasyBuild's configuration and the loaded
  /// modules (EBROOT*). The process's at the command line; a test or an embedding program gives
  /// its own, and the operation reads no other.
  Getenv getenv = process_environment();
};

/// A command takes what it works on in exactly one of two ways (`SPEC...` or `--wheel FILE`):
/// UsageError (exit 2) for neither ("nothing to install: give SPEC... or --wheel FILE") or both
/// ("give SPEC... or --wheel FILE, not both"), with `example` as the hint.
void require_one_source(std::string_view command, std::string_view verb, bool first_given,
                        std::string_view first, bool second_given, std::string_view second,
                        std::string example);

/// The site's installed modules where the table gives a CUDA library none the site has (an
/// NVSHMEM for CUDA 13, a cuDNN of another version; easybuild::installed_providers, `preferred`
/// first): added to `config`'s generation of `toolchain` as its providers, each said in a note,
/// so the resolution, relink, check and module file all use them. resolve and install alike.
void add_installed_providers(easybuild::SiteConfig& config, const std::string& toolchain,
                             const easybuild::ModuleLocator& locator,
                             const std::vector<std::string>& preferred, Reporter& reporter);

/// Where resolve and easyconfig read the site's installed modules, so that they name the modules
/// install then links: --eb-installpath, else EasyBuild's configured installpath when its
/// software directory exists (and the loaded modules' EBROOT*). Neither: the table alone names
/// them ("table").
struct SiteModules {
  std::string eb_installpath;
  std::vector<std::string> preferred;  // --prefer-module
};

/// Where the site installed a module (its EBROOT), nullopt when it has none.
using ModuleRoots = std::function<std::optional<std::filesystem::path>(const std::string& module)>;

/// The site's modules as SiteModules names them (--eb-installpath, else EasyBuild's configured
/// installpath when it exists), nullopt when no site is named or configured.
std::optional<easybuild::ModuleLocator> site_locator(const Selection& selection,
                                                     const SiteModules& site);

/// Reads the site as SiteModules says: its installed providers added to `config`
/// (add_installed_providers), and where each module is, which resolve_selection takes; an empty
/// function when no site is named or configured.
ModuleRoots read_site(easybuild::SiteConfig& config, const Selection& selection,
                      const SiteModules& site, Reporter& reporter);

struct DownloadSettings {
  unsigned jobs = 4;  // 1 to 64
  unsigned retries = 5;
  /// The largest file downloaded, in bytes (>= 1): net::DownloadOptions::max_size.
  std::uint64_t max_download_size = net::k_default_max_download_size;
  bool no_cache = false;
};

/// `selection` with its index in effect (--index, else the configured one), one that names a
/// variant directory split into the index root and --accelerator (noted to `reporter`), and an
/// empty accelerator made `cpu`. Throws UsageError when --accelerator names another variant
/// than the URL, or the URL names a legacy directory.
Selection with_index_variant(Selection selection, Reporter& reporter);

/// `given`, else $XDG_CACHE_HOME/wheelmod, else ~/.cache/wheelmod (the XDG default), else "".
std::string cache_dir_or_default(const std::string& given,
                                 const Getenv& environment = process_environment());

/// The shipped generation tables, with `config_dir`'s merged over them.
/// With `toolchain`, only that toolchain's generation is read whole
/// (SiteConfig::load_for_toolchain).
easybuild::SiteConfig load_site_config(const std::string& config_dir,
                                       const std::string& toolchain = "");

/// The generation of --toolchain `toolchain`. Throws UsageError (exit 2):
/// "unknown toolchain", with `hint` or else the list of known ones.
const easybuild::Generation& find_generation(const easybuild::SiteConfig& config,
                                             const std::string& toolchain,
                                             const std::string& hint = {});

/// The value of a --glibc option, whole: `2.28` and nothing after it. Throws UsageError (exit 2).
pep::GlibcVersion glibc_option(const std::string& value);

/// `--accelerator cuda:13` (a major alone) with a toolchain: the version of the generation's
/// CUDA module of that major (its main one first), so that the newest variant it runs is taken.
/// Throws UsageError when the generation has no CUDA of that major. Unchanged otherwise.
void settle_cuda_major(index_client::Accelerator& accelerator,
                       const easybuild::Generation* generation);

/// The fetcher settings of `selection`: its cache directory, page timeout and connection.
net::FetcherOptions fetcher_options(const Selection& selection);

/// Resolves `selection` against its index, noting the index's cost to `reporter`;
/// `module_roots` gives resolve::ResolveRequest's module_installed and module_root. Throws
/// UsageError (2), UnsatisfiableError (3), IoError (4), IntegrityError (5).
resolve::ResolveReport resolve_selection(const Selection& selection,
                                         const easybuild::SiteConfig& config, Reporter& reporter,
                                         ModuleRoots module_roots = {});

/// Throws UsageError unless 1 <= jobs <= 64.
void check_jobs(const DownloadSettings& settings);

/// Downloads every wheel of `report` into `dest`, through the wheel cache under the selection's
/// cache directory unless settings.no_cache, over its connection settings. Failures are in the
/// batch.
net::DownloadBatch download_report_wheels(const resolve::ResolveReport& report,
                                          const std::filesystem::path& dest,
                                          const DownloadSettings& settings,
                                          const Selection& selection, Reporter& reporter);

}  // namespace wheelmod::operations
