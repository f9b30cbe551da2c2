"""Wheel files: the members of each sample wheel and the zip writer.

The zip layout is the one bdist_wheel (wheel 0.45) writes: members in
os.walk order (a directory's files sorted, then its sub-directories sorted),
the .dist-info files after everything else and RECORD last of all; deflate;
one fixed time stamp; Unix modes in external_attr (RECORD 0o664 as wheel
writes it). RECORD rows follow the write order (PEP 376 / PEP 627).
"""

import base64
import csv
import hashlib
import io
import json
import os
import stat
import zipfile

from . import catalogue, facts

MODE_FILE = 0o644
MODE_EXECUTABLE = 0o755
MODE_RECORD = 0o664


def record_hash(data: bytes) -> str:
    """sha256=<urlsafe base64 without padding> (PEP 376, RECORD)."""
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _walk_order(paths):
    """Sort key reproducing os.walk with sorted dirnames and filenames: at
    each level a directory's own files come before its sub-directories."""

    def key(path):
        parts = path.split("/")
        # (0, name) for files, (1, name) for directories, level by level.
        return [(1, p) for p in parts[:-1]] + [(0, parts[-1])]

    return sorted(paths, key=key)


def build_zip(dist_info: str, files: dict[str, tuple[bytes, int]], dist_files: dict[str, bytes]) -> bytes:
    """files: arcname -> (bytes, mode) outside the .dist-info directory;
    dist_files: name -> bytes inside it (RECORD is added here)."""
    order = _walk_order(files)
    entries = [(name, files[name][0], files[name][1]) for name in order]
    entries += [(f"{dist_info}/{name}", dist_files[name], MODE_FILE) for name in sorted(dist_files)]
    record = io.StringIO()
    writer = csv.writer(record, delimiter=",", quotechar='"', lineterminator="\n")
    for name, data, _ in entries:
        writer.writerow((name, record_hash(data), len(data)))
    writer.writerow((f"{dist_info}/RECORD", "", ""))
    entries.append((f"{dist_info}/RECORD", record.getvalue().encode("utf-8"), MODE_RECORD))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=catalogue.ZIP_DATE_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so that external_attr carries the mode
            info.external_attr = (stat.S_IFREG | mode) << 16
            archive.writestr(info, data, compresslevel=6)
    return buffer.getvalue()


def dist_info_name(wheel: catalogue.Wheel) -> str:
    # bdist_wheel keeps the local label: torch-2.6.0+cu126.dist-info
    return f"{wheel.project}-{wheel.full_version}.dist-info"


def _entry_points(groups):
    text = ""
    for group, entries in groups:
        if text:
            text += "\n"
        text += f"[{group}]\n" + "".join(f"{name} = {ref}\n" for name, ref in entries)
    return text


# -- Python sources of the sample packages -------------------------------------

TORCH_INIT = '''\
"""Sample torch package (wheelmod index-mirrors/sample). Importing it loads
the same chain of shared libraries as the real torch: libtorch_global_deps
first, then torch._C -> libtorch_python -> libtorch -> libtorch_cpu/_cuda."""

import ctypes
import glob
import os
import sys

from torch.version import __version__ as __version__

# As the real torch/__init__.py does: when libtorch_global_deps.so cannot
# find a CUDA library through its RPATH, look for the nvidia-* wheels on
# sys.path, load the libraries from there and try again.
_CUDA_LIBRARIES = {
    "cublas": "libcublas.so.*[0-9]",
    "cudnn": "libcudnn.so.*[0-9]",
    "cuda_nvrtc": "libnvrtc.so.*[0-9]",
    "cuda_runtime": "libcudart.so.*[0-9]",
    "cuda_cupti": "libcupti.so.*[0-9]",
    "cufft": "libcufft.so.*[0-9]",
    "curand": "libcurand.so.*[0-9]",
    "nvjitlink": "libnvJitLink.so.*[0-9]",
    "cusparse": "libcusparse.so.*[0-9]",
    "cusolver": "libcusolver.so.*[0-9]",
    "nccl": "libnccl.so.*[0-9]",
    "nvtx": "libnvToolsExt.so.*[0-9]",
}


def _preload_cuda_library(folder, pattern):
    for entry in sys.path:
        found = sorted(glob.glob(os.path.join(entry, "nvidia", folder, "lib", pattern)))
        if found:
            ctypes.CDLL(found[0])
            return
    raise ValueError(f"{pattern} not found in the system path {sys.path}")


def _load_global_deps():
    path = os.path.join(os.path.dirname(__file__), "lib", "libtorch_global_deps.so")
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as err:
        stems = [pattern.split(".")[0] for pattern in _CUDA_LIBRARIES.values()]
        if not any(stem in err.args[0] for stem in stems):
            raise
        for folder, pattern in _CUDA_LIBRARIES.items():
            _preload_cuda_library(folder, pattern)
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


_load_global_deps()

from torch import _C  # noqa: E402
from torch import backends, cuda, version  # noqa: E402,F401
'''

