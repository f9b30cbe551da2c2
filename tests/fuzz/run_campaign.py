#!/usr/bin/env python3
"""Fuzzes each target for --seconds of wall time (several at once with --parallel)
and appends one line per target to tests/fuzz/ledger.jsonl: when, which commit,
seconds, executions, corpus size, peak RSS, and the crashes found (saved under
the build tree's work/<target>/artifacts/). tests/RELIABILITY.md sums the ledger
into fuzzing hours per target (scripts/reliability-report).

    cmake --preset fuzz && cmake --build --preset fuzz
    python3 tests/fuzz/run_campaign.py --build build/fuzz --seconds 600 --parallel 2
"""
import argparse
import concurrent.futures
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ["version", "marker", "wheel_filename", "metadata", "record", "index_html",
           "index_json", "zip", "elf", "yaml", "wheel_install"]


def fuzz(build, target, seconds):
    work = build / "tests" / "fuzz" / "work" / target
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    (work / "artifacts").mkdir(parents=True, exist_ok=True)
    before = set((work / "artifacts").iterdir())
    command = [str(build / "tests" / "fuzz" / f"fuzz_{target}"), str(work / "corpus"),
               str(HERE / "corpus" / target), f"-max_total_time={seconds}", "-timeout=10",
               "-rss_limit_mb=2048", "-max_len=65536", "-print_final_stats=1",
               f"-artifact_prefix={work / 'artifacts'}/"]
    started = datetime.datetime.now(datetime.timezone.utc)
    result = subprocess.run(command, capture_output=True, text=True, errors="replace")
    ended = datetime.datetime.now(datetime.timezone.utc)
    (work / "last.log").write_text(result.stderr)
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", result.stderr, re.M))
    crashes = sorted(p.name for p in set((work / "artifacts").iterdir()) - before)
    return {"target": target, "started": started.isoformat(timespec="seconds"),
            "seconds": round((ended - started).total_seconds()), "exit": result.returncode,
            "executions": int(stats.get("number_of_executed_units", 0)),
            "peak_rss_mb": int(stats.get("peak_rss_mb", 0)),
            "corpus": sum(1 for _ in (work / "corpus").iterdir()),
            "crashes": crashes}


def commit():
    result = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True)
    return result.stdout.strip() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=HERE.parents[1] / "build" / "fuzz")
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--targets", nargs="*", default=TARGETS, choices=TARGETS)
    parser.add_argument("--ledger", type=Path, default=HERE / "ledger.jsonl")
    args = parser.parse_args()
    revision = commit()
    failed = False
    with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
        for line in pool.map(lambda t: fuzz(args.build.resolve(), t, args.seconds), args.targets):
            line["commit"] = revision
            line["parallel"] = args.parallel
            with args.ledger.open("a") as ledger:
                ledger.write(json.dumps(line, sort_keys=True) + "\n")
            failed |= bool(line["crashes"]) or line["exit"] != 0
            print(f"{line['target']}: {line['seconds']} s, {line['executions']:,} runs, "
                  f"corpus {line['corpus']}, peak RSS {line['peak_rss_mb']} MB, "
                  f"crashes {line['crashes'] or 'none'}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
