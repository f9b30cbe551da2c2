#!/usr/bin/env python3
"""`wheelmod easyconfig` against the sample index.

    easyconfig_scenarios.py --wheelmod BIN --sample DIR SCENARIO

Each scenario writes easyconfigs, checks every one with
tests/easyconfig/check_easyconfig.py (ast: known parameters, checksums
covering every source, file name, style), checks facts against the
sample's MANIFEST.json (every checksum is the file's real sha256, also
where the index gives none), and compares the files byte for byte with
tests/golden/easyconfig/<scenario>/ after replacing volatile parts
([SAMPLE] for the sample tree's URL, [SHA256] for digests, which depend on
the compiler that built the sample). WHEELMOD_UPDATE_GOLDEN=1 rewrites the
golden files; review the diff.

The index is reached through a symlink of fixed length (/tmp/wm-XXXXXXXX/s),
so that where a long URL wraps at 120 columns does not depend on where the
build tree is.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from scenario_support import (Failure, check, make_test_ca, run_expecting, scenario_main,
                              serve_locally, stop_server)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "easyconfig"))
import check_easyconfig  # noqa: E402

GOLDEN = os.path.join(HERE, "..", "golden", "easyconfig")
CUDA = ["--toolchain", "foss-2024a", "--accelerator", "cuda"]
STACK = ["torch==2.6.0", "torchvision", "torchaudio"]
STACK_2025B = ["torch==2.10.0", "torchvision", "torchaudio"]
# The CUDA-wheel-bundle route (easybuild-easyconfigs' own); strip is the default, as for install.
KEEP = ["--metadata", "keep"]
PYTORCH = "PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb"
BUNDLE = "PyTorch-bundle-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb"
WHEEL_BUNDLE = "CUDA-wheel-bundle-12.6.0-gfbf-2024a-PyTorch-2.6.0-CUDA-12.6.0.eb"


def extension_sources(params):
    """{file name: (source_urls or None, download name, checksum)} of every extension."""
    out = {}
    for entry in params.get("exts_list", []):
        if len(entry) < 3:
            continue
        options = entry[2]
        for source, checksum in zip(options["sources"], options["checksums"]):
            filename = source if isinstance(source, str) else source["filename"]
            download = source if isinstance(source, str) else source["download_filename"]
            sha = checksum[filename] if isinstance(checksum, dict) else checksum
            out[filename] = (options.get("source_urls"), download, sha)
    return out


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.work = tempfile.mkdtemp(prefix="wm-", dir="/tmp")
        os.symlink(os.path.abspath(args.sample), os.path.join(self.work, "s"))
        self.root = "file://" + os.path.join(self.work, "s")
        self.index = self.root + "/whl"
        self.cache = os.path.join(self.work, "cache")
        with open(os.path.join(args.sample, "MANIFEST.json")) as f:
            self.manifest = json.load(f)

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def run(self, *args, out, expect=0, cache=None):
        command = [self.wheelmod, "-q", "easyconfig", *args, "--index", self.index,
                   "--cache-dir", cache or self.cache, "--output-dir", out]
        return run_expecting(command, expect)

    def generate(self, name, *args, **kwargs):
        """Writes into a fresh directory; returns it and the JSON summary."""
        out = os.path.join(self.work, name)
        result = self.run(*args, "--format", "json", out=out, **kwargs)
        return out, json.loads(result.stdout)

    def checked(self, out, arches=("x86_64", "aarch64")):
        """Every file passes check_easyconfig; returns {file: {arch: params}}. wheelmod's own
        easyconfig (--with-relink copies it) is tests/self-easyconfig's to check."""
        evaluated = {}
        for name in sorted(os.listdir(out)):
            check(name.endswith(".eb"), f"{out}: unexpected file {name}")
            if name.startswith("wheelmod-"):
                continue
            problems, params = check_easyconfig.check_file(os.path.join(out, name), arches)
            check(not problems, "\n".join(problems))
            evaluated[name] = params
        return evaluated

    def manifest_sha(self, url):
        for wheel in self.manifest["wheels"]:
            if url.endswith(wheel["url_path"]):
                return wheel
        raise Failure(f"{url} is not a file of the sample index")

    def check_checksums(self, params):
        """Each extension's checksum is the sha256 of the file its URL names."""
        for filename, (source_urls, download, sha) in extension_sources(params).items():
            urls = [u + "/" + download for u in source_urls]
            wheel = self.manifest_sha(next(u for u in urls if self.exists(u)))
            check(wheel["filename"] == filename, f"{filename}: the URL names {wheel['filename']}")
            check(sha == wheel["sha256"], f"{filename}: checksum {sha} is not the file's {wheel['sha256']}")

    def exists(self, url):
        path = url[len("file://"):].replace("%2B", "+")
        return os.path.exists(path)

    def golden(self, scenario, out):
        directory = os.path.join(GOLDEN, scenario)
        actual = {}
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name)) as f:
                text = f.read().replace(self.root, "[SAMPLE]")
            actual[name] = re.sub(r"\b[0-9a-f]{64}\b", "[SHA256]", text)
        if os.environ.get("WHEELMOD_UPDATE_GOLDEN"):
            shutil.rmtree(directory, ignore_errors=True)
            os.makedirs(directory)
            for name, text in actual.items():
                with open(os.path.join(directory, name), "w") as f:
                    f.write(text)
            print("rewrote", directory)
            return
        check(os.path.isdir(directory), f"no golden directory {directory} (WHEELMOD_UPDATE_GOLDEN=1 writes it)")
        expected_names = sorted(os.listdir(directory))
        check(expected_names == sorted(actual), f"files {sorted(actual)}, golden {expected_names}")
        for name, text in actual.items():
            with open(os.path.join(directory, name)) as f:
                expected = f.read()
            if text != expected:
                sys.stdout.writelines(difflib.unified_diff(
                    expected.splitlines(True), text.splitlines(True), name, "actual"))
                raise Failure(f"{name} differs from the golden file")


def ext(params, name):
    for entry in params["exts_list"]:
        if entry[0] == name:
            return entry
    raise Failure(f"no extension {name}: {[e[0] for e in params['exts_list']]}")


def names_of(dependencies):
    return [d[0] for d in dependencies]


# ---- scenarios ---------------------------------------------------------------

