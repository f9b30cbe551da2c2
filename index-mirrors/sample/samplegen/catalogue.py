"""What the sample index holds and what each wheel's metadata says.

Everything here follows download.pytorch.org/whl as it was for the torch
2.5.1 and 2.6.0 releases, and as it is in December 2026 for 2.10.0 and
2.12.0 (the "2026 generation"); the comments name the public source of
each fact.
Choices that no public source covers are listed in README.md ("Choices").
The native side (which ELF files, their NEEDED and RPATH) is in native.py.
"""

import dataclasses

from . import cuda13

# <!--TIMESTAMP n--> footer of every generated page (pytorch/test-infra
# s3_management/manage.py, to_simple_package_html); fixed so the
# pages are the same bytes on every build. 2025-02-01T00:00:00Z.
TIMESTAMP = 1738368000
# <!--SERIAL n--> footer of the PyPI pages that the index mirrors
# (pytorch/test-infra s3_management/update_dependencies.py copies them).
PYPI_SERIAL = 26812345
# Time stamp of every zip member: the torch 2.6.0 release day.
ZIP_DATE_TIME = (2025, 1, 29, 0, 0, 0)

ALL_PYTHONS = ("cp311", "cp312", "cp313")
NO_313 = ("cp311", "cp312")

# Markers of the CUDA requirements (pytorch
# .github/scripts/generate_binary_build_matrix.py, PYTORCH_EXTRA_INSTALL_REQUIREMENTS).
LINUX_X86_64 = 'platform_system == "Linux" and platform_machine == "x86_64"'


@dataclasses.dataclass(frozen=True)
class Accelerator:
    """One accelerator build: the variant directory it is published in."""

    variant: str
    kind: str  # "cpu" | "cuda" | "rocm"
    cuda: str | None = None  # torch.version.cuda
    hip: str | None = None  # torch.version.hip
    eb_cuda: str | None = None  # the sample EasyBuild CUDA module it links against
    hip_api_version: int = 0  # hipRuntimeGetVersion() of the bundled libamdhip64
    rccl_api_version: int = 22005  # ncclGetVersion() of the bundled librccl
    xpu: str | None = None  # torch.version.xpu
    rocm: str | None = None  # torch.version.rocm (2.12's version.py has it)

    @property
    def cuda_major(self) -> int | None:
        return int(self.cuda.split(".")[0]) if self.cuda else None


ACCELERATORS = {
    "cpu": Accelerator("cpu", "cpu"),
    "cu124": Accelerator("cu124", "cuda", cuda="12.4", eb_cuda="12.4.0"),
    "cu126": Accelerator("cu126", "cuda", cuda="12.6", eb_cuda="12.6.0"),
    # HIP_VERSION = major * 10^7 + minor * 10^5 + patch for 6.2.41134.
    "rocm6.2.4": Accelerator("rocm6.2.4", "rocm", hip="6.2.41134", hip_api_version=60241134),
    # The 2026 generation (README "Contents"). The CUDA 12 builds link the
    # 2025b module set (CUDA 12.9.1), the CUDA 13 ones the 2026.1 set
    # (CUDA 13.3.0, whose libraries are NVIDIA's real CUDA 13.0 wheels where
    # the machine has them). HIP 7.1.25424 and RCCL 2.26.6 for ROCm 7.1 and
    # torch.version.xpu for oneAPI 2025.3 are recalled (README "Choices").
    "cu128": Accelerator("cu128", "cuda", cuda="12.8", eb_cuda="12.9.1"),
    "cu129": Accelerator("cu129", "cuda", cuda="12.9", eb_cuda="12.9.1"),
    "cu130": Accelerator("cu130", "cuda", cuda="13.0", eb_cuda="13.3.0"),
    "cu132": Accelerator("cu132", "cuda", cuda="13.2", eb_cuda="13.3.0"),
    "rocm7.1": Accelerator(
        "rocm7.1",
        "rocm",
        hip="7.1.25424",
        hip_api_version=70125424,
        rccl_api_version=22606,
        rocm="7.1.0",
    ),
    "xpu": Accelerator("xpu", "xpu", xpu="20250301"),
}
VARIANTS = tuple(ACCELERATORS)
# Directories the index generator no longer writes but never removed:
# pytorch/test-infra s3_management/manage_v2.py skips them
# (NOT_ACCEPTED_SUBDIR_PATTERNS), so their old pages stay and the prefix
# root still lists them.
LEGACY_DIRECTORIES = ("cpu-cxx11-abi",)
# The wheel-variant prefix (manage_v2.py PREFIXES has "whl/variant"):
# a separate index of PEP 825 variant wheels.
VARIANT_PREFIX = "variant"


@dataclasses.dataclass(frozen=True)
class Published:
    """One (variant, arch) cell of a release: the local label and platform
    tag its wheels carry, and which builder wrote their METADATA."""

    variant: str
    arch: str
    local: str | None
    platform: str
    # "legacy": the manylinux2014 builder's setuptools writes
    # `name (==1.0) ; marker` and `extra == 'x'` (observed for 2.6.0+cu124 in
    # pytorch#146679); "modern": `name==1.0; marker` and `extra == "x"`.
    style: str = "modern"


def manylinux_cells(*cells: str, unlabelled: tuple[str, ...] = ()) -> tuple[Published, ...]:
    """The 2026 generation's cells: "cu130/aarch64" is a manylinux_2_28 build of that variant
    labelled +cu130; those in `unlabelled` carry no local label (cu128's aarch64 domain wheels)."""
    out = []
    for cell in cells:
        variant, arch = cell.split("/")
        label = None if cell in unlabelled else variant
        out.append(Published(variant, arch, label, f"manylinux_2_28_{arch}"))
    return tuple(out)


CELLS_2_10 = ("cpu/x86_64", "cpu/aarch64", "cu128/x86_64", "cu128/aarch64", "cu129/x86_64",
              "cu130/x86_64", "cu130/aarch64", "rocm7.1/x86_64", "xpu/x86_64")
CELLS_2_12 = ("cpu/x86_64", "cpu/aarch64", "cu126/x86_64", "cu126/aarch64", "cu130/x86_64",
              "cu130/aarch64", "cu132/x86_64", "xpu/x86_64")


@dataclasses.dataclass(frozen=True)
class TorchRelease:
    version: str
    vision: str
    audio: str
    triton: str
    requires_python: str
    typing_extensions: str
    optree: str
    git_version: str
    pythons: tuple[str, ...]
    domain_pythons: tuple[str, ...]
    metadata_files: bool  # PEP 658 .metadata uploaded (torch >= 2.6, test-infra #6116)
    torch_cells: tuple[Published, ...]
    domain_cells: tuple[Published, ...]
    cusparselt: bool  # libtorch_cuda links libcusparseLt.so.0 (2.6, pytorch#138547)
    console_scripts: tuple[tuple[str, str], ...]
    # The 2026 generation: manylinux_2_28 everywhere, nvshmem and cufile,
    # no libnvToolsExt, CUDA 13 naming, Metadata-Version 2.4 (README).
    modern: bool = False
    eb_cuda12: str | None = None  # CUDA 12 module set its cu12x builds link, if not the variant's


