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
  for (const char* input :
       {"gpu", "cuda:", "cuda:twelve", "cu", "cu1", "rocm:", "rocmX", "xpu", "cuda:1.2.3.4"}) {
    CAPTURE(input);
    const auto parsed = Accelerator::parse(input);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().input == input);
  }
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
