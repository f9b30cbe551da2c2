"""The facts table: what download.pytorch.org publishes for each torch release
the sample models, one row per release x variant directory.

Plain data. The generator (catalogue.py) builds the sample from it and
verify.py checks the built index against it. Each row names its public
sources; where a value is not read from a source but inferred, the row's
`inferred` says which and why. Choices that are the sample's own (what it
leaves out, file versions nobody publishes) are in README.md ("Choices").

Requires-Dist lines are written exactly as torch's METADATA has them, in
the order they appear, for the accelerator's part (between the pure
dependencies and the extras). The 2024/25 wheels from the manylinux2014
builder spell them the old way (`name (==1.0) ; marker`, `extra == 'x'`):
those cells say style "legacy", and their lines here are in the modern
spelling, which that style rewrites (README "Metadata").
"""

import dataclasses

# -- sources ----------------------------------------------------------------------

RELEASE_MD = "pytorch/pytorch RELEASE.md, Release Compatibility Matrix"
TI_MATRIX = (
    "pytorch/test-infra tools/scripts/generate_binary_build_matrix.py (release matrix at the "
    "release)"
)
PT_MATRIX_2_10 = (
    "pytorch/pytorch .github/scripts/generate_binary_build_matrix.py in the 2.10 cycle "
    "(CUDA_ARCHES 12.6/12.8/12.9/13.0, ROCM_ARCHES 7.0/7.1, CUDA aarch64 builds)"
)
RELEASE_VERSIONS = "pytorch/test-infra release/release_versions.sh (history)"
REPACKAGE_AUDIO = "pytorch/test-infra release/repackage_torchaudio_cu130_to_cu132.py"
TOOLKIT_FORM = "pytorch#174390 (Feb 2026: the cuda-toolkit metapackage with extras, from 2.11)"
NO_HASH = "pytorch#173099, pytorch#181056 (links without #sha256=)"
CU128_REMOVED = "pytorch#178665 (cu128 removed for 2.12)"
METADATA_2_12_1 = "torch-2.12.1+cu130 METADATA (downloaded from download.pytorch.org, quoted publicly)"
METADATA_2_14_0 = "torch-2.14.0+cu130 METADATA (downloaded from download.pytorch.org, quoted publicly)"
METADATA_2_10_0 = (
    "torch-2.10.0+cu128/+cu130 METADATA (installed-environment listings and downloaded METADATA "
    "quoted publicly)"
)
TRITON_ROCM = (
    "download.pytorch.org/whl/triton_rocm-3.6.0-cp313-cp313-linux_x86_64.whl (root-level file, "
    "plain linux_x86_64 tag, no #sha256=; pytorch#173099)"
)
VISION_README = "pytorch/vision README, compatibility table"
PYPI_2_6 = "torch 2.6.0 METADATA on PyPI (a cu124 build); the 2.6 +cu126 METADATA quoted in uv#10119"
UV_14540 = "uv#14540 (the aarch64 2.6.0+cu126 METADATA has no nvidia-* and no triton requirement)"
ISSUE_153469 = "pytorch#153469, uv#13195 (aarch64 links without #sha256=)"
ISSUE_164347 = "pytorch#164347 (stable links without #sha256= after 2.6)"
POPULATE_ENV = "pytorch .circleci/scripts/binary_populate_env.sh (triton pin and marker)"


# -- the pieces of a row ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Cell:
    """One architecture of a row: the local label and platform tag of its files and
    the spelling of their METADATA ("modern" or "legacy")."""

    arch: str
    local: str | None
    platform: str
    style: str = "modern"


def m28(variant: str, *arches: str, unlabelled: tuple[str, ...] = ()) -> tuple[Cell, ...]:
    """The 2026 cells: manylinux_2_28_<arch>, labelled +<variant> (not the arches in
    `unlabelled`)."""
    return tuple(
        Cell(arch, None if arch in unlabelled else variant, f"manylinux_2_28_{arch}")
        for arch in arches
    )


@dataclasses.dataclass(frozen=True)
class Row:
    """One release x variant directory."""

    variant: str
    torch: tuple[Cell, ...]  # the torch files (one per Python tag of the release)
    domain: tuple[Cell, ...]  # torchvision / torchaudio files
    requires: tuple[str, ...]  # the accelerator's Requires-Dist lines, exactly
    sources: tuple[str, ...]
    inferred: str = ""  # what of the row is inferred rather than read, and why
    # Requires-Dist of the aarch64 torch files where it differs (2.6.0+cu126: none).
    requires_aarch64: tuple[str, ...] | None = None
    # Architectures whose torch links carry no #sha256= (every Python tag).
    hashless: tuple[str, ...] = ()

    def requires_for(self, arch: str) -> tuple[str, ...]:
        if arch == "aarch64" and self.requires_aarch64 is not None:
            return self.requires_aarch64
        return self.requires


@dataclasses.dataclass(frozen=True)
class Release:
    version: str
    date: str
    vision: str | None
    audio: str | None  # None: no torchaudio in the release set
    requires_python: str
    # The triton version the CUDA builds pin (triton-rocm / pytorch-triton-xpu the same).
    triton: str
    pythons: tuple[str, ...]  # torch's Python tags
    domain_pythons: tuple[str, ...]
    head: tuple[str, ...]  # the pure Requires-Dist before the accelerator's
    tail: tuple[str, ...]  # after them (2.5/2.6: setuptools, sympy)
    extras: tuple[tuple[str, tuple[str, ...]], ...]  # (Provides-Extra, its Requires-Dist)
    rows: tuple[Row, ...]
    sources: tuple[str, ...]
    inferred: str = ""
    # torchaudio's requirement on torch, when not torch==<version>.
    audio_requires: str | None = None

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(row.variant for row in self.rows)

    def row(self, variant: str) -> Row:
        return next(row for row in self.rows if row.variant == variant)


LINUX = 'platform_system == "Linux"'
LINUX_X86_64 = 'platform_system == "Linux" and platform_machine == "x86_64"'
BELOW_315 = 'platform_system == "Linux" and python_version < "3.15"'


def pins(names_versions, marker=LINUX):
    return tuple(f"{name}{spec}; {marker}" for name, spec in names_versions)


# -- 2024/25 ------------------------------------------------------------------------