# pytorch/test-infra tools/scripts/generate_binary_build_matrix.py (release
# matrix at each release): 2.5.x was published for cu118/cu121/cu124 and
# rocm6.1/6.2 (so NOT cu126 or rocm6.2.4); 2.6.0 for cu118/cu124/cu126 and
# rocm6.1/rocm6.2.4. Only 2.6.0+cu126 exists for CUDA on aarch64, tagged
# linux_aarch64 (observed on download.pytorch.org). ≤2.5 and the 2.6
# cpu/cu124 x86_64 wheels were built on the manylinux2014 image and tagged
# linux_x86_64 (pytorch#123649, pytorch#143962).
RELEASES = (
    TorchRelease(
        version="2.5.1",
        vision="0.20.1",
        audio="2.5.1",
        triton="3.1.0",
        requires_python=">=3.8.0",
        typing_extensions=">=4.8.0",
        optree=">=0.12.0",
        git_version="a8d6afb511a69687bbb2b7e88a3cf67917e1697e",
        pythons=ALL_PYTHONS,
        domain_pythons=NO_313,
        metadata_files=False,
        torch_cells=(
            Published("cpu", "x86_64", "cpu", "linux_x86_64", "legacy"),
            Published("cpu", "aarch64", None, "manylinux_2_17_aarch64.manylinux2014_aarch64", "legacy"),
            Published("cu124", "x86_64", "cu124", "linux_x86_64", "legacy"),
        ),
        domain_cells=(
            Published("cpu", "x86_64", "cpu", "linux_x86_64"),
            Published("cpu", "aarch64", None, "linux_aarch64"),
            Published("cu124", "x86_64", "cu124", "linux_x86_64"),
        ),
        cusparselt=False,
        console_scripts=(("torchrun", "torch.distributed.run:main"),),
    ),
    TorchRelease(
        version="2.6.0",
        vision="0.21.0",
        audio="2.6.0",
        triton="3.2.0",
        requires_python=">=3.9.0",
        typing_extensions=">=4.10.0",
        optree=">=0.13.0",
        git_version="1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340",
        pythons=ALL_PYTHONS,
        domain_pythons=ALL_PYTHONS,
        metadata_files=True,
        torch_cells=(
            Published("cpu", "x86_64", "cpu", "linux_x86_64", "legacy"),
            Published("cpu", "aarch64", "cpu", "manylinux_2_28_aarch64"),
            Published("cu124", "x86_64", "cu124", "linux_x86_64", "legacy"),
            Published("cu126", "x86_64", "cu126", "manylinux_2_28_x86_64"),
            Published("cu126", "aarch64", "cu126", "linux_aarch64"),
            Published("rocm6.2.4", "x86_64", "rocm6.2.4", "manylinux_2_28_x86_64"),
        ),
        # As observed on download.pytorch.org: domain wheels stay linux_x86_64
        # up to 0.22/2.7, and aarch64 domain wheels carry no local label (also
        # in the CUDA directories).
        domain_cells=(
            Published("cpu", "x86_64", "cpu", "linux_x86_64"),
            Published("cpu", "aarch64", None, "linux_aarch64"),
            Published("cu124", "x86_64", "cu124", "linux_x86_64"),
            Published("cu126", "x86_64", "cu126", "linux_x86_64"),
            Published("cu126", "aarch64", None, "linux_aarch64"),
            Published("rocm6.2.4", "x86_64", "rocm6.2.4", "linux_x86_64"),
        ),
        cusparselt=True,
        console_scripts=(
            ("torchfrtrace", "tools.flight_recorder.fr_trace:main"),
            ("torchrun", "torch.distributed.run:main"),
        ),
    ),
    # The 2026 generation. Variant directories per release: the release
    # matrix of pytorch .github/scripts/generate_binary_build_matrix.py in the
    # 2.10 cycle (CUDA_ARCHES 12.6/12.8/12.9/13.0, ROCM_ARCHES 7.0/7.1,
    # CUDA_AARCH64_ARCHES) and RELEASE.md's compatibility matrix for 2.12
    # (cu126, cu130, cu132; cu128 removed, pytorch#178665), narrowed to what
    # the sample needs: cp313 for 2.10 (EasyBuild 2025b's Python 3.13.5),
    # cp313 and cp314 for 2.12; cu129 x86_64 only; cu132 without an aarch64
    # wheel. Every file manylinux_2_28 with _GLIBCXX_USE_CXX11_ABI=1
    # (pytorch#149550). git_version: torch/version.py of the real wheels as
    # found in public dumps (2.10.0+cu128, 2.12.0+cu130).
    TorchRelease(
        version="2.10.0",
        vision="0.25.0",
        audio="2.10.0",
        triton="3.6.0",
        requires_python=">=3.10",
        typing_extensions=">=4.10.0",
        optree=">=0.13.0",
        git_version="449b1768410104d3ed79d3bcfe4ba1d65c7f22c0",
        pythons=("cp313",),
        domain_pythons=("cp313",),
        metadata_files=True,
        torch_cells=manylinux_cells(*CELLS_2_10),
        # In cu128 the aarch64 torchvision and torchaudio carry no +cu128
        # label while the x86_64 ones do (EasyBuild's
        # PyTorch-bundle-2.9.1-foss-2025a-CUDA-12.8.0-whl.eb downloads
        # them so from download.pytorch.org/whl/cu128).
        domain_cells=manylinux_cells(*CELLS_2_10, unlabelled=("cu128/aarch64",)),
        cusparselt=True,
        console_scripts=(
            ("torchfrtrace", "tools.flight_recorder.fr_trace:main"),
            ("torchrun", "torch.distributed.run:main"),
        ),
        modern=True,
    ),
    TorchRelease(
        version="2.12.0",
        vision="0.27.0",
        audio="2.12.0",
        triton="3.7.1",
        requires_python=">=3.10",
        typing_extensions=">=4.10.0",
        optree=">=0.13.0",
        git_version="7661cd9c6b841b62b7f411aa52ec51f05457263b",
        pythons=("cp313", "cp314"),
        domain_pythons=("cp313", "cp314"),
        metadata_files=True,
        torch_cells=manylinux_cells(*CELLS_2_12),
        domain_cells=manylinux_cells(*CELLS_2_12),
        cusparselt=True,
        console_scripts=(
            ("torchfrtrace", "tools.flight_recorder.fr_trace:main"),
            ("torchrun", "torch.distributed.run:main"),
        ),
        modern=True,
        eb_cuda12="12.9.1",
    ),
)
MODERN_RELEASES = tuple(r.version for r in RELEASES if r.modern)

# cu124: the torch 2.6.0 METADATA on PyPI (a cu124 build); cu126: the
# 2.6 nightly +cu126 METADATA quoted in uv#10119, matching pytorch
# .github/scripts/generate_binary_build_matrix.py for 2.6. 2.5.1+cu124 uses the
# same cu124 pins without cusparselt (README "Choices").
CUDA_PINS = {
    "cu124": (
        ("nvidia-cuda-nvrtc-cu12", "12.4.127"),
        ("nvidia-cuda-runtime-cu12", "12.4.127"),
        ("nvidia-cuda-cupti-cu12", "12.4.127"),
        ("nvidia-cudnn-cu12", "9.1.0.70"),
        ("nvidia-cublas-cu12", "12.4.5.8"),
        ("nvidia-cufft-cu12", "11.2.1.3"),
        ("nvidia-curand-cu12", "10.3.5.147"),
        ("nvidia-cusolver-cu12", "11.6.1.9"),
        ("nvidia-cusparse-cu12", "12.3.1.170"),
        ("nvidia-cusparselt-cu12", "0.6.2"),
        ("nvidia-nccl-cu12", "2.21.5"),
        ("nvidia-nvtx-cu12", "12.4.127"),
        ("nvidia-nvjitlink-cu12", "12.4.127"),
    ),
    "cu126": (
        ("nvidia-cuda-nvrtc-cu12", "12.6.77"),
        ("nvidia-cuda-runtime-cu12", "12.6.77"),
        ("nvidia-cuda-cupti-cu12", "12.6.80"),
        ("nvidia-cudnn-cu12", "9.5.1.17"),
        ("nvidia-cublas-cu12", "12.6.4.1"),
        ("nvidia-cufft-cu12", "11.3.0.4"),
        ("nvidia-curand-cu12", "10.3.7.77"),
        ("nvidia-cusolver-cu12", "11.7.1.2"),
        ("nvidia-cusparse-cu12", "12.5.4.2"),
        ("nvidia-cusparselt-cu12", "0.6.3"),
        ("nvidia-nccl-cu12", "2.21.5"),
        ("nvidia-nvtx-cu12", "12.6.77"),
        ("nvidia-nvjitlink-cu12", "12.6.85"),
    ),
}