def cuda_stack(r):
    """foss-2024a + CUDA: PyTorch, PyTorch-bundle and a CUDA-wheel-bundle with torch 2.6.0's pins."""
    out, summary = r.generate("cuda", *STACK, *CUDA, *KEEP)
    files = r.checked(out)
    check(sorted(files) == sorted([PYTORCH, BUNDLE, WHEEL_BUNDLE]), f"files: {sorted(files)}")
    for arch in ("x86_64", "aarch64"):
        pytorch = files[PYTORCH][arch]
        r.check_checksums(pytorch)
        r.check_checksums(files[BUNDLE][arch])
        check(pytorch["versionsuffix"] == "-CUDA-%(cudaver)s-whl", pytorch["versionsuffix"])
        deps = pytorch["dependencies"]
        check(deps[0] == ("CUDA", "12.6.0", "", check_easyconfig.SYSTEM), f"CUDA first, SYSTEM: {deps[0]}")
        check(("CUDA-wheel-bundle", "12.6.0", "-PyTorch-2.6.0-CUDA-%(cudaver)s") in deps, str(deps))
        check(("networkx", "3.4.2") in deps and ("Python", "3.12.3") in deps, str(deps))
        check("sympy" not in names_of(deps), "sympy==1.13.1 is a bundled wheel, not the 1.13.3 module")
        torch = ext(pytorch, "torch")
        source = torch[2]["sources"][0]
        check(source["download_filename"] == source["filename"].replace("+", "%2B"), str(source))
        check(len(torch[2]["checksums"][0]) == 2, "one checksum dict for both architectures")
        check(ext(pytorch, "sympy")[1] == "1.13.1", "sympy 1.13.1 bundled")
        bundle = files[BUNDLE][arch]
        check(("PyTorch", "2.6.0", "-CUDA-%(cudaver)s-whl") in bundle["dependencies"], str(bundle["dependencies"]))
        check(any("nms" in c or "torchvision" in c for c in bundle["sanity_check_commands"]), "torchvision check")
    check("triton" in names_of(files[PYTORCH]["x86_64"]["exts_list"]), "triton on x86_64")
    check("triton" not in names_of(files[PYTORCH]["aarch64"]["exts_list"]), "no triton on aarch64")
    wheel_bundle = files[WHEEL_BUNDLE]["x86_64"]
    check(wheel_bundle["dummy_package"] is True, "dummy_package")
    dummies = dict((e[0], e[1]) for e in wheel_bundle["exts_list"])
    check(dummies.get("nvidia-nccl-cu12") == "2.21.5", f"the wheel's NCCL pin: {dummies}")
    check(dummies.get("nvidia-cudnn-cu12") == "9.5.1.17", f"the wheel's cuDNN pin: {dummies}")
    check(("cuDNN", "9.5.1.17", "-CUDA-%(cudaver)s", check_easyconfig.SYSTEM) in wheel_bundle["dependencies"],
          str(wheel_bundle["dependencies"]))
    computed = {c["filename"]: c["sha256"] for c in summary["computed_sha256"]}
    check(list(computed) == ["torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl"], f"computed: {computed}")
    check(summary["to_add"] == [], f"nothing to add: {summary['to_add']}")
    r.golden("cuda_stack", out)


def cpu(r):
    out, summary = r.generate("cpu", "torch==2.6.0", "torchvision", "--toolchain", "foss-2024a")
    files = r.checked(out)
    names = ["PyTorch-2.6.0-foss-2024a-whl.eb", "PyTorch-bundle-2.6.0-foss-2024a-whl.eb"]
    check(sorted(files) == names, f"files: {sorted(files)}")
    for arch in ("x86_64", "aarch64"):
        params = files[names[0]][arch]
        r.check_checksums(params)
        check("CUDA" not in names_of(params["dependencies"]), "no CUDA in a CPU build")
        check("None None" in params["sanity_check_commands"][-1], params["sanity_check_commands"])
    r.golden("cpu", out)


def no_wheel_bundle(r):
    """2023a has no CUDA-wheel-bundle, no cuDNN 9 and no CUDA 12.4 libraries: refused (exit 3),
    each unmet requirement named, nothing written; with --write-unmet the bundle is written and
    what is missing is listed for the maintainer."""
    args = ("torch==2.6.0", "--toolchain", "foss-2023a", "--accelerator", "cu124", "--arch", "x86_64", *KEEP)
    refused_dir = os.path.join(r.work, "gen2023a-refused")
    refused = r.run(*args, out=refused_dir, expect=3)
    for named in ("nvidia-cudnn-cu12==9.1.0.70 (needed by torch 2.6.0+cu124, PyTorch, x86_64): "
                  "no module of 2023a provides libcudnn.so.9",
                  "typing-extensions>=4.10.0 (needed by torch 2.6.0+cu124, PyTorch, x86_64): "
                  "Python/3.11.3-GCCcore-12.3.0 has 4.6.3, and the index has no fitting wheel to bundle",
                  "--write-unmet"):
        check(named in refused.stderr, f"not named: {named}\n{refused.stderr}")
    check(not os.path.exists(refused_dir), "the output directory was created although refused")
    out, summary = r.generate("gen2023a", *args, "--write-unmet")
    files = r.checked(out, arches=("x86_64",))
    bundle = "CUDA-wheel-bundle-12.4.0-gfbf-2023a-CUDA-12.4.0.eb"
    check(sorted(files) == sorted([bundle, "PyTorch-2.6.0-foss-2023a-CUDA-12.4.0-whl.eb"]), f"files: {sorted(files)}")
    subjects = [item["subject"] for item in summary["to_add"]]
    check(any(s.startswith("nvidia-cudnn-cu12==") for s in subjects), f"cuDNN to add: {subjects}")
    check(any(s.startswith("typing-extensions") for s in subjects), f"typing-extensions to add: {subjects}")
    with open(os.path.join(out, bundle)) as f:
        check("wheelmod: nvidia-cudnn-cu12==" in f.read(), "the bundle notes the missing cuDNN")
    r.golden("no_wheel_bundle", out)


