// plan_search_path against the shipped tables and the sample EasyBuild
// tree (software/CUDA/12.6.0, cuDNN/9.5.0.50-CUDA-12.6.0, ...), with the
// RPATH a torch 2.6 cu126 wheel carries.
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "easybuild/config.hpp"
#include "easybuild/library_map.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace wheelmod::easybuild;

namespace {

const fs::path k_sample = WHEELMOD_SAMPLE_INDEX_DIR;

const Generation& foss_2024a() {
  static const SiteConfig config = SiteConfig::load(WHEELMOD_CONFIG_DIR);
  const Generation* generation = config.find_generation("foss-2024a");
  REQUIRE(generation != nullptr);
  return *generation;
}

// The DT_RPATH of torch/lib/libtorch_cuda.so in torch 2.6.0+cu126 (pytorch
// .ci/manywheel/build_cuda.sh CUDA_RPATHS + ':$ORIGIN').
const std::string k_torch_rpath =
    "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cuda_cupti/lib:"
    "$ORIGIN/../../nvidia/cuda_nvrtc/lib:$ORIGIN/../../nvidia/cuda_runtime/lib:"
    "$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/cufft/lib:"
    "$ORIGIN/../../nvidia/curand/lib:$ORIGIN/../../nvidia/cusolver/lib:"
    "$ORIGIN/../../nvidia/cusparse/lib:$ORIGIN/../../cusparselt/lib:"
    "$ORIGIN/../../nvidia/nccl/lib:$ORIGIN/../../nvidia/nvtx/lib:$ORIGIN";

struct Prefix {
  wheelmod::test::TempDir dir{"wheelmod-prefix"};
  fs::path site = dir.path() / "lib/python3.12/site-packages";
  fs::path torch_lib = site / "torch/lib";
  Prefix() { fs::create_directories(torch_lib); }
  [[nodiscard]] FileLocation location() const {
    return FileLocation{.directory = torch_lib, .prefix = dir.path(), .site_packages = site};
  }
};

ModuleLocator sample_installpath() {
  return ModuleLocator{.software_root = k_sample / "software", .getenv = {}};
}

std::map<std::string, EntryPlan> by_entry(const SearchPathPlan& plan) {
  std::map<std::string, EntryPlan> out;
  for (const auto& entry : plan.entries) out.emplace(entry.entry, entry);
  return out;
}

}  // namespace

TEST_CASE("EasyBuild's variable names for a software name", "[easybuild][library_map]") {
  CHECK(extslist_variable("PyTorch") == "EBEXTSLISTPYTORCH");
  CHECK(extslist_variable("SciPy-bundle") == "EBEXTSLISTSCIPYMINBUNDLE");
  CHECK(extslist_variable("CUDA-wheel-bundle") == "EBEXTSLISTCUDAMINWHEELMINBUNDLE");
  CHECK(root_variable("torch.vision+x") == "EBROOTTORCHVISIONPLUSX");
  CHECK(version_variable("PyTorch") == "EBVERSIONPYTORCH");
}

TEST_CASE("root_variable follows EasyBuild's convert_name", "[easybuild][library_map]") {
  CHECK(root_variable("cuDNN") == "EBROOTCUDNN");
  CHECK(root_variable("CUDA") == "EBROOTCUDA");
  CHECK(root_variable("cuSPARSELt") == "EBROOTCUSPARSELT");
  CHECK(root_variable("SciPy-bundle") == "EBROOTSCIPYMINBUNDLE");
  CHECK(root_variable("libsigc++") == "EBROOTLIBSIGCPLUSPLUS");
  CHECK(root_variable("Python-bundle-PyPI") == "EBROOTPYTHONMINBUNDLEMINPYPI");
  CHECK(version_variable("NCCL") == "EBVERSIONNCCL");
}