# The 2026 generation's Requires-Dist pins (PYTORCH_EXTRA_INSTALL_REQUIREMENTS
# of pytorch .github/scripts/generate_binary_build_matrix.py in the 2.10
# cycle, the copy with CUDA_ARCHES 12.6/12.8/12.9/13.0; pytorch-index.md
# §3.4 quotes the 2.9 cu128 pins, which differ in cuDNN 9.10.2.21 and NCCL
# 2.27.5). 2.12 keeps the cu126 line (README "Choices"). CUDA 13 pins the
# versions of NVIDIA's real CUDA 13 wheels that the sample rebuilds from
# /usr/local/cuda (cuDNN 9.19.0.56 where the 2.10 matrix has 9.17.1.4), and
# cu132 pins the same (the real cu132 pins are not known here). All with
# platform_system == "Linux" only: 2.9+ dropped the x86_64 machine marker.
CUDA12_2026_PINS = {
    "cu126": (
        ("cuda-bindings", "==12.9.4"),
        ("nvidia-cuda-nvrtc-cu12", "==12.6.77"),
        ("nvidia-cuda-runtime-cu12", "==12.6.77"),
        ("nvidia-cuda-cupti-cu12", "==12.6.80"),
        ("nvidia-cudnn-cu12", "==9.10.2.21"),
        ("nvidia-cublas-cu12", "==12.6.4.1"),
        ("nvidia-cufft-cu12", "==11.3.0.4"),
        ("nvidia-curand-cu12", "==10.3.7.77"),
        ("nvidia-cusolver-cu12", "==11.7.1.2"),
        ("nvidia-cusparse-cu12", "==12.5.4.2"),
        ("nvidia-cusparselt-cu12", "==0.7.1"),
        ("nvidia-nccl-cu12", "==2.28.9"),
        ("nvidia-nvshmem-cu12", "==3.4.5"),
        ("nvidia-nvtx-cu12", "==12.6.77"),
        ("nvidia-nvjitlink-cu12", "==12.6.85"),
        ("nvidia-cufile-cu12", "==1.11.1.6"),
    ),
    "cu128": (
        ("cuda-bindings", "==12.9.4"),
        ("nvidia-cuda-nvrtc-cu12", "==12.8.93"),
        ("nvidia-cuda-runtime-cu12", "==12.8.90"),
        ("nvidia-cuda-cupti-cu12", "==12.8.90"),
        ("nvidia-cudnn-cu12", "==9.17.1.4"),
        ("nvidia-cublas-cu12", "==12.8.4.1"),
        ("nvidia-cufft-cu12", "==11.3.3.83"),
        ("nvidia-curand-cu12", "==10.3.9.90"),
        ("nvidia-cusolver-cu12", "==11.7.3.90"),
        ("nvidia-cusparse-cu12", "==12.5.8.93"),
        ("nvidia-cusparselt-cu12", "==0.7.1"),
        ("nvidia-nccl-cu12", "==2.28.9"),
        ("nvidia-nvshmem-cu12", "==3.4.5"),
        ("nvidia-nvtx-cu12", "==12.8.90"),
        ("nvidia-nvjitlink-cu12", "==12.8.93"),
        ("nvidia-cufile-cu12", "==1.13.1.3"),
    ),
    "cu129": (
        ("cuda-bindings", "==12.9.4"),
        ("nvidia-cuda-nvrtc-cu12", "==12.9.86"),
        ("nvidia-cuda-runtime-cu12", "==12.9.79"),
        ("nvidia-cuda-cupti-cu12", "==12.9.79"),
        ("nvidia-cudnn-cu12", "==9.17.1.4"),
        ("nvidia-cublas-cu12", "==12.9.1.4"),
        ("nvidia-cufft-cu12", "==11.4.1.4"),
        ("nvidia-curand-cu12", "==10.3.10.19"),
        ("nvidia-cusolver-cu12", "==11.7.5.82"),
        ("nvidia-cusparse-cu12", "==12.5.10.65"),
        ("nvidia-cusparselt-cu12", "==0.7.1"),
        ("nvidia-nccl-cu12", "==2.28.9"),
        ("nvidia-nvshmem-cu12", "==3.4.5"),
        ("nvidia-nvtx-cu12", "==12.9.79"),
        ("nvidia-nvjitlink-cu12", "==12.9.86"),
        ("nvidia-cufile-cu12", "==1.14.1.1"),
    ),
}
CUDA13_PINS = (
    ("cuda-bindings", "==13.0.3"),
    ("nvidia-cuda-nvrtc", "==13.0.88"),
    ("nvidia-cuda-runtime", "~=13.0.48"),
    ("nvidia-cuda-cupti", "==13.0.85"),
    ("nvidia-cudnn-cu13", "==9.19.0.56"),
    ("nvidia-cublas", "==13.1.0.3"),
    ("nvidia-cufft", "==12.0.0.61"),
    ("nvidia-curand", "==10.4.0.35"),
    ("nvidia-cusolver", "==12.0.4.66"),
    ("nvidia-cusparse", "==12.6.3.3"),
    ("nvidia-cusparselt-cu13", "==0.8.0"),
    ("nvidia-nccl-cu13", "==2.28.9"),
    ("nvidia-nvshmem-cu13", "==3.4.5"),
    ("nvidia-nvtx", "==13.0.85"),
    ("nvidia-nvjitlink", "==13.0.88"),
    ("nvidia-cufile", "==1.15.1.6"),
)
# XPU: the first Intel runtime pins of the same matrix ("xpu", no markers).
XPU_2026_PINS = (
    ("intel-cmplr-lib-rt", "==2025.3.1"),
    ("intel-cmplr-lib-ur", "==2025.3.1"),
    ("intel-cmplr-lic-rt", "==2025.3.1"),
    ("intel-sycl-rt", "==2025.3.1"),
)
LINUX = 'platform_system == "Linux"'

