#!/usr/bin/env bash
# Installs what is missing, builds the dev configuration (warnings as
# errors, ASan + UBSan) and runs the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
cmake --preset dev >/dev/null
cmake --build --preset dev
ctest --preset dev -j "$(nproc)"
