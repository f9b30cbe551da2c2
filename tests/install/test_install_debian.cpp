// Real wheels (Debian's python3-pip-whl: /usr/share/python-wheels) against
// pip itself: `pip install --no-deps --no-compile --prefix` is the reference
// for which files land where and with what bytes and modes; the installed
// console scripts and packages must then work with the system python3.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <sys/resource.h>

#include "core/reporter.hpp"
#include "install_support.hpp"
#include "pep/record.hpp"
#include "require_parsed.hpp"
#include "temp_dir.hpp"
#include "wheel/installer.hpp"

using namespace wheelmod;
using namespace wheelmod::test;

namespace {

const fs::path k_debian_wheels = "/usr/share/python-wheels";

std::vector<fs::path> debian_wheels() {
  std::vector<fs::path> out;
  if (!fs::is_directory(k_debian_wheels)) return out;
  for (const auto& entry : fs::directory_iterator(k_debian_wheels)) {
    if (entry.path().extension() == ".whl") out.push_back(entry.path());
  }
  std::ranges::sort(out);
  return out;
}

/// pip's install of `wheel` under `prefix`; returns its site-packages
/// (Debian's pip picks `local/lib/python3.X/dist-packages`, so it is found,
/// not assumed).
fs::path pip_install(const fs::path& wheel, const fs::path& prefix, const std::string& dist_info) {
  const auto result =
      run_command("PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_WARN_SCRIPT_LOCATION=1 " + k_python +
                  " -m pip install --quiet --no-deps --no-compile --no-index --ignore-installed"
                  " --break-system-packages --prefix " +
                  quote(prefix.string()) + " " + quote(wheel.string()));
  INFO(result.output);
  REQUIRE(result.status == 0);
  for (const auto& entry : fs::recursive_directory_iterator(prefix)) {
    if (entry.is_directory() && entry.path().filename() == dist_info) {
      return entry.path().parent_path();
    }
  }
  FAIL("pip wrote no " << dist_info << " under " << prefix);
  return {};
}

// What pip writes that is no file of the wheel's: byte code, and the
// PEP 376/610 files a caller asks for (REQUESTED, direct_url.json).
bool pip_only(const std::string& path) {
  return path.find("__pycache__/") != std::string::npos || path.ends_with(".pyc") ||
         path.ends_with(".dist-info/REQUESTED") || path.ends_with(".dist-info/direct_url.json");
}

std::map<std::string, TreeFile> without_pip_only(std::map<std::string, TreeFile> tree) {
  std::erase_if(tree, [](const auto& item) { return pip_only(item.first); });
  return tree;
}

std::string after_first_line(const std::string& text) { return text.substr(text.find('\n') + 1); }

// The importable names top_level.txt gives that the tree has (Debian's
// setuptools wheel lists a `debian` it does not ship).
std::vector<std::string> top_level_modules(const fs::path& site, const fs::path& dist_info,
                                           const std::string& name) {
  std::vector<std::string> out;
  if (fs::exists(dist_info / "top_level.txt")) {
    const auto text = read_file(dist_info / "top_level.txt");
    std::size_t begin = 0;
    while (begin < text.size()) {
      const auto end = std::min(text.find('\n', begin), text.size());
      const auto module = text.substr(begin, end - begin);
      if (!module.empty() &&
          (fs::exists(site / module / "__init__.py") || fs::exists(site / (module + ".py")))) {
        out.push_back(module);
      }
      begin = end + 1;
    }
  }
  if (out.empty()) {
    std::string module = name;
    std::ranges::replace(module, '-', '_');
    out.push_back(module);
  }
  return out;
}

}  // namespace

