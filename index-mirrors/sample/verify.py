#!/usr/bin/python3
"""Checks a built sample index (generate.py build) end to end; exits 1 and
lists every problem if anything is wrong.

    /usr/bin/python3 verify.py --root BUILD/index-mirrors/sample

Independent of the generator's code: it reads MANIFEST.json and the files,
and checks them with zipfile, email.parser, python3-packaging (Debian's
23.0), readelf, html.parser and, for the cp311 wheels, a real `import torch`
with the sample EasyBuild libraries on LD_LIBRARY_PATH.
"""

import argparse
import base64
import configparser
import csv
import email.parser
import email.policy
import hashlib
import html.parser
import io
import json
import os
import posixpath
import stat
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("cpu", "cu124", "cu126", "rocm6.2.4")
CUDA_RPATH_PREFIX = "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cuda_cupti/lib:"


class Problems:
    def __init__(self):
        self.items = []
        self.imports = 0

    def add(self, subject, message):
        self.items.append(f"{subject}: {message}")

    def check(self, condition, subject, message):
        if not condition:
            self.add(subject, message)
        return condition


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read(root, relpath) -> bytes:
    with open(os.path.join(root, relpath), "rb") as handle:
        return handle.read()


# -- wheels -----------------------------------------------------------------


def check_wheel(p, root, entry, elf_cache):
    name = entry["filename"]
    data = read(root, entry["path"])
    p.check(sha256(data) == entry["sha256"], name, "sha256 differs from MANIFEST.json")
    p.check(len(data) == entry["size"], name, "size differs from MANIFEST.json")

    dist, version, build_tag, tags = parse_wheel_filename(name)
    p.check(not build_tag, name, "unexpected build tag")
    p.check(canonicalize_name(dist) == entry["project"], name, "file name and MANIFEST project differ")
    p.check(str(version) == entry["version"], name, f"file name version {version} != {entry['version']}")
    p.check({str(t) for t in tags} == set(entry["tags"]), name, "file name tags differ from MANIFEST")

    archive = zipfile.ZipFile(io.BytesIO(data))
    p.check(archive.testzip() is None, name, "corrupt member")
    infos = archive.infolist()
    names = [info.filename for info in infos]
    p.check(len(names) == len(set(names)), name, "duplicate member names")
    dist_info = entry["dist_info"]
    p.check(dist_info == f"{name.split('-')[0]}-{entry['version']}.dist-info", name, f"dist-info {dist_info}")
    for member in names:
        p.check(not member.startswith("/") and ".." not in member.split("/"), name, f"unsafe member {member}")
    # bdist_wheel order: the .dist-info files after everything else, RECORD last.
    in_dist = [n.startswith(dist_info + "/") for n in names]
    p.check(in_dist == sorted(in_dist), name, ".dist-info members are not last")
    p.check(names[-1] == f"{dist_info}/RECORD", name, "RECORD is not the last member")
    for info in infos:
        mode = info.external_attr >> 16
        p.check(info.compress_type == zipfile.ZIP_DEFLATED, name, f"{info.filename} is not deflated")
        p.check(info.create_system == 3 and stat.S_ISREG(mode), name, f"{info.filename}: no Unix file mode")
        p.check(info.date_time == infos[0].date_time, name, f"{info.filename}: time stamp differs")
        expected_mode = 0o664 if info.filename.endswith("/RECORD") else 0o644
        if archive.read(info).startswith(b"\x7fELF"):
            expected_mode = 0o755
        p.check(stat.S_IMODE(mode) == expected_mode, name, f"{info.filename}: mode {oct(stat.S_IMODE(mode))}")

    check_record(p, name, archive, dist_info)
    metadata = archive.read(f"{dist_info}/METADATA")
    check_metadata(p, name, entry, metadata, dist, version)
    check_wheel_file(p, name, entry, archive.read(f"{dist_info}/WHEEL"), tags)
    if f"{dist_info}/entry_points.txt" in names:
        parser = configparser.ConfigParser(delimiters=("=",))
        parser.optionxform = str
        try:
            parser.read_string(archive.read(f"{dist_info}/entry_points.txt").decode())
        except configparser.Error as err:
            p.add(name, f"entry_points.txt: {err}")

    metadata_path = os.path.join(root, entry["path"] + ".metadata")
    if entry["has_metadata_file"]:
        if p.check(os.path.exists(metadata_path), name, "missing .metadata file"):
            p.check(read(root, entry["path"] + ".metadata") == metadata, name, ".metadata differs from METADATA")
    else:
        p.check(not os.path.exists(metadata_path), name, "unexpected .metadata file")
    p.check(sha256(metadata) == entry["metadata_sha256"], name, "metadata_sha256 differs")

    elf_members = {n for n in names if archive.read(n).startswith(b"\x7fELF")}
    p.check(elf_members == set(entry["elf_members"]), name, "ELF members differ from MANIFEST elf_members")
    p.check((not elf_members) == (entry["accelerator"] is None), name, "pure/native mismatch")
    for member in sorted(elf_members & set(entry["elf_members"])):
        actual = elf_info(archive.read(member), elf_cache)
        expected = entry["elf_members"][member]
        for key in ("soname", "needed", "rpath", "runpath", "machine"):
            wanted = f"{key} is {actual[key]!r}, want {expected[key]!r}"
            p.check(actual[key] == expected[key], f"{name}:{member}", wanted)
        p.check(actual["machine"] == entry["elf_arch"], f"{name}:{member}", "machine differs from elf_arch")
        p.check(not (actual["rpath"] and actual["runpath"]), f"{name}:{member}", "both RPATH and RUNPATH")


