#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"

using wheelmod::Error;
using wheelmod::ExitCode;

TEST_CASE("Error::render prints error, caused-by and hint lines", "[core][errors]") {
  struct {
    std::string_view name;
    Error error;
    std::string_view rendered;
  } const cases[] = {
      {"subject and cause", Error(ExitCode::io, "torch.whl", "cannot open"),
       "error: torch.whl: cannot open\n"},
      {"no subject", Error(ExitCode::usage, "", "no command given"), "error: no command given\n"},
      {"hint",
       Error(ExitCode::usage, "--toolchain", "unknown toolchain 'foo'",
             "run `wheelmod toolchains`"),
       "error: --toolchain: unknown toolchain 'foo'\nhint: run `wheelmod toolchains`\n"},
      {"empty hint", Error(ExitCode::usage, "x", "y", ""), "error: x: y\n"},
      {"details in order, then the hint",
       Error(ExitCode::integrity, "torch-2.6.0+cu126-cp312-cp312-linux_x86_64.whl", "hash mismatch")
           .with_detail("expected sha256:aaaa")
           .with_detail("computed sha256:bbbb")
           .with_hint("the download was corrupted or the index changed; run again with --refresh"),
       "error: torch-2.6.0+cu126-cp312-cp312-linux_x86_64.whl: hash mismatch\n"
       "  caused by: expected sha256:aaaa\n"
       "  caused by: computed sha256:bbbb\n"
       "hint: the download was corrupted or the index changed; run again with --refresh\n"},
      {"details without hint",
       Error(ExitCode::io, "https://x/simple/", "download failed").with_detail("HTTP 503"),
       "error: https://x/simple/: download failed\n  caused by: HTTP 503\n"},
      {"with_hint replaces the hint", Error(ExitCode::io, "a", "b", "old").with_hint("new"),
       "error: a: b\nhint: new\n"},
      {"with_hint(\"\") removes it", Error(ExitCode::io, "a", "b", "old").with_hint(""),
       "error: a: b\n"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(c.error.render() == c.rendered);
  }
}

TEST_CASE("Error keeps its parts and a one-line what()", "[core][errors]") {
  Error error(ExitCode::check_failed, "libtorch_cuda.so", "libcudnn.so.9 not found",
              "load the cuDNN module");
  error.with_detail("searched /a/lib").with_detail("searched /b/lib");
  CHECK(error.code() == ExitCode::check_failed);
  CHECK(error.subject() == "libtorch_cuda.so");
  CHECK(error.cause() == "libcudnn.so.9 not found");
  CHECK(error.hint() == "load the cuDNN module");
  CHECK(error.details() == std::vector<std::string>{"searched /a/lib", "searched /b/lib"});
  CHECK(std::string(error.what()) == "libtorch_cuda.so: libcudnn.so.9 not found");
  CHECK(std::string(Error(ExitCode::internal, "", "bug").what()) == "bug");
}

TEST_CASE("ExitCode values are the documented numbers", "[core][errors]") {
  // README.md "Exit codes": scripts depend on these numbers.
  struct {
    ExitCode code;
    int value;
  } const cases[] = {
      {ExitCode::success, 0},       {ExitCode::internal, 1}, {ExitCode::usage, 2},
      {ExitCode::unsatisfiable, 3}, {ExitCode::io, 4},       {ExitCode::integrity, 5},
      {ExitCode::check_failed, 6},
  };
  for (const auto& c : cases) {
    CAPTURE(c.value);
    CHECK(static_cast<int>(c.code) == c.value);
  }
}

TEST_CASE("Error subclasses carry their exit codes", "[core][errors]") {
  struct {
    std::string_view name;
    Error error;
    int code;
  } const cases[] = {
      {"UsageError", wheelmod::UsageError("s", "c"), 2},
      {"UnsatisfiableError", wheelmod::UnsatisfiableError("s", "c"), 3},
      {"IoError", wheelmod::IoError("s", "c"), 4},
      {"IntegrityError", wheelmod::IntegrityError("s", "c"), 5},
      {"CheckFailedError", wheelmod::CheckFailedError("s", "c"), 6},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(static_cast<int>(c.error.code()) == c.code);
    CHECK(c.error.render() == "error: s: c\n");
  }
}

TEST_CASE("Error subclasses are caught as Error at the one catch site", "[core][errors]") {
  try {
    throw wheelmod::IntegrityError("torch.whl", "hash mismatch", "run again with --refresh");
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::integrity);
    CHECK(error.render() == "error: torch.whl: hash mismatch\nhint: run again with --refresh\n");
  }
  CHECK_THROWS_AS(throw wheelmod::UsageError("--x", "unknown option"), std::runtime_error);
}
