#include "selection.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "core/strings.hpp"
#include "pep/wheel_filename.hpp"

namespace wheelmod::cli {

namespace {

// "64G" -> "68719476736", in place (CLI11 then reads the number); the error text otherwise.
// Written out rather than CLI::AsSizeValue, whose number parsing (strtoull) takes "-1" as
// 2^64-1 and "010" as octal, and whose "KB" would read as 1024 to some and 1000 to others.
std::string to_byte_count(std::string& input) {
  const std::string given = input;
  const std::string not_a_size = "'" + given +
                                 "' is not a size: write a whole number of bytes, or one with "
                                 "K, M, G or T (powers of 1024), e.g. 64G";
  std::uint64_t value = 0;
  const auto* end = given.data() + given.size();
  const auto [rest, error] = std::from_chars(given.data(), end, value);
  if (error == std::errc::result_out_of_range) return "'" + given + "' is too large";
  if (error != std::errc{}) return not_a_size;
  std::string_view unit(rest, static_cast<std::size_t>(end - rest));
  if (unit.size() == 3 && unit.ends_with("iB")) unit.remove_suffix(2);  // 4GiB as 4G
  constexpr std::string_view k_units = "KMGT";
  const auto position = unit.size() == 1 ? k_units.find(ascii_upper(unit[0])) : unit.npos;
  if (!unit.empty() && position == unit.npos) return not_a_size;
  const unsigned shift = unit.empty() ? 0U : 10U * (1U + static_cast<unsigned>(position));
  if (value == 0) return "'" + given + "' is no size: give at least 1 byte";
  if (value > (std::numeric_limits<std::uint64_t>::max() >> shift))
    return "'" + given + "' is too large";
  input = std::to_string(value << shift);
  return {};
}

}  // namespace

void add_selection_options(CLI::App& sub, operations::Selection& selection, SpecArity specs) {
  auto* spec = sub.add_option("SPEC", selection.specs,
                              "PEP 508 requirements, e.g. torch==2.6.0 torchvision");
  if (specs == SpecArity::required) spec->required();
  sub.add_option("--toolchain", selection.toolchain,
                 "EasyBuild toolchain, e.g. foss-2024a (gives Python and CUDA versions)");
  sub.add_option(
      "--accelerator", selection.accelerator,
      "cpu, cuda, cuda:13 (a major: its newest variant the toolchain runs), cuda:12.6, cu126, "
      "rocm, rocm:6.2 or rocm6.2.4 (default: cpu, or the "
      "variant an --index URL names)");
  sub.add_option("--index", selection.index,
                 "The index: download.pytorch.org's shape (variants below it), a tree of variant "
                 "directories, a single-variant PEP 503/691 index or a wheelmod mirror; "
                 "https://, http://, file:// or a path (default: $WHEELMOD_INDEX_URL, else the "
                 "index of wheelmod's config file, else https://download.pytorch.org/whl); a "
                 "variant directory's URL (.../whl/cu126) means the root and that variant");
  sub.add_option("--driver", selection.driver,
                 "NVIDIA driver of the compute nodes, e.g. 550.54.15: CUDA variants it cannot run "
                 "are passed over (default: this machine's, if it has one; 'none': not checked)");
  sub.add_option("--wheel-variant", selection.wheel_variant,
                 "Accept PEP 825 variant wheels with this label (default: skip them)")
      ->check(CLI::Validator(
          [](const std::string& value) -> std::string {
            return pep::is_variant_label(value)
                       ? std::string()
                       : "'" + printable(value) +
                             "' is not a PEP 825 variant label (1 to 16 of 0-9 a-z _ .)";
          },
          "LABEL", "variant label"));
  sub.add_option("--python", selection.python, "Target Python X.Y (default: the toolchain's)");
  sub.add_option("--arch", selection.arch, "Target architecture (default: this host)");
  sub.add_option("--glibc", selection.glibc, "Target glibc 2.NN (default: this host)");
  sub.add_option("--cache-dir", selection.cache_dir,
                 "HTTP and wheel cache (default: $XDG_CACHE_HOME/wheelmod)");
  sub.add_option("--config", selection.config_dir,
                 "Site directory with toolchains.yaml / eb-dependencies.yaml overrides");
  sub.add_flag("--no-deps", selection.no_deps,
               "Select only the named projects; read no metadata (pins are not checked)");
  sub.add_flag("--bundle-missing", selection.bundle_missing,
               "Bundle the index's nvidia-* wheel for a CUDA library no module provides "
               "(default: report it missing)");
  add_page_timeout_option(sub, selection.page_timeout);
  add_connection_options(sub, selection.connection);
}

void add_connection_options(CLI::App& sub, operations::ConnectionSettings& settings) {
  sub.add_option("--stall-timeout", settings.stall_timeout,
                 "Seconds without a byte before a transfer (a page or a wheel) is retried, 1 to "
                 "86400 (default: 60)")
      ->check(CLI::Range(1, 86400));
  sub.add_option("--cacert", settings.cacert,
                 "CA bundle for TLS, index pages and downloads alike (default: SSL_CERT_FILE, "
                 "CURL_CA_BUNDLE, the system's)");
}

void add_site_modules_options(CLI::App& sub, operations::SiteModules& site) {
  sub.add_option("--eb-installpath", site.eb_installpath,
                 "Read the site's installed modules under DIR/software, as install does, so the "
                 "modules named are those install links (default: EasyBuild's configured "
                 "installpath when its software directory exists; else the table alone)");
  sub.add_option("--prefer-module", site.preferred,
                 "An installed module to take for the CUDA libraries it holds before the others "
                 "(repeatable)")
      ->check(module_name_validator());
}

void add_page_timeout_option(CLI::App& sub, unsigned& seconds) {
  // A total limit: the stall timeout never fires on a page that trickles a byte at a time.
  sub.add_option("--page-timeout", seconds,
                 "Seconds an index page or .metadata file may take in all, retries included, "
                 "1 to 86400 (default: 300)")
      ->check(CLI::Range(1, 86400));
}

void add_download_options(CLI::App& sub, operations::DownloadSettings& settings,
                          WheelCache wheel_cache) {
  // Out-of-range values are usage errors (exit 2), not silent stalls or no transfers at all.
  sub.add_option("--jobs,-j", settings.jobs, "Transfers at once, 1 to 64 (default: 4)")
      ->check(CLI::Range(1, 64));
  sub.add_option("--retries", settings.retries,
                 "Retries per file after failed attempts in a row (one that brought 1 MiB or "
                 "more is progress, not a failure; 0 to 100, default: 5)")
      ->check(CLI::Range(0, 100));
  sub.add_option("--max-download-size", settings.max_download_size,
                 "Largest file to download, in bytes or with a K, M, G or T suffix (powers of "
                 "1024, e.g. 64G); a body without a size is stopped there (default: 64G)")
      ->transform(CLI::Validator(to_byte_count, "SIZE", "byte size"));
  if (wheel_cache == WheelCache::used)
    sub.add_flag("--no-cache", settings.no_cache,
                 "Neither use nor fill the wheel cache under --cache-dir");
}

CLI::Validator module_name_validator() {
  // An EasyBuild module name as the site's tree holds it: Name/version[/...], the characters
  // EasyBuild's names use. It becomes a path under the software path and text in module files,
  // so a line break, "..", or anything after the name is refused whole (exit 2).
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string why = "'" + printable(value) +
                                "' is not a module name Name/version (letters, digits, ._+- and "
                                "/ between parts), e.g. cuDNN/9.5.1.17-CUDA-12.6.0";
        if (value.empty() || value.find('/') == std::string::npos) return why;
        for (const char c : value)
          if (!std::isalnum(static_cast<unsigned char>(c)) &&
              std::string_view("._+-/").find(c) == std::string_view::npos)
            return why;
        std::size_t start = 0;
        while (start <= value.size()) {
          const auto end = std::min(value.find('/', start), value.size());
          const auto part = std::string_view(value).substr(start, end - start);
          if (part.empty() || part == "." || part == "..") return why;
          start = end + 1;
        }
        return {};
      },
      "MODULE", "module name");
}

void add_rocm_libraries_option(CLI::App& sub, easybuild::RocmLibraryMode& mode,
                               const std::string& help) {
  sub.add_option("--rocm-libraries", mode, help + " (default: auto)")
      ->option_text("auto|modules|bundled")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, easybuild::RocmLibraryMode>{
              {"auto", easybuild::RocmLibraryMode::automatic},
              {"modules", easybuild::RocmLibraryMode::modules},
              {"bundled", easybuild::RocmLibraryMode::bundled}},
          CLI::ignore_case));
}

}  // namespace wheelmod::cli
