// The operations called as a program other than the CLI would call them:
// plain options in, results out, on the sample index and its EasyBuild
// tree (real wheels with real ELF libraries, a file:// index).
#include <stdlib.h>  // mkdtemp (POSIX)

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "operations/check.hpp"
#include "operations/easyconfig.hpp"
#include "operations/fetch.hpp"
#include "operations/install.hpp"
#include "operations/module.hpp"
#include "operations/relink.hpp"
#include "operations/resolve.hpp"
#include "operations/tags.hpp"
#include "recording_reporter.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace ops = wheelmod::operations;
using wheelmod::ExitCode;
using wheelmod::test::RecordingReporter;
using wheelmod::test::TempDir;

namespace {

const fs::path k_sample = WHEELMOD_SAMPLE_INDEX_DIR;

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// foss-2024a with its CUDA on an x86_64 node with glibc 2.28, from the
// sample index, cached under `work`.
ops::Selection cuda_selection(const fs::path& work, std::string spec = "torch==2.6.0") {
  ops::Selection selection;
  selection.specs = {std::move(spec)};
  selection.toolchain = "foss-2024a";
  selection.accelerator = "cuda";
  selection.index = "file://" + (k_sample / "whl").string();
  selection.arch = "x86_64";
  selection.glibc = "2.28";
  selection.cache_dir = (work / "cache").string();
  return selection;
}

}  // namespace

TEST_CASE("resolve chooses the cu126 wheel for foss-2024a's CUDA", "[operations]") {
  const TempDir work;
  RecordingReporter reporter;
  const auto report = ops::resolve(cuda_selection(work.path()), reporter);
  REQUIRE_FALSE(report.wheels.empty());
  CHECK(report.wheels.front().name == "torch");
  CHECK(report.wheels.front().version == "2.6.0+cu126");
  CHECK(report.variant.variant == "cu126");
  CHECK(report.target.python == "3.12");
  // A file:// index costs no requests, so there is no "index: ..." note.
  CHECK(reporter.notes.empty());
  CHECK(reporter.warnings.empty());
}

TEST_CASE("resolve refuses what the index does not have, with exit code 3", "[operations]") {
  const TempDir work;
  RecordingReporter reporter;
  try {
    (void)ops::resolve(cuda_selection(work.path(), "torch==1.0.0"), reporter);
    FAIL("no error");
  } catch (const wheelmod::Error& error) {
    CHECK(error.code() == ExitCode::unsatisfiable);
  }
}

TEST_CASE("tags gives pip's order for the target", "[operations]") {
  const auto result = ops::tags({.python = "3.12", .arch = "x86_64", .glibc = "2.28"});
  REQUIRE_FALSE(result.tags.empty());
  CHECK(result.tags.front().str() == "cp312-cp312-manylinux_2_28_x86_64");
  CHECK(result.tags.back().str() == "py30-none-any");
}

TEST_CASE("install, check, relink and module agree on one prefix", "[operations]") {
  const TempDir work;
  const auto prefix = work.path() / "software" / "PyTorch" / "2.6.0-foss-2024a-CUDA-12.6.0-whl";
  ops::InstallOptions options;
  options.selection = cuda_selection(work.path());
  options.selection.python = "3.12";
  options.prefix = prefix.string();
  options.eb_installpath = k_sample.string();
  options.no_compile = true;
  options.write_module = true;
  RecordingReporter reporter;
  const auto installed = ops::install(options, reporter);
  REQUIRE(installed.install.check);
  CHECK(installed.install.check->passed());
  REQUIRE(installed.module_file);
  CHECK(fs::is_regular_file(*installed.module_file));
  CHECK(installed.install.wheels.front().name == "torch");

  ops::CheckOptions check;
  check.prefix = prefix.string();
  check.allowed = {k_sample.string()};
  const auto checked = ops::check(check);
  CHECK(checked.summary.passed());
  CHECK_FALSE(checked.failure);
  CHECK(checked.summary.files == installed.install.check->files);

  // Installed already relinked: a relink finds nothing to change.
  ops::RelinkOptions relink;
  relink.prefix = prefix.string();
  relink.toolchain = "foss-2024a";
  relink.eb_installpath = k_sample.string();
  relink.dry_run = true;
  const auto relinked = ops::relink(relink, reporter);
  CHECK(relinked.elf_files > 0);
  for (const auto& file : relinked.files)
    CHECK(file.edit.method == wheelmod::elf::EditMethod::unchanged);

  ops::ModuleOptions module_options;
  module_options.prefix = prefix.string();
  module_options.to_stdout = true;
  const auto module = ops::module(module_options, reporter);
  CHECK_FALSE(module.target);
  CHECK(module.module == "PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl");
  CHECK(module.text == read(*installed.module_file));
  CHECK_THAT(module.text, Catch::Contains("depends_on(\"cuDNN/"));
}

