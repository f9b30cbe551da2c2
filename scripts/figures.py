#!/usr/bin/env python3
"""The figures README.md quotes, written from measured runs, each with its date and commit.

README.md holds two generated blocks; rerun this script rather than editing them:

  figures:runs   the wall time of `bash scripts/demo.sh` and of `bash scripts/test.sh`
                 (the test count, the time of the tests): a table rendered from the records
                 kept in the block itself (a JSON comment), one record per command, each
                 replaced only by a new measurement of that command;
  figures:bench  rows of the benchmark summary that tests/bench/bench_all.py writes into
                 tests/bench/README.md (between `<!-- bench-summary:begin -->` and
                 `<!-- bench-summary:end -->`), with the date and commit of each run.

  scripts/figures.py bench                       # after bench_all.py rewrote its summary
  scripts/figures.py demo [--build-dir DIR]      # times the demo on a build already there
                                                 # (default build/release; `cmake --preset
                                                 # release && cmake --build --preset release`)
  scripts/figures.py tests --run [--source DIR]  # times `bash .ci/run` in DIR: a fresh clone,
                                                 # e.g. git clone . /tmp/fresh (default: here)
  scripts/figures.py tests --log FILE --source DIR
                                                 # from a run already made: FILE is its output
                                                 # (ctest's summary and the seconds that
                                                 # /usr/bin/time -f %e printed), DIR the
                                                 # checkout it ran in (its commit)

--no-write prints the block instead of rewriting README.md. tests/docs/check_readme_figures.py
(CTest docs.readme_figures) fails when the blocks lack a date or commit, when the table
differs from its records, or when the benchmark block differs from, or is older than,
tests/bench/README.md's summary.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCH_README = ROOT / "tests" / "bench" / "README.md"

BENCH_BEGIN, BENCH_END = "<!-- bench-summary:begin -->", "<!-- bench-summary:end -->"
BLOCKS = ("runs", "bench")
NOTICE = {
    "runs": "<!-- Written by scripts/figures.py (demo, tests) from timed runs, the records "
            "below: rerun it rather than editing this block. -->",
    "bench": "<!-- Written by scripts/figures.py bench from the summary in "
             "tests/bench/README.md: rerun it rather than editing this block. -->",
}
RECORD = re.compile(r"^<!-- figures:record (\{.*\}) -->$", re.MULTILINE)

# The benchmark rows README.md quotes: (benchmark, operation as the summary's table names it,
# peer or None). Each is quoted at the largest size measured. A row the summary no longer has
# stops `figures.py bench` and fails the docs check: change this list with the benchmark.
BENCH_ROWS = (
    ("index", "parse + wheel names + select, in-process", "pip's way"),
    ("index", "whole process (start-up included)", "pip's way"),
    ("fetch", "download one file", "curl"),
    ("fetch", "4 files at once, HTTP/1.1 (http://)", "curl"),
    ("install", "install --no-compile", "pip"),
    ("install", "install, byte-compiled", "pip (default)"),
    ("install", "relink, RPATH longer (appended)", "patchelf"),
    ("small_commands", "check", "ldd"),
    ("mirror", "mirror --jobs 4, first sync", "pip download loop"),
    ("swapcheck", "swapcheck ABI 0 -> 1", "nm -D"),
)
BENCH_TITLES = {"index": "Index pages (`bench_index`)", "fetch": "Downloads (`bench_fetch`)",
                "install": "Installs and relinks (`bench_install`)",
                "small_commands": "Small commands (`bench_small_commands`)",
                "mirror": "Mirrors (`bench_mirror`)",
                "swapcheck": "Swap checks (`bench_swapcheck`)"}


class Failure(Exception):
    pass


# ---- the blocks in README.md --------------------------------------------------------------

def markers(name):
    return f"<!-- figures:{name}:begin -->", f"<!-- figures:{name}:end -->"


def block_of(text, name):
    """The block `name` of a README text, markers included, or None."""
    begin, end = markers(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start or text.count(begin) != 1:
        return None
    return text[start:stop + len(end)]


def replace_block(text, name, block):
    old = block_of(text, name)
    if old is None:
        begin, end = markers(name)
        raise Failure(f"README.md has no single {begin} ... {end} block\nhint: put the two "
                      "markers where the figures go")
    return text.replace(old, block)


def write_readme(readme, name, block):
    text = readme.read_text(encoding="utf-8")
    new = replace_block(text, name, block)
    if new != text:
        temporary = readme.with_name(readme.name + ".tmp")
        temporary.write_text(new, encoding="utf-8")
        temporary.replace(readme)
    return new != text


# ---- where and when ------------------------------------------------------------------------

def git(directory, *args):
    result = subprocess.run(["git", "-C", str(directory), *args], capture_output=True,
                            text=True, timeout=60)
    return result.stdout.strip() if result.returncode == 0 else None


def commit_of(directory):
    """(short commit, whether tracked files differ from it)."""
    commit = git(directory, "rev-parse", "--short", "HEAD")
    if not commit:
        raise Failure(f"{directory}: not a git checkout (pass --commit)")
    dirty = bool(git(directory, "status", "--porcelain", "--untracked-files=no"))
    return commit, dirty


def now_iso():
    return datetime.datetime.now().astimezone().isoformat(timespec="minutes")


def machine():
    load = os.getloadavg()[0]
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"cores": os.cpu_count(), "ram_gib": round(ram, 1), "load_before": round(load, 2)}


def timed(command, cwd, env, log):
    """Runs `command` under /usr/bin/time -f %e, its output to the terminal and to `log`;
    returns (exit status, wall seconds as time printed them)."""
    with tempfile.NamedTemporaryFile("r", prefix="figures-time-") as seconds:
        full = ["/usr/bin/time", "-f", "%e", "-o", seconds.name, *command]
        with open(log, "w", encoding="utf-8") as out, \
                subprocess.Popen(full, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, errors="replace",
                                 bufsize=1) as process:
            for line in process.stdout:
                sys.stdout.write(line)
                out.write(line)
        text = seconds.read().strip().splitlines()
    wall = float(text[-1]) if text and re.fullmatch(r"\d+(\.\d+)?", text[-1]) else None
    if wall is None:
        raise Failure(f"/usr/bin/time printed no wall time: {text}")
    return process.returncode, wall


# ---- the runs: demo and tests ----------------------------------------------------------------

def records_of(text):
    block = block_of(text, "runs")
    if block is None:
        return {}
    match = RECORD.search(block)
    return json.loads(match.group(1)) if match else {}


def stamp(record):
    """'2026-12-07, commit 839f6be' (+ ' with uncommitted changes')."""
    date = record.get("date", "?")[:10]
    commit = record.get("commit", "?") + (" with uncommitted changes" if record.get("dirty")
                                          else "")
    return f"{date}, commit {commit}"


def seconds(value):
    return f"{value:.1f} s" if value < 100 else f"{value:.0f} s"


def demo_row(record):
    parts = [f"every step on a {record.get('build_type') or '?'} build already there "
             f"(`WHEELMOD_DEMO_BUILD_DIR={record.get('build_dir', '?')}`)"]
    if record.get("skipped"):
        parts.append("skipped here: " + "; ".join(record["skipped"]))
    else:
        parts.append("nothing skipped (the CUDA 13 part on NVIDIA's libraries, the imports "
                     "with a CPython 3.13)")
    where = f"{stamp(record)}; {record.get('cores', '?')} cores, load {record.get('load', '?')}"
    return (f"| `bash scripts/demo.sh` | {seconds(record['wall_s'])} after the build | "
            f"{'; '.join(parts)} | {where} |")


def tests_row(record):
    labels = sorted(record.get("labels", {}).items(), key=lambda item: -item[1])[:5]
    by_label = ", ".join(f"{name} {value:.0f}" for name, value in labels)
    failed = record.get("failed", 0)
    outcome = "all passed" if failed == 0 else f"**{failed} failed**"
    of_which = (f"the sanitizer build (`-O0 -g1`), then {record['tests']} tests ({outcome}) in "
                f"{seconds(record['tests_s'])} (`ctest -j {record.get('jobs', '?')}`)")
    if by_label:
        of_which += f"; CPU seconds of the heaviest labels: {by_label}"
    where = f"{stamp(record)}; {record.get('cores', '?')} cores"
    return (f"| `bash scripts/test.sh` | {seconds(record['wall_s'])} (`{record['command']}`, "
            f"{record['where']}) | {of_which} | {where} |")


def render_runs(records):
    begin, end = markers("runs")
    lines = [begin, NOTICE["runs"], "",
             "| command | wall time (`/usr/bin/time -f %e`) | of which | measured |",
             "|---|---|---|---|"]
    if "demo" in records:
        lines.append(demo_row(records["demo"]))
    if "tests" in records:
        lines.append(tests_row(records["tests"]))
    lines += ["", f"<!-- figures:record {json.dumps(records, sort_keys=True)} -->", end]
    return "\n".join(lines)


def parse_ctest_log(text):
    """Test count, failures, time and CPU seconds per label from ctest's console output."""
    match = re.search(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", text)
    total = re.search(r"Total Test time \(real\) =\s*([\d.]+) sec", text)
    if not match or not total:
        raise Failure("no ctest summary in the log (\"N% tests passed, ... out of N\" and "
                      "\"Total Test time (real)\")")
    labels = {name: float(value) for name, value in
              re.findall(r"^(\S+)\s*=\s*([\d.]+) sec\*proc", text, re.MULTILINE)}
    jobs = re.search(r"ctest .*?-j\s*(\d+)", text)
    return {"tests": int(match.group(3)), "failed": int(match.group(2)),
            "tests_s": float(total.group(1)), "labels": labels,
            "jobs": int(jobs.group(1)) if jobs else None}


def wall_of_log(text):
    """The seconds /usr/bin/time -f %e (or -f '%e s wall') printed: the last such line."""
    found = re.findall(r"^(\d+\.\d+)(?: s wall)?$", text, re.MULTILINE)
    return float(found[-1]) if found else None


def command_tests(args):
    source = Path(args.source or ROOT).resolve()
    if args.run:
        log = Path(tempfile.mkstemp(prefix="figures-tests-", suffix=".log")[1])
        commit, dirty = commit_of(source)
        facts = machine()
        print(f"figures: bash .ci/run in {source}, output also in {log}", flush=True)
        status, wall = timed(["bash", ".ci/run"], source, None, log)
        if status != 0:
            raise Failure(f"bash .ci/run exited {status}: no figures written (log: {log})")
        text = log.read_text(encoding="utf-8", errors="replace")
        date = now_iso()
    else:
        if not args.log:
            raise Failure("tests needs --run or --log FILE")
        text = Path(args.log).read_text(encoding="utf-8", errors="replace")
        wall = args.wall if args.wall is not None else wall_of_log(text)
        if wall is None:
            raise Failure(f"{args.log}: no line with the seconds /usr/bin/time -f %e printed "
                          "(pass --wall SECONDS)")
        commit, dirty = (args.commit, False) if args.commit else commit_of(source)
        mtime = datetime.datetime.fromtimestamp(Path(args.log).stat().st_mtime).astimezone()
        date = args.date or mtime.isoformat(timespec="minutes")
        facts = {"cores": args.cores or os.cpu_count()}
    record = parse_ctest_log(text)
    record.update({"command": "bash .ci/run", "where": args.where, "wall_s": round(wall, 2),
                   "date": date, "commit": commit, "dirty": dirty, "cores": facts["cores"]})
    if record["jobs"] is None:
        record["jobs"] = facts["cores"]  # scripts/test.sh runs ctest -j $(nproc)
    return "tests", record


def command_demo(args):
    build = Path(args.build_dir).resolve()
    if not (build / "src" / "cli" / "wheelmod").is_file():
        raise Failure(f"{build}/src/cli/wheelmod: not found\nhint: cmake --preset release && "
                      "cmake --build --preset release")
    cache = build / "CMakeCache.txt"
    build_type = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache.read_text(), re.MULTILINE) \
        if cache.is_file() else None
    commit, dirty = commit_of(ROOT)
    facts = machine()
    log = Path(tempfile.mkstemp(prefix="figures-demo-", suffix=".log")[1])
    env = dict(os.environ, WHEELMOD_DEMO_BUILD_DIR=str(build))
    date = now_iso()
    status, wall = timed(["bash", "scripts/demo.sh"], ROOT, env, log)
    if status != 0:
        raise Failure(f"scripts/demo.sh exited {status}: no figures written (log: {log})")
    text = log.read_text(encoding="utf-8", errors="replace")
    skipped = [line[len("skipped: "):].strip().rstrip(".") for line in text.splitlines()
               if line.startswith("skipped: ")]
    shown = os.path.relpath(build, ROOT)
    return "demo", {"wall_s": round(wall, 2), "date": date, "commit": commit, "dirty": dirty,
                    "cores": facts["cores"], "load": facts["load_before"],
                    "build_dir": build if shown.startswith("..") else shown,
                    "build_type": build_type.group(1).strip() if build_type else None,
                    "skipped": skipped}


