#!/usr/bin/env python3
"""ROCm wheels relinked to the site's EasyBuild ROCm modules, end to end on the sample.

    rocm_scenarios.py --wheelmod BIN --sample DIR --lmod LMOD SCENARIO

The sample's torch 2.9.1+rocm6.4 bundles its ROCm libraries in torch/lib under
their link names, as pytorch's .ci/manywheel/build_common.sh leaves them
(libamdhip64.so with SONAME libamdhip64.so.6, RPATH $ORIGIN), and the sample's
software/ holds stand-in EasyBuild ROCm 6.4.1 modules of 2025a (HIP, rocBLAS,
RCCL, ..., numactl, GCCcore) whose libraries really load. Each scenario installs
with the real binary, then loads torch with LD_LIBRARY_PATH unset (in a compute
node's view where the registration says so) and reads /proc/self/maps to see
where each library came from.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from scenario_support import (check, in_node_view, lmod_apply, run_expecting, scenario_main,
                              verify_site_records, write_stand_in_module)

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
SPECS = ("torch==2.9.1", "torchvision")
# What no 2025a easyconfig provides (config/eb-dependencies.yaml `rocm`): stays in torch/lib.
KEPT = ("libMIOpen.so", "libhipsolver.so", "libmagma.so")
# The wheel's data of the libraries the modules provide, and of one they do not (MIOpen).
DROPPED_DATA = ("torch/lib/rocblas", "torch/lib/hipblaslt", "torch/lib/hipsparselt",
                "torch/share/rccl", "torch/share/libdrm")
KEPT_DATA = "torch/share/miopen/db"


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.lmod_cmd = args.lmod
        self.index = "file://" + os.path.join(args.sample, "whl")
        self.work = tempfile.mkdtemp(prefix="wheelmod-rocm-")
        self.cache = os.path.join(self.work, "cache")
        self.software = os.path.join(args.sample, "software")

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def command(self, prefix, *extra, accelerator="rocm6.4", toolchain="foss-2025a",
                eb=None, specs=SPECS):
        return [self.wheelmod, "install", *specs, "--toolchain", toolchain, "--accelerator",
                accelerator, "--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28",
                "--index", self.index, "--cache-dir", self.cache, "--eb-installpath",
                eb or self.sample, "--python-exe", sys.executable, "--prefix", prefix, *extra]

    def install(self, prefix, *extra, expect=0, **options):
        return run_expecting(self.command(prefix, *extra, **options), expect, timeout=300)


def site_of(prefix):
    return os.path.join(prefix, "lib", f"python{PYTHON}", "site-packages")


def bundled_sonames(r):
    """{file: SONAME} of the ROCm libraries of the table, as resolve reports them."""
    plan = json.loads(run_expecting(
        [r.wheelmod, "resolve", *SPECS, "--toolchain", "foss-2025a", "--accelerator", "rocm6.4",
         "--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28", "--index", r.index,
         "--format", "json"]).stdout)
    return {library["file"]: library["soname"] for library in plan["rocm"]["libraries"]}


def bundled_files(r):
    """The ROCm libraries of the table, by file name: {file: module or None} for 2025a."""
    plan = json.loads(run_expecting(
        [r.wheelmod, "resolve", *SPECS, "--toolchain", "foss-2025a", "--accelerator", "rocm6.4",
         "--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28", "--index", r.index,
         "--eb-installpath", r.sample, "--format", "json"]).stdout)
    check(plan["rocm"] is not None, "resolve has no rocm summary for a ROCm variant")
    return {library["file"]: library["module"] for library in plan["rocm"]["libraries"]}


# Prints where every shared object of the process lies, after importing torch.
MAPS = ("import sys, re\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import torch\n"
        "print('version', torch.__version__, torch.version.hip)\n"
        "seen = set()\n"
        "for line in open('/proc/self/maps'):\n"
        "    path = line.split()[-1] if len(line.split()) >= 6 else ''\n"
        "    if re.search(r'[.]so([.]|-|$)', path) and path not in seen:\n"
        "        seen.add(path); print('mapped', path)\n")


def import_torch(prefix):
    """Imports torch with LD_LIBRARY_PATH unset: (version line, {basename: path})."""
    environment = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "PYTHONPATH")}
    ran = subprocess.run(in_node_view([sys.executable, "-c", MAPS, site_of(prefix)]),
                         capture_output=True, text=True, env=environment, timeout=120)
    check(ran.returncode == 0, f"import torch failed:\n{ran.stderr}")
    mapped = {}
    version = ""
    for line in ran.stdout.splitlines():
        if line.startswith("version "):
            version = line[len("version "):]
        elif line.startswith("mapped "):
            path = line[len("mapped "):]
            mapped[os.path.basename(path)] = path
    return version, mapped


def soname(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    found = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    return found.group(1) if found else None


def loaded_from(mapped, wanted):
    """The mapped files whose DT_SONAME is `wanted` (libamdhip64.so.6), or, for a library without
    one, whose name it is: each file once, however many names led to it."""
    hits = []
    for name, path in mapped.items():
        if (soname(path) or name) == wanted and path not in hits:
            hits.append(path)
    return hits


def readelf(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    rpath = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", out)
    return needed, (rpath[0] if rpath else None)


def provenance_of(prefix):
    with open(os.path.join(prefix, "easybuild", "wheelmod-install.json")) as handle:
        return json.load(handle)


def verify_records(prefix):
    verify_site_records(site_of(prefix))


def modules_stack(r):
    """torch 2.9.1+rocm6.4 and torchvision for foss-2025a against the ROCm 6.4.1 modules: every
    bundled copy a module provides is gone with its data, the rest stays; torch loads each ROCm
    library from the module tree with LD_LIBRARY_PATH unset; check passes; RECORD is true."""
    table = bundled_files(r)
    sonames = bundled_sonames(r)
    prefix = os.path.join(r.work, "PyTorch", "2.9.1-foss-2025a-ROCm-6.4.1-whl")
    result = r.install(prefix, "--format", "json")
    report = json.loads(result.stdout)["rocm"]
    check(report["relinked"] and report["stack_rocm"] == "6.4.1" and report["wheel_rocm"] == "6.4",
          f"rocm report: {report['summary']}")
    lib = os.path.join(site_of(prefix), "torch", "lib")
    for file, module in table.items():
        present = os.path.lexists(os.path.join(lib, file))
        if file in KEPT:
            check(module is None and present, f"{file}: kept bundled expected ({module})")
        else:
            check(module is not None and not present, f"{file}: expected removed for {module}")
    for data in DROPPED_DATA:
        check(not os.path.lexists(os.path.join(site_of(prefix), data)),
              f"{data} left (the module has its own)")
    check(os.listdir(os.path.join(site_of(prefix), KEPT_DATA)), "MIOpen's databases were removed")
    verify_records(prefix)

    needed, rpath = readelf(os.path.join(lib, "libtorch_hip.so"))
    check("libamdhip64.so" in needed, f"DT_NEEDED changed: {needed}")
    entries = rpath.split(":")
    check(entries[0] == "$ORIGIN", f"RPATH does not start with $ORIGIN: {rpath}")
    hip_lib = os.path.join(r.software, table["libamdhip64.so"], "lib")
    check(hip_lib in entries, f"HIP's lib not in libtorch_hip.so's RPATH: {rpath}")

    version, mapped = import_torch(prefix)
    check(version.startswith("2.9.1+rocm6.4 6.4."), f"torch.__version__, hip: {version}")
    for file, module in table.items():
        if file == "libmagma.so":  # nothing of torch needs it at import in the sample
            continue
        hits = loaded_from(mapped, sonames[file])
        check(len(hits) == 1, f"{file}: loaded {len(hits)} times: {hits}")
        where = hits[0]
        if module is None:
            check(where.startswith(lib + "/"), f"{file}: expected the bundled copy, got {where}")
        else:
            root = os.path.join(r.software, module) + "/"
            check(where.startswith(root), f"{file}: loaded from {where}, not from {root}")
    print("every ROCm library loads once, from", r.software, "or torch/lib")

    # torchvision's _C.so names libamdhip64.so.6 (built against ROCm): it loads alone.
    vision = glob.glob(os.path.join(site_of(prefix), "torchvision", "_C*.so"))
    check(vision, "no torchvision _C.so")
    alone = subprocess.run(in_node_view([sys.executable, "-c",
                                         "import ctypes, sys; ctypes.CDLL(sys.argv[1])", vision[0]]),
                           capture_output=True, text=True, timeout=60,
                           env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"})
    check(alone.returncode == 0, f"torchvision's _C.so does not load alone:\n{alone.stderr}")

    checked = run_expecting([r.wheelmod, "check", prefix, "--format", "json"], 0)
    summary = json.loads(checked.stdout)
    check(summary["rocm_mismatches"] == [], summary["rocm_mismatches"])
    provenance = provenance_of(prefix)
    check(provenance["rocm"]["mode"] == "auto" and provenance["rocm"]["stack"] == "6.4.1",
          provenance.get("rocm"))
    check(provenance["module_libraries"].get("libamdhip64.so.6") == table["libamdhip64.so"],
          "libamdhip64.so.6 is not recorded as the HIP module's")
    check(table["libamdhip64.so"] in provenance["modules"], provenance["modules"])
    check("GCCcore/14.2.0" not in provenance["modules"],
          "GCCcore is the toolchain's, not a module of its own to load")

    # relink again: nothing to change.
    again = run_expecting([r.wheelmod, "relink", prefix, "--format", "json"], 0)
    changed = [f["file"] for f in json.loads(again.stdout)["files"] if f["method"] != "unchanged"]
    check(not changed, f"a second relink changed {changed}")


def module_loads(r):
    """--module: the module file loads each ROCm module the install was relinked against; real
    Lmod loads it (with stand-ins for the toolchain and dependency modules) and torch imports
    from it with LD_LIBRARY_PATH unset."""
    software = os.path.join(r.work, "software")
    prefix = os.path.join(software, "PyTorch", "2.9.1-foss-2025a-ROCm-6.4.1-whl")
    modulepath = os.path.join(r.work, "modules")
    r.install(prefix, "--module", "--modulepath", modulepath)
    provenance = provenance_of(prefix)
    module_file = os.path.join(modulepath, "all", "PyTorch", "2.9.1-foss-2025a-ROCm-6.4.1-whl.lua")
    with open(module_file) as handle:
        text = handle.read()
    rocm_modules = [m for m in provenance["modules"] if "ROCm-6.4.1" in m]
    check(len(rocm_modules) >= 15, f"ROCm modules recorded: {rocm_modules}")
    for module in rocm_modules:
        check(f'"{module}"' in text, f"the module file does not load {module}")
    # Stand-in modules: EBROOT/EBVERSION of each, pointing at the sample's trees.
    for module in [provenance["toolchain_module"], *provenance["modules"]]:
        write_stand_in_module(modulepath, module, os.path.join(r.software, *module.split("/", 1)))
    home = os.path.join(r.work, "home")
    os.makedirs(home, exist_ok=True)
    base = {"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    environment, ok, stderr = lmod_apply(r.lmod_cmd, base, "use", os.path.join(modulepath, "all"))
    check(ok, stderr)
    loaded, ok, stderr = lmod_apply(r.lmod_cmd, environment, "load",
                                    "PyTorch/2.9.1-foss-2025a-ROCm-6.4.1-whl")
    check(ok, f"module load failed:\n{stderr}")
    check(loaded.get("EBROOTHIP", "").startswith(r.software), "HIP was not loaded")
    check(loaded.get("EBROOTROCBLAS", "").startswith(r.software), "rocBLAS was not loaded")
    run = subprocess.run([sys.executable, "-c",
                          "import torch; print(torch.__version__, torch.version.hip)"],
                         capture_output=True, text=True, timeout=60, cwd=home,
                         env={k: v for k, v in loaded.items() if k != "LD_LIBRARY_PATH"})
    check(run.returncode == 0, f"import torch under the module failed:\n{run.stderr}")
    check(run.stdout.startswith("2.9.1+rocm6.4"), run.stdout)


def bundled(r):
    """--rocm-libraries bundled keeps the wheel as published: every copy, $ORIGIN alone, no ROCm
    module; `relink --rocm-libraries modules` then takes them from the modules."""
    table = bundled_files(r)
    prefix = os.path.join(r.work, "bundled")
    result = r.install(prefix, "--rocm-libraries", "bundled", "--format", "json")
    check(not json.loads(result.stdout)["rocm"]["relinked"], result.stdout)
    lib = os.path.join(site_of(prefix), "torch", "lib")
    for file in table:
        check(os.path.lexists(os.path.join(lib, file)), f"{file} removed with bundled")
    _, rpath = readelf(os.path.join(lib, "libtorch_hip.so"))
    check(rpath == "$ORIGIN", f"RPATH changed with bundled: {rpath}")
    provenance = provenance_of(prefix)
    check(not [m for m in provenance["modules"] if "ROCm" in m], provenance["modules"])
    _, mapped = import_torch(prefix)
    check(loaded_from(mapped, "libamdhip64.so.6")[0].startswith(lib), "HIP not from torch/lib")
    before = sum(os.path.getsize(p) for p in glob.glob(os.path.join(site_of(prefix), "**"),
                                                       recursive=True) if os.path.isfile(p))

    # A plain relink (auto) removes nothing a wheel installed.
    plain = run_expecting([r.wheelmod, "relink", prefix, "--format", "json"], 0)
    check(json.loads(plain.stdout)["rocm_removed"] == [], plain.stdout)
    check(os.path.exists(os.path.join(lib, "libamdhip64.so")), "relink (auto) removed a copy")

    # What an easyconfig's postinstall runs after pip: the copies go, the paths follow.
    taken = run_expecting([r.wheelmod, "relink", prefix, "--rocm-libraries", "modules",
                           "--format", "json"], 0)
    removed = json.loads(taken.stdout)["rocm_removed"]
    check("torch/lib/libamdhip64.so" in removed, removed)
    for file, module in table.items():
        check(os.path.lexists(os.path.join(lib, file)) == (module is None),
              f"{file} after relink --rocm-libraries modules")
    verify_records(prefix)
    _, mapped = import_torch(prefix)
    hip = loaded_from(mapped, "libamdhip64.so.6")
    check(len(hip) == 1 and hip[0].startswith(r.software), f"libamdhip64 loaded from {hip}")
    after = sum(os.path.getsize(p) for p in glob.glob(os.path.join(site_of(prefix), "**"),
                                                      recursive=True) if os.path.isfile(p))
    print(f"site-packages: {before} bytes bundled, {after} bytes relinked")
    run_expecting([r.wheelmod, "check", prefix], 0)


def partial_site(r):
    """A site that has built the stack but rocBLAS: librocblas.so stays bundled with its
    Tensile data (same ROCm 6.4), the rest comes from the modules; --rocm-libraries modules is
    refused naming it."""
    site = os.path.join(r.work, "site")
    os.makedirs(os.path.join(site, "software"))
    for name in os.listdir(r.software):
        if name != "rocBLAS":
            os.symlink(os.path.join(r.software, name), os.path.join(site, "software", name))
    prefix = os.path.join(r.work, "partial")
    refused = r.install(prefix, "--rocm-libraries", "modules", eb=site, expect=6)
    check("librocblas.so" in refused.stderr and "rocBLAS/4.4.0" in refused.stderr, refused.stderr)
    check(not os.path.exists(prefix), "a refused install left the prefix")
    r.install(prefix, eb=site)
    lib = os.path.join(site_of(prefix), "torch", "lib")
    check(os.path.exists(os.path.join(lib, "librocblas.so")), "librocblas.so was removed")
    check(os.listdir(os.path.join(lib, "rocblas", "library")), "rocBLAS's Tensile data removed")
    check(not os.path.exists(os.path.join(lib, "libamdhip64.so")), "libamdhip64.so kept")
    _, mapped = import_torch(prefix)
    check(loaded_from(mapped, "librocblas.so.4")[0].startswith(lib + "/"), "rocBLAS not bundled")
    hip = loaded_from(mapped, "libamdhip64.so.6")[0]
    check(os.path.realpath(hip).startswith(os.path.realpath(r.software)),
          f"HIP not from the site's module: {hip}")
    run_expecting([r.wheelmod, "check", prefix], 0)


def mismatch(r):
    """A rocm6.3 wheel against 2025a's ROCm 6.4.1: nothing is relinked (auto says why), modules
    is refused; a provenance claiming a 6.4.1 module for it fails check as a ROCm mismatch."""
    prefix = os.path.join(r.work, "rocm63")
    refused = r.install(prefix, "--rocm-libraries", "modules", accelerator="rocm6.3", expect=6)
    check("ROCm 6.3" in refused.stderr and "6.4.1" in refused.stderr, refused.stderr)
    result = r.install(prefix, "--format", "json", accelerator="rocm6.3")
    report = json.loads(result.stdout)["rocm"]
    check(not report["relinked"] and "not mixed" in report["summary"], report["summary"])
    lib = os.path.join(site_of(prefix), "torch", "lib")
    check(os.path.exists(os.path.join(lib, "libamdhip64.so")), "a copy was removed")
    run_expecting([r.wheelmod, "check", prefix], 0)
    # The same prefix as if it had been relinked at 2025a's HIP.
    path = os.path.join(prefix, "easybuild", "wheelmod-install.json")
    provenance = provenance_of(prefix)
    for library in provenance["rocm"]["libraries"]:
        if library["file"] == "libamdhip64.so":
            library["module"] = "HIP/6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1"
            library["module_rocm"] = "6.4.1"
    with open(path, "w") as handle:
        json.dump(provenance, handle)
    failed = run_expecting([r.wheelmod, "check", prefix, "--format", "json"], 6)
    check(json.loads(failed.stdout)["rocm_mismatches"], failed.stdout)
    check("ROCm mismatch" in failed.stderr, failed.stderr)


def no_stack(r):
    """foss-2025b has no ROCm stack in the tables: the wheel is installed as published and the
    report says why; its torch still loads."""
    prefix = os.path.join(r.work, "nostack")
    result = r.install(prefix, "--format", "json", toolchain="foss-2025b")
    report = json.loads(result.stdout)["rocm"]
    check(not report["relinked"] and "no ROCm stack" in report["summary"], report["summary"])
    check(os.path.exists(os.path.join(site_of(prefix), "torch", "lib", "libamdhip64.so")),
          "a copy was removed")
    version, _ = import_torch(prefix)
    check(version.startswith("2.9.1+rocm6.4"), version)


def dry_run(r):
    """install --dry-run names each library's module or why it stays, writes nothing."""
    prefix = os.path.join(r.work, "dry")
    text = r.install(prefix, "--dry-run").stdout
    check("rocm:" in text and "libamdhip64.so (libamdhip64.so.6) -> HIP/6.4.1" in text, text)
    check("libMIOpen.so (libMIOpen.so.1) kept: no module" in text, text)
    plan = json.loads(r.install(prefix, "--dry-run", "--format", "json").stdout)
    check(plan["rocm"]["relinked"], plan["rocm"])
    check(any(m["module"].startswith("rocBLAS/") for m in plan["modules"]), plan["modules"])
    check(not os.path.exists(prefix), "--dry-run wrote the prefix")