# torch/__init__.py of the 2026 builds: the fallback also looks in
# nvidia/cu<major>/lib, where every CUDA 13 wheel but cuDNN, NCCL, NVSHMEM
# and cuSPARSELt installs (pytorch torch/__init__.py _get_cuda_dep_paths),
# and knows cusparselt, nvshmem and cufile; no nvtx (NVTX 3 is header-only).
TORCH_INIT_2026 = '''\
"""Sample torch package (wheelmod index-mirrors/sample). Importing it loads
the same chain of shared libraries as the real torch: libtorch_global_deps
first, then torch._C -> libtorch_python -> libtorch -> libtorch_cpu/_cuda."""

import ctypes
import glob
import os
import sys

from torch.version import __version__ as __version__
from torch.version import cuda as _cuda_version

# As the real torch/__init__.py does: when libtorch_global_deps.so cannot
# find a CUDA library through its RPATH, look for the nvidia-* wheels on
# sys.path, load the libraries from there and try again.
_CUDA_LIBRARIES = {
    "cublas": "libcublas.so.*[0-9]",
    "cudnn": "libcudnn.so.*[0-9]",
    "cuda_nvrtc": "libnvrtc.so.*[0-9]",
    "cuda_runtime": "libcudart.so.*[0-9]",
    "cuda_cupti": "libcupti.so.*[0-9]",
    "cufft": "libcufft.so.*[0-9]",
    "curand": "libcurand.so.*[0-9]",
    "nvjitlink": "libnvJitLink.so.*[0-9]",
    "cusparse": "libcusparse.so.*[0-9]",
    "cusparselt": "libcusparseLt.so.*[0-9]",
    "cusolver": "libcusolver.so.*[0-9]",
    "nccl": "libnccl.so.*[0-9]",
    "nvshmem": "libnvshmem_host.so.*[0-9]",
    "cufile": "libcufile.so.*[0-9]",
}


def _cuda_dep_paths(entry, folder, pattern):
    paths = glob.glob(os.path.join(entry, "nvidia", folder, "lib", pattern))
    if _cuda_version:
        major = _cuda_version.split(".")[0]
        paths += glob.glob(os.path.join(entry, "nvidia", f"cu{major}", "lib", pattern))
    return sorted(paths) + sorted(glob.glob(os.path.join(entry, folder, "lib", pattern)))


def _preload_cuda_library(folder, pattern):
    for entry in sys.path:
        found = _cuda_dep_paths(entry, folder, pattern)
        if found:
            ctypes.CDLL(found[0])
            return
    raise ValueError(f"{pattern} not found in the system path {sys.path}")


def _load_global_deps():
    path = os.path.join(os.path.dirname(__file__), "lib", "libtorch_global_deps.so")
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as err:
        stems = [pattern.split(".")[0] for pattern in _CUDA_LIBRARIES.values()]
        if not _cuda_version or not any(stem in err.args[0] for stem in stems):
            raise
        for folder, pattern in _CUDA_LIBRARIES.items():
            _preload_cuda_library(folder, pattern)
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


_load_global_deps()

from torch import _C  # noqa: E402
from torch import backends, cuda, version  # noqa: E402,F401
'''

