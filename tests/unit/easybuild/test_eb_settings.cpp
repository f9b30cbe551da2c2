// EasyBuild's configuration as `eb` reads it: files in easybuild-framework's order
// (easybuild/tools/options.py DEFAULT_SYS_CFGFILES reversed, then DEFAULT_USER_CFGFILE), the
// EASYBUILD_* variables over them, install_path() and det_lock_path() defaults.
#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "easybuild/eb_settings.hpp"

using namespace wheelmod;
using namespace wheelmod::easybuild;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

Getenv environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("parse_config_file reads eb's INI files", "[easybuild][settings]") {
  std::string error;
  const auto parsed = parse_config_file(
      "# site settings\n[config]\ninstallpath = /apps/eb\nmodule_syntax: Lua\n\n[override]\n"
      "; a comment\nLOCKS-DIR = /apps/locks\n",
      error);
  REQUIRE(parsed);
  CHECK(parsed->at("installpath") == std::pair<std::string, std::string>{"/apps/eb", "config"});
  CHECK(parsed->at("module-syntax").first == "Lua");
  CHECK(parsed->at("locks-dir") == std::pair<std::string, std::string>{"/apps/locks", "override"});
  CHECK_FALSE(parse_config_file("[config\n", error));
  CHECK_THAT(error, Catch::Contains("line 1"));
  CHECK_FALSE(parse_config_file("[config]\njust words\n", error));
  CHECK_THAT(error, Catch::Contains("line 2"));
}

TEST_CASE("EasyBuildSettings: files in eb's order, the environment over them",
          "[easybuild][settings]") {
  const TemporaryDirectory root(fs::temp_directory_path(), "wheelmod-eb-settings-");
  const auto dir = root.path();
  // Two XDG_CONFIG_DIRS entries: the first one wins over the second; within one, sorted names,
  // the later file winning; the user file over all of them.
  write(dir / "xdg1/easybuild.d/a.cfg", "[config]\ninstallpath = /from/xdg1-a\n");
  write(dir / "xdg1/easybuild.d/b.cfg", "[config]\ninstallpath = /from/xdg1-b\n");
  write(dir / "xdg2/easybuild.d/a.cfg",
        "[config]\ninstallpath = /from/xdg2\nsourcepath = /from/xdg2/sources\n");
  write(dir / "home/easybuild/config.cfg", "[config]\nmodule-naming-scheme = HierarchicalMNS\n");
  std::map<std::string, std::string> values{
      {"HOME", (dir / "user").string()},
      {"XDG_CONFIG_DIRS", (dir / "xdg1").string() + ":" + (dir / "xdg2").string()},
      {"XDG_CONFIG_HOME", (dir / "home").string()}};
  auto settings = EasyBuildSettings::read(environment(values));
  CHECK(settings.get("installpath")->value == "/from/xdg1-b");
  CHECK(settings.get("installpath")->origin ==
        (dir / "xdg1/easybuild.d/b.cfg").string() + " [config]");
  CHECK(settings.get("sourcepath")->value == "/from/xdg2/sources");
  CHECK(settings.get("module-naming-scheme")->value == "HierarchicalMNS");
  CHECK(settings.files().size() == 4);
  CHECK(settings.software_path().value == "/from/xdg1-b/software");
  CHECK(settings.modules_path().value == "/from/xdg1-b/modules");
  CHECK(settings.locks_dir().value == "/from/xdg1-b/software/.locks");

  values["EASYBUILD_INSTALLPATH"] = "/from/env";
  values["EASYBUILD_INSTALLPATH_MODULES"] = "~/modules";
  settings = EasyBuildSettings::read(environment(values));
  CHECK(settings.get("installpath")->origin == "$EASYBUILD_INSTALLPATH");
  CHECK(settings.software_path().value == "/from/env/software");
  CHECK(settings.modules_path().value == (dir / "user").string() + "/modules");

  // EASYBUILD_CONFIGFILES replaces the default list; a missing file is an error, as in eb.
  values = {{"HOME", (dir / "user").string()},
            {"EASYBUILD_CONFIGFILES", (dir / "xdg2/easybuild.d/a.cfg").string()}};
  settings = EasyBuildSettings::read(environment(values));
  CHECK(settings.get("installpath")->value == "/from/xdg2");
  values["EASYBUILD_CONFIGFILES"] = (dir / "missing.cfg").string();
  CHECK_THROWS_AS(EasyBuildSettings::read(environment(values)), UsageError);
}

TEST_CASE("EasyBuildSettings: defaults are eb's", "[easybuild][settings]") {
  const TemporaryDirectory root(fs::temp_directory_path(), "wheelmod-eb-settings-");
  const std::map<std::string, std::string> values{
      {"HOME", "/home/someone"},
      {"XDG_CONFIG_DIRS", (root.path() / "none").string()},
      {"XDG_CONFIG_HOME", (root.path() / "none").string()}};
  const auto settings = EasyBuildSettings::read(environment(values));
  CHECK_FALSE(settings.get("installpath"));
  CHECK(settings.software_path().value == "/home/someone/.local/easybuild/software");
  CHECK(settings.software_path().origin == "EasyBuild's default");
  auto with_prefix = values;
  with_prefix["EASYBUILD_PREFIX"] = "/scratch/eb";
  CHECK(EasyBuildSettings::read(environment(with_prefix)).modules_path().value ==
        "/scratch/eb/modules");
}
