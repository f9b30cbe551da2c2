// The options resolve, fetch, install and easyconfig share, registered on
// a subcommand: SPEC..., the selection (docs/ARCHITECTURE.md, README "What works today"), and the
// download settings.
#pragma once

#include "easybuild/rocm_libraries.hpp"
#include "operations/selection.hpp"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace wheelmod::cli {

enum class SpecArity { required, optional };

/// Registers SPEC..., --toolchain, --accelerator, --index, --python,
/// --arch, --glibc, --cache-dir, --config, --no-deps, --bundle-missing,
/// --page-timeout, and the connection options.
void add_selection_options(CLI::App& sub, operations::Selection& selection, SpecArity specs);

/// Registers --page-timeout (seconds, 1 to 86400) on a command that reads index pages.
void add_page_timeout_option(CLI::App& sub, unsigned& seconds);

/// --eb-installpath and --prefer-module of the commands that name modules without installing
/// (resolve, easyconfig): the site's modules read as install reads them.
void add_site_modules_options(CLI::App& sub, operations::SiteModules& site);

/// Checks a --prefer-module value whole: an EasyBuild module name Name/version, no line break,
/// no ".." part, nothing after it.
CLI::Validator module_name_validator();

/// --rocm-libraries auto|modules|bundled (install, relink, easyconfig), with the command's help.
void add_rocm_libraries_option(CLI::App& sub, easybuild::RocmLibraryMode& mode,
                               const std::string& help);

/// Registers --stall-timeout and --cacert, for every request (pages and downloads).
void add_connection_options(CLI::App& sub, operations::ConnectionSettings& settings);

/// Registers --jobs, --retries, --max-download-size, --no-cache.
/// `wheel_cache`: whether the command reads the wheel cache (mirror does not: it has no
/// --cache-dir, so no --no-cache either).
enum class WheelCache { used, unused };
void add_download_options(CLI::App& sub, operations::DownloadSettings& settings,
                          WheelCache wheel_cache = WheelCache::used);

}  // namespace wheelmod::cli
