#!/usr/bin/env python3
"""Small-commands benchmark: how long `wheelmod relink`, `check`, `module`,
`list`, `resolve`, `tags` and `--version` take on an installed torch-shaped
prefix with a warm page cache, and where the time goes (issue 21, "Small
commands start fast").

Installs a torch-shaped wheel (gen_torch_wheel.py: 8,200 files, six ELF
libraries of 50-600 MiB) with `wheelmod install --no-compile` into an
EasyBuild-style tree whose CUDA, cuDNN, NCCL ... modules are the sample
index's, then builds the larger sizes of --sizes from it: at 4x the prefix
holds three more copies of the torch package (site-packages/torch_copyN:
the files hard-linked, the libraries copied without their payload section,
so that each is an ELF file of its own with the same dynamic section), so
4x and 16x the ELF files and the files of the tree. Then, in alternating
rounds:

  relink   wheelmod relink PREFIX --toolchain foss-2024a --eb-installpath EB
           (nothing to change: "0 changed" is checked every run)
  check    wheelmod check PREFIX               against  ldd on the same ELF files
  module   wheelmod module PREFIX --stdout
  list     wheelmod list (EASYBUILD_INSTALLPATH: the size's tree)
  resolve  wheelmod resolve torch==2.6.0 --toolchain foss-2024a --index file://SAMPLE/whl
  tags     wheelmod tags --python 3.11    (plain `tags` runs python3 to ask its version)
  version  wheelmod --version                  against  /bin/true (exec alone)

every wheelmod run with WHEELMOD_TIMINGS=1, whose "timing:" lines on stderr
give the breakdown: start (the wall time outside main: exec, dynamic loading,
static initialisation, exit), of which before-main-cpu is the CPU time until
the program's first initialiser; then cli, tables, lock, tree-walk,
elf-read, plan, writes, ld.so-host, loader-probe, loader-model, output.

Prints medians (wall, CPU, peak RSS from os.wait4) side by side with
`wheelmod --version` (the process-start floor) and, for check, with ldd;
the targets (relink <= 25 ms, check <= 100 ms of the 1x prefix: PASS/MISS;
the exit status is 0 either way); the breakdown; and how the cost grows per
1,000 files of the tree (0.7 of them ELF files) between the smallest and
the largest size (--summary-json writes the rows and slopes, README.md
"Summary").

  bench_small_commands.py --wheelmod build/bench/src/cli/wheelmod \\
      --sample build/bench/index-mirrors/sample --wheel-cache build/bench/tests/bench
  bench_small_commands.py ... --wheel /tmp/tw/torch-2.6.0+cu126-cp311-cp311-linux_x86_64.whl
  bench_small_commands.py ... --smoke   # CTest: a tiny wheel, sizes 1 and 2, one round
"""

import argparse
import hashlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_support import (K_PR_SET_CHILD_SUBREAPER, BenchError, Summary, first_line,
                           fs_type, load_average, machine_line, median, parse_list, prctl,
                           run_one, verdict)

HERE = Path(__file__).resolve().parent
GENERATOR = HERE / "gen_torch_wheel.py"
K_TOOLCHAIN = "foss-2024a"
K_NAME = "PyTorch"
K_VERSION_DIR = "2.6.0-foss-2024a-whl"
K_GOALS = {"relink": 0.025, "check": 0.100}  # seconds, of the 1x prefix (issue 21)
K_SMOKE_SCALE = 0.005
K_ELF_MAGIC = b"\x7fELF"
K_PHASES = ("before-main-cpu", "static-init", "cli", "settings", "tables", "lock", "tree-walk",
            "elf-read", "plan", "writes", "ld.so-host", "ld.so.cache", "loader-probe",
            "loader-model", "output", "other")


def wheel_xy(wheel):
    """'3.11' from torch-...-cp311-cp311-linux_x86_64.whl."""
    match = re.search(r"-cp3(\d+)-", wheel.name)
    if not match:
        raise BenchError(f"{wheel.name}: no cp3XY tag in the name")
    return f"3.{match.group(1)}"


