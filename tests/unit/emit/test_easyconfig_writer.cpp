#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "emit/easyconfig_plan.hpp"
#include "emit/easyconfig_writer.hpp"
#include "emit/templates.hpp"
#include "index_client/accelerator.hpp"
#include "resolve/report.hpp"

namespace eb = wheelmod::easybuild;
namespace emit = wheelmod::emit;
namespace resolve = wheelmod::resolve;

namespace {

const eb::SiteConfig& shipped() {
  static const eb::SiteConfig config = eb::SiteConfig::load(WHEELMOD_CONFIG_DIR);
  return config;
}

const eb::Generation& generation(std::string_view toolchain) {
  const auto* found = shipped().find_generation(toolchain);
  REQUIRE(found != nullptr);
  return *found;
}

// Python's implicit concatenation of the wrapped literals ('a' 'b' -> 'ab'),
// for literals without escapes.
std::string unwrapped(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    const auto first = line.find_first_of("'\"");
    const auto last = line.find_last_of(line[first]);
    out += line.substr(first + 1, last - first - 1);
  }
  return out;
}

}  // namespace

TEST_CASE("python_string quotes like Python's repr, preferring single quotes",
          "[emit][easyconfig]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"PyTorch", "'PyTorch'"},
      {"", "''"},
      {"it's", "\"it's\""},
      {"say \"hi\"", "'say \"hi\"'"},
      {"a'b\"c", "'a\\'b\"c'"},
      {"back\\slash", "'back\\\\slash'"},
      {"two\nlines\ttab", "'two\\nlines\\ttab'"},
      {std::string("bell\x07", 5), "'bell\\x07'"},
      {"%(cudaver)s %2B", "'%(cudaver)s %2B'"},
  };
  for (const auto& [input, expected] : cases) {
    CAPTURE(input);
    CHECK(emit::python_string(input) == expected);
  }
}

TEST_CASE("wrap_string_item keeps 120 columns and the text", "[emit][easyconfig]") {
  SECTION("a short item is one line") {
    CHECK(emit::wrap_string_item("wheelmod check %(installdir)s", 4) ==
          std::vector<std::string>{"    'wheelmod check %(installdir)s',"});
  }
  SECTION("a long command breaks after spaces") {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "word" + std::to_string(i) + " ";
    text += "end";
    const auto lines = emit::wrap_string_item(text, 4);
    REQUIRE(lines.size() > 1);
    for (const auto& line : lines) {
      CHECK(line.size() <= 120);
      CHECK(line.starts_with("    '"));
    }
    CHECK(lines.back().ends_with("end',"));
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) CHECK(lines[i].ends_with(" '"));
    CHECK(unwrapped(lines) == text);
  }
  SECTION("a URL breaks after a '/'") {
    const std::string url = "https://files.pythonhosted.org/packages/51/5e/" +
                            std::string(50, 'a') + "/" + std::string(30, 'b');
    const auto lines = emit::wrap_string_item(url, 12);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "            'https://files.pythonhosted.org/packages/51/5e/" +
                          std::string(50, 'a') + "/'");
    CHECK(unwrapped(lines) == url);
  }
  SECTION("a piece without a break is cut at the width") {
    const std::string text(300, 'x');
    const auto lines = emit::wrap_string_item(text, 4, ",", 40);
    for (const auto& line : lines) CHECK(line.size() <= 40);
    CHECK(unwrapped(lines) == text);
  }
}

TEST_CASE("wrap_comment keeps any text inside the comment", "[emit][easyconfig]") {
  // A line break, a carriage return or a NUL would end the comment (Python runs what follows) or
  // make the file unreadable to EasyBuild: written escaped, as are bytes outside ASCII.
  const auto lines =
      emit::wrap_comment(std::string("wheelmod: x\nimport os\r\0 \xe2\x80\xa8", 27), 4);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "    # wheelmod: x\\x0aimport os\\x0d\\x00 \\xe2\\x80\\xa8");
}

TEST_CASE("wrap_comment wraps between words", "[emit][easyconfig]") {
  const auto lines = emit::wrap_comment(
      "wheelmod: typing-extensions>=4.10.0: Python/3.11.3-GCCcore-12.3.0 does not satisfy it "
      "(wants "
      ">=4.10.0, module has 4.6.3)",
      4);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == "    # 4.6.3)");
  for (const auto& line : lines) CHECK(line.size() <= 120);
}

