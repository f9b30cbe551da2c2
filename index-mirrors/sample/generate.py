#!/usr/bin/env python3
"""Generates wheelmod's sample PyTorch index (see README.md).

  generate.py build --out DIR [--cc gcc] [--aarch64-cc auto|none|PATH] [--jobs N]
                    [--cuda13-tree auto|none|DIR]
      Builds the whole tree into DIR: whl/ (pages, relative hrefs, wheels,
      .metadata files), packages/ (the PyPI mirror), software/ (the sample
      EasyBuild tree) and MANIFEST.json. Same inputs, same bytes. With the
      CUDA 13 tree (default: /usr/local/cuda if it holds the expected
      wheels) the nvidia-* CUDA 13 wheels are rebuilt from it and the CUDA 13
      modules link to its real libraries.

  generate.py render-pages --root DIR --dest DIR2 [--style server] [--second-host URL]
      Writes only the pages of an existing tree, in another href style, into
      DIR2 (the HTTP tests serve DIR2's pages and DIR's files).

Python 3.11 standard library only, plus a C compiler.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from samplegen import catalogue, cuda13, native, pages, wheels

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
    entry = _wheel_entry(wheel, data, path, dist, elf)
    entry["metadata_sha256"] = hashlib.sha256(meta).hexdigest()
    return entry


def _wheel_entry(wheel, data, path, dist, elf):
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
        "second_host": wheel.second_host,
        "data_requires_python": catalogue.data_requires_python(wheel),
        "requires_python": requires_python,
        "requires_dist": reqs,
        "dist_info": wheels.dist_info_name(wheel),
        "targets": list(wheel.targets) if wheel.targets is not None else None,
        "contents": wheel.contents,
    }


def cuda13_tree(option: str):
    """(the scanned tree or None, the MANIFEST cuda13_tree value or None,
    why it is not used)."""
    if option == "none":
        return None, "--cuda13-tree none"
    root = "/usr/local/cuda" if option == "auto" else option
    tree, why = cuda13.scan(root)
    return tree, why


def work_parent() -> str | None:
    """Where the build's intermediate files go: $TMPDIR if set, else /dev/shm
    where it is a writable directory (they are small, and removing them from
    a disk mounted with discard takes seconds), else the default. No path of
    it ends up in any output."""
    if os.environ.get("TMPDIR"):
        return None
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def build(out: str, cc: str, aarch64_cc: str, jobs: int, tree_option: str = "auto") -> None:
    started = time.monotonic()
    out = os.path.abspath(out)
    staging = out + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    chains = toolchains(cc, aarch64_cc)
    tree, tree_why = cuda13_tree(tree_option)
    catalogue_wheels = catalogue.wheels(tree)
    variant_wheels = catalogue.variant_wheels()
    work = tempfile.mkdtemp(prefix="wheelmod-sample-", dir=work_parent())
    # The work directory is removed while the pages and MANIFEST are written
    # (its removal waits on the disk, not the CPU).
    cleanup = concurrent.futures.ThreadPoolExecutor(1)
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as background:
            # What the real CUDA 13 libraries answer, measured while gcc runs.
            answers = background.submit(cuda13.probe, sys.executable, tree) if tree else None
            # Cross-built aarch64 stand-ins are only linked against, not shipped.
            software_roots = {
                "x86_64": os.path.join(staging, "software"),
                "aarch64": os.path.join(work, "aarch64-software"),
            }
            builder = native.Builder(SRC_DIR, jobs)
            members, eb_stubs, modules13, modules_rocm = native.plan(
                builder, chains, software_roots, os.path.join(work, "build"),
                catalogue_wheels + variant_wheels, tree,
            )
            builder.run()
            link_real_modules(staging, modules13)
            rocm_data = write_rocm_module_data(staging)

            cache: dict[str, bytes] = {}

            def read_target(target):
                if target.path not in cache:
                    with open(target.path, "rb") as handle:
                        cache[target.path] = handle.read()
                return cache[target.path]

            def build_wheel(wheel):
                found = members.get(native.key(wheel), [])
                files, dist, elf_targets = wheels.files_for(wheel, found, read_target, tree)
                data = wheels.build_zip(wheels.dist_info_name(wheel), files, dist)
                path = wheel_path(wheel, data)
                _write(staging, path, data)
                if wheel.metadata_file:
                    served = dist["METADATA"]
                    if wheel.metadata_corrupted:
                        # pytorch#197552: a checksum line appended to the object.
                        digest = hashlib.sha256(served).hexdigest()
                        served += f"Checksum-SHA256: {digest}\n".encode("ascii")
                    _write(staging, path + ".metadata", served)
                elf_bytes = {name: read_target(t) for name, t in elf_targets.items()}
                entry = _metadata_entry(wheel, data, path, dist, elf_bytes)
                entry["elf_members"] = {
                    name: dict(t.expected(), machine=native.elf_machine(elf_bytes[name]))
                    for name, t in sorted(elf_targets.items())
                }
                if wheel.metadata_corrupted:
                    entry["metadata_file_corrupted"] = True
                return entry

            # zlib compresses without the GIL: the wheels are written by as many
            # threads as gcc ran in (each wheel's bytes are its own, in any order).
            with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as zippers:
                entries = list(zippers.map(build_wheel, catalogue_wheels))
            variant_entries = []
            for wheel in variant_wheels:
                entry = build_wheel(wheel)
                entry["variant_label"] = wheel.variant_label
                entry["variant_properties"] = catalogue.VARIANT_LABELS[wheel.variant_label][1]
                entry["source_local"] = wheel.source_local
                variant_entries.append(entry)
            index_files = variants_json_files(staging, variant_entries)
            answered = answers.result() if answers else {}
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    removed = cleanup.submit(shutil.rmtree, work, ignore_errors=True)

    listed = entries + variant_entries + index_files
    membership = pages.page_membership(listed)
    for entry in listed:
        entry["pages"] = sorted(p for p, on in membership.items() if any(e is entry for e in on))
    rendered = pages.render(listed, "relative")
    for relpath, data in rendered.items():
        _write(staging, relpath, data)

    manifest = {
        "format": MANIFEST_FORMAT,
        "timestamp": catalogue.TIMESTAMP,
        "variants": list(catalogue.VARIANTS),
        "legacy_directories": list(catalogue.LEGACY_DIRECTORIES),
        "variant_prefix": f"whl/{catalogue.VARIANT_PREFIX}",
        "aarch64_elf_arch": chains["aarch64"].arch,
        "wheels": entries,
        "variant_wheels": variant_entries,
        "index_files": index_files,
        "pages": sorted(rendered),
        "software": software_manifest(eb_stubs, modules13, answered, modules_rocm, rocm_data),
        "cuda13_tree": cuda13_manifest(tree, answered),
        "cuda13_tree_missing": None if tree else tree_why,
        "quirks": quirks(entries, variant_entries, index_files, rendered),
    }
    _write(staging, MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))

    removed.result()
    cleanup.shutdown()
    old = out + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(staging, out)
    shutil.rmtree(old, ignore_errors=True)
    tree_note = f"CUDA 13 tree {tree.root}" if tree else f"no CUDA 13 tree ({tree_why})"
    print(
        f"sample index: {len(entries)} wheels + {len(variant_entries)} variant wheels, "
        f"{len(rendered)} pages, {len(builder.targets)} ELF files ({builder.compiled} gcc runs), "
        f"{tree_note}, "
        f"in {time.monotonic() - started:.1f} s -> {out}"
    )


def link_real_modules(staging, modules13) -> None:
    """The CUDA 13 modules' real libraries: absolute symlinks into the tree
    (SONAME name) and the usual relative lib<x>.so link."""
    for item in modules13:
        if item.target is not None:
            continue
        directory = os.path.join(staging, "software", item.directory)
        os.makedirs(directory, exist_ok=True)
        os.symlink(item.real_path, os.path.join(directory, item.lib.soname))
        os.symlink(item.lib.soname, os.path.join(directory, f"lib{item.lib.stem}.so"))
        for name, target in item.extra:
            os.symlink(target, os.path.join(directory, name))


def write_rocm_module_data(staging) -> dict[str, list[str]]:
    """The ROCm modules' own data directories (facts.ROCM_MODULE_DATA):
    module -> the files written (tree paths)."""
    out = {}
    for module, (_, directory, names) in sorted(catalogue.facts.ROCM_MODULE_DATA.items()):
        origin = f"ROCm 6.4.1, EasyBuild module {module}"
        for name in names:
            relpath = f"software/{module}/{directory}/{name}"
            _write(staging, relpath, wheels.rocm_data_file(f"{directory}/{name}", origin))
            out.setdefault(module, []).append(relpath)
    return out


def variants_json_files(staging, variant_entries) -> list[dict]:
    """{name}-{version}-variants.json beside the variant wheels of each
    directory (PEP 825 "Index-level metadata"), as index entries."""
    out = []
    by_directory: dict[str, list[dict]] = {}
    for entry in variant_entries:
        by_directory.setdefault(entry["variant"], []).append(entry)
    for directory, listed in sorted(by_directory.items()):
        first = listed[0]
        filename = f"{first['distribution']}-{first['version']}-variants.json"
        labels = sorted({e["variant_label"] for e in listed})
        text = json.dumps(catalogue.variants_json(labels), indent=2, sort_keys=True) + "\n"
        data = text.encode("utf-8")
        path = f"whl/{directory}/{filename}"
        _write(staging, path, data)
        out.append(
            {
                "filename": filename,
                "project": first["project"],
                "location": "variant",
                "variant": directory,
                "path": path,
                "url_path": "/" + path,
                "sha256": hashlib.sha256(data).hexdigest(),
                "size": len(data),
                "has_hash_on_index": True,
                "has_metadata_file": False,
                "metadata_sha256": None,
                "second_host": first["second_host"],
                "data_requires_python": None,
                "labels": labels,
            }
        )
    return out


def cuda13_manifest(tree, answered) -> dict | None:
    if tree is None:
        return None
    return {
        "path": tree.root,
        "wheels": {
            project: {
                "version": entry.version,
                "platform": entry.platform,
                "contents": "whole" if entry.whole else "subset",
            }
            for project, entry in sorted(tree.wheels.items())
        },
        # cudaRuntimeGetVersion, cudnnGetVersion, ncclGetVersion, ... of the
        # real libraries, as loaded here (empty if they could not be).
        "api_versions": answered,
    }


def quirks(entries, variant_entries, index_files, rendered) -> dict:
    """Quirk name -> the files (tree paths) and pages concerned (README
    "Index quirks reproduced")."""
    every = entries + variant_entries + index_files

    def paths(condition, among=entries):
        return sorted(e["path"] for e in among if condition(e))

    modern = set(catalogue.MODERN_RELEASES)
    copies = []
    for page in rendered:
        parts = page.split("/")
        if len(parts) == 4 and parts[1] in catalogue.VARIANTS:
            root_page = f"whl/{parts[2]}/index.html"
            if any(page in e["pages"] and e["location"] == "mirror" for e in entries):
                copies.append(page)
                assert root_page in rendered
    return {
        "second_host": paths(lambda e: e["second_host"], every),
        "copied_root_pages": sorted(copies),
        "root_level_files": paths(lambda e: e["location"] == "root"),
        "missing_hash": paths(lambda e: not e["has_hash_on_index"], every),
        "corrupted_metadata": sorted(
            e["path"] + ".metadata" for e in entries if e.get("metadata_file_corrupted")
        ),
        "unlabelled_aarch64": paths(
            lambda e: e["project"] in ("torchvision", "torchaudio")
            and _release(e) in modern
            and e["arch"] == "aarch64"
            and e["local"] is None
            and e["accelerator"] not in (None, "cpu")
        ),
        "compound_tag": paths(lambda e: "." in e["platform"] and _release(e) in modern),
        "abi3": paths(lambda e: e["abi"] == "abi3"),
        "no_aarch64": paths(
            lambda e: e["project"] == "torch"
            and e["arch"] == "x86_64"
            and e["public_version"] in modern
            and not any(
                o["project"] == "torch" and o["arch"] == "aarch64" and o["variant"] == e["variant"]
                and o["public_version"] == e["public_version"]
                for o in entries
            )
            and e["accelerator"] in catalogue.ACCELERATORS
            and catalogue.ACCELERATORS[e["accelerator"]].kind == "cuda"
        ),
        "variant_wheels": sorted(e["path"] for e in variant_entries + index_files),
        "mixed_variant_page": sorted(
            {
                page
                for e in variant_entries
                if e["variant"] != catalogue.VARIANT_PREFIX
                for page in e["pages"]
            }
        ),
        "legacy_directories": sorted(
            [p for p in rendered if p.split("/")[1] in catalogue.LEGACY_DIRECTORIES]
            + paths(lambda e: e["variant"] in catalogue.LEGACY_DIRECTORIES)
        ),
        "root_lists_variants": ["whl/index.html"],
    }


def _release(entry):
    try:
        wheel_release = catalogue.release_of(entry["public_version"])
    except StopIteration:
        return None
    return wheel_release.version


def software_manifest(eb_stubs, modules13=(), answered=None, modules_rocm=(), rocm_data=None) -> dict:
    """The sample EasyBuild tree: per module, its libraries and symlinks (the
    ROCm modules also their RPATH, link names and data files)."""
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
    answered = answered or {}
    real_answer = {
        "libcudart.so.13": "cudart", "libcudnn.so.9": "cudnn", "libnccl.so.2": "nccl",
        "libcublas.so.13": "cublas", "libcufft.so.12": "cufft", "libcurand.so.10": "curand",
        "libcusolver.so.12": "cusolver",
    }
    for item in modules13:
        lib = item.lib
        directory = f"software/{item.directory}"
        module = modules.setdefault(lib.module, {"cuda": native.CUDA13_EB, "libraries": []})
        if item.target is None:
            record = {
                "path": f"{directory}/{lib.soname}",
                "soname": lib.soname,
                "real": True,
                "target": item.real_path,
                "symlinks": {f"{directory}/lib{lib.stem}.so": lib.soname},
                "needed": cuda13.TreeFile(item.real_path).expected()["needed"],
                "api_version": answered.get(real_answer.get(lib.soname)),
                "also": {f"{directory}/{name}": target for name, target in item.extra},
            }
        else:
            record = {
                "path": f"{directory}/{lib.real_name}",
                "soname": lib.soname,
                "real": False,
                "symlinks": {f"{directory}/{name}": dest for name, dest in item.target.symlinks},
                "needed": item.target.expected()["needed"],
                "api_version": lib.api_version,
            }
        module["libraries"].append(record)
    generation, rocm = catalogue.facts.ROCM_MODULES_GENERATION
    for item in modules_rocm:
        lib = item.lib
        module = modules.setdefault(
            lib.module,
            {"cuda": None, "rocm": rocm, "generation": generation, "libraries": [],
             "data": (rocm_data or {}).get(lib.module, [])},
        )
        expected = item.target.expected()
        module["libraries"].append(
            {
                "path": f"{item.directory}/{lib.file}",
                "soname": lib.soname,
                "link_name": lib.link,
                "symlinks": {f"{item.directory}/{name}": dest for name, dest in item.target.symlinks},
                "needed": expected["needed"],
                "rpath": expected["rpath"],
                "runpath": expected["runpath"],
                "api_version": native.ROCM_MODULE_VERSIONS.get(lib.link, 0),
            }
        )
    return {"root": "software", "modules": dict(sorted(modules.items()))}


def render_pages(root: str, dest: str, style: str, second_host: str | None) -> None:
    with open(os.path.join(root, MANIFEST), encoding="utf-8") as handle:
        manifest = json.load(handle)
    if manifest.get("format") != MANIFEST_FORMAT:
        raise SystemExit(f"error: {root}/{MANIFEST}: unknown format\nhint: rebuild the sample index")
    listed = manifest["wheels"] + manifest.get("variant_wheels", [])
    listed += manifest.get("index_files", [])
    for relpath, data in pages.render(listed, style, second_host).items():
        _write(dest, relpath, data)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="build the whole sample tree")
    build_cmd.add_argument("--out", required=True)
    build_cmd.add_argument("--cc", default="gcc")
    build_cmd.add_argument("--aarch64-cc", default="auto", help="auto (default), none, or a compiler path")
    build_cmd.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    build_cmd.add_argument(
        "--cuda13-tree",
        default="auto",
        help="the installed CUDA 13 wheels to take real libraries from: auto (/usr/local/cuda "
        "if it has them, the default), none, or a directory",
    )
    render_cmd = commands.add_parser("render-pages", help="write the pages of a built tree in another style")
    render_cmd.add_argument("--root", required=True, help="a tree written by 'build'")
    render_cmd.add_argument("--dest", required=True)
    render_cmd.add_argument("--style", choices=("server", "relative"), default="server")
    render_cmd.add_argument("--second-host", help="e.g. http://localhost:8080 (required for --style server)")
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out, args.cc, args.aarch64_cc, args.jobs, args.cuda13_tree)
    else:
        if args.style == "server" and not args.second_host:
            parser.error("--style server needs --second-host")
        render_pages(args.root, args.dest, args.style, args.second_host)
    return 0


if __name__ == "__main__":
    sys.exit(main())
