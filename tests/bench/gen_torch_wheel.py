#!/usr/bin/env python3
"""Writes a torch-shaped wheel for the install benchmark, deterministically.

The default wheel looks like a PyTorch CUDA wheel to an installer: about
1.5 GiB unpacked and 600 MB packed in about 8,200 entries —

  8,000 small `.py` files (a few KB of valid, varied Python) in ~350 packages,
  200 medium files (C++ headers and binary blobs, 14 KiB to 23 MiB),
  6 real ELF shared objects in torch/lib of 600/300/100/100/50/50 MiB,

the libraries with torch's RPATH (`$ORIGIN/../../nvidia/<x>/lib` for each
CUDA wheel, DT_RPATH as pip's torch has it), DT_NEEDED entries naming the
CUDA libraries, and a payload section of pseudo-random bytes built like
machine code for deflate (literals, short back-references, zero padding:
about 2.5:1 at level 6). Plus a valid RECORD (sha256 and size of every
entry), WHEEL, METADATA (torch 2.6.0+cu126 with its nvidia-* requirements)
and entry_points.txt. The name carries the running Python's tag:
torch-2.6.0+cu126-cp3XY-cp3XY-linux_x86_64.whl.

Members are written to the zip in chunks, so the script's memory stays
small; `objcopy`, which adds each library's payload section, holds that
section in memory while it works. The same --seed and --scale give the
same bytes.

  gen_torch_wheel.py --out DIR                 # the full-size wheel (about 30 s)
  gen_torch_wheel.py --out DIR --scale 0.005   # a few MB, for the smoke test

Needs gcc and objcopy (binutils).
"""

import argparse
import base64
import hashlib
import random
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

K_MIB = 1 << 20
K_VERSION = "2.6.0+cu126"
K_DATE_TIME = (2025, 1, 29, 0, 0, 0)  # fixed, for identical bytes on every run
K_SMALL_FILES = 8000
K_MEDIUM_FILES = 200
K_MEDIUM_TEXT_MIB = 40     # headers: text
K_MEDIUM_BINARY_MIB = 250  # blobs: machine-code-like bytes
K_CHUNK = K_MIB

# (file, MiB at scale 1, DT_NEEDED besides libc): torch/lib's big libraries.
K_LIBRARIES = [
    ("libtorch_cuda.so", 600, ["libc10_cuda.so", "libc10.so", "libtorch_cpu.so", "libcudart.so.12",
                               "libcublas.so.12", "libcublasLt.so.12", "libcudnn.so.9",
                               "libnccl.so.2", "libcusparseLt.so.0", "libcupti.so.12",
                               "libnvToolsExt.so.1", "libcufft.so.11", "libcurand.so.10",
                               "libcusolver.so.11", "libcusparse.so.12", "libnvrtc.so.12"]),
    ("libtorch_cpu.so", 300, ["libc10.so"]),
    ("libtorch_cuda_linalg.so", 100, ["libtorch_cuda.so", "libc10.so", "libcusolver.so.11",
                                      "libcublas.so.12", "libcudart.so.12"]),
    ("libtorch_python.so", 100, ["libtorch_cpu.so", "libc10.so"]),
    ("libc10_cuda.so", 50, ["libc10.so", "libcudart.so.12"]),
    ("libc10.so", 50, []),
]
# torch 2.6.0+cu126's RPATH (the nvidia-* wheel directories, then $ORIGIN):
# every entry relative to torch/lib, so that site-packages/nvidia/... is found.
K_RPATH = [f"$ORIGIN/../../nvidia/{name}/lib" for name in (
    "cublas", "cuda_cupti", "cuda_nvrtc", "cuda_runtime", "cudnn", "cufft", "curand",
    "cusolver", "cusparse")] + ["$ORIGIN/../../cusparselt/lib"] + [
    f"$ORIGIN/../../nvidia/{name}/lib" for name in ("nccl", "nvtx")] + ["$ORIGIN"]
