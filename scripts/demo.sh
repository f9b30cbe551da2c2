#!/usr/bin/env bash
# Installs what is missing, builds the release configuration and runs the
# demo: the main job as a site does it today, on the embedded sample data —
# torch 2.12 for foss-2026.1 against NVIDIA's real CUDA 13 libraries, and
# torch 2.10 with torchvision and torchaudio for foss-2025b and CUDA 12.9.
#
# WHEELMOD_DEMO_BUILD_DIR=DIR runs it on a build that is already there (the
# test suite's demo.script runs the demo on its own build that way), without
# installing or building anything. scripts/figures.py demo times it so.
#
# Two parts need what a fresh Debian 12 lacks, and are skipped with a line
# "skipped: ..." saying why where it is missing: the CUDA 13 install needs
# NVIDIA's CUDA 13 libraries (/usr/local/cuda on the project's machines: the
# sample index was built against them, index-mirrors/sample/README.md), and
# `import torch` needs a CPython 3.13 (the 2.10 and 2.12 wheels are cp313
# and cp314 only; Debian 12 has 3.11).
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
# The sample index built beside it: download.pytorch.org's layout and quirks
# as of December 2026, small real wheels, and a sample EasyBuild software tree
# with the 2025b and 2026.1 CUDA modules.
sample=$(cd "$build/index-mirrors/sample" && pwd)
index=$sample/whl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$work/cache
x86=(--arch x86_64 --glibc 2.28)

show() { printf '\n$ %s\n' "$*"; }
# Paths in the output, shortened: SAMPLE is the sample tree, the rest is
# under the demo's scratch directory.
short() { sed -e "s|$sample|SAMPLE|g" -e "s|$work/||g"; }

# A CPython 3.13 to import the cp313 wheels with: pyenv's (its versions/, not
# its shim), else the system's.
python313=""
for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 \
    /usr/local/bin/python3.13 /usr/bin/python3.13; do
  if [ -x "$candidate" ] && "$candidate" -c 'import sys' 2>/dev/null; then
    python313=$candidate
    break
  fi
done
# --python-exe byte-compiles with it; without it nothing is compiled.
compile=(--no-compile)
[ -n "$python313" ] && compile=(--python-exe "$python313")
no_python() { echo "skipped: $1 (no CPython 3.13 on this machine; the 2.10 and 2.12 wheels are cp313/cp314)"; }

# Were the sample's CUDA 13 modules built from NVIDIA's real libraries, and
# are those still there?
cuda13=$(python3 - "$sample/MANIFEST.json" <<'PY'
import json, os, sys
manifest = json.load(open(sys.argv[1]))
tree = manifest.get("cuda13_tree")
if not tree:
    print("no: the sample index was built without them: "
          + str(manifest.get("cuda13_tree_missing") or "MANIFEST cuda13_tree is null"))
elif not os.path.isfile(os.path.join(tree["path"], "lib", "libcudart.so.13")):
    print(f"no: {tree['path']}/lib/libcudart.so.13 is gone since the sample was built")
else:
    print(tree["path"])
PY
)

show wheelmod --version
"$wheelmod" --version | short

# ---------------------------------------------------------------------------
# foss-2026.1 with CUDA 13: torch 2.12 from the cu130 directory.
# Its Requires-Dist names NVIDIA's CUDA 13 wheels (nvidia-cublas,
# nvidia-cudnn-cu13, ...): each is mapped to the generation's module (CUDA,
# cuDNN, NCCL, cuSPARSELt), none is downloaded. The table of 2026.1 names
# no NVSHMEM module for CUDA 13 (easybuild-easyconfigs has none); the site
# has built one, and with --eb-installpath wheelmod reads the site's modules
# and takes it ("installed here"), as install will.
# foss-2026.1's Python is 3.14; this machine runs the cp313 wheels, so the
# target is Python 3.13. Nothing is downloaded but pages and metadata.
eb2026=(--toolchain foss-2026.1 --accelerator cu130 --python 3.13)
show wheelmod resolve torch==2.12.0 --toolchain foss-2026.1 --accelerator cu130 --python 3.13 --eb-installpath SAMPLE --index SAMPLE/whl
"$wheelmod" -q resolve torch==2.12.0 "${eb2026[@]}" "${x86[@]}" --eb-installpath "$sample" \
  --index "$index" --cache-dir "$cache" | short