# The cu124 pins of the torch 2.6.0 METADATA on PyPI; the cu126 ones of the 2.6 +cu126
# METADATA quoted in uv#10119 (matching the 2.6 release matrix).
CU124_PINS = (
    ("nvidia-cuda-nvrtc-cu12", "==12.4.127"),
    ("nvidia-cuda-runtime-cu12", "==12.4.127"),
    ("nvidia-cuda-cupti-cu12", "==12.4.127"),
    ("nvidia-cudnn-cu12", "==9.1.0.70"),
    ("nvidia-cublas-cu12", "==12.4.5.8"),
    ("nvidia-cufft-cu12", "==11.2.1.3"),
    ("nvidia-curand-cu12", "==10.3.5.147"),
    ("nvidia-cusolver-cu12", "==11.6.1.9"),
    ("nvidia-cusparse-cu12", "==12.3.1.170"),
    ("nvidia-cusparselt-cu12", "==0.6.2"),
    ("nvidia-nccl-cu12", "==2.21.5"),
    ("nvidia-nvtx-cu12", "==12.4.127"),
    ("nvidia-nvjitlink-cu12", "==12.4.127"),
)
CU126_PINS_2_6 = (
    ("nvidia-cuda-nvrtc-cu12", "==12.6.77"),
    ("nvidia-cuda-runtime-cu12", "==12.6.77"),
    ("nvidia-cuda-cupti-cu12", "==12.6.80"),
    ("nvidia-cudnn-cu12", "==9.5.1.17"),
    ("nvidia-cublas-cu12", "==12.6.4.1"),
    ("nvidia-cufft-cu12", "==11.3.0.4"),
    ("nvidia-curand-cu12", "==10.3.7.77"),
    ("nvidia-cusolver-cu12", "==11.7.1.2"),
    ("nvidia-cusparse-cu12", "==12.5.4.2"),
    ("nvidia-cusparselt-cu12", "==0.6.3"),
    ("nvidia-nccl-cu12", "==2.21.5"),
    ("nvidia-nvtx-cu12", "==12.6.77"),
    ("nvidia-nvjitlink-cu12", "==12.6.85"),
)
HEAD_2_5 = ("filelock", "typing-extensions>=4.8.0", "networkx", "jinja2", "fsspec")
HEAD_2_6 = ("filelock", "typing-extensions>=4.10.0", "networkx", "jinja2", "fsspec")
TAIL_2_5 = ('setuptools; python_version >= "3.12"', 'sympy==1.13.1; python_version >= "3.9"')


def extras_2_5(optree):
    return (
        ("opt-einsum", ('opt-einsum>=3.3; extra == "opt-einsum"',)),
        ("optree", (f'optree{optree}; extra == "optree"',)),
    )


LEGACY_X86 = "linux_x86_64"

R2_5_1 = Release(
    version="2.5.1",
    date="2024-10",
    vision="0.20.1",
    audio="2.5.1",
    requires_python=">=3.8.0",
    triton="3.1.0",
    pythons=("cp311", "cp312", "cp313"),
    # The vision README's table: 2.5 up to Python 3.12.
    domain_pythons=("cp311", "cp312"),
    head=HEAD_2_5,
    tail=TAIL_2_5,
    extras=extras_2_5(">=0.12.0"),
    sources=(TI_MATRIX, VISION_README),
    inferred="aarch64 CPU wheels without a label (recalled from the real index, README "
    "\"Choices\")",
    rows=(
        Row(
            "cpu",
            torch=(
                Cell("x86_64", "cpu", LEGACY_X86, "legacy"),
                Cell("aarch64", None, "manylinux_2_17_aarch64.manylinux2014_aarch64", "legacy"),
            ),
            domain=(Cell("x86_64", "cpu", LEGACY_X86), Cell("aarch64", None, "linux_aarch64")),
            requires=(),
            sources=(TI_MATRIX, "the 2.7.1 +cpu METADATA fetched in uv#14237 (pure only)"),
        ),
        Row(
            "cu124",
            torch=(Cell("x86_64", "cu124", LEGACY_X86, "legacy"),),
            domain=(Cell("x86_64", "cu124", LEGACY_X86),),
            requires=pins(
                [p for p in CU124_PINS if p[0] != "nvidia-cusparselt-cu12"], LINUX_X86_64
            )
            + (f'triton==3.1.0; {LINUX_X86_64} and python_version < "3.13"',),
            sources=(TI_MATRIX, PYPI_2_6, POPULATE_ENV),
            inferred="the 2.6.0 cu124 pins without nvidia-cusparselt-cu12 (on PyPI only from "
            "pytorch#137653/#138547, after 2.5.1)",
        ),
    ),
)

R2_6_0 = Release(
    version="2.6.0",
    date="2025-01",
    vision="0.21.0",
    audio="2.6.0",
    requires_python=">=3.9.0",
    triton="3.2.0",
    pythons=("cp311", "cp312", "cp313"),
    domain_pythons=("cp311", "cp312", "cp313"),
    head=HEAD_2_6,
    tail=TAIL_2_5,
    extras=extras_2_5(">=0.13.0"),
    sources=(TI_MATRIX, VISION_README),
    rows=(
        Row(
            "cpu",
            torch=(
                Cell("x86_64", "cpu", LEGACY_X86, "legacy"),
                Cell("aarch64", "cpu", "manylinux_2_28_aarch64"),
            ),
            domain=(Cell("x86_64", "cpu", LEGACY_X86), Cell("aarch64", None, "linux_aarch64")),
            requires=(),
            sources=(TI_MATRIX, "pytorch#123649, pytorch#143962 (manylinux2014-built x86_64)"),
        ),
        Row(
            "cu124",
            torch=(Cell("x86_64", "cu124", LEGACY_X86, "legacy"),),
            domain=(Cell("x86_64", "cu124", LEGACY_X86),),
            requires=pins(CU124_PINS, LINUX_X86_64) + (f"triton==3.2.0; {LINUX_X86_64}",),
            sources=(TI_MATRIX, PYPI_2_6, "pytorch#146679 (the old spelling of 2.6.0+cu124)"),
        ),
        Row(
            "cu126",
            torch=(
                Cell("x86_64", "cu126", "manylinux_2_28_x86_64"),
                Cell("aarch64", "cu126", "linux_aarch64"),
            ),
            domain=(Cell("x86_64", "cu126", LEGACY_X86), Cell("aarch64", None, "linux_aarch64")),
            requires=pins(CU126_PINS_2_6, LINUX_X86_64) + (f"triton==3.2.0; {LINUX_X86_64}",),
            requires_aarch64=(),
            hashless=("aarch64",),
            sources=(TI_MATRIX, PYPI_2_6, UV_14540, ISSUE_153469),
        ),
        Row(
            "rocm6.2.4",
            torch=(Cell("x86_64", "rocm6.2.4", "manylinux_2_28_x86_64"),),
            domain=(Cell("x86_64", "rocm6.2.4", LEGACY_X86),),
            requires=(f"pytorch-triton-rocm==3.2.0; {LINUX_X86_64}",),
            sources=(TI_MATRIX, "pytorch .circleci/scripts/binary_populate_env.sh (ROCm: "
                     "pytorch-triton-rocm)"),
        ),
    ),
)


# -- 2026 ---------------------------------------------------------------------------

HEAD_2026 = (
    "filelock",
    "typing-extensions>=4.10.0",
    "setuptools",
    "sympy>=1.13.3",
    "networkx>=2.5.1",
    "jinja2",
    "fsspec>=0.8.5",
)
HEAD_2_14 = tuple("setuptools>=77.0.3" if r == "setuptools" else r for r in HEAD_2026)
EXTRAS_2026 = (
    ("optree", ('optree>=0.13.0; extra == "optree"',)),
    ("opt-einsum", ('opt-einsum>=3.3; extra == "opt-einsum"',)),
    ("pyyaml", ('pyyaml; extra == "pyyaml"',)),
)
CP313 = ("cp313",)
CP313_314 = ("cp313", "cp314")

