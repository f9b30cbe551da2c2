#!/usr/bin/env python3
"""Generate the per-generation blocks of config/toolchains.yaml and
config/eb-dependencies.yaml from an easybuild-easyconfigs tree.

The tree is a directory (a checkout that contains easybuild/easyconfigs/, or
that directory itself), or a git directory and commit. Easyconfigs are parsed
with Python's `ast` and evaluated by a small interpreter of literals, names,
string templates and list comprehensions; nothing in them is executed.

Usage:
  scripts/eb-tables.py --git-dir DIR [--commit REV] --generation G [...]
  scripts/eb-tables.py --easyconfigs DIR --generation G [...]
      [--section rocm] [--write CONFIG_DIR | --check CONFIG_DIR | --list-inputs]

Without --write/--check the blocks go to stdout. --write replaces (or inserts,
in generation order) the generation's block in CONFIG_DIR/toolchains.yaml and
CONFIG_DIR/eb-dependencies.yaml and leaves every other byte as it was (a
missing file is created). --check exits 1 with a unified diff when a file
differs from what --write would make. --section rocm does all of this for the
`rocm` section of eb-dependencies.yaml only (the libraries a ROCm torch wheel
bundles and the modules of the generation's ROCm stack that provide them): it
replaces, appends or removes that section inside the generation's existing
block, so it also serves a generation whose other sections are hand-written
(2025a). A generation without a ROCm stack has no such section. Exit 2: bad
input (no foss-G easyconfig, an unsupported main CUDA or ROCm, an unreadable
tree, --section for a generation without a block). Rules: config/README.md.
"""

import argparse
import ast
import collections
import difflib
import functools
import os
import re
import subprocess
import sys

EC_PREFIX = 'easybuild/easyconfigs/'

# The pip projects that torch, torchvision and torchaudio require (besides the
# CUDA libraries), PEP 503-normalised.
PYTHON_PACKAGES = [
    'cuda-bindings', 'filelock', 'fsspec', 'jinja2', 'markupsafe', 'mpmath', 'networkx',
    'numpy', 'opt-einsum', 'optree', 'pillow', 'setuptools', 'sympy', 'triton',
    'typing-extensions',
]
# Software (easyconfig) names that provide a package under another name.
PACKAGE_SOFTWARE = {'cuda-bindings': 'CUDA-Python'}

CUDNN9 = ['libcudnn.so.9', 'libcudnn_adv.so.9', 'libcudnn_cnn.so.9',
          'libcudnn_engines_precompiled.so.9', 'libcudnn_engines_runtime_compiled.so.9',
          'libcudnn_graph.so.9', 'libcudnn_heuristic.so.9', 'libcudnn_ops.so.9']
RPATHS = 'build_cuda.sh CUDA_RPATHS'
DEPS = 'build_cuda.sh DEPS_SONAME'
FINDER = 'cuda_pathfinder SUPPORTED_LINUX_SONAMES'
FINDER_DIRS = 'cuda_pathfinder SITE_PACKAGES_LIBDIRS_LINUX'
CUSPARSELT_ALIAS = 'torch 2.5-2.9 RPATH also names $ORIGIN/../../cusparselt/lib'

# What a CUDA library key is: (pip name, wheel_libdir and its source, aliases,
# libraries and their source, provider software, provider libdir).
Lib = collections.namedtuple(
    'Lib', 'key wheel_libdir libdir_src aliases libraries lib_src software libdir')


def _cu12(key, wheel_dir, libraries, lib_src, software='CUDA', libdir='lib64',
          dir_src=RPATHS, aliases=()):
    return Lib(key, wheel_dir, dir_src, list(aliases), libraries, lib_src, software, libdir)


CUDA12_LIBS = [
    _cu12('nvidia-cublas-cu12', 'nvidia/cublas/lib', ['libcublas.so.12', 'libcublasLt.so.12'],
          DEPS),
    _cu12('nvidia-cuda-cupti-cu12', 'nvidia/cuda_cupti/lib', ['libcupti.so.12'], DEPS,
          libdir='extras/CUPTI/lib64'),
    _cu12('nvidia-cuda-nvrtc-cu12', 'nvidia/cuda_nvrtc/lib', ['libnvrtc.so.12'], DEPS),
    _cu12('nvidia-cuda-runtime-cu12', 'nvidia/cuda_runtime/lib', ['libcudart.so.12'], DEPS),
    _cu12('nvidia-cudnn-cu12', 'nvidia/cudnn/lib', CUDNN9, DEPS, 'cuDNN', 'lib'),
    _cu12('nvidia-cufft-cu12', 'nvidia/cufft/lib', ['libcufft.so.11'], FINDER),
    _cu12('nvidia-cufile-cu12', 'nvidia/cufile/lib', ['libcufile.so.0'], DEPS),
    _cu12('nvidia-curand-cu12', 'nvidia/curand/lib', ['libcurand.so.10'], FINDER),
    _cu12('nvidia-cusolver-cu12', 'nvidia/cusolver/lib', ['libcusolver.so.11'], FINDER),
    _cu12('nvidia-cusparse-cu12', 'nvidia/cusparse/lib', ['libcusparse.so.12'], FINDER),
    _cu12('nvidia-cusparselt-cu12', 'nvidia/cusparselt/lib', ['libcusparseLt.so.0'], DEPS,
          'cuSPARSELt', 'lib', aliases=['cusparselt/lib']),
    _cu12('nvidia-nccl-cu12', 'nvidia/nccl/lib', ['libnccl.so.2'], FINDER, 'NCCL', 'lib'),
    _cu12('nvidia-nvjitlink-cu12', 'nvidia/nvjitlink/lib', ['libnvJitLink.so.12'], FINDER,
          dir_src=FINDER_DIRS),
    _cu12('nvidia-nvshmem-cu12', 'nvidia/nvshmem/lib', ['libnvshmem_host.so.3'], DEPS,
          'NVSHMEM', 'lib'),
    _cu12('nvidia-nvtx-cu12', 'nvidia/nvtx/lib', ['libnvToolsExt.so.1'], DEPS),
]

# CUDA 13 (torch cu130 wheels): the toolkit wheels are unsuffixed and share
# one directory; the SONAMEs are those of the wheels' RECORD files.
CU13_DIR = 'nvidia/cu13/lib'
CU13_DIR_SRC = 'CUDA 13 wheels install into one directory (wheel RECORD)'


def _rec(wheel):
    return f'{wheel} wheel RECORD'


CUDA13_TOOLKIT = [
    Lib('nvidia-cublas', CU13_DIR, CU13_DIR_SRC, [], ['libcublas.so.13', 'libcublasLt.so.13'],
        _rec('nvidia_cublas-13.1.0.3'), 'CUDA', 'lib64'),
    Lib('nvidia-cuda-cupti', CU13_DIR, CU13_DIR_SRC, [], ['libcupti.so.13'],
        _rec('nvidia_cuda_cupti-13.0.85'), 'CUDA', 'extras/CUPTI/lib64'),
    Lib('nvidia-cuda-nvrtc', CU13_DIR, CU13_DIR_SRC, [], ['libnvrtc.so.13'],
        _rec('nvidia_cuda_nvrtc-13.0.88'), 'CUDA', 'lib64'),
    Lib('nvidia-cuda-runtime', CU13_DIR, CU13_DIR_SRC, [], ['libcudart.so.13'],
        _rec('nvidia_cuda_runtime-13.0.96'), 'CUDA', 'lib64'),
    Lib('nvidia-cufft', CU13_DIR, CU13_DIR_SRC, [], ['libcufft.so.12'],
        _rec('nvidia_cufft-12.0.0.61'), 'CUDA', 'lib64'),
    Lib('nvidia-cufile', CU13_DIR, 'as the other CUDA 13 toolkit wheels (no cufile RECORD read)',
        [], ['libcufile.so.0'], DEPS, 'CUDA', 'lib64'),
    Lib('nvidia-curand', CU13_DIR, CU13_DIR_SRC, [], ['libcurand.so.10'],
        _rec('nvidia_curand-10.4.0.35'), 'CUDA', 'lib64'),
    Lib('nvidia-cusolver', CU13_DIR, CU13_DIR_SRC, [], ['libcusolver.so.12'],
        _rec('nvidia_cusolver-12.0.4.66'), 'CUDA', 'lib64'),
    Lib('nvidia-cusparse', CU13_DIR, CU13_DIR_SRC, [], ['libcusparse.so.12'],
        _rec('nvidia_cusparse-12.6.3.3'), 'CUDA', 'lib64'),
    Lib('nvidia-nvjitlink', CU13_DIR, CU13_DIR_SRC, [], ['libnvJitLink.so.13'],
        _rec('nvidia_nvjitlink-13.0.88'), 'CUDA', 'lib64'),
    Lib('nvidia-nvtx', CU13_DIR, CU13_DIR_SRC, [], ['libnvtx3interop.so.1'],
        _rec('nvidia_nvtx-13.0.85'), 'CUDA', 'lib64'),
]
CUDA13_LIBS = sorted(CUDA13_TOOLKIT + [
    Lib('cuda-toolkit', CU13_DIR, 'where the wheels of its extras install', [],
        sorted({name for lib in CUDA13_TOOLKIT for name in lib.libraries}, key=str.lower),
        'the SONAMEs of the CUDA 13 toolkit keys of this block', 'CUDA', 'lib64'),
    Lib('nvidia-cudnn-cu13', 'nvidia/cudnn/lib', _rec('nvidia_cudnn_cu13-9.19.0.56'), [],
        CUDNN9, _rec('nvidia_cudnn_cu13-9.19.0.56'), 'cuDNN', 'lib'),
    Lib('nvidia-cusparselt-cu13', 'nvidia/cusparselt/lib', RPATHS, [], ['libcusparseLt.so.0'],
        DEPS, 'cuSPARSELt', 'lib'),
    Lib('nvidia-nccl-cu13', 'nvidia/nccl/lib', _rec('nvidia_nccl_cu13-2.28.9'), [],
        ['libnccl.so.2'], _rec('nvidia_nccl_cu13-2.28.9'), 'NCCL', 'lib'),
    Lib('nvidia-nvshmem-cu13', 'nvidia/nvshmem/lib', RPATHS, [], ['libnvshmem_host.so.3'],
        f'{DEPS}, {FINDER}', 'NVSHMEM', 'lib'),
], key=lambda lib: lib.key)

