#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/<target>/ from the sample index
and the test sources: real index pages, METADATA and RECORD files, wheel file
names and small wheels from the sample index; ELF files compiled here from
tests/elf/fixtures; the shipped config and mirror examples; hand-picked
specifiers and markers. Each seed is named by the first 16 hex digits of its
sha1 (as libFuzzer names corpus files), so a re-run adds nothing twice.

    python3 tests/fuzz/make_seeds.py --sample build/dev/index-mirrors/sample
"""
import argparse
import hashlib
import json
import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_SEED = 65536  # the -max_len of the fuzz tests

VERSIONS = ["2.7.1+cu126", "1!2.0rc1.post2.dev3+ubuntu.4", "v1.0-1", "1.0.0a", "2.8.0.dev20250601",
            "0.22.1+rocm6.3", "1.0_post_2", "  1.0  ", "1.2.3.4.5.6.7.8.9", "18446744073709551615"]
SPECIFIERS = [">=3.9", "==2.7.*", "~=2.7.1", "!=2.6.0+cu124,>=2.5", "===foo", "<2.8,>2.6.0.post1",
              "==2.7.1+cu126", ">=1.0a1,<=2!1.0", ""]
MARKERS = ['python_version >= "3.12" and extra == "cuda"', "platform_machine == 'x86_64' or (sys_platform"
           " == 'linux' and implementation_name == 'cpython')", '"3.12" in python_full_version',
           'extra == "Dev_Tools"', "python_version ~= '3.1'", "os_name not in 'nt posix'"]
REQUIREMENTS = ["torch==2.7.1", "nvidia-cudnn-cu12==9.5.1.17; platform_system == \"Linux\"",
                "Typing_Extensions[a,b] >=4.10.0", "triton==3.3.1 ; platform_machine == 'x86_64'",
                "pkg @ https://example.invalid/pkg-1.0.whl ; extra == 'x'", "sympy>=1.13.3"]
JSON_PAGES = [
    {"meta": {"api-version": "1.1"}, "name": "torch", "versions": ["2.6.0"], "files": [
        {"filename": "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
         "url": "../../files/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
         "hashes": {"sha256": "ab" * 32}, "requires-python": ">=3.9", "core-metadata": {"sha256": "cd" * 32},
         "size": 123, "upload-time": "2025-01-29T12:00:00.000000Z", "yanked": "broken"},
        {"filename": "torch-2.6.0.tar.gz", "url": "https://files.invalid/torch-2.6.0.tar.gz", "hashes": {},
         "dist-info-metadata": True}]},
    {"meta": {"api-version": "1.0"}, "projects": [{"name": "torch"}, {"name": "Torch_Vision"}]},
]
SPEC_PREFIX = {"mirror": b"\x00", "toolchains": b"\x01", "eb-dependencies": b"\x02"}


def add(corpus, target, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED:
        return
    directory = corpus / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def from_sample(corpus, sample):
    for path in sorted(sample.rglob("*")):
        if path.name == "index.html":
            add(corpus, "index_html", path.read_bytes())
        elif path.name.endswith(".whl.metadata"):
            text = path.read_bytes()
            add(corpus, "metadata", text)
            for line in text.decode().splitlines():
                if line.startswith("Requires-Dist: "):
                    add(corpus, "marker", line.split(": ", 1)[1])
        elif path.suffix == ".whl":
            add(corpus, "wheel_filename", path.name)
            version = path.name.split("-")[1]
            add(corpus, "version", version)
            with zipfile.ZipFile(path) as wheel:
                for name in wheel.namelist():
                    if name.endswith(".dist-info/RECORD"):
                        add(corpus, "record", wheel.read(name))
                    if name.endswith(".so") and len(wheel.read(name)) <= MAX_SEED:
                        add(corpus, "elf", wheel.read(name))
            if path.stat().st_size <= 8192:  # the small ones, for the archive readers
                add(corpus, "zip", path.read_bytes())
                add(corpus, "wheel_install", path.read_bytes())


def compiled_elf(corpus):
    fixtures = ROOT / "tests" / "elf" / "fixtures"
    with tempfile.TemporaryDirectory() as work:
        for source, flags in (("dep.c", ["-shared", "-fPIC"]), ("user.c", ["-shared", "-fPIC"]),
                              ("program.c", []), ("static.c", ["-static"])):
            for extra in ([], ["-m32"]) if source == "dep.c" else ([],):
                out = os.path.join(work, "out")
                command = ["gcc", "-Os", "-s", *flags, *extra, "-Wl,-rpath,$ORIGIN/../lib",
                           "-Wl,--hash-style=both", str(fixtures / source), "-o", out]
                if subprocess.run(command, capture_output=True).returncode == 0:
                    add(corpus, "elf", Path(out).read_bytes())
    if Path("/etc/ld.so.cache").exists():
        add(corpus, "elf", Path("/etc/ld.so.cache").read_bytes())


def configs(corpus):
    for file in sorted((ROOT / "config").glob("*.yaml")):
        add(corpus, "yaml", SPEC_PREFIX[file.stem] + file.read_bytes())
    for file in sorted((ROOT / "tests" / "data" / "config").rglob("*.yaml")):
        add(corpus, "yaml", SPEC_PREFIX[file.stem] + file.read_bytes())
    for file in sorted((ROOT / "index-mirrors" / "examples").glob("*.yaml")):
        add(corpus, "yaml", SPEC_PREFIX["mirror"] + file.read_bytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", required=True, type=Path, help="the built sample index")
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "fuzz" / "corpus")
    args = parser.parse_args()
    for text in VERSIONS:
        add(args.corpus, "version", text)
    for text in SPECIFIERS:
        add(args.corpus, "version", text)
    for text in MARKERS + REQUIREMENTS:
        add(args.corpus, "marker", text)
    for page in JSON_PAGES:
        add(args.corpus, "index_json", json.dumps(page, indent=1))
    from_sample(args.corpus, args.sample)
    compiled_elf(args.corpus)
    configs(args.corpus)
    for target in sorted(p.name for p in args.corpus.iterdir()):
        files = list((args.corpus / target).iterdir())
        print(f"{target}: {len(files)} seeds, {sum(f.stat().st_size for f in files):,} bytes")


if __name__ == "__main__":
    main()