# Wheels whose index link carries no #sha256= fragment: prod pages have
# repeatedly shipped aarch64 wheels without one (pytorch#153469,
# uv#13195), plus one lone x86_64 wheel; and, in 2026, stable releases
# again (pytorch#164347).
NO_HASH_ON_INDEX = frozenset(
    {
        "torch-2.6.0+cu126-cp311-cp311-linux_aarch64.whl",
        "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl",
        "torch-2.6.0+cu126-cp313-cp313-linux_aarch64.whl",
        "torchaudio-2.5.1+cu124-cp311-cp311-linux_x86_64.whl",
        "torch-2.10.0+cu128-cp313-cp313-manylinux_2_28_aarch64.whl",
    }
)
# (project, version, variant) served from the second host, like the
# download-r2.pytorch.org links of the R2 packages (pytorch/test-infra
# s3_management/manage_v2.py, PT_R2_PACKAGES_PROD).
SECOND_HOST = frozenset({("torch", "2.6.0", "cu126")})
# Every file of these projects in the 2026 generation is served from the
# second host (PT_R2_PACKAGES_PROD; e.g. the cu130 torch page quoted in
# nvidia-holoscan/holohub#1717 links download-r2.pytorch.org/whl/cu130/).
R2_PROJECTS = frozenset(
    {"torch", "torchvision", "torchaudio", "triton", "pytorch_triton_rocm", "pytorch_triton_xpu"}
)
# The .metadata file served for this wheel has a line appended after the
# METADATA (pytorch#197552: "Checksum-SHA256: ..." on R2), while the page's
# data-core-metadata keeps the hash of the real METADATA.
CORRUPTED_METADATA = frozenset({"torchvision-0.25.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl"})


@dataclasses.dataclass(frozen=True)
class Wheel:
    """One wheel file of the sample index."""

    project: str  # distribution name as spelled in the file name
    version: str  # public version
    local: str | None
    python: str
    abi: str
    platform: str  # possibly a compressed tag set (PEP 425)
    location: str  # "variant": whl/<variant>/; "root": whl/; "mirror": PyPI-like packages/
    variant: str | None  # directory for location "variant"
    # Accelerator of the native code: a variant name for torch and the domain
    # libraries, "cuda"/"rocm" for the triton wheels, None for pure wheels.
    build: str | None
    arch: str | None
    style: str = "modern"
    metadata_file: bool = False
    release: str | None = None  # the torch release this wheel belongs to
    # PEP 825 variant label (the last file name component): a variant wheel,
    # whose files are those of the build with local label source_local.
    variant_label: str | None = None
    source_local: str | None = None
    # For location "mirror": the variant directories its page is copied
    # into (None: every directory, as sympy's).
    targets: tuple[str, ...] | None = None
    # NVIDIA CUDA 13 wheels: "whole" or "subset" (rebuilt from the real
    # wheel's installed files) or "stand-in" (README "Choices").
    contents: str | None = None

    @property
    def full_version(self) -> str:
        return f"{self.version}+{self.local}" if self.local else self.version

    @property
    def filename(self) -> str:
        stem = f"{self.project}-{self.full_version}-{self.python}-{self.abi}-{self.platform}"
        return stem + (f"-{self.variant_label}" if self.variant_label else "") + ".whl"

    @property
    def hash_on_index(self) -> bool:
        return self.filename not in NO_HASH_ON_INDEX

    @property
    def second_host(self) -> bool:
        if (self.project, self.version, self.variant) in SECOND_HOST:
            return True
        return self.release in MODERN_RELEASES and self.project in R2_PROJECTS

    @property
    def metadata_corrupted(self) -> bool:
        return self.filename in CORRUPTED_METADATA

    @property
    def tags(self) -> list[str]:
        """The expanded tag set, as the WHEEL file lists it."""
        return [
            f"{py}-{abi}-{plat}"
            for py in self.python.split(".")
            for abi in self.abi.split(".")
            for plat in self.platform.split(".")
        ]

    @property
    def purelib(self) -> bool:
        # NVIDIA's library wheels say Root-Is-Purelib: true although they
        # carry shared libraries, so where purelib and platlib differ they
        # land apart from torch (pytorch#144433).
        return self.build is None or self.project.startswith("nvidia_")


def _native(project, version, cell, python, release, location="variant"):
    return Wheel(
        project=project,
        version=version,
        local=cell.local,
        python=python,
        abi=python,
        platform=cell.platform,
        location=location,
        variant=cell.variant if location == "variant" else None,
        build=cell.variant,
        arch=cell.arch,
        style=cell.style,
        metadata_file=release.metadata_files and location == "variant",
        release=release.version,
    )


def wheels(tree=None) -> list[Wheel]:
    """Every wheel of the sample index, in a fixed order (the 2024/25 ones
    first, as before the 2026 generation was added). tree: the CUDA 13 tree
    (cuda13.Tree) the nvidia-* CUDA 13 wheels are rebuilt from, or None."""
    out = []
    for release in RELEASES:
        if release.modern:
            continue
        for cell in release.torch_cells:
            for python in release.pythons:
                out.append(_native("torch", release.version, cell, python, release))
        for project, version in (("torchvision", release.vision), ("torchaudio", release.audio)):
            for cell in release.domain_cells:
                for python in release.domain_pythons:
                    out.append(_native(project, version, cell, python, release))
        # triton and pytorch_triton_rocm live at the prefix root, so every
        # variant page lists them (manage.py gen_file_list); Linux x86_64
        # only. Triton 3.1.0 had no cp313 wheels (≤2.5 pins it with
        # python_version < "3.13", pytorch .circleci/scripts/binary_populate_env.sh).
        triton_pythons = release.domain_pythons if release.version == "2.5.1" else release.pythons
        for project, platform, build in (
            ("triton", "manylinux_2_17_x86_64.manylinux2014_x86_64", "cuda"),
            ("pytorch_triton_rocm", "linux_x86_64", "rocm"),
        ):
            cell = Published(build, "x86_64", None, platform)
            for python in triton_pythons:
                wheel = _native(project, release.triton, cell, python, release, location="root")
                out.append(wheel)
    out += nvidia_wheels()
    for version in ("3.3", "3.4.2"):
        out.append(_pure("networkx", version, "root"))
    for version in ("1.13.1", "1.13.3"):
        out.append(_pure("sympy", version, "mirror"))
    # sympy's one requirement (mpmath<1.4,>=1.1.0), mirrored from PyPI into
    # every directory as sympy is (update_dependencies.py PACKAGES_PER_PROJECT
    # "mpmath": [{"project": "torch"}], no target).
    out.append(_pure("mpmath", "1.3.0", "mirror"))
    return out + wheels_2026(tree)


# -- the 2026 generation ------------------------------------------------------

