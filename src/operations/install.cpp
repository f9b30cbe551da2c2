#include "operations/install.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>

#include "core/dir_lock.hpp"
#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/interrupt_notice.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "core/utc.hpp"
#include "easybuild/library_map.hpp"
#include "index_client/accelerator.hpp"
#include "operations/site.hpp"
#include "operations/version.hpp"
#include "pep/name.hpp"
#include "prefix/staging.hpp"
#include "wheel/startup_code.hpp"

namespace wheelmod::operations {

namespace fs = std::filesystem;

namespace {

// Where install downloads its wheels (InstallPlan::download_area,
// PARENT/.NAME.wheelmod-downloads/), named after the prefix rather than the process, so that a run
// interrupted or failed leaves its partial downloads for the next run of the same install to
// resume: gigabytes for a CUDA torch. Removed once the installation is in place. Its lock (the one
// `fetch` takes) keeps two runs apart; what this run does not want is removed under it.
class DownloadArea {
 public:
  // What the next run resumes, for a failed or interrupted one.
  static std::string kept_line(const fs::path& area) {
    return "the downloads in " + area.string() +
           " are kept: run the same install again to resume them";
  }

  DownloadArea(const fs::path& area, Reporter& reporter) : m_path(area) {
    // A link planted under this name would send the downloads elsewhere.
    std::error_code error;
    const auto status = fs::symlink_status(m_path, error);
    if (!error && fs::exists(status) && !fs::is_directory(status))
      throw IoError(m_path.string(),
                    fs::is_symlink(status) ? "is a symbolic link, not wheelmod's download directory"
                                           : "is not a directory",
                    "remove it; wheelmod creates this directory itself");
    m_lock = net::lock_download_directory(
        m_path, [&reporter](const std::string& line) { reporter.on_note(line); });
  }

  [[nodiscard]] const fs::path& path() const { return m_path; }

  // Entries of an earlier run that this one does not want (another version was installed then).
  void keep_only(const std::set<std::string>& filenames) const {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(m_path, error)) {
      const auto what = net::classify_download_entry(entry.path().filename().string());
      if (what.kind == net::DownloadDirectoryEntry::Kind::lock) continue;
      if (!filenames.contains(what.name)) fs::remove_all(entry.path(), error);
    }
  }

  void remove() const {
    std::error_code error;
    fs::remove_all(m_path, error);
  }

  // A failed run keeps what can be resumed; a directory holding nothing but the lock goes.
  ~DownloadArea() {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(m_path, error))
      if (net::classify_download_entry(entry.path().filename().string()).kind !=
          net::DownloadDirectoryEntry::Kind::lock)
        return;
    fs::remove_all(m_path, error);
  }
  DownloadArea(const DownloadArea&) = delete;
  DownloadArea& operator=(const DownloadArea&) = delete;

 private:
  fs::path m_path;
  DirectoryLock m_lock;
};

// Downloads the resolution's wheels into the download area, each checked against its sha256 (or
// hashed where the index gives none); returns the files in install order and the log's lines.
struct Fetched {
  std::vector<fs::path> files;
  std::string log;
};
Fetched download(const InstallPlan& plan, DownloadArea& downloads, Reporter& reporter) {
  const auto& report = *plan.resolution;
  std::set<std::string> wanted;
  for (const auto& wheel : report.wheels) wanted.insert(wheel.filename);
  downloads.keep_only(wanted);
  Selection selection;  // what download_report_wheels reads of one: the plan's settings
  selection.connection = plan.connection;
  selection.cache_dir = plan.cache_dir;
  selection.getenv = plan.getenv;
  const auto batch =
      download_report_wheels(report, downloads.path(), plan.download, selection, reporter);
  if (!batch.failures.empty()) {
    reporter.on_note(DownloadArea::kept_line(plan.download_area));
    throw net::combined_failure(batch);
  }
  Fetched fetched;
  fetched.log = std::to_string(batch.results.size()) + " wheels";
  for (const auto& result : batch.results) {
    fetched.files.push_back(result->path);
    fetched.log += "\n  " + result->path.filename().string() + " sha256:" + result->sha256 +
                   (result->sha256_from_index ? " (as the index gives it)" : " (computed)");
  }
  return fetched;
}

