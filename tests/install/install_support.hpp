// Helpers for the installer tests: crafted wheels from make_wheel.py,
// commands run through the shell, installed trees read back, and a
// Reporter that records what it is told.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/errors.hpp"
#include "core/reporter.hpp"
#include "recording_reporter.hpp"

namespace wheelmod::test {

namespace fs = std::filesystem;

inline const std::string k_python = WHEELMOD_REFERENCE_PYTHON;

/// `text` as one shell word.
inline std::string quote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CommandResult {
  int status = -1;     // exit status, or -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) {
    result.output.append(buffer, got);
  }
  const int raw = ::pclose(pipe);
  if (raw != -1 && WIFEXITED(raw)) result.status = WEXITSTATUS(raw);
  return result;
}

/// Writes the wheel of make_wheel.py's `name` case into `dir`; its path.
inline fs::path make_wheel(std::string_view name, const fs::path& dir) {
  const auto result =
      run_command(k_python + " -B " + quote(WHEELMOD_INSTALL_TEST_DIR "/make_wheel.py") + " " +
                  quote(name) + " " + quote(dir.string()));
  INFO(result.output);
  REQUIRE(result.status == 0);
  auto path = result.output;
  while (!path.empty() && path.back() == '\n') path.pop_back();
  return path;
}

/// The X.Y of the reference python3.
inline std::string python_version() {
  const auto result =
      run_command(k_python + " -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])'");
  REQUIRE(result.status == 0);
  return result.output.substr(0, result.output.find('\n'));
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct TreeFile {
  std::string content;
  unsigned mode = 0;  // permission bits
  friend bool operator==(const TreeFile&, const TreeFile&) = default;
};

/// Every regular file under `root` by its path relative to `base`
/// (`../../../bin/x` for a base of lib/pythonX.Y/site-packages). Symbolic
/// links fail the test: an installer must not make any.
inline std::map<std::string, TreeFile> read_tree(const fs::path& root, const fs::path& base) {
  std::map<std::string, TreeFile> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    REQUIRE_FALSE(entry.is_symlink());
    if (!entry.is_regular_file()) continue;
    struct stat st {};
    REQUIRE(::stat(entry.path().c_str(), &st) == 0);
    const auto relative = entry.path().lexically_relative(base).generic_string();
    out[relative] = {read_file(entry.path()), static_cast<unsigned>(st.st_mode & 07777)};
  }
  return out;
}

/// Runs `body`, which must throw `E`; returns the error to inspect.
template <class E, class F>
E require_throws(F&& body) {
  try {
    body();
  } catch (const E& error) {
    return error;
  } catch (const std::exception& other) {
    FAIL("threw another exception: " << other.what());
  }
  FAIL("did not throw");
  throw std::logic_error("unreachable");
}

}  // namespace wheelmod::test
