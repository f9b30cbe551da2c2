#!/usr/bin/env python3
"""README.md's figures against where they come from (CTest docs.readme_figures, label docs).

    check_readme_figures.py [--source-dir DIR]     # the check; exit 1 with every problem
    check_readme_figures.py --self-test [--source-dir DIR]
                                                   # the check on stale copies: each must fail

Fails when
- a block scripts/figures.py writes (`<!-- figures:NAME:begin -->`) is missing, or a row of it
  has no date or no commit;
- the table of the runs block (the demo's and the test suite's wall time, the test count)
  differs from the records kept in the block: a figure edited by hand;
- the benchmark block differs from what tests/bench/README.md's summary (written by
  tests/bench/bench_all.py) gives now, in particular when it is older than that summary;
- the Layout table's range of toolchain generations is not config/toolchains.yaml's;
- prose outside the blocks quotes a figure of the kind the blocks hold (a test count, a
  benchmark ratio or time, "about a minute").

Pure Python over the files: no build, no network. The fix for the first three is to rerun
scripts/figures.py (its --help says how); the last two are fixed by hand.
"""

import argparse
import importlib.util
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent

DATE = re.compile(r"\b\d{4}-\d\d-\d\d(?:\b|T)")
GENERATION = r"\d{4}(?:[a-z]|\.\d+)"  # 2025b, 2026.1
# Figures of the kinds the generated blocks hold, when they turn up in prose again.
HAND_WRITTEN = (
    (re.compile(r"\b\d[\d,]* tests\b"), "a test count"),
    (re.compile(r"\babout a minute\b"), "a wall time"),
    (re.compile(r"\b\d+(?:[–-]\d+)? s (?:wall|of tests|\(quiet\)|\(loaded\))"), "a wall time"),
    (re.compile(r"\b\d+[–-]\d+ s\b|(?<=\| )\d+(?:\.\d+)? s(?= \|)"), "a wall time"),
    (re.compile(r"\b\d+(?:\.\d+)?x\b"), "a benchmark ratio"),
    (re.compile(r"\b\d[\d,.]* ?(?:ms|GB/s|MB/s)\b"), "a benchmark figure"),
)


def load_figures(source):
    spec = importlib.util.spec_from_file_location("figures", source / "scripts" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generations(toolchains_yaml):
    """The generation keys under `generations:`, in file order (no YAML library needed: the
    file's keys are quoted at two spaces of indentation)."""
    text = toolchains_yaml.read_text(encoding="utf-8")
    body = text.split("\ngenerations:\n", 1)
    if len(body) != 2:
        return []
    return re.findall(r"^  '([^']+)':", body[1], re.MULTILINE)


def prose_without_blocks(text):
    """The README without the generated blocks and the fenced code."""
    text = re.sub(r"<!-- figures:(\w+):begin -->.*?<!-- figures:\1:end -->", "", text,
                  flags=re.DOTALL)
    return re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)