TEST_CASE("check reports a library that does not resolve as a failure to throw later",
          "[operations]") {
  const TempDir work;
  const auto prefix = work.path() / "p";
  fs::create_directories(prefix / "lib");
  // The sample CUDA module's cuBLAS, without the cuBLASLt it needs (and
  // no search path to find it by).
  fs::path library;
  for (const auto& entry : fs::directory_iterator(k_sample / "software/CUDA/12.6.0/lib64"))
    if (entry.path().filename().string().starts_with("libcublas.so.12.")) library = entry.path();
  REQUIRE_FALSE(library.empty());
  fs::copy_file(library, prefix / "lib" / "libcublas.so.12");
  ops::CheckOptions options;
  options.prefix = prefix.string();
  const auto result = ops::check(options);
  CHECK_FALSE(result.summary.passed());
  REQUIRE(result.failure);
  CHECK(result.failure->code() == ExitCode::check_failed);
}

TEST_CASE("fetch verifies and lands the wheels, then serves them from the cache", "[operations]") {
  const TempDir work;
  ops::FetchOptions options;
  options.selection = cuda_selection(work.path());
  options.selection.no_deps = true;
  options.dest = (work.path() / "first").string();
  RecordingReporter reporter;
  const auto first = ops::fetch(options, reporter);
  CHECK_FALSE(first.failure);
  REQUIRE(first.batch.results.size() == first.report.wheels.size());
  for (const auto& result : first.batch.results) {
    REQUIRE(result);
    CHECK(fs::is_regular_file(result->path));
  }
  options.dest = (work.path() / "second").string();
  const auto second = ops::fetch(options, reporter);
  REQUIRE(second.batch.results.front());
  CHECK(second.batch.received == 0);
}

TEST_CASE("easyconfig writes the golden easyconfigs of the CUDA stack", "[operations]") {
  // The index root as the CLI scenario has it (tests/cli/easyconfig_scenarios.py):
  // /tmp/wm-XXXXXXXX/s, so that long URLs wrap at the same places.
  std::string pattern = "/tmp/wm-opXXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  const fs::path work = pattern;
  struct Remove {
    fs::path path;
    ~Remove() { fs::remove_all(path); }
  } const remove{work};
  fs::create_directory_symlink(k_sample, work / "s");
  const std::string root = "file://" + (work / "s").string();

  ops::EasyconfigOptions options;
  options.selection = cuda_selection(work);
  options.selection.specs = {"torch==2.6.0", "torchvision", "torchaudio"};
  options.selection.index = root + "/whl";
  options.selection.arch.clear();  // both architectures
  options.selection.glibc.clear();
  options.output_dir = (work / "out").string();
  options.metadata = wheelmod::easybuild::MetadataPolicy::keep;  // the golden files' policy
  RecordingReporter reporter;
  const auto result = ops::easyconfig(options, reporter);
  CHECK(result.variant == "cu126");
  REQUIRE(result.written.size() == 3);
  CHECK(result.computed_sha256.size() == 1);
  const std::regex digest("\\b[0-9a-f]{64}\\b");
  const auto golden =
      fs::path(WHEELMOD_TEST_DATA_DIR).parent_path() / "golden/easyconfig/cuda_stack";
  for (const auto& written : result.written) {
    CAPTURE(written.path);
    auto text = read(written.path);
    for (std::size_t at; (at = text.find(root)) != std::string::npos;)
      text.replace(at, root.size(), "[SAMPLE]");
    CHECK(std::regex_replace(text, digest, "[SHA256]") == read(golden / written.path.filename()));
  }
  // Again without --force: refused, and the files stay as they are.
  const auto before = read(result.written.front().path);
  try {
    (void)ops::easyconfig(options, reporter);
    FAIL("no error");
  } catch (const wheelmod::UsageError& error) {
    CHECK_THAT(error.cause(), Catch::Contains("already exists"));
  }
  CHECK(read(result.written.front().path) == before);
}