# torch 2.10.0+cu128 (the 2.10 METADATA): one pin per NVIDIA package, cuda-bindings last.
CU128_2_10 = pins(
    (
        ("nvidia-cuda-nvrtc-cu12", "==12.8.93"),
        ("nvidia-cuda-runtime-cu12", "==12.8.90"),
        ("nvidia-cuda-cupti-cu12", "==12.8.90"),
        ("nvidia-cudnn-cu12", "==9.10.2.21"),
        ("nvidia-cublas-cu12", "==12.8.4.1"),
        ("nvidia-cufft-cu12", "==11.3.3.83"),
        ("nvidia-curand-cu12", "==10.3.9.90"),
        ("nvidia-cusolver-cu12", "==11.7.3.90"),
        ("nvidia-cusparse-cu12", "==12.5.8.93"),
        ("nvidia-cusparselt-cu12", "==0.7.1"),
        ("nvidia-nccl-cu12", "==2.27.5"),
        ("nvidia-nvshmem-cu12", "==3.4.5"),
        ("nvidia-nvtx-cu12", "==12.8.90"),
        ("nvidia-nvjitlink-cu12", "==12.8.93"),
        ("nvidia-cufile-cu12", "==1.13.1.3"),
        ("cuda-bindings", "==12.9.4"),
    )
) + (f"triton==3.6.0; {LINUX}",)
# cu126 / cu129 of 2.10: the 2.10-cycle matrix's component pins, with cuDNN and NCCL
# as 2.10.0+cu128 has them (inferred, see the rows).
CU126_2_10 = pins(
    (
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
        ("nvidia-nccl-cu12", "==2.27.5"),
        ("nvidia-nvshmem-cu12", "==3.4.5"),
        ("nvidia-nvtx-cu12", "==12.6.77"),
        ("nvidia-nvjitlink-cu12", "==12.6.85"),
        ("nvidia-cufile-cu12", "==1.11.1.6"),
        ("cuda-bindings", "==12.9.4"),
    )
) + (f"triton==3.6.0; {LINUX}",)
CU129_2_10 = pins(
    (
        ("nvidia-cuda-nvrtc-cu12", "==12.9.86"),
        ("nvidia-cuda-runtime-cu12", "==12.9.79"),
        ("nvidia-cuda-cupti-cu12", "==12.9.79"),
        ("nvidia-cudnn-cu12", "==9.10.2.21"),
        ("nvidia-cublas-cu12", "==12.9.1.4"),
        ("nvidia-cufft-cu12", "==11.4.1.4"),
        ("nvidia-curand-cu12", "==10.3.10.19"),
        ("nvidia-cusolver-cu12", "==11.7.5.82"),
        ("nvidia-cusparse-cu12", "==12.5.10.65"),
        ("nvidia-cusparselt-cu12", "==0.7.1"),
        ("nvidia-nccl-cu12", "==2.27.5"),
        ("nvidia-nvshmem-cu12", "==3.4.5"),
        ("nvidia-nvtx-cu12", "==12.9.79"),
        ("nvidia-nvjitlink-cu12", "==12.9.86"),
        ("nvidia-cufile-cu12", "==1.14.1.1"),
        ("cuda-bindings", "==12.9.4"),
    )
) + (f"triton==3.6.0; {LINUX}",)
# torch 2.10.0+cu130: the unsuffixed CUDA 13 toolkit names, -cu13 for cuDNN, NCCL,
# cuSPARSELt and NVSHMEM (order as cu128's).
CU130_2_10 = pins(
    (
        ("nvidia-cuda-nvrtc", "==13.0.88"),
        ("nvidia-cuda-runtime", "~=13.0.48"),
        ("nvidia-cuda-cupti", "==13.0.85"),
        ("nvidia-cudnn-cu13", "==9.15.1.9"),
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
        ("cuda-bindings", "==13.0.3"),
    )
) + (f"triton==3.6.0; {LINUX}",)
ROCM_2_10 = (f"triton-rocm==3.6.0; {LINUX_X86_64}",)
XPU_PINS = (
    "intel-cmplr-lib-rt==2025.3.1",
    "intel-cmplr-lib-ur==2025.3.1",
    "intel-cmplr-lic-rt==2025.3.1",
    "intel-sycl-rt==2025.3.1",
)

# The cuda-toolkit form (pytorch#174390). The extras torch 2.11-2.13 asks for; 2.14 adds
# cublas (and drops the separate nvidia-cublas line).
TOOLKIT_EXTRAS = "cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx"
TOOLKIT_EXTRAS_2_14 = "cublas," + TOOLKIT_EXTRAS


def cu13_line(triton, cudnn, nccl, cusparselt="0.8.1"):
    """torch 2.12.1+cu130's Requires-Dist (exactly as its METADATA), with the versions
    that differ between releases as arguments."""
    return (
        f"cuda-toolkit[{TOOLKIT_EXTRAS}]==13.0.2; {LINUX}",
        f"nvidia-cublas<=13.1.1.3,>=13.1.0.3; {LINUX}",
        f"cuda-bindings<14,>=13.0.3; {LINUX}",
        f"nvidia-cudnn-cu13=={cudnn}; {LINUX}",
        f"nvidia-cusparselt-cu13=={cusparselt}; {LINUX}",
        f"nvidia-nccl-cu13=={nccl}; {LINUX}",
        f"nvidia-nvshmem-cu13==3.4.5; {LINUX}",
        f"triton=={triton}; {LINUX}",
    )


def cu12_line(triton, nccl="2.29.3"):
    """The cu126 builds of 2.12/2.13: cuda-toolkit 12.6.3 and the -cu12 libraries, in the
    shape of the cu130 line (inferred, see the rows)."""
    return (
        f"cuda-toolkit[{TOOLKIT_EXTRAS}]==12.6.3; {LINUX}",
        f"nvidia-cublas-cu12==12.6.4.1; {LINUX}",
        f"cuda-bindings<13,>=12.9.4; {LINUX}",
        f"nvidia-cudnn-cu12==9.10.2.21; {LINUX}",
        f"nvidia-cusparselt-cu12==0.7.1; {LINUX}",
        f"nvidia-nccl-cu12=={nccl}; {LINUX}",
        f"nvidia-nvshmem-cu12==3.4.5; {LINUX}",
        f"triton=={triton}; {LINUX}",
    )


# torch 2.14.0+cu130, exactly as its METADATA: cublas among the extras, no marker on
# the cuda-toolkit line, python_version < "3.15" on cuda-bindings and triton.
CU130_2_14 = (
    f"cuda-toolkit[{TOOLKIT_EXTRAS_2_14}]==13.0.2",
    f"cuda-bindings<14,>=13.0.3; {BELOW_315}",
    f"nvidia-cudnn-cu13==9.24.0.43; {LINUX}",
    f"nvidia-cusparselt-cu13==0.8.1; {LINUX}",
    f"nvidia-nccl-cu13==2.30.7; {LINUX}",
    f"nvidia-nvshmem-cu13==3.4.5; {LINUX}",
    f"triton~=3.8.0; {BELOW_315}",
)
CU126_2_14 = (
    f"cuda-toolkit[{TOOLKIT_EXTRAS_2_14}]==12.6.3",
    f"cuda-bindings<13,>=12.9.4; {BELOW_315}",
    f"nvidia-cudnn-cu12==9.10.2.21; {LINUX}",
    f"nvidia-cusparselt-cu12==0.7.1; {LINUX}",
    f"nvidia-nccl-cu12==2.29.3; {LINUX}",
    f"nvidia-nvshmem-cu12==3.4.5; {LINUX}",
    f"triton~=3.8.0; {BELOW_315}",
)

