#!/usr/bin/env python3
"""`wheelmod resolve` against the sample index: real pages, real wheels.

    resolve_scenarios.py --wheelmod BIN --sample DIR [--http-state DIR] SCENARIO

Each scenario runs the binary, checks the exit code and facts of the
report (against the sample's MANIFEST.json, never hard-coded hashes), and,
where it has a golden file, compares the output byte for byte with
tests/golden/resolve/<scenario>.<ext> after replacing volatile parts
([INDEX] for the index URL, [SAMPLE] for the sample tree, [SHA256] for
digests). Set
WHEELMOD_UPDATE_GOLDEN=1 to rewrite the golden files, then review the diff.
"""
import json
import os
import re
import shutil
import sys
import tempfile

from scenario_support import Failure, check, run_expecting, scenario_main

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "resolve")
CUDA = ["--toolchain", "foss-2024a", "--accelerator", "cuda", "--arch", "x86_64", "--glibc", "2.28"]


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.index = "file://" + os.path.join(args.sample, "whl")
        self.cache = tempfile.mkdtemp(prefix="wheelmod-cache-")
        self.http_state = args.http_state
        with open(os.path.join(args.sample, "MANIFEST.json")) as f:
            self.manifest = json.load(f)

    def close(self):
        shutil.rmtree(self.cache, ignore_errors=True)

    def run(self, *args, index=None, expect=0):
        command = [self.wheelmod, "resolve", "--index", index or self.index,
                   "--cache-dir", self.cache, *args]
        return run_expecting(command, expect)

    def json(self, *args, index=None):
        return json.loads(self.run(*args, "--format", "json", index=index).stdout)

    def manifest_entry(self, filename):
        for wheel in self.manifest["wheels"]:
            if wheel["filename"] == filename:
                return wheel
        raise Failure(f"{filename} is not in the sample's MANIFEST.json")

    def golden(self, name, text, index):
        text = text.replace(index, "[INDEX]").replace("file://" + self.sample, "[SAMPLE]")
        text = re.sub(r"\b[0-9a-f]{64}\b", "[SHA256]", text)
        path = os.path.join(GOLDEN, name)
        if os.environ.get("WHEELMOD_UPDATE_GOLDEN"):
            with open(path, "w") as f:
                f.write(text)
            print("rewrote", path)
            return
        check(os.path.exists(path), f"no golden file {path} (WHEELMOD_UPDATE_GOLDEN=1 writes it)")
        with open(path) as f:
            expected = f.read()
        if text != expected:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), path, "actual"))
            raise Failure(f"output differs from {path}")

    def check_hashes(self, report):
        """Every chosen wheel's sha256 is the sample's, or absent where the page has none."""
        for wheel in report["wheels"]:
            entry = self.manifest_entry(wheel["filename"])
            if entry["has_hash_on_index"]:
                check(wheel["sha256"] == entry["sha256"], f"{wheel['filename']}: wrong sha256")
            else:
                check(wheel["sha256"] is None, f"{wheel['filename']}: a hash the index does not give")


def by_name(report):
    return {w["name"]: w for w in report["wheels"]}


def deps(wheel):
    return {d["name"]: d for d in wheel["dependencies"]}


# ---- scenarios ---------------------------------------------------------------

