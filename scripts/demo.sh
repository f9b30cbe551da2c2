#!/usr/bin/env bash
# Installs what is missing, builds the release configuration and runs the
# demo: what wheelmod can do today, on the embedded sample data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
cmake --preset release >/dev/null
cmake --build --preset release
wheelmod=build/release/src/cli/wheelmod

show() { printf '\n$ %s\n' "$*"; }

show wheelmod --version
"$wheelmod" --version

# Why is a wheel chosen or not? The tags a node with Python 3.12 and glibc
# 2.28 accepts, best first: the first three, and where the legacy
# manylinux2014 tag and the plain linux tag of the same ABI sit.
show wheelmod tags --python 3.12 --arch x86_64 --glibc 2.28
tags=$("$wheelmod" tags --python 3.12 --arch x86_64 --glibc 2.28)
grep -n . <<<"$tags" | grep -E '^[123]:|:cp312-cp312-(manylinux2014|linux)_x86_64$'
echo "... $(wc -l <<<"$tags") tags in all"

# The same for an aarch64 (Grace Hopper) node, as JSON.
show wheelmod tags --python 3.12 --arch aarch64 --glibc 2.34 --format json
json=$("$wheelmod" tags --python 3.12 --arch aarch64 --glibc 2.34 --format json)
sed -n '1,7p' <<<"$json"
echo '  ...'

# A mistake gets a one-paragraph error and exit code 2.
show wheelmod tags --python 3.12 --arch sparc64
status=0
"$wheelmod" tags --python 3.12 --arch sparc64 --glibc 2.28 || status=$?
echo "exit code: $status"
