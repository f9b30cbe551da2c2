#!/usr/bin/python3
"""Checks a built sample index (generate.py build) end to end; exits 1 and
lists every problem if anything is wrong.

    /usr/bin/python3 verify.py --root BUILD/index-mirrors/sample

Independent of the generator's code: it reads MANIFEST.json and the files,
and checks them with zipfile, email.parser, python3-packaging (Debian's
23.0), readelf, html.parser and, for the wheels of each --python's tag, a
real `import torch` with the sample EasyBuild libraries on LD_LIBRARY_PATH
(with a Python 3.13: the CUDA 13 builds against the real CUDA 13 libraries).

    verify.py --root DIR [--python PYTHON ...] [--no-import] [--require-cuda13]
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
import re
import shutil
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
sys.path.insert(0, HERE)
from samplegen import facts  # noqa: E402  (the facts table: plain data)
CUDA_RPATH_PREFIX = "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cuda_cupti/lib:"
# The 2024/25 releases (the checks written for them keep to them).
OLD_VERSIONS = ("2.5.1", "2.6.0", "0.20.1", "0.21.0", "3.1.0", "3.2.0")


class Problems:
    def __init__(self):
        self.items = []
        self.imports = 0
        self.notes = []

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


def variant_label(filename: str) -> tuple[str, str | None]:
    """(the PEP 427 file name, the PEP 825 variant label or None): a sixth
    dash-separated component before .whl is a variant label."""
    stem = filename[: -len(".whl")]
    parts = stem.split("-")
    labelled = len(parts) == 6 and re.fullmatch(r"[0-9a-z_.]{1,16}", parts[5])
    if labelled and not parts[2][0].isdigit():
        return "-".join(parts[:5]) + ".whl", parts[5]
    return filename, None


def check_wheel(p, root, entry, elf_cache):
    name = entry["filename"]
    data = read(root, entry["path"])
    p.check(sha256(data) == entry["sha256"], name, "sha256 differs from MANIFEST.json")
    p.check(len(data) == entry["size"], name, "size differs from MANIFEST.json")

    plain, label = variant_label(name)
    p.check(label == entry.get("variant_label"), name, f"variant label {label!r} vs MANIFEST")
    dist, version, build_tag, tags = parse_wheel_filename(plain)
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
    if entry["has_metadata_file"] and entry.get("metadata_file_corrupted"):
        check_corrupted_metadata(p, root, entry, metadata)
    elif entry["has_metadata_file"]:
        if p.check(os.path.exists(metadata_path), name, "missing .metadata file"):
            p.check(read(root, entry["path"] + ".metadata") == metadata, name, ".metadata differs from METADATA")
    else:
        p.check(not os.path.exists(metadata_path), name, "unexpected .metadata file")
    p.check(sha256(metadata) == entry["metadata_sha256"], name, "metadata_sha256 differs")

    elf_members = {n for n in names if archive.read(n).startswith(b"\x7fELF")}
    p.check(elf_members == set(entry["elf_members"]), name, "ELF members differ from MANIFEST elf_members")
    # A subset of a real NVIDIA wheel may hold no library at all (README).
    if entry.get("contents") != "subset":
        p.check((not elf_members) == (entry["accelerator"] is None), name, "pure/native mismatch")
    for member in sorted(elf_members & set(entry["elf_members"])):
        actual = elf_info(archive.read(member), elf_cache)
        expected = entry["elf_members"][member]
        for key in ("soname", "needed", "rpath", "runpath", "machine"):
            wanted = f"{key} is {actual[key]!r}, want {expected[key]!r}"
            p.check(actual[key] == expected[key], f"{name}:{member}", wanted)
        p.check(actual["machine"] == entry["elf_arch"], f"{name}:{member}", "machine differs from elf_arch")
        p.check(not (actual["rpath"] and actual["runpath"]), f"{name}:{member}", "both RPATH and RUNPATH")


def check_corrupted_metadata(p, root, entry, metadata):
    """pytorch#197552: the served .metadata has a line appended, so it does
    not match the page's data-core-metadata, while the wheel's own METADATA
    does."""
    name = entry["filename"]
    served = read(root, entry["path"] + ".metadata")
    appended = served != metadata and served.startswith(metadata)
    p.check(appended, name, ".metadata is not METADATA + more")
    extra = served[len(metadata) :].decode("ascii", "replace")
    line = re.fullmatch(r"Checksum-SHA256: [0-9a-f]{64}\n", extra)
    p.check(line is not None, name, f"appended {extra!r}")
    want = entry["metadata_sha256"]
    p.check(sha256(served) != want, name, "corrupted .metadata matches its hash")
    p.check(sha256(metadata) == want, name, "zip METADATA does not match the hash")


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
    version_ok = message["Metadata-Version"] in ("2.1", "2.4")
    p.check(version_ok, name, "Metadata-Version is not 2.1 or 2.4")
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


def index_entries(manifest):
    """Everything the pages link: wheels, PEP 825 variant wheels, index files."""
    return manifest["wheels"] + manifest.get("variant_wheels", []) + manifest.get("index_files", [])


def check_pages(p, page_root, manifest, style, second_host=None):
    """page_root holds the pages; MANIFEST paths are relative to the tree."""
    by_path = {e["path"]: e for e in index_entries(manifest)}
    listed = {}
    for entry in index_entries(manifest):
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


def check_real_library(p, root, lib, elf_cache):
    """A CUDA 13 module's real library: an absolute symlink into the tree
    that resolves to a file with the SONAME, plus the relative lib<x>.so."""
    path = os.path.join(root, lib["path"])
    target = lib["target"]
    ok = os.path.islink(path) and os.readlink(path) == target and os.path.isabs(target)
    p.check(ok, lib["path"], f"must be a symlink to {target}")
    if not p.check(os.path.isfile(path), lib["path"], f"does not resolve ({target})"):
        return
    with open(path, "rb") as handle:
        actual = elf_info(handle.read(), elf_cache)
    p.check(actual["soname"] == lib["soname"], lib["path"], f"SONAME {actual['soname']}")
    p.check(actual["needed"] == lib["needed"], lib["path"], f"NEEDED {actual['needed']}")
    for link, dest in list(lib["symlinks"].items()) + list(lib.get("also", {}).items()):
        full = os.path.join(root, link)
        ok = os.path.islink(full) and os.readlink(full) == dest
        p.check(ok and os.path.isfile(full), link, f"must be a symlink to {dest} that resolves")


def check_software(p, root, manifest, elf_cache):
    for module, info in manifest["software"]["modules"].items():
        for lib in info["libraries"]:
            if lib.get("real"):
                check_real_library(p, root, lib, elf_cache)
                continue
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
    legacy = set(manifest.get("legacy_directories", []))
    for e in wheels:
        subject = f"catalogue:{e['filename']}"
        old = e["public_version"] in OLD_VERSIONS and e["variant"] not in legacy
        if e["project"] == "torch" and e["public_version"] == "2.5.1" and old:
            p.check(e["variant"] in ("cpu", "cu124"), subject, "torch 2.5.1 must exist only for cpu and cu124")
        cuda_aarch64 = e["variant"] in ("cu124", "cu126") and e["arch"] == "aarch64"
        if e["project"] == "torch" and cuda_aarch64 and old:
            only = e["variant"] == "cu126" and e["public_version"] == "2.6.0"
            p.check(only, subject, "CUDA aarch64 is 2.6.0+cu126 only")
            p.check(e["platform"] == "linux_aarch64", subject, "2.6.0+cu126 aarch64 is tagged linux_aarch64")
            p.check(not any(r.startswith(("nvidia-", "triton")) for r in e["requires_dist"]), subject, "uv#14540")
        if e["project"] == "torch" and e["variant"] == "cu126" and e["arch"] == "x86_64" and old:
            p.check(any(r.startswith("nvidia-cudnn-cu12==9.5.1.17") for r in e["requires_dist"]), subject, "cu126 pins")
            libcuda = e["elf_members"]["torch/lib/libtorch_cuda.so"]
            p.check(libcuda["runpath"] is None and libcuda["rpath"].startswith(CUDA_RPATH_PREFIX), subject, "DT_RPATH")
            p.check(libcuda["rpath"].endswith(":$ORIGIN"), subject, "libtorch_cuda RPATH must end with $ORIGIN")
            p.check("libcudart.so.12" in libcuda["needed"], subject, "libtorch_cuda must need libcudart.so.12")
        old_triton = e["project"] in ("triton", "pytorch-triton-rocm") and old
        if e["variant"] == "rocm6.2.4" or old_triton:
            p.check(e["arch"] == "x86_64", subject, "ROCm and triton wheels are x86_64 only")
        if e["project"] in ("triton", "pytorch-triton-rocm"):
            p.check(e["location"] == "root", subject, "triton wheels live at the index root")
        if e["project"] in ("torchvision", "torchaudio") and e["arch"] == "aarch64" and old:
            p.check(e["local"] is None, subject, "aarch64 domain wheels carry no local label")
        if e["project"] in ("torch", "torchvision", "torchaudio"):
            new = e["public_version"] not in ("2.5.1", "0.20.1")
            message = "PEP 658 .metadata from the 2.6 generation on"
            p.check(e["has_metadata_file"] == new, subject, message)
        if e["project"] == "nvidia-cusparselt-cu12":
            check_cusparselt_entry(p, subject, e)
    check_sympy_mpmath(p, manifest)
    # Every cu126 x86_64 torch pins the cuSPARSELt wheel its directory serves.
    for e in wheels:
        if e["project"] == "torch" and e["variant"] == "cu126" and e["arch"] == "x86_64" and (
            e["public_version"] == "2.6.0"
        ):
            pins = [r.split(";")[0] for r in e["requires_dist"] if r.startswith("nvidia-cusparselt-cu12")]
            served = {f"nvidia-cusparselt-cu12=={n['version']}" for n in wheels
                      if n["project"] == "nvidia-cusparselt-cu12" and n["variant"] == "cu126"}
            p.check(pins and set(pins) <= served, f"catalogue:{e['filename']}", f"{pins} not served: {served}")


def check_sympy_mpmath(p, manifest):
    """mpmath 1.3.0 mirrored from PyPI as sympy 1.13.x is (every directory,
    PEP 658 .metadata, no Requires-Python so no data-requires-python, extras
    only), and every page that lists a sympy serves an mpmath it accepts."""
    wheels = manifest["wheels"]
    has = {(e["variant"] or e["location"], e["filename"]) for e in wheels}
    for version in ("1.13.1", "1.13.3"):
        p.check(("mirror", f"sympy-{version}-py3-none-any.whl") in has, "catalogue", f"sympy {version} missing")
    mpmath = [e for e in wheels if e["project"] == "mpmath"]
    p.check([e["filename"] for e in mpmath] == ["mpmath-1.3.0-py3-none-any.whl"], "catalogue",
            f"mpmath wheels {[e['filename'] for e in mpmath]}")
    sympy_pages = {page for e in wheels if e["project"] == "sympy" and e["location"] == "mirror"
                   for page in e["pages"]}
    for e in mpmath:
        subject = f"catalogue:{e['filename']}"
        p.check(e["location"] == "mirror" and e["targets"] is None and e["path"].startswith("packages/"),
                subject, "must be mirrored from PyPI into every directory, as sympy")
        p.check(e["has_metadata_file"] and e["has_hash_on_index"], subject, "PEP 658 .metadata and #sha256")
        p.check(e["requires_python"] is None and e["data_requires_python"] is None, subject,
                "mpmath 1.3.0 has no Requires-Python")
        p.check(e["requires_dist"] and all("extra ==" in r for r in e["requires_dist"]), subject,
                "Requires-Dist must be extras only")
        want = {page.replace("/sympy/", "/mpmath/") for page in sympy_pages}
        p.check(set(e["pages"]) == want, subject, f"pages {sorted(set(e['pages']) ^ want)}")
    for e in wheels:
        if e["project"] != "sympy":
            continue
        for text in e["requires_dist"]:
            req = Requirement(text)
            if req.name != "mpmath" or req.marker:
                continue
            for page in e["pages"]:
                served = [Version(m["version"]) for m in mpmath
                          if page.replace("/sympy/", "/mpmath/") in m["pages"]]
                p.check(any(v in req.specifier for v in served), f"catalogue:{e['filename']}",
                        f"{page}: no mpmath for {text} (served {[str(v) for v in served]})")


# -- the 2026 generation (independent of the generator) ------------------------

MODERN_RELEASES = [r for r in facts.RELEASES if r.version not in ("2.5.1", "2.6.0")]
MODERN = tuple(r.version for r in MODERN_RELEASES)
# torch, domain library and triton versions of the 2026 releases.
MODERN_VERSIONS = {
    v for r in MODERN_RELEASES for v in (r.version, r.vision, r.audio, r.triton) if v
}
TRITON_NAMES = ("triton", "triton-rocm", "pytorch-triton-rocm", "pytorch-triton-xpu")
# pytorch .ci/manywheel/build_cuda.sh (799d09f2), "Using nvidia libs from
# pypi", CUDA 13; torch/lib files get it + :$ORIGIN, torch/_C + :$ORIGIN:$ORIGIN/lib.
CUDA13_RPATH = (
    "$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nvshmem/lib:$ORIGIN/../../nvidia/nccl/lib:"
    "$ORIGIN/../../nvidia/cusparselt/lib:$ORIGIN/../../nvidia/cu13/lib"
)
CUDA13_NEEDED = (
    "libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libnvrtc.so.13", "libcufft.so.12",
    "libcurand.so.10", "libcusparse.so.12", "libcusolver.so.12", "libcupti.so.13", "libcudnn.so.9",
    "libnccl.so.2", "libcusparseLt.so.0", "libcufile.so.0",
)
QUIRKS = {
    "second_host", "copied_root_pages", "root_level_files", "missing_hash", "corrupted_metadata",
    "unlabelled_aarch64", "compound_tag", "abi3", "no_aarch64", "variant_wheels",
    "mixed_variant_page", "legacy_directories", "root_lists_variants",
}
VARIANT_LABEL = re.compile(r"[0-9a-z_.]{1,16}")


def check_quirks_2026(p, root, manifest):
    wheels = manifest["wheels"]
    quirks = manifest.get("quirks", {})
    subject = "quirks"
    p.check(set(quirks) == QUIRKS, subject, f"quirk names {sorted(quirks)}")
    for name, paths in quirks.items():
        for path in paths:
            exists = os.path.exists(os.path.join(root, path))
            p.check(exists, subject, f"{name}: {path} does not exist")
    by_name = {}
    for e in wheels:
        by_name.setdefault((e["variant"] or e["location"], e["filename"]), e)

    def get(variant, filename):
        found = by_name.get((variant, filename))
        p.check(found is not None, "catalogue", f"{variant}/{filename} missing")
        return found or {}

    modern = [e for e in wheels if e["project"] in ("torch", "torchvision", "torchaudio")
              and e.get("public_version") and _modern(e)]
    # second host: every torch/vision/audio/triton file of the new releases.
    second = set(quirks.get("second_host", []))
    for e in modern + [e for e in wheels if e["project"] in TRITON_NAMES and _modern(e)]:
        p.check(e["second_host"] and e["path"] in second, e["filename"], "not on the second host")
    # triton and sympy at /whl/ itself.
    for e in wheels:
        if e["project"] in TRITON_NAMES or (
            e["project"] == "sympy" and e["version"] == "1.14.0"
        ):
            at_root = e["location"] == "root" and e["path"].count("/") == 1
            p.check(at_root and e["path"] in quirks.get("root_level_files", []), e["filename"],
                    "not a root-level file")
    # no #sha256 on torch 2.10.0+cu128 aarch64.
    t = get("cu128", "torch-2.10.0+cu128-cp313-cp313-manylinux_2_28_aarch64.whl")
    p.check(t and not t["has_hash_on_index"] and t["path"] in quirks.get("missing_hash", []),
            "catalogue", "torch 2.10.0+cu128 aarch64 must have no hash on the index")
    # the corrupted .metadata (checked byte for byte in check_wheel).
    v = get("cu130", "torchvision-0.25.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl")
    p.check(quirks.get("corrupted_metadata") == [v.get("path", "") + ".metadata"]
            and v.get("metadata_file_corrupted"), "quirks", "corrupted_metadata")
    # unlabelled aarch64 domain wheels in cu128 only; x86_64 ones labelled.
    for project, version in (("torchvision", "0.25.0"), ("torchaudio", "2.10.0")):
        bare = get("cu128", f"{project}-{version}-cp313-cp313-manylinux_2_28_aarch64.whl")
        labelled = get("cu128", f"{project}-{version}+cu128-cp313-cp313-manylinux_2_28_x86_64.whl")
        p.check(bare.get("local") is None and "torch==2.10.0" in bare.get("requires_dist", []),
                project, "cu128 aarch64 must be unlabelled and pin torch==2.10.0")
        p.check(labelled.get("local") == "cu128", project, "cu128 x86_64 must carry +cu128")
        listed = bare.get("path") in quirks.get("unlabelled_aarch64", [])
        p.check(listed, project, "unlabelled_aarch64")
    p.check(len(quirks.get("unlabelled_aarch64", [])) == 2, "quirks", "unlabelled_aarch64 count")
    # compound tags (triton-rocm has the plain linux_x86_64 tag) and abi3.
    for e in wheels:
        if e["project"] in TRITON_NAMES and _modern(e):
            arch = e["arch"]
            # triton-rocm and pytorch-triton-rocm carry the plain linux_x86_64 tag.
            compound = e["project"] not in ("triton-rocm", "pytorch-triton-rocm")
            want = f"manylinux_2_27_{arch}.manylinux_2_28_{arch}" if compound else f"linux_{arch}"
            listed = e["path"] in quirks.get("compound_tag", [])
            p.check(e["platform"] == want and listed == compound, e["filename"],
                    f"platform {e['platform']}, want {want} (compound_tag: {listed})")
    for variant in ("cu128", "cu130"):
        platform = "manylinux_2_24_x86_64.manylinux_2_28_x86_64"
        name = f"torchao-0.15.0+{variant}-cp310-abi3-{platform}.whl"
        ao = get(variant, name)
        p.check(ao.get("path") in quirks.get("abi3", []), name, "abi3 quirk")
        members = set(ao.get("elf_members", {}))
        p.check(members == {"torchao/_C.abi3.so"}, name, "torchao/_C.abi3.so")
    p.check(not any(e["project"] == "torchao" and e["arch"] != "x86_64" for e in wheels), "torchao",
            "x86_64 only")
    # no_aarch64: the CUDA torch files of the rows without an aarch64 cell (2.10.0+cu129).
    listed = set(quirks.get("no_aarch64", []))
    want = set()
    for release in MODERN_RELEASES:
        for row in release.rows:
            arches = {cell.arch for cell in row.torch}
            if row.variant.startswith("cu") and arches == {"x86_64"}:
                want |= {e["path"] for e in wheels if e["project"] == "torch"
                         and e["public_version"] == release.version and e["variant"] == row.variant}
    p.check(want and listed == want, "quirks", f"no_aarch64 {sorted(listed ^ want)}")
    for e in wheels:
        if e["path"] in listed:
            sibling = any(
                o["project"] == "torch" and o["arch"] == "aarch64" and o["variant"] == e["variant"]
                and o["public_version"] == e["public_version"]
                for o in wheels
            )
            p.check(not sibling, e["filename"], "listed under no_aarch64 but has an aarch64 wheel")
    check_variant_wheels(p, root, manifest)
    check_listing_quirks(p, root, manifest)
    for e in wheels:
        if e["project"] == "torch" and _modern(e):
            check_torch_2026(p, e)


def _modern(e):
    return e.get("public_version") in MODERN_VERSIONS


def check_torch_2026(p, e):
    """The ELF dynamic sections of one torch wheel of 2026 (its pins:
    check_facts)."""
    subject = f"2026:{e['filename']}"
    variant = e["variant"]
    reqs = e["requires_dist"]
    names = {Requirement(r).name for r in reqs}
    p.check("sympy>=1.13.3" in reqs and any(r.startswith("setuptools") for r in reqs), subject,
            "sympy>=1.13.3 and setuptools")
    members = e["elf_members"]
    if variant in ("cu130", "cu132"):
        p.check("cuda-bindings" in names, subject, "cuda-bindings")
        cuda = members.get("torch/lib/libtorch_cuda.so", {})
        p.check(cuda.get("rpath") == CUDA13_RPATH + ":$ORIGIN" and cuda.get("runpath") is None,
                subject, f"libtorch_cuda DT_RPATH {cuda.get('rpath')}")
        missing = [n for n in CUDA13_NEEDED if n not in cuda.get("needed", [])]
        p.check(not missing, subject, f"libtorch_cuda lacks NEEDED {missing}")
        nvshmem = members.get("torch/lib/libtorch_nvshmem.so", {})
        p.check("libnvshmem_host.so.3" in nvshmem.get("needed", []), subject, "libtorch_nvshmem")
        c_ext = next((m for n, m in members.items() if n.startswith("torch/_C.")), {})
        p.check(c_ext.get("rpath") == CUDA13_RPATH + ":$ORIGIN:$ORIGIN/lib", subject, "_C DT_RPATH")
    elif variant in ("cu126", "cu128", "cu129"):
        p.check("cuda-bindings" in names, subject, "cuda-bindings")
        suffixed = all(n.endswith("-cu12") for n in names if n.startswith("nvidia-"))
        p.check(suffixed, subject, "-cu12")
        # cuFile: its own pin until 2.10, the cuda-toolkit extra from 2.11.
        cufile = "nvidia-cufile-cu12" in names or any(
            Requirement(r).name == "cuda-toolkit" and "cufile" in Requirement(r).extras
            for r in reqs)
        p.check("nvidia-nvshmem-cu12" in names and cufile, subject, "nvshmem and cufile")
        cuda = members.get("torch/lib/libtorch_cuda.so", {})
        rpath = cuda.get("rpath") or ""
        for part in ("nvidia/nvshmem/lib", "nvidia/cufile/lib", "nvidia/cudnn/lib"):
            p.check(f"$ORIGIN/../../{part}" in rpath, subject, f"RPATH lacks {part}")
        p.check("libcufile.so.0" in cuda.get("needed", []), subject, "libcufile.so.0")
        p.check("libnvToolsExt.so.1" not in cuda.get("needed", []), subject, "no libnvToolsExt")
    elif variant == "xpu":
        intel = any(n.startswith("intel-") for n in names)
        p.check(intel and "pytorch-triton-xpu" in names, subject, "xpu pins")
        p.check(members.get("torch/lib/libtorch_xpu.so", {}).get("rpath", "").startswith(
            "$ORIGIN/../../../.."), subject, "xpu RPATH")
    elif variant.startswith("rocm"):
        p.check("torch/lib/libamdhip64.so" in members, subject, "ROCm bundled in the wheel")
        if variant in ROCM_STACK_VARIANTS:
            check_rocm_stack_wheel(p, e)
    p.check(e["platform"].startswith("manylinux_2_28_"), subject, "manylinux_2_28")


# -- torch 2.9.1's ROCm stack and the 2025a ROCm 6.4.1 modules ----------------------
#
# Against facts.ROCM_LIBRARIES (plain data) and pytorch .ci/manywheel/build_rocm.sh /
# build_common.sh as written down here: every library under its link name with its own
# SONAME, NEEDED of the bundle by link name, forced DT_RPATH $ORIGIN (torch/_C:
# $ORIGIN:$ORIGIN/lib), the DEPS_AUX_DSTLIST data; the modules as an EasyBuild --rpath build
# (DT_RPATH, $ORIGIN-relative), loading with LD_LIBRARY_PATH unset wherever they are.

ROCM_STACK_VARIANTS = ("rocm6.3", "rocm6.4")
ROCM_BY_LINK = {r.link: r for r in facts.ROCM_LIBRARIES}
# What libtorch_hip.so of a real 2.9.1 ROCm wheel needs at least (by link name).
TORCH_HIP_AT_LEAST = (
    "libamdhip64.so", "librocblas.so", "libhipblas.so", "libhipblaslt.so", "libMIOpen.so",
    "librccl.so", "libhipfft.so", "libhiprand.so", "libhipsparse.so", "libhipsolver.so",
    "libroctx64.so", "libroctracer64.so", "libmagma.so",
)
EB_RPATH_HEAD = ["$ORIGIN", "$ORIGIN/../lib", "$ORIGIN/../lib64"]
# hipRuntimeGetVersion / ncclGetVersion of the wheels' bundled HIP and RCCL.
ROCM_STACK_NUMBERS = {"rocm6.3": (60342131, 22105, "6.3.42131"),
                      "rocm6.4": (60443484, 22203, "6.4.43484")}


def check_rocm_stack_wheel(p, e):
    subject = f"rocm-stack:{e['filename']}"
    variant = e["variant"]
    members = e["elf_members"]
    for lib in facts.ROCM_LIBRARIES:
        m = members.get(f"torch/lib/{lib.link}")
        if not p.check(m is not None, subject, f"torch/lib/{lib.link} is not bundled"):
            continue
        p.check(m["soname"] == lib.soname_for(variant), subject,
                f"{lib.link}: SONAME {m['soname']}, want {lib.soname_for(variant)}")
        p.check(m["needed"] == list(lib.needs) + ["libc.so.6"], subject,
                f"{lib.link}: NEEDED {m['needed']}")
    # build_common.sh: every torch/lib file gets DT_RPATH $ORIGIN and names the bundle by
    # link name; torch/_C gets $ORIGIN:$ORIGIN/lib.
    sonames = {r.soname_for(variant) for r in facts.ROCM_LIBRARIES} - set(ROCM_BY_LINK)
    for name, m in members.items():
        if name.startswith("torch/lib/"):
            p.check(m["rpath"] == "$ORIGIN" and m["runpath"] is None, subject,
                    f"{name}: RPATH {m['rpath']!r} RUNPATH {m['runpath']!r}, want DT_RPATH $ORIGIN")
        bad = [n for n in m["needed"] if n in sonames]
        p.check(not bad, subject, f"{name} needs {bad} by SONAME, not by the link name")
    c_ext = [m for n, m in members.items() if n.startswith("torch/_C.")]
    p.check(c_ext and all(m["rpath"] == "$ORIGIN:$ORIGIN/lib" and m["runpath"] is None
                          for m in c_ext), subject, "torch/_C DT_RPATH $ORIGIN:$ORIGIN/lib")
    hip = members.get("torch/lib/libtorch_hip.so", {}).get("needed", [])
    missing = [n for n in TORCH_HIP_AT_LEAST if n not in hip]
    p.check(not missing, subject, f"libtorch_hip.so lacks NEEDED {missing}")
    for name, want in (("libtorch_cpu.so", "libgomp.so"), ("libc10_hip.so", "libamdhip64.so"),
                       ("libtorch_global_deps.so", "libamdhip64.so")):
        needed = members.get(f"torch/lib/{name}", {}).get("needed", [])
        p.check(want in needed, subject, f"{name} must need {want}: {needed}")
    # import torch loads libtorch_global_deps and _C: their NEEDED closure (names looked up
    # in torch/lib, as the RPATH $ORIGIN does) must hold every bundled library.
    seen, todo = set(), ["libtorch_global_deps.so"] + [m["needed"][0] for m in c_ext]
    while todo:
        name = todo.pop()
        if name in seen or f"torch/lib/{name}" not in members:
            continue
        seen.add(name)
        todo += members[f"torch/lib/{name}"]["needed"]
    unreached = sorted(set(ROCM_BY_LINK) - seen)
    p.check(not unreached, subject, f"import torch does not load {unreached}")


def check_rocm_stack_files(p, root, manifest):
    """The data files of the 2.9.1 ROCm wheels, and torchvision built against ROCm."""
    for e in manifest["wheels"]:
        if e["variant"] not in ROCM_STACK_VARIANTS:
            continue
        subject = f"rocm-stack:{e['filename']}"
        if e["project"] == "torchvision":
            m = e["elf_members"].get("torchvision/_C.so", {})
            needed = m.get("needed", [])
            p.check("libamdhip64.so.6" in needed and "libamdhip64.so" not in needed, subject,
                    f"torchvision/_C.so must need libamdhip64.so.6 (the SONAME): {needed}")
            p.check({"libc10.so", "libtorch_cpu.so", "libc10_hip.so", "libtorch_hip.so"}
                    <= set(needed), subject, f"torchvision/_C.so NEEDED {needed}")
            p.check(m.get("runpath") == "$ORIGIN/../torch/lib" and m.get("rpath") is None,
                    subject, "torchvision/_C.so RUNPATH $ORIGIN/../torch/lib")
            continue
        if e["project"] != "torch":
            continue
        names = set(zipfile.ZipFile(os.path.join(root, e["path"])).namelist())
        missing = [f for f in facts.ROCM_WHEEL_DATA if f not in names]
        p.check(not missing, subject, f"data files missing: {missing}")
        for directory in ("torch/lib/rocblas/library/", "torch/lib/hipblaslt/library/",
                          "torch/lib/hipsparselt/library/", "torch/share/miopen/db/",
                          "torch/share/rccl/msccl-algorithms/"):
            p.check(any(n.startswith(directory) for n in names), subject, f"no {directory}")
        p.check("torch/share/libdrm/amdgpu.ids" in names, subject, "no amdgpu.ids")
        kdb = [n for n in names if re.fullmatch(r"torch/share/miopen/db/gfx942.*\.kdb", n)]
        p.check(kdb, subject, "no torch/share/miopen/db/gfx942*.kdb")
        arches = {a for n in names if "/library/" in n for a in re.findall(r"gfx[0-9a-f]+", n)}
        p.check(arches <= {"gfx90a", "gfx942"}, subject, f"library files for {sorted(arches)}")


def rocm_modules(manifest):
    return {m: info for m, info in manifest["software"]["modules"].items() if info.get("rocm")}


def check_rocm_modules(p, root, manifest):
    """Layout of the ROCm modules (the generic check_software checks files, SONAMEs,
    NEEDED and symlinks): exactly the table's modules, the link-name symlink chain, DT_RPATH
    as an EasyBuild --rpath build that finds every NEEDED inside the tree, the data."""
    modules = rocm_modules(manifest)
    want = {r.module for r in facts.ROCM_LIBRARIES if r.module}
    p.check(set(modules) == want, "rocm-modules", f"modules differ: {sorted(set(modules) ^ want)}")
    by_soname = {}
    for module, info in modules.items():
        for lib in info["libraries"]:
            by_soname[lib["soname"]] = lib
    provided = {r.link: r for r in facts.ROCM_LIBRARIES if r.module}
    for module, info in sorted(modules.items()):
        p.check(info["rocm"] == "6.4.1" and info.get("cuda") is None, module, "rocm 6.4.1")
        links = {lib["link_name"] for lib in info["libraries"]}
        p.check(links == {r.link for r in provided.values() if r.module == module}, module,
                f"libraries {sorted(links)}")
        for lib in info["libraries"]:
            subject = lib["path"]
            r = provided.get(lib["link_name"])
            if r is None:
                continue
            directory = posixpath.dirname(lib["path"])
            p.check(directory == f"software/{module}/{r.libdir}", subject, "libdir")
            p.check(lib["soname"] == r.soname, subject, f"SONAME {lib['soname']}")
            p.check(posixpath.basename(lib["path"]) == r.file, subject, "file name")
            link = os.path.join(root, directory, r.link)
            p.check(os.path.islink(link) and os.readlink(link) == r.soname, subject,
                    f"{r.link} must be a symlink to {r.soname}")
            p.check(os.path.realpath(link) == os.path.realpath(os.path.join(root, lib["path"])),
                    subject, f"{r.link} does not resolve to the library")
            with open(os.path.join(root, lib["path"]), "rb") as handle:
                actual = elf_info(handle.read(), {})
            entries = (actual["rpath"] or "").split(":")
            p.check(actual["runpath"] is None and entries[:3] == EB_RPATH_HEAD, subject,
                    f"DT_RPATH {actual['rpath']!r} RUNPATH {actual['runpath']!r}")
            p.check(actual["rpath"] == lib["rpath"], subject, "RPATH differs from MANIFEST")
            dirs = []
            for entry in entries:
                ok = entry == "$ORIGIN" or entry.startswith("$ORIGIN/")
                p.check(ok, subject, f"RPATH entry {entry!r} is not relative to $ORIGIN")
                relative = entry[len("$ORIGIN/"):] if entry != "$ORIGIN" else "."
                dirs.append(os.path.normpath(os.path.join(root, directory, relative)))
            for needed in actual["needed"]:
                if needed == "libc.so.6":
                    continue
                p.check(needed in by_soname, subject, f"NEEDED {needed} is no module library's SONAME")
                found = [d for d in dirs if os.path.isfile(os.path.join(d, needed))]
                p.check(found, subject, f"NEEDED {needed} is in none of its RPATH directories")
        for path in info.get("data", []):
            full = os.path.join(root, path)
            p.check(os.path.isfile(full) and not os.path.islink(full), module, f"data file {path} missing")
    for module, (wheel_dir, module_dir, names) in facts.ROCM_MODULE_DATA.items():
        info = modules.get(module, {})
        have = {posixpath.basename(d) for d in info.get("data", [])
                if posixpath.dirname(d) == f"software/{module}/{module_dir}"}
        p.check(have == set(names), module, f"{module_dir} holds {sorted(have)}")
        carried = {posixpath.basename(f) for f in facts.ROCM_WHEEL_DATA
                   if posixpath.dirname(f) == wheel_dir}
        p.check(carried and carried <= have, module,
                f"{module_dir} lacks the wheel's {sorted(carried - have)} of {wheel_dir}")


ROCM_LOAD_SCRIPT = """
import ctypes, json, os, sys
out = {}
for path in json.loads(sys.argv[1]):
    lib = ctypes.CDLL(path)
    lib.sample_library_path.restype = ctypes.c_char_p
    lib.sample_library_build.restype = ctypes.c_char_p
    out[path] = [os.path.realpath(lib.sample_library_path().decode()),
                 lib.sample_library_build().decode()]
