#!/usr/bin/env python3
"""Lay out the swapcheck fixtures as Python install prefixes.

    make_trees.py --build-dir B --out DIR [--patchelf P]
    make_trees.py --check --out DIR --probe LOAD_PROBE

The first copies what CMake built under B into torch prefixes DIR/torch-*/,
dependents DIR/dependents/*/ and fake CUDA/cuDNN modules DIR/software/, and
writes DIR/matrix.json (the swap cases, expected verdicts and load results).
The second proves each case by loading the dependent against the candidate
(load_probe, and `import` in Python). README.md describes the matrix.
"""
import argparse
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys

SITE = "lib/python3.11/site-packages"

# Mangled names the dependents import: `Ss` is std::string under
# _GLIBCXX_USE_CXX11_ABI=0, the __cxx11 name under =1.
STRING_ABI1 = "NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
PARSE_ABI0 = "_ZN5torch3jit17parseSchemaOrNameERKSsb"
PARSE_ABI1 = "_ZN5torch3jit17parseSchemaOrNameERK" + STRING_ABI1 + "b"
CHECK_ABI0 = "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs"
CHECK_ABI1 = "_ZN3c106detail14torchCheckFailEPKcS2_jRK" + STRING_ABI1
ROI_ALIGN_V2 = "_ZN5torch3ops12roi_align_v2ERK" + STRING_ABI1 + "l"

CUDA_MODULES = {  # software/NAME/VERSION/subdir: built stub
    "CUDA/12.6.0/lib64": "cuda/12/libcudart.so.12",
    "CUDA/11.8.0/lib64": "cuda/11/libcudart.so.11.0",
    "cuDNN/9.5.1.17-CUDA-12.6.0/lib": "cuda/cudnn/libcudnn.so.9",
    "cuDNN/9.5.1.17-CUDA-11.8.0/lib": "cuda/cudnn/libcudnn.so.9",
}

# name: (build dir under torch/, version, C++11 string ABI, CUDA, modules for RUNPATH)
TORCHES = {
    "torch-wheel-2.7.1": ("wheel-2.7.1", "2.7.1", False, None, []),
    "torch-wheel-cpu-2.7.1": ("wheel-cpu-2.7.1", "2.7.1+cpu", False, None, []),
    "torch-source-2.7.1": ("source-2.7.1", "2.7.1", True, None, []),
    "torch-source-2.8.0": ("source-2.8.0", "2.8.0", True, None, []),
    "torch-cpu-2.7.1": ("cpu-2.7.1", "2.7.1+cpu", True, None, []),
    "torch-cu126-2.7.1": ("cu126-2.7.1", "2.7.1+cu126", True, "12.6",
                          ["cuDNN/9.5.1.17-CUDA-12.6.0/lib", "CUDA/12.6.0/lib64"]),
    "torch-cu118-2.7.1": ("cu118-2.7.1", "2.7.1+cu118", True, "11.8",
                          ["cuDNN/9.5.1.17-CUDA-11.8.0/lib", "CUDA/11.8.0/lib64"]),
}
TORCH_LIBS = ("libc10.so", "libtorch_cpu.so", "libtorch_cuda.so")

# name: (package, version, Requires-Dist on torch, built extension or None,
#        built on, search path written after copying: (kind, entries))
DEPENDENTS = {
    "torchvision-wheel": ("torchvision", "0.22.1", "torch==2.7.1", "vision-abi0",
                          "torch-wheel-2.7.1", None),
    "torchvision-on-wheel": ("torchvision", "0.22.1", "torch", "vision-abi0",
                             "torch-wheel-2.7.1", None),
    "torchvision-on-source": ("torchvision", "0.22.1", "torch", "vision-abi1",
                              "torch-source-2.7.1", None),
    "torchvision-0.23.0": ("torchvision", "0.23.0", "torch==2.8.0", "vision-2.8.0",
                           "torch-source-2.8.0", None),
    "torchvision-cu126": ("torchvision", "0.22.1+cu126", "torch==2.7.1", "cuda126",
                          "torch-cu126-2.7.1", None),
    # Installed against the CUDA/11.8.0 module, whose lib64 its RUNPATH names.
    "torchaudio-cu118": ("torchaudio", "2.7.1+cu118", "torch==2.7.1", "cuda118",
                         "torch-cu118-2.7.1",
                         ("runpath", ["$ORIGIN/../torch/lib", "@software/CUDA/11.8.0/lib64"])),
    "stable-ext": ("stable_ext", "1.0.0", "torch>=2.7", "stable", "torch-wheel-2.7.1", None),
    "torchmetrics": ("torchmetrics", "1.7.0", "torch>=2.0.0", None, "torch-wheel-2.7.1", None),
    # Built with EasyBuild's RPATH wrappers against torch-source-2.7.1.
    "torchvision-eb-rpath": ("torchvision", "0.22.1", "torch", "vision-abi1", "torch-source-2.7.1",
                             ("rpath", ["$ORIGIN/../torch/lib", "@torchlib:torch-source-2.7.1"])),
}

