#include <functional>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "resolve/report.hpp"

using namespace wheelmod::resolve;
using nlohmann::json;

namespace {

constexpr const char* k_source = "reports/r.json";
constexpr const char* k_torch = "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl";
constexpr const char* k_vision = "torchvision-0.21.0+cu126-cp312-cp312-linux_x86_64.whl";
const std::string k_hex(64, 'a');

Dependency make_dependency(std::string requirement, std::string name,
                           DependencyResolution resolution, std::string provider,
                           std::optional<std::string> provided_version, Compatibility compatibility,
                           std::string note) {
  Dependency d;
  d.requirement = std::move(requirement);
  d.name = std::move(name);
  d.resolution = resolution;
  d.provider = std::move(provider);
  d.provided_version = std::move(provided_version);
  d.compatibility = compatibility;
  d.note = std::move(note);
  return d;
}

// Every field set to something other than its default; the second wheel
// carries the nulls.
ResolveReport full_report() {
  ResolveReport r;
  r.index = "https://download.pytorch.org/whl";
  r.specs = {"torch==2.6.0", "torchvision"};
  r.no_deps = true;
  r.target = {"foss-2024a",
              "2024a",
              "3.12",
              "Python/3.12.3-GCCcore-13.3.0",
              "x86_64",
              "2.28",
              "cuda 12.6.0",
              "toolchain (CUDA/12.6.0)",
              "550.54.15 (--driver)"};
  r.variant = {"cu124",
               "closest lower variant for cuda 12.6.0",
               false,
               {"cu126: no torch==2.6.0", "cu125: no such directory"},
               "525.60.13"};

  ChosenWheel torch;
  torch.name = "torch";
  torch.version = "2.6.0+cu126";
  torch.filename = k_torch;
  torch.url =
      "https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-"
      "manylinux_2_28_x86_64.whl";
  torch.sha256 = std::string(64, '0');
  torch.size = 766'000'000;
  torch.variant = "cu126";
  torch.best_tag = "cp312-cp312-manylinux_2_28_x86_64";
  torch.tag_rank = 3;
  torch.tags_total = 771;
  torch.requested = true;
  torch.why = "highest version matching torch==2.6.0";
  torch.metadata_source = "PEP 658 .metadata file";
  torch.dependencies = {
      make_dependency("nvidia-cudnn-cu12==9.5.1.17", "nvidia-cudnn-cu12",
                      DependencyResolution::eb_module, "cuDNN/9.5.1.17-CUDA-12.6.0", "9.5.1.17",
                      Compatibility::exact, "exact"),
      make_dependency("filelock", "filelock", DependencyResolution::bundled_wheel,
                      "filelock-3.16.1-py3-none-any.whl", "3.16.1", Compatibility::compatible,
                      "no version required"),
      make_dependency("sympy==1.13.1", "sympy", DependencyResolution::missing, "", std::nullopt,
                      Compatibility::unknown, ""),
  };

  ChosenWheel vision;
  vision.name = "torchvision";
  vision.version = "0.21.0+cu126";
  vision.filename = k_vision;
  vision.url = "file:///srv/wheels/torchvision-0.21.0+cu126-cp312-cp312-linux_x86_64.whl";
  vision.sha256 = std::nullopt;
  vision.size = std::nullopt;
  vision.variant = "cu126";
  vision.requested = false;
  vision.best_tag = "cp312-cp312-linux_x86_64";
  vision.tag_rank = 40;
  vision.tags_total = 771;
  vision.why = "bundled";
  vision.metadata_source = std::nullopt;
  vision.dependencies = {make_dependency("torch==2.6.0", "torch",
                                         DependencyResolution::chosen_wheel, k_torch, "2.6.0+cu126",
                                         Compatibility::incompatible, "wants ==2.6.0")};
  r.wheels = {torch, vision};
  r.modules = {"CUDA/12.6.0", "Python/3.12.3-GCCcore-13.3.0"};
  r.missing = {torch.dependencies[2]};
  r.warnings = {"torchvision wants torch==2.6.0", "second warning"};
  r.notes = {"torch-2.6.0-cp312-cp312-linux_x86_64-cu126.whl: a PEP 825 variant wheel"};
  return r;
}

// A report as a person would write it: the required fields only.
json minimal_document() {
  return json::parse(R"({
    "schema_version": 1,
    "index": "https://download.pytorch.org/whl",
    "specs": ["torch==2.6.0"],
    "wheels": [{
      "name": "torch",
      "version": "2.6.0+cu126",
      "filename": "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
      "url": "https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
      "sha256": null,
      "size": null
    }]
  })");
}