def check_record(p, name, archive, dist_info):
    rows = list(csv.reader(io.StringIO(archive.read(f"{dist_info}/RECORD").decode("utf-8"))))
    listed = [row[0] for row in rows]
    p.check(listed == [i.filename for i in archive.infolist()], name, "RECORD rows differ from the members")
    for row in rows:
        if not p.check(len(row) == 3, name, f"RECORD row {row}"):
            continue
        path, digest, size = row
        if path == f"{dist_info}/RECORD":
            p.check(digest == "" and size == "", name, "RECORD's own row must be 'RECORD,,'")
            continue
        content = archive.read(path)
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        p.check(digest == want, name, f"RECORD hash of {path}")
        p.check(size == str(len(content)), name, f"RECORD size of {path}")


def check_metadata(p, name, entry, raw, dist, version):
    message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw)
    p.check(message["Metadata-Version"] == "2.1", name, "Metadata-Version is not 2.1")
    p.check(canonicalize_name(message["Name"]) == canonicalize_name(dist), name, "Name differs from the file name")
    p.check(Version(message["Version"]) == version, name, "Version differs from the file name")
    requires = message.get_all("Requires-Dist") or []
    p.check(requires == entry["requires_dist"], name, "Requires-Dist differs from MANIFEST")
    extras = set(message.get_all("Provides-Extra") or [])
    for text in requires:
        try:
            req = Requirement(text)
        except Exception as err:  # packaging raises InvalidRequirement
            p.add(name, f"Requires-Dist {text!r}: {err}")
            continue
        if req.marker and "extra" in str(req.marker):
            p.check(any(f"'{e}'" in str(req.marker) or f'"{e}"' in str(req.marker) for e in extras), name, text)
    if message["Requires-Python"]:
        SpecifierSet(message["Requires-Python"])
    p.check(message["Requires-Python"] == entry["requires_python"], name, "Requires-Python differs from MANIFEST")


def check_wheel_file(p, name, entry, raw, tags):
    message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw)
    p.check(message["Wheel-Version"] == "1.0", name, "WHEEL Wheel-Version")
    purelib = message["Root-Is-Purelib"] == "true"
    # NVIDIA declares its library wheels purelib although they are native.
    want_purelib = entry["accelerator"] is None or entry["project"].startswith("nvidia-")
    p.check(purelib == want_purelib, name, "WHEEL Root-Is-Purelib")
    wheel_tags = {Tag(*t.split("-")) for t in message.get_all("Tag")}
    p.check(wheel_tags == set(tags), name, "WHEEL Tag lines differ from the file name's tags")


def elf_info(data: bytes, cache: dict) -> dict:
    key = sha256(data)
    if key not in cache:
        with tempfile.NamedTemporaryFile() as handle:
            handle.write(data)
            handle.flush()
            cache[key] = readelf(handle.name)
    return cache[key]


DYNAMIC_TAGS = (("(NEEDED)", "needed"), ("(SONAME)", "soname"), ("(RPATH)", "rpath"), ("(RUNPATH)", "runpath"))


