"""What the sample index holds and what each wheel's metadata says.

Which releases, which variant directories and architectures, torch's
Requires-Dist, the domain libraries and triton of each release and which
links lack a hash come from the facts table (facts.py, one row per release
x variant, each citing its source). This module turns the table into wheels
and writes everything else a wheel's metadata says; the comments name the
public source of each fact. Choices that no public source covers are listed
in README.md ("Choices"). The native side (which ELF files, their NEEDED and
RPATH) is in native.py.
"""

import dataclasses
import hashlib

from . import cuda13, facts

# <!--TIMESTAMP n--> footer of every generated page (pytorch/test-infra
# s3_management/manage.py, to_simple_package_html); fixed so the
# pages are the same bytes on every build. 2025-02-01T00:00:00Z.
TIMESTAMP = 1738368000
# <!--SERIAL n--> footer of the PyPI pages that the index mirrors
# (pytorch/test-infra s3_management/update_dependencies.py copies them).
PYPI_SERIAL = 26812345
# Time stamp of every zip member: the torch 2.6.0 release day.
ZIP_DATE_TIME = (2025, 1, 29, 0, 0, 0)

# Markers of the CUDA requirements (pytorch
# .github/scripts/generate_binary_build_matrix.py, PYTORCH_EXTRA_INSTALL_REQUIREMENTS).
LINUX_X86_64 = facts.LINUX_X86_64
LINUX = facts.LINUX


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
    # The wheels bundle every library of facts.ROCM_LIBRARIES (torch 2.9.1), not only
    # the five of rocm_bundled.
    rocm_stack: bool = False

    @property
    def cuda_major(self) -> int | None:
        return int(self.cuda.split(".")[0]) if self.cuda else None


