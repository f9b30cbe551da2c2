#include <set>

#include <catch2/catch.hpp>

#include "index_client/accelerator.hpp"

using namespace wheelmod::index_client;

TEST_CASE("Accelerator::parse accepts every documented spelling", "[index_client][accelerator]") {
  struct Case {
    const char* input;
    AcceleratorKind kind;
    std::optional<std::string> version;
    std::optional<std::string> variant;
  };
  const Case cases[] = {
      {"cpu", AcceleratorKind::cpu, std::nullopt, std::nullopt},
      {"CPU", AcceleratorKind::cpu, std::nullopt, std::nullopt},
      {"cuda", AcceleratorKind::cuda, std::nullopt, std::nullopt},
      {"cuda:12.6", AcceleratorKind::cuda, "12.6", std::nullopt},
      {"cuda:12.6.0", AcceleratorKind::cuda, "12.6.0", std::nullopt},
      {"cu126", AcceleratorKind::cuda, "12.6", "cu126"},
      {"cu118", AcceleratorKind::cuda, "11.8", "cu118"},
      {"cu130", AcceleratorKind::cuda, "13.0", "cu130"},
      {"rocm", AcceleratorKind::rocm, std::nullopt, std::nullopt},
      {"rocm:6.2", AcceleratorKind::rocm, "6.2", std::nullopt},
      {"rocm6.2.4", AcceleratorKind::rocm, "6.2.4", "rocm6.2.4"},
      {"cuda:13", AcceleratorKind::cuda, "13", std::nullopt},
      {"cuda:12", AcceleratorKind::cuda, "12", std::nullopt},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    const auto parsed = Accelerator::parse(c.input);
    REQUIRE(parsed);
    CHECK(parsed->kind == c.kind);
    CHECK(parsed->version == c.version);
    CHECK(parsed->variant == c.variant);
  }
}

TEST_CASE("Accelerator::parse rejects what it does not know", "[index_client][accelerator]") {
  for (const char* input : {"gpu", "cuda:", "cuda:twelve", "cu", "cu1", "cu13", "cu12",
                            "rocm:", "rocmX", "xpu", "cuda:1.2.3.4"}) {
    CAPTURE(input);
    const auto parsed = Accelerator::parse(input);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().input == input);
  }
}

TEST_CASE("cuNN is refused with the spelling that means it, never read as CUDA N.N",
          "[index_client][accelerator]") {
  const auto parsed = Accelerator::parse("cu13");
  REQUIRE_FALSE(parsed);
  CHECK_THAT(parsed.error().message, Catch::Contains("write cuda:13"));
  CHECK(Accelerator::parse("cuda:13")->major_only());
  CHECK_FALSE(Accelerator::parse("cuda:13.0")->major_only());
  // A major alone: its minors, newest first, as the index lists them.
  const std::set<std::string> listed{"cu126", "cu128", "cu130", "cu132", "cpu"};
  CHECK(variant_candidates(AcceleratorKind::cuda, "13", &listed) ==
        std::vector<std::string>{"cu132", "cu130"});
  CHECK(variant_candidates(AcceleratorKind::cuda, "12", &listed) ==
        std::vector<std::string>{"cu128", "cu126"});
}

TEST_CASE("CUDA versions and variant names map both ways", "[index_client][accelerator]") {
  CHECK(cuda_variant_name("12.6.0") == "cu126");
  CHECK(cuda_variant_name("12.6") == "cu126");
  CHECK(cuda_variant_name("11.8.0") == "cu118");
  CHECK_FALSE(cuda_variant_name("12"));
  CHECK(cuda_version_of_variant("cu126") == "12.6");
  CHECK(cuda_version_of_variant("cu80") == "8.0");
  CHECK_FALSE(cuda_version_of_variant("cpu"));
}

