#!/usr/bin/env python3
"""Every benchmark in one command, and the summary table in README.md.

Runs the drivers one after another (index, fetch, install, small_commands,
mirror, swapcheck), each with --summary-json into the summary directory, then
rewrites the block between `<!-- bench-summary:begin -->` and
`<!-- bench-summary:end -->` in tests/bench/README.md from every summary
found there: a slopes table (how each operation's cost grows), then a table
per benchmark with its date, commit, machine, load and exact command. A
driver that fails, or lacks --summary-json, is recorded as failed with its
error, and the others still run.

  bench_all.py --build-dir build/bench                       # everything, ~30 min
  bench_all.py --build-dir build/bench --quick --no-write    # the pipeline, a few minutes
  bench_all.py --build-dir build/bench --only fetch          # one again; the table keeps the rest
  bench_all.py --from-json build/bench/tests/bench/summaries # re-render only
  bench_all.py --build-dir build/bench --driver-args "fetch=--runs 7 --sizes 1G,2G"

The build directory is a Release build with the tests on (README.md): its
src/cli/wheelmod, tests/bench/bench_index_parse and index-mirrors/sample.
"""

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_support import fmt_value, machine_facts

HERE = Path(__file__).resolve().parent
K_BEGIN, K_END = "<!-- bench-summary:begin -->", "<!-- bench-summary:end -->"
K_ORDER = ("index", "fetch", "install", "small_commands", "mirror", "swapcheck")
K_DRIVERS = {"index": "bench_index_parse.py", "fetch": "bench_fetch.py",
             "install": "bench_install.py", "mirror": "bench_mirror.py",
             "small_commands": "bench_small_commands.py", "swapcheck": "bench_swapcheck.py"}
K_TITLES = {"index": "Index pages (`bench_index`)", "fetch": "Downloads (`bench_fetch`)",
            "install": "Installs and relinks (`bench_install`)",
            "small_commands": "Small commands (`bench_small_commands`)",
            "mirror": "Mirrors (`bench_mirror`)", "swapcheck": "Swap checks (`bench_swapcheck`)"}
# --quick: small sizes and one or two rounds, to see the pipeline work end
# to end (about 4 minutes for index, fetch, mirror and swapcheck on 2 cores);
# the figures mean nothing.
K_QUICK = {"index": ["--sizes", "2000,8000,32000", "--rounds", "1", "--memory-links", "100000"],
           "fetch": ["--sizes", "16M,64M,256M", "--runs", "2"],
           "install": ["--runs", "1", "--scales", "0.0125,0.025,0.05"],
           "small_commands": ["--scale", "0.05", "--sizes", "1,4", "--runs", "2"],
           "mirror": ["--sizes", "1,2,4", "--runs", "1", "--scale", "0.2"],
           "swapcheck": ["--sizes", "5,10,20", "--torch-symbols", "2000", "--runs", "1"]}
# --smoke (CTest bench.all_smoke): two drivers' smoke runs, rendered into a
# copy of the README, then rendered again from the saved JSON.
K_SMOKE = ("index", "fetch")


class Failure(Exception):
    pass


def build_type_of(build_dir):
    cache = build_dir / "CMakeCache.txt"
    if not cache.is_file():
        return ""
    match = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache.read_text(), re.MULTILINE)
    return match.group(1).strip() if match else ""