def obtain_wheel(args, work):
    """--wheel, or the generated wheel (kept in --wheel-cache when given, under the name
    bench_install.py gives it, so that both reuse one)."""
    if args.wheel:
        return args.wheel.resolve()
    generator_id = hashlib.sha256(GENERATOR.read_bytes()).hexdigest()[:12]
    tag = f"cp3{sys.version_info.minor}"
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


def checked(command, **kwargs):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise BenchError(f"{' '.join(map(str, command))} exited {result.returncode}:\n"
                         f"{result.stderr[-3000:]}")
    return result


def is_elf(path):
    with open(path, "rb") as handle:
        return handle.read(4) == K_ELF_MAGIC


def tree_facts(prefix):
    """(files, ELF files) below `prefix`, symlinks not followed (what relink walks)."""
    files, elf = 0, []
    for root, _, names in os.walk(prefix):
        for name in names:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            files += 1
            if is_elf(path):
                elf.append(path)
    return files, sorted(elf)


class Layout:
    """The EasyBuild-style trees: EB (the sample's modules and the 1x prefix) and, per size,
    an installpath of its own holding that size's prefix (for `list`)."""

    def __init__(self, args, work, wheel):
        self.args, self.work, self.wheel = args, work, wheel
        self.eb = work / "eb"
        software = self.eb / "software"
        software.mkdir(parents=True)
        for module in sorted((args.sample / "software").iterdir()):
            (software / module.name).symlink_to(module.resolve(), target_is_directory=True)
        self.xy = wheel_xy(wheel)

    def install(self):
        prefix = self.eb / "software" / K_NAME / K_VERSION_DIR
        checked([self.args.wheelmod, "install", "--wheel", self.wheel, "--toolchain", K_TOOLCHAIN,
                 "--python", self.xy, "--prefix", prefix, "--eb-installpath", self.eb,
                 "--no-compile", "-q"])
        return prefix

    def size(self, base, factor):
        """The installpath and prefix of `factor` times the 1x prefix."""
        if factor == 1:
            return self.eb, base
        root = self.work / f"x{factor}"
        prefix = root / "software" / K_NAME / K_VERSION_DIR
        prefix.parent.mkdir(parents=True)
        shutil.copytree(base, prefix, symlinks=True, copy_function=os.link)
        site = next(prefix.glob("lib/python3.*/site-packages"))
        torch = site / "torch"
        for n in range(1, factor):
            copy = site / f"torch_copy{n}"
            for directory, _, names in os.walk(torch):
                target = copy / Path(directory).relative_to(torch)
                target.mkdir(parents=True, exist_ok=True)
                for name in names:
                    source = Path(directory) / name
                    if source.is_symlink() or not is_elf(source):
                        os.link(source, target / name, follow_symlinks=False)
                    else:  # an ELF file of its own, the same dynamic section, no payload
                        checked([self.args.objcopy, "--remove-section=.bench_payload", source,
                                 target / name])
        return root, prefix


