#!/usr/bin/env python3
"""`wheelmod swapcheck` on the fixture matrix (tests/swapcheck): verdicts proven by loading.

    swapcheck_scenarios.py --wheelmod BIN --sample DIR --trees DIR --probe PROBE SCENARIO

The trees hold fake torch builds (C++ ABI 0 and 1, 2.7.1 and 2.8.0, CPU,
CUDA 11 and 12) and packages built on them; matrix.json lists the twelve
swap cases with the verdict the field reports. Each case's verdict is
asserted, then backed by the loader: a dependent called compatible or safe
really loads against the candidate (its libraries preloaded, as `import
torch` does), and one called broken fails to, with the error recorded.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from scenario_support import check, run_expecting, scenario_main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "swapcheck"))
import make_trees  # noqa: E402  (the probe and import helpers the fixtures use)

REASONS = {  # the matrix's reason names -> swapcheck's
    "cxx11_abi": "C++ ABI mismatch",
    "version_pin": "pin",
    "missing_symbol": "API change",
    "missing_library": "library not provided",
    "cuda_major": "CUDA major",
    "absolute_rpath": "RPATH into the current prefix",
}


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.probe = args.probe
        with open(os.path.join(args.trees, "matrix.json"), encoding="utf-8") as handle:
            self.matrix = json.load(handle)
        self.work = tempfile.mkdtemp(prefix="wheelmod-swapcheck-")

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def swapcheck(self, current, candidate, *dependents, extra=(), expect=None):
        command = [self.wheelmod, "swapcheck", "--current", current, "--candidate", candidate,
                   "--dependents", *dependents, *extra]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        print("ran:", " ".join(command[1:]), "->", result.returncode)
        if expect is not None and result.returncode != expect:
            print(result.stdout, result.stderr)
            check(False, f"exit {result.returncode}, expected {expect}")
        return result


def matrix(r):
    """The twelve cases: verdict and reasons as the field reports them, then the loader agrees."""
    for case in r.matrix["cases"]:
        current = r.matrix["torches"][case["current"]]
        candidate = r.matrix["torches"][case["candidate"]]
        dependent = r.matrix["dependents"][case["dependent"]]
        wanted = case["verdict"].replace("_", " ")
        result = r.swapcheck(case["current_prefix"], case["candidate_prefix"], case["dependent_prefix"],
                             extra=("--format", "json"), expect=0 if wanted in ("safe", "compatible") else 6)
        (got,) = json.loads(result.stdout)["dependents"]
        kinds = {reason["kind"] for reason in got["reasons"]}
        print(f"case {case['case']}: {got['verdict']} {sorted(kinds)}")
        check(got["verdict"] == wanted, f"case {case['case']} ({case['title']}): {got['verdict']}, expected {wanted}")
        for reason in case["reasons"]:
            if reason in REASONS:
                check(REASONS[reason] in kinds, f"case {case['case']}: no '{REASONS[reason]}' among {kinds}")
        if "stable_abi_only" in case["reasons"]:
            check(got["stable_abi"], f"case {case['case']}: not recognised as stable-ABI only")
        if "cxx11_abi" in case["reasons"]:
            symbols = " ".join(" ".join([r["detail"]] + r.get("symbols", []))
                               for r in got["reasons"] if r["kind"] == "C++ ABI mismatch")
            check("parseSchemaOrName" in symbols, f"case {case['case']}: the symbol is not named: {symbols}")
        if dependent["extension"] is None:
            continue
        loads, output = make_trees.probe(r.probe, candidate["preload"], dependent["extension"])
        if wanted in ("safe", "compatible"):
            check(loads, f"case {case['case']}: called {wanted}, but it does not load: {output}")
        elif wanted == "breaks":
            check(loads == case["loads"], f"case {case['case']}: loads={loads}, recorded {case['loads']}: {output}")
            if not loads:
                print("   the loader agrees:", output.strip().splitlines()[-1])
        loads_current, output = make_trees.probe(r.probe, current["preload"], dependent["extension"])
        check(loads_current, f"case {case['case']}: does not even load on the current torch: {output}")


def fix(r):
    """An absolute RPATH into the current prefix: relink needed; --fix re-points it at the
    candidate, and loaded alone the dependent then takes the candidate's libtorch."""
    (case,) = [c for c in r.matrix["cases"] if "absolute_rpath" in c["reasons"]]
    dependent = os.path.join(r.work, "dependent")
    shutil.copytree(case["dependent_prefix"], dependent, symlinks=True)
    r.swapcheck(case["current_prefix"], case["candidate_prefix"], dependent, expect=6)
    result = r.swapcheck(case["current_prefix"], case["candidate_prefix"], dependent,
                         extra=("--fix", "--format", "json"), expect=0)
    (got,) = json.loads(result.stdout)["dependents"]
    check(got["verdict"] == "compatible" and got["fixed"], f"after --fix: {got}")
    extension = case_extension(r, case, dependent)
    loads, output = make_trees.probe(r.probe, [], extension, listing=True)
    wanted = os.path.join(r.matrix["torches"][case["candidate"]]["torch_lib"], "libtorch_cpu.so")
    check(loads and f"LOADED {wanted}\n" in output, f"after --fix it loads {output}")
    r.swapcheck(case["current_prefix"], case["candidate_prefix"], dependent, expect=0)