def cuda_stack(r):
    """The main job: torch + torchvision + torchaudio for foss-2024a with its CUDA."""
    report = r.json("torch==2.6.0", "torchvision", "torchaudio", *CUDA)
    check(report["variant"]["name"] == "cu126" and report["variant"]["exact"], "variant cu126, exact")
    wheels = by_name(report)
    check(wheels["torch"]["filename"] == "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
          "torch wheel: " + wheels["torch"]["filename"])
    check(wheels["torchvision"]["version"] == "0.21.0+cu126", "torchvision 0.21.0+cu126")
    check(wheels["torchaudio"]["version"] == "2.6.0+cu126", "torchaudio 2.6.0+cu126")
    check(wheels["torch"]["metadata_source"] == "PEP 658 .metadata file", "metadata via PEP 658")
    torch = deps(wheels["torch"])
    check(torch["nvidia-cudnn-cu12"]["resolution"] == "module", "cudnn from a module")
    check(torch["nvidia-cudnn-cu12"]["provider"] == "cuDNN/9.5.1.17-CUDA-12.6.0", "cuDNN 9.5.1.17 exact")
    check(torch["nvidia-cudnn-cu12"]["compatibility"] == "exact", "cudnn exact")
    check(torch["nvidia-cuda-runtime-cu12"]["provider"] == "CUDA/12.6.0", "cudart from CUDA/12.6.0")
    check(torch["nvidia-cuda-runtime-cu12"]["compatibility"] == "compatible", "12.6.77 vs 12.6.0: compatible")
    check(torch["jinja2"]["provider"].startswith("Python-bundle-PyPI/2024.06"), "jinja2 from Python-bundle-PyPI")
    check(torch["sympy"]["resolution"] == "bundled", "sympy==1.13.1 is bundled: 2024a has 1.13.3")
    check(deps(wheels["torchvision"])["torch"]["resolution"] == "wheel", "torchvision's torch pin met by the wheel")
    check("CUDA/12.6.0" in report["modules"], "CUDA module listed")
    r.check_hashes(report)
    for fmt, ext in (("text", "txt"), ("markdown", "md")):
        out = r.run("torch==2.6.0", "torchvision", "torchaudio", *CUDA, "--format", fmt).stdout
        r.golden(f"cuda_stack.{ext}", out, r.index)
    r.golden("cuda_stack.json", json.dumps(report, indent=2, sort_keys=True) + "\n", r.index)


def closest_lower_variant(r):
    """torch 2.5.1 was never built for CUDA 12.6: cu124 runs on it, and the report says so."""
    report = r.json("torch==2.5.1", *CUDA)
    check(report["variant"]["name"] == "cu124", "variant cu124: " + report["variant"]["name"])
    check(not report["variant"]["exact"], "not exact")
    check("closest lower" in report["variant"]["reason"], "reason says closest lower")
    check(any(t.startswith("cu126") for t in report["variant"]["tried"]), "cu126 was tried")
    check(by_name(report)["torch"]["version"] == "2.5.1+cu124", "torch 2.5.1+cu124")


def pins_backtrack(r):
    """torch==2.5.1 with torchvision: 0.21.0 pins torch 2.6.0, so 0.20.1 is chosen."""
    report = r.json("torch==2.5.1", "torchvision", "--python", "3.12", "--accelerator", "cpu",
                    "--arch", "x86_64", "--glibc", "2.28")
    check(by_name(report)["torchvision"]["version"] == "0.20.1+cpu", "torchvision 0.20.1+cpu")


def pin_conflict(r):
    """Pins that cannot all hold: exit 3, and the message names the pin."""
    result = r.run("torchvision==0.20.1", "torch==2.6.0", *CUDA, expect=3)
    check("requires torch==2.5.1" in result.stderr, "names the pin: " + result.stderr)
    check(result.stderr.startswith("error: "), "error: prefix")
    check("hint: " in result.stderr, "a hint")


def glibc_too_old(r):
    result = r.run("torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator", "cu126",
                   "--arch", "x86_64", "--glibc", "2.17", expect=3)
    check("needs glibc 2.28, the target has 2.17" in result.stderr, result.stderr)


def wrong_python(r):
    result = r.run("torchaudio==2.5.1", "--python", "3.13", "--accelerator", "cu124",
                   "--arch", "x86_64", "--glibc", "2.28", expect=3)
    check("built for Python" in result.stderr, result.stderr)


def variant_missing(r):
    """rocm6.2.4 has no torch 2.5.1 (it had rocm6.1/6.2); no lower variant is on the index."""
    result = r.run("torch==2.5.1", "--python", "3.12", "--accelerator", "rocm6.2.4",
                   "--arch", "x86_64", "--glibc", "2.28", expect=3)
    check("rocm6.2.4" in result.stderr, result.stderr)