class Runner:
    """Runs the operations of one size, alternating, and keeps their samples."""

    def __init__(self, args, work, layout, installpath, prefix):
        self.args, self.work = args, work
        self.installpath, self.prefix = installpath, prefix
        self.files, self.elf = tree_facts(prefix)
        self.samples = {}   # name -> [Sample]
        self.phases = {}    # name -> {phase: [ms]}
        self.counts = {}    # name -> {counter: value}
        wheelmod = args.wheelmod
        index = "file://" + str((args.sample / "whl").resolve())
        self.commands = {
            "relink": [wheelmod, "relink", prefix, "--toolchain", K_TOOLCHAIN,
                       "--eb-installpath", layout.eb],
            "check": [wheelmod, "check", prefix],
            "module": [wheelmod, "module", prefix, "--stdout", "-q"],
            "list": [wheelmod, "list"],
            "resolve": [wheelmod, "resolve", "torch==2.6.0", "--toolchain", K_TOOLCHAIN,
                        "--index", index, "--cache-dir", work / "cache", "--format", "json"],
            "tags": [wheelmod, "tags", "--python", layout.xy],
            "version": [wheelmod, "--version"],
        }
        self.peers = {"ldd": ["ldd", *self.elf], "true": ["/bin/true"]}
        # --baseline: the same commands with another wheelmod, in the same rounds.
        self.baseline = {} if not args.baseline else {
            name: [args.baseline, *command[1:]] for name, command in self.commands.items()}

    def one(self, name, command, timed):
        scratch = self.work / "scratch"
        scratch.mkdir(exist_ok=True)
        saved = {k: os.environ.get(k) for k in ("WHEELMOD_TIMINGS", "EASYBUILD_INSTALLPATH")}
        if timed:
            os.environ["WHEELMOD_TIMINGS"] = "1"
            os.environ["EASYBUILD_INSTALLPATH"] = str(self.installpath)
        try:
            sample = run_one(command, scratch)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        self.samples.setdefault(name, []).append(sample)
        if timed:
            self.record_phases(name, (scratch / "err0").read_text(errors="replace"))
        return (scratch / "out0").read_text(errors="replace")

    def record_phases(self, name, err):
        phases = self.phases.setdefault(name, {})
        for kind, key, value in re.findall(r"^(timing|count): (\S+) ([0-9.]+)$", err, re.M):
            if kind == "timing":
                phases.setdefault(key, []).append(float(value))
            else:
                self.counts.setdefault(name, {})[key] = int(float(value))

    def round(self, first):
        for name, command in self.commands.items():
            out = self.one(name, command, True)
            if first:
                self.verify(name, out)
        self.one("ldd", self.peers["ldd"], False)
        self.one("true", self.peers["true"], False)
        for name, command in self.baseline.items():
            out = self.one("baseline " + name, command, True)
            if first:
                self.verify(name, out)

    def verify(self, name, out):
        if name == "relink" and not out.rstrip().endswith(
                f"{len(self.elf)} ELF files, {len(self.elf)} with a search path, 0 changed"):
            raise BenchError(f"relink of {self.prefix} did not find nothing to change:\n{out}")
        if name == "check" and f"{len(self.elf)} ELF files checked: every library resolves" \
                not in out:
            raise BenchError(f"check of {self.prefix}:\n{out}")
        if name == "module" and f'"{self.prefix}"' not in out:
            raise BenchError(f"module of {self.prefix} does not name it:\n{out[:2000]}")
        if name == "list" and f"{K_NAME}/{K_VERSION_DIR}" not in out:
            raise BenchError(f"list in {self.installpath} misses the prefix:\n{out}")
        if name == "resolve" and '"torch"' not in out:
            raise BenchError(f"resolve printed no torch:\n{out[:2000]}")
        if name == "tags" and "linux_x86_64" not in out and "manylinux" not in out:
            raise BenchError(f"tags printed no platform tag:\n{out[:2000]}")

    def median_ms(self, name, field="wall"):
        return median(self.samples[name], field) * 1000

    def phase_ms(self, name, phase):
        values = self.phases.get(name, {}).get(phase)
        return statistics.median(values) if values else None

    def start_ms(self, name):
        """Wall time outside main: exec, dynamic loading, static initialisation, exit."""
        main = self.phase_ms(name, "main")
        return None if main is None else self.median_ms(name) - main


def label(runner, factor):
    return f"{factor}x: {len(runner.elf)} ELF files, {runner.files:,} files"