TEST_CASE("a torch cu126 RPATH maps to the sample tree's modules", "[easybuild][library_map]") {
  const Prefix prefix;
  const std::vector<std::string> modules = {"CUDA/12.6.0", "cuDNN/9.5.0.50-CUDA-12.6.0",
                                            "NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0",
                                            "cuSPARSELt/0.6.3.2-CUDA-12.6.0"};
  const auto plan = plan_search_path(k_torch_rpath, prefix.location(), foss_2024a(), modules,
                                     sample_installpath());
  const auto software = (k_sample / "software").lexically_normal().string();
  INFO("new value: " << plan.new_value);
  CHECK(plan.complete());
  // cuBLAS, CUPTI's neighbours, NVRTC, ... all live in CUDA/lib64: once.
  CHECK(plan.new_value == software + "/CUDA/12.6.0/lib64:" + software +
                              "/CUDA/12.6.0/extras/CUPTI/lib64:" + software +
                              "/cuDNN/9.5.0.50-CUDA-12.6.0/lib:" + software +
                              "/cuSPARSELt/0.6.3.2-CUDA-12.6.0/lib:" + software +
                              "/NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0/lib:$ORIGIN");
  const auto entries = by_entry(plan);
  CHECK(entries.at("$ORIGIN/../../nvidia/cudnn/lib").action == EntryAction::mapped);
  CHECK(entries.at("$ORIGIN/../../nvidia/cudnn/lib").provider == "cuDNN/9.5.0.50-CUDA-12.6.0");
  CHECK(entries.at("$ORIGIN/../../cusparselt/lib").provider == "cuSPARSELt/0.6.3.2-CUDA-12.6.0");
  CHECK(entries.at("$ORIGIN").action == EntryAction::kept);
}

TEST_CASE("a module missing from the site leaves the entry unmapped", "[easybuild][library_map]") {
  const Prefix prefix;
  wheelmod::test::TempDir installpath("wheelmod-eb");
  fs::create_directories(installpath.path() / "software/CUDA/12.6.0/lib64");
  const auto plan = plan_search_path(
      "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN", prefix.location(),
      foss_2024a(), {"CUDA/12.6.0"},
      ModuleLocator{.software_root = installpath.path() / "software", .getenv = {}});
  CHECK_FALSE(plan.complete());
  const auto entries = by_entry(plan);
  const auto& cudnn = entries.at("$ORIGIN/../../nvidia/cudnn/lib");
  CHECK(cudnn.action == EntryAction::unmapped);
  CHECK(cudnn.provider == "nvidia-cudnn-cu12");
  CHECK_THAT(cudnn.note, Catch::Contains("cuDNN/9.5.1.17-CUDA-12.6.0"));
  CHECK(plan.new_value ==
        (installpath.path() / "software/CUDA/12.6.0/lib64").string() + ":$ORIGIN");
}

TEST_CASE("a library directory bundled in the prefix is kept", "[easybuild][library_map]") {
  const Prefix prefix;
  // --bundle-missing put nvidia-cusparselt-cu12 0.6 there: its wheel
  // installs at the top of site-packages, not under nvidia/.
  fs::create_directories(prefix.site / "cusparselt/lib");
  const auto plan =
      plan_search_path("$ORIGIN/../../nvidia/cusparselt/lib:$ORIGIN/../../cusparselt/lib:$ORIGIN",
                       prefix.location(), foss_2024a(), {}, ModuleLocator{});
  CHECK(plan.complete());
  // The library's other directory is dropped, not left unmapped: the
  // bundled wheel provides the library.
  CHECK(plan.new_value == "$ORIGIN/../../cusparselt/lib:$ORIGIN");
  const auto other = by_entry(plan).at("$ORIGIN/../../nvidia/cusparselt/lib");
  CHECK(other.action == EntryAction::dropped);
  CHECK_THAT(other.note, Catch::Contains("at cusparselt/lib"));
}

TEST_CASE("entries that point nowhere are dropped", "[easybuild][library_map]") {
  const Prefix prefix;
  struct Case {
    std::string entry;
    EntryAction action;
  };
  const Case cases[] = {
      {"", EntryAction::dropped},                              // the current directory
      {"lib", EntryAction::dropped},                           // relative to the working directory
      {"/nonexistent/wheelmod/lib", EntryAction::dropped},     // no such directory
      {"$ORIGIN/../../../../../../..", EntryAction::dropped},  // outside the installation
      {"$ORIGIN/../missing", EntryAction::dropped},            // inside, but nothing there
      {"${ORIGIN}", EntryAction::kept},
      {"/usr/lib", EntryAction::kept},
      {"$ORIGIN/../$LIB", EntryAction::kept},  // machine-dependent: kept as written
  };
  for (const auto& c : cases) {
    CAPTURE(c.entry);
    const auto plan =
        plan_search_path(c.entry, prefix.location(), foss_2024a(), {}, ModuleLocator{});
    REQUIRE(plan.entries.size() == 1);
    CHECK(plan.entries[0].action == c.action);
  }
}

