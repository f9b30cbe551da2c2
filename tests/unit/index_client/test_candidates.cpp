#include <catch2/catch.hpp>

#include "index/page.hpp"
#include "index_client/candidates.hpp"

using namespace wheelmod;
using namespace wheelmod::index_client;

namespace {

// A cu128 torch page as download.pytorch.org may mix them: ordinary wheels and, since PEP 825
// (Draft), a variant wheel of the same version.
index::ProjectPage cu128_page() {
  auto page = index::parse_project_html(
      R"(<a href="/whl/cu128/torch-2.10.0%2Bcu128-cp313-cp313-manylinux_2_28_x86_64.whl">1</a>
<a href="/whl/cu128/torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl">2</a>
<a href="/whl/cu128/torch-2.10.0%2Bcu128-cp313-cp313-manylinux_2_28_aarch64.whl">3</a>)",
      "https://download.pytorch.org/whl/cu128/torch/");
  REQUIRE(page);
  return *page;
}

CandidateSet collect(const std::optional<std::string>& wheel_variant) {
  const auto target = *pep::TagTarget::with_python("3.13", "x86_64", pep::GlibcVersion{2, 28});
  const auto tags = pep::supported_tags(target);
  const pep::TagPriority priority(tags);
  const auto specifier = *pep::SpecifierSet::parse("==2.10.0");
  return collect_candidates(cu128_page(), {"torch", specifier, "cu128", true, wheel_variant},
                            target, priority);
}

}  // namespace

TEST_CASE("collect_candidates skips PEP 825 variant wheels unless their label is asked for",
          "[index_client][candidates]") {
  const auto plain = collect(std::nullopt);
  REQUIRE(plain.fitting.size() == 1);
  CHECK_FALSE(plain.fitting.front().wheel.variant_label);
  const auto skipped =
      std::ranges::find_if(plain.rejected, [](const Rejection& r) { return r.variant_wheel; });
  REQUIRE(skipped != plain.rejected.end());
  CHECK_THAT(skipped->reason, Catch::Contains("--wheel-variant cu128"));

  // Asked for: the variant wheel comes before the ordinary one of the same version (PEP 825
  // "Variant ordering": non-variant wheels after the variant ones).
  const auto chosen = collect(std::string("cu128"));
  REQUIRE(chosen.fitting.size() == 2);
  CHECK(chosen.fitting.front().wheel.variant_label == "cu128");
  CHECK_FALSE(chosen.fitting.back().wheel.variant_label);

  // Another label is still skipped.
  const auto other = collect(std::string("cu130"));
  REQUIRE(other.fitting.size() == 1);
  CHECK_FALSE(other.fitting.front().wheel.variant_label);
}
