#!/usr/bin/env bash
# Builds the sample index twice, from two copies of the sources into two
# differently named directories with different job counts, and compares
# every file (sha256) and symlink (target). Prints the result; exits 1 on
# any difference.
# Usage: check_deterministic.sh [python3] [extra generate.py build options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${1:-/usr/bin/python3}
shift || true
work=$(mktemp -d "${TMPDIR:-/tmp}/wheelmod-determinism.XXXXXX")
trap 'rm -rf "$work"' EXIT

inventory() {
  (cd "$1" &&
    find . -type f -print0 | sort -z | xargs -0 sha256sum &&
    find . -type l -printf '%p -> %l\n' | sort)
}

"$python" -B "$here/generate.py" build --out "$work/first/sample" --jobs 1 "$@" >/dev/null
mkdir -p "$work/sources/elsewhere"
cp -r "$here" "$work/sources/elsewhere/sample"
"$python" -B "$work/sources/elsewhere/sample/generate.py" build \
  --out "$work/second/a/much/longer/path/sample" --jobs 4 "$@" >/dev/null
inventory "$work/first/sample" >"$work/first.txt"
inventory "$work/second/a/much/longer/path/sample" >"$work/second.txt"
if ! diff -u "$work/first.txt" "$work/second.txt"; then
  echo "error: the sample index differs between two builds (see the diff above)" >&2
  exit 1
fi
echo "ok: two builds are identical ($(wc -l <"$work/first.txt") files and symlinks)"