TEST_CASE("render_string_list uses one line when it fits", "[emit][easyconfig]") {
  CHECK(emit::render_string_list("'source_urls': ", {"https://download.pytorch.org/whl/cu126"}, 8,
                                 ",") ==
        std::vector<std::string>{
            "        'source_urls': ['https://download.pytorch.org/whl/cu126'],"});
  const auto lines = emit::render_string_list("'source_urls': ", {std::string(110, 'u')}, 8, ",");
  REQUIRE(lines.size() >= 3);
  CHECK(lines.front() == "        'source_urls': [");
  CHECK(lines.back() == "        ],");
}

TEST_CASE("module names split as EasyBuildMNS builds them", "[emit][easyconfig]") {
  const auto& g2024a = generation("foss-2024a");
  struct Case {
    std::string module, name, version, suffix;
    std::optional<std::string> toolchain;
  };
  const std::vector<Case> cases = {
      {"CUDA/12.6.0", "CUDA", "12.6.0", "", std::nullopt},
      {"cuDNN/9.5.1.17-CUDA-12.6.0", "cuDNN", "9.5.1.17", "-CUDA-12.6.0", std::nullopt},
      {"NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0", "NCCL", "2.22.3", "-CUDA-12.6.0",
       "GCCcore-13.3.0"},
      {"SciPy-bundle/2024.05-gfbf-2024a", "SciPy-bundle", "2024.05", "", "gfbf-2024a"},
      {"Triton/3.5.0-gfbf-2024a-CUDA-12.6.0", "Triton", "3.5.0", "-CUDA-12.6.0", "gfbf-2024a"},
      {"Python/3.12.3-GCCcore-13.3.0", "Python", "3.12.3", "", "GCCcore-13.3.0"},
      {"CUDA-wheel-bundle/12.6.0-gfbf-2024a-CUDA-12.6.0", "CUDA-wheel-bundle", "12.6.0",
       "-CUDA-12.6.0", "gfbf-2024a"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.module);
    const auto parts = emit::parse_module_name(c.module, g2024a);
    REQUIRE(parts);
    CHECK(parts->name == c.name);
    CHECK(parts->version == c.version);
    CHECK(parts->versionsuffix == c.suffix);
    CHECK(parts->toolchain == c.toolchain);
  }
  CHECK_FALSE(emit::parse_module_name("CUDA", g2024a));
  CHECK_FALSE(emit::parse_module_name("a/b/c", g2024a));
}

TEST_CASE("module names become dependency tuples", "[emit][easyconfig]") {
  const auto& g2024a = generation("foss-2024a");
  const eb::Toolchain foss{"foss", "2024a", "", ""};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"CUDA/12.6.0", "('CUDA', '12.6.0', '', SYSTEM)"},
      {"cuDNN/9.5.1.17-CUDA-12.6.0", "('cuDNN', '9.5.1.17', '-CUDA-%(cudaver)s', SYSTEM)"},
      {"NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0", "('NCCL', '2.22.3', '-CUDA-%(cudaver)s')"},
      {"SciPy-bundle/2024.05-gfbf-2024a", "('SciPy-bundle', '2024.05')"},
      {"Python/3.12.3-GCCcore-13.3.0", "('Python', '3.12.3')"},
      {"Triton/3.5.0-gfbf-2024a-CUDA-12.6.0", "('Triton', '3.5.0', '-CUDA-%(cudaver)s')"},
  };
  for (const auto& [module, tuple] : cases) {
    CAPTURE(module);
    const auto dependency = emit::dependency_from_module(module, g2024a, foss, "12.6.0");
    REQUIRE(dependency);
    CHECK(emit::dependency_tuple(*dependency) == tuple);
  }
  SECTION("another CUDA's suffix stays literal") {
    const auto dependency =
        emit::dependency_from_module("cuDNN/9.5.1.17-CUDA-12.6.0", g2024a, foss, "12.4.0");
    REQUIRE(dependency);
    CHECK(dependency->versionsuffix == "-CUDA-12.6.0");
  }
  SECTION("a toolchain that is not below the target's is refused") {
    const auto dependency = emit::dependency_from_module("SciPy-bundle/2024.05-gfbf-2024a", g2024a,
                                                         {"GCCcore", "13.3.0", "", ""}, "");
    REQUIRE_FALSE(dependency);
    CHECK(dependency.error().find("not GCCcore-13.3.0 or one of its subtoolchains") !=
          std::string::npos);
  }
  CHECK(emit::dependency_tuple({"PyTorch", "", "", emit::DependencyToolchain::inherited, true}) ==
        "('PyTorch', version, versionsuffix)");
}

