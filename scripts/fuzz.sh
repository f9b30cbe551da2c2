#!/usr/bin/env bash
# Installs clang 16 and libFuzzer (apt-get), builds the fuzz targets of
# tests/fuzz with ASan + UBSan, and fuzzes each for SECONDS (default 60)
# from its seed corpus: the `fuzz` CTest label. Not part of scripts/test.sh,
# which only replays the saved inputs. Crashes: build/fuzz/tests/fuzz/work/.
# Usage: bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh fuzz
cmake --preset fuzz -DWHEELMOD_FUZZ_SECONDS="${1:-60}" >/dev/null
cmake --build --preset fuzz
ctest --preset fuzz -j "$(nproc)"
