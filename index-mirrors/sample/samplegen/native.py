"""The native side of the sample: the EasyBuild software tree of CUDA
stand-in libraries, and every ELF file the wheels carry, built with gcc.

Each ELF file is one Target: a C source from src/, the libraries it links
(which become its DT_NEEDED entries, in order), its SONAME and its RPATH or
RUNPATH. Targets are built once and their bytes reused by every wheel whose
real content would be the same. The flags make the bytes depend only on the
sources and the toolchain (no build id, no paths), so every build directory
gets the same files (check_deterministic.sh).
"""

import concurrent.futures
import dataclasses
import os
import posixpath
import shutil
import subprocess

from . import catalogue, facts

ELF_MACHINES = {62: "x86_64", 183: "aarch64"}


@dataclasses.dataclass(frozen=True)
class Toolchain:
    cc: str
    arch: str  # the machine its ELF files are for


@dataclasses.dataclass(eq=False)
class Target:
    name: str  # file name in out_dir
    out_dir: str
    source: str  # relative to src/
    defines: tuple[tuple[str, str], ...]
    toolchain: Toolchain
    soname: str | None = None
    deps: tuple["Target", ...] = ()
    rpath: str | None = None
    dtags: str = "rpath"  # "rpath": DT_RPATH (--disable-new-dtags); "runpath": DT_RUNPATH
    executable: bool = False
    symlinks: tuple[tuple[str, str], ...] = ()  # (link name, relative target)
    # Byte replacements made after the build (placeholder, same-length value):
    # targets that differ only there are compiled once (VERSION_SLOT).
    patch: tuple[tuple[bytes, bytes], ...] = ()
    # A ROCm library bundled in torch/lib under its link name (torch 2.9.1): the
    # name the other libraries of the wheel record in DT_NEEDED instead of its
    # SONAME (pytorch .ci/manywheel/build_common.sh, replace_needed_sofiles).
    link_name: str | None = None
    # This file is one build_common.sh patches: its DT_NEEDED entries of the
    # libraries with a link_name are rewritten to the link name. The linker
    # writes the SONAME; the rewrite is a patch of the .dynstr string (the link
    # name is a prefix of the SONAME, NUL-padded to the same length).
    replace_needed: bool = False

    def __post_init__(self):
        if self.replace_needed:
            renames = tuple(
                (f"{dep.soname}\0".encode(), dep.link_name.encode().ljust(len(dep.soname) + 1, b"\0"))
                for dep in self.deps
                if dep.link_name and dep.soname != dep.link_name
            )
            self.patch = tuple(self.patch) + renames

    @property
    def path(self) -> str:
        return os.path.join(self.out_dir, self.name)

    @property
    def needed_name(self) -> str:
        return self.soname or self.name

    def signature(self) -> tuple:
        """Everything that decides the output bytes."""
        return (
            self.source,
            self.defines,
            self.toolchain,
            self.soname,
            tuple(dep.path for dep in self.deps),
            self.rpath,
            self.dtags,
            self.executable,
            self.symlinks,
            self.patch,
            self.link_name,
            self.replace_needed,
        )

    def content_key(self) -> tuple:
        """Everything the output bytes depend on: not the file name or the
        directories, and of the libraries it links only their NEEDED names
        (the linker records nothing else of them), so equal keys mean equal
        files (README "Determinism")."""
        return (
            self.source,
            tuple(sorted(self.defines)),
            self.toolchain,
            self.soname,
            tuple(dep.needed_name for dep in self.deps),
            self.rpath,
            self.dtags,
            self.executable,
        )

    def recorded_name(self, dep: "Target") -> str:
        """The DT_NEEDED entry this file has for dep."""
        if self.replace_needed and dep.link_name:
            return dep.link_name
        return dep.needed_name

    def expected(self) -> dict:
        """The dynamic section this target is meant to have (verify.py checks it)."""
        return {
            "soname": self.soname,
            "needed": [self.recorded_name(dep) for dep in self.deps] + ["libc.so.6"],
            "rpath": self.rpath if self.dtags == "rpath" else None,
            "runpath": self.rpath if self.dtags == "runpath" else None,
        }


def _rpath_link_dirs(target: Target) -> list[str]:
    """Every directory holding a library the link pulls in, so ld can check
    the libraries' own DT_NEEDED entries without warnings."""
    seen = []
    stack = list(target.deps)
    while stack:
        dep = stack.pop()
        if dep.out_dir not in seen:
            seen.append(dep.out_dir)
        stack.extend(dep.deps)
    return sorted(seen)


def _command(target: Target, src_dir: str) -> list[str]:
    cmd = [
        target.toolchain.cc,
        "-std=c11",
        "-O0",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-ffile-prefix-map={src_dir}=.",
        # No build id: it would hash nothing useful and is the usual source
        # of build-to-build differences.
        "-Wl,--build-id=none",
        "-Wl,--hash-style=gnu",
        "-Wl,--no-as-needed",
        "-Wl,--disable-new-dtags" if target.dtags == "rpath" else "-Wl,--enable-new-dtags",
    ]
    if target.executable:
        cmd += ["-pipe", "-fPIE"]
    else:
        cmd += ["-pipe", "-fPIC", "-shared"]
        if target.soname:
            cmd.append(f"-Wl,-soname,{target.soname}")
    cmd += [f"-D{key}={value}" for key, value in target.defines]
    if target.rpath:
        cmd.append(f"-Wl,-rpath,{target.rpath}")
    cmd += ["-o", target.path, target.source]
    for directory in sorted({dep.out_dir for dep in target.deps}):
        cmd.append(f"-L{directory}")
    cmd += [f"-Wl,-rpath-link,{directory}" for directory in _rpath_link_dirs(target)]
    cmd += [f"-l:{dep.needed_name}" for dep in target.deps]
    return cmd


class Builder:
    """Collects targets (deduplicated by output path) and builds them in
    dependency order, several gcc processes at a time."""

    def __init__(self, src_dir: str, jobs: int):
        self.src_dir = src_dir
        self.jobs = max(1, jobs)
        self.targets: dict[str, Target] = {}
        self.compiled = 0  # gcc runs; the other targets are copies of equal ones
        self.pristine: dict[tuple, bytes] = {}  # content key -> bytes before patching

    def add(self, target: Target) -> Target:
        known = self.targets.get(target.path)
        if known is not None:
            if known.signature() != target.signature():
                raise ValueError(f"two different targets for {target.path}")
            return known
        self.targets[target.path] = target
        return target

    def _build(self, target: Target, same_as: Target | None = None) -> None:
        os.makedirs(target.out_dir, exist_ok=True)
        if same_as is not None:
            pristine = self.pristine.get(target.content_key())
            if pristine is None and target.patch:
                # The first build of this content had nothing to patch: its
                # file is the pristine one.
                with open(same_as.path, "rb") as handle:
                    pristine = handle.read()
            if pristine is None:
                shutil.copyfile(same_as.path, target.path)
            else:
                self._write_patched(target, pristine)
            self._symlinks(target)
            return
        env = dict(os.environ, LC_ALL="C")
        result = subprocess.run(
            _command(target, self.src_dir), cwd=self.src_dir, env=env, capture_output=True, text=True
        )
        if result.returncode != 0 or result.stderr.strip():
            raise RuntimeError(
                f"building {target.path} failed:\n{' '.join(_command(target, self.src_dir))}\n"
                f"{result.stdout}{result.stderr}"
            )
        if target.patch:
            with open(target.path, "rb") as handle:
                pristine = handle.read()
            self.pristine[target.content_key()] = pristine
            self._write_patched(target, pristine)
        self._symlinks(target)

    @staticmethod
    def _write_patched(target: Target, data: bytes) -> None:
        for placeholder, value in target.patch:
            if data.count(placeholder) != 1 or len(value) != len(placeholder):
                raise RuntimeError(f"{target.path}: cannot patch {placeholder!r}")
            data = data.replace(placeholder, value)
        with open(target.path, "wb") as handle:
            handle.write(data)

    def _symlinks(self, target: Target) -> None:
        for link, dest in target.symlinks:
            link_path = os.path.join(target.out_dir, link)
            if os.path.lexists(link_path):
                os.remove(link_path)
            os.symlink(dest, link_path)

    def run(self) -> None:
        depth: dict[int, int] = {}

        def depth_of(target: Target) -> int:
            if id(target) not in depth:
                depth[id(target)] = 1 + max((depth_of(dep) for dep in target.deps), default=-1)
            return depth[id(target)]

        levels: dict[int, list[Target]] = {}
        for target in self.targets.values():
            levels.setdefault(depth_of(target), []).append(target)
        built: dict[tuple, Target] = {}
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            for level in sorted(levels):
                # One gcc run per distinct content; equal targets are copies.
                first = []
                for target in levels[level]:
                    if target.content_key() not in built:
                        built[target.content_key()] = target
                        first.append(target)
                list(pool.map(self._build, first))
                self.compiled += len(first)
                copies = [t for t in levels[level] if built[t.content_key()] is not t]
                list(pool.map(lambda t: self._build(t, built[t.content_key()]), copies))