def check(source, figures):
    readme_path = source / "README.md"
    bench_path = source / "tests" / "bench" / "README.md"
    text = readme_path.read_text(encoding="utf-8")
    problems = []

    for name in re.findall(r"<!-- figures:(\w+):begin -->", text):
        if name not in figures.BLOCKS:
            problems.append(f"README.md: unknown block figures:{name}")
    for name in figures.BLOCKS:
        block = figures.block_of(text, name)
        if block is None:
            begin, end = figures.markers(name)
            problems.append(f"README.md: no figures:{name} block ({begin} ... {end}): "
                            "its figures have no source")
            continue
        rows = [line for line in block.splitlines()
                if line.startswith("| ") and not line.startswith("| command |")
                and not line.startswith("| benchmark |")]
        if not rows:
            problems.append(f"README.md figures:{name}: no figures in the block")
        for row in rows:
            if not DATE.search(row):
                problems.append(f"README.md figures:{name}: a row without a date: {row[:100]}")
            if not re.search(r"(?:commit |, )[0-9a-f]{7,40}\b", row):
                problems.append(f"README.md figures:{name}: a row without a commit: "
                                f"{row[:100]}")

    block = figures.block_of(text, "runs")
    if block is not None:
        try:
            records = figures.records_of(text)
        except json.JSONDecodeError as error:
            records = None
            problems.append(f"README.md figures:runs: its record is not JSON: {error}")
        if records is not None:
            for command in ("demo", "tests"):
                record = records.get(command)
                if record is None:
                    problems.append(f"README.md figures:runs: no record of the {command} run")
                    continue
                if not DATE.match(str(record.get("date", ""))):
                    problems.append(f"README.md figures:runs: the {command} record lacks a "
                                    "date")
                if not re.fullmatch(r"[0-9a-f]{7,40}", str(record.get("commit", ""))):
                    problems.append(f"README.md figures:runs: the {command} record lacks a "
                                    "commit")
            try:
                expected = figures.render_runs(records)
            except (KeyError, TypeError, ValueError) as error:
                expected = None
                problems.append(f"README.md figures:runs: a record lacks a figure: {error!r}")
            if expected is not None and expected != block:
                problems.append("README.md figures:runs: the table differs from its records "
                                "(a figure edited by hand?)\nhint: scripts/figures.py demo / "
                                "tests write it; never edit the block")

    block = figures.block_of(text, "bench")
    if block is not None:
        try:
            summary = figures.parse_bench_summary(bench_path.read_text(encoding="utf-8"))
            expected = figures.render_bench(summary)
        except figures.Failure as error:
            expected = None
            problems.append(f"tests/bench/README.md: {error}")
        if expected is not None and expected != block:
            quoted = re.search(r"\(rendered (\S+) by", block)
            stamp = quoted.group(1) if quoted else None
            if stamp is None:
                problems.append("README.md figures:bench: no 'rendered DATE' stamp of the "
                                "summary it was written from")
            elif stamp < summary["rendered"]:
                problems.append(f"README.md figures:bench is older than the benchmark summary "
                                f"it comes from: written from the one rendered {stamp}, "
                                f"tests/bench/README.md's was rendered {summary['rendered']}\n"
                                "hint: python3 scripts/figures.py bench")
            else:
                problems.append("README.md figures:bench differs from tests/bench/README.md's "
                                f"summary (rendered {summary['rendered']}): edited by hand?\n"
                                "hint: python3 scripts/figures.py bench")

    keys = generations(source / "config" / "toolchains.yaml")
    row = re.search(r"^\| `config/` \|(.*)$", text, re.MULTILINE)
    if not keys:
        problems.append("config/toolchains.yaml: no generations found")
    elif row is None:
        problems.append("README.md: no `config/` row in the Layout table")
    else:
        stated = re.search(rf"generations ({GENERATION})[–-]({GENERATION})", row.group(1))
        range_ = f"{keys[0]}–{keys[-1]}"
        if not stated or (stated.group(1), stated.group(2)) != (keys[0], keys[-1]):
            problems.append(f"README.md Layout: `config/` says \"generations "
                            f"{stated.group(1) + '–' + stated.group(2) if stated else '?'}\", "
                            f"config/toolchains.yaml has {range_} ({', '.join(keys)})")

    prose = prose_without_blocks(text)
    for pattern, kind in HAND_WRITTEN:
        for match in pattern.finditer(prose):
            line = prose[:match.start()].count("\n")
            context = prose.splitlines()[line].strip()
            problems.append(f"README.md: {kind} written by hand, outside the generated blocks: "
                            f"\"{match.group(0)}\" in: {context[:120]}")
    return problems


# ---- the check on stale copies -------------------------------------------------------------

