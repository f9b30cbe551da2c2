#!/usr/bin/env python3
"""wheelmod at an EasyBuild site: EasyBuild's own configuration and locks.

    site_scenarios.py --wheelmod BIN --sample DIR SCENARIO

A site is a temporary EasyBuild installpath whose software/ holds the sample tree's modules
(symlinks). With only EASYBUILD_INSTALLPATH (or a configuration file) set, `wheelmod install
... --module` needs no --prefix, --eb-installpath or --modulepath: the prefix is EasyBuild's
name for the installation under software/, the module goes to modules/all/, the relink finds
the CUDA modules there, and torch imports. EasyBuild's lock on the same directory (a
`software/.locks/<dir with / as _>.lock` directory, as eb makes it) stops wheelmod with the
holder named, or is waited for when EASYBUILD_WAIT_ON_LOCK_LIMIT says so.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from scenario_support import check, run_expecting, scenario_main

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
NAME = "2.6.0-foss-2024a-CUDA-12.6.0-whl"


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.work = tempfile.mkdtemp(prefix="wheelmod-site-")
        self.site = os.path.join(self.work, "eb")
        software = os.path.join(self.site, "software")
        os.makedirs(software)
        for name in os.listdir(os.path.join(args.sample, "software")):
            os.symlink(os.path.join(args.sample, "software", name), os.path.join(software, name))
        self.prefix = os.path.join(software, "PyTorch", NAME)
        self.environment = {k: v for k, v in os.environ.items() if not k.startswith("EASYBUILD_")}
        self.environment["HOME"] = os.path.join(self.work, "home")
        self.environment["XDG_CONFIG_HOME"] = os.path.join(self.work, "home", ".config")
        self.environment["XDG_CONFIG_DIRS"] = os.path.join(self.work, "no-system-config")

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def install(self, *extra, env, expect=0):
        command = [self.wheelmod, "install", "torch==2.6.0", "torchvision", "--toolchain",
                   "foss-2024a", "--accelerator", "cuda", "--python", PYTHON, "--arch", "x86_64",
                   "--glibc", "2.28", "--index", "file://" + os.path.join(self.sample, "whl"),
                   "--cache-dir", os.path.join(self.work, "cache"), "--python-exe",
                   sys.executable, "--module", *extra]
        return run_expecting(command, expect, timeout=300, env=env)

    def imports(self):
        site = os.path.join(self.prefix, "lib", f"python{PYTHON}", "site-packages")
        environment = {k: v for k, v in self.environment.items() if k != "LD_LIBRARY_PATH"}
        environment["PYTHONPATH"] = site
        result = subprocess.run([sys.executable, "-c", "import torch, torchvision; "
                                 "print(torch.__version__)"], capture_output=True, text=True,
                                env=environment, timeout=120)
        check(result.returncode == 0, result.stderr)
        check(result.stdout.strip() == "2.6.0+cu126", result.stdout)

    def lock(self):
        return os.path.join(self.site, "software", ".locks",
                            self.prefix.replace("/", "_") + ".lock")


def installpath_only(r):
    """EASYBUILD_INSTALLPATH alone: prefix and module where eb puts them, modules found there."""
    env = dict(r.environment, EASYBUILD_INSTALLPATH=r.site)
    result = r.install(env=env)
    check(os.path.isdir(r.prefix), f"not installed at {r.prefix}: {os.listdir(r.site)}")
    check(f"prefix: {r.prefix} (from $EASYBUILD_INSTALLPATH)" in result.stderr, result.stderr)
    module = os.path.join(r.site, "modules", "all", "PyTorch", NAME + ".lua")
    check(os.path.isfile(module), f"no module at {module}")
    with open(module) as handle:
        text = handle.read()
    check('depends_on("CUDA/12.6.0")' in text, text)
    r.imports()
    check(not os.path.exists(r.lock()), "EasyBuild's lock was left behind")
    # The log of how it was made, beside the provenance (EasyBuild keeps its log there too).
    with open(os.path.join(r.prefix, "easybuild", "wheelmod-install.log")) as handle:
        log = handle.read()
    for line in ("resolved in", "variant cu126", "fetched in", "installed in",
                 "relinked lib/python", "byte-compiled", "check: ", "module: " + module):
        check(line in log, f"the log has no {line!r}:\n{log}")


def config_file(r):
    """The same from a configuration file in $XDG_CONFIG_HOME, as eb reads it (`wheelmod config`
    shows it and where it came from); the variable wins over the file."""
    config = os.path.join(r.environment["XDG_CONFIG_HOME"], "easybuild", "config.cfg")
    os.makedirs(os.path.dirname(config))
    with open(config, "w") as handle:
        handle.write(f"[config]\ninstallpath = {r.site}\nmodule-syntax = Lua\n")
    shown = json.loads(run_expecting([r.wheelmod, "config", "--format", "json"],
                                     env=r.environment).stdout)
    check(shown["software path"] == {"value": os.path.join(r.site, "software"),
                                     "origin": config + " [config]"}, shown)
    check(shown["EasyBuild config files"]["value"] == config, shown)
    r.install(env=r.environment)
    check(os.path.isdir(r.prefix), "not installed under the configured installpath")
    r.imports()
    elsewhere = os.path.join(r.work, "elsewhere")
    result = r.install("--force", env=dict(r.environment, EASYBUILD_INSTALLPATH=elsewhere),
                       expect=6)
    check(os.path.join(elsewhere, "software") in result.stderr,
          "the missing modules' error names where it looked: " + result.stderr)


def eb_lock(r):
    """An eb lock on the same directory: refused with exit 4 naming it; waited for with
    EASYBUILD_WAIT_ON_LOCK_LIMIT, then installed."""
    env = dict(r.environment, EASYBUILD_INSTALLPATH=r.site)
    os.makedirs(r.lock())
    result = r.install(env=env, expect=4)
    check(r.lock() in result.stderr and "an eb run" in result.stderr, result.stderr)
    check("EASYBUILD_WAIT_ON_LOCK_LIMIT" in result.stderr, result.stderr)
    check(not os.path.exists(r.prefix), "installed while eb held the lock")

    def release():
        time.sleep(2)
        os.rmdir(r.lock())
    releaser = threading.Thread(target=release)
    releaser.start()
    env.update(EASYBUILD_WAIT_ON_LOCK_LIMIT="60", EASYBUILD_WAIT_ON_LOCK_INTERVAL="1")
    result = r.install(env=env)
    releaser.join()
    check("waiting" in result.stderr, result.stderr)
    r.imports()


def lifecycle(r):
    """`wheelmod list` shows the installation from its provenance; `uninstall` refuses while
    another module loads it, then removes prefix, module file and moduleclass link."""
    env = dict(r.environment, EASYBUILD_INSTALLPATH=r.site)
    r.install(env=env)
    listed = json.loads(run_expecting([r.wheelmod, "list", "--format", "json"], env=env).stdout)
    names = [item["name"] for item in listed]
    check(names == ["PyTorch/" + NAME], names)
    check(listed[0]["torch"] == "2.6.0+cu126" and listed[0]["toolchain"] == "foss-2024a", listed)
    modules = os.path.join(r.site, "modules")
    module = os.path.join(modules, "all", "PyTorch", NAME + ".lua")
    links = [os.path.join(modules, c, "PyTorch", NAME + ".lua") for c in os.listdir(modules)
             if c != "all" and os.path.islink(os.path.join(modules, c, "PyTorch", NAME + ".lua"))]
    check(links, f"no moduleclass link in {os.listdir(modules)}")
    user = os.path.join(modules, "all", "MyModel", "1.0.lua")
    os.makedirs(os.path.dirname(user))
    with open(user, "w") as handle:
        handle.write(f'depends_on("PyTorch/{NAME}")\n')
    refused = run_expecting([r.wheelmod, "uninstall", "PyTorch/" + NAME], 2, env=env)
    check("MyModel/1.0.lua" in refused.stderr and "--force" in refused.stderr, refused.stderr)
    check(os.path.isdir(r.prefix) and os.path.isfile(module), "removed although refused")
    os.remove(user)
    removed = run_expecting([r.wheelmod, "uninstall", "PyTorch/" + NAME], 0, env=env)
    check(not os.path.exists(r.prefix), "the prefix is still there")
    check(not os.path.exists(module) and not any(os.path.lexists(link) for link in links),
          "the module file or its link is still there")
    check(module in removed.stdout, removed.stdout)
    left = json.loads(run_expecting([r.wheelmod, "list", "--format", "json"], env=env).stdout)
    check(left == [], left)
    again = run_expecting([r.wheelmod, "uninstall", "PyTorch/" + NAME], 2, env=env)
    check("not an installation wheelmod made" in again.stderr, again.stderr)


def index_configured(r):
    """The index named once: WHEELMOD_INDEX_URL, else the `index` of wheelmod's configuration
    file ($XDG_CONFIG_HOME/wheelmod/config.yaml, or $WHEELMOD_CONFIG_FILE), else the default;
    --index wins over both, the variable over the file; `wheelmod config` says which and from
    where; a mirror spec without `index` reads it too; a bad file is exit 2 at file:line:col."""
    index = "file://" + os.path.join(r.sample, "whl")
    missing = "file://" + os.path.join(r.work, "no-such-index")
    target = ["torch==2.6.0", "--python", "3.12", "--arch", "x86_64", "--glibc", "2.28",
              "--cache-dir", os.path.join(r.work, "cache"), "--format", "json"]

    def resolve(env, *extra, expect=0):
        return run_expecting([r.wheelmod, "resolve", *target, *extra], expect, env=env)

    def config(env):
        result = run_expecting([r.wheelmod, "config", "--format", "json"], 0, env=env)
        return json.loads(result.stdout)["index"]

    shown = config(r.environment)
    check(shown == {"value": "https://download.pytorch.org/whl", "origin": "the default"}, shown)
    # The variable.
    env = dict(r.environment, WHEELMOD_INDEX_URL=index)
    check(json.loads(resolve(env).stdout)["index"] == index, "the variable's index was not read")
    check(config(env) == {"value": index, "origin": "$WHEELMOD_INDEX_URL"}, config(env))
    result = resolve(env, "--index", missing, expect=4)
    check("no-such-index" in result.stderr, "--index does not win: " + result.stderr)
    # The user's configuration file, below the variable.
    config_dir = os.path.join(r.environment["XDG_CONFIG_HOME"], "wheelmod")
    os.makedirs(config_dir)
    config_path = os.path.join(config_dir, "config.yaml")
    with open(config_path, "w") as handle:
        handle.write("# the site's proxy of download.pytorch.org\nindex: " + index + "\n")
    check(json.loads(resolve(r.environment).stdout)["index"] == index, "the file was not read")
    check(config(r.environment) == {"value": index, "origin": config_path + ":2"},
          config(r.environment))
    result = resolve(dict(r.environment, WHEELMOD_INDEX_URL=missing), expect=4)
    check("no-such-index" in result.stderr, "the variable does not win: " + result.stderr)
    # A mirror spec without `index` reads the configured one.
    spec = os.path.join(r.work, "spec.yaml")
    with open(spec, "w") as handle:
        handle.write("variants: [cpu]\npackages: {torch: '==2.6.0'}\npython: ['3.12']\n"
                     "arches: [x86_64]\nglibc: '2.28'\ndependencies: false\n")
    result = run_expecting([r.wheelmod, "mirror", spec, "--dest", os.path.join(r.work, "m"),
                            "--dry-run", "--format", "json"], 0, env=r.environment)
    # (download.pytorch.org is out of reach here: a plan at all means the configured index.)
    files = [f["file"] for f in json.loads(result.stdout)["files"]]
    check(files == ["whl/cpu/torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl"],
          f"mirror did not read {index}: {files}")
    # $WHEELMOD_CONFIG_FILE names the one file; mistakes are exit 2 at their place.
    other = os.path.join(r.work, "site.yaml")
    for text, wanted in (("index: relative/path\n", "site.yaml:1:8"),
                         ("index: " + index + "\nindex-url: x\n", "site.yaml:2:1"),
                         ("index: [a\n", "site.yaml:")):
        with open(other, "w") as handle:
            handle.write(text)
        result = resolve(dict(r.environment, WHEELMOD_CONFIG_FILE=other), expect=2)
        check(wanted in result.stderr and "hint:" in result.stderr, result.stderr)
    result = resolve(dict(r.environment, WHEELMOD_CONFIG_FILE=other + ".gone"), expect=2)
    check("WHEELMOD_CONFIG_FILE" in result.stderr and "no such file" in result.stderr,
          result.stderr)


SCENARIOS = {f.__name__: f for f in (installpath_only, config_file, eb_lock, lifecycle,
                                      index_configured)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing).
CTEST = {"*": {"timeout": 300}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
