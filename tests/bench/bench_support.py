"""Shared by the benchmark drivers (bench_fetch.py, bench_install.py,
bench_mirror.py): running a measured program so that wait4 reports its own
peak RSS, and the facts about the machine that the figures depend on, medians
and verdicts. Not a script of its own.
"""

import argparse
import ctypes
import os
import signal
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

K_MIB = 1 << 20
K_PR_SET_PDEATHSIG = 1  # prctl(2)
K_PR_SET_CHILD_SUBREAPER = 36


class BenchError(Exception):
    pass


@dataclass
class Sample:
    wall: float     # seconds
    cpu: float      # user + system seconds
    rss_kib: int    # peak resident set (ru_maxrss is KiB on Linux)


def parse_size(text):
    """'1G', '512MiB', '8M', '1073741824' -> bytes (binary units)."""
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    value = text.strip().upper().removesuffix("IB").removesuffix("B")
    suffix = value[-1] if value and value[-1] in "KMGT" else ""
    try:
        return int(float(value[: len(value) - len(suffix)]) * units[suffix])
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 1G, 512M)") from None


def prctl(option, value):
    if ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) != 0:
        raise BenchError(f"prctl({option}): {os.strerror(ctypes.get_errno())}")


# How the measured programs start: /bin/sh forks each in the background,
# prints its pid and exits; the driver, a child subreaper (call
# prctl(K_PR_SET_CHILD_SUBREAPER, 1) first), inherits it and reaps it with
# os.wait4. Had Python spawned it, a program would report Python's peak RSS
# wherever its own is lower: execve carries the old address space's
# high-water mark into the process's maxrss (exec_mmap). The job waits at a
# gate (a pipe on stdin) until sh is gone, so that it cannot end while
# still sh's child.
LAUNCH = ('exec 3<&0 </dev/null; out=$1 err=$2; shift 2; '
          '{ read -r _ <&3; exec "$@" 3<&- >"$out" 2>"$err"; } >/dev/null 2>&1 & echo $!')


def start(command, out_path, err_path):
    """The pid of `command`, held at its gate, and the gate's write end."""
    gate_read, gate_write = os.pipe()
    with subprocess.Popen(["/bin/sh", "-c", LAUNCH, "sh", str(out_path), str(err_path),
                           *map(str, command)], stdin=gate_read, stdout=subprocess.PIPE,
                          text=True) as shell:
        os.close(gate_read)
        pid = int(shell.stdout.readline())
    return pid, gate_write


def reap(pid, command, err_path):
    """Waits for one process with os.wait4: its own rusage, so its own peak
    RSS (the largest of it and the children it waited for)."""
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        err = Path(err_path).read_text(errors="replace")[-2000:]
        raise BenchError(f"{' '.join(map(str, command))} exited {code}:\n{err}")
    return usage


def run_parallel(commands, scratch):
    """Runs every command at once; wall time until the last one ends,
    CPU time summed, peak RSS of the largest process. Their stdout and
    stderr land in scratch/out<i> and scratch/err<i>."""
    os.sync()  # write-back of an earlier run must not land in this one
    errs = [scratch / f"err{i}" for i in range(len(commands))]
    started = [start(c, scratch / f"out{i}", errs[i]) for i, c in enumerate(commands)]
    begin = time.perf_counter()
    for _, gate in started:
        os.close(gate)  # EOF: go
    usages = []
    try:
        for (pid, _), command, err in zip(started, commands, errs):
            usages.append(reap(pid, command, err))
    finally:
        for pid, _ in started[len(usages):]:  # a failure or a signal: stop the rest
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass  # the one that failed, already reaped
    wall = time.perf_counter() - begin
    return Sample(wall, sum(u.ru_utime + u.ru_stime for u in usages),
                  max(u.ru_maxrss for u in usages))


def run_one(command, scratch):
    return run_parallel([command], scratch)


def first_line(command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except OSError:
        return "not found"
    return (result.stdout or result.stderr).strip().splitlines()[0] if result.returncode == 0 \
        else f"exit {result.returncode}"


def load_average():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) + " (1, 5, 15 min)"


def fs_type(path):
    path, best = os.path.realpath(path), ("", "?")
    with open("/proc/mounts") as mounts:
        for line in mounts:
            _, target, kind = line.split()[:3]
            if (path == target or path.startswith(target.rstrip("/") + "/")) and \
                    len(target) >= len(best[0]):
                best = (target, kind)
    return best[1]


def machine_line():
    """CPUs, model, SHA extensions, RAM, kernel: one line for the header."""
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = next((l.split(":", 1)[1].strip() for l in cpuinfo.splitlines()
                  if l.startswith("model name")), "?")
    flags = next((l for l in cpuinfo.splitlines() if l.startswith("flags")), "")
    mem = next(l.split()[1] for l in Path("/proc/meminfo").read_text().splitlines()
               if l.startswith("MemTotal"))
    return (f"machine: {os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), {model}, "
            f"sha_ni: {'yes' if ' sha_ni' in flags else 'no'}, {int(mem) / K_MIB:.1f} GiB RAM, "
            f"Linux {os.uname().release}")


def median(runs, field="wall"):
    """The median of one field ("wall", "cpu", "rss_kib") over Samples."""
    return statistics.median(getattr(s, field) for s in runs)


def verdict(ok):
    return "PASS" if ok else "MISS"