def elf_machine(data: bytes) -> str:
    return ELF_MACHINES.get(int.from_bytes(data[18:20], "little"), "unknown")


# -- the EasyBuild software tree ---------------------------------------------
#
# One sample module set per toolchain generation, as easybuild-easyconfigs
# develop has them (e.g. c/cuDNN/cuDNN-9.5.0.50-CUDA-12.6.0.eb; the paths of
# all are in config/eb-dependencies.yaml): 2024a has CUDA 12.6.0, cuDNN
# 9.5.0.50, NCCL 2.22.3 (GCCcore 13.3.0) and cuSPARSELt 0.6.3.2; 2023b has
# CUDA 12.4.0, cuDNN 9.0.0.312 and NCCL 2.20.5 (GCCcore 13.2.0) and no
# cuSPARSELt. File version suffixes are those of the
# CUDA 12.x.0 GA components; only the SONAMEs matter to the loader.


@dataclasses.dataclass(frozen=True)
class EbLibrary:
    module: str  # EasyBuild module name, also its directory under software/
    libdir: str
    stem: str  # libcudart.so.12 -> "cudart"
    soname: str
    real_version: str  # the regular file is lib<stem>.so.<real_version>
    macro: str  # SAMPLE_LIB_<macro> in src/eb/cuda_libs.c
    api_version: int  # what the library's version function reports
    needs: tuple[str, ...] = ()  # SONAMEs of the same module set it links

    @property
    def real_name(self) -> str:
        return f"lib{self.stem}.so.{self.real_version}"


def _cuda_module(cuda, versions):
    """The CUDA toolkit libraries of one CUDA module (lib64 and CUPTI)."""
    module = f"CUDA/{cuda}"
    v = versions
    major_minor = int(cuda.split(".")[0]) * 1000 + int(cuda.split(".")[1]) * 10
    return [
        EbLibrary(module, "lib64", "cudart", "libcudart.so.12", v["cudart"], "CUDART", major_minor),
        EbLibrary(module, "lib64", "cublasLt", "libcublasLt.so.12", v["cublas"], "CUBLASLT", v["cublas_api"]),
        EbLibrary(
            module, "lib64", "cublas", "libcublas.so.12", v["cublas"], "CUBLAS", v["cublas_api"], ("libcublasLt.so.12",)
        ),
        EbLibrary(module, "lib64", "cufft", "libcufft.so.11", v["cufft"], "CUFFT", v["cufft_api"]),
        EbLibrary(module, "lib64", "curand", "libcurand.so.10", v["curand"], "CURAND", v["curand_api"]),
        EbLibrary(module, "lib64", "nvJitLink", "libnvJitLink.so.12", v["nvjitlink"], "NVJITLINK", major_minor),
        EbLibrary(
            module,
            "lib64",
            "cusparse",
            "libcusparse.so.12",
            v["cusparse"],
            "CUSPARSE",
            v["cusparse_api"],
            ("libnvJitLink.so.12",),
        ),
        EbLibrary(
            module,
            "lib64",
            "cusolver",
            "libcusolver.so.11",
            v["cusolver"],
            "CUSOLVER",
            v["cusolver_api"],
            ("libcublas.so.12", "libcublasLt.so.12", "libcusparse.so.12", "libnvJitLink.so.12"),
        ),
        EbLibrary(module, "lib64", "nvrtc", "libnvrtc.so.12", v["nvrtc"], "NVRTC", major_minor),
        EbLibrary(module, "lib64", "nvToolsExt", "libnvToolsExt.so.1", "1.0.0", "NVTX", 1),
        EbLibrary(module, "extras/CUPTI/lib64", "cupti", "libcupti.so.12", v["cupti"], "CUPTI", v["cupti_api"]),
    ]


def _cuda_module_2025(cuda, versions):
    """CUDA 12.9's toolkit libraries: no libnvToolsExt any more (pytorch
    .ci/manywheel/build_cuda.sh bundles it only below 12.9), and cuFile's
    libcufile.so.0 (GPUDirect Storage, part of the toolkit's lib64)."""
    libraries = [lib for lib in _cuda_module(cuda, versions) if lib.stem != "nvToolsExt"]
    libraries.insert(
        -1,
        EbLibrary(
            f"CUDA/{cuda}", "lib64", "cufile", "libcufile.so.0", versions["cufile"], "CUFILE",
            versions["cufile_api"],
        ),
    )
    return libraries


EB_MODULE_SETS = {
    "12.6.0": _cuda_module(
        "12.6.0",
        {
            "cudart": "12.6.37",
            "cublas": "12.6.0.22",
            "cublas_api": 120600,
            "cufft": "11.2.6.28",
            "cufft_api": 11206,
            "curand": "10.3.7.37",
            "curand_api": 10307,
            "nvjitlink": "12.6.20",
            "cusparse": "12.5.2.23",
            "cusparse_api": 12502,
            "cusolver": "11.6.4.38",
            "cusolver_api": 11604,
            "nvrtc": "12.6.20",
            "cupti": "2024.3.0",
            "cupti_api": 24,
        },
    )
    + [
        EbLibrary("cuDNN/9.5.0.50-CUDA-12.6.0", "lib", "cudnn", "libcudnn.so.9", "9.5.0", "CUDNN", 90500),
        EbLibrary("NCCL/2.22.3-GCCcore-13.3.0-CUDA-12.6.0", "lib", "nccl", "libnccl.so.2", "2.22.3", "NCCL", 22203),
        EbLibrary(
            "cuSPARSELt/0.6.3.2-CUDA-12.6.0", "lib", "cusparseLt", "libcusparseLt.so.0", "0.6.3.2", "CUSPARSELT", 603
        ),
    ],
    "12.4.0": _cuda_module(
        "12.4.0",
        {
            "cudart": "12.4.99",
            "cublas": "12.4.2.65",
            "cublas_api": 120402,
            "cufft": "11.2.0.44",
            "cufft_api": 11200,
            "curand": "10.3.5.119",
            "curand_api": 10305,
            "nvjitlink": "12.4.99",
            "cusparse": "12.3.0.142",
            "cusparse_api": 12300,
            "cusolver": "11.6.0.99",
            "cusolver_api": 11600,
            "nvrtc": "12.4.99",
            "cupti": "2024.1.0",
            "cupti_api": 22,
        },
    )
    + [
        EbLibrary("cuDNN/9.0.0.312-CUDA-12.4.0", "lib", "cudnn", "libcudnn.so.9", "9.0.0", "CUDNN", 90000),
        EbLibrary("NCCL/2.20.5-GCCcore-13.2.0-CUDA-12.4.0", "lib", "nccl", "libnccl.so.2", "2.20.5", "NCCL", 22005),
    ],
    # 2025b (easybuild-easyconfigs develop@9ba1c10: c/CUDA/CUDA-12.9.1.eb,
    # c/cuDNN/cuDNN-9.15.0.57-CUDA-12.9.1.eb, n/NCCL/NCCL-2.27.7-GCCcore-14.3.0-
    # CUDA-12.9.1.eb, c/cuSPARSELt/cuSPARSELt-0.8.0.4-CUDA-12.9.1.eb,
    # n/NVSHMEM/NVSHMEM-3.3.20-gompi-2025b-CUDA-12.9.1.eb). Component file
    # versions: the CUDA 12.9 wheels the 2.10-cycle matrix pins (catalogue).
    "12.9.1": _cuda_module_2025(
        "12.9.1",
        {
            "cudart": "12.9.79",
            "cublas": "12.9.1.4",
            "cublas_api": 120901,
            "cufft": "11.4.1.4",
            "cufft_api": 11401,
            "curand": "10.3.10.19",
            "curand_api": 10310,
            "nvjitlink": "12.9.86",
            "cusparse": "12.5.10.65",
            "cusparse_api": 12510,
            "cusolver": "11.7.5.82",
            "cusolver_api": 11705,
            "nvrtc": "12.9.86",
            "cupti": "2025.2.1",
            "cupti_api": 28,
            "cufile": "1.14.1",
            "cufile_api": 1140,
        },
    )
    + [
        EbLibrary(
            "cuDNN/9.15.0.57-CUDA-12.9.1", "lib", "cudnn", "libcudnn.so.9", "9.15.0", "CUDNN", 91500
        ),
        EbLibrary(
            "NCCL/2.27.7-GCCcore-14.3.0-CUDA-12.9.1", "lib", "nccl", "libnccl.so.2", "2.27.7",
            "NCCL", 22707,
        ),
        EbLibrary(
            "cuSPARSELt/0.8.0.4-CUDA-12.9.1", "lib", "cusparseLt", "libcusparseLt.so.0", "0.8.0.4",
            "CUSPARSELT", 800,
        ),
        EbLibrary(
            "NVSHMEM/3.3.20-gompi-2025b-CUDA-12.9.1", "lib", "nvshmem_host", "libnvshmem_host.so.3",
            "3.3.20", "NVSHMEM", 3030,
        ),
    ],
}