def readelf(path: str) -> dict:
    out = subprocess.run(["readelf", "-h", "-d", "-W", path], capture_output=True, text=True, check=True).stdout
    info = {"soname": None, "needed": [], "rpath": None, "runpath": None, "machine": None}
    for line in out.splitlines():
        if "Machine:" in line:
            machine = line.split(":", 1)[1].strip()
            info["machine"] = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}.get(machine, machine)
        for tag, key in DYNAMIC_TAGS:
            if tag in line:
                value = line.split("[", 1)[1].rsplit("]", 1)[0]
                if key == "needed":
                    info["needed"].append(value)
                else:
                    info[key] = value
    return info


# -- pages ------------------------------------------------------------------


class Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []
        self.h1 = None
        self._in = None

    def handle_starttag(self, tag, attrs):
        self._in = tag
        if tag == "a":
            self.links.append({"attrs": dict(attrs), "text": ""})

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "a":
            self.links[-1]["text"] += data
        elif self._in == "h1":
            self.h1 = (self.h1 or "") + data


def check_pages(p, page_root, manifest, style, second_host=None):
    """page_root holds the pages; MANIFEST paths are relative to the tree."""
    by_path = {e["path"]: e for e in manifest["wheels"]}
    listed = {}
    for entry in manifest["wheels"]:
        for page in entry["pages"]:
            listed.setdefault(page, set()).add(entry["filename"])
    found = set()
    for dirpath, _, filenames in os.walk(os.path.join(page_root, "whl")):
        for filename in filenames:
            if filename == "index.html":
                found.add(os.path.relpath(os.path.join(dirpath, filename), page_root))
    difference = found ^ set(manifest["pages"])
    p.check(not difference, f"{style} pages", f"pages differ from MANIFEST: {sorted(difference)}")
    for page in sorted(found):
        text = read(page_root, page).decode("utf-8")
        subject = f"{style}:{page}"
        p.check(text.startswith("<!DOCTYPE html>\n<html>\n"), subject, "does not start with the doctype")
        parser = Anchors()
        parser.feed(text)
        page_dir = posixpath.dirname(page)
        if page not in listed:  # a listing page
            p.check(text.endswith(f"<!--TIMESTAMP {manifest['timestamp']}-->"), subject, "footer")
            for link in parser.links:
                target = posixpath.join(page_dir, link["attrs"]["href"], "index.html")
                p.check(target in found, subject, f"listing link to {target} has no page")
                p.check(link["attrs"]["href"] == link["text"] + "/", subject, "listing link text")
            continue
        mirror = "<!--SERIAL " in text
        if not mirror:
            p.check(text.endswith(f"<!--TIMESTAMP {manifest['timestamp']}-->"), subject, "footer")
        p.check(parser.h1 == f"Links for {posixpath.basename(page_dir)}", subject, f"h1 {parser.h1!r}")
        names = [link["text"] for link in parser.links]
        p.check(set(names) == listed[page], subject, "files listed differ from MANIFEST pages")
        paths = [check_link(p, subject, page_dir, link, by_path, style, second_host) for link in parser.links]
        p.check(len(paths) == len(set(paths)), subject, "duplicate links")
        if not mirror:  # manage.py sorts by S3 key, whose + is %2B
            keys = [path.replace("+", "%2B") for path in paths if path]
            p.check(keys == sorted(keys), subject, "links not sorted by S3 key")


