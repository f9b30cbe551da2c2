"""Shared by the benchmark drivers (bench_*.py): running a measured program so
that wait4 reports its own peak RSS, the facts about the machine that the
figures depend on, medians and verdicts, and the summary every driver prints
at the end and writes with --summary-json (README.md, "Summary"): one row per
operation and size, one slope per operation. Not a script of its own.
"""

import argparse
import ctypes
import datetime
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
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


# --- the summary: rows, slopes, --summary-json ------------------------------

K_SUMMARY_VERSION = 1


def parse_list(text, parse=int):
    """'64M,256M,1G' -> [parse(each)], in the order given, at least one."""
    try:
        values = [parse(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of sizes: {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("an empty list of sizes")
    return values


def size_label(size):
    """1073741824 -> '1 GiB', 67108864 -> '64 MiB'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} B"


def git_commit():
    """(short commit, whether tracked files differ from it) of the tree this
    file is in; (None, None) outside a git work tree."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    if commit.returncode != 0:
        return None, None
    return commit.stdout.strip(), bool(dirty.stdout.strip()) if dirty.returncode == 0 else None


def machine_facts(build_type=""):
    """The machine part of a summary, less the load at the end."""
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = next((l.split(":", 1)[1].strip() for l in cpuinfo.splitlines()
                  if l.startswith("model name")), None)
    flags = next((l for l in cpuinfo.splitlines() if l.startswith("flags")), "")
    mem = next(l.split()[1] for l in Path("/proc/meminfo").read_text().splitlines()
               if l.startswith("MemTotal"))
    commit, dirty = git_commit()
    return {"cores": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)),
            "cpu": model, "sha_ni": " sha_ni" in flags, "ram_gib": round(int(mem) / K_MIB, 1),
            "kernel": os.uname().release, "load_before": load_triple(), "load_after": None,
            "commit": commit, "worktree_dirty": dirty, "build_type": build_type or None}


def load_triple():
    return [round(x, 2) for x in os.getloadavg()]


def rounded(value):
    """Floats to 6 significant digits, through lists and dicts."""
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def slope_of(points, per_units):
    """Cost per `per_units` units between the smallest and the largest size:
    points are (units, value); None with fewer than two distinct sizes or a
    value missing at either end."""
    points = sorted(p for p in points if p[1] is not None)
    if len(points) < 2 or points[-1][0] == points[0][0]:
        return None
    (low, a), (high, b) = points[0], points[-1]
    return (b - a) / (high - low) * per_units


def ratio_text(ratio):
    return "-" if ratio is None else f"{ratio:.2f}x"


def fmt_value(value, unit):
    if value is None:
        return "-"
    if unit == "s":
        return f"{value:.3f} s" if abs(value) >= 0.1 else f"{value:.4f} s"
    return f"{value:.1f} {unit}" if abs(value) >= 10 else f"{value:.2f} {unit}"


class Summary:
    """What a driver measured, one row per operation and size, and how it
    grows (slopes). Printed at the end of a run; written as JSON by
    --summary-json (the format is in README.md, "Summary")."""

    def __init__(self, benchmark, build_type=""):
        self.benchmark = benchmark
        self.started = time.time()
        self.machine = machine_facts(build_type)
        self.rows, self.slopes, self.notes = [], [], []
        self.tools = {}  # name -> version line, for the reader of the JSON

    def row(self, operation, size, wheelmod, peer_name, peer, unit, rss_mib=None,
            peer_rss_mib=None, goal=None, met=None, units=None):
        """One operation at one size; `units` (the size as a number, in the
        slope's unit) is kept for slope() and not written. A row without a
        peer (a wheelmod-only figure) has peer_name, peer and ratio null."""
        ratio = peer / wheelmod if peer is not None and wheelmod else None
        self.rows.append({"operation": operation, "size": size, "wheelmod": wheelmod,
                          "peer_name": peer_name, "peer": peer, "unit": unit, "ratio": ratio,
                          "rss_mib": rss_mib, "peer_rss_mib": peer_rss_mib, "goal": goal,
                          "met": met, "_units": units})
        return self.rows[-1]

    def slope(self, operation, per, per_units, peer_name=None):
        """The slope of `operation` (against `peer_name`, where it has
        several peers) over its rows with `units`, per `per_units` units
        (`per` says it in words: '100 MiB'); None (and nothing recorded)
        with fewer than two sizes."""
        rows = [r for r in self.rows if r["operation"] == operation and r["_units"] is not None
                and (peer_name is None or r["peer_name"] == peer_name)]
        ours = slope_of([(r["_units"], r["wheelmod"]) for r in rows], per_units)
        if ours is None:
            return None
        theirs = slope_of([(r["_units"], r["peer"]) for r in rows], per_units)
        ends = sorted(rows, key=lambda r: r["_units"])
        entry = {"operation": operation, "per": per, "wheelmod": ours,
                 "peer_name": rows[0]["peer_name"], "peer": theirs, "unit": rows[0]["unit"],
                 "ratio": theirs / ours if theirs is not None and ours > 0 else None,
                 "from": ends[0]["size"], "to": ends[-1]["size"]}
        self.slopes.append(entry)
        return entry

    def all_slopes(self, per, per_units):
        """slope() of every operation and peer, in the order of the rows."""
        for operation, peer_name in dict.fromkeys((r["operation"], r["peer_name"])
                                                  for r in self.rows):
            self.slope(operation, per, per_units, peer_name)

    def print(self):
        """The rows grouped by operation, then one line per slope."""
        if not self.rows:
            return
        width = max(len(r["size"]) for r in self.rows)
        print("\nhow cost grows: medians per size; ratio = peer / wheelmod (> 1: wheelmod is "
              "faster)")
        group = None
        for r in sorted(self.rows, key=lambda r: self.groups().index(group_of(r))):
            if group_of(r) != group:
                group = group_of(r)
                print(f"  {r['operation']}" + (f", against {r['peer_name']}" if r["peer_name"]
                                               else ""))
            rss = "" if r["rss_mib"] is None and r["peer_rss_mib"] is None else \
                f"  RSS MiB {fmt_value(r['rss_mib'], '').strip()} / " \
                f"{fmt_value(r['peer_rss_mib'], '').strip()}"
            goal = "" if r["goal"] is None else f"  {r['goal']}" + \
                ("" if r["met"] is None else f": {verdict(r['met'])}")
            print(f"    {r['size']:{width}}  wheelmod {fmt_value(r['wheelmod'], r['unit']):>11}  "
                  f"peer {fmt_value(r['peer'], r['unit']):>11}  {ratio_text(r['ratio']):>7}"
                  f"{rss}{goal}")
        for s in self.slopes:
            print("  " + slope_line(s))
        for note in self.notes:
            print(f"  {note}")

    def groups(self):
        return list(dict.fromkeys(group_of(r) for r in self.rows))

    def write(self, path):
        """The summary as one JSON object (README.md, "Summary")."""
        self.machine["load_after"] = load_triple()
        document = {"benchmark": self.benchmark, "summary_version": K_SUMMARY_VERSION,
                    "command": shlex.join(sys.orig_argv),
                    "date": datetime.datetime.fromtimestamp(self.started).astimezone()
                    .isoformat(timespec="seconds"),
                    "duration_s": round(time.time() - self.started, 1),
                    "machine": self.machine, "tools": self.tools,
                    "rows": [{k: v for k, v in r.items() if not k.startswith("_")}
                             for r in self.rows],
                    "slopes": self.slopes, "notes": self.notes}
        document = rounded(document)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(document, indent=1) + "\n")
        temporary.replace(path)


def group_of(row):
    return row["operation"], row["peer_name"]


def slope_line(s):
    """'slope of OP, FROM -> TO: wheelmod X, PEER Y per PER (Zx)'."""
    peer = "" if s["peer"] is None else f", {s['peer_name']} {fmt_value(s['peer'], s['unit'])}"
    ratio = "" if s["ratio"] is None else f" ({s['ratio']:.2f}x)"
    return (f"slope of {s['operation']}, {s['from']} -> {s['to']}: wheelmod "
            f"{fmt_value(s['wheelmod'], s['unit'])}{peer} per {s['per']}{ratio}")