def missing_hash(r):
    """torchaudio 2.5.1+cu124 cp311 has no hash on the index: downloaded and hashed."""
    out, summary = r.generate("nohash", "torch==2.5.1", "torchaudio", "--toolchain", "foss-2023a",
                              "--accelerator", "cu124", "--arch", "x86_64", "--write-unmet")
    files = r.checked(out, arches=("x86_64",))
    name = "torchaudio-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"
    computed = {c["filename"]: c["sha256"] for c in summary["computed_sha256"]}
    check(name in computed, f"computed: {computed}")
    bundle = files["PyTorch-bundle-2.5.1-foss-2023a-CUDA-12.4.0-whl.eb"]["x86_64"]
    r.check_checksums(bundle)
    check(ext(bundle, "torchaudio")[2]["checksums"] == [computed[name]], "the computed sha256 is the checksum")
    # An x86_64-only file stops on another architecture as it is parsed (the KeyError of
    # local_wheel_arch), before eb fetches x86_64 wheels there.
    for file in files:
        problems, _ = check_easyconfig.check_file(os.path.join(out, file), ("aarch64",))
        check(any("no entry 'aarch64'" in problem for problem in problems),
              f"{file} evaluates on aarch64: {problems}")
    # Again into the same directory, from the index served over HTTP with an empty cache:
    # refused (exit 2) before the wheel without a hash is requested again.
    import functools
    import http.server
    requested = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        # A whole wheel (no Range header) is a download; ranges read the METADATA of a wheel
        # the index has no .metadata file for, while resolving.
        def do_GET(self):
            if self.path.split("?")[0].endswith(".whl") and "Range" not in self.headers:
                requested.append(self.path)
            return super().do_GET()

        def log_message(self, *args):
            pass

    server = serve_locally(functools.partial(Handler, directory=r.sample))
    try:
        command = [r.wheelmod, "-q", "easyconfig", "torch==2.5.1", "torchaudio", "--toolchain",
                   "foss-2023a", "--accelerator", "cu124", "--arch", "x86_64", "--write-unmet", "--index",
                   f"http://127.0.0.1:{server.server_address[1]}/whl/", "--cache-dir",
                   os.path.join(r.work, "nohash-cache-again")]
        again = run_expecting([*command, "--output-dir", out], 2)
        check("already exists" in again.stderr, again.stderr)
        check(not requested, f"wheels downloaded before refusing: {requested}")
        # A digest computed once is kept by URL: a second run downloads nothing to hash it
        # (before: every run downloaded the wheel again).
        elsewhere = os.path.join(r.work, "nohash-http")
        run_expecting([*command, "--output-dir", elsewhere], 0)
        check([p for p in requested if "torchaudio" in p] and len(requested) == 1,
              f"the wheel without a hash downloaded once: {requested}")
        requested.clear()
        run_expecting([*command, "--output-dir", elsewhere, "--force"], 0)
        check(not requested, f"downloaded again although its digest is cached: {requested}")
        with open(os.path.join(elsewhere, "PyTorch-bundle-2.5.1-foss-2023a-CUDA-12.4.0-whl.eb")) as f:
            check(computed[name] in f.read(), "the cached digest is the checksum")
    finally:
        stop_server(server)


def deterministic(r):
    """Same input, same bytes: twice, the second time with an empty cache."""
    first, _ = r.generate("once", *STACK, *CUDA)
    second, _ = r.generate("twice", *STACK, *CUDA, cache=os.path.join(r.work, "cache2"))
    check(sorted(os.listdir(first)) == sorted(os.listdir(second)), "same files")
    for name in os.listdir(first):
        with open(os.path.join(first, name), "rb") as a, open(os.path.join(second, name), "rb") as b:
            check(a.read() == b.read(), f"{name} differs between two runs")


def with_relink(r):
    out, summary = r.generate("relink", *STACK, *CUDA, "--with-relink")
    files = r.checked(out)
    params = files[PYTORCH]["x86_64"]
    version = params["builddependencies"][0][1]
    # No toolchain: EasyBuild finds wheelmod on a subtoolchain (GCCcore-13.3.0), whose
    # easyconfig the project ships and the run writes beside the others.
    check(params["builddependencies"] == [("wheelmod", version)], str(params["builddependencies"]))
    own = f"wheelmod-{version}-GCCcore-13.3.0.eb"
    with open(os.path.join(HERE, "..", "..", "easyconfigs", own), encoding="utf-8") as handle:
        shipped = handle.read()
    with open(os.path.join(out, own), encoding="utf-8") as handle:
        check(handle.read() == shipped, f"{own} differs from the shipped one")
    check(own in [os.path.basename(w["path"]) for w in summary["written"]], str(summary["written"]))
    # --metadata strip (the default): the METADATA edit first, then relink and check.
    check(params["postinstallcmds"][0].startswith("sed -E -i '/^Requires-Dist: (nvidia"),
          str(params["postinstallcmds"]))
    check(params["postinstallcmds"][1:] == ["wheelmod relink %(installdir)s --toolchain foss-2024a",
                                            "wheelmod check %(installdir)s"], str(params["postinstallcmds"]))
    check("postinstallcmds" not in files[BUNDLE]["x86_64"], "relink only where the libraries are")
    check(not any(item["subject"].startswith("wheelmod ") for item in summary["to_add"]), summary["to_add"])
    # 2026.1 (GCCcore 15.2.0): no shipped wheelmod easyconfig, so eb --robot could not resolve
    # the file (the real EasyBuild: "Missing dependencies: wheelmod/0.1.0-foss-2026.1"): refused,
    # naming it, unless --write-unmet.
    refused = r.run("torch", "--toolchain", "foss-2026.1", "--accelerator", "cpu", "--with-relink",
                    out=os.path.join(r.work, "relink2026"), expect=3)
    check("wheelmod 0.1.0 (build dependency, --with-relink): " in refused.stderr
          and "none for 15.2.0" in refused.stderr, refused.stderr)
    check(not os.path.exists(os.path.join(r.work, "relink2026")), "the output directory was created")
    # 2025a (GCCcore 14.2.0): the shipped easyconfigs/wheelmod-0.1.0-GCCcore-14.2.0.eb is written
    # beside, byte for byte.
    out2025a, summary2025a = r.generate("relink2025a", "torch", "--toolchain", "foss-2025a",
                                        "--accelerator", "cpu", "--with-relink")
    own = os.path.join(out2025a, "wheelmod-0.1.0-GCCcore-14.2.0.eb")
    with open(own, "rb") as written, open(os.path.join(HERE, "..", "..", "easyconfigs",
                                                       "wheelmod-0.1.0-GCCcore-14.2.0.eb"), "rb") as shipped:
        check(written.read() == shipped.read(), "the 2025a wheelmod easyconfig is not the shipped one")
    check(not summary2025a["to_add"], summary2025a["to_add"])
    # 2023a (GCCcore 12.3.0), written anyway: the missing easyconfig is to add.
    _, older = r.generate("relink2023a", "torch==2.6.0", "--toolchain", "foss-2023a", "--accelerator", "cpu",
                          "--with-relink", "--write-unmet")
    wanted = [item for item in older["to_add"] if item["subject"].startswith("wheelmod ")]
    check(wanted and "12.3.0" in wanted[0]["reason"] and "13.3.0" in wanted[0]["reason"], older["to_add"])


