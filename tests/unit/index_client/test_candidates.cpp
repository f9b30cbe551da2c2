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
  const auto skipped = std::ranges::find_if(
      plain.rejected, [](const Rejection& r) { return r.kind == RejectionKind::variant_wheel; });
  REQUIRE(skipped != plain.rejected.end());
  CHECK(skipped->found == "cu128");
  CHECK_THAT(describe(*skipped), Catch::Contains("--wheel-variant cu128"));

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

TEST_CASE("collect_candidates skips files whose data-requires-python excludes the target",
          "[index_client][candidates]") {
  // A pure-Python project whose newest release needs Python 3.12, its older one 3.9 (&gt; as a
  // page writes it); an attribute that does not parse is ignored, as pip ignores it.
  const auto page = index::parse_project_html(
      R"(<a href="/s/tool-2.0-py3-none-any.whl" data-requires-python="&gt;=3.12">2.0</a>
<a href="/s/tool-1.0-py3-none-any.whl" data-requires-python="&gt;=3.9">1.0</a>
<a href="/s/tool-0.9-py3-none-any.whl" data-requires-python="not a specifier">0.9</a>)",
      "https://example.org/simple/tool/");
  REQUIRE(page);
  const auto collect_for = [&page](const char* python) {
    const auto target = *pep::TagTarget::with_python(python, "x86_64", pep::GlibcVersion{2, 28});
    const auto tags = pep::supported_tags(target);
    const pep::TagPriority priority(tags);
    return collect_candidates(*page, {"tool", {}, "cpu", false, std::nullopt}, target, priority);
  };
  const auto old = collect_for("3.11");
  REQUIRE(old.fitting.size() == 2);
  CHECK(old.fitting[0].link.filename == "tool-1.0-py3-none-any.whl");
  REQUIRE(old.rejected.size() == 1);
  CHECK(old.rejected[0].filename == "tool-2.0-py3-none-any.whl");
  CHECK(old.rejected[0].kind == RejectionKind::requires_python);
  CHECK(old.rejected[0].found == ">=3.12");
  CHECK(old.rejected[0].wanted == "3.11");
  CHECK_FALSE(old.rejected[0].from_metadata);
  const auto current = collect_for("3.12");
  REQUIRE(current.fitting.size() == 3);
  CHECK(current.fitting[0].link.filename == "tool-2.0-py3-none-any.whl");
}

TEST_CASE("describe gives each rejection kind its words", "[index_client][candidates]") {
  using K = RejectionKind;
  const struct {
    Rejection rejection;
    const char* words;
  } cases[] = {
      {{"f", K::invalid_file_name, "no version", "", {}, false},
       "not a valid wheel file name: no version"},
      {{"f", K::version, "2.5.1", "==2.6.0", {}, false}, "version 2.5.1 does not match ==2.6.0"},
      {{"f", K::version, "2.7.0rc1", "", {}, false},
       "version 2.7.0rc1 does not match (final releases only)"},
      {{"f", K::yanked, "", "", {}, false}, "yanked"},
      {{"f", K::yanked, "broken", "", {}, false}, "yanked: broken"},
      {{"f", K::other_variant, "cu124", "cu126", {}, false},
       "built for +cu124, not the cu126 variant"},
      {{"f",
        K::tags,
        "",
        "",
        {"built for Python 3.13, the target is 3.12", "needs glibc 2.28, the target has 2.17"},
        false},
       "built for Python 3.13, the target is 3.12; needs glibc 2.28, the target has 2.17"},
      {{"f", K::tags, "", "", {}, false}, "no tag accepted by the target"},
      {{"f", K::requires_python, ">=3.13", "3.12", {}, true},
       "requires Python >=3.13 (its METADATA), the target is 3.12"},
      {{"f", K::pin, "torch==2.5.1", "torch 2.6.0+cpu", {}, false},
       "requires torch==2.5.1, but torch 2.6.0+cpu was chosen"},
      {{"f", K::pinned_by, "torchvision 0.21.0", "torch==2.6.0", {}, false},
       "torchvision 0.21.0 requires torch==2.6.0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.words);
    CHECK(describe(c.rejection) == c.words);
  }
}

TEST_CASE("collect_candidates passes over names with characters no real wheel name holds",
          "[index_client][candidates]") {
  // packaging accepts any text after a build tag's digits: this one would be preferred (a build
  // tag wins) and reach EasyBuild's shell as `pip install ... <file>`.
  auto page = index::parse_project_html(
      R"(<a href="/whl/cu128/torch-2.10.0%2Bcu128-1%24%28id%29-cp313-cp313-manylinux_2_28_x86_64.whl">1</a>
<a href="/whl/cu128/torch-2.10.0%2Bcu128-cp313-cp313-manylinux_2_28_x86_64.%1B.whl">2</a>
<a href="/whl/cu128/torch-2.10.0%2Bcu128-cp313-cp313-manylinux_2_28_x86_64.whl">3</a>)",
      "https://download.pytorch.org/whl/cu128/torch/");
  REQUIRE(page);
  const auto target = *pep::TagTarget::with_python("3.13", "x86_64", pep::GlibcVersion{2, 28});
  const pep::TagPriority priority(pep::supported_tags(target));
  const auto set = collect_candidates(
      *page, {"torch", *pep::SpecifierSet::parse("==2.10.0"), "cu128", true, std::nullopt}, target,
      priority);
  REQUIRE(set.fitting.size() == 1);
  CHECK_FALSE(set.fitting.front().wheel.build);
  std::vector<std::string> unsafe;
  for (const auto& rejection : set.rejected)
    if (rejection.kind == RejectionKind::unsafe_file_name) unsafe.push_back(rejection.found);
  CHECK(unsafe == std::vector<std::string>{"$", "\\x1b"});
  CHECK(is_wheel_name_char('+'));
  CHECK_FALSE(is_wheel_name_char('%'));
  CHECK_FALSE(is_wheel_name_char(' '));
}
