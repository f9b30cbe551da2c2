// Each rule of resolve/verdict.hpp: what a module's verdict is against a requirement of a CUDA
// library, and that its note says what is asked, what the module has and which rule decided.
#include <string>

#include <catch2/catch.hpp>

#include "pep/requirement.hpp"
#include "resolve/verdict.hpp"

using namespace wheelmod;
using namespace wheelmod::resolve;

namespace {

pep::Requirement requirement(const std::string& text) {
  auto parsed = pep::Requirement::parse(text);
  REQUIRE(parsed);
  return *parsed;
}

const easybuild::CudaLibrary k_cublas13{
    "nvidia/cu13/lib", {}, {"libcublas.so.13", "libcublasLt.so.13"}, {}};
const easybuild::LibraryProvider k_cuda133{"CUDA/13.3.0", "CUDA", "13.3.0", "lib64", "13.3.0"};
const easybuild::CudaLibrary k_cusparselt{"nvidia/cusparselt/lib", {}, {"libcusparseLt.so.0"}, {}};
const easybuild::LibraryProvider k_cusparselt091{"cuSPARSELt/0.9.1.1-CUDA-13.3.0", "cuSPARSELt",
                                                 "0.9.1.1", "lib", "13.3.0"};
const easybuild::CudaLibrary k_cudnn{"nvidia/cudnn/lib", {}, {"libcudnn.so.9"}, {}};
const easybuild::LibraryProvider k_cudnn923{"cuDNN/9.23.0.39-CUDA-13.3.0", "cuDNN", "9.23.0.39",
                                            "lib", "13.3.0"};

}  // namespace

TEST_CASE(
    "a toolkit component whose version the CUDA module does not say: minor-version "
    "compatibility by the package's CUDA major",
    "[resolve][verdict]") {
  const auto same = judge_library(requirement("nvidia-cublas<=13.1.1.3,>=13.1.0.3"),
                                  "nvidia-cublas", k_cublas13, k_cuda133, {});
  CHECK(same.compatibility == Compatibility::compatible);
  CHECK(same.provided == "13.3.0");
  CHECK_THAT(same.note, Catch::Contains("wants <=13.1.1.3,>=13.1.0.3") &&
                            Catch::Contains("does not say which libcublas") &&
                            Catch::Contains("minor-version compatibility"));
  const easybuild::LibraryProvider cuda12{"CUDA/12.9.1", "CUDA", "12.9.1", "lib64", "12.9.1"};
  const auto other = judge_library(requirement("nvidia-cublas==13.1.0.3"), "nvidia-cublas",
                                   k_cublas13, cuda12, {});
  CHECK(other.compatibility == Compatibility::incompatible);
  CHECK_THAT(other.note, Catch::Contains("a CUDA 13 library is not part of it"));
}

TEST_CASE("a toolkit component with its version.json version: the range decides",
          "[resolve][verdict]") {
  const auto range = requirement("nvidia-cublas<=13.1.1.3,>=13.1.0.3");
  const auto within = judge_library(range, "nvidia-cublas", k_cublas13, k_cuda133,
                                    {std::string("13.1.0.3"), std::nullopt});
  CHECK(within.compatibility == Compatibility::compatible);
  CHECK(within.provided == "13.1.0.3");
  CHECK_THAT(within.note, Catch::Contains("CUDA/13.3.0's libcublas is 13.1.0.3 (its "
                                          "version.json): within the range"));
  const auto outside = judge_library(range, "nvidia-cublas", k_cublas13, k_cuda133,
                                     {std::string("13.3.0.5"), std::nullopt});
  CHECK(outside.compatibility == Compatibility::incompatible);
  CHECK_THAT(outside.note, Catch::Contains("outside the range"));
  const auto exact = judge_library(requirement("nvidia-cublas==13.1.0.3"), "nvidia-cublas",
                                   k_cublas13, k_cuda133, {std::string("13.1.0.3"), std::nullopt});
  CHECK(exact.compatibility == Compatibility::exact);
}