def rocm(r):
    report = r.json("torch==2.6.0", "--python", "3.12", "--accelerator", "rocm6.2.4",
                    "--arch", "x86_64", "--glibc", "2.28")
    torch = by_name(report)["torch"]
    check(torch["version"] == "2.6.0+rocm6.2.4", torch["version"])
    check(deps(torch)["pytorch-triton-rocm"]["resolution"] in ("bundled", "missing"), "triton-rocm handled")


def aarch64_no_hash(r):
    """The cu126 aarch64 wheel has no hash on the index, and no nvidia-* requirements."""
    report = r.json("torch==2.6.0", "--python", "3.12", "--accelerator", "cu126",
                    "--arch", "aarch64", "--glibc", "2.34")
    torch = by_name(report)["torch"]
    check(torch["filename"].endswith("linux_aarch64.whl"), torch["filename"])
    check(torch["sha256"] is None, "no sha256")
    check(any("no sha256" in w for w in report["warnings"]), "a warning about the missing hash")
    check(not any(d["name"].startswith("nvidia-") for d in torch["dependencies"]), "no nvidia deps")


def no_deps(r):
    report = r.json("torch", "torchvision", "--no-deps", "--python", "3.11", "--accelerator", "cpu",
                    "--arch", "x86_64", "--glibc", "2.28")
    check(all(w["metadata_source"] is None for w in report["wheels"]), "no metadata read")
    check(by_name(report)["torch"]["version"] == "2.6.0+cpu", "newest torch")


def bad_input(r):
    checks = [
        (["torch", "--toolchain", "foss-1999a"], 2, "unknown toolchain"),
        (["torch", "--toolchain", "foss-2024a", "--accelerator", "gpu"], 2, "--accelerator gpu"),
        (["torch[", "--python", "3.12"], 2, "not a valid requirement"),
        (["torch"], 2, "neither --toolchain nor --python"),
        (["torch", "--toolchain", "foss-2022a", "--accelerator", "rocm"], 2, "no rocm module"),
    ]
    for args, code, text in checks:
        result = r.run(*args, expect=code)
        check(text in result.stderr, f"{args}: {result.stderr}")


def unreachable(r):
    result = r.run("torch", "--python", "3.12", "--arch", "x86_64", "--glibc", "2.28",
                   index="http://127.0.0.1:9/whl", expect=4)
    check("127.0.0.1:9" in result.stderr, result.stderr)


def stall_timeout(r):
    """resolve's page requests obey --stall-timeout (they once ran on the default 60 s whatever
    was given): a server that sends a page's first bytes and then nothing is given up after
    the retries of a 1 s stall, long before --page-timeout, with exit 4 naming the page."""
    import http.server
    import threading
    import time

    class Stalling(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"<!DOCTYPE html><html><body>")
            self.wfile.flush()
            time.sleep(30)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stalling)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        index = f"http://127.0.0.1:{server.server_address[1]}/whl"
        started = time.monotonic()
        result = r.run("torch==2.6.0", "--python", "3.12", "--arch", "x86_64", "--glibc", "2.28",
                       "--stall-timeout", "1", "--page-timeout", "120", index=index, expect=4)
        elapsed = time.monotonic() - started
        check(elapsed < 60, f"took {elapsed:.0f} s: the stall timeout did not apply")
        check("/whl/torch/" in result.stderr, result.stderr)
    finally:
        server.shutdown()
        server.server_close()


