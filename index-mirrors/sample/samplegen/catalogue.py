"""What the sample index holds and what each wheel's metadata says.

Everything here follows download.pytorch.org/whl as it was for the torch
2.5.1 and 2.6.0 releases; the comments name the public source of each fact.
Choices that no public source covers are listed in README.md ("Choices").
The native side (which ELF files, their NEEDED and RPATH) is in native.py.
"""

import dataclasses

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


ACCELERATORS = {
    "cpu": Accelerator("cpu", "cpu"),
    "cu124": Accelerator("cu124", "cuda", cuda="12.4", eb_cuda="12.4.0"),
    "cu126": Accelerator("cu126", "cuda", cuda="12.6", eb_cuda="12.6.0"),
    # HIP_VERSION = major * 10^7 + minor * 10^5 + patch for 6.2.41134.
    "rocm6.2.4": Accelerator("rocm6.2.4", "rocm", hip="6.2.41134", hip_api_version=60241134),
}
VARIANTS = tuple(ACCELERATORS)


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
)

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

# Wheels whose index link carries no #sha256= fragment: prod pages have
# repeatedly shipped aarch64 wheels without one (pytorch#153469,
# uv#13195), plus one lone x86_64 wheel.
NO_HASH_ON_INDEX = frozenset(
    {
        "torch-2.6.0+cu126-cp311-cp311-linux_aarch64.whl",
        "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl",
        "torch-2.6.0+cu126-cp313-cp313-linux_aarch64.whl",
        "torchaudio-2.5.1+cu124-cp311-cp311-linux_x86_64.whl",
    }
)
# (project, version, variant) served from the second host, like the
# download-r2.pytorch.org links of the R2 packages (pytorch/test-infra
# s3_management/manage_v2.py, PT_R2_PACKAGES_PROD).
SECOND_HOST = frozenset({("torch", "2.6.0", "cu126")})


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

    @property
    def full_version(self) -> str:
        return f"{self.version}+{self.local}" if self.local else self.version

    @property
    def filename(self) -> str:
        return f"{self.project}-{self.full_version}-{self.python}-{self.abi}-{self.platform}.whl"

    @property
    def hash_on_index(self) -> bool:
        return self.filename not in NO_HASH_ON_INDEX

    @property
    def second_host(self) -> bool:
        return (self.project, self.version, self.variant) in SECOND_HOST

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


def wheels() -> list[Wheel]:
    """Every wheel of the sample index, in a fixed order."""
    out = []
    for release in RELEASES:
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
    return out


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


# Requires-Python of the pure wheels, and the data-requires-python value
# their index links carry (PyPI copies it; the torch index hard-codes
# ">=3.10" for networkx 3.3 / 3.4.2, pytorch#152191).
PURE_REQUIRES_PYTHON = {"networkx": ">=3.10", "sympy": ">=3.8"}


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
                ("Requires-Python", ">=3.9"),
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
    if wheel.project in ("triton", "pytorch_triton_rocm"):
        name = "triton" if wheel.project == "triton" else "pytorch-triton-rocm"
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
            ("Requires-Python", PURE_REQUIRES_PYTHON["sympy"]),
            ("Description-Content-Type", "text/markdown"),
            ("License-File", "LICENSE"),
            ("Requires-Dist", "mpmath<1.4,>=1.1.0"),
            ("Provides-Extra", "dev"),
            ("Requires-Dist", 'pytest>=7.1.0; extra == "dev"'),
            ("Requires-Dist", 'hypothesis>=6.70.0; extra == "dev"'),
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
    raise ValueError(f"no metadata for {wheel.project}")


def wheel_file(wheel: Wheel) -> str:
    """The .dist-info/WHEEL text as bdist_wheel 0.45.1 writes it."""
    fields = [
        ("Wheel-Version", "1.0"),
        ("Generator", "bdist_wheel (0.45.1)"),
        ("Root-Is-Purelib", "true" if wheel.purelib else "false"),
    ]
    fields += [("Tag", tag) for tag in wheel.tags]
    return _headers(fields) + "\n"