# torch/version.py of 2.12 (the 2.12.0+cu130 and +cpu files as found in
# public dumps); used for the whole 2026 generation.
TORCH_VERSION_2026 = """\
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']
__version__ = {version!r}
debug = False
cuda: Optional[str] = {cuda!r}
git_version = {git!r}
hip: Optional[str] = {hip!r}
rocm: Optional[str] = {rocm!r}
xpu: Optional[str] = {xpu!r}
"""

TORCH_VERSION = """\
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = {version!r}
debug = False
cuda: Optional[str] = {cuda!r}
git_version = {git!r}
hip: Optional[str] = {hip!r}
"""

TORCH_CUDA = '''\
"""torch.cuda of the sample wheel: answers come from the native libraries
the loader picked (on ROCm builds from HIP, as in the real torch)."""

import torch


def is_available():
    return device_count() > 0


def device_count():
    if not hasattr(torch._C, "_cuda_getDeviceCount"):
        return 0
    return torch._C._cuda_getDeviceCount()


def runtime_version():
    """cudaRuntimeGetVersion() (hipRuntimeGetVersion() on ROCm), or None."""
    if not hasattr(torch._C, "_runtime_version"):
        return None
    return torch._C._runtime_version()
'''

TORCH_BACKENDS = '''\
"""torch.backends of the sample wheel."""

from torch.backends import cudnn  # noqa: F401
'''

TORCH_CUDNN = '''\
import torch


def version():
    """cudnnGetVersion() of the loaded cuDNN, or None in a non-CUDA build."""
    if not hasattr(torch._C, "_cudnn_version"):
        return None
    return torch._C._cudnn_version()
'''

RUN_MAIN = '''\
def main(args=None):
    print("{name} (sample wheel): nothing to do")
    return 0
'''

DOMAIN_INIT = '''\
"""Sample {project} package (wheelmod index-mirrors/sample)."""

import ctypes
import os

import torch  # noqa: F401  (loads torch's libraries first, as the real one)

from {project}.version import __version__ as __version__

_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), {library!r}))


def _cuda_version():
    """The CUDA (HIP) runtime version the extension sees; -1 in a CPU build."""
    return _lib.{function}()
'''


def _text(source: str) -> tuple[bytes, int]:
    return source.encode("utf-8"), MODE_FILE