TEST_CASE("Debian's wheels install as pip installs them, and work", "[install][debian]") {
  const auto wheels = debian_wheels();
  if (wheels.empty()) {
    WARN("no wheels in " << k_debian_wheels << " (apt-get install python3-pip-whl)");
    return;
  }
  const auto python = python_version();
  for (const auto& wheel_file : wheels) {
    CAPTURE(wheel_file);
    TempDir dir("wheelmod-install");
    const wheel::InstallScheme scheme{dir.path() / "ours", python};
    wheel::InstallOptions options;
    options.script_interpreter = k_python;
    options.threads = 2;
    NullReporter reporter;
    const auto result = wheel::install_wheel(wheel_file, scheme, options, reporter);
    const auto dist_info_name = result.dist_info.filename().string();

    const auto pip_site = pip_install(wheel_file, dir.path() / "pip", dist_info_name);
    const auto ours = read_tree(scheme.root, scheme.purelib());
    const auto theirs =
        without_pip_only(read_tree((pip_site / "../../..").lexically_normal(), pip_site));

    // The same files, relative to site-packages.
    std::set<std::string> our_paths;
    std::set<std::string> their_paths;
    for (const auto& [path, file] : ours) our_paths.insert(path);
    for (const auto& [path, file] : theirs) their_paths.insert(path);
    std::vector<std::string> only_ours;
    std::vector<std::string> only_theirs;
    std::ranges::set_difference(our_paths, their_paths, std::back_inserter(only_ours));
    std::ranges::set_difference(their_paths, our_paths, std::back_inserter(only_theirs));
    CHECK(only_ours.empty());
    CHECK(only_theirs.empty());
    CHECK(our_paths.size() > 100);

    // The wheel's files byte for byte and mode for mode; the generated
    // ones by what may differ: the interpreter line, the installer's name,
    // RECORD's line ends and the rows pip adds.
    const auto generated_dir = dist_info_name + "/";
    std::size_t wrappers = 0;
    for (const auto& [path, file] : ours) {
      CAPTURE(path);
      if (!theirs.contains(path)) continue;
      const auto& other = theirs.at(path);
      CHECK(file.mode == other.mode);
      if (path == generated_dir + "INSTALLER") {
        CHECK(other.content == "pip\n");
        CHECK(file.content == "wheelmod\n");
      } else if (path == generated_dir + "RECORD") {
        auto pip_record = require_parsed(pep::parse_record(other.content), "pip's RECORD");
        std::erase_if(pip_record, [](const auto& row) { return pip_only(row.path); });
        auto our_record = require_parsed(pep::parse_record(file.content), "our RECORD");
        std::erase_if(our_record,
                      [&](const auto& row) { return row.path.ends_with("/INSTALLER"); });
        std::erase_if(pip_record,
                      [&](const auto& row) { return row.path.ends_with("/INSTALLER"); });
        std::ranges::sort(pip_record, {}, &pep::RecordEntry::path);
        CHECK(our_record == pip_record);
      } else if (path.starts_with("../../../bin/")) {
        ++wrappers;
        CHECK(file.content.starts_with("#!" + k_python + "\n"));
        CHECK(after_first_line(file.content) == after_first_line(other.content));
      } else {
        CHECK(file.content == other.content);
      }
    }

    // The console scripts and the packages work from the new tree.
    const auto site = scheme.purelib().string();
    const auto env = "PYTHONPATH=" + quote(site) + " ";
    for (const auto& [path, file] : ours) {
      if (!path.starts_with("../../../bin/pip")) continue;
      const auto version =
          run_command(env + quote((scheme.purelib() / path).string()) + " --version");
      CAPTURE(path, version.output);
      CHECK(version.status == 0);
      CHECK_THAT(version.output, Catch::Contains(result.version) && Catch::Contains(site));
    }
    for (const auto& module :
         top_level_modules(scheme.purelib(), scheme.root / result.dist_info, result.name)) {
      const auto imported = run_command(
          env + k_python + " -c " + quote("import " + module + "; print(" + module + ".__file__)"));
      CAPTURE(module, imported.output);
      CHECK(imported.status == 0);
      CHECK_THAT(imported.output, Catch::StartsWith(site));
    }
    CHECK(result.files == ours.size());
    if (result.name == "pip") CHECK(wrappers == 3);  // pip, pip3, pip3.11
  }
}

TEST_CASE("Debian's wheels: threads 1 and 4 give identical trees and RECORD", "[install][debian]") {
  for (const auto& wheel_file : debian_wheels()) {
    CAPTURE(wheel_file);
    TempDir one("wheelmod-install");
    TempDir four("wheelmod-install");
    NullReporter reporter;
    wheel::InstallOptions options;
    options.threads = 1;
    const wheel::InstallScheme scheme_one{one.path(), "3.11"};
    const wheel::InstallScheme scheme_four{four.path(), "3.11"};
    const auto a = wheel::install_wheel(wheel_file, scheme_one, options, reporter);
    options.threads = 4;
    const auto b = wheel::install_wheel(wheel_file, scheme_four, options, reporter);
    CHECK(a.record == b.record);
    CHECK(read_tree(one.path(), scheme_one.purelib()) ==
          read_tree(four.path(), scheme_four.purelib()));
  }
}

// By hand: ./wheelmod_install_tests '[.timing]' -s — the biggest Debian
// wheel (or $WHEELMOD_TIMING_WHEEL) with 2 threads against pip --no-compile,
// and this process's peak RSS after installing it.
TEST_CASE("timing: the biggest Debian wheel, wheelmod vs pip", "[.timing]") {
  fs::path wheel_file;
  if (const char* chosen = std::getenv("WHEELMOD_TIMING_WHEEL")) {
    wheel_file = chosen;
  } else {
    const auto wheels = debian_wheels();
    REQUIRE_FALSE(wheels.empty());
    wheel_file = *std::ranges::max_element(
        wheels, {}, [](const fs::path& path) { return fs::file_size(path); });
  }
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  for (int round = 0; round < 3; ++round) {
    TempDir dir("wheelmod-install");
    wheel::InstallOptions options;
    options.threads = 2;
    NullReporter reporter;
    const auto start = Clock::now();
    wheel::install_wheel(wheel_file, {dir.path() / "ours", "3.11"}, options, reporter);
    const auto ours = Clock::now() - start;
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto startup_start = Clock::now();
    REQUIRE(run_command(k_python + " -m pip --version").status == 0);
    const auto startup = Clock::now() - startup_start;
    const auto pip_start = Clock::now();
    const auto result =
        run_command("PIP_DISABLE_PIP_VERSION_CHECK=1 " + k_python +
                    " -m pip install --quiet --no-deps --no-compile --no-index --ignore-installed"
                    " --break-system-packages --prefix " +
                    quote((dir.path() / "pip").string()) + " " + quote(wheel_file.string()));
    const auto pip = Clock::now() - pip_start;
    REQUIRE(result.status == 0);
    WARN(wheel_file.filename().string()
         << ": wheelmod " << seconds(ours) << " s (peak RSS " << usage.ru_maxrss / 1024
         << " MiB), pip install " << seconds(pip) << " s (of which `pip --version` takes "
         << seconds(startup) << " s)");
  }
}
