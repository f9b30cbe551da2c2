#!/usr/bin/env python3
"""wheelmod install, swapcheck and swap between a wheel and Debian's real PyTorch.

    test_real_swap.py --wheelmod BIN --lmod LMOD --work DIR [--python /usr/bin/python3]

1. Packs Debian's python3-torch as a real wheel, torch-<v>-cpXY-cpXY-linux_x86_64.whl:
   torch/ copied from dist-packages, torch/lib holding the real libraries (each
   under its SONAME, RUNPATH $ORIGIN; torch/_C*.so RUNPATH $ORIGIN/lib), a
   dist-info with METADATA, WHEEL and a RECORD of sha256 digests (PEP 427).
   Cached in DIR/wheel, keyed by the installed torch's version and libraries.
2. `BIN install --wheel` it into DIR/wheel-torch; proven by importing torch
   from there and reading /proc/self/maps.
3. Builds dependents: dep-abs (torch_ext.cpp linked against the wheel-made
   torch/lib with an absolute RUNPATH, as EasyBuild's RPATH wrappers do) and
   ext_cxx11 (make_real_cases.py's, against Debian's torch); each imported.
4. `BIN swapcheck` wheel-made -> /usr on dep-abs (relink needed; --fix:
   compatible, its RUNPATH an existing directory of Debian's torch), /usr ->
   wheel-made on ext_cxx11 (compatible) and on a copy with RUNPATH
   /usr/lib/x86_64-linux-gnu (relink needed; --fix: an existing directory),
   each verdict proven by importing the dependent against the candidate (also
   dlopen'ed before torch) and reading which libtorch_cpu is mapped.
5. `BIN swap` through real Lmod: module files for both builds, the
   dependents' modules naming the canonical PyTorch/1.13.0; each dependent
   is loaded with Lmod before and after `swap --to` and `--rollback`.
Prints a table case | expected | actual | proven by, and the time of each
step. Exit 0 only when every step holds; 1 otherwise, and when python3-torch,
patchelf or Lmod is missing (the test says what is missing and never passes).
"""
import argparse
import base64
import concurrent.futures
import csv
import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "cli"))
import make_real_cases as cases  # noqa: E402  (compile flags, dist-info, ext_cxx11)
from scenario_support import lmod_apply  # noqa: E402
from test_real_torch import print_table  # noqa: E402  (the same table)

TORCH_PACKAGE = cases.TORCH_PACKAGE
MULTIARCH = "/usr/lib/x86_64-linux-gnu"
TOOLCHAIN = "foss-2023a"  # Python 3.11, as Debian 12's
CANONICAL = "PyTorch/1.13.0"
WHEEL_BUILD = "PyTorch/1.13.0-foss-2023a-whl"
DEBIAN_BUILD = "PyTorch/1.13.0-debian"
# torch/ members the wheel leaves out: symlinks into /usr/include and
# libtorch-test, the C++ test programs, byte code.
SKIPPED = {"include", "test", "__pycache__"}
KEPT_PROGRAMS = {"torch_shm_manager"}  # bin/: libshm starts it; the rest are C++ tests
TORCH_LIBRARY = re.compile(r"^lib(torch|c10|caffe2|shm)")
WHEEL_FORMAT = 1  # bump when the wheel's layout changes: the cache key holds it

# Run by the interpreter under test: optionally dlopen FILES first (as a C++
# program or an earlier import would load an extension), import torch, then
# the package, and list every torch library mapped.
PROBE = r'''
import ctypes
import importlib
import json
import os
import sys

out = {"ok": False}
try:
    for path in sys.argv[2:]:
        ctypes.CDLL(path)
    import torch
    out["torch_file"] = torch.__file__
    out["torch_version"] = torch.__version__
    out["sum"] = float(torch.ones(2).sum())
    if sys.argv[1]:
        module = importlib.import_module(sys.argv[1])
        out["module_file"] = module.__file__
    out["ok"] = True
except Exception as error:
    out["error"] = f"{type(error).__name__}: {error}"
mapped = set()
with open("/proc/self/maps", encoding="utf-8") as maps:
    for line in maps:
        path = line.split(None, 5)[5].strip() if len(line.split(None, 5)) == 6 else ""
        if os.path.basename(path).startswith(("libtorch", "libc10", "libshm")):
            mapped.add(path)
out["mapped"] = sorted(mapped)
print(json.dumps(out))
'''


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, expect=(0,), env=None, timeout=600):
    """Runs a command, echoing it; fails unless it exits with one of `expect`."""
    shown = " ".join(command)
    print("$ " + (shown if len(shown) < 400 else shown[:400] + " …"), flush=True)
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout,
                            check=False)
    if time.monotonic() - start >= 1:
        print(f"  ({time.monotonic() - start:.1f} s)")
    if result.returncode not in expect:
        raise Failure(f"{shown}\n  exited {result.returncode}, expected {expect}\n"
                      f"  stdout: {result.stdout[-3000:]}\n  stderr: {result.stderr[-3000:]}")
    return result


def needed_and_runpath(path):
    """DT_NEEDED names and RUNPATH (or RPATH) of an ELF file, from `readelf -d`."""
    text = run(["readelf", "-dW", path]).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", text)
    paths = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^]]*)\]", text)
    soname = re.findall(r"\(SONAME\)\s+Library soname: \[([^]]+)\]", text)
    return needed, (paths[0] if paths else None), (soname[0] if soname else None)


def is_elf(path):
    with open(path, "rb") as stream:
        return stream.read(4) == b"\x7fELF"


def clean_environment(pythonpath=None):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONHOME", "PYTHONPATH")}
    environment.update(PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1")
    if pythonpath:
        environment["PYTHONPATH"] = os.pathsep.join(pythonpath)
    return environment


def probe(python, environment, package="", preload=()):
    """Runs PROBE; returns its JSON answer."""
    result = subprocess.run([python, "-c", PROBE, package, *preload], capture_output=True,
                            text=True, env=environment, cwd="/", timeout=300, check=False)
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"ok": False, "mapped": [],
                "error": f"exit {result.returncode}: {result.stdout[-500:]}{result.stderr[-1500:]}"}


def cpu_libraries(answer):
    return [path for path in answer.get("mapped", [])
            if os.path.basename(path).startswith("libtorch_cpu")]