# ---- the benchmark rows ----------------------------------------------------------------------

def split_row(line):
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [c.strip().replace("\\|", "|") for c in cells]


def parse_bench_summary(text):
    """{'rendered': ISO, 'sections': {name: {'date', 'commit', 'dirty', 'kind', 'failed',
    'rows': [{'against', 'size', 'wheelmod', 'peer', 'ratio', 'rss'}]}}} from the block
    bench_all.py writes."""
    start, stop = text.find(BENCH_BEGIN), text.find(BENCH_END)
    if start < 0 or stop < start:
        raise Failure(f"tests/bench/README.md has no {BENCH_BEGIN} ... {BENCH_END} block")
    block = text[start:stop]
    rendered = re.search(r"^Rendered (\S+) by", block, re.MULTILINE)
    if not rendered:
        raise Failure("tests/bench/README.md's summary has no 'Rendered DATE by' line")
    titles = {title: name for name, title in BENCH_TITLES.items()}
    sections, current, against = {}, None, ""
    for line in block.splitlines():
        heading = re.match(r"^#### (.*?)(?: \((--\w+) run\))?$", line)
        if heading:
            name = titles.get(heading.group(1))
            current = None if name is None else sections.setdefault(
                name, {"kind": heading.group(2), "failed": False, "rows": []})
            continue
        if current is None:
            continue
        when = re.match(r"^(\d{4}-\d\d-\d\dT[^,\s]+), commit ([0-9a-f]+|\?)"
                        r"( with uncommitted changes)?", line)
        if when:
            current.update(date=when.group(1), commit=when.group(2),
                           dirty=bool(when.group(3)))
        elif line.startswith("**Failed:**"):
            current["failed"] = True
        elif line.startswith("| ") and not line.startswith(("| operation |", "|---")):
            cells = split_row(line)
            if len(cells) < 6:
                continue
            against = cells[0] or against
            current["rows"].append({"against": against, "size": cells[1], "wheelmod": cells[2],
                                    "peer": cells[3], "ratio": cells[4], "rss": cells[5]})
    return {"rendered": rendered.group(1), "sections": sections}