def mutations(source):
    """(what, file, change, expected words in a problem): each change makes a copy stale."""
    bench = (source / "tests" / "bench" / "README.md").read_text(encoding="utf-8")
    readme = (source / "README.md").read_text(encoding="utf-8")
    rendered = re.search(r"^Rendered (\S+) by", bench, re.MULTILINE).group(1)
    quoted = readme.split("<!-- figures:bench:begin -->", 1)[-1]
    ratio = re.search(r"\| (\d+\.\d\d)x \|", quoted).group(1)  # the first ratio quoted

    def rerun_bench(text):  # bench_all.py ran again, a day later, and the ratios moved
        later = str(int(rendered[:4]) + 1) + rendered[4:]
        return text.replace(f"Rendered {rendered}", f"Rendered {later}").replace(
            f"| {ratio}x |", "| 99.99x |").replace("2026-12-04T15:43:02", "2027-12-04T15:43:02")

    table = re.search(r"^\| `bash scripts/test\.sh` \| (\d+) s", readme, re.MULTILINE)
    config = re.search(rf"^(\| `config/` \|.*?generations {GENERATION}[–-])({GENERATION})", readme,
                       re.MULTILINE)
    return [
        ("the benchmarks ran again (tests/bench/README.md's summary rendered later)",
         "tests/bench/README.md", rerun_bench, "older than the benchmark summary"),
        ("a benchmark figure edited in README.md",
         "README.md", lambda t: t.replace(f"| {ratio}x |", "| 2.3x |", 1),
         "differs from tests/bench/README.md"),
        ("the test suite's wall time edited in README.md",
         "README.md", lambda t: t.replace(f"| `bash scripts/test.sh` | {table.group(1)} s",
                                          "| `bash scripts/test.sh` | 250 s", 1),
         "differs from its records"),
        ("the tests record without its date",
         "README.md", lambda t: re.sub(r'("tests": \{[^}]*?)"date": "[^"]*", ', r"\1", t),
         "record lacks a date"),
        ("the demo record without its commit",
         "README.md", lambda t: re.sub(r'("demo": \{[^}]*?)"commit": "[^"]*", ', r"\1", t),
         "record lacks a commit"),
        ("the benchmark block removed",
         "README.md", lambda t: t.replace("<!-- figures:bench:begin -->", "<!-- -->"),
         "no figures:bench block"),
        ("the Layout table's generations of before 2026.1",
         "README.md", lambda t: t.replace(config.group(0), config.group(1) + "2025b"),
         "config/toolchains.yaml has"),
        ("a generation added to config/toolchains.yaml",
         "config/toolchains.yaml", lambda t: t.rstrip("\n") + "\n\n  '2027.1':\n    gcccore: x\n",
         "config/toolchains.yaml has"),
        ("\"about a minute\" written again in the prose",
         "README.md", lambda t: t.replace("## Building by hand\n",
                                          "## Building by hand\n\nThe suite runs in about a "
                                          "minute.\n", 1),
         "written by hand"),
    ]


def copy_inputs(source, destination):
    for relative in ("README.md", "tests/bench/README.md", "config/toolchains.yaml"):
        (destination / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / relative, destination / relative)


def self_test(source, figures):
    failures = []
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as tmp:
        baseline = Path(tmp) / "baseline"
        copy_inputs(source, baseline)
        problems = check(baseline, figures)
        if problems:
            failures.append("the unchanged copy fails:\n  " + "\n  ".join(problems))
        for index, (what, relative, change, expected) in enumerate(mutations(source)):
            copy = Path(tmp) / f"stale-{index}"
            copy_inputs(source, copy)
            path = copy / relative
            before = path.read_text(encoding="utf-8")
            after = change(before)
            if after == before:
                failures.append(f"{what}: the change did not apply to {relative}")
                continue
            path.write_text(after, encoding="utf-8")
            problems = check(copy, figures)
            if not any(expected in problem for problem in problems):
                failures.append(f"{what}: the check did not fail with \"{expected}\" "
                                f"(problems: {problems or 'none'})")
            else:
                first = next(p for p in problems if expected in p).splitlines()[0]
                print(f"ok: {what}: fails ({first})")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", type=Path, default=SOURCE)
    parser.add_argument("--self-test", action="store_true",
                        help="run the check on stale copies: each must fail")
    args = parser.parse_args()
    source = args.source_dir.resolve()
    figures = load_figures(source)
    if args.self_test:
        failures = self_test(source, figures)
        for failure in failures:
            print(f"FAIL: {failure}", file=sys.stderr)
        return 1 if failures else 0
    problems = check(source, figures)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print("ok: README.md's figures have their dates and commits, match their records and "
              "tests/bench/README.md's summary; the Layout table's generations match "
              "config/toolchains.yaml")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