def report(runner, factor):
    print(f"\n{label(runner, factor)} ({runner.prefix}); medians of "
          f"{len(runner.samples['relink'])} rounds, load average {load_average()}")
    floor = runner.median_ms("version")
    print(f"  {'operation':<10} {'wall':>9} {'CPU':>9} {'RSS':>8} {'start':>8}  "
          f"{'/ --version':>11}  peer")
    for name in runner.commands:
        start = runner.start_ms(name)
        peer = ""
        if name == "check":
            ldd = runner.median_ms("ldd")
            peer = f"ldd {ldd:.1f} ms (ldd / check {ldd / runner.median_ms(name):.2f}x)"
        if name == "version":
            peer = f"/bin/true {runner.median_ms('true'):.1f} ms"
        goal = K_GOALS.get(name) if factor == 1 else None
        target = "" if goal is None else \
            f"  target <= {goal * 1000:.0f} ms: {verdict(runner.median_ms(name) <= goal * 1000)}"
        wall, cpu = runner.median_ms(name), runner.median_ms(name, "cpu")
        if runner.baseline:
            before = runner.median_ms("baseline " + name)
            peer = f"baseline {before:.1f} ms ({before / wall:.2f}x){'; ' if peer else ''}{peer}"
        print(f"  {name:<10} {wall:7.1f}ms {cpu:7.1f}ms "
              f"{median(runner.samples[name], 'rss_kib') / 1024:6.1f}M "
              f"{'-' if start is None else f'{start:6.1f}ms'}  "
              f"{runner.median_ms(name) / floor:10.2f}x  {peer}{target}")
    for name in ("relink", "check", *(("baseline relink", "baseline check") if runner.baseline
                                      else ())):
        start = runner.start_ms(name)
        if start is None:
            continue  # a wheelmod without WHEELMOD_TIMINGS
        parts = [f"start {start:.1f}"]
        for phase in K_PHASES:
            value = runner.phase_ms(name, phase)
            if value is not None and (value >= 0.05 or phase == "before-main-cpu"):
                parts.append(f"{phase} {value:.1f}")
        counts = ", ".join(f"{k} {v}" for k, v in runner.counts.get(name, {}).items())
        print(f"  {name} breakdown (ms, medians): " + ", ".join(parts) +
              (f"; {counts}" if counts else ""))


def add_rows(runner, factor, summary):
    size = label(runner, factor)
    floor = runner.median_ms("version")
    version_rss = median(runner.samples["version"], "rss_kib") / 1024
    for name in runner.commands:
        wall = runner.median_ms(name)
        rss = median(runner.samples[name], "rss_kib") / 1024
        goal = K_GOALS.get(name) if factor == 1 else None
        goal_text = None if goal is None else f"<= {goal * 1000:.0f} ms"
        met = None if goal is None else wall <= goal * 1000
        if name == "check":  # the peer that reads the same libraries: ldd
            summary.row("check", size, wall, "ldd", runner.median_ms("ldd"), "ms", rss,
                        median(runner.samples["ldd"], "rss_kib") / 1024, goal_text, met,
                        units=runner.files)
        elif name == "version":
            summary.row("--version", size, wall, "/bin/true", runner.median_ms("true"), "ms",
                        rss, median(runner.samples["true"], "rss_kib") / 1024,
                        units=runner.files)
        else:  # against the process-start floor
            summary.row(name, size, wall, "wheelmod --version", floor, "ms", rss, version_rss,
                        goal_text, met, units=runner.files)


def preflight(args, work_parent):
    for tool in ("ldd", args.objcopy):
        if not shutil.which(tool):
            raise BenchError(f"{tool} not found (apt-get install binutils libc-bin)")
    print(machine_line())
    print(f"work dir: {work_parent} ({fs_type(work_parent)}); load average {load_average()}")
    print(f"wheelmod: {first_line([args.wheelmod, '--version'])}"
          + (f" ({args.build_type} build)" if args.build_type else ""))
    if args.build_type and args.build_type != "Release":
        print(f"warning: wheelmod built as {args.build_type}; measure a Release build")