// What prefix::install_into_prefix is asked: the plan's decisions and the wheel files.
// What the check of an installation expects: the modules' tree, and each CUDA library from the
// module relink gave it to.
prefix::CheckOptions check_options(const InstallPlan& plan) {
  prefix::CheckOptions check;
  check.allowed_roots.emplace_back(fs::path(plan.site.software.value));
  check.module_libraries = plan.provenance.module_libraries;
  return check;
}

// The prefix already holds this plan's installation: nothing to do, or with --force only its
// check again; the module file is written where none is yet (or replaced with --force). nullopt
// when --force finds it broken: then it is installed again.
std::optional<InstallResult> reuse_installation(const InstallPlan& plan, Reporter& reporter) {
  InstallResult result;
  result.install.prefix = plan.prefix;
  result.outcome = plan.replace == prefix::ReplaceExisting::yes ? InstallOutcome::rechecked
                                                                : InstallOutcome::already_installed;
  if (result.outcome == InstallOutcome::rechecked) {
    auto summary = prefix::check_prefix(plan.prefix, check_options(plan));
    if (!summary.passed()) {
      reporter.on_note("the installation at " + plan.prefix.string() + " fails its check (" +
                       prefix::check_failure(summary).cause() + "): installing it again");
      return std::nullopt;
    }
    result.install.check = std::move(summary);
  }
  if (plan.module_file && plan.module_file->target) {
    std::error_code error;
    const bool present = fs::exists(fs::symlink_status(plan.module_file->target->file, error));
    if (!present || plan.replace == prefix::ReplaceExisting::yes) {
      const auto written = write_module_file(*plan.module_file, PythonMismatch::warn, reporter);
      result.module_file = written.file;
      result.module_name = written.module;
    }
  }
  return result;
}

prefix::PrefixInstallRequest prefix_request(const InstallPlan& plan, std::vector<fs::path> wheels) {
  prefix::PrefixInstallRequest request;
  request.wheels = std::move(wheels);
  request.prefix = plan.prefix;
  request.python_version = plan.python_version;
  request.replace = plan.replace;
  request.wheel_options.threads = plan.threads;
  for (const auto& [name, module] : plan.module_provided) {
    request.module_provided.insert(name);
    if (!module.empty()) request.provided_by[name] = module;
  }
  request.metadata = plan.metadata;
  request.clash_winners = plan.clash_winners;
  prefix::RelinkOptions relink;
  relink.generation = &plan.generation;
  relink.modules = plan.preferred_modules;
  if (plan.resolution)
    relink.modules.insert(relink.modules.end(), plan.resolution->modules.begin(),
                          plan.resolution->modules.end());
  relink.locator = easybuild::environment_locator(fs::path(plan.site.software.value), plan.getenv);
  relink.patchelf = plan.patchelf;
  request.relink = std::move(relink);
  request.rocm = plan.rocm;
  request.python_exe = plan.python_exe;
  request.check = check_options(plan);
  request.provenance = plan.provenance;
  return request;
}

using Clock = std::chrono::steady_clock;

// PREFIX/easybuild/wheelmod-install.log, beside the provenance, as EasyBuild keeps its own log
// there: what was resolved, fetched, relinked, compiled and checked, with how long each took.
class InstallLog {
 public:
  // Names and URLs in it are the index's: control bytes escaped, as on a terminal.
  void line(const std::string& text) { m_text += utc_now() + " " + terminal_text(text) + "\n"; }
  void stage(const std::string& name, Clock::time_point started, const std::string& what) {
    stage(name, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started),
          what);
  }
  void stage(const std::string& name, std::chrono::milliseconds took, const std::string& what) {
    const auto ms = took.count();
    line(name + " in " + std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) +
         " s: " + what);
  }
  [[nodiscard]] const std::string& text() const { return m_text; }

 private:
  std::string m_text;
};