TEST_CASE("variant_candidates: exact first, then older of the same major",
          "[index_client][accelerator]") {
  CHECK(variant_candidates(AcceleratorKind::cpu, "") == std::vector<std::string>{"cpu"});
  CHECK(variant_candidates(AcceleratorKind::cuda, "12.6.0") ==
        std::vector<std::string>{"cu126", "cu125", "cu124", "cu123", "cu122", "cu121", "cu120"});
  CHECK(variant_candidates(AcceleratorKind::cuda, "11.8") ==
        std::vector<std::string>{"cu118", "cu117", "cu116", "cu115", "cu114", "cu113", "cu112",
                                 "cu111", "cu110"});
  CHECK(variant_candidates(AcceleratorKind::rocm, "6.2.4") ==
        std::vector<std::string>{"rocm6.2.4", "rocm6.2", "rocm6.1", "rocm6.0"});
  // A release the list does not know yet is still tried first.
  CHECK(variant_candidates(AcceleratorKind::rocm, "6.4.1") ==
        std::vector<std::string>{"rocm6.4.1", "rocm6.4", "rocm6.3", "rocm6.2.4", "rocm6.2",
                                 "rocm6.1", "rocm6.0"});
}

TEST_CASE("variant_candidates: a ROCm version matches the directories that extend it",
          "[index_client][accelerator]") {
  // The index names some ROCm directories by patch level: rocm:6.2 means rocm6.2.4 as well.
  CHECK(variant_candidates(AcceleratorKind::rocm, "6.2") ==
        std::vector<std::string>{"rocm6.2.4", "rocm6.2", "rocm6.1", "rocm6.0"});
  const std::set<std::string> listed{"cpu", "cu126", "cu130", "rocm6.4", "rocm7.0", "rocm7.1"};
  CHECK(variant_candidates(AcceleratorKind::rocm, "7.1", &listed) ==
        std::vector<std::string>{"rocm7.1", "rocm7.0"});
  // With the index's own list, a directory it does not have is never probed.
  CHECK(variant_candidates(AcceleratorKind::rocm, "7.2", &listed) ==
        std::vector<std::string>{"rocm7.1", "rocm7.0"});
  CHECK(variant_candidates(AcceleratorKind::cuda, "13.3.0", &listed) ==
        std::vector<std::string>{"cu130"});
  CHECK(variant_candidates(AcceleratorKind::cuda, "12.9.1", &listed) ==
        std::vector<std::string>{"cu126"});
}

TEST_CASE("classify_directory knows today's and the legacy directory names",
          "[index_client][accelerator]") {
  for (const char* name : {"cpu", "xpu", "cu126", "cu130", "cu132", "rocm6.2.4", "rocm7.14"})
    CHECK(classify_directory(name) == DirectoryKind::variant);
  for (const char* name : {"cpu-cxx11-abi", "cpu_pypi_pkg", "cu121_full", "cu124_pypi_cudnn"})
    CHECK(classify_directory(name) == DirectoryKind::legacy_variant);
  for (const char* name : {"whl", "torch", "nightly", "variant", "cuda", "rocm", "cu12x", ""})
    CHECK(classify_directory(name) == DirectoryKind::other);
}

TEST_CASE("minimum_driver follows the CUDA major", "[index_client][accelerator]") {
  CHECK(minimum_driver("cu130") == "580");
  CHECK(minimum_driver("cu132") == "580");
  CHECK(minimum_driver("cu129") == "525.60.13");
  CHECK(minimum_driver("cu118") == "450.80.02");
  CHECK_FALSE(minimum_driver("cpu"));
  CHECK_FALSE(minimum_driver("rocm7.1"));
}

TEST_CASE("parse_nvidia_driver_version reads /proc/driver/nvidia/version",
          "[index_client][accelerator]") {
  CHECK(parse_nvidia_driver_version(
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC "
            "2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n") == "550.54.15");
  CHECK(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                    "580.65.06  Release Build  (dvs-builder@U16-I3-B03-4-3)  Sun "
                                    "Jul 27 07:09:29 UTC 2025\n") == "580.65.06");
  CHECK(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  "
                                    "535.104.05  Sat Aug 19 01:13:35 UTC 2023\n") == "535.104.05");
  CHECK_FALSE(parse_nvidia_driver_version(""));
  CHECK_FALSE(parse_nvidia_driver_version("something else entirely 1.2.3\n"));
}

TEST_CASE("Accelerator::parse explains xpu and the legacy directories",
          "[index_client][accelerator]") {
  const auto xpu = Accelerator::parse("xpu");
  REQUIRE_FALSE(xpu);
  CHECK_THAT(xpu.error().message, Catch::Contains("Intel XPU"));
  const auto legacy = Accelerator::parse("cpu-cxx11-abi");
  REQUIRE_FALSE(legacy);
  CHECK_THAT(legacy.error().message, Catch::Contains("legacy"));
}