def torch_files(wheel):
    release = catalogue.release_of(wheel.version)
    accel = catalogue.ACCELERATORS[wheel.build]
    if release.modern:
        init = TORCH_INIT_2026
        version = TORCH_VERSION_2026.format(
            version=wheel.full_version, cuda=accel.cuda, git=release.git_version, hip=accel.hip,
            rocm=accel.rocm, xpu=accel.xpu,
        )
    else:
        init = TORCH_INIT
        version = TORCH_VERSION.format(
            version=wheel.full_version, cuda=accel.cuda, git=release.git_version, hip=accel.hip
        )
    files = {
        "torch/__init__.py": _text(init),
        "torch/version.py": _text(version),
        "torch/cuda/__init__.py": _text(TORCH_CUDA),
        "torch/backends/__init__.py": _text(TORCH_BACKENDS),
        "torch/backends/cudnn/__init__.py": _text(TORCH_CUDNN),
        "torch/distributed/__init__.py": _text(""),
        "torch/distributed/run.py": _text(RUN_MAIN.format(name="torchrun")),
        "torch/distributed/elastic/__init__.py": _text(""),
        "torch/distributed/elastic/multiprocessing/__init__.py": _text("class DefaultLogsSpecs:\n    pass\n"),
        "torch/include/c10/macros/cmake_macros.h": _text("#pragma once\n#define C10_BUILD_SHARED_LIBS\n"),
        "functorch/__init__.py": _text('"""functorch of the sample torch wheel."""\n'),
        "torchgen/__init__.py": _text('"""torchgen of the sample torch wheel."""\n'),
    }
    if accel.rocm_stack:
        # torch 2.9.1: the data files of build_rocm.sh's DEPS_AUX_DSTLIST.
        origin = f"ROCm {accel.rocm}, bundled in torch {wheel.full_version}"
        for path in facts.ROCM_WHEEL_DATA:
            files[path] = (rocm_data_file(path, origin), MODE_FILE)
    elif accel.kind == "rocm":
        # ROCm wheels carry data beside the bundled libraries (pytorch
        # .ci/manywheel/build_rocm.sh).
        files["torch/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat"] = (b"sample rocBLAS kernel data\n", MODE_FILE)
    dist = {
        "LICENSE": b"Sample wheel; the real torch is distributed under the BSD-3-Clause license.\n",
        "NOTICE": b"Sample wheel generated by wheelmod index-mirrors/sample.\n",
        "entry_points.txt": _entry_points(
            [
                ("console_scripts", release.console_scripts),
                ("torchrun.logs_specs", [("default", "torch.distributed.elastic.multiprocessing:DefaultLogsSpecs")]),
            ]
        ).encode("utf-8"),
        "top_level.txt": b"functorch\ntorch\ntorchgen\n",
    }
    if wheel.variant_label:
        # PEP 825: the variant properties inside the wheel.
        text = json.dumps(catalogue.variant_json(wheel.variant_label), indent=2, sort_keys=True)
        dist["variant.json"] = (text + "\n").encode("utf-8")
    return files, dist


# libdrm's table of AMD GPU names (share/libdrm/amdgpu.ids): its header and a
# few of its lines, in the real file's format.
AMDGPU_IDS = """\
# List of AMDGPU IDs
#
# Syntax:
# device_id,\trevision_id,\tproduct_name        <-- single tab after comma

1.0.0
740F,\t02,\tAMD Instinct MI210
74A1,\t00,\tAMD Instinct MI300X
744C,\tC8,\tAMD Radeon RX 7900 XTX
"""


def rocm_data_file(path: str, origin: str) -> bytes:
    """A ROCm data file of the sample (a wheel's DEPS_AUX_DSTLIST file or a
    module's own): a line saying what it stands for and whose it is."""
    name = path.rsplit("/", 1)[-1]
    if name == "amdgpu.ids":
        return (AMDGPU_IDS + f"# sample: {origin}\n").encode("ascii")
    parts = path.split("/")
    component = parts[parts.index("share") + 1] if "share" in parts else parts[-3]
    return f"sample {component} data {name} ({origin})\n".encode("ascii")


def domain_files(wheel):
    accel = catalogue.ACCELERATORS[wheel.build]
    project = wheel.project
    if project == "torchvision":
        library, function = "_C.so", "vision_cuda_version"
        files = {}
    else:
        library, function = "lib/libtorchaudio.so", "torchaudio_cuda_version"
        files = {"torchaudio/lib/__init__.py": _text("")}
    files[f"{project}/__init__.py"] = _text(DOMAIN_INIT.format(project=project, library=library, function=function))
    files[f"{project}/version.py"] = _text(
        f"__version__ = {wheel.full_version!r}\ncuda = {accel.cuda or accel.hip!r}\n"
    )
    dist = {
        "LICENSE": f"Sample wheel; the real {project} is distributed under the BSD license.\n".encode("utf-8"),
        "top_level.txt": f"{project}\n".encode("utf-8"),
    }
    return files, dist


