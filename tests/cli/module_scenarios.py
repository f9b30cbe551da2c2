#!/usr/bin/env python3
"""`wheelmod module` end to end: module files loaded with real Lmod.

    module_scenarios.py --wheelmod BIN --sample DIR --lmod LMOD SCENARIO

Installs the sample torch (CUDA, foss-2024a) into
<tmp>/software/PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl against the sample
EasyBuild tree, writes small stub modules for the toolchain and every module
the install names (each sets its EBROOT/EBVERSION), writes the PyTorch module,
compares it byte for byte with tests/golden/module/<name> after replacing
volatile parts ([TMP] for the scenario's directory, [VERSION] for wheelmod's
version, [PYTHON] for this Python's X.Y; WHEELMOD_UPDATE_GOLDEN=1 rewrites
them), then drives Lmod (`lmod python ...`, whose output is Python code that
sets the environment): module use, load, `import torch` with LD_LIBRARY_PATH
unset, module list, unload, and the environment is back where it was.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

from scenario_support import Failure, check, run_expecting, scenario_main

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "module")
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
NAME = "PyTorch/2.6.0-foss-2024a-CUDA-12.6.0-whl"
# Lmod's bookkeeping, which legitimately differs after a load and unload.
LMOD_STATE = re.compile(r"^(__LMOD_REF_COUNT_|_ModuleTable)")


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.lmod_cmd = args.lmod
        self.work = tempfile.mkdtemp(prefix="wheelmod-module-")
        self.cache = os.path.join(self.work, "cache")
        self.prefix = os.path.join(self.work, "software", NAME)
        self.home = os.path.join(self.work, "home")  # Lmod's user cache goes here
        os.makedirs(self.home)

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def install_command(self, prefix, *extra):
        return [self.wheelmod, "-q", "install", "torch==2.6.0", "--toolchain", "foss-2024a",
                "--accelerator", "cuda", "--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28",
                "--index", "file://" + os.path.join(self.sample, "whl"), "--cache-dir", self.cache,
                "--eb-installpath", self.sample, "--python-exe", sys.executable, "--prefix", prefix,
                *extra]

    def install(self, *extra, prefix=None, expect=0):
        return run_expecting(self.install_command(prefix or self.prefix, *extra), expect, timeout=300)

    def module(self, *args, expect=0):
        return run_expecting([self.wheelmod, "module", *args], expect)

    def stubs(self, modulepath, syntax="lua"):
        """A stub module for the toolchain and each module the install names."""
        with open(os.path.join(self.prefix, "easybuild", "wheelmod-install.json")) as handle:
            provenance = json.load(handle)
        names = [provenance["toolchain_module"], *provenance["modules"]]
        for module in names:
            name, version = module.split("/", 1)
            variable = name.upper().replace("-", "MIN").replace("+", "PLUS").replace(".", "")
            root = os.path.join(self.sample, "software", name, version)
            path = os.path.join(modulepath, "all", name, version + (".lua" if syntax == "lua" else ""))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                if syntax == "lua":
                    handle.write(f'setenv("EBROOT{variable}", "{root}")\n'
                                 f'setenv("EBVERSION{variable}", "{version.split("-")[0]}")\n')
                else:
                    handle.write(f"#%Module\nsetenv EBROOT{variable} {root}\n"
                                 f"setenv EBVERSION{variable} {version.split('-')[0]}\n")
        return names

    def lmod(self, environment, *args, expect_ok=True):
        """Runs `lmod python ARGS` and applies what it prints to a copy of
        `environment`; returns (new environment, stderr)."""
        result = subprocess.run([self.lmod_cmd, "python", *args], capture_output=True, text=True,
                                env=environment, timeout=120)
        changed = dict(environment)
        namespace = {"os": types.SimpleNamespace(environ=changed)}
        exec("\n".join(line for line in result.stdout.splitlines() if line.strip() != "import os"),
             namespace)
        ok = namespace.get("_mlstatus", result.returncode == 0)
        print("lmod", " ".join(args), "->", "ok" if ok else "failed")
        if ok != expect_ok:
            raise Failure(f"lmod {' '.join(args)}: {'failed' if not ok else 'succeeded'}:\n"
                          f"{result.stderr}")
        return changed, result.stderr

    def base_environment(self):
        return {"HOME": self.home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}

    def golden(self, name, path):
        with open(path) as handle:
            text = handle.read()
        text = text.replace(self.work, "[TMP]").replace(f"python{PYTHON}", "python[PYTHON]")
        text = re.sub(r"Generated by wheelmod \S+", "Generated by wheelmod [VERSION]", text)
        golden = os.path.join(GOLDEN, name)
        if os.environ.get("WHEELMOD_UPDATE_GOLDEN"):
            os.makedirs(GOLDEN, exist_ok=True)
            with open(golden, "w") as handle:
                handle.write(text)
            print("rewrote", golden)
            return
        check(os.path.exists(golden), f"no golden file {golden} (WHEELMOD_UPDATE_GOLDEN=1 writes it)")
        with open(golden) as handle:
            expected = handle.read()
        if text != expected:
            sys.stdout.writelines(difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), golden, "actual"))
            raise Failure(f"module file differs from {golden}")


def comparable(environment):
    return {k: v for k, v in environment.items() if not LMOD_STATE.match(k)}


def load_and_import(r, modulepath, stub_names):
    """module use + load; torch imports with LD_LIBRARY_PATH unset; every dependency is
    loaded; unload gives back the environment from before the load."""
    environment, _ = r.lmod(r.base_environment(), "use", os.path.join(modulepath, "all"))
    before = comparable(environment)
    loaded, _ = r.lmod(environment, "load", NAME)
    check(loaded.get("EBROOTPYTORCH") == r.prefix, f"EBROOTPYTORCH={loaded.get('EBROOTPYTORCH')}")
    check(loaded.get("EBVERSIONPYTORCH") == "2.6.0", f"EBVERSIONPYTORCH={loaded.get('EBVERSIONPYTORCH')}")
    check(loaded.get("EBEXTSLISTPYTORCH") == "torch-2.6.0+cu126,triton-3.2.0,sympy-1.13.1",
          f"EBEXTSLISTPYTORCH={loaded.get('EBEXTSLISTPYTORCH')}")
    site = os.path.join(r.prefix, "lib", f"python{PYTHON}", "site-packages")
    check(loaded.get("PYTHONPATH", "").split(":")[0] == site, f"PYTHONPATH={loaded.get('PYTHONPATH')}")
    check(loaded["PATH"].split(":")[0] == os.path.join(r.prefix, "bin"), f"PATH={loaded['PATH']}")
    check(loaded.get("EBROOTCUDA") == os.path.join(r.sample, "software", "CUDA", "12.6.0"),
          "the CUDA dependency was not loaded")

    _, listing = r.lmod(loaded, "-t", "list")
    listed = [line.strip() for line in listing.splitlines() if line.strip()]
    check(listed[-1] == NAME, f"module list: {listed}")
    missing = [name for name in stub_names if name not in listed]
    check(not missing, f"dependencies not loaded: {missing} (list: {listed})")
    check(listed[0] == "foss/2024a", f"the toolchain is not loaded first: {listed}")

    environment_for_python = {k: v for k, v in loaded.items() if k != "LD_LIBRARY_PATH"}
    python3 = shutil.which("python3", path=loaded["PATH"])
    check(python3 is not None, "no python3 on the module's PATH")
    imported = subprocess.run([python3, "-c", "import torch; print(torch.__version__)"],
                              capture_output=True, text=True, env=environment_for_python,
                              cwd=r.home, timeout=120)
    check(imported.returncode == 0, f"import torch failed:\n{imported.stderr}")
    check(imported.stdout.strip() == "2.6.0+cu126", f"torch.__version__: {imported.stdout}")
    print("import torch:", imported.stdout.strip())

    unloaded, _ = r.lmod(loaded, "unload", NAME)
    after = comparable(unloaded)
    if after != before:
        changed = sorted(set(before.items()) ^ set(after.items()))
        raise Failure(f"unload did not restore the environment: {changed}")
    check("EBROOTCUDA" not in unloaded, "unload left the dependencies loaded")


def lua(r):
    """The Lua module: written into <tmp>/modules (the default beside software/) with the
    moduleclass link, golden, loaded by Lmod."""
    r.install()
    modulepath = os.path.join(r.work, "modules")
    stub_names = r.stubs(modulepath)
    result = r.module(r.prefix)
    module_file = os.path.join(modulepath, "all", NAME + ".lua")
    check(f"file: {module_file}" in result.stdout, result.stdout)
    link = os.path.join(modulepath, "ai", NAME + ".lua")
    check(os.readlink(link) == os.path.join("..", "..", "all", NAME + ".lua"), os.readlink(link))
    r.golden("pytorch_cuda.lua", module_file)
    load_and_import(r, modulepath, stub_names)


def tcl(r):
    """The Tcl module (no extension), with Tcl stubs, golden, loaded by Lmod the same way."""
    r.install()
    modulepath = os.path.join(r.work, "tcl-modules")
    stub_names = r.stubs(modulepath, syntax="tcl")
    r.module(r.prefix, "--syntax", "tcl", "--modulepath", modulepath)
    module_file = os.path.join(modulepath, "all", NAME)
    with open(module_file) as handle:
        check(handle.readline() == "#%Module\n", "no #%Module line")
    r.golden("pytorch_cuda.tcl", module_file)
    load_and_import(r, modulepath, stub_names)


def install_module(r):
    """`install --module` writes the same file `wheelmod module` prints, and it loads."""
    r.install("--module")
    modulepath = os.path.join(r.work, "modules")
    module_file = os.path.join(modulepath, "all", NAME + ".lua")
    check(os.path.isfile(module_file), f"{module_file} not written")
    printed = r.module(r.prefix, "--stdout").stdout
    with open(module_file) as handle:
        check(handle.read() == printed, "install --module and module --stdout differ")
    load_and_import(r, modulepath, r.stubs(modulepath))
    # With --force both are replaced; without it, the existing module stops the install
    # before anything is downloaded or replaced.
    result = r.install("--module", "--force", "--syntax", "tcl")
    check(os.path.isfile(os.path.join(modulepath, "all", NAME)), "Tcl module not written")
    result = r.install("--module", "--syntax", "tcl", expect=2)
    check("--force" in result.stderr, result.stderr)


def hostile_text(r):
    """A Summary with ]==], braces, brackets, $, backslashes and quotes, and a description with
    a newline: Lmod shows the Lua module's text exactly, and loads the Tcl one."""
    prefix = os.path.join(r.work, "software", "Hostile", "1.0")
    dist = os.path.join(prefix, "lib", f"python{PYTHON}", "site-packages", "hostile-1.0.dist-info")
    os.makedirs(dist)
    os.makedirs(os.path.join(prefix, "easybuild"))
    summary = 'a ]==] b ]===] {x} [y] $HOME `id` \\ "q" }{ end\\'
    with open(os.path.join(dist, "METADATA"), "w") as handle:
        handle.write(f"Metadata-Version: 2.1\nName: hostile\nVersion: 1.0\nSummary: {summary}\n"
                     "Home-page: https://example.org/$x\n")
    with open(os.path.join(prefix, "easybuild", "wheelmod-install.json"), "w") as handle:
        handle.write('{"schema_version": 1, "toolchain": "SYSTEM", "python": "%s", "modules": [],'
                     ' "installed": [{"name": "hostile", "version": "1.0", "dist_info": '
                     '"lib/python%s/site-packages/hostile-1.0.dist-info"}]}' % (PYTHON, PYTHON))
    modulepath = os.path.join(r.work, "modules")
    r.module(prefix)
    r.module(prefix, "--syntax", "tcl", "--modulepath", os.path.join(r.work, "tcl"))
    environment, _ = r.lmod(r.base_environment(), "use", os.path.join(modulepath, "all"))
    loaded, _ = r.lmod(environment, "load", "Hostile/1.0")
    check(loaded.get("EBROOTHOSTILE") == prefix, "Lua module not loaded")
    _, whatis = r.lmod(loaded, "whatis", "Hostile/1.0")
    check(f"Description: {summary}\nThis module provides" in whatis, whatis)
    check("Homepage: https://example.org/$x" in whatis, whatis)
    _, help_text = r.lmod(loaded, "help", "Hostile/1.0")
    check(f"\n{summary}\nThis module provides" in help_text, help_text)

    environment, _ = r.lmod(r.base_environment(), "use", os.path.join(r.work, "tcl", "all"))
    loaded, _ = r.lmod(environment, "load", "Hostile/1.0")
    check(loaded.get("EBROOTHOSTILE") == prefix, "Tcl module not loaded")
    _, help_text = r.lmod(loaded, "help", "Hostile/1.0")
    # Lmod reads Tcl help through [===[ ]===]: wheelmod puts a space into that one sequence.
    check(summary.replace("]===]", "]=== ]") in help_text, help_text)


