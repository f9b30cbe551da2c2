"""What the hostile-input drivers share: running the real binary with its peak
RSS measured (os.wait4), the shape of an error on stderr, snapshots of the
directories a run must not touch, and the per-class bookkeeping that ends
in one reliability_log.record() line.

The binary is the sanitizer build (ASan + UBSan). Its resident set is large
before it does anything (the 190 MB executable's pages plus ASan's shadow
and allocator), so memory bounds are stated as growth over a baseline that
is measured, not guessed: `wheelmod --version` run by the same driver.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The --list format of the CLI scenarios (tests/cli/scenario_support.py), shared, not copied.
sys.path.append(os.path.join(HERE, "..", "cli"))
import reliability_log  # noqa: E402
from scenario_support import ctest_listing  # noqa: E402

MIB = 1 << 20

# What a sanitizer prints when it finds a bug; any of these fails a case.
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:", "==ERROR:")


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Result:
    def __init__(self, command, returncode, stdout, stderr, peak_rss_kib):
        self.command = command
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.peak_rss_kib = peak_rss_kib

    @property
    def peak_rss_mib(self):
        return self.peak_rss_kib / 1024

    def describe(self):
        return (f"$ {' '.join(self.command)}\n-> exit {self.returncode}, peak RSS "
                f"{self.peak_rss_mib:.0f} MiB\nstdout:\n{self.stdout[-3000:]}\n"
                f"stderr:\n{self.stderr[-3000:]}")


# Forks and execs the command, reaps it with os.wait4, writes "ru_maxrss status" to
# argv[1]. Why a process between: a child's ru_maxrss includes the high-water mark of
# the memory it was forked from (Linux records the old mm's peak at exec, and
# subprocess forks with vfork, sharing the driver's). The driver holds pages of
# 100 MB; this launcher holds ~10 MB, well under wheelmod's baseline.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run(command, timeout=120, env=None, cwd=None):
    """Runs `command` with stdout and stderr in files (no pipe can fill up and
    stall it), its peak resident set from os.wait4's ru_maxrss (KiB on Linux) in
    the launcher above; kills the whole session on timeout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as figures:
        process = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, figures.name, *command],
                                   stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                   cwd=cwd, start_new_session=True)
        try:
            process.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            timed_out = True
        text = figures.read().split()
        peak_kib, returncode = (int(text[0]), int(text[1])) if len(text) == 2 else (0, -9)
        out.seek(0)
        err.seek(0)
        result = Result(command, returncode, out.read().decode(errors="replace"),
                        err.read().decode(errors="replace"), peak_kib)
    check(not timed_out, f"timed out after {timeout} s\n{result.describe()}")
    check(process.returncode == 0, f"the launcher failed ({process.returncode})\n{result.describe()}")
    return result


def check_no_sanitizer_report(result):
    for mark in SANITIZER_MARKS:
        check(mark not in result.stderr, f"sanitizer report ({mark}): a bug\n{result.describe()}")
    check(result.returncode >= 0, f"killed by signal {-result.returncode}\n{result.describe()}")


def check_error(result, exit_code, *patterns):
    """The run failed with `exit_code` and one paragraph on stderr: an `error: `
    line, indented continuation lines (`caused by:`, lists), at most one
    `hint: ` line, last; nothing else (runs use -q, so no progress lines).
    Each regex of `patterns` must match somewhere in that paragraph."""
    check_no_sanitizer_report(result)
    check(result.returncode == exit_code,
          f"exit {result.returncode}, expected {exit_code}\n{result.describe()}")
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", result.stderr),
          f"a control character reached the terminal (names must be escaped)\n{result.describe()}")
    lines = result.stderr.rstrip("\n").split("\n")
    check(lines and lines[0].startswith("error: ") and len(lines[0]) > len("error: ") + 10,
          f"stderr does not start with an error line\n{result.describe()}")
    hints = [i for i, line in enumerate(lines) if line.startswith("hint: ")]
    check(len(hints) <= 1 and (not hints or hints[0] == len(lines) - 1),
          f"more than one hint, or a hint that is not last\n{result.describe()}")
    for line in lines[1:len(lines) - len(hints)]:
        check(line[:1] in (" ", "\t") and line.strip(),
              f"stray line in the error paragraph: {line!r}\n{result.describe()}")
    # Exit 3 (the nearest candidates) and 6 (the check's report) come with a report on
    # stdout; any other failure has no result to print.
    check(not result.stdout.strip() or exit_code in (3, 6),
          f"a failed run printed results on stdout\n{result.describe()}")
    for pattern in patterns:
        check(re.search(pattern, result.stderr, re.MULTILINE),
              f"stderr lacks /{pattern}/\n{result.describe()}")


def snapshot(root):
    """{relative path: (type, size, mtime_ns)} of everything under `root`."""
    out = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            out[os.path.relpath(path, root)] = (info.st_mode >> 12, info.st_size, info.st_mtime_ns)
    return out


def check_unchanged(before, after, allowed=()):
    """Nothing appeared, vanished or changed, except names matching a regex of `allowed`."""
    def interesting(name):
        return not any(re.fullmatch(pattern, name) for pattern in allowed)
    added = sorted(n for n in after if n not in before and interesting(n))
    removed = sorted(n for n in before if n not in after and interesting(n))
    changed = sorted(n for n in before if n in after and before[n] != after[n] and interesting(n)
                     and before[n][0] != 4)  # a directory's mtime moves with allowed entries
    check(not (added or removed or changed),
          f"the run touched what it must not: added {added}, removed {removed}, changed {changed}")