mapped = sorted({os.path.realpath(line.split()[-1]) for line in open("/proc/self/maps")
                 if len(line.split()) >= 6 and ".so" in line.split()[-1]})
print(json.dumps({"loaded": out, "mapped": mapped}))
"""


def check_rocm_modules_load(p, root, manifest, python):
    """Each ROCm module library dlopened by its link name's path with LD_LIBRARY_PATH unset
    loads, and everything it pulls in comes from the modules: from the tree and from a copy
    of the modules elsewhere (their RPATHs are relative to $ORIGIN)."""
    modules = rocm_modules(manifest)
    with tempfile.TemporaryDirectory() as elsewhere:
        copy = os.path.join(elsewhere, "moved", "software")
        for module in modules:
            shutil.copytree(os.path.join(root, "software", module), os.path.join(copy, module),
                            symlinks=True)
        for base in (os.path.join(root, "software"), copy):
            paths, owner = [], {}
            for module, info in sorted(modules.items()):
                for lib in info["libraries"]:
                    rel = posixpath.join(posixpath.dirname(lib["path"]), lib["link_name"])
                    path = os.path.join(base, rel[len("software/"):])
                    paths.append(path)
                    owner[path] = (module, os.path.realpath(os.path.join(base, lib["path"][len("software/"):])))
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
            env.pop("LD_LIBRARY_PATH", None)
            subject = f"rocm-modules-load:{'tree' if base != copy else 'copy'}"
            result = subprocess.run([python, "-c", ROCM_LOAD_SCRIPT, json.dumps(paths)], env=env,
                                    capture_output=True, text=True, cwd=elsewhere)
            if not p.check(result.returncode == 0, subject, f"loading failed:\n{result.stderr}"):
                continue
            answer = json.loads(result.stdout)
            for path, (where, build) in answer["loaded"].items():
                module, real = owner[path]
                p.check(where == real, subject, f"{path} reports {where}")
                p.check(f"EasyBuild module {module}" in build, subject, f"{path} says {build!r}")
            stand_ins = [m for m in answer["mapped"] if "/software/" in m or "/torch/" in m]
            outside = [m for m in stand_ins if not m.startswith(os.path.realpath(base) + "/")]
            p.check(not outside, subject, f"mapped from outside the modules: {outside}")
            p.check(len(stand_ins) == len(paths), subject,
                    f"{len(stand_ins)} libraries mapped for {len(paths)}")
            p.imports += 1


ROCM_STACK_SCRIPT = """
import ctypes, json, os, sys
import torch, torchvision
want = json.loads(sys.argv[1])
lib_dir = os.path.join(os.path.dirname(torch.__file__), "lib")
assert torch.__version__ == want["version"], torch.__version__
assert torch._C._build_version() == want["version"]
assert torch.version.hip == want["hip"], torch.version.hip
assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
assert torch.cuda.runtime_version() == want["runtime"], torch.cuda.runtime_version()
assert torch._C._nccl_version() == want["rccl"], torch._C._nccl_version()
assert torch._C._library_check() > 0, torch._C._library_check()
assert torchvision._cuda_version() == want["runtime"], torchvision._cuda_version()
before = open("/proc/self/maps").read()
found = {}
for name in want["libraries"]:
    lib = ctypes.CDLL(name)  # the loaded one: import torch loaded it under this name
    lib.sample_library_path.restype = ctypes.c_char_p
    lib.sample_library_build.restype = ctypes.c_char_p
    found[name] = [os.path.realpath(lib.sample_library_path().decode()),
                   lib.sample_library_build().decode()]
