#include <algorithm>

#include <fmt/format.h>

#include "steps.hpp"

namespace wheelmod::resolve {

bool is_pinned(const pep::SpecifierSet& set) {
  return std::any_of(set.specifiers().begin(), set.specifiers().end(), [](const auto& s) {
    return (s.op() == pep::Operator::equal && !s.wildcard()) || s.op() == pep::Operator::arbitrary;
  });
}

std::string target_text(const pep::TagTarget& t) {
  return fmt::format("Python {}.{}{}, {}, glibc {}.{}", t.python_major, t.python_minor,
                     t.free_threaded ? "t" : "", t.arch, t.glibc.major, t.glibc.minor);
}

std::string spec_text(const pep::Requirement& spec) {
  return spec.specifier.empty() ? spec.canonical_name()
                                : spec.canonical_name() + spec.specifier.str();
}

// The nearest rejected candidates first: a matching version that failed on
// tags or variant says more than an older version, and a file wrong in one
// way (Python) more than one wrong in two (Python and architecture).
std::string rejections_text(std::vector<index_client::Rejection> rejected) {
  const auto distance = [](const index_client::Rejection& r) {
    return std::pair{r.kind == index_client::RejectionKind::version,
                     std::max<std::size_t>(r.mismatches.size(), 1)};
  };
  std::ranges::stable_sort(rejected,
                           [&](const index_client::Rejection& a, const index_client::Rejection& b) {
                             return distance(a) < distance(b);
                           });
  std::string out;
  constexpr std::size_t k_shown = 8;
  for (std::size_t i = 0; i < rejected.size() && i < k_shown; ++i)
    out += "\n    " + rejected[i].filename + ": " + index_client::describe(rejected[i]);
  if (rejected.size() > k_shown)
    out += fmt::format("\n    ... and {} more", rejected.size() - k_shown);
  return out;
}

index_client::CandidateFilter filter_for(const Session& session, const pep::Requirement& spec,
                                         const std::string& variant) {
  return {spec.canonical_name(), spec.specifier, variant, is_pinned(spec.specifier),
          session.request.wheel_variant};
}

// "\n    URL: answer" for every page asked for `project`, for errors that say which URL answered
// what (a 404, a listing without it).
std::string probes_text(const Session& session, const std::string& project) {
  std::string out;
  for (const auto& probe : session.layout().probes(project))
    out += "\n    " + probe.url + ": " + probe.answer;
  return out;
}

}  // namespace wheelmod::resolve