def render_bench(summary):
    begin, end = markers("bench")
    lines = [begin, NOTICE["bench"], "",
             f"From the summary in [tests/bench/README.md](tests/bench/README.md) (rendered "
             f"{summary['rendered']} by `tests/bench/bench_all.py`), each operation at the "
             "largest size measured. Ratio: the peer's time over wheelmod's (above 1, "
             "wheelmod is faster); RSS: peak memory.", "",
             "| benchmark | operation | size | wheelmod | peer | ratio | RSS MiB (wheelmod / "
             "peer) | measured |",
             "|---|---|---|---:|---:|---:|---:|---|"]
    for name, operation, peer in BENCH_ROWS:
        section = summary["sections"].get(name)
        if section is None:
            raise Failure(f"tests/bench/README.md's summary has no {name} section")
        if section["failed"] or section["kind"]:
            raise Failure(f"tests/bench/README.md: the {name} run is "
                          f"{'a failed run' if section['failed'] else section['kind'] + ' run'}"
                          f": its figures mean nothing\nhint: rerun bench_all.py --only {name}")
        against = f"{operation} vs {peer}" if peer else f"{operation} (wheelmod alone)"
        rows = [r for r in section["rows"] if r["against"] == against]
        if not rows:
            raise Failure(f"tests/bench/README.md's {name} table has no row '{against}'\n"
                          "hint: update BENCH_ROWS in scripts/figures.py")
        row = rows[-1]  # the largest size: rows are in size order
        where = f"{section['date'][:10]}, {section['commit']}" + (
            " (uncommitted changes)" if section["dirty"] else "")
        lines.append(f"| {name} | {against} | {row['size']} | {row['wheelmod']} | "
                     f"{row['peer']} | {row['ratio']} | {row['rss']} | {where} |")
    lines.append(end)
    return "\n".join(lines)


