#!/usr/bin/env python3
"""`wheelmod relink` on the sample torch wheel: real ELF files, real loading.

    relink_scenarios.py --wheelmod BIN --sample DIR SCENARIO

The sample torch cu126 wheel carries real shared libraries whose DT_RPATH
names the nvidia-* wheel directories, as the real torch does; the sample
EasyBuild tree (DIR/software) has CUDA, cuDNN, NCCL and cuSPARSELt modules
with the libraries they need. Unpacked into a prefix, `import torch` fails
(nothing there); relinked at the modules, it works — with LD_LIBRARY_PATH
unset, as a module that sets no library path must.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

from scenario_support import check, run_expecting, scenario_main


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.work = tempfile.mkdtemp(prefix="wheelmod-relink-")
        self.python = f"{sys.version_info.major}.{sys.version_info.minor}"

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def unpack_torch(self, name="PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl"):
        """The sample cu126 torch wheel for this Python, unpacked as an installer would."""
        tag = f"cp{self.python.replace('.', '')}"
        wheel = os.path.join(self.sample, "whl", "cu126",
                             f"torch-2.6.0+cu126-{tag}-{tag}-manylinux_2_28_x86_64.whl")
        check(os.path.exists(wheel), f"no sample wheel for Python {self.python}: {wheel}")
        prefix = os.path.join(self.work, name)
        site = os.path.join(prefix, "lib", f"python{self.python}", "site-packages")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site)
        return prefix, site

    def run(self, *args, expect=0):
        command = [self.wheelmod, *args]
        return run_expecting(command, expect)


def import_torch(site):
    """python3 -c 'import torch' against the prefix, with no library path."""
    environment = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    environment["PYTHONPATH"] = site
    return subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True, env=environment, timeout=60)


def rpath_of(path):
    output = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    for line in output.splitlines():
        if "(RPATH)" in line or "(RUNPATH)" in line:
            kind = "RPATH" if "(RPATH)" in line else "RUNPATH"
            return kind, line.split("[", 1)[1].rsplit("]", 1)[0]
    return None, None


def digests(root):
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = hashlib.sha256(handle.read()).hexdigest()
    return out


def cuda_modules(r):
    """Unpacked: import fails. Relinked at the sample modules: RPATH points there, import works."""
    prefix, site = r.unpack_torch()
    before = import_torch(site)
    check(before.returncode != 0, "import torch worked before relinking: the test proves nothing")
    print("before:", before.stderr.strip().splitlines()[-1])

    report = json.loads(r.run("relink", prefix, "--toolchain", "foss-2024a", "--eb-installpath",
                              r.sample, "--format", "json").stdout)
    software = os.path.join(r.sample, "software")
    files = {f["file"]: f for f in report["files"]}
    check(report["elf_files"] >= 8, f"only {report['elf_files']} ELF files seen")
    cuda = files[f"lib/python{r.python}/site-packages/torch/lib/libtorch_cuda.so"]
    check(cuda["method"] in ("in place", "appended", "patchelf"), f"libtorch_cuda.so: {cuda['method']}")
    kind, value = rpath_of(os.path.join(prefix, cuda["file"]))
    check(kind == "RPATH", f"libtorch_cuda.so has {kind}, EasyBuild expects RPATH")
    check(value == cuda["new"], f"readelf shows {value}, the report says {cuda['new']}")
    for module_dir in ("CUDA/12.6.0/lib64", "cuDNN/9.5.0.50-CUDA-12.6.0/lib"):
        check(os.path.join(software, module_dir) in value.split(":"), f"{module_dir} not in {value}")
    check("nvidia" not in value, f"an nvidia-* wheel directory is left: {value}")

    after = import_torch(site)
    check(after.returncode == 0, f"import torch failed after relinking:\n{after.stderr}")
    check(after.stdout.strip() == "2.6.0+cu126", f"torch.__version__ = {after.stdout.strip()}")


def dry_run(r):
    """--dry-run reports the change and writes nothing."""
    prefix, _ = r.unpack_torch()
    before = digests(prefix)
    result = r.run("relink", prefix, "--toolchain", "foss-2024a", "--eb-installpath", r.sample,
                   "--dry-run")
    check("would change" in result.stdout and "old: $ORIGIN/../../nvidia" in result.stdout,
          f"no old -> new listing:\n{result.stdout}")
    check(digests(prefix) == before, "--dry-run changed files")


def waits_for_install_lock(r):
    """A relink waits while another wheelmod holds the prefix's lock (an install --force of
    it: `.NAME.wheelmod.lock` beside the prefix), says so, and relinks once it is released."""
    import fcntl
    prefix, site = r.unpack_torch()
    lock_file = os.path.join(os.path.dirname(prefix), f".{os.path.basename(prefix)}.wheelmod.lock")
    with open(lock_file, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        process = subprocess.Popen([r.wheelmod, "relink", prefix + "/", "--toolchain", "foss-2024a",
                                    "--eb-installpath", r.sample], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        check(process.poll() is None, "relink did not wait for the lock")
        check("nvidia" in rpath_of(os.path.join(site, "torch", "lib", "libtorch_cuda.so"))[1],
              "relink changed the prefix while the lock was held")
    out, err = process.communicate(timeout=120)
    check(process.returncode == 0, f"relink failed after the lock was released:\n{err}")
    check(str(os.getpid()) in err, f"the wait did not name the holder:\n{err}")
    check("nvidia" not in rpath_of(os.path.join(site, "torch", "lib", "libtorch_cuda.so"))[1],
          "not relinked after the wait")


def missing_module(r):
    """No module provides cuDNN & co: exit 6 naming the packages, nothing written."""
    prefix, _ = r.unpack_torch()
    empty = os.path.join(r.work, "empty-installpath")
    os.makedirs(os.path.join(empty, "software"))
    before = digests(prefix)
    environment_free = {k: v for k, v in os.environ.items() if not k.startswith("EBROOT")}
    command = [r.wheelmod, "relink", prefix, "--toolchain", "foss-2024a", "--eb-installpath", empty]
    result = subprocess.run(command, capture_output=True, text=True, env=environment_free, timeout=120)
    print("ran:", " ".join(command), "->", result.returncode)
    check(result.returncode == 6, f"exit {result.returncode}, expected 6:\n{result.stderr}")
    for needle in ("nvidia-cudnn-cu12", "--eb-installpath", "site-packages/torch/lib/lib"):
        check(needle in result.stderr, f"{needle!r} not in:\n{result.stderr}")
    check(digests(prefix) == before, "a failed relink changed files")


def check_before_after(r):
    """`wheelmod check`: the unpacked wheel fails (exit 6, naming the CUDA libraries and the
    files that need them); relinked, every library resolves."""
    prefix, _ = r.unpack_torch()
    result = r.run("check", prefix, "--format", "json", expect=6)
    report = json.loads(result.stdout)
    missing = {item["library"] for item in report["unresolved"]}
    check({"libcudart.so.12", "libcublas.so.12"} <= missing, f"unresolved: {sorted(missing)}")
    check(any(item["file"].endswith("torch/lib/libtorch_cuda.so") for item in report["unresolved"]),
          "libtorch_cuda.so is not among the failing files")
    check("cannot be found without LD_LIBRARY_PATH" in result.stderr, result.stderr)
    r.run("relink", prefix, "--toolchain", "foss-2024a", "--eb-installpath", r.sample)
    after = r.run("check", prefix, "--allow", r.sample)
    check("every library resolves" in after.stdout, after.stdout)


def not_a_prefix(r):
    """A directory without lib/pythonX.Y/site-packages: exit 2."""
    result = r.run("relink", r.work, "--toolchain", "foss-2024a", expect=2)
    check("site-packages" in result.stderr, result.stderr)


SCENARIOS = {f.__name__: f for f in (cuda_modules, dry_run, waits_for_install_lock, missing_module, check_before_after,
                                      not_a_prefix)}

# How CTest runs them (--list): the relinks and checks of CUDA libraries run a second time where a
# compute node stands (node_view: no host CUDA in the linker cache).
CTEST = {name: {"node_view": True} for name in ("cuda_modules", "missing_module",
                                                  "check_before_after")}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
