#include "prefix/byte_compile.hpp"

#include <algorithm>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/files.hpp"
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

namespace {

// The .py files under `site`, dealt into at most `count` newline-separated
// lists of about equal total size, largest first (a big file is not split).
std::vector<std::string> shard_sources(const fs::path& site, unsigned count) {
  std::vector<std::pair<std::uintmax_t, std::string>> sources;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(site, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->path().extension() == ".py" && it->is_regular_file(error))
      sources.emplace_back(it->file_size(error), it->path().string());
  }
  if (sources.empty()) return {};
  std::ranges::sort(sources, std::greater<>());
  const std::size_t shard_count = std::min<std::size_t>(count, sources.size());
  std::vector<std::string> shards(shard_count);
  std::vector<std::uintmax_t> sizes(shard_count, 0);
  for (const auto& [size, path] : sources) {
    const auto lightest = static_cast<std::size_t>(std::ranges::min_element(sizes) - sizes.begin());
    shards[lightest] += path + "\n";
    sizes[lightest] += size;
  }
  return shards;
}

}  // namespace

ByteCompileResult byte_compile(const fs::path& python, const std::string& python_version,
                               const fs::path& staging_site, const fs::path& final_site,
                               unsigned processes) {
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
  // One compileall process per shard of the files: `compileall -j N`
  // spreads the work over a process pool that, measured on 2 cores, was no
  // faster than one process; separate processes with `-i LIST` are.
  const auto shards = shard_sources(staging_site, std::max(1U, processes));
  if (shards.empty()) return result;
  // The shard lists go inside the staging tree (lib/pythonX.Y/site-packages
  // -> its root), outside site-packages; a killed run's go with the tree.
  const TemporaryDirectory lists((staging_site / "../../..").lexically_normal(),
                                 ".wheelmod-compile-");
  std::vector<ProgramResult> outcomes(shards.size());
  {
    std::vector<std::jthread> workers;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      const auto list = lists.path() / ("shard-" + std::to_string(i) + ".txt");
      write_if_changed(list, shards[i], Flush::later);  // scratch: no fsync
      workers.emplace_back([&, i, list] {
        outcomes[i] =
            run_program({python.string(), "-m", "compileall", "-q", "-s", staging_site.string(),
                         "-p", final_site.string(), "-i", list.string()});
      });
    }
  }
  for (const auto& compiled : outcomes) {
    if (!compiled.started) {
      result.skipped = compiled.output;
      return result;
    }
    if (compiled.exit_code != 0) result.warnings += compiled.output;
  }
  result.ran = true;
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