def strip(r):
    """--metadata strip: no CUDA-wheel-bundle; the library modules are dependencies and a sed
    in postinstallcmds deletes exactly the nvidia-* lines of the installed METADATA."""
    out, _ = r.generate("strip", "torch==2.6.0", *CUDA, "--metadata", "strip")
    files = r.checked(out)
    check(sorted(files) == [PYTORCH], f"files: {sorted(files)}")
    params = files[PYTORCH]["aarch64"]
    deps = names_of(params["dependencies"])
    check({"cuDNN", "NCCL", "cuSPARSELt"} <= set(deps), f"library modules on aarch64 too: {deps}")
    check("CUDA-wheel-bundle" not in deps, str(deps))
    command = params["postinstallcmds"][0]
    site = os.path.join(r.work, "prefix", "lib", "python3.12", "site-packages")
    dist = os.path.join(site, "torch-2.6.0+cu126.dist-info")
    os.makedirs(dist)
    wheel = next(w for w in r.manifest["wheels"]
                 if w["filename"] == "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl")
    shutil.copy(os.path.join(r.sample, wheel["path"] + ".metadata"), os.path.join(dist, "METADATA"))
    shell = command.replace("%(installdir)s", os.path.join(r.work, "prefix")).replace("%(pyshortver)s", "3.12")
    subprocess.run(["bash", "-c", shell], check=True)
    with open(os.path.join(dist, "METADATA")) as f:
        lines = f.read().splitlines()
    requires = [line for line in lines if line.startswith("Requires-Dist: ")]
    check(not [line for line in requires if "nvidia-" in line], f"nvidia lines left: {requires}")
    check(any(line.startswith("Requires-Dist: triton==") for line in requires), "triton kept (a wheel)")
    check(any(line.startswith("Requires-Dist: sympy") for line in requires), "sympy kept")

    # torch 2.12's cuda-toolkit[cudart,...]==13.0.2 (extras right after the name) and
    # nvidia-cublas<=...,>=... (a range): deleted too, on foss-2026.1's CUDA 13.3.0.
    out, _ = r.generate("strip13", "torch==2.12.0", "--toolchain", "foss-2026.1", "--accelerator",
                        "cuda", "--arch", "x86_64", "--write-unmet")
    command = r.checked(out, arches=("x86_64",))
    command = next(iter(command.values()))["x86_64"]["postinstallcmds"][0]
    wheel = next(w for w in r.manifest["wheels"]
                 if w["filename"].startswith("torch-2.12.0+cu13") and "x86_64" in w["filename"])
    prefix13 = os.path.join(r.work, "prefix13")
    dist = os.path.join(prefix13, "lib", "python3.14", "site-packages", "torch-2.12.0.dist-info")
    os.makedirs(dist)
    shutil.copy(os.path.join(r.sample, wheel["path"] + ".metadata"), os.path.join(dist, "METADATA"))
    with open(os.path.join(dist, "METADATA")) as f:
        before = [line for line in f.read().splitlines() if line.startswith("Requires-Dist: ")]
    check(any(line.startswith("Requires-Dist: cuda-toolkit[") for line in before), before)
    shell = command.replace("%(installdir)s", prefix13).replace("%(pyshortver)s", "3.14")
    subprocess.run(["bash", "-c", shell], check=True)
    with open(os.path.join(dist, "METADATA")) as f:
        after = [line for line in f.read().splitlines() if line.startswith("Requires-Dist: ")]
    check(not [line for line in after if "cuda-toolkit" in line or "nvidia-cublas" in line],
          f"CUDA lines left: {after}")


def sanity_commands(r):
    """The generated sanity_check_commands pass on a real install of the same wheels (wheelmod
    install, relinked at the sample modules) and fail on a different torch."""
    out, _ = r.generate("sanity", *STACK, *CUDA)
    commands = []
    for name in (PYTORCH, BUNDLE):
        commands += check_easyconfig.check_file(os.path.join(out, name))[1]["x86_64"]["sanity_check_commands"]
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    prefix = os.path.join(r.work, "installed")
    # torch through `wheelmod install` (relinked at the sample modules); torchvision and
    # torchaudio unpacked beside it, as pip leaves them: they find libcudart.so.12 only
    # because torch has loaded it, which `install`'s static check does not assume.
    run_expecting([r.wheelmod, "-q", "install", "torch==2.6.0", *CUDA, "--python", python, "--arch", "x86_64",
                   "--glibc", "2.28", "--index", r.index, "--cache-dir", r.cache, "--eb-installpath", r.sample,
                   "--python-exe", sys.executable, "--prefix", prefix], timeout=300)
    site = os.path.join(prefix, "lib", f"python{python}", "site-packages")
    tag = f"cp{python.replace('.', '')}"
    for project, version in (("torchvision", "0.21.0"), ("torchaudio", "2.6.0")):
        filename = f"{project}-{version}+cu126-{tag}-{tag}-linux_x86_64.whl"
        wheel = next(w for w in r.manifest["wheels"] if w["filename"] == filename and w["variant"] == "cu126")
        with zipfile.ZipFile(os.path.join(r.sample, wheel["path"])) as archive:
            archive.extractall(site)
    bin_dir = os.path.join(r.work, "bin")
    os.makedirs(bin_dir)
    os.symlink(sys.executable, os.path.join(bin_dir, "python"))
    environment = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    environment["PATH"] = bin_dir + os.pathsep + environment["PATH"]
    environment["PYTHONPATH"] = site
    for command in commands:
        result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=environment,
                                cwd=r.work, timeout=60)
        print("sanity:", command, "->", result.returncode, result.stdout.strip())
        check(result.returncode == 0, f"{command} failed:\n{result.stderr}")
    cpu_out, _ = r.generate("sanity-cpu", "torch==2.6.0", "--toolchain", "foss-2024a")
    cpu_commands = check_easyconfig.check_file(os.path.join(cpu_out, "PyTorch-2.6.0-foss-2024a-whl.eb"))[1]
    failing = subprocess.run(["bash", "-c", cpu_commands["x86_64"]["sanity_check_commands"][-1]],
                             capture_output=True, text=True, env=environment, timeout=60)
    check(failing.returncode != 0, "the CPU build's check passed on a CUDA torch")


def errors(r):
    out = os.path.join(r.work, "errors")
    result = r.run("torch==2.6.0", "--toolchain", "foss-1999a", out=out, expect=2)
    check("unknown toolchain" in result.stderr, result.stderr)
    result = r.run("torchvision", "--toolchain", "foss-2024a", out=out, expect=2)
    check("torch is not among" in result.stderr, result.stderr)
    result = r.run("torch==9.9", *CUDA, out=out, expect=3)
    check(result.stderr.startswith("error: "), result.stderr)
    result = r.run("torch==2.6.0", "--toolchain", "foss-2023a", "--accelerator", "cu124", out=out, expect=3)
    check("(aarch64)" in result.stderr and "--arch x86_64" in result.stderr, result.stderr)
    # A variant newer than every CUDA module of the generation has none to run on; an older one
    # of the same major runs on the generation's CUDA (minor version compatibility).
    result = r.run("torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator", "cu128", out=out, expect=2)
    check("has no CUDA 12.8 module" in result.stderr, result.stderr)
    older, _ = r.generate("cu124on126", "torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator", "cu124",
                          "--arch", "x86_64")
    check("PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb" in os.listdir(older), os.listdir(older))
    # Options are taken whole: fd98fdf read '2.28\n<python>' as 2.28 and copied the rest into the
    # header comment, where eb ran it; a versionsuffix becomes a file name.
    result = r.run("torch==2.6.0", "--toolchain", "foss-2024a", "--glibc", "2.28\nimport os", out=out, expect=2)
    check("--glibc 2.28\\x0aimport os" in result.stderr, result.stderr)
    result = r.run("torch==2.6.0", "--toolchain", "foss-2024a", "--versionsuffix", "-whl\nimport os", out=out,
                   expect=2)
    check("--versionsuffix -whl\\x0aimport os" in result.stderr, result.stderr)
    # Every option whose value is a name: a PEP 825 label, a module name (a path under the
    # software path); a line break or anything after the name is refused (exit 2).
    for option, value, shown in (("--wheel-variant", "cu128\nimport os", "cu128\\x0aimport os"),
                                 ("--prefer-module", "CUDA/12.6.0\nimport os",
                                  "CUDA/12.6.0\\x0aimport os"),
                                 ("--prefer-module", "../../etc", "../../etc")):
        result = r.run("torch==2.6.0", "--toolchain", "foss-2024a", option, value, out=out, expect=2)
        check(f"{option}: '{shown}' is not a" in result.stderr, result.stderr)
    check(not os.path.exists(out), "nothing written for a refused option")
    result = r.run("torch==2.6.0", "--toolchain", "GCCcore-13.3.0", out=out, expect=2)
    check("not GCCcore-13.3.0 or one of its subtoolchains" in result.stderr, result.stderr)
    r.run("torch==2.6.0", *CUDA, out=out)
    path = os.path.join(out, PYTORCH)
    with open(path, "a") as f:
        f.write("# edited by hand\n")
    with open(path) as f:
        edited = f.read()
    before = sorted(os.listdir(out))
    result = r.run("torch==2.6.0", *CUDA, out=out, expect=2)
    check("already exists" in result.stderr and "--force" in result.stderr, result.stderr)
    with open(path) as f:
        check(f.read() == edited, "the existing file was changed")
    check(sorted(os.listdir(out)) == before, f"files changed: {sorted(os.listdir(out))}")
    r.run("torch==2.6.0", *CUDA, "--force", out=out)
    with open(path) as f:
        check("edited by hand" not in f.read(), "--force did not replace the file")