UNDEFINED = "undefined symbol: "
# (case, title, current, candidate, dependent, verdict, reasons, evidence,
#  loads, load_error, imports, import_error, note)
CASES = [
    (1, "wheel torchvision (pinned torch==2.7.1) onto a rebuilt wheel 2.7.1+cpu, same ABI",
     "torch-wheel-2.7.1", "torch-wheel-cpu-2.7.1", "torchvision-wheel", "compatible", [],
     {"requirement": "torch==2.7.1", "candidate_version": "2.7.1+cpu"}, True, None, True, None,
     "PEP 440: a specifier without a local label ignores the candidate's (+cpu)"),
    (2, "torchvision built on the wheel torch, onto a rebuilt wheel",
     "torch-wheel-2.7.1", "torch-wheel-cpu-2.7.1", "torchvision-on-wheel", "compatible", [],
     {}, True, None, True, None, None),
    (3, "torchvision built on source torch, onto another ABI1 build of 2.7.1",
     "torch-source-2.7.1", "torch-cpu-2.7.1", "torchvision-on-source", "compatible", [],
     {}, True, None, True, None, None),
    (4, "source torch under a wheel torchvision",
     "torch-wheel-2.7.1", "torch-source-2.7.1", "torchvision-wheel", "breaks", ["cxx11_abi"],
     {"missing_symbols": [PARSE_ABI0, CHECK_ABI0]}, False, UNDEFINED + PARSE_ABI0,
     False, UNDEFINED + PARSE_ABI0, "the pin torch==2.7.1 holds: the C++ ABI alone breaks it"),
    (5, "source torch under torchvision built on the wheel torch",
     "torch-wheel-2.7.1", "torch-source-2.7.1", "torchvision-on-wheel", "breaks", ["cxx11_abi"],
     {"missing_symbols": [PARSE_ABI0, CHECK_ABI0]}, False, UNDEFINED + PARSE_ABI0,
     False, UNDEFINED + PARSE_ABI0, None),
    (6, "wheel torch under torchvision built on source torch",
     "torch-source-2.7.1", "torch-wheel-2.7.1", "torchvision-on-source", "breaks", ["cxx11_abi"],
     {"missing_symbols": [PARSE_ABI1, CHECK_ABI1]}, False, UNDEFINED + PARSE_ABI1,
     False, UNDEFINED + PARSE_ABI1, None),
    (7, "torchvision 0.23.0 (torch==2.8.0, uses an op new in 2.8) onto torch 2.7.1",
     "torch-source-2.8.0", "torch-source-2.7.1", "torchvision-0.23.0", "breaks",
     ["version_pin", "missing_symbol"],
     {"requirement": "torch==2.8.0", "candidate_version": "2.7.1",
      "missing_symbols": [ROI_ALIGN_V2]}, False, UNDEFINED + ROI_ALIGN_V2,
     False, UNDEFINED + ROI_ALIGN_V2, None),
    (8, "CUDA torchvision onto a CPU torch",
     "torch-cu126-2.7.1", "torch-cpu-2.7.1", "torchvision-cu126", "breaks", ["missing_library"],
     {"missing_libraries": ["libtorch_cuda.so", "libcudnn.so.9", "libcudart.so.12"]},
     False, "libtorch_cuda.so: cannot open shared object file", False, "libtorch_cuda.so",
     "ld.so stops at the first missing DT_NEEDED, libtorch_cuda.so; libcudnn.so.9 and "
     "libcudart.so.12 are missing too unless the host's ld.so.cache has them"),
    (9, "CUDA 11.8 torchaudio onto a CUDA 12.6 torch",
     "torch-cu118-2.7.1", "torch-cu126-2.7.1", "torchaudio-cu118", "breaks", ["cuda_major"],
     {"dependent_cuda_library": "libcudart.so.11.0", "dependent_cuda": "11",
      "candidate_cuda": "12.6"}, True, None,
     False, "different CUDA major versions",
     "loads: its own RUNPATH finds libcudart.so.11.0 next to torch's libcudart.so.12 "
     "(symbol versions keep them apart); the package's CUDA check refuses at import"),
    (10, "stable-ABI extension (aoti_torch_* only) across wheel -> source",
     "torch-wheel-2.7.1", "torch-source-2.7.1", "stable-ext", "compatible", ["stable_abi_only"],
     {}, True, None, True, None, None),
    (11, "Python-only dependent across wheel -> source",
     "torch-wheel-2.7.1", "torch-source-2.7.1", "torchmetrics", "safe", ["python_only"],
     {}, None, None, True, None, "no ELF file to load: loads is null"),
    (12, "dependent whose DT_RPATH names the current prefix's torch/lib",
     "torch-source-2.7.1", "torch-cpu-2.7.1", "torchvision-eb-rpath", "relink_needed",
     ["absolute_rpath"], {"rpath_entry": "@torchlib:torch-source-2.7.1", "tag": "DT_RPATH"},
     True, None, True, None,
     "loads with the candidate preloaded (DT_NEEDED matches the loaded SONAMEs); loaded "
     "alone it takes libtorch_cpu.so from the current prefix (unpreloaded_torch_from)"),
]


