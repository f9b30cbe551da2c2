// The module writer: quoting for Lua and Tcl (hostile text included),
// EasyBuild's names and help layout, what it reads from a prefix, the
// rendered shipped templates, and the atomic write into a module tree.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "emit/module_writer.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace wheelmod::emit;
using wheelmod::ExitCode;
using wheelmod::UsageError;

namespace {

const fs::path k_templates = fs::path(WHEELMOD_CONFIG_DIR).parent_path() / "templates";

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// <tmp>/software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl as `wheelmod
// install` leaves it: provenance, dist-infos, a console script.
struct Installation {
  wheelmod::test::TempDir dir{"wheelmod-module"};
  fs::path prefix = dir.path() / "software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl";
  fs::path site = prefix / "lib/python3.12/site-packages";
  nlohmann::json provenance{
      {"schema_version", 1},
      {"toolchain", "foss-2024a"},
      {"toolchain_module", "foss/2024a"},
      {"python", "3.12"},
      {"python_module", "Python/3.12.3-GCCcore-13.3.0"},
      {"cuda_module", "CUDA/12.6.0"},
      {"site_packages", "lib/python3.12/site-packages"},
      {"modules",
       {"CUDA/12.6.0", "NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0", "Python/3.12.3-GCCcore-13.3.0",
        "SciPy-bundle/2024.05-gfbf-2024a", "cuDNN/9.5.0.50-CUDA-12.6.0"}},
      {"installed",
       {{{"name", "torch"},
         {"version", "2.6.0+cu126"},
         {"dist_info", "lib/python3.12/site-packages/torch-2.6.0+cu126.dist-info"}},
        {{"name", "sympy"},
         {"version", "1.13.1"},
         {"dist_info", "lib/python3.12/site-packages/sympy-1.13.1.dist-info"}}}}};

  Installation() {
    write(site / "torch-2.6.0+cu126.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0+cu126\nSummary: Tensors and "
          "Dynamic neural networks in Python with strong GPU acceleration\nHome-page: "
          "https://pytorch.org/\n");
    write(site / "sympy-1.13.1.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: sympy\nVersion: 1.13.1\nSummary: Computer algebra\n");
    write(prefix / "bin/torchrun", "#!python\n");
    save();
  }
  void save() const { write(prefix / "easybuild/wheelmod-install.json", provenance.dump()); }
  [[nodiscard]] ModuleRequest request() const {
    ModuleRequest out;
    out.prefix = prefix;
    out.generator = "wheelmod 9.9";
    return out;
  }
};

}  // namespace