def shown(path):
    """`path` relative to the current directory when it is under it: the
    commands in the README read better, and they stay exact."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else Path(relative)


def driver_args(name, args, help_text=""):
    """The options of one driver: the build's programs, then --quick's or
    --smoke's, then what --driver-args adds (later options win).
    `help_text` (the driver's --help) says which optional ones it takes."""
    build, work = shown(args.build_dir), shown(args.work_dir)
    wheelmod = str(build / "src" / "cli" / "wheelmod")
    common = ["--build-type", args.build_type] if args.build_type else []
    base = {
        "index": ["--bench-binary", str(build / "tests" / "bench" / "bench_index_parse"),
                  "--python", args.python],
        "fetch": ["--wheelmod", wheelmod, "--nginx", args.nginx, "--work-dir", str(work),
                  "--jobs-test"],
        "install": ["--wheelmod", wheelmod, "--sample", str(build / "index-mirrors" / "sample"),
                    "--python", args.python, "--work-dir", str(work),
                    "--wheel-cache", str(work / "wheels")],
        "mirror": ["--wheelmod", wheelmod, "--nginx", args.nginx, "--python", args.python,
                   "--work-dir", str(work)],
        "small_commands": ["--wheelmod", wheelmod,
                           "--sample", str(build / "index-mirrors" / "sample"),
                           "--work-dir", str(work), "--wheel-cache", str(work / "wheels")],
        "swapcheck": ["--wheelmod", wheelmod, "--work-dir", str(work)],
    }[name] + common
    floor = build / "tests" / "bench" / "bench_unpack_floor"
    if name == "install" and "--floor" in help_text and floor.is_file():
        base += ["--floor", str(floor)]  # the measured unpack floor, where built
    if args.smoke:
        base.append("--smoke")
    elif args.quick:
        base += K_QUICK[name]
    for extra in args.driver_args:
        target, _, text = extra.partition("=")
        if target == name:
            base += shlex.split(text)
    return base


def record_failure(path, name, command, error):
    document = {"benchmark": name, "command": shlex.join(command),
                "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
                "machine": machine_facts(), "error": error}
    path.write_text(json.dumps(document, indent=1) + "\n")


def run_driver(name, args, summaries):
    """Runs one driver with --summary-json; its output goes to the terminal
    and to summaries/NAME.log. Returns (ok, seconds)."""
    target = summaries / f"{name}.json"
    log = summaries / f"{name}.log"
    driver = shown(HERE / K_DRIVERS[name])
    target.unlink(missing_ok=True)  # a stale summary must not pass for this run's
    started = time.monotonic()
    command = [args.python, "-B", str(driver)]
    try:
        helped = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
        command += [*driver_args(name, args, helped.stdout), "--summary-json", str(shown(target))]
        print(f"\n##### {name}: {shlex.join(command)}", flush=True)
        if "--summary-json" not in helped.stdout:
            raise Failure(f"{driver.name} has no --summary-json option (its --help does not "
                          "list it); nothing was run")
        tail = []
        with open(log, "w", encoding="utf-8") as out, \
                subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, errors="replace", bufsize=1) as process:
            for line in process.stdout:
                sys.stdout.write(line)
                out.write(line)
                tail = (tail + [line.rstrip("\n")])[-30:]
        if process.returncode != 0:
            errors = [line for line in tail if line.startswith(("error", "Traceback"))]
            at = tail.index(errors[0]) if errors else max(len(tail) - 12, 0)
            raise Failure(f"exit {process.returncode}:\n" + "\n".join(tail[at:]))
        if not target.is_file():
            raise Failure(f"{driver.name} exited 0 but wrote no {target}")
        document = json.loads(target.read_text())
        document["run_by"] = {"command": shlex.join(sys.orig_argv), "quick": args.quick,
                              "smoke": args.smoke, "log": str(log)}
        target.write_text(json.dumps(document, indent=1) + "\n")
        return True, time.monotonic() - started
    except (Failure, OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
        print(f"bench_all: {name} failed: {error}", file=sys.stderr)
        record_failure(target, name, command, str(error))
        return False, time.monotonic() - started


# --- rendering ----------------------------------------------------------------

def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def value(number, unit):
    return "–" if number is None else fmt_value(number, unit)


def ratio(number):
    return "–" if number is None else f"{number:.2f}x"


def mib(number):
    return "–" if number is None else f"{number:.1f}"


def load_text(machine):
    before, after = machine.get("load_before"), machine.get("load_after")
    if not before:
        return "load ?"
    text = f"load {before[0]:.2f}"
    return text + (f" → {after[0]:.2f}" if after else "") + " (1-min average, start → end)"


def machine_text(document):
    m = document.get("machine", {})
    commit = m.get("commit") or "?"
    if m.get("worktree_dirty"):
        commit += " with uncommitted changes"
    build = f", {m['build_type']} build" if m.get("build_type") else ""
    cpu = m.get("cpu") or "?"
    sha = ", sha_ni" if m.get("sha_ni") else ""
    return (f"{document.get('date', '?')}, commit {commit}{build}; {m.get('cores', '?')} cores "
            f"({cpu}{sha}), {m.get('ram_gib', '?')} GiB RAM, Linux {m.get('kernel', '?')}; "
            f"{load_text(m)}")


def against(entry):
    """'OPERATION vs PEER', or the operation alone for wheelmod alone."""
    peer = entry.get("peer_name")
    return cell(entry["operation"] + (f" vs {peer}" if peer else " (wheelmod alone)"))


def slopes_table(documents):
    lines = ["| benchmark | operation | between | per | wheelmod | peer | ratio |",
             "|---|---|---|---|---:|---:|---:|"]
    for name, document in documents:
        for s in document.get("slopes", []):
            lines.append(f"| {name} | {against(s)} | {cell(s.get('from', '?'))} → "
                         f"{cell(s.get('to', '?'))} | {cell(s['per'])} | "
                         f"{value(s['wheelmod'], s['unit'])} | {value(s.get('peer'), s['unit'])} "
                         f"| {ratio(s.get('ratio'))} |")
    return lines if len(lines) > 2 else ["(no slopes: every benchmark ran at one size)"]


def rows_table(document):
    lines = ["| operation | size | wheelmod | peer | ratio | RSS MiB (wheelmod / peer) | goal |",
             "|---|---|---:|---:|---:|---:|---|"]
    rows = document.get("rows", [])
    groups = list(dict.fromkeys((r["operation"], r.get("peer_name")) for r in rows))
    group = None
    for r in sorted(rows, key=lambda r: groups.index((r["operation"], r.get("peer_name")))):
        key = (r["operation"], r.get("peer_name"))
        first = key != group
        group = key
        goal = "" if r.get("goal") is None else cell(r["goal"]) + (
            "" if r.get("met") is None else f": **{'PASS' if r['met'] else 'MISS'}**")
        rss = f"{mib(r.get('rss_mib'))} / {mib(r.get('peer_rss_mib'))}" \
            if r.get("peer_name") else mib(r.get("rss_mib"))
        lines.append(f"| {against(r) if first else ''} | {cell(r['size'])} | "
                     f"{value(r['wheelmod'], r['unit'])} | {value(r.get('peer'), r['unit'])} | "
                     f"{ratio(r.get('ratio'))} | {rss} | {goal} |")
    return lines


def render(documents, rendered_by):
    """The block between the markers, markers included."""
    out = [K_BEGIN,
           "<!-- Written by tests/bench/bench_all.py from the summaries of the drivers: rerun it "
           "rather than editing this block (see \"Summary\" above). -->", ""]
    now = datetime.datetime.now().astimezone().isoformat(timespec="minutes")
    out += [f"Rendered {now} by `{rendered_by}`. Ratios are the peer's figure over "
            "wheelmod's: above 1, wheelmod is faster. Each benchmark's own line says when and "
            "under what load it ran.", ""]
    if any(d.get("run_by", {}).get("quick") or d.get("run_by", {}).get("smoke")
           for _, d in documents):
        out += ["**Some runs below are `--quick` or `--smoke` runs: they check the pipeline; "
                "their figures mean nothing.**", ""]
    out += ["#### How cost grows", "", *slopes_table(documents), ""]
    for name, document in documents:
        run_by = document.get("run_by", {})
        kind = " (--smoke run)" if run_by.get("smoke") else \
            " (--quick run)" if run_by.get("quick") else ""
        out += [f"#### {K_TITLES.get(name, name)}{kind}", "", machine_text(document) + ".",
                f"Command: `{document.get('command', '?')}`", ""]
        if "error" in document:
            out += ["**Failed:**", "", "```", *document["error"].splitlines()[-20:], "```", ""]
            continue
        out += rows_table(document)
        notes = document.get("notes") or []
        if notes:
            out += ["", *(f"- {cell(n)}" for n in notes)]
        out.append("")
    missing = [n for n in K_ORDER if n not in {name for name, _ in documents}]
    if missing:
        out += [f"Not run yet: {', '.join(missing)}.", ""]
    out.append(K_END)
    return "\n".join(out)


def load_documents(directory):
    documents = []
    for name in K_ORDER:
        path = directory / f"{name}.json"
        if path.is_file():
            try:
                documents.append((name, json.loads(path.read_text())))
            except json.JSONDecodeError as error:
                documents.append((name, {"benchmark": name, "error": f"{path}: {error}"}))
    return documents


def rewrite_readme(readme, block):
    text = readme.read_text(encoding="utf-8")
    begin, end = text.find(K_BEGIN), text.find(K_END)
    if begin < 0 or end < begin:
        raise Failure(f"{readme}: no {K_BEGIN} ... {K_END} block\nhint: add the two markers "
                      "where the summary goes, or pass --readme")
    new = text[:begin] + block + text[end + len(K_END):]
    if new != text:
        temporary = readme.with_name(readme.name + ".tmp")
        temporary.write_text(new, encoding="utf-8")
        temporary.replace(readme)
    return new != text


def without_date(block):
    return re.sub(r"Rendered \S+", "", block)


def smoke(args, documents_dir):
    """CTest: the drivers' smoke runs rendered into a copy of the README, and
    the same block again from the saved JSON alone."""
    with tempfile.TemporaryDirectory(prefix="bench-all-smoke-") as tmp:
        copy = Path(tmp) / "README.md"
        copy.write_text(args.readme.read_text(encoding="utf-8"), encoding="utf-8")
        block = render(load_documents(documents_dir), "bench_all.py --smoke")
        rewrite_readme(copy, block)
        again = render(load_documents(documents_dir), "bench_all.py --smoke")
        problems = []
        if without_date(again) != without_date(block):
            problems.append("rendering the saved JSON again gave another block")
        for name in K_SMOKE:
            if f"#### {K_TITLES[name]} (--smoke run)" not in block:
                problems.append(f"no table for {name}")
        if "**Failed:**" in block or "| download one file vs curl |" not in block:
            problems.append("a driver failed, or the fetch rows are missing")
        if copy.read_text().count(K_BEGIN) != 1:
            problems.append("the README copy does not hold one block")
        if problems:
            print(block)
            raise Failure("; ".join(problems))
    print(f"ok: {', '.join(K_SMOKE)} ran with --summary-json and rendered into a copy of "
          f"{args.readme.name}, the same again from the JSON")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path,
                        help="a Release build with the tests on (e.g. build/bench)")
    parser.add_argument("--work-dir", type=Path,
                        help="generated files and caches (default BUILD/tests/bench)")
    parser.add_argument("--summary-dir", type=Path,
                        help="where the drivers' JSON and logs go (default WORK/summaries, or "
                             "WORK/summaries-quick with --quick)")
    parser.add_argument("--only", type=lambda text: [n.strip() for n in text.split(",")],
                        default=list(K_ORDER),
                        help=f"comma list of {','.join(K_ORDER)} (default all); the README "
                             "block still shows every summary in the summary directory")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, one or two rounds: checks the pipeline, in minutes")
    parser.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--driver-args", action="append", default=[], metavar="NAME=ARGS",
                        help="more options for one driver, e.g. 'fetch=--runs 7' (repeatable)")
    parser.add_argument("--readme", type=Path, default=HERE / "README.md")
    parser.add_argument("--no-write", action="store_true",
                        help="print the block instead of rewriting the README")
    parser.add_argument("--from-json", type=Path, metavar="DIR",
                        help="run nothing: render the block from the NAME.json files in DIR")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="runs the drivers and pip's side (default /usr/bin/python3)")
    parser.add_argument("--nginx", default="/usr/sbin/nginx")
    parser.add_argument("--build-type", help="default: CMAKE_BUILD_TYPE of --build-dir")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    unknown = [n for n in args.only if n not in K_ORDER]
    if unknown:
        parser.error(f"--only: no benchmark {unknown[0]!r} (known: {', '.join(K_ORDER)})")
    if args.from_json is None and args.build_dir is None:
        parser.error("--build-dir is needed to run the benchmarks (or --from-json DIR)")
    try:
        if args.from_json is not None:
            if not args.from_json.is_dir():
                raise Failure(f"{args.from_json}: not a directory")
            summaries, results = args.from_json, {}
        else:
            args.build_dir = args.build_dir.resolve()
            args.work_dir = (args.work_dir or args.build_dir / "tests" / "bench").resolve()
            if args.build_type is None:
                args.build_type = build_type_of(args.build_dir)
            if args.build_type != "Release" and not args.smoke:
                print(f"warning: {args.build_dir} is a {args.build_type or '?'} build; "
                      "measure a Release build")
            if not (args.build_dir / "src" / "cli" / "wheelmod").is_file():
                raise Failure(f"{args.build_dir}/src/cli/wheelmod: not found\nhint: cmake "
                              f"--build {args.build_dir} --target wheelmod bench_index_parse")
            summaries = args.summary_dir or args.work_dir / (
                "summaries-smoke" if args.smoke else
                "summaries-quick" if args.quick else "summaries")
            summaries = summaries.resolve()
            summaries.mkdir(parents=True, exist_ok=True)
            names = list(K_SMOKE) if args.smoke else [n for n in K_ORDER if n in args.only]
            results = {name: run_driver(name, args, summaries) for name in names}
        if args.smoke:
            if not all(ok for ok, _ in results.values()):
                raise Failure("a driver failed")
            smoke(args, summaries)
            return 0
        block = render(load_documents(summaries), shlex.join(sys.orig_argv))
        if results:
            print("\n##### summary")
        for name, (ok, seconds) in results.items():
            print(f"  {name:10} {'ok' if ok else 'FAILED':6} {seconds / 60:5.1f} min")
        if args.no_write:
            print(block)
        else:
            changed = rewrite_readme(args.readme, block)
            print(f"{args.readme}: {'rewritten' if changed else 'unchanged'} from {summaries}")
    except Failure as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0 if all(ok for ok, _ in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