mapped = sorted({os.path.realpath(line.split()[-1]) for line in open("/proc/self/maps")
                 if len(line.split()) >= 6 and ".so" in line.split()[-1]})
assert open("/proc/self/maps").read().count(".so") == before.count(".so"), "dlopen loaded more"
print(json.dumps({"found": found, "mapped": mapped, "lib_dir": os.path.realpath(lib_dir)}))
"""


def check_rocm_stack_import(p, root, manifest, python, torch_entry, companions):
    """import torch (and torchvision) of a 2.9.1 ROCm wheel loads every bundled library from
    torch/lib; for rocm6.4 also with the bundled copies that the ROCm 6.4.1 modules provide
    deleted and the modules' directories on LD_LIBRARY_PATH (what a relink onto the modules
    does by RPATH), each of those then loaded from its module."""
    variant = torch_entry["variant"]
    runtime, rccl, hip = ROCM_STACK_NUMBERS[variant]
    modules = rocm_modules(manifest)
    module_of = {lib["link_name"]: (m, lib) for m, info in modules.items() for lib in info["libraries"]}
    rounds = [False] + ([True] if variant == "rocm6.4" else [])
    for substituted in rounds:
        subject = f"import:{torch_entry['filename']}" + (" onto the ROCm modules" if substituted else "")
        with tempfile.TemporaryDirectory() as site:
            for e in [torch_entry] + companions:
                zipfile.ZipFile(os.path.join(root, e["path"])).extractall(site)
                for member in e["elf_members"]:
                    os.chmod(os.path.join(site, member), 0o755)
            env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1")
            env.pop("LD_LIBRARY_PATH", None)
            want = {"version": torch_entry["version"], "hip": hip, "runtime": runtime, "rccl": rccl,
                    "libraries": sorted(ROCM_BY_LINK)}
            if substituted:
                for link in module_of:
                    os.remove(os.path.join(site, "torch", "lib", link))
                dirs = sorted({os.path.join(root, posixpath.dirname(lib["path"]))
                               for _, lib in module_of.values()})
                env["LD_LIBRARY_PATH"] = ":".join(dirs)
                want["runtime"] = module_of["libamdhip64.so"][1]["api_version"]
                want["rccl"] = module_of["librccl.so"][1]["api_version"]
            result = subprocess.run([python, "-c", ROCM_STACK_SCRIPT, json.dumps(want)], env=env,
                                    capture_output=True, text=True, cwd=site)
            if not p.check(result.returncode == 0, subject, f"import failed:\n{result.stderr}"):
                continue
            answer = json.loads(result.stdout)
            lib_dir = answer["lib_dir"]
            for link, (where, build) in sorted(answer["found"].items()):
                if substituted and link in module_of:
                    module, lib = module_of[link]
                    real = os.path.realpath(os.path.join(root, lib["path"]))
                    p.check(where == real and f"EasyBuild module {module}" in build, subject,
                            f"{link} from {where} ({build!r}), want the module's {real}")
                else:
                    p.check(where == os.path.join(lib_dir, link) and "bundled in torch" in build,
                            subject, f"{link} from {where} ({build!r}), want torch/lib")
            software = os.path.realpath(os.path.join(root, "software")) + "/"
            from_modules = [m for m in answer["mapped"] if m.startswith(software)]
            p.check(len(from_modules) == (len(module_of) if substituted else 0), subject,
                    f"{len(from_modules)} libraries mapped from the modules")
            p.imports += 1


# -- the facts table (samplegen/facts.py) -----------------------------------------


def _legacy(line):
    """A modern Requires-Dist line as the manylinux2014 builder spells it
    (`name (spec) ; marker`, `extra == 'x'`); written here anew, not taken
    from the generator."""
    text, _, marker = line.partition("; ")
    end = next((i for i, c in enumerate(text) if c in "<>=!~"), len(text))
    name, spec = text[:end], text[end:]
    out = f"{name} ({spec})" if spec else name
    if marker.startswith('extra == "'):
        marker = "extra == '" + marker[len('extra == "'):-1] + "'"
    return out + (f" ; {marker}" if marker else "")


def expected_torch_requires(release, row, cell):
    lines = list(release.head) + list(row.requires_for(cell.arch)) + list(release.tail)
    lines += [line for _, extra_lines in release.extras for line in extra_lines]
    return [_legacy(line) if cell.style == "legacy" else line for line in lines]


def check_facts(p, manifest):
    """The index against the facts table: every release x variant with exactly
    its torch files and Requires-Dist, the paired torchvision/torchaudio,
    the triton flavour and its files, the links without a hash, the
    cuda-toolkit metapackages and what CUDA 13 requirements the index serves."""
    wheels = manifest["wheels"]
    legacy = set(manifest.get("legacy_directories", []))
    subject = "facts"
    for release in facts.RELEASES:
        p.check(release.sources, subject, f"{release.version} cites no source")
        for row in release.rows:
            p.check(row.sources or row.inferred, subject,
                    f"{release.version} {row.variant}: no source and not marked inferred")
            p.check(row.variant in manifest["variants"], subject,
                    f"{release.version}: {row.variant} is not a variant directory")
    by_key = {(e["variant"], e["filename"]): e for e in wheels}

    # torch: exactly the table's files, each with exactly the table's Requires-Dist.
    want_torch = {}
    for release in facts.RELEASES:
        for row in release.rows:
            for cell in row.torch:
                local = f"+{cell.local}" if cell.local else ""
                for python in release.pythons:
                    name = f"torch-{release.version}{local}-{python}-{python}-{cell.platform}.whl"
                    want_torch[(row.variant, name)] = (release, row, cell)
    have_torch = {(e["variant"], e["filename"]) for e in wheels
                  if e["project"] == "torch" and e["variant"] not in legacy}
    p.check(have_torch == set(want_torch), subject,
            f"torch files differ from the table: {sorted(have_torch ^ set(want_torch))}")
    for key, (release, row, cell) in sorted(want_torch.items()):
        e = by_key.get(key)
        if e is None:
            continue
        want = expected_torch_requires(release, row, cell)
        if not p.check(e["requires_dist"] == want, f"facts:{key[0]}/{key[1]}",
                       "Requires-Dist differs from the table (order or lines):"
                       + "".join(f"\n  index only: {line}" for line in e["requires_dist"]
                                 if line not in want)
                       + "".join(f"\n  table only: {line}" for line in want
                                 if line not in e["requires_dist"])):
            continue
        p.check(e["requires_python"] == release.requires_python, f"facts:{key[1]}",
                "Requires-Python")

    # torchvision / torchaudio: the table's pairing, and a requirement on torch that
    # every release pairing the version meets.
    want_domain = {}
    for release in facts.RELEASES:
        for project, version in (("torchvision", release.vision), ("torchaudio", release.audio)):
            if version is None:
                continue
            for row in release.rows:
                for cell in row.domain:
                    local = f"+{cell.local}" if cell.local else ""
                    for python in release.domain_pythons:
                        name = f"{project}-{version}{local}-{python}-{python}-{cell.platform}.whl"
                        want_domain.setdefault((row.variant, name), []).append(release)
    have_domain = {(e["variant"], e["filename"]) for e in wheels
                   if e["project"] in ("torchvision", "torchaudio")}
    p.check(have_domain == set(want_domain), subject,
            f"domain files differ from the table: {sorted(have_domain ^ set(want_domain))}")
    for key, releases in sorted(want_domain.items()):
        e = by_key.get(key)
        if e is None:
            continue
        torch_reqs = [Requirement(r) for r in e["requires_dist"] if Requirement(r).name == "torch"]
        p.check(len(torch_reqs) == 1, f"facts:{key[1]}", "one requirement on torch")
        for release in releases:
            met = torch_reqs and Version(release.version) in torch_reqs[0].specifier
            p.check(met, f"facts:{key[1]}", f"does not accept its torch {release.version}")
        first = releases[0]
        if e["project"] == "torchaudio" and first.audio_requires:
            p.check(f"{torch_reqs[0]}" == first.audio_requires, f"facts:{key[1]}",
                    f"torch requirement {torch_reqs[0]}, the table says {first.audio_requires}")
        elif torch_reqs:
            p.check(str(torch_reqs[0]) == f"torch=={first.version}", f"facts:{key[1]}",
                    f"torch requirement {torch_reqs[0]}")

    # triton: the root holds exactly the table's builds; every triton requirement of a
    # torch file is met there for its Python tag and architecture.
    want_triton = set()
    for t in facts.TRITONS:
        for arch in t.arches:
            for python in t.pythons:
                want_triton.add(f"{t.project}-{t.version}-{python}-{python}-"
                                f"{t.platform.format(arch=arch)}.whl")
    have_triton = {e["filename"] for e in wheels if e["project"] in TRITON_NAMES}
    p.check(have_triton == want_triton, subject,
            f"triton files differ from the table: {sorted(have_triton ^ want_triton)}")
    root = [e for e in wheels if e["location"] == "root"]
    for key, (release, row, cell) in sorted(want_torch.items()):
        for text in row.requires_for(cell.arch):
            req = Requirement(text)
            if req.name not in TRITON_NAMES:
                continue
            python = key[1].split("-")[2]
            if req.marker and not req.marker.evaluate(
                    {"platform_system": "Linux", "platform_machine": cell.arch,
                     "python_version": f"{python[2]}.{python[3:]}"}):
                continue
            met = any(e["project"] == req.name and e["python"] == python and e["arch"] == cell.arch
                      and Version(e["version"]) in req.specifier for e in root)
            p.check(met, f"facts:{key[1]}", f"no root-level file meets {text}")
    # triton-rocm from 2.10 on; 2.9.1 still pytorch-triton-rocm.
    for release in MODERN_RELEASES:
        want = "triton-rocm" if Version(release.version) >= Version("2.10") else "pytorch-triton-rocm"
        for row in release.rows:
            for text in row.requires:
                if row.variant.startswith("rocm"):
                    name = Requirement(text).name
                    p.check(name == want, subject,
                            f"{release.version} {row.variant} requires {name}, not {want}")

    # links without #sha256=: exactly the table's.
    want_hashless = {name for name, _, _ in facts.HASHLESS_FILES}
    for (variant, name), (release, row, cell) in want_torch.items():
        if cell.arch in row.hashless:
            want_hashless.add(name)
    every = wheels + manifest.get("variant_wheels", []) + manifest.get("index_files", [])
    have_hashless = {e["filename"] for e in every if not e["has_hash_on_index"]}
    p.check(have_hashless == want_hashless, subject,
            f"links without a hash differ from the table: {sorted(have_hashless ^ want_hashless)}")
    missing = set(manifest["quirks"]["missing_hash"])
    p.check(missing == {e["path"] for e in every if not e["has_hash_on_index"]}, "quirks",
            "missing_hash")

    # cuda-toolkit: the metapackages the table defines, with its extras, on the pages of
    # every directory whose torch requires them.
    toolkits = {e["version"]: e for e in wheels if e["project"] == "cuda-toolkit"}
    p.check(set(toolkits) == set(facts.CUDA_TOOLKIT), subject,
            f"cuda-toolkit versions {sorted(toolkits)}")
    for version, spec in facts.CUDA_TOOLKIT.items():
        e = toolkits.get(version)
        if e is None:
            continue
        want = [f'{name}=={pinned}.*; extra == "{extra}"' for extra, name, pinned in spec["extras"]]
        p.check(e["requires_dist"] == want, f"facts:{e['filename']}",
                f"Requires-Dist {e['requires_dist']}")
        p.check(e["filename"] == f"cuda_toolkit-{version}-py3-none-any.whl", e["filename"],
                "py3-none-any")
    for key, (release, row, cell) in sorted(want_torch.items()):
        for text in row.requires_for(cell.arch):
            req = Requirement(text)
            if req.name != "cuda-toolkit":
                continue
            pinned = [s.version for s in req.specifier if s.operator == "=="]
            e = toolkits.get(pinned[0] if pinned else None)
            if not p.check(e is not None, f"facts:{key[1]}", f"no cuda-toolkit for {text}"):
                continue
            provided = {extra for extra, _, _ in facts.CUDA_TOOLKIT[e["version"]]["extras"]}
            p.check(req.extras <= provided, f"facts:{key[1]}",
                    f"extras {sorted(req.extras - provided)} not provided by {e['filename']}")
            page = f"whl/{key[0]}/cuda-toolkit/index.html"
            p.check(page in e["pages"], f"facts:{key[1]}", f"{page} does not list {e['filename']}")

    # What a CUDA 13 torch asks for (through cuda-toolkit's extras too) is served on its
    # directory's pages for x86_64 (the real CUDA 13 wheels only with the tree).
    tree = manifest.get("cuda13_tree")
    mirrored = [e for e in wheels if e["location"] == "mirror"]
    checked = set()
    for key, (release, row, cell) in sorted(want_torch.items()):
        if not row.variant.startswith("cu13") or cell.arch != "x86_64":
            continue
        python = key[1].split("-")[2]
        wanted = []
        for text in row.requires_for(cell.arch):
            req = Requirement(text)
            if req.name == "cuda-toolkit":
                version = [s.version for s in req.specifier][0]
                for extra, name, pinned in facts.CUDA_TOOLKIT[version]["extras"]:
                    if extra in req.extras:
                        wanted.append(Requirement(f"{name}=={pinned}.*"))
            elif req.name.startswith(("nvidia-", "cuda-bindings")):
                wanted.append(req)
        for req in wanted:
            if (row.variant, python, str(req)) in checked:
                continue
            checked.add((row.variant, python, str(req)))
            page = f"whl/{row.variant}/{req.name}/index.html"
            served = [e for e in mirrored if e["project"] == req.name and page in e["pages"]
                      and e["arch"] == "x86_64" and e["python"] in ("py3", python)
                      and Version(e["version"]) in req.specifier]
            if not served and tree is None:
                continue  # the real CUDA 13 wheels are not in this build
            p.check(served, f"facts:{key[1]}", f"{page} serves nothing meeting {req}")


def check_variant_wheels(p, root, manifest):
    """PEP 825: variant-labelled file names, the variants.json next to them
    on every page that lists them, variant.json inside the wheel."""
    variants = manifest.get("variant_wheels", [])
    files = {f["path"]: f for f in manifest.get("index_files", [])}
    p.check(any(v["variant"] == "variant" for v in variants), "variants", "no whl/variant/ wheels")
    mixed = [v for v in variants if v["variant"] != "variant"]
    p.check(len(mixed) == 1, "variants", f"{len(mixed)} variant wheels outside whl/variant/")
    for v in variants:
        subject = v["filename"]
        label = v["variant_label"]
        p.check(VARIANT_LABEL.fullmatch(label) is not None, subject, f"label {label!r}")
        named = v["filename"].endswith(f"-{label}.whl") and v["local"] is None
        p.check(named, subject, "file name")
        archive = zipfile.ZipFile(os.path.join(root, v["path"]))
        inside = json.loads(archive.read(f"{v['dist_info']}/variant.json"))
        p.check(list(inside["variants"]) == [label], subject, "variant.json")
        p.check(inside["$schema"].startswith("https://"), subject, "variant.json $schema")
        for page in v["pages"]:
            listed = [f for f in files.values() if page in f["pages"]]
            name = f"torch-{v['public_version']}-variants.json"
            p.check(any(f["filename"] == name for f in listed), subject, f"{page} lacks {name}")
            for f in listed:
                data = json.loads(read(root, f["path"]))
                p.check(label in data["variants"], subject, f"{f['path']} lacks {label}")
    p.check(any("whl/cu128/torch/index.html" in v["pages"] for v in mixed), "variants",
            "the cu128 torch page must list one variant wheel")


def check_listing_quirks(p, root, manifest):
    quirks = manifest.get("quirks", {})
    text = read(root, "whl/index.html").decode()
    for directory in manifest["variants"] + manifest.get("legacy_directories", []) + ["variant"]:
        p.check(f'href="{directory}/"' in text, "whl/index.html", f"does not list {directory}/")
    for legacy in manifest.get("legacy_directories", []):
        torch_root = read(root, "whl/torch/index.html").decode()
        p.check(f"/{legacy}/" not in torch_root, "whl/torch/index.html", f"lists {legacy} files")
        page = f"whl/{legacy}/torch/index.html"
        p.check(page in quirks.get("legacy_directories", []), "quirks", "legacy_directories")
    # Shared dependencies: the nvidia-* CUDA 13 pages only where targeted.
    for e in manifest["wheels"]:
        if e["location"] == "mirror" and e.get("targets") is not None:
            want = {"whl"} | {f"whl/{t}" for t in e["targets"]}
            got = {posixpath.dirname(posixpath.dirname(page)) for page in e["pages"]}
            message = f"page copies in {sorted(got)}, want {sorted(want)}"
            p.check(got == want, e["filename"], message)


def check_copied_pages(p, dest, manifest):
    """The server rendering's copies are byte for byte the root page."""
    for page in manifest.get("quirks", {}).get("copied_root_pages", []):
        root_page = "whl/" + page.split("/", 2)[2]
        same = read(dest, page) == read(dest, root_page)
        p.check(same, page, f"differs from {root_page} in the server rendering")


