#!/usr/bin/env python3
"""Build dependents of Debian's real PyTorch and prove each by importing it.

    make_real_cases.py --out DIR [--python /usr/bin/python3] [--force]

Lays out one install prefix per case, DIR/<case>/lib/pythonX.Y/site-packages/,
against the torch of python3-torch (/usr/lib/python3/dist-packages/torch):
two C++ extensions compiled here from torch_ext.cpp (string ABI 1 and 0),
a copy of python3-torchvision, and three Python-only packages with torch
requirements. Each case is imported with the system interpreter
(PYTHONPATH=<its site-packages>, `import torch` first), its torch
requirements are evaluated as pip would (packaging, markers, installed
prereleases admitted), and DIR/cases.json records the case, the verdict
`wheelmod swapcheck --current /usr --candidate /usr` must give, and what the
import did. Exit 1 when any case does not behave as recorded; a DIR whose
cases.json has the same source hash is reused (--force rebuilds).
"""
import argparse
import base64
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXT_SOURCE = os.path.join(HERE, "torch_ext.cpp")
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
TORCH_PACKAGE = os.path.join(DIST_PACKAGES, "torch")
TORCHVISION = "torchvision"
# Debian's headers: ATen, c10 and torch/ in /usr/include, the C++ frontend
# (torch/torch.h, torch::ones) under torch/csrc/api/include; pybind11 from
# pybind11-dev in /usr/include; libraries in the multiarch directory.
TORCH_INCLUDES = ["/usr/include/torch/csrc/api/include"]
TORCH_LIBRARIES = ["-ltorch", "-ltorch_cpu", "-lc10", "-ltorch_python"]
PYBIND11_HEADER = "/usr/include/pybind11/pybind11.h"
ABI0_PARSE = "_ZN5torch3jit17parseSchemaOrNameERKSs"

EXT_INIT = '''"""{package} (wheelmod swapcheck real-torch case): a libtorch C++ extension."""
import torch

from . import _C

__version__ = "1.0.0"
if not torch.equal(_C.ones_plus(3, 1.0), torch.full((3,), 2.0)):
    raise RuntimeError("{package}: torch::ones(3) + 1 is not [2, 2, 2]")
if _C.schema_name("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor") \\
        != "aten::add":
    raise RuntimeError("{package}: torch::jit::parseSchemaOrName gave the wrong name")
'''

PY_INIT = '''"""{package} (wheelmod swapcheck real-torch case): Python only."""
import torch

__version__ = "1.0.0"
TORCH_VERSION = torch.__version__
'''

# requires.txt as setuptools writes it: a section per extra or marker. Only the
# unconditional torch==2.6.0 applies on CPython 3.
EGG_REQUIRES = '''torch==2.6.0
numpy>=1.17

[cuda]
torch==2.5.1

[:python_version < "3"]
torch==1.0.0
'''