class Suite:
    """One class of hostile inputs: counts its cases, collects the peak RSS,
    records one reliability line at the end."""

    def __init__(self, wheelmod, case_class, command):
        self.wheelmod = wheelmod
        self.case_class = case_class
        self.command = command
        self.cases = 0
        self.failures = []
        self.expected_failures = []
        self.peak_rss_kib = 0
        self.outcomes = []
        self._baseline = None

    def baseline_mib(self):
        """Peak RSS of `wheelmod --version`: the sanitizer build's floor."""
        if self._baseline is None:
            result = run([self.wheelmod, "--version"])
            check(result.returncode == 0, result.describe())
            self._baseline = result.peak_rss_mib
        return self._baseline

    def wheelmod_run(self, *args, timeout=120, env=None, cwd=None, rss_budget_mib=None):
        """Runs wheelmod -q ARGS; with `rss_budget_mib`, fails unless its peak RSS
        stays within the baseline plus that many MiB."""
        result = run([self.wheelmod, "-q", *args], timeout=timeout, env=env, cwd=cwd)
        self.peak_rss_kib = max(self.peak_rss_kib, result.peak_rss_kib)
        if rss_budget_mib is not None:
            limit = self.baseline_mib() + rss_budget_mib
            check(result.peak_rss_mib <= limit,
                  f"peak RSS {result.peak_rss_mib:.0f} MiB over the bound {limit:.0f} MiB "
                  f"(baseline {self.baseline_mib():.0f} + {rss_budget_mib})\n{result.describe()}")
        return result

    def case(self, name, function, *args, xfail=None):
        """Runs one case. `xfail`: the reason it is known to fail (a bug outside
        the files this suite may fix); it then must fail, else the marker is stale."""
        self.cases += 1
        try:
            outcome = function(*args)
        except Failure as failure:
            if xfail:
                print(f"xfail: {self.case_class}: {name}: {xfail}\n  ({str(failure).splitlines()[0]})")
                self.expected_failures.append(name)
                return
            print(f"FAIL: {self.case_class}: {name}: {failure}")
            self.failures.append(name)
            return
        if xfail:
            print(f"FAIL: {self.case_class}: {name}: passed, but is marked as an expected "
                  f"failure ({xfail}); remove the marker")
            self.failures.append(name)
            return
        print(f"ok: {self.case_class}: {name}" + (f": {outcome}" if outcome else ""))
        if outcome:
            self.outcomes.append(outcome)

    def run_all(self, cases, work, outcome):
        """Runs `cases` ((name, function[, xfail reason]) each), closes `work` whatever
        happens, and records the class with `outcome`; returns the exit code."""
        try:
            for name, function, *xfail in cases:
                self.case(name, function, xfail=xfail[0] if xfail else None)
        finally:
            work.close()
        return self.finish(outcome)

    def finish(self, outcome):
        peak = round(self.peak_rss_kib / 1024, 1)
        figures = {"peak_rss_mib": peak, "baseline_rss_mib": round(self.baseline_mib(), 1)}
        if self.expected_failures:
            figures["expected_failures"] = self.expected_failures
        reliability_log.record(suite="hostile", case_class=self.case_class, command=self.command,
                               cases=self.cases, failures=len(self.failures), outcome=outcome,
                               **figures)
        return 1 if self.failures else 0


def print_listing(parser, names, ctest, required_options):
    """What `--list` prints, for tests/hostile/listed_tests.cmake to register: one line per
    group or scenario of `names`, in order, `NAME [options=--a,--b] [fixtures=x,y]
    [timeout=SECONDS]` (ctest_listing of tests/cli/scenario_support.py, whose "*" default and
    checks apply to `ctest`). `required_options`, the options the driver requires besides
    --wheelmod (each given a path by CMake), head every line's options. Returns the exit code:
    2, with the reason on stderr, when `ctest` is wrong (it names no scenario, an unknown
    setting or option, a bad timeout)."""
    required = list(required_options)
    ctest = {name: dict(settings) for name, settings in (ctest or {}).items()}
    ctest.setdefault("*", {})
    for name, settings in ctest.items():
        if name == "*" or "options" in settings:  # a scenario's own options replace "*"'s
            settings["options"] = required + [option for option in settings.get("options", ())
                                              if option not in required]
    try:
        lines = ctest_listing(names, ctest, required)
    except ValueError as error:
        print(f"{parser.prog}: error: --list: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


def main_with_groups(description, groups, ctest=None, options=()):
    """`driver.py --wheelmod BIN [OPTION PATH...] GROUP`: runs one group (a function taking
    the parsed arguments and returning 0 or 1). `options` are further options the driver
    requires ("--sample"); they and --wheelmod are made absolute (some groups run in other
    directories). `driver.py --list` prints the groups for CTest (print_listing): `ctest` maps
    a group, or "*" for all of them, to its settings, {"timeout": SECONDS} at least
    (tests/hostile/CMakeLists.txt requires one)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--list", action="store_true",
                        help="print the groups, one a line, with what CTest needs to run each, "
                             "and exit (tests/hostile/CMakeLists.txt reads it)")
    parser.add_argument("--wheelmod")
    for option in options:
        parser.add_argument(option)
    parser.add_argument("group", nargs="?", choices=sorted(groups))
    args = parser.parse_args()
    if args.list:
        return print_listing(parser, groups, ctest, options)
    paths = ["--wheelmod", *options]
    missing = [name for name in [*paths, "group"]
               if getattr(args, name.lstrip("-").replace("-", "_")) is None]
    if missing:
        parser.error(f"the following arguments are required: {', '.join(missing)}")
    for name in paths:
        attribute = name.lstrip("-").replace("-", "_")
        setattr(args, attribute, os.path.abspath(getattr(args, attribute)))
    return groups[args.group](args)
