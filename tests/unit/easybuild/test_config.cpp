#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "easybuild/config.hpp"
#include "pep/name.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using wheelmod::Error;
using wheelmod::ExitCode;
using wheelmod::easybuild::Generation;
using wheelmod::easybuild::SiteConfig;

namespace {

const fs::path k_shipped = WHEELMOD_CONFIG_DIR;
const fs::path k_fixtures = fs::path(WHEELMOD_TEST_DATA_DIR) / "config";

using wheelmod::test::TempDir;

// Parsed from the YAML, not the tables built at build time: the tests below are of the parser
// (the build-time tables are compared with it in their own test).
const SiteConfig& shipped() {
  static const SiteConfig config = SiteConfig::load_from_yaml(k_shipped, std::nullopt, "");
  return config;
}

const Generation& generation_of(const SiteConfig& config, std::string_view toolchain) {
  const Generation* generation = config.find_generation(toolchain);
  REQUIRE(generation != nullptr);
  return *generation;
}

/// The error SiteConfig::load throws for this site directory (fails if none).
Error load_error(const std::optional<fs::path>& site) {
  try {
    SiteConfig::load(k_shipped, site);
  } catch (const Error& error) {
    return error;
  }
  FAIL("SiteConfig::load accepted the configuration");
  return Error(ExitCode::internal, "", "");
}

// Independent of the loader's own check: README "Module names follow
// EasyBuild's default naming scheme", override rule 5.
bool well_formed_module(std::string_view module) {
  const auto slash = module.find('/');
  return std::ranges::count(module, '/') == 1 && slash != 0 && slash + 1 != module.size() &&
         module.find_first_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

// --- the shipped tables: facts cited in config/*.yaml -------------------------

TEST_CASE("SiteConfig::load maps toolchains to their generation's Python and CUDA",
          "[easybuild][config]") {
  struct {
    std::string_view toolchain;
    std::string_view generation;
    std::string_view gcccore;
    std::string_view python_version;
    std::string_view python_module;
    std::string_view cuda_version;
  } const cases[] = {
      {"foss-2024a", "2024a", "13.3.0", "3.12.3", "Python/3.12.3-GCCcore-13.3.0", "12.6.0"},
      {"GCC-13.3.0", "2024a", "13.3.0", "3.12.3", "Python/3.12.3-GCCcore-13.3.0", "12.6.0"},
      {"GCCcore-13.3.0", "2024a", "13.3.0", "3.12.3", "Python/3.12.3-GCCcore-13.3.0", "12.6.0"},
      {"foss-2023b", "2023b", "13.2.0", "3.11.5", "Python/3.11.5-GCCcore-13.2.0", "12.4.0"},
      {"gfbf-2023a", "2023a", "12.3.0", "3.11.3", "Python/3.11.3-GCCcore-12.3.0", "12.1.1"},
      {"gompi-2022a", "2022a", "11.3.0", "3.10.4", "Python/3.10.4-GCCcore-11.3.0", "11.7.0"},
      {"foss-2025a", "2025a", "14.2.0", "3.13.1", "Python/3.13.1-GCCcore-14.2.0", "12.8.0"},
      {"GCC-14.3.0", "2025b", "14.3.0", "3.13.5", "Python/3.13.5-GCCcore-14.3.0", "12.9.1"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.toolchain);
    const Generation& generation = generation_of(shipped(), c.toolchain);
    CHECK(generation.name == c.generation);
    CHECK(generation.gcccore == c.gcccore);
    CHECK(generation.python.version == c.python_version);
    CHECK(generation.python.module == c.python_module);
    REQUIRE(generation.cuda.has_value());
    CHECK(generation.cuda->version == c.cuda_version);
    CHECK(generation.cuda->module == "CUDA/" + std::string(c.cuda_version));
  }
}

TEST_CASE("SiteConfig::load reads every shipped generation with its toolchain entries",
          "[easybuild][config]") {
  const auto& generations = shipped().generations();
  std::vector<std::string> names;
  for (const auto& [name, generation] : generations) names.push_back(name);
  CHECK(names ==
        std::vector<std::string>{"2022a", "2023a", "2023b", "2024a", "2025a", "2025b", "2026.1"});
  const auto& foss = generations.at("2024a").toolchains.at("foss-2024a");
  CHECK(foss.name == "foss");
  CHECK(foss.version == "2024a");
  CHECK(generations.at("2023a").cuda_other ==
        std::vector<std::string>{"12.3.0", "12.4.0", "12.6.0"});
  CHECK(generations.at("2022a").cuda_other == std::vector<std::string>{"11.8.0", "12.2.0"});
  CHECK(generations.at("2024a").cuda_other.empty());
}

TEST_CASE("SiteConfig::load gives a ROCm stack only to 2025a", "[easybuild][config]") {
  for (const auto& [name, generation] : shipped().generations()) {
    CAPTURE(name);
    if (name == "2025a") {
      REQUIRE(generation.rocm.has_value());
      CHECK(generation.rocm->version == "6.4.1");
      CHECK(generation.rocm->module == "rocm-compilers/19.0.0-ROCm-6.4.1");
    } else {
      CHECK_FALSE(generation.rocm.has_value());
    }
  }
}

TEST_CASE("SiteConfig::load_for_toolchain gives that toolchain's generation whole",
          "[easybuild][config]") {
  // Each toolchain's generation, read from the blanked text, equals the full read; the other
  // generations keep their toolchains (for the messages) but not their packages.
  for (const auto& name : shipped().toolchain_names()) {
    CAPTURE(name);
    const auto one = SiteConfig::load_from_yaml(k_shipped, std::nullopt, name);
    CHECK(generation_of(one, name) == generation_of(shipped(), name));
    CHECK(one.toolchain_names() == shipped().toolchain_names());
  }
  // An unknown toolchain, or a site that adds toolchains, reads everything.
  CHECK(SiteConfig::load_from_yaml(k_shipped, std::nullopt, "nosuch-1").generations() ==
        shipped().generations());
}

TEST_CASE("SiteConfig::load_for_toolchain takes the build's tables only for the same bytes",
          "[easybuild][config]") {
  // The tables parsed at build time are what the YAML gives, for every toolchain (only its
  // generation's packages), none (all of them) and an unknown one (all of them).
  auto toolchains = shipped().toolchain_names();
  toolchains.insert(toolchains.end(), {"", "nosuch-1"});
  for (const auto& name : toolchains) {
    CAPTURE(name);
    CHECK(SiteConfig::load_for_toolchain(k_shipped, std::nullopt, name).generations() ==
          SiteConfig::load_from_yaml(k_shipped, std::nullopt, name).generations());
  }
  CHECK(SiteConfig::load(k_shipped).generations() == shipped().generations());

  // An installation whose files differ from the build's by a byte is read from its YAML.
  TempDir temp;
  const auto copy = temp.path() / "config";
  fs::create_directories(copy);
  for (const auto* file : {"toolchains.yaml", "eb-dependencies.yaml"})
    fs::copy_file(k_shipped / file, copy / file);
  std::string text = wheelmod::read_file(copy / "toolchains.yaml");
  const std::string from = "python: {version: '3.12.3'";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "python: {version: '3.12.9'");
  std::ofstream(copy / "toolchains.yaml", std::ios::trunc) << text;
  const auto edited = SiteConfig::load_for_toolchain(copy, std::nullopt, "foss-2024a");
  CHECK(generation_of(edited, "foss-2024a").python.version == "3.12.9");
  CHECK(edited.generations() ==
        SiteConfig::load_from_yaml(copy, std::nullopt, "foss-2024a").generations());
  // A site directory is merged over the YAML, never over the build's tables.
  CHECK(SiteConfig::load_for_toolchain(k_shipped, temp.path(), "foss-2024a").generations() ==
        SiteConfig::load_from_yaml(k_shipped, temp.path(), "foss-2024a").generations());
}

TEST_CASE("SiteConfig::find_generation matches exact --toolchain values only",
          "[easybuild][config]") {
  // EasyBuild toolchain names are case-sensitive; ROCm toolchains are not in
  // `toolchains` (config/README.md, rocm.toolchains).
  for (const std::string_view unknown :
       {"foss-2024", "FOSS-2024a", "foss-2024a ", "foss", "2024a", "", "rompi-2025a",
        "rocm-compilers-19.0.0-ROCm-6.4.1", "intel-2024a"}) {
    CAPTURE(unknown);
    CHECK(shipped().find_generation(unknown) == nullptr);
  }
}

TEST_CASE("SiteConfig::toolchain_names lists every accepted value, sorted", "[easybuild][config]") {
  const auto names = shipped().toolchain_names();
  CHECK(names.size() == 35);  // foss, gfbf, gompi, GCC, GCCcore for seven generations
  CHECK(std::ranges::is_sorted(names));
  CHECK(std::ranges::find(names, "foss-2024a") != names.end());
  CHECK(std::ranges::find(names, "GCCcore-11.3.0") != names.end());
  CHECK(std::ranges::find(names, "rompi-2025a") == names.end());
}

TEST_CASE("SiteConfig::load reads the CUDA library providers in preference order",
          "[easybuild][config]") {
  struct {
    std::string_view generation;
    std::string_view package;
    std::string_view wheel_libdir;
    std::size_t providers;
    std::string_view first_module;
    std::string_view first_name;
    std::string_view first_version;
    std::string_view first_libdir;
    std::string_view first_cuda;
  } const cases[] = {
      {"2024a", "nvidia-cudnn-cu12", "nvidia/cudnn/lib", 3, "cuDNN/9.5.0.50-CUDA-12.6.0", "cuDNN",
       "9.5.0.50", "lib", "12.6.0"},
      {"2024a", "nvidia-cuda-cupti-cu12", "nvidia/cuda_cupti/lib", 1, "CUDA/12.6.0", "CUDA",
       "12.6.0", "extras/CUPTI/lib64", "12.6.0"},
      {"2024a", "nvidia-nccl-cu12", "nvidia/nccl/lib", 3, "NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0",
       "NCCL", "2.22.3", "lib", "12.6.0"},
      {"2022a", "nvidia-cuda-cupti-cu11", "nvidia/cuda_cupti/lib", 1, "CUDA/11.8.0", "CUDA",
       "11.8.0", "extras/CUPTI/lib64", "11.8.0"},
      {"2025a", "nvidia-nvshmem-cu12", "nvidia/nvshmem/lib", 1,
       "NVSHMEM/3.3.20-gompi-2025a-CUDA-12.8.0", "NVSHMEM", "3.3.20", "lib", "12.8.0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.generation, c.package);
    const auto& library = shipped()
                              .generations()
                              .at(std::string(c.generation))
                              .cuda_libraries.at(std::string(c.package));
    CHECK(library.wheel_libdir == c.wheel_libdir);
    REQUIRE(library.provided_by.size() == c.providers);
    const auto& first = library.provided_by.front();
    CHECK(first.module == c.first_module);
    CHECK(first.name == c.first_name);
    CHECK(first.version == c.first_version);
    CHECK(first.libdir == c.first_libdir);
    CHECK(first.cuda == std::optional<std::string>(c.first_cuda));
  }
}

TEST_CASE("SiteConfig::load keeps SONAMEs, aliases and empty provider lists",
          "[easybuild][config]") {
  const auto& g2024a = shipped().generations().at("2024a");
  const auto& cudnn = g2024a.cuda_libraries.at("nvidia-cudnn-cu12");
  REQUIRE(cudnn.libraries.size() == 8);
  CHECK(cudnn.libraries.front() == "libcudnn.so.9");
  CHECK(cudnn.wheel_libdir_aliases.empty());
  CHECK(g2024a.cuda_libraries.at("nvidia-cusparselt-cu12").wheel_libdir_aliases ==
        std::vector<std::string>{"cusparselt/lib"});
  CHECK(g2024a.cuda_libraries.at("nvidia-nvshmem-cu12").provided_by.empty());
  // 2022a has only cuDNN 8, listed under not_compatible (config/README.md, Gaps).
  CHECK(shipped()
            .generations()
            .at("2022a")
            .cuda_libraries.at("nvidia-cudnn-cu11")
            .provided_by.empty());
}

TEST_CASE("SiteConfig::load reads the Python package providers", "[easybuild][config]") {
  struct {
    std::string_view generation;
    std::string_view package;
    std::size_t providers;
    std::string_view first_module;
    std::string_view first_version;
    std::optional<std::string> first_cuda;
  } const cases[] = {
      {"2024a", "jinja2", 1, "Python-bundle-PyPI/2024.06-GCCcore-13.3.0", "3.1.4", std::nullopt},
      {"2024a", "typing-extensions", 2, "Python/3.12.3-GCCcore-13.3.0", "4.11.0", std::nullopt},
      {"2024a", "triton", 3, "Triton/3.5.0-gfbf-2024a-CUDA-12.6.0", "3.5.0", "12.6.0"},
      {"2024a", "mpmath", 1, "SciPy-bundle/2024.05-gfbf-2024a", "1.3.0", std::nullopt},
      {"2022a", "sympy", 2, "sympy/1.10.1-foss-2022a", "1.10.1", std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.generation, c.package);
    const auto& providers = shipped()
                                .generations()
                                .at(std::string(c.generation))
                                .python_packages.at(std::string(c.package));
    REQUIRE(providers.size() == c.providers);
    CHECK(providers.front().module == c.first_module);
    CHECK(providers.front().package_version == c.first_version);
    CHECK(providers.front().cuda == c.first_cuda);
  }
  // `[]` is kept: the file checked the package and found no module.
  const auto& python_2024a = shipped().generations().at("2024a").python_packages;
  REQUIRE(python_2024a.contains("opt-einsum"));
  CHECK(python_2024a.at("opt-einsum").empty());
}

TEST_CASE("SiteConfig::load: every shipped module name and key is well-formed",
          "[easybuild][config]") {
  std::size_t modules = 0;
  const auto check_module = [&](const std::string& module) {
    CAPTURE(module);
    CHECK(well_formed_module(module));
    ++modules;
  };
  for (const auto& [name, generation] : shipped().generations()) {
    CAPTURE(name);
    check_module(generation.python.module);
    if (generation.cuda) check_module(generation.cuda->module);
    if (generation.rocm) check_module(generation.rocm->module);
    for (const auto& [key, toolchain] : generation.toolchains) {
      CHECK(key == toolchain.name + "-" + toolchain.version);
    }
    for (const auto& [package, providers] : generation.python_packages) {
      CHECK(package == wheelmod::pep::canonicalize_name(package));
      for (const auto& provider : providers) check_module(provider.module);
    }
    for (const auto& [package, library] : generation.cuda_libraries) {
      CHECK(package == wheelmod::pep::canonicalize_name(package));
      // Empty only where the toolkit has no library to find: NVTX 3 is header-only from CUDA
      // 12.9 on (config/README.md).
      CHECK((!library.libraries.empty() || package == "nvidia-nvtx-cu12"));
      for (const auto& provider : library.provided_by) check_module(provider.module);
    }
  }
  CHECK(modules >= 250);  // all six generations were walked
}

// --- site overrides (config/README.md, Site overrides) ------------------------

TEST_CASE("SiteConfig::load merges site toolchains per key", "[easybuild][config]") {
  TempDir site;
  site.write("toolchains.yaml", R"(schema: 1
generations:
  '2024a':
    toolchains:
      intel-2024a: {name: intel, version: '2024a'}
      GCCcore-13.3.0: null
)");
  const auto config = SiteConfig::load(k_shipped, site.path());
  const Generation& generation = generation_of(config, "intel-2024a");
  CHECK(generation.name == "2024a");
  CHECK(generation.toolchains.at("intel-2024a").name == "intel");
  CHECK(config.find_generation("foss-2024a") == &generation);
  CHECK(config.find_generation("GCCcore-13.3.0") == nullptr);
  // Fields the site does not give stay as shipped.
  CHECK(generation.python.module == "Python/3.12.3-GCCcore-13.3.0");
  CHECK(generation.cuda_libraries.contains("nvidia-cudnn-cu12"));
  CHECK(config.toolchain_names().size() == 35);
}

TEST_CASE("SiteConfig::load replaces a site field as a whole", "[easybuild][config]") {
  TempDir site;
  site.write("toolchains.yaml", R"(schema: 1
generations:
  '2024a':
    cuda: null
    cuda_other: ['12.8.0']
  '2023b':
    python: {version: '3.11.5', module: 'Python/3.11.5-GCCcore-13.2.0-custom'}
)");
  const auto config = SiteConfig::load(k_shipped, site.path());
  const auto& g2024a = config.generations().at("2024a");
  CHECK_FALSE(g2024a.cuda.has_value());
  CHECK(g2024a.cuda_other == std::vector<std::string>{"12.8.0"});
  CHECK(config.generations().at("2023b").python.module == "Python/3.11.5-GCCcore-13.2.0-custom");
  CHECK(config.generations().at("2023b").cuda->version == "12.4.0");
}

TEST_CASE("SiteConfig::load replaces a CUDA provider list and keeps the other fields",
          "[easybuild][config]") {
  TempDir site;
  site.write("eb-dependencies.yaml", R"(schema: 1
generations:
  '2024a':
    cuda:
      nvidia-cudnn-cu12:
        provided_by:
          - {module: 'cuDNN/9.8.0.87-CUDA-12.6.0', name: cuDNN, version: '9.8.0.87', libdir: 'lib64', cuda: '12.6.0'}
          - {module: 'cuDNN/9.5.0.50-CUDA-12.6.0', name: cuDNN, version: '9.5.0.50', libdir: 'lib', cuda: '12.6.0'}
)");
  const auto config = SiteConfig::load(k_shipped, site.path());
  const auto& g2024a = config.generations().at("2024a");
  const auto& cudnn = g2024a.cuda_libraries.at("nvidia-cudnn-cu12");
  REQUIRE(cudnn.provided_by.size() == 2);
  CHECK(cudnn.provided_by[0].module == "cuDNN/9.8.0.87-CUDA-12.6.0");
  CHECK(cudnn.provided_by[0].libdir == "lib64");
  CHECK(cudnn.provided_by[1].version == "9.5.0.50");
  CHECK(cudnn.wheel_libdir == "nvidia/cudnn/lib");
  CHECK(cudnn.libraries.size() == 8);
  CHECK(g2024a.cuda_libraries.at("nvidia-nccl-cu12").provided_by.size() == 3);
  CHECK(g2024a.python_packages.at("jinja2").size() == 1);
}

TEST_CASE("SiteConfig::load removes a python package given as null", "[easybuild][config]") {
  TempDir site;
  site.write("eb-dependencies.yaml", R"(schema: 1
generations:
  '2024a':
    python:
      jinja2: null
      fsspec: []
      triton:
        - {module: 'Triton/3.5.1-gfbf-2024a-CUDA-12.6.0-whl', package_version: '3.5.1', cuda: '12.6.0'}
    cuda:
      nvidia-nvtx-cu12: null
)");
  const auto config = SiteConfig::load(k_shipped, site.path());
  const auto& python = config.generations().at("2024a").python_packages;
  CHECK_FALSE(python.contains("jinja2"));
  REQUIRE(python.contains("fsspec"));
  CHECK(python.at("fsspec").empty());
  REQUIRE(python.at("triton").size() == 1);
  CHECK(python.at("triton")[0].module == "Triton/3.5.1-gfbf-2024a-CUDA-12.6.0-whl");
  CHECK(python.at("filelock").size() == 1);
  CHECK_FALSE(config.generations().at("2024a").cuda_libraries.contains("nvidia-nvtx-cu12"));
  // Other generations are untouched.
  CHECK(config.generations().at("2025a").python_packages.contains("jinja2"));
}

TEST_CASE("SiteConfig::load removes a generation given as null", "[easybuild][config]") {
  struct {
    std::string_view file;
    std::string_view removed;
  } const cases[] = {
      // The shipped eb-dependencies.yaml still has 2022a: removing it in one
      // file removes the generation (the site does not support it).
      {"toolchains.yaml", "2022a"},
      {"eb-dependencies.yaml", "2023a"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    TempDir site;
    site.write(std::string(c.file),
               "schema: 1\ngenerations:\n  '" + std::string(c.removed) + "': null\n");
    const auto config = SiteConfig::load(k_shipped, site.path());
    CHECK(config.generations().size() == 6);
    CHECK_FALSE(config.generations().contains(std::string(c.removed)));
    CHECK(config.find_generation("foss-" + std::string(c.removed)) == nullptr);
    CHECK(config.toolchain_names().size() == 30);
  }
}

TEST_CASE("SiteConfig::load adds a generation given in both site files", "[easybuild][config]") {
  TempDir site;
  site.write("toolchains.yaml", R"(schema: 1
generations:
  '2026a':
    gcccore: '15.1.0'
    toolchains:
      foss-2026a: {name: foss, version: '2026a'}
      GCCcore-15.1.0: {name: GCCcore, version: '15.1.0'}
    python: {version: '3.14.0', module: 'Python/3.14.0-GCCcore-15.1.0'}
    cuda: {version: '13.0.1', module: 'CUDA/13.0.1'}
    cuda_other: []
    rocm: null
)");
  site.write("eb-dependencies.yaml", R"(schema: 1
generations:
  '2026a':
    python:
      jinja2:
        - {module: 'Python-bundle-PyPI/2026.01-GCCcore-15.1.0', package_version: '3.1.6'}
    cuda:
      nvidia-cublas-cu12:
        wheel_libdir: 'nvidia/cublas/lib'
        libraries: ['libcublas.so.12']
        provided_by: []
)");
  const auto config = SiteConfig::load(k_shipped, site.path());
  CHECK(config.generations().size() == 8);
  const Generation& generation = generation_of(config, "foss-2026a");
  CHECK(generation.name == "2026a");
  CHECK(generation.gcccore == "15.1.0");
  CHECK(generation.python.version == "3.14.0");
  CHECK(generation.cuda->module == "CUDA/13.0.1");
  CHECK(generation.python_packages.at("jinja2")[0].package_version == "3.1.6");
  CHECK(generation.cuda_libraries.at("nvidia-cublas-cu12").provided_by.empty());
  CHECK(&generation_of(config, "GCCcore-15.1.0") == &generation);
  CHECK(config.toolchain_names().size() == 37);
}

TEST_CASE("SiteConfig::load treats a site directory without files as no change",
          "[easybuild][config]") {
  TempDir site;
  const auto config = SiteConfig::load(k_shipped, site.path());
  CHECK(config.generations().size() == shipped().generations().size());
  CHECK(config.toolchain_names() == shipped().toolchain_names());
}

TEST_CASE("SiteConfig::load accepts quoted versions and plain ones YAML reads as strings",
          "[easybuild][config]") {
  // YAML 1.2 core schema (and 1.1's extra int/float/bool forms): a plain
  // scalar that resolves to a number or boolean is not a version string.
  struct {
    std::string_view scalar;
    bool accepted;
  } const cases[] = {
      {"'13.3.0'", true}, {"\"12.6\"", true}, {"!!str 12.6", true}, {"13.3.0", true},
      {"9.5.0.50", true}, {"2024a", true},    {"12.6.0-rc1", true}, {"v12", true},
      {"e5", true},       {"'3.10'", true},   {"12.6", false},      {"3.10", false},
      {"13", false},      {"-1.5", false},    {"1e3", false},       {".5", false},
      {"1.", false},      {"0x1F", false},    {"0o17", false},      {"1_000", false},
      {"1:30", false},    {".inf", false},    {"-.Inf", false},     {".nan", false},
      {"yes", false},     {"true", false},    {"Off", false},       {"null", false},
      {"~", false},       {"[13]", false},    {"{v: 1}", false},    {"''", false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.scalar);
    TempDir site;
    site.write("toolchains.yaml",
               "schema: 1\ngenerations:\n  '2024a':\n    gcccore: " + std::string(c.scalar) + "\n");
    if (c.accepted) {
      CHECK_NOTHROW(SiteConfig::load(k_shipped, site.path()));
    } else {
      const Error error = load_error(site.path());
      CHECK(error.code() == ExitCode::usage);
      CHECK(error.subject() == (site.path() / "toolchains.yaml").string() + ":4:14");
      CHECK_THAT(error.cause(), Catch::StartsWith("generations.2024a.gcccore: expected a"));
    }
  }
}

// --- configuration errors: exit code 2, file:line:column, key path -------------

TEST_CASE("SiteConfig::load names file, position and key of a bad site file",
          "[easybuild][config]") {
  struct {
    std::string_view fixture;
    std::string_view file;
    std::string_view position;  // 1-based line:column
    std::string_view cause;     // key path and problem
  } const cases[] = {
      {"bad-yaml", "toolchains.yaml", "6:5", "invalid YAML: end of sequence flow not found"},
      {"unquoted-version", "toolchains.yaml", "5:21",
       "generations.2024a.cuda.version: expected a quoted version string, got 12.6"},
      {"unquoted-version-in-list", "toolchains.yaml", "5:28",
       "generations.2024a.cuda_other[1]: expected a quoted version string, got 3.10"},
      {"unquoted-generation", "toolchains.yaml", "4:3",
       "generations.2026: expected a quoted name, got 2026"},
      {"unknown-key", "eb-dependencies.yaml", "7:9",
       "generations.2024a.cuda.nvidia-cudnn-cu12.provded_by: unknown key 'provded_by'"},
      {"bad-module", "eb-dependencies.yaml", "7:20",
       "generations.2024a.python.jinja2[0].module: "
       "'Python-bundle-PyPI/2024.06/GCCcore-13.3.0' is not an EasyBuild module name"},
      {"module-with-space", "toolchains.yaml", "5:41",
       "generations.2024a.python.module: 'Python/3.12.3 GCCcore-13.3.0' is not an EasyBuild "
       "module name"},
      {"wrong-schema", "eb-dependencies.yaml", "2:9", "schema: version 2 is not supported"},
      {"missing-schema", "toolchains.yaml", "1:1", "missing required field 'schema'"},
      {"quoted-schema", "eb-dependencies.yaml", "2:9",
       "schema: expected an unquoted integer, got the string '1'"},
      {"empty-file", "toolchains.yaml", "1:1", "the file is empty"},
      {"missing-field", "toolchains.yaml", "4:3",
       "generations.2026a: missing required field 'python'"},
      {"missing-provider-field", "eb-dependencies.yaml", "8:13",
       "generations.2024a.cuda.nvidia-cudnn-cu12.provided_by[0]: missing required field 'libdir'"},
      {"incomplete-package", "eb-dependencies.yaml", "6:7",
       "generations.2024a.cuda.nvidia-cudss-cu12: missing required field 'libraries'"},
      {"orphan-generation", "eb-dependencies.yaml", "4:3",
       "generations.2024b: generation '2024b' is not in toolchains.yaml"},
      {"duplicate-key", "toolchains.yaml", "6:5",
       "generations.2024a.gcccore: duplicate key 'gcccore'"},
      {"bad-toolchain-key", "toolchains.yaml", "6:7",
       "generations.2024a.toolchains.foss-2024: toolchain key must be <name>-<version>"},
      {"shared-toolchain", "toolchains.yaml", "6:7",
       "generations.2023b.toolchains.foss-2024a: toolchain 'foss-2024a' is also in generation "
       "'2024a'"},
      {"unnormalised-package", "eb-dependencies.yaml", "6:7",
       "generations.2024a.python.Typing_Extensions: 'Typing_Extensions' is not a normalised "
       "project name"},
      {"not-a-map", "eb-dependencies.yaml", "5:13",
       "generations.2024a.python: expected a map, got a list"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.fixture);
    const fs::path site = k_fixtures / c.fixture;
    REQUIRE(fs::is_regular_file(site / c.file));
    const Error error = load_error(site);
    CHECK(error.code() == ExitCode::usage);
    CHECK(error.subject() == (site / c.file).string() + ":" + std::string(c.position));
    CHECK(error.cause() == c.cause);
  }
}

TEST_CASE("SiteConfig::load hints at the fix for typos and unquoted versions",
          "[easybuild][config]") {
  struct {
    std::string_view fixture;
    std::string_view hint_part;
  } const cases[] = {
      {"unknown-key", "did you mean 'provided_by'?"},
      {"unquoted-version", "write '12.6' in quotes"},
      {"wrong-schema", "this wheelmod reads schema 1"},
      {"bad-toolchain-key", "write 'foss-2024a' as the key"},
      {"unnormalised-package", "write 'typing-extensions'"},
      {"orphan-generation", "known: 2022a, 2023a, 2023b, 2024a, 2025a, 2025b"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.fixture);
    const Error error = load_error(k_fixtures / c.fixture);
    CHECK_THAT(error.hint(), Catch::Contains(std::string(c.hint_part)));
  }
}

TEST_CASE("SiteConfig::load rejects a missing site or shipped directory", "[easybuild][config]") {
  TempDir temp;
  const fs::path missing = temp.path() / "no-such-dir";
  const Error error = load_error(missing);
  CHECK(error.code() == ExitCode::usage);
  CHECK(error.subject() == missing.string());
  CHECK(error.cause() == "the site configuration directory does not exist");

  try {
    SiteConfig::load(missing);
    FAIL("a missing shipped directory was accepted");
  } catch (const Error& shipped_error) {
    CHECK(shipped_error.code() == ExitCode::usage);
    CHECK(shipped_error.subject() == (missing / "toolchains.yaml").string());
  }
}

TEST_CASE("SiteConfig::default_dir honours WHEELMOD_DATA_DIR", "[easybuild][config]") {
  const char* saved = ::getenv("WHEELMOD_DATA_DIR");
  const std::optional<std::string> previous =
      saved ? std::optional<std::string>(saved) : std::nullopt;
  const wheelmod::TemporaryDirectory data(fs::temp_directory_path(), "wheelmod-data-");
  fs::create_directories(data.path() / "config");
  fs::create_directories(data.path() / "templates");
  ::setenv("WHEELMOD_DATA_DIR", data.path().c_str(), 1);
  CHECK(SiteConfig::default_dir() == data.path() / "config");
  // A directory without the data is refused, naming the variable, rather than read as empty.
  ::setenv("WHEELMOD_DATA_DIR", (data.path() / "config").c_str(), 1);
  CHECK_THROWS_AS(SiteConfig::default_dir(), wheelmod::UsageError);
  ::unsetenv("WHEELMOD_DATA_DIR");
  // Installed (<exe>/../share/wheelmod/config) or the source tree: either
  // way a directory with the shipped tables.
  CHECK(fs::is_regular_file(SiteConfig::default_dir() / "toolchains.yaml"));
  if (previous) ::setenv("WHEELMOD_DATA_DIR", previous->c_str(), 1);
}
