#!/usr/bin/env bash
# Installs what is missing, builds the release configuration and runs the
# demo: what wheelmod can do today, on the embedded sample data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
cmake --preset release >/dev/null
cmake --build --preset release
wheelmod=build/release/src/cli/wheelmod

step() { printf '\n$ %s\n' "$*"; "$@"; }
step "$wheelmod" --version
# Why is a wheel chosen or not? The tags a CUDA node with glibc 2.28 and
# Python 3.12 accepts, best first (the first few, and where the legacy
# manylinux2014 and plain linux tags sit):
step "$wheelmod" tags --python 3.12 --arch x86_64 --glibc 2.28 | sed -n '1,3p;/manylinux2014/p;/-linux_x86_64$/p' | head -n 8
# The same for an aarch64 (Grace Hopper) node, as JSON:
step "$wheelmod" tags --python 3.12 --arch aarch64 --glibc 2.34 --format json | head -n 8
# A mistake gets a clear error and exit code 2:
set +e
"$wheelmod" tags --python 3.12 --arch sparc64 --glibc 2.28
echo "exit code: $?"
