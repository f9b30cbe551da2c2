// What this host's ld.so does, asked from ld.so itself: `ld.so --help`
// prints its system search path and the hwcap subdirectories it searches
// (glibc >= 2.33), `ld.so --list-diagnostics` the values of $LIB and
// $PLATFORM (dl_dst_lib, dl_platform). Asking beats hard-coding: Debian
// builds glibc with multiarch directories, RHEL with /lib64.
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <tuple>
#include <utility>

#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "core/timings.hpp"
#include "core/unique_fd.hpp"
#include "elf/loader.hpp"

namespace wheelmod::elf {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// Legacy hwcap subdirectories (glibc <= 2.36, elf/dl-hwcaps.c): the
// non-empty subsets of (tls, platform, hwcap names...), counted down as a
// bit mask with "tls" the highest bit, so tls/x86_64/x86_64, tls/x86_64,
// tls/x86_64, tls, x86_64/x86_64, x86_64, x86_64 — what LD_DEBUG=libs
// shows ld.so 2.36 trying on x86_64.
std::vector<std::string> legacy_combinations(const std::vector<std::string>& components) {
  std::vector<std::string> subdirs;
  const std::size_t count = components.size();
  for (std::size_t mask = (std::size_t{1} << count) - 1; mask > 0; --mask) {
    std::string subdir;
    for (std::size_t i = 0; i < count; ++i) {
      if ((mask & (std::size_t{1} << (count - 1 - i))) == 0) continue;
      if (!subdir.empty()) subdir += '/';
      subdir += components[i];
    }
    subdirs.push_back(std::move(subdir));
  }
  return subdirs;
}

// The value of a `key="value"` line of --list-diagnostics; nullopt when absent.
std::optional<std::string> diagnostic(std::string_view text, std::string_view key) {
  for (const auto line : lines_of(text)) {
    if (!line.starts_with(key)) continue;
    const auto rest = line.substr(key.size());
    if (rest.size() >= 3 && rest.starts_with("=\"") && rest.ends_with('"'))
      return std::string(rest.substr(2, rest.size() - 3));
  }
  return std::nullopt;
}

// `interpreter OPTION` started with its stdout in a memory file (memfd_create(2)) and stderr on
// /dev/null, as `ld.so OPTION 2>/dev/null` in a shell but without the shell (one exec, not two).
// A memory file, not a pipe: --list-diagnostics writes 200-odd lines one write(2) each, and a
// pipe would wake the reader for every one.
class LdSoRun {
 public:
  LdSoRun(const std::string& interpreter, const char* option)
      : m_out(::memfd_create("wheelmod-ld.so", MFD_CLOEXEC)) {
    if (!m_out) return;
    posix_spawn_file_actions_t actions{};
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, m_out.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::array<char*, 3> argv{const_cast<char*>(interpreter.c_str()), const_cast<char*>(option),
                              nullptr};
    if (::posix_spawn(&m_pid, interpreter.c_str(), &actions, nullptr, argv.data(), environ) != 0)
      m_pid = -1;
    ::posix_spawn_file_actions_destroy(&actions);
  }
  ~LdSoRun() { (void)wait(); }
  LdSoRun(const LdSoRun&) = delete;
  LdSoRun& operator=(const LdSoRun&) = delete;

  // Waits for the program to end; what it wrote on stdout ("" when it could not start).
  std::string output() {
    if (!wait()) return {};
    std::string text;
    std::array<char, 8192> buffer{};
    for (off_t at = 0;;) {
      const ssize_t got = ::pread(m_out.get(), buffer.data(), buffer.size(), at);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;  // the end (or an error: what came is kept, as fread did)
      text.append(buffer.data(), static_cast<std::size_t>(got));
      at += got;
    }
    return text;
  }

 private:
  bool wait() {
    if (m_pid <= 0) return false;
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = 0;
    return true;
  }

  UniqueFd m_out;
  pid_t m_pid = -1;
};

// `interpreter --help` and `interpreter --list-diagnostics`, run side by side (each takes about
// a millisecond, mostly exec): what each wrote on stdout, "" for one that could not run.
std::pair<std::string, std::string> ask_ld_so(const std::string& interpreter) {
  LdSoRun help(interpreter, "--help");
  LdSoRun diagnostics(interpreter, "--list-diagnostics");
  return {help.output(), diagnostics.output()};
}

// This program's PT_INTERP, read from its mapped program headers (the
// first object dl_iterate_phdr reports is the main program).
std::string own_interpreter() {
  std::string interpreter;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *static_cast<std::string*>(data) =
                reinterpret_cast<const char*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        return 1;  // the main program only
      },
      &interpreter);
  return interpreter;
}

}  // namespace