TEST_CASE("subtoolchains of the foss family", "[emit][easyconfig]") {
  CHECK(emit::is_subtoolchain("GCCcore", "foss"));
  CHECK(emit::is_subtoolchain("gfbf", "foss"));
  CHECK(emit::is_subtoolchain("gompi", "foss"));
  CHECK(emit::is_subtoolchain("foss", "foss"));
  CHECK(emit::is_subtoolchain("GCCcore", "GCC"));
  CHECK_FALSE(emit::is_subtoolchain("gompi", "gfbf"));
  CHECK_FALSE(emit::is_subtoolchain("foss", "gfbf"));
  CHECK_FALSE(emit::is_subtoolchain("GCC", "GCCcore"));
}

TEST_CASE("easyconfig file names", "[emit][easyconfig]") {
  emit::Easyconfig easyconfig;
  easyconfig.name = "PyTorch";
  easyconfig.version = "2.6.0";
  easyconfig.versionsuffix = "-CUDA-%(cudaver)s-whl";
  easyconfig.toolchain = {"foss", "2024a", "", ""};
  easyconfig.cuda_version = "12.6.0";
  CHECK(emit::easyconfig_file_name(easyconfig) == "PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb");
  easyconfig.toolchain = {"system", "system", "", ""};
  CHECK(emit::easyconfig_file_name(easyconfig) == "PyTorch-2.6.0-CUDA-12.6.0-whl.eb");
}

TEST_CASE("the config keeps the generation's CUDA-wheel-bundle", "[emit][easyconfig]") {
  const auto& bundle = generation("foss-2024a").cuda_wheel_bundle;
  REQUIRE(bundle);
  CHECK(bundle->module == "CUDA-wheel-bundle/12.6.0-gfbf-2024a-CUDA-12.6.0");
  CHECK(bundle->packages.at("nvidia-nccl-cu12") == "2.26.2.post1");
  CHECK_FALSE(generation("foss-2023a").cuda_wheel_bundle);
}

namespace {

resolve::Dependency module_requirement(std::string project, std::string requirement,
                                       std::string module) {
  resolve::Dependency out;
  out.requirement = std::move(requirement);
  out.name = std::move(project);
  out.resolution = resolve::DependencyResolution::eb_module;
  out.provider = std::move(module);
  return out;
}

resolve::Dependency wheel_requirement(std::string project, std::string requirement,
                                      resolve::DependencyResolution resolution,
                                      std::string filename, std::string version) {
  resolve::Dependency out;
  out.requirement = std::move(requirement);
  out.name = std::move(project);
  out.resolution = resolution;
  out.provider = std::move(filename);
  out.provided_version = std::move(version);
  return out;
}

resolve::ChosenWheel wheel(std::string name, std::string version, std::string filename,
                           std::string url, char digit, bool requested) {
  resolve::ChosenWheel out;
  out.name = std::move(name);
  out.version = std::move(version);
  out.filename = std::move(filename);
  out.url = std::move(url);
  out.sha256 = std::string(64, digit);
  out.requested = requested;
  return out;
}

// torch 2.6.0+cu126 for foss-2024a on two architectures, as the resolver
// reports it: x86_64 needs triton (bundled) and cuDNN; aarch64 needs neither.
enum class NcclPin { none, differs };

emit::StackRequest stack(eb::MetadataPolicy metadata, NcclPin nccl = NcclPin::differs) {
  emit::StackRequest request;
  request.requested = {"torch", "torchvision"};
  request.generation = &generation("foss-2024a");
  request.toolchain = "foss-2024a";
  request.accelerator = wheelmod::index_client::AcceleratorKind::cuda;
  request.cuda_version = "12.6.0";
  request.variant = "cu126";
  request.metadata = metadata;
  request.command = {"wheelmod", "easyconfig", "torch==2.6.0", "torchvision"};
  const std::string base = "https://download.pytorch.org/whl/cu126/";
  auto torch_x86 =
      wheel("torch", "2.6.0+cu126", "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
            base + "torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl", '1', true);
  torch_x86.dependencies = {
      module_requirement("nvidia-cudnn-cu12", "nvidia-cudnn-cu12==9.5.1.17",
                         "cuDNN/9.5.1.17-CUDA-12.6.0"),
      module_requirement("networkx", "networkx", "networkx/3.4.2-gfbf-2024a"),
      wheel_requirement("triton", "triton==3.2.0", resolve::DependencyResolution::bundled_wheel,
                        "triton-3.2.0-x86.whl", "3.2.0")};
  // 2024a's CUDA-wheel-bundle pins nvidia-nccl-cu12 2.26.2.post1, torch 2.6.0 wants 2.21.5.
  if (nccl == NcclPin::differs)
    torch_x86.dependencies.push_back(module_requirement(
        "nvidia-nccl-cu12", "nvidia-nccl-cu12==2.21.5", "NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0"));
  const auto triton = wheel("triton", "3.2.0", "triton-3.2.0-x86.whl",
                            "https://download.pytorch.org/whl/triton-3.2.0-x86.whl", '2', false);
  auto vision_x86 = wheel("torchvision", "0.21.0+cu126", "torchvision-0.21.0+cu126-x86.whl",
                          base + "torchvision-0.21.0%2Bcu126-x86.whl", '3', true);
  vision_x86.dependencies = {
      module_requirement("pillow", "pillow", "Pillow/10.4.0-GCCcore-13.3.0"),
      wheel_requirement("torch", "torch==2.6.0", resolve::DependencyResolution::chosen_wheel,
                        torch_x86.filename, "2.6.0+cu126")};
  auto torch_arm = wheel("torch", "2.6.0+cu126", "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl",
                         base + "torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl", '4', true);
  torch_arm.dependencies = {
      module_requirement("networkx", "networkx", "networkx/3.4.2-gfbf-2024a")};
  auto vision_arm = wheel("torchvision", "0.21.0", "torchvision-0.21.0-arm.whl",
                          base + "torchvision-0.21.0-arm.whl", '5', true);
  vision_arm.dependencies = vision_x86.dependencies;
  request.reports["aarch64"].wheels = {torch_arm, vision_arm};
  request.reports["x86_64"].wheels = {torch_x86, vision_x86, triton};
  for (const auto& [arch, report] : request.reports)
    for (const auto& chosen : report.wheels) request.imports.try_emplace(chosen.filename);
  return request;
}

const emit::Easyconfig& named(const emit::EasyconfigPlan& plan, std::string_view name) {
  for (const auto& easyconfig : plan.easyconfigs)
    if (easyconfig.name == name) return easyconfig;
  FAIL("no easyconfig " << name);
  throw;
}

}  // namespace

