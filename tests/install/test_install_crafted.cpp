// install_wheel on wheels written by make_wheel.py: the good one (every
// scheme directory, both script groups, a `#!python` script, an executable
// member), its ZIP64 and stored forms, and one variant per safety rule.
#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "hash/sha256.hpp"
#include "install_support.hpp"
#include "pep/record.hpp"
#include "require_parsed.hpp"
#include "temp_dir.hpp"
#include "wheel/installer.hpp"

using namespace wheelmod;
using namespace wheelmod::test;
using wheel::install_wheel;
using wheel::InstallOptions;
using wheel::InstallScheme;

namespace {

constexpr std::string_view k_site = "lib/python3.11/site-packages";

InstallOptions options_with(unsigned threads) {
  InstallOptions options;
  options.threads = threads;
  options.script_interpreter = k_python;
  return options;
}

struct Installed {
  wheel::InstalledWheel result;
  std::map<std::string, TreeFile> tree;  // relative to site-packages
};

Installed install_case(std::string_view name, const TempDir& dir, unsigned threads = 2,
                       Reporter* reporter = nullptr) {
  const auto wheel_file = make_wheel(name, dir.path() / "in");
  const InstallScheme scheme{dir.path() / "root", "3.11"};
  NullReporter null;
  auto result = install_wheel(wheel_file, scheme, options_with(threads),
                              reporter != nullptr ? *reporter : null);
  return {std::move(result), read_tree(scheme.root, scheme.purelib())};
}

}  // namespace

TEST_CASE("a good wheel: layout, modes, scripts, RECORD", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  RecordingReporter reporter;
  const auto [result, tree] = install_case("good", dir, 2, &reporter);

  CHECK(result.name == "demo");
  CHECK(result.version == "1.0");
  CHECK(result.dist_info == std::string(k_site) + "/demo-1.0.dist-info");

  const std::map<std::string, unsigned> expected_files{
      {"demo/__init__.py", 0644},
      {"demo/cli.py", 0644},
      {"demo/data.bin", 0644},
      {"demo/tool.sh", 0755},   // the zip says executable
      {"demo_extra.py", 0644},  // .data/purelib
      {"../../../bin/demo-script", 0755},
      {"../../../bin/plain.sh", 0755},
      {"../../../bin/demo", 0755},  // generated; the wheel's own wrapper is dropped
      {"../../../bin/demo-gui", 0755},
      {"../../../include/python3.11/demo/demo.h", 0644},
      {"../../../share/demo/readme.txt", 0644},
      {"demo-1.0.dist-info/METADATA", 0644},
      {"demo-1.0.dist-info/WHEEL", 0644},
      {"demo-1.0.dist-info/entry_points.txt", 0644},
      {"demo-1.0.dist-info/INSTALLER", 0644},
      {"demo-1.0.dist-info/RECORD", 0644},
  };
  std::map<std::string, unsigned> files;
  for (const auto& [path, file] : tree) files[path] = file.mode;
  CHECK(files == expected_files);

  CHECK(tree.at("demo/data.bin").content.size() == 16384);
  CHECK(tree.at("../../../bin/demo-script").content ==
        "#!" + k_python + "\nimport demo\nprint('script', demo.VERSION)\n");
  CHECK(tree.at("../../../bin/plain.sh").content == "#!/bin/sh\necho plain\n");
  CHECK(tree.at("demo-1.0.dist-info/INSTALLER").content == "wheelmod\n");
  CHECK_THAT(
      tree.at("../../../bin/demo").content,
      Catch::StartsWith("#!" + k_python + "\n") && Catch::Contains("from demo.cli import main\n"));

  // RECORD on disk is the one returned; every row but its own matches the
  // installed bytes (PyPA "Recording installed projects").
  const auto record =
      require_parsed(pep::parse_record(tree.at("demo-1.0.dist-info/RECORD").content), "RECORD");
  CHECK(record == result.record);
  CHECK(record.size() == expected_files.size());
  CHECK(result.files == expected_files.size());
  CHECK(std::ranges::is_sorted(record, {}, &pep::RecordEntry::path));
  std::uint64_t bytes = 0;
  for (const auto& row : record) {
    CAPTURE(row.path);
    REQUIRE(tree.contains(row.path));
    const auto& content = tree.at(row.path).content;
    bytes += content.size();
    if (row.path == "demo-1.0.dist-info/RECORD") {
      CHECK_FALSE(row.hash.has_value());
      CHECK_FALSE(row.size.has_value());
      continue;
    }
    hash::Sha256 hasher;
    hasher.update(content);
    const auto digest = hasher.finish();
    CHECK(pep::check_record_entry(row, digest, content.size()) == pep::RecordCheck::ok);
  }
  CHECK(result.bytes == bytes);

  // One task, bytes out of the archive, ending at the total.
  REQUIRE(reporter.labels == std::vector<std::string>{"unpack demo-1.0-py3-none-any.whl"});
  REQUIRE(reporter.totals.front().has_value());
  CHECK(std::ranges::is_sorted(reporter.progress));
  REQUIRE_FALSE(reporter.progress.empty());
  CHECK(reporter.progress.back() == *reporter.totals.front());
  CHECK(reporter.finished == std::vector<std::string>{"16 files"});
  CHECK(reporter.warnings.empty());
}

