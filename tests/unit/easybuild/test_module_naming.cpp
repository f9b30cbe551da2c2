// EasyBuild's module naming schemes on the shipped tables: where HierarchicalMNS puts a module
// and what it calls it (easybuild-framework hierarchical_mns.py), EasyBuildMNS unchanged.
#include <filesystem>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "easybuild/module_naming.hpp"

namespace eb = wheelmod::easybuild;
namespace fs = std::filesystem;

namespace {

const eb::Generation& shipped(std::string_view toolchain) {
  static const auto config = eb::SiteConfig::load(fs::path(WHEELMOD_CONFIG_DIR));
  const auto* generation = config.find_generation(toolchain);
  REQUIRE(generation != nullptr);
  return *generation;
}

}  // namespace

TEST_CASE("module-naming-scheme values", "[easybuild][naming]") {
  CHECK(eb::parse_naming_scheme("EasyBuildMNS", "x") == eb::NamingScheme::easybuild_mns);
  CHECK(eb::parse_naming_scheme("HierarchicalMNS", "x") == eb::NamingScheme::hierarchical_mns);
  CHECK_THROWS_AS(eb::parse_naming_scheme("CategorizedHMNS", "$EASYBUILD_MODULE_NAMING_SCHEME"),
                  wheelmod::UsageError);
  CHECK_THROWS_WITH(eb::parse_naming_scheme("hierarchicalmns", "config.cfg"),
                    Catch::Contains("config.cfg") && Catch::Contains("hierarchicalmns"));
}

TEST_CASE("HierarchicalMNS levels of toolchains", "[easybuild][naming]") {
  const auto& g2024a = shipped("foss-2024a");
  CHECK(eb::hierarchical_subdir("foss-2024a", g2024a.toolchains.at("foss-2024a")) ==
        "MPI/GCC/13.3.0/OpenMPI/5.0.3");
  CHECK(eb::hierarchical_subdir("gompi-2024a", g2024a.toolchains.at("gompi-2024a")) ==
        "MPI/GCC/13.3.0/OpenMPI/5.0.3");
  CHECK(eb::hierarchical_subdir("gfbf-2024a", g2024a.toolchains.at("gfbf-2024a")) ==
        "Compiler/GCC/13.3.0");
  CHECK(eb::hierarchical_subdir("GCC-13.3.0", g2024a.toolchains.at("GCC-13.3.0")) ==
        "Compiler/GCC/13.3.0");
  CHECK(eb::hierarchical_subdir("GCCcore-13.3.0", g2024a.toolchains.at("GCCcore-13.3.0")) ==
        "Compiler/GCCcore/13.3.0");
  // COMP_NAME_VERSION_TEMPLATES: the Intel compilers' level is "intel".
  CHECK(eb::hierarchical_subdir("intel-2024a",
                                {"intel", "2024a", "intel-compilers/2024.2.0", "impi/2021.13.0"}) ==
        "MPI/intel/2024.2.0/impi/2021.13.0");
  CHECK_THROWS_WITH(eb::hierarchical_subdir("foss-2024a", {"foss", "2024a", "", ""}),
                    Catch::Contains("foss-2024a") && Catch::Contains("no compiler"));
}

TEST_CASE("HierarchicalMNS names of the tables' modules", "[easybuild][naming]") {
  const eb::ModuleNaming naming(eb::NamingScheme::hierarchical_mns, shipped("foss-2024a"));
  const auto name_of = [&naming](const char* module) {
    const auto named = naming.name_of(module);
    return named.subdir + " " + named.name;
  };
  CHECK(name_of("CUDA/12.6.0") == "Core CUDA/12.6.0");
  CHECK(name_of("cuDNN/9.5.0.50-CUDA-12.6.0") == "Core cuDNN/9.5.0.50-CUDA-12.6.0");
  CHECK(name_of("foss/2024a") == "Core foss/2024a");
  CHECK(name_of("Python/3.12.3-GCCcore-13.3.0") == "Compiler/GCCcore/13.3.0 Python/3.12.3");
  CHECK(name_of("NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0") ==
        "Compiler/GCCcore/13.3.0 NCCL/2.22.3-CUDA-12.6.0");
  CHECK(name_of("SciPy-bundle/2024.05-gfbf-2024a") == "Compiler/GCC/13.3.0 SciPy-bundle/2024.05");
  CHECK(name_of("mpi4py/4.0.1-gompi-2024a") == "MPI/GCC/13.3.0/OpenMPI/5.0.3 mpi4py/4.0.1");
  // Only a whole toolchain part counts: followed by the end or '-'.
  CHECK(name_of("X/1.0-GCCcore-13.3.0x") == "Core X/1.0-GCCcore-13.3.0x");
  CHECK(name_of("GCCcore-13.3.0/1.0") == "Core GCCcore-13.3.0/1.0");

  const auto own = naming.installation("foss-2024a", "PyTorch", "2.6.0-foss-2024a-CUDA-12.6.0-whl");
  CHECK(own.subdir == "MPI/GCC/13.3.0/OpenMPI/5.0.3");
  CHECK(own.name == "PyTorch/2.6.0-CUDA-12.6.0-whl");
  const auto cpu = naming.installation("gfbf-2024a", "PyTorch", "2.6.0-gfbf-2024a-whl");
  CHECK(cpu.subdir == "Compiler/GCC/13.3.0");
  CHECK(cpu.name == "PyTorch/2.6.0-whl");
  // A --full-version without the toolchain part keeps its text.
  CHECK(naming.installation("foss-2024a", "PyTorch", "2.6.0-site").name == "PyTorch/2.6.0-site");
  CHECK_THROWS_WITH(naming.installation("foss-2023a", "PyTorch", "2.1.2-foss-2023a-whl"),
                    Catch::Contains("foss-2023a") && Catch::Contains("2024a"));
}

TEST_CASE("HierarchicalMNS names ROCm modules by their toolchains", "[easybuild][naming]") {
  const eb::ModuleNaming naming(eb::NamingScheme::hierarchical_mns, shipped("foss-2025a"));
  const auto hip = naming.name_of("HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1");
  CHECK(hip.subdir == "Compiler/rocm-compilers/19.0.0-ROCm-6.4.1");
  CHECK(hip.name == "HIP/6.4.1");
  const auto llvm = naming.name_of("ROCm-LLVM/19.0.0-GCCcore-14.2.0-ROCm-6.4.1");
  CHECK(llvm.subdir == "Compiler/GCCcore/14.2.0");
  CHECK(llvm.name == "ROCm-LLVM/19.0.0-ROCm-6.4.1");
}

TEST_CASE("EasyBuildMNS keeps every name", "[easybuild][naming]") {
  const eb::ModuleNaming flat;
  CHECK_FALSE(flat.hierarchical());
  CHECK(flat.loads_toolchain());
  CHECK(flat.name_of("NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0").name ==
        "NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0");
  CHECK(flat.name_of("NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0").subdir.empty());
  CHECK(flat.installation("foss-2024a", "PyTorch", "2.6.0-foss-2024a-whl").name ==
        "PyTorch/2.6.0-foss-2024a-whl");
}