std::string resolution_text(const resolve::ResolveReport& report) {
  std::string out = "variant " + report.variant.variant + " (" + report.variant.reason + ")";
  for (const auto& wheel : report.wheels)
    out += "\n  " + wheel.filename + " sha256:" + wheel.sha256.value_or("(computed on download)") +
           " from " + mask_credentials(wheel.url);
  for (const auto& module : report.modules) out += "\n  module " + module;
  return out;
}

std::string installation_text(const prefix::PrefixInstallResult& result) {
  std::string out;
  for (const auto& wheel : result.wheels)
    out += "\n  unpacked " + wheel.name + " " + wheel.version + " (" + std::to_string(wheel.files) +
           " files)";
  if (result.relink) {
    std::size_t changed = 0;
    for (const auto& file : result.relink->files)
      if (file.edit.method != elf::EditMethod::unchanged) {
        ++changed;
        out += "\n  relinked " + file.file.string() + ": " + file.plan.new_value;
      }
    if (!result.rocm_removed.empty())
      out += "\n  removed " + std::to_string(result.rocm_removed.size()) +
             " bundled ROCm files (libraries and data) the ROCm modules provide";
    out += "\n  relink: " + std::to_string(changed) + " of " +
           std::to_string(result.relink->elf_files) + " ELF files changed";
  }
  out += result.compile.ran
             ? "\n  byte-compiled " + std::to_string(result.compile.pyc_files.size()) + " files"
             : "\n  not byte-compiled: " + result.compile.skipped;
  if (result.check)
    out += "\n  check: " + std::to_string(result.check->files) + " ELF files, " +
           (result.check->passed() ? "every library resolves" : "unresolved libraries");
  return out;
}

std::string_view kind_name(wheel::StartupFile::Kind kind) {
  switch (kind) {
    case wheel::StartupFile::Kind::pth_file:
      return "pth";
    case wheel::StartupFile::Kind::sitecustomize:
      return "sitecustomize";
    case wheel::StartupFile::Kind::usercustomize:
      return "usercustomize";
    case wheel::StartupFile::Kind::stdlib_shadow:
      return "stdlib_shadow";
  }
  return "pth";
}

// What each wheel installs into site-packages that Python runs at start-up or imports in place of
// the standard library's, from its central directory: read before anything is unpacked. An
// archive that cannot be read is left to the installer, which refuses it in its own order.
std::vector<StartupCode> find_startup_code(const std::vector<fs::path>& wheels,
                                           const std::string& python_version) {
  std::vector<StartupCode> out;
  for (const auto& file : wheels) {
    std::vector<std::string> names;
    try {
      names = wheel::read_entry_names(file);
    } catch (const Error&) {
      continue;
    }
    for (const auto& found : wheel::startup_code(names, python_version))
      out.push_back({file.filename().string(), std::string(kind_name(found.kind)), found.path,
                     found.module, wheel::describe(found)});
  }
  return out;
}

std::string startup_line(const StartupCode& code) {
  return terminal_text(code.path) + ": " + terminal_text(code.why);
}