# -- the 2026.1 CUDA 13 modules ------------------------------------------------
#
# Module names of easybuild-easyconfigs develop@9ba1c10 (c/CUDA/CUDA-13.3.0.eb,
# c/cuDNN/cuDNN-9.23.0.39-CUDA-13.3.0.eb, n/NCCL/NCCL-2.30.4-GCCcore-15.2.0-
# CUDA-13.3.0.eb, c/cuSPARSELt/cuSPARSELt-0.9.1.1-CUDA-13.3.0.eb); NVSHMEM for
# CUDA 13 is not in upstream: a site's own module. The libraries are the real
# ones of the machine's CUDA 13 tree (CUDA 13.0 wheels, cuDNN 9.19, NCCL
# 2.28.9), laid out by symlink; what the tree lacks (cuFile, cuSPARSELt,
# NVSHMEM) is a stand-in with the real SONAME. Without the tree, every one is
# a stand-in answering what the real library answers on the project's
# machines (cudaRuntimeGetVersion 13000, cudnnGetVersion 91900, ...).
CUDA13_EB = "13.3.0"


@dataclasses.dataclass(frozen=True)
class Cuda13Library:
    module: str
    libdir: str
    stem: str
    soname: str
    real_version: str  # the stand-in's file: lib<stem>.so.<real_version>
    macro: str
    api_version: int
    needs: tuple[str, ...] = ()
    in_tree: bool = True  # the tree has lib/<soname>
    also: tuple[str, ...] = ()  # further real files of the module (cuDNN's sub-libraries)

    @property
    def real_name(self) -> str:
        return f"lib{self.stem}.so.{self.real_version}"


_C13 = f"CUDA/{CUDA13_EB}"
CUDA13_LIBRARIES = (
    Cuda13Library(_C13, "lib64", "cudart", "libcudart.so.13", "13.0.96", "CUDART", 13000),
    Cuda13Library(_C13, "lib64", "cublasLt", "libcublasLt.so.13", "13.1.0.3", "CUBLASLT", 130100),
    Cuda13Library(
        _C13, "lib64", "cublas", "libcublas.so.13", "13.1.0.3", "CUBLAS", 130100,
        ("libcublasLt.so.13",),
    ),
    Cuda13Library(_C13, "lib64", "cufft", "libcufft.so.12", "12.0.0.61", "CUFFT", 12000),
    Cuda13Library(_C13, "lib64", "curand", "libcurand.so.10", "10.4.0.35", "CURAND", 10400),
    Cuda13Library(_C13, "lib64", "nvJitLink", "libnvJitLink.so.13", "13.0.88", "NVJITLINK", 13000),
    Cuda13Library(
        _C13, "lib64", "cusparse", "libcusparse.so.12", "12.6.3.3", "CUSPARSE", 12603,
        ("libnvJitLink.so.13",),
    ),
    Cuda13Library(
        _C13, "lib64", "cusolver", "libcusolver.so.12", "12.0.4.66", "CUSOLVER", 12004,
        ("libnvJitLink.so.13", "libcusparse.so.12", "libcublas.so.13", "libcublasLt.so.13"),
    ),
    Cuda13Library(
        _C13, "lib64", "nvrtc", "libnvrtc.so.13", "13.0.88", "NVRTC", 13000,
        also=("libnvrtc-builtins.so.13.0",),
    ),
    Cuda13Library(
        _C13, "lib64", "cufile", "libcufile.so.0", "1.15.1", "CUFILE", 1150, in_tree=False
    ),
    Cuda13Library(
        _C13, "extras/CUPTI/lib64", "cupti", "libcupti.so.13", "2025.3.1", "CUPTI", 130001
    ),
    Cuda13Library(
        f"cuDNN/9.23.0.39-CUDA-{CUDA13_EB}", "lib", "cudnn", "libcudnn.so.9", "9.19.0", "CUDNN",
        91900,
        also=tuple(
            f"libcudnn_{part}.so.9"
            for part in (
                "adv", "cnn", "engines_precompiled", "engines_runtime_compiled", "graph",
                "heuristic", "ops",
            )
        ),
    ),
    Cuda13Library(
        f"NCCL/2.30.4-GCCcore-15.2.0-CUDA-{CUDA13_EB}", "lib", "nccl", "libnccl.so.2", "2.28.9",
        "NCCL", 22809,
    ),
    Cuda13Library(
        f"cuSPARSELt/0.9.1.1-CUDA-{CUDA13_EB}", "lib", "cusparseLt", "libcusparseLt.so.0",
        "0.9.1.1", "CUSPARSELT", 901, in_tree=False,
    ),
    Cuda13Library(
        f"NVSHMEM/3.4.5-gompi-2026.1-CUDA-{CUDA13_EB}", "lib", "nvshmem_host",
        "libnvshmem_host.so.3", "3.4.5", "NVSHMEM", 3040, in_tree=False,
    ),
)


def _cuda13_target(builder, toolchain, out_dir, lib, by_soname, name=None, symlinks=()):
    return builder.add(
        Target(
            name=name or lib.soname,
            out_dir=out_dir,
            source="eb/cuda_libs.c",
            defines=(
                (f"SAMPLE_LIB_{lib.macro}", "1"),
                ("SAMPLE_API_VERSION", str(lib.api_version)),
                ("SAMPLE_CUDA13", "1"),
            ),
            toolchain=toolchain,
            soname=lib.soname,
            deps=tuple(by_soname[s] for s in lib.needs),
            symlinks=tuple(symlinks),
        )
    )


def cuda13_stubs(builder, toolchain, work) -> dict[str, Target]:
    """Link-time stand-ins for every CUDA 13 library torch links (same
    SONAMEs and symbols), so the wheels' bytes never depend on the tree.
    Not shipped."""
    out_dir = os.path.join(work, toolchain.arch, "cuda13-stubs")
    by_soname: dict[str, Target] = {}
    for lib in CUDA13_LIBRARIES:
        by_soname[lib.soname] = _cuda13_target(builder, toolchain, out_dir, lib, by_soname)
    return by_soname