CU12_INFERRED = (
    "the cu126 line: the facts give cuda-toolkit[...]==12.6.3 with -cu12 cuDNN 9.10.2.21, "
    "cuSPARSELt 0.7.1, NCCL 2.29.3, NVSHMEM 3.4.5 (from the 2.12 matrix); the shape (a "
    "separate nvidia-cublas-cu12==12.6.4.1, cuda-bindings<13,>=12.9.4, the order) follows the "
    "cu130 line"
)
CU132_INFERRED = (
    "cu132: the cu130 line with cuDNN 9.20.0.48 and NCCL 2.29.7 (cu132 builds against CUDA "
    "13.2.1); its toolkit pin is probably cuda-toolkit==13.2.x, whose component versions no "
    "source here gives, so the sample keeps 13.0.2 (served, and met by the CUDA 13.0 wheels); "
    "aarch64 from the build matrix"
)

R2_10_0 = Release(
    version="2.10.0",
    date="2026-01",
    vision="0.25.0",
    audio="2.10.0",
    requires_python=">=3.10",
    triton="3.6.0",
    pythons=CP313,
    domain_pythons=CP313,
    head=HEAD_2026,
    tail=(),
    extras=EXTRAS_2026,
    sources=(RELEASE_MD, TI_MATRIX, PT_MATRIX_2_10, VISION_README),
    inferred="the pure dependencies and extras in the order of the 2.14.0 METADATA; cp313 only "
    "(the sample's choice: EasyBuild 2025b's Python 3.13)",
    rows=(
        Row("cpu", m28("cpu", "x86_64", "aarch64"), m28("cpu", "x86_64", "aarch64"), (),
            sources=(RELEASE_MD,)),
        Row(
            "cu126",
            m28("cu126", "x86_64", "aarch64"),
            m28("cu126", "x86_64", "aarch64"),
            CU126_2_10,
            sources=(RELEASE_MD, PT_MATRIX_2_10),
            inferred="cuDNN 9.10.2.21 and NCCL 2.27.5 as 2.10.0+cu128 (the matrix copy says "
            "9.17.1.4 / 2.28.9, which the cu128 METADATA contradicts); aarch64 from the matrix's "
            "CUDA aarch64 builds",
        ),
        Row(
            "cu128",
            m28("cu128", "x86_64", "aarch64"),
            # EasyBuild's PyTorch-bundle-2.9.1-foss-2025a-CUDA-12.8.0-whl.eb downloads the
            # aarch64 domain wheels of cu128 without +cu128.
            m28("cu128", "x86_64", "aarch64", unlabelled=("aarch64",)),
            CU128_2_10,
            hashless=("aarch64",),
            sources=(RELEASE_MD, METADATA_2_10_0, ISSUE_164347,
                     "easybuild-easyconfigs PyTorch-bundle-2.9.1-foss-2025a-CUDA-12.8.0-whl.eb"),
        ),
        Row(
            "cu129",
            m28("cu129", "x86_64"),
            m28("cu129", "x86_64"),
            CU129_2_10,
            sources=(PT_MATRIX_2_10,),
            inferred="cu129 files exist but are unsupported; x86_64 only; cuDNN/NCCL as cu128",
        ),
        Row(
            "cu130",
            m28("cu130", "x86_64", "aarch64"),
            m28("cu130", "x86_64", "aarch64"),
            CU130_2_10,
            sources=(RELEASE_MD, METADATA_2_10_0),
            inferred="the order of the lines (as cu128's)",
        ),
        Row(
            "rocm7.0",
            m28("rocm7.0", "x86_64"),
            m28("rocm7.0", "x86_64"),
            ROCM_2_10,
            sources=(RELEASE_MD, TRITON_ROCM),
            inferred="the marker of the triton-rocm line (pytorch-triton-rocm's)",
        ),
        Row(
            "rocm7.1",
            m28("rocm7.1", "x86_64"),
            m28("rocm7.1", "x86_64"),
            ROCM_2_10,
            sources=(RELEASE_MD, TRITON_ROCM),
            inferred="the marker of the triton-rocm line (pytorch-triton-rocm's)",
        ),
        Row(
            "xpu",
            m28("xpu", "x86_64"),
            m28("xpu", "x86_64"),
            XPU_PINS + (f"pytorch-triton-xpu==3.6.0; {LINUX}",),
            sources=(PT_MATRIX_2_10,),
            inferred="not in RELEASE.md's matrix: the 2.10-cycle build matrix's xpu line",
        ),
    ),
)


def release_2_12(version, vision, triton, xpu, date):
    rows = [
        Row("cpu", m28("cpu", "x86_64", "aarch64"), m28("cpu", "x86_64", "aarch64"), (),
            sources=(RELEASE_MD,)),
        Row(
            "cu126",
            m28("cu126", "x86_64", "aarch64"),
            m28("cu126", "x86_64", "aarch64"),
            cu12_line(triton),
            sources=(RELEASE_MD, TOOLKIT_FORM, TI_MATRIX),
            inferred=CU12_INFERRED,
        ),
        Row(
            "cu130",
            m28("cu130", "x86_64", "aarch64"),
            m28("cu130", "x86_64", "aarch64"),
            cu13_line(triton, cudnn="9.20.0.48", nccl="2.29.7"),
            sources=(RELEASE_MD, TOOLKIT_FORM, METADATA_2_12_1),
            inferred="" if version == "2.12.1" else "triton 3.7.0 for 2.12.0",
        ),
        Row(
            "cu132",
            m28("cu132", "x86_64", "aarch64"),
            m28("cu132", "x86_64", "aarch64"),
            cu13_line(triton, cudnn="9.20.0.48", nccl="2.29.7"),
            sources=(RELEASE_MD, TI_MATRIX, REPACKAGE_AUDIO),
            inferred=CU132_INFERRED + "; the cu132 torchaudio is a relabelled cu130 wheel, "
            "whether it reached the release channel is unconfirmed",
        ),
        Row(
            "rocm7.2",
            m28("rocm7.2", "x86_64"),
            m28("rocm7.2", "x86_64"),
            (f"triton-rocm=={triton}; {LINUX_X86_64}",),
            sources=(RELEASE_MD, "the 2.12.0+rocm7.2 METADATA (triton-rocm==3.7.0)"),
            inferred="the marker (pytorch-triton-rocm's)"
            + ("; triton-rocm 3.7.1 for 2.12.1 (as triton)" if version == "2.12.1" else "")
            + "; rocm7.1 is still listed but has no 2.12 files",
        ),
    ]
    if xpu:
        rows.append(
            Row(
                "xpu",
                m28("xpu", "x86_64"),
                m28("xpu", "x86_64"),
                XPU_PINS + (f"pytorch-triton-xpu=={triton}; {LINUX}",),
                sources=(PT_MATRIX_2_10,),
                inferred="not in the facts: the sample's 2.12.0 XPU build (the 2.10-cycle "
                "matrix's xpu line)",
            )
        )
    return Release(
        version=version,
        date=date,
        vision=vision,
        audio="2.11.0",
        requires_python=">=3.10",
        triton=triton,
        pythons=CP313_314,
        domain_pythons=CP313_314,
        head=HEAD_2026,
        tail=(),
        extras=EXTRAS_2026,
        rows=tuple(rows),
        sources=(RELEASE_MD, RELEASE_VERSIONS, CU128_REMOVED, VISION_README),
        inferred=("triton 3.7.0 for 2.12.0; " if version == "2.12.0" else "")
        + "torchaudio 2.11.0 (no torchaudio 2.12) requires torch>=2.11.0: the release pairs it "
        "with 2.12 (and relabels it for cu132), so it cannot pin torch==2.11.0",
        audio_requires="torch>=2.11.0",
    )


