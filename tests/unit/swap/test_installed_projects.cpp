// Installed distributions from dist-info and egg-info (setuptools' requires.txt sections), and
// where a prefix keeps its packages, on real directory trees.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "core/files.hpp"
#include "pep/marker.hpp"
#include "swap/installed_projects.hpp"

namespace fs = std::filesystem;
using wheelmod::swap::installed_projects;
using wheelmod::swap::parse_requires_txt;

namespace {

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

std::vector<std::string> applying(const std::vector<wheelmod::pep::Requirement>& requirements,
                                  std::string_view python) {
  const auto environment = wheelmod::pep::MarkerEnvironment::linux_cpython(python, "x86_64");
  std::vector<std::string> out;
  for (const auto& requirement : requirements)
    if (requirement.applies_to(environment)) out.push_back(requirement.str());
  return out;
}

}  // namespace

TEST_CASE("requires.txt sections, as importlib.metadata reads them", "[swap][metadata]") {
  const auto requirements = parse_requires_txt(
      "torch==2.6.0\n"
      "numpy>=1.20 ; python_version >= \"3.8\"\n"
      "\n"
      "[cuda]\n"
      "torch==9.9.9\n"
      "\n"
      "[:python_version < \"3\"]\n"
      "torch==0.4.0\n"
      "\n"
      "[:python_version >= \"3.11\"]\n"
      "tomli\n"
      "\n"
      "[docs:python_version >= \"3\"]\n"
      "sphinx\n");
  REQUIRE(requirements.size() == 6);
  // Without extras: the unconditional lines and the true marker sections only.
  CHECK(applying(requirements, "3.11") ==
        std::vector<std::string>{"torch==2.6.0", "numpy>=1.20; python_version >= \"3.8\"",
                                 "tomli; python_version >= \"3.11\""});
  CHECK(applying(requirements, "3.10") ==
        std::vector<std::string>{"torch==2.6.0", "numpy>=1.20; python_version >= \"3.8\""});
  CHECK(requirements[2].str() == "torch==9.9.9; extra == \"cuda\"");
}

TEST_CASE("installed projects from dist-info and egg-info", "[swap][metadata]") {
  const wheelmod::TemporaryDirectory work(fs::temp_directory_path(), "wheelmod-projects-", "");
  const auto site = work.path() / "lib" / "python3" / "dist-packages";
  write(site / "alpha-1.0.dist-info" / "METADATA",
        "Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\nRequires-Dist: torch>=2\n");
  write(site / "beta-0.3.egg-info" / "PKG-INFO",
        "Metadata-Version: 2.1\nName: beta\nVersion: 0.3\n");
  write(site / "beta-0.3.egg-info" / "requires.txt", "torch==2.6.0\n[extra]\ntorch==1.0\n");
  write(site / "gamma-2.0.egg-info", "Metadata-Version: 1.1\nName: gamma\nVersion: 2.0\n");
  write(site / "broken.dist-info" / "METADATA", "not metadata");
  const auto projects = installed_projects(site);
  REQUIRE(projects.size() == 3);
  CHECK(projects[0].name == "alpha");
  CHECK(projects[0].requirements.size() == 1);
  CHECK(projects[1].name == "beta");
  CHECK(projects[1].version == "0.3");
  CHECK(projects[1].metadata == "beta-0.3.egg-info");
  CHECK(applying(projects[1].requirements, "3.11") == std::vector<std::string>{"torch==2.6.0"});
  CHECK(projects[2].name == "gamma");  // an egg-info file: PKG-INFO itself
  CHECK(projects[2].requirements.empty());

  // Debian's layout: lib/python3/dist-packages beside lib/python3.11.
  fs::create_directories(work.path() / "lib" / "python3.11");
  fs::create_directories(work.path() / "lib" / "python3.9");
  CHECK(wheelmod::swap::python_directories(work.path()) == std::vector<fs::path>{site});
  CHECK(wheelmod::swap::python_of(site) == "3.11");
}
