#!/usr/bin/env python3
"""The newcomer's rough edges, each as it is now (issue "wheelmod at a real EasyBuild site").

    rough_edges_scenarios.py --wheelmod BIN --sample DIR SCENARIO

Each scenario runs the command a new user would type and checks what it prints and its exit
code: a CPU install's module depends on no CUDA; no Python to byte-compile with is an error
naming how to give one (--no-compile skips on purpose); `check` on a tree with no ELF file warns
(exit 6 with --strict); a missing file:// index root is exit 4; misspelt subcommands and
toolchains get "did you mean"; global options work after the subcommand; --help lists choices
readably.
"""
import glob
import os
import shutil
import sys
import tempfile

from scenario_support import check, run_expecting, scenario_main

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
TARGET = ["--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28"]


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.index = "file://" + os.path.join(args.sample, "whl")
        self.work = tempfile.mkdtemp(prefix="wheelmod-edges-")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("EASYBUILD_", "EBROOT", "EBVERSION"))}

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def run(self, *args, expect=0):
        return run_expecting([self.wheelmod, *args], expect, timeout=300, env=self.env)

    def install(self, prefix, *extra, expect=0):
        return self.run("install", "torch==2.6.0", "--toolchain", "foss-2024a", *TARGET,
                        "--index", self.index, "--cache-dir", os.path.join(self.work, "cache"),
                        "--eb-installpath", self.sample, "--prefix", prefix, *extra,
                        expect=expect)


def cpu_module_no_cuda(r):
    """A CPU install's module loads on a site without CUDA: no depends_on CUDA."""
    prefix = os.path.join(r.work, "software", "PyTorch", "2.6.0-foss-2024a-whl")
    modules = os.path.join(r.work, "modules")
    r.install(prefix, "--python-exe", sys.executable, "--module", "--modulepath", modules)
    text = open(os.path.join(modules, "all", "PyTorch", "2.6.0-foss-2024a-whl.lua")).read()
    check("CUDA" not in text, text)
    check('depends_on("Python/' in text, text)


def compile_python_required(r):
    """No --python-exe and no loaded Python module: exit 2 naming the module to load, before
    anything is downloaded; --no-compile installs without .pyc files on purpose."""
    prefix = os.path.join(r.work, "nocompile")
    result = r.install(prefix, expect=2)
    check("no Python to byte-compile with" in result.stderr, result.stderr)
    check("module load Python/3.12.3-GCCcore-13.3.0" in result.stderr
          and "--no-compile" in result.stderr, result.stderr)
    check(not os.path.exists(prefix), "a prefix was left behind")
    r.install(prefix, "--no-compile")
    check(not glob.glob(os.path.join(prefix, "**", "*.pyc"), recursive=True), "compiled anyway")


def check_no_elf(r):
    """`check` on a directory with no ELF file warns (exit 0), and fails with --strict."""
    empty = os.path.join(r.work, "empty")
    os.makedirs(empty)
    result = r.run("check", empty)
    check("warning: " in result.stderr and "no ELF file" in result.stderr, result.stderr)
    check("nothing to resolve" in result.stdout and "every library" not in result.stdout,
          result.stdout)
    result = r.run("check", empty, "--strict", expect=6)
    check("no ELF file to check" in result.stderr, result.stderr)


def missing_file_root(r):
    """A file:// index root that does not exist is exit 4 (file system), not 3."""
    missing = "file://" + os.path.join(r.work, "no-such-index")
    result = r.run("resolve", "torch", *TARGET, "--index", missing, expect=4)
    check("no such directory" in result.stderr, result.stderr)


def did_you_mean(r):
    """Misspelt subcommands, toolchains and projects get the nearest name."""
    result = r.run("resolv", "torch", expect=2)
    check("did you mean 'resolve'?" in result.stderr, result.stderr)
    result = r.run("resolve", "torch", "--toolchain", "foss-2024", "--index", r.index, expect=2)
    check("did you mean foss-2024a?" in result.stderr, result.stderr)
    # A project no page of the index has: the pages asked are named with what each answered
    # (the root page is a hint, not proof: the project and variant pages are asked first), and
    # the nearest name the index's root page lists is suggested.
    result = r.run("resolve", "torchvison", *TARGET, "--accelerator", "cu126", "--index",
                   r.index, expect=3)
    check("no page of the index lists project 'torchvison'" in result.stderr
          and "did you mean 'torchvision'?" in result.stderr, result.stderr)
    for asked in ("/torchvison/: no such file", "/cu126/torchvison/: no such file"):
        check(asked in result.stderr, f"{asked!r} not in: {result.stderr}")


def global_options_anywhere(r):
    """-q after the subcommand silences progress and warnings as before it."""
    before = r.run("-q", "resolve", "torch==2.6.0", "--accelerator", "cu126", *TARGET,
                   "--index", r.index, "--driver", "none")
    after = r.run("resolve", "torch==2.6.0", "--accelerator", "cu126", *TARGET,
                  "--index", r.index, "--driver", "none", "-q")
    check(after.stderr == before.stderr == "", f"{before.stderr!r} / {after.stderr!r}")
    check(after.stdout == before.stdout, "the report differs")


def readable_help(r):
    """--help names choices as the user types them, not CLI11's enum mapping."""
    text = r.run("resolve", "--help").stdout
    check("text|json|markdown" in text and "->" not in text, text)
    text = r.run("install", "--help").stdout
    check("strip|keep" in text and "->" not in text, text)


def relink_from_provenance(r):
    """relink takes the toolchain, modules and software path from the provenance when
    --toolchain is not given, check its allowed directories; a tree wheelmod did not make
    still needs --toolchain. mirror has no --no-cache (it has no cache)."""
    prefix = os.path.join(r.work, "software", "PyTorch", "2.6.0-foss-2024a-CUDA-12.6.0-whl")
    r.install(prefix, "--accelerator", "cuda", "--python-exe", sys.executable)
    r.run("relink", prefix, "--eb-installpath", r.sample)
    # relink and check also take the software path from the provenance: the CUDA modules the
    # install was relinked at are expected, not listed as loaded from outside.
    r.run("relink", prefix)
    checked = r.run("check", prefix)
    check("outside" not in checked.stdout and "every library resolves" in checked.stdout,
          checked.stdout)
    other = os.path.join(r.work, "other")
    os.makedirs(other)
    result = r.run("relink", other, expect=2)
    check("wheelmod-install.json" in result.stderr, result.stderr)
    check("--no-cache" not in r.run("mirror", "--help").stdout, "mirror offers --no-cache")


SCENARIOS = {f.__name__: f for f in (
    cpu_module_no_cuda, compile_python_required, check_no_elf, missing_file_root, did_you_mean,
    global_options_anywhere, readable_help, relink_from_provenance)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing).
CTEST = {"*": {"timeout": 300}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
