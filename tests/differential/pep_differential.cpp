// Differential test driver: reads the cases gen_cases.py wrote with
// python3-packaging 23.0's answers, computes wheelmod's answer for each with
// the public API of src/pep, and lists every disagreement.
//
//   pep_differential CASES.jsonl [--kind K] [--show N]
//
// Exit code 0 iff every case agrees (documented differences included, which
// agree when wheelmod behaves as README.md says) and every kind has at least
// its minimum number of cases. See tests/differential/README.md.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pep/marker.hpp"
#include "pep/requirement.hpp"
#include "pep/specifier.hpp"
#include "pep/tags.hpp"
#include "pep/version.hpp"
#include "pep/wheel_filename.hpp"

namespace {

using nlohmann::json;
using namespace wheelmod::pep;

struct KindInfo {
  std::string_view name;
  std::size_t minimum;                   // guards against a broken generator
  std::vector<std::string_view> inputs;  // the other fields are answers
};

// The minimums of the issue (20,000 versions, 10,000 comparisons and
// specifier checks, 2,000 markers, requirements and wheels) and the tag grid.
const std::vector<KindInfo> k_kinds{
    {"version", 20000, {"input"}},
    {"compare", 10000, {"a", "b"}},
    {"specifier", 10000, {"spec", "version", "prereleases"}},
    {"marker", 2000, {"marker", "env", "extra"}},
    {"requirement", 2000, {"input"}},
    {"wheel", 2000, {"filename", "target"}},
    {"tags", 84, {"python", "arch", "glibc"}},
};

// Fields that record how packaging failed, not what it answered: its
// exception class names have no counterpart in wheelmod's error values.
const std::set<std::string, std::less<>> k_not_compared{"kind", "documented_difference",
                                                        "documented_contains", "parse_error"};

json optional_json(const auto& value) { return value ? json(*value) : json(nullptr); }

json version_answer(const json& c) {
  const auto v = Version::parse(c.at("input").get<std::string>());
  if (!v) return {{"valid", false}, {"error", v.error().message}};
  json pre = nullptr;
  if (v->pre()) pre = json::array({pre_phase_text(v->pre()->phase), v->pre()->number});
  return {{"valid", true},
          {"str", v->str()},
          {"public", v->public_version().str()},
          {"base_version", v->base_version().str()},
          {"is_prerelease", v->is_prerelease()},
          {"is_postrelease", v->is_postrelease()},
          {"is_devrelease", v->is_devrelease()},
          {"epoch", v->epoch()},
          {"release", v->release()},
          {"pre", pre},
          {"post", optional_json(v->post())},
          {"dev", optional_json(v->dev())},
          {"local", v->has_local() ? json(v->local_str()) : json(nullptr)}};
}

json compare_answer(const json& c) {
  const auto a = Version::parse(c.at("a").get<std::string>());
  const auto b = Version::parse(c.at("b").get<std::string>());
  if (!a || !b) return {{"result", "rejected: " + (a ? b : a).error().message}};
  const auto order = *a <=> *b;
  return {{"result", order < 0 ? -1 : (order > 0 ? 1 : 0)}};
}

Prereleases prereleases_from(const json& value) {
  if (value.is_null()) return Prereleases::implied;  // packaging's prereleases=None
  return value.get<bool>() ? Prereleases::allow : Prereleases::deny;
}

json specifier_answer(const json& c) {
  const auto set = SpecifierSet::parse(c.at("spec").get<std::string>());
  if (!set) return {{"valid", false}, {"error", set.error().message}};
  json contains = "error";  // packaging raises InvalidVersion for such a version
  if (const auto v = Version::parse(c.at("version").get<std::string>())) {
    contains = set->contains(*v, prereleases_from(c.at("prereleases")));
  }
  return {{"valid", true}, {"str", set->str()}, {"contains", contains}};
}

MarkerEnvironment environment_from(const json& env) {
  MarkerEnvironment e;
  e.implementation_name = env.at("implementation_name").get<std::string>();
  e.implementation_version = env.at("implementation_version").get<std::string>();
  e.os_name = env.at("os_name").get<std::string>();
  e.platform_machine = env.at("platform_machine").get<std::string>();
  e.platform_release = env.at("platform_release").get<std::string>();
  e.platform_system = env.at("platform_system").get<std::string>();
  e.platform_version = env.at("platform_version").get<std::string>();
  e.python_full_version = env.at("python_full_version").get<std::string>();
  e.platform_python_implementation = env.at("platform_python_implementation").get<std::string>();
  e.python_version = env.at("python_version").get<std::string>();
  e.sys_platform = env.at("sys_platform").get<std::string>();
  return e;
}

json marker_answer(const json& c) {
  const auto m = Marker::parse(c.at("marker").get<std::string>());
  if (!m) return {{"valid", false}, {"error", m.error().message}};
  const auto result = m->evaluate(environment_from(c.at("env")), c.at("extra").get<std::string>());
  return {{"valid", true},
          {"str", m->str()},
          {"result", result ? json(*result) : json(nullptr)},
          {"error", result ? json(nullptr) : json(result.error().message)}};
}

json requirement_answer(const json& c) {
  const auto r = Requirement::parse(c.at("input").get<std::string>());
  if (!r) return {{"valid", false}, {"error", r.error().message}};
  return {{"valid", true},
          {"name", r->name},
          {"extras", r->extras},
          {"specifier", r->specifier.str()},
          {"url", optional_json(r->url)},
          {"marker", r->marker ? json(r->marker->str()) : json(nullptr)},
          {"str", r->str()}};
}

std::vector<std::string> tag_strings(const std::vector<Tag>& tags) {
  std::vector<std::string> out;
  out.reserve(tags.size());
  for (const auto& tag : tags) out.push_back(tag.str());
  return out;
}

/// supported_tags() for a target written as in the cases; memoised, since
/// thousands of wheel cases share a few hundred targets.
class TargetTags {
 public:
  const std::vector<Tag>& tags(const json& python, const json& arch, const json& glibc) {
    return entry(python, arch, glibc).first;
  }
  const TagPriority& priority(const json& python, const json& arch, const json& glibc) {
    return entry(python, arch, glibc).second;
  }