TEST_CASE("planning: groups, per-architecture parts, stable order", "[emit][easyconfig][plan]") {
  const auto plan = emit::plan_easyconfigs(stack(eb::MetadataPolicy::keep));
  REQUIRE(plan.easyconfigs.size() == 3);
  const auto& pytorch = named(plan, "PyTorch");
  CHECK(pytorch.versionsuffix == "-CUDA-%(cudaver)s-whl");
  REQUIRE(pytorch.extensions.size() == 2);
  CHECK(pytorch.extensions[0].name == "triton");  // bundled first
  CHECK(pytorch.extensions[0].files.size() == 1);
  CHECK(pytorch.extensions[1].name == "torch");
  CHECK(pytorch.extensions[1].files.size() == 2);
  std::vector<std::string> tuples;
  for (const auto& dependency : pytorch.dependencies)
    tuples.push_back(emit::dependency_tuple(dependency));
  CHECK(tuples == std::vector<std::string>{
                      "('CUDA', '12.6.0', '', SYSTEM)",
                      "('CUDA-wheel-bundle', '12.6.0', '-PyTorch-2.6.0-CUDA-%(cudaver)s')",
                      "('Python', '3.12.3')", "('networkx', '3.4.2')"});
  const auto& bundle = named(plan, "PyTorch-bundle");
  CHECK(bundle.extensions.size() == 1);
  CHECK(bundle.extensions[0].version == "0.21.0");
  CHECK(emit::dependency_tuple(bundle.dependencies[2]) == "('PyTorch', version, versionsuffix)");
  const auto& wheels = named(plan, "CUDA-wheel-bundle");
  CHECK(wheels.dummy_package);
  REQUIRE(wheels.extensions.size() == 2);
  CHECK(wheels.extensions[0].name == "nvidia-cudnn-cu12");
  CHECK(wheels.extensions[0].version == "9.5.1.17");
  CHECK(wheels.extensions[1].version == "2.21.5");
  // gfbf as easybuild-easyconfigs' own bundles (a GCCcore one fails its test suite without
  // binutils among the build dependencies).
  CHECK(wheels.toolchain.name == "gfbf");
  CHECK(emit::easyconfig_file_name(wheels) ==
        "CUDA-wheel-bundle-12.6.0-gfbf-2024a-PyTorch-2.6.0-CUDA-12.6.0.eb");

  const emit::TemplateSet templates(emit::TemplateSet::default_dir());
  const auto text = emit::render_easyconfig(pytorch, templates);
  CHECK(text.find("'sources': [local_torch_sources[ARCH]],") != std::string::npos);
  CHECK(text.find("'download_filename': 'torch-2.6.0%2Bcu126-cp312-cp312-linux_aarch64.whl',") !=
        std::string::npos);
  CHECK(text.find("] + local_arch_exts[ARCH]\n") != std::string::npos);
  CHECK(text.find("\n\n\n") == std::string::npos);
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    CHECK(end - start <= 120);
    start = end + 1;
  }
  // Stable: the same input gives the same bytes.
  CHECK(emit::render_easyconfig(
            named(emit::plan_easyconfigs(stack(eb::MetadataPolicy::keep)), "PyTorch"), templates) ==
        text);
}

