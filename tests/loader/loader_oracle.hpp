// The reference for the loader tests: glibc's own ld.so, through `ldd`
// (or `ld.so --list`), whose output lists every object in loading order:
//   \tliba.so => /p/bin/../liba/liba.so (0x00007f...)
//   \tlibgone.so => not found
//   \t/lib64/ld-linux-x86-64.so.2 (0x00007f...)
// and the same list computed from a CheckResult, to compare the two.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include "elf/loader.hpp"

namespace wheelmod::test {

struct LddLine {
  std::string name;  // what was asked for (ldd's left column)
  std::string path;  // what was loaded, or "not found"
  bool operator==(const LddLine&) const = default;
};

inline std::ostream& operator<<(std::ostream& out, const LddLine& line) {
  return out << line.name << " => " << line.path;
}

inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// Runs `command` with /bin/sh; its stdout (add 2>&1 for stderr too).
/// `exit_code` receives the exit status (-1 when it did not exit).
inline std::string run_command(const std::string& command, int* exit_code = nullptr) {
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    out.append(buffer.data(), got);
  const int status = ::pclose(pipe);
  if (exit_code != nullptr) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

/// The object lines of ldd / ld.so --list output (the vDSO left out).
inline std::vector<LddLine> parse_ldd(const std::string& output) {
  std::vector<LddLine> lines;
  std::size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    start = end + 1;
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.starts_with("linux-vdso") || line.starts_with("linux-gate")) continue;
    const auto arrow = line.find(" => ");
    const auto address = line.rfind(" (0x");
    if (arrow != std::string::npos) {
      const std::string target = line.substr(arrow + 4);
      lines.push_back({line.substr(0, arrow), target.starts_with("not found")
                                                  ? std::string("not found")
                                                  : target.substr(0, target.rfind(" (0x"))});
    } else if (line.starts_with("/") && address != std::string::npos) {
      const std::string path = line.substr(0, address);
      lines.push_back({path, path});
    }
  }
  return lines;
}

/// What ldd would print for `result`. ldd prints ld.so's namespace list:
/// objects in the order they were mapped, with a placeholder for each
/// failed request where it happened (ld.so in trace mode maps a fake
/// object), except that the interpreter, mapped first, is moved right
/// behind the object before it in the breadth-first search list.
inline std::vector<LddLine> ldd_lines(const elf::CheckResult& result) {
  std::vector<LddLine> lines;
  std::vector<std::size_t> line_object;  // objects index per line, 0 for placeholders
  std::size_t next = 1;
  std::size_t interpreter = 0;
  for (const auto& object : result.objects)
    for (const auto& needed : object.needed) {
      if (needed.status != elf::NeededStatus::found) {
        const bool as_path = needed.found_by == elf::FoundBy::path && !needed.path.empty();
        lines.push_back({as_path ? needed.path : needed.name, "not found"});
        line_object.push_back(0);
      } else if (needed.object == next) {
        const auto& loaded = result.objects[next];
        if (loaded.path == result.interpreter) {
          interpreter = next;
        } else {
          lines.push_back({loaded.loaded_as, loaded.path});
          line_object.push_back(next);
        }
        ++next;
      }
    }
  if (interpreter != 0) {
    std::size_t at = 0;  // behind the object listed before it, or first
    for (std::size_t i = 0; i < line_object.size(); ++i)
      if (line_object[i] == interpreter - 1) at = i + 1;
    const auto& loaded = result.objects[interpreter];
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), {loaded.loaded_as, loaded.path});
  }
  return lines;
}

/// `ldd FILE` with LD_LIBRARY_PATH unset.
inline std::vector<LddLine> ldd(const std::filesystem::path& file) {
  return parse_ldd(run_command("env -u LD_LIBRARY_PATH " + shell_quote(WHEELMOD_LDD) + " " +
                               shell_quote(file.string()) + " 2>&1"));
}

/// The NeededResult for `name` among the requests of the object at
/// `path_suffix` (the first object whose path ends so); fails if none.
inline const elf::NeededResult& needed_of(const elf::CheckResult& result,
                                          const std::string& path_suffix, const std::string& name) {
  for (const auto& object : result.objects)
    if (object.path.ends_with(path_suffix))
      for (const auto& needed : object.needed)
        if (needed.name == name) return needed;
  FAIL("no request for " << name << " by an object ending in " << path_suffix);
  throw;  // unreachable: FAIL throws
}

}  // namespace wheelmod::test
