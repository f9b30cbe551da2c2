// EasyBuild's installation lock as eb takes it (easybuild-framework filetools.py det_lock_path,
// create_lock; easyblock.py lock_name = installdir with '/' as '_').
#include <unistd.h>

#include <fstream>

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "easybuild/eb_lock.hpp"

using namespace wheelmod;
using namespace wheelmod::easybuild;
namespace fs = std::filesystem;

TEST_CASE("lock_path is eb's name for an installation directory", "[easybuild][lock]") {
  CHECK(lock_path("/apps/software/.locks", "/apps/software/PyTorch/2.6.0-foss-2024a-whl/") ==
        "/apps/software/.locks/_apps_software_PyTorch_2.6.0-foss-2024a-whl.lock");
}

TEST_CASE("InstallLock excludes, names its holder, and takes over a dead wheelmod's",
          "[easybuild][lock]") {
  const TemporaryDirectory root(fs::temp_directory_path(), "wheelmod-eb-lock-");
  const auto locks = root.path() / "software" / ".locks";
  const auto installdir = root.path() / "software" / "PyTorch" / "2.6.0";
  {
    const auto held = InstallLock::acquire(locks, installdir, LockWait{});
    CHECK(fs::is_directory(held.path()));
    CHECK_THAT(lock_holder(held.path()),
               Catch::StartsWith("wheelmod pid " + std::to_string(::getpid()) + " on "));
    try {
      (void)InstallLock::acquire(locks, installdir, LockWait{});
      FAIL("a second lock was taken");
    } catch (const IoError& error) {
      CHECK(error.subject() == held.path().string());
      CHECK_THAT(error.cause(), Catch::Contains("held by wheelmod pid"));
    }
  }
  const auto path = lock_path(locks, installdir);
  CHECK_FALSE(fs::exists(path));  // released

  // eb's own lock: a bare directory, never taken over.
  fs::create_directories(path);
  try {
    (void)InstallLock::acquire(locks, installdir, LockWait{});
    FAIL("eb's lock was ignored");
  } catch (const IoError& error) {
    CHECK_THAT(error.cause(), Catch::Contains("an eb run"));
  }
  // A wheelmod holder on this host whose process is gone: taken over.
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof(host) - 1) == 0);
  std::ofstream(path / "wheelmod-holder")
      << "pid 2147483000 host " << host << " since 2026-01-01T00:00:00Z\n";
  const auto taken = InstallLock::acquire(locks, installdir, LockWait{});
  CHECK_THAT(lock_holder(taken.path()),
             Catch::StartsWith("wheelmod pid " + std::to_string(::getpid())));
}