CUDNN8_REASON = 'provides libcudnn.so.8; torch 2.4-2.9 wheels pin cuDNN 9 (libcudnn.so.9)'
NVTX2_REASON = 'CUDA 12.9 removed libnvToolsExt (NVTX v2); NVTX 3 is header-only'
# What `libraries: []` says for nvtx from CUDA 12.9 on: torch builds against NVTX 3 (headers,
# pytorch cmake/public/cuda.cmake torch::nvtx3) and links no libnvToolsExt, so no library has to
# be found; a wheel that still needed libnvToolsExt.so.1 fails wheelmod's check after relink.
NVTX_NO_LIBRARY = 'none to find: NVTX 3 is header-only (the check after relink catches a need)'


def header_only_nvtx(lib, cuda):
    """nvidia-nvtx-cu12 for a CUDA without libnvToolsExt (12.9 and later)."""
    return lib.key == 'nvidia-nvtx-cu12' and version_key(cuda) >= version_key('12.9')


ROCM_RUNTIME = ['HIP', 'RCCL', 'rocBLAS', 'hipBLASLt']

# --- What a ROCm torch wheel bundles (eb-dependencies.yaml `rocm`) ---
#
# A download.pytorch.org ROCm torch wheel carries in torch/lib the libraries of pytorch
# .ci/manywheel/build_rocm.sh: ROCM_SO_FILES (librocprofiler-register.so from ROCm 6.1,
# librocm-core.so from 6.2) and OS_SO_PATHS (the AlmaLinux paths of the manylinux_2_28 build
# image). build_common.sh copies each one under its link name (fname_without_so_number:
# libamdhip64.so.6 -> libamdhip64.so, "ROCm workaround for roctracer dlopens") and rewrites the
# DT_NEEDED of every torch library to match; the file keeps its own SONAME. The data files go
# to build_rocm.sh DEPS_AUX_DSTLIST (below torch/), copied from DEPS_AUX_SRCLIST: $ROCM_HOME
# (/opt/rocm) or /opt/amdgpu, the install prefix of the ROCm (or amdgpu libdrm) packages, so a
# module has its copy at the same path below its install root.
#
# RocmLib fields, each with its source:
#   file        the name in torch/lib: ROCM_SO_FILES, or OS_SO_PATHS without its .so.N
#               (fname_without_so_number)
#   soname      the DT_SONAME the file keeps: for the ROCm libraries the SOVERSION of the
#               ROCm 6.4 library, recalled (the easyconfigs do not name it); for the OS
#               libraries the file name in OS_SO_PATHS. wheelmod reads the real DT_SONAME of
#               the bundled file and of the module's at install time and compares them
#   software    the EasyBuild software that builds the library: the ROCm project of that name
#               (ROCR-Runtime and ROCm-comgr are components of the ROCm-LLVM bundle, clr's
#               libamdhip64/libhiprtc of the HIP bundle); for the OS libraries the EasyBuild
#               package of the same upstream project (GCC's libgomp, numactl's libnuma,
#               elfutils' libelf, ncurses' libtinfo, libdrm's libdrm and libdrm_amdgpu)
#   libdir      where the module has it: 'lib' for CMakeMake (easyblocks generic/cmakemake.py
#               install_libdir default 'lib'), MesonNinja (generic/mesonninja.py -Dlibdir=lib)
#               and ConfigureMake (autotools' default libdir), as the easyconfigs'
#               sanity_check_paths confirm; 'lib64' for GCCcore (x86_64 GCC installs its target
#               libraries in lib64, gcc/config/i386/t-linux64 MULTILIB_OSDIRNAMES m64=../lib64,
#               which the GCC easyblock g/gcc.py changes only with prefer_lib_subdir, default
#               False)
#   wheel_data  DEPS_AUX_DSTLIST, the directory below site-packages
#   data        DEPS_AUX_SRCLIST, the directory below $ROCM_HOME or /opt/amdgpu
#   component   the component of a Bundle easyconfig that builds the library, where it is the
#               evidence (ROCm-LLVM has no sanity_check_paths)
#   os          True for OS_SO_PATHS: the provider is the version that the stack's ROCm-LLVM
#               and HIP easyconfigs depend on (GCCcore itself for libgomp), not a -ROCm- build
RocmLib = collections.namedtuple(
    'RocmLib', 'file soname software libdir wheel_data data component os',
    defaults=((), (), None, False))
