#!/usr/bin/env bash
# Installs what is missing, builds the release configuration and runs the
# demo: what wheelmod can do today, on the embedded sample data.
#
# WHEELMOD_DEMO_BUILD_DIR=DIR runs it on a build that is already there (the
# test suite's demo.script runs the demo on its own build that way), without
# installing or building anything.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WHEELMOD_DEMO_BUILD_DIR:-}
if [ -z "$build" ]; then
  scripts/install-deps.sh build
  cmake --preset release >/dev/null
  cmake --build --preset release
  build=build/release
fi
wheelmod=$build/src/cli/wheelmod
# The sample index built beside it: download.pytorch.org's layout and quirks,
# small real wheels, and a sample EasyBuild software tree.
index=$build/index-mirrors/sample/whl
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

show() { printf '\n$ %s\n' "$*"; }

show wheelmod --version
"$wheelmod" --version

# The main job's first half: which wheels foss-2024a with its CUDA gets,
# from where, with which hashes, what they need and which EasyBuild modules
# provide it. Nothing is downloaded but pages and metadata.
show wheelmod resolve torch==2.6.0 torchvision torchaudio --toolchain foss-2024a --accelerator cuda --index "$index"
"$wheelmod" resolve torch==2.6.0 torchvision torchaudio --toolchain foss-2024a \
  --accelerator cuda --index "$index" --arch x86_64 --glibc 2.28 --cache-dir "$cache"

# The second half begins: review the resolution as JSON, then fetch exactly
# what it lists — in parallel, each file's SHA-256 checked while it arrives,
# landing as .part and renamed only once verified.
wheels=$(mktemp -d)
trap 'rm -rf "$cache" "$wheels"' EXIT
show wheelmod resolve torch==2.6.0 torchvision --toolchain foss-2024a --accelerator cuda --index "$index" --format json '>' report.json
"$wheelmod" resolve torch==2.6.0 torchvision --toolchain foss-2024a --accelerator cuda \
  --index "$index" --arch x86_64 --glibc 2.28 --cache-dir "$cache" --format json \
  >"$wheels/report.json"
show wheelmod fetch --from-report report.json --dest wheels/
"$wheelmod" fetch --from-report "$wheels/report.json" --dest "$wheels/dest" --cache-dir "$cache"
# Again, into another directory: every wheel comes from the content-addressed
# cache (a hard link), none from the index.
show wheelmod fetch --from-report report.json --dest other/
"$wheelmod" fetch --from-report "$wheels/report.json" --dest "$wheels/other" --cache-dir "$cache"

# The heart of Stage 1: install the stack into an EasyBuild-style prefix in
# one step (resolve, fetch, unpack with every RECORD hash checked, relink at
# the sample tree's CUDA / cuDNN / NCCL modules, byte-compile, check), then
# load it the way a module that sets no LD_LIBRARY_PATH will. foss-2024a's
# Python is 3.12; this machine's python3 is used instead so the import can run.
py=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
sample=$build/index-mirrors/sample
prefix="$wheels/software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl"
show wheelmod install torch==2.6.0 --toolchain foss-2024a --accelerator cuda --python "$py" --eb-installpath SAMPLE --python-exe python3 --prefix "PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl"
"$wheelmod" install torch==2.6.0 --toolchain foss-2024a --accelerator cuda --python "$py" \
  --arch x86_64 --glibc 2.28 --index "$index" --cache-dir "$cache" --eb-installpath "$sample" \
  --python-exe python3 --prefix "$prefix"
show readelf -d .../torch/lib/libtorch_cuda.so '|' grep RPATH
readelf -d "$prefix/lib/python$py/site-packages/torch/lib/libtorch_cuda.so" | grep RPATH \
  | sed "s|$PWD/||g"
show wheelmod check PREFIX --allow SAMPLE
"$wheelmod" check "$prefix" --allow "$sample"
show env -u LD_LIBRARY_PATH PYTHONPATH=.../site-packages python3 -c "'import torch; print(torch.__version__)'"
env -u LD_LIBRARY_PATH PYTHONPATH="$prefix/lib/python$py/site-packages" \
  python3 -c 'import torch; print(torch.__version__)'

# torch 2.5.1 was never built for CUDA 12.6: the closest lower variant runs on
# it, and the report says so (first lines only).
show wheelmod resolve torch==2.5.1 --toolchain foss-2024a --accelerator cuda --index "$index"
report=$("$wheelmod" resolve torch==2.5.1 --toolchain foss-2024a --accelerator cuda \
  --index "$index" --arch x86_64 --glibc 2.28 --cache-dir "$cache")