TEST_CASE("planning uses the generation's CUDA-wheel-bundle when its pins match",
          "[emit][easyconfig][plan]") {
  const auto plan = emit::plan_easyconfigs(stack(eb::MetadataPolicy::keep, NcclPin::none));
  REQUIRE(plan.easyconfigs.size() == 2);
  const auto& pytorch = named(plan, "PyTorch");
  CHECK(emit::dependency_tuple(pytorch.dependencies[1]) ==
        "('CUDA-wheel-bundle', '12.6.0', '-CUDA-%(cudaver)s')");
}

TEST_CASE("planning with --metadata strip", "[emit][easyconfig][plan]") {
  const auto plan = emit::plan_easyconfigs(stack(eb::MetadataPolicy::strip));
  REQUIRE(plan.easyconfigs.size() == 2);
  const auto& pytorch = named(plan, "PyTorch");
  // cuDNN on both architectures: the aarch64 wheel needs the library without saying so.
  CHECK(std::ranges::any_of(pytorch.dependencies, [](const auto& d) { return d.name == "cuDNN"; }));
  CHECK(pytorch.arch_dependencies.empty());
  REQUIRE(pytorch.postinstallcmds.size() == 1);
  CHECK(pytorch.postinstallcmds[0] ==
        "sed -E -i '/^Requires-Dist: (nvidia[-_.]cudnn[-_.]cu12|nvidia[-_.]nccl[-_.]cu12)([[ "
        ";=<>!~(@]|$)/Id' "
        "%(installdir)s/lib/python%(pyshortver)s/site-packages/torch-*.dist-info/METADATA");
}

TEST_CASE("planning refuses a stack without torch", "[emit][easyconfig][plan]") {
  auto request = stack(eb::MetadataPolicy::keep);
  request.requested = {"torchvision"};
  CHECK_THROWS_AS(emit::plan_easyconfigs(request), wheelmod::UsageError);
}

TEST_CASE("modulename as the wheel decides it", "[emit][easyconfig]") {
  using Kind = wheelmod::wheel::ExtensionImport::Kind;
  CHECK_FALSE(emit::modulename_expression({Kind::project_name, "torch"}));
  CHECK(emit::modulename_expression({Kind::other_name, "cuda.bindings"}) == "'cuda.bindings'");
  CHECK(emit::modulename_expression({Kind::nothing, "nvidia_cublas"}) == "False");
  CHECK(emit::public_version("2.6.0+cu126") == "2.6.0");
  CHECK(emit::public_version("0.21.0") == "0.21.0");
}

TEST_CASE("planning writes each wheel's import decision", "[emit][easyconfig][plan]") {
  auto request = stack(eb::MetadataPolicy::strip);
  request.imports["triton-3.2.0-x86.whl"] = {wheelmod::wheel::ExtensionImport::Kind::nothing, ""};
  const auto plan = emit::plan_easyconfigs(request);
  const auto& pytorch = named(plan, "PyTorch");
  CHECK(pytorch.extensions[0].modulename == "False");
  CHECK_FALSE(pytorch.extensions[1].modulename);
  // The two torch wheels disagreeing is refused: one exts_list entry checks one import.
  request.imports["torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl"] = {
      wheelmod::wheel::ExtensionImport::Kind::other_name, "torch_arm"};
  CHECK_THROWS_AS(emit::plan_easyconfigs(request), wheelmod::UnsatisfiableError);
  // A wheel with no decision is a caller's error, not a guess.
  request.imports.erase("torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl");
  CHECK_THROWS_AS(emit::plan_easyconfigs(request), std::invalid_argument);
}