def check_link(p, subject, page_dir, link, by_path, style, second_host):
    """Checks one file link; returns the tree path it points at."""
    href = link["attrs"]["href"]
    url = urllib.parse.urlsplit(href)
    p.check("+" not in href, subject, f"literal + in {href}")
    p.check(urllib.parse.unquote(posixpath.basename(url.path)) == link["text"], subject, f"text of {href}")
    if style == "relative":
        p.check(not url.scheme and not href.startswith("/"), subject, f"not relative: {href}")
        path = posixpath.normpath(posixpath.join(page_dir, urllib.parse.unquote(url.path)))
    else:
        absolute = href.startswith(second_host.rstrip("/") + "/")
        p.check(absolute or href.startswith("/whl/"), subject, f"unexpected href form {href}")
        path = urllib.parse.unquote(url.path).lstrip("/")
    entry = by_path.get(path)
    if not p.check(entry is not None, subject, f"{href} points at no wheel ({path})"):
        return None
    if style == "server":
        p.check(url.path == entry["url_path"], subject, f"{href}: path is not url_path")
        wants_absolute = entry["second_host"] or entry["location"] == "mirror"
        p.check(href.startswith(second_host.rstrip("/") + "/") == wants_absolute, subject, f"host of {href}")
    fragment = url.fragment
    if entry["has_hash_on_index"]:
        p.check(fragment == "sha256=" + entry["sha256"], subject, f"{href}: fragment")
    else:
        p.check(fragment == "", subject, f"{href}: has a hash fragment, MANIFEST says none")
    attrs = link["attrs"]
    meta = attrs.get("data-core-metadata")
    p.check(meta == attrs.get("data-dist-info-metadata"), subject, f"{href}: PEP 658/714 attributes differ")
    if entry["has_metadata_file"]:
        p.check(meta == "sha256=" + entry["metadata_sha256"], subject, f"{href}: data-core-metadata")
    else:
        p.check(meta is None, subject, f"{href}: data-core-metadata without a .metadata file")
    p.check(attrs.get("data-requires-python") == entry["data_requires_python"], subject, f"{href}: requires-python")
    return path


# -- the software tree --------------------------------------------------------


def check_software(p, root, manifest, elf_cache):
    for module, info in manifest["software"]["modules"].items():
        for lib in info["libraries"]:
            path = os.path.join(root, lib["path"])
            if not p.check(os.path.isfile(path) and not os.path.islink(path), lib["path"], "missing"):
                continue
            actual = elf_info(read(root, lib["path"]), elf_cache)
            p.check(actual["soname"] == lib["soname"], lib["path"], f"SONAME {actual['soname']}")
            p.check(actual["needed"] == lib["needed"], lib["path"], f"NEEDED {actual['needed']}")
            for link, dest in lib["symlinks"].items():
                full = os.path.join(root, link)
                ok = os.path.islink(full) and os.readlink(full) == dest and "/" not in dest
                p.check(ok, link, f"must be a relative symlink to {dest}")
                p.check(os.path.realpath(full) == os.path.realpath(path), link, "does not resolve to the library")


# -- what the real index had (independent of the generator) -----------------


def check_quirks(p, manifest):
    wheels = manifest["wheels"]
    names = {(e["variant"] or e["location"], e["filename"]) for e in wheels}

    def has(variant, filename):
        p.check((variant, filename) in names, "catalogue", f"{variant}/{filename} missing")

    has("cpu", "torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl")
    has("cpu", "torch-2.6.0+cpu-cp312-cp312-manylinux_2_28_aarch64.whl")
    has("cu126", "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl")
    has("cu126", "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl")
    has("rocm6.2.4", "torch-2.6.0+rocm6.2.4-cp312-cp312-manylinux_2_28_x86_64.whl")
    has("cu124", "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl")
    has("cu126", "torchvision-0.21.0-cp312-cp312-linux_aarch64.whl")
    has("root", "pytorch_triton_rocm-3.2.0-cp312-cp312-linux_x86_64.whl")
    has("cu126", "nvidia_cusparselt_cu12-0.6.3-py3-none-manylinux2014_x86_64.whl")
    has("cu126", "nvidia_cusparselt_cu12-0.6.3-py3-none-manylinux2014_aarch64.whl")
    for e in wheels:
        subject = f"catalogue:{e['filename']}"
        if e["project"] == "torch" and e["public_version"] == "2.5.1":
            p.check(e["variant"] in ("cpu", "cu124"), subject, "torch 2.5.1 must exist only for cpu and cu124")
        if e["project"] == "torch" and e["variant"] in ("cu124", "cu126") and e["arch"] == "aarch64":
            only = e["variant"] == "cu126" and e["public_version"] == "2.6.0"
            p.check(only, subject, "CUDA aarch64 is 2.6.0+cu126 only")
            p.check(e["platform"] == "linux_aarch64", subject, "2.6.0+cu126 aarch64 is tagged linux_aarch64")
            p.check(not any(r.startswith(("nvidia-", "triton")) for r in e["requires_dist"]), subject, "uv#14540")
        if e["project"] == "torch" and e["variant"] == "cu126" and e["arch"] == "x86_64":
            p.check(any(r.startswith("nvidia-cudnn-cu12==9.5.1.17") for r in e["requires_dist"]), subject, "cu126 pins")
            libcuda = e["elf_members"]["torch/lib/libtorch_cuda.so"]
            p.check(libcuda["runpath"] is None and libcuda["rpath"].startswith(CUDA_RPATH_PREFIX), subject, "DT_RPATH")
            p.check(libcuda["rpath"].endswith(":$ORIGIN"), subject, "libtorch_cuda RPATH must end with $ORIGIN")
            p.check("libcudart.so.12" in libcuda["needed"], subject, "libtorch_cuda must need libcudart.so.12")
        if e["variant"] == "rocm6.2.4" or e["project"] in ("triton", "pytorch-triton-rocm"):
            p.check(e["arch"] == "x86_64", subject, "ROCm and triton wheels are x86_64 only")
        if e["project"] in ("triton", "pytorch-triton-rocm"):
            p.check(e["location"] == "root", subject, "triton wheels live at the index root")
        if e["project"] in ("torchvision", "torchaudio") and e["arch"] == "aarch64":
            p.check(e["local"] is None, subject, "aarch64 domain wheels carry no local label")
        if e["project"] in ("torch", "torchvision", "torchaudio"):
            new = e["public_version"] in ("2.6.0", "0.21.0")
            p.check(e["has_metadata_file"] == new, subject, "PEP 658 .metadata exactly for the 2.6 generation")
        if e["project"] == "nvidia-cusparselt-cu12":
            check_cusparselt_entry(p, subject, e)
    # Every cu126 x86_64 torch pins the cuSPARSELt wheel its directory serves.
    for e in wheels:
        if e["project"] == "torch" and e["variant"] == "cu126" and e["arch"] == "x86_64":
            pins = [r.split(";")[0] for r in e["requires_dist"] if r.startswith("nvidia-cusparselt-cu12")]
            served = {f"nvidia-cusparselt-cu12=={n['version']}" for n in wheels
                      if n["project"] == "nvidia-cusparselt-cu12" and n["variant"] == "cu126"}
            p.check(pins and set(pins) <= served, f"catalogue:{e['filename']}", f"{pins} not served: {served}")