def case_extension(r, case, prefix):
    original = r.matrix["dependents"][case["dependent"]]["extension"]
    return os.path.join(prefix, os.path.relpath(original, case["dependent_prefix"]))


def scan(r):
    """A whole tree of dependents at once, wheel torch -> source torch: every dependent found,
    the ABI-bound ones break, the Python-only and stable-ABI ones do not; markdown output."""
    torches = r.matrix["torches"]
    root = os.path.join(r.matrix["root"], "dependents")
    result = r.swapcheck(torches["torch-wheel-2.7.1"]["prefix"], torches["torch-source-2.7.1"]["prefix"], root,
                         extra=("--format", "json"), expect=6)
    report = json.loads(result.stdout)
    verdicts = {os.path.basename(d["prefix"]): d["verdict"] for d in report["dependents"]}
    print(verdicts)
    check(set(verdicts) == set(r.matrix["dependents"]), f"found {sorted(verdicts)}")
    check(verdicts["torchvision-wheel"] == "breaks" and verdicts["torchvision-on-wheel"] == "breaks", verdicts)
    check(verdicts["torchmetrics"] == "safe", verdicts)
    check(verdicts["stable-ext"] == "compatible", verdicts)
    check(report["current"]["cxx11_abi"] is False and report["candidate"]["cxx11_abi"] is True, report["current"])
    markdown = r.swapcheck(torches["torch-wheel-2.7.1"]["prefix"], torches["torch-source-2.7.1"]["prefix"], root,
                           extra=("--format", "markdown"), expect=6).stdout
    check("| dependent | verdict | why |" in markdown and "C++ ABI mismatch" in markdown, markdown)