TEST_CASE("a good wheel: its scripts run", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  install_case("good", dir);
  const auto root = dir.path() / "root";
  const auto env = "PYTHONPATH=" + quote((root / k_site).string()) + " ";
  const auto console = run_command(env + quote((root / "bin/demo").string()) + " a b");
  CHECK(console.status == 0);
  CHECK(console.output == "demo main a b\n");
  const auto gui = run_command(env + quote((root / "bin/demo-gui").string()));
  CHECK(gui.status == 3);  // sys.exit(gui()) passes the return value on
  const auto script = run_command(env + quote((root / "bin/demo-script").string()));
  CHECK(script.status == 0);
  CHECK(script.output == "script 1.0\n");
}

TEST_CASE("ZIP64, data descriptors, stored members, Root-Is-Purelib false: the same tree",
          "[install][crafted]") {
  TempDir dir("wheelmod-install");
  const auto good = install_case("good", dir);
  for (const std::string_view variant : {"zip64", "data_descriptor", "stored", "platlib_root"}) {
    CAPTURE(variant);
    TempDir other("wheelmod-install");
    const auto installed = install_case(variant, other);
    CHECK(installed.result.name == "demo");
    for (const auto& [path, file] : good.tree) {
      CAPTURE(path);
      if (path.ends_with("/RECORD") || path.ends_with("/WHEEL")) continue;
      REQUIRE(installed.tree.contains(path));
      CHECK(installed.tree.at(path) == file);
    }
    CHECK(installed.tree.size() == good.tree.size());
  }
}

TEST_CASE("threads: 1 and 4 give identical trees and RECORD", "[install][crafted]") {
  TempDir one("wheelmod-install");
  TempDir four("wheelmod-install");
  const auto a = install_case("good", one, 1);
  const auto b = install_case("good", four, 4);
  CHECK(a.tree == b.tree);
  CHECK(a.result.record == b.result.record);
}

TEST_CASE("Wheel-Version 1.9: a warning, then installed", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  RecordingReporter reporter;
  const auto installed = install_case("wheel_version_1_9", dir, 2, &reporter);
  REQUIRE(reporter.warnings.size() == 1);
  CHECK_THAT(reporter.warnings.front(), Catch::Contains("Wheel-Version 1.9 is newer than 1.0"));
  CHECK(installed.tree.contains("demo/cli.py"));
}

TEST_CASE("a RECORD signature need not be listed in RECORD", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  const auto installed = install_case("signature", dir);
  CHECK(installed.tree.at("demo-1.0.dist-info/RECORD.jws").content == "{}");
  const auto& record = installed.result.record;
  CHECK(std::ranges::any_of(record, [](const auto& row) {
    return row.path == "demo-1.0.dist-info/RECORD.jws" && row.hash.has_value();
  }));
}