# name: what it is, how it is made, and what must come out. `verdict` is for
# `swapcheck --current /usr --candidate /usr`; `reasons` are what the report
# must contain (kind, and text its symbols or detail must hold); `unmet` the
# torch requirements pip would find unmet; `imports` whether the import works,
# `import_error` text its error must hold.
CASES = {
    "ext_cxx11": {
        "title": "C++ extension built on Debian's torch, default _GLIBCXX_USE_CXX11_ABI=1",
        "kind": "extension", "abi": 1, "project": "ext-cxx11", "metadata": "dist-info",
        "requires": ["torch"], "verdict": "compatible", "reasons": [], "unmet": [],
        "imports": True, "import_error": None},
    "ext_abi0": {
        "title": "the same extension built with -D_GLIBCXX_USE_CXX11_ABI=0",
        "kind": "extension", "abi": 0, "project": "ext-abi0", "metadata": "dist-info",
        "requires": ["torch"], "verdict": "broken now",
        "reasons": [{"kind": "undefined symbol",
                     "symbols_contain": "torch::jit::parseSchemaOrName"}],
        "unmet": [], "imports": False, "import_error": "undefined symbol: " + ABI0_PARSE},
    "torchvision_debian": {
        "title": "python3-torchvision's package and egg-info, copied into a prefix",
        "kind": "copy", "project": "torchvision", "metadata": "egg-info", "requires": [],
        "verdict": "compatible", "reasons": [], "unmet": [], "imports": True,
        "import_error": None},
    "pure_python": {
        "title": "Python only, Requires-Dist: torch>=1.0",
        "kind": "python", "project": "pure-python", "metadata": "dist-info",
        "requires": ["torch>=1.0"], "verdict": "safe", "reasons": [], "unmet": [],
        "imports": True, "import_error": None},
    "pin_distinfo": {
        "title": "Python only, dist-info Requires-Dist: torch==2.6.0",
        "kind": "python", "project": "pin-distinfo", "metadata": "dist-info",
        "requires": ["torch==2.6.0"], "verdict": "breaks",
        "reasons": [{"kind": "pin", "detail_contains": "torch==2.6.0"}],
        "unmet": ["torch==2.6.0"], "imports": True, "import_error": None},
    "pin_egginfo": {
        "title": "Python only, egg-info requires.txt torch==2.6.0 (+ an extra and a "
                 "python_version<3 section pinning others)",
        "kind": "python", "project": "pin-egginfo", "metadata": "egg-info",
        "requires": None, "verdict": "breaks",
        "reasons": [{"kind": "pin", "detail_contains": "torch==2.6.0",
                     "no_reason_contains": ["torch==2.5.1", "torch==1.0.0"]}],
        "unmet": ["torch==2.6.0"], "imports": True, "import_error": None},
}

# Run by the interpreter under test, PYTHONPATH=<case site-packages>: import
# torch, then the package (whose __init__ calls into its extension), then
# evaluate the torch requirements of the distributions in that directory.
PROOF = r'''
import importlib
import importlib.metadata as metadata
import json
import os
import sys
import traceback

site, package, check = sys.argv[1], sys.argv[2], sys.argv[3]
out = {"imports": False, "import_error": None}
try:
    import torch
    out["torch_version"] = torch.__version__
    out["torch_metadata_version"] = metadata.version("torch")
    out["torch_cxx11_abi"] = bool(torch.compiled_with_cxx11_abi())
    module = importlib.import_module(package)
    out["module_file"] = module.__file__
    if not os.path.realpath(module.__file__).startswith(os.path.realpath(site) + os.sep):
        raise RuntimeError(f"{package} came from {module.__file__}, not from {site}")
    exec(check, {"torch": torch, package: module})
    out["imports"] = True
except Exception as error:
    lines = traceback.format_exception_only(type(error), error)
    out["import_error"] = "".join(lines).strip()
try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    installed = metadata.version("torch")
    out["requirements"], out["unmet"], out["projects"] = [], [], []
    for dist in metadata.distributions(path=[site]):
        out["projects"].append(dist.metadata["Name"] + " " + dist.version)
        for text in dist.requires or []:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) != "torch":
                continue
            if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
                continue
            shown = str(requirement).split(";")[0].strip()
            out["requirements"].append(shown)
            if not requirement.specifier.contains(installed, prereleases=True):
                out["unmet"].append(shown)
except Exception as error:
    out["requirements_error"] = f"{type(error).__name__}: {error}"
print(json.dumps(out))
'''

# Extra calls made after the import, per case (the extensions test themselves
# in __init__): torchvision's nms is an operator its _C.so registers.
CHECKS = {
    "torchvision_debian": "b = torch.tensor([[0., 0., 1., 1.], [0., 0., 1., 1.]])\n"
                          "k = torch.ops.torchvision.nms(b, torch.tensor([1., .5]), .5)\n"
                          "assert k.tolist() == [0], k",
}


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def record_row(site, path):
    with open(path, "rb") as stream:
        data = stream.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{os.path.relpath(path, site)},sha256={digest},{len(data)}"