K_REQUIRES = [
    "filelock", "typing-extensions>=4.10.0", "networkx", "jinja2", "fsspec",
    *(f'{name}=={version}; platform_system == "Linux" and platform_machine == "x86_64"'
      for name, version in [
          ("nvidia-cuda-nvrtc-cu12", "12.6.77"), ("nvidia-cuda-runtime-cu12", "12.6.77"),
          ("nvidia-cuda-cupti-cu12", "12.6.80"), ("nvidia-cudnn-cu12", "9.5.1.17"),
          ("nvidia-cublas-cu12", "12.6.4.1"), ("nvidia-cufft-cu12", "11.3.0.4"),
          ("nvidia-curand-cu12", "10.3.7.77"), ("nvidia-cusolver-cu12", "11.7.1.2"),
          ("nvidia-cusparse-cu12", "12.5.4.2"), ("nvidia-cusparselt-cu12", "0.6.3"),
          ("nvidia-nccl-cu12", "2.21.5"), ("nvidia-nvtx-cu12", "12.6.77"),
          ("nvidia-nvjitlink-cu12", "12.6.85"), ("triton", "3.2.0")]),
    'sympy==1.13.1; python_version >= "3.9"',
]
WORDS = ("tensor grad shape dim weight bias input output module buffer stride device dtype "
         "layout scale offset index value mask state graph node kernel stream event "
         "storage batch channel group block size count cache key hook param view axis "
         "sparse dense quant observer pattern guard frame trace schema op arg result").split()
PACKAGES = ("nn optim utils distributed _inductor _dynamo fx onnx jit cuda ao testing export "
            "sparse quantization profiler autograd backends compiler amp special linalg fft "
            "masked nested signal func mps xpu _functorch _refs _prims _subclasses").split()


class Tiles:
    """1 MiB tiles shaped like machine code for deflate: short literal runs,
    back-references of 6-40 bytes within deflate's 32 KiB window, and zero
    padding. Output is tiles in a random order from random offsets: deflate
    cannot see from one tile into the next, so the ratio is the tile's."""

    def __init__(self, rng, count):
        self.tiles = [self.make(rng) for _ in range(count)]

    @staticmethod
    def make(rng, literal_share=0.32):
        out = bytearray()
        while len(out) < K_CHUNK:
            r = rng.random()
            if r < literal_share or len(out) < 64:
                out += rng.randbytes(rng.randint(4, 48))
            elif r < 0.97:
                n = rng.randint(6, 40)
                start = len(out) - rng.randint(n, min(len(out), 32000))
                out += out[start:start + n]
            else:
                out += bytes(rng.randint(8, 256))
        return bytes(out[:K_CHUNK])

    def stream(self, rng, size):
        while size > 0:
            tile, at = rng.choice(self.tiles), rng.randrange(K_CHUNK)
            chunk = (tile[at:] + tile[:at])[:size]
            size -= len(chunk)
            yield chunk


def identifier(rng, parts=(1, 3)):
    return "_".join(rng.choice(WORDS) for _ in range(rng.randint(*parts)))


def python_source(rng, target):
    """Valid Python of about `target` bytes: functions and classes."""
    out = [f'"""{identifier(rng, (3, 6)).replace("_", " ").capitalize()}."""',
           "import math", "import typing", ""]
    size = sum(len(line) + 1 for line in out)
    while size < target:
        args = sorted({identifier(rng, (1, 2)) for _ in range(rng.randint(1, 4))})
        var, limit = identifier(rng), rng.randint(2, 999)
        body = [f"    {var} = {' + '.join(args)}",
                f"    if {var} > {limit}:",
                f"        return {var} * {rng.randint(2, 64)}",
                f"    for step in range({rng.randint(1, 32)}):",
                f"        {var} = {var} - step  # {identifier(rng, (2, 5)).replace('_', ' ')}",
                f"    return math.floor({var})"]
        if rng.random() < 0.3:
            block = [f"class {identifier(rng, (1, 2)).title().replace('_', '')}:",
                     f"    {identifier(rng)}: typing.Any = None", "",
                     f"    def {identifier(rng)}(self, {', '.join(args)}):",
                     *("    " + line for line in body)]
        else:
            block = [f"def {identifier(rng)}({', '.join(args)}):",
                     f'    """{identifier(rng, (4, 9)).replace("_", " ").capitalize()}."""', *body]
        block += ["", ""]
        out += block
        size += sum(len(line) + 1 for line in block)
    return "\n".join(out).encode()


def header_source(rng, target):
    """C++-header-like text of about `target` bytes (torch/include's shape)."""
    out, size = ["#pragma once", "#include <ATen/core/Tensor.h>", "namespace at::_ops {"], 0
    while size < target:
        name, arg = identifier(rng, (2, 4)), identifier(rng)
        block = (f"struct TORCH_API {name} {{\n"
                 f"  using schema = at::Tensor (const at::Tensor &, int64_t);\n"
                 f'  static constexpr const char* name = "aten::{name}";\n'
                 f'  static constexpr const char* overload_name = "{arg}";\n'
                 f"  static at::Tensor call(const at::Tensor & self, int64_t {arg});\n"
                 f"  static at::Tensor redispatch(c10::DispatchKeySet, const at::Tensor & self, "
                 f"int64_t {arg});\n}};\n")
        out.append(block)
        size += len(block)
    out.append("}  // namespace at::_ops\n")
    return "\n".join(out).encode()