def triton_files(wheel):
    backend = {"cuda": "nvidia", "rocm": "amd", "xpu": "intel"}[wheel.build]
    files = {
        "triton/__init__.py": _text(f'"""Sample triton package."""\n\n__version__ = {wheel.version!r}\n'),
        "triton/_C/__init__.py": _text(""),
        "triton/backends/__init__.py": _text(""),
        f"triton/backends/{backend}/__init__.py": _text(""),
        "triton/profiler/__init__.py": _text(""),
        "triton/profiler/proton.py": _text(RUN_MAIN.format(name="proton")),
        "triton/profiler/viewer.py": _text(RUN_MAIN.format(name="proton-viewer")),
    }
    dist = {
        "LICENSE": b"Sample wheel; the real triton is distributed under the MIT license.\n",
        "entry_points.txt": _entry_points(
            [
                (
                    "console_scripts",
                    [("proton", "triton.profiler.proton:main"), ("proton-viewer", "triton.profiler.viewer:main")],
                )
            ]
        ).encode("utf-8"),
        "top_level.txt": b"triton\n",
    }
    return files, dist


def pure_files(wheel):
    if wheel.project == "sympy":
        files = {
            "isympy.py": _text(RUN_MAIN.format(name="isympy")),
            "sympy/__init__.py": _text(f'"""Sample sympy package."""\n\n__version__ = {wheel.version!r}\n'),
        }
        dist = {
            "LICENSE": b"Sample wheel; the real sympy is distributed under the BSD license.\n",
            "entry_points.txt": _entry_points([("console_scripts", [("isympy", "isympy:main")])]).encode("utf-8"),
            "top_level.txt": b"isympy\nsympy\n",
        }
    elif wheel.project == "cuda_toolkit":
        # A metapackage: only its dist-info.
        files = {}
        dist = {
            "License.txt": b"Sample wheel; the real CUDA Toolkit is NVIDIA proprietary software.\n",
        }
    elif wheel.project == "mpmath":
        files = {
            "mpmath/__init__.py": _text(f'"""Sample mpmath package."""\n\n__version__ = {wheel.version!r}\n'),
        }
        dist = {
            "LICENSE": b"Sample wheel; the real mpmath is distributed under the BSD license.\n",
            "top_level.txt": b"mpmath\n",
        }
    else:
        files = {
            "networkx/__init__.py": _text(f'"""Sample networkx package."""\n\n__version__ = {wheel.version!r}\n'),
        }
        dist = {
            "LICENSE.txt": b"Sample wheel; the real networkx is distributed under the BSD-3-Clause license.\n",
            "top_level.txt": b"networkx\n",
        }
    return files, dist


CUSPARSELT_HEADER = """\
/* cuSPARSELt header of the sample nvidia-cusparselt-cu12 wheel (wheelmod
 * index-mirrors/sample): only what its library exports. */
#pragma once

#define CUSPARSELT_VER_MAJOR {major}
#define CUSPARSELT_VER_MINOR {minor}
#define CUSPARSELT_VER_PATCH {patch}
#define CUSPARSELT_VERSION (CUSPARSELT_VER_MAJOR * 1000 + CUSPARSELT_VER_MINOR * 100 + CUSPARSELT_VER_PATCH)

int cusparseLtGetVersion(const void* handle, int* version);
"""


def nvidia_files(wheel):
    """The cu12 cuSPARSELt wheel's layout: a top-level cusparselt/ package
    (not NVIDIA's usual nvidia/<component>/), which is why torch 2.6's RPATH
    names $ORIGIN/../../cusparselt/lib and its sys.path fallback also looks
    in <entry>/<component>/lib (README "Index quirks")."""
    major, minor, patch = wheel.version.split(".")
    files = {
        "cusparselt/__init__.py": _text(""),
        "cusparselt/include/cusparseLt.h": _text(CUSPARSELT_HEADER.format(major=major, minor=minor, patch=patch)),
    }
    dist = {
        "License.txt": b"Sample wheel; the real cuSPARSELt is NVIDIA proprietary software.\n",
        "top_level.txt": b"cusparselt\n",
    }
    return files, dist