@dataclasses.dataclass
class ModuleLibrary:
    """One library of a CUDA 13 module: a symlink to the tree's real file,
    or a built stand-in."""

    lib: Cuda13Library
    directory: str  # software/<module>/<libdir>, relative to the tree root
    target: "Target | None"  # the stand-in, or None for a real library
    real_path: str | None  # what the SONAME link points at (absolute)
    extra: tuple[tuple[str, str], ...] = ()  # further real files: (name, absolute target)


def cuda13_modules(builder, toolchain, root, tree) -> list[ModuleLibrary]:
    """The 2026.1 module set under root (software/): real libraries by
    symlink where the tree has them, built stand-ins otherwise."""
    out = []
    by_soname: dict[str, Target] = {}
    for lib in CUDA13_LIBRARIES:
        directory = os.path.join(lib.module, lib.libdir)
        if tree is not None and lib.in_tree:
            extra = tuple((name, tree.lib(name)) for name in lib.also)
            out.append(ModuleLibrary(lib, directory, None, tree.lib(lib.soname), extra))
            continue
        symlinks = [(f"lib{lib.stem}.so", lib.soname), (lib.soname, lib.real_name)]
        out_dir = os.path.join(root, directory)
        target = _cuda13_target(
            builder, toolchain, out_dir, lib, by_soname, lib.real_name, symlinks
        )
        by_soname[lib.soname] = target
        out.append(ModuleLibrary(lib, directory, target, None))
    return out


# XPU: the SYCL runtime the torch XPU libraries link (from the intel-sycl-rt
# wheel in reality, which the sample does not serve). Link-time only.
def xpu_stubs(builder, toolchain, work) -> dict[str, Target]:
    target = builder.add(
        Target(
            name="libsycl.so.8",
            out_dir=os.path.join(work, toolchain.arch, "xpu-stubs"),
            source="xpu/sycl.c",
            defines=(),
            toolchain=toolchain,
            soname="libsycl.so.8",
        )
    )
    return {"libsycl.so.8": target}


def eb_targets(builder: Builder, toolchain: Toolchain, root: str) -> dict[str, dict[str, Target]]:
    """Adds the software tree's libraries under root; returns, per CUDA
    version, SONAME -> Target."""
    out = {}
    for cuda, libraries in EB_MODULE_SETS.items():
        by_soname: dict[str, Target] = {}
        for lib in libraries:
            symlinks = [(f"lib{lib.stem}.so", lib.soname)]
            if lib.soname != lib.real_name:
                symlinks.append((lib.soname, lib.real_name))
            by_soname[lib.soname] = builder.add(
                Target(
                    name=lib.real_name,
                    out_dir=os.path.join(root, lib.module, lib.libdir),
                    source="eb/cuda_libs.c",
                    defines=((f"SAMPLE_LIB_{lib.macro}", "1"), ("SAMPLE_API_VERSION", str(lib.api_version))),
                    toolchain=toolchain,
                    soname=lib.soname,
                    deps=tuple(by_soname[s] for s in lib.needs),
                    symlinks=tuple(symlinks),
                )
            )
        out[cuda] = by_soname
    # cu124 torch links libcusparseLt.so.0 although 2023b has no cuSPARSELt
    # module: link against 2024a's copy (only the SONAME is recorded).
    out["12.4.0"].setdefault("libcusparseLt.so.0", out["12.6.0"]["libcusparseLt.so.0"])
    return out


# -- what the wheels carry ---------------------------------------------------

# DT_RPATH of the CUDA wheels' torch/lib/*.so, from pytorch
# .ci/manywheel/build_cuda.sh. The 2.6 list gained '$ORIGIN/../../cusparselt/lib'
# with pytorch#138547 (merged 2024-11-05, after 2.5.1): without nvidia/, as
# the cu12 cuSPARSELt wheels install a top-level cusparselt/ package.
CUDA_RPATHS_2_5 = tuple(
    f"$ORIGIN/../../nvidia/{d}/lib"
    for d in (
        "cublas",
        "cuda_cupti",
        "cuda_nvrtc",
        "cuda_runtime",
        "cudnn",
        "cufft",
        "curand",
        "cusolver",
        "cusparse",
        "nccl",
        "nvtx",
    )
)
CUDA_RPATHS_2_6 = CUDA_RPATHS_2_5[:9] + ("$ORIGIN/../../cusparselt/lib",) + CUDA_RPATHS_2_5[9:]

# torch_cuda's CUDA libraries, in link order.
TORCH_CUDA_LIBS = (
    "libcudart.so.12",
    "libcublas.so.12",
    "libcublasLt.so.12",
    "libcudnn.so.9",
    "libnccl.so.2",
    "libcufft.so.11",
    "libcurand.so.10",
    "libcusparse.so.12",
    "libcusolver.so.11",
    "libnvrtc.so.12",
    "libcusparseLt.so.0",
    "libnvToolsExt.so.1",
    "libcupti.so.12",
)
GLOBAL_DEPS_CUDA_LIBS = (
    "libcudart.so.12",
    "libcublas.so.12",
    "libcublasLt.so.12",
    "libcudnn.so.9",
    "libcufft.so.11",
    "libcurand.so.10",
    "libcusparse.so.12",
    "libnvToolsExt.so.1",
)
# The 2026 generation (pytorch .ci/manywheel/build_cuda.sh at 799d09f2, the
# "Using nvidia libs from pypi" branch): the list starts with cudnn,
# nvshmem, nccl and cusparselt; CUDA 13 adds only nvidia/cu13/lib (every
# CUDA 13 wheel but cuDNN, NCCL, NVSHMEM and cuSPARSELt installs there), CUDA
# 12 the per-component directories, the cu12 cuSPARSELt's top-level one,
# nvtx and cufile. A readelf of a real 2.13.0+cu130 libtorch_cuda.so
# shows this list + ":$ORIGIN" (pytorch-index.md §4.1).
_NV = "$ORIGIN/../../nvidia"
CUDA_RPATHS_2026_HEAD = tuple(f"{_NV}/{d}/lib" for d in ("cudnn", "nvshmem", "nccl", "cusparselt"))
CUDA_RPATHS_2026 = {
    13: CUDA_RPATHS_2026_HEAD + (f"{_NV}/cu13/lib",),
    12: CUDA_RPATHS_2026_HEAD
    + tuple(
        f"{_NV}/{d}/lib"
        for d in (
            "cublas", "cuda_cupti", "cuda_nvrtc", "cuda_runtime", "cufft", "curand", "cusolver",
            "cusparse",
        )
    )
    + ("$ORIGIN/../../cusparselt/lib", f"{_NV}/nvtx/lib", f"{_NV}/cufile/lib"),
}
# torch_cuda's CUDA libraries in 2026: no libnvToolsExt (NVTX 3 is
# header-only; CUDA 12.9 and 13 ship no libnvToolsExt), cuFile linked
# (USE_CUFILE=1 in build_cuda.sh), NVSHMEM through libtorch_nvshmem.so.
TORCH_CUDA_LIBS_2026 = {
    12: (
        "libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcudnn.so.9", "libnccl.so.2",
        "libcufft.so.11", "libcurand.so.10", "libcusparse.so.12", "libcusolver.so.11",
        "libnvrtc.so.12", "libcusparseLt.so.0", "libcupti.so.12", "libcufile.so.0",
    ),
    13: (
        "libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libcudnn.so.9", "libnccl.so.2",
        "libcufft.so.12", "libcurand.so.10", "libcusparse.so.12", "libcusolver.so.12",
        "libnvrtc.so.13", "libcusparseLt.so.0", "libcupti.so.13", "libcufile.so.0",
    ),
}
GLOBAL_DEPS_2026 = {
    12: (
        "libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcudnn.so.9",
        "libcufft.so.11", "libcurand.so.10", "libcusparse.so.12",
    ),
    13: (
        "libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libcudnn.so.9",
        "libcufft.so.12", "libcurand.so.10", "libcusparse.so.12",
    ),
}
# XPU (pytorch .ci/manywheel/build_xpu.sh, "Using xpu runtime libs from
# pypi"): forced RPATH to <prefix>/lib, where the intel-* wheels install.
XPU_RPATH = "$ORIGIN/../../../.."