def malformed_metadata_hash(r):
    """A .metadata file whose hash does not match the page (pytorch#197552: a line appended on
    the CDN) is not trusted: the METADATA comes from the wheel itself, with a warning, exit 0."""
    with tempfile.TemporaryDirectory() as tmp:
        import shutil
        root = os.path.join(tmp, "whl")
        shutil.copytree(os.path.join(r.sample, "whl"), root, symlinks=True)
        # the mirrored sympy page links ../packages/, where its wheels are
        shutil.copytree(os.path.join(r.sample, "packages"), os.path.join(tmp, "packages"))
        target = os.path.join(root, "cpu", "torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl.metadata")
        with open(target, "a") as f:
            f.write("Requires-Dist: evil\n")
        result = r.run("torch==2.6.0", "--python", "3.12", "--arch", "x86_64", "--glibc", "2.28",
                       "--format", "json", index="file://" + root, expect=0)
        check("not trusted" in result.stderr and ".whl.metadata" in result.stderr, result.stderr)
        report = json.loads(result.stdout)
        torch = by_name(report)["torch"]
        check(torch["metadata_source"] != "PEP 658 .metadata file", torch["metadata_source"])
        names = [d["name"] for d in torch["dependencies"]]
        check("evil" not in names and "sympy" in names, names)
        check(any("not trusted" in w for w in report["warnings"]), report["warnings"])


def index_contradicts(r):
    """A page that lists one file twice with different hashes: exit 5, naming the file."""
    with tempfile.TemporaryDirectory() as tmp:
        import shutil
        root = os.path.join(tmp, "whl")
        shutil.copytree(os.path.join(r.sample, "whl"), root, symlinks=True)
        page = os.path.join(root, "cpu", "torch", "index.html")
        with open(page) as f:
            html = f.read()
        line = next(l for l in html.splitlines() if "torch-2.6.0%2Bcpu-cp312-cp312-linux_x86_64.whl#sha256=" in l)
        forged = re.sub(r"sha256=[0-9a-f]{64}", "sha256=" + "0" * 64, line, count=1)
        with open(page, "w") as f:
            f.write(html.replace(line, line + "\n" + forged))
        result = r.run("torch==2.6.0", "--python", "3.12", "--arch", "x86_64", "--glibc", "2.28",
                       index="file://" + root, expect=5)
        check("torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl" in result.stderr, result.stderr)


def metadata_requires_python(r):
    """Requires-Python in a wheel's METADATA, not on the page: torch 2.6.0's says >=3.13, so for
    Python 3.12 2.5.1 is chosen and the report says why (pip passes over such a candidate too);
    with torch==2.6.0 nothing fits (exit 3, naming the reason); with --no-deps as well."""
    import hashlib
    import shutil
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "whl")
        shutil.copytree(os.path.join(r.sample, "whl"), root, symlinks=True)
        shutil.copytree(os.path.join(r.sample, "packages"), os.path.join(tmp, "packages"))
        name = "torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl.metadata"
        target = os.path.join(root, "cpu", name)
        with open(target, "rb") as f:
            text = f.read()
        old = hashlib.sha256(text).hexdigest()
        # A header field, after Metadata-Version (the body follows the first blank line).
        edited = text.replace(b"\n", b"\nRequires-Python: >=3.13\n", 1)
        with open(target, "wb") as f:
            f.write(edited)
        page = os.path.join(root, "cpu", "torch", "index.html")
        with open(page) as f:
            html = f.read()
        check(html.count(old) >= 2, "the page names the .metadata file's hash")
        with open(page, "w") as f:
            f.write(html.replace(old, hashlib.sha256(edited).hexdigest()))
        target_args = ["--python", "3.12", "--arch", "x86_64", "--glibc", "2.28"]
        for extra in ([], ["--no-deps"]):
            report = json.loads(r.run("torch", *target_args, *extra, "--format", "json",
                                      index="file://" + root).stdout)
            torch = by_name(report)["torch"]
            check(torch["version"] == "2.5.1+cpu", f"{extra}: chose {torch['version']}")
            check(any(name[:-len(".metadata")] in n and "requires Python >=3.13 (its METADATA), "
                      "the target is 3.12" in n for n in report["notes"]), report["notes"])
            refused = r.run("torch==2.6.0", *target_args, *extra, index="file://" + root, expect=3)
            check("requires Python >=3.13 (its METADATA), the target is 3.12" in refused.stderr,
                  refused.stderr)
        # The control: the sample index, unedited, chooses 2.6.0 for 3.12.
        report = json.loads(r.run("torch", *target_args, "--format", "json").stdout)
        check(by_name(report)["torch"]["version"] == "2.6.0+cpu", "control: 2.6.0 for 3.12")