# --- step 1: the wheel ---------------------------------------------------------------------

def torch_version():
    """Debian's torch/version.py __version__ (1.13.0a0), and its egg-info's version."""
    with open(os.path.join(TORCH_PACKAGE, "version.py"), encoding="utf-8") as stream:
        version = re.search(r"__version__ = '([^']+)'", stream.read()).group(1)
    egg = cases.debian_egg_info("torch")
    return version, egg.split("-")[1].removesuffix(".egg")


def torch_libraries():
    """The torch libraries torch/_C*.so needs, transitively, plus libtorch_global_deps that
    torch/__init__.py opens by path: {file name in the wheel: real file}."""
    wanted = {}
    queue = [os.path.join(TORCH_PACKAGE, name) for name in os.listdir(TORCH_PACKAGE)
             if name.startswith("_C") and name.endswith(".so")]
    queue.append(os.path.join(TORCH_PACKAGE, "bin", "torch_shm_manager"))
    while queue:
        needed, _, _ = needed_and_runpath(queue.pop())
        for name in needed:
            if TORCH_LIBRARY.match(name) and name not in wanted:
                real = os.path.realpath(os.path.join(MULTIARCH, name))
                check(os.path.isfile(real), f"{name}: not in {MULTIARCH}")
                wanted[name] = real
                queue.append(real)
    # Opened as torch/lib/libtorch_global_deps.so by torch/__init__.py; no DT_NEEDED names it.
    wanted["libtorch_global_deps.so"] = os.path.realpath(
        os.path.join(MULTIARCH, "libtorch_global_deps.so"))
    return wanted


def wheel_key(version, libraries, python_tag):
    digest = hashlib.sha256(json.dumps([WHEEL_FORMAT, version, python_tag]).encode())
    for name, real in sorted(libraries.items()):
        status = os.stat(real)
        digest.update(f"{name} {real} {status.st_size} {status.st_mtime_ns}\n".encode())
    status = os.stat(os.path.join(TORCH_PACKAGE, "version.py"))
    digest.update(f"{status.st_size} {status.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def copy_package(tree):
    """torch/ without what SKIPPED names, without symlinks; returns the ELF files."""
    elf = []
    for directory, subdirectories, files in os.walk(TORCH_PACKAGE):
        relative = os.path.relpath(directory, TORCH_PACKAGE)
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED
                                   and not os.path.islink(os.path.join(directory, d))
                                   and not (relative == "." and d == "lib"))
        for name in sorted(files):
            source = os.path.join(directory, name)
            if os.path.islink(source) or name.endswith(".pyc"):
                continue
            if relative == "bin" and name not in KEPT_PROGRAMS:
                continue
            target = os.path.normpath(os.path.join(tree, "torch", relative, name))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)
            if is_elf(target):
                elf.append(target)
    return elf


def set_runpaths(patchelf, tree, elf, libraries):
    """RUNPATH $ORIGIN for torch/lib, $ORIGIN/lib for torch/*.so, $ORIGIN/../lib for bin/."""
    lib = os.path.join(tree, "torch", "lib")
    os.makedirs(lib)
    for name, real in libraries.items():
        shutil.copy2(real, os.path.join(lib, name))
        elf.append(os.path.join(lib, name))
    settings = []
    for path in elf:
        relative = os.path.relpath(os.path.dirname(path), os.path.join(tree, "torch"))
        runpath = {"lib": "$ORIGIN", ".": "$ORIGIN/lib", "bin": "$ORIGIN/../lib"}[relative]
        settings.append((path, runpath))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        jobs = [pool.submit(run, [patchelf, "--set-rpath", runpath, path])
                for path, runpath in settings]
        for job in jobs:
            job.result()
    for path, runpath in settings:
        _, found, _ = needed_and_runpath(path)
        check(found == runpath, f"{path}: RUNPATH {found!r} after patchelf, expected {runpath!r}")
    return settings


def check_ldd(tree, elf):
    """ldd of every ELF file: torch's libraries resolve inside the tree, none to the system's
    copies; returns {file: {torch library: where it resolved}} for _C."""
    resolved = {}
    for path in elf:
        text = run(["ldd", path]).stdout
        check("not found" not in text, f"ldd {path}: a library is not found:\n{text}")
        found = {name: os.path.normpath(where) for name, where
                 in re.findall(r"^\s*(\S+) => (\S+)", text, re.MULTILINE)}
        for name, where in found.items():
            if TORCH_LIBRARY.match(name):
                check(where.startswith(tree + os.sep),
                      f"ldd {path}: {name} resolves to {where}, not inside the wheel")
        resolved[os.path.relpath(path, tree)] = {n: os.path.relpath(w, tree)
                                                 for n, w in found.items()
                                                 if TORCH_LIBRARY.match(n)}
    return resolved


def record_digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=") \
        .decode()


def write_wheel(tree, path, version, python_tag):
    """dist-info (METADATA, WHEEL, RECORD) and the zip; RECORD lists every file's sha256."""
    info = f"torch-{version}.dist-info"
    cases.write_text(os.path.join(tree, info, "METADATA"), "\n".join([
        "Metadata-Version: 2.1", "Name: torch", f"Version: {version}",
        "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration",
        "License: BSD-3", "Requires-Python: >=3.7", "Provides-Extra: opt-einsum",
        'Requires-Dist: opt-einsum>=3.3; extra == "opt-einsum"',
        "", "Debian's python3-torch packed as a wheel by wheelmod's test_real_swap.py.", ""]))
    cases.write_text(os.path.join(tree, info, "WHEEL"), "\n".join([
        "Wheel-Version: 1.0", "Generator: wheelmod test_real_swap.py", "Root-Is-Purelib: false",
        f"Tag: {python_tag}-{python_tag}-linux_x86_64", ""]))
    members = []
    for directory, subdirectories, files in os.walk(tree):
        subdirectories.sort()
        members += [os.path.relpath(os.path.join(directory, name), tree) for name in sorted(files)]
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    partial = path + ".part"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for member in members:
            with open(os.path.join(tree, member), "rb") as stream:
                data = stream.read()
            writer.writerow([member, record_digest(data), len(data)])
            entry = zipfile.ZipInfo(member, date_time=(2023, 3, 14, 0, 0, 0))
            mode = os.stat(os.path.join(tree, member)).st_mode
            entry.external_attr = (stat.S_IFREG | (0o755 if mode & 0o111 else 0o644)) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data, compresslevel=1)
        writer.writerow([f"{info}/RECORD", "", ""])
        entry = zipfile.ZipInfo(f"{info}/RECORD", date_time=(2023, 3, 14, 0, 0, 0))
        entry.external_attr = (stat.S_IFREG | 0o644) << 16
        archive.writestr(entry, rows.getvalue())
    os.replace(partial, path)
    return len(members) + 1


