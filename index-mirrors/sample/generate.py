#!/usr/bin/env python3
"""Generates wheelmod's sample PyTorch index (see README.md).

  generate.py build --out DIR [--cc gcc] [--aarch64-cc auto|none|PATH] [--jobs N]
      Builds the whole tree into DIR: whl/ (pages, relative hrefs, wheels,
      .metadata files), packages/ (the PyPI mirror), software/ (the sample
      EasyBuild tree) and MANIFEST.json. Same inputs, same bytes.

  generate.py render-pages --root DIR --dest DIR2 [--style server] [--second-host URL]
      Writes only the pages of an existing tree, in another href style, into
      DIR2 (the HTTP tests serve DIR2's pages and DIR's files).

Python 3.11 standard library only, plus a C compiler.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from samplegen import catalogue, native, pages, wheels

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_DIR = os.path.join(HERE, "src")
MANIFEST = "MANIFEST.json"
MANIFEST_FORMAT = 1


def _machine_of(cc: str) -> str:
    result = subprocess.run([cc, "-dumpmachine"], capture_output=True, text=True, check=True)
    return result.stdout.strip().split("-")[0]


def toolchains(cc: str, aarch64_cc: str) -> dict[str, native.Toolchain]:
    """Which compiler builds the ELF files of each wheel architecture."""
    host = native.Toolchain(cc, _machine_of(cc))
    if host.arch != "x86_64":
        raise SystemExit(f"error: {cc} targets {host.arch}\nhint: pass an x86_64 compiler with --cc")
    if aarch64_cc == "auto":
        aarch64_cc = shutil.which("aarch64-linux-gnu-gcc") or "none"
    if aarch64_cc == "none":
        # No cross compiler: aarch64 wheels carry the x86_64 ELF files
        # (MANIFEST.json: "elf_arch": "x86_64"; README "aarch64 wheels").
        return {"x86_64": host, "aarch64": host}
    cross = native.Toolchain(aarch64_cc, _machine_of(aarch64_cc))
    if cross.arch != "aarch64":
        raise SystemExit(f"error: {aarch64_cc} targets {cross.arch}, not aarch64")
    return {"x86_64": host, "aarch64": cross}


def wheel_path(wheel: catalogue.Wheel, data: bytes) -> str:
    """Where the file lives in the tree (with a literal +)."""
    if wheel.location == "variant":
        return f"whl/{wheel.variant}/{wheel.filename}"
    if wheel.location == "root":
        return f"whl/{wheel.filename}"
    # files.pythonhosted.org layout: packages/<blake2b-256 split 2/2/60>/file
    digest = hashlib.blake2b(data, digest_size=32).hexdigest()
    return f"packages/{digest[:2]}/{digest[2:4]}/{digest[4:]}/{wheel.filename}"


def _write(root: str, relpath: str, data: bytes) -> None:
    path = os.path.join(root, relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


def _metadata_entry(wheel, data, path, dist, elf):
    meta = dist["METADATA"]
    reqs = [line[len("Requires-Dist: ") :] for line in meta.decode().splitlines() if line.startswith("Requires-Dist: ")]
    requires_python = next(
        (line.split(": ", 1)[1] for line in meta.decode().splitlines() if line.startswith("Requires-Python: ")), None
    )
    machines = sorted({native.elf_machine(t_bytes) for t_bytes in elf.values()})
    return {
        "filename": wheel.filename,
        "project": pages.project_name(wheel.project),
        "distribution": wheel.project,
        "version": wheel.full_version,
        "public_version": wheel.version,
        "local": wheel.local,
        "python": wheel.python,
        "abi": wheel.abi,
        "platform": wheel.platform,
        "tags": wheel.tags,
        "location": wheel.location,
        "variant": wheel.variant,
        "accelerator": wheel.build,
        "arch": wheel.arch,
        "elf_arch": machines[0] if len(machines) == 1 else (machines or None),
        "path": path,
        "url_path": "/" + path.replace("+", "%2B"),
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "has_hash_on_index": wheel.hash_on_index,
        "has_metadata_file": wheel.metadata_file,
        "metadata_sha256": hashlib.sha256(meta).hexdigest(),
        "second_host": wheel.second_host,
        "data_requires_python": catalogue.PURE_REQUIRES_PYTHON.get(wheel.project),
        "requires_python": requires_python,
        "requires_dist": reqs,
        "dist_info": wheels.dist_info_name(wheel),
    }


def build(out: str, cc: str, aarch64_cc: str, jobs: int) -> None:
    started = time.monotonic()
    out = os.path.abspath(out)
    staging = out + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    chains = toolchains(cc, aarch64_cc)
    catalogue_wheels = catalogue.wheels()
    with tempfile.TemporaryDirectory(prefix="wheelmod-sample-") as work:
        # Cross-built aarch64 stand-ins are only linked against, not shipped.
        software_roots = {
            "x86_64": os.path.join(staging, "software"),
            "aarch64": os.path.join(work, "aarch64-software"),
        }
        builder = native.Builder(SRC_DIR, jobs)
        members, eb_stubs = native.plan(builder, chains, software_roots, os.path.join(work, "build"), catalogue_wheels)
        builder.run()

        cache: dict[str, bytes] = {}

        def read_target(target):
            if target.path not in cache:
                with open(target.path, "rb") as handle:
                    cache[target.path] = handle.read()
            return cache[target.path]

        entries = []
        for wheel in catalogue_wheels:
            files, dist, elf_targets = wheels.files_for(wheel, members.get(wheel.filename, []), read_target)
            data = wheels.build_zip(wheels.dist_info_name(wheel), files, dist)
            path = wheel_path(wheel, data)
            _write(staging, path, data)
            if wheel.metadata_file:
                _write(staging, path + ".metadata", dist["METADATA"])
            elf_bytes = {name: read_target(t) for name, t in elf_targets.items()}
            entry = _metadata_entry(wheel, data, path, dist, elf_bytes)
            entry["elf_members"] = {
                name: dict(t.expected(), machine=native.elf_machine(elf_bytes[name]))
                for name, t in sorted(elf_targets.items())
            }
            entries.append(entry)

    membership = pages.page_membership(entries)
    for entry in entries:
        entry["pages"] = sorted(p for p, listed in membership.items() if entry in listed)
    rendered = pages.render(entries, "relative")
    for relpath, data in rendered.items():
        _write(staging, relpath, data)

    manifest = {
        "format": MANIFEST_FORMAT,
        "timestamp": catalogue.TIMESTAMP,
        "variants": list(catalogue.VARIANTS),
        "aarch64_elf_arch": chains["aarch64"].arch,
        "wheels": entries,
        "pages": sorted(rendered),
        "software": software_manifest(eb_stubs),
    }
    _write(staging, MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))

    old = out + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(staging, out)
    shutil.rmtree(old, ignore_errors=True)
    print(
        f"sample index: {len(entries)} wheels, {len(rendered)} pages, {len(builder.targets)} ELF files "
        f"in {time.monotonic() - started:.1f} s -> {out}"
    )


def software_manifest(eb_stubs) -> dict:
    """The sample EasyBuild tree: per module, its libraries and symlinks."""
    modules: dict[str, dict] = {}
    for cuda, libraries in native.EB_MODULE_SETS.items():
        for lib in libraries:
            target = eb_stubs[cuda][lib.soname]
            directory = f"software/{lib.module}/{lib.libdir}"
            module = modules.setdefault(lib.module, {"cuda": cuda, "libraries": []})
            module["libraries"].append(
                {
                    "path": f"{directory}/{lib.real_name}",
                    "soname": lib.soname,
                    "symlinks": {f"{directory}/{name}": dest for name, dest in target.symlinks},
                    "needed": target.expected()["needed"],
                    "api_version": lib.api_version,
                }
            )
    return {"root": "software", "modules": dict(sorted(modules.items()))}


def render_pages(root: str, dest: str, style: str, second_host: str | None) -> None:
    with open(os.path.join(root, MANIFEST), encoding="utf-8") as handle:
        manifest = json.load(handle)
    if manifest.get("format") != MANIFEST_FORMAT:
        raise SystemExit(f"error: {root}/{MANIFEST}: unknown format\nhint: rebuild the sample index")
    for relpath, data in pages.render(manifest["wheels"], style, second_host).items():
        _write(dest, relpath, data)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="build the whole sample tree")
    build_cmd.add_argument("--out", required=True)
    build_cmd.add_argument("--cc", default="gcc")
    build_cmd.add_argument("--aarch64-cc", default="auto", help="auto (default), none, or a compiler path")
    build_cmd.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    render_cmd = commands.add_parser("render-pages", help="write the pages of a built tree in another style")
    render_cmd.add_argument("--root", required=True, help="a tree written by 'build'")
    render_cmd.add_argument("--dest", required=True)
    render_cmd.add_argument("--style", choices=("server", "relative"), default="server")
    render_cmd.add_argument("--second-host", help="e.g. http://localhost:8080 (required for --style server)")
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out, args.cc, args.aarch64_cc, args.jobs)
    else:
        if args.style == "server" and not args.second_host:
            parser.error("--style server needs --second-host")
        render_pages(args.root, args.dest, args.style, args.second_host)
    return 0


if __name__ == "__main__":
    sys.exit(main())