sed -n '1,5p' <<<"$report"

# torch 2.6 has no wheels for Python 3.8 (it supports 3.9-3.13): exit code 3
# and the nearest candidates, with what is wrong with each (first lines).
show wheelmod resolve torch==2.6.0 --toolchain foss-2024a --accelerator cuda --python 3.8 --index "$index"
status=0
"$wheelmod" resolve torch==2.6.0 --toolchain foss-2024a --accelerator cuda --index "$index" \
  --arch x86_64 --glibc 2.28 --python 3.8 --cache-dir "$cache" 2>&1 | sed -n '1,2p;9,11p' \
  || status=$?
echo "exit code: $status"

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

# An offline mirror of a slice of the index: torch 2.6.0 and torchvision for
# cu126, Python 3.12, both arches, with what they require; then the same run
# again, which downloads nothing.
cat >"$wheels/mirror.yaml" <<EOF
index: file://$(cd "$index" && pwd)
variants: [cu126]
packages: {torch: "==2.6.0", torchvision: ">=0.21"}
python: ["3.12"]
arches: [x86_64, aarch64]
glibc: "2.28"
EOF
show wheelmod mirror mirror.yaml --dest mirror/
"$wheelmod" -q mirror "$wheels/mirror.yaml" --dest "$wheels/mirror" | grep -v '^note:' | sed "s|$wheels/||g"
show wheelmod mirror mirror.yaml --dest mirror/ '# again'
"$wheelmod" -q mirror "$wheels/mirror.yaml" --dest "$wheels/mirror" | grep -v '^note:'
show wheelmod resolve torch==2.6.0 --toolchain foss-2024a --accelerator cuda --index file:///.../mirror '|' grep file:
"$wheelmod" resolve torch==2.6.0 --toolchain foss-2024a --accelerator cuda --arch x86_64 \
  --glibc 2.28 --index "file://$wheels/mirror" --cache-dir "$cache" | grep 'file:' | head -3

# Last, Stage 1's outputs for the prefix installed above. Its module file,
# as EasyBuild would write it, in the module tree beside software/; then
# loaded with Lmod. The site's modules it depends on (foss, Python, CUDA,
# cuDNN, ...) are stand-ins here: each only sets its EBROOT variable to the
# sample tree. The module's Python is foss-2024a's 3.12 and the demo
# installed for this machine's python3: wheelmod refuses to write a module
# whose Python would not import the install, unless --force, given here
# because the stand-in Python module below loads no Python of its own and
# this machine's python3 does the import.
show wheelmod module PREFIX --force
"$wheelmod" module "$prefix" --force 2>&1 | sed "s|$wheels/||g"
modules="$wheels/modules"
python3 - "$prefix/easybuild/wheelmod-install.json" "$modules" "$sample" <<'PY'
import json, os, sys
provenance = json.load(open(sys.argv[1]))
for module in [provenance["toolchain_module"], *provenance["modules"]]:
    name, version = module.split("/", 1)
    path = os.path.join(sys.argv[2], "all", name, version + ".lua")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    root = os.path.join(sys.argv[3], "software", name, version)
    variable = name.upper().replace("-", "MIN")
    open(path, "w").write(f'setenv("EBROOT{variable}", "{root}")\n')
PY
show module use MODULES/all '&&' module load PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl '&&' python3 -c "'import torch'"
(
  unset LD_LIBRARY_PATH MODULEPATH LOADEDMODULES
  export MODULEPATH=""
  source /usr/share/lmod/lmod/init/bash
  module use "$modules/all"
  module load PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl
  module -t list 2>&1 | tr '\n' ' '
  echo
  echo "EBROOTPYTORCH=${EBROOTPYTORCH#"$wheels/"}"
  python3 -c 'import torch; print("import torch:", torch.__version__, "from", torch.__file__)' \
    | sed "s|$wheels/||g"
)

# The Stage-1 easyconfigs a maintainer opens a pull request with: both
# architectures' wheels with their sha256, dependencies mapped to
# foss-2024a's modules, sanity checks that import torch.
show wheelmod easyconfig torch==2.6.0 torchvision torchaudio --toolchain foss-2024a --accelerator cuda --output-dir easyconfigs/
"$wheelmod" easyconfig torch==2.6.0 torchvision torchaudio --toolchain foss-2024a \
  --accelerator cuda --index "$index" --cache-dir "$cache" --output-dir "$wheels/easyconfigs" \
  | sed "s|$wheels/||g"
show sed -n '1,25p' easyconfigs/PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb
sed -n '1,25p' "$wheels/easyconfigs/PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb"
echo '  ...'
