// What this host's ld.so does, asked from ld.so itself: `ld.so --help`
// prints its system search path and the hwcap subdirectories it searches
// (glibc >= 2.33), `ld.so --list-diagnostics` the values of $LIB and
// $PLATFORM (dl_dst_lib, dl_platform). Asking beats hard-coding: Debian
// builds glibc with multiarch directories, RHEL with /lib64.
#include <link.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <sys/auxv.h>

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

std::string run_and_read(const std::string& command) {
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::string out;
  if (!pipe) return out;
  std::array<char, 4096> buffer{};
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    out.append(buffer.data(), got);
  return out;
}

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
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
  const std::string interpreter = own_interpreter();
  std::string help;
  std::string diagnostics;
  if (!interpreter.empty()) {
    help = run_and_read(shell_quoted(interpreter) + " --help 2>/dev/null");
    diagnostics = run_and_read(shell_quoted(interpreter) + " --list-diagnostics 2>/dev/null");
  }
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