// A warning naming each wheel's files; with --strict an error for them all (exit 6), before the
// staging directory exists: the prefix is never written.
void settle_startup_code(const std::vector<StartupCode>& found, bool refuse, Reporter& reporter) {
  if (found.empty()) return;
  if (refuse) {
    std::set<std::string> wheels;
    for (const auto& code : found) wheels.insert(code.wheel);
    CheckFailedError error(
        "install --strict",
        std::to_string(wheels.size()) +
            (wheels.size() == 1 ? " wheel installs" : " wheels install") +
            " start-up code into site-packages: files Python runs, or imports in place of the "
            "standard library's, in every process that loads the installation",
        "review the files listed; without --strict they are installed with a warning");
    for (const auto& code : found)
      error.with_detail(terminal_text(code.wheel) + ": " + startup_line(code));
    throw error;
  }
  for (auto at = found.begin(); at != found.end();) {
    const auto& wheel = at->wheel;
    std::string message = terminal_text(wheel) +
                          " installs start-up code into site-packages: files Python runs, or "
                          "imports in place of the standard library's, in every process that "
                          "loads the installation (--strict refuses it)";
    for (; at != found.end() && at->wheel == wheel; ++at) message += "\n  " + startup_line(*at);
    reporter.on_warning(message);
  }
}

// The install log's lines of the start-up code installed.
std::string startup_log_text(const std::vector<StartupCode>& found) {
  std::string out = "start-up code in site-packages (warned of; --strict refuses it):";
  for (const auto& code : found)
    out += "\n  " + terminal_text(code.wheel) + ": " + startup_line(code);
  return out;
}

}  // namespace

InstallResult execute_install(const InstallPlan& plan, Reporter& reporter) {
  if (plan.already_installed)
    if (auto reused = reuse_installation(plan, reporter)) return std::move(*reused);
  InstallLog log;
  log.line("wheelmod " + wheelmod_version() + " install, toolchain " + plan.toolchain +
           ", accelerator " + plan.provenance.accelerator);
  // The lock `eb` takes on the same directory, held until the installation is in place; not
  // where no EasyBuild is configured and its default software path does not exist (creating
  // ~/.local/easybuild for a --prefix elsewhere would serve no eb).
  std::optional<easybuild::InstallLock> eb_lock;
  if (plan.site.locks.origin != "EasyBuild's default" || fs::is_directory(plan.site.software.value))
    eb_lock.emplace(easybuild::InstallLock::acquire(
        plan.site.locks.value, plan.prefix, plan.site.lock_wait,
        [&reporter](const std::string& line) { reporter.on_note(line); }));
  std::optional<DownloadArea> downloads;
  // Ctrl-C or SIGTERM from here on: say what the next run resumes (the process still ends).
  std::optional<InterruptNotice> notice;
  std::vector<fs::path> wheels = plan.wheel_files;
  if (plan.resolution) {
    log.stage("resolved", plan.resolving_took, resolution_text(*plan.resolution));
    const auto fetching = Clock::now();
    notice.emplace("wheelmod: interrupted; " + DownloadArea::kept_line(plan.download_area));
    downloads.emplace(plan.download_area, reporter);
    auto fetched = download(plan, *downloads, reporter);
    log.stage("fetched", fetching, fetched.log);
    wheels = std::move(fetched.files);
  }
  const auto installing = Clock::now();
  if (plan.module_file && plan.module_file->target)
    log.line("module: " + plan.module_file->target->file.string());
  auto request = prefix_request(plan, std::move(wheels));
  InstallResult result;
  result.startup_code = find_startup_code(request.wheels, plan.python_version);
  settle_startup_code(result.startup_code, plan.refuse_startup_code, reporter);
  if (!result.startup_code.empty()) log.line(startup_log_text(result.startup_code));
  request.log = [&log, installing](const prefix::PrefixInstallResult& done) {
    log.stage("installed", installing, installation_text(done));
    return log.text();
  };
  result.install = prefix::install_into_prefix(request, reporter);
  result.rocm = plan.rocm;
  if (plan.module_file) {
    // install's --python was given on purpose: written, with the warning (`module` refuses).
    const auto written = write_module_file(*plan.module_file, PythonMismatch::warn, reporter);
    result.module_file = written.file;
    result.module_name = written.module;
  }
  notice.reset();
  if (downloads) downloads->remove();
  return result;
}

InstallResult install(const InstallOptions& options, Reporter& reporter) {
  return execute_install(plan_install(options, reporter), reporter);
}

}  // namespace wheelmod::operations
