// WHEELMOD_TIMINGS: exclusive phases that add up to the time in main, printed last.
#include <chrono>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "core/timings.hpp"

namespace timings = wheelmod::timings;

namespace {

// "timing: NAME MS" lines -> NAME -> MS; "count: NAME N" lines -> "#NAME" -> N.
std::map<std::string, double> parsed(const std::string& text) {
  std::map<std::string, double> out;
  const std::regex line(R"(^(timing|count): (\S+) ([0-9.]+)$)");
  std::istringstream in(text);
  for (std::string row; std::getline(in, row);) {
    std::smatch match;
    REQUIRE(std::regex_match(row, match, line));
    out[(match[1] == "count" ? "#" : "") + match[2].str()] = std::stod(match[3]);
  }
  return out;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

TEST_CASE("timings off print nothing and cost no state", "[core][timings]") {
  timings::set_enabled(false);
  timings::start_main(1'000'000, 2'000'000);
  { const timings::Scope phase("walk"); }
  timings::count("files");
  std::ostringstream out;
  timings::report(out);
  CHECK(out.str().empty());
}

TEST_CASE("timings charge each phase its own time, nested ones apart", "[core][timings]") {
  timings::set_enabled(true);
  timings::start_main(3'000'000, 500'000);
  {
    const timings::Scope outer("outer");
    sleep_ms(20);
    {
      const timings::Scope inner("inner");
      sleep_ms(30);
    }
    timings::count("files", 2);
    timings::count("files");
  }
  { const timings::Scope again("inner"); }  // the same phase again: added up
  std::ostringstream out;
  timings::report(out);
  timings::set_enabled(false);
  const auto values = parsed(out.str());
  CHECK(values.at("before-main-cpu") == Approx(3.0));
  CHECK(values.at("static-init") == Approx(0.5));
  CHECK(values.at("outer") >= 19.0);
  CHECK(values.at("outer") < 29.0);  // the inner 30 ms are not the outer's
  CHECK(values.at("inner") >= 29.0);
  CHECK(values.at("#files") == 3);
  // Exclusive phases: they and "other" add up to "main".
  CHECK(values.at("outer") + values.at("inner") + values.at("other") ==
        Approx(values.at("main")).margin(0.01));
  // Phases in the order first entered, after the two start lines.
  CHECK(out.str().find("timing: outer") < out.str().find("timing: inner"));
  CHECK(out.str().find("static-init") < out.str().find("timing: outer"));
}