TEST_CASE("Lua long strings hold any text, the closing bracket included", "[emit][module]") {
  struct Case {
    std::string text, literal;
  };
  const std::vector<Case> cases{
      {"plain", "[==[plain]==]"},
      {"a]]b", "[==[a]]b]==]"},
      {"a]==]b", "[===[a]==]b]===]"},
      {"ends in ]==", "[===[ends in ]==]===]"},  // "]==" + "]==]" would close early
      {"]==]]===]", "[====[]==]]===]]====]"},
      {"\nfirst newline", "[==[\n\nfirst newline]==]"},  // Lua drops the first one
      {"$HOME {x} \"q\" \\", "[==[$HOME {x} \"q\" \\]==]"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(lua_long_string(c.text) == c.literal);
  }
}

TEST_CASE("Lua and Tcl quoted strings escape what the language substitutes", "[emit][module]") {
  CHECK(lua_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(lua_string("x\ny\x01"
                   "2") == "\"x\\ny\\0012\"");  // \001 then a digit: three digits
  CHECK(tcl_quoted("$HOME [exec rm] \"q\" \\ {b}") ==
        "\"\\$HOME \\[exec rm\\] \\\"q\\\" \\\\ \\{b\\}\"");
  CHECK(tcl_quoted("tab\there\nnew") == "\"tab\\there\nnew\"");
  CHECK(tcl_quoted(std::string("bell\a")) == "\"bell\\007\"");
  CHECK(tcl_word("foss/2024a") == "foss/2024a");
  CHECK(tcl_word("torch/2.6.0+cu126") == "torch/2.6.0+cu126");
  CHECK(tcl_word("/opt/my apps") == "\"/opt/my apps\"");
  CHECK(tcl_word("") == "\"\"");
  CHECK(tcl_word("a;b") == "\"a;b\"");
}

TEST_CASE("Tcl help and whatis text goes in braces unless braces would break", "[emit][module]") {
  CHECK(tcl_text("Homepage: https://pytorch.org/") == "{Homepage: https://pytorch.org/}");
  CHECK(tcl_text("[y] $HOME\nline two") ==
        "{[y] $HOME\nline two}");  // nothing substituted in braces
  CHECK(tcl_text("unbalanced }{") == "\"unbalanced \\}\\{\"");
  CHECK(tcl_text("back\\slash") == "\"back\\\\slash\"");
}

TEST_CASE("EBVERSION is the version part of the module's version", "[emit][module]") {
  CHECK(module_version("2.6.0-foss-2024a-CUDA-12.6.0-whl", "foss-2024a", "2.6.0+cu126") == "2.6.0");
  CHECK(module_version("2.6.0-whl", "foss-2024a", "2.6.0+cu126") == "2.6.0");
  CHECK(module_version("2024.06-foss-2024a", "foss-2024a", "2.6.0") == "2024.06");
  CHECK(module_version("-foss-2024a", "foss-2024a", "1.0+cpu") == "1.0");
}

TEST_CASE("describe_installation reads provenance, metadata and the prefix", "[emit][module]") {
  const Installation install;
  const auto description = describe_installation(install.request());
  CHECK(description.identity.name == "PyTorch");
  CHECK(description.identity.full_version == "2.6.0-foss-2024a-CUDA-12.6.0-whl");
  CHECK(description.version == "2.6.0");
  CHECK(description.root == install.prefix.string());
  CHECK(description.homepage == "https://pytorch.org/");
  CHECK(description.description ==
        "Tensors and Dynamic neural networks in Python with strong GPU acceleration\n"
        "This module provides the official wheels of PyTorch");
  // toolchain, Python, CUDA, then the rest case-insensitively, each once.
  CHECK(description.dependencies ==
        std::vector<std::string>{"foss/2024a", "Python/3.12.3-GCCcore-13.3.0", "CUDA/12.6.0",
                                 "cuDNN/9.5.0.50-CUDA-12.6.0",
                                 "NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0",
                                 "SciPy-bundle/2024.05-gfbf-2024a"});
  REQUIRE(description.paths.size() == 2);
  CHECK(description.paths[0].variable == "CMAKE_PREFIX_PATH");
  CHECK(description.paths[1].variable == "PATH");
  CHECK(description.python_path.variable == "PYTHONPATH");
  CHECK(description.python_path.components ==
        std::vector<std::string>{"lib", "python3.12", "site-packages"});
  CHECK(description.warnings.empty());
}

TEST_CASE("describe_installation follows the options and the prefix's contents", "[emit][module]") {
  Installation install;
  fs::remove(install.prefix / "bin/torchrun");  // an empty bin/ is not put on PATH
  write(install.site / "distutils-precedence.pth", "import os\n");
  install.provenance["python"] = "3.11";
  install.save();
  auto request = install.request();
  request.origin = "pytorch.org";
  auto description = describe_installation(request);
  CHECK(description.paths.size() == 1);
  CHECK(description.python_path.variable == "EBPYTHONPREFIXES");
  CHECK(description.python_path.components.empty());
  CHECK(description.description.ends_with("wheels of PyTorch from pytorch.org"));
  REQUIRE(description.warnings.size() == 1);
  CHECK_THAT(description.warnings[0], Catch::Contains("distutils-precedence.pth"));
  // Apart from the warnings: `module` refuses it without --force, install warns.
  CHECK_THAT(description.python_mismatch, Catch::Contains("installed for Python 3.11"));

  request.python_search_path = PythonSearchPath::pythonpath;
  request.name = "torch";  // the wheel named like the module is the main one
  request.description = "Own text.";
  description = describe_installation(request);
  CHECK(description.python_path.variable == "PYTHONPATH");
  CHECK(description.identity.name == "torch");
  CHECK(description.description == "Own text.");
  CHECK(description.dependencies.front() == "foss/2024a");
}

TEST_CASE("a prefix without provenance, or a broken one, is a usage error", "[emit][module]") {
  Installation install;
  auto request = install.request();
  request.prefix = install.prefix.parent_path();  // holds no easybuild/wheelmod-install.json
  try {
    (void)describe_installation(request);
    FAIL("no error");
  } catch (const UsageError& error) {
    CHECK(error.code() == ExitCode::usage);
    CHECK_THAT(error.hint(), Catch::Contains("wheelmod install"));
  }
  install.provenance["installed"][0]["dist_info"] = "../../../../etc";
  install.save();
  CHECK_THROWS_AS(describe_installation(install.request()), UsageError);
  install.provenance["schema_version"] = 2;
  install.save();
  CHECK_THROWS_AS(describe_installation(install.request()), UsageError);
  auto bad_name = install.request();
  bad_name.name = "has space";
  CHECK_THROWS_AS(module_identity(bad_name), UsageError);
}

TEST_CASE("the help text has EasyBuild's sections and wraps the extensions", "[emit][module]") {
  ModuleDescription description;
  description.description = "  One line.\n";
  description.homepage = "https://example.org";
  for (int i = 0; i < 12; ++i)
    description.extensions.push_back({"package" + std::to_string(i), "1.0." + std::to_string(i)});
  description.extensions.push_back({"Alpha", "1"});
  const std::string help = help_text(description);
  CHECK(help.starts_with(
      "\nDescription\n===========\nOne line.\n\n\nMore information\n================\n"
      " - Homepage: https://example.org\n\n\nIncluded extensions\n===================\n"
      "Alpha-1, package0-1.0.0, package1-1.0.1, package10-1.0.10, package11-1.0.11,\n"
      "package2-1.0.2,"));
  CHECK(help.ends_with("package9-1.0.9\n"));
}

TEST_CASE("the shipped Lua template renders hostile text that Lua reads back", "[emit][module]") {
  const Installation install;
  auto request = install.request();
  request.description = "a ]==] b {x} [y] $HOME \"q\" \\\nsecond line";
  const auto description = describe_installation(request);
  const TemplateSet templates(k_templates);
  const std::string lua = render_module(description, ModuleSyntax::lua, templates);
  CHECK_THAT(lua, Catch::StartsWith("help([===[\n\nDescription\n===========\na ]==] b {x}"));
  CHECK_THAT(lua, Catch::Contains("whatis([===[Description: a ]==] b {x} [y] $HOME \"q\" \\\n"
                                  "second line]===])\n"));
  CHECK_THAT(lua, Catch::Contains("\nlocal root = \"" + install.prefix.string() + "\"\n"));
  CHECK_THAT(lua, Catch::Contains("extensions(\"sympy/1.13.1,torch/2.6.0+cu126\")"));
  CHECK_THAT(lua, Catch::Contains("\n\ndepends_on(\"foss/2024a\")\n\ndepends_on(\"Python/"));
  CHECK_THAT(
      lua, Catch::Contains("prepend_path(\"PATH\", pathJoin(root, \"bin\"))\n"
                           "setenv(\"EBROOTPYTORCH\", root)\n"
                           "setenv(\"EBVERSIONPYTORCH\", \"2.6.0\")\n\n"
                           "prepend_path(\"PYTHONPATH\", pathJoin(root, \"lib\", "
                           "\"python3.12\", \"site-packages\"))\n"
                           "-- Generated by wheelmod 9.9\n"
                           "setenv(\"EBEXTSLISTPYTORCH\", \"torch-2.6.0+cu126,sympy-1.13.1\")\n"));
  const std::string tcl = render_module(description, ModuleSyntax::tcl, templates);
  CHECK_THAT(tcl, Catch::StartsWith("#%Module\nproc ModulesHelp { } {\n    puts stderr \"\n\n"));
  CHECK_THAT(tcl, Catch::Contains("module-whatis \"Description: a \\]==\\] b \\{x\\} \\[y\\] "
                                  "\\$HOME \\\"q\\\" \\\\\nsecond line\"\n"));
  CHECK_THAT(tcl, Catch::Contains("\nconflict PyTorch\n"));
  CHECK_THAT(tcl, Catch::Contains("prepend-path\tPATH\t\t$root/bin\n"
                                  "setenv\tEBROOTPYTORCH\t\t\"$root\"\n"));
  CHECK_THAT(tcl,
             Catch::Contains("setenv\tEBEXTSLISTPYTORCH\t\t\"torch-2.6.0+cu126,sympy-1.13.1\""));
}

TEST_CASE("Tcl text Lmod could not convert gets a space", "[emit][module]") {
  const Installation install;
  auto request = install.request();
  request.description = "x ]===] y ]===";
  const auto tcl =
      render_module(describe_installation(request), ModuleSyntax::tcl, TemplateSet(k_templates));
  // A space after the "]" of every "]===": Lmod's module-whatis trims trailing blanks before it
  // appends "]===]", so "]=== " at the end would still close the long string early.
  CHECK_THAT(tcl, Catch::Contains("module-whatis {Description: x ] ===] y ] ===}\n"));
}

TEST_CASE("what Lmod's tcl2lua pastes into Lua unquoted is never written into a Tcl module",
          "[emit][module]") {
  CHECK(lmod_tcl_pasteable("/apps/software/PyTorch/2.6.0-foss-2024a"));
  for (const std::string_view bad : {"/a\"b", "/a\\b", "/a\nb", "/a\rb", "/a\x1b[2Jb"})
    CHECK_FALSE(lmod_tcl_pasteable(bad));
  CHECK(lmod_tcl_extension_item("torch/2.6.0+cu126"));
  CHECK(lmod_tcl_extension_item("pkg/1!2.0.post1"));
  for (const std::string_view bad : {"x/1[exec id]", "x/$HOME", "x/1 2", "x/1,2", "x/{1}", ""})
    CHECK_FALSE(lmod_tcl_extension_item(bad));

  const Installation install;
  auto description = describe_installation(install.request());
  description.root = "/apps/a\"}os.execute(\"id\")--";
  CHECK_THROWS_AS(render_module(description, ModuleSyntax::tcl, TemplateSet(k_templates)),
                  UsageError);
  const auto lua = render_module(description, ModuleSyntax::lua, TemplateSet(k_templates));
  CHECK_THAT(lua, Catch::Contains(R"(local root = "/apps/a\"}os.execute(\"id\")--")"));

  description = describe_installation(install.request());
  description.extensions.push_back({"evil", "1[exec touch x]"});
  const auto tcl = render_module(description, ModuleSyntax::tcl, TemplateSet(k_templates));
  const auto extensions = tcl.substr(tcl.find("    extensions "));
  CHECK_THAT(extensions.substr(0, extensions.find('\n')), !Catch::Contains("evil"));
  CHECK_THAT(tcl, Catch::Contains("evil-1\\[exec touch x\\]"));  // EBEXTSLIST, quoted for Tcl
}

TEST_CASE("the module lands atomically in the EasyBuild module tree", "[emit][module]") {
  const Installation install;
  const auto modulepath = default_modulepath(install.prefix);
  REQUIRE(modulepath);
  CHECK(*modulepath == install.dir.path() / "modules");
  CHECK_FALSE(default_modulepath(install.dir.path() / "elsewhere/PyTorch/1.0"));
  const ModuleIdentity identity{"PyTorch", "2.6.0-whl", ""};
  const auto lua = module_target(identity, *modulepath, "ai", ModuleSyntax::lua);
  CHECK(lua.file == *modulepath / "all/PyTorch/2.6.0-whl.lua");
  CHECK(lua.symlink == *modulepath / "ai/PyTorch/2.6.0-whl.lua");
  CHECK(lua.link_to == "../../all/PyTorch/2.6.0-whl.lua");
  CHECK_THROWS_AS(module_target(identity, *modulepath, "all", ModuleSyntax::lua), UsageError);
  CHECK_THROWS_AS(module_target(identity, *modulepath, "a/b", ModuleSyntax::lua), UsageError);
  CHECK(module_target(identity, *modulepath, "ai", ModuleSyntax::tcl).file ==
        *modulepath / "all/PyTorch/2.6.0-whl");

  write_module(lua, "first\n", ReplaceModule::no);
  CHECK(read(lua.file) == "first\n");
  CHECK(fs::read_symlink(lua.symlink) == lua.link_to);
  CHECK(read(lua.symlink) == "first\n");
  try {
    write_module(lua, "second\n", ReplaceModule::no);
    FAIL("no error");
  } catch (const UsageError& error) {
    CHECK(error.code() == ExitCode::usage);
    CHECK_THAT(error.hint(), Catch::Contains("--force"));
  }
  CHECK(read(lua.file) == "first\n");
  write_module(lua, "second\n", ReplaceModule::yes);
  CHECK(read(lua.file) == "second\n");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(lua.file.parent_path()))
    names.push_back(entry.path().filename().string());
  CHECK(names == std::vector<std::string>{"2.6.0-whl.lua"});  // no temporary file left

  // A moduleclass link that points elsewhere is not taken over silently.
  const auto other = module_target({"PyTorch", "other", ""}, *modulepath, "ai", ModuleSyntax::lua);
  fs::create_symlink("../../all/Foo/1.lua", other.symlink);
  CHECK_THROWS_AS(write_module(other, "x\n", ReplaceModule::no), UsageError);
  CHECK_FALSE(fs::exists(other.file));
  write_module(other, "x\n", ReplaceModule::yes);
  CHECK(fs::read_symlink(other.symlink) == other.link_to);
}