TEST_CASE(
    "a library module against a pin: exact, the same series, the same major (its SONAME), "
    "another major",
    "[resolve][verdict]") {
  CHECK(judge_library(requirement("nvidia-cudnn-cu13==9.23.0.39"), "nvidia-cudnn-cu13", k_cudnn,
                      k_cudnn923, {})
            .compatibility == Compatibility::exact);
  const auto series = judge_library(requirement("nvidia-cudnn-cu13==9.23.1.2"), "nvidia-cudnn-cu13",
                                    k_cudnn, k_cudnn923, {});
  CHECK(series.compatibility == Compatibility::compatible);
  CHECK(series.rank == 2);
  CHECK_THAT(series.note,
             Catch::Contains("the same 9.23 series cuDNN") && Catch::Contains("libcudnn.so.9"));
  const auto major = judge_library(requirement("nvidia-cudnn-cu13==9.19.0.56"), "nvidia-cudnn-cu13",
                                   k_cudnn, k_cudnn923, {});
  CHECK(major.compatibility == Compatibility::compatible);
  CHECK(major.rank == 1);
  CHECK_THAT(major.note, Catch::Contains("wants ==9.19.0.56") &&
                             Catch::Contains("the same major version 9 cuDNN"));
  const auto other = judge_library(requirement("nvidia-cudnn-cu13==8.9.7.29"), "nvidia-cudnn-cu13",
                                   k_cudnn, k_cudnn923, {});
  CHECK(other.compatibility == Compatibility::incompatible);
  CHECK_THAT(other.note, Catch::Contains("another major version"));
  const auto none =
      judge_library(requirement("nvidia-cudnn-cu13"), "nvidia-cudnn-cu13", k_cudnn, k_cudnn923, {});
  CHECK(none.compatibility == Compatibility::compatible);
  CHECK_THAT(none.note, Catch::Contains("no version required"));
}

TEST_CASE("a 0.x library: compatible by the SONAME torch needs, never by 'same major (0)'",
          "[resolve][verdict]") {
  const auto wanted = requirement("nvidia-cusparselt-cu13==0.8.1");
  const auto found = judge_library(wanted, "nvidia-cusparselt-cu13", k_cusparselt, k_cusparselt091,
                                   {std::nullopt, true});
  CHECK(found.compatibility == Compatibility::compatible);
  CHECK_THAT(found.note, Catch::Contains("0.x versions promise no compatibility") &&
                             Catch::Contains("has libcusparseLt.so.0"));
  CHECK_THAT(found.note, !Catch::Contains("same major"));
  const auto lacking = judge_library(wanted, "nvidia-cusparselt-cu13", k_cusparselt,
                                     k_cusparselt091, {std::nullopt, false});
  CHECK(lacking.compatibility == Compatibility::incompatible);
  CHECK_THAT(lacking.note, Catch::Contains("without libcusparseLt.so.0"));
  const auto unknown =
      judge_library(wanted, "nvidia-cusparselt-cu13", k_cusparselt, k_cusparselt091, {});
  CHECK(unknown.compatibility == Compatibility::compatible);
  CHECK_THAT(unknown.note, Catch::Contains("not installed here to look"));
}

TEST_CASE("cuda-toolkit's extras and version.json keys name the toolkit's libraries",
          "[resolve][verdict]") {
  CHECK(toolkit_extra_package("cudart", "13") == "nvidia-cuda-runtime");
  CHECK(toolkit_extra_package("nvrtc", "12") == "nvidia-cuda-nvrtc-cu12");
  CHECK(toolkit_extra_package("cublas", "13") == "nvidia-cublas");
  CHECK_FALSE(toolkit_extra_package("cudnn", "13"));
  CHECK(component_key("nvidia-cublas-cu12") == "libcublas");
  CHECK(component_key("nvidia-cuda-runtime") == "cuda_cudart");
  CHECK_FALSE(component_key("nvidia-cudnn-cu13"));
}
