// The selection options resolve, fetch (and later install and easyconfig)
// share — specs, toolchain, accelerator, index, target machine, cache,
// site config — and running a resolution from them.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/reporter.hpp"
#include "net/download.hpp"
#include "resolve/report.hpp"

namespace wheelmod::cli {

inline constexpr const char* k_default_index = "https://download.pytorch.org/whl";

struct SelectionOptions {
  std::vector<std::string> specs;
  std::string toolchain;
  std::string accelerator = "cpu";
  std::string index = k_default_index;
  std::string python;
  std::string arch;
  std::string glibc;
  std::string cache_dir;
  std::string config_dir;
  bool no_deps = false;
  bool bundle_missing = false;
};

enum class SpecArity { required, optional };

/// Registers SPEC... and the selection options of DESIGN's table on `sub`.
void add_selection_options(CLI::App& sub, SelectionOptions& options, SpecArity specs);

/// `--cache-dir` as given, else $XDG_CACHE_HOME/wheelmod, else
/// ~/.cache/wheelmod (the XDG base directory default), else "".
std::string cache_dir_or_default(const std::string& given);

/// Resolves the selection against the index. Prints what the index cost
/// ("index: N requests, ...") to context.err unless quiet. Throws
/// UsageError (exit 2), UnsatisfiableError (3), IoError (4).
/// `module_installed` (optional) tells which of the generation's modules
/// the site has (resolve::ResolveRequest::module_installed).
resolve::ResolveReport resolve_selection(
    const SelectionOptions& options, CommandContext& context, Reporter& reporter,
    std::function<bool(const std::string&)> module_installed = {});

/// Download settings fetch and install share.
struct DownloadSettings {
  unsigned jobs = 4;
  unsigned retries = 5;
  unsigned stall_timeout = 60;
  std::string cacert;
  bool no_cache = false;
};

/// Registers --jobs, --retries, --stall-timeout, --cacert, --no-cache.
void add_download_options(CLI::App& sub, DownloadSettings& settings);

/// Downloads every wheel of `report` into `dest` (through the wheel cache
/// under `cache_dir` unless no_cache). Failures are in the batch.
net::DownloadBatch download_report_wheels(const resolve::ResolveReport& report,
                                          const std::filesystem::path& dest,
                                          const DownloadSettings& settings,
                                          const std::string& cache_dir, Reporter& reporter);

}  // namespace wheelmod::cli
