// Start-up code among a wheel's entry names: what site.py runs (a .pth file's `import` lines,
// sitecustomize, usercustomize: https://docs.python.org/3/library/site.html) and the top-level
// modules that shadow the standard library (sys.stdlib_module_names of the target Python).
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "wheel/startup_code.hpp"

namespace {

using wheelmod::wheel::is_stdlib_module;
using wheelmod::wheel::startup_code;
using wheelmod::wheel::StartupFile;
using Kind = StartupFile::Kind;

// (site-packages path, kind) of each finding, in entry order.
std::vector<std::pair<std::string, Kind>> found(const std::vector<std::string>& entries,
                                                std::string_view python = "3.13") {
  std::vector<std::pair<std::string, Kind>> out;
  for (const auto& file : startup_code(entries, python)) out.emplace_back(file.path, file.kind);
  return out;
}

using Found = std::vector<std::pair<std::string, Kind>>;

}  // namespace

TEST_CASE("start-up code at the top of site-packages", "[wheel][startup]") {
  const std::vector<std::string> entries{
      "sitecustomize.py",           "usercustomize.py", "json.py",
      "distutils-precedence.pth",   "evil/__init__.py", "evil-1.0.dist-info/RECORD",
      "evil-1.0.dist-info/METADATA"};
  CHECK(found(entries) == Found{{"sitecustomize.py", Kind::sitecustomize},
                                {"usercustomize.py", Kind::usercustomize},
                                {"json.py", Kind::stdlib_shadow},
                                {"distutils-precedence.pth", Kind::pth_file}});
  const auto files = startup_code(entries, "3.13");
  CHECK(files[0].module == "sitecustomize");
  CHECK(files[2].module == "json");
  CHECK(files[2].entry == "json.py");
  CHECK(files[3].module.empty());
}

TEST_CASE("every form Python imports a module in", "[wheel][startup]") {
  // importlib's FileFinder: packages, then EXTENSION_SUFFIXES, .py, .pyc.
  CHECK(found({"json/__init__.py", "json/decoder.py"}) ==
        Found{{"json/__init__.py", Kind::stdlib_shadow}});
  CHECK(found({"sitecustomize/__init__.py", "sitecustomize/hook.py"}) ==
        Found{{"sitecustomize/__init__.py", Kind::sitecustomize}});
  CHECK(found({"sitecustomize.pyc"}) == Found{{"sitecustomize.pyc", Kind::sitecustomize}});
  CHECK(found({"sitecustomize.so"}) == Found{{"sitecustomize.so", Kind::sitecustomize}});
  CHECK(found({"enum.abi3.so"}) == Found{{"enum.abi3.so", Kind::stdlib_shadow}});
  CHECK(found({"_ssl.cpython-313-x86_64-linux-gnu.so"}) ==
        Found{{"_ssl.cpython-313-x86_64-linux-gnu.so", Kind::stdlib_shadow}});
  CHECK(found({"typing/__init__.cpython-313-x86_64-linux-gnu.so"}) ==
        Found{{"typing/__init__.cpython-313-x86_64-linux-gnu.so", Kind::stdlib_shadow}});
  CHECK(found({"_ssl.cpython-313t-x86_64-linux-gnu.so"}, "3.13t").size() == 1);
  // An extension tagged for another Python is not loaded by this one.
  CHECK(found({"_ssl.cpython-312-x86_64-linux-gnu.so", "json.cpython-3130-x86_64-linux-gnu.so"})
            .empty());
  CHECK(found({"json.pyi", "json.py.txt", "json.so.1", "sitecustomize.txt"}).empty());
}

TEST_CASE("entries that are not start-up code", "[wheel][startup]") {
  // Nested: not at the top of site-packages.
  CHECK(found({"pkg/__init__.py", "pkg/json.py", "pkg/sitecustomize.py", "pkg/x.pth",
               "pkg/json/__init__.py", "a/b/__init__.py"})
            .empty());
  // Namespace portions (no __init__) shadow nothing and run nothing; directory entries alone.
  CHECK(found({"json/decoder.py", "sitecustomize/hook.py", "json/", "typing/"}).empty());
  // Names that are no standard library module, or not in this case (Linux compares bytes).
  CHECK(found({"typing_extensions.py", "JSON.py", "Sitecustomize.py", "SITECUSTOMIZE.py",
               "Json/__init__.py", "x.PTH", "x.pth.bak"})
            .empty());
  // The dist-info is no module; nor are scripts, headers and data outside site-packages.
  CHECK(found({"x-1.0.dist-info/json.py", "x-1.0.dist-info/x.pth", "x-1.0.data/scripts/json.py",
               "x-1.0.data/headers/json.py", "x-1.0.data/data/json.py",
               "x-1.0.data/data/share/x.pth", "x-1.0.dist-info/RECORD"})
            .empty());
}

