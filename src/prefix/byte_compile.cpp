#include "prefix/byte_compile.hpp"

#include <algorithm>
#include <system_error>

#include "core/subprocess.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

std::string source_of_pyc(const std::string& pyc) {
  const fs::path path(pyc);
  if (path.parent_path().filename() != "__pycache__" || path.extension() != ".pyc") return {};
  // PEP 3147 / PEP 488: __pycache__/<module>.<tag>[.opt-N].pyc
  const auto name = path.filename().string();
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return {};
  return (path.parent_path().parent_path() / (name.substr(0, dot) + ".py")).generic_string();
}

ByteCompileResult byte_compile(const fs::path& python, const std::string& python_version,
                               const fs::path& staging_site, const fs::path& final_site) {
  ByteCompileResult result;
  const auto version =
      run_program({python.string(), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"});
  if (!version.started || version.exit_code != 0) {
    result.skipped =
        python.string() + " cannot be run" + (version.output.empty() ? "" : ": " + version.output);
    return result;
  }
  std::string found = version.output;
  while (!found.empty() && (found.back() == '\n' || found.back() == '\r')) found.pop_back();
  if (found != python_version) {
    result.skipped = python.string() + " is Python " + found + ", the installation is for " +
                     python_version + " (its .pyc files would never be used)";
    return result;
  }
  const auto compiled =
      run_program({python.string(), "-m", "compileall", "-q", "-j", "0", "-s",
                   staging_site.string(), "-p", final_site.string(), staging_site.string()});
  result.ran = compiled.started;
  if (!compiled.started) {
    result.skipped = compiled.output;
    return result;
  }
  if (compiled.exit_code != 0) result.warnings = compiled.output;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(staging_site, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->path().extension() == ".pyc" && it->path().parent_path().filename() == "__pycache__")
      result.pyc_files.push_back(it->path().lexically_relative(staging_site).generic_string());
  }
  std::ranges::sort(result.pyc_files);
  return result;
}

}  // namespace wheelmod::prefix