def check_cuda13_wheels(p, root, manifest, require):
    """The nvidia-* CUDA 13 wheels rebuilt from the tree: the tree's own
    bytes (RECORD of the installed wheel), whole or the small members."""
    tree = manifest.get("cuda13_tree")
    if tree is None:
        why = manifest.get("cuda13_tree_missing")
        message = (f"skipped: no CUDA 13 tree at build time ({why}); the real-library "
                   "checks and the CUDA 13 wheels are not in this sample")
        print(f"note: {message}", file=sys.stderr)
        if require:
            p.add("--require-cuda13", message)
        return
    for e in manifest["wheels"]:
        if e.get("contents") not in ("whole", "subset"):
            continue
        dist_info = os.path.join(tree["path"], "dist-info", e["dist_info"])
        with open(os.path.join(dist_info, "RECORD"), encoding="utf-8", newline="") as handle:
            rows = {r[0]: r for r in csv.reader(handle) if ".dist-info/" not in r[0]}
        archive = zipfile.ZipFile(os.path.join(root, e["path"]))
        names = [n for n in archive.namelist() if not n.startswith(e["dist_info"] + "/")]
        subject = e["filename"]
        if e["contents"] == "whole":
            p.check(set(names) == set(rows), subject, "a whole wheel must hold every RECORD member")
        else:
            p.check(set(names) <= set(rows), subject, "members the real wheel lacks")
            p.check(all(int(rows[n][2]) <= 1024 * 1024 for n in names), subject, "a large member")
        for name in names:
            digest = base64.urlsafe_b64encode(hashlib.sha256(archive.read(name)).digest())
            same = "sha256=" + digest.rstrip(b"=").decode() == rows[name][1]
            p.check(same, subject, f"{name} differs")
        with open(os.path.join(dist_info, "METADATA"), "rb") as handle:
            same = archive.read(f"{e['dist_info']}/METADATA") == handle.read()
            p.check(same, subject, "METADATA")


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
for name in {domain!r}:
    module = __import__(name)
    assert module._cuda_version() == {runtime}, (name, module._cuda_version())