# Triton builds at the prefix root (compound tags as triton's own wheels:
# manylinux_2_27 + manylinux_2_28, EasyBuild's Triton-3.5.1 whl easyconfig
# and field-2026 §1): (project, build, architectures). 2.12 has no ROCm
# directory in the sample, so no pytorch_triton_rocm 3.7.1.
TRITON_2026 = {
    "2.10.0": (
        ("triton", "cuda", ("x86_64", "aarch64")),
        ("pytorch_triton_rocm", "rocm", ("x86_64",)),
        ("pytorch_triton_xpu", "xpu", ("x86_64",)),
    ),
    "2.12.0": (
        ("triton", "cuda", ("x86_64", "aarch64")),
        ("pytorch_triton_xpu", "xpu", ("x86_64",)),
    ),
}
# torchao's stable-ABI wheels (abi3, field-2026 §1), x86_64 only, in the CUDA
# directories of 2.10 that the sample models: (variant, local label).
TORCHAO = ("0.15.0", (("cu128", "cu128"), ("cu130", "cu130")))
# cuda-bindings, mirrored from PyPI into the CUDA directories
# (pytorch/test-infra s3_management/update_dependencies.py,
# PACKAGES_PER_PROJECT["cuda-bindings"] targets).
CUDA_BINDINGS = ("12.9.4", "13.0.3")
CUDA_BINDINGS_TARGETS = ("cu126", "cu128", "cu129", "cu130", "cu132")
# The nvidia-* CUDA 13 pages are copied into these (update_dependencies.py
# targets of "nvidia-cublas", ... : cu130, cu132).
CUDA13_TARGETS = ("cu130", "cu132")
# NVIDIA wheels this machine's CUDA 13 tree lacks: compiled stand-ins with
# the real SONAMEs (project, version, library arcname).
CUDA13_STAND_IN_WHEELS = (
    ("nvidia_cusparselt_cu13", "0.8.0", "nvidia/cusparselt/lib/libcusparseLt.so.0"),
    ("nvidia_nvshmem_cu13", "3.4.5", "nvidia/nvshmem/lib/libnvshmem_host.so.3"),
    ("nvidia_cufile", "1.15.1.6", "nvidia/cu13/lib/libcufile.so.0"),
)
STAND_IN_PLATFORM = "manylinux2014_x86_64.manylinux_2_17_x86_64"
# The PEP 825 variant wheels of whl/variant/ (the torch 2.10.0 variants
# announced on dev-discuss.pytorch.org, "Wheel variants for PyTorch release
# 2.10 published"), cp313 x86_64: label -> (the build it repackages,
# properties). The CPU build is the null variant (no properties).
VARIANT_LABELS = {
    "null": ("cpu", {}),
    "cu128": ("cu128", {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}),
    "cu130": ("cu130", {"nvidia": {"cuda_version_lower_bound": ["13.0"]}}),
}
# The one variant wheel a CUDA directory lists beside its ordinary wheels.
MIXED_VARIANT = ("cu128", "cu128")  # (directory, label)
VARIANT_SCHEMA = "https://variants-schema.wheelnext.dev/v0.0.3.json"


def _compound(arch: str) -> str:
    return f"manylinux_2_27_{arch}.manylinux_2_28_{arch}"


def wheels_2026(tree) -> list[Wheel]:
    out = []
    for release in RELEASES:
        if not release.modern:
            continue
        for cell in release.torch_cells:
            for python in release.pythons:
                out.append(_native("torch", release.version, cell, python, release))
        for project, version in (("torchvision", release.vision), ("torchaudio", release.audio)):
            for cell in release.domain_cells:
                for python in release.domain_pythons:
                    out.append(_native(project, version, cell, python, release))
        for project, build, arches in TRITON_2026[release.version]:
            for arch in arches:
                cell = Published(build, arch, None, _compound(arch))
                for python in release.pythons:
                    out.append(_native(project, release.triton, cell, python, release, "root"))
    release = release_of("2.10.0")
    for variant, local in TORCHAO[1]:
        cell = Published(variant, "x86_64", local, "manylinux_2_24_x86_64.manylinux_2_28_x86_64")
        wheel = _native("torchao", TORCHAO[0], cell, "cp310", release)
        out.append(dataclasses.replace(wheel, abi="abi3", metadata_file=False))
    for version in CUDA_BINDINGS:
        for arch in ("x86_64", "aarch64"):
            for python in ("cp313", "cp314"):
                out.append(
                    Wheel(
                        project="cuda_bindings",
                        version=version,
                        local=None,
                        python=python,
                        abi=python,
                        platform=f"manylinux_2_24_{arch}.manylinux_2_28_{arch}",
                        location="mirror",
                        variant=None,
                        build="cuda",
                        arch=arch,
                        metadata_file=True,
                        targets=CUDA_BINDINGS_TARGETS,
                    )
                )
    out += cuda13_wheels(tree)
    # sympy 1.14.0 as an object of the prefix root, listed on the mirrored
    # page as a retained wheel (update_dependencies.py append_retained_wheels;
    # EasyBuild's PyTorch 2.9.1 whl easyconfigs download sympy from /whl/).
    out.append(_pure("sympy", "1.14.0", "root"))
    # The legacy directory's one stale wheel (the 2.5 matrix still built
    # cpu-cxx11-abi; its files were never removed).
    legacy = Published("cpu", "x86_64", "cpu.cxx11.abi", "linux_x86_64", "legacy")
    wheel = _native("torch", "2.5.1", legacy, "cp312", release_of("2.5.1"))
    out.append(dataclasses.replace(wheel, variant=LEGACY_DIRECTORIES[0]))
    return out


def cuda13_wheels(tree) -> list[Wheel]:
    """nvidia-* CUDA 13 wheels: rebuilt from the tree where it has them,
    stand-ins for the three it lacks."""
    out = []
    found = []
    if tree is not None:
        for project, version in cuda13_tree_projects():
            entry = tree.wheels[project]
            found.append((project, version, entry.platform, "whole" if entry.whole else "subset"))
    found += [(p, v, STAND_IN_PLATFORM, "stand-in") for p, v, _ in CUDA13_STAND_IN_WHEELS]
    for project, version, platform, contents in found:
        out.append(
            Wheel(
                project=project,
                version=version,
                local=None,
                python="py3",
                abi="none",
                platform=platform,
                location="mirror",
                variant=None,
                build="cuda",
                arch="x86_64",
                metadata_file=True,
                targets=CUDA13_TARGETS,
                contents=contents,
            )
        )
    return out


def cuda13_tree_projects():
    return cuda13.EXPECTED


def variant_wheels() -> list[Wheel]:
    """The PEP 825 variant wheels: whl/variant/ and the one in MIXED_VARIANT's
    directory (a real index may mix them with ordinary wheels)."""
    release = release_of("2.10.0")
    out = []
    for label, (local, _) in VARIANT_LABELS.items():
        wheel = Wheel(
            project="torch",
            version=release.version,
            local=None,
            python="cp313",
            abi="cp313",
            platform="manylinux_2_28_x86_64",
            location="variant",
            variant=VARIANT_PREFIX,
            build=local,
            arch="x86_64",
            metadata_file=False,
            release=release.version,
            variant_label=label,
            source_local=local,
        )
        out.append(wheel)
        if label == MIXED_VARIANT[1]:
            out.append(dataclasses.replace(wheel, variant=MIXED_VARIANT[0]))
    return out


def variants_json(labels) -> dict:
    """{name}-{version}-variants.json (PEP 825 "Index-level metadata")."""
    return {
        "$schema": VARIANT_SCHEMA,
        "default-priorities": {"namespace": ["nvidia"]},
        "variants": {label: VARIANT_LABELS[label][1] for label in labels},
    }


def variant_json(label) -> dict:
    """*.dist-info/variant.json of one variant wheel (PEP 825)."""
    return variants_json([label])


# nvidia-* wheels the torch index serves as its own S3 objects in a variant
# directory (whl/cu124/nvidia_cudnn_cu12-9.1.0.70-…whl, pytorch#193491), with
# a #sha256= fragment. Only the one library that has no module in every
# sample toolchain generation: (project, version, variant, {arch: platform}).
# The version is the cu126 torch 2.6 pin (CUDA_PINS); NVIDIA publishes it for
# both architectures as plain manylinux2014 tags.
NVIDIA_WHEELS = (
    (
        "nvidia_cusparselt_cu12",
        "0.6.3",
        "cu126",
        {"x86_64": "manylinux2014_x86_64", "aarch64": "manylinux2014_aarch64"},
    ),
)


def nvidia_wheels() -> list[Wheel]:
    out = []
    for project, version, variant, platforms in NVIDIA_WHEELS:
        for arch, platform in platforms.items():
            out.append(
                Wheel(
                    project=project,
                    version=version,
                    local=None,
                    python="py3",
                    abi="none",
                    platform=platform,
                    location="variant",
                    variant=variant,
                    build=variant,
                    arch=arch,
                    # As the 2.6 generation of the same directory (README "Choices").
                    metadata_file=True,
                )
            )
    return out