def swapcheck(r):
    """An extension built against ROCm 6 (libamdhip64.so.6 from the HIP module, and libc10 of the
    relinked torch) on top of the relinked 2.9.1+rocm6.4: swapcheck calls a candidate without
    ROCm a ROCm major break, and a rocm6.3 torch (ROCm 6 too) no ROCm break."""
    current = os.path.join(r.work, "current")
    r.install(current)
    hip = os.path.join(r.software, "HIP", "6.4.1-rocm-compilers-19.0.0-ROCm-6.4.1", "lib")
    torch_lib = os.path.join(site_of(current), "torch", "lib")
    dependent = os.path.join(r.work, "dependent")
    package = os.path.join(site_of(dependent), "rocmext")
    os.makedirs(package)
    dist = os.path.join(site_of(dependent), "rocmext-1.0.dist-info")
    os.makedirs(dist)
    with open(os.path.join(dist, "METADATA"), "w") as handle:
        handle.write("Metadata-Version: 2.1\nName: rocmext\nVersion: 1.0\nRequires-Dist: torch\n")
    source = os.path.join(r.work, "ext.c")
    with open(source, "w") as handle:
        handle.write("int c10_check(int);\nint hipRuntimeGetVersion(int*);\n"
                     "int rocmext(void) { int v = 0; hipRuntimeGetVersion(&v); return c10_check(v); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(package, "_ext.so"), source,
                    "-L" + torch_lib, "-lc10", "-L" + hip, "-l:libamdhip64.so.6",
                    "-Wl,--disable-new-dtags", "-Wl,-rpath," + hip], check=True)
    needed, _ = readelf(os.path.join(package, "_ext.so"))
    check("libamdhip64.so.6" in needed, needed)

    cpu = os.path.join(r.work, "cpu")
    run_expecting([r.wheelmod, "install", "torch==2.6.0", "--toolchain", "foss-2024a",
                   "--accelerator", "cpu", "--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28",
                   "--index", r.index, "--cache-dir", r.cache, "--eb-installpath", r.sample,
                   "--python-exe", sys.executable, "--prefix", cpu, "--no-deps"], 0, timeout=300)
    verdict = json.loads(run_expecting(
        [r.wheelmod, "swapcheck", "--current", current, "--candidate", cpu, "--dependents",
         dependent, "--format", "json"], 6).stdout)
    text = json.dumps(verdict)
    check("ROCm major" in text and "the candidate torch has no ROCm" in text, text[:2000])

    rocm63 = os.path.join(r.work, "rocm63")
    r.install(rocm63, accelerator="rocm6.3")
    same = subprocess.run(in_node_view([r.wheelmod, "swapcheck", "--current", current,
                                        "--candidate", rocm63, "--dependents", dependent,
                                        "--format", "json"]),
                          capture_output=True, text=True, timeout=120)
    check(same.returncode in (0, 6) and same.stdout.strip(), same.stderr)
    check("ROCm major" not in same.stdout, same.stdout[:2000])


SCENARIOS = {f.__name__: f for f in (modules_stack, module_loads, bundled, partial_site, mismatch,
                                      no_stack, dry_run, swapcheck)}

# The installs whose libraries load run a second time where a compute node stands.
CTEST = {"*": {"timeout": 300},
         "module_loads": {"options": ("--lmod",), "timeout": 300},
         **{name: {"timeout": 300, "node_view": True}
            for name in ("modules_stack", "bundled", "partial_site")}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, extra_options=("--lmod",),
                         ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