def bench_block(bench_readme=BENCH_README):
    return render_bench(parse_bench_summary(bench_readme.read_text(encoding="utf-8")))


# ---- main ----------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--readme", type=Path, default=README)
    parser.add_argument("--no-write", action="store_true", help="print the block instead")
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="the benchmark rows, from tests/bench/README.md")
    bench.add_argument("--bench-readme", type=Path, default=BENCH_README)
    demo = commands.add_parser("demo", help="time scripts/demo.sh on a build already there")
    demo.add_argument("--build-dir", default=str(ROOT / "build" / "release"))
    tests = commands.add_parser("tests", help="the test suite's count and times")
    tests.add_argument("--run", action="store_true", help="run and time `bash .ci/run` now")
    tests.add_argument("--log", help="the output of a run already made")
    tests.add_argument("--source", help="the checkout it runs or ran in (default: this one)")
    tests.add_argument("--where", default="a fresh clone, the Debian packages already installed",
                       help="what the run was, for the table (default: %(default)s)")
    tests.add_argument("--wall", type=float, help="--log: the whole command's seconds, when "
                                                  "the log does not hold them")
    tests.add_argument("--commit", help="--log: the commit, when --source is gone")
    tests.add_argument("--date", help="--log: when it ran (default: the log's time)")
    tests.add_argument("--cores", type=int, help="--log: the machine's cores (default: this "
                                                 "one's)")
    args = parser.parse_args()
    try:
        if args.command == "bench":
            name, block = "bench", bench_block(args.bench_readme)
        else:
            name, record = command_demo(args) if args.command == "demo" else command_tests(args)
            records = records_of(args.readme.read_text(encoding="utf-8"))
            records[name] = record
            name, block = "runs", render_runs(records)
        if args.no_write:
            print(block)
        else:
            changed = write_readme(args.readme, name, block)
            print(f"{args.readme}: figures:{name} {'rewritten' if changed else 'unchanged'}")
    except Failure as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