R2_12_0 = release_2_12("2.12.0", "0.27.0", "3.7.0", xpu=True, date="2026-05")
R2_12_1 = release_2_12("2.12.1", "0.27.1", "3.7.1", xpu=False, date="2026-06")

R2_13_0 = Release(
    version="2.13.0",
    date="2026-07",
    vision="0.28.0",
    audio=None,
    requires_python=">=3.10",
    triton="3.7.1",
    pythons=CP313_314,
    domain_pythons=CP313_314,
    head=HEAD_2026,
    tail=(),
    extras=EXTRAS_2026,
    sources=(RELEASE_MD, RELEASE_VERSIONS, NO_HASH),
    inferred="every pin as 2.12.1's (no 2.13 METADATA is quoted)",
    rows=(
        Row("cpu", m28("cpu", "x86_64", "aarch64"), m28("cpu", "x86_64", "aarch64"), (),
            sources=(RELEASE_MD,)),
        Row(
            "cu126",
            m28("cu126", "x86_64", "aarch64"),
            m28("cu126", "x86_64", "aarch64"),
            cu12_line("3.7.1"),
            sources=(RELEASE_MD,),
            inferred=CU12_INFERRED + "; as 2.12.1",
        ),
        Row(
            "cu130",
            m28("cu130", "x86_64", "aarch64"),
            m28("cu130", "x86_64", "aarch64"),
            cu13_line("3.7.1", cudnn="9.20.0.48", nccl="2.29.7"),
            hashless=("x86_64", "aarch64"),
            sources=(RELEASE_MD, NO_HASH),
            inferred="the pins of 2.12.1+cu130",
        ),
        Row(
            "cu132",
            m28("cu132", "x86_64", "aarch64"),
            m28("cu132", "x86_64", "aarch64"),
            cu13_line("3.7.1", cudnn="9.20.0.48", nccl="2.29.7"),
            sources=(RELEASE_MD,),
            inferred=CU132_INFERRED + "; as 2.12.1",
        ),
        Row(
            "rocm7.1",
            m28("rocm7.1", "x86_64"),
            m28("rocm7.1", "x86_64"),
            (f"triton-rocm==3.7.1; {LINUX_X86_64}",),
            sources=(RELEASE_MD,),
            inferred="triton-rocm 3.7.1 (as triton) and its marker",
        ),
        Row(
            "rocm7.2",
            m28("rocm7.2", "x86_64"),
            m28("rocm7.2", "x86_64"),
            (f"triton-rocm==3.7.1; {LINUX_X86_64}",),
            sources=(RELEASE_MD,),
            inferred="triton-rocm 3.7.1 (as triton) and its marker",
        ),
    ),
)

R2_14_0 = Release(
    version="2.14.0",
    date="2026-09",
    vision="0.29.0",
    audio=None,
    requires_python=">=3.10",
    triton="3.8.0",
    pythons=CP313_314,
    domain_pythons=CP313_314,
    head=HEAD_2_14,
    tail=(),
    extras=EXTRAS_2026,
    sources=(RELEASE_MD, METADATA_2_14_0),
    inferred="torchvision 0.29.0 (the next minor) and no torchaudio (as 2.13); triton 3.8.0 is "
    "the file served for triton~=3.8.0; ROCm 7.14 (TheRock's rocm[libraries] wheels) is not "
    "modelled",
    rows=(
        Row("cpu", m28("cpu", "x86_64", "aarch64"), m28("cpu", "x86_64", "aarch64"), (),
            sources=(RELEASE_MD, METADATA_2_14_0)),
        Row(
            "cu126",
            m28("cu126", "x86_64", "aarch64"),
            m28("cu126", "x86_64", "aarch64"),
            CU126_2_14,
            sources=(RELEASE_MD,),
            inferred="the cu130 line's shape with cuda-toolkit 12.6.3, cuda-bindings<13,>=12.9.4 "
            "and 2.12's -cu12 versions",
        ),
        Row(
            "cu130",
            m28("cu130", "x86_64", "aarch64"),
            m28("cu130", "x86_64", "aarch64"),
            CU130_2_14,
            sources=(RELEASE_MD, METADATA_2_14_0),
        ),
        Row(
            "cu132",
            m28("cu132", "x86_64", "aarch64"),
            m28("cu132", "x86_64", "aarch64"),
            CU130_2_14,
            sources=(RELEASE_MD,),
            inferred="the cu130 line (the facts give no cu132 pins for 2.14; its toolkit is "
            "probably 13.2.x, see 2.12)",
        ),
    ),
)

# -- 2025: torch 2.9.1's ROCm builds -------------------------------------------------------
#
# Only the rocm6.3 and rocm6.4 directories of 2.9.1 are modelled (the release also has cpu,
# cu126, cu128, cu130 and a torchaudio 2.9.1, left out: nothing here needs them). What the
# wheels bundle and how is build_rocm.sh / build_common.sh; the library table below.

BUILD_ROCM = (
    "pytorch .ci/manywheel/build_rocm.sh (ROCM_SO_FILES, with librocprofiler-register >= 6.1 and "
    "librocm-core >= 6.2; OS_SO_PATHS on AlmaLinux; DEPS_AUX_DSTLIST; FORCE_RPATH=--force-rpath) "
    "and build_common.sh (ROCm: fname_without_so_number, replace_needed_sofiles, RPATH $ORIGIN "
    "for torch/lib, $ORIGIN:$ORIGIN/lib for torch/*.so)"
)
ROCM_2_9_1_FILES = (
    "torch-2.9.1+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl on download.pytorch.org "
    "(research/pytorch-index.md 2.1); torch==2.9.1+rocm6.3 / +rocm6.4 with torchvision==0.24.1 "
    "and pytorch-triton-rocm==3.5.1 pinned together in public projects' install scripts"
)
TRITON_ROCM_3_5_1 = (
    "download.pytorch.org/whl/pytorch_triton_rocm-3.5.1-cp313-cp313-linux_x86_64.whl (root-level "
    "file with the plain linux_x86_64 tag, quoted from the live index in a public project)"
)
PT_MATRIX_2_9 = (
    "pytorch/test-infra generate_binary_build_matrix.py at 2.9 (ROCM_ARCHES 6.3, 6.4; Python "
    "3.10-3.14), research/pytorch-index.md 1.8"
)
# 2.7.1's pure dependencies (uv#14237's curl of its METADATA) with the lower bounds of the
# 2026 METADATA; `setuptools; python_version >= "3.12"` as the 2.7-2.10 METADATA quoted
# publicly have it.
HEAD_2_9 = (
    "filelock",
    "typing-extensions>=4.10.0",
    'setuptools; python_version >= "3.12"',
    "sympy>=1.13.3",
    "networkx>=2.5.1",
    "jinja2",
    "fsspec>=0.8.5",
)
CP310_314 = ("cp310", "cp311", "cp312", "cp313", "cp314")
ROCM_2_9_INFERRED = (
    "the marker of the pytorch-triton-rocm line (binary_populate_env.sh's TRITON_CONSTRAINT for "
    "ROCm, x86_64 only); the ROCm point release of the build image (the sample says HIP "
    "{hip}, recalled)"
)