TEST_CASE("a wheel on PyPI takes EasyBuild's PyPI default source_urls",
          "[emit][easyconfig][plan]") {
  auto request = stack(eb::MetadataPolicy::strip);
  // triton as download.pytorch.org's mirrored dependency pages link it: to PyPI's files host.
  auto& triton = request.reports["x86_64"].wheels[2];
  REQUIRE(triton.name == "triton");
  triton.url = "https://files.pythonhosted.org/packages/4a/b1/ab/triton-3.2.0-x86.whl";
  const auto plan = emit::plan_easyconfigs(request);
  const auto& pytorch = named(plan, "PyTorch");
  CHECK(pytorch.extensions[0].files.at("x86_64").on_pypi);
  CHECK_FALSE(pytorch.extensions[1].files.at("x86_64").on_pypi);
  const emit::TemplateSet templates(emit::TemplateSet::default_dir());
  const auto text = emit::render_easyconfig(pytorch, templates);
  const auto triton_entry = text.substr(text.find("('triton', '3.2.0', {"));
  CHECK(triton_entry.substr(0, triton_entry.find("}),")).find("source_urls") == std::string::npos);
  // torch's files stay named where they are.
  CHECK(text.find("'source_urls': ['https://download.pytorch.org/whl/cu126'],") !=
        std::string::npos);
}

