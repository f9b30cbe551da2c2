// Byte-compiling an installation: module trees are read-only for users, so `__pycache__` must be
// written at install time or every `import torch` recompiles thousands of files. The target
// Python compiles, on every core (its .pyc tags and magic numbers are what it will load).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace wheelmod::prefix {

struct ByteCompileResult {
  bool ran = false;
  std::string skipped;                 // why not, when !ran ("python3.11 is not the target's 3.12")
  std::string warnings;                // compileall's complaints about files it could not compile
  std::vector<std::string> pyc_files;  // written, relative to the staging site-packages
};

/// Byte-compiles the sources of an installation while it is being unpacked: `processes` workers
/// of the target Python each compile the files handed to them as soon as they are written, so
/// compiling shares the cores with the unpacking of the large entries instead of following it.
/// Tracebacks and .pyc files name the final location (`compileall.compile_file(ddir=...)`, which
/// every Python 3 has). Files that do not compile (Python 2 leftovers) are reported, not fatal,
/// as pip does. A Python that cannot be run, or is not the target's X.Y, starts no worker:
/// skipped() says why and add() does nothing. Destroyed before finish() (a failed install), it
/// kills the workers, so nothing writes into a staging tree being removed.
class ByteCompiler {
 public:
  ByteCompiler(const std::filesystem::path& python, const std::string& python_version,
               const std::filesystem::path& staging_site, const std::filesystem::path& final_site,
               unsigned processes);
  ~ByteCompiler();
  ByteCompiler(const ByteCompiler&) = delete;
  ByteCompiler& operator=(const ByteCompiler&) = delete;

  /// Whether workers run; else skipped() says why.
  [[nodiscard]] bool running() const;
  [[nodiscard]] const std::string& skipped() const;
  /// Whether `file` (a path under the staging tree) is a source it compiles: a .py file under the
  /// staging site-packages.
  [[nodiscard]] bool wants(const std::filesystem::path& file) const;
  /// Hands over a written source (thread-safe, never blocks on the workers). A file handed over
  /// twice (a second wheel replaced it) is compiled again after the workers end.
  void add(const std::filesystem::path& file, std::uint64_t size);
  /// No more files: waits for the workers and lists the .pyc files under the staging site.
  ByteCompileResult finish();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

/// The source a .pyc was compiled from: `a/__pycache__/b.cpython-312.opt-1.pyc`
/// -> `a/b.py`; "" for a path that is not in a __pycache__ directory.
std::string source_of_pyc(const std::string& pyc);

}  // namespace wheelmod::prefix