R2_9_1 = Release(
    version="2.9.1",
    date="2025-11",
    vision="0.24.1",
    audio=None,
    requires_python=">=3.10",
    triton="3.5.1",
    pythons=CP310_314,
    domain_pythons=CP310_314,
    head=HEAD_2_9,
    tail=(),
    extras=EXTRAS_2026,
    sources=(RELEASE_MD, PT_MATRIX_2_9, VISION_README, ROCM_2_9_1_FILES, BUILD_ROCM),
    inferred="only the ROCm directories are modelled, and no torchaudio (2.9.1 exists, nothing "
    "here needs it); the pure dependencies and extras (2.7.1's names with the 2026 lower bounds, "
    "pyyaml among the extras), Metadata-Version 2.4 and the field order of the 2026 generation",
    rows=(
        Row(
            "rocm6.3",
            m28("rocm6.3", "x86_64"),
            m28("rocm6.3", "x86_64"),
            (f"pytorch-triton-rocm==3.5.1; {LINUX_X86_64}",),
            sources=(PT_MATRIX_2_9, ROCM_2_9_1_FILES, POPULATE_ENV, BUILD_ROCM),
            inferred=ROCM_2_9_INFERRED.format(hip="6.3.42131, ROCm 6.3.0")
            + "; the SONAMEs of ROCm 6.3 (ROCM_LIBRARIES soname_6_3)",
        ),
        Row(
            "rocm6.4",
            m28("rocm6.4", "x86_64"),
            m28("rocm6.4", "x86_64"),
            (f"pytorch-triton-rocm==3.5.1; {LINUX_X86_64}",),
            sources=(PT_MATRIX_2_9, ROCM_2_9_1_FILES, POPULATE_ENV, BUILD_ROCM),
            inferred=ROCM_2_9_INFERRED.format(hip="6.4.43484, ROCm 6.4.2"),
        ),
    ),
)


@dataclasses.dataclass(frozen=True)
class RocmLibrary:
    """One library torch 2.9.1's ROCm wheels bundle (build_rocm.sh ROCM_SO_FILES and
    OS_SO_PATHS), and the 2025a EasyBuild module that provides it (config/eb-dependencies.yaml,
    generation 2025a, `rocm:`; easybuild-easyconfigs develop@9ba1c10)."""

    link: str  # its file name in torch/lib: the link name (build_common.sh fname_without_so_number)
    soname: str  # its DT_SONAME in ROCm 6.4, which the rename keeps
    # The bundled libraries it links, by link name (DT_NEEDED as replace_needed_sofiles leaves
    # them). Inferred: plausible edges of the real libraries, the sample's own.
    needs: tuple[str, ...] = ()
    module: str | None = None  # None: no 2025a module provides it
    libdir: str = "lib"
    file: str | None = None  # the module's regular file (recalled file versions, see README)
    soname_6_3: str | None = None  # ROCm 6.3's SONAME where it differs (recalled)

    @property
    def ident(self) -> str:
        """Its name in C (sample_check_<ident>): libhsa-runtime64.so -> hsa_runtime64."""
        return self.link[3:-3].replace("-", "_")

    def soname_for(self, variant: str) -> str:
        return self.soname_6_3 if variant == "rocm6.3" and self.soname_6_3 else self.soname


_R = "rocm-compilers-19.0.0-ROCm-6.4.1"
_GCC = "GCCcore-14.2.0"
_HIP = f"HIP/6.4.1-{_R}"
_LLVM = f"ROCm-LLVM/19.0.0-{_GCC}-ROCm-6.4.1"
_TRACER = f"rocTracer/4.1.0-{_R}"
_DRM = f"libdrm/2.4.125-{_GCC}"
# In the order of build_rocm.sh's ROCM_SO_FILES, then OS_SO_PATHS. File versions: ROCm's
# <SOVERSION>.<ROCm version number> pattern (60401 for 6.4.1), HIP 6.4.43483, the OS libraries'
# usual names (elfutils installs libelf-0.193.so); recalled, only the SONAMEs are read by anyone.
ROCM_LIBRARIES = (
    RocmLibrary("libMIOpen.so", "libMIOpen.so.1",
                ("libamdhip64.so", "librocblas.so", "libhipblaslt.so", "libamd_comgr.so",
                 "libhiprtc.so", "libroctx64.so")),
    RocmLibrary("libamdhip64.so", "libamdhip64.so.6",
                ("libhsa-runtime64.so", "libamd_comgr.so", "librocprofiler-register.so"),
                _HIP, file="libamdhip64.so.6.4.43483"),
    RocmLibrary("libhipblas.so", "libhipblas.so.2",
                ("librocblas.so", "librocsolver.so", "libamdhip64.so"),
                f"hipBLAS/2.4.0-{_R}", file="libhipblas.so.2.4.60401"),
    RocmLibrary("libhipfft.so", "libhipfft.so.0", ("librocfft.so", "libamdhip64.so"),
                f"hipFFT/1.0.18-{_R}-nompi", file="libhipfft.so.0.1.60401"),
    RocmLibrary("libhiprand.so", "libhiprand.so.1", ("librocrand.so", "libamdhip64.so"),
                f"hipRAND/2.13.0-{_R}", file="libhiprand.so.1.1.60401"),
    RocmLibrary("libhipsolver.so", "libhipsolver.so.0",
                ("librocsolver.so", "librocblas.so", "librocsparse.so", "libamdhip64.so")),
    RocmLibrary("libhipsparse.so", "libhipsparse.so.1", ("librocsparse.so", "libamdhip64.so"),
                f"hipSPARSE/3.2.0-{_R}", file="libhipsparse.so.1.1.0.60401"),
    RocmLibrary("libhsa-runtime64.so", "libhsa-runtime64.so.1",
                ("libelf.so", "libdrm.so", "libdrm_amdgpu.so", "libnuma.so"),
                _LLVM, file="libhsa-runtime64.so.1.15.60401"),
    RocmLibrary("libamd_comgr.so", "libamd_comgr.so.3", ("libtinfo.so",),
                _LLVM, file="libamd_comgr.so.3.0.60401", soname_6_3="libamd_comgr.so.2"),
    RocmLibrary("libmagma.so", "libmagma.so",
                ("libamdhip64.so", "libhipblas.so", "libhipsparse.so", "libgomp.so")),
    RocmLibrary("librccl.so", "librccl.so.1",
                ("libamdhip64.so", "libhsa-runtime64.so", "librocm_smi64.so"),
                f"RCCL/2.22.3-{_R}", file="librccl.so.1.0.60401"),
    RocmLibrary("librocblas.so", "librocblas.so.4", ("libamdhip64.so", "libgomp.so"),
                f"rocBLAS/4.4.0-{_R}", file="librocblas.so.4.4.60401"),
    RocmLibrary("librocfft.so", "librocfft.so.0", ("libamdhip64.so", "libhiprtc.so"),
                f"rocFFT/1.0.32-{_R}-nompi", file="librocfft.so.0.1.60401"),
    RocmLibrary("librocm_smi64.so", "librocm_smi64.so.7", ("librocm-core.so",),
                f"rocm-smi/7.6.0-{_GCC}-ROCm-6.4.1", file="librocm_smi64.so.7.6.0"),
    RocmLibrary("librocrand.so", "librocrand.so.1", ("libamdhip64.so",),
                f"rocRAND/3.3.0-{_R}", file="librocrand.so.1.1.60401"),
    RocmLibrary("librocsolver.so", "librocsolver.so.0",
                ("librocblas.so", "librocsparse.so", "libamdhip64.so"),
                f"rocSOLVER/3.28.0-{_R}", file="librocsolver.so.0.5.60401"),
    RocmLibrary("librocsparse.so", "librocsparse.so.1", ("libamdhip64.so",),
                f"rocSPARSE/3.4.0-{_R}", file="librocsparse.so.1.0.60401"),
    RocmLibrary("libroctracer64.so", "libroctracer64.so.4", ("libhsa-runtime64.so",),
                _TRACER, file="libroctracer64.so.4.1.60401"),
    RocmLibrary("libroctx64.so", "libroctx64.so.4", (), _TRACER, file="libroctx64.so.4.1.60401"),
    RocmLibrary("libhipblaslt.so", "libhipblaslt.so.0", ("libamdhip64.so", "libroctx64.so"),
                f"hipBLASLt/0.12.1-{_R}", file="libhipblaslt.so.0.12.60401"),
    RocmLibrary("libhipsparselt.so", "libhipsparselt.so.0", ("libamdhip64.so",),
                f"hipSPARSELt/3.2.0-{_R}", file="libhipsparselt.so.0.2.60401"),
    RocmLibrary("libhiprtc.so", "libhiprtc.so.6", ("libamd_comgr.so",),
                _HIP, file="libhiprtc.so.6.4.43483"),
    RocmLibrary("librocprofiler-register.so", "librocprofiler-register.so.0", (),
                f"rocprofiler-register/0.4.0-{_GCC}-ROCm-6.4.1",
                file="librocprofiler-register.so.0.4.0"),
    RocmLibrary("librocm-core.so", "librocm-core.so.1", (),
                f"rocm-core/6.4.0-{_GCC}-ROCm-6.4.1", file="librocm-core.so.1.0.60401"),
    RocmLibrary("libgomp.so", "libgomp.so.1", (), "GCCcore/14.2.0", "lib64", "libgomp.so.1.0.0"),
    RocmLibrary("libnuma.so", "libnuma.so.1", (), f"numactl/2.0.19-{_GCC}",
                file="libnuma.so.1.0.0"),
    RocmLibrary("libelf.so", "libelf.so.1", (), f"elfutils/0.193-{_GCC}", file="libelf-0.193.so"),
    RocmLibrary("libtinfo.so", "libtinfo.so.6", (), f"ncurses/6.5-{_GCC}", file="libtinfo.so.6.5"),
    RocmLibrary("libdrm.so", "libdrm.so.2", (), _DRM, file="libdrm.so.2.4.0"),
    RocmLibrary("libdrm_amdgpu.so", "libdrm_amdgpu.so.1", ("libdrm.so",), _DRM,
                file="libdrm_amdgpu.so.1.0.0"),
)
ROCM_SOURCES = (BUILD_ROCM, "config/eb-dependencies.yaml 2025a rocm: (SONAMEs and modules)")
ROCM_INFERRED = (
    "the NEEDED edges between the bundled libraries (plausible, the sample's own); the module "
    "libraries' file versions; libamd_comgr.so.2 for ROCm 6.3 (comgr 3.0 came with ROCm 6.4), "
    "recalled"
)