def verify_wheel(path, version, python_tag):
    """Reads the wheel back: every RECORD row matches its member, every member has a row."""
    info = f"torch-{version}.dist-info"
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        rows = list(csv.reader(io.StringIO(archive.read(f"{info}/RECORD").decode())))
        check({row[0] for row in rows} == names, f"{path}: RECORD and the members differ")
        for member, digest, size in rows:
            if member.endswith("RECORD"):
                continue
            data = archive.read(member)
            check(digest == record_digest(data) and int(size) == len(data),
                  f"{path}: RECORD row of {member} does not match it")
        wheel = archive.read(f"{info}/WHEEL").decode()
        metadata = archive.read(f"{info}/METADATA").decode()
    check(f"Tag: {python_tag}-{python_tag}-linux_x86_64" in wheel, wheel)
    check("Name: torch\n" in metadata and f"Version: {version}\n" in metadata, metadata)
    return len(rows)


def build_wheel(work, patchelf, python_tag, report):
    version, _ = torch_version()
    libraries = torch_libraries()
    key = wheel_key(version, libraries, python_tag)
    directory = os.path.join(work, "wheel")
    path = os.path.join(directory, f"torch-{version}-{python_tag}-{python_tag}-linux_x86_64.whl")
    stamp = os.path.join(directory, "key.json")
    if os.path.exists(path) and os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as stream:
            cached = json.load(stream)
        if cached.get("key") == key:
            print(f"{path}: cached (key {key})")
            report.update(cached["report"], cached=True)
            return path
    shutil.rmtree(directory, ignore_errors=True)
    tree = os.path.join(directory, "tree")
    os.makedirs(tree)
    elf = copy_package(tree)
    settings = set_runpaths(patchelf, tree, elf, libraries)
    report["ldd"] = check_ldd(tree, elf)
    members = write_wheel(tree, path, version, python_tag)
    shutil.rmtree(tree)
    report.update(libraries=libraries, members=members, size=os.path.getsize(path),
                  runpaths={os.path.relpath(p, tree): r for p, r in settings}, cached=False)
    cases.write_text(stamp, json.dumps({"key": key, "report": report}, indent=1) + "\n")
    return path


# --- step 2: wheelmod install ----------------------------------------------------------------

def site_of(prefix, facts):
    return os.path.join(prefix, "lib", f"python{facts['version']}", "site-packages")


def install_wheel(wheelmod, wheel, prefix, facts, python):
    shutil.rmtree(prefix, ignore_errors=True)
    result = run([wheelmod, "install", "--wheel", wheel, "--prefix", prefix,
                  "--toolchain", TOOLCHAIN, "--python", facts["version"], "--python-exe", python,
                  "--no-deps"])
    print(result.stdout.rstrip())
    lib = os.path.join(site_of(prefix, facts), "torch", "lib")
    answer = probe(python, clean_environment([site_of(prefix, facts)]))
    check(answer["ok"], f"import torch from {prefix}: {answer.get('error')}")
    check(answer["torch_file"].startswith(prefix + os.sep),
          f"torch came from {answer['torch_file']}, not from {prefix}")
    check(answer["sum"] == 2.0, f"torch.ones(2).sum() is {answer['sum']}")
    check(answer["mapped"] and all(path.startswith(lib + os.sep) for path in answer["mapped"]),
          f"torch libraries mapped from outside {lib}: {answer['mapped']}")
    return answer, result.stdout


# --- step 3: dependents --------------------------------------------------------------------

def built_extensions(work, facts, torch_lib, wheel_key_text):
    """torch_ext.cpp compiled twice: dep-abs against the wheel-made torch/lib with an absolute
    RUNPATH into it (EasyBuild's RPATH wrappers), ext_cxx11 against Debian's torch (as
    make_real_cases.py builds it). Cached in DIR/build while commands and sources agree."""
    libraries = [os.path.join(torch_lib, name) for name in
                 ("libtorch.so.1.13", "libtorch_cpu.so.1.13", "libc10.so.1.13",
                  "libtorch_python.so.1.13")]
    outputs = {name: os.path.join(work, "build", name, "_C.so") for name in ("dep_abs", "debian")}
    base = cases.compile_command(1, facts["include"], outputs["dep_abs"])
    commands = {
        "dep_abs": [a for a in base if a not in cases.TORCH_LIBRARIES] + libraries
        + [f"-Wl,-rpath,{torch_lib}", "-Wl,--enable-new-dtags"],
        "debian": cases.compile_command(1, facts["include"], outputs["debian"]),
    }
    digest = hashlib.sha256(json.dumps([commands, wheel_key_text]).encode())
    with open(cases.EXT_SOURCE, "rb") as stream:
        digest.update(stream.read())
    key = digest.hexdigest()
    stamp = os.path.join(work, "build", "key.json")
    if os.path.exists(stamp) and all(os.path.exists(o) for o in outputs.values()):
        with open(stamp, encoding="utf-8") as stream:
            cached = json.load(stream)
        if cached["key"] == key:
            print(f"{os.path.dirname(stamp)}: extensions cached")
            return {name: (commands[name], cached["seconds"][name], outputs[name], True)
                    for name in outputs}
    shutil.rmtree(os.path.join(work, "build"), ignore_errors=True)

    def compile_one(name):
        os.makedirs(os.path.dirname(outputs[name]))
        start = time.monotonic()
        run(commands[name])
        return round(time.monotonic() - start, 1)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        seconds = dict(zip(outputs, pool.map(compile_one, outputs)))
    cases.write_text(stamp, json.dumps({"key": key, "seconds": seconds}) + "\n")
    return {name: (commands[name], seconds[name], outputs[name], False) for name in outputs}