// The UsageError report_from_json throws; fails the test when it returns.
wheelmod::UsageError read_error(const json& document) {
  try {
    (void)report_from_json(document, k_source);
  } catch (const wheelmod::UsageError& error) {
    return error;
  }
  FAIL("report_from_json accepted " << document.dump());
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("report_from_json reads back what to_json writes", "[resolve][report]") {
  const ResolveReport original = full_report();
  const json written = to_json(original);
  const ResolveReport read = report_from_json(written, k_source);
  CHECK(to_json(read) == written);
  // Spot checks that the fields are really read, not only passed through.
  CHECK(read.target.toolchain == "foss-2024a");
  CHECK_FALSE(read.variant.exact);
  REQUIRE(read.wheels.size() == 2);
  CHECK(read.wheels[0].size == 766'000'000U);
  CHECK(read.wheels[0].tag_rank == 3);
  CHECK(read.wheels[0].dependencies[1].resolution == DependencyResolution::bundled_wheel);
  CHECK(read.wheels[0].dependencies[2].provider.empty());
  CHECK_FALSE(read.wheels[1].requested);
  CHECK_FALSE(read.wheels[1].sha256);
  CHECK(read.wheels[1].dependencies[0].compatibility == Compatibility::incompatible);
  CHECK(read.missing.size() == 1);
  CHECK(read.variant.minimum_driver == "525.60.13");
  CHECK(read.target.nvidia_driver == "550.54.15 (--driver)");
  CHECK(read.notes.size() == 1);
}

TEST_CASE("report_from_json fills absent optional fields with defaults", "[resolve][report]") {
  const ResolveReport r = report_from_json(minimal_document(), k_source);
  CHECK(r.index == "https://download.pytorch.org/whl");
  CHECK(r.specs == std::vector<std::string>{"torch==2.6.0"});
  CHECK_FALSE(r.no_deps);
  CHECK_FALSE(r.target.toolchain);
  CHECK(r.target.python.empty());
  CHECK(r.variant.exact);
  REQUIRE(r.wheels.size() == 1);
  const ChosenWheel& w = r.wheels[0];
  CHECK(w.name == "torch");
  CHECK(w.version == "2.6.0+cu126");
  CHECK(w.filename == k_torch);
  CHECK_FALSE(w.sha256);
  CHECK_FALSE(w.size);
  CHECK(w.requested);
  CHECK(w.tag_rank == 0);
  CHECK_FALSE(w.metadata_source);
  CHECK(w.dependencies.empty());
  CHECK(r.modules.empty());
  CHECK(r.missing.empty());
  CHECK(r.warnings.empty());
}

TEST_CASE("report_from_json lower-cases digests and normalises name and version",
          "[resolve][report]") {
  json document = minimal_document();
  auto& wheel = document["wheels"][0];
  wheel["sha256"] = "0123456789ABCDEFabcdef" + std::string(42, 'F');
  wheel["name"] = "Torch";
  wheel["version"] = "2.6+CU126";  // equal to 2.6.0+cu126 under PEP 440
  wheel["size"] = 12;
  const ResolveReport r = report_from_json(document, k_source);
  CHECK(r.wheels[0].sha256 == "0123456789abcdefabcdef" + std::string(42, 'f'));
  CHECK(r.wheels[0].name == "torch");
  CHECK(r.wheels[0].version == "2.6+cu126");
  CHECK(r.wheels[0].size == 12U);
}

TEST_CASE("report_from_json accepts every URL the downloader fetches", "[resolve][report]") {
  for (const char* url : {"http://127.0.0.1:8080/whl/torch.whl", "HTTPS://example.org/t.whl",
                          "file:///srv/wheels/t.whl", "/srv/wheels/my wheels/t.whl"}) {
    CAPTURE(url);
    json document = minimal_document();
    document["wheels"][0]["url"] = url;
    CHECK(report_from_json(document, k_source).wheels[0].url == url);
  }
}

TEST_CASE("report_from_json ignores fields it does not know", "[resolve][report]") {
  json document = to_json(full_report());
  const json expected = document;
  document["generated_by"] = "wheelmod 9.9";
  document["target"]["libc"] = "glibc";
  document["variant"]["score"] = 3;
  document["wheels"][0]["yanked"] = false;
  document["wheels"][0]["dependencies"][0]["extras"] = json::array();
  document["missing"][0]["hint"] = nullptr;
  CHECK(to_json(report_from_json(document, k_source)) == expected);
}

TEST_CASE("report_from_json refuses a newer schema and says to upgrade", "[resolve][report]") {
  // Set in C++ the number is stored signed; parsed, unsigned. Both count.
  json set = minimal_document();
  set["schema_version"] = 2;
  set["wheels"] = "a shape this version does not know";
  const json parsed = json::parse(R"({"schema_version": 2, "wheels": {}})");
  for (const json& document : {set, parsed}) {
    CAPTURE(document.dump());
    const auto error = read_error(document);
    CHECK(error.code() == wheelmod::ExitCode::usage);
    CHECK(error.subject() == k_source);
    CHECK(error.cause() == "schema_version: this wheelmod reads schema 1, the report has 2");
    CHECK_THAT(error.hint(), Catch::Contains("upgrade wheelmod"));
  }
}

TEST_CASE("report_from_json names the file and the JSON path of a bad field", "[resolve][report]") {
  using Mutation = std::function<void(json&)>;
  const auto wheel_set = [](const char* key, json value) -> Mutation {
    return [=](json& d) { d["wheels"][0][key] = value; };
  };
  const auto wheel_erase = [](const char* key) -> Mutation {
    return [=](json& d) { d["wheels"][0].erase(key); };
  };
  const auto dependency = json::parse(R"({"name": "sympy", "resolution": "missing"})");
  struct Case {
    const char* what;
    Mutation mutate;
    std::string fragment;
  };
  const Case cases[] = {
      {"not an object", [](json& d) { d = json::array(); },
       "expected a JSON object (a resolve report), got []"},
      {"no schema", [](json& d) { d.erase("schema_version"); },
       "schema_version: missing (required)"},
      {"schema as text", [](json& d) { d["schema_version"] = "1"; },
       "schema_version: expected 1, got \"1\""},
      {"schema 0", [](json& d) { d["schema_version"] = 0; }, "schema_version: expected 1, got 0"},
      {"schema -1", [](json& d) { d["schema_version"] = -1; },
       "schema_version: expected 1, got -1"},
      {"schema float", [](json& d) { d["schema_version"] = 1.5; },
       "schema_version: expected 1, got 1.5"},
      {"no index", [](json& d) { d.erase("index"); }, "index: missing (required)"},
      {"index number", [](json& d) { d["index"] = 3; }, "index: expected a string, got 3"},
      {"no specs", [](json& d) { d.erase("specs"); }, "specs: missing (required)"},
      {"spec number", [](json& d) { d["specs"].push_back(1); },
       "specs[1]: expected a string, got 1"},
      {"no wheels", [](json& d) { d.erase("wheels"); }, "wheels: missing (required)"},
      {"wheels object", [](json& d) { d["wheels"] = json::object(); },
       "wheels: expected an array, got {}"},
      {"wheel text", [](json& d) { d["wheels"][0] = "torch"; },
       "wheels[0]: expected an object, got \"torch\""},
      {"no name", wheel_erase("name"), "wheels[0].name: missing (required)"},
      {"no version", wheel_erase("version"), "wheels[0].version: missing (required)"},
      {"no filename", wheel_erase("filename"), "wheels[0].filename: missing (required)"},
      {"no url", wheel_erase("url"), "wheels[0].url: missing (required)"},
      {"no sha256", wheel_erase("sha256"), "wheels[0].sha256: missing (required)"},
      {"no size", wheel_erase("size"), "wheels[0].size: missing (required)"},
      {"short sha256", wheel_set("sha256", "abc"),
       "wheels[0].sha256: expected 64 hex digits or null, got \"abc\""},
      {"non-hex sha256", wheel_set("sha256", std::string(63, 'a') + "g"),
       "wheels[0].sha256: expected 64 hex digits or null, got \"aaaa"},
      {"long sha256", wheel_set("sha256", k_hex + "0"), "wheels[0].sha256: expected 64 hex"},
      {"sha256 number", wheel_set("sha256", 5),
       "wheels[0].sha256: expected 64 hex digits or null, got 5"},
      {"negative size", wheel_set("size", -1),
       "wheels[0].size: expected a non-negative integer or null, got -1"},
      {"fractional size", wheel_set("size", 1.5),
       "wheels[0].size: expected a non-negative integer or null, got 1.5"},
      {"size text", wheel_set("size", "12"),
       "wheels[0].size: expected a non-negative integer or null, got \"12\""},
      {"name null", wheel_set("name", nullptr), "wheels[0].name: expected a string, got null"},
      {"filename with slash", wheel_set("filename", std::string("../") + k_torch),
       "wheels[0].filename: must be a plain file name"},
      {"filename ..", wheel_set("filename", ".."), "wheels[0].filename: must be a plain file name"},
      {"filename .", wheel_set("filename", "."), "wheels[0].filename: must be a plain file name"},
      {"filename with shell code in its build tag",
       wheel_set("filename", "torch-2.6.0+cu126-1$(touch X)-cp312-cp312-linux_x86_64.whl"),
       "wheels[0].filename: holds \"$\", which no wheel name of an index uses"},
      {"filename with an escape",
       wheel_set("filename", "torch-2.6.0+cu126-1\x1b-cp312-cp312-linux_x86_64.whl"),
       "wheels[0].filename: holds \"\\u001b\""},
      {"filename not a wheel", wheel_set("filename", "torch-2.6.0.tar.gz"),
       "wheels[0].filename: invalid wheel file name 'torch-2.6.0.tar.gz'"},
      {"other project", wheel_set("name", "torchvision"),
       "wheels[0].name: \"torchvision\" does not match the project of the filename, \"torch\""},
      {"other version", wheel_set("version", "2.5.0+cu126"),
       "wheels[0].version: \"2.5.0+cu126\" does not match the version of the filename, "
       "\"2.6.0+cu126\""},
      {"other local version", wheel_set("version", "2.6.0+cu124"),
       "wheels[0].version: \"2.6.0+cu124\" does not match"},
      {"invalid version", wheel_set("version", "two"), "wheels[0].version: invalid version 'two'"},
      {"ftp url", wheel_set("url", "ftp://example.org/t.whl"),
       "wheels[0].url: expected an http://, https:// or file:// URL or an absolute path, got "
       "\"ftp://example.org/t.whl\""},
      {"relative url", wheel_set("url", "wheels/t.whl"), "wheels[0].url: expected an http://"},
      {"empty url", wheel_set("url", ""), "wheels[0].url: expected an http://"},
      {"bare scheme", wheel_set("url", "https://"), "wheels[0].url: expected an http://"},
      {"url with newline", wheel_set("url", "https://example.org/t.whl\nHost: x"),
       "wheels[0].url: expected an http://"},
      {"duplicate filename",
       [](json& d) {
         d["wheels"].push_back(d["wheels"][0]);
         d["wheels"][1]["url"] = "/srv/copy.whl";
       },
       std::string("wheels[1].filename: \"") + k_torch + "\" is listed twice (also wheels[0])"},
      {"requested text", wheel_set("requested", "yes"),
       "wheels[0].requested: expected true or false, got \"yes\""},
      {"negative tag_rank", wheel_set("tag_rank", -1),
       "wheels[0].tag_rank: expected a non-negative integer, got -1"},
      {"invalid UTF-8 shown", wheel_set("tags_total", "\xff\xfe"),
       "wheels[0].tags_total: expected a non-negative integer, got \""},
      {"metadata_source number", wheel_set("metadata_source", 1),
       "wheels[0].metadata_source: expected a string or null, got 1"},
      {"dependencies object", wheel_set("dependencies", json::object()),
       "wheels[0].dependencies: expected an array, got {}"},
      {"unknown resolution",
       wheel_set("dependencies", json::array({dependency, {{"resolution", "maybe"}}})),
       "wheels[0].dependencies[1].resolution: expected one of \"wheel\", \"module\", "
       "\"bundled\", \"missing\", got \"maybe\""},
      {"provider number", wheel_set("dependencies", json::array({{{"provider", 7}}})),
       "wheels[0].dependencies[0].provider: expected a string or null, got 7"},
      {"no_deps text", [](json& d) { d["no_deps"] = "false"; },
       "no_deps: expected true or false, got \"false\""},
      {"target text", [](json& d) { d["target"] = "x86_64"; },
       "target: expected an object, got \"x86_64\""},
      {"toolchain number",
       [](json& d) {
         d["target"] = {{"toolchain", 5}};
       },
       "target.toolchain: expected a string or null, got 5"},
      {"python null",
       [](json& d) {
         d["target"] = {{"python", nullptr}};
       },
       "target.python: expected a string, got null"},
      {"variant exact text",
       [](json& d) {
         d["variant"] = {{"exact", "yes"}};
       },
       "variant.exact: expected true or false"},
      {"variant tried number",
       [](json& d) {
         d["variant"] = {{"tried", {1}}};
       },
       "variant.tried[0]: expected a string, got 1"},
      {"modules text", [](json& d) { d["modules"] = "CUDA/12.6.0"; },
       "modules: expected an array, got \"CUDA/12.6.0\""},
      {"missing compatibility",
       [](json& d) {
         d["missing"] = {{{"name", "sympy"}, {"compatibility", "close"}}};
       },
       "missing[0].compatibility: expected one of \"exact\", \"compatible\", \"incompatible\", "
       "\"unknown\", got \"close\""},
      {"warning null",
       [](json& d) {
         d["warnings"] = {"ok", nullptr};
       },
       "warnings[1]: expected a string, got null"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    json document = minimal_document();
    c.mutate(document);
    const auto error = read_error(document);
    CHECK(error.code() == wheelmod::ExitCode::usage);
    CHECK(error.subject() == k_source);
    CHECK_THAT(error.cause(), Catch::StartsWith(c.fragment));
    CHECK(error.hint() ==
          "write the report with `wheelmod resolve --format json`, or fix the field");
  }
}

TEST_CASE("report_from_json shortens long values in messages", "[resolve][report]") {
  json document = minimal_document();
  document["index"] = json::array({std::string(200, 'x')});
  const auto error = read_error(document);
  CHECK_THAT(error.cause(), Catch::StartsWith("index: expected a string, got [\"xxx"));
  CHECK_THAT(error.cause(), Catch::EndsWith("..."));
  CHECK(error.cause().size() < 100);
}
