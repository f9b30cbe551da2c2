"""The CUDA 13 tree of the machine the sample is built on, and what the
sample takes from it.

The project's machines carry /usr/local/cuda (-> cuda-13.0): the installed
contents of NVIDIA's CUDA 13 pip wheels, flattened into lib/ and include/,
with each wheel's dist-info (METADATA, WHEEL, RECORD with the original
nvidia/cu13/lib/... paths) under dist-info/. From it the sample rebuilds
the nvidia-* CUDA 13 wheels (real METADATA and WHEEL, RECORD regenerated)
and lays out the 2026.1 EasyBuild modules as symlinks to the real
libraries. Nothing here is required: without the tree (or with other
versions in it) scan() says why and the sample uses stand-ins.
"""

import base64
import csv
import dataclasses
import hashlib
import json
import mmap
import os
import struct

# The wheels the sample rebuilds: (distribution, version). Those cuda-toolkit
# 13.0.2's extras pin (facts.CUDA_TOOLKIT; cuBLAS 13.1.0.3 also the lower end
# of torch's nvidia-cublas range) and cuDNN 9.19.0.56 and NCCL 2.28.9 (2.10.0+cu130
# pins NCCL 2.28.9); the other versions the CUDA 13 rows pin are stand-ins
# (catalogue.CUDA13_STAND_IN_WHEELS).
EXPECTED = (
    ("nvidia_cuda_nvrtc", "13.0.88"),
    ("nvidia_cuda_runtime", "13.0.96"),
    ("nvidia_cuda_cupti", "13.0.85"),
    ("nvidia_cudnn_cu13", "9.19.0.56"),
    ("nvidia_cublas", "13.1.0.3"),
    ("nvidia_cufft", "12.0.0.61"),
    ("nvidia_curand", "10.4.0.35"),
    ("nvidia_cusolver", "12.0.4.66"),
    ("nvidia_cusparse", "12.6.3.3"),
    ("nvidia_nccl_cu13", "2.28.9"),
    ("nvidia_nvtx", "13.0.85"),
    ("nvidia_nvjitlink", "13.0.88"),
)
# A wheel whose members add up to at most this is rebuilt whole; larger
# ones as a subset: the dist-info and every member up to SUBSET_MEMBER_LIMIT
# (headers, small libraries), none of the multi-hundred-MB libraries.
WHOLE_LIMIT = 8 * 1024 * 1024
SUBSET_MEMBER_LIMIT = 1024 * 1024
# dist-info files of the real wheel (the installer's own files are left out).
DIST_FILES = ("METADATA", "WHEEL", "licenses/License.txt", "top_level.txt")


@dataclasses.dataclass(frozen=True)
class Member:
    arcname: str  # as in the real wheel: nvidia/cu13/lib/libcudart.so.13
    path: str  # the installed file in the tree
    size: int
    digest: str  # RECORD's sha256=<urlsafe b64>


@dataclasses.dataclass(frozen=True)
class TreeWheel:
    project: str
    version: str
    platform: str  # compressed tag set of the original file name
    dist_info: str  # directory in the tree
    members: tuple[Member, ...]  # everything RECORD lists outside the dist-info

    @property
    def whole(self) -> bool:
        return sum(m.size for m in self.members) <= WHOLE_LIMIT

    def shipped(self) -> tuple[Member, ...]:
        """The members the rebuilt wheel holds."""
        if self.whole:
            return self.members
        return tuple(m for m in self.members if m.size <= SUBSET_MEMBER_LIMIT)


@dataclasses.dataclass(frozen=True)
class Tree:
    root: str  # as given (the symlinks of the software tree point under it)
    wheels: dict[str, TreeWheel]

    def lib(self, name: str) -> str:
        return os.path.join(self.root, "lib", name)


def _installed_path(root: str, arcname: str) -> str:
    # nvidia/cu13/lib/x, nvidia/cudnn/lib/x, nvidia/nccl/include/x -> lib/x, include/x
    parts = arcname.split("/")
    return os.path.join(root, *parts[2:])


def _platform(dist_info: str) -> str:
    """The original file name's platform tag (direct_url.json keeps it),
    else the WHEEL Tag lines."""
    try:
        with open(os.path.join(dist_info, "direct_url.json"), encoding="utf-8") as handle:
            url = json.load(handle)["url"]
        return os.path.basename(url)[: -len(".whl")].split("-", 4)[4]
    except (OSError, KeyError, ValueError, IndexError):
        with open(os.path.join(dist_info, "WHEEL"), encoding="utf-8") as handle:
            tags = [line.split(": ", 1)[1].strip() for line in handle if line.startswith("Tag: ")]
        return ".".join(tag.split("-", 2)[2] for tag in tags)