def errors(r):
    """No provenance: exit 2 with a hint; an existing module is kept without --force (exit 2)
    and replaced with it; a prefix outside the EasyBuild layout needs --modulepath."""
    bare = os.path.join(r.work, "software", "Bare", "1.0")
    os.makedirs(bare)
    result = r.module(bare, expect=2)
    check("wheelmod install" in result.stderr and "hint:" in result.stderr, result.stderr)
    check(not os.path.exists(os.path.join(r.work, "modules")), "a module tree was created")

    r.install()
    r.module(r.prefix)
    module_file = os.path.join(r.work, "modules", "all", NAME + ".lua")
    with open(module_file, "a") as handle:
        handle.write("-- edited by hand\n")
    stat = os.stat(module_file)
    result = r.module(r.prefix, expect=2)
    check("--force" in result.stderr, result.stderr)
    with open(module_file) as handle:
        check(handle.read().endswith("-- edited by hand\n"), "the module changed without --force")
    check(os.stat(module_file).st_ino == stat.st_ino, "the module was replaced without --force")
    r.module(r.prefix, "--force")
    with open(module_file) as handle:
        check("edited by hand" not in handle.read(), "--force did not replace the module")
    leftovers = [n for n in os.listdir(os.path.dirname(module_file)) if n.startswith(".")]
    check(not leftovers, f"temporary files left: {leftovers}")

    elsewhere = os.path.join(r.work, "elsewhere")
    shutil.copytree(r.prefix, elsewhere, symlinks=True)
    result = r.module(elsewhere, expect=2)
    check("--modulepath" in result.stderr, result.stderr)
    printed = r.module(elsewhere, "--stdout", "--name", "PyTorch", "--full-version", "x").stdout
    check('local root = "' + elsewhere + '"' in printed, printed)
    result = r.module(r.prefix, "--syntax", "csh", expect=2)
    check("--syntax" in result.stderr, result.stderr)


SCENARIOS = {f.__name__: f for f in (lua, tcl, install_module, hostile_text, errors)}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, extra_options=("--lmod",))


if __name__ == "__main__":
    sys.exit(main())
