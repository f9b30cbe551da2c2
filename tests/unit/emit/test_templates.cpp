// TemplateSet: site templates win over shipped ones, the JSON context maps
// onto mustache sections, nothing is HTML-escaped, and a broken template is
// an error naming its file.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "emit/templates.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using wheelmod::emit::TemplateSet;

namespace {

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("a template renders lists, booleans and text without escaping", "[emit][templates]") {
  const wheelmod::test::TempDir dir("wheelmod-templates");
  write(dir.path() / "shipped/t.mustache",
        "name = '{{name}}'\n{{#deps}}dep {{name}} {{version}}\n{{/deps}}"
        "{{#cuda}}cuda\n{{/cuda}}{{^cuda}}cpu\n{{/cuda}}{{#none}}never{{/none}}n={{count}}\n");
  const TemplateSet templates(dir.path() / "shipped");
  const nlohmann::json context{
      {"name", "a<b>&'c"},
      {"deps",
       {{{"name", "CUDA"}, {"version", "12.6.0"}}, {{"name", "cuDNN"}, {"version", "9.5.0.50"}}}},
      {"cuda", false},
      {"none", nullptr},
      {"count", 3}};
  CHECK(templates.render("t.mustache", context) ==
        "name = 'a<b>&'c'\ndep CUDA 12.6.0\ndep cuDNN 9.5.0.50\ncpu\nn=3\n");
}

TEST_CASE("a site template replaces the shipped one of the same name", "[emit][templates]") {
  const wheelmod::test::TempDir dir("wheelmod-templates");
  write(dir.path() / "shipped/a.mustache", "shipped {{x}}");
  write(dir.path() / "shipped/b.mustache", "shipped b");
  write(dir.path() / "site/a.mustache", "site {{x}}");
  const TemplateSet templates(dir.path() / "shipped", dir.path() / "site");
  CHECK(templates.render("a.mustache", {{"x", "1"}}) == "site 1");
  CHECK(templates.render("b.mustache", nlohmann::json::object()) == "shipped b");
  CHECK(templates.locate("b.mustache") == dir.path() / "shipped/b.mustache");
}

TEST_CASE("a missing or broken template is a usage error naming the file", "[emit][templates]") {
  const wheelmod::test::TempDir dir("wheelmod-templates");
  write(dir.path() / "shipped/broken.mustache", "{{#open}} never closed");
  const TemplateSet templates(dir.path() / "shipped");
  try {
    (void)templates.render("broken.mustache", nlohmann::json::object());
    FAIL("no error");
  } catch (const wheelmod::UsageError& error) {
    CHECK_THAT(error.what(), Catch::Contains("broken.mustache"));
    CHECK_THAT(error.what(), Catch::Contains("does not parse"));
  }
  CHECK_THROWS_AS(templates.render("absent.mustache", nlohmann::json::object()),
                  wheelmod::UsageError);
}
