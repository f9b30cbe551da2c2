// The steps of a resolution alone (src/resolve/steps.hpp): the variant choice and the pin
// solver's backtracking, over real index trees on disk (project pages, PEP 658 .metadata files).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/url.hpp"
#include "index_client/candidates.hpp"
#include "net/fetcher.hpp"
#include "pep/requirement.hpp"
#include "resolve/session.hpp"
#include "resolve/steps.hpp"
#include "temp_dir.hpp"

using namespace wheelmod;
using index_client::RejectionKind;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// An index tree: per variant, per project, wheels given as {file name, METADATA lines}; each
// wheel's METADATA is served as its PEP 658 .metadata file (the wheels themselves are never read).
struct Wheel {
  std::string file;
  std::string extra_metadata;  // Requires-Dist / Requires-Python lines
};
class IndexTree {
 public:
  explicit IndexTree(const fs::path& root) : m_root(root) {}
  void add(const std::string& variant, const std::string& project,
           const std::vector<Wheel>& wheels) {
    std::string page = "<!DOCTYPE html><html><body>\n";
    for (const auto& wheel : wheels) {
      const auto dash = wheel.file.find('-');
      const auto version = wheel.file.substr(dash + 1, wheel.file.find('-', dash + 1) - dash - 1);
      write(m_root / variant / (wheel.file + ".metadata"),
            "Metadata-Version: 2.1\nName: " + project + "\nVersion: " + version + "\n" +
                wheel.extra_metadata);
      page += "<a href=\"../" + percent_encode_segment(wheel.file) +
              "\" data-core-metadata=\"true\">" + wheel.file + "</a>\n";
    }
    write(m_root / variant / project / "index.html", page + "</body></html>\n");
  }
  [[nodiscard]] std::string url() const { return to_url(m_root.string()); }

 private:
  fs::path m_root;
};

resolve::ResolveRequest request_for(const std::string& index, std::vector<std::string> specs,
                                    const std::string& accelerator, const std::string& python) {
  resolve::ResolveRequest request;
  for (const auto& spec : specs) request.specs.push_back(*pep::Requirement::parse(spec));
  request.index_root = index;
  request.accelerator = *index_client::Accelerator::parse(accelerator);
  request.python = python;
  request.tag_target = *pep::TagTarget::with_python(python, "x86_64", pep::GlibcVersion{2, 28});
  return request;
}

// The candidate sets of every requested project on `variant`, as resolve() builds them.
std::vector<index_client::CandidateSet> candidate_sets(resolve::Session& session,
                                                       const std::string& variant) {
  std::vector<index_client::CandidateSet> sets;
  for (const auto& spec : session.request.specs) {
    const auto* page = session.page(variant, spec.canonical_name());
    REQUIRE(page != nullptr);
    sets.push_back(index_client::collect_candidates(*page,
                                                    resolve::filter_for(session, spec, variant),
                                                    session.request.tag_target, session.priority));
  }
  return sets;
}

// The pin solver over a CPU resolution of `specs` for Python 3.12 from `index`: the request, its
// session and candidate sets live as long as the solver that borrows them.
struct PinSolving {
  resolve::ResolveRequest request;
  resolve::Session session;
  std::vector<index_client::CandidateSet> sets;
  resolve::PinSolver solver;

  PinSolving(const std::string& index, std::vector<std::string> specs, net::Fetcher& fetcher,
             Reporter& reporter)
      : request(request_for(index, std::move(specs), "cpu", "3.12")),
        session(request, fetcher, reporter),
        sets(candidate_sets(session, "cpu")),
        solver(session, sets) {}
};

std::string version_of(const index_client::Candidate* candidate) {
  return candidate->wheel.version.str();
}

void add_torch_pair(IndexTree& tree) {
  tree.add("cpu", "torch",
           {{"torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl", ""},
            {"torch-2.5.1+cpu-cp312-cp312-linux_x86_64.whl", ""}});
  tree.add(
      "cpu", "torchvision",
      {{"torchvision-0.21.0+cpu-cp312-cp312-linux_x86_64.whl", "Requires-Dist: torch==2.6.0\n"},
       {"torchvision-0.20.1+cpu-cp312-cp312-linux_x86_64.whl", "Requires-Dist: torch==2.5.1\n"}});
}

}  // namespace