def torch_lib(root, name):
    return os.path.join(root, name, SITE, "torch", "lib")


def expand(root, entry):
    """Fixture path placeholders: @software/..., @torchlib:PREFIX."""
    if entry.startswith("@software/"):
        return os.path.join(root, "software", entry[len("@software/"):])
    if entry.startswith("@torchlib:"):
        return torch_lib(root, entry[len("@torchlib:"):])
    return entry


def copy_library(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)
    os.chmod(target, 0o755)


def set_search_path(patchelf, path, kind, entries):
    command = [patchelf, "--set-rpath", ":".join(entries)]
    if kind == "rpath":
        command.append("--force-rpath")
    subprocess.run(command + [path], check=True)


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def write_dist_info(site, name, version, requires):
    """METADATA (core metadata 2.1) and RECORD (PEP 376) for what is there."""
    info = os.path.join(site, f"{name}-{version}.dist-info")
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
             "Summary: wheelmod swapcheck fixture", "Requires-Python: >=3.9"]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    write_text(os.path.join(info, "METADATA"), "\n".join(lines) + "\n")
    write_text(os.path.join(info, "INSTALLER"), "pip\n")
    rows = []
    for top in sorted(os.listdir(site)):
        for directory, _, files in sorted(os.walk(os.path.join(site, top))):
            for file in sorted(files):
                path = os.path.join(directory, file)
                with open(path, "rb") as stream:
                    data = stream.read()
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                rows.append(f"{os.path.relpath(path, site)},sha256={digest.decode()},{len(data)}")
    rows.append(f"{name}-{version}.dist-info/RECORD,,")
    write_text(os.path.join(info, "RECORD"), "\n".join(rows) + "\n")


TORCH_INIT = '''"""A fake torch (wheelmod swapcheck fixture): loads its libraries with
RTLD_GLOBAL as the real torch does, so extensions bind to them."""
import ctypes
import os

from . import version

__version__ = version.__version__
_LIB = os.path.join(os.path.dirname(__file__), "lib")
for _name in {libs!r}:
    _path = os.path.join(_LIB, _name)
    if os.path.exists(_path):
        ctypes.CDLL(_path, mode=ctypes.RTLD_GLOBAL)


def compiled_with_cxx11_abi():
    return {abi!r}
'''

