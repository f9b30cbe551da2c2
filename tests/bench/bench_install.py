#!/usr/bin/env python3
"""Install benchmark: `wheelmod install` and `wheelmod relink` against pip,
unzip and patchelf, in one run.

On a torch-shaped wheel (gen_torch_wheel.py: ~8,200 files, 1.5 GiB
unpacked, 600 MB packed, six real ELF libraries of 50-600 MiB with torch's
RPATH), alternately (A B C D E, A B C D E, ...), each into a fresh
directory (its big files removed after the run, the rest at the end):

  A  wheelmod install --wheel W --toolchain foss-2024a --python X.Y --prefix P
       --eb-installpath EB --no-compile          (unpack + RECORD check + relink + check)
  B  python3 -m pip install --no-deps --no-index --no-compile --prefix P W
  C  unzip -q W -d D                                   (when unzip is installed)
  F  bench_unpack_floor W D THREADS    (the floor: libzip on one thread per usable CPU,
                                         SHA-256 of every entry, nothing else), then
     python3 -m compileall -q D        (compiling alone, for the CPU floor)
  D  A with byte-compilation (--python-exe python3)
  E  B with byte-compilation (pip's default)

then, on the wheel's largest library (600 MiB) in a prefix of its own:

  wheelmod relink PREFIX (a new RPATH shorter than the old: written in place)
  patchelf --set-rpath NEW --force-rpath COPY          (the same value, a copy of the file)
  wheelmod relink --dry-run                            (start-up, tables, plan; writes nothing)
  and both again with a longer RPATH (a longer installpath), which must grow the file.

EB is the sample index's EasyBuild tree (software/CUDA/12.6.0, cuDNN, NCCL,
cuSPARSELt) through a short symlink, so that the new RPATH is as long as on
a site with a short installpath. Prints medians side by side, ratios
against the targets (PASS/MISS; the exit status is 0 either way) and the
peak RSS of each process (ru_maxrss from os.wait4: the largest of the
process and the children it waited for, so the byte-compiling workers
count).

  bench_install.py --wheelmod build/bench/src/cli/wheelmod \\
      --sample build/bench/index-mirrors/sample --work-dir build/bench
  bench_install.py ... --runs 3 --wheel-cache ~/wheels   # keep the generated wheel
  bench_install.py ... --scales 0.0625,0.25,1 --summary-json OUT.json   # how cost grows
  bench_install.py ... --smoke   # CTest: a 3 MB wheel, one round, trees and RPATHs checked

Needs gcc and objcopy (to generate the wheel), readelf, patchelf, pip for
/usr/bin/python3, optionally unzip, and about 4 GiB free under --work-dir.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from bench_support import (K_MIB, K_PR_SET_CHILD_SUBREAPER, BenchError, Summary, first_line,
                           fs_type, load_average, machine_line, parse_list, prctl, run_one)

HERE = Path(__file__).resolve().parent
GENERATOR = HERE / "gen_torch_wheel.py"
K_TOOLCHAIN = "foss-2024a"
# Issue 21's goals: install --no-compile within 1.1 x the floor (bench_unpack_floor, measured
# in the same rounds), >= 2 x faster than pip and >= 2.2 x than unzip; byte-compiled within
# 1.15 x the CPU floor (CPU of the no-compile install + CPU of compiling alone, over the
# usable cores).
K_FLOOR_FACTOR, K_CPU_FLOOR_FACTOR = 1.1, 1.15
K_PIP_TARGET, K_UNZIP_TARGET = 2.0, 2.2
K_DEFAULT_SCALES = "0.0625,0.25,1"
K_RELINK_TARGET, K_GROW_TARGET, K_RSS_TARGET_MIB = 500, 5, 64
K_SMOKE_SCALE = 0.005
K_LONG_NAME = 160  # an installpath this long makes the new RPATH outgrow torch's
# What a dist-info may hold on one side only: pip's REQUESTED and
# direct_url.json (PEP 610), wheelmod's record of the Requires-Dist it removed.
K_ONE_SIDED = {"REQUESTED", "direct_url.json", "wheelmod.json"}
# Outputs keep their small files until the end (see Runner.retire).
K_RETIRE_ABOVE = 64 * 1024
K_RETAINED_PER_OUTPUT = 80 * K_MIB  # small files, directories, .pyc files at scale 1


@dataclass
class WheelFacts:
    path: Path
    files: int
    unpacked: int
    packed: int
    libraries: list     # file names under torch/lib
    library: str        # the largest (path in the wheel)
    library_size: int


def wheel_facts(path):
    with zipfile.ZipFile(path) as archive:
        infos = [i for i in archive.infolist() if not i.is_dir()]
    libraries = [i for i in infos if i.filename.startswith("torch/lib/")]
    if not libraries:
        raise BenchError(f"{path}: no torch/lib/ libraries: not a torch-shaped wheel")
    big = max(libraries, key=lambda i: i.file_size)
    return WheelFacts(path, len(infos), sum(i.file_size for i in infos), path.stat().st_size,
                      [Path(i.filename).name for i in libraries], big.filename, big.file_size)


def python_xy(python):
    out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise BenchError(f"{python} cannot be run: {out.stderr.strip()}")
    return out.stdout.strip()


def obtain_wheel(args, work, xy):
    """--wheel, or the generated wheel (kept in --wheel-cache when given)."""
    if args.wheel:
        return args.wheel.resolve()
    generator_id = hashlib.sha256(GENERATOR.read_bytes()).hexdigest()[:12]
    tag = "cp" + xy.replace(".", "")
    directory = (args.wheel_cache.resolve() if args.wheel_cache else work) / \
        f"torch-wheel-{args.scale:g}-{args.seed}-{tag}-{generator_id}"
    found = sorted(directory.glob("torch-*.whl"))
    if found:
        print(f"wheel: reusing {found[0]}")
        return found[0]
    print(f"generating the wheel (scale {args.scale:g}, seed {args.seed}) ...", flush=True)
    result = subprocess.run([sys.executable, "-B", str(GENERATOR), "--out", str(directory),
                             "--scale", str(args.scale), "--seed", str(args.seed),
                             "--python-tag", tag], capture_output=True, text=True)
    if result.returncode != 0:
        raise BenchError(f"gen_torch_wheel.py exited {result.returncode}:\n{result.stderr}")
    return next(directory.glob("torch-*.whl"))


def readelf_dynamic(path):
    """(tag, search path, DT_NEEDED list) as readelf -d prints them."""
    out = subprocess.run(["readelf", "-dW", str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise BenchError(f"readelf -d {path}: {out.stderr.strip()}")
    tag, value, needed = None, None, []
    for line in out.stdout.splitlines():
        if "(NEEDED)" in line:
            needed.append(line.split("[", 1)[1].rstrip("]"))
        for name in ("RPATH", "RUNPATH"):
            if f"({name})" in line:
                tag, value = name, line.split("[", 1)[1].rstrip("]")
    return tag, value, needed


def check_relinked(library, eb, torch_libraries, expected_size=None):
    """The installed library's DT_RPATH names no nvidia-* wheel directory,
    and each CUDA library it needs is in one of its directories."""
    tag, value, needed = readelf_dynamic(library)
    if tag != "RPATH" or value is None:
        raise BenchError(f"{library}: {tag or 'no search path'}, expected DT_RPATH")
    entries = value.split(":")
    stray = [e for e in entries if e != "$ORIGIN" and not e.startswith(str(eb) + "/")]
    if stray:
        raise BenchError(f"{library}: RPATH entries not relinked at {eb}: {stray}")
    own = set(torch_libraries) | {"libc.so.6"}  # found through $ORIGIN, and the system's
    for name in needed:
        if name not in own and not any((Path(e) / name).exists() for e in entries):
            raise BenchError(f"{library}: {name} is in none of its RPATH entries {entries}")
    if expected_size is not None and library.stat().st_size != expected_size:
        raise BenchError(f"{library}: {library.stat().st_size} bytes after the relink, the wheel "
                         f"has {expected_size}: the RPATH did not fit in place (patchelf ran), "
                         "so the figures would not be an in-place relink's")
    return value


def installed_files(prefix):
    """Paths relative to site-packages, and bin/<script>: Debian's pip puts
    --prefix installs in local/lib/pythonX.Y/dist-packages, wheelmod in
    lib/pythonX.Y/site-packages."""
    sites = list(prefix.glob("lib/python3*/site-packages")) + \
        list(prefix.glob("local/lib/python3*/dist-packages"))
    if len(sites) != 1:
        raise BenchError(f"{prefix}: expected one site-packages, found {sites}")
    site = sites[0]
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if not p.is_dir()}
    bin_dir = site.parents[2] / "bin"
    return files | {f"bin/{p.name}" for p in bin_dir.iterdir()} if bin_dir.is_dir() else files


def compare_trees(ours, pips, what):
    differ = {p for p in ours ^ pips if p.rsplit("/", 1)[-1] not in K_ONE_SIDED}
    if differ:
        listed = "\n  ".join(f"{'wheelmod' if p in ours else 'pip'} only: {p}"
                             for p in sorted(differ)[:10])
        raise BenchError(f"{what}: wheelmod and pip installed different files:\n  {listed}")


class Runner:
    def __init__(self, args, work, wheel, facts, eb, xy):
        self.args, self.work, self.wheel, self.facts, self.eb, self.xy = \
            args, work, wheel, facts, eb, xy
        self.scratch = work / "scratch"
        self.scratch.mkdir(exist_ok=True)
        self.trash = work / "retired"
        self.trash.mkdir(exist_ok=True)
        self.trees = {}

    def retire(self, out):
        """Frees an output's big files now and keeps the rest until the end.
        On ext4 without a journal, inodes freed in the last 5 minutes are
        not reused (ialloc.c, recently_deleted), and creating files right
        after deleting thousands scans past all of them: deleting every
        output at once would slow the next tool down, not the installers."""
        kept = self.trash / f"{len(list(self.trash.iterdir()))}"
        out.rename(kept)
        for directory, _, files in os.walk(kept):
            for name in files:
                path = os.path.join(directory, name)
                if os.lstat(path).st_size > K_RETIRE_ABOVE:
                    os.unlink(path)

    def timed(self, name, command, check=None):
        out = self.work / name
        sample = run_one(command(out), self.scratch)
        if check:
            check(out)
        self.retire(out)
        return sample

    def wheelmod(self, compile_):
        command = lambda out: [
            self.args.wheelmod, "-q", "install", "--wheel", self.wheel, "--toolchain",
            K_TOOLCHAIN, "--python", self.xy, "--prefix", out / "prefix",
            "--eb-installpath", self.eb, "--format", "json",
            *(["--python-exe", self.args.python] if compile_ else ["--no-compile"])]

        def check(out):
            report = json.loads((self.scratch / "out0").read_text())
            if report["relinked_files"] != len(self.facts.libraries) or \
                    report["byte_compiled"] != compile_:
                raise BenchError(f"wheelmod install reported {report['relinked_files']} "
                                 f"relinked files (expected {len(self.facts.libraries)}), "
                                 f"byte_compiled {report['byte_compiled']}")
            if ("wheelmod", compile_) not in self.trees:
                site = out / "prefix" / "lib" / f"python{self.xy}" / "site-packages"
                check_relinked(site / self.facts.library, self.eb, self.facts.libraries,
                               self.facts.library_size)
                self.trees[("wheelmod", compile_)] = installed_files(out / "prefix")
        return self.timed("wheelmod-out", command, check)

    def pip(self, compile_):
        command = lambda out: [
            self.args.python, "-m", "pip", "install", "--no-deps", "--no-index", "--prefix",
            out / "prefix", self.wheel, "--break-system-packages", "--disable-pip-version-check",
            "--root-user-action=ignore", "-q", *([] if compile_ else ["--no-compile"])]

        def check(out):
            if ("pip", compile_) not in self.trees:
                self.trees[("pip", compile_)] = installed_files(out / "prefix")
        return self.timed("pip-out", command, check)

    def unzip(self):
        def check(out):
            count = sum(len(files) for _, _, files in os.walk(out))
            if count != self.facts.files:
                raise BenchError(f"unzip wrote {count} files, the wheel has {self.facts.files}")
        return self.timed("unzip-out", lambda out: [self.args.unzip, "-q", self.wheel, "-d", out],
                          check)

    def floor(self):
        """The floor program into a fresh directory, then compileall alone on what it wrote:
        (floor sample, compile sample)."""
        out = self.work / "floor-out"
        threads = len(os.sched_getaffinity(0))
        sample = run_one([self.args.floor, self.wheel, out, str(threads)], self.scratch)
        written = json.loads((self.scratch / "out0").read_text())
        if written["files"] != self.facts.files:
            raise BenchError(f"bench_unpack_floor wrote {written['files']} files, the wheel "
                             f"has {self.facts.files}")
        compiled = run_one([self.args.python, "-m", "compileall", "-q", out], self.scratch)
        self.retire(out)
        return sample, compiled

    def rounds(self):
        sides = {"wheelmod": lambda: self.wheelmod(False), "pip": lambda: self.pip(False)}
        if self.args.unzip:
            sides["unzip"] = self.unzip
        if self.args.floor:
            sides["floor"] = self.floor
        sides["wheelmod compiled"] = lambda: self.wheelmod(True)
        sides["pip compiled"] = lambda: self.pip(True)
        samples = {name: [] for name in sides}
        for round_index in range(self.args.runs):
            for name, side in sides.items():
                sample = side()
                if name == "floor":
                    sample, compiled = sample
                    samples.setdefault("compile alone", []).append(compiled)
                samples[name].append(sample)
            print(f"  round {round_index + 1}/{self.args.runs}: " + ", ".join(
                f"{k} {v[-1].wall:.2f} s" for k, v in samples.items()), flush=True)
            if round_index == 0:
                compare_trees(self.trees[("wheelmod", False)], self.trees[("pip", False)],
                              "--no-compile")
                compare_trees(self.trees[("wheelmod", True)], self.trees[("pip", True)],
                              "byte-compiled")
        return samples


def verdict(ok):
    return "PASS" if ok else "MISS"


def median(runs, field="wall"):
    return statistics.median(getattr(s, field) for s in runs)


def print_table(title, rows, unit="s", scale=1.0):
    """rows: (label, samples, ratio text, target text)."""
    print(f"\n{title:58} {'wall ' + unit:>9} {'CPU ' + unit:>9} {'RSS MiB':>8} {'ratio':>8}"
          "   target")
    for label, runs, ratio, target in rows:
        print(f"  {label:56} {median(runs) * scale:9.3f} {median(runs, 'cpu') * scale:9.3f} "
              f"{max(s.rss_kib for s in runs) / 1024:8.1f} {ratio:>8}   {target}".rstrip())


def install_report(facts, samples, summary):
    ours, ours_c = samples["wheelmod"], samples["wheelmod compiled"]
    ratio = lambda peer, us: median(samples[peer]) / median(us)
    rss = max(s.rss_kib for s in ours) / 1024
    rss_c = max(s.rss_kib for s in ours_c) / 1024
    rows = [("wheelmod install --no-compile (+ relink + check)", ours, "1.00x",
             f"RSS < {K_RSS_TARGET_MIB} MiB: {verdict(rss < K_RSS_TARGET_MIB)}"),
            ("pip install --no-compile", samples["pip"], f"{ratio('pip', ours):.2f}x",
             f">= {K_PIP_TARGET}x: {verdict(ratio('pip', ours) >= K_PIP_TARGET)}")]
    if "floor" in samples:
        rows.append(("floor: libzip + SHA-256 of every entry", samples["floor"],
                     f"{ratio('floor', ours):.2f}x", ""))
    if "unzip" in samples:
        rows.append(("unzip -q", samples["unzip"], f"{ratio('unzip', ours):.2f}x",
                     f">= {K_UNZIP_TARGET}x: {verdict(ratio('unzip', ours) >= K_UNZIP_TARGET)}"))
    rows += [("wheelmod install, byte-compiled (+ relink + check)", ours_c, "1.00x",
              f"RSS < {K_RSS_TARGET_MIB} MiB: {verdict(rss_c < K_RSS_TARGET_MIB)}"),
             ("pip install, byte-compiled (pip's default)", samples["pip compiled"],
              f"{ratio('pip compiled', ours_c):.2f}x", "")]
    if "compile alone" in samples:
        rows.append(("python3 -m compileall -q alone (the floor's tree)",
                     samples["compile alone"], "", ""))
    print_table(f"install {facts.files} files, {facts.unpacked / K_MIB:.0f} MiB "
                f"({facts.packed / K_MIB:.0f} MiB packed)", rows)
    print("  ratio: the peer's median wall time over wheelmod's (> 1: wheelmod is faster)")
    for peer, us in (("pip", ours), ("unzip", ours), ("pip compiled", ours_c)):
        if peer in samples:
            paired = sorted(p.wall / w.wall for p, w in zip(samples[peer], us))
            print(f"  {peer} / wheelmod per round: {paired[0]:.2f} to {paired[-1]:.2f}")
    size = f"{facts.unpacked / K_MIB:.0f} MiB, {facts.files} files"
    units = facts.unpacked / K_MIB
    summary.row("install --no-compile", size, median(ours), "pip", median(samples["pip"]), "s",
                rss_mib=rss, peer_rss_mib=max(s.rss_kib for s in samples["pip"]) / 1024,
                goal=f">= {K_PIP_TARGET}x", met=ratio("pip", ours) >= K_PIP_TARGET, units=units)
    if "unzip" in samples:
        summary.row("install --no-compile", size, median(ours), "unzip -q",
                    median(samples["unzip"]), "s", rss_mib=rss,
                    peer_rss_mib=max(s.rss_kib for s in samples["unzip"]) / 1024,
                    goal=f">= {K_UNZIP_TARGET}x", met=ratio("unzip", ours) >= K_UNZIP_TARGET,
                    units=units)
    summary.row("install, byte-compiled", size, median(ours_c), "pip (default)",
                median(samples["pip compiled"]), "s", rss_mib=rss_c,
                peer_rss_mib=max(s.rss_kib for s in samples["pip compiled"]) / 1024,
                units=units)
    if "floor" not in samples:
        print("  floor: not measured (no --floor program)")
        return
    floor, alone = samples["floor"], samples["compile alone"]
    cores = len(os.sched_getaffinity(0))
    to_floor = median(ours) / median(floor)
    paired = sorted(w.wall / f.wall for w, f in zip(ours, floor))
    print(f"  floor: {median(floor):.3f} s wall, {median(floor, 'cpu'):.3f} s CPU, "
          f"{max(s.rss_kib for s in floor) / 1024:.1f} MiB (libzip on {cores} threads + "
          f"SHA-256 of every entry)\n  wheelmod --no-compile / floor: {to_floor:.2f} (per round "
          f"{paired[0]:.2f} to {paired[-1]:.2f})   <= {K_FLOOR_FACTOR}: "
          f"{verdict(to_floor <= K_FLOOR_FACTOR)}")
    cpu_floor = (median(ours, "cpu") + median(alone, "cpu")) / cores
    to_cpu_floor = median(ours_c) / cpu_floor
    print(f"  compiling alone: {median(alone):.3f} s wall, {median(alone, 'cpu'):.3f} s CPU "
          f"(python3 -m compileall -q on the floor's tree)\n  CPU floor: ({median(ours, 'cpu'):.3f}"
          f" s unpacking + {median(alone, 'cpu'):.3f} s compiling) / {cores} usable cores = "
          f"{cpu_floor:.3f} s\n  wheelmod byte-compiled / CPU floor: {to_cpu_floor:.2f}   <= "
          f"{K_CPU_FLOOR_FACTOR}: {verdict(to_cpu_floor <= K_CPU_FLOOR_FACTOR)}")
    summary.row("install --no-compile vs the floor", size, median(ours), "floor (libzip + SHA-256)",
                median(floor), "s", rss_mib=rss,
                peer_rss_mib=max(s.rss_kib for s in floor) / 1024,
                goal=f"wheelmod <= {K_FLOOR_FACTOR}x the floor",
                met=to_floor <= K_FLOOR_FACTOR, units=units)
    summary.row("install, byte-compiled vs the CPU floor", size, median(ours_c),
                "CPU floor ((unpack + compile CPU) / cores)", cpu_floor, "s", rss_mib=rss_c,
                goal=f"wheelmod <= {K_CPU_FLOOR_FACTOR}x the CPU floor",
                met=to_cpu_floor <= K_CPU_FLOOR_FACTOR, units=units)


class Relinks:
    """The wheel's largest library in a prefix of its own, restored from a
    pristine copy before every run."""

    def __init__(self, args, work, wheel, facts, xy):
        self.args, self.work, self.facts = args, work, facts
        self.prefix = work / "relink-prefix"
        self.library = self.prefix / "lib" / f"python{xy}" / "site-packages" / facts.library
        self.library.parent.mkdir(parents=True)
        self.pristine = work / "relink-pristine.so"
        with zipfile.ZipFile(wheel) as archive, archive.open(facts.library) as member, \
                open(self.pristine, "wb") as out:
            shutil.copyfileobj(member, out, 4 * K_MIB)
        self.scratch = work / "scratch"
        self.old = readelf_dynamic(self.pristine)[1]

    def wheelmod(self, eb, dry_run=False):
        shutil.copyfile(self.pristine, self.library)
        sample = run_one([self.args.wheelmod, "-q", "relink", self.prefix, "--toolchain",
                          K_TOOLCHAIN, "--eb-installpath", eb, "--format", "json",
                          *(["--dry-run"] if dry_run else [])], self.scratch)
        files = json.loads((self.scratch / "out0").read_text())["files"]
        if len(files) != 1:
            raise BenchError(f"wheelmod relink reported {len(files)} files, expected 1")
        method, new = files[0]["method"], files[0]["new"]
        if not dry_run:
            if check_relinked(self.library, eb, self.facts.libraries) != new:
                raise BenchError(f"{self.library}: readelf's RPATH is not wheelmod's {new!r}")
        return sample, method, new

    def patchelf(self, value):
        copy = self.work / "patchelf-copy.so"
        shutil.copyfile(self.pristine, copy)
        sample = run_one([self.args.patchelf, "--set-rpath", value, "--force-rpath", copy],
                         self.scratch)
        if readelf_dynamic(copy)[:2] != ("RPATH", value):
            raise BenchError(f"patchelf left {readelf_dynamic(copy)[:2]} in {copy}")
        copy.unlink()
        return sample

    def rounds(self, cases):
        """cases: name -> installpath; per round, per case: patchelf, wheelmod
        (and for the in-place case a dry run: the fixed cost)."""
        samples, methods = {}, {}
        for name, eb in cases.items():
            _, methods[name], value = self.wheelmod(eb, dry_run=True)
            cases[name] = (eb, value)
        for round_index in range(self.args.runs):
            for name, (eb, value) in cases.items():
                samples.setdefault((name, "patchelf"), []).append(self.patchelf(value))
                sample, method, _ = self.wheelmod(eb)
                if method != methods[name]:
                    raise BenchError(f"wheelmod relink used {method}, its dry run said "
                                     f"{methods[name]}")
                samples.setdefault((name, "wheelmod"), []).append(sample)
                if name == "shorter":
                    samples.setdefault((name, "dry run"), []).append(
                        self.wheelmod(eb, dry_run=True)[0])
            print(f"  round {round_index + 1}/{self.args.runs}: " + ", ".join(
                f"{n} {s} {v[-1].wall * 1000:.1f} ms" for (n, s), v in samples.items()),
                flush=True)
        return samples, methods, {name: value for name, (_, value) in cases.items()}


def relink_report(size, old, samples, methods, values, summary):
    for name, target in (("shorter", K_RELINK_TARGET), ("longer", K_GROW_TARGET)):
        ours, peer = samples[(name, "wheelmod")], samples[(name, "patchelf")]
        ratio = median(peer) / median(ours)
        rss = max(s.rss_kib for s in ours) / 1024
        ok = ratio >= target and rss < K_RSS_TARGET_MIB
        rows = [("patchelf --set-rpath NEW --force-rpath (a copy)", peer, f"{ratio:.1f}x", ""),
                (f"wheelmod relink PREFIX ({methods[name]})", ours, "1.0x",
                 f">= {target}x, RSS < {K_RSS_TARGET_MIB} MiB: {verdict(ok)}")]
        if (name, "dry run") in samples:
            rows.append(("wheelmod relink --dry-run (start-up, tables, plan)",
                         samples[(name, "dry run")], "", ""))
        print_table(f"relink {size / K_MIB:.0f} MiB, RPATH {len(old)} -> {len(values[name])} "
                    f"bytes ({name})", rows, "ms", 1000)
        paired = sorted(p.wall / w.wall for p, w in zip(peer, ours))
        print(f"  patchelf / wheelmod per round: {paired[0]:.1f} to {paired[-1]:.1f}")
        summary.row(f"relink, RPATH {name} ({methods[name]})", f"{size / K_MIB:.0f} MiB library",
                    median(ours) * 1000, "patchelf", median(peer) * 1000, "ms", rss_mib=rss,
                    peer_rss_mib=max(s.rss_kib for s in peer) / 1024,
                    goal=f">= {target}x, RSS < {K_RSS_TARGET_MIB} MiB", met=ok,
                    units=size / K_MIB)
        if methods[name] == "appended":
            print("  note: a longer RPATH needs a bigger .dynstr: wheelmod copies the file in the "
                  "kernel\n  (copy_file_range), appends the old table + the new path in a new "
                  "PT_LOAD and renames\n  the copy over the file; patchelf rewrites the whole "
                  "file through memory")


def preflight(args, work_parent, xy):
    if not (args.sample / "software" / "CUDA" / "12.6.0").is_dir():
        raise BenchError(f"{args.sample}: no software/CUDA/12.6.0\nhint: give the sample index "
                         "the build writes (build/<preset>/index-mirrors/sample; target "
                         "sample_index)")
    for tool, hint in ((args.patchelf, "apt-get install patchelf"),
                       (shutil.which("readelf"), "apt-get install binutils")):
        if not tool:
            raise BenchError(f"{hint.split()[-1]} not found\nhint: {hint}")
    for sub in ("install", "relink"):
        if subprocess.run([args.wheelmod, sub, "--help"], capture_output=True).returncode != 0:
            raise BenchError(f"{args.wheelmod} has no working '{sub}' command")
    pip = subprocess.run([args.python, "-m", "pip", "--version"], capture_output=True, text=True)
    if pip.returncode != 0:
        raise BenchError(f"{args.python} -m pip does not run\nhint: apt-get install python3-pip")
    # the wheel (generated: ~0.4 x unpacked), one unpacked tree at a time,
    # the relink's pristine copy, working copy and patchelf's copy, and the
    # small files each output keeps until the end (Runner.retire)
    scale = max(args.scales)
    unpacked = 1.6 * (1 << 30) * scale
    retained = (args.runs + 1) * 6 * K_RETAINED_PER_OUTPUT * scale
    need = int(0.4 * unpacked + unpacked + 3 * 600 * K_MIB * scale + retained) + 256 * K_MIB
    free = shutil.disk_usage(work_parent).free
    if free < need:
        raise BenchError(f"{work_parent}: {free / K_MIB:.0f} MiB free, the benchmark needs "
                         f"{need / K_MIB:.0f} MiB\nhint: pass a smaller --scale or another "
                         "--work-dir")
    print(machine_line())
    print(f"work dir: {work_parent} ({fs_type(work_parent)}); load average {load_average()}")
    print(f"wheelmod: {first_line([args.wheelmod, '--version'])}"
          + (f" ({args.build_type} build)" if args.build_type else "")
          + f", unpacking on {os.cpu_count()} threads (one per core)")
    print(f"pip: {pip.stdout.split(' from ')[0]} on Python {xy} ({args.python}); "
          f"unzip: {first_line([args.unzip, '-v']) if args.unzip else 'not installed'}; "
          f"patchelf: {first_line([args.patchelf, '--version'])}")
    if args.build_type and args.build_type != "Release":
        print(f"warning: wheelmod built as {args.build_type}; measure a Release build")
    if not args.unzip:
        print("unzip not installed: its column is skipped (apt-get install unzip)")


def run(args, work, links, summary):
    xy = python_xy(args.python)
    preflight(args, work.parent, xy)
    short = links / "eb"
    short.symlink_to(args.sample.resolve(), target_is_directory=True)
    long = links / ("long-installpath-".ljust(K_LONG_NAME, "x"))
    long.mkdir()
    (long / "software").symlink_to(args.sample.resolve() / "software", target_is_directory=True)
    print(f"EasyBuild tree: {args.sample} as {short} (a site's short installpath)")
    for scale in args.scales:
        args.scale = scale
        measure_scale(args, work / f"scale-{scale:g}", xy, short, long, summary)
    summary.all_slopes("100 MiB unpacked", 100)


def measure_scale(args, work, xy, short, long, summary):
    work.mkdir()
    wheel = obtain_wheel(args, work, xy)
    facts = wheel_facts(wheel)
    print(f"\n=== wheel: {wheel.name}: {facts.files} files, {facts.unpacked / K_MIB:.0f} MiB "
          f"unpacked, {facts.packed / K_MIB:.0f} MiB packed; {len(facts.libraries)} libraries, "
          f"the largest {facts.library} ({facts.library_size / K_MIB:.0f} MiB)")
    if not args.smoke:
        with open(wheel, "rb") as handle:  # into the page cache, as a fetched wheel is
            while handle.read(16 * K_MIB):
                pass
    print(f"\n{args.runs} rounds of: wheelmod, pip{', unzip' if args.unzip else ''}"
          f"{', floor + compileall' if args.floor else ''}, wheelmod byte-compiled, "
          "pip byte-compiled")
    runner = Runner(args, work, wheel, facts, short, xy)
    if not args.smoke:
        runner.wheelmod(False)  # warm-up: page cache, dentries
    samples = runner.rounds()
    install_report(facts, samples, summary)

    print(f"\nrelink: {facts.library} alone in a prefix; {args.runs} rounds of patchelf, "
          "wheelmod, wheelmod --dry-run (shorter), patchelf, wheelmod (longer)")
    relinks = Relinks(args, work, wheel, facts, xy)
    relink_samples, methods, values = relinks.rounds({"shorter": short, "longer": long})
    relink_report(facts.library_size, relinks.old, relink_samples, methods, values, summary)
    if methods["shorter"] != "in place" or methods["longer"] != "appended":
        raise BenchError(f"relink methods {methods}: expected in place (shorter) and appended "
                         "(longer)")
    # Its outputs stay until the end (Runner.retire says why).


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelmod", required=True, help="the wheelmod binary (a Release build)")
    parser.add_argument("--sample", type=Path, required=True,
                        help="the sample index (build/<preset>/index-mirrors/sample): its "
                             "software/ tree stands in for the site's EasyBuild installpath")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="where the temporary files go (removed at the end)")
    parser.add_argument("--wheel", type=Path, help="a torch-shaped wheel (default: generate one)")
    parser.add_argument("--wheel-cache", type=Path,
                        help="keep the generated wheel here and reuse it in later runs")
    parser.add_argument("--scales", type=lambda t: parse_list(t, float),
                        default=parse_list(K_DEFAULT_SCALES, float),
                        help="of the generated wheel, a comma list: each size is measured and "
                             f"the slope printed (default {K_DEFAULT_SCALES}; 1: 1.5 GiB "
                             "unpacked)")
    parser.add_argument("--scale", type=float, help="one size only (same as --scales X)")
    parser.add_argument("--floor", help="the bench_unpack_floor program (default: beside "
                                        "--wheelmod in its build tree, when there)")
    parser.add_argument("--summary-json", type=Path, help="write the summary here (README.md)")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="runs pip and byte-compiles (default /usr/bin/python3)")
    parser.add_argument("--unzip", default=shutil.which("unzip"), help="default: on PATH")
    parser.add_argument("--patchelf", default=shutil.which("patchelf"), help="default: on PATH")
    parser.add_argument("--build-type", default="", help="CMAKE_BUILD_TYPE, to warn about Debug")
    parser.add_argument("--smoke", action="store_true",
                        help=f"scale {K_SMOKE_SCALE}, one round: check the trees and RPATHs")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # in order with the errors on stderr
    if args.scale is not None:
        args.scales = [args.scale]
    if args.smoke:
        args.scales, args.runs, args.wheel, args.wheel_cache = [K_SMOKE_SCALE], 1, None, None
    if args.wheel:
        args.scales = args.scales[:1]  # the given wheel is the one size
    if args.runs < 1 or not all(0 < scale <= 4 for scale in args.scales):
        parser.error("--runs must be >= 1 and every scale in (0, 4]")
    if args.floor is None:
        beside = Path(args.wheelmod).resolve().parents[2] / "tests" / "bench" / \
            "bench_unpack_floor"
        args.floor = str(beside) if beside.is_file() else None
    summary = Summary("install", args.build_type)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # unwind like Ctrl-C: temporary files go
        signal.signal(sig, lambda signum, _: sys.exit(128 + signum))
    work_parent = args.work_dir.resolve()
    work_parent.mkdir(parents=True, exist_ok=True)
    try:
        prctl(K_PR_SET_CHILD_SUBREAPER, 1)  # see bench_support.LAUNCH
        # The symlinks go to a short directory of their own: a site's
        # installpath (/apps/easybuild) is short, the build tree's is not.
        with tempfile.TemporaryDirectory(prefix="bench-install-", dir=work_parent) as tmp, \
                tempfile.TemporaryDirectory(prefix="wmb-") as links:
            run(args, Path(tmp), Path(links), summary)
            print("\nremoving the outputs ...")
        print(f"\nload average at the end: {load_average()}")
        summary.print()
        if args.summary_json:
            summary.write(args.summary_json)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.smoke:
        print("ok: wheelmod and pip installed the same files (with and without .pyc); the "
              "relinked RPATHs name the EasyBuild tree and find every CUDA library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