def torchao_files(wheel):
    files = {
        "torchao/__init__.py": _text(
            f'"""Sample torchao package."""\n\n__version__ = {wheel.full_version!r}\n'
        ),
    }
    dist = {
        "LICENSE": b"Sample wheel; the real torchao is distributed under the BSD-3-Clause "
        b"license.\n",
        "top_level.txt": b"torchao\n",
    }
    return files, dist


def cuda_bindings_files(wheel):
    files = {
        "cuda/bindings/__init__.py": _text(f"__version__ = {wheel.version!r}\n"),
        "cuda/bindings/_version.py": _text(f"__version__ = {wheel.version!r}\n"),
    }
    dist = {
        "licenses/LICENSE": b"Sample wheel; the real cuda-bindings is NVIDIA software.\n",
        "top_level.txt": b"cuda\n",
    }
    return files, dist


def cuda13_stand_in_files(wheel):
    """NVIDIA's CUDA 13 layout (nvidia/<component>/lib, no __init__.py), the
    library and one header; the dist-info as the real CUDA 13 wheels have it."""
    files = {}
    stem = wheel.project[len("nvidia_") :].replace("_cu13", "")
    include = {
        "cusparselt": "cusparselt", "nvshmem": "nvshmem", "cufile": "cu13", "cudnn": "cudnn",
        "nccl": "nccl",
    }[stem]
    files[f"nvidia/{include}/include/{stem}_sample.h"] = _text(
        f"/* {wheel.project} {wheel.version}: stand-in header of the sample wheel. */\n"
    )
    dist = {
        "licenses/License.txt": b"Sample wheel; the real library is NVIDIA proprietary software.\n",
        "top_level.txt": b"nvidia\n",
    }
    return files, dist


def tree_wheel_files(wheel, tree):
    """A real NVIDIA CUDA 13 wheel rebuilt from its installed files: the
    real METADATA, WHEEL, license and top_level.txt, the shipped members
    (all, or the small ones) with their real bytes; RECORD regenerated."""
    from . import cuda13

    entry = tree.wheels[wheel.project]
    files = {}
    for member in entry.shipped():
        data = cuda13.read_member(member)
        mode = MODE_EXECUTABLE if data[:4] == b"\x7fELF" else MODE_FILE
        files[member.arcname] = (data, mode)
    dist = {}
    for name in cuda13.DIST_FILES:
        with open(os.path.join(entry.dist_info, name), "rb") as handle:
            dist[name] = handle.read()
    return files, dist


def cpython_tag(wheel) -> str:
    """The extension-module suffix part: cpython-312-x86_64-linux-gnu."""
    return f"cpython-{wheel.python[2:]}-{wheel.arch}-linux-gnu"


def files_for(wheel, members, read_target, tree=None):
    """All members of the wheel: (files, dist_files, {arcname: Target})."""
    if wheel.contents in ("whole", "subset"):
        files, dist = tree_wheel_files(wheel, tree)
        elf = {m.arcname: m.target for m in members}
        return files, dist, elf
    if wheel.project == "torch":
        files, dist = torch_files(wheel)
    elif wheel.project in ("torchvision", "torchaudio"):
        files, dist = domain_files(wheel)
    elif wheel.project in catalogue.TRITON_PROJECTS:
        files, dist = triton_files(wheel)
    elif wheel.project == "torchao":
        files, dist = torchao_files(wheel)
    elif wheel.project == "cuda_bindings":
        files, dist = cuda_bindings_files(wheel)
    elif wheel.contents == "stand-in":
        files, dist = cuda13_stand_in_files(wheel)
    elif wheel.project.startswith("nvidia_"):
        files, dist = nvidia_files(wheel)
    else:
        files, dist = pure_files(wheel)
    elf = {}
    for member in members:
        arcname = member.arcname.format(cpython=cpython_tag(wheel))
        files[arcname] = (read_target(member.target), MODE_EXECUTABLE)
        elf[arcname] = member.target
    dist["METADATA"] = catalogue.metadata(wheel).encode("utf-8")
    dist["WHEEL"] = catalogue.wheel_file(wheel).encode("utf-8")
    return files, dist, elf