prefix2026="$work/software/PyTorch/2.12.0-foss-2026.1-CUDA-13.3.0-whl"
if [ "${cuda13%%:*}" = no ]; then
  echo
  echo "skipped: the CUDA 13 install, its import and its module (no NVIDIA CUDA 13 libraries; ${cuda13#no: })"
  prefix2026=""
else
  # The sample's CUDA 13 modules hold NVIDIA's libraries (symlinks into
  # the CUDA 13 tree), as a site's CUDA/13.3.0 module does.
  show readlink SAMPLE/software/CUDA/13.3.0/lib64/libcudart.so.13 SAMPLE/software/cuDNN/*-CUDA-13.3.0/lib/libcudnn.so.9
  for library in "$sample/software/CUDA/13.3.0/lib64/libcudart.so.13" \
      "$sample"/software/cuDNN/*-CUDA-13.3.0/lib/libcudnn.so.9; do
    echo "$library -> $(readlink "$library")"
  done | short
  # Install in one step: resolve, fetch, unpack with every RECORD hash
  # checked, relink at the CUDA 13 modules, byte-compile, check.
  show wheelmod install torch==2.12.0 --toolchain foss-2026.1 --accelerator cu130 --python 3.13 --eb-installpath SAMPLE --prefix software/PyTorch/2.12.0-foss-2026.1-CUDA-13.3.0-whl
  "$wheelmod" -q install torch==2.12.0 "${eb2026[@]}" "${x86[@]}" --index "$index" \
    --cache-dir "$cache" --eb-installpath "$sample" "${compile[@]}" --prefix "$prefix2026" | short
  show readelf -d .../torch/lib/libtorch_cuda.so "  # its RPATH, a directory a line"
  readelf -d "$prefix2026/lib/python3.13/site-packages/torch/lib/libtorch_cuda.so" \
    | sed -n 's/.*(RPATH) *Library rpath: \[\(.*\)\]/\1/p' | tr ':' '\n' | sed 's/^/  /' | short
  # The modules' libraries live in the CUDA 13 tree, outside the prefix
  # and the module tree: --allow says so.
  show wheelmod check PREFIX --allow SAMPLE --allow "$cuda13"
  "$wheelmod" check "$prefix2026" --allow "$sample" --allow "$(readlink -f "$cuda13")" | short
  # With LD_LIBRARY_PATH unset, as a module that sets none leaves it: torch
  # loads NVIDIA's libraries through the modules, and reports what they
  # report when asked directly in the same process.
  show env -u LD_LIBRARY_PATH PYTHONPATH=.../site-packages python3.13 -c "'import torch; ...'"
  if [ -n "$python313" ]; then
    env -u LD_LIBRARY_PATH PYTHONPATH="$prefix2026/lib/python3.13/site-packages" \
      "$python313" - <<'PY' | short
import ctypes, torch
print("torch", torch.__version__, "| CUDA runtime", torch._C._runtime_version(),
      "| cuDNN", torch._C._cudnn_version(), "| NCCL", torch._C._nccl_version())
loaded = {p.rsplit("/", 1)[-1]: p for p in open("/proc/self/maps").read().split() if "/" in p}
asked = []
for name, function in (("libcudart.so.13", "cudaRuntimeGetVersion"),
                       ("libnccl.so.2", "ncclGetVersion")):
    value = ctypes.c_int()
    getattr(ctypes.CDLL(loaded[name]), function)(ctypes.byref(value))
    asked.append(f"{function}() {value.value}")
asked.append(f"cudnnGetVersion() {ctypes.CDLL(loaded['libcudnn.so.9']).cudnnGetVersion()}")
print("asked directly:", ", ".join(asked))
for name in ("libcudart.so.13", "libcudnn.so.9", "libnccl.so.2"):
    print(f"  {name} loaded from {loaded[name]}")
PY
  else
    no_python "import torch 2.12"
  fi
fi

# ---------------------------------------------------------------------------
# foss-2025b with its CUDA 12.9.1: torch 2.10 with torchvision and
# torchaudio, from cu129 (an exact match). The report, first the variant and
# the modules to load (the whole report lists every wheel as above).
eb2025b=(--toolchain foss-2025b --accelerator cuda --python 3.13)
stack=(torch==2.10.0 torchvision torchaudio)
show wheelmod resolve torch==2.10.0 torchvision torchaudio --toolchain foss-2025b --accelerator cuda --python 3.13 --index SAMPLE/whl
report=$("$wheelmod" -q resolve "${stack[@]}" "${eb2025b[@]}" "${x86[@]}" --index "$index" \
  --cache-dir "$cache")
grep -E '^(target|variant|driver):|^[a-z-]+ [0-9][^ ]*( |$)' <<<"$report" | short
sed -n '/^modules to load:/,$p' <<<"$report"

# The second half of the main job, step by step: review the resolution as
# JSON, then fetch exactly what it lists — in parallel, each file's SHA-256
# checked while it arrives, landing as .part and renamed only once verified.
show wheelmod resolve torch==2.10.0 torchvision torchaudio --toolchain foss-2025b --accelerator cuda --python 3.13 --format json '>' report.json
"$wheelmod" -q resolve "${stack[@]}" "${eb2025b[@]}" "${x86[@]}" --index "$index" \
  --cache-dir "$cache" --format json >"$work/report.json"
show wheelmod fetch --from-report report.json --dest wheels/
"$wheelmod" fetch --from-report "$work/report.json" --dest "$work/wheels" --cache-dir "$cache" \
  2>&1 | short
# Again, into another directory: every wheel comes from the content-addressed
# cache (a hard link), none from the index.
show wheelmod fetch --from-report report.json --dest other/
"$wheelmod" fetch --from-report "$work/report.json" --dest "$work/other" --cache-dir "$cache" \
  2>&1 | short

# Install, relinked at the 2025b modules (CUDA 12.9.1, cuDNN, NCCL,
# cuSPARSELt, NVSHMEM), checked, imported with LD_LIBRARY_PATH unset.
prefix2025="$work/software/PyTorch/2.10.0-foss-2025b-CUDA-12.9.1-whl"
show wheelmod install torch==2.10.0 torchvision torchaudio --toolchain foss-2025b --accelerator cuda --python 3.13 --eb-installpath SAMPLE --prefix software/PyTorch/2.10.0-foss-2025b-CUDA-12.9.1-whl
"$wheelmod" -q install "${stack[@]}" "${eb2025b[@]}" "${x86[@]}" --index "$index" \
  --cache-dir "$cache" --eb-installpath "$sample" "${compile[@]}" --prefix "$prefix2025" | short
show env -u LD_LIBRARY_PATH PYTHONPATH=.../site-packages python3.13 -c "'import torch, torchvision, torchaudio; ...'"
if [ -n "$python313" ]; then
  env -u LD_LIBRARY_PATH PYTHONPATH="$prefix2025/lib/python3.13/site-packages" "$python313" -c '
import torch, torchvision, torchaudio
print("torch", torch.__version__, "| CUDA runtime", torch._C._runtime_version(),
      "| torchvision", torchvision.__version__, "| torchaudio", torchaudio.__version__)'
else
  no_python "import torch 2.10"
fi

# ---------------------------------------------------------------------------
# When the exact variant is not there: no cu129 torch 2.10 for aarch64
# (Grace Hopper), so cu128, which runs on CUDA 12.9 (first lines).
show wheelmod resolve torch==2.10.0 torchvision torchaudio --toolchain foss-2025b --accelerator cuda --python 3.13 --arch aarch64 --index SAMPLE/whl
"$wheelmod" -q resolve "${stack[@]}" "${eb2025b[@]}" --arch aarch64 --glibc 2.28 \
  --index "$index" --cache-dir "$cache" | sed -n '3,5p' | short

# When nothing fits: CUDA 13 wheels need driver 580, and the compute nodes
# have 550: exit code 3, with the reason for each variant tried.
show wheelmod resolve torch==2.12.0 --toolchain foss-2026.1 --accelerator cuda --python 3.13 --driver 550.54.15 --index SAMPLE/whl
status=0
"$wheelmod" resolve torch==2.12.0 --toolchain foss-2026.1 --accelerator cuda --python 3.13 \
  --driver 550.54.15 "${x86[@]}" --index "$index" --cache-dir "$cache" 2>&1 | sed -n '1,3p' \
  || status=$?
echo "exit code: $status"

# Why is a wheel chosen or not? The tags a node with Python 3.13 and glibc
# 2.28 accepts, best first: the first three, and where the legacy
# manylinux2014 tag and the plain linux tag of the same ABI sit.
show wheelmod tags --python 3.13 --arch x86_64 --glibc 2.28
tags=$("$wheelmod" tags --python 3.13 --arch x86_64 --glibc 2.28)
grep -n . <<<"$tags" | grep -E '^[123]:|:cp313-cp313-(manylinux2014|linux)_x86_64$'
echo "... $(wc -l <<<"$tags") tags in all"

# The same for an aarch64 (Grace Hopper) node, as JSON.
show wheelmod tags --python 3.13 --arch aarch64 --glibc 2.34 --format json
json=$("$wheelmod" tags --python 3.13 --arch aarch64 --glibc 2.34 --format json)
sed -n '1,7p' <<<"$json"
echo '  ...'

# A mistake gets a one-paragraph error and exit code 2.
show wheelmod tags --python 3.13 --arch sparc64
status=0
"$wheelmod" tags --python 3.13 --arch sparc64 --glibc 2.28 || status=$?
echo "exit code: $status"

# ---------------------------------------------------------------------------
# An offline mirror of a slice of the index: torch 2.12.0 for cu130, Python
# 3.13, with what it requires (the NVIDIA CUDA 13 wheels the cu130 pages
# link on PyPI's file host included); then the same run again, which
# downloads nothing; then resolved from the mirror.
cat >"$work/mirror.yaml" <<EOF
index: file://$index
variants: [cu130]
packages: {torch: "==2.12.0"}
python: ["3.13"]
arches: [x86_64]
glibc: "2.28"
EOF
show wheelmod mirror mirror.yaml --dest mirror/
"$wheelmod" -q mirror "$work/mirror.yaml" --dest "$work/mirror" | grep -v '^note:' \
  | sed -E 's|packages/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/|packages/../../…/|' | short
show wheelmod mirror mirror.yaml --dest mirror/ '# again'
"$wheelmod" -q mirror "$work/mirror.yaml" --dest "$work/mirror" | grep -v '^note:'
show wheelmod resolve torch==2.12.0 --toolchain foss-2026.1 --accelerator cu130 --python 3.13 --eb-installpath SAMPLE --index file:///.../mirror '|' grep url:
"$wheelmod" -q resolve torch==2.12.0 "${eb2026[@]}" "${x86[@]}" --eb-installpath "$sample" \
  --index "file://$work/mirror" \
  --cache-dir "$work/cache-mirror" | grep 'url:' | short

# ---------------------------------------------------------------------------
# Stage 1's outputs for the prefixes installed above. The module file, as
# EasyBuild would write it, in the module tree beside software/; then loaded
# with Lmod and `import torch` run by the module's python3. The site's
# modules it depends on (foss, Python, CUDA, cuDNN, ...) are stand-ins here:
# each only sets its EBROOT variable to the sample tree, and the Python one
# puts this machine's CPython 3.13 on PATH.
modules="$work/modules"
load_module() {  # PREFIX NAME: write the module, its stand-ins, load it
  local prefix=$1 name=$2
  # 2026.1's Python module is 3.14 and the install is for 3.13: wheelmod
  # refuses a module whose Python would not import the install, unless
  # --force (the stand-in Python module below runs 3.13).
  local force=()
  [[ $name == *2026.1* ]] && force=(--force)
  show wheelmod module PREFIX --modulepath modules/ "${force[@]}"
  "$wheelmod" -q module "$prefix" --modulepath "$modules" "${force[@]}" 2>&1 | short
  python3 - "$prefix/easybuild/wheelmod-install.json" "$modules" "$sample" "$work/python313" \
    <<'PY'
import json, os, sys
provenance = json.load(open(sys.argv[1]))
for module in [provenance["toolchain_module"], *provenance["modules"]]:
    name, version = module.split("/", 1)
    path = os.path.join(sys.argv[2], "all", name, version + ".lua")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    root = os.path.join(sys.argv[3], "software", name, version)
    variable = name.upper().replace("-", "MIN").replace("+", "PLUS").replace(".", "")
    text = f'setenv("EBROOT{variable}", "{root}")\n'
    if name == "Python":
        text += f'prepend_path("PATH", "{sys.argv[4]}/bin")\n'
    open(path, "w").write(text)
PY
  show module use modules/all '&&' module load "$name" '&&' python3 -c "'import torch'"
  (
    unset LD_LIBRARY_PATH MODULEPATH LOADEDMODULES
    export MODULEPATH=""
    source /usr/share/lmod/lmod/init/bash
    module use "$modules/all"
    module load "$name"
    module -t list 2>&1 | tr '\n' ' '
    echo
    echo "EBROOTPYTORCH=${EBROOTPYTORCH#"$work/"}"
    if [ -n "$python313" ]; then
      python3 -c 'import torch; print("import torch:", torch.__version__, "CUDA runtime",
                  torch._C._runtime_version(), "from", torch.__file__)' | short
    else
      no_python "import torch under the module"
    fi
  )
}
mkdir -p "$work/python313/bin"
[ -n "$python313" ] && ln -s "$python313" "$work/python313/bin/python3"
if [ -n "$prefix2026" ]; then
  load_module "$prefix2026" PyTorch/2.12.0-foss-2026.1-CUDA-13.3.0-whl
fi
load_module "$prefix2025" PyTorch/2.10.0-foss-2025b-CUDA-12.9.1-whl

# The Stage-1 easyconfigs a maintainer opens a pull request with: both
# architectures' wheels with their sha256, dependencies mapped to the
# generation's modules, sanity checks that import torch. For foss-2026.1
# they are for its own Python, 3.14 (the sample has cp314 wheels of 2.12).
show wheelmod easyconfig torch==2.12.0 --toolchain foss-2026.1 --accelerator cu130 --eb-installpath SAMPLE --output-dir easyconfigs/
"$wheelmod" -q easyconfig torch==2.12.0 --toolchain foss-2026.1 --accelerator cu130 \
  --eb-installpath "$sample" --index "$index" --cache-dir "$cache" --output-dir "$work/easyconfigs" \
  | short
show wheelmod easyconfig torch==2.10.0 torchvision torchaudio --toolchain foss-2025b --accelerator cuda --arch x86_64 --output-dir easyconfigs/
"$wheelmod" -q easyconfig "${stack[@]}" --toolchain foss-2025b --accelerator cuda --arch x86_64 \
  --index "$index" --cache-dir "$cache" --output-dir "$work/easyconfigs" | short
show sed -n '1,25p' easyconfigs/PyTorch-2.12.0-foss-2026.1-CUDA-13.3.0-whl.eb
sed -n '1,25p' "$work/easyconfigs/PyTorch-2.12.0-foss-2026.1-CUDA-13.3.0-whl.eb"
echo '  ...'
