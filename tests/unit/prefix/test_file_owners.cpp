// Which wheel of an install owns a path several ship (src/prefix/file_owners.hpp): real dist-info
// directories with RECORD files on disk, settled as install_into_prefix settles them.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "pep/record.hpp"
#include "prefix/file_owners.hpp"
#include "recording_reporter.hpp"
#include "temp_dir.hpp"

using namespace wheelmod;
namespace fs = std::filesystem;

namespace {

const fs::path k_site = "lib/python3.12/site-packages";

pep::RecordEntry row(std::string path, std::uint8_t byte, std::uint64_t size) {
  return {std::move(path), pep::RecordHash{"sha256", std::vector<std::uint8_t>(32, byte)}, size};
}

// A wheel as the installer leaves it: its dist-info with a RECORD of `rows` (and its own row).
wheel::InstalledWheel installed(const fs::path& root, const std::string& name,
                                std::vector<pep::RecordEntry> rows) {
  const auto dist_info = k_site / (name + "-1.0.dist-info");
  fs::create_directories(root / dist_info);
  auto on_disk = rows;
  on_disk.push_back({name + "-1.0.dist-info/RECORD", std::nullopt, std::nullopt});
  std::ofstream(root / dist_info / "RECORD") << pep::write_record(on_disk);
  return {name, "1.0", dist_info, std::move(rows), 0, 0};
}

std::set<std::string> record_paths(const fs::path& root, const wheel::InstalledWheel& wheel) {
  const auto parsed = pep::parse_record(read_file(root / wheel.dist_info / "RECORD"));
  REQUIRE(parsed);
  std::set<std::string> out;
  for (const auto& entry : *parsed) out.insert(entry.path);
  return out;
}

}  // namespace

TEST_CASE("settle_file_owners: a clash is refused unless one wheel is named the winner",
          "[prefix][file_owners]") {
  const test::TempDir directory("wheelmod-owners");
  const auto root = directory.path();
  const auto site = root / k_site;
  test::RecordingReporter reporter;
  std::vector<wheel::InstalledWheel> wheels{
      installed(root, "alpha", {row("shared/x.py", 0xAA, 6), row("alpha/a.py", 1, 3)}),
      installed(root, "beta", {row("shared/x.py", 0xBB, 6), row("beta/b.py", 2, 3)})};

  SECTION("no winner: exit 5 naming the path and both wheels; nothing changes") {
    try {
      prefix::settle_file_owners(wheels, root, site, {}, reporter);
      FAIL("a clash was accepted");
    } catch (const IntegrityError& error) {
      CHECK(error.subject() == k_site.generic_string() + "/shared/x.py");
      CHECK_THAT(error.cause(), Catch::Contains("alpha 1.0") && Catch::Contains("beta 1.0"));
      CHECK_THAT(error.hint(), Catch::Contains("--clash-winner"));
    }
    CHECK(record_paths(root, wheels[0]).contains("shared/x.py"));
  }
  SECTION("the later wheel wins: the earlier's row goes, on disk and in memory, with a warning") {
    prefix::settle_file_owners(wheels, root, site, {"beta"}, reporter);
    CHECK_FALSE(record_paths(root, wheels[0]).contains("shared/x.py"));
    CHECK(record_paths(root, wheels[0]).contains("alpha/a.py"));
    CHECK(record_paths(root, wheels[1]).contains("shared/x.py"));
    CHECK(wheels[0].record.size() == 1);
    REQUIRE(reporter.warnings.size() == 1);
    CHECK_THAT(reporter.warnings[0], Catch::Contains("beta's is kept"));
  }
  SECTION("the earlier wheel named the winner is refused: its file is not the one on disk") {
    CHECK_THROWS_AS(prefix::settle_file_owners(wheels, root, site, {"alpha"}, reporter),
                    IntegrityError);
  }
}

TEST_CASE("settle_file_owners: the same bytes at one path are no clash", "[prefix][file_owners]") {
  const test::TempDir directory("wheelmod-owners");
  const auto root = directory.path();
  test::RecordingReporter reporter;
  std::vector<wheel::InstalledWheel> wheels{installed(root, "alpha", {row("ns/__init__.py", 0, 0)}),
                                            installed(root, "beta", {row("ns/__init__.py", 0, 0)})};
  prefix::settle_file_owners(wheels, root, root / k_site, {}, reporter);
  CHECK(record_paths(root, wheels[0]).contains("ns/__init__.py"));
  CHECK(record_paths(root, wheels[1]).contains("ns/__init__.py"));
  CHECK(reporter.warnings.empty());
}

TEST_CASE("settle_file_owners: no wheel may write into PREFIX/easybuild", "[prefix][file_owners]") {
  const test::TempDir directory("wheelmod-owners");
  const auto root = directory.path();
  test::RecordingReporter reporter;
  std::vector<wheel::InstalledWheel> wheels{
      installed(root, "alpha", {row("../../../easybuild/wheelmod-install.json", 1, 2)})};
  CHECK_THROWS_AS(prefix::settle_file_owners(wheels, root, root / k_site, {}, reporter),
                  IntegrityError);
}

TEST_CASE("unpack_order puts the clash winners last, the rest as given", "[prefix][file_owners]") {
  const std::vector<fs::path> wheels{"/w/beta-1.0-py3-none-any.whl",
                                     "/w/alpha-1.0-py3-none-any.whl",
                                     "/w/gamma-1.0-py3-none-any.whl"};
  CHECK(prefix::unpack_order(wheels, {}) == wheels);
  CHECK(prefix::unpack_order(wheels, {"beta"}) ==
        std::vector<fs::path>{"/w/alpha-1.0-py3-none-any.whl", "/w/gamma-1.0-py3-none-any.whl",
                              "/w/beta-1.0-py3-none-any.whl"});
}