ROCM_SERIES = '6.4'  # the ROCm version whose SONAMEs the table has
DEPS_AUX = 'build_rocm.sh DEPS_AUX_DSTLIST'
ROCM_LIBS = [
    # ROCM_SO_FILES, in build_rocm.sh's order
    RocmLib('libMIOpen.so', 'libMIOpen.so.1', 'MIOpen', 'lib',
            ['torch/share/miopen/db'], ['share/miopen/db']),
    RocmLib('libamdhip64.so', 'libamdhip64.so.6', 'HIP', 'lib'),
    RocmLib('libhipblas.so', 'libhipblas.so.2', 'hipBLAS', 'lib'),
    RocmLib('libhipfft.so', 'libhipfft.so.0', 'hipFFT', 'lib'),
    RocmLib('libhiprand.so', 'libhiprand.so.1', 'hipRAND', 'lib'),
    RocmLib('libhipsolver.so', 'libhipsolver.so.0', 'hipSOLVER', 'lib'),
    RocmLib('libhipsparse.so', 'libhipsparse.so.1', 'hipSPARSE', 'lib'),
    RocmLib('libhsa-runtime64.so', 'libhsa-runtime64.so.1', 'ROCm-LLVM', 'lib',
            component='ROCR-Runtime'),
    RocmLib('libamd_comgr.so', 'libamd_comgr.so.3', 'ROCm-LLVM', 'lib', component='ROCm-comgr'),
    RocmLib('libmagma.so', 'libmagma.so', 'magma', 'lib'),
    RocmLib('librccl.so', 'librccl.so.1', 'RCCL', 'lib',
            ['torch/share/rccl/msccl-algorithms'], ['share/rccl/msccl-algorithms']),
    RocmLib('librocblas.so', 'librocblas.so.4', 'rocBLAS', 'lib',
            ['torch/lib/rocblas/library'], ['lib/rocblas/library']),
    RocmLib('librocfft.so', 'librocfft.so.0', 'rocFFT', 'lib'),
    RocmLib('librocm_smi64.so', 'librocm_smi64.so.7', 'rocm-smi', 'lib'),
    RocmLib('librocrand.so', 'librocrand.so.1', 'rocRAND', 'lib'),
    RocmLib('librocsolver.so', 'librocsolver.so.0', 'rocSOLVER', 'lib'),
    RocmLib('librocsparse.so', 'librocsparse.so.1', 'rocSPARSE', 'lib'),
    RocmLib('libroctracer64.so', 'libroctracer64.so.4', 'rocTracer', 'lib'),
    RocmLib('libroctx64.so', 'libroctx64.so.4', 'rocTracer', 'lib'),
    RocmLib('libhipblaslt.so', 'libhipblaslt.so.0', 'hipBLASLt', 'lib',
            ['torch/lib/hipblaslt/library'], ['lib/hipblaslt/library']),
    RocmLib('libhipsparselt.so', 'libhipsparselt.so.0', 'hipSPARSELt', 'lib',
            ['torch/lib/hipsparselt/library'], ['lib/hipsparselt/library']),
    RocmLib('libhiprtc.so', 'libhiprtc.so.6', 'HIP', 'lib'),
    RocmLib('librocprofiler-register.so', 'librocprofiler-register.so.0', 'rocprofiler-register',
            'lib'),
    RocmLib('librocm-core.so', 'librocm-core.so.1', 'rocm-core', 'lib'),
    # OS_SO_PATHS on AlmaLinux: /usr/lib64/lib{gomp.so.1,numa.so.1,elf.so.1,tinfo.so.6},
    # /opt/amdgpu/lib64/lib{drm.so.2,drm_amdgpu.so.1}; amdgpu.ids from /opt/amdgpu/share/libdrm
    RocmLib('libgomp.so', 'libgomp.so.1', 'GCCcore', 'lib64', os=True),
    RocmLib('libnuma.so', 'libnuma.so.1', 'numactl', 'lib', os=True),
    RocmLib('libelf.so', 'libelf.so.1', 'elfutils', 'lib', os=True),
    RocmLib('libtinfo.so', 'libtinfo.so.6', 'ncurses', 'lib', os=True),
    RocmLib('libdrm.so', 'libdrm.so.2', 'libdrm', 'lib',
            ['torch/share/libdrm'], ['share/libdrm'], os=True),
    RocmLib('libdrm_amdgpu.so', 'libdrm_amdgpu.so.1', 'libdrm', 'lib', os=True),
]

# The compiler and MPI elements of each toolchain the tables list, as easybuild-framework's
# toolchain classes name them (COMPILER_MODULE_NAME, MPI_MODULE_NAME in easybuild/toolchains/;
# rocm-compilers and rompi: framework pull request 5099). HierarchicalMNS finds an element as
# the toolchain easyconfig's dependency of that name, or, for a compiler-only toolchain, the
# toolchain itself (module_naming_scheme/toolchain.py, det_toolchain_element_details).
TOOLCHAIN_ELEMENTS = {
    'GCCcore': ('GCCcore', None),
    'GCC': ('GCC', None),
    'gfbf': ('GCC', None),
    'gompi': ('GCC', 'OpenMPI'),
    'foss': ('GCC', 'OpenMPI'),
    'rocm-compilers': ('rocm-compilers', None),
    'rompi': ('rocm-compilers', 'OpenMPI'),
}


class Failure(Exception):
    """Bad input: printed as one line, exit code 2."""


# --- Reading a tree -----------------------------------------------------------------


class Tree:
    """The .eb files of an easyconfigs tree, by path below easybuild/easyconfigs/."""

    def __init__(self, paths, description):
        self.paths = sorted(p for p in paths if p.endswith('.eb'))
        self.pathset = set(self.paths)
        self.description = description
        self.inputs = set()  # the paths whose content or name was used
        self.by_dir = collections.defaultdict(list)
        for path in self.paths:
            parts = path.split('/')
            if len(parts) == 3:
                self.by_dir[parts[1]].append(path)
        self._cache = {}

    def exists(self, path):
        if path in self.pathset:
            self.inputs.add(path)
            return True
        return False

    def easyconfig(self, path):
        if path not in self._cache:
            self.inputs.add(path)
            self._cache[path] = Easyconfig(path, self._read(path))
        return self._cache[path]


class DirTree(Tree):
    def __init__(self, root):
        base = os.path.join(root, EC_PREFIX)
        self.base = base if os.path.isdir(base) else root
        if not os.path.isdir(self.base):
            raise Failure(f'{root}: not a directory')
        paths = []
        for dirpath, _, files in os.walk(self.base):
            rel = os.path.relpath(dirpath, self.base)
            paths += [f if rel == '.' else f'{rel}/{f}' for f in files]
        super().__init__([p.replace(os.sep, '/') for p in paths], self.base)

    def _read(self, path):
        with open(os.path.join(self.base, path), encoding='utf-8', errors='replace') as f:
            return f.read()