CUSPARSELT_LIBRARY = "cusparselt/lib/libcusparseLt.so.0"


def check_cusparselt_entry(p, subject, e):
    """NVIDIA's wheel: py3-none-manylinux2014_<arch>, one library where
    torch 2.6's RPATH entry $ORIGIN/../../cusparselt/lib looks, no NEEDED
    beyond libc and no search path of its own."""
    p.check(e["location"] == "variant" and e["variant"] == "cu126", subject, "served from whl/cu126/")
    p.check(e["python"] == "py3" and e["abi"] == "none", subject, "py3-none")
    p.check(e["platform"] == f"manylinux2014_{e['arch']}", subject, f"platform {e['platform']}")
    p.check(e["requires_dist"] == [], subject, "nvidia-cusparselt-cu12 requires nothing")
    p.check(e["has_hash_on_index"] and not e["second_host"], subject, "hashed link on the main host")
    p.check(set(e["elf_members"]) == {CUSPARSELT_LIBRARY}, subject, f"ELF members {sorted(e['elf_members'])}")
    library = e["elf_members"].get(CUSPARSELT_LIBRARY, {})
    p.check(library.get("soname") == "libcusparseLt.so.0", subject, f"SONAME {library.get('soname')}")
    p.check(library.get("needed") == ["libc.so.6"], subject, f"NEEDED {library.get('needed')}")
    p.check(library.get("rpath") is None and library.get("runpath") is None, subject, "RPATH/RUNPATH set")


def check_cusparselt_symbols(p, root, manifest, elf_cache):
    """The wheel's library exports what libtorch_cuda calls, like the module's."""
    for e in manifest["wheels"]:
        if e["project"] != "nvidia-cusparselt-cu12":
            continue
        data = zipfile.ZipFile(os.path.join(root, e["path"])).read(CUSPARSELT_LIBRARY)
        key = ("dyn-syms", sha256(data))
        if key not in elf_cache:
            with tempfile.NamedTemporaryFile() as handle:
                handle.write(data)
                handle.flush()
                elf_cache[key] = subprocess.run(
                    ["readelf", "-W", "--dyn-syms", handle.name], capture_output=True, text=True, check=True
                ).stdout
        defined = [line for line in elf_cache[key].splitlines() if " UND " not in line]
        exported = any(line.split()[-1] == "cusparseLtGetVersion" for line in defined if line.split())
        p.check(exported, f"{e['filename']}:{CUSPARSELT_LIBRARY}", "does not export cusparseLtGetVersion")


