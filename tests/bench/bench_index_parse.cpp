// Benchmark program: parse one PEP 503 project page and resolve against it,
// the work an installer does per page. The driver bench_index_parse.py
// runs it next to the same work done the way pip does it (html.parser +
// packaging) and prints both side by side; see README.md.
//
// Usage: bench_index_parse --page FILE --url PAGE_URL --project NAME
//          --specifier SPEC --python X.Y --arch ARCH --glibc X.Y
// Prints key=value lines (links, wheels, supported_tags, candidates, best,
// page_bytes, link_text_bytes, read_ms, parse_ms, select_ms, work_ms).
// parse_ms: the page into links; select_ms: the target's tags, every wheel
// name, the best wheel (wheel names are parsed as they are met, not kept).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "index/page.hpp"
#include "pep/name.hpp"
#include "pep/specifier.hpp"
#include "pep/tags.hpp"
#include "pep/version.hpp"
#include "pep/wheel_filename.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace pep = wheelmod::pep;
namespace idx = wheelmod::index;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int fail(const std::string& message) {
  std::cerr << "bench_index_parse: " << message << "\n";
  return 2;
}

struct Best {
  pep::Version version;
  std::size_t rank = 0;
  std::optional<pep::BuildTag> build;
  std::string filename;
};

// pip's candidate sort key, less what the page cannot vary here: newest
// version, then best tag (lowest rank), then highest build tag. The first
// of equal keys wins, as Python's max() does.
bool better(const Best& candidate, const Best& best) {
  if (auto c = candidate.version <=> best.version; c != 0) return c > 0;
  if (candidate.rank != best.rank) return candidate.rank < best.rank;
  return candidate.build > best.build;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  for (const char* key :
       {"--page", "--url", "--project", "--specifier", "--python", "--arch", "--glibc"}) {
    if (!args.contains(key)) return fail(std::string("missing ") + key);
  }

  auto glibc = pep::GlibcVersion::parse(args["--glibc"]);
  if (!glibc) return fail(glibc.error().describe("glibc version"));
  auto target = pep::TagTarget::with_python(args["--python"], args["--arch"], *glibc);
  if (!target) return fail(target.error().describe("python version"));
  auto specifier = pep::SpecifierSet::parse(args["--specifier"]);
  if (!specifier) return fail(specifier.error().describe("specifier"));
  auto python = pep::Version::parse(args["--python"]);
  if (!python) return fail(python.error().describe("python version"));
  const std::string project = pep::canonicalize_name(args["--project"]);

  // The page in one buffer, as the fetcher holds a body.
  const auto read_start = Clock::now();
  std::ifstream in(args["--page"], std::ios::binary | std::ios::ate);
  if (!in) return fail("cannot read " + args["--page"]);
  std::string html(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(html.data(), static_cast<std::streamsize>(html.size())))
    return fail("cannot read " + args["--page"]);
  const double read_ms = ms_since(read_start);

  // Parse the page: every link, its URL resolved, hashes and data-* attributes read.
  const auto parse_start = Clock::now();
  auto page = idx::parse_project_html(html, args["--url"]);
  if (!page) return fail(page.error().describe("index page"));
  const double parse_ms = ms_since(parse_start);

  // Select: the tags of the target, every wheel name, then the best wheel for the target.
  const auto select_start = Clock::now();
  const auto supported = pep::supported_tags(*target);
  const pep::TagPriority priority(supported);
  std::size_t wheels = 0;
  std::size_t candidates = 0;
  std::size_t link_text = 0;  // bytes of URLs and file names
  std::optional<Best> best;
  for (std::size_t i = 0; i < page->links.size(); ++i) {
    const std::string_view filename = page->links.filename(i);
    link_text += filename.size() + page->links.url(i).size();
    if (!filename.ends_with(".whl")) continue;
    auto wheel = pep::WheelFilename::parse(filename);
    if (!wheel) continue;
    ++wheels;
    if (wheel->name != project || !specifier->contains(wheel->version)) continue;
    const auto rank = priority.best_rank(wheel->tags);
    if (!rank) continue;
    const idx::Link link = page->links[i];
    if (link.yanked) continue;
    if (link.requires_python) {
      // pip's check_requires_python: pre-releases of Python allowed.
      auto requires_python = pep::SpecifierSet::parse(*link.requires_python);
      if (requires_python && !requires_python->contains(*python, pep::Prereleases::allow)) continue;
    }
    ++candidates;
    Best candidate{wheel->version, *rank, wheel->build, link.filename};
    if (!best || better(candidate, *best)) best = std::move(candidate);
  }
  const double select_ms = ms_since(select_start);

  std::printf("links=%zu\nwheels=%zu\nsupported_tags=%zu\ncandidates=%zu\nbest=%s\n",
              page->links.size(), wheels, supported.size(), candidates,
              best ? best->filename.c_str() : "");
  std::printf("page_bytes=%zu\nlink_text_bytes=%zu\n", html.size(), link_text);
  std::printf("read_ms=%.3f\nparse_ms=%.3f\nselect_ms=%.3f\nwork_ms=%.3f\n", read_ms, parse_ms,
              select_ms, parse_ms + select_ms);
  return 0;
}