LoaderEnvironment environment_from_ld_so(std::string_view help, std::string_view diagnostics) {
  LoaderEnvironment environment;
  enum class Section { other, search_path, glibc_hwcaps, legacy };
  Section section = Section::other;
  std::vector<std::string> legacy;  // "tls", then the platform, then hwcap names
  bool tls = false;
  std::optional<std::string> platform;
  for (const auto line : lines_of(help)) {
    if (line.starts_with("Shared library search path:")) {
      section = Section::search_path;
    } else if (line.starts_with("Subdirectories of glibc-hwcaps directories")) {
      section = Section::glibc_hwcaps;
    } else if (line.starts_with("Legacy HWCAP subdirectories")) {
      section = Section::legacy;
    } else if (!line.starts_with(" ")) {
      section = Section::other;
    } else {
      const auto entry = trim(line);
      const auto paren = entry.find(" (");
      const std::string name(entry.substr(0, paren));
      const auto note = paren == std::string_view::npos ? std::string_view() : entry.substr(paren);
      const bool searched = note.find("searched") != std::string_view::npos;
      if (section == Section::search_path && note == " (system search path)") {
        environment.system_dirs.push_back(name);
      } else if (section == Section::glibc_hwcaps && searched) {
        environment.glibc_hwcaps.push_back(name);
      } else if (section == Section::legacy && searched) {
        if (note.find("AT_PLATFORM") != std::string_view::npos)
          platform = name;
        else if (name == "tls")
          tls = true;
        else
          legacy.push_back(name);
      }
    }
  }
  if (platform) legacy.insert(legacy.begin(), *platform);
  if (tls) legacy.insert(legacy.begin(), "tls");
  environment.legacy_hwcap_subdirs = legacy_combinations(legacy);

  if (auto lib = diagnostic(diagnostics, "dl_dst_lib")) {
    environment.lib = std::move(*lib);
  } else if (!environment.system_dirs.empty()) {
    // glibc's DL_DST_LIB is its slibdir without the leading '/'.
    environment.lib = environment.system_dirs.front().substr(1);
  }
  environment.platform = diagnostic(diagnostics, "dl_platform");
  return environment;
}

LoaderEnvironment host_environment(LdLibraryPath ld_library_path) {
  std::optional<timings::Scope> phase(std::in_place, "ld.so-host");
  const std::string interpreter = own_interpreter();
  std::string help;
  std::string diagnostics;
  if (!interpreter.empty()) std::tie(help, diagnostics) = ask_ld_so(interpreter);
  LoaderEnvironment environment = environment_from_ld_so(help, diagnostics);
  environment.interpreter = interpreter;
  if (environment.system_dirs.empty()) {
    // An ld.so older than 2.33 does not say; ld.so(8)'s defaults.
    environment.system_dirs = {"/lib64", "/usr/lib64", "/lib", "/usr/lib"};
  }
  if (!environment.platform) {
    const auto at_platform = ::getauxval(AT_PLATFORM);
    if (at_platform != 0) environment.platform = reinterpret_cast<const char*>(at_platform);
  }
  phase.emplace("ld.so.cache");
  const std::filesystem::path cache_file = "/etc/ld.so.cache";
  std::error_code ignored;
  if (std::filesystem::exists(cache_file, ignored))
    environment.cache = read_ld_so_cache(cache_file);
  environment.working_directory = std::filesystem::current_path();
  if (ld_library_path == LdLibraryPath::from_process) {
    // ld.so(8): LD_LIBRARY_PATH is split at ':' and ';'; unset or empty
    // means no entries.
    const char* value = std::getenv("LD_LIBRARY_PATH");
    std::string_view rest = value == nullptr ? std::string_view() : value;
    while (!rest.empty()) {
      const auto end = rest.find_first_of(":;");
      environment.ld_library_path.emplace_back(rest.substr(0, end));
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
      if (rest.empty()) environment.ld_library_path.emplace_back();
    }
  }
  return environment;
}

}  // namespace wheelmod::elf
