#!/usr/bin/env python3
"""The EasyBuild site's whole flow with an installed wheelmod: flat and hierarchical modules.

    site_flow.py --lmod LMOD --sample SAMPLE (--cmake CMAKE --build-dir DIR | --installed PREFIX)

With --build-dir the build is first installed by `cmake --install` into a temporary prefix;
with --installed an existing installation is used (a fresh clone's, its build tree removed).
Only that prefix's bin/ and /usr/bin:/bin are on PATH and only EASYBUILD_INSTALLPATH (later
also EASYBUILD_MODULE_NAMING_SCHEME) is set: the site is a temporary installpath whose
software/ holds the sample tree's CUDA, cuDNN, NCCL, cuSPARSELt.

1. `wheelmod install torch==2.6.0 torchvision --toolchain foss-2024a --accelerator cuda
   --module` (the sample index, the target Python given): the prefix is EasyBuild's name under
   software/, the module goes to modules/all/PyTorch/ with its moduleclass link; real Lmod loads
   it over stub modules of its dependencies and `import torch, torchvision` works with
   LD_LIBRARY_PATH unset; `wheelmod list` shows it; `wheelmod uninstall` removes prefix, module
   and link.
2. The same with EASYBUILD_MODULE_NAMING_SCHEME=HierarchicalMNS: the module is
   MPI/GCC/13.3.0/OpenMPI/5.0.3/PyTorch/2.6.0-CUDA-12.6.0-whl (no link, no toolchain load,
   dependencies by their hierarchical names, placed here by this script's own reading of
   hierarchical_mns.py); it is invisible until GCC and OpenMPI are loaded, then Lmod loads the
   chain GCC -> OpenMPI -> PyTorch and torch imports; uninstall removes it.
3. An `eb`-style lock on the installation directory: install refuses with exit 4 naming it.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

NAME = "2.6.0-foss-2024a-CUDA-12.6.0-whl"
HIERARCHICAL = "2.6.0-CUDA-12.6.0-whl"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
# hierarchical_mns.py det_module_subdir for the 2024a toolchains (foss-2024a.eb: GCC 13.3.0,
# OpenMPI 5.0.3); a module without one of them is on SYSTEM, in Core.
LEVELS = {"GCCcore-13.3.0": "Compiler/GCCcore/13.3.0", "GCC-13.3.0": "Compiler/GCC/13.3.0",
          "gfbf-2024a": "Compiler/GCC/13.3.0", "gompi-2024a": "MPI/GCC/13.3.0/OpenMPI/5.0.3",
          "foss-2024a": "MPI/GCC/13.3.0/OpenMPI/5.0.3"}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, expect=0, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    print("ran:", " ".join(command), "->", result.returncode, flush=True)
    if result.returncode != expect:
        raise Failure(f"exit {result.returncode}, expected {expect}: {' '.join(command)}\n"
                      f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result


def hierarchical(module):
    """(level, name) of an EasyBuildMNS module name under HierarchicalMNS."""
    software, version = module.split("/", 1)
    for toolchain, level in LEVELS.items():
        marker = "-" + toolchain
        at = version.find(marker)
        if at > 0 and (at + len(marker) == len(version) or version[at + len(marker)] == "-"):
            return level, software + "/" + version[:at] + version[at + len(marker):]
    return "Core", module


class Site:
    def __init__(self, args, work, wheelmod_bin):
        self.args = args
        self.work = work
        self.root = os.path.join(work, "eb")
        software = os.path.join(self.root, "software")
        os.makedirs(software)
        for name in os.listdir(os.path.join(args.sample, "software")):
            os.symlink(os.path.join(args.sample, "software", name), os.path.join(software, name))
        self.prefix = os.path.join(software, "PyTorch", NAME)
        self.modules = os.path.join(self.root, "modules")
        self.home = os.path.join(work, "home")
        os.makedirs(self.home)
        self.environment = {"PATH": wheelmod_bin + ":/usr/bin:/bin", "HOME": self.home,
                            "LANG": "C.UTF-8", "EASYBUILD_INSTALLPATH": self.root}

    def wheelmod(self, *args, expect=0, env=None):
        return run(["wheelmod", *args], expect, env=env or self.environment)

    def install(self, expect=0, env=None):
        return self.wheelmod(
            "install", "torch==2.6.0", "torchvision", "--toolchain", "foss-2024a",
            "--accelerator", "cuda", "--module", "--index",
            "file://" + os.path.join(self.args.sample, "whl"), "--python", PYTHON, "--arch",
            "x86_64", "--glibc", "2.28", "--python-exe", sys.executable, "--cache-dir",
            os.path.join(self.work, "cache"), expect=expect, env=env)

    def lmod(self, environment, *args, expect_ok=True):
        result = subprocess.run([self.args.lmod, "python", *args], capture_output=True,
                                text=True, env=environment, timeout=120)
        changed = dict(environment)
        namespace = {"os": types.SimpleNamespace(environ=changed)}
        exec("\n".join(line for line in result.stdout.splitlines()
                       if line.strip() != "import os"), namespace)
        ok = namespace.get("_mlstatus", result.returncode == 0)
        check(ok == expect_ok, f"lmod {' '.join(args)}: ok={ok}\n{result.stderr}")
        return changed, result.stderr

    def stub(self, path, lines):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write("".join(line + "\n" for line in lines))

    def dependency_stub(self, path, module):
        """A dependency that sets its EBROOT to the sample tree (Python: this interpreter)."""
        software, version = module.split("/", 1)
        variable = software.upper().replace("-", "MIN").replace("+", "PLUS").replace(".", "")
        lines = [f'setenv("EBROOT{variable}", '
                 f'"{os.path.join(self.args.sample, "software", software, version)}")']
        if software == "Python":
            lines.append(f'prepend_path("PATH", "{os.path.dirname(sys.executable)}")')
        self.stub(path, lines)

    def provenance(self):
        with open(os.path.join(self.prefix, "easybuild", "wheelmod-install.json")) as handle:
            return json.load(handle)

    def imports_under(self, loaded):
        check(loaded.get("EBROOTPYTORCH") == self.prefix,
              f"EBROOTPYTORCH={loaded.get('EBROOTPYTORCH')}")
        environment = {k: v for k, v in loaded.items() if k != "LD_LIBRARY_PATH"}
        result = run([sys.executable, "-c", "import torch, torchvision; print(torch.__version__)"],
                     env=environment)
        check(result.stdout.strip() == "2.6.0+cu126", result.stdout)

    def listed(self, env=None):
        return json.loads(self.wheelmod("list", "--format", "json", env=env).stdout)

    def uninstall(self, env=None):
        removed = self.wheelmod("uninstall", "PyTorch/" + NAME, env=env)
        check(not os.path.exists(self.prefix), "the prefix is still there")
        check(self.listed(env) == [], "wheelmod list still shows it")
        return removed


def flat(site):
    installed = site.install()
    check(f"prefix: {site.prefix} (from $EASYBUILD_INSTALLPATH)" in installed.stderr,
          installed.stderr)
    module = os.path.join(site.modules, "all", "PyTorch", NAME + ".lua")
    check(f"module: {module} (module load PyTorch/{NAME})" in installed.stdout, installed.stdout)
    link = os.path.join(site.modules, "ai", "PyTorch", NAME + ".lua")
    check(os.path.islink(link) and os.path.samefile(link, module), "no moduleclass link")
    provenance = site.provenance()
    for dependency in [provenance["toolchain_module"], *provenance["modules"]]:
        site.dependency_stub(os.path.join(site.modules, "all", dependency + ".lua"), dependency)
    environment, _ = site.lmod({k: v for k, v in site.environment.items()},
                               "use", os.path.join(site.modules, "all"))
    loaded, _ = site.lmod(environment, "load", "PyTorch/" + NAME)
    site.imports_under(loaded)
    listed = site.listed()
    check([item["name"] for item in listed] == ["PyTorch/" + NAME], listed)
    check(listed[0]["toolchain"] == "foss-2024a" and listed[0]["torch"] == "2.6.0+cu126", listed)
    removed = site.uninstall()
    check(module in removed.stdout and not os.path.lexists(module)
          and not os.path.lexists(link), removed.stdout)
    shutil.rmtree(site.modules)


def hierarchy(site):
    env = dict(site.environment, EASYBUILD_MODULE_NAMING_SCHEME="HierarchicalMNS")
    installed = site.install(env=env)
    level = LEVELS["foss-2024a"]
    all_modules = os.path.join(site.modules, "all")
    module = os.path.join(all_modules, level, "PyTorch", HIERARCHICAL + ".lua")
    check(f"module: {module} (module load PyTorch/{HIERARCHICAL})" in installed.stdout,
          installed.stdout)
    check(sorted(os.listdir(site.modules)) == ["all"], "a moduleclass link under HierarchicalMNS")
    with open(module) as handle:
        text = handle.read()
    provenance = site.provenance()
    expected = {hierarchical(m)[1] for m in provenance["modules"]}
    loads = {line.split('"')[1] for line in text.splitlines() if line.startswith("depends_on(")}
    check(loads == expected, f"depends_on {sorted(loads)}, expected {sorted(expected)}")
    check(not any(m.startswith(("foss/", "GCC/", "OpenMPI/")) for m in loads), sorted(loads))
    rendered = site.wheelmod("module", site.prefix, "--stdout", env=env).stdout
    check(rendered == text, "`wheelmod module --stdout` differs from the module install wrote")
    flat_text = site.wheelmod("module", site.prefix, "--stdout", "--module-naming-scheme",
                              "EasyBuildMNS", env=env).stdout
    check('depends_on("foss/2024a")' in flat_text, "--module-naming-scheme does not win")

    # The stub hierarchy: compiler and MPI open their levels, as EasyBuild's modules do.
    def opens(level_path):
        return f'prepend_path("MODULEPATH", "{os.path.join(all_modules, level_path)}")'
    site.stub(os.path.join(all_modules, "Core", "GCCcore", "13.3.0.lua"),
              [opens("Compiler/GCCcore/13.3.0")])
    site.stub(os.path.join(all_modules, "Core", "GCC", "13.3.0.lua"),
              ['depends_on("GCCcore/13.3.0")', opens("Compiler/GCC/13.3.0")])
    site.stub(os.path.join(all_modules, "Compiler", "GCC", "13.3.0", "OpenMPI", "5.0.3.lua"),
              [opens("MPI/GCC/13.3.0/OpenMPI/5.0.3")])
    for dependency in provenance["modules"]:
        where, name = hierarchical(dependency)
        site.dependency_stub(os.path.join(all_modules, where, name + ".lua"), dependency)
    environment, _ = site.lmod(dict(site.environment), "use", os.path.join(all_modules, "Core"))
    site.lmod(environment, "load", "PyTorch/" + HIERARCHICAL, expect_ok=False)
    loaded, _ = site.lmod(environment, "load", "GCC/13.3.0", "OpenMPI/5.0.3",
                          "PyTorch/" + HIERARCHICAL)
    site.imports_under(loaded)
    check([item["name"] for item in site.listed(env)] == ["PyTorch/" + NAME], "list")
    removed = site.uninstall(env=env)
    check(module in removed.stdout and not os.path.exists(module), removed.stdout)


def eb_lock(site):
    lock = os.path.join(site.root, "software", ".locks", site.prefix.replace("/", "_") + ".lock")
    os.makedirs(lock)
    refused = site.install(expect=4)
    check(lock in refused.stderr, refused.stderr)
    check(not os.path.exists(site.prefix), "installed while eb held the lock")
    os.rmdir(lock)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lmod", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--cmake")
    parser.add_argument("--build-dir")
    parser.add_argument("--installed")
    args = parser.parse_args()
    args.sample = os.path.abspath(args.sample)
    work = tempfile.mkdtemp(prefix="wheelmod-site-flow-")
    try:
        installed = args.installed
        if not installed:
            installed = os.path.join(work, "opt")
            run([args.cmake, "--install", args.build_dir, "--prefix", installed])
        site = Site(args, work, os.path.join(os.path.abspath(installed), "bin"))
        for step in (flat, hierarchy, eb_lock):
            print(f"--- {step.__name__}", flush=True)
            step(site)
    except Failure as failure:
        print(f"FAIL: {failure}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