# pytorch .ci/manywheel/build_rocm.sh: ROCm wheels bundle these under
# torch/lib, renamed without the SONAME version (libamdhip64.so.6 ->
# libamdhip64.so): (file, source macro, needs, version number it reports;
# 0 = none). ROCm 6.2.4 ships RCCL 2.20.5.
def rocm_bundled(accel):
    return (
        ("libhsa-runtime64.so", "HSA", (), 0),
        ("libamdhip64.so", "AMDHIP", ("libhsa-runtime64.so",), accel.hip_api_version),
        ("librocblas.so", "ROCBLAS", ("libamdhip64.so",), 0),
        ("libMIOpen.so", "MIOPEN", ("libamdhip64.so",), 0),
        ("librccl.so", "RCCL", ("libamdhip64.so",), accel.rccl_api_version),
    )


# -- torch 2.9.1's ROCm stack and the 2025a ROCm 6.4.1 modules -----------------
#
# Every library of facts.ROCM_LIBRARIES is one build of src/rocm/rocm_stack.c.
# In the wheels (pytorch .ci/manywheel/build_rocm.sh, build_common.sh): the file
# torch/lib/<link name> with the library's own SONAME, DT_NEEDED of the other
# bundled libraries by link name, forced DT_RPATH $ORIGIN. In the modules: the
# regular file with the SONAME and the SONAME and link-name symlinks, DT_NEEDED
# by SONAME and DT_RPATH as an EasyBuild --rpath build writes it (easybuild-
# framework scripts/rpath_args.py: --disable-new-dtags, the rpath_include
# entries $ORIGIN, $ORIGIN/../lib, $ORIGIN/../lib64 first, then one -rpath per
# -L directory), the module directories written relative to $ORIGIN so that
# the tree loads wherever it is copied.

# The wheels' copies of one library are one compile for both ROCm versions:
# "<version number> <which build>" is written over this placeholder.
ROCM_SLOT = b"@SAMPLE-ROCM-BUILD-SLOT".ljust(127, b"-") + b"@"
# The real entry points a library's stand-in exports (SAMPLE_API_*).
ROCM_API = {
    "libhsa-runtime64.so": "HSA",
    "libamdhip64.so": "HIP",
    "libhiprtc.so": "HIPRTC",
    "libamd_comgr.so": "COMGR",
    "librocblas.so": "ROCBLAS",
    "libMIOpen.so": "MIOPEN",
    "librccl.so": "RCCL",
    "libgomp.so": "GOMP",
}
# The version numbers the stand-ins report (hipRuntimeGetVersion, ncclGetVersion,
# miopenGetVersion as major*10000+minor*100+patch, amd_comgr_get_version): the
# wheels' from catalogue.ACCELERATORS and these (MIOpen 3.3 / 3.4, comgr 2.9 / 3.0,
# recalled); the modules' from their module versions (HIP 6.4.1 = 6.4.43483).
ROCM_WHEEL_VERSIONS = {
    "rocm6.3": {"libMIOpen.so": 30300, "libamd_comgr.so": 20900},
    "rocm6.4": {"libMIOpen.so": 30400, "libamd_comgr.so": 30000},
}
ROCM_MODULE_VERSIONS = {
    "libamdhip64.so": 60443483,
    "libhiprtc.so": 60443483,
    "librccl.so": 22203,
    "libamd_comgr.so": 30000,
}
EB_RPATH_INCLUDE = ("$ORIGIN", "$ORIGIN/../lib", "$ORIGIN/../lib64")


def _rocm_defines(rocm_lib, build: str) -> tuple[tuple[str, str], ...]:
    by_link = {r.link: r for r in facts.ROCM_LIBRARIES}
    deps = " ".join(f"X({by_link[n].ident})" for n in rocm_lib.needs)
    defines = [
        ("SAMPLE_IDENT", rocm_lib.ident),
        ("SAMPLE_DEPS(X)", deps),
        ("SAMPLE_BUILD", _quote(build)),
    ]
    if rocm_lib.link in ROCM_API:
        defines.append((f"SAMPLE_API_{ROCM_API[rocm_lib.link]}", "1"))
    return tuple(defines)


def _rocm_slot(text: str) -> bytes:
    value = text.encode("ascii")
    if len(value) >= len(ROCM_SLOT):
        raise ValueError(f"{text!r} does not fit the ROCm build slot")
    return value.ljust(len(ROCM_SLOT), b"\0")


def rocm_stack_members(builder, toolchain, lib_dir, wheel, accel) -> dict[str, Target]:
    """The ROCm libraries a torch 2.9.1 ROCm wheel bundles in torch/lib:
    link name -> Target."""
    numbers = dict(ROCM_WHEEL_VERSIONS[accel.variant])
    numbers.update({"libamdhip64.so": accel.hip_api_version, "libhiprtc.so": accel.hip_api_version,
                    "librccl.so": accel.rccl_api_version})
    placeholder = ROCM_SLOT.decode("ascii")
    out: dict[str, Target] = {}
    pending = list(facts.ROCM_LIBRARIES)
    while pending:  # dependencies first
        rocm_lib = next(r for r in pending if all(n in out for n in r.needs))
        pending.remove(rocm_lib)
        soname = rocm_lib.soname_for(accel.variant)
        text = (f"{numbers.get(rocm_lib.link, 0)} {soname} of ROCm {accel.rocm}, "
                f"bundled in torch {wheel.full_version}")
        out[rocm_lib.link] = builder.add(
            Target(
                name=rocm_lib.link,
                out_dir=lib_dir,
                source="rocm/rocm_stack.c",
                defines=_rocm_defines(rocm_lib, placeholder),
                toolchain=toolchain,
                soname=soname,
                deps=tuple(out[n] for n in rocm_lib.needs),
                rpath="$ORIGIN",
                dtags="rpath",
                # For the link of what depends on it (-l:<SONAME>); not shipped.
                symlinks=((soname, rocm_lib.link),) if soname != rocm_lib.link else (),
                patch=((ROCM_SLOT, _rocm_slot(text)),),
                link_name=rocm_lib.link,
                replace_needed=True,
            )
        )
    return out


@dataclasses.dataclass
class RocmModuleLibrary:
    """One library of the sample 2025a ROCm 6.4.1 modules."""

    lib: "facts.RocmLibrary"
    directory: str  # software/<module>/<libdir>, relative to the tree root
    target: Target


def rocm_modules(builder, toolchain, root) -> list[RocmModuleLibrary]:
    """The sample EasyBuild ROCm 6.4.1 modules of 2025a under root
    (software/): every library of facts.ROCM_LIBRARIES that has a module."""
    provided = {r.link: r for r in facts.ROCM_LIBRARIES if r.module}
    out: list[RocmModuleLibrary] = []
    targets: dict[str, Target] = {}
    pending = list(provided.values())
    while pending:
        rocm_lib = next(r for r in pending if all(n in targets for n in r.needs))
        pending.remove(rocm_lib)
        directory = f"{rocm_lib.module}/{rocm_lib.libdir}"
        rpath = list(EB_RPATH_INCLUDE)
        for need in rocm_lib.needs:
            dep = provided[need]
            dep_directory = f"{dep.module}/{dep.libdir}"
            entry = "$ORIGIN/" + posixpath.relpath(dep_directory, directory)
            if dep_directory != directory and entry not in rpath:
                rpath.append(entry)
        number = ROCM_MODULE_VERSIONS.get(rocm_lib.link, 0)
        symlinks = [(rocm_lib.link, rocm_lib.soname)]
        if rocm_lib.soname != rocm_lib.file:
            symlinks.append((rocm_lib.soname, rocm_lib.file))
        target = builder.add(
            Target(
                name=rocm_lib.file,
                out_dir=os.path.join(root, rocm_lib.module, rocm_lib.libdir),
                source="rocm/rocm_stack.c",
                defines=_rocm_defines(
                    rocm_lib,
                    f"{number} {rocm_lib.soname} of ROCm 6.4.1, EasyBuild module {rocm_lib.module}",
                ),
                toolchain=toolchain,
                soname=rocm_lib.soname,
                deps=tuple(targets[n] for n in rocm_lib.needs),
                rpath=":".join(rpath),
                dtags="rpath",
                symlinks=tuple(symlinks),
            )
        )
        targets[rocm_lib.link] = target
        out.append(RocmModuleLibrary(rocm_lib, f"software/{directory}", target))
    return sorted(out, key=lambda m: (m.lib.module, m.lib.file))