def run(args, work, summary):
    preflight(args, work.parent)
    wheel = obtain_wheel(args, work)
    layout = Layout(args, work, wheel)
    print(f"installing {wheel.name} into {layout.eb} ...", flush=True)
    base = layout.install()
    runners = []
    for factor in args.sizes:
        installpath, prefix = layout.size(base, factor)
        runner = Runner(args, work, layout, installpath, prefix)
        print(f"size {label(runner, factor)} ready", flush=True)
        runners.append((factor, runner))
    print(f"\n{args.runs} rounds of: relink, check, module, list, resolve, tags, --version, "
          "ldd, /bin/true at each size")
    for _, runner in runners:  # warm-up: page cache, dentries (not counted)
        runner.round(True)
        runner.samples.clear()
        runner.phases.clear()
    for _ in range(args.runs):
        for _, runner in runners:
            runner.round(False)
    for factor, runner in runners:
        report(runner, factor)
        add_rows(runner, factor, summary)
    # The probe plain `tags` makes: python3's start-up, whatever wheelmod does.
    probing = [run_one([args.wheelmod, "tags"], work) for _ in range(max(1, min(3, args.runs)))]
    note = (f"plain `wheelmod tags` (no --python: it runs python3 to ask its version) took "
            f"{median(probing) * 1000:.0f} ms, the rest of the command "
            "as `tags --python`")
    print(note)
    summary.notes.append(note)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelmod", type=Path, required=True,
                        help="the wheelmod binary (a Release build)")
    parser.add_argument("--sample", type=Path, required=True,
                        help="the sample index (build/<preset>/index-mirrors/sample): its "
                             "software/ tree holds the CUDA modules, its whl/ the index")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="where the temporary files go (removed at the end)")
    parser.add_argument("--wheel", type=Path, help="a torch-shaped wheel (default: generate one)")
    parser.add_argument("--wheel-cache", type=Path,
                        help="keep the generated wheel here and reuse it in later runs")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="of the generated wheel (default 1: 8,200 files, 1.5 GiB)")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--sizes", type=parse_list, default=[1, 4, 16],
                        help="prefix sizes as multiples of the wheel's files (default 1,4,16)")
    parser.add_argument("--runs", type=int, default=7, help="alternating rounds (default 7)")
    parser.add_argument("--baseline", type=Path,
                        help="another wheelmod (an older build) run in the same rounds: its "
                             "medians and the speed-up are printed beside (not in the summary)")
    parser.add_argument("--objcopy", default="objcopy")
    parser.add_argument("--build-type", default="", help="CMAKE_BUILD_TYPE, to warn about Debug")
    parser.add_argument("--summary-json", type=Path,
                        help="write the summary (rows and slopes) as JSON here (README.md)")
    parser.add_argument("--smoke", action="store_true",
                        help=f"a wheel of scale {K_SMOKE_SCALE}, sizes 1 and 2, one round: "
                             "checks every command's output")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if args.smoke:
        args.scale, args.runs, args.sizes, args.wheel = K_SMOKE_SCALE, 1, [1, 2], None
    if args.runs < 1 or any(s < 1 for s in args.sizes) or 1 not in args.sizes:
        parser.error("--runs must be >= 1, --sizes whole numbers >= 1 including 1")
    args.sizes = sorted(set(args.sizes))
    args.wheelmod = args.wheelmod.resolve()
    if args.baseline:
        args.baseline = args.baseline.resolve()
    for sig in (signal.SIGTERM, signal.SIGHUP):  # unwind like Ctrl-C: temporary files go
        signal.signal(sig, lambda signum, _: sys.exit(128 + signum))
    work_parent = args.work_dir.resolve()
    work_parent.mkdir(parents=True, exist_ok=True)
    summary = Summary("small_commands", args.build_type)
    summary.tools = {"wheelmod": first_line([args.wheelmod, "--version"]),
                     "ldd": first_line(["ldd", "--version"])}
    try:
        prctl(K_PR_SET_CHILD_SUBREAPER, 1)  # see bench_support.LAUNCH
        with tempfile.TemporaryDirectory(prefix="bench-small-", dir=work_parent) as tmp:
            run(args, Path(tmp), summary)
            print("\nremoving the outputs ...")
        summary.all_slopes("1,000 files", 1000)
        summary.print()
        print(f"\nload average at the end: {load_average()}")
        if args.summary_json:
            summary.write(args.summary_json)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.smoke:
        print("ok: relink changed nothing, check resolved every library, module, list, resolve "
              "and tags printed what they should, at both sizes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