TEST_CASE("loaded modules are found through EBROOT and EBVERSION", "[easybuild][library_map]") {
  wheelmod::test::TempDir root("wheelmod-ebroot");
  std::map<std::string, std::string> environment{{"EBROOTCUDNN", root.path().string()},
                                                 {"EBVERSIONCUDNN", "9.5.1.17"}};
  const ModuleLocator locator{.software_root = std::nullopt,
                              .getenv = [&](const std::string& name) -> std::optional<std::string> {
                                const auto it = environment.find(name);
                                if (it == environment.end()) return std::nullopt;
                                return it->second;
                              }};
  CHECK(locator.root_of("cuDNN/9.5.1.17-CUDA-12.6.0") == root.path());
  CHECK(locator.root_of("cuDNN/9.5.1.17") == root.path());
  // Another version is loaded: not this module.
  CHECK_FALSE(locator.root_of("cuDNN/9.5.0.50-CUDA-12.6.0"));
  CHECK_FALSE(locator.root_of("cuDNN/9.5.1.1-CUDA-12.6.0"));
  CHECK_FALSE(locator.root_of("NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0"));
  CHECK_FALSE(locator.root_of("not-a-module"));
}

TEST_CASE("module directories are absolute even from a relative installpath",
          "[easybuild][library_map]") {
  // A relative RPATH entry would be searched from the working directory of
  // whatever program loads the library.
  const auto relative = fs::relative(k_sample, fs::current_path());
  REQUIRE(relative.is_relative());
  const ModuleLocator locator{.software_root = relative / "software", .getenv = {}};
  const auto root = locator.root_of("CUDA/12.6.0");
  REQUIRE(root);
  CHECK(root->is_absolute());
  CHECK(*root == (k_sample / "software/CUDA/12.6.0").lexically_normal());
}

TEST_CASE("a CUDA library the file needs but no entry reaches gets its directory added",
          "[easybuild][library_map]") {
  const Prefix prefix;
  const auto vision = prefix.site / "torchvision";
  fs::create_directories(vision);
  const FileLocation location{
      .directory = vision, .prefix = prefix.dir.path(), .site_packages = prefix.site};
  const auto software = (k_sample / "software").lexically_normal();
  // torchvision's _C.so: libc10.so is torch's, libcudart.so.12 the CUDA module's.
  const std::vector<std::string> needed = {"libc10.so", "libcudart.so.12"};
  const auto plan = plan_search_path("$ORIGIN/../torch/lib", location, foss_2024a(),
                                     {"CUDA/12.6.0"}, sample_installpath(), needed);
  CHECK(plan.complete());
  CHECK(plan.new_value == "$ORIGIN/../torch/lib:" + (software / "CUDA/12.6.0/lib64").string());
  REQUIRE(plan.entries.size() == 2);
  CHECK(plan.entries[1].action == EntryAction::added);
  CHECK(plan.entries[1].provider == "CUDA/12.6.0");
  CHECK_THAT(plan.entries[1].note, Catch::Contains("libcudart.so.12"));

  SECTION("already reached through a mapped entry: nothing added") {
    const auto mapped =
        plan_search_path("$ORIGIN/../nvidia/cuda_runtime/lib", location, foss_2024a(),
                         {"CUDA/12.6.0"}, sample_installpath(), needed);
    CHECK(mapped.new_value == (software / "CUDA/12.6.0/lib64").string());
    CHECK(mapped.entries.size() == 1);
  }
  SECTION("bundled in the prefix: its directory, relative to $ORIGIN") {
    fs::create_directories(prefix.site / "nvidia/cuda_runtime/lib");
    { std::ofstream(prefix.site / "nvidia/cuda_runtime/lib/libcudart.so.12") << "x"; }
    const auto bundled =
        plan_search_path(std::nullopt, location, foss_2024a(), {}, ModuleLocator{}, needed);
    CHECK(bundled.new_value == "$ORIGIN/../nvidia/cuda_runtime/lib");
    CHECK(bundled.entries.at(0).action == EntryAction::added);
  }
  SECTION("no module and nothing bundled: unmapped, so relink stops") {
    const auto missing =
        plan_search_path(std::nullopt, location, foss_2024a(), {}, ModuleLocator{}, needed);
    CHECK_FALSE(missing.complete());
    CHECK(missing.entries.at(0).provider == "nvidia-cuda-runtime-cu12");
  }
}