def _pure(project, version, location):
    # PyPI serves PEP 658 metadata for these; the torch index's own copies
    # of networkx predate .metadata uploads.
    return Wheel(
        project=project,
        version=version,
        local=None,
        python="py3",
        abi="none",
        platform="any",
        location=location,
        variant=None,
        build=None,
        arch=None,
        metadata_file=location == "mirror",
    )


def release_of(version: str) -> TorchRelease:
    return next(r for r in RELEASES if version in (r.version, r.vision, r.audio, r.triton))


_UNRELEASED = TorchRelease(
    "", "", "", "", "", "", "", "", (), (), False, (), (), False, (), modern=False
)


def release_of_wheel(wheel: Wheel) -> TorchRelease:
    """The torch release a wheel belongs to; for the wheels of no release
    (nvidia-*, pure ones) the generation they were added with."""
    if wheel.release:
        return release_of(wheel.release)
    new = wheel.project in ("cuda_bindings",) or wheel.contents or wheel.version == "1.14.0"
    return RELEASES[-1] if new else _UNRELEASED


# Requires-Python of the pure wheels, and the data-requires-python value
# their index links carry (PyPI copies it; the torch index hard-codes
# ">=3.10" for networkx 3.3 / 3.4.2, pytorch#152191). None: the METADATA
# has no Requires-Python and PyPI's link no data-requires-python (mpmath
# 1.3.0's setup.cfg sets no python_requires).
PURE_REQUIRES_PYTHON = {"networkx": ">=3.10", "sympy": ">=3.8", "mpmath": None}


# -- METADATA ----------------------------------------------------------------


def _legacy_marker(marker):
    """Old bdist_wheel wrote `extra == 'x'` with single quotes."""
    if marker.startswith('extra == "'):
        return "extra == '" + marker[len('extra == "') : -1] + "'"
    return marker


def requirement(style, name, spec="", marker=""):
    """One Requires-Dist value as the wheel's builder wrote it (Published.style)."""
    if style == "legacy":
        text = f"{name} ({spec})" if spec else name
        return text + (f" ; {_legacy_marker(marker)}" if marker else "")
    return f"{name}{spec}" + (f"; {marker}" if marker else "")


def torch_requires(wheel: Wheel) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(Requires-Dist without extras, [(extra, its Requires-Dist)])."""
    release = release_of(wheel.version)
    if release.modern:
        return torch_requires_2026(wheel, release)
    accel = ACCELERATORS[wheel.build]
    style = wheel.style
    reqs = [
        requirement(style, "filelock"),
        requirement(style, "typing-extensions", release.typing_extensions),
        requirement(style, "networkx"),
        requirement(style, "jinja2"),
        requirement(style, "fsspec"),
    ]
    # The aarch64 2.6.0+cu126 wheel lacks every nvidia-* requirement, and the
    # triton one with them (uv#14540; fixed in 2.7 by pytorch#145021).
    if accel.kind == "cuda" and wheel.arch == "x86_64":
        for name, pin in CUDA_PINS[wheel.build]:
            if name == "nvidia-cusparselt-cu12" and not release.cusparselt:
                continue
            reqs.append(requirement(style, name, "==" + pin, LINUX_X86_64))
        triton_marker = LINUX_X86_64
        if release.version == "2.5.1":
            triton_marker += ' and python_version < "3.13"'
        reqs.append(requirement(style, "triton", "==" + release.triton, triton_marker))
    elif accel.kind == "rocm":
        reqs.append(requirement(style, "pytorch-triton-rocm", "==" + release.triton, LINUX_X86_64))
    reqs.append(requirement(style, "setuptools", "", 'python_version >= "3.12"'))
    reqs.append(requirement(style, "sympy", "==1.13.1", 'python_version >= "3.9"'))
    extras = [
        ("opt-einsum", [requirement(style, "opt-einsum", ">=3.3", 'extra == "opt-einsum"')]),
        ("optree", [requirement(style, "optree", release.optree, 'extra == "optree"')]),
    ]
    return reqs, extras


def cuda_pins(variant: str) -> tuple[tuple[str, str], ...]:
    """The nvidia-* (and cuda-bindings) pins of a 2026 CUDA build."""
    if ACCELERATORS[variant].cuda_major == 13:
        return CUDA13_PINS
    return CUDA12_2026_PINS[variant]


def torch_requires_2026(wheel, release):
    """Today's torch METADATA (pytorch-index.md §3.5, the 2.14.0+cu130 one,
    without its cuda-toolkit[...] form): the pure dependencies, then the
    accelerator's, all nvidia-* pins on every architecture."""
    accel = ACCELERATORS[wheel.build]
    reqs = [
        "filelock",
        f"typing-extensions{release.typing_extensions}",
        "setuptools>=77.0.3",
        "sympy>=1.13.3",
        "networkx>=2.5.1",
        "jinja2",
        "fsspec>=0.8.5",
    ]
    if accel.kind == "cuda":
        reqs += [f"{name}{spec}; {LINUX}" for name, spec in cuda_pins(wheel.build)]
        reqs.append(f"triton=={release.triton}; {LINUX}")
    elif accel.kind == "rocm":
        # pytorch-index.md §3.6: the ROCm builds' only GPU dependency.
        reqs.append(f"pytorch-triton-rocm=={release.triton}; {LINUX_X86_64}")
    elif accel.kind == "xpu":
        reqs += [f"{name}{spec}" for name, spec in XPU_2026_PINS]
        reqs.append(f"pytorch-triton-xpu=={release.triton}; {LINUX}")
    extras = [
        ("optree", [f'optree{release.optree}; extra == "optree"']),
        ("opt-einsum", ['opt-einsum>=3.3; extra == "opt-einsum"']),
        ("pyyaml", ['pyyaml; extra == "pyyaml"']),
    ]
    return reqs, extras


def _headers(fields):
    return "".join(f"{key}: {value}\n" for key, value in fields)


def _classifiers(pythons):
    return [("Classifier", "Programming Language :: Python :: 3")] + [
        ("Classifier", f"Programming Language :: Python :: {p}") for p in pythons
    ]


SAMPLE_NOTE = (
    "This is a tiny sample wheel generated by wheelmod's index-mirrors/sample.\n"
    "It has the layout, metadata and shared-library structure of the real\n"
    "wheel of the same name, but none of its functionality.\n"
)