@dataclass(order=True)
class Entry:
    path: str
    kind: str = field(compare=False)   # py, header, blob, library
    size: int = field(compare=False)   # target bytes
    seed: int = field(compare=False)


def plan(rng, scale):
    """Every entry of the package, sorted by path as bdist_wheel writes them."""
    directories = ["torch"]
    for top in PACKAGES:
        directories.append(f"torch/{top}")
        nested = rng.randint(4, 24)
        if scale < 1:  # fewer directories too, but not as few as files
            nested = max(1, round(nested * scale ** 0.5))
        for _ in range(nested):
            parent = rng.choice([d for d in directories if d.startswith(f"torch/{top}")])
            if parent.count("/") < 3:
                directories.append(f"{parent}/{identifier(rng, (1, 2))}")
    directories = sorted(set(directories))
    entries = {f"{d}/__init__.py": Entry(f"{d}/__init__.py", "py", rng.randint(200, 3000),
                                         rng.getrandbits(64)) for d in directories}
    while len(entries) < max(20, round(K_SMALL_FILES * scale)):
        path = f"{rng.choice(directories)}/{identifier(rng)}.py"
        # a few KB, a long tail to 20 KB: lognormal around 3 KB
        entries.setdefault(path, Entry(path, "py", int(min(20000, rng.lognormvariate(8, 0.7))),
                                       rng.getrandbits(64)))
    medium = max(4, round(K_MEDIUM_FILES * scale))
    weights = [rng.lognormvariate(0, 1) for _ in range(medium)]
    for i, weight in enumerate(weights):
        text = i % 5 < 3  # three in five are headers
        budget = (K_MEDIUM_TEXT_MIB if text else K_MEDIUM_BINARY_MIB) * K_MIB * scale
        share = weight / sum(w for j, w in enumerate(weights) if (j % 5 < 3) == text)
        path = (f"torch/include/ATen/ops/{identifier(rng, (2, 3))}_{i}.h" if text
                else f"torch/testing/_internal/data/{identifier(rng)}_{i}.pt")
        entries[path] = Entry(path, "header" if text else "blob", max(4096, int(budget * share)),
                              rng.getrandbits(64))
    for name, mib, _ in K_LIBRARIES:
        path = f"torch/lib/{name}"
        entries[path] = Entry(path, "library", max(64 * 1024, int(mib * K_MIB * scale)),
                              rng.getrandbits(64))
    return sorted(entries.values())


class Libraries:
    """Real shared objects: a small gcc-built library with torch's RPATH and
    DT_NEEDED entries, grown to size by a non-loaded payload section."""

    def __init__(self, work, cc, objcopy):
        self.work, self.cc, self.objcopy = work, cc, objcopy
        stubs = {n for _, _, needed in K_LIBRARIES for n in needed}
        (work / "empty.c").write_text("int wheelmod_bench_stub;\n")
        (work / "stubs").mkdir()
        for soname in sorted(stubs):  # only their SONAMEs matter: they become DT_NEEDED
            self.run([cc, "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", f"stubs/{soname}",
                      "empty.c"])

    def run(self, command):
        result = subprocess.run(command, cwd=self.work, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"error: {' '.join(command)} exited {result.returncode}:\n{result.stderr}")

    def build(self, name, size, tiles, rng):
        needed = next(n for lib, _, n in K_LIBRARIES if lib == name)
        source = f"{name.removesuffix('.so')}.c"  # relative: the object names no temp path
        symbol = name.removesuffix(".so").replace("-", "_")
        (self.work / source).write_text(
            f"int {symbol}_calls;\nint {symbol}_entry(int x) {{ {symbol}_calls += x; "
            f"return {symbol}_calls * 3 + 1; }}\n")
        small = f"small-{name}"
        # Each -rpath as its own argument: no shell, so $ORIGIN stays literal.
        self.run([self.cc, "-shared", "-fPIC", "-O2", "-Wl,--disable-new-dtags",
                  *(f"-Wl,-rpath,{entry}" for entry in K_RPATH), f"-Wl,-soname,{name}",
                  "-o", small, source, "-Wl,--no-as-needed", *(f"stubs/{n}" for n in needed)])
        payload_size = size - (self.work / small).stat().st_size - 4096  # headers, alignment
        payload = self.work / "payload"
        with open(payload, "wb") as out:
            for chunk in tiles.stream(rng, max(1, payload_size)):
                out.write(chunk)
        # noload: a section no segment maps, as .comment or debug info; the
        # dynamic section and its strings stay where the linker put them.
        self.run([self.objcopy, f"--add-section=.bench_payload={payload}",
                  "--set-section-flags=.bench_payload=noload,readonly", small, name])
        payload.unlink()
        return self.work / name