TEST_CASE("refused wheels: error type, entry named, nothing written before the check",
          "[install][crafted]") {
  struct Case {
    std::string_view name;
    ExitCode code;
    std::string_view message;
    bool checked_before_writing;
  };
  const Case cases[] = {
      {"absolute", ExitCode::integrity, "entry '/tmp/evil.py': absolute path", true},
      {"dotdot", ExitCode::integrity, "entry 'demo/../../evil.py': '..' component", true},
      {"backslash", ExitCode::integrity, "entry 'demo\\evil.py': backslash", true},
      {"control_character", ExitCode::integrity, "entry 'demo/ev\\x1b[2Kil.py': control character",
       true},
      {"empty_name", ExitCode::integrity, "entry '': empty name", true},
      {"symlink", ExitCode::integrity, "entry 'demo/link': symbolic link", true},
      {"duplicate", ExitCode::integrity,
       "entry 'demo/__init__.py': a second entry for 'demo/__init__.py'", true},
      {"duplicate_dot", ExitCode::integrity,
       "entry './demo/__init__.py': a second entry for 'demo/__init__.py'", true},
      {"size_mismatch", ExitCode::integrity,
       "entry 'demo/cli.py': the central directory gives 111 bytes, RECORD 112", true},
      {"hash_mismatch", ExitCode::integrity, "entry 'demo/cli.py': hash differs from RECORD",
       false},
      {"lying_size", ExitCode::integrity, "entry 'demo/cli.py' inflates to more than the 100 bytes",
       false},
      {"unsupported_hash", ExitCode::integrity,
       "entry 'demo/cli.py': RECORD hash algorithm 'sha512' is unsupported", true},
      {"record_lists_absent_file", ExitCode::integrity,
       "RECORD lists 'demo/absent.py', which is not in the archive", true},
      {"record_misses_file", ExitCode::integrity, "entry 'demo/data.bin' is not listed in RECORD",
       true},
      {"no_record", ExitCode::integrity, "no demo-1.0.dist-info/RECORD", true},
      {"zip_bomb", ExitCode::integrity,
       "entry 'demo/zeros.bin': inflates from 16310 to 16777216 bytes, more than 1000 times", true},
      {"encrypted", ExitCode::integrity, "entry 'demo/cli.py': encrypted", true},
      {"local_header_differs", ExitCode::integrity, "inconsistent zip archive", true},
      {"unknown_scheme", ExitCode::integrity,
       "entry 'demo-1.0.data/elsewhere/x.txt': unknown scheme directory 'elsewhere'", true},
      {"two_entries_one_file", ExitCode::integrity,
       "entry 'demo-1.0.data/purelib/demo/__init__.py': installs to "
       "'lib/python3.11/site-packages/demo/__init__.py' as entry 'demo/__init__.py' does",
       true},
      {"wheel_version_2_0", ExitCode::usage, "Wheel-Version 2.0 is not supported", true},
      {"foreign_dist_info", ExitCode::usage, "'other-1.0.dist-info' does not belong to demo 1.0",
       true},
      {"bad_entry_point", ExitCode::usage, "module and function must be dotted", true},
      {"not_a_zip", ExitCode::usage, "not a zip archive", true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    TempDir dir("wheelmod-install");
    const auto wheel_file = make_wheel(c.name, dir.path() / "in");
    const InstallScheme scheme{dir.path() / "root", "3.11"};
    NullReporter reporter;
    const auto error = require_throws<Error>(
        [&] { install_wheel(wheel_file, scheme, options_with(2), reporter); });
    CAPTURE(error.render());
    CHECK(error.code() == c.code);
    CHECK(error.subject() == wheel_file.string());
    CHECK_THAT(error.what(), Catch::Contains(std::string(c.message)));
    if (c.checked_before_writing) CHECK_FALSE(std::filesystem::exists(scheme.root));
  }
}

TEST_CASE("a hash mismatch shows both digests", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  const auto wheel_file = make_wheel("hash_mismatch", dir.path() / "in");
  NullReporter reporter;
  const auto error = require_throws<IntegrityError>([&] {
    install_wheel(wheel_file, {dir.path() / "root", "3.11"}, options_with(4), reporter);
  });
  CHECK(error.details() ==
        std::vector<std::string>{"RECORD:   sha256=" + std::string(43, 'A'),
                                 "computed: sha256=UTEnBW1MnnZQF0Oabuc5hVZSZJDlhvsvpeyopAEvFPY"});
  CHECK_THAT(error.hint(), Catch::Contains("download it again"));
}

TEST_CASE("a zip bomb is judged by options.max_compression_ratio", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  const auto wheel_file = make_wheel("zip_bomb", dir.path() / "in");
  const InstallScheme scheme{dir.path() / "root", "3.11"};
  auto options = options_with(2);
  options.max_compression_ratio = 2000;  // 16 MiB of zeros deflate about 1029:1
  NullReporter reporter;
  const auto result = install_wheel(wheel_file, scheme, options, reporter);
  CHECK(std::filesystem::file_size(scheme.purelib() / "demo/zeros.bin") == 16u << 20);
  CHECK(result.name == "demo");
}

TEST_CASE("not a wheel: file name and python version", "[install][crafted]") {
  TempDir dir("wheelmod-install");
  const auto wheel_file = make_wheel("good", dir.path() / "in");
  const auto renamed = dir.path() / "demo.zip";
  std::filesystem::rename(wheel_file, renamed);
  NullReporter reporter;
  const auto name = require_throws<UsageError>([&] {
    install_wheel(renamed, {dir.path() / "root", "3.11"}, {}, reporter);
  });
  CHECK_THAT(name.what(), Catch::Contains("invalid wheel file name 'demo.zip'"));
  std::filesystem::rename(renamed, wheel_file);
  const auto version = require_throws<UsageError>([&] {
    install_wheel(wheel_file, {dir.path() / "root", "3"}, {}, reporter);
  });
  CHECK_THAT(version.what(), Catch::Contains("python version '3'"));
  const auto missing = require_throws<IoError>([&] {
    install_wheel(dir.path() / "in/absent-1.0-py3-none-any.whl", {dir.path() / "root", "3.11"}, {},
                  reporter);
  });
  CHECK_THAT(missing.what(), Catch::Contains("cannot open"));
}

TEST_CASE("installing over an earlier install replaces files, never follows links",
          "[install][crafted]") {
  TempDir dir("wheelmod-install");
  const auto wheel_file = make_wheel("good", dir.path() / "in");
  const InstallScheme scheme{dir.path() / "root", "3.11"};
  NullReporter reporter;
  install_wheel(wheel_file, scheme, options_with(2), reporter);
  // A link left where a member goes must be replaced, not written through.
  const auto target = dir.path() / "outside.txt";
  dir.write("outside.txt", "keep me");
  std::filesystem::remove(scheme.purelib() / "demo/cli.py");
  std::filesystem::create_symlink(target, scheme.purelib() / "demo/cli.py");
  install_wheel(wheel_file, scheme, options_with(2), reporter);
  CHECK(read_file(target) == "keep me");
  CHECK_FALSE(std::filesystem::is_symlink(scheme.purelib() / "demo/cli.py"));
  CHECK_THAT(read_file(scheme.purelib() / "demo/cli.py"), Catch::Contains("def main"));
}
