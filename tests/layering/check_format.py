#!/usr/bin/env python3
"""Every C and C++ file of the tree, as the checked-in .clang-format writes it.

Runs `clang-format --dry-run -Werror` over src/, tests/ and index-mirrors/
and fails, naming each file that differs, when one does. The tree is
formatted with Debian 12's clang-format 14; another major version formats
some constructs differently, so it is refused rather than trusted.

Usage: check_format.py CLANG_FORMAT SOURCE_DIR
"""

import os
import re
import subprocess
import sys

FOLDERS = ("src", "tests", "index-mirrors")
SUFFIXES = (".c", ".h", ".cpp", ".hpp")
MAJOR = 14


def files_of(source_dir):
    for folder in FOLDERS:
        for root, dirs, names in os.walk(os.path.join(source_dir, folder)):
            dirs[:] = sorted(d for d in dirs if d not in ("build", "__pycache__"))
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.join(root, name)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    clang_format, source_dir = sys.argv[1:]
    try:
        version = subprocess.run([clang_format, "--version"], capture_output=True, text=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"error: cannot run {clang_format}: {error}", file=sys.stderr)
        print("hint: apt-get install clang-format (scripts/install-deps.sh test)", file=sys.stderr)
        return 1
    found = re.search(r"version (\d+)\.", version)
    if not found or int(found.group(1)) != MAJOR:
        print(f"error: {clang_format} is not clang-format {MAJOR}: {version.strip()}",
              file=sys.stderr)
        print("hint: the tree is formatted with Debian 12's clang-format-14", file=sys.stderr)
        return 1
    files = list(files_of(source_dir))
    result = subprocess.run([clang_format, "--dry-run", "-Werror", *files],
                            capture_output=True, text=True, cwd=source_dir)
    differing = sorted({line.split(":", 1)[0] for line in result.stderr.splitlines()
                        if ": error: " in line})
    for path in differing:
        print(f"format: {os.path.relpath(path, source_dir)} differs from .clang-format")
    if result.returncode != 0:
        print(f"{len(differing)} of {len(files)} files differ; "
              "fix with: clang-format -i FILE...", file=sys.stderr)
        if not differing:
            print(result.stderr, file=sys.stderr)
        return 1
    print(f"format: {len(files)} files as .clang-format writes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