print("ok", torch.__version__)
"""


# hipRuntimeGetVersion of the ROCm builds' bundled libamdhip64.
HIP_RUNTIME = {"rocm6.2.4": 60241134, "rocm7.0": 70051831, "rocm7.1": 70125424,
               "rocm7.2": 70226015}


def module_set(entry):
    """The sample CUDA module set a CUDA torch build is meant to run with:
    2023b/2024a for the 2024/25 releases, 2025b (12.9.1) for the 2026 CUDA
    12 builds, 2026.1 (13.3.0) for CUDA 13."""
    variant, version = entry["variant"], entry["public_version"]
    if variant == "cu124":
        return "12.4.0"
    if variant == "cu126":
        return "12.6.0" if version == "2.6.0" else "12.9.1"
    return {"cu128": "12.9.1", "cu129": "12.9.1", "cu130": "13.3.0", "cu132": "13.3.0"}.get(variant)


def module_library(manifest, cuda, soname):
    for info in manifest["software"]["modules"].values():
        if info["cuda"] == cuda:
            for lib in info["libraries"]:
                if lib["soname"] == soname:
                    return lib
    return None


CUDA13_SCRIPT = """
import ctypes, os
import torch
assert torch.__version__ == {version!r}, torch.__version__
assert torch._C._build_version() == {version!r}
# Ask the loaded libraries directly (dlopen by SONAME finds the loaded ones).
runtime = ctypes.c_int()
assert ctypes.CDLL("libcudart.so.13").cudaRuntimeGetVersion(ctypes.byref(runtime)) == 0
cudnn = ctypes.CDLL("libcudnn.so.9")
cudnn.cudnnGetVersion.restype = ctypes.c_size_t
nccl = ctypes.c_int()
assert ctypes.CDLL("libnccl.so.2").ncclGetVersion(ctypes.byref(nccl)) == 0
want = (runtime.value, cudnn.cudnnGetVersion(), nccl.value)
got = (torch._C._runtime_version(), torch.backends.cudnn.version(), torch._C._nccl_version())
assert got == want, (got, want)
assert {expected!r} in (None, want), ("the build recorded", {expected!r}, want)
assert torch._C._library_check() > 0, torch._C._library_check()
mapped = {{os.path.realpath(line.split()[-1]) for line in open("/proc/self/maps")
          if line.rstrip().endswith(("libcudart.so.13", "libcudnn.so.9", "libnccl.so.2"))}}