def scan(root: str) -> tuple[Tree | None, str]:
    """(the tree, "") when every expected wheel is installed under root with
    every file RECORD lists, else (None, why not)."""
    if not os.path.isdir(os.path.join(root, "dist-info")):
        return None, f"{root}/dist-info: no such directory"
    found = {}
    for project, version in EXPECTED:
        dist_info = os.path.join(root, "dist-info", f"{project}-{version}.dist-info")
        if not os.path.isdir(dist_info):
            return None, f"{dist_info}: missing (other versions are not used)"
        members = []
        with open(os.path.join(dist_info, "RECORD"), encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                arcname = row[0]
                if ".dist-info/" in arcname:
                    continue
                path = _installed_path(root, arcname)
                if not os.path.isfile(path) or os.path.getsize(path) != int(row[2]):
                    return None, f"{path}: missing or not the size RECORD says"
                members.append(Member(arcname, path, int(row[2]), row[1]))
        for name in DIST_FILES:
            if not os.path.isfile(os.path.join(dist_info, name)):
                return None, f"{dist_info}/{name}: missing"
        platform = _platform(dist_info)
        found[project] = TreeWheel(project, version, platform, dist_info, tuple(members))
    return Tree(root, found), ""


def record_digest(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def read_member(member: Member) -> bytes:
    """The file's bytes, checked against the real wheel's RECORD."""
    with open(member.path, "rb") as handle:
        data = handle.read()
    if record_digest(data) != member.digest:
        raise RuntimeError(
            f"{member.path}: sha256 differs from the wheel's RECORD ({member.arcname})"
        )
    return data


# -- the dynamic section of an ELF file (64-bit little-endian) -----------------

DT_NEEDED, DT_STRTAB, DT_SONAME, DT_RPATH, DT_RUNPATH = 1, 5, 14, 15, 29


def elf_dynamic(data: bytes) -> dict:
    """{"soname", "needed", "rpath", "runpath"} of a 64-bit little-endian ELF
    file, as readelf -d reports them."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for index in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + index * phentsize
        )
        if p_type == 1:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:
            dynamic = (p_offset, p_filesz)
    entries = []
    if dynamic:
        for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
            tag, value = struct.unpack_from("<qQ", data, at)
            if tag == 0:
                break
            entries.append((tag, value))
    strtab = next((v for t, v in entries if t == DT_STRTAB), None)
    base = None
    for vaddr, offset, size in loads:
        if strtab is not None and vaddr <= strtab < vaddr + size:
            base = strtab - vaddr + offset

    def string(offset):
        end = data.find(b"\0", base + offset)
        return data[base + offset : end].decode("utf-8")

    info = {"soname": None, "needed": [], "rpath": None, "runpath": None}
    for tag, value in entries:
        if tag == DT_NEEDED:
            info["needed"].append(string(value))
        elif tag == DT_SONAME:
            info["soname"] = string(value)
        elif tag == DT_RPATH:
            info["rpath"] = string(value)
        elif tag == DT_RUNPATH:
            info["runpath"] = string(value)
    return info


@dataclasses.dataclass(eq=False)
class TreeFile:
    """An ELF file of the tree, standing where native.Target does (path,
    expected())."""

    path: str

    def expected(self) -> dict:
        # Mapped, not read: the real libraries are up to 540 MB.
        with open(self.path, "rb") as handle:
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return elf_dynamic(data)


# -- what the real libraries answer ---------------------------------------------

PROBE = r"""
import ctypes, json, sys
lib = sys.argv[1]
out = {}
def load(name):
    return ctypes.CDLL(lib + "/" + name)
def int_out(name, symbol, *before):
    value = ctypes.c_int()
    code = getattr(load(name), symbol)(*before, ctypes.byref(value))
    return value.value if code == 0 else None
out["cudart"] = int_out("libcudart.so.13", "cudaRuntimeGetVersion")
cudnn = load("libcudnn.so.9")
cudnn.cudnnGetVersion.restype = ctypes.c_size_t
out["cudnn"] = cudnn.cudnnGetVersion()
out["nccl"] = int_out("libnccl.so.2", "ncclGetVersion")
out["cublas"] = int_out("libcublas.so.13", "cublasGetVersion_v2", None)
out["cufft"] = int_out("libcufft.so.12", "cufftGetVersion")
out["curand"] = int_out("libcurand.so.10", "curandGetVersion")
out["cusolver"] = int_out("libcusolver.so.12", "cusolverGetVersion")
print(json.dumps(out, sort_keys=True))
"""


def probe(python: str, tree: Tree) -> dict:
    """What the real libraries report (cudaRuntimeGetVersion, ...), or {}
    when they cannot be loaded here."""
    import subprocess

    result = subprocess.run(
        [python, "-c", PROBE, os.path.join(tree.root, "lib")], capture_output=True, text=True
    )
    if result.returncode != 0:
        return {}
    return json.loads(result.stdout)