def site_template(r):
    """--templates: a site template replaces the shipped one."""
    templates = os.path.join(r.work, "templates")
    os.makedirs(templates)
    with open(os.path.join(templates, "easyconfig.eb.mustache"), "w") as f:
        f.write("# site: {{{name}}}\nname = {{{name}}}\n")
    out = os.path.join(r.work, "site")
    r.run("torch==2.6.0", "--toolchain", "foss-2024a", "--templates", templates, out=out)
    with open(os.path.join(out, "PyTorch-2.6.0-foss-2024a-whl.eb")) as f:
        check(f.read() == "# site: 'PyTorch'\nname = 'PyTorch'\n", "the site template was not used")


def cuda_across_arches(r):
    """--accelerator cuda for foss-2025b: x86_64 resolves to cu129, aarch64 to cu128 (the index
    has no aarch64 cu129 torch 2.10), both run by the generation's CUDA/12.9.1: one easyconfig,
    each architecture's sources from its own variant. (Before: exit 3.)"""
    out, _ = r.generate("arches", "torch==2.10.0", "torchvision", "torchaudio", "--toolchain",
                        "foss-2025b", "--accelerator", "cuda")
    files = r.checked(out)
    name = next(n for n in files if n.startswith("PyTorch-2.10.0-foss-2025b-CUDA-12.9.1"))
    for arch, variant in (("x86_64", "cu129"), ("aarch64", "cu128")):
        params = files[name][arch]
        source = ext(params, "torch")[2]["sources"][0]
        check(f"+{variant}-" in source["filename"] and arch in source["filename"],
              f"{arch}: {source}")
        r.check_checksums(params)
        check(("CUDA", "12.9.1", "", check_easyconfig.SYSTEM) in params["dependencies"],
              params["dependencies"])
        # The sanity check takes either architecture's CUDA: a single `grep -Fx 12.8` failed the
        # real EasyBuild's install of the x86_64 (cu129) wheel (tests/easybuild).
        cuda_check = params["sanity_check_commands"][-1]
        check(cuda_check.endswith("| grep -Fx -e 12.8 -e 12.9"), cuda_check)


def site_modules(r):
    """With the site read (--eb-installpath), the easyconfig names the cuDNN the site has
    (9.5.0.50, where the table's first is 9.5.1.17), as resolve and install do; without, the
    table's."""
    def cudnn(out):
        params = r.checked(out)[PYTORCH]["x86_64"]
        return [dep for dep in params["dependencies"] if dep[0] == "cuDNN"]

    table, _ = r.generate("table", "torch==2.6.0", *CUDA, "--metadata", "strip")
    check([dep[1] for dep in cudnn(table)] == ["9.5.1.17"], cudnn(table))
    here, _ = r.generate("here", "torch==2.6.0", *CUDA, "--metadata", "strip", "--eb-installpath",
                         r.sample)
    check([dep[1] for dep in cudnn(here)] == ["9.5.0.50"], cudnn(here))


# Python finds a module the way EasyBuild's check imports it, in the wheel's files alone (-I -S:
# no user or system site-packages), without running the module: the spec and where it lies.
FIND_SPEC = """
import importlib.util, json, sys
root, name = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
spec = importlib.util.find_spec(name)
places = [] if spec is None else [spec.origin or ""] + list(spec.submodule_search_locations or [])
print(json.dumps([p for p in places if p.startswith(root + "/")]))
"""