# -- importing the cp311 wheels ---------------------------------------------


def eb_library_path(root, manifest, cuda):
    """LD_LIBRARY_PATH as `module load` of the sample modules would set it."""
    modules = manifest["software"]["modules"]
    wanted = [m for m, info in sorted(modules.items()) if info["cuda"] == cuda]
    # 2023b has no cuSPARSELt module, but 2.6.0+cu124 needs libcusparseLt.so.0.
    if not any(m.startswith("cuSPARSELt/") for m in wanted):
        wanted += [m for m in sorted(modules) if m.startswith("cuSPARSELt/")]
    dirs = []
    for module in wanted:
        dirs += sorted({os.path.join(root, posixpath.dirname(lib["path"])) for lib in modules[module]["libraries"]})
    return dirs


IMPORT_SCRIPT = """
import torch
assert torch.__version__ == {version!r}, torch.__version__
assert torch._C._build_version() == {version!r}
assert torch._C._init_status() >= 0
if {accelerated!r}:
    assert torch.cuda.is_available()
    assert torch.cuda.runtime_version() == {runtime}, torch.cuda.runtime_version()
    assert torch._C._library_check() > 0
if {domain!r}:
    import torchvision, torchaudio
    assert torchvision._cuda_version() == torchaudio._cuda_version() == {runtime}
print("ok", torch.__version__)
"""


def check_imports(p, root, manifest, python):
    """Imports every x86_64 torch wheel of python's tag with its torchvision
    and torchaudio (CUDA ones with the sample modules on LD_LIBRARY_PATH)."""
    version = subprocess.run(
        [python, "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"],
        capture_output=True, text=True, check=True,
    )
    tag = version.stdout.strip()
    torch_entries = [
        e for e in manifest["wheels"] if e["project"] == "torch" and e["python"] == tag and e["arch"] == "x86_64"
    ]
    p.check(bool(torch_entries), "import", f"no {tag} x86_64 torch wheel to import with {python}")
    for torch_entry in torch_entries:
        variant, version = torch_entry["variant"], torch_entry["public_version"]
        companions = [
            e
            for e in manifest["wheels"]
            if e["python"] == tag
            and e["arch"] == "x86_64"
            and e["variant"] == variant
            and e["project"] in ("torchvision", "torchaudio")
            and f"torch=={version}" in e["requires_dist"]
        ]
        subject = f"import:{torch_entry['filename']}"
        # torchvision 0.20.1 / torchaudio 2.5.1 have no cp313 wheels (README).
        p.check(len(companions) in (0, 2), subject, "torchvision and torchaudio must come as a pair")
        with tempfile.TemporaryDirectory() as site:
            for e in [torch_entry] + companions:
                zipfile.ZipFile(os.path.join(root, e["path"])).extractall(site)
                for member in e["elf_members"]:
                    os.chmod(os.path.join(site, member), 0o755)
            cuda = {"cu124": "12.4.0", "cu126": "12.6.0"}.get(variant)
            runtime = {"cu124": 12040, "cu126": 12060, "rocm6.2.4": 60241134}.get(variant, -1)
            script = IMPORT_SCRIPT.format(
                version=torch_entry["version"],
                accelerated=variant != "cpu",
                runtime=runtime,
                domain=bool(companions),
            )
            env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1")
            env.pop("LD_LIBRARY_PATH", None)
            if cuda:
                # Without the CUDA modules the import must fail the way the real one does.
                bare = subprocess.run([python, "-c", script], env=env, capture_output=True, text=True, cwd=site)
                failed_like_real = bare.returncode != 0 and "not found in the system path" in bare.stderr
                p.check(failed_like_real, subject, "imports without the CUDA libraries")
                env["LD_LIBRARY_PATH"] = ":".join(eb_library_path(root, manifest, cuda))
            result = subprocess.run([python, "-c", script], env=env, capture_output=True, text=True, cwd=site)
            p.check(result.returncode == 0, subject, f"import failed:\n{result.stderr}")
            p.imports += 1
        bundled = nvidia_wheels_for(manifest, torch_entry)
        if cuda and bundled:
            check_bundled_import(p, root, manifest, python, torch_entry, companions, bundled, script, cuda)