def lay_out_dep_abs(prefix, facts, built):
    """DIR/dep-abs: package dep_abs (torch_ext.cpp as _C, make_real_cases' __init__) with a
    dist-info requiring torch; returns (site-packages, the extension)."""
    shutil.rmtree(prefix, ignore_errors=True)
    site = site_of(prefix, facts)
    extension = os.path.join(site, "dep_abs", "_C" + facts["ext_suffix"])
    os.makedirs(os.path.dirname(extension))
    shutil.copyfile(built["dep_abs"][2], extension)
    os.chmod(extension, 0o755)
    cases.write_text(os.path.join(site, "dep_abs", "__init__.py"),
                     cases.EXT_INIT.format(package="dep_abs"))
    cases.write_dist_info(site, "dep_abs", "dep-abs", ["torch"])
    return site, extension


def lay_out_ext_cxx11(work, facts, built):
    """DIR/ext_cxx11 as make_real_cases.py lays it out; returns its cases entry."""
    shutil.rmtree(os.path.join(work, "ext_cxx11"), ignore_errors=True)
    command, seconds, output, _ = built["debian"]
    entry = cases.make_case(work, "ext_cxx11", cases.CASES["ext_cxx11"], facts,
                            {1: (command, seconds, output)})
    entry["extension"] = os.path.join(entry["site_packages"], "ext_cxx11",
                                      "_C" + facts["ext_suffix"])
    return entry


def runpath_of(path):
    return needed_and_runpath(path)[1]


def found_via(path, name):
    """How ld.so finds `name` for the ELF file `path` (LD_DEBUG=libs of ldd): the last search
    it made, "RUNPATH", "cache" (ld.so.cache) or "system", and the file it took."""
    environment = dict(clean_environment(), LD_DEBUG="libs")
    result = subprocess.run(["ldd", path], capture_output=True, text=True, env=environment,
                            timeout=60, check=False)
    text = result.stdout + result.stderr
    block = text.split(f"find library={name} ", 1)
    if len(block) < 2:
        return "already loaded", None
    block = block[1].split("find library=", 1)[0]
    searches = re.findall(r"search (cache|path=.*\((RUNPATH|RPATH|system search path)\S*)",
                          block)
    tried = re.findall(r"trying file=(\S+)", block)
    how = "none" if not searches else (searches[-1][1] or searches[-1][0]).split()[0]
    return {"system": "system dirs"}.get(how, how), (tried[-1] if tried else None)


def runpath_problems(runpath, old_prefix, wanted_dirs):
    """What is wrong with a RUNPATH after a fix: an entry that is no directory, one still in
    the old prefix, none that is one of `wanted_dirs` (compared by real path)."""
    entries = (runpath or "").split(":") if runpath else []
    problems = [f"{entry} is not a directory" for entry in entries
                if not os.path.isdir(entry)]
    problems += [f"{entry} is still in {old_prefix}" for entry in entries
                 if entry.startswith(old_prefix.rstrip("/") + "/")]
    wanted = {os.path.realpath(d) for d in wanted_dirs}
    if not any(os.path.realpath(entry) in wanted for entry in entries):
        problems.append(f"no entry is one of {sorted(wanted_dirs)}")
    return problems


def ldd_torch(path):
    """Where `ldd` resolves the torch libraries of an ELF file."""
    text = run(["ldd", path]).stdout
    return {name: os.path.normpath(where)
            for name, where in re.findall(r"^\s*(\S+) => (\S+)", text, re.MULTILINE)
            if TORCH_LIBRARY.match(name)}


# --- step 4: swapcheck ---------------------------------------------------------------------

def swapcheck(wheelmod, current, candidate, dependents, fix=False):
    command = [wheelmod, "swapcheck", "--current", current, "--candidate", candidate,
               "--dependents", *dependents, "--format", "json"] + (["--fix"] if fix else [])
    result = run(command, expect=(0, 6))
    if result.stderr.strip():
        print(result.stderr.rstrip())
    try:
        report = json.loads(result.stdout)
    except ValueError as error:
        raise Failure(f"{' '.join(command)}: no JSON report ({error}): {result.stdout[-2000:]}")
    return result.returncode, report, command


def only_dependent(report):
    dependents = report.get("dependents") or []
    check(len(dependents) == 1, f"expected one dependent in the report: {dependents}")
    return dependents[0]


def describe(exit_code, dependent):
    kinds = sorted({r.get("kind", "?") for r in dependent.get("reasons") or []})
    return (f"{dependent.get('verdict')}" + (f" ({', '.join(kinds)})" if kinds else "")
            + (", fixed" if dependent.get("fixed") else "") + f", exit {exit_code}")


def debian_cpu():
    return os.path.realpath(os.path.join(MULTIARCH, "libtorch_cpu.so.1.13"))


# --- step 5: wheelmod swap with Lmod -------------------------------------------------------

STUB_MODULES = {
    # What `wheelmod module` makes the wheel-made build depend on, as stand-ins: the
    # toolchain, and Python (Debian's /usr/bin/python3, which is on PATH anyway).
    "foss/2023a": 'whatis("stand-in for the foss/2023a toolchain")\n',
    "Python/3.11.3-GCCcore-12.3.0": 'whatis("stand-in: Debian\'s /usr/bin/python3")\n'
                                    'setenv("EBROOTPYTHON", "/usr")\n',
}

DEBIAN_MODULE = '''help([==[Debian 12's python3-torch ({version}), from /usr]==])
whatis("Description: Debian's python3-torch; /usr/bin/python3 finds it in dist-packages")
local root = "/usr"
conflict("PyTorch")
setenv("EBROOTPYTORCH", root)
setenv("EBVERSIONPYTORCH", "1.13.0")
'''

DEPENDENT_MODULE = '''whatis("{name}: torch_ext.cpp built on {on}")
local root = "{prefix}"
depends_on("{canonical}")
prepend_path("PYTHONPATH", pathJoin(root, "lib", "python{version}", "site-packages"))
'''


