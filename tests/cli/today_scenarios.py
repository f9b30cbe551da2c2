#!/usr/bin/env python3
"""Today's index and today's EasyBuild, end to end on the sample (docs/index-today.md).

    today_scenarios.py --wheelmod BIN --sample DIR --lmod LMOD SCENARIO

The main job for the stacks HPC sites install in December 2026: torch 2.10 with torchvision and
torchaudio for foss-2025b (CUDA 12.9.1), torch 2.12 for foss-2026.1 with CUDA 13 (the cu130
wheels, whose libraries are NVIDIA's real CUDA 13 ones where this image has /usr/local/cuda),
torch 2.10 for ROCm 7.1; each resolved, installed (relinked, checked), imported with
LD_LIBRARY_PATH unset, its module loaded with real Lmod, its easyconfigs written and passed
through tests/easyconfig/check_easyconfig.py; aarch64 resolved and written too. Then one
scenario per quirk of today's index, each failing without its handling.

The sample's new releases are cp313 (foss-2025b's Python 3.13) and cp314 (foss-2026.1's 3.14):
there is no CPython 3.14 on this machine, so the 2026.1 install targets 3.13 (--python 3.13).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from node_view import NodeView
from scenario_support import (Failure, check, lmod_apply, run_expecting, scenario_main,
                              write_stand_in_module)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "easyconfig"))
import check_easyconfig  # noqa: E402

X86 = ["--arch", "x86_64", "--glibc", "2.28"]
ARM = ["--arch", "aarch64", "--glibc", "2.28"]
EB2025B = ["--toolchain", "foss-2025b", "--accelerator", "cuda"]
EB2026 = ["--toolchain", "foss-2026.1", "--accelerator", "cu130", "--python", "3.13"]
# An easyconfig is for its toolchain's Python (3.14): the sample has cp314 wheels of 2.12.
EB2026_EASYCONFIG = ["--toolchain", "foss-2026.1", "--accelerator", "cu130"]
STACK_210 = ["torch==2.10.0", "torchvision", "torchaudio"]
CUDA13_TREE = "/usr/local/cuda"

# A site's own NVSHMEM for CUDA 13: easybuild-easyconfigs has none for 2026.1 at 9ba1c109
# (config/eb-dependencies.yaml says so), so the site adds its module with --config, as the
# sample tree has it.
SITE_NVSHMEM = """schema: 1
generations:
  '2026.1':
    cuda:
      nvidia-nvshmem-cu13:
        wheel_libdir: 'nvidia/nvshmem/lib'
        libraries: ['libnvshmem_host.so.3']
        provided_by:
          - {module: 'NVSHMEM/3.4.5-gompi-2026.1-CUDA-13.3.0', name: NVSHMEM,
             version: '3.4.5', libdir: 'lib', cuda: '13.3.0'}
