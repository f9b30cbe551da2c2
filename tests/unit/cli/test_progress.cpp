#include <sstream>

#include <catch2/catch.hpp>

#include "cli/progress.hpp"

using namespace wheelmod::cli;
using namespace std::chrono_literals;
using std::chrono::steady_clock;

namespace {
// A clock the test moves by hand.
struct FakeClock {
  steady_clock::time_point now{};
  Clock function() {
    return [this] { return now; };
  }
};
}  // namespace

TEST_CASE("format_duration", "[cli][progress]") {
  CHECK(format_duration(0s) == "0s");
  CHECK(format_duration(59s) == "59s");
  CHECK(format_duration(187s) == "3m07s");
  CHECK(format_duration(3720s) == "1h02m");
}

TEST_CASE("PlainReporter prints start, throttled progress and the end", "[cli][progress]") {
  FakeClock clock;
  std::ostringstream out;
  PlainReporter reporter(out, clock.function(), 10s);

  const auto id = reporter.on_start("torch.whl", 100 * 1024 * 1024);
  clock.now += 2s;
  reporter.on_progress(id, 10 * 1024 * 1024);  // inside the interval: silent
  clock.now += 8s;
  reporter.on_progress(id, 50 * 1024 * 1024);  // 10 s after start: one line
  reporter.on_progress(id, 51 * 1024 * 1024);  // silent again
  reporter.on_finish(id, "sha256 verified");

  CHECK(out.str() ==
        "start: torch.whl (100.0 MiB)\n"
        "progress: torch.whl   50%  50.0 MiB/100.0 MiB  5.0 MiB/s  ETA 10s\n"
        "done: torch.whl (sha256 verified)\n");
}

TEST_CASE("PlainReporter reports failures and warnings", "[cli][progress]") {
  FakeClock clock;
  std::ostringstream out;
  PlainReporter reporter(out, clock.function(), 10s);
  const auto id = reporter.on_start("index page", std::nullopt);
  reporter.on_fail(id, "HTTP 503");
  reporter.on_warning("no sha256 in the index for x.whl");
  reporter.on_progress(id, 5);  // a finished task is forgotten, not printed
  CHECK(out.str() ==
        "start: index page\n"
        "failed: index page: HTTP 503\n"
        "warning: no sha256 in the index for x.whl\n");
}

TEST_CASE("TerminalReporter redraws bars in place and totals several tasks", "[cli][progress]") {
  FakeClock clock;
  std::ostringstream out;
  TerminalReporter reporter(out, clock.function(), 100);

  const auto a = reporter.on_start("a.whl", 1000);
  const auto b = reporter.on_start("b.whl", 3000);
  out.str("");
  clock.now += 1s;
  reporter.on_progress(a, 500);
  const auto frame = out.str();
  // Two bars and a total line were erased (cursor up + erase) and redrawn.
  CHECK(frame.find("[##########----------] a.whl   50%") != std::string::npos);
  CHECK(frame.find("[--------------------] b.whl    0%") != std::string::npos);
  CHECK(frame.find("total   12%  500 B/3.9 KiB") != std::string::npos);
  std::size_t ups = 0;
  for (auto pos = frame.find("\x1b[1A"); pos != std::string::npos;
       pos = frame.find("\x1b[1A", pos + 1))
    ++ups;
  CHECK(ups == 3);

  out.str("");
  clock.now += 10ms;
  reporter.on_progress(a, 600);  // within 100 ms of the last frame: no redraw
  CHECK(out.str().empty());

  reporter.on_finish(a, "ok");
  CHECK(out.str().find("done: a.whl (ok)\n") != std::string::npos);
  reporter.on_finish(b, "ok");
}

