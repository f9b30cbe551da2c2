"""What the SIGKILL fault drivers share: options, the kill schedule, the tally
of what each kill left, and the line for tests/RELIABILITY.md.

Each driver runs one wheelmod command uninterrupted to measure it, then N
times (WHEELMOD_FAULT_RUNS, default 10) starts it again and SIGKILLs it
after a delay drawn uniformly from [0, 1.1 x the measured duration] by a
seeded RNG, so the kills land in every phase and a failure can be replayed
with the same --seed. After each kill the driver checks the invariants and
names the state the kill left ("old", "new", "absent", ...); the counts of
those states are printed and recorded.
"""
import argparse
import collections
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))

from scenario_support import Failure, check, sha256_of  # noqa: E402,F401
import reliability_log  # noqa: E402
from hostile_support import print_listing  # noqa: E402

DEFAULT_RUNS = 10


def fault_runs():
    """How many kills per scenario: WHEELMOD_FAULT_RUNS (the reliability report uses 50)."""
    text = os.environ.get("WHEELMOD_FAULT_RUNS", "")
    if not text:
        return DEFAULT_RUNS
    try:
        runs = int(text)
    except ValueError:
        raise SystemExit(f"WHEELMOD_FAULT_RUNS={text!r}: give a whole number of runs")
    if runs < 1:
        raise SystemExit(f"WHEELMOD_FAULT_RUNS={text!r}: give at least 1")
    return runs


def run(command, expect=0, timeout=300, env=None):
    """Runs `command` to completion; fails (with its output) unless it exits with `expect`."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    if result.returncode != expect:
        raise Failure(f"{' '.join(command)}: exit {result.returncode}, expected {expect}\n"
                      f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result


def measure(command, env=None):
    """Seconds one uninterrupted run of `command` takes (it must succeed)."""
    started = time.monotonic()
    run(command, env=env)
    return time.monotonic() - started


def kill_after(command, delay, env=None):
    """Starts `command`, SIGKILLs it after `delay` seconds; returns None when the kill landed,
    or the exit code when the command ended first (then it must have succeeded)."""
    # stderr goes to a file, not a pipe: a full pipe would stall the command and skew the
    # moment of the kill.
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return None
        errors.seek(0)
        text = errors.read().decode(errors="replace")
    check(process.returncode == 0,
          f"{' '.join(command)} ended by itself with exit {process.returncode}:\n{text}")
    return process.returncode


class Campaign:
    """The kills of one scenario: the schedule, the tally, the verdict."""

    def __init__(self, args, name, case_class, command_text):
        self.name = name
        self.case_class = case_class
        self.command_text = command_text
        self.runs = fault_runs()
        self.rng = random.Random(f"{args.seed}:{name}")
        self.states = collections.Counter()
        self.failures = 0
        self.duration = None
        self.started = time.monotonic()
        self.figures = {}  # more numbers for the record (leftovers seen, ...)

    def delays(self, duration):
        self.duration = duration
        print(f"{self.name}: one uninterrupted run takes {duration:.3f} s; "
              f"{self.runs} kills in [0, {1.1 * duration:.3f}] s")
        return [self.rng.uniform(0.0, 1.1 * duration) for _ in range(self.runs)]

    def case(self, index, delay, one_case):
        """Runs one kill case; `one_case(delay)` returns the state it left or raises Failure."""
        try:
            state = one_case(delay)
        except Failure as failure:
            self.failures += 1
            print(f"{self.name} case {index}: kill at {delay:.3f} s: FAIL: {failure}")
            return False
        self.states[state] += 1
        print(f"{self.name} case {index}: kill at {delay:.3f} s -> {state}")
        return True

    def run(self, duration, one_case, outcome, final_check=lambda: None):
        """Every kill of the schedule (stopping at the first broken invariant), then
        finish(): the whole campaign of a scenario; returns the exit code."""
        for index, delay in enumerate(self.delays(duration)):
            if not self.case(index, delay, one_case):
                break
        return self.finish(final_check, outcome)

    def finish(self, final_check, outcome):
        """The last, uninterrupted run and its checks, the distribution, the record; returns
        the exit code (0 when no case broke an invariant)."""
        try:
            final_check()
        except Failure as failure:
            self.failures += 1
            print(f"{self.name}: final run: FAIL: {failure}")
        wall = time.monotonic() - self.started
        cases = sum(self.states.values()) + self.failures
        print(f"{self.name}: states after {cases} kills: "
              + ", ".join(f"{k}={v}" for k, v in sorted(self.states.items())))
        print(f"{self.name}: {self.failures} failures, {wall:.1f} s wall")
        reliability_log.record(suite="faults", case_class=self.case_class, command=self.command_text,
                               cases=cases, failures=self.failures, outcome=outcome,
                               states=dict(sorted(self.states.items())),
                               measured_s=round(self.duration or 0.0, 3), wall_s=round(wall, 1),
                               **self.figures)
        return 1 if self.failures else 0


def main(description, scenarios, ctest=None):
    """Parses --wheelmod, --sample, --seed and the scenario; runs it in a scratch directory.
    `driver.py --list` prints the scenarios for CTest (hostile_support.print_listing, every
    line with options=--sample): `ctest` maps a scenario, or "*" for all of them, to its
    settings, {"timeout": SECONDS} at least (tests/faults/CMakeLists.txt requires one)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--list", action="store_true",
                        help="print the scenarios, one a line, with what CTest needs to run each, "
                             "and exit (tests/faults/CMakeLists.txt reads it)")
    parser.add_argument("--wheelmod")
    parser.add_argument("--sample")
    parser.add_argument("--seed", default="20261203", help="seed of the kill schedule")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("scenario", nargs="?", choices=sorted(scenarios))
    args = parser.parse_args()
    if args.list:
        return print_listing(parser, scenarios, ctest, ["--sample"])
    missing = [name for name, value in (("--wheelmod", args.wheelmod), ("--sample", args.sample),
                                        ("scenario", args.scenario)) if value is None]
    if missing:
        parser.error(f"the following arguments are required: {', '.join(missing)}")
    args.wheelmod = os.path.abspath(args.wheelmod)
    args.sample = os.path.abspath(args.sample)
    work = tempfile.mkdtemp(prefix=f"wheelmod-faults-{args.scenario}-")
    try:
        return scenarios[args.scenario](args, work)
    except Failure as failure:  # setup, or a regression scenario
        print("FAIL:", failure)
        return 1
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