def metadata(wheel: Wheel) -> str:
    """The wheel's .dist-info/METADATA text (core metadata 2.1)."""
    if wheel.project == "torch" and release_of(wheel.version).modern:
        return torch_metadata_2026(wheel)
    if wheel.project == "torch":
        release = release_of(wheel.version)
        reqs, extras = torch_requires(wheel)
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", "torch"),
            ("Version", wheel.full_version),
            ("Summary", "Tensors and Dynamic neural networks in Python with strong GPU acceleration"),
            ("Home-page", "https://pytorch.org/"),
            ("Download-URL", "https://github.com/pytorch/pytorch/tags"),
            ("Author", "PyTorch Team"),
            ("Author-email", "packages@pytorch.org"),
            ("License", "BSD-3-Clause"),
            ("Keywords", "pytorch,machine learning"),
            ("Classifier", "Development Status :: 5 - Production/Stable"),
            ("Classifier", "License :: OSI Approved :: BSD License"),
            *_classifiers(["3.9", "3.10", "3.11", "3.12", "3.13"]),
            ("Requires-Python", release.requires_python),
            ("Description-Content-Type", "text/markdown"),
            ("License-File", "LICENSE"),
            ("License-File", "NOTICE"),
        ]
        fields += [("Requires-Dist", r) for r in reqs]
        for extra, extra_reqs in extras:
            fields.append(("Provides-Extra", extra))
            fields += [("Requires-Dist", r) for r in extra_reqs]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project in ("torchvision", "torchaudio"):
        release = release_of(wheel.version)
        if wheel.project == "torchvision":
            fields = [
                ("Metadata-Version", "2.1"),
                ("Name", "torchvision"),
                ("Version", wheel.full_version),
                ("Summary", "image and video datasets and models for torch deep learning"),
                ("Home-page", "https://github.com/pytorch/vision"),
                ("Author", "PyTorch Core Team"),
                ("Author-email", "soumith@pytorch.org"),
                ("License", "BSD"),
                ("Requires-Python", ">=3.10" if release.modern else ">=3.9"),
                ("Description-Content-Type", "text/markdown"),
                ("License-File", "LICENSE"),
                ("Requires-Dist", "numpy"),
                ("Requires-Dist", f"torch=={release.version}"),
                ("Requires-Dist", "pillow!=8.3.*,>=5.3.0"),
                ("Provides-Extra", "gdown"),
                ("Requires-Dist", 'gdown>=4.7.3; extra == "gdown"'),
                ("Provides-Extra", "scipy"),
                ("Requires-Dist", 'scipy; extra == "scipy"'),
            ]
        else:
            fields = [
                ("Metadata-Version", "2.1"),
                ("Name", "torchaudio"),
                ("Version", wheel.full_version),
                ("Summary", "An audio package for PyTorch"),
                ("Home-page", "https://github.com/pytorch/audio"),
                ("Author", "Soumith Chintala, David Pollack, Sean Naren, Peter Goldsborough, Moto Hira"),
                ("Author-email", "soumith@pytorch.org"),
                ("Classifier", "License :: OSI Approved :: BSD License"),
                *_classifiers(["3.9", "3.10", "3.11", "3.12"]),
                ("Description-Content-Type", "text/markdown"),
                ("License-File", "LICENSE"),
                ("Requires-Dist", f"torch=={release.version}"),
            ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project in ("triton", "pytorch_triton_rocm", "pytorch_triton_xpu"):
        name = wheel.project.replace("_", "-")
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", name),
            ("Version", wheel.full_version),
            ("Summary", "A language and compiler for custom Deep Learning operations"),
            ("Home-page", "https://github.com/triton-lang/triton/"),
            ("Author", "Philippe Tillet"),
            ("Author-email", "phil@openai.com"),
            ("Keywords", "Compiler, Deep Learning"),
            ("Classifier", "License :: OSI Approved :: MIT License"),
            *_classifiers(["3.9", "3.10", "3.11", "3.12", "3.13"]),
        ]
        if wheel.version == "3.1.0":
            fields.append(("Requires-Dist", "filelock"))
        fields += [
            ("Provides-Extra", "build"),
            ("Requires-Dist", 'cmake>=3.20; extra == "build"'),
            ("Requires-Dist", 'lit; extra == "build"'),
            ("Provides-Extra", "tests"),
            ("Requires-Dist", 'numpy; extra == "tests"'),
            ("Requires-Dist", 'pytest; extra == "tests"'),
            ("Provides-Extra", "tutorials"),
            ("Requires-Dist", 'matplotlib; extra == "tutorials"'),
            ("Requires-Dist", 'pandas; extra == "tutorials"'),
            ("Requires-Dist", 'tabulate; extra == "tutorials"'),
        ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project == "networkx":
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", "networkx"),
            ("Version", wheel.version),
            ("Summary", "Python package for creating and manipulating graphs and networks"),
            ("Author-email", "Aric Hagberg <hagberg@lanl.gov>"),
            ("License", "BSD-3-Clause"),
            ("Requires-Python", PURE_REQUIRES_PYTHON["networkx"]),
            ("Description-Content-Type", "text/x-rst"),
            ("License-File", "LICENSE.txt"),
            ("Provides-Extra", "default"),
            ("Requires-Dist", 'numpy>=1.23; extra == "default"'),
            ("Requires-Dist", 'scipy!=1.11.0,!=1.11.1,>=1.9; extra == "default"'),
            ("Requires-Dist", 'matplotlib>=3.7; extra == "default"'),
            ("Requires-Dist", 'pandas>=2.0; extra == "default"'),
            ("Provides-Extra", "test"),
            ("Requires-Dist", 'pytest>=7.2; extra == "test"'),
        ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project == "sympy":
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", "sympy"),
            ("Version", wheel.version),
            ("Summary", "Computer algebra system (CAS) in Python"),
            ("Home-page", "https://sympy.org"),
            ("Author", "SymPy development team"),
            ("Author-email", "sympy@googlegroups.com"),
            ("License", "BSD"),
            (
                "Requires-Python",
                ">=3.9" if wheel.version == "1.14.0" else PURE_REQUIRES_PYTHON["sympy"],
            ),
            ("Description-Content-Type", "text/markdown"),
            ("License-File", "LICENSE"),
            ("Requires-Dist", "mpmath<1.4,>=1.1.0"),
            ("Provides-Extra", "dev"),
            ("Requires-Dist", 'pytest>=7.1.0; extra == "dev"'),
            ("Requires-Dist", 'hypothesis>=6.70.0; extra == "dev"'),
        ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project == "mpmath":
        # The real mpmath-1.3.0-py3-none-any.whl's METADATA (setuptools and
        # bdist_wheel 0.38.4: no Requires-Python, Provides-Extra regenerated
        # from requires.txt after License-File, extras sorted, legacy
        # `name (>=x) ; marker` form with the extra's condition in parentheses).
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", "mpmath"),
            ("Version", wheel.version),
            ("Summary", "Python library for arbitrary-precision floating-point arithmetic"),
            ("Home-page", "http://mpmath.org/"),
            ("Author", "Fredrik Johansson"),
            ("Author-email", "fredrik.johansson@gmail.com"),
            ("License", "BSD"),
            ("Project-URL", "Source, https://github.com/fredrik-johansson/mpmath"),
            ("Project-URL", "Tracker, https://github.com/fredrik-johansson/mpmath/issues"),
            ("Project-URL", "Documentation, http://mpmath.org/doc/current/"),
            ("Classifier", "License :: OSI Approved :: BSD License"),
            ("Classifier", "Topic :: Scientific/Engineering :: Mathematics"),
            ("Classifier", "Topic :: Software Development :: Libraries :: Python Modules"),
            ("Classifier", "Programming Language :: Python"),
            ("Classifier", "Programming Language :: Python :: 2"),
            ("Classifier", "Programming Language :: Python :: 2.7"),
            *_classifiers(["3.5", "3.6", "3.7", "3.8", "3.9"]),
            ("Classifier", "Programming Language :: Python :: Implementation :: CPython"),
            ("Classifier", "Programming Language :: Python :: Implementation :: PyPy"),
            ("License-File", "LICENSE"),
            ("Provides-Extra", "develop"),
            ("Requires-Dist", "pytest (>=4.6) ; extra == 'develop'"),
            ("Requires-Dist", "pycodestyle ; extra == 'develop'"),
            ("Requires-Dist", "pytest-cov ; extra == 'develop'"),
            ("Requires-Dist", "codecov ; extra == 'develop'"),
            ("Requires-Dist", "wheel ; extra == 'develop'"),
            ("Provides-Extra", "docs"),
            ("Requires-Dist", "sphinx ; extra == 'docs'"),
            ("Provides-Extra", "gmpy"),
            (
                "Requires-Dist",
                "gmpy2 (>=2.1.0a4) ; (platform_python_implementation != \"PyPy\") and extra == 'gmpy'",
            ),
            ("Provides-Extra", "tests"),
            ("Requires-Dist", "pytest (>=4.6) ; extra == 'tests'"),
        ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project == "nvidia_cusparselt_cu12":
        # The fields `pip show nvidia-cusparselt-cu12` prints, in the layout
        # of NVIDIA's other CUDA wheels (README "Choices").
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", "nvidia-cusparselt-cu12"),
            ("Version", wheel.version),
            ("Summary", "NVIDIA cuSPARSELt"),
            ("Home-page", "https://developer.nvidia.com/cusparselt"),
            ("Author", "NVIDIA Corporation"),
            ("Author-email", "cuda_installer@nvidia.com"),
            ("License", "NVIDIA Proprietary Software"),
            ("Keywords", "cuda,nvidia,runtime,machine learning,deep learning"),
            ("Classifier", "Development Status :: 4 - Beta"),
            ("Classifier", "Intended Audience :: Developers"),
            ("Classifier", "Intended Audience :: Science/Research"),
            ("Classifier", "License :: Other/Proprietary License"),
            ("Classifier", "Natural Language :: English"),
            ("Classifier", "Programming Language :: Python :: 3"),
            ("Classifier", "Topic :: Scientific/Engineering"),
            ("Classifier", "Topic :: Software Development :: Libraries"),
            ("Classifier", "Operating System :: POSIX :: Linux"),
            ("Requires-Python", ">=3"),
            ("License-File", "License.txt"),
        ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project in ("torchao", "cuda_bindings") or wheel.contents == "stand-in":
        return metadata_2026(wheel)
    raise ValueError(f"no metadata for {wheel.project}")


def torch_metadata_2026(wheel: Wheel) -> str:
    """Core metadata 2.4 as setuptools >= 77 writes it for torch (field
    order of the 2.14.0+cu130 METADATA, pytorch-index.md §3.5)."""
    release = release_of(wheel.version)
    reqs, extras = torch_requires(wheel)
    fields = [
        ("Metadata-Version", "2.4"),
        ("Name", "torch"),
        ("Version", wheel.full_version),
        ("Summary", "Tensors and Dynamic neural networks in Python with strong GPU acceleration"),
        ("Author-email", "PyTorch Team <packages@pytorch.org>"),
        ("License-Expression", "BSD-3-Clause"),
        ("Project-URL", "Homepage, https://pytorch.org"),
        ("Project-URL", "Repository, https://github.com/pytorch/pytorch"),
        ("Keywords", "pytorch,machine learning"),
        ("Classifier", "Development Status :: 5 - Production/Stable"),
        *_classifiers(["3.10", "3.11", "3.12", "3.13", "3.14"]),
        ("Requires-Python", release.requires_python),
        ("Description-Content-Type", "text/markdown"),
        ("License-File", "LICENSE"),
        ("License-File", "NOTICE"),
    ]
    fields += [("Requires-Dist", r) for r in reqs]
    for extra, extra_reqs in extras:
        fields.append(("Provides-Extra", extra))
        fields += [("Requires-Dist", r) for r in extra_reqs]
    return _headers(fields) + "\n" + SAMPLE_NOTE


# Summaries of the stand-in NVIDIA wheels, in the style of the real CUDA 13
# wheels' METADATA (nvidia-cuda-runtime 13.0.96 in the tree).
STAND_IN_SUMMARY = {
    "nvidia_cusparselt_cu13": "NVIDIA cuSPARSELt",
    "nvidia_nvshmem_cu13": "NVSHMEM creates a global address space for data that spans the "
    "memory of multiple GPUs",
    "nvidia_cufile": "cuFile GPUDirect libraries",
}


def metadata_2026(wheel: Wheel) -> str:
    if wheel.project == "torchao":
        fields = [
            ("Metadata-Version", "2.1"),
            ("Name", "torchao"),
            ("Version", wheel.full_version),
            ("Summary", "Package for applying ao techniques to GPU models"),
            ("Home-page", "https://github.com/pytorch/ao"),
            ("License", "BSD-3-Clause"),
            ("Requires-Python", ">=3.10"),
            ("Description-Content-Type", "text/markdown"),
            ("License-File", "LICENSE"),
            ("Provides-Extra", "dev"),
            ("Requires-Dist", 'pytest; extra == "dev"'),
        ]
    elif wheel.project == "cuda_bindings":
        fields = [
            ("Metadata-Version", "2.4"),
            ("Name", "cuda-bindings"),
            ("Version", wheel.version),
            ("Summary", "Python bindings for CUDA"),
            ("Author-email", "NVIDIA Corporation <cuda-python-conduct@nvidia.com>"),
            ("License-Expression", "LicenseRef-NVIDIA-SOFTWARE-LICENSE"),
            ("Requires-Python", ">=3.10"),
            ("Description-Content-Type", "text/x-rst"),
            ("License-File", "LICENSE"),
        ]
    else:
        fields = [
            ("Metadata-Version", "2.4"),
            ("Name", wheel.project.replace("_", "-")),
            ("Version", wheel.version),
            ("Summary", STAND_IN_SUMMARY[wheel.project]),
            ("Home-page", "https://developer.nvidia.com/cuda-zone"),
            ("Author", "Nvidia CUDA Installer Team"),
            ("Author-email", "compute_installer@nvidia.com"),
            ("License-Expression", "LicenseRef-NVIDIA-Proprietary"),
            ("Keywords", "cuda,nvidia,runtime,machine learning,deep learning"),
            ("Classifier", "Operating System :: POSIX :: Linux"),
            ("Requires-Python", ">=3"),
            ("License-File", "License.txt"),
        ]
    return _headers(fields) + "\n" + SAMPLE_NOTE


def data_requires_python(wheel: Wheel) -> str | None:
    """The data-requires-python value of the wheel's index link: what PyPI
    gives for mirrored pages, the hard-coded one for networkx at the root,
    nothing for the rest (retained root files included)."""
    if wheel.location == "mirror":
        return MIRROR_REQUIRES_PYTHON[wheel.project]
    if wheel.location == "root" and wheel.project == "networkx":
        return PURE_REQUIRES_PYTHON["networkx"]
    return None


MIRROR_REQUIRES_PYTHON = {
    "sympy": ">=3.8",
    "mpmath": PURE_REQUIRES_PYTHON["mpmath"],
    "cuda_bindings": ">=3.10",
    **{p: ">=3" for p, _ in cuda13_tree_projects()},
    **{p: ">=3" for p, _, _ in CUDA13_STAND_IN_WHEELS},
}


def wheel_file(wheel: Wheel) -> str:
    """The .dist-info/WHEEL text as bdist_wheel 0.45.1 writes it."""
    modern = wheel.release in MODERN_RELEASES and wheel.project in R2_PROJECTS
    fields = [
        ("Wheel-Version", "1.0"),
        # setuptools >= 70.1 writes wheels itself (no separate `wheel`).
        ("Generator", "setuptools (80.9.0)" if modern else "bdist_wheel (0.45.1)"),
        ("Root-Is-Purelib", "true" if wheel.purelib else "false"),
    ]
    fields += [("Tag", tag) for tag in wheel.tags]
    return _headers(fields) + "\n"