TEST_CASE("TerminalReporter cuts lines to the terminal width", "[cli][progress]") {
  FakeClock clock;
  std::ostringstream out;
  TerminalReporter reporter(out, clock.function(), 40);
  reporter.on_start(std::string(200, 'x'), 10);
  std::istringstream lines(out.str());
  std::string line;
  while (std::getline(lines, line)) {
    const auto start = line.rfind("\x1b[2K");
    const auto visible = start == std::string::npos ? line : line.substr(start + 4);
    CHECK(visible.size() <= 39);
  }
}

TEST_CASE("A size learned after the start gives a percentage and an ETA", "[cli][progress]") {
  // An HTML index page gives no size: the server's Content-Length does.
  FakeClock clock;
  std::ostringstream out;
  PlainReporter reporter(out, clock.function(), 10s);
  const auto id = reporter.on_start("torch.whl", std::nullopt);
  reporter.on_total(id, 200 * 1024 * 1024);
  clock.now += 2s;
  reporter.on_progress(id, 10 * 1024 * 1024);  // the first bytes: the rate counts from here
  clock.now += 8s;
  reporter.on_progress(id, 50 * 1024 * 1024);
  reporter.on_total(id + 1000, 1);  // an unknown task: ignored
  CHECK(out.str() ==
        "start: torch.whl\n"
        "progress: torch.whl   25%  50.0 MiB/200.0 MiB  5.0 MiB/s  ETA 30s\n");
}

TEST_CASE("The rate counts from the first bytes, over the last seconds", "[cli][progress]") {
  constexpr std::uint64_t k_mib = 1024 * 1024;
  ProgressState state;
  steady_clock::time_point now{};
  const auto id = state.add("torch.whl", 1000 * k_mib, now);
  auto& task = *state.find(id);
  // Queued 30 s behind other transfers: no bytes, no rate (not 0 B/s).
  now += 30s;
  CHECK_FALSE(ProgressState::rate(task, now));
  CHECK(ProgressState::describe(task, now) == "torch.whl    0%  0 B/1000.0 MiB");

  // Then 10 MiB/s for 10 s: 10 MiB/s, not 100 MiB over 40 s since the start.
  for (int tick = 0; tick <= 40; ++tick) {
    ProgressState::advance(task, static_cast<std::uint64_t>(tick) * 10 * k_mib / 4, now);
    if (tick < 40) now += 250ms;
  }
  REQUIRE(ProgressState::rate(task, now));
  CHECK(*ProgressState::rate(task, now) == Approx(10.0 * k_mib));
  CHECK(ProgressState::describe(task, now) ==
        "torch.whl   10%  100.0 MiB/1000.0 MiB  10.0 MiB/s  ETA 1m30s");

  // It slows to 1 MiB/s: after a window, the rate is the new speed.
  for (int tick = 1; tick <= 24; ++tick) {
    now += 250ms;
    ProgressState::advance(task, 100 * k_mib + static_cast<std::uint64_t>(tick) * k_mib / 4, now);
  }
  CHECK(*ProgressState::rate(task, now) == Approx(1.0 * k_mib));
  CHECK(task.samples.size() <= 5s / 200ms + 2);

  // Nothing for a whole window: 0 B/s, and no ETA.
  now += 6s;
  CHECK(*ProgressState::rate(task, now) == Approx(0.0));
  CHECK(ProgressState::describe(task, now) == "torch.whl   10%  106.0 MiB/1000.0 MiB  0 B/s");
}

TEST_CASE("A resumed file's rate leaves out the bytes an earlier run fetched", "[cli][progress]") {
  constexpr std::uint64_t k_mib = 1024 * 1024;
  ProgressState state;
  steady_clock::time_point now{};
  auto& task = *state.find(state.add("torch.whl", 2000 * k_mib, now));
  ProgressState::advance(task, 1500 * k_mib, now);  // first report: the .part had 1500 MiB
  now += 2s;
  ProgressState::advance(task, 1504 * k_mib, now);
  CHECK(*ProgressState::rate(task, now) == Approx(2.0 * k_mib));
}