 private:
  const std::pair<std::vector<Tag>, TagPriority>& entry(const json& python, const json& arch,
                                                        const json& glibc) {
    const auto key =
        python.get<std::string>() + "|" + arch.get<std::string>() + "|" + glibc.get<std::string>();
    if (auto it = m_cache.find(key); it != m_cache.end()) return it->second;
    const auto glibc_version = GlibcVersion::parse(glibc.get<std::string>());
    if (!glibc_version) throw std::runtime_error(glibc_version.error().describe("glibc version"));
    const auto target =
        TagTarget::with_python(python.get<std::string>(), arch.get<std::string>(), *glibc_version);
    if (!target) throw std::runtime_error(target.error().describe("target"));
    auto tags = supported_tags(*target);
    TagPriority priority(tags);
    return m_cache.emplace(key, std::pair{std::move(tags), std::move(priority)}).first->second;
  }
  std::map<std::string, std::pair<std::vector<Tag>, TagPriority>, std::less<>> m_cache;
};

json wheel_answer(const json& c, TargetTags& targets) {
  const auto w = WheelFilename::parse(c.at("filename").get<std::string>());
  if (!w) return {{"valid", false}, {"error", w.error().message}};
  auto tags = tag_strings(w->tags);
  std::sort(tags.begin(), tags.end());  // packaging returns a frozenset
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  const auto& target = c.at("target");
  const auto best = targets.priority(target.at("python"), target.at("arch"), target.at("glibc"))
                        .best_rank(w->tags);
  json build = nullptr;
  if (w->build) build = json::array({w->build->number, w->build->suffix});
  return {{"valid", true},
          {"name", w->name},
          {"version", w->version.str()},
          {"build", build},
          {"tags", tags},
          {"supported", best.has_value()},
          {"best_rank", optional_json(best)},
          {"variant_label", optional_json(w->variant_label)}};
}

json tags_answer(const json& c, TargetTags& targets) {
  return {{"tags", tag_strings(targets.tags(c.at("python"), c.at("arch"), c.at("glibc")))}};
}

json answer(std::string_view kind, const json& c, TargetTags& targets) {
  if (kind == "version") return version_answer(c);
  if (kind == "compare") return compare_answer(c);
  if (kind == "specifier") return specifier_answer(c);
  if (kind == "marker") return marker_answer(c);
  if (kind == "requirement") return requirement_answer(c);
  if (kind == "wheel") return wheel_answer(c, targets);
  return tags_answer(c, targets);
}

/// Whether wheelmod behaves as README.md documents for that difference.
bool behaves_as_documented(std::string_view id, const json& c, const json& got) {
  // uint64-overflow: a number past 2^64-1 is rejected with an error.
  if (id == "uint64-overflow") {
    return got.at("valid") == false && !got.value("error", std::string()).empty();
  }
  // arbitrary-prereleases: a `===` clause whose text is no version implies
  // no pre-releases (packaging raises InvalidVersion instead).
  if (id == "arbitrary-prereleases") {
    return got.at("valid") == true && got.at("contains") == c.at("documented_contains");
  }
  // pep825-variant-label: a name packaging refuses that PEP 825's grammar reads as a variant
  // wheel is accepted, with that label.
  if (id == "pep825-variant-label") {
    return got.at("valid") == true && got.at("variant_label") == c.at("documented_label");
  }
  return false;  // an id this driver does not know: never passes silently
}

/// For a long list (the tag grid), the length and the first differing entry
/// say more than two thousand-entry dumps: {"length": n, "at 5": "cp312-..."}.
std::pair<json, json> describe_list_difference(const json& expected, const json& got) {
  std::size_t i = 0;
  while (i < expected.size() && i < got.size() && expected[i] == got[i]) ++i;
  const auto at = "at " + std::to_string(i);
  const auto entry = [&](const json& list) { return i < list.size() ? list[i] : json("<end>"); };
  return {json{{"length", expected.size()}, {at, entry(expected)}},
          json{{"length", got.size()}, {at, entry(got)}}};
}

struct Disagreement {
  json input;
  json expected;
  json got;
};

struct Tally {
  std::size_t cases = 0;
  std::size_t passed = 0;
  std::size_t documented = 0;
  std::size_t documented_ok = 0;
  std::vector<Disagreement> shown;
  std::size_t failed() const { return cases - passed; }
};

/// Compares one case; appends a disagreement (up to `show`) to the tally.
void check_case(const KindInfo& info, const json& c, TargetTags& targets, std::size_t show,
                Tally& tally) {
  ++tally.cases;
  json input = json::object();
  for (auto name : info.inputs) input[std::string(name)] = c.at(std::string(name));
  json got;
  try {
    got = answer(info.name, c, targets);
  } catch (const std::exception& e) {
    got = {{"exception", e.what()}};
  }

  json expected_diff = json::object();
  json got_diff = json::object();
  if (c.contains("documented_difference")) {
    ++tally.documented;
    const auto id = c.at("documented_difference").get<std::string>();
    if (got.contains("valid") && behaves_as_documented(id, c, got)) {
      ++tally.documented_ok;
      ++tally.passed;
      return;
    }
    expected_diff["documented_difference"] = id;
    if (c.contains("documented_contains")) expected_diff["contains"] = c["documented_contains"];
    got_diff = got;
  } else {
    for (const auto& [key, value] : c.items()) {
      if (k_not_compared.contains(key) || input.contains(key)) continue;
      const json mine = got.contains(key) ? got.at(key) : json("<missing>");
      // Marker errors: packaging raises one of several classes (InvalidVersion,
      // UndefinedComparison, KeyError); wheelmod returns one error value.
      // Agreement is both raising, or neither.
      const bool same = (info.name == "marker" && key == "error")
                            ? value.is_null() == mine.is_null()
                            : value == mine;
      if (same) continue;
      if (info.name == "tags" && value.is_array() && mine.is_array()) {
        std::tie(expected_diff[key], got_diff[key]) = describe_list_difference(value, mine);
        continue;
      }
      expected_diff[key] = value;
      got_diff[key] = mine;
    }
    if (got.contains("exception")) got_diff["exception"] = got["exception"];
    if (expected_diff.empty() && !got.contains("exception")) {
      ++tally.passed;
      return;
    }
    // An error message explains a wrong "valid": false.
    if (got.contains("error") && !got_diff.contains("error") && got.value("valid", true) == false) {
      got_diff["error"] = got["error"];
    }
  }
  if (tally.shown.size() < show) tally.shown.push_back({input, expected_diff, got_diff});
}

struct Options {
  std::string path;
  std::optional<std::string> kind;
  std::size_t show = 20;
};

std::optional<Options> parse_arguments(int argc, char** argv) {
  Options options;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--kind" && i + 1 < args.size()) {
      options.kind = std::string(args[++i]);
    } else if (args[i] == "--show" && i + 1 < args.size()) {
      const auto text = args[++i];
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), options.show);
      if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    } else if (options.path.empty() && !args[i].starts_with("--")) {
      options.path = std::string(args[i]);
    } else {
      return std::nullopt;
    }
  }
  if (options.path.empty()) return std::nullopt;
  if (options.kind && std::none_of(k_kinds.begin(), k_kinds.end(),
                                   [&](const KindInfo& k) { return k.name == *options.kind; })) {
    return std::nullopt;
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse_arguments(argc, argv);
  if (!options) {
    std::cerr << "usage: pep_differential CASES.jsonl [--kind K] [--show N]\n"
                 "  K: version, compare, specifier, marker, requirement, wheel, tags\n";
    return 2;
  }
  std::ifstream in(options->path);
  if (!in) {
    std::cerr << "error: " << options->path << ": cannot open\n"
              << "hint: generate it with gen_cases.py --out " << options->path << "\n";
    return 2;
  }

  std::map<std::string, Tally, std::less<>> tallies;
  TargetTags targets;
  // gen_cases.py writes `{"kind":"K",` first: lines of other kinds are
  // skipped unparsed. Other spellings are parsed and filtered below.
  const std::string compact_start = R"({"kind":")";
  const std::string kind_prefix = options->kind ? compact_start + *options->kind + "\"" : "";
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    if (line.starts_with(compact_start) && !line.starts_with(kind_prefix)) continue;
    json c;
    try {
      c = json::parse(line);
    } catch (const json::exception& e) {
      std::cerr << "error: " << options->path << ":" << line_number << ": " << e.what() << "\n";
      return 2;
    }
    const auto kind = c.value("kind", std::string());
    if (options->kind && kind != *options->kind) continue;
    const auto info = std::find_if(k_kinds.begin(), k_kinds.end(),
                                   [&](const KindInfo& k) { return k.name == kind; });
    if (info == k_kinds.end()) {
      std::cerr << "error: " << options->path << ":" << line_number << ": unknown kind '" << kind
                << "'\n";
      return 2;
    }
    check_case(*info, c, targets, options->show, tallies[kind]);
  }

  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t documented = 0;
  std::size_t documented_ok = 0;
  bool too_few = false;
  for (const auto& info : k_kinds) {
    if (options->kind && info.name != *options->kind) continue;
    const auto& tally = tallies[std::string(info.name)];
    for (const auto& d : tally.shown) {
      std::cout << "[" << info.name << "] disagreement\n"
                << "  input:    " << d.input.dump() << "\n"
                << "  expected: " << d.expected.dump() << "\n"
                << "  got:      " << d.got.dump() << "\n";
    }
    std::cout << info.name << ": " << tally.cases << " cases, " << tally.passed << " agree, "
              << tally.failed() << " disagree";
    if (tally.failed() > tally.shown.size()) {
      std::cout << " (" << tally.shown.size() << " shown)";
    }
    if (tally.documented > 0) {
      std::cout << ", " << tally.documented << " documented differences";
    }
    std::cout << "\n";
    if (tally.cases < info.minimum) {
      std::cout << "error: " << info.name << ": only " << tally.cases << " cases, at least "
                << info.minimum << " expected (is gen_cases.py broken?)\n";
      too_few = true;
    }
    passed += tally.passed;
    failed += tally.failed();
    documented += tally.documented;
    documented_ok += tally.documented_ok;
  }
  std::cout << "documented differences: " << documented << " (" << documented_ok
            << " behave as documented, " << documented - documented_ok << " do not)\n";
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 && !too_few ? 0 : 1;
}