@dataclasses.dataclass
class Member:
    """One ELF file of a wheel: where it goes and which target provides it."""

    arcname: str  # may hold {cpython} ("cpython-312-x86_64-linux-gnu")
    target: Target


def _quote(text: str) -> str:
    return f'"{text}"'


# The placeholder a 2026 libc10's version string is compiled with (torch_members).
VERSION_SLOT = b"@SAMPLE-BUILD-VERSION-SLOT-----@"


def link_set(wheel) -> str | None:
    """Which library set (key of plan's stubs) a wheel's CUDA code links:
    the variant's module set, or the release's for its CUDA 12 builds."""
    accel = catalogue.ACCELERATORS[wheel.build]
    if accel.kind == "xpu":
        return "xpu"
    release = catalogue.release_of(wheel.release or wheel.version)
    if accel.cuda_major == 12 and release.eb_cuda12:
        return release.eb_cuda12
    return accel.eb_cuda


def torch_members(builder, toolchain, work, wheel, stubs) -> list[Member]:
    """The ELF files of one torch wheel (shared by every Python tag)."""
    release = catalogue.release_of(wheel.version)
    accel = catalogue.ACCELERATORS[wheel.build]
    out_dir = os.path.join(work, toolchain.arch, f"torch-{wheel.full_version}-{wheel.build}")
    lib_dir = os.path.join(out_dir, "lib")
    # Only libc10 holds the version string; the other libraries of equal
    # builds are then equal files, compiled once (Builder.run).
    version = (("SAMPLE_BUILD_VERSION", _quote(wheel.full_version)),)
    defines = []
    major = accel.cuda_major
    if accel.kind == "cuda" and release.modern:
        cuda_rpath = ":".join(CUDA_RPATHS_2026[major])
        lib_rpath, c_rpath, dtags = (
            cuda_rpath + ":$ORIGIN", cuda_rpath + ":$ORIGIN:$ORIGIN/lib", "rpath"
        )
        defines += [
            ("SAMPLE_WITH_CUDA", "1"),
            ("SAMPLE_WITH_CUSPARSELT", "1"),
            ("SAMPLE_NO_NVTX", "1"),
            ("SAMPLE_WITH_CUFILE", "1"),
            ("SAMPLE_WITH_NVSHMEM", "1"),
        ]
        if major == 13:
            # The real libcusparse rejects cusparseGetVersion(NULL, ...).
            defines.append(("SAMPLE_CUSPARSE_PROPERTY", "1"))
        cuda_libs = stubs[link_set(wheel)]
    elif accel.kind == "cuda":
        cuda_rpath = ":".join(CUDA_RPATHS_2_6 if release.cusparselt else CUDA_RPATHS_2_5)
        lib_rpath, c_rpath, dtags = cuda_rpath + ":$ORIGIN", cuda_rpath + ":$ORIGIN:$ORIGIN/lib", "rpath"
        defines.append(("SAMPLE_WITH_CUDA", "1"))
        if release.cusparselt:
            defines.append(("SAMPLE_WITH_CUSPARSELT", "1"))
        cuda_libs = stubs[accel.eb_cuda]
    elif accel.kind == "xpu":
        lib_rpath, c_rpath, dtags = (
            XPU_RPATH + ":$ORIGIN", XPU_RPATH + ":$ORIGIN:$ORIGIN/lib", "rpath"
        )
    else:
        # ROCm: forced RPATH $ORIGIN (pytorch .ci/manywheel/build_rocm.sh).
        # CPU: the CMake-built RUNPATH is kept (README "Choices").
        lib_rpath, c_rpath = "$ORIGIN", "$ORIGIN:$ORIGIN/lib"
        dtags = "rpath" if accel.kind == "rocm" else "runpath"
        if accel.kind == "rocm":
            defines.append(("SAMPLE_WITH_ROCM", "1"))
    defines_t = tuple(defines)

    def lib(name, source, deps, extra=(), patch=()):
        return builder.add(
            Target(
                name=name,
                out_dir=lib_dir,
                source=source,
                defines=defines_t + tuple(extra),
                toolchain=toolchain,
                soname=name,
                deps=tuple(deps),
                rpath=lib_rpath,
                dtags=dtags,
                patch=patch,
                # torch 2.9.1 ROCm: build_common.sh rewrites every torch/lib file's
                # DT_NEEDED of a bundled library to its link name.
                replace_needed=accel.rocm_stack,
            )
        )

    members = []
    if release.modern:
        # The 2026 builds' libc10 is compiled once per kind of build with a
        # placeholder, then the version written over it (NUL-padded), which
        # keeps the sample's build time down as releases are added.
        value = wheel.full_version.encode("ascii").ljust(len(VERSION_SLOT), b"\0")
        c10 = lib(
            "libc10.so", "torch/c10.c", [],
            extra=(("SAMPLE_BUILD_VERSION", _quote(VERSION_SLOT.decode("ascii"))),),
            patch=((VERSION_SLOT, value),),
        )
    else:
        c10 = lib("libc10.so", "torch/c10.c", [], extra=version)
    stack = {}
    if accel.rocm_stack:
        stack = rocm_stack_members(builder, toolchain, lib_dir, wheel, accel)
        members += [Member(f"torch/lib/{name}", target) for name, target in sorted(stack.items())]
        torch_cpu = lib(
            "libtorch_cpu.so", "torch/torch_cpu.c",
            [c10] + [stack[n] for n in facts.TORCH_CPU_NEEDS_2_9],
            extra=(("SAMPLE_WITH_OPENMP", "1"),),
        )
    else:
        torch_cpu = lib("libtorch_cpu.so", "torch/torch_cpu.c", [c10])
    accel_libs = []
    extra_libs = []
    global_deps = []
    python_extra = []
    if accel.kind == "cuda" and release.modern:
        cudart = cuda_libs[f"libcudart.so.{major}"]
        c10_cuda = lib("libc10_cuda.so", "torch/c10_cuda.c", [c10, cudart])
        nvshmem = lib(
            "libtorch_nvshmem.so",
            "torch/torch_nvshmem.c",
            [c10, cudart, cuda_libs["libnvshmem_host.so.3"]],
        )
        torch_cuda = lib(
            "libtorch_cuda.so",
            "torch/torch_cuda.c",
            [c10_cuda, c10, torch_cpu, nvshmem]
            + [cuda_libs[s] for s in TORCH_CUDA_LIBS_2026[major]],
        )
        accel_libs = [torch_cuda, c10_cuda]
        extra_libs = [nvshmem]
        global_deps = [cuda_libs[s] for s in GLOBAL_DEPS_2026[major]]
        python_extra = [cudart]
    elif accel.kind == "cuda":
        wanted = [s for s in TORCH_CUDA_LIBS if release.cusparselt or s != "libcusparseLt.so.0"]
        c10_cuda = lib("libc10_cuda.so", "torch/c10_cuda.c", [c10, cuda_libs["libcudart.so.12"]])
        torch_cuda = lib(
            "libtorch_cuda.so", "torch/torch_cuda.c", [c10_cuda, c10, torch_cpu] + [cuda_libs[s] for s in wanted]
        )
        accel_libs = [torch_cuda, c10_cuda]
        global_deps = [cuda_libs[s] for s in GLOBAL_DEPS_CUDA_LIBS]
        python_extra = [cuda_libs["libcudart.so.12"], cuda_libs["libnvToolsExt.so.1"]]
    elif accel.rocm_stack:
        hip = stack["libamdhip64.so"]
        c10_hip = lib("libc10_hip.so", "torch/c10_hip.c", [c10, hip])
        linked = [stack[n] for n in facts.TORCH_HIP_NEEDS_2_9]
        torch_hip = lib(
            "libtorch_hip.so",
            "torch/torch_hip.c",
            [c10_hip, c10, torch_cpu] + linked,
            extra=(
                ("SAMPLE_ROCM_STACK", "1"),
                ("SAMPLE_DEPS(X)", " ".join(
                    f"X({r.ident})" for n in facts.TORCH_HIP_NEEDS_2_9
                    for r in facts.ROCM_LIBRARIES if r.link == n)),
            ),
        )
        accel_libs = [torch_hip, c10_hip]
        global_deps = [stack[n] for n in facts.GLOBAL_DEPS_NEEDS_2_9]
    elif accel.kind == "rocm":
        bundled = {}
        for name, macro, needs, api_version in rocm_bundled(accel):
            bundled[name] = lib(
                name,
                "rocm/rocm_libs.c",
                [bundled[n] for n in needs],
                extra=((f"SAMPLE_LIB_{macro}", "1"), ("SAMPLE_API_VERSION", str(api_version))),
            )
            members.append(Member(f"torch/lib/{name}", bundled[name]))
        hip = bundled["libamdhip64.so"]
        c10_hip = lib("libc10_hip.so", "torch/c10_hip.c", [c10, hip])
        torch_hip = lib(
            "libtorch_hip.so",
            "torch/torch_hip.c",
            [c10_hip, c10, torch_cpu, hip, bundled["librocblas.so"], bundled["libMIOpen.so"], bundled["librccl.so"]],
        )
        accel_libs = [torch_hip, c10_hip]
        global_deps = [hip]
    elif accel.kind == "xpu":
        sycl = stubs["xpu"]["libsycl.so.8"]
        c10_xpu = lib("libc10_xpu.so", "torch/c10_xpu.c", [c10, sycl])
        torch_xpu = lib("libtorch_xpu.so", "torch/torch_xpu.c", [c10_xpu, c10, torch_cpu, sycl])
        accel_libs = [torch_xpu, c10_xpu]
    torch = lib("libtorch.so", "torch/torch.c", [torch_cpu] + accel_libs[:1])
    shm = lib("libshm.so", "torch/shm.c", [c10, torch_cpu])
    deps_lib = lib("libtorch_global_deps.so", "torch/torch_global_deps.c", global_deps)
    torch_python = lib(
        "libtorch_python.so",
        "torch/torch_python.c",
        [torch, torch_cpu] + accel_libs + [c10, shm] + python_extra,
    )
    c_ext = builder.add(
        Target(
            name="_C.so",
            out_dir=out_dir,
            source="torch/_C.c",
            defines=defines_t,
            toolchain=toolchain,
            soname=None,
            deps=(torch_python,),
            rpath=c_rpath,
            dtags=dtags,
        )
    )
    shm_manager = builder.add(
        Target(
            name="torch_shm_manager",
            out_dir=os.path.join(out_dir, "bin"),
            source="torch/torch_shm_manager.c",
            defines=defines_t,
            toolchain=toolchain,
            deps=(shm, c10),
            # torch/bin is outside torch/lib, which the wheel build's patchelf
            # pass covers: it keeps the RUNPATH CMake gave it.
            rpath="$ORIGIN/../lib",
            dtags="runpath",
            executable=True,
        )
    )
    for target in [c10, torch_cpu, *accel_libs, *extra_libs, torch, shm, deps_lib, torch_python]:
        members.append(Member(f"torch/lib/{target.name}", target))
    members.append(Member("torch/_C.{cpython}.so", c_ext))
    members.append(Member("torch/bin/torch_shm_manager", shm_manager))
    return members