def installed_files(wheel_path, into):
    """Unpacks what the wheel puts into site-packages (the root, .data/purelib and platlib) into
    `into`; returns the relative paths."""
    names = []
    with zipfile.ZipFile(wheel_path) as archive:
        for info in archive.infolist():
            parts = info.filename.split("/")
            if parts[0].endswith(".dist-info") or info.is_dir():
                continue
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue
                parts = parts[2:]
            target = os.path.join(into, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with archive.open(info) as source, open(target, "wb") as sink:
                shutil.copyfileobj(source, sink)
            names.append("/".join(parts))
    return names


def import_names(r):
    """Each extension's import check (modulename, or EasyBuild's default: the name lower-cased,
    '-' as '_') is what its wheel installs, checked with Python's own importlib on the wheel's
    files, for the easyconfigs of four generations: cuda-bindings imports as cuda.bindings (it
    was unset, and EasyBuild's `import cuda_bindings` failed a real installation),
    pytorch-triton-rocm as triton, NVIDIA's library wheels have nothing to import (False)."""
    cases = {
        "i2024a": (*STACK, *CUDA, *KEEP),
        "i2025b": (*STACK_2025B, "--toolchain", "foss-2025b", "--accelerator", "cuda"),
        "i2025a-rocm": ("torch", "torchvision", "--toolchain", "foss-2025a", "--accelerator", "rocm",
                        "--arch", "x86_64"),
        "i2026": ("torch==2.12.0", "--toolchain", "foss-2026.1", "--accelerator", "cu130", "--arch", "x86_64",
                  "--bundle-missing", "--write-unmet"),
    }
    by_file = {w["filename"]: w for w in r.manifest["wheels"]}
    decided = {}  # (project, wheel file) -> modulename option or None
    for case, args in cases.items():
        out, _ = r.generate(case, *args)
        arches = ("x86_64",) if "--arch" in args else ("x86_64", "aarch64")
        for name, per_arch in r.checked(out, arches).items():
            for arch, params in per_arch.items():
                for entry in params.get("exts_list", []):
                    if len(entry) < 3 or params.get("dummy_package"):
                        continue
                    for source in entry[2]["sources"]:
                        filename = source if isinstance(source, str) else source["filename"]
                        decided[(entry[0], filename)] = entry[2].get("modulename")
    seen = {project for project, _ in decided}
    for project in ("torch", "torchvision", "torchaudio", "triton", "sympy", "cuda-bindings",
                    "pytorch-triton-rocm", "nvidia-nvshmem-cu13"):
        check(project in seen, f"no easyconfig had {project}: {sorted(seen)}")
    for (project, filename), modulename in sorted(decided.items(), key=lambda item: item[0]):
        root = tempfile.mkdtemp(dir=r.work)
        files = installed_files(os.path.join(r.sample, by_file[filename]["path"]), root)
        if modulename is False:
            modules = [f for f in files if f.endswith(".py") or re.search(r"\.(cpython-[^.]+|abi3)\.so$", f)]
            check(not modules, f"{filename}: modulename False, but it installs {modules[:3]}")
            print(f"{project}: nothing to import ({filename})")
            continue
        name = modulename if modulename is not None else project.lower().replace("-", "_")
        found = subprocess.run([sys.executable, "-I", "-S", "-c", FIND_SPEC, root, name],
                               capture_output=True, text=True, timeout=60)
        check(found.returncode == 0, f"{filename}: import {name}: {found.stderr}")
        check(json.loads(found.stdout), f"{filename}: EasyBuild would `import {name}`, which the wheel "
                                        f"does not install (it has {sorted(files)[:5]})")
        print(f"{project}: import {name} ({filename})")
    check(decided[next(k for k in decided if k[0] == "cuda-bindings")] == "cuda.bindings",
          "cuda-bindings imports as cuda.bindings")


def serve_tls(directory, ca_dir):
    """The directory over HTTPS on 127.0.0.1 with a certificate of a test CA: (server, ca.pem)."""
    import functools
    import http.server
    import ssl

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    ca, cert, key = make_test_ca(ca_dir)
    server = serve_locally(functools.partial(Quiet, directory=directory))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    return server, ca


def source_urls(r):
    """Files fit for a pull request: generated from a wheelmod mirror (here made from the sample
    served over HTTPS), source_urls name each file's origin as the mirror's manifest records it
    (automatic; before, the mirror's own file:// copies), and EasyBuild finds every file there
    with its checksum; --source-urls index names the mirror's copies; the mirror behind a plain
    web server gives the same origins; --source-urls upstream on an index that knows no public
    origin is refused (exit 2)."""
    from urllib.parse import unquote
    server, ca = serve_tls(r.sample, os.path.join(r.work, "ca"))
    mirror = os.path.join(r.work, "mirror")
    plain = None
    try:
        origin = f"https://127.0.0.1:{server.server_address[1]}/whl"
        spec = os.path.join(r.work, "mirror.yaml")
        with open(spec, "w") as f:
            f.write(f"index: {origin}\nvariants: [cpu]\npackages:\n  torch: \"==2.6.0\"\n"
                    f"python: [\"3.12\"]\narches: [x86_64, aarch64]\nglibc: \"2.28\"\n"
                    f"dependencies: true\n")
        run_expecting([r.wheelmod, "-q", "mirror", spec, "--dest", mirror, "--cacert", ca], 0, timeout=300)
        with open(os.path.join(mirror, "wheelmod-mirror.json")) as f:
            manifest = json.load(f)["files"]
        by_name = {os.path.basename(key): entry for key, entry in manifest.items()}

        def generate(name, index, *extra):
            out = os.path.join(r.work, name)
            run_expecting([r.wheelmod, "-q", "easyconfig", "torch==2.6.0", "--toolchain", "foss-2024a",
                           "--index", index, "--cache-dir", r.cache, "--output-dir", out, *extra], 0)
            return r.checked(out)["PyTorch-2.6.0-foss-2024a-whl.eb"]

        def check_origins(files, how):
            for arch, params in files.items():
                sources = extension_sources(params)
                check(set(sources) >= {"sympy-1.13.1-py3-none-any.whl"}, f"{how}: {sorted(sources)}")
                for filename, (urls, download, sha) in sources.items():
                    entry = by_name[filename]
                    check(urls and all(u.startswith(origin.rsplit("/", 1)[0] + "/") for u in urls),
                          f"{how} {arch}: {filename} from {urls}, not its origin")
                    check(any(unquote(u + "/" + download) == unquote(entry["url"]) for u in urls),
                          f"{how} {arch}: {filename}: {urls} + {download} is not {entry['url']}")
                    check(sha == entry["sha256"], f"{how}: {filename} checksum")

        check_origins(generate("from-mirror", "file://" + mirror), "a mirror on disk")
        index_named = generate("mirror-copies", "file://" + mirror, "--source-urls", "index")
        for arch, params in index_named.items():
            for filename, (urls, _, _) in extension_sources(params).items():
                check(urls == ["file://" + os.path.join(mirror, "files", os.path.dirname(
                    next(k for k in manifest if os.path.basename(k) == filename)))],
                      f"--source-urls index: {filename} from {urls}")
        import functools
        import http.server

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass
        plain = serve_locally(functools.partial(Quiet, directory=mirror))
        check_origins(generate("from-served-mirror", f"http://127.0.0.1:{plain.server_address[1]}/"),
                      "a mirror behind a web server")
    finally:
        stop_server(server)
        if plain:
            stop_server(plain)
    refused = r.run("torch==2.6.0", "--toolchain", "foss-2024a", "--source-urls", "upstream",
                    out=os.path.join(r.work, "no-origin"), expect=2)
    check("no public https:// origin" in refused.stderr and "--source-urls index" in refused.stderr,
          refused.stderr)


def unmet(r):
    """foss-2026.1 with CUDA 13: torch 2.12 requires nvidia-nvshmem-cu13, which no module of the
    shipped tables provides, and sympy's mpmath<1.4 conflicts with SciPy-bundle's 1.4.1. The
    mpmath conflict is met by the index's mpmath 1.3.0 as an extension; NVSHMEM is refused (exit
    3, nothing written) until the site's module is read (--eb-installpath) or the wheel is
    bundled; --bundle-missing meets it on x86_64 only (no aarch64 wheel on the index), which is
    named, not written. (fd98fdf wrote both files, exit 0, which EasyBuild's pip check fails.)"""
    args = ("torch==2.12.0", "--toolchain", "foss-2026.1", "--accelerator", "cu130")
    refused_dir = os.path.join(r.work, "unmet-refused")
    refused = r.run(*args, out=refused_dir, expect=3)
    check("nvidia-nvshmem-cu13==3.4.5 (needed by torch 2.12.0+cu130, PyTorch, aarch64 and x86_64): "
          "no module of 2026.1 provides libnvshmem_host.so.3" in refused.stderr, refused.stderr)
    check("mpmath" not in refused.stderr, f"mpmath is met by the index's wheel: {refused.stderr}")
    check(not os.path.exists(refused_dir) or not os.listdir(refused_dir), "nothing written")
    asymmetric = r.run(*args, "--bundle-missing", out=refused_dir, expect=3)
    check("nvidia-nvshmem-cu13==3.4.5 (needed by torch 2.12.0+cu130, PyTorch, aarch64): "
          in asymmetric.stderr and "x86_64)" not in asymmetric.stderr, asymmetric.stderr)

    out, summary = r.generate("unmet-site", *args, "--eb-installpath", r.sample)
    check(summary["to_add"] == [], summary["to_add"])
    files = r.checked(out)
    for arch in ("x86_64", "aarch64"):
        params = files["PyTorch-2.12.0-foss-2026.1-CUDA-13.3.0-whl.eb"][arch]
        check(("NVSHMEM", "3.4.5", "-CUDA-%(cudaver)s") in params["dependencies"], params["dependencies"])
        mpmath = ext(params, "mpmath")
        check(mpmath[1] == "1.3.0" and "modulename" not in mpmath[2], f"mpmath 1.3.0 bundled: {mpmath}")
        check(ext(params, "sympy")[1] == "1.14.0", "sympy 1.14.0 bundled")
        r.check_checksums(params)

    out, _ = r.generate("unmet-bundled", *args, "--bundle-missing", "--arch", "x86_64")
    params = r.checked(out, arches=("x86_64",))["PyTorch-2.12.0-foss-2026.1-CUDA-13.3.0-whl.eb"]["x86_64"]
    nvshmem = ext(params, "nvidia-nvshmem-cu13")
    check(nvshmem[2].get("modulename") is False, f"a library wheel imports nothing: {nvshmem}")
    check("NVSHMEM" not in names_of(params["dependencies"]), params["dependencies"])


# ---- ROCm: the libraries from the generation's ROCm modules (issue 34) ----------------------

# download.pytorch.org has ROCm wheels for x86_64 only; 2025a's ROCm stack is 6.4.1.
ROCM = ["torch==2.9.1", "torchvision", "--toolchain", "foss-2025a", "--accelerator", "rocm6.4",
        "--arch", "x86_64"]
ROCM_TC = ("rocm-compilers", "19.0.0-ROCm-6.4.1")
# The first provider of each library of config/eb-dependencies.yaml's 2025a `rocm` table, each
# once, GCCcore/14.2.0 (libgomp) left to the toolchain: 18 ROCm modules, 4 of the OS libraries.
ROCM_DEPENDENCIES = [
    ("elfutils", "0.193"), ("HIP", "6.4.1", "", ROCM_TC), ("hipBLAS", "2.4.0", "", ROCM_TC),
    ("hipBLASLt", "0.12.1", "", ROCM_TC), ("hipFFT", "1.0.18", "-nompi", ROCM_TC),
    ("hipRAND", "2.13.0", "", ROCM_TC), ("hipSPARSE", "3.2.0", "", ROCM_TC),
    ("hipSPARSELt", "3.2.0", "", ROCM_TC), ("libdrm", "2.4.125"), ("ncurses", "6.5"),
    ("numactl", "2.0.19"), ("RCCL", "2.22.3", "", ROCM_TC), ("rocBLAS", "4.4.0", "", ROCM_TC),
    ("rocFFT", "1.0.32", "-nompi", ROCM_TC), ("rocm-core", "6.4.0", "-ROCm-6.4.1"),
    ("ROCm-LLVM", "19.0.0", "-ROCm-6.4.1"), ("rocm-smi", "7.6.0", "-ROCm-6.4.1"),
    ("rocprofiler-register", "0.4.0", "-ROCm-6.4.1"), ("rocRAND", "3.3.0", "", ROCM_TC),
    ("rocSOLVER", "3.28.0", "", ROCM_TC), ("rocSPARSE", "3.4.0", "", ROCM_TC),
    ("rocTracer", "4.1.0", "", ROCM_TC),
]


def unmet_wheelmod(summary):
    """wheelmod ships an easyconfig of itself for 2025a's GCCcore 14.2.0 (easyconfigs/): nothing
    is left to add."""
    check(not summary["to_add"], f"nothing may be missing: {summary['to_add']}")


def header_of(path):
    """The leading comment of a file, its lines joined (wrap_comment wraps at 120 columns)."""
    lines = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            lines.append(line[1:].strip())
    return " ".join(lines)


def rocm_modules(r):
    """foss-2025a, rocm6.4 wheels, --with-relink: 2025a's ROCm stack is 6.4.1, so auto (and
    modules) take the libraries from its modules: versionsuffix -ROCm-6.4.1-whl, each provider
    module once as a dependency (the rocm-compilers ones with their toolchain named), relink with
    --rocm-libraries modules then check; the torch.version.hip check stays the wheel's 6.4.
    (Before: -ROCm-6.4-whl and no ROCm dependency, relink leaving the bundled copies.)"""
    pytorch = "PyTorch-2.9.1-foss-2025a-ROCm-6.4.1-whl.eb"
    bundle = "PyTorch-bundle-2.9.1-foss-2025a-ROCm-6.4.1-whl.eb"
    for name, mode in (("rocm-auto", []), ("rocm-modules", ["--rocm-libraries", "modules"])):
        out, summary = r.generate(name, *ROCM, "--with-relink", *mode, "--write-unmet")
        unmet_wheelmod(summary)
        files = r.checked(out, arches=("x86_64",))
        check(sorted(files) == [pytorch, bundle], f"files: {sorted(files)}")
        check(os.path.exists(os.path.join(out, "wheelmod-0.1.0-GCCcore-14.2.0.eb")),
              "wheelmod's own easyconfig is not written beside")
        params = files[pytorch]["x86_64"]
        r.check_checksums(params)
        check(params["versionsuffix"] == "-ROCm-6.4.1-whl", params["versionsuffix"])
        deps = params["dependencies"]
        # The ROCm modules first (as CUDA's), then Python, then what the wheels' requirements map.
        check(deps[:len(ROCM_DEPENDENCIES)] == ROCM_DEPENDENCIES, f"ROCm dependencies:\n{deps}")
        check(deps[len(ROCM_DEPENDENCIES):] == [("Python", "3.13.1"), ("networkx", "3.5"),
                                                ("Python-bundle-PyPI", "2025.04"), ("sympy", "1.14.0")],
              str(deps))
        check(params["postinstallcmds"] == [
            "wheelmod relink %(installdir)s --toolchain foss-2025a --rocm-libraries modules",
            "wheelmod check %(installdir)s"], str(params["postinstallcmds"]))
        check(params["sanity_check_commands"][-1].endswith("| grep -E '^6[.]4'"),
              params["sanity_check_commands"])
        header = header_of(os.path.join(out, pytorch))
        check("ROCm libraries: from the ROCm 6.4.1 modules of generation 2025a" in header
              and "libMIOpen.so, libhipsolver.so, libmagma.so stay bundled" in header, header)
        check(" ".join(["--with-relink", *mode]) in header, header)
        vision = files[bundle]["x86_64"]
        check(("PyTorch", "2.9.1", "-ROCm-6.4.1-whl") in vision["dependencies"], vision["dependencies"])
        check("postinstallcmds" not in vision, "relink only where the libraries are")
        check("ROCm libraries" not in header_of(os.path.join(out, bundle)), "the bundle has none")
    # The same bytes either way: modules is auto where auto takes the modules (but the command
    # line in the header).
    with open(os.path.join(r.work, "rocm-auto", pytorch)) as a, \
            open(os.path.join(r.work, "rocm-modules", pytorch)) as b:
        strip_header = lambda text: text[text.index("\neasyblock"):]  # noqa: E731
        check(strip_header(a.read()) == strip_header(b.read()), "auto and modules differ")


def rocm_bundled(r):
    """Where the libraries stay the wheel's own: --rocm-libraries bundled, no --with-relink (pip
    installs the wheel as published: nothing would remove its copies), a wheel of another ROCm
    (rocm6.3 on the 6.4.1 stack). Each as before: versionsuffix of the wheel's ROCm, no ROCm
    dependency, relink (where asked) without --rocm-libraries; the header says why."""
    cases = {
        "rocm-bundled": ([*ROCM, "--with-relink", "--rocm-libraries", "bundled", "--write-unmet"],
                         "6.4", "(--rocm-libraries bundled)"),
        "rocm-no-relink": (ROCM, "6.4", "without --with-relink pip installs the wheel as published"),
        "rocm-other": ([*ROCM[:5], "rocm6.3", *ROCM[6:], "--with-relink", "--write-unmet"], "6.3",
                       "the wheel is built for ROCm 6.3, generation 2025a's ROCm modules are 6.4.1"),
    }
    for name, (args, rocm, why) in cases.items():
        out, summary = r.generate(name, *args)
        unmet_wheelmod(summary)
        pytorch = f"PyTorch-2.9.1-foss-2025a-ROCm-{rocm}-whl.eb"
        files = r.checked(out, arches=("x86_64",))
        check(pytorch in files, f"{name}: files {sorted(files)}")
        params = files[pytorch]["x86_64"]
        check(params["versionsuffix"] == f"-ROCm-{rocm}-whl", params["versionsuffix"])
        check([dep for dep in params["dependencies"] if dep[0] != "Python"] ==
              [("networkx", "3.5"), ("Python-bundle-PyPI", "2025.04"), ("sympy", "1.14.0")],
              f"{name}: {params['dependencies']}")
        relink = "--with-relink" in args
        check(params.get("postinstallcmds", []) == ([
            "wheelmod relink %(installdir)s --toolchain foss-2025a",
            "wheelmod check %(installdir)s"] if relink else []), f"{name}: {params.get('postinstallcmds')}")
        header = header_of(os.path.join(out, pytorch))
        check("ROCm libraries: the wheel's own, bundled in torch/lib" in header and why in header,
              f"{name}: {header}")
        check(params["sanity_check_commands"][-1].endswith(f"| grep -E '^{rocm.replace('.', '[.]')}'"),
              params["sanity_check_commands"])


def rocm_errors(r):
    """--rocm-libraries modules where the libraries cannot come from modules is a usage error
    (exit 2) naming why, and nothing is written: without --with-relink (refused before anything
    is resolved: torch==9.9 does not exist), a wheel of another ROCm, a generation without a ROCm
    stack, a build that is not ROCm."""
    out = os.path.join(r.work, "rocm-errors")
    cases = [
        (["torch==9.9", *ROCM[1:], "--rocm-libraries", "modules"],
         "--rocm-libraries modules: without --with-relink pip installs the wheel as published"),
        ([*ROCM[:5], "rocm6.3", *ROCM[6:], "--with-relink", "--rocm-libraries", "modules"],
         "--rocm-libraries modules: the wheel is built for ROCm 6.3, generation 2025a's ROCm "
         "modules are 6.4.1"),
        (["torch==2.9.1", "--toolchain", "foss-2025b", "--accelerator", "rocm6.4", "--arch", "x86_64",
          "--with-relink", "--rocm-libraries", "modules"],
         "--rocm-libraries modules: generation 2025b has no ROCm stack in the tables"),
        (["torch==2.6.0", *CUDA, "--with-relink", "--rocm-libraries", "modules"],
         "--rocm-libraries modules: the wheels are cuda builds, which bundle no ROCm libraries"),
    ]
    for args, said in cases:
        result = r.run(*args, out=out, expect=2)
        check(said in result.stderr, f"{args}:\n{result.stderr}")
        check(not os.path.exists(out), f"{args}: the output directory was created")
    # A value that is none of the three
    result = r.run(*ROCM, "--rocm-libraries", "some", out=out, expect=2)
    check("--rocm-libraries" in result.stderr, result.stderr)


def rocm_2025b(r):
    """2025b has no ROCm stack: auto with --with-relink writes what it wrote before (the wheel's
    ROCm in the versionsuffix, no ROCm dependency, relink without --rocm-libraries)."""
    out, summary = r.generate("rocm-2025b", "torch==2.9.1", "torchvision", "--toolchain", "foss-2025b",
                              "--accelerator", "rocm6.4", "--arch", "x86_64", "--with-relink")
    check(summary["to_add"] == [], summary["to_add"])
    pytorch = "PyTorch-2.9.1-foss-2025b-ROCm-6.4-whl.eb"
    files = r.checked(out, arches=("x86_64",))
    check(sorted(files) == [pytorch, "PyTorch-bundle-2.9.1-foss-2025b-ROCm-6.4-whl.eb"], sorted(files))
    params = files[pytorch]["x86_64"]
    check(not [dep for dep in params["dependencies"]
               if len(dep) == 4 or (len(dep) > 2 and "ROCm" in dep[2]) or dep[0] in ("HIP", "numactl")], params["dependencies"])
    check(params["postinstallcmds"] == ["wheelmod relink %(installdir)s --toolchain foss-2025b",
                                        "wheelmod check %(installdir)s"], params["postinstallcmds"])
    header = header_of(os.path.join(out, pytorch))
    check("bundled in torch/lib (generation 2025b has no ROCm stack in the tables" in header, header)


SCENARIOS = {f.__name__: f for f in (cuda_stack, cpu, no_wheel_bundle, missing_hash, deterministic,
                                     with_relink, strip, sanity_commands, errors, site_template,
                                     cuda_across_arches, site_modules, import_names, source_urls, unmet,
                                     rocm_modules, rocm_bundled, rocm_errors, rocm_2025b)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing).
CTEST = {"sanity_commands": {"timeout": 300}}

if __name__ == "__main__":
    sys.exit(scenario_main(__doc__.split("\n")[0], SCENARIOS, Runner, ctest=CTEST))