TEST_CASE("PinSolver takes the best candidates the pins between them allow",
          "[resolve][pin_solver]") {
  const test::TempDir directory("wheelmod-steps");
  IndexTree tree(directory.path());
  add_torch_pair(tree);
  net::Fetcher fetcher;
  NullReporter reporter;

  SECTION("a later project's pin on an earlier choice passes over its newest candidate") {
    PinSolving solving(tree.url(), {"torch==2.5.1", "torchvision"}, fetcher, reporter);
    auto& solver = solving.solver;
    REQUIRE(solver.solve());
    CHECK(version_of(solver.chosen()[0]) == "2.5.1+cpu");
    CHECK(version_of(solver.chosen()[1]) == "0.20.1+cpu");
    REQUIRE(solver.conflicts().size() == 1);
    CHECK(solver.conflicts()[0].kind == RejectionKind::pin);
    CHECK(solver.conflicts()[0].found == "torch==2.6.0");
    CHECK(solver.conflicts()[0].wanted == "torch 2.5.1+cpu");
  }
  SECTION("an earlier choice pinned otherwise is taken back (backtracking)") {
    PinSolving solving(tree.url(), {"torchvision", "torch==2.5.1"}, fetcher, reporter);
    auto& solver = solving.solver;
    REQUIRE(solver.solve());
    CHECK(version_of(solver.chosen()[0]) == "0.20.1+cpu");
    CHECK(version_of(solver.chosen()[1]) == "2.5.1+cpu");
    REQUIRE_FALSE(solver.conflicts().empty());
    CHECK(solver.conflicts()[0].kind == RejectionKind::pinned_by);
    CHECK(solver.conflicts()[0].found == "torchvision 0.21.0+cpu");
    CHECK(solver.conflicts()[0].wanted == "torch==2.6.0");
  }
  SECTION("pins that cannot all hold: no solution, the conflicts say why") {
    PinSolving solving(tree.url(), {"torchvision==0.20.1", "torch==2.6.0"}, fetcher, reporter);
    auto& solver = solving.solver;
    CHECK_FALSE(solver.solve());
    REQUIRE(solver.conflicts().size() == 1);
    CHECK(solver.conflicts()[0].kind == RejectionKind::pinned_by);
  }
}

TEST_CASE("PinSolver passes over a candidate whose METADATA's Requires-Python excludes the target",
          "[resolve][pin_solver]") {
  const test::TempDir directory("wheelmod-steps");
  IndexTree tree(directory.path());
  tree.add("cpu", "torch",
           {{"torch-2.6.0+cpu-py3-none-any.whl", "Requires-Python: >=3.13\n"},
            {"torch-2.5.1+cpu-py3-none-any.whl", "Requires-Python: >=3.9\n"}});
  net::Fetcher fetcher;
  NullReporter reporter;
  PinSolving solving(tree.url(), {"torch"}, fetcher, reporter);
  auto& solver = solving.solver;
  REQUIRE(solver.solve());
  CHECK(version_of(solver.chosen()[0]) == "2.5.1+cpu");
  REQUIRE(solver.conflicts().size() == 1);
  CHECK(solver.conflicts()[0].kind == RejectionKind::requires_python);
  CHECK(solver.conflicts()[0].from_metadata);
  CHECK(solver.conflicts()[0].found == ">=3.13");
  CHECK(solver.conflicts()[0].wanted == "3.12");
}

TEST_CASE("choose_variant: the exact variant, else the closest lower one of the same major",
          "[resolve][variant_choice]") {
  const test::TempDir directory("wheelmod-steps");
  IndexTree tree(directory.path());
  tree.add("cu126", "torch", {{"torch-2.6.0+cu126-cp312-cp312-linux_x86_64.whl", ""}});
  tree.add("cu124", "torch",
           {{"torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl", ""},
            {"torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", ""}});
  // download.pytorch.org's /whl/torch/: every variant's files, naming the variants there are.
  write(directory.path() / "torch" / "index.html",
        "<a href=\"../cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl\">a</a>\n"
        "<a href=\"../cu124/torch-2.6.0%2Bcu124-cp312-cp312-linux_x86_64.whl\">b</a>\n");
  net::Fetcher fetcher;
  NullReporter reporter;
  const auto choose = [&](const std::string& spec, const std::string& accelerator,
                          std::optional<resolve::DriverVersion> driver = std::nullopt) {
    auto request = request_for(tree.url(), {spec}, accelerator, "3.12");
    request.nvidia_driver = std::move(driver);
    resolve::Session session(request, fetcher, reporter);
    const auto version = request.accelerator.version.value_or("");
    return resolve::choose_variant(session, version);
  };

  SECTION("exact") {
    const auto choice = choose("torch==2.6.0", "cuda:12.6");
    CHECK(choice.variant == "cu126");
    CHECK(choice.exact);
    CHECK(choice.minimum_driver == "525.60.13");
  }
  SECTION("closest lower: cu126 has no torch 2.5.1, cu124 does") {
    const auto choice = choose("torch==2.5.1", "cuda:12.6");
    CHECK(choice.variant == "cu124");
    CHECK_FALSE(choice.exact);
    CHECK(choice.tried == std::vector<std::string>{"cu126: no wheel of torch==2.5.1 fits"});
  }
  SECTION("only the variants /whl/torch/ names are asked: no cu127 request for CUDA 12.7") {
    const auto choice = choose("torch==2.6.0", "cuda:12.7");
    CHECK(choice.variant == "cu126");
    CHECK(choice.tried.empty());
  }
  SECTION("a driver too old for every variant: exit 3") {
    try {
      (void)choose("torch==2.6.0", "cuda:12.6", resolve::DriverVersion{"470.82.01", "--driver"});
      FAIL("a variant was chosen");
    } catch (const UnsatisfiableError& error) {
      CHECK(error.code() == ExitCode::unsatisfiable);
      CHECK_THAT(error.cause(), Catch::Contains("cu126: needs NVIDIA driver >= 525.60.13"));
    }
  }
  SECTION("a project on no page: exit 3 naming the pages asked") {
    try {
      (void)choose("torchh", "cuda:12.6");
      FAIL("a variant was chosen");
    } catch (const UnsatisfiableError& error) {
      CHECK(error.subject() == "torchh");
      CHECK_THAT(error.cause(), Catch::Contains("/torchh/: no such file"));
    }
  }
}
