#!/usr/bin/env python3
"""Runs a command and checks its exit code and output.

    expect.py --exit N [--stdout-regex R]... [--stderr-regex R]...
              [--stdout-empty] [--stderr-empty] -- COMMAND ARGS...

Each regex must match somewhere (re.search, MULTILINE). Prints what it ran
and what differed, so a failing CTest log says why.
"""
import argparse
import re
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, required=True)
    parser.add_argument("--stdout-regex", action="append", default=[])
    parser.add_argument("--stderr-regex", action="append", default=[])
    parser.add_argument("--stdout-empty", action="store_true")
    parser.add_argument("--stderr-empty", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    problems = []
    if result.returncode != args.exit:
        problems.append(f"exit code {result.returncode}, expected {args.exit}")
    for name, text, regexes, empty in (
        ("stdout", result.stdout, args.stdout_regex, args.stdout_empty),
        ("stderr", result.stderr, args.stderr_regex, args.stderr_empty),
    ):
        for regex in regexes:
            if not re.search(regex, text, re.MULTILINE):
                problems.append(f"{name} does not match /{regex}/")
        if empty and text:
            problems.append(f"{name} is not empty")
    print("ran:", " ".join(command))
    if problems:
        print("stdout:\n" + result.stdout)
        print("stderr:\n" + result.stderr)
        for problem in problems:
            print("FAIL:", problem)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