# What the torch libraries of 2.9.1's ROCm builds link from the bundle (by link name).
TORCH_HIP_NEEDS_2_9 = (
    "libamdhip64.so", "libhiprtc.so", "librocblas.so", "libhipblas.so", "libhipblaslt.so",
    "libMIOpen.so", "librccl.so", "libhipfft.so", "libhiprand.so", "libhipsparse.so",
    "libhipsparselt.so", "libhipsolver.so", "libroctx64.so", "libroctracer64.so", "libmagma.so",
)
TORCH_CPU_NEEDS_2_9 = ("libgomp.so",)  # OpenMP
GLOBAL_DEPS_NEEDS_2_9 = ("libamdhip64.so",)

# The data files of DEPS_AUX_DSTLIST in the wheels (a few per directory, for the
# PYTORCH_ROCM_ARCH entries gfx90a and gfx942; hipSPARSELt's only for gfx942, its other files
# are commented out in build_rocm.sh). File names in the style of the real ones, the sample's.
ROCM_WHEEL_DATA = (
    "torch/lib/rocblas/library/Kernels.so-000-gfx90a-xnack-.hsaco",
    "torch/lib/rocblas/library/Kernels.so-000-gfx942.hsaco",
    "torch/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat",
    "torch/lib/rocblas/library/TensileLibrary_lazy_gfx942.dat",
    "torch/lib/hipblaslt/library/TensileLibrary_lazy_gfx90a.dat",
    "torch/lib/hipblaslt/library/TensileLibrary_lazy_gfx942.dat",
    "torch/lib/hipblaslt/library/extop_gfx90a.co",
    "torch/lib/hipblaslt/library/extop_gfx942.co",
    "torch/lib/hipblaslt/library/hipblasltExtOpLibrary.dat",
    "torch/lib/hipsparselt/library/Kernels.so-000-gfx942.hsaco",
    "torch/lib/hipsparselt/library/TensileLibrary_lazy_gfx942.dat",
    "torch/share/libdrm/amdgpu.ids",
    "torch/share/miopen/db/gfx90a68.kdb",
    "torch/share/miopen/db/gfx942130.HIP.fdb.txt",
    "torch/share/miopen/db/gfx942130.kdb",
    "torch/share/rccl/msccl-algorithms/allgather-allpairs-8n-ll-mi300.xml",
    "torch/share/rccl/msccl-algorithms/allreduce-allpairs-8n-ll-mi300.xml",
)
# The modules' own data directories (config/eb-dependencies.yaml `wheel_data` -> `data`):
# module -> (the wheel's directory, the module's, its files). A module holds every file the
# wheels carry of it, and those of the architectures the wheels leave out (a module is
# built for every architecture).
ROCM_MODULE_DATA = {
    f"rocBLAS/4.4.0-{_R}": (
        "torch/lib/rocblas/library", "lib/rocblas/library",
        ("Kernels.so-000-gfx1100.hsaco", "Kernels.so-000-gfx90a-xnack-.hsaco",
         "Kernels.so-000-gfx942.hsaco", "TensileLibrary_lazy_gfx1100.dat",
         "TensileLibrary_lazy_gfx90a.dat", "TensileLibrary_lazy_gfx942.dat"),
    ),
    f"hipBLASLt/0.12.1-{_R}": (
        "torch/lib/hipblaslt/library", "lib/hipblaslt/library",
        ("TensileLibrary_lazy_gfx1100.dat", "TensileLibrary_lazy_gfx90a.dat",
         "TensileLibrary_lazy_gfx942.dat", "extop_gfx1100.co", "extop_gfx90a.co",
         "extop_gfx942.co", "hipblasltExtOpLibrary.dat"),
    ),
    f"hipSPARSELt/3.2.0-{_R}": (
        "torch/lib/hipsparselt/library", "lib/hipsparselt/library",
        ("Kernels.so-000-gfx942.hsaco", "Kernels.so-000-gfx950.hsaco",
         "TensileLibrary_lazy_gfx942.dat", "TensileLibrary_lazy_gfx950.dat"),
    ),
    f"RCCL/2.22.3-{_R}": (
        "torch/share/rccl/msccl-algorithms", "share/rccl/msccl-algorithms",
        ("allgather-allpairs-8n-ll-mi300.xml", "allreduce-allpairs-8n-ll-mi300.xml",
         "allreduce-allpairs-8n-ll-mi350.xml"),
    ),
    _DRM: ("torch/share/libdrm", "share/libdrm", ("amdgpu.ids",)),
}
# The toolchain generation and ROCm of the module set.
ROCM_MODULES_GENERATION = ("2025a", "6.4.1")