def nvidia_wheels_for(manifest, torch_entry):
    """The nvidia-* wheels of torch's directory and architecture that it pins."""
    pins = {r.split(";")[0].strip() for r in torch_entry["requires_dist"] if r.startswith("nvidia-")}
    return [
        e
        for e in manifest["wheels"]
        if e["project"].startswith("nvidia-")
        and e["variant"] == torch_entry["variant"]
        and e["arch"] == torch_entry["arch"]
        and f"{e['project']}=={e['version']}" in pins
    ]


BUNDLED_SCRIPT = """
import os
for arcname in {arcnames!r}:
    want = os.path.realpath(arcname)
    stem = os.path.basename(arcname).split(".so")[0] + ".so"
    mapped = {{line.split()[-1] for line in open("/proc/self/maps") if line.split()[-1:] and
               os.path.basename(line.split()[-1]).startswith(stem)}}
    assert mapped == {{want}}, (arcname, mapped)
print("bundled ok")
"""


def check_bundled_import(p, root, manifest, python, torch_entry, companions, bundled, script, cuda):
    """The sample modules minus those the nvidia-* wheels replace: the import
    fails without the wheels and works with them unpacked beside torch
    (where torch's RPATH $ORIGIN/../../ entries look), loading their copies."""
    sonames = {m["soname"] for e in bundled for m in e["elf_members"].values()}
    modules = manifest["software"]["modules"]
    replaced = {m for m, info in modules.items() if any(lib["soname"] in sonames for lib in info["libraries"])}
    dirs = eb_library_path(root, manifest, cuda)
    skip = {os.path.join(root, posixpath.dirname(lib["path"])) for m in replaced for lib in modules[m]["libraries"]}
    arcnames = sorted(a for e in bundled for a in e["elf_members"])
    subject = f"import:{torch_entry['filename']}+{'+'.join(e['filename'] for e in bundled)}"
    for with_wheels in (False, True):
        with tempfile.TemporaryDirectory() as site:
            for e in [torch_entry] + companions + (bundled if with_wheels else []):
                zipfile.ZipFile(os.path.join(root, e["path"])).extractall(site)
                for member in e["elf_members"]:
                    os.chmod(os.path.join(site, member), 0o755)
            env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1")
            env["LD_LIBRARY_PATH"] = ":".join(d for d in dirs if d not in skip)
            code = script + (BUNDLED_SCRIPT.format(arcnames=arcnames) if with_wheels else "")
            result = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, cwd=site)
            if with_wheels:
                p.check(result.returncode == 0, subject, f"import with the wheels failed:\n{result.stderr}")
                p.imports += 1
            else:
                missing = result.returncode != 0 and all(s in result.stderr for s in sonames)
                p.check(missing, subject, f"imports without {sorted(sonames)}:\n{result.stderr}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="the tree generate.py build wrote")
    parser.add_argument("--no-import", action="store_true", help="skip the import checks")
    parser.add_argument(
        "--python", action="append", help="interpreter for the import checks (repeatable; default: this one)"
    )
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    with open(os.path.join(root, "MANIFEST.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    p = Problems()
    elf_cache = {}
    for entry in manifest["wheels"]:
        check_wheel(p, root, entry, elf_cache)
    check_software(p, root, manifest, elf_cache)
    check_quirks(p, manifest)
    check_cusparselt_symbols(p, root, manifest, elf_cache)
    check_pages(p, root, manifest, "relative")
    with tempfile.TemporaryDirectory() as dest:
        second_host = "http://localhost:8123"
        subprocess.run(
            [sys.executable, "-B", os.path.join(HERE, "generate.py"), "render-pages", "--root", root, "--dest", dest,
             "--style", "server", "--second-host", second_host],
            check=True,
        )
        check_pages(p, dest, manifest, "server", second_host)
    if not args.no_import:
        for python in args.python or [sys.executable]:
            check_imports(p, root, manifest, python)
    for item in p.items:
        print(f"error: {item}", file=sys.stderr)
    wheels = len(manifest["wheels"])
    print(
        f"{'FAILED' if p.items else 'ok'}: {wheels} wheels, {len(manifest['pages'])} pages, "
        f"{p.imports} imports, {len(p.items)} problems"
    )
    return 1 if p.items else 0


if __name__ == "__main__":
    sys.exit(main())