def variant_url_index(r):
    """--index naming a variant directory (what pytorch.org tells pip users to type) is the root
    and that variant; a conflicting --accelerator or a legacy directory is exit 2 naming the root."""
    target = ["--python", "3.12", "--arch", "x86_64", "--glibc", "2.28"]
    result = r.run("torch==2.6.0", *target, "--format", "json", index=r.index + "/cu126")
    report = json.loads(result.stdout)
    check(report["variant"]["name"] == "cu126", report["variant"])
    check(report["index"] == r.index, report["index"])
    check("variant directory" in result.stderr, result.stderr)
    for args, url in ((["--accelerator", "rocm6.2.4"], r.index + "/cu126/"),
                      ([], r.index + "/cpu-cxx11-abi")):
        result = r.run("torch==2.6.0", *target, *args, index=url, expect=2)
        check("--index " + r.index in result.stderr, "hint names the root: " + result.stderr)


def rocm_patch_level(r):
    """rocm:6.2 and rocm6.2 match the rocm6.2.4 directory: the index names some by patch level."""
    for accelerator in ("rocm:6.2", "rocm6.2", "ROCm6.2"):
        report = r.json("torch==2.6.0", "--python", "3.12", "--accelerator", accelerator,
                        "--arch", "x86_64", "--glibc", "2.28")
        check(report["variant"]["name"] == "rocm6.2.4", accelerator + ": " + str(report["variant"]))


def listed_variants_only(r):
    """Only the variant directories the index's /whl/torch/ page has files in are probed: CUDA
    12.7 goes straight to cu126 (no cu127 request), and the report says cu127 is not there;
    with CUDA 11.8 nothing is left, and the error lists what the index has."""
    report = r.json("torch==2.6.0", "--python", "3.12", "--accelerator", "cuda:12.7",
                    "--arch", "x86_64", "--glibc", "2.28")
    check(report["variant"]["name"] == "cu126", report["variant"])
    check(report["variant"]["tried"] == [], report["variant"]["tried"])
    check(not report["variant"]["exact"], "not exact")
    check("cu127 has no torch files on this index" in report["variant"]["reason"],
          report["variant"]["reason"])
    result = r.run("torch==2.6.0", "--python", "3.12", "--accelerator", "cuda:11.8",
                   "--arch", "x86_64", "--glibc", "2.28", expect=3)
    check(re.search(r"has files in: cpu, cu124, cu126, cu128, .*rocm6\.2\.4", result.stderr),
          result.stderr)
    check("cu118:" not in result.stderr, "cu118 was probed: " + result.stderr)


def driver_floor(r):
    """The report states the chosen CUDA variant's minimum driver; --driver older than it makes
    the variant a miss with its reason (exit 3 when nothing is left)."""
    report = r.json("torch==2.6.0", *CUDA, "--driver", "550.54.15")
    check(report["variant"]["minimum_driver"] == "525.60.13", report["variant"])
    check(report["target"]["nvidia_driver"] == "550.54.15 (--driver)", report["target"])
    result = r.run("torch==2.6.0", *CUDA, "--driver", "470.82.01", expect=3)
    check("cu126: needs NVIDIA driver >= 525.60.13, the driver is 470.82.01 (--driver)"
          in result.stderr, result.stderr)
    cpu = r.json("torch==2.6.0", "--python", "3.12", "--arch", "x86_64", "--glibc", "2.28",
                 "--driver", "470.82.01")
    check(cpu["variant"]["minimum_driver"] is None, cpu["variant"])
    r.run("torch==2.6.0", *CUDA, "--driver", "latest", expect=2)