namespace {

const Generation& foss_2026_1() {
  static const SiteConfig config = SiteConfig::load(WHEELMOD_CONFIG_DIR);
  const Generation* generation = config.find_generation("foss-2026.1");
  REQUIRE(generation != nullptr);
  return *generation;
}

// An empty file at `path` (a library as far as the search is concerned), its directories made.
void touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

}  // namespace

TEST_CASE("CUDA 13's shared wheel directory maps to every module directory its libraries are in",
          "[easybuild][library_map]") {
  // A CUDA 13.3.0 module as EasyBuild's CUDA easyblock installs it: the toolkit libraries in
  // lib64, CUPTI in extras/CUPTI/lib64 (no link to it in lib64).
  wheelmod::test::TempDir site("wheelmod-site");
  const auto cuda = site.path() / "CUDA/13.3.0";
  for (const char* soname :
       {"libcublas.so.13", "libcublasLt.so.13", "libcudart.so.13", "libcufft.so.12",
        "libcufile.so.0", "libcurand.so.10", "libcusolver.so.12", "libcusparse.so.12",
        "libnvJitLink.so.13", "libnvrtc.so.13"})
    touch(cuda / "lib64" / soname);
  touch(cuda / "extras/CUPTI/lib64/libcupti.so.13");
  const Prefix prefix;
  const auto plan =
      plan_search_path("$ORIGIN/../../nvidia/cu13/lib:$ORIGIN", prefix.location(), foss_2026_1(),
                       {"CUDA/13.3.0"}, environment_locator(site.path(), {}));
  INFO("new value: " << plan.new_value);
  CHECK(plan.complete());
  const auto root = fs::absolute(cuda).lexically_normal();
  CHECK(plan.new_value ==
        (root / "lib64").string() + ":" + (root / "extras/CUPTI/lib64").string() + ":$ORIGIN");
  const auto entries = by_entry(plan);
  const auto& shared = entries.at("$ORIGIN/../../nvidia/cu13/lib");
  CHECK(shared.action == EntryAction::mapped);
  CHECK(shared.provider == "CUDA/13.3.0");
  CHECK(shared.replacements.size() == 2);

  SECTION("a file that needs only CUPTI, reached by no entry, gets CUPTI's directory") {
    const auto added =
        plan_search_path(std::nullopt, prefix.location(), foss_2026_1(), {"CUDA/13.3.0"},
                         environment_locator(site.path(), {}), {"libcupti.so.13"});
    CHECK(added.new_value == (root / "extras/CUPTI/lib64").string());
  }
}

TEST_CASE("a module's library is found where the site's tree has it, not only where the table says",
          "[easybuild][library_map]") {
  wheelmod::test::TempDir site("wheelmod-site");
  const auto root = fs::absolute(site.path() / "cuDNN/9.23.0.39-CUDA-13.3.0").lexically_normal();
  const auto locator = environment_locator(site.path(), {});

  SECTION("the table's directory first, when the library is there") {
    touch(root / "lib/libcudnn.so.9");
    touch(root / "lib64/libcudnn.so.9");
    CHECK(locator.directory_with(root, "lib", "libcudnn.so.9") == root / "lib");
  }
  SECTION("else the shallowest directory of the module that has it") {
    touch(root / "lib64/libcudnn.so.9");
    touch(root / "a/b/c/libcudnn.so.9");
    CHECK(locator.directory_with(root, "lib", "libcudnn.so.9") == root / "lib64");
  }
  SECTION("a link to a library counts; a link to a directory is not followed") {
    touch(site.path() / "elsewhere/libcudnn.so.9");
    fs::create_directories(root / "lib");
    fs::create_symlink(site.path() / "elsewhere", root / "linked");
    fs::create_symlink(root, root / "lib/loop");
    CHECK_FALSE(locator.directory_with(root, "lib", "libcudnn.so.9"));
    fs::create_symlink(site.path() / "elsewhere/libcudnn.so.9", root / "lib/libcudnn.so.9.23");
    CHECK_FALSE(locator.directory_with(root, "lib", "libcudnn.so.9"));
    fs::create_symlink(site.path() / "elsewhere/libcudnn.so.9", root / "lib/libcudnn.so.9");
    CHECK(locator.directory_with(root, "lib", "libcudnn.so.9") == root / "lib");
  }
  SECTION(
      "nothing in the tree: nullopt, and a module without the file maps to its table directory") {
    fs::create_directories(root / "lib");
    CHECK_FALSE(locator.directory_with(root, "lib", "libcudnn.so.9"));
  }
}