assert mapped == set({real!r}), mapped
for name in {domain!r}:
    module = __import__(name)
    assert module._cuda_version() == runtime.value, (name, module._cuda_version())
print("ok", torch.__version__, *want)
"""


def check_imports(p, root, manifest, python):
    """Imports every x86_64 torch wheel of python's tag with the torchvision
    and torchaudio the facts table pairs it with (CUDA ones with the sample
    modules on LD_LIBRARY_PATH; CUDA 13 ones against the real libraries where
    the build had them)."""
    version = subprocess.run(
        [python, "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"],
        capture_output=True, text=True, check=True,
    )
    tag = version.stdout.strip()
    legacy = set(manifest.get("legacy_directories", []))
    torch_entries = [
        e for e in manifest["wheels"] if e["project"] == "torch" and e["python"] == tag and e["arch"] == "x86_64"
        and e["variant"] not in legacy
    ]
    p.check(bool(torch_entries), "import", f"no {tag} x86_64 torch wheel to import with {python}")
    for torch_entry in torch_entries:
        variant, version = torch_entry["variant"], torch_entry["public_version"]
        release = facts.release(version)
        paired = {project: v for project, v in (("torchvision", release.vision),
                                                 ("torchaudio", release.audio)) if v}
        companions = [
            e
            for e in manifest["wheels"]
            if e["python"] == tag
            and e["arch"] == "x86_64"
            and e["variant"] == variant
            and paired.get(e["project"]) == e["public_version"]
        ]
        subject = f"import:{torch_entry['filename']}"
        # torchvision 0.20.1 / torchaudio 2.5.1 have no cp313 wheels (README).
        want = set(paired) if tag in release.domain_pythons else set()
        p.check({e["project"] for e in companions} == want and len(companions) == len(want),
                subject, f"domain libraries {sorted(e['filename'] for e in companions)}")
        if variant in ROCM_STACK_VARIANTS:
            check_rocm_stack_import(p, root, manifest, python, torch_entry, companions)
            continue
        with tempfile.TemporaryDirectory() as site:
            for e in [torch_entry] + companions:
                zipfile.ZipFile(os.path.join(root, e["path"])).extractall(site)
                for member in e["elf_members"]:
                    os.chmod(os.path.join(site, member), 0o755)
            cuda = module_set(torch_entry)
            cudart = module_library(manifest, cuda, f"libcudart.so.{cuda[:2]}") if cuda else None
            runtime = cudart["api_version"] if cudart else HIP_RUNTIME.get(variant, -1)
            script = IMPORT_SCRIPT.format(
                version=torch_entry["version"],
                accelerated=variant != "cpu",
                runtime=runtime,
                domain=sorted(e["project"] for e in companions),
            )
            if cudart and cudart.get("real"):
                script = cuda13_script(manifest, torch_entry,
                                       sorted(e["project"] for e in companions))
            env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1")
            env.pop("LD_LIBRARY_PATH", None)
            if variant == "xpu":
                # The Intel runtime wheels (libsycl.so.8) are not in the sample.
                result = subprocess.run(
                    [python, "-c", script], env=env, capture_output=True, text=True, cwd=site
                )
                p.check(result.returncode != 0 and "libsycl.so.8" in result.stderr, subject,
                        "an XPU build must fail to load without libsycl.so.8")
                continue
            if cuda:
                # Without the CUDA modules the import must fail the way the real one does (on a
                # machine whose ld.so.cache has the CUDA 13 libraries, at the first library
                # the system lacks).
                bare = subprocess.run([python, "-c", script], env=env, capture_output=True, text=True, cwd=site)
                failed_like_real = bare.returncode != 0 and (
                    "not found in the system path" in bare.stderr
                    or "cannot open shared object file" in bare.stderr
                )
                p.check(failed_like_real, subject, "imports without the CUDA libraries")
                # For this check only: the modules on LD_LIBRARY_PATH (torch's RPATH entries
                # name nvidia/ wheel directories that are not there).
                env["LD_LIBRARY_PATH"] = ":".join(eb_library_path(root, manifest, cuda))
            result = subprocess.run([python, "-c", script], env=env, capture_output=True, text=True, cwd=site)
            p.check(result.returncode == 0, subject, f"import failed:\n{result.stderr}")
            if result.returncode == 0 and cudart and cudart.get("real"):
                p.notes.append(f"{torch_entry['filename']}: real CUDA 13 libraries answer "
                               f"(runtime, cuDNN, NCCL) = {tuple(result.stdout.split()[2:])}")
            p.imports += 1
        bundled = nvidia_wheels_for(manifest, torch_entry)
        if cuda and bundled:
            check_bundled_import(p, root, manifest, python, torch_entry, companions, bundled, script, cuda)


def cuda13_script(manifest, torch_entry, domain):
    tree = manifest["cuda13_tree"]
    answers = tree.get("api_versions") or {}
    expected = (answers["cudart"], answers["cudnn"], answers["nccl"]) if answers else None
    real = sorted(os.path.realpath(os.path.join(tree["path"], "lib", name))
                  for name in ("libcudart.so.13", "libcudnn.so.9", "libnccl.so.2"))
    return CUDA13_SCRIPT.format(version=torch_entry["version"], expected=expected, real=real,
                                domain=domain)


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
    parser.add_argument(
        "--require-cuda13",
        action="store_true",
        help="fail when the sample was built without the CUDA 13 tree "
        "(real-library checks skipped)",
    )
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    with open(os.path.join(root, "MANIFEST.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    p = Problems()
    elf_cache = {}
    for entry in manifest["wheels"] + manifest.get("variant_wheels", []):
        check_wheel(p, root, entry, elf_cache)
    check_software(p, root, manifest, elf_cache)
    check_rocm_modules(p, root, manifest)
    check_rocm_stack_files(p, root, manifest)
    check_quirks(p, manifest)
    check_quirks_2026(p, root, manifest)
    check_facts(p, manifest)
    check_cuda13_wheels(p, root, manifest, args.require_cuda13)
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
        check_copied_pages(p, dest, manifest)
    if not args.no_import:
        for python in args.python or [sys.executable]:
            check_imports(p, root, manifest, python)
        check_rocm_modules_load(p, root, manifest, (args.python or [sys.executable])[0])
    for note in p.notes:
        print(f"note: {note}")
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