class WheelWriter:
    """A zip written member by member, with the RECORD rows collected."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)  # zlib's default: level 6
        self.record = []

    def info(self, arcname, mode):
        info = zipfile.ZipInfo(arcname, K_DATE_TIME)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o100000 | mode) << 16
        return info

    def add(self, arcname, chunks, mode=0o644, large=False):
        digest, size = hashlib.sha256(), 0
        with self.zip.open(self.info(arcname, mode), "w", force_zip64=large) as member:
            for chunk in chunks:
                digest.update(chunk)
                member.write(chunk)
                size += len(chunk)
        hash_text = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
        self.record.append(f"{arcname},sha256={hash_text},{size}")
        return size

    def close(self, dist_info):
        rows = "\n".join(self.record + [f"{dist_info}/RECORD,,"]) + "\n"
        with self.zip.open(self.info(f"{dist_info}/RECORD", 0o644), "w") as member:
            member.write(rows.encode())
        self.zip.close()


def file_chunks(path):
    with open(path, "rb") as handle:
        while chunk := handle.read(4 * K_CHUNK):
            yield chunk


def write_wheel(out_dir, scale, seed, python_tag, cc, objcopy):
    """Writes the wheel into `out_dir`; returns its path, entries, unpacked bytes."""
    rng = random.Random(seed)
    entries = plan(rng, scale)
    tiles = Tiles(random.Random(seed + 1), max(2, min(8, round(1200 * scale))))
    tag = f"{python_tag}-{python_tag}-linux_x86_64"
    wheel = out_dir / f"torch-{K_VERSION}-{tag}.whl"
    partial = wheel.with_suffix(".whl.part")
    dist_info = f"torch-{K_VERSION}.dist-info"
    writer, total = WheelWriter(partial), 0
    with tempfile.TemporaryDirectory(prefix="gen-torch-", dir=out_dir) as tmp:
        libraries = Libraries(Path(tmp), cc, objcopy)
        for entry in entries:
            entry_rng = random.Random(entry.seed)
            if entry.kind == "py":
                total += writer.add(entry.path, [python_source(entry_rng, entry.size)])
            elif entry.kind == "header":
                total += writer.add(entry.path, [header_source(entry_rng, entry.size)])
            elif entry.kind == "blob":
                total += writer.add(entry.path, tiles.stream(entry_rng, entry.size))
            else:
                built = libraries.build(Path(entry.path).name, entry.size, tiles, entry_rng)
                total += writer.add(entry.path, file_chunks(built), 0o755, large=True)
                built.unlink()
    requires = "".join(f"Requires-Dist: {r}\n" for r in K_REQUIRES)
    for name, text in [
        ("METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {K_VERSION}\n"
                     "Summary: Tensors and Dynamic neural networks in Python with strong GPU "
                     "acceleration\nHome-page: https://pytorch.org/\nAuthor: PyTorch Team\n"
                     f"License: BSD-3-Clause\nRequires-Python: >=3.9.0\n{requires}\n"
                     "(generated by gen_torch_wheel.py for the install benchmark)\n"),
        ("WHEEL", f"Wheel-Version: 1.0\nGenerator: gen_torch_wheel.py\n"
                  f"Root-Is-Purelib: false\nTag: {tag}\n\n"),
        ("entry_points.txt", "[console_scripts]\ntorchfrtrace = tools.flight_recorder.fr_trace:"
                             "main\ntorchrun = torch.distributed.run:main\n"),
        ("top_level.txt", "torch\n"),
    ]:
        total += writer.add(f"{dist_info}/{name}", [text.encode()])
    writer.close(dist_info)
    partial.rename(wheel)
    return wheel, len(entries) + 5, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory for the wheel")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="bytes and file counts times this (default 1: ~1.5 GiB unpacked)")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--python-tag", default=f"cp3{sys.version_info.minor}",
                        help="cp3XY of the wheel name (default: this Python's)")
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--objcopy", default="objcopy")
    args = parser.parse_args()
    if not 0 < args.scale <= 4:
        parser.error("--scale must be in (0, 4]")
    args.out.mkdir(parents=True, exist_ok=True)
    wheel, files, total = write_wheel(args.out.resolve(), args.scale, args.seed, args.python_tag,
                                      args.cc, args.objcopy)
    print(f"{wheel}: {files} files, {total / K_MIB:.1f} MiB unpacked, "
          f"{wheel.stat().st_size / K_MIB:.1f} MiB packed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
