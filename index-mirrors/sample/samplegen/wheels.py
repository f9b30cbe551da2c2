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
import stat
import zipfile

from . import catalogue

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
    files = {
        "torch/__init__.py": _text(TORCH_INIT),
        "torch/version.py": _text(
            TORCH_VERSION.format(version=wheel.full_version, cuda=accel.cuda, git=release.git_version, hip=accel.hip)
        ),
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
    if accel.kind == "rocm":
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
    return files, dist


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
    backend = "nvidia" if wheel.build == "cuda" else "amd"
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


def cpython_tag(wheel) -> str:
    """The extension-module suffix part: cpython-312-x86_64-linux-gnu."""
    return f"cpython-{wheel.python[2:]}-{wheel.arch}-linux-gnu"


def files_for(wheel, members, read_target):
    """All members of the wheel: (files, dist_files, {arcname: Target})."""
    if wheel.project == "torch":
        files, dist = torch_files(wheel)
    elif wheel.project in ("torchvision", "torchaudio"):
        files, dist = domain_files(wheel)
    elif wheel.project in ("triton", "pytorch_triton_rocm"):
        files, dist = triton_files(wheel)
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
