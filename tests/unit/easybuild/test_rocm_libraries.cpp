// plan_rocm_libraries, one case per rule of config/README.md "rocm" (docs/install.md "ROCm
// wheels"), against the shipped 2025a table and a module tree made here: which bundled library
// comes from a module, which stays, and why.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "easybuild/config.hpp"
#include "easybuild/rocm_libraries.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace wheelmod::easybuild;
using wheelmod::test::TempDir;

namespace {

const Generation& generation_of(const char* toolchain) {
  static const SiteConfig config = SiteConfig::load(WHEELMOD_CONFIG_DIR);
  const Generation* generation = config.find_generation(toolchain);
  REQUIRE(generation != nullptr);
  return *generation;
}

const std::string k_hip = "HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1";
const std::string k_rocblas = "rocBLAS/4.4.0-rocm-compilers-19.0.0-ROCm-6.4.1";

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "x";
}

// <software>/<module>/lib/<file>, and the module's data directories when asked.
void install_module(const fs::path& software, const std::string& module,
                    std::initializer_list<const char*> files,
                    std::initializer_list<const char*> data = {}) {
  for (const char* file : files) touch(software / module / "lib" / file);
  for (const char* dir : data) fs::create_directories(software / module / dir);
}

const RocmLibraryChoice& choice_of(const RocmPlan& plan, const std::string& file) {
  for (const auto& choice : plan.libraries)
    if (choice.file == file) return choice;
  FAIL("no " << file << " in the plan");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("rocm_major_minor reads variants, accelerators and versions") {
  CHECK(rocm_major_minor("rocm6.4") == "6.4");
  CHECK(rocm_major_minor("rocm6.2.4") == "6.2");
  CHECK(rocm_major_minor("6.4.1") == "6.4");
  CHECK(rocm_major_minor("rocm:7.1") == "7.1");
  CHECK_FALSE(rocm_major_minor("rocm"));
  CHECK_FALSE(rocm_major_minor("rocm7"));
  CHECK_FALSE(rocm_major_minor("cu126"));
}

TEST_CASE("a ROCm library comes from its module only where the module holds it and its data") {
  TempDir site("wheelmod-rocm-plan");
  const auto software = site.path() / "software";
  install_module(software, k_hip, {"libamdhip64.so", "libhiprtc.so"});
  // rocBLAS without lib/rocblas/library: its librocblas would find no kernels.
  install_module(software, k_rocblas, {"librocblas.so"});
  const auto locator = environment_locator(
      software, [](const std::string&) { return std::optional<std::string>(); });
  const auto plan = plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.4", &locator,
                                        RocmLibraryMode::automatic);
  CHECK(plan.relinked);
  CHECK(plan.wheel_rocm == "6.4");
  CHECK(plan.stack_rocm == "6.4.1");
  const auto& hip = choice_of(plan, "libamdhip64.so");
  CHECK(hip.module == k_hip);
  CHECK(hip.soname == "libamdhip64.so.6");
  CHECK(hip.directory == software / k_hip / "lib");
  const auto& rocblas = choice_of(plan, "librocblas.so");
  CHECK_FALSE(rocblas.from_module());
  CHECK_THAT(rocblas.note, Catch::Contains("lib/rocblas/library"));
  CHECK_FALSE(choice_of(plan, "libMIOpen.so").from_module());
  CHECK_THAT(choice_of(plan, "libMIOpen.so").note, Catch::Contains("no module"));
  CHECK_THAT(choice_of(plan, "librccl.so").note, Catch::Contains("not installed here"));
  // Every name a file may need it under: torch's link name and torchvision's SONAME.
  const auto links = plan.links();
  CHECK(links.at("libamdhip64.so").module == k_hip);
  CHECK(links.at("libamdhip64.so.6").directory == (software / k_hip / "lib").string());
  CHECK_FALSE(links.contains("librocblas.so"));
  CHECK(plan.modules() == std::vector<std::string>{k_hip});
  CHECK_THAT(plan.summary, Catch::Contains("same ROCm major.minor"));

  SECTION("with its data, rocBLAS serves") {
    fs::create_directories(software / k_rocblas / "lib" / "rocblas" / "library");
    const auto again = plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.4", &locator,
                                           RocmLibraryMode::automatic);
    CHECK(choice_of(again, "librocblas.so").module == k_rocblas);
    CHECK(choice_of(again, "librocblas.so").wheel_data ==
          std::vector<std::string>{"torch/lib/rocblas/library"});
  }
  SECTION("modules: an error naming each library a module of the table cannot serve") {
    try {
      (void)plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.4", &locator,
                                RocmLibraryMode::modules);
      FAIL("no error");
    } catch (const wheelmod::CheckFailedError& error) {
      CHECK(error.code() == wheelmod::ExitCode::check_failed);
      CHECK_THAT(error.render(), Catch::Contains("librocblas.so") &&
                                     Catch::Contains("librccl.so") &&
                                     !Catch::Contains("libMIOpen.so:"));
    }
  }
}

TEST_CASE("nothing is taken from modules of another ROCm, without a stack, or with bundled") {
  TempDir site("wheelmod-rocm-plan");
  const auto software = site.path() / "software";
  install_module(software, k_hip, {"libamdhip64.so"});
  const auto locator = environment_locator(
      software, [](const std::string&) { return std::optional<std::string>(); });
  const auto mismatch = plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.3", &locator,
                                            RocmLibraryMode::automatic);
  CHECK_FALSE(mismatch.relinked);
  CHECK_THAT(mismatch.summary, Catch::Contains("not mixed"));
  CHECK_THROWS_AS(plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.3", &locator,
                                      RocmLibraryMode::modules),
                  wheelmod::CheckFailedError);
  const auto none = plan_rocm_libraries(generation_of("foss-2025b"), "rocm6.4", &locator,
                                        RocmLibraryMode::automatic);
  CHECK_FALSE(none.relinked);
  CHECK_THAT(none.summary, Catch::Contains("no ROCm stack"));
  const auto bundled = plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.4", &locator,
                                           RocmLibraryMode::bundled);
  CHECK_FALSE(bundled.relinked);
  CHECK(bundled.links().empty());
  CHECK(is_toolchain_module(generation_of("foss-2025a"), "GCCcore/14.2.0"));
  CHECK_FALSE(is_toolchain_module(generation_of("foss-2025a"), k_hip));
}

TEST_CASE("without a site to read, the table's first provider of the wheel's ROCm is named") {
  const auto plan = plan_rocm_libraries(generation_of("foss-2025a"), "rocm6.4", nullptr,
                                        RocmLibraryMode::automatic);
  CHECK(plan.relinked);
  CHECK(choice_of(plan, "libamdhip64.so").module == k_hip);
  CHECK_THAT(choice_of(plan, "libamdhip64.so").note, Catch::Contains("the site was not read"));
  CHECK_FALSE(choice_of(plan, "libhipsolver.so").from_module());
}