def domain_members(builder, toolchain, work, wheel, torch_libs: dict[str, Target], stubs) -> list[Member]:
    """The ELF file of a torchvision or torchaudio wheel, linked against the
    torch build of the same variant and architecture."""
    accel = catalogue.ACCELERATORS[wheel.build]
    out_dir = os.path.join(work, toolchain.arch, f"{wheel.project}-{wheel.full_version}-{wheel.build}")
    defines = []
    deps = [torch_libs["libc10.so"], torch_libs["libtorch_cpu.so"]]
    if accel.kind == "cuda":
        defines.append(("SAMPLE_WITH_CUDA", "1"))
        cudart = stubs[link_set(wheel)][f"libcudart.so.{accel.cuda_major}"]
        deps += [torch_libs["libc10_cuda.so"], torch_libs["libtorch_cuda.so"], cudart]
    elif accel.kind == "rocm":
        defines.append(("SAMPLE_WITH_ROCM", "1"))
        deps += [torch_libs["libc10_hip.so"], torch_libs["libtorch_hip.so"], torch_libs["libamdhip64.so"]]
    elif accel.kind == "xpu":
        deps += [torch_libs["libc10_xpu.so"], torch_libs["libtorch_xpu.so"]]
    if wheel.project == "torchvision":
        # A setuptools extension: no SONAME.
        name, soname, source, arcname = "_C.so", None, "vision/vision_C.c", "torchvision/_C.so"
        rpath = "$ORIGIN/../torch/lib"
    else:
        name, source, arcname = "libtorchaudio.so", "audio/libtorchaudio.c", "torchaudio/lib/libtorchaudio.so"
        soname, rpath = name, "$ORIGIN/../../torch/lib"
    target = builder.add(
        Target(
            name=name,
            out_dir=out_dir,
            source=source,
            defines=tuple(defines),
            toolchain=toolchain,
            soname=soname,
            deps=tuple(deps),
            rpath=rpath,
            # setuptools/CMake builds, not patched with --force-rpath
            # (README "Choices").
            dtags="runpath",
        )
    )
    return [Member(arcname, target)]


def torchao_members(builder, toolchain, work, wheel, torch_libs, stubs) -> list[Member]:
    """torchao's stable-ABI extension torchao/_C.abi3.so: links torch's
    libraries and the CUDA runtime, no search path of its own (torch has
    loaded them when it is imported)."""
    accel = catalogue.ACCELERATORS[wheel.build]
    cudart = stubs[link_set(wheel)][f"libcudart.so.{accel.cuda_major}"]
    names = ("libc10.so", "libtorch_cpu.so", "libc10_cuda.so", "libtorch_cuda.so")
    deps = [torch_libs[n] for n in names]
    target = builder.add(
        Target(
            name="_C.abi3.so",
            out_dir=os.path.join(work, toolchain.arch, f"torchao-{wheel.full_version}"),
            source="torchao/torchao_C.c",
            defines=(("SAMPLE_BUILD_VERSION", _quote(wheel.full_version)),),
            toolchain=toolchain,
            deps=tuple(deps + [cudart]),
        )
    )
    return [Member("torchao/_C.abi3.so", target)]


def cuda_bindings_members(builder, toolchain, work, wheel) -> list[Member]:
    """cuda-bindings' extension: it dlopens the CUDA libraries itself (via
    cuda-pathfinder), so its NEEDED has only libc."""
    target = builder.add(
        Target(
            name="cyruntime.so",
            out_dir=os.path.join(work, toolchain.arch, f"cuda_bindings-{wheel.version}"),
            source="cuda_bindings/cyruntime.c",
            defines=(("SAMPLE_BUILD_VERSION", _quote(wheel.version)),),
            toolchain=toolchain,
        )
    )
    return [Member("cuda/bindings/cyruntime.{cpython}.so", target)]


# ptxas --version of the bundled ptxas: CUDA 12.4 for triton 3.1/3.2, CUDA
# 12.9 for the 2026 triton builds (recalled, README "Choices").
PTXAS_VERSION = {"3.1.0": "12.4, V12.4.99", "3.2.0": "12.4, V12.4.99"}