EXT_INIT = '''"""A fake {package} (wheelmod swapcheck fixture): loads _C.so after torch."""
import ctypes
import os

import torch

__version__ = {version!r}
_C = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "_C.so"))
_C.fake_ext_run()
_cuda = _C.fake_ext_cuda_version()
if _cuda != -1 and torch.version.cuda is not None:
    _major = int(torch.version.cuda.split(".")[0])
    if _major != _cuda // 1000:
        raise RuntimeError(
            "Detected that PyTorch and {package} were compiled with different CUDA major "
            f"versions. PyTorch has CUDA Version={{torch.version.cuda}} and {package} has "
            f"CUDA Version={{_cuda // 1000}}.{{_cuda % 1000 // 10}}.")
'''

PY_INIT = '''"""A fake {package} (wheelmod swapcheck fixture): Python only."""
import torch

__version__ = {version!r}
TORCH_VERSION = torch.__version__
'''


def make_torch(build, root, name, patchelf):
    built, version, abi, cuda, modules = TORCHES[name]
    site = os.path.join(root, name, SITE)
    libs = []
    for lib in TORCH_LIBS:
        source = os.path.join(build, "torch", built, lib)
        if os.path.exists(source):
            copy_library(source, os.path.join(site, "torch", "lib", lib))
            libs.append(lib)
    if modules:
        # What `wheelmod relink` leaves: the CUDA libraries found in modules.
        entries = ["$ORIGIN"] + [os.path.join(root, "software", module) for module in modules]
        set_search_path(patchelf, os.path.join(site, "torch", "lib", "libtorch_cuda.so"),
                        "runpath", entries)
    write_text(os.path.join(site, "torch", "__init__.py"), TORCH_INIT.format(libs=libs, abi=abi))
    write_text(os.path.join(site, "torch", "version.py"),
               f"__version__ = {version!r}\ncuda = {cuda!r}\n")
    write_dist_info(site, "torch", version, [])
    return {"prefix": os.path.join(root, name), "site_packages": site, "version": version,
            "cxx11_abi": abi, "cuda": cuda, "torch_lib": torch_lib(root, name),
            "preload": [os.path.join(torch_lib(root, name), lib) for lib in libs]}


def make_dependent(build, root, name, patchelf):
    package, version, requires, ext, built_on, search = DEPENDENTS[name]
    site = os.path.join(root, "dependents", name, SITE)
    extension = None
    if ext is None:
        write_text(os.path.join(site, package, "__init__.py"),
                   PY_INIT.format(package=package, version=version))
    else:
        extension = os.path.join(site, package, "_C.so")
        copy_library(os.path.join(build, "ext", ext, "_C.so"), extension)
        if search:
            set_search_path(patchelf, extension, search[0], [expand(root, e) for e in search[1]])
        write_text(os.path.join(site, package, "__init__.py"),
                   EXT_INIT.format(package=package, version=version))
    write_dist_info(site, package, version, [requires])
    return {"prefix": os.path.join(root, "dependents", name), "site_packages": site,
            "package": package, "version": version, "requires_torch": requires,
            "extension": extension, "built_on": built_on}


def make_trees(build, out, patchelf):
    root = os.path.realpath(out)
    if os.path.isdir(root) and os.listdir(root):
        if not os.path.exists(os.path.join(root, "matrix.json")):
            sys.exit(f"error: {root}: not empty and holds no matrix.json; not replacing it")
        shutil.rmtree(root)
    os.makedirs(root, exist_ok=True)
    for module, stub in CUDA_MODULES.items():
        copy_library(os.path.join(build, stub),
                     os.path.join(root, "software", module, os.path.basename(stub)))
    torches = {name: make_torch(build, root, name, patchelf) for name in TORCHES}
    dependents = {name: make_dependent(build, root, name, patchelf) for name in DEPENDENTS}
    cases = []
    for (number, title, current, candidate, dependent, verdict, reasons, evidence,
         loads, load_error, imports, import_error, note) in CASES:
        evidence = {key: expand(root, value) if isinstance(value, str) else value
                    for key, value in evidence.items()}
        case = {"case": number, "title": title, "current": current, "candidate": candidate,
                "dependent": dependent, "current_prefix": torches[current]["prefix"],
                "candidate_prefix": torches[candidate]["prefix"],
                "dependent_prefix": dependents[dependent]["prefix"], "verdict": verdict,
                "reasons": reasons, "evidence": evidence, "loads": loads,
                "load_error": load_error, "imports": imports, "import_error": import_error}
        if number == 12:
            case["unpreloaded_torch_from"] = current
        if note:
            case["note"] = note
        cases.append(case)
    matrix = {"root": root, "site": SITE, "eb_installpath": root, "torches": torches,
              "dependents": dependents, "cases": cases}
    write_text(os.path.join(root, "matrix.json"), json.dumps(matrix, indent=1) + "\n")