def http(r):
    """The same resolve over a real HTTP server, then again: the second transfers no page body."""
    check(r.http_state, "needs --http-state")
    with open(os.path.join(r.http_state, "url")) as f:
        url = f.read().strip()
    report = r.json("torch==2.6.0", "torchvision", *CUDA, index=url)
    check(by_name(report)["torch"]["url"].startswith(("http://127.0.0.1", "http://localhost")), "http URLs")
    r.check_hashes(report)
    again = r.run("torch==2.6.0", "torchvision", *CUDA, "--format", "json", index=url)
    check(json.loads(again.stdout) == report, "the second resolve (from the cache) reports the same")
    stats = re.search(r"index: (\d+) requests, .* received, (\d+) pages unchanged", again.stderr)
    check(stats, "a summary line: " + again.stderr)
    # Every page and PEP 658 file of the second run was revalidated (304),
    # not transferred again.
    pages = len({(w["variant"], w["name"]) for w in report["wheels"]})
    pep658 = sum(1 for w in report["wheels"] if w["metadata_source"] == "PEP 658 .metadata file")
    check(int(stats.group(2)) >= pages + pep658,
          f"at least {pages} pages and {pep658} .metadata files answered 304: {again.stderr}")


def site_modules(r):
    """resolve names the modules install links. With the site read (--eb-installpath), the
    sample tree's cuDNN/9.5.0.50-CUDA-12.6.0 (the table's first, 9.5.1.17, is not installed
    there), marked "installed here"; without, the table's cuDNN/9.5.1.17, marked "table". An
    install at that site records the very modules resolve named."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    selection = ["torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator", "cuda", "--python",
                 python, "--arch", "x86_64", "--glibc", "2.28"]

    def cudnn(report):
        return next(d for w in report["wheels"] for d in w["dependencies"]
                    if d["name"] == "nvidia-cudnn-cu12")

    table = cudnn(r.json(*selection))
    check(table["provider"] == "cuDNN/9.5.1.17-CUDA-12.6.0"
          and table.get("module_source") == "table", table)
    site_report = r.json(*selection, "--eb-installpath", r.sample)
    here = cudnn(site_report)
    check(here["provider"] == "cuDNN/9.5.0.50-CUDA-12.6.0"
          and here.get("module_source") == "installed here", here)
    prefix = os.path.join(tempfile.mkdtemp(prefix="wheelmod-site-modules-"), "PyTorch", "2.6.0")
    try:
        run_expecting([r.wheelmod, "-q", "install", *selection, "--index", r.index, "--cache-dir",
                       r.cache, "--eb-installpath", r.sample, "--python-exe", sys.executable,
                       "--prefix", prefix], 0, timeout=300)
        with open(os.path.join(prefix, "easybuild", "wheelmod-install.json")) as handle:
            installed = json.load(handle)["modules"]
        check(sorted(installed) == sorted(site_report["modules"]),
              f"install linked {installed}, resolve named {site_report['modules']}")
    finally:
        shutil.rmtree(os.path.dirname(os.path.dirname(prefix)), ignore_errors=True)


def cuda_major(r):
    """`--accelerator cuda:13` is the newest CUDA 13 variant the target runs: with foss-2026.1
    (CUDA 13.3.0) the same variant a bare `cuda` takes; without a toolchain the newest CUDA 13
    directory that has a fitting wheel. `cuda:12` on a generation with no CUDA 12 is exit 2 naming
    its CUDA versions, and `cu13` is refused naming `cuda:13` instead of read as CUDA 1.3."""
    target = ("--arch", "x86_64", "--glibc", "2.28", "--no-deps")
    bare = r.json("torch", "--toolchain", "foss-2026.1", "--accelerator", "cuda", *target)
    major = r.json("torch", "--toolchain", "foss-2026.1", "--accelerator", "cuda:13", *target)
    check(major["variant"]["name"] == bare["variant"]["name"] == "cu132", major["variant"])
    check(major["target"]["accelerator"] == "cuda 13.3.0", major["target"])
    alone = r.json("torch", "--python", "3.13", "--accelerator", "cuda:13", *target)
    check(alone["variant"]["name"] == "cu132", alone["variant"])
    older = r.json("torch", "--python", "3.12", "--accelerator", "cuda:12", *target)
    check(older["variant"]["name"].startswith("cu12"), older["variant"])
    result = r.run("torch", "--toolchain", "foss-2026.1", "--accelerator", "cuda:12", *target,
                   expect=2)
    check("has no CUDA 12 module" in result.stderr and "13.3.0" in result.stderr, result.stderr)
    for spelling in ("cu13", "cu12"):
        result = r.run("torch", "--toolchain", "foss-2026.1", "--accelerator", spelling, *target,
                       expect=2)
        check(f"write cuda:{spelling[2:]}" in result.stderr and "1." not in result.stderr,
              result.stderr)


def verdicts(r):
    """Each module verdict says what the requirement asks, what the module has and the rule. With
    the site's modules read (--eb-installpath), a CUDA component is judged by its own version from
    the CUDA module's version.json (NVIDIA's runfile writes one at the root), and a 0.x library
    by the SONAME torch needs, looked for in the module: a cuBLAS of another major there is
    incompatible, a cuSPARSELt module without libcusparseLt.so.0 too."""
    site = os.path.join(r.cache, "site")
    shutil.copytree(os.path.join(r.sample, "software"), os.path.join(site, "software"),
                    symlinks=True)
    cuda = os.path.join(site, "software", "CUDA", "13.3.0")

    def version_json(cublas):
        with open(os.path.join(cuda, "version.json"), "w") as handle:
            json.dump({"cuda": {"name": "CUDA SDK", "version": "13.3.0"},
                       "libcublas": {"name": "CUDA cuBLAS", "version": cublas}}, handle)

    def dependencies():
        report = r.json("torch==2.12.0", "--toolchain", "foss-2026.1", "--accelerator", "cuda",
                        "--arch", "x86_64", "--glibc", "2.28", "--eb-installpath", site)
        return deps(by_name(report)["torch"])

    # torch 2.12 asks nvidia-cublas<=13.1.1.3,>=13.1.0.3 (a range) and cuda-toolkit[...]==13.0.2.
    version_json("13.1.0.3")
    found = dependencies()
    cublas = found["nvidia-cublas"]
    check(cublas["compatibility"] == "compatible" and cublas["provided_version"] == "13.1.0.3" and
          "CUDA/13.3.0's libcublas is 13.1.0.3 (its version.json): within the range" in
          cublas["note"], cublas)
    toolkit = found["cuda-toolkit"]
    check(toolkit["compatibility"] == "compatible" and toolkit["provider"] == "CUDA/13.3.0" and
          "minor-version compatibility" in toolkit["note"] and "cudart libcudart.so.13" in
          toolkit["note"], toolkit)
    sparse = found["nvidia-cusparselt-cu13"]
    check(sparse["compatibility"] == "compatible" and "has libcusparseLt.so.0" in sparse["note"] and
          "0.x versions promise no compatibility" in sparse["note"], sparse)
    # The CUDA 13.3 module's own cuBLAS is outside the range torch asks: said, not "no version
    # pinned".
    version_json("13.3.0.5")
    cublas = dependencies()["nvidia-cublas"]
    check(cublas["compatibility"] == "incompatible" and "outside the range" in cublas["note"],
          cublas)
    version_json("12.9.1.4")
    cublas = dependencies()["nvidia-cublas"]
    check(cublas["compatibility"] == "incompatible" and "outside the range" in cublas["note"],
          cublas)
    # No version.json: judged by the toolkit's major, and the note says so.
    os.remove(os.path.join(cuda, "version.json"))
    cublas = dependencies()["nvidia-cublas"]
    check(cublas["compatibility"] == "compatible" and "does not say which libcublas" in
          cublas["note"] and "minor-version compatibility" in cublas["note"], cublas)
    lib = os.path.join(site, "software", "cuSPARSELt", "0.9.1.1-CUDA-13.3.0", "lib")
    for name in os.listdir(lib):
        if name.startswith("libcusparseLt.so.0"):
            os.remove(os.path.join(lib, name))
    sparse = dependencies()["nvidia-cusparselt-cu13"]
    check(sparse["compatibility"] == "incompatible" and "without libcusparseLt.so.0" in
          sparse["note"], sparse)


def newest_releases(r):
    """The newest releases resolve as download.pytorch.org publishes them (the sample's facts
    table): foss-2026.1 with `cuda` takes torch 2.14; torch 2.12 comes with torchaudio 2.11.0 (no
    torchaudio 2.12 exists); a ROCm 7.2 torch bundles triton-rocm from the index root. Every
    torch release x CUDA variant for its generation maps each CUDA requirement to a module with a
    verdict that states its rule, or names it missing: none is "no version pinned"."""
    target = ("--arch", "x86_64", "--glibc", "2.28")
    newest = r.json("torch", "--toolchain", "foss-2026.1", "--accelerator", "cuda", *target,
                    "--no-deps")
    check(by_name(newest)["torch"]["version"].startswith("2.14.0+"), by_name(newest)["torch"])
    stack = by_name(r.json("torch==2.12.1", "torchvision", "torchaudio", "--toolchain",
                           "foss-2026.1", "--accelerator", "cuda", *target))
    check(stack["torchaudio"]["version"].startswith("2.11.0+"), stack["torchaudio"])
    rocm = r.json("torch==2.12.1", "--python", "3.13", "--accelerator", "rocm7.2", *target)
    triton = deps(by_name(rocm)["torch"])["triton-rocm"]
    check(triton["resolution"] == "bundled" and triton["provider"].startswith("triton_rocm-"),
          triton)
    rows = [(t, "2025b", "cu126") for t in ("2.10.0", "2.12.1", "2.13.0", "2.14.0")] + \
           [("2.10.0", "2025b", v) for v in ("cu128", "cu129")] + \
           [(t, "2026.1", v) for t in ("2.12.0", "2.12.1", "2.13.0", "2.14.0")
            for v in ("cu130", "cu132")]
    for torch, generation, variant in rows:
        report = r.json(f"torch=={torch}", "--toolchain", f"foss-{generation}", "--accelerator",
                        variant, *target)
        wheel = by_name(report)["torch"]
        cuda = [d for d in wheel["dependencies"]
                if d["name"].startswith(("nvidia-", "cuda-toolkit"))]
        check(cuda, f"{wheel['filename']}: no CUDA requirement")
        for dependency in cuda:
            where = f"{wheel['filename']} on {generation}: {dependency['requirement']}"
            check(dependency["resolution"] in ("module", "missing"), f"{where}: {dependency}")
            check(dependency["note"] and "no version pinned" not in dependency["note"],
                  f"{where}: {dependency['note']}")
            if dependency["resolution"] == "module" and dependency["compatibility"] != "exact":
                check("wants" in dependency["note"] or "no version required" in dependency["note"],
                      f"{where}: the note does not say what is asked: {dependency['note']}")


SCENARIOS = {f.__name__: f for f in (
    site_modules,
    cuda_stack, closest_lower_variant, pins_backtrack, pin_conflict, glibc_too_old, wrong_python,
    variant_missing, rocm, aarch64_no_hash, no_deps, bad_input, unreachable, malformed_metadata_hash,
    variant_url_index, rocm_patch_level, listed_variants_only, driver_floor, stall_timeout,
    index_contradicts, metadata_requires_python, cuda_major, verdicts, newest_releases, http)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing):
# http reads the URL of the nginx fixture, and is registered only where tests/integration starts it.
CTEST = {"http": {"options": ("--http-state",), "fixtures": "nginx"}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