class GitTree(Tree):
    def __init__(self, git_dir, commit):
        self.git = ['git', '--git-dir', git_dir]
        if not os.path.isdir(git_dir):
            raise Failure(f'{git_dir}: not a directory')
        try:
            self.commit = self._run('rev-parse', '--verify', '--quiet',
                                    f'{commit}^{{commit}}').strip()
        except Failure:
            raise Failure(f'{git_dir}: no commit {commit}') from None
        names = self._run('ls-tree', '-r', '--name-only', self.commit, '--', EC_PREFIX)
        paths = [n[len(EC_PREFIX):] for n in names.splitlines() if n.startswith(EC_PREFIX)]
        super().__init__(paths, f'{git_dir} at {self.commit}')
        self._batch = None

    def _run(self, *args):
        try:
            done = subprocess.run(self.git + list(args), capture_output=True, text=True)
        except OSError as error:
            raise Failure(f'cannot run git: {error}') from None
        if done.returncode != 0:
            message = done.stderr.strip().splitlines()
            raise Failure(f'git {args[0]} failed: {message[-1] if message else done.returncode}')
        return done.stdout

    def _read(self, path):
        if self._batch is None:
            self._batch = subprocess.Popen(self.git + ['cat-file', '--batch'],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._batch.stdin.write(f'{self.commit}:{EC_PREFIX}{path}\n'.encode())
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().decode().split()
        if len(header) != 3 or header[1] != 'blob':
            raise Failure(f'{path}: not in {self.description}')
        data = self._batch.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode('utf-8', errors='replace')


# --- Parsing an easyconfig ----------------------------------------------------------


class _Unknown:
    """A value the parser cannot know (a call, an easyblock constant...)."""

    def __repr__(self):
        return 'UNKNOWN'


UNKNOWN = _Unknown()
SYSTEM = {'name': 'system', 'version': 'system'}
# EasyBuild's SHLIB_EXT constant on Linux (framework tools/systemtools.py get_shared_lib_ext).
SHLIB_EXT = 'so'
TEMPLATE = re.compile(r'%\((\w+)\)s')
# A list comprehension with more items than this is not evaluated.
COMPREHENSION_LIMIT = 10000


class _NotKnown(Exception):
    """A comprehension whose value cannot be known."""


def _bind(target, item, scope):
    """Bind a comprehension's target (a name or a tuple of names) to `item` in `scope`."""
    if isinstance(target, ast.Name):
        scope[target.id] = item
        return
    if isinstance(target, ast.Tuple) and isinstance(item, (tuple, list)) and \
            len(item) == len(target.elts):
        for element, value in zip(target.elts, item):
            _bind(element, value, scope)
        return
    raise _NotKnown


def _comprehension(node, env):
    """The value of `[elt for x in known_list ... if known_condition]`, else UNKNOWN."""
    results = []

    def walk(index, scope):
        if len(results) > COMPREHENSION_LIMIT:
            raise _NotKnown
        if index == len(node.generators):
            results.append(_evaluate(node.elt, scope))
            return
        generator = node.generators[index]
        items = _evaluate(generator.iter, scope)
        if generator.is_async or not isinstance(items, (list, tuple, str)):
            raise _NotKnown
        for item in items:
            inner = dict(scope)
            _bind(generator.target, item, inner)
            conditions = [_evaluate(c, inner) for c in generator.ifs]
            if any(c is UNKNOWN for c in conditions):
                raise _NotKnown
            if all(conditions):
                walk(index + 1, inner)

    try:
        walk(0, dict(env))
    except _NotKnown:
        return UNKNOWN
    return results


def _evaluate(node, env):
    """The value of an expression of literals, names, %, + and f-strings."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        return {'SYSTEM': SYSTEM, 'SHLIB_EXT': SHLIB_EXT}.get(node.id, UNKNOWN)
    if isinstance(node, ast.ListComp):
        return _comprehension(node, env)
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_evaluate(e, env) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            key = _evaluate(k, env) if k is not None else UNKNOWN
            if isinstance(key, (str, int)):
                out[key] = _evaluate(v, env)
        return out
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, env), _evaluate(node.right, env)
        try:
            if isinstance(node.op, ast.Mod) and isinstance(left, str):
                if UNKNOWN in (right if isinstance(right, tuple) else (right,)):
                    return UNKNOWN
                return left % right
            if isinstance(node.op, ast.Add) and type(left) is type(right) and \
                    isinstance(left, (str, list, tuple)):
                return left + right
        except (TypeError, ValueError, KeyError):
            return UNKNOWN
        return UNKNOWN
    if isinstance(node, ast.Subscript):
        value, index = _evaluate(node.value, env), node.slice
        if not isinstance(value, (str, tuple, list)):
            return UNKNOWN
        try:
            if isinstance(index, ast.Slice):
                bounds = [_evaluate(b, env) if b else None
                          for b in (index.lower, index.upper, index.step)]
                return value[slice(*bounds)]
            return value[_evaluate(index, env)]
        except (TypeError, IndexError):
            return UNKNOWN
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            part = _evaluate(value.value if isinstance(value, ast.FormattedValue) else value, env)
            if not isinstance(part, (str, int, float)):
                return UNKNOWN
            parts.append(str(part))
        return ''.join(parts)
    return UNKNOWN


def _statements(text, path):
    """The top-level statements; a file Python cannot parse is read per assignment."""
    try:
        return ast.parse(text, filename=path).body
    except SyntaxError:
        pass
    chunks, current = [], []
    for line in text.splitlines():
        if re.match(r'[A-Za-z_]\w*\s*=', line) and current:
            chunks.append('\n'.join(current))
            current = []
        current.append(line)
    chunks.append('\n'.join(current))
    body = []
    for chunk in chunks:
        try:
            body += ast.parse(chunk).body
        except SyntaxError:
            continue
    return body


def _version_parts(version):
    return version.split('.') if isinstance(version, str) else []


class Easyconfig:
    """The facts of one easyconfig: name, version, toolchain, dependencies, exts_list."""

    def __init__(self, path, text):
        self.path = path
        self.text = text
        env = {}
        for statement in _statements(text, path):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], ast.Name):
                env[statement.targets[0].id] = _evaluate(statement.value, env)
        self.env = env
        self.name = env.get('name')
        self.version = env.get('version')
        if not isinstance(self.name, str) or not isinstance(self.version, str):
            # Only an easyconfig that is a dependent can be vague; a provider is checked
            # in `module`.
            self.name = self.name if isinstance(self.name, str) else '?'
            self.version = self.version if isinstance(self.version, str) else '?'
        toolchain = env.get('toolchain', SYSTEM)
        if not isinstance(toolchain, dict) or toolchain.get('name') in (None, 'system'):
            self.toolchain = None
        else:
            self.toolchain = (str(toolchain['name']), str(toolchain['version']))
        self.templates = self._base_templates()
        self.dependencies = self._deps('dependencies')
        self.builddependencies = self._deps('builddependencies')
        for dep in self.dependencies + self.builddependencies:
            self._dep_templates(dep[0], dep[1])
        suffix = env.get('versionsuffix', '')
        self.versionsuffix = self.resolve(suffix) if isinstance(suffix, str) else ''
        self.templates['versionsuffix'] = self.versionsuffix
        self.dependencies = [(n, v, self.resolve(s)) for n, v, s in self.dependencies]
        self.builddependencies = [(n, v, self.resolve(s)) for n, v, s in self.builddependencies]
        self.exts = []  # (PEP 503 name, version)
        for ext in env.get('exts_list', []) if isinstance(env.get('exts_list'), list) else []:
            if isinstance(ext, str):
                ext = (ext, self.version)
            if isinstance(ext, tuple) and len(ext) >= 2 and isinstance(ext[0], str) and \
                    isinstance(ext[1], str):
                self.exts.append((normalize(self.resolve(ext[0])), self.resolve(ext[1])))

    def _base_templates(self):
        parts = _version_parts(self.version)
        values = {'name': self.name, 'namelower': self.name.lower(),
                  'nameletter': self.name[0].lower(), 'version': self.version}
        if parts:
            values['version_major'] = parts[0]
        if len(parts) > 1:
            values['version_minor'] = parts[1]
            values['version_major_minor'] = '.'.join(parts[:2])
        if self.toolchain:
            values['toolchain_name'], values['toolchain_version'] = self.toolchain
        return values

    def _dep_templates(self, name, version):
        prefix = {'CUDA': 'cuda', 'CUDAcore': 'cuda', 'Python': 'py', 'Java': 'java',
                  'Perl': 'perl', 'R': 'r'}.get(name)
        if not prefix or f'{prefix}ver' in self.templates:
            return
        parts = _version_parts(version)
        self.templates[f'{prefix}ver'] = version
        if parts:
            self.templates[f'{prefix}majver'] = parts[0]
        if len(parts) > 1:
            self.templates[f'{prefix}minver'] = parts[1]
            self.templates[f'{prefix}shortver'] = '.'.join(parts[:2])

    def _deps(self, field):
        out = []
        deps = self.env.get(field, [])
        for dep in deps if isinstance(deps, list) else []:
            if isinstance(dep, tuple) and len(dep) >= 2 and isinstance(dep[0], str) and \
                    isinstance(dep[1], str):
                suffix = dep[2] if len(dep) > 2 and isinstance(dep[2], str) else ''
                out.append((dep[0], self.resolve(dep[1]), suffix))
        return out

    def resolve(self, value):
        return TEMPLATE.sub(lambda m: str(self.templates.get(m.group(1), m.group(0))), value)

    @property
    def module(self):
        if '?' in (self.name, self.version) or TEMPLATE.search(self.versionsuffix):
            raise Failure(f'{self.path}: cannot read its name, version or versionsuffix')
        toolchain = f'-{self.toolchain[0]}-{self.toolchain[1]}' if self.toolchain else ''
        return f'{self.name}/{self.version}{toolchain}{self.versionsuffix}'

    def depends_on(self, name, version):
        return any(n == name and v == version
                   for n, v, _ in self.dependencies + self.builddependencies)

    def ext_version(self, package):
        for name, version in self.exts:
            if name == package:
                return version
        return None


def normalize(name):
    """PEP 503: lower case, runs of -_. as one -."""
    return re.sub(r'[-_.]+', '-', name).lower()


def version_key(version):
    return [(0, int(p), '') if p.isdigit() else (1, 0, p) for p in re.split(r'[.-]', version)]


def generation_key(name):
    match = re.fullmatch(r'(\d{4})(?:([ab])|\.(\d+))', name)
    if not match:
        return (9999, 0, name)
    half = {'a': 1, 'b': 2}.get(match.group(2)) or int(match.group(3))
    return (int(match.group(1)), half, name)


# --- One generation -----------------------------------------------------------------


class Generation:
    """The facts of toolchain generation `name` in `tree`."""

    def __init__(self, tree, name):
        self.tree = tree
        self.name = name
        foss = f'f/foss/foss-{name}.eb'
        if not tree.exists(foss):
            raise Failure(f'no {foss} in {tree.description}: '
                          f'{name} is not a toolchain generation there')
        gcc = [v for n, v, _ in tree.easyconfig(foss).dependencies if n == 'GCC']
        if not gcc:
            raise Failure(f'{foss}: no GCC dependency, so no GCC version for {name}')
        self.gcc = gcc[0]
        self.labels = [f'foss-{name}', f'gfbf-{name}', f'gompi-{name}', f'GCC-{self.gcc}',
                       f'GCCcore-{self.gcc}']

    # The CUDA versions are counted when first asked for: `--section rocm` reads no CUDA
    # easyconfig, so they are not among its inputs.
    @functools.cached_property
    def _cuda_scan(self):
        """({CUDA version: count}, {CUDA version: member paths}) of the -CUDA-X members."""
        counts = collections.Counter()
        users = collections.defaultdict(list)
        for path in self.members():
            match = re.match(r'-CUDA-(\d+(?:\.\d+)*)(?:-|$)', self.member_suffix(path))
            if match:
                counts[match.group(1)] += 1
                users[match.group(1)].append(path)
                self.tree.inputs.add(path)
        return counts, users

    @property
    def cuda_counts(self):
        return self._cuda_scan[0]

    @property
    def cuda(self):
        """The main CUDA: the most used (ties: the newer), or None."""
        ranked = self._ranked_cuda()
        return ranked[0] if ranked else None

    @property
    def cuda_other(self):
        return sorted(self._ranked_cuda()[1:], key=version_key)

    def _ranked_cuda(self):
        return [v for v, _ in sorted(self.cuda_counts.items(),
                                     key=lambda kv: (kv[1], version_key(kv[0])), reverse=True)]

    # Easyconfigs of the generation: `<name>-<version>-<tc>-<tcver>[<suffix>].eb`.
    def member_suffix(self, path):
        """The versionsuffix part of a member's file name ('' for none), else None."""
        stem = path.rsplit('/', 1)[-1][:-3]
        for label in self.labels:
            at = stem.find(f'-{label}')
            while at >= 0:
                rest = stem[at + len(label) + 1:]
                if rest == '' or rest.startswith('-'):
                    return rest
                at = stem.find(f'-{label}', at + 1)
        return None

    def members(self, software=None):
        paths = self.tree.by_dir.get(software, []) if software else self.tree.paths
        return [p for p in paths if self.member_suffix(p) is not None]

    def users(self, ec, cuda=None):
        """Member easyconfigs that depend on `ec` (among those of `cuda` if given)."""
        paths = self._cuda_scan[1].get(cuda, []) if cuda else self.members()
        return [p for p in paths
                if p != ec.path and self.tree.easyconfig(p).depends_on(ec.name, ec.version)]

    def python(self):
        found = []
        for path in self.tree.by_dir.get('Python', []):
            stem = path.rsplit('/', 1)[-1][:-3]
            if stem.endswith(f'-GCCcore-{self.gcc}') and '-bare' not in stem:
                found.append(self.tree.easyconfig(path))
        if not found:
            raise Failure(f'no p/Python/Python-*-GCCcore-{self.gcc}.eb in '
                          f'{self.tree.description}')
        return max(found, key=lambda ec: version_key(ec.version))

    def cuda_library_modules(self, software, cuda):
        """`<software>-<v>-CUDA-<cuda>.eb` on SYSTEM, or on one of the generation's toolchains."""
        out = []
        for path in self.tree.by_dir.get(software, []):
            stem = path.rsplit('/', 1)[-1][:-3]
            tail = f'-CUDA-{cuda}'
            member = self.member_suffix(path) is not None
            if not stem.endswith(tail) or not member and '-' in stem[len(software) + 1:-len(tail)]:
                continue  # another CUDA, or another generation's toolchain
            ec = self.tree.easyconfig(path)
            if ec.versionsuffix == tail and (ec.toolchain is not None) == member:
                out.append(ec)
        return out

    def rocm_compilers(self):
        """The rocm-compilers easyconfig built on this GCCcore (the ROCm stack), or None."""
        for path in self.tree.by_dir.get('rocm-compilers', []):
            ec = self.tree.easyconfig(path)
            if ec.depends_on('GCCcore', self.gcc):
                return ec
        return None

    def rocm(self):
        """(rocm-compilers easyconfig, rompi easyconfigs) of this GCCcore, or None."""
        ec = self.rocm_compilers()
        if ec is None:
            return None
        full = f'{ec.version}{ec.versionsuffix}'
        rompi = [self.tree.easyconfig(p) for p in self.tree.by_dir.get('rompi', [])]
        return ec, [r for r in rompi if r.depends_on('rocm-compilers', full)]


class RocmStack:
    """A generation's ROCm stack: rocm-compilers-<llvm>-ROCm-<v> on the generation's GCCcore."""

    def __init__(self, gen, compilers):
        self.gen = gen
        self.tree = gen.tree
        self.gcc = gen.gcc
        self.compilers = compilers
        self.full = f'{compilers.version}{compilers.versionsuffix}'  # 19.0.0-ROCm-6.4.1
        match = re.fullmatch(r'-ROCm-(\d+(?:\.\d+)*)', compilers.versionsuffix)
        if not match:
            raise Failure(f'{compilers.path}: no ROCm version in its versionsuffix '
                          f'{compilers.versionsuffix!r}')
        self.version = match.group(1)

    def built(self, software):
        """The easyconfigs of `software` built for this stack's ROCm: on the toolchain
        rocm-compilers-<llvm>-ROCm-<v>, or on GCCcore-<gcc> with a versionsuffix -ROCm-<v>;
        newest first."""
        on_compilers = f'-rocm-compilers-{self.full}'
        on_core = f'-GCCcore-{self.gcc}-ROCm-{self.version}'
        suffix = re.compile(rf'-ROCm-{re.escape(self.version)}(?:-|$)')
        found = []
        for path in self.tree.by_dir.get(software, []):
            stem = path.rsplit('/', 1)[-1][:-3]
            if not any(re.search(re.escape(tail) + '(?:-|$)', stem)
                       for tail in (on_compilers, on_core)):
                continue
            ec = self.tree.easyconfig(path)
            if ec.toolchain == ('rocm-compilers', self.full) or \
                    ec.toolchain == ('GCCcore', self.gcc) and suffix.match(ec.versionsuffix):
                found.append(ec)
        return sorted(found, key=lambda ec: (version_key(ec.version), ec.path), reverse=True)

    @functools.cached_property
    def llvm(self):
        """The ROCm-LLVM easyconfig that rocm-compilers depends on, or None."""
        for name, version, suffix in self.compilers.dependencies:
            if name == 'ROCm-LLVM':
                path = f'r/ROCm-LLVM/ROCm-LLVM-{version}-GCCcore-{self.gcc}{suffix}.eb'
                return self.tree.easyconfig(path) if self.tree.exists(path) else None
        return None

    def os_providers(self, software):
        """[(easyconfig, why)] for an OS library's software: the GCCcore of rocm-compilers, or
        the <software>-<v>-GCCcore-<gcc> that the stack's ROCm-LLVM and HIP depend on."""
        if software == 'GCCcore':
            path = f'g/GCCcore/GCCcore-{self.gcc}.eb'
            if not self.tree.exists(path):
                return []
            return [(self.tree.easyconfig(path), f'dependency of {self.compilers.name}')]
        dependents = collections.defaultdict(list)
        for ec in ([self.llvm] if self.llvm else []) + self.built('HIP'):
            for name, version, suffix in ec.dependencies:
                if name == software and ec.name not in dependents[(version, suffix)]:
                    dependents[(version, suffix)].append(ec.name)
        found = []
        for (version, suffix), names in dependents.items():
            path = f'{software[0].lower()}/{software}/{software}-{version}-GCCcore-{self.gcc}' \
                   f'{suffix}.eb'
            if self.tree.exists(path):
                found.append((self.tree.easyconfig(path), 'dependency of ' + ', '.join(names)))
        return found


# --- Writing ------------------------------------------------------------------------


def q(value):
    return "'" + str(value).replace("'", "''") + "'"


def qlist(values):
    return '[' + ', '.join(q(v) for v in values) + ']'


def line(code, comment=None, column=0):
    if comment is None:
        return code
    return code.ljust(max(column, len(code) + 3)) + '# ' + comment


def flow(fields):
    return '{' + ', '.join(f'{k}: {v}' for k, v in fields) + '}'


def toolchain_elements(ec):
    """(compiler, mpi or None, what the comment names) of toolchain easyconfig `ec`.

    compiler and mpi are '<name>/<full version>' (versionprefix + version + versionsuffix), the
    elements HierarchicalMNS puts in a module's subdirectory (MPI/<compiler>/<mpi> or
    Compiler/<compiler>); the comment names those taken from a dependency ('GCC 13.3.0').
    """
    if ec.name not in TOOLCHAIN_ELEMENTS:
        raise Failure(f'{ec.path}: no compiler and MPI known for toolchain {ec.name}')
    found, named = [], []
    for kind, element in zip(('compiler', 'MPI'), TOOLCHAIN_ELEMENTS[ec.name]):
        if element is None:
            found.append(None)
            continue
        versions = [v + s for n, v, s in ec.dependencies if n == element]
        if versions:
            version = versions[0]
            named.append(f'{element} {version}')
        elif ec.name == element:  # a compiler-only toolchain is its own compiler
            prefix = ec.env.get('versionprefix', '')
            version = (prefix if isinstance(prefix, str) else '?') + ec.version + ec.versionsuffix
        else:
            raise Failure(f'{ec.path}: no {element} dependency, so no {kind} of toolchain '
                          f'{ec.name} for HierarchicalMNS')
        if '?' in version or TEMPLATE.search(version):
            raise Failure(f'{ec.path}: cannot read the version of its {kind} {element}')
        found.append(f'{element}/{version}')
    return found[0], found[1], named


def toolchain_lines(entries, indent):
    """The lines of `entries` [(label, toolchain easyconfig)], comments aligned."""
    rows = []
    for label, ec in entries:
        compiler, mpi, named = toolchain_elements(ec)
        fields = [('name', ec.name), ('version', q(label[len(ec.name) + 1:])),
                  ('compiler', q(compiler))] + ([('mpi', q(mpi))] if mpi else [])
        comment = ec.path + (f" ({', '.join(named)})" if named else '')
        rows.append((f'{indent}{label}: {flow(fields)}', comment))
    column = max([61] + [len(code) + 3 for code, _ in rows])
    return [line(code, comment, column) for code, comment in rows]


def toolchains_block(gen):
    tree = gen.tree
    out = [f"  {q(gen.name)}:"]
    core = f'g/GCCcore/GCCcore-{gen.gcc}.eb'
    out.append(line(f"    gcccore: {q(gen.gcc)}",
                    core if tree.exists(core) else f'GCC of f/foss/foss-{gen.name}.eb', 61))
    out.append('    toolchains:')
    entries = []
    for label, path in [(f'foss-{gen.name}', f'f/foss/foss-{gen.name}.eb'),
                        (f'gfbf-{gen.name}', f'g/gfbf/gfbf-{gen.name}.eb'),
                        (f'gompi-{gen.name}', f'g/gompi/gompi-{gen.name}.eb'),
                        (f'GCC-{gen.gcc}', f'g/GCC/GCC-{gen.gcc}.eb'),
                        (f'GCCcore-{gen.gcc}', core)]:
        if tree.exists(path):
            entries.append((label, tree.easyconfig(path)))
    out += toolchain_lines(entries, '      ')
    python = gen.python()
    fields = [('version', q(python.version)), ('module', q(python.module))]
    out.append(line(f'    python: {flow(fields)}', python.path, 61))
    if gen.cuda:
        path = f'c/CUDA/CUDA-{gen.cuda}.eb'
        where = path if tree.exists(path) else f'{path} not found'
        count = gen.cuda_counts[gen.cuda]
        fields = [('version', q(gen.cuda)), ('module', q('CUDA/' + gen.cuda))]
        out.append(line(f'    cuda: {flow(fields)}',
                        f'{where}; {count} easyconfigs *-{gen.name}-CUDA-{gen.cuda}', 61))
    else:
        out.append(line('    cuda: null', f'no easyconfig of {gen.name} has a -CUDA- suffix', 61))
    if gen.cuda_other:
        others = ', '.join(f'c/CUDA/CUDA-{v}.eb ({gen.cuda_counts[v]})' for v in gen.cuda_other)
        out.append(line(f'    cuda_other: {qlist(gen.cuda_other)}', others, 61))
    else:
        out.append(line('    cuda_other: []',
                        f'no other CUDA version has {gen.name} easyconfigs', 61))
    out += rocm_lines(gen)
    return '\n'.join(out) + '\n'


def rocm_lines(gen):
    tree = gen.tree
    found = gen.rocm()
    if not found:
        rocm_files = [p for p in gen.members() if re.search(r'-ROCm-[\d.]+$', p[:-3])]
        for path in rocm_files:
            tree.inputs.add(path)
        why = ('no ROCm stack: only ' + ', '.join(rocm_files)) if rocm_files else \
            f'no ROCm stack: no rocm-compilers on GCCcore {gen.gcc}, no -ROCm- easyconfig'
        return [line('    rocm: null', why, 61)]
    compilers, rompis = found
    full = f'{compilers.version}{compilers.versionsuffix}'
    rocm_version = compilers.versionsuffix[len('-ROCm-'):]
    llvm = [v for n, v, _ in compilers.dependencies if n == 'ROCm-LLVM']
    what = f'SYSTEM; GCCcore {gen.gcc}' + (f' + ROCm-LLVM {llvm[0]}' if llvm else '')
    out = ['    rocm:', f'      version: {q(rocm_version)}',
           line(f'      module: {q(compilers.module)}', f'{compilers.path} ({what})', 61),
           line('      toolchains:', 'optional field, see README', 61)]
    entries = [(f'rocm-compilers-{full}', compilers)]
    entries += [(f'rompi-{rompi.version}', rompi) for rompi in rompis]
    out += toolchain_lines(entries, '        ')
    modules = []
    for software in ROCM_RUNTIME:
        for path in tree.by_dir.get(software, []):
            if path.endswith(f'-rocm-compilers-{full}.eb'):
                modules.append(tree.easyconfig(path))
    core = f'-GCCcore-{gen.gcc}-ROCm-{rocm_version}.eb'
    for software in ['ROCm-LLVM', 'amdsmi']:
        modules += [tree.easyconfig(p) for p in tree.by_dir.get(software, []) if p.endswith(core)]
    out.append(line('      modules:', 'optional field, see README', 61))
    for ec in modules:
        out.append(line(f'        - {q(ec.module)}', ec.path, 61))
    return out


def python_entries(gen, python, package):
    """[(fields, comment)] of the providers of `package`, and the comment if none."""
    tree = gen.tree
    entries = []
    if package != 'cuda-bindings':
        version = python.ext_version(package)
        if version:
            entries.append(([('module', q(python.module)), ('package_version', q(version))],
                            f'{python.path} exts_list'))
        for path in gen.members('Python-bundle-PyPI') + gen.members('SciPy-bundle'):
            ec = tree.easyconfig(path)
            if not uses_python(ec, python):
                continue
            version = ec.ext_version(package)
            if version:
                entries.append(([('module', q(ec.module)), ('package_version', q(version))],
                                path))
    software = PACKAGE_SOFTWARE.get(package)
    dirs = [software] if software else [d for d in tree.by_dir if normalize(d) == package]
    standalone, without = [], []
    for directory in dirs:
        for path in gen.members(directory):
            ec = tree.easyconfig(path)
            if not uses_python(ec, python):
                continue  # e.g. a -Python-2.7.18 variant
            version = ec.ext_version(package)
            if version is None and software is None:
                version = ec.version
            if version is None:
                without.append(ec)
                continue
            standalone.append((ec, version))
    if len(standalone) > 1:
        used = {ec.path: len(gen.users(ec)) for ec, _ in standalone}
        standalone.sort(key=lambda e: (used[e[0].path], version_key(e[0].version)), reverse=True)
    for ec, version in standalone:
        fields = [('module', q(ec.module)), ('package_version', q(version))]
        cuda = re.match(r'-CUDA-(\d+(?:\.\d+)*)', ec.versionsuffix)
        if cuda:
            fields.append(('cuda', q(cuda.group(1))))
        entries.append((fields, ec.path))
    if entries:
        return entries, None
    if without:
        names = ', '.join(ec.path.rsplit('/', 1)[-1] for ec in without)
        return [], f'{names}: no {package} extension (older CUDA-Python ships it in cuda-python)'
    return [], f'no {software or package} easyconfig for this generation'


def uses_python(ec, python):
    """False when `ec` is built on another Python than the generation's."""
    return all(v == python.version for n, v, _ in ec.dependencies if n == 'Python')


def cuda_providers(gen, lib, major):
    """(provided_by, not_compatible, comment if none) for one CUDA library key."""
    tree = gen.tree
    versions = [v for v in [gen.cuda] + gen.cuda_other if v.split('.')[0] == major]
    provided, incompatible = [], []
    for cuda in versions:
        if lib.software == 'CUDA':
            path = f'c/CUDA/CUDA-{cuda}.eb'
            if not tree.exists(path):
                continue
            fields = [('module', q('CUDA/' + cuda)), ('name', 'CUDA'), ('version', q(cuda))]
            comment = path
            if lib.key == 'cuda-toolkit':
                comment += "; libcupti.so.13 through the easyblock's CUPTI symlinks in lib64"
            if header_only_nvtx(lib, cuda):
                comment += '; ' + NVTX2_REASON + ': its headers'
            provided.append((fields + [('libdir', q(lib.libdir)), ('cuda', q(cuda))], comment))
            continue
        if cuda != gen.cuda:
            continue  # only the main CUDA's libraries are listed (README, Gaps)
        found = []
        for ec in gen.cuda_library_modules(lib.software, cuda):
            users = gen.users(ec, cuda)
            found.append((ec, users))
        found.sort(key=lambda e: (len(e[1]), version_key(e[0].version)), reverse=True)
        for ec, users in found:
            fields = [('module', q(ec.module)), ('name', ec.name), ('version', q(ec.version))]
            comment = f'{ec.path}; {users_text(users)}'
            if lib.software == 'cuDNN' and ec.version.split('.')[0] != '9':
                incompatible.append((fields + [('cuda', q(cuda)), ('reason', q(CUDNN8_REASON))],
                                     comment))
            else:
                provided.append((fields + [('libdir', q(lib.libdir)), ('cuda', q(cuda))],
                                 comment))
    none = None
    if not provided and not incompatible:
        none = f"no {lib.software} module for this generation's CUDA {major}.x"
    return provided, incompatible, none


def users_text(users):
    if not users:
        return 'no user'
    names = [p.rsplit('/', 1)[-1][:-3] for p in users]
    text = f'{len(users)} user' + ('s' if len(users) > 1 else '')
    return text + (': ' + ', '.join(names) if len(names) <= 2 else '')


def dependencies_block(gen):
    python = gen.python()
    out = [f"  {q(gen.name)}:",
           line('    python:', f'GCCcore {gen.gcc}; Python {python.version}', 32)]
    for package in PYTHON_PACKAGES:
        entries, none = python_entries(gen, python, package)
        if not entries:
            out.append(line(f'      {package}: []', none))
            continue
        out.append(f'      {package}:')
        out += [line(f'        - {flow(fields)}', comment) for fields, comment in entries]
    if gen.cuda is None:
        out.append(line('    cuda: {}', f'no easyconfig of {gen.name} has a -CUDA- suffix', 32))
        out += rocm_dependency_lines(gen)
        return '\n'.join(out) + '\n'
    major = gen.cuda.split('.')[0]
    if major not in ('12', '13'):
        raise Failure(f'{gen.name}: main CUDA {gen.cuda}; only CUDA 12.x and 13.x generations '
                      'can be generated (write the cuda section by hand)')
    header = f'main CUDA {gen.cuda}'
    if gen.cuda_other:
        header += '; other CUDA versions: ' + ', '.join(gen.cuda_other)
    out.append(line('    cuda:', header, 32))
    libs = CUDA12_LIBS
    if major == '13':
        libs = CUDA13_LIBS
        out.append('      # CUDA 13 (torch cu130 wheels): the toolkit libraries are unsuffixed '
                   'packages sharing nvidia/cu13/lib')
    for lib in libs:
        provided, incompatible, none = cuda_providers(gen, lib, major)
        out.append(f'      {lib.key}:')
        out.append(line(f'        wheel_libdir: {q(lib.wheel_libdir)}', lib.libdir_src))
        if lib.aliases:
            out.append(line(f'        wheel_libdir_aliases: {qlist(lib.aliases)}',
                            CUSPARSELT_ALIAS))
        if header_only_nvtx(lib, gen.cuda):
            out.append(line('        libraries: []', NVTX_NO_LIBRARY))
        else:
            out.append(line(f'        libraries: {qlist(lib.libraries)}', lib.lib_src))
        if provided:
            out.append('        provided_by:')
            out += [line(f'          - {flow(f)}', c) for f, c in provided]
        else:
            out.append(line('        provided_by: []', none))
        if incompatible:
            out.append(line('        not_compatible:', 'optional field, see README', 53))
            out += [line(f'          - {flow(f)}', c) for f, c in incompatible]
    out += bundle_lines(gen)
    out += rocm_dependency_lines(gen)
    return '\n'.join(out) + '\n'


def bundle_lines(gen):
    bundles = [p for p in gen.members('CUDA-wheel-bundle')
               if gen.member_suffix(p).startswith(f'-CUDA-{gen.cuda}')]
    if not bundles:
        return []
    ec = gen.tree.easyconfig(bundles[-1])
    based = re.search(r'based on the requirements of ([^\n]*?)\.?\s*$', ec.text, re.M)
    what = 'dummy dist-info only' + (' (dummy_package = True)'
                                     if ec.env.get('dummy_package') is True else '')
    if based:
        what += f'; based on the requirements of {based.group(1)}'
    out = [line('    cuda_wheel_bundle:', f'optional field, see README; {ec.path}', 32),
           f'      module: {q(ec.module)}', f'      cuda: {q(gen.cuda)}',
           line('      packages:', what, 32)]
    raw = ec.env.get('exts_list', [])
    for ext in raw if isinstance(raw, list) else []:
        if isinstance(ext, tuple) and len(ext) >= 2 and isinstance(ext[1], str):
            out.append(f'        {normalize(ec.resolve(ext[0]))}: {q(ec.resolve(ext[1]))}')
    return out


def rocm_evidence(ec, lib):
    """What in `ec` shows that it installs `lib`: its sanity_check_paths file
    <libdir>/<file>, or the Bundle component that builds it; None if nothing does."""
    want = f'{lib.libdir}/{lib.file}'
    checks = ec.env.get('sanity_check_paths')
    files = checks.get('files') if isinstance(checks, dict) else None
    for entry in files if isinstance(files, list) else []:
        choices = entry if isinstance(entry, tuple) else (entry,)
        if any(isinstance(c, str) and ec.resolve(c) == want for c in choices):
            return f'sanity_check_paths {want}'
    components = ec.env.get('components')
    if lib.component and isinstance(components, list) and \
            any(isinstance(c, tuple) and c and c[0] == lib.component for c in components):
        return f'component {lib.component}'
    return None


# The section's opening comment (what the wheel bundles, the sources); `{major}`: ROCm major.
ROCM_INTRO = [
    'What the download.pytorch.org rocm{major}.x wheels bundle in torch/lib: pytorch '
    '.ci/manywheel/',
    'build_rocm.sh ROCM_SO_FILES (with librocprofiler-register >= 6.1, librocm-core >= 6.2) and',
    'OS_SO_PATHS (AlmaLinux: libgomp, libnuma, libelf, libtinfo.so.6, libdrm, libdrm_amdgpu), '
    'copied',
    'under their link names (build_common.sh fname_without_so_number: libamdhip64.so.6 -> '
    'libamdhip64.so,',
    "the DT_NEEDED of every torch library rewritten to match) with the file's own SONAME kept.",
    'Data: build_rocm.sh DEPS_AUX_DSTLIST (torch/lib/{{rocblas,hipblaslt,hipsparselt}}/library,',
    'torch/share/libdrm/amdgpu.ids, torch/share/miopen/db, torch/share/rccl/msccl-algorithms).',
]


def rocm_lib_lines(stack, lib):
    """The lines of one torch/lib file in the `rocm` section."""
    what = 'build_rocm.sh OS_SO_PATHS (AlmaLinux)' if lib.os else \
        f'the SOVERSION of the ROCm {ROCM_SERIES} library'
    out = [f'      {lib.file}:',
           line(f'        soname: {q(lib.soname)}', f'{what}; install reads the real one from '
                'both files')]
    if lib.wheel_data:
        out.append(line(f'        wheel_data: {qlist(lib.wheel_data)}', DEPS_AUX))
    if lib.os:
        found = stack.os_providers(lib.software)
    else:
        found = [(ec, None) for ec in stack.built(lib.software)]
    if not found:
        if lib.os and lib.software == 'GCCcore':
            why = f'no g/GCCcore/GCCcore-{stack.gcc}.eb'
        elif lib.os:
            why = (f'no {lib.software} easyconfig on GCCcore {stack.gcc} that the stack\'s '
                   'ROCm-LLVM or HIP depend on')
        else:
            why = f'no {lib.software} easyconfig for ROCm {stack.version}'
        return out + [line('        provided_by: []', why)]
    out.append('        provided_by:')
    for ec, why in found:
        fields = [('module', q(ec.module)), ('name', ec.name), ('version', q(ec.version)),
                  ('libdir', q(lib.libdir))]
        if not lib.os:
            fields.append(('rocm', q(stack.version)))
        if lib.data:
            fields.append(('data', qlist(lib.data)))
        notes = [n for n in (why, rocm_evidence(ec, lib)) if n]
        comment = ec.path + (f" ({'; '.join(notes)})" if notes else '')
        out.append(line(f'          - {flow(fields)}', comment))
    return out


def rocm_dependency_lines(gen):
    """The `rocm` section of eb-dependencies.yaml: none for a generation without a ROCm stack."""
    compilers = gen.rocm_compilers()
    if compilers is None:
        return []
    stack = RocmStack(gen, compilers)
    if version_key(stack.version)[:2] != version_key(ROCM_SERIES):
        raise Failure(f'{gen.name}: ROCm {stack.version}; the SONAMEs of the libraries a ROCm '
                      f'wheel bundles are known for ROCm {ROCM_SERIES} only (write the rocm '
                      'section by hand)')
    out = [line('    rocm:', f'ROCm {stack.version} (rocm-compilers-{stack.full}); '
                'optional field, see README', 32)]
    major = ROCM_SERIES.split('.')[0]
    out += ['      # ' + text.format(major=major) for text in ROCM_INTRO]
    for lib in ROCM_LIBS:
        out += rocm_lib_lines(stack, lib)
    return out


def rocm_section(gen):
    """`--section rocm`: the section's text, '' for a generation without a ROCm stack."""
    lines = rocm_dependency_lines(gen)
    return '\n'.join(lines) + '\n' if lines else ''


# --- Files --------------------------------------------------------------------------

FILES = {
    'toolchains.yaml': toolchains_block,
    'eb-dependencies.yaml': dependencies_block,
}
# `--section NAME`: one section of a generation's block, (file, maker of its text).
SECTIONS = {
    'rocm': ('eb-dependencies.yaml', rocm_section),
}
BLOCK_START = re.compile(r"  '([^']+)':\s*$")


def new_file_header(filename, source):
    what = {'toolchains.yaml': 'EasyBuild toolchain generations -> target (Python, CUDA, ROCm)',
            'eb-dependencies.yaml': 'EasyBuild modules that provide the Requires-Dist of '
                                    'PyTorch wheels'}
    return (f'# wheelmod: {what[filename]}.\n'
            f'# Generated by scripts/eb-tables.py from {source}.\n'
            '# Schema and override rules: config/README.md (use with wheelmod --config DIR).\n'
            'schema: 1\ngenerations:\n')


def place_block(text, generation, block):
    """`text` with `generation`'s block replaced by `block`, or inserted in order."""
    lines = text.splitlines(keepends=True)
    starts = [(i, m.group(1)) for i, ln in enumerate(lines)
              for m in [BLOCK_START.match(ln)] if m]
    if not any(re.match(r'generations:\s*$', ln) for ln in lines):
        raise Failure('no top-level "generations:" key')

    def content_end(index):
        """The line after the last non-blank line of the block starting at starts[index]."""
        stop = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        while stop > starts[index][0] + 1 and not lines[stop - 1].strip():
            stop -= 1
        return stop

    new = block.splitlines(keepends=True)
    for index, (start, name) in enumerate(starts):
        if name == generation:
            return ''.join(lines[:start] + new + lines[content_end(index):])
    for index, (start, name) in enumerate(starts):
        if generation_key(name) > generation_key(generation):
            return ''.join(lines[:start] + new + ['\n'] + lines[start:])
    if not starts:
        if lines and not lines[-1].endswith('\n'):
            lines[-1] += '\n'
        return ''.join(lines + new)
    end = content_end(len(starts) - 1)
    if not lines[end - 1].endswith('\n'):
        lines[end - 1] += '\n'
    return ''.join(lines[:end] + ['\n'] + new + lines[end:])


def place_section(text, generation, name, section):
    """`text` with section `name` of `generation`'s block replaced by `section` (appended to
    the block if it has none, removed if `section` is ''). The block must exist."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, ln in enumerate(lines) if BLOCK_START.match(ln)]
    ours = [i for i in starts if BLOCK_START.match(lines[i]).group(1) == generation]
    if not ours:
        raise Failure(f"no block for generation {generation}: --section {name} changes a "
                      'section of an existing block (write the whole block first)')
    start = ours[0]
    stop = min([i for i in starts if i > start] + [len(lines)])
    while stop > start + 1 and not lines[stop - 1].strip():
        stop -= 1
    begin = next((i for i in range(start + 1, stop)
                  if re.match(rf'    {re.escape(name)}:(\s|$)', lines[i])), None)
    if begin is None:
        begin = end = stop
    else:
        end = next((i for i in range(begin + 1, stop) if re.match(r'    \S', lines[i])), stop)
        while end > begin + 1 and not lines[end - 1].strip():
            end -= 1
    new = section.splitlines(keepends=True)
    if new and begin == stop and not lines[stop - 1].endswith('\n'):
        lines[stop - 1] += '\n'
    return ''.join(lines[:begin] + new + lines[end:])


def main(argv):
    parser = argparse.ArgumentParser(
        prog='eb-tables.py', description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument('--easyconfigs', metavar='DIR',
                        help='a checkout containing easybuild/easyconfigs/, or that directory')
    source.add_argument('--git-dir', metavar='DIR', help='a git directory of easybuild-easyconfigs')
    parser.add_argument('--commit', default='HEAD', help='with --git-dir (default: HEAD)')
    parser.add_argument('--generation', action='append', required=True, metavar='G',
                        help='toolchain generation, e.g. 2026.1 (repeatable)')
    parser.add_argument('--section', choices=sorted(SECTIONS),
                        help='only this section of eb-dependencies.yaml (rocm: also for a '
                             'generation whose other sections are hand-written)')
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--write', metavar='CONFIG_DIR',
                      help='write the blocks into CONFIG_DIR/{toolchains,eb-dependencies}.yaml')
    mode.add_argument('--check', metavar='CONFIG_DIR',
                      help='exit 1 with a diff when CONFIG_DIR differs from what --write makes')
    mode.add_argument('--list-inputs', action='store_true',
                      help='print the easyconfig paths the generation reads (for test excerpts)')
    args = parser.parse_args(argv)
    try:
        tree = GitTree(args.git_dir, args.commit) if args.git_dir else DirTree(args.easyconfigs)
        files = FILES
        if args.section:
            filename, make = SECTIONS[args.section]
            files = {filename: make}
        blocks = {}
        for generation in sorted(set(args.generation), key=generation_key):
            gen = Generation(tree, generation)
            for filename, make in files.items():
                blocks[(filename, generation)] = make(gen)
        if args.list_inputs:
            print('\n'.join(sorted(tree.inputs)))
            return 0
        if not (args.write or args.check):
            for (filename, generation), block in blocks.items():
                if args.section:
                    print(f'# --- {filename}, generation {generation}, section {args.section}'
                          + ('' if block else ': none'))
                    sys.stdout.write(block + '\n' if block else '')
                    continue
                print(f'# --- {filename}, generation {generation}')
                sys.stdout.write(block + '\n')
            return 0
        config = args.write or args.check
        changed = False
        for filename in files:
            path = os.path.join(config, filename)
            old = None
            if os.path.exists(path):
                with open(path, encoding='utf-8') as f:
                    old = f.read()
            text = old if old is not None else new_file_header(filename, tree.description)
            for (name, generation), block in blocks.items():
                if name == filename:
                    try:
                        if args.section:
                            text = place_section(text, generation, args.section, block)
                        else:
                            text = place_block(text, generation, block)
                    except Failure as error:
                        raise Failure(f'{path}: {error}') from None
            if text == old:
                continue
            changed = True
            if args.check:
                sys.stdout.writelines(difflib.unified_diff(
                    (old or '').splitlines(keepends=True), text.splitlines(keepends=True),
                    fromfile=path, tofile=f'{path} (generated)'))
            else:
                temp = path + '.tmp'
                with open(temp, 'w', encoding='utf-8') as f:
                    f.write(text)
                os.replace(temp, path)
                print(f'wrote {path}', file=sys.stderr)
        if args.write and not args.section:
            hint_generations(config, args.generation)
        return 1 if (changed and args.check) else 0
    except Failure as error:
        print(f'eb-tables.py: error: {error}', file=sys.stderr)
        return 2


def hint_generations(config, generations):
    """Remind the maintainer of the 'Generations covered' header lines."""
    for filename in FILES:
        path = os.path.join(config, filename)
        with open(path, encoding='utf-8') as f:
            header = ''.join(ln for ln in f if ln.startswith('#'))
        covered = re.search(r'Generations covered:([^\n]*(?:\n#  [^\n]*)*)', header)
        if covered:
            missing = [g for g in generations if g not in covered.group(1)]
            if missing:
                print(f"note: {path}: add {', '.join(missing)} to 'Generations covered'",
                      file=sys.stderr)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