RELEASES = (R2_5_1, R2_6_0, R2_9_1, R2_10_0, R2_12_0, R2_12_1, R2_13_0, R2_14_0)


def release(version: str) -> Release:
    return next(r for r in RELEASES if r.version == version)


# -- links without #sha256= besides the torch rows' `hashless` ----------------------------

HASHLESS_FILES = (
    # The one lone x86_64 domain wheel of the 2024/25 generation (the sample's choice,
    # README "Index quirks reproduced").
    ("torchaudio-2.5.1+cu124-cp311-cp311-linux_x86_64.whl", (ISSUE_153469,), "one file chosen"),
    ("triton_rocm-3.6.0-cp313-cp313-linux_x86_64.whl", (TRITON_ROCM,), ""),
)


# -- triton: which project a release's builds pin, and its files at the prefix root ----------


@dataclasses.dataclass(frozen=True)
class Triton:
    project: str  # distribution name in the file name
    version: str
    arches: tuple[str, ...]
    pythons: tuple[str, ...]
    platform: str  # "{arch}" is replaced
    sources: tuple[str, ...]
    inferred: str = ""


COMPOUND = "manylinux_2_27_{arch}.manylinux_2_28_{arch}"
TRITONS = (
    Triton("triton", "3.1.0", ("x86_64",), ("cp311", "cp312"),
           "manylinux_2_17_{arch}.manylinux2014_{arch}", (POPULATE_ENV,),
           "no cp313: 2.5.1 pins it with python_version < \"3.13\""),
    Triton("triton", "3.2.0", ("x86_64",), ("cp311", "cp312", "cp313"),
           "manylinux_2_17_{arch}.manylinux2014_{arch}", (PYPI_2_6,)),
    Triton("pytorch_triton_rocm", "3.1.0", ("x86_64",), ("cp311", "cp312"), "linux_{arch}",
           (POPULATE_ENV,), "served although the sample has no 2.5.1 ROCm build"),
    Triton("pytorch_triton_rocm", "3.2.0", ("x86_64",), ("cp311", "cp312", "cp313"),
           "linux_{arch}", (POPULATE_ENV,)),
    Triton("pytorch_triton_rocm", "3.5.1", ("x86_64",), CP310_314, "linux_{arch}",
           (TRITON_ROCM_3_5_1, ROCM_2_9_1_FILES), "the Python tags other than cp313 (as torch's)"),
    Triton("triton", "3.6.0", ("x86_64", "aarch64"), CP313, COMPOUND,
           ("easybuild-easyconfigs Triton-3.5.1-...-whl.eb (compound tags)",)),
    Triton("triton", "3.7.0", ("x86_64", "aarch64"), CP313_314, COMPOUND, (RELEASE_VERSIONS,),
           "3.7.0 for 2.12.0"),
    Triton("triton", "3.7.1", ("x86_64", "aarch64"), CP313_314, COMPOUND, (RELEASE_VERSIONS,)),
    Triton("triton", "3.8.0", ("x86_64", "aarch64"), CP313_314, COMPOUND, (METADATA_2_14_0,),
           "the file meeting triton~=3.8.0"),
    Triton("triton_rocm", "3.6.0", ("x86_64",), CP313, "linux_{arch}", (TRITON_ROCM,)),
    Triton("triton_rocm", "3.7.0", ("x86_64",), CP313_314, "linux_{arch}",
           ("the 2.12.0+rocm7.2 METADATA (triton-rocm==3.7.0)",), "its tag, as 3.6.0's"),
    Triton("triton_rocm", "3.7.1", ("x86_64",), CP313_314, "linux_{arch}", (),
           "as 3.7.0 (2.12.1 and 2.13 ROCm)"),
    Triton("pytorch_triton_xpu", "3.6.0", ("x86_64",), CP313, COMPOUND, (PT_MATRIX_2_10,)),
    Triton("pytorch_triton_xpu", "3.7.0", ("x86_64",), CP313_314, COMPOUND, (PT_MATRIX_2_10,),
           "as 3.6.0"),
)


# -- the cuda-toolkit metapackage (PyPI, mirrored into the CUDA directories) -------------------

# extra -> (distribution it pins, version): Requires-Dist `<name>==<version>.*; extra == "<extra>"`.
CUDA_TOOLKIT = {
    "13.0.2": {
        "extras": (
            ("cublas", "nvidia-cublas", "13.1.0.3"),
            ("cudart", "nvidia-cuda-runtime", "13.0.96"),
            ("cufft", "nvidia-cufft", "12.0.0.61"),
            ("cufile", "nvidia-cufile", "1.15.1.6"),
            ("cupti", "nvidia-cuda-cupti", "13.0.85"),
            ("curand", "nvidia-curand", "10.4.0.35"),
            ("cusolver", "nvidia-cusolver", "12.0.4.66"),
            ("cusparse", "nvidia-cusparse", "12.6.3.3"),
            ("nvjitlink", "nvidia-nvjitlink", "13.0.88"),
            ("nvrtc", "nvidia-cuda-nvrtc", "13.0.88"),
            ("nvtx", "nvidia-nvtx", "13.0.85"),
        ),
        "sources": (TOOLKIT_FORM, "cuda-toolkit 13.0.2 METADATA on PyPI (one pin per extra)"),
        "inferred": "the cublas extra's version (13.1.0.3, the cuBLAS of CUDA 13.0 Update 2 and "
        "the lower bound of torch's nvidia-cublas range); only the extras torch asks for",
    },
    "12.6.3": {
        "extras": (
            ("cublas", "nvidia-cublas-cu12", "12.6.4.1"),
            ("cudart", "nvidia-cuda-runtime-cu12", "12.6.77"),
            ("cufft", "nvidia-cufft-cu12", "11.3.0.4"),
            ("cufile", "nvidia-cufile-cu12", "1.11.1.6"),
            ("cupti", "nvidia-cuda-cupti-cu12", "12.6.80"),
            ("curand", "nvidia-curand-cu12", "10.3.7.77"),
            ("cusolver", "nvidia-cusolver-cu12", "11.7.1.2"),
            ("cusparse", "nvidia-cusparse-cu12", "12.5.4.2"),
            ("nvjitlink", "nvidia-nvjitlink-cu12", "12.6.85"),
            ("nvrtc", "nvidia-cuda-nvrtc-cu12", "12.6.77"),
            ("nvtx", "nvidia-nvtx-cu12", "12.6.77"),
        ),
        "sources": (PT_MATRIX_2_10,),
        "inferred": "the component versions are the 2.10-cycle matrix's cu126 pins (CUDA 12.6 "
        "Update 3); the metapackage's form as 13.0.2's",
    },
}