def triton_members(builder, toolchain, work, wheel) -> list[Member]:
    out_dir = os.path.join(work, toolchain.arch, f"{wheel.project}-{wheel.full_version}")
    defines = (("SAMPLE_BUILD_VERSION", _quote(wheel.full_version)),)
    members = [
        Member(
            "triton/_C/libtriton.so",
            builder.add(
                Target(
                    name="libtriton.so",
                    out_dir=out_dir,
                    source="triton/libtriton.c",
                    defines=defines,
                    toolchain=toolchain,
                    soname="libtriton.so",
                )
            ),
        )
    ]
    if wheel.build == "cuda":
        ptxas = PTXAS_VERSION.get(wheel.version, "12.9, V12.9.86")
        members.append(
            Member(
                "triton/backends/nvidia/bin/ptxas",
                builder.add(
                    Target(
                        name="ptxas",
                        out_dir=out_dir,
                        source="triton/ptxas.c",
                        defines=(("SAMPLE_BUILD_VERSION", _quote(ptxas)),),
                        toolchain=toolchain,
                        executable=True,
                    )
                ),
            )
        )
    return members


# nvidia-* wheel -> (arcname of its library, SONAME in the sample module set).
NVIDIA_WHEEL_LIBRARIES = {
    "nvidia_cusparselt_cu12": ("cusparselt/lib/libcusparseLt.so.0", "libcusparseLt.so.0"),
}
# The CUDA 13 stand-in wheels' libraries: SAMPLE_LIB_* and how the version
# number the library reports follows from the wheel's version
# (cusparseLtGetVersion 800 for 0.8.0, nvshmem_info_get_version 3040 for
# 3.4, cuFileGetVersion 1150 for 1.15, cudnnGetVersion 92000 for 9.20,
# ncclGetVersion 22907 for 2.29.7).
CUDA13_STAND_IN_LIBRARIES = {
    "nvidia_cusparselt_cu13": ("CUSPARSELT", lambda v: v[0] * 1000 + v[1] * 100 + v[2]),
    "nvidia_nvshmem_cu13": ("NVSHMEM", lambda v: v[0] * 1000 + v[1] * 10),
    "nvidia_cufile": ("CUFILE", lambda v: v[0] * 1000 + v[1] * 10),
    "nvidia_cudnn_cu13": ("CUDNN", lambda v: v[0] * 10000 + v[1] * 100 + v[2]),
    "nvidia_nccl_cu13": ("NCCL", lambda v: v[0] * 10000 + v[1] * 100 + v[2]),
}


def nvidia_members(wheel, stubs) -> list[Member]:
    """The library of an nvidia-* wheel: the build the sample module of the
    variant's CUDA installs (same source, SONAME and API version, no NEEDED
    beyond libc, no RPATH), so torch gets the same answers whichever copy
    the loader picks; only the path tells them apart."""
    arcname, soname = NVIDIA_WHEEL_LIBRARIES[wheel.project]
    eb_cuda = catalogue.ACCELERATORS[wheel.variant].eb_cuda
    return [Member(arcname, stubs[eb_cuda][soname])]


def cuda13_stand_in_members(builder, toolchain, work, wheel) -> list[Member]:
    arcname = next(
        a for p, v, a in catalogue.CUDA13_STAND_IN_WHEELS if (p, v) == (wheel.project, wheel.version)
    )
    macro, api = CUDA13_STAND_IN_LIBRARIES[wheel.project]
    api_version = api([int(part) for part in wheel.version.split(".")])
    soname = os.path.basename(arcname)
    target = builder.add(
        Target(
            name=soname,
            out_dir=os.path.join(work, toolchain.arch, f"{wheel.project}-{wheel.version}"),
            source="eb/cuda_libs.c",
            defines=(
                (f"SAMPLE_LIB_{macro}", "1"),
                ("SAMPLE_API_VERSION", str(api_version)),
                ("SAMPLE_CUDA13", "1"),
            ),
            toolchain=toolchain,
            soname=soname,
        )
    )
    return [Member(arcname, target)]


def tree_members(wheel, tree) -> list[Member]:
    """The ELF files a rebuilt NVIDIA wheel ships: the tree's own files."""
    from . import cuda13

    out = []
    for member in tree.wheels[wheel.project].shipped():
        with open(member.path, "rb") as handle:
            if handle.read(4) == b"\x7fELF":
                out.append(Member(member.arcname, cuda13.TreeFile(member.path)))
    return out


def plan(builder, toolchains, software_roots, work, wheels, tree=None):
    """Adds every target the wheels need. Returns (filename -> members,
    the x86_64 software tree's SONAME -> Target per CUDA version, the CUDA
    13 modules, the ROCm 6.4.1 modules). Variant wheels (PEP 825) get the members of the build they
    repackage.

    toolchains maps a wheel architecture to the toolchain that builds its
    ELF files (aarch64 -> the x86_64 one when no cross compiler is there)."""
    stubs = {}
    for arch, tc in toolchains.items():
        stubs[arch] = eb_targets(builder, tc, software_roots[tc.arch])
        stubs[arch][CUDA13_EB] = cuda13_stubs(builder, tc, work)
        stubs[arch]["xpu"] = xpu_stubs(builder, tc, work)
    modules13 = cuda13_modules(builder, toolchains["x86_64"], software_roots["x86_64"], tree)
    modules_rocm = rocm_modules(builder, toolchains["x86_64"], software_roots["x86_64"])
    members: dict[tuple[str, str | None], list[Member]] = {}
    torch_libs: dict[tuple, dict[str, Target]] = {}
    for wheel in wheels:
        if wheel.project != "torch":
            continue
        tc = toolchains[wheel.arch]
        source = wheel
        if wheel.variant_label:
            source = dataclasses.replace(wheel, local=wheel.source_local, variant_label=None)
        found = torch_members(builder, tc, work, source, stubs[wheel.arch])
        members[key(wheel)] = found
        if wheel.variant_label:
            continue
        libs = {os.path.basename(m.arcname): m.target for m in found if m.arcname.startswith("torch/lib/")}
        torch_libs[(wheel.version, wheel.variant, wheel.arch)] = libs
    for wheel in wheels:
        tc = toolchains.get(wheel.arch) if wheel.arch else None
        if wheel.project in ("torchvision", "torchaudio"):
            libs = torch_libs[(wheel.release, wheel.variant, wheel.arch)]
            members[key(wheel)] = domain_members(builder, tc, work, wheel, libs, stubs[wheel.arch])
        elif wheel.project == "torchao":
            libs = torch_libs[(wheel.release, wheel.variant, wheel.arch)]
            members[key(wheel)] = torchao_members(builder, tc, work, wheel, libs, stubs[wheel.arch])
        elif wheel.project in catalogue.TRITON_PROJECTS:
            members[key(wheel)] = triton_members(builder, tc, work, wheel)
        elif wheel.project == "cuda_bindings":
            members[key(wheel)] = cuda_bindings_members(builder, tc, work, wheel)
        elif wheel.contents == "stand-in":
            members[key(wheel)] = cuda13_stand_in_members(builder, tc, work, wheel)
        elif wheel.contents in ("whole", "subset"):
            members[key(wheel)] = tree_members(wheel, tree)
        elif wheel.project.startswith("nvidia_"):
            members[key(wheel)] = nvidia_members(wheel, stubs[wheel.arch])
    # Until the 2026 generation this plan was keyed by file name alone, so the
    # cpu and cu126 aarch64 torchvision 0.21.0 / torchaudio 2.6.0 wheels (one
    # name in two directories) both carry the cu126 build's ELF file. Kept so
    # that those wheels stay byte-identical (README "Known issues").
    last = {}
    for wheel in wheels:
        if not catalogue.is_modern(wheel) and key(wheel) in members:
            last[wheel.filename] = members[key(wheel)]
    for wheel in wheels:
        if not catalogue.is_modern(wheel) and key(wheel) in members:
            members[key(wheel)] = last[wheel.filename]
    return members, stubs["x86_64"], modules13, modules_rocm


def key(wheel) -> tuple[str, str | None]:
    """Wheels are told apart by file name and directory (one name can be in
    two directories with different content, README "Index quirks")."""
    return (wheel.filename, wheel.variant)
