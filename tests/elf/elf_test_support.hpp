// Helpers for the ELF tests: run a program (readelf, a fixture) without
// LD_LIBRARY_PATH, read what readelf says about a file, move bytes around.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <sys/wait.h>

namespace wheelmod::test {

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string output;  // stdout and stderr together
};

/// Runs `argv` with the test's environment minus LD_LIBRARY_PATH and
/// LD_PRELOAD, so only the search paths in the files decide what loads.
inline RunResult run(const std::vector<std::string>& argv) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string variable = *entry;
    if (variable.starts_with("LD_LIBRARY_PATH=") || variable.starts_with("LD_PRELOAD=")) continue;
    environment.push_back(variable);
  }
  std::vector<char*> c_argv;
  std::vector<std::string> arguments = argv;
  for (auto& argument : arguments) c_argv.push_back(argument.data());
  c_argv.push_back(nullptr);
  std::vector<char*> c_environment;
  for (auto& variable : environment) c_environment.push_back(variable.data());
  c_environment.push_back(nullptr);

  std::array<int, 2> pipe_fds{};
  REQUIRE(::pipe2(pipe_fds.data(), O_CLOEXEC) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  pid_t child = 0;
  const int spawned =
      ::posix_spawn(&child, c_argv[0], &actions, nullptr, c_argv.data(), c_environment.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  RunResult result;
  std::array<char, 4096> chunk{};
  ssize_t got = 0;
  while ((got = ::read(pipe_fds[0], chunk.data(), chunk.size())) > 0)
    result.output.append(chunk.data(), static_cast<std::size_t>(got));
  ::close(pipe_fds[0]);
  REQUIRE(spawned == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

/// What `readelf` prints about a file's dynamic section and headers.
struct Readelf {
  std::string elf_class;  // "ELF32" / "ELF64"
  std::string data;       // "little endian" / "big endian"
  std::string type;       // "DYN" / "EXEC"
  std::optional<std::string> interpreter, soname, rpath, runpath;
  std::vector<std::string> needed;
  int rpath_entries = 0, runpath_entries = 0;
};

inline std::string bracketed(const std::string& line) {
  const auto open = line.find('[');
  const auto close = line.rfind(']');
  REQUIRE(open != std::string::npos);
  REQUIRE(close > open);
  return line.substr(open + 1, close - open - 1);
}

inline std::string after_colon(const std::string& line) {
  auto value = line.substr(line.find(':') + 1);
  value.erase(0, value.find_first_not_of(' '));
  return value;
}

inline Readelf readelf(const std::filesystem::path& file) {
  const auto result = run({WHEELMOD_READELF, "-W", "-h", "-l", "-d", file.string()});
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  Readelf out;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("  Class:") == 0) out.elf_class = after_colon(line);
    if (line.find("  Data:") == 0) {  // "2's complement, little endian"
      const auto value = after_colon(line);
      out.data = value.substr(value.find(", ") + 2);
    }
    if (line.find("  Type:") == 0)
      out.type = after_colon(line).substr(0, after_colon(line).find(' '));
    if (line.find("[Requesting program interpreter:") != std::string::npos) {
      const auto colon = line.find(": ");
      out.interpreter = line.substr(colon + 2, line.rfind(']') - colon - 2);
    }
    if (line.find("(NEEDED)") != std::string::npos) out.needed.push_back(bracketed(line));
    if (line.find("(SONAME)") != std::string::npos) out.soname = bracketed(line);
    if (line.find("(RPATH)") != std::string::npos) {
      out.rpath = bracketed(line);
      ++out.rpath_entries;
    }
    if (line.find("(RUNPATH)") != std::string::npos) {
      out.runpath = bracketed(line);
      ++out.runpath_entries;
    }
  }
  return out;
}

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Writes a new file (unlinking the old one: ext4 flushes a file truncated
/// and rewritten in place on close, which made the fuzz test 15x slower).
inline void write_file(const std::filesystem::path& file, const std::string& bytes) {
  std::error_code ignored;
  std::filesystem::remove(file, ignored);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

/// Copies `from` into `directory` (created) as `name`, keeping its mode.
inline std::filesystem::path copy_into(const std::filesystem::path& from,
                                       const std::filesystem::path& directory,
                                       const std::string& name) {
  std::filesystem::create_directories(directory);
  const auto to = directory / name;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  return to;
}

/// Names in `directory`, to check that no temporary file was left behind.
inline std::vector<std::string> names_in(const std::filesystem::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace wheelmod::test