def probe(probe_path, preload, extension, listing=False):
    command = [probe_path]
    for lib in preload:
        command += ["--preload", lib]
    command += (["--list"] if listing else []) + [extension]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)}: exit {result.returncode}: {result.stdout}")
    return result.returncode == 0, result.stdout


def try_import(torch, dependent):
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                       PYTHONPATH=f"{torch['site_packages']}:{dependent['site_packages']}")
    environment.pop("LD_LIBRARY_PATH", None)
    result = subprocess.run([sys.executable, "-c", f"import {dependent['package']}"],
                            capture_output=True, text=True, env=environment, check=False)
    return result.returncode == 0, result.stderr


def check_case(matrix, case, probe_path):
    """Problems with one case: what loading really does against what it records."""
    problems = []
    current = matrix["torches"][case["current"]]
    candidate = matrix["torches"][case["candidate"]]
    dependent = matrix["dependents"][case["dependent"]]
    extension = dependent["extension"]

    def expect(what, ok, output, wanted, needle):
        if ok != wanted:
            problems.append(f"{what}: {'loads' if ok else 'fails'}, recorded {wanted}: {output}")
        elif not ok and needle and needle not in output:
            problems.append(f"{what}: error lacks {needle!r}: {output}")

    if extension is not None:
        ok, output = probe(probe_path, current["preload"], extension)
        expect("load_probe on current", ok, output, True, None)
        ok, output = probe(probe_path, candidate["preload"], extension)
        expect("load_probe on candidate", ok, output, case["loads"], case["load_error"])
    elif case["loads"] is not None:
        problems.append("no extension, but loads is recorded")
    ok, output = try_import(current, dependent)
    expect("import on current", ok, output, True, None)
    ok, output = try_import(candidate, dependent)
    expect("import on candidate", ok, output, case["imports"], case["import_error"])
    if "unpreloaded_torch_from" in case:
        ok, output = probe(probe_path, [], extension, listing=True)
        wanted = os.path.join(matrix["torches"][case["unpreloaded_torch_from"]]["torch_lib"],
                              "libtorch_cpu.so")
        if not ok or f"LOADED {wanted}\n" not in output:
            problems.append(f"loaded alone, libtorch_cpu.so is not {wanted}: {output}")
    return problems


def check_trees(out, probe_path):
    with open(os.path.join(out, "matrix.json"), encoding="utf-8") as stream:
        matrix = json.load(stream)
    failed = 0
    for case in matrix["cases"]:
        problems = check_case(matrix, case, probe_path)
        status = "ok" if not problems else "FAILED"
        print(f"case {case['case']:2} {case['verdict']:13} loads={case['loads']!s:5} "
              f"imports={case['imports']!s:5} {status}: {case['title']}")
        for problem in problems:
            print(f"    {problem.strip()}")
        failed += bool(problems)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", help="the fixtures/ directory CMake built")
    parser.add_argument("--out", required=True, help="where the prefixes go")
    parser.add_argument("--patchelf", default=shutil.which("patchelf") or "patchelf")
    parser.add_argument("--check", action="store_true", help="prove matrix.json by loading")
    parser.add_argument("--probe", help="load_probe (with --check)")
    arguments = parser.parse_args()
    if arguments.check:
        if not arguments.probe:
            parser.error("--check needs --probe")
        return check_trees(arguments.out, arguments.probe)
    if not arguments.build_dir:
        parser.error("--build-dir is required")
    make_trees(arguments.build_dir, arguments.out, arguments.patchelf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