"""


def python313():
    """The real path of a CPython 3.13 (the image's pyenv one), or a Failure saying so. pyenv's
    shim answers only for the versions pyenv has selected, so its versions/ are looked in."""
    roots = [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv"), "/opt/pyenv"]
    candidates = [path for root in roots if root
                  for path in sorted(glob.glob(os.path.join(root, "versions", "3.13*", "bin",
                                                            "python3.13")))]
    candidates += [path for path in ("/usr/bin/python3.13", "/usr/local/bin/python3.13")
                   if os.path.exists(path)]
    for path in candidates:
        result = subprocess.run([path, "-c", "import sys; print(sys.executable)"],
                                capture_output=True, text=True, timeout=60)
        if result.returncode == 0:
            return result.stdout.strip()
    raise Failure("needs a CPython 3.13 (the image's pyenv one under ~/.pyenv/versions/3.13*): "
                  "none found")


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.lmod_cmd = args.lmod
        self.work = tempfile.mkdtemp(prefix="wm-today-", dir="/tmp")
        self.index = "file://" + os.path.join(args.sample, "whl")
        self.cache = os.path.join(self.work, "cache")
        self.home = os.path.join(self.work, "home")
        os.makedirs(self.home)
        self.site_config = os.path.join(self.work, "site-config")
        os.makedirs(self.site_config)
        with open(os.path.join(self.site_config, "eb-dependencies.yaml"), "w") as handle:
            handle.write(SITE_NVSHMEM)
        with open(os.path.join(args.sample, "MANIFEST.json")) as handle:
            self.manifest = json.load(handle)
        # Where the EasyBuild modules are, and how commands that load libraries run: the sample's
        # tree on this machine, or a compute node's view of it (enter_node_view).
        self.eb_tree = self.sample
        self.node = None

    def enter_node_view(self):
        """From now on install, check, imports and module loads run as on a compute node
        (node_view.py): the host's CUDA invisible, NVIDIA's libraries only in the modules."""
        self.node = NodeView(self.work, os.path.join(self.sample, "software"))
        self.eb_tree = self.node.root

    def wrapped(self, argv):
        return self.node.wrap(argv) if self.node else list(argv)

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def wheelmod_run(self, *args, expect=0, timeout=300):
        return run_expecting([self.wheelmod, *args], expect, timeout=timeout)

    def resolve(self, *args, expect=0):
        result = self.wheelmod_run("resolve", *args, "--index", self.index, "--cache-dir",
                                   self.cache, "--format", "json", expect=expect)
        return json.loads(result.stdout) if expect == 0 else result

    def install(self, prefix, *args, python_exe):
        return run_expecting(self.wrapped([
            self.wheelmod, "-q", "install", *args, "--index", self.index, "--cache-dir",
            self.cache, "--eb-installpath", self.eb_tree, "--python-exe", python_exe,
            "--prefix", prefix]), 0, timeout=300)

    def check_prefix(self, prefix):
        """`wheelmod check PREFIX --format json` where the libraries load; its report."""
        result = run_expecting(self.wrapped([self.wheelmod, "check", prefix, "--format", "json"]),
                               0, timeout=300)
        return json.loads(result.stdout)

    def python(self, python_exe, prefix, code):
        """`code` run by `python_exe` with the prefix's site-packages, LD_LIBRARY_PATH unset."""
        environment = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        environment["PYTHONPATH"] = site_of(prefix)
        result = subprocess.run(self.wrapped([python_exe, "-c", code]), capture_output=True,
                                text=True, env=environment, timeout=120)
        check(result.returncode == 0, f"{code} failed:\n{result.stderr}")
        return result.stdout.strip()

    def easyconfigs(self, name, *args):
        """Writes easyconfigs into a fresh directory; every file passes the checker for the
        architectures asked; returns {file: {arch: params}}."""
        out = os.path.join(self.work, name)
        self.wheelmod_run("-q", "easyconfig", *args, "--index", self.index, "--cache-dir",
                          self.cache, "--output-dir", out)
        arches = tuple(args[args.index("--arch") + 1].split(",")) if "--arch" in args else (
            "x86_64", "aarch64")
        evaluated = {}
        for name in sorted(os.listdir(out)):
            problems, params = check_easyconfig.check_file(os.path.join(out, name), arches)
            check(not problems, f"{name}:\n" + "\n".join(problems))
            evaluated[name] = params
        check(evaluated, f"no easyconfig written into {out}")
        return evaluated

    def lmod(self, environment, *args):
        changed, ok, stderr = lmod_apply(self.lmod_cmd, environment, *args)
        if not ok:
            raise Failure(f"lmod {' '.join(args)} failed:\n{stderr}")
        return changed, stderr

    def module_loads(self, prefix, name, python_exe, probe):
        """`wheelmod module PREFIX`, stub modules for what it depends on (each sets its EBROOT to
        the sample tree's directory), `module load` with real Lmod, then `probe` run by the
        module's python3 with LD_LIBRARY_PATH unset; returns what it prints."""
        modulepath = os.path.join(self.work, "modules-" + name.replace("/", "_"))
        # --force: the Python given to install may differ from the generation's (2026.1 has
        # Python 3.14; this machine runs the wheels with 3.13).
        self.wheelmod_run("-q", "module", prefix, "--modulepath", modulepath, "--force")
        with open(os.path.join(prefix, "easybuild", "wheelmod-install.json")) as handle:
            provenance = json.load(handle)
        for module in [provenance["toolchain_module"], *provenance["modules"]]:
            path = write_stand_in_module(
                modulepath, module, os.path.join(self.eb_tree, "software", *module.split("/", 1)))
            if module.startswith("Python/"):  # the interpreter this machine has for the target
                with open(path, "a") as handle:
                    handle.write(f'prepend_path("PATH", "{os.path.dirname(python_exe)}")\n')
        environment = {"HOME": self.home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        environment, _ = self.lmod(environment, "use", os.path.join(modulepath, "all"))
        loaded, _ = self.lmod(environment, "load", name)
        check(loaded.get("EBROOTPYTORCH") == prefix, f"EBROOTPYTORCH={loaded.get('EBROOTPYTORCH')}")
        environment = {k: v for k, v in loaded.items() if k != "LD_LIBRARY_PATH"}
        result = subprocess.run(self.wrapped([python_exe, "-c", probe]), capture_output=True,
                                text=True, env=environment, cwd=self.home, timeout=120)
        check(result.returncode == 0, f"{probe} under the module failed:\n{result.stderr}")
        return result.stdout.strip()


def deps(wheel):
    return {d["name"]: d for d in wheel["dependencies"]}


def by_name(report):
    return {w["name"]: w for w in report["wheels"]}


def site_of(prefix, python="3.13"):
    return os.path.join(prefix, "lib", f"python{python}", "site-packages")


def run_python(python_exe, prefix, code):
    environment = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    environment["PYTHONPATH"] = site_of(prefix)
    result = subprocess.run([python_exe, "-c", code], capture_output=True, text=True,
                            env=environment, timeout=120)
    check(result.returncode == 0, f"{code} failed:\n{result.stderr}")
    return result.stdout.strip()


def nvidia_requirements(report):
    return [d for w in report["wheels"] for d in w["dependencies"]
            if d["name"].startswith("nvidia-") or d["name"] == "cuda-toolkit"]


# ---- the stacks -----------------------------------------------------------------------------

def eb2025b_cuda(r, node=False):
    """torch 2.10 + torchvision + torchaudio for foss-2025b and its CUDA 12.9.1: cu129, exact;
    installed, relinked at the sample's 2025b modules, imported, loaded with Lmod, easyconfigs."""
    python = python313()
    report = r.resolve(*STACK_210, *EB2025B, *X86)
    check(report["variant"]["name"] == "cu129", report["variant"])
    check(report["variant"]["exact"], report["variant"])
    check(report["variant"]["minimum_driver"] == "525.60.13", report["variant"])
    wheels = by_name(report)
    check(wheels["torch"]["version"] == "2.10.0+cu129", wheels["torch"]["version"])
    nvidia = nvidia_requirements(report)
    check(nvidia, "torch 2.10.0+cu129 requires nvidia-* packages")
    for dependency in nvidia:
        check(dependency["resolution"] == "module", f"{dependency['name']}: {dependency}")
    if node:
        r.enter_node_view()
    prefix = os.path.join(r.work, "software", "PyTorch", "2.10.0-foss-2025b-CUDA-12.9.1-whl")
    r.install(prefix, *STACK_210, *EB2025B, *X86, "--python", "3.13", python_exe=python)
    answers, libraries = imported(r, python, prefix, "import torchvision, torchaudio",
                                  "torch.__version__, torch._C._runtime_version()")
    check(answers == ["2.10.0+cu129", 12090], answers)
    if node:
        node_checks(r, prefix, libraries)
    loaded = r.module_loads(prefix, "PyTorch/2.10.0-foss-2025b-CUDA-12.9.1-whl", python,
                            "import torch; print(torch.__version__)")
    check(loaded == "2.10.0+cu129", loaded)
    if node:
        return
    files = r.easyconfigs("ec-2025b", *STACK_210, *EB2025B, "--arch", "x86_64")
    check(any(name.startswith("PyTorch-2.10.0-foss-2025b-CUDA-12.9.1") for name in files),
          sorted(files))


def eb2025b_cuda_node(r):
    """eb2025b_cuda where a compute node stands (node_view.py): no host CUDA in the linker cache,
    every CUDA library from the modules; install, check, import and module load there."""
    eb2025b_cuda(r, node=True)


# What the import probe prints: the answers asked for, then every shared object the process
# mapped (/proc/self/maps), so a test sees where each CUDA library came from.
IMPORT_PROBE = """import json, torch
{imports}
answers = [{answers}]
mapped = sorted({{line.split()[-1] for line in open("/proc/self/maps")
                 if ".so" in line.split()[-1].rsplit("/", 1)[-1]}})
print(json.dumps({{"answers": answers, "libraries": mapped}}))
"""

# The libraries a CUDA build of torch takes from the CUDA, cuDNN, NCCL, cuSPARSELt and NVSHMEM
# modules (not libcuda.so.1, the driver's, absent here).
CUDA_LIBRARY = re.compile(r"/lib(cublas|cublasLt|cudart|cufft|cufile|cupti|curand|cusolver|"
                          r"cusparse|cusparseLt|nvJitLink|nvrtc|nvrtc-builtins|nvToolsExt|"
                          r"nvtx3interop|cudnn[a-z_]*|nccl|nvshmem_host)\.so[.0-9]*$")


def imported(r, python, prefix, imports, answers):
    """Imports torch (and `imports`) with LD_LIBRARY_PATH unset; (answers, {library: path}) of
    the CUDA libraries the process loaded. Prints each, for the log."""
    report = json.loads(r.python(python, prefix, IMPORT_PROBE.format(imports=imports,
                                                                     answers=answers)))
    libraries = {}
    for path in report["libraries"]:
        if CUDA_LIBRARY.search(path):
            libraries[os.path.basename(path)] = path
            print(f"  loaded {os.path.basename(path)}: {path}")
    check(libraries, f"torch loaded no CUDA library: {report['libraries']}")
    return report["answers"], libraries


def node_checks(r, prefix, libraries):
    """In the node view: every CUDA library torch loaded came through the module tree, and
    `wheelmod check` passes with nothing misplaced."""
    elsewhere = {name: path for name, path in libraries.items()
                 if not r.node.is_module_path(path)}
    check(not elsewhere, f"CUDA libraries loaded from outside the modules: {elsewhere}")
    report = r.check_prefix(prefix)
    check(report["passed"] and report.get("misplaced") == [], report)


def eb2025b_aarch64(r):
    """The same for aarch64: no cu129 aarch64 wheel, so cu128 (closest lower, the report says
    why); its torchvision/torchaudio carry no +cu128 label and are taken; easyconfigs."""
    report = r.resolve(*STACK_210, *EB2025B, *ARM)
    check(report["variant"]["name"] == "cu128", report["variant"])
    check(not report["variant"]["exact"], report["variant"])
    check("cu129 has no torch==2.10.0 for this target" in report["variant"]["reason"],
          report["variant"]["reason"])
    wheels = by_name(report)
    check(wheels["torch"]["version"] == "2.10.0+cu128", wheels["torch"]["version"])
    check(wheels["torchvision"]["version"] == "0.25.0", wheels["torchvision"]["version"])
    check(wheels["torchaudio"]["version"] == "2.10.0", wheels["torchaudio"]["version"])
    check(deps(wheels["torchvision"])["torch"]["resolution"] == "wheel", "torchvision -> torch")
    r.easyconfigs("ec-2025b-arm", *STACK_210, "--toolchain", "foss-2025b", "--accelerator", "cu128",
                  "--arch", "aarch64")


def eb2026_cu13(r, accelerator, node):
    """torch 2.12 for foss-2026.1 with CUDA 13 (`accelerator`: cu130 or cu132, both run by the
    CUDA/13.3.0 module): every CUDA requirement of its METADATA (the cuda-toolkit[...] metapackage
    with its extras, nvidia-cublas as a range, -cu13 cuDNN/NCCL/NVSHMEM/cuSPARSELt) mapped to a
    module, none bundled; installed and relinked at
    the sample's CUDA 13 modules, whose libraries are NVIDIA's real CUDA 13 ones: torch answers
    the real cudaRuntimeGetVersion, cudnnGetVersion, ncclGetVersion with LD_LIBRARY_PATH unset;
    module loaded with Lmod; easyconfigs (on this machine's view)."""
    check(os.path.isfile(os.path.join(CUDA13_TREE, "lib", "libcudart.so.13")),
          f"needs the CUDA 13 tree at {CUDA13_TREE} (this project's machine image carries it)")
    python = python313()
    stack = ["torch==2.12.0", "--config", r.site_config]
    selection = ["--toolchain", "foss-2026.1", "--accelerator", accelerator, "--python", "3.13"]
    report = r.resolve(*stack, *selection, *X86)
    check(report["variant"]["name"] == accelerator, report["variant"])
    check(report["variant"]["minimum_driver"] == "580", report["variant"])
    nvidia = nvidia_requirements(report)
    # What the sample's torch METADATA asks for (the facts table's row): since 2.11 the
    # cuda-toolkit metapackage stands for the toolkit's components.
    torch_file = by_name(report)["torch"]["filename"]
    entry = next(w for w in r.manifest["wheels"] if w["filename"] == torch_file)
    wanted = {re.match(r"[A-Za-z0-9._-]+", line).group(0) for line in entry["requires_dist"]}
    wanted = {name for name in wanted if name.startswith("nvidia-") or name == "cuda-toolkit"}
    check("cuda-toolkit" in wanted and {d["name"] for d in nvidia} == wanted,
          f"{accelerator} torch requires {sorted(wanted)}: {nvidia}")
    for dependency in nvidia:
        check(dependency["resolution"] == "module"
              and dependency["compatibility"] != "incompatible",
              f"{dependency['name']}: {dependency}")
    check(not [w for w in report["wheels"] if w["name"].startswith("nvidia-")],
          "an nvidia-* wheel was bundled")
    if node:
        r.enter_node_view()
    prefix = os.path.join(r.work, "software", "PyTorch", "2.12.0-foss-2026.1-CUDA-13.3.0-whl")
    r.install(prefix, *stack, *selection, *X86, python_exe=python)
    answers, libraries = imported(r, python, prefix, "", "torch._C._runtime_version(), "
                                  "torch._C._cudnn_version(), torch._C._nccl_version()")
    tree = r.manifest["cuda13_tree"]
    check(tree, "the sample was built without the CUDA 13 tree (MANIFEST cuda13_tree is null)")
    real = tree["api_versions"]  # what the real libraries answer, read when the sample was built
    expected = [real["cudart"], real["cudnn"], real["nccl"]]
    check(answers == expected, f"torch answered {answers}, the real libraries say {expected}")
    check("libcupti.so.13" in libraries, f"torch loaded no libcupti.so.13: {sorted(libraries)}")
    if node:
        node_checks(r, prefix, libraries)
    loaded = r.module_loads(prefix, "PyTorch/2.12.0-foss-2026.1-CUDA-13.3.0-whl", python,
                            "import torch; print(torch._C._runtime_version())")
    check(loaded == str(real["cudart"]), loaded)
    if not node and accelerator == "cu130":
        r.easyconfigs("ec-2026", *stack, *EB2026_EASYCONFIG, "--arch", "x86_64")


def eb2026_cu130(r):
    """torch 2.12 cu130 for foss-2026.1 on this machine (eb2026_cu13)."""
    eb2026_cu13(r, "cu130", node=False)


def eb2026_cu130_node(r):
    """torch 2.12 cu130 for foss-2026.1 where a compute node stands (node_view.py): no host CUDA
    in the linker cache and the CUDA tree empty; install, check, import and module load there,
    every CUDA library (libcupti.so.13 from CUDA's extras/CUPTI/lib64 included) from the modules."""
    eb2026_cu13(r, "cu130", node=True)


def eb2026_cu132_node(r):
    """torch 2.12 cu132 for foss-2026.1 (CUDA/13.3.0 runs 13.2 wheels) in the node view."""
    eb2026_cu13(r, "cu132", node=True)


def eb2026_site_module(r):
    """The site's installed module counts where the table has none: foss-2026.1's table names no
    NVSHMEM for CUDA 13, the site's tree has NVSHMEM/3.4.5-gompi-2026.1-CUDA-13.3.0. Without
    --config the install finds it (a note says "installed here"), links libnvshmem_host.so.3 from
    it and records it; in the node view torch imports with it. (Before: exit 6, "no module of
    2026.1 provides" it.)"""
    check(os.path.isfile(os.path.join(CUDA13_TREE, "lib", "libcudart.so.13")),
          f"needs the CUDA 13 tree at {CUDA13_TREE} (this project's machine image carries it)")
    python = python313()
    r.enter_node_view()
    prefix = os.path.join(r.work, "software", "PyTorch", "2.12.0-foss-2026.1-CUDA-13.3.0-whl")
    selection = ["--toolchain", "foss-2026.1", "--accelerator", "cu130", "--python", "3.13", *X86]
    result = run_expecting(r.wrapped([
        r.wheelmod, "install", "torch==2.12.0", *selection, "--index", r.index, "--cache-dir",
        r.cache, "--eb-installpath", r.eb_tree, "--python-exe", python, "--prefix", prefix]), 0,
        timeout=300)
    nvshmem = "NVSHMEM/3.4.5-gompi-2026.1-CUDA-13.3.0"
    check(f"{nvshmem} provides libnvshmem_host.so.3" in result.stderr
          and "installed here" in result.stderr, result.stderr)
    with open(os.path.join(prefix, "easybuild", "wheelmod-install.json")) as handle:
        provenance = json.load(handle)
    check(nvshmem in provenance["modules"], provenance["modules"])
    check(provenance["module_libraries"].get("libnvshmem_host.so.3") == nvshmem,
          provenance.get("module_libraries"))
    _, libraries = imported(r, python, prefix, "", "torch._C._runtime_version()")
    nvshmem_paths = [path for name, path in libraries.items()
                     if name.startswith("libnvshmem_host.so")]
    check(nvshmem_paths and "/NVSHMEM/3.4.5-gompi-2026.1-CUDA-13.3.0/" in nvshmem_paths[0],
          libraries)
    node_checks(r, prefix, libraries)


def eb2026_aarch64(r):
    """torch 2.12 cu130 on aarch64: resolved and written as easyconfigs."""
    report = r.resolve("torch==2.12.0", "--config", r.site_config, *EB2026, *ARM)
    check(report["variant"]["name"] == "cu130", report["variant"])
    r.easyconfigs("ec-2026-arm", "torch==2.12.0", "--config", r.site_config, *EB2026_EASYCONFIG,
                  "--arch", "aarch64")


def cuda13_default(r):
    """--accelerator cuda on foss-2026.1 (CUDA 13.3.0) takes the closest lower CUDA 13 variant
    that has torch 2.12: cu132 (cu133 is not on the index), minimum driver 580; a 550 driver
    cannot run any CUDA 13 variant: exit 3 with the reason for each."""
    report = r.resolve("torch==2.12.0", "--toolchain", "foss-2026.1", "--accelerator", "cuda",
                       "--python", "3.13", "--config", r.site_config, *X86)
    check(report["variant"]["name"] == "cu132", report["variant"])
    check("cu133 has no torch files on this index" in report["variant"]["reason"],
          report["variant"]["reason"])
    result = r.resolve("torch==2.12.0", "--toolchain", "foss-2026.1", "--accelerator", "cuda",
                       "--python", "3.13", "--driver", "550.54.15", *X86, expect=3)
    for variant in ("cu132", "cu130"):
        check(f"{variant}: needs NVIDIA driver >= 580, the driver is 550.54.15" in result.stderr,
              result.stderr)


def rocm7(r):
    """torch 2.10 for ROCm 7.1 (bundled ROCm): rocm:7.1 resolves to rocm7.1; installed for
    foss-2025b, imported; the HIP runtime answering is the wheel's own."""
    python = python313()
    args = ["torch==2.10.0", "--toolchain", "foss-2025b", "--accelerator", "rocm:7.1", *X86]
    report = r.resolve(*args)
    check(report["variant"]["name"] == "rocm7.1", report["variant"])
    check(report["variant"]["minimum_driver"] is None, report["variant"])
    prefix = os.path.join(r.work, "software", "PyTorch", "2.10.0-foss-2025b-ROCm-7.1-whl")
    r.install(prefix, *args, python_exe=python)
    version = run_python(python, prefix, "import torch; print(torch.__version__)")
    check(version == "2.10.0+rocm7.1", version)


# ---- the quirks -----------------------------------------------------------------------------

def quirk(r, name):
    """The files of the sample a quirk concerns, as MANIFEST.json lists them (paths in the tree:
    whl/cu128/torch-…whl)."""
    files = r.manifest.get("quirks", {}).get(name)
    check(files, f"the sample records no '{name}' quirk (MANIFEST.json quirks)")
    return files


def corrupted_metadata(r):
    """pytorch#197552: torchvision 0.25.0+cu130's .metadata has a line appended: not trusted,
    read from the wheel, warned about; the resolution succeeds."""
    files = quirk(r, "corrupted_metadata")
    check(any("torchvision-0.25.0+cu130" in f for f in files), files)
    report = r.resolve("torch==2.10.0", "torchvision", "--python", "3.13", "--accelerator",
                       "cu130", *X86)
    vision = by_name(report)["torchvision"]
    check(vision["metadata_source"] in ("range requests", "whole wheel"), vision["metadata_source"])
    check(any("not trusted" in w and "torchvision" in w for w in report["warnings"]),
          report["warnings"])


def missing_hash(r):
    """A stable torch link without #sha256: chosen, hash null, a warning; fetch computes it."""
    files = {os.path.basename(f) for f in quirk(r, "missing_hash")}
    entry = next(w for w in r.manifest["wheels"] if w["filename"] in files
                 and w["project"] == "torch" and w["version"].startswith("2.10."))
    python = entry["python"][2] + "." + entry["python"][3:]
    args = ["torch==" + entry["version"], "--python", python, "--accelerator", entry["variant"],
            "--arch", entry["arch"], "--glibc", "2.28"]
    report = r.resolve(*args)
    torch = by_name(report)["torch"]
    check(torch["filename"] == entry["filename"], torch["filename"])
    check(torch["sha256"] is None, torch["sha256"])
    check(any("gives no sha256" in w for w in report["warnings"]), report["warnings"])


def variant_wheels(r):
    """PEP 825: the cu128 torch page lists a variant wheel beside the ordinary ones; it is never
    taken for one (skipped with a note) unless --wheel-variant names its label."""
    files = quirk(r, "variant_wheels")
    labelled = next(os.path.basename(f) for f in files
                    if f.startswith("whl/cu128/torch-2.10.0-") and f.endswith(".whl"))
    label = labelled[:-len(".whl")].rsplit("-", 1)[1]
    cu128 = ["--toolchain", "foss-2025b", "--accelerator", "cu128", *X86]
    report = r.resolve("torch==2.10.0", *cu128)
    check(by_name(report)["torch"]["filename"] != labelled, "the variant wheel was taken")
    check(any(labelled in note for note in report["notes"]), report["notes"])
    chosen = r.resolve("torch==2.10.0", *cu128, "--wheel-variant", label)
    check(by_name(chosen)["torch"]["filename"] == labelled, by_name(chosen)["torch"]["filename"])


def abi3_compound(r):
    """torchao's cp310-abi3 wheel with a compound manylinux tag fits a Python 3.13 target; the
    triton wheels' compound tags are expanded."""
    quirk(r, "abi3")
    report = r.resolve("torchao", "--python", "3.13", "--accelerator", "cu128", *X86,
                       "--no-deps")
    torchao = by_name(report)["torchao"]
    check("abi3" in torchao["filename"], torchao["filename"])
    check(torchao["best_tag"].startswith("cp310-abi3-manylinux_2_28_x86_64"), torchao["best_tag"])
    result = r.resolve("torchao", "--python", "3.13", "--accelerator", "cu128", *ARM,
                       "--no-deps", expect=3)
    check("built for x86_64, the target is aarch64" in result.stderr, result.stderr)
    quirk(r, "compound_tag")


def no_aarch64(r):
    """A CUDA torch with no aarch64 wheel (today's sample: 2.10.0+cu129): exit 3 naming the
    x86_64 files and why."""
    path = quirk(r, "no_aarch64")[0]
    entry = next(w for w in r.manifest["wheels"] if w["path"] == path)
    python = entry["python"][2] + "." + entry["python"][3:]
    result = r.resolve("torch==" + entry["public_version"], "--python", python, "--accelerator",
                       entry["variant"], *ARM, expect=3)
    check("built for x86_64, the target is aarch64" in result.stderr, result.stderr)


def write_wheel(directory, filename, metadata):
    """A minimal real wheel (METADATA, WHEEL, RECORD) for a crafted index."""
    import zipfile
    name, version = filename.split("-")[:2]
    dist_info = f"{name}-{version}.dist-info"
    path = os.path.join(directory, filename)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{dist_info}/METADATA", metadata)
        archive.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n")
        archive.writestr(f"{dist_info}/RECORD", "")
    return path


def write_page(directory, files):
    os.makedirs(directory, exist_ok=True)
    links = "".join(f'<a href="../{f.replace("+", "%2B")}">{f}</a><br/>\n' for f in files)
    with open(os.path.join(directory, "index.html"), "w") as handle:
        handle.write(f"<!DOCTYPE html>\n<html>\n  <body>\n{links}  </body>\n</html>\n")


def rocm_sdk(r):
    """ROCm 7.14 torch requires TheRock's rocm / rocm-sdk-* wheels (pytorch#191688) instead of
    bundling ROCm: no EasyBuild module replaces them, and the report says so, whether the
    index has the wheel (bundled) or not (missing)."""
    root = os.path.join(r.work, "therock", "whl")
    variant = os.path.join(root, "rocm7.14")
    os.makedirs(variant)
    torch = "torch-2.14.0+rocm7.14-cp313-cp313-manylinux_2_28_x86_64.whl"
    write_wheel(variant, torch, "Metadata-Version: 2.4\nName: torch\nVersion: 2.14.0+rocm7.14\n"
                "Requires-Dist: rocm-sdk-core==7.14.0\nRequires-Dist: rocm[libraries]==7.14.0\n")
    core = "rocm_sdk_core-7.14.0-py3-none-manylinux_2_28_x86_64.whl"
    write_wheel(variant, core, "Metadata-Version: 2.4\nName: rocm-sdk-core\nVersion: 7.14.0\n")
    write_page(os.path.join(variant, "torch"), [torch])
    write_page(os.path.join(variant, "rocm-sdk-core"), [core])
    result = run_expecting([r.wheelmod, "resolve", "torch==2.14.0", "--toolchain", "foss-2025b",
                            "--accelerator", "rocm7.14", *X86, "--python", "3.13", "--index",
                            "file://" + root, "--cache-dir", r.cache, "--format", "json"], 0)
    wheel = by_name(json.loads(result.stdout))["torch"]
    found = deps(wheel)
    check(found["rocm-sdk-core"]["resolution"] == "bundled", found["rocm-sdk-core"])
    check(found["rocm"]["resolution"] == "missing", found["rocm"])
    for name in ("rocm-sdk-core", "rocm"):
        check("no EasyBuild module replaces TheRock's ROCm SDK wheels" in found[name]["note"],
              found[name]["note"])


SCENARIOS = {f.__name__: f for f in (
    eb2025b_cuda, eb2025b_cuda_node, eb2025b_aarch64, eb2026_cu130, eb2026_cu130_node,
    eb2026_cu132_node, eb2026_site_module, eb2026_aarch64, cuda13_default, rocm7,
    corrupted_metadata, missing_hash, variant_wheels, abi3_compound, no_aarch64, rocm_sdk)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing).
CTEST = {"*": {"options": ("--lmod",), "timeout": 300}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, extra_options=("--lmod",),
                         ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