def write_dist_info(site, package, project, requires):
    """METADATA (core metadata 2.1), INSTALLER and RECORD (PEP 376)."""
    info = os.path.join(site, f"{package}-1.0.0.dist-info")
    lines = ["Metadata-Version: 2.1", f"Name: {project}", "Version: 1.0.0",
             "Summary: wheelmod swapcheck real-torch case"]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    write_text(os.path.join(info, "METADATA"), "\n".join(lines) + "\n")
    write_text(os.path.join(info, "INSTALLER"), "pip\n")
    rows = []
    for directory, _, files in sorted(os.walk(os.path.join(site, package))):
        rows += [record_row(site, os.path.join(directory, file)) for file in sorted(files)]
    rows += [f"{package}-1.0.0.dist-info/{name}," for name in ("METADATA", "INSTALLER")]
    rows.append(f"{package}-1.0.0.dist-info/RECORD,,")
    write_text(os.path.join(info, "RECORD"), "\n".join(rows) + "\n")


def write_egg_info(site, package, project, python_version):
    """A setuptools egg-info directory, as `setup.py install` leaves it."""
    info = os.path.join(site, f"{package}-1.0.0-py{python_version}.egg-info")
    write_text(os.path.join(info, "PKG-INFO"),
               f"Metadata-Version: 2.1\nName: {project}\nVersion: 1.0.0\n"
               "Summary: wheelmod swapcheck real-torch case\n")
    write_text(os.path.join(info, "requires.txt"), EGG_REQUIRES)
    write_text(os.path.join(info, "top_level.txt"), package + "\n")
    write_text(os.path.join(info, "dependency_links.txt"), "\n")
    write_text(os.path.join(info, "SOURCES.txt"),
               f"setup.py\n{package}/__init__.py\n" + "".join(
                   f"{package}-1.0.0-py{python_version}.egg-info/{name}\n"
                   for name in ("PKG-INFO", "SOURCES.txt", "dependency_links.txt",
                                "requires.txt", "top_level.txt")))