def write_modules(wheelmod, tree, prefix, facts, dependents):
    shutil.rmtree(tree, ignore_errors=True)
    for name, text in STUB_MODULES.items():
        cases.write_text(os.path.join(tree, "all", name + ".lua"), text)
    result = run([wheelmod, "module", prefix, "--modulepath", tree, "--name", "PyTorch",
                  "--full-version", WHEEL_BUILD.split("/")[1], "--force"])
    print(result.stdout.rstrip())
    if result.stderr.strip():
        print(result.stderr.rstrip())
    check(os.path.exists(os.path.join(tree, "all", WHEEL_BUILD + ".lua")),
          f"wheelmod module wrote no {WHEEL_BUILD}.lua")
    cases.write_text(os.path.join(tree, "all", DEBIAN_BUILD + ".lua"),
                     DEBIAN_MODULE.format(version=torch_version()[1]))
    for name, (dependent_prefix, on) in dependents.items():
        cases.write_text(os.path.join(tree, "all", name, "1.0.lua"), DEPENDENT_MODULE.format(
            name=name, on=on, prefix=dependent_prefix, canonical=CANONICAL,
            version=facts["version"]))


def lmod_import(lmod, tree, work, python, module, package, preload=()):
    """`module use TREE/all; module load MODULE` with real Lmod, then the import under the
    environment it made; returns (PROBE's answer, EBROOTPYTORCH, PYTHONPATH)."""
    environment = {"HOME": work, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                   "MODULEPATH": "", "LMOD_IGNORE_CACHE": "1"}
    for args in (("use", os.path.join(tree, "all")), ("load", module)):
        environment, ok, error = lmod_apply(lmod, environment, *args)
        check(ok, f"lmod {' '.join(args)}: {error}")
    for name in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONHOME"):
        environment.pop(name, None)
    environment.update(PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1")
    answer = probe(python, environment, package, preload)
    return answer, environment.get("EBROOTPYTORCH"), environment.get("PYTHONPATH", "")


def swap(wheelmod, tree, extra, expect=(0,)):
    result = run([wheelmod, "swap", "--modulepath", tree, "--name", CANONICAL, *extra],
                 expect=expect)
    output = (result.stdout + result.stderr).rstrip()
    print(output)
    return result.returncode, output


# --- the test ------------------------------------------------------------------------------

class Test:
    """Runs the steps in order, each timed; a failed step ends the run (the later ones build
    on it). `rows` is the table: case | expected | actual | proven by."""

    def __init__(self, arguments):
        self.wheelmod = arguments.wheelmod
        self.lmod = arguments.lmod
        self.python = arguments.python
        self.work = os.path.realpath(arguments.work)
        self.patchelf = shutil.which("patchelf")
        self.rows, self.timings, self.notes, self.failures = [], [], [], []
        self.facts = cases.interpreter_facts(self.python)
        self.python_tag = "cp" + self.facts["version"].replace(".", "")
        self.wheel_prefix = os.path.join(self.work, "wheel-torch")
        self.wheel_site = site_of(self.wheel_prefix, self.facts)
        self.wheel_lib = os.path.join(self.wheel_site, "torch", "lib")
        self.dep_prefix = os.path.join(self.work, "dep-abs")
        self.modules = os.path.join(self.work, "modules")

    def row(self, case, expected, actual, proof):
        self.rows.append((case, expected, actual, proof))

    def expect(self, condition, message):
        """A check whose failure does not stop the steps after it (it fails the test)."""
        if not condition:
            self.failures.append(message)
            print("EXPECTATION FAILED: " + message)
        return condition

    def debian_dirs(self):
        """Where a dependent's RUNPATH may point for Debian's torch: its torch/lib (symlinks)
        or the directory holding the libraries."""
        return [os.path.join(TORCH_PACKAGE, "lib"), MULTIARCH]

    def step1_wheel(self):
        report = {}
        self.wheel = build_wheel(self.work, self.patchelf, self.python_tag, report)
        self.wheel_key = os.path.basename(self.wheel) + json.dumps(report.get("libraries"))
        rows = verify_wheel(self.wheel, torch_version()[0], self.python_tag)
        libraries = sorted(report["libraries"])
        self.notes.append("wheel torch/lib: " + ", ".join(libraries)
                          + " (real files from " + MULTIARCH + "; RUNPATH $ORIGIN)")
        self.row("1 wheel from python3-torch", os.path.basename(self.wheel),
                 f"{rows} RECORD rows, {report['size'] >> 20} MiB"
                 + (", cached" if report.get("cached") else ""),
                 "RECORD re-read (sha256, size of every member); ldd of "
                 f"{len(report['ldd'])} ELF files: torch libraries inside the wheel")

    def step2_install(self):
        answer, output = install_wheel(self.wheelmod, self.wheel, self.wheel_prefix, self.facts,
                                       self.python)
        checked = re.search(r"check: (.*)", output)
        torch_dir = os.path.join(self.wheel_site, "torch")
        elf = [os.path.join(d, f) for d, _, files in os.walk(torch_dir) for f in files
               if not os.path.islink(os.path.join(d, f)) and is_elf(os.path.join(d, f))]
        for path in elf:
            for name, where in ldd_torch(path).items():
                check(where.startswith(self.wheel_lib + os.sep),
                      f"ldd {path}: {name} resolves to {where}, not into {self.wheel_lib}")
        self.row("2 install --wheel", "torch imports from the prefix",
                 f"torch {answer['torch_version']} from wheel-torch/, ones(2).sum()="
                 f"{answer['sum']}; {checked.group(1) if checked else 'no check line'}",
                 f"/proc/self/maps: {len(answer['mapped'])} torch libraries, all in "
                 f"wheel-torch/.../torch/lib; ldd of its {len(elf)} ELF files: torch "
                 "libraries from there")

    def step3_dependents(self):
        self.built = built_extensions(self.work, self.facts, self.wheel_lib, self.wheel_key)
        self.dep_site, self.dep_extension = lay_out_dep_abs(self.dep_prefix, self.facts,
                                                            self.built)
        runpath = runpath_of(self.dep_extension)
        check(runpath == self.wheel_lib, f"dep-abs RUNPATH {runpath!r}, expected {self.wheel_lib}")
        resolved = ldd_torch(self.dep_extension)
        check(resolved.get("libtorch_cpu.so.1.13") == os.path.join(self.wheel_lib,
                                                                   "libtorch_cpu.so.1.13"),
              f"ldd dep-abs: {resolved}")
        answer = probe(self.python, clean_environment([self.dep_site, self.wheel_site]),
                       "dep_abs")
        check(answer["ok"], f"dep_abs with the wheel-made torch: {answer.get('error')}")
        check(cpu_libraries(answer) == [os.path.join(self.wheel_lib, "libtorch_cpu.so.1.13")],
              f"dep_abs with the wheel-made torch maps {cpu_libraries(answer)}")
        how, _ = found_via(self.dep_extension, "libtorch_cpu.so.1.13")
        check(how == "RUNPATH", f"dep-abs finds libtorch_cpu.so.1.13 through the {how}")
        self.row("3 dep-abs on wheel-made torch", f"imports; RUNPATH {runpath}",
                 f"imports; RUNPATH {runpath}",
                 "import (torch::ones, parseSchemaOrName); maps: one libtorch_cpu, the "
                 "wheel-made; ldd: found through the RUNPATH")
        self.ext = lay_out_ext_cxx11(self.work, self.facts, self.built)
        check(runpath_of(self.ext["extension"]) is None, "ext_cxx11 has a RUNPATH")
        answer = probe(self.python, clean_environment([self.ext["site_packages"]]), "ext_cxx11")
        check(answer["ok"], f"ext_cxx11 with Debian's torch: {answer.get('error')}")
        check(cpu_libraries(answer) == [debian_cpu()],
              f"ext_cxx11 with Debian's torch maps {cpu_libraries(answer)}")
        how, _ = found_via(self.ext["extension"], "libtorch_cpu.so.1.13")
        self.row("3 ext_cxx11 on Debian's torch", "imports", "imports (no RUNPATH)",
                 f"import; maps: one libtorch_cpu, {debian_cpu()}; ldd: found through the {how}")
        self.notes.append("compile torch_ext.cpp (2 in parallel): " + ", ".join(
            f"{name} {seconds} s" + (" (cached from an earlier run)" if cached else "")
            for name, (_, seconds, _, cached) in self.built.items()))

    def step4_swapcheck(self):
        code, report, _ = swapcheck(self.wheelmod, self.wheel_prefix, "/usr", [self.dep_prefix])
        dependent = only_dependent(report)
        kinds = [r.get("kind") for r in dependent.get("reasons") or []]
        self.notes.append("swapcheck wheel-made -> /usr: current " + json.dumps(
            {k: report["current"].get(k) for k in ("version", "cxx11_abi", "exported_symbols")})
            + ", candidate " + json.dumps(
            {k: report["candidate"].get(k) for k in ("version", "cxx11_abi",
                                                     "exported_symbols")}))
        # The hazard, shown: loaded before torch (a C++ program, an earlier import), dep-abs
        # brings the wheel-made libtorch_cpu, and Debian's torch/_C then binds to it.
        first = probe(self.python, clean_environment([self.dep_site]), "dep_abs",
                      [self.dep_extension])
        normal = probe(self.python, clean_environment([self.dep_site]), "dep_abs")
        self.notes.append(f"before --fix, under Debian's torch: dep-abs dlopen'ed first maps "
                          f"{cpu_libraries(first)} (torch from {first.get('torch_file')}); "
                          f"imported after torch maps {cpu_libraries(normal)}")
        self.row("4 swapcheck wheel-made -> /usr, dep-abs",
                 "relink needed (RPATH into the current prefix), exit 6",
                 describe(code, dependent),
                 "dlopen'ed before `import torch` it maps "
                 + ("the wheel-made libtorch_cpu" if cpu_libraries(first) ==
                    [os.path.join(self.wheel_lib, "libtorch_cpu.so.1.13")]
                    else str(cpu_libraries(first)))
                 + ", not Debian's")
        check(dependent.get("verdict") == "relink needed" and code == 6
              and "RPATH into the current prefix" in kinds,
              f"swapcheck wheel-made -> /usr: {describe(code, dependent)}: "
              f"{json.dumps(dependent.get('reasons'))}")
        check(cpu_libraries(first) == [os.path.join(self.wheel_lib, "libtorch_cpu.so.1.13")],
              f"dep-abs loaded first maps {cpu_libraries(first)}")

        code, report, _ = swapcheck(self.wheelmod, self.wheel_prefix, "/usr", [self.dep_prefix],
                                    fix=True)
        dependent = only_dependent(report)
        runpath = runpath_of(self.dep_extension)
        resolved = ldd_torch(self.dep_extension)
        first = probe(self.python, clean_environment([self.dep_site]), "dep_abs",
                      [self.dep_extension])
        normal = probe(self.python, clean_environment([self.dep_site]), "dep_abs")
        again, report_again, _ = swapcheck(self.wheelmod, self.wheel_prefix, "/usr",
                                           [self.dep_prefix])
        how, taken = found_via(self.dep_extension, "libtorch_cpu.so.1.13")
        self.notes.append(f"--fix wrote RUNPATH {runpath!r} (Debian's torch/lib holds "
                          f"unversioned symlinks: "
                          f"{sorted(os.listdir(os.path.join(TORCH_PACKAGE, 'lib')))}); ld.so then "
                          f"finds libtorch_cpu.so.1.13 through the {how}: {taken}; ldd: "
                          f"{resolved}")
        problems = runpath_problems(runpath, self.wheel_prefix, self.debian_dirs())
        self.expect(not problems, f"swapcheck --fix wrote RUNPATH {runpath!r}: "
                    + "; ".join(problems) + f" (libtorch_cpu.so.1.13 found through the {how})")
        self.row("4 … --fix", "compatible, fixed, exit 0; RUNPATH into /usr's torch",
                 describe(code, dependent) + f"; RUNPATH {runpath}"
                 + (" (NO SUCH DIRECTORY)" if runpath and not os.path.isdir(runpath) else ""),
                 f"readelf; dlopen'ed first, then import: maps {cpu_libraries(first)}; "
                 f"imported after torch: {cpu_libraries(normal)}; rerun: "
                 + describe(again, only_dependent(report_again)))
        check(code == 0 and dependent.get("verdict") == "compatible" and dependent.get("fixed"),
              f"--fix: {describe(code, dependent)}: {json.dumps(dependent)}")
        check(runpath is None or self.wheel_prefix not in runpath,
              f"after --fix the RUNPATH still names the wheel-made prefix: {runpath!r}")
        for answer in (first, normal):
            check(answer["ok"] and answer["torch_file"].startswith(TORCH_PACKAGE + os.sep),
                  f"dep_abs after --fix: {answer}")
            check(cpu_libraries(answer) == [debian_cpu()],
                  f"dep_abs after --fix maps {cpu_libraries(answer)}, expected only "
                  f"{debian_cpu()}")
        check(again == 0, f"swapcheck after --fix: exit {again}")

        code, report, _ = swapcheck(self.wheelmod, "/usr", self.wheel_prefix,
                                    [self.ext["prefix"]])
        dependent = only_dependent(report)
        answer = probe(self.python, clean_environment([self.wheel_site,
                                                       self.ext["site_packages"]]), "ext_cxx11")
        wheel_cpu = os.path.join(self.wheel_lib, "libtorch_cpu.so.1.13")
        self.row("4 swapcheck /usr -> wheel-made, ext_cxx11", "compatible, exit 0",
                 describe(code, dependent),
                 "import with the wheel-made torch first on PYTHONPATH: maps "
                 + ("only the wheel-made libtorch_cpu" if cpu_libraries(answer) == [wheel_cpu]
                    else str(cpu_libraries(answer))))
        check(code == 0 and dependent.get("verdict") == "compatible",
              f"/usr -> wheel-made: {describe(code, dependent)}: {json.dumps(dependent)}")
        check(answer["ok"] and answer["torch_file"].startswith(self.wheel_site + os.sep),
              f"ext_cxx11 with the wheel-made torch: {answer}")
        check(cpu_libraries(answer) == [wheel_cpu], f"ext_cxx11 maps {cpu_libraries(answer)}")
        self.system_runpath(wheel_cpu)

    def system_runpath(self, wheel_cpu):
        """ext_cxx11 with RUNPATH /usr/lib/x86_64-linux-gnu, where Debian's libtorch lies (and
        every other system library): /usr -> wheel-made calls it relink needed; after --fix
        each entry must be a directory, and loaded first it must bring the wheel-made
        libtorch_cpu."""
        prefix = os.path.join(self.work, "ext-sysrunpath")
        shutil.rmtree(prefix, ignore_errors=True)
        shutil.copytree(self.ext["prefix"], prefix, symlinks=True)
        site = site_of(prefix, self.facts)
        extension = os.path.join(site, os.path.relpath(self.ext["extension"],
                                                       self.ext["site_packages"]))
        run([self.patchelf, "--set-rpath", MULTIARCH, extension])
        environment = clean_environment([self.wheel_site, site])
        before = probe(self.python, environment, "ext_cxx11", [extension])
        code, report, _ = swapcheck(self.wheelmod, "/usr", self.wheel_prefix, [prefix])
        dependent = only_dependent(report)
        first = describe(code, dependent)
        self.expect(code == 6 and dependent.get("verdict") == "relink needed",
                    f"/usr -> wheel-made, RUNPATH {MULTIARCH}: {first}")
        code, report, _ = swapcheck(self.wheelmod, "/usr", self.wheel_prefix, [prefix], fix=True)
        dependent = only_dependent(report)
        runpath = runpath_of(extension)
        after = probe(self.python, environment, "ext_cxx11", [extension])
        self.row(f"4 swapcheck /usr -> wheel-made, ext_cxx11 RUNPATH {MULTIARCH}",
                 "relink needed, exit 6; --fix: compatible, a RUNPATH that exists, loaded "
                 "first: the wheel-made libtorch_cpu",
                 f"{first}; --fix: {describe(code, dependent)}, RUNPATH {runpath}"
                 + ("" if runpath and os.path.isdir(runpath) else " (NO SUCH DIRECTORY)"),
                 f"dlopen'ed first, wheel-made torch first on PYTHONPATH: maps "
                 f"{cpu_libraries(before)} before --fix, {cpu_libraries(after)} after")
        self.expect(code == 0 and dependent.get("verdict") == "compatible",
                    f"/usr -> wheel-made --fix, RUNPATH {MULTIARCH}: {describe(code, dependent)}")
        problems = runpath_problems(runpath, "/usr", [self.wheel_lib])
        self.expect(not problems, f"swapcheck --current /usr --candidate {self.wheel_prefix} "
                    f"--fix turned RUNPATH {MULTIARCH} into {runpath!r}: " + "; ".join(problems))
        self.expect(after["ok"] and cpu_libraries(after) == [wheel_cpu],
                    f"after that --fix, loaded first, it maps {cpu_libraries(after)} "
                    f"({after.get('error') or 'imports'}), expected only {wheel_cpu}")

    def loaded(self, module, package, preload=()):
        answer, root, _ = lmod_import(self.lmod, self.modules, self.work, self.python, module,
                                      package, preload)
        check(answer["ok"], f"{module}: import {package}: {answer.get('error')}")
        return answer, root

    def expect_torch(self, when, build):
        """Both dependents loaded with Lmod get `build`'s torch, one libtorch_cpu each."""
        if build == WHEEL_BUILD:
            prefix, torch_dir = self.wheel_prefix, os.path.join(self.wheel_site, "torch")
            cpu = [os.path.join(self.wheel_lib, "libtorch_cpu.so.1.13")]
        else:
            prefix, torch_dir, cpu = "/usr", TORCH_PACKAGE, [debian_cpu()]
        seen = []
        for module, package, preload in (("dep-abs/1.0", "dep_abs", ()),
                                         ("dep-abs/1.0", "dep_abs", (self.dep_extension,)),
                                         ("ext_cxx11/1.0", "ext_cxx11", ())):
            answer, root = self.loaded(module, package, preload)
            label = module + (" (dlopen'ed first)" if preload else "")
            check(root == prefix, f"{when}: {label}: EBROOTPYTORCH={root}, expected {prefix}")
            check(answer["torch_file"] == os.path.join(torch_dir, "__init__.py"),
                  f"{when}: {label}: torch from {answer['torch_file']}")
            check(cpu_libraries(answer) == cpu,
                  f"{when}: {label}: maps {cpu_libraries(answer)}, expected {cpu}")
            seen.append(label)
        return (f"Lmod load {', '.join(seen)}: EBROOTPYTORCH={prefix}, torch from "
                f"{torch_dir}, maps only {cpu[0]}")

    def step5_swap(self):
        dependents = {"dep-abs": (self.dep_prefix, "the wheel-made torch, absolute RUNPATH"),
                      "ext_cxx11": (self.ext["prefix"], "Debian's torch")}
        # dep-abs afresh: its RUNPATH into the wheel-made prefix, as before step 4's --fix.
        self.dep_site, self.dep_extension = lay_out_dep_abs(self.dep_prefix, self.facts,
                                                            self.built)
        write_modules(self.wheelmod, self.modules, self.wheel_prefix, self.facts, dependents)
        code, output = swap(self.wheelmod, self.modules, ["--to", WHEEL_BUILD])
        alias = os.path.join(self.modules, "all", "PyTorch", ".modulerc.lua")
        check(os.path.exists(alias), f"no {alias} after the first swap --to")
        proof = self.expect_torch("after the first swap", WHEEL_BUILD)
        self.row(f"5 swap --to {WHEEL_BUILD} (first)", "exit 0, alias created",
                 f"exit {code}, alias: {alias_line(alias)}", proof)

        code, output = swap(self.wheelmod, self.modules, ["--to", DEBIAN_BUILD], expect=(0, 2, 6))
        self.notes.append(f"swap --to {DEBIAN_BUILD}: exit {code}:\n    "
                          + output.replace("\n", "\n    "))
        runpath = runpath_of(self.dep_extension)
        check(code == 0, f"swap --to {DEBIAN_BUILD}: exit {code}: {output}")
        problems = runpath_problems(runpath, self.wheel_prefix, self.debian_dirs())
        how, taken = found_via(self.dep_extension, "libtorch_cpu.so.1.13")
        self.notes.append(f"after swap --to {DEBIAN_BUILD}: dep-abs RUNPATH {runpath!r}, "
                          f"libtorch_cpu.so.1.13 found through the {how}: {taken}")
        self.expect(not problems, f"swap --to {DEBIAN_BUILD} wrote dep-abs RUNPATH {runpath!r}: "
                    + "; ".join(problems))
        proof = self.expect_torch("after swap --to Debian", DEBIAN_BUILD)
        self.row(f"5 swap --to {DEBIAN_BUILD}", "exit 0, dep-abs RPATH fixed",
                 f"exit {code}, {'RPATH fixed' if 'RPATH fixed' in output else 'no RPATH fix'}"
                 f", dep-abs RUNPATH {runpath}"
                 + (" (NO SUCH DIRECTORY)" if runpath and not os.path.isdir(runpath) else "")
                 + f", alias: {alias_line(alias)}", proof)
        check("RPATH fixed" in output, f"swap did not report the RPATH fix: {output}")

        code, output = swap(self.wheelmod, self.modules, ["--rollback"], expect=(0, 2, 6))
        self.notes.append(f"swap --rollback: exit {code}:\n    " + output.replace("\n", "\n    "))
        runpath = runpath_of(self.dep_extension)
        check(code == 0, f"swap --rollback: exit {code}: {output}")
        self.expect(runpath == self.wheel_lib,
                    f"swap --rollback left dep-abs RUNPATH {runpath!r}, expected {self.wheel_lib}")
        proof = self.expect_torch("after --rollback", WHEEL_BUILD)
        self.row("5 swap --rollback", f"exit 0, back to {WHEEL_BUILD}",
                 f"exit {code}, dep-abs RUNPATH {runpath}, alias: {alias_line(alias)}", proof)


def alias_line(path):
    with open(path, encoding="utf-8") as stream:
        lines = [line.strip() for line in stream if line.startswith("module_version")]
    return lines[0] if lines else "(no module_version line)"


def missing_prerequisites(arguments):
    missing = []
    for path, what in ((os.path.join(TORCH_PACKAGE, "__init__.py"), "python3-torch"),
                       (os.path.join(MULTIARCH, "libtorch_cpu.so.1.13"), "libtorch1.13"),
                       ("/usr/include/torch/csrc/api/include/torch/torch.h", "libtorch-dev"),
                       (cases.PYBIND11_HEADER, "pybind11-dev")):
        if not os.path.exists(path):
            missing.append(f"{what} ({path} is missing)")
    for program, what in (("patchelf", "patchelf"), ("g++", "g++"), ("readelf", "binutils"),
                          ("ldd", "libc-bin")):
        if not shutil.which(program):
            missing.append(f"{what} (no {program} on PATH)")
    if not (os.path.isfile(arguments.lmod) and os.access(arguments.lmod, os.X_OK)):
        missing.append(f"lmod ({arguments.lmod} is not an executable)")
    if not os.access(arguments.wheelmod, os.X_OK):
        missing.append(f"wheelmod ({arguments.wheelmod} is not an executable)")
    if not os.access(arguments.python, os.X_OK):
        missing.append(f"python ({arguments.python} is not an executable)")
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheelmod", required=True, help="the wheelmod binary")
    parser.add_argument("--lmod", required=True, help="Lmod's lmod program")
    parser.add_argument("--work", required=True, help="a directory for the wheel, prefixes, "
                        "modules (the wheel and the extensions are cached there)")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the interpreter torch is imported with (Debian's python3)")
    arguments = parser.parse_args()
    missing = missing_prerequisites(arguments)
    if missing:
        print("FAILED: this test needs Debian's python3-torch, libtorch-dev, pybind11-dev, "
              "patchelf and Lmod, and does not pass without them; missing: "
              + "; ".join(missing))
        return 1
    os.makedirs(arguments.work, exist_ok=True)
    test = Test(arguments)
    failure = None
    started = time.monotonic()
    for step in (test.step1_wheel, test.step2_install, test.step3_dependents,
                 test.step4_swapcheck, test.step5_swap):
        print(f"== {step.__name__}", flush=True)
        start = time.monotonic()
        try:
            step()
        except (Failure, OSError, subprocess.SubprocessError) as error:
            failure = f"{step.__name__}: {error}"
        test.timings.append((step.__name__, time.monotonic() - start))
        if failure:
            break
    print()
    print_table(test.rows, "proven by")
    print()
    for note in test.notes:
        print("note: " + note)
    print("time: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in test.timings)
          + f"; total {time.monotonic() - started:.1f} s")
    for message in test.failures:
        print(f"FAILED (expectation): {message}")
    if failure:
        print(f"FAILED {failure}")
    if failure or test.failures:
        return 1
    print("all steps passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