def module_swap(r):
    """The transparent swap with real Lmod: a dependent's module names PyTorch/2.7.1 once; it loads
    the source build, then, after `wheelmod swap`, the CPU build, without reinstalling anything;
    a swap that would break it is refused and changes nothing; --rollback returns."""
    import types
    torches = r.matrix["torches"]
    tree = os.path.join(r.work, "modules")
    dependents = os.path.join(r.work, "software")
    for name in ("torchvision-on-source", "torchvision-eb-rpath"):
        shutil.copytree(r.matrix["dependents"][name]["prefix"], os.path.join(dependents, name), symlinks=True)
    builds = {"2.7.1-source": "torch-source-2.7.1", "2.7.1-cpu": "torch-cpu-2.7.1", "2.7.1-whl": "torch-wheel-2.7.1"}
    site = lambda prefix: os.path.relpath(r.matrix["torches"]["torch-source-2.7.1"]["site_packages"],
                                          r.matrix["torches"]["torch-source-2.7.1"]["prefix"])
    for version, torch in builds.items():
        write(os.path.join(tree, "all", "PyTorch", version + ".lua"),
              f'local root = "{torches[torch]["prefix"]}"\nsetenv("EBROOTPYTORCH", root)\n'
              f'prepend_path("PYTHONPATH", pathJoin(root, "{site(torch)}"))\n')
    for name in ("torchvision-on-source", "torchvision-eb-rpath"):
        prefix = os.path.join(dependents, name)
        write(os.path.join(tree, "all", name, "1.0.lua"),
              f'local root = "{prefix}"\ndepends_on("PyTorch/2.7.1")\n'
              f'prepend_path("PYTHONPATH", pathJoin(root, "{site(name)}"))\n')

    def swap(*extra, expect=0):
        return run_expecting([r.wheelmod, "swap", "--modulepath", tree, "--name", "PyTorch/2.7.1", *extra], expect)

    lmod = os.environ.get("WHEELMOD_LMOD", "/usr/share/lmod/lmod/libexec/lmod")
    base = {"HOME": r.work, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}

    def load_and_import(name):
        environment = dict(base)
        for args in (("use", os.path.join(tree, "all")), ("load", name + "/1.0")):
            result = subprocess.run([lmod, "python", *args], capture_output=True, text=True, env=environment,
                                    timeout=120)
            namespace = {"os": types.SimpleNamespace(environ=environment)}
            exec("\n".join(l for l in result.stdout.splitlines() if l.strip() != "import os"), namespace)
            check(namespace.get("_mlstatus", result.returncode == 0), f"lmod {args}: {result.stderr}")
        environment.pop("LD_LIBRARY_PATH", None)
        imported = subprocess.run([sys.executable, "-c", "import torchvision, torch; print(torch.__file__)"],
                                  capture_output=True, text=True, env=environment, timeout=60)
        check(imported.returncode == 0, f"import after loading {name}: {imported.stderr}")
        return environment["EBROOTPYTORCH"]

    swap("--to", "PyTorch/2.7.1-source")  # the first alias: nothing to check against
    check(load_and_import("torchvision-on-source") == torches["torch-source-2.7.1"]["prefix"], "before the swap")
    refused = swap("--to", "PyTorch/2.7.1-whl", expect=6)
    check("C++ ABI mismatch" in refused.stdout and "nothing changed" in refused.stderr, refused.stdout + refused.stderr)
    check(load_and_import("torchvision-on-source") == torches["torch-source-2.7.1"]["prefix"], "a refused swap changed it")
    swapped = swap("--to", "PyTorch/2.7.1-cpu")
    print(swapped.stdout)
    check("RPATH fixed" in swapped.stdout, "the EasyBuild-style dependent was not relinked")
    for name in ("torchvision-on-source", "torchvision-eb-rpath"):
        check(load_and_import(name) == torches["torch-cpu-2.7.1"]["prefix"], f"{name} after the swap")
    extension = os.path.join(dependents, "torchvision-eb-rpath",
                             os.path.relpath(r.matrix["dependents"]["torchvision-eb-rpath"]["extension"],
                                             r.matrix["dependents"]["torchvision-eb-rpath"]["prefix"]))
    loads, output = make_trees.probe(r.probe, [], extension, listing=True)
    check(loads and torches["torch-cpu-2.7.1"]["torch_lib"] in output, f"loaded alone: {output}")
    swap("--rollback")
    check(load_and_import("torchvision-on-source") == torches["torch-source-2.7.1"]["prefix"], "after --rollback")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def errors(r):
    """Not a torch prefix, or no such directory: exit 2 with the reason; a torch/lib of dangling
    symlinks is refused; one of symlinks to the libraries reads as the libraries do; a candidate
    of unknown version makes pinned dependents unknown."""
    torches = r.matrix["torches"]
    dependent = r.matrix["dependents"]["torchmetrics"]["prefix"]
    result = r.swapcheck(dependent, torches["torch-source-2.7.1"]["prefix"], dependent, expect=2)
    check("no torch package" in result.stderr, result.stderr)
    result = r.swapcheck(torches["torch-wheel-2.7.1"]["prefix"], torches["torch-source-2.7.1"]["prefix"],
                         os.path.join(r.work, "missing"), expect=2)
    check("not a directory" in result.stderr, result.stderr)

    # A torch/lib of dangling symlinks (as Debian's can be, without the libraries): refused, not
    # "0 exported symbols, everything safe".
    dangling = os.path.join(r.work, "dangling")
    package = os.path.join(dangling, "lib", "python3.11", "site-packages", "torch")
    os.makedirs(os.path.join(package, "lib"))
    open(os.path.join(package, "__init__.py"), "w").close()
    for name in ("libtorch.so", "libc10.so", "libtorch_cpu.so"):
        os.symlink("/nonexistent/" + name + ".1.13", os.path.join(package, "lib", name))
    dependents = r.matrix["dependents"]
    result = r.swapcheck(dangling, dangling, dependents["torchvision-on-wheel"]["prefix"], expect=2)
    check("no libtorch exports" in result.stderr and package in result.stderr, result.stderr)

    # The candidate's libraries reached through symlinks (torch/lib -> another directory): the
    # same verdicts as the real files give, not "libc.so.6 comes with the current torch's
    # dependencies".
    linked = os.path.join(r.work, "linked")
    shutil.copytree(torches["torch-source-2.7.1"]["prefix"], linked, symlinks=True)
    linked_lib = os.path.join(linked, "lib", "python3.11", "site-packages", "torch", "lib")
    real_lib = os.path.join(r.work, "linked-real-lib")
    shutil.move(linked_lib, real_lib)
    os.makedirs(linked_lib)
    for name in os.listdir(real_lib):
        os.symlink(os.path.join(real_lib, name), os.path.join(linked_lib, name))
    wheel = torches["torch-wheel-2.7.1"]["prefix"]
    on_wheel = dependents["torchvision-on-wheel"]["prefix"]
    direct = json.loads(r.swapcheck(wheel, torches["torch-source-2.7.1"]["prefix"], on_wheel,
                                    extra=("--format", "json")).stdout)
    through = json.loads(r.swapcheck(wheel, linked, on_wheel, extra=("--format", "json")).stdout)
    check(through["candidate"]["exported_symbols"] == direct["candidate"]["exported_symbols"] > 0,
          f"{through['candidate']} vs {direct['candidate']}")
    check([d["verdict"] for d in through["dependents"]] == [d["verdict"] for d in direct["dependents"]]
          and [x["kind"] for d in through["dependents"] for x in d["reasons"]]
          == [x["kind"] for d in direct["dependents"] for x in d["reasons"]],
          f"{through['dependents']} vs {direct['dependents']}")

    # --current and --candidate as EasyBuild module names under EASYBUILD_INSTALLPATH's software/.
    site = os.path.join(r.work, "eb")
    os.makedirs(os.path.join(site, "software", "PyTorch"))
    for name, torch in (("2.7.1-foss-2024a-whl", "torch-wheel-2.7.1"),
                        ("2.7.1-foss-2024a-src", "torch-source-2.7.1")):
        os.symlink(torches[torch]["prefix"], os.path.join(site, "software", "PyTorch", name))
    command = [r.wheelmod, "swapcheck", "--current", "PyTorch/2.7.1-foss-2024a-whl", "--candidate",
               "PyTorch/2.7.1-foss-2024a-src", "--dependents", on_wheel, "--format", "json"]
    environment = dict(os.environ, EASYBUILD_INSTALLPATH=site)
    by_name = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=120,
                                        env=environment).stdout)
    check([d["verdict"] for d in by_name["dependents"]] == [d["verdict"] for d in direct["dependents"]]
          and by_name["candidate"]["exported_symbols"] == direct["candidate"]["exported_symbols"],
          f"by module name: {by_name['dependents']}")
    missing = subprocess.run(command[:5] + ["PyTorch/9.9.9-nothing"] + command[6:],
                             capture_output=True, text=True, timeout=120, env=environment)
    check(missing.returncode == 2 and "PyTorch/9.9.9-nothing" in missing.stderr
          and os.path.join(site, "software") in missing.stderr, missing.stderr)

    # A candidate whose version nothing tells: pinned dependents are unknown, never compatible.
    nameless = os.path.join(r.work, "nameless")
    shutil.copytree(torches["torch-source-2.7.1"]["prefix"], nameless, symlinks=True)
    site = os.path.join(nameless, "lib", "python3.11", "site-packages")
    shutil.rmtree(os.path.join(site, "torch-2.7.1.dist-info"))
    os.remove(os.path.join(site, "torch", "version.py"))
    report = json.loads(r.swapcheck(torches["torch-source-2.7.1"]["prefix"], nameless,
                                    dependents["torchmetrics"]["prefix"],
                                    dependents["torchvision-on-source"]["prefix"],
                                    extra=("--format", "json"), expect=6).stdout)
    verdicts = {os.path.basename(d["prefix"]): d["verdict"] for d in report["dependents"]}
    check(verdicts == {"torchmetrics": "unknown", "torchvision-on-source": "compatible"}, verdicts)


SCENARIOS = {f.__name__: f for f in (matrix, fix, scan, module_swap, errors)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing):
# all read the fixture trees of tests/swapcheck, and are registered only where it lays them out.
CTEST = {"*": {"options": ("--trees", "--probe")}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, extra_options=("--trees", "--probe"),
                         ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