def interpreter_facts(python):
    """Version, include directory and extension suffix of the interpreter under test."""
    script = ("import json, sys, sysconfig; print(json.dumps({'version': "
              "'%d.%d' % sys.version_info[:2], 'include': sysconfig.get_paths()['include'], "
              "'ext_suffix': sysconfig.get_config_var('EXT_SUFFIX')}))")
    result = subprocess.run([python, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def source_hash(python, facts):
    """What the cases depend on: these sources, the interpreter, the installed torch."""
    digest = hashlib.sha256()
    for path in (os.path.abspath(__file__), EXT_SOURCE):
        with open(path, "rb") as stream:
            digest.update(stream.read())
    digest.update(json.dumps([python, facts]).encode())
    for path in (os.path.join(TORCH_PACKAGE, "version.py"),
                 os.path.join(TORCH_PACKAGE, "lib", "libtorch_cpu.so"),
                 os.path.join(DIST_PACKAGES, TORCHVISION, "version.py"), PYBIND11_HEADER):
        try:
            status = os.stat(path)
            digest.update(f"{os.path.realpath(path)} {status.st_size} {status.st_mtime_ns}"
                          .encode())
        except OSError:
            digest.update(f"{path} missing".encode())
    return digest.hexdigest()


def compile_command(abi, include, output):
    return (["g++", "-std=c++17", "-O0", "-shared", "-fPIC", "-w",
             f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-DWHEELMOD_EXT_NAME=_C"]
            + [f"-I{directory}" for directory in TORCH_INCLUDES + [include]]
            + [EXT_SOURCE, "-o", output] + TORCH_LIBRARIES)


def compile_extension(abi, include, output):
    """Compile torch_ext.cpp for one ABI; returns (command, seconds)."""
    os.makedirs(os.path.dirname(output), exist_ok=True)
    command = compile_command(abi, include, output)
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = round(time.monotonic() - start, 1)
    if result.returncode != 0:
        raise RuntimeError(f"compiling {output} failed (exit {result.returncode}):\n"
                           f"{' '.join(command)}\n{result.stderr[-4000:]}")
    return command, seconds


def debian_egg_info(package):
    """python3-<package>'s egg-info (or dist-info) directory in dist-packages."""
    for name in sorted(os.listdir(DIST_PACKAGES)):
        if name.startswith(package + "-") and name.endswith((".egg-info", ".dist-info")):
            return name
    raise RuntimeError(f"{DIST_PACKAGES}: no {package}-*.egg-info or .dist-info")


def make_case(root, name, case, facts, built):
    """Lay out one case's prefix; returns its cases.json entry without the proof."""
    prefix = os.path.join(root, name)
    site = os.path.join(prefix, "lib", f"python{facts['version']}", "site-packages")
    package = name
    entry = {"name": name, "title": case["title"], "prefix": prefix, "site_packages": site,
             "package": package, "project": case["project"],
             "expected_verdict": case["verdict"], "expected_reasons": case["reasons"],
             "expected_unmet": case["unmet"], "expected_imports": case["imports"],
             "expected_import_error": case["import_error"]}
    if case["kind"] == "extension":
        command, seconds, output = built[case["abi"]]
        target = os.path.join(site, package, "_C" + facts["ext_suffix"])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(output, target)
        os.chmod(target, 0o755)
        write_text(os.path.join(site, package, "__init__.py"), EXT_INIT.format(package=package))
        entry["compile"] = {"abi": case["abi"], "seconds": seconds, "command": command}
    elif case["kind"] == "copy":
        package = entry["package"] = TORCHVISION
        shutil.copytree(os.path.join(DIST_PACKAGES, TORCHVISION), os.path.join(site, package),
                        symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        info = debian_egg_info(TORCHVISION)
        shutil.copytree(os.path.join(DIST_PACKAGES, info), os.path.join(site, info),
                        symlinks=True)
    else:
        write_text(os.path.join(site, package, "__init__.py"), PY_INIT.format(package=package))
    if case["kind"] != "copy":
        if case["metadata"] == "dist-info":
            write_dist_info(site, package, case["project"], case["requires"])
        else:
            write_egg_info(site, package, case["project"], facts["version"])
    return entry


def prove(python, entry):
    """Import the case with the interpreter under test; fills in what happened."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONHOME")}
    environment.update(PYTHONPATH=entry["site_packages"], PYTHONDONTWRITEBYTECODE="1",
                       PYTHONNOUSERSITE="1")
    command = [python, "-c", PROOF, entry["site_packages"], entry["package"],
               CHECKS.get(entry["name"], "")]
    result = subprocess.run(command, capture_output=True, text=True, env=environment,
                            cwd="/", check=False)
    try:
        proof = json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        proof = {"imports": False, "proof_error": f"exit {result.returncode}: "
                 f"{result.stdout[-1000:]}{result.stderr[-2000:]}"}
    problems = []
    if proof.get("proof_error"):
        problems.append(proof["proof_error"])
    if proof.get("requirements_error"):
        problems.append("evaluating requirements (needs python3-packaging): "
                        + proof["requirements_error"])
    if proof["imports"] != entry["expected_imports"]:
        problems.append(f"import {'works' if proof['imports'] else 'fails'}, expected "
                        f"{'to work' if entry['expected_imports'] else 'to fail'}: "
                        f"{proof.get('import_error')}")
    elif entry["expected_import_error"] and \
            entry["expected_import_error"] not in (proof.get("import_error") or ""):
        problems.append(f"import error lacks {entry['expected_import_error']!r}: "
                        f"{proof.get('import_error')}")
    if "unmet" in proof and sorted(proof["unmet"]) != sorted(entry["expected_unmet"]):
        problems.append(f"unmet torch requirements {proof['unmet']}, "
                        f"expected {entry['expected_unmet']}")
    entry.update(imports=proof["imports"], import_error=proof.get("import_error"),
                 module_file=proof.get("module_file"),
                 torch_requirements=proof.get("requirements"), unmet=proof.get("unmet"),
                 projects=proof.get("projects"), proof_problems=problems,
                 proven=not problems)
    return proof


def build(out, python, facts, digest):
    root = os.path.realpath(out)
    if os.path.isdir(root) and os.listdir(root):
        if not os.path.exists(os.path.join(root, "cases.json")):
            sys.exit(f"error: {root}: not empty and holds no cases.json; not replacing it\n"
                     "hint: give an empty or new directory to --out")
        shutil.rmtree(root)
    os.makedirs(root)
    abis = sorted({case["abi"] for case in CASES.values() if case["kind"] == "extension"})
    built = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(abis)) as pool:
        jobs = {abi: pool.submit(compile_extension, abi, facts["include"],
                                 os.path.join(root, "build", f"abi{abi}", "_C.so"))
                for abi in abis}
        for abi, job in jobs.items():
            command, seconds = job.result()
            built[abi] = (command, seconds, os.path.join(root, "build", f"abi{abi}", "_C.so"))
            print(f"compiled torch_ext.cpp with _GLIBCXX_USE_CXX11_ABI={abi} in {seconds} s")
    entries = [make_case(root, name, case, facts, built) for name, case in CASES.items()]
    torch = {}
    for entry in entries:
        proof = prove(python, entry)
        torch = torch or {key: proof[key] for key in
                          ("torch_version", "torch_metadata_version", "torch_cxx11_abi")
                          if key in proof}
    cases = {"source_hash": digest, "python": python, "python_version": facts["version"],
             "ext_suffix": facts["ext_suffix"], "torch_package": TORCH_PACKAGE,
             "torch_prefix": "/usr", "torch": torch,
             "compile_flags": compile_command("ABI", facts["include"], "OUT"),
             "cases": entries}
    write_text(os.path.join(root, "cases.json"), json.dumps(cases, indent=1) + "\n")
    return cases


def report(cases):
    failed = 0
    for entry in cases["cases"]:
        status = "proven" if entry["proven"] else "NOT PROVEN"
        what = "imports" if entry["imports"] else f"import fails: {entry['import_error']}"
        print(f"{entry['name']:19} {entry['expected_verdict']:11} {status}: {what}")
        for problem in entry["proof_problems"]:
            print(f"    {problem}")
        failed += not entry["proven"]
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where the case prefixes go")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the interpreter that proves the cases (Debian's python3)")
    parser.add_argument("--force", action="store_true", help="rebuild even if cached")
    arguments = parser.parse_args()
    missing = [path for path in (os.path.join(TORCH_PACKAGE, "__init__.py"), PYBIND11_HEADER,
                                 os.path.join(DIST_PACKAGES, TORCHVISION, "__init__.py"))
               if not os.path.exists(path)]
    if missing:
        print("error: the real-torch cases need Debian's python3-torch, libtorch-dev, "
              "python3-torchvision and pybind11-dev; missing: " + ", ".join(missing))
        return 1
    try:
        facts = interpreter_facts(arguments.python)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"error: {arguments.python}: cannot read its version and include directory: "
              f"{error}")
        return 1
    digest = source_hash(arguments.python, facts)
    cached = os.path.join(arguments.out, "cases.json")
    if not arguments.force and os.path.exists(cached):
        with open(cached, encoding="utf-8") as stream:
            cases = json.load(stream)
        if cases.get("source_hash") == digest:
            print(f"{cached}: up to date, reused")
            return report(cases)
    try:
        cases = build(arguments.out, arguments.python, facts, digest)
    except (RuntimeError, OSError) as error:
        print(f"error: {error}")
        return 1
    print(f"wrote {os.path.join(os.path.realpath(arguments.out), 'cases.json')}")
    return report(cases)


if __name__ == "__main__":
    sys.exit(main())