TEST_CASE("the .data directory's purelib and platlib are site-packages (PEP 427)",
          "[wheel][startup]") {
  const std::vector<std::string> entries{"x-1.0.data/purelib/sitecustomize.py",
                                         "x-1.0.data/platlib/json/__init__.py",
                                         "x-1.0.data/purelib/hook.pth",
                                         "x-1.0.data/purelib/pkg/json.py",
                                         "x-1.0.data/data/lib/python3.13/site-packages/a.pth",
                                         "x-1.0.data/data/lib/python3.12/site-packages/b.pth",
                                         "x-1.0.dist-info/RECORD"};
  CHECK(found(entries) == Found{{"sitecustomize.py", Kind::sitecustomize},
                                {"json/__init__.py", Kind::stdlib_shadow},
                                {"hook.pth", Kind::pth_file},
                                {"a.pth", Kind::pth_file}});
  CHECK(startup_code(entries, "3.13").front().entry == "x-1.0.data/purelib/sitecustomize.py");
  // Another project's .data directory is an ordinary directory of site-packages.
  CHECK(found({"other-2.0.data/purelib/json.py", "x-1.0.dist-info/RECORD"}).empty());
  // Without a dist-info among the names, any top-level *.data is taken for the wheel's.
  CHECK(found({"y-2.0.data/purelib/json.py"}) == Found{{"json.py", Kind::stdlib_shadow}});
}

TEST_CASE(".pth files, hidden ones as each Python's site.py reads them", "[wheel][startup]") {
  // Real wheels ship .pth files: setuptools' distutils-precedence.pth, editable installs'
  // __editable__.*.pth, coverage's; each is start-up code all the same.
  CHECK(found({"distutils-precedence.pth", "__editable__.x-1.0.pth"}) ==
        Found{{"distutils-precedence.pth", Kind::pth_file},
              {"__editable__.x-1.0.pth", Kind::pth_file}});
  // site.addsitedir skips names that start with a dot from 3.13 (gh-113659), not before.
  CHECK(found({".hidden.pth"}, "3.13").empty());
  CHECK(found({".hidden.pth"}, "3.14").empty());
  CHECK(found({".hidden.pth"}, "3.12") == Found{{".hidden.pth", Kind::pth_file}});
}

TEST_CASE("the target Python's standard library decides what shadows", "[wheel][stdlib]") {
  // sys.stdlib_module_names of 3.10-3.13 (pyenv's 3.10.13, 3.11.7, 3.12.1, 3.13.0).
  struct Row {
    const char* name;
    const char* python;
    bool stdlib;
  };
  const Row rows[] = {
      {"json", "3.13", true},
      {"typing", "3.10", true},
      {"_json", "3.13", true},
      {"__future__", "3.12", true},
      {"tomllib", "3.10", false},
      {"tomllib", "3.11", true},
      {"distutils", "3.11", true},
      {"distutils", "3.12", false},
      {"imp", "3.11", true},
      {"imp", "3.12", false},
      {"telnetlib", "3.12", true},
      {"telnetlib", "3.13", false},
      {"_pyrepl", "3.12", false},
      {"_pyrepl", "3.13", true},
      {"annotationlib", "3.13", false},
      {"annotationlib", "3.14", true},
      {"compression", "3.14", true},
      {"binhex", "3.10", true},
      {"binhex", "3.11", false},
      {"winreg", "3.13", true},
      {"typing_extensions", "3.13", false},
      {"sitecustomize", "3.13", false},
      {"_distutils_hack", "3.13", false},
      {"torch", "3.13", false},
      {"cProfile", "3.13", true},
      {"zoneinfo", "3.13", true},
      {"Json", "3.13", false},
      {"json ", "3.13", false},
      // Before 3.10: each version's own standard library (pyenv's 3.6.15-3.9.18).
      {"dataclasses", "3.6", false},
      {"dataclasses", "3.7", true},
      {"zoneinfo", "3.8", false},
      {"zoneinfo", "3.9", true},
      {"formatter", "3.9", true},
      {"formatter", "3.10", false},
      {"_hashlib", "3.6", true},
      {"asyncio", "3.6", true},
      // The free-threaded build has the same library; a newer Python than the table, the newest.
      {"tomllib", "3.13t", true},
      {"distutils", "3.13t", false},
      {"compression", "3.15", true},
      {"imp", "3.15", false},
      {"formatter", "3.5", true},
      {"dataclasses", "3.5", false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name, row.python);
    CHECK(is_stdlib_module(row.name, row.python) == row.stdlib);
  }
  CHECK(found({"tomllib.py", "distutils/__init__.py"}, "3.11") ==
        Found{{"tomllib.py", Kind::stdlib_shadow}, {"distutils/__init__.py", Kind::stdlib_shadow}});
  CHECK(found({"tomllib.py", "distutils/__init__.py"}, "3.10") ==
        Found{{"distutils/__init__.py", Kind::stdlib_shadow}});
  CHECK(found({"tomllib.py", "distutils/__init__.py"}, "3.12") ==
        Found{{"tomllib.py", Kind::stdlib_shadow}});
}

TEST_CASE("describe says why each kind matters", "[wheel][startup]") {
  const auto files = startup_code(
      std::vector<std::string>{"a.pth", "sitecustomize.py", "usercustomize.py", "json.py"}, "3.13");
  REQUIRE(files.size() == 4);
  CHECK(describe(files[0]).find("`import`") != std::string::npos);
  CHECK(describe(files[1]).find("every start-up") != std::string::npos);
  CHECK(describe(files[2]).find("usercustomize") != std::string::npos);
  CHECK(describe(files[3]) ==
        "shadows the standard library's json: on PYTHONPATH every `import json` finds it first");
}
