#!/usr/bin/env bash
# Installs the Debian 12 packages wheelmod needs to build and test.
# Idempotent: prints nothing and touches nothing when everything is there.
# Usage: scripts/install-deps.sh [build|test|fuzz]   (default: test; fuzz
# adds clang 16 and libFuzzer to the test packages)
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config
  libssl-dev          # OpenSSL 3 EVP SHA-256
  libcli11-dev        # command-line options
  libfmt-dev          # formatting
  nlohmann-json3-dev  # JSON in and out
  python3 gcc         # generate the sample index (wheels with real ELF libraries)
  libcurl4-openssl-dev  # HTTP(S) transport
  libyaml-cpp-dev     # config and mirror specs
  zlib1g-dev          # inflating zip entries read by range requests
  libelf-dev          # reading ELF files (relink, check)
  libzip-dev          # unpacking wheels
  patchelf            # at run time, for executables whose RPATH must grow
  libkainjow-mustache-dev  # easyconfig and module templates
  lmod                # the demo loads the module it writes
)
test_packages=(
  catch2              # Catch2 v2 unit tests
  python3-packaging   # reference implementation for differential tests
  nginx-light         # a real HTTP server on 127.0.0.1 (Range, ETag)
  curl                # the peer in the download benchmark (tests/bench)
  openssl             # the peer hasher in the download benchmark
  python3-pip         # the peer installer (file lists, benchmark)
  python3-pip-whl     # real wheels to install in the tests
  unzip               # the peer unpacker in the install benchmark
  python3-pycodestyle # the style check EasyBuild's --check-contrib runs on easyconfigs
  git                 # tests/easybuild: easybuild-easyconfigs' test suite diffs a branch
  clang-format        # the format check of the tree (clang-format 14, tests/layering)
  python3-torch       # a real libtorch (1.13.1) for swapcheck on real binaries (tests/swapcheck/real)
  libtorch-dev        # its headers, to build extensions against it in both string ABIs
  python3-torchvision # a real dependent with C++ extensions, shipped as egg-info
  pybind11-dev        # the extensions' Python bindings (Debian's torch does not bundle pybind11)
)

fuzz_packages=(
  clang-16            # libFuzzer needs clang; 16 is the oldest Debian 12 clang that compiles
                      # libstdc++ 12's <expected> (CMakePresets.json, preset fuzz)
  libclang-rt-16-dev  # libFuzzer and the sanitizer runtimes
)

packages=("${build_packages[@]}")
case "${1:-test}" in
  build) ;;
  test) packages+=("${test_packages[@]}") ;;
  fuzz) packages+=("${test_packages[@]}" "${fuzz_packages[@]}") ;;
  *) echo "error: unknown package set '$1'" >&2; echo "hint: build, test or fuzz" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "error: missing Debian packages: ${missing[*]}" >&2
  echo "hint: run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 2
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