ACCELERATORS = {
    "cpu": Accelerator("cpu", "cpu"),
    "cu124": Accelerator("cu124", "cuda", cuda="12.4", eb_cuda="12.4.0"),
    "cu126": Accelerator("cu126", "cuda", cuda="12.6", eb_cuda="12.6.0"),
    # HIP_VERSION = major * 10^7 + minor * 10^5 + patch for 6.2.41134.
    "rocm6.2.4": Accelerator("rocm6.2.4", "rocm", hip="6.2.41134", hip_api_version=60241134),
    # torch 2.9.1's ROCm builds bundle the whole ROCm stack under its link names
    # (native.rocm_stack_members; facts.ROCM_LIBRARIES). HIP of the build images' ROCm
    # point release (recalled: 6.3.0 and 6.4.2; not known here), RCCL 2.21.5 / 2.22.3.
    "rocm6.3": Accelerator(
        "rocm6.3",
        "rocm",
        hip="6.3.42131",
        hip_api_version=60342131,
        rccl_api_version=22105,
        rocm="6.3.0",
        rocm_stack=True,
    ),
    "rocm6.4": Accelerator(
        "rocm6.4",
        "rocm",
        hip="6.4.43484",
        hip_api_version=60443484,
        rccl_api_version=22203,
        rocm="6.4.2",
        rocm_stack=True,
    ),
    # The 2026 generation (README "Contents"). The CUDA 12 builds link the
    # 2025b module set (CUDA 12.9.1), the CUDA 13 ones the 2026.1 set
    # (CUDA 13.3.0, whose libraries are NVIDIA's real CUDA 13.0 wheels where
    # the machine has them). HIP and RCCL of ROCm 7.x and torch.version.xpu
    # for oneAPI 2025.3 are recalled or the sample's own (README "Choices").
    "cu128": Accelerator("cu128", "cuda", cuda="12.8", eb_cuda="12.9.1"),
    "cu129": Accelerator("cu129", "cuda", cuda="12.9", eb_cuda="12.9.1"),
    "cu130": Accelerator("cu130", "cuda", cuda="13.0", eb_cuda="13.3.0"),
    "cu132": Accelerator("cu132", "cuda", cuda="13.2", eb_cuda="13.3.0"),
    "rocm7.0": Accelerator(
        "rocm7.0",
        "rocm",
        hip="7.0.51831",
        hip_api_version=70051831,
        rccl_api_version=22606,
        rocm="7.0.0",
    ),
    "rocm7.1": Accelerator(
        "rocm7.1",
        "rocm",
        hip="7.1.25424",
        hip_api_version=70125424,
        rccl_api_version=22606,
        rocm="7.1.0",
    ),
    "rocm7.2": Accelerator(
        "rocm7.2",
        "rocm",
        hip="7.2.26015",
        hip_api_version=70226015,
        rccl_api_version=22707,
        rocm="7.2.0",
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


@dataclasses.dataclass(frozen=True)
class TorchRelease:
    """A release of the facts table, with what the sample adds to it."""

    facts: facts.Release
    git_version: str
    metadata_files: bool  # PEP 658 .metadata uploaded (torch >= 2.6, test-infra #6116)
    cusparselt: bool  # libtorch_cuda links libcusparseLt.so.0 (2.6, pytorch#138547)
    console_scripts: tuple[tuple[str, str], ...]
    # The 2026 generation: manylinux_2_28 everywhere, nvshmem and cufile,
    # no libnvToolsExt, CUDA 13 naming, Metadata-Version 2.4 (README).
    modern: bool = False
    eb_cuda12: str | None = None  # CUDA 12 module set its cu12x builds link, if not the variant's

    @property
    def version(self) -> str:
        return self.facts.version

    @property
    def vision(self) -> str | None:
        return self.facts.vision

    @property
    def audio(self) -> str | None:
        return self.facts.audio

    @property
    def triton(self) -> str:
        return self.facts.triton

    @property
    def pythons(self) -> tuple[str, ...]:
        return self.facts.pythons

    @property
    def domain_pythons(self) -> tuple[str, ...]:
        return self.facts.domain_pythons

    @property
    def requires_python(self) -> str:
        return self.facts.requires_python

    def cells(self, which: str) -> list[Published]:
        """torch ("torch") or domain ("domain") cells in the table's order."""
        return [
            Published(row.variant, cell.arch, cell.local, cell.platform, cell.style)
            for row in self.facts.rows
            for cell in getattr(row, which)
        ]


# torch/version.py's git_version: of the real wheels as found in public
# dumps (2.10.0+cu128, 2.12.0+cu130); for the releases without one the
# sample's own (the sha1 of "sample torch <version>", README "Choices").
GIT_VERSIONS = {
    "2.5.1": "a8d6afb511a69687bbb2b7e88a3cf67917e1697e",
    "2.6.0": "1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340",
    "2.10.0": "449b1768410104d3ed79d3bcfe4ba1d65c7f22c0",
    "2.12.0": "7661cd9c6b841b62b7f411aa52ec51f05457263b",
}
OLD_RELEASES = ("2.5.1", "2.6.0")


def _release(rel: facts.Release) -> TorchRelease:
    git = GIT_VERSIONS.get(rel.version) or hashlib.sha1(
        f"sample torch {rel.version}".encode("ascii")
    ).hexdigest()
    scripts = (("torchrun", "torch.distributed.run:main"),)
    if rel.version != "2.5.1":
        scripts = (("torchfrtrace", "tools.flight_recorder.fr_trace:main"),) + scripts
    modern = rel.version not in OLD_RELEASES
    return TorchRelease(
        facts=rel,
        git_version=git,
        metadata_files=rel.version != "2.5.1",
        cusparselt=rel.version != "2.5.1",
        console_scripts=scripts,
        modern=modern,
        eb_cuda12="12.9.1" if modern else None,
    )


# pytorch/test-infra tools/scripts/generate_binary_build_matrix.py and
# RELEASE.md (facts.py): every release, variant and architecture.
RELEASES = tuple(_release(rel) for rel in facts.RELEASES)
MODERN_RELEASES = tuple(r.version for r in RELEASES if r.modern)


def _hashless() -> frozenset:
    """Links without a #sha256= fragment (facts: the rows' `hashless` and
    HASHLESS_FILES): prod pages have repeatedly shipped aarch64 wheels without
    one (pytorch#153469, uv#13195), stable releases again in 2026
    (pytorch#164347), whole variants (pytorch#173099, #181056)."""
    names = {name for name, _, _ in facts.HASHLESS_FILES}
    for rel in facts.RELEASES:
        for row in rel.rows:
            for cell in row.torch:
                if cell.arch not in row.hashless:
                    continue
                local = f"+{cell.local}" if cell.local else ""
                for python in rel.pythons:
                    names.add(f"torch-{rel.version}{local}-{python}-{python}-{cell.platform}.whl")
    return frozenset(names)


NO_HASH_ON_INDEX = _hashless()
# (project, version, variant) served from the second host, like the
# download-r2.pytorch.org links of the R2 packages (pytorch/test-infra
# s3_management/manage_v2.py, PT_R2_PACKAGES_PROD).
SECOND_HOST = frozenset({("torch", "2.6.0", "cu126")})
# Every file of these projects in the 2026 generation is served from the
# second host (PT_R2_PACKAGES_PROD; e.g. the cu130 torch page quoted in
# nvidia-holoscan/holohub#1717 links download-r2.pytorch.org/whl/cu130/).
R2_PROJECTS = frozenset(
    {
        "torch", "torchvision", "torchaudio", "triton", "triton_rocm", "pytorch_triton_rocm",
        "pytorch_triton_xpu",
    }
)
TRITON_PROJECTS = ("triton", "triton_rocm", "pytorch_triton_rocm", "pytorch_triton_xpu")
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


def _release_wheels(release: TorchRelease, seen: set) -> list[Wheel]:
    """torch and its domain libraries of one release, in the table's order
    (torch, then torchvision, then torchaudio, each cell by cell). A domain
    wheel two releases share (torchaudio 2.11.0 with 2.12.0 and 2.12.1) is
    made once, with the first."""
    out = []
    for cell in release.cells("torch"):
        for python in release.pythons:
            out.append(_native("torch", release.version, cell, python, release))
    for project, version in (("torchvision", release.vision), ("torchaudio", release.audio)):
        if version is None:
            continue
        for cell in release.cells("domain"):
            for python in release.domain_pythons:
                wheel = _native(project, version, cell, python, release)
                if (wheel.filename, wheel.variant) in seen:
                    continue
                seen.add((wheel.filename, wheel.variant))
                out.append(wheel)
    return out


def _triton_wheels(triton: facts.Triton, release: TorchRelease) -> list[Wheel]:
    """A triton build's files at the prefix root (manage.py gen_file_list
    lists them on every variant's pages)."""
    build = {"triton": "cuda", "triton_rocm": "rocm", "pytorch_triton_rocm": "rocm",
             "pytorch_triton_xpu": "xpu"}[triton.project]
    out = []
    for arch in triton.arches:
        cell = Published(build, arch, None, triton.platform.format(arch=arch))
        for python in triton.pythons:
            out.append(_native(triton.project, triton.version, cell, python, release, "root"))
    return out


def tritons_of(release: TorchRelease) -> list[facts.Triton]:
    """The triton builds a release's torch files require, in the table's
    order: their projects (triton, triton-rocm, pytorch-triton-rocm,
    pytorch-triton-xpu) at the release's triton version."""
    wanted = set()
    for row in release.facts.rows:
        for line in row.requires_for("x86_64") + row.requires_for("aarch64"):
            name = line.split(";")[0].split("=")[0].split("~")[0].strip()
            if name.replace("-", "_") in TRITON_PROJECTS:
                wanted.add(name.replace("-", "_"))
    # The 2024/25 releases serve both flavours (2.5.1 has no ROCm build in the
    # sample, yet its pytorch_triton_rocm files are at the root).
    return [t for t in facts.TRITONS if t.version == release.triton
            and (t.project in wanted or not release.modern)]


def wheels(tree=None) -> list[Wheel]:
    """Every wheel of the sample index, in a fixed order (the 2024/25 ones
    first, as before the 2026 generation was added). tree: the CUDA 13 tree
    (cuda13.Tree) the nvidia-* CUDA 13 wheels are rebuilt from, or None."""
    out = []
    seen: set = set()
    for release in RELEASES:
        if release.modern:
            continue
        out += _release_wheels(release, seen)
        # triton and pytorch_triton_rocm live at the prefix root, so every
        # variant page lists them (manage.py gen_file_list); Linux x86_64
        # only. Triton 3.1.0 had no cp313 wheels (≤2.5 pins it with
        # python_version < "3.13", pytorch .circleci/scripts/binary_populate_env.sh).
        for triton in tritons_of(release):
            out += _triton_wheels(triton, release)
    out += nvidia_wheels()
    for version in ("3.3", "3.4.2"):
        out.append(_pure("networkx", version, "root"))
    for version in ("1.13.1", "1.13.3"):
        out.append(_pure("sympy", version, "mirror"))
    # sympy's one requirement (mpmath<1.4,>=1.1.0), mirrored from PyPI into
    # every directory as sympy is (update_dependencies.py PACKAGES_PER_PROJECT
    # "mpmath": [{"project": "torch"}], no target).
    out.append(_pure("mpmath", "1.3.0", "mirror"))
    return out + wheels_2026(tree, seen)


# -- the 2026 generation ------------------------------------------------------

# torchao's stable-ABI wheels (abi3, field-2026 §1), x86_64 only, in the CUDA
# directories of 2.10 that the sample models: (variant, local label).
TORCHAO = ("0.15.0", (("cu128", "cu128"), ("cu130", "cu130")))
# cuda-bindings, mirrored from PyPI into the CUDA directories
# (pytorch/test-infra s3_management/update_dependencies.py,
# PACKAGES_PER_PROJECT["cuda-bindings"] targets). 12.9.4 meets the CUDA 12
# builds' ==12.9.4 and <13,>=12.9.4, 13.0.3 the CUDA 13 ones' ==13.0.3 and
# <14,>=13.0.3.
CUDA_BINDINGS = ("12.9.4", "13.0.3")
CUDA_TARGETS = ("cu126", "cu128", "cu129", "cu130", "cu132")
CUDA_BINDINGS_TARGETS = CUDA_TARGETS
# The cuda-toolkit metapackage (facts.CUDA_TOOLKIT), mirrored from PyPI like
# cuda-bindings (manage_v2.py PACKAGE_LINKS_ALLOW_LIST has cuda-toolkit).
CUDA_TOOLKIT_TARGETS = CUDA_TARGETS
# The nvidia-* CUDA 13 pages are copied into these (update_dependencies.py
# targets of "nvidia-cublas", ... : cu130, cu132).
CUDA13_TARGETS = ("cu130", "cu132")
# NVIDIA CUDA 13 wheels this machine's CUDA 13 tree lacks, at every version a
# CUDA 13 torch row or cuda-toolkit 13.0.2 pins: compiled stand-ins with the
# real SONAMEs (project, version, library arcname).
CUDA13_STAND_IN_WHEELS = (
    ("nvidia_cusparselt_cu13", "0.8.0", "nvidia/cusparselt/lib/libcusparseLt.so.0"),
    ("nvidia_nvshmem_cu13", "3.4.5", "nvidia/nvshmem/lib/libnvshmem_host.so.3"),
    ("nvidia_cufile", "1.15.1.6", "nvidia/cu13/lib/libcufile.so.0"),
    ("nvidia_cusparselt_cu13", "0.8.1", "nvidia/cusparselt/lib/libcusparseLt.so.0"),
    ("nvidia_cudnn_cu13", "9.15.1.9", "nvidia/cudnn/lib/libcudnn.so.9"),
    ("nvidia_cudnn_cu13", "9.20.0.48", "nvidia/cudnn/lib/libcudnn.so.9"),
    ("nvidia_cudnn_cu13", "9.24.0.43", "nvidia/cudnn/lib/libcudnn.so.9"),
    ("nvidia_nccl_cu13", "2.29.7", "nvidia/nccl/lib/libnccl.so.2"),
    ("nvidia_nccl_cu13", "2.30.7", "nvidia/nccl/lib/libnccl.so.2"),
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


def wheels_2026(tree, seen=None) -> list[Wheel]:
    out = []
    seen = set() if seen is None else seen
    made = set()
    for release in RELEASES:
        if not release.modern:
            continue
        out += _release_wheels(release, seen)
        # triton at the prefix root (compound tags as triton's own wheels:
        # manylinux_2_27 + manylinux_2_28, EasyBuild's Triton-3.5.1 whl
        # easyconfig and field-2026 §1; triton_rocm plain linux_x86_64):
        # one build per version, with the first release that pins it.
        for triton in tritons_of(release):
            if (triton.project, triton.version) not in made:
                made.add((triton.project, triton.version))
                out += _triton_wheels(triton, release)
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
    for version in facts.CUDA_TOOLKIT:
        out.append(
            dataclasses.replace(
                _pure("cuda_toolkit", version, "mirror"), targets=CUDA_TOOLKIT_TARGETS
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
    """The release a torch, domain library or triton version belongs to (the
    first that has it)."""
    return next(r for r in RELEASES if version in (r.version, r.vision, r.audio, r.triton))


def release_of_wheel(wheel: Wheel) -> TorchRelease | None:
    """The torch release a wheel belongs to; for the wheels of no release
    (nvidia-*, pure ones) the last release if they came with the 2026
    generation, else None."""
    if wheel.release:
        return release_of(wheel.release)
    new = wheel.project in ("cuda_bindings", "cuda_toolkit") or wheel.contents or (
        wheel.version == "1.14.0"
    )
    return RELEASES[-1] if new else None


def is_modern(wheel: Wheel) -> bool:
    release = release_of_wheel(wheel)
    return release is not None and release.modern


# Requires-Python of the pure wheels, and the data-requires-python value
# their index links carry (PyPI copies it; the torch index hard-codes
# ">=3.10" for networkx 3.3 / 3.4.2, pytorch#152191). None: the METADATA
# has no Requires-Python and PyPI's link no data-requires-python (mpmath
# 1.3.0's setup.cfg sets no python_requires).
PURE_REQUIRES_PYTHON = {"networkx": ">=3.10", "sympy": ">=3.8", "mpmath": None, "cuda_toolkit": ">=3"}


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


def spelled(line: str, style: str) -> str:
    """A facts-table line (modern spelling, `name[extras]spec; marker`) as a
    builder of that style writes it."""
    if style != "legacy":
        return line
    text, _, marker = line.partition("; ")
    end = next((i for i, c in enumerate(text) if c in "<>=!~"), len(text))
    return requirement(style, text[:end], text[end:], marker)


def torch_requires(wheel: Wheel) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(Requires-Dist without extras, [(extra, its Requires-Dist)]), as the
    facts table has them for the wheel's release, accelerator and
    architecture: the pure dependencies, the accelerator's lines, the pure
    ones after them (2.5/2.6), the extras. The aarch64 2.6.0+cu126 wheel
    lacks every nvidia-* requirement, and the triton one with them (uv#14540;
    fixed in 2.7 by pytorch#145021)."""
    rel = facts.release(wheel.version)
    row = rel.row(wheel.build)
    lines = rel.head + row.requires_for(wheel.arch) + rel.tail
    reqs = [spelled(line, wheel.style) for line in lines]
    extras = [(extra, [spelled(line, wheel.style) for line in extra_lines])
              for extra, extra_lines in rel.extras]
    return reqs, extras


def domain_requires(wheel: Wheel) -> str:
    """torchvision's / torchaudio's requirement on torch: torch==<release>,
    or what the facts give (torchaudio 2.11.0: torch>=2.11.0)."""
    rel = facts.release(wheel.release)
    if wheel.project == "torchaudio" and rel.audio_requires:
        return rel.audio_requires
    return f"torch=={rel.version}"


def cuda_toolkit_requires(version: str) -> list[tuple[str, list[str]]]:
    """cuda-toolkit's extras: one `<wheel>==<version>.*` per extra (facts.CUDA_TOOLKIT)."""
    return [
        (extra, [f'{name}=={pinned}.*; extra == "{extra}"'])
        for extra, name, pinned in facts.CUDA_TOOLKIT[version]["extras"]
    ]


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
        release = release_of(wheel.release)
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
                ("Requires-Dist", domain_requires(wheel)),
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
                ("Requires-Dist", domain_requires(wheel)),
            ]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project in TRITON_PROJECTS:
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
    if wheel.project == "cuda_toolkit":
        # A metapackage: no files, one extra per component, each pinning
        # that component's wheel (facts.CUDA_TOOLKIT). In the style of
        # NVIDIA's CUDA 13 wheels' METADATA.
        fields = [
            ("Metadata-Version", "2.4"),
            ("Name", "cuda-toolkit"),
            ("Version", wheel.version),
            ("Summary", "CUDA Toolkit meta-package"),
            ("Home-page", "https://developer.nvidia.com/cuda-toolkit"),
            ("Author", "Nvidia CUDA Installer Team"),
            ("Author-email", "compute_installer@nvidia.com"),
            ("License-Expression", "LicenseRef-NVIDIA-Proprietary"),
            ("Keywords", "cuda,nvidia,runtime,machine learning,deep learning"),
            ("Classifier", "Operating System :: POSIX :: Linux"),
            ("Requires-Python", PURE_REQUIRES_PYTHON["cuda_toolkit"]),
            ("License-File", "License.txt"),
        ]
        for extra, lines in cuda_toolkit_requires(wheel.version):
            fields.append(("Provides-Extra", extra))
            fields += [("Requires-Dist", line) for line in lines]
        return _headers(fields) + "\n" + SAMPLE_NOTE
    if wheel.project in ("torchao", "cuda_bindings") or wheel.contents == "stand-in":
        return metadata_2026(wheel)
    raise ValueError(f"no metadata for {wheel.project}")


def torch_metadata_2026(wheel: Wheel) -> str:
    """Core metadata 2.4 as setuptools >= 77 writes it for torch (field
    order of a downloaded 2.14.0+cu130 METADATA)."""
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
    "nvidia_cudnn_cu13": "cuDNN runtime libraries",
    "nvidia_nccl_cu13": "NVIDIA Collective Communication Library (NCCL) Runtime",
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
    "cuda_toolkit": PURE_REQUIRES_PYTHON["cuda_toolkit"],
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