TEST_CASE("ROCm modules: their toolchains end the version, the tuple names them",
          "[emit][easyconfig][rocm]") {
  const auto& g2025a = generation("foss-2025a");
  const eb::Toolchain foss{"foss", "2025a", "", ""};
  struct Case {
    std::string module, name, version, suffix;
    std::optional<std::string> toolchain;
    std::string tuple;
  };
  const std::vector<Case> cases = {
      {"HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1", "HIP", "6.4.1", "",
       "rocm-compilers-19.0.0-ROCm-6.4.1",
       "('HIP', '6.4.1', '', ('rocm-compilers', '19.0.0-ROCm-6.4.1'))"},
      {"hipFFT/1.0.18-rocm-compilers-19.0.0-ROCm-6.4.1-nompi", "hipFFT", "1.0.18", "-nompi",
       "rocm-compilers-19.0.0-ROCm-6.4.1",
       "('hipFFT', '1.0.18', '-nompi', ('rocm-compilers', '19.0.0-ROCm-6.4.1'))"},
      // GCCcore is below foss: no toolchain in the tuple, EasyBuild finds the subtoolchain.
      {"ROCm-LLVM/19.0.0-GCCcore-14.2.0-ROCm-6.4.1", "ROCm-LLVM", "19.0.0", "-ROCm-6.4.1",
       "GCCcore-14.2.0", "('ROCm-LLVM', '19.0.0', '-ROCm-6.4.1')"},
      {"numactl/2.0.19-GCCcore-14.2.0", "numactl", "2.0.19", "", "GCCcore-14.2.0",
       "('numactl', '2.0.19')"},
      // The toolchain module itself is built with SYSTEM.
      {"rocm-compilers/19.0.0-ROCm-6.4.1", "rocm-compilers", "19.0.0", "-ROCm-6.4.1", std::nullopt,
       "('rocm-compilers', '19.0.0', '-ROCm-6.4.1', SYSTEM)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.module);
    const auto parts = emit::parse_module_name(c.module, g2025a);
    REQUIRE(parts);
    CHECK(parts->name == c.name);
    CHECK(parts->version == c.version);
    CHECK(parts->versionsuffix == c.suffix);
    CHECK(parts->toolchain == c.toolchain);
    const auto dependency = emit::dependency_from_module(c.module, g2025a, foss, "");
    REQUIRE(dependency);
    CHECK(emit::dependency_tuple(*dependency) == c.tuple);
  }
  // From a GCCcore easyconfig too: the tuple names the ROCm toolchain whatever the target.
  const auto from_gcccore = emit::dependency_from_module(
      "RCCL/2.22.3-rocm-compilers-19.0.0-ROCm-6.4.1", g2025a, {"GCCcore", "14.2.0", "", ""}, "");
  REQUIRE(from_gcccore);
  CHECK(from_gcccore->toolchain == emit::DependencyToolchain::named);
}

namespace {

// torch 2.9.1+rocm6.4 (x86_64 only, as download.pytorch.org has it) for `toolchain`.
emit::StackRequest rocm_stack(std::string toolchain, std::string variant, bool relink,
                              eb::RocmLibraryMode mode) {
  emit::StackRequest request;
  request.requested = {"torch", "torchvision"};
  request.generation = &generation(toolchain);
  request.toolchain = toolchain;
  request.accelerator = wheelmod::index_client::AcceleratorKind::rocm;
  request.variant = variant;
  request.relink = relink ? emit::RelinkStep::relink : emit::RelinkStep::none;
  request.rocm_libraries = mode;
  request.wheelmod_version = "0.1.0";
  request.command = {"wheelmod", "easyconfig", "torch==2.9.1", "torchvision"};
  const std::string base = "https://download.pytorch.org/whl/" + variant + "/";
  const auto label = "+" + variant;
  auto torch = wheel(
      "torch", "2.9.1" + label, "torch-2.9.1" + label + "-cp313-cp313-manylinux_2_28_x86_64.whl",
      base + "torch-2.9.1%2B" + variant + "-cp313-cp313-manylinux_2_28_x86_64.whl", '1', true);
  auto vision = wheel("torchvision", "0.24.1" + label, "torchvision-0.24.1" + label + "-x86.whl",
                      base + "torchvision-0.24.1%2B" + variant + "-x86.whl", '2', true);
  vision.dependencies = {wheel_requirement("torch", "torch==2.9.1",
                                           resolve::DependencyResolution::chosen_wheel,
                                           torch.filename, torch.version)};
  request.reports["x86_64"].wheels = {torch, vision};
  for (const auto& chosen : request.reports["x86_64"].wheels)
    request.imports.try_emplace(chosen.filename);
  return request;
}

std::vector<std::string> tuples(const std::vector<emit::DependencySpec>& dependencies) {
  std::vector<std::string> out;
  for (const auto& dependency : dependencies) out.push_back(emit::dependency_tuple(dependency));
  return out;
}

bool header_says(const emit::Easyconfig& easyconfig, std::string_view text) {
  return std::ranges::any_of(easyconfig.header, [&](const std::string& line) {
    return line.find(text) != std::string::npos;
  });
}

}  // namespace

TEST_CASE("planning a ROCm build whose libraries come from the ROCm modules",
          "[emit][easyconfig][plan][rocm]") {
  for (const auto mode : {eb::RocmLibraryMode::automatic, eb::RocmLibraryMode::modules}) {
    CAPTURE(eb::rocm_mode_text(mode));
    const auto plan = emit::plan_easyconfigs(rocm_stack("foss-2025a", "rocm6.4", true, mode));
    const auto& pytorch = named(plan, "PyTorch");
    // The ROCm modules' version: the installation is of the wheels on those modules.
    CHECK(pytorch.versionsuffix == "-ROCm-6.4.1-whl");
    CHECK(emit::easyconfig_file_name(pytorch) == "PyTorch-2.9.1-foss-2025a-ROCm-6.4.1-whl.eb");
    CHECK(named(plan, "PyTorch-bundle").versionsuffix == "-ROCm-6.4.1-whl");
    const auto deps = tuples(pytorch.dependencies);
    // Each first provider once (libamdhip64 and libhiprtc are both HIP's), built with the ROCm
    // toolchain named, GCCcore ones inherited, GCCcore itself (libgomp) left to the toolchain.
    CHECK(std::ranges::count(deps,
                             "('HIP', '6.4.1', '', ('rocm-compilers', '19.0.0-ROCm-6.4.1'))") == 1);
    CHECK(std::ranges::count(deps,
                             "('rocTracer', '4.1.0', '', ('rocm-compilers', "
                             "'19.0.0-ROCm-6.4.1'))") == 1);
    CHECK(std::ranges::count(deps, "('ROCm-LLVM', '19.0.0', '-ROCm-6.4.1')") == 1);
    CHECK(std::ranges::count(deps, "('libdrm', '2.4.125')") == 1);
    CHECK(std::ranges::count(deps, "('numactl', '2.0.19')") == 1);
    CHECK(std::ranges::none_of(pytorch.dependencies,
                               [](const auto& d) { return d.name == "GCCcore"; }));
    // Every provider module of the table, and only those, besides Python.
    std::set<std::string> expected;
    for (const auto& [file, library] : generation("foss-2025a").rocm_libraries)
      if (!library.provided_by.empty() && library.provided_by.front().name != "GCCcore")
        expected.insert(library.provided_by.front().name);
    std::set<std::string> got;
    for (const auto& d : pytorch.dependencies)
      if (d.name != "Python") got.insert(d.name);
    CHECK(got == expected);
    CHECK(expected.size() == 22);
    // The accelerator's modules first (as CUDA's), then Python.
    CHECK(pytorch.dependencies.back().name == "Python");
    CHECK(pytorch.postinstallcmds ==
          std::vector<std::string>{
              "wheelmod relink %(installdir)s --toolchain foss-2025a --rocm-libraries modules",
              "wheelmod check %(installdir)s"});
    CHECK(header_says(pytorch, "ROCm libraries: from the ROCm 6.4.1 modules of generation 2025a"));
    CHECK(header_says(pytorch, "libMIOpen.so, libhipsolver.so, libmagma.so stay bundled"));
    // The wheel's ROCm is what torch reports: the sanity check still wants 6.4.
    CHECK(pytorch.sanity_check_commands.back().ends_with("grep -E '^6[.]4'"));
    // The bundle loads them through PyTorch.
    CHECK(tuples(named(plan, "PyTorch-bundle").dependencies) ==
          std::vector<std::string>{"('Python', '3.13.1')", "('PyTorch', version, versionsuffix)"});
  }
}

TEST_CASE("planning a ROCm build that keeps the wheel's libraries",
          "[emit][easyconfig][plan][rocm]") {
  struct Case {
    std::string toolchain, variant;
    bool relink;
    eb::RocmLibraryMode mode;
    std::string suffix, why;
  };
  const std::vector<Case> cases = {
      {"foss-2025a", "rocm6.4", true, eb::RocmLibraryMode::bundled, "-ROCm-6.4-whl",
       "(--rocm-libraries bundled)"},
      {"foss-2025a", "rocm6.4", false, eb::RocmLibraryMode::automatic, "-ROCm-6.4-whl",
       "without --with-relink pip installs the wheel as published"},
      {"foss-2025a", "rocm6.3", true, eb::RocmLibraryMode::automatic, "-ROCm-6.3-whl",
       "the wheel is built for ROCm 6.3, generation 2025a's ROCm modules are 6.4.1"},
      {"foss-2025b", "rocm6.4", true, eb::RocmLibraryMode::automatic, "-ROCm-6.4-whl",
       "generation 2025b has no ROCm stack"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.toolchain, c.variant, c.relink, eb::rocm_mode_text(c.mode));
    const auto plan = emit::plan_easyconfigs(rocm_stack(c.toolchain, c.variant, c.relink, c.mode));
    const auto& pytorch = named(plan, "PyTorch");
    CHECK(pytorch.versionsuffix == c.suffix);
    CHECK(header_says(pytorch, "ROCm libraries: the wheel's own, bundled in torch/lib"));
    CHECK(header_says(pytorch, c.why));
    CHECK(tuples(pytorch.dependencies) ==
          std::vector<std::string>{"('Python', '" + generation(c.toolchain).python.version + "')"});
    if (c.relink)
      CHECK(pytorch.postinstallcmds.front() ==
            "wheelmod relink %(installdir)s --toolchain " + c.toolchain);
    else
      CHECK(pytorch.postinstallcmds.empty());
  }
}

TEST_CASE("planning refuses --rocm-libraries modules where it cannot be (usage error)",
          "[emit][easyconfig][plan][rocm]") {
  const auto refused = [](emit::StackRequest request, std::string_view why) {
    CAPTURE(why);
    try {
      (void)emit::plan_easyconfigs(request);
      FAIL("not refused");
    } catch (const wheelmod::UsageError& error) {
      CHECK(error.cause().find(why) != std::string::npos);
    }
  };
  const auto modules = eb::RocmLibraryMode::modules;
  refused(rocm_stack("foss-2025a", "rocm6.4", false, modules), "without --with-relink");
  refused(rocm_stack("foss-2025a", "rocm6.3", true, modules),
          "the wheel is built for ROCm 6.3, generation 2025a's ROCm modules are 6.4.1");
  refused(rocm_stack("foss-2025b", "rocm6.4", true, modules), "generation 2025b has no ROCm stack");
  auto cuda = stack(eb::MetadataPolicy::strip);
  cuda.rocm_libraries = modules;
  refused(cuda, "which bundle no ROCm libraries");
  // Before resolving, `rocm` without a version: the stack is compared once the variant is known.
  auto unresolved = rocm_stack("foss-2025a", "rocm", true, modules);
  const auto early = emit::choose_rocm_libraries(unresolved);
  REQUIRE(early);
  CHECK_FALSE(early->from_modules);
  CHECK(early->why.empty());
}
