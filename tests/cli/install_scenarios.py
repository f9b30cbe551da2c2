#!/usr/bin/env python3
"""`wheelmod install` end to end on the sample index and EasyBuild tree.

    install_scenarios.py --wheelmod BIN --sample DIR SCENARIO

Resolves and fetches from the sample index (file://), installs into a
prefix, relinks at the sample modules and byte-compiles with this Python;
then imports torch with LD_LIBRARY_PATH unset, checks every RECORD row
against the file it names, and kills installs midway to show that a prefix
is only ever the old installation or the new one.
"""
import base64
import glob
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

from scenario_support import (check, in_node_view, run_expecting, scenario_main, serve_locally,
                             stop_server, verify_site_records)

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
OLD = "torch==2.5.1"


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.index = "file://" + os.path.join(args.sample, "whl")
        self.work = tempfile.mkdtemp(prefix="wheelmod-install-")
        self.cache = os.path.join(self.work, "cache")

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def command(self, spec, prefix, *extra, eb=None):
        # The old installation of the replace tests is a CPU build (2.5.1+cpu).
        accelerator = "cpu" if spec == OLD else "cuda"
        return [self.wheelmod, "-q", "install", spec, "--toolchain", "foss-2024a", "--accelerator",
                accelerator, "--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28",
                "--index", self.index, "--cache-dir", self.cache, "--eb-installpath",
                eb or self.sample, "--python-exe", sys.executable, "--prefix", prefix, *extra]

    def install(self, spec, prefix, *extra, expect=0, eb=None):
        command = self.command(spec, prefix, *extra, eb=eb)
        return run_expecting(command, expect, timeout=300)


def site_of(prefix):
    return os.path.join(prefix, "lib", f"python{PYTHON}", "site-packages")


def import_torch(prefix):
    environment = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    environment["PYTHONPATH"] = site_of(prefix)
    return subprocess.run(in_node_view([sys.executable, "-c",
                                        "import torch; print(torch.__version__)"]),
                          capture_output=True, text=True, env=environment, timeout=60)


def verify_records(prefix):
    """Every RECORD true to the files (verify_site_records); returns the dist-info names."""
    return verify_site_records(site_of(prefix))


def cuda_stack(r):
    """torch for foss-2024a + CUDA: installed, relinked, compiled; import works without a
    library path; nvidia-* requirements moved to wheelmod.json; RECORD true to every file."""
    prefix = os.path.join(r.work, "PyTorch", "2.6.0-foss-2024a-CUDA-12.6.0-whl")
    r.install("torch==2.6.0", prefix)
    imported = import_torch(prefix)
    check(imported.returncode == 0, f"import torch failed:\n{imported.stderr}")
    check(imported.stdout.strip() == "2.6.0+cu126", imported.stdout)
    dists = verify_records(prefix)
    torch_dist = os.path.join(site_of(prefix), next(d for d in dists if d.startswith("torch-")))
    with open(os.path.join(torch_dist, "METADATA")) as handle:
        metadata = handle.read()
    check("Requires-Dist: nvidia-" not in metadata, "nvidia-* requirements left in METADATA")
    check("Requires-Dist: sympy" in metadata, "a Python requirement was removed")
    with open(os.path.join(torch_dist, "wheelmod.json")) as handle:
        provenance = handle.read()
    check("nvidia-cudnn-cu12" in provenance and "cuDNN/" in provenance, provenance)
    pycs = glob.glob(os.path.join(site_of(prefix), "torch", "__pycache__", "*.pyc"))
    check(pycs, "torch was not byte-compiled")
    with open(os.path.join(torch_dist, "RECORD")) as handle:
        check("__pycache__" in handle.read(), "the .pyc files are not in RECORD")
    check(not [n for n in os.listdir(prefix) if n.startswith(".wheelmod")],
          f"wheelmod's working files left in the prefix: {os.listdir(prefix)}")
    leftovers = [n for n in os.listdir(os.path.dirname(prefix)) if "wheelmod-" in n and not n.endswith(".lock")]
    check(not leftovers, f"staging or download directories left: {leftovers}")


def replace_needs_force(r):
    """An existing prefix: exit 2 without --force, untouched; replaced with it."""
    prefix = os.path.join(r.work, "replace")
    r.install(OLD, prefix)
    result = r.install("torch==2.6.0", prefix, expect=2)
    check("--force" in result.stderr, result.stderr)
    check(any(d.startswith("torch-2.5.1") for d in verify_records(prefix)), "the old prefix changed")
    r.install("torch==2.6.0", prefix, "--force")
    dists = verify_records(prefix)
    check(any(d.startswith("torch-2.6.0") for d in dists) and
          not any(d.startswith("torch-2.5.1") for d in dists), f"after --force: {dists}")


def rerun_is_noop(r):
    """The same request on an installation made from the same resolution: exit 0 "already
    installed", nothing touched; with --force only checked again (nothing rewritten); a
    different request names what differs and needs --force; a broken installation is installed
    again by --force."""
    prefix = os.path.join(r.work, "again")
    r.install("torch==2.6.0", prefix)
    marker = os.path.join(prefix, "easybuild", "wheelmod-install.log")
    before = {path: os.stat(path).st_mtime_ns for path in glob.glob(
        os.path.join(site_of(prefix), "torch", "**"), recursive=True)}
    before[marker] = os.stat(marker).st_mtime_ns
    again = r.install("torch==2.6.0", prefix)
    check("already installed" in again.stdout, again.stdout)
    rechecked = r.install("torch==2.6.0", prefix, "--force", "--format", "json")
    report = json.loads(rechecked.stdout)
    check(report["outcome"] == "already installed, checked again", report)
    after = {path: os.stat(path).st_mtime_ns for path in before}
    check(after == before, "a re-run or --force on the same resolution rewrote files")
    different = r.install(OLD, prefix, expect=2)
    check("different resolution" in different.stderr and "wheels:" in different.stderr
          and "torch-2.5.1" in different.stderr, different.stderr)
    check(any(d.startswith("torch-2.6.0") for d in verify_records(prefix)), "the prefix changed")
    # Broken (a library of the prefix gone; not libc10.so, which Debian's libtorch also puts in
    # the system directories): --force installs it again.
    missing = os.path.join(site_of(prefix), "torch", "lib", "libc10_cuda.so")
    os.remove(missing)
    repaired = r.install("torch==2.6.0", prefix, "--force", "--format", "json")
    check(json.loads(repaired.stdout)["outcome"] == "installed", repaired.stdout)
    check(os.path.isfile(missing) and import_torch(prefix).returncode == 0,
          "not repaired by --force")


def module_name_needs_install_dir(r):
    """--module on a prefix that is no installation directory (<software>/<Name>/<version>):
    exit 2 before anything is written, unless --module-name names the module; a relative
    --prefix is made absolute."""
    work = os.path.join(r.work, "rel")
    os.makedirs(work)
    modules = os.path.join(r.work, "modules")
    command = r.command("torch==2.6.0", "myprefix", "--module", "--modulepath", modules)
    refused = run_expecting(command, 2, cwd=work)
    check("--module-name" in refused.stderr, refused.stderr)
    check(not os.path.exists(os.path.join(work, "myprefix")) and not os.path.exists(modules),
          "something was written")
    named = run_expecting(command + ["--module-name", "PyTorch/2.6.0-mine"], 0, cwd=work)
    written = os.path.join(modules, "all", "PyTorch", "2.6.0-mine.lua")
    check(os.path.isfile(written), f"no {written}: {named.stdout}")
    with open(written) as handle:
        check(os.path.join(work, "myprefix") in handle.read(), "the module's root is not absolute")


def killed(r):
    """SIGKILL at random moments of an install --force: the prefix is always wholly the old
    installation or wholly the new one, and the next run cleans up and succeeds."""
    prefix = os.path.join(r.work, "killed")
    r.install(OLD, prefix)
    r.install("torch==2.6.0", os.path.join(r.work, "warm"))  # fill the wheel cache
    random.seed(7)
    seen = set()
    for attempt in range(6):
        process = subprocess.Popen(r.command("torch==2.6.0", prefix, "--force"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(random.uniform(0.05, 1.5))
        process.send_signal(signal.SIGKILL)
        process.wait()
        dists = verify_records(prefix)
        torch = [d for d in dists if d.startswith("torch-")]
        check(len(torch) == 1, f"attempt {attempt}: a mix of installations: {dists}")
        seen.add(torch[0])
        print(f"attempt {attempt}: killed, prefix holds {torch[0]}")
        if torch[0].startswith("torch-2.6.0"):
            r.install(OLD, prefix, "--force")  # back to the old one for the next try
    r.install("torch==2.6.0", prefix, "--force")
    check(any(d.startswith("torch-2.6.0") for d in verify_records(prefix)), "final install")
    leftovers = [n for n in os.listdir(r.work) if "wheelmod-staging" in n]
    check(not leftovers, f"staging directories left after a successful run: {leftovers}")
    print("states seen:", sorted(seen))


def rpath_of(library):
    dynamic = subprocess.run(["readelf", "-d", library], capture_output=True, text=True,
                             check=True).stdout
    for line in dynamic.splitlines():
        if "(RPATH)" in line or "(RUNPATH)" in line:
            return line.split("[", 1)[1].rsplit("]", 1)[0]
    return None


def bundle_missing(r):
    """A site without the cuSPARSELt module: install stops before downloading anything and
    names the library (exit 6); with --bundle-missing the index's nvidia-cusparselt-cu12
    wheel goes into the prefix, torch's RPATH keeps its directory, and import works."""
    eb = os.path.join(r.work, "eb-without-cusparselt")
    os.makedirs(os.path.join(eb, "software"))
    for name in os.listdir(os.path.join(r.sample, "software")):
        if name != "cuSPARSELt":
            os.symlink(os.path.join(r.sample, "software", name), os.path.join(eb, "software", name))
    prefix = os.path.join(r.work, "PyTorch", "2.6.0-foss-2024a-CUDA-12.6.0-whl")
    result = r.install("torch==2.6.0", prefix, expect=6, eb=eb)
    check("nvidia-cusparselt-cu12" in result.stderr and "cuSPARSELt/0.6.3.2-CUDA-12.6.0"
          in result.stderr and "--bundle-missing" in result.stderr, result.stderr)
    check(not os.path.exists(prefix), "the refused install created the prefix")
    downloaded = glob.glob(os.path.join(r.cache, "wheels", "**", "*"), recursive=True)
    check(not [f for f in downloaded if os.path.isfile(f)], f"wheels downloaded: {downloaded}")

    r.install("torch==2.6.0", prefix, "--bundle-missing", eb=eb)
    site = site_of(prefix)
    # nvidia-cusparselt-cu12 0.6 installs at the top of site-packages (cusparselt/lib), the
    # directory torch 2.6's RPATH names; later releases moved under nvidia/.
    bundled = os.path.join(site, "cusparselt", "lib", "libcusparseLt.so.0")
    check(os.path.isfile(bundled), f"{bundled} not installed")
    check(glob.glob(os.path.join(site, "nvidia_cusparselt_cu12-*.dist-info")), "no dist-info")
    rpath = rpath_of(os.path.join(site, "torch", "lib", "libtorch_cuda.so"))
    entries = rpath.split(":")
    check("$ORIGIN/../../cusparselt/lib" in entries, f"bundled directory not kept: {rpath}")
    check(os.path.join(eb, "software", "cuDNN", "9.5.0.50-CUDA-12.6.0", "lib") in entries,
          f"cuDNN not mapped to the module: {rpath}")
    check(not [e for e in entries if "nvidia/cudnn" in e], f"nvidia/cudnn left: {rpath}")
    torch_dist = glob.glob(os.path.join(site, "torch-*.dist-info"))[0]
    with open(os.path.join(torch_dist, "METADATA")) as handle:
        metadata = handle.read()
    # The bundled wheel satisfies its requirement itself; module-provided ones are stripped.
    check("Requires-Dist: nvidia-cusparselt-cu12" in metadata, "the bundled requirement was removed")
    check("Requires-Dist: nvidia-cudnn-cu12" not in metadata, "a module requirement was left")
    imported = import_torch(prefix)
    check(imported.returncode == 0, f"import torch failed:\n{imported.stderr}")
    verify_records(prefix)


def vision_audio(r):
    """torch, torchvision and torchaudio for CUDA: torchvision's _C.so names only
    $ORIGIN/../torch/lib yet needs libcudart.so.12 (it loads after `import torch` only because
    ld.so reuses the loaded object). The install adds the CUDA module's directory to its RPATH,
    so the check passes and the extension loads on its own, in a process without torch."""
    prefix = os.path.join(r.work, "PyTorch-bundle", "2.6.0-foss-2024a-CUDA-12.6.0-whl")
    r.install("torch==2.6.0", prefix, "torchvision", "torchaudio")
    site = site_of(prefix)
    cuda_lib64 = os.path.join(r.sample, "software", "CUDA", "12.6.0", "lib64")
    for extension in ("torchvision/_C.so", "torchaudio/lib/libtorchaudio.so"):
        library = os.path.join(site, extension)
        rpath = rpath_of(library)
        check(cuda_lib64 in rpath.split(":"), f"{extension}: CUDA/lib64 not in {rpath}")
        check(any(e.startswith("$ORIGIN") and e.endswith("torch/lib") for e in rpath.split(":")),
              f"{extension}: the torch/lib entry was lost: {rpath}")
        environment = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        alone = subprocess.run([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])",
                                library], capture_output=True, text=True, env=environment, timeout=60)
        check(alone.returncode == 0, f"{extension} does not load on its own:\n{alone.stderr}")
    checked = run_expecting([r.wheelmod, "check", prefix, "--allow", r.sample], 0, timeout=120)
    print(checked.stdout.strip().splitlines()[-1])
    verify_records(prefix)


def bad_input(r):
    """Usage mistakes: exit 2, nothing created."""
    prefix = os.path.join(r.work, "bad")
    result = subprocess.run([r.wheelmod, "install", "--prefix", prefix, "--toolchain", "foss-2024a"],
                            capture_output=True, text=True, timeout=60)
    check(result.returncode == 2 and "nothing to install" in result.stderr, result.stderr)
    result = subprocess.run([r.wheelmod, "install", "torch", "--prefix", prefix],
                            capture_output=True, text=True, timeout=60)
    check(result.returncode == 2 and "--toolchain" in result.stderr, result.stderr)
    check(not os.path.exists(prefix), "bad input created the prefix")


class SlowIndex:
    """The sample tree over HTTP on 127.0.0.1, with Range requests (206, If-Range on a strong
    ETag) and, while `slow`, torch wheels sent at 10 KiB/s; `requests` logs (path, Range)."""

    def __init__(self, root):
        import hashlib
        import http.server
        import urllib.parse
        index = self
        self.slow = True
        self.requests = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
                local = os.path.join(root, path.lstrip("/"))
                if os.path.isdir(local):
                    local = os.path.join(local, "index.html")
                if not os.path.isfile(local):
                    self.send_error(404)
                    return
                with open(local, "rb") as f:
                    data = f.read()
                etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
                wanted = self.headers.get("Range")
                index.requests.append((path, wanted))
                start, end = 0, len(data)  # RFC 9110 §14.1.2: first-last, first-, -suffix
                ranged = (wanted and wanted.startswith("bytes=") and "," not in wanted and
                          self.headers.get("If-Range", etag) == etag)
                if ranged:
                    first, last = wanted[6:].split("-")
                    if first:
                        start, end = int(first), min(len(data), int(last) + 1 if last else end)
                    else:
                        start = max(0, len(data) - int(last))
                self.send_response(206 if ranged else 200)
                if ranged:
                    self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
                self.send_header("Content-Length", str(end - start))
                self.send_header("ETag", etag)
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                body = data[start:end]
                throttled = index.slow and os.path.basename(path).startswith("torch-")
                step = 1024 if throttled else len(body) or 1
                try:
                    for at in range(0, len(body), step):
                        self.wfile.write(body[at:at + step])
                        self.wfile.flush()
                        if throttled:
                            time.sleep(0.1)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = serve_locally(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/whl"

    def close(self):
        stop_server(self.server)


def interrupted_download(r):
    """SIGINT, then SIGTERM, while the torch wheel is downloading: the process ends by the
    signal after one line saying the downloads are kept; the partial file and its resume
    sidecar stay in PARENT/.NAME.wheelmod-downloads/, named after the prefix, not the process;
    the next run asks for the rest (Range) and goes on, and the last run installs and removes
    the directory."""
    server = SlowIndex(r.sample)
    try:
        prefix = os.path.join(r.work, "interrupted")
        area = os.path.join(r.work, ".interrupted.wheelmod-downloads")
        command = r.command("torch==2.6.0", prefix)
        command[command.index(r.index)] = server.url
        command[command.index(r.cache)] = os.path.join(r.work, "cold-cache")

        def part_size():
            parts = glob.glob(os.path.join(area, "torch-2.6.0*.whl.part"))
            return os.path.getsize(parts[0]) if parts else 0

        kept = 0
        for number in (signal.SIGINT, signal.SIGTERM):
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 60
            while part_size() < kept + 3072 and time.monotonic() < deadline:
                time.sleep(0.05)
            check(part_size() >= kept + 3072, f"the torch wheel's .part did not grow past {kept}")
            process.send_signal(number)
            _, stderr = process.communicate(timeout=60)
            stderr = stderr.decode()
            check(process.returncode == -number,
                  f"{number.name}: exit {process.returncode}, not ended by the signal\n{stderr}")
            check(f"interrupted; the downloads in {area} are kept" in stderr, stderr)
            check(glob.glob(os.path.join(area, "torch-2.6.0*.whl.part.json")),
                  f"no resume sidecar in {area}: {os.listdir(area)}")
            check(not os.path.exists(prefix), "a prefix after an interrupted download")
            grown = part_size()
            check(grown > kept, f"{number.name}: the .part did not keep its bytes ({grown})")
            if kept:
                check(any(p.endswith(".whl") and "/torch-2.6.0" in p and rng == f"bytes={kept}-"
                          for p, rng in server.requests),
                      f"the second run did not resume at {kept}: {server.requests}")
            kept = grown
        server.slow = False
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        check(result.returncode == 0, result.stderr)
        check(any("/torch-2.6.0" in p and rng == f"bytes={kept}-" for p, rng in server.requests),
              f"the last run did not resume at {kept}")
        verify_records(prefix)
        check(not os.path.exists(area), f"{area} left after the install")
        print(f"resumed at {kept} bytes after SIGINT and SIGTERM; installed")
    finally:
        server.close()


def write_wheel(path, files):
    """A py3-none-any wheel of `files` (name -> bytes) with WHEEL, METADATA and a RECORD of
    sha256 rows, as a build backend writes it."""
    name, version = os.path.basename(path).split("-")[:2]
    dist = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n" \
        b"Tag: py3-none-any\n"
    rows = []
    for member, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{member},sha256={digest},{len(data)}")
    rows.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = ("\n".join(rows) + "\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for member, data in files.items():
            archive.writestr(member, data)


def compile_overlaps(r):
    """Sources are byte-compiled while the largest entry is still being unpacked: a wheel of one
    256 MiB blob and 300 modules, --threads 2; a sitecustomize in the compiling Python logs the
    blob's size on disk each time a file is compiled. Before, every file compiled after the
    whole wheel was unpacked (all at the full size)."""
    block = random.Random(7).randbytes(16384)  # repeats inside deflate's window: ~100:1
    blob_size = 256 << 20
    modules = {f"overlap/m{i:03}.py": f"VALUE = {i}\n\ndef f(x):\n    return x + VALUE\n"
               .encode() for i in range(300)}
    wheel = os.path.join(r.work, "overlap-1.0-py3-none-any.whl")
    write_wheel(wheel, {"overlap/__init__.py": b"", **modules,
                        "overlap/blob.bin": block * (blob_size // len(block))})
    hook = os.path.join(r.work, "hook")
    os.makedirs(hook)
    log = os.path.join(r.work, "compiled.log")
    prefix = os.path.join(r.work, "overlap-prefix")  # and others beside it
    with open(os.path.join(hook, "sitecustomize.py"), "w") as handle:
        handle.write(f"""import glob, os, py_compile
_compile = py_compile.compile
def compile(file, *args, **kwargs):
    blobs = glob.glob({os.path.dirname(prefix)!r} + "/.*/lib/python*/site-packages/overlap/blob.bin")
    size = os.path.getsize(blobs[0]) if blobs else -1
    with open({log!r}, "a") as out:
        out.write("%s %d %d\\n" % (os.path.basename(file), size, os.getpid()))
    return _compile(file, *args, **kwargs)
py_compile.compile = compile
""")
    environment = dict(os.environ, PYTHONPATH=hook)

    def install(name, *extra, launcher=()):
        if os.path.exists(log):
            os.unlink(log)
        prefix = os.path.join(r.work, name)
        run_expecting([*launcher, r.wheelmod, "-q", "install", "--wheel", wheel, "--toolchain",
                       "foss-2024a", "--python", PYTHON, "--eb-installpath", r.sample,
                       "--python-exe", sys.executable, "--prefix", prefix, *extra],
                      0, timeout=300, env=environment)
        check(os.path.exists(log), "the compiling Python never called py_compile.compile")
        with open(log) as handle:
            seen = [line.split() for line in handle]
        check(len(seen) == 301, f"{len(seen)} files compiled, expected 301")
        pycs = glob.glob(os.path.join(site_of(prefix), "overlap", "__pycache__", "*.pyc"))
        check(len(pycs) == 301, f"{len(pycs)} .pyc files")
        verify_records(prefix)
        return [(name, int(size), int(pid)) for name, size, pid in seen]

    seen = install("overlap-prefix", "--threads", "2")
    during = [name for name, size, _ in seen if size < blob_size]
    check(during, "no file was compiled before the 256 MiB entry was unpacked: compiling "
          "followed the unpacking")
    # One compiling process per unpacking thread: --threads, else the CPUs this process may use.
    check(len({pid for *_, pid in seen}) == 2, "--threads 2: not 2 compiling processes")
    three = install("threads-3", "--threads", "3")
    check(len({pid for *_, pid in three}) == 3, "--threads 3: not 3 compiling processes")
    taskset = shutil.which("taskset")
    if taskset and len(os.sched_getaffinity(0)) > 1:
        one = install("one-cpu", launcher=(taskset, "-c", str(min(os.sched_getaffinity(0)))))
        check(len({pid for *_, pid in one}) == 1, "on one CPU (taskset): not 1 compiling process")
    else:
        print("taskset missing or one CPU: the affinity case is not run")
    print(f"{len(during)} of 301 files compiled while the 256 MiB entry was being unpacked")


def dry_run(r):
    """install --dry-run prints the plan (text and JSON) and stops: no prefix, no download
    directory, no module file, no wheel in the cache. The install then made with the same options
    carries that plan out: the same wheels with the same sha256 (its log), the same modules (its
    provenance), the module file where the plan said."""
    # An installation directory (<software>/<Name>/<version>), which names the module.
    prefix = os.path.join(r.work, "software", "PyTorch", "2.6.0-foss-2024a-CUDA-12.6.0-whl")
    modules = os.path.join(r.work, "modules")
    extra = ("--module", "--modulepath", modules)
    text = r.install("torch==2.6.0", prefix, *extra, "--dry-run").stdout
    for line in ("prefix:   " + prefix, "variant:  cu126", "relink:", "nvidia/cudnn/lib -> ",
                 "nothing was downloaded or written (--dry-run)"):
        check(line in text, f"{line!r} not in the plan:\n{text}")
    plan = json.loads(r.install("torch==2.6.0", prefix, *extra, "--dry-run", "--format",
                                "json").stdout)
    check(plan["dry_run"] and plan["prefix"] == prefix and not plan["prefix_exists"], plan)
    check(not os.path.exists(prefix) and not os.path.exists(plan["download_area"]),
          "the dry run left a prefix or a download directory")
    check(not os.path.exists(modules), "the dry run wrote into the module tree")
    cached = glob.glob(os.path.join(r.cache, "**", "*.whl"), recursive=True)
    check(not cached, f"the dry run downloaded wheels: {cached}")
    wheels = {w["filename"]: w["sha256"] for w in plan["resolution"]["wheels"]}
    check(any(name.startswith("torch-2.6.0+cu126") for name in wheels), wheels)
    cudnn = [x for x in plan["relink"] if x["package"] == "nvidia-cudnn-cu12"]
    check(cudnn and cudnn[0]["module_libdir"].endswith("/lib"), plan["relink"])
    # The module file's dependencies, each said present or not: the empty tree has none.
    loads = plan["module_file"]["loads"]
    check("foss/2024a" in loads and any(m.startswith("CUDA/") for m in loads), loads)
    check(plan["module_file"]["missing"] == loads, plan["module_file"])
    check("module loads:" in text and "foss/2024a  (in no module tree here)" in text, text)
    # The install with the same options does what the plan said.
    r.install("torch==2.6.0", prefix, *extra)
    with open(os.path.join(prefix, "easybuild", "wheelmod-install.log")) as handle:
        log = handle.read()
    for name, digest in wheels.items():
        check(f"{name} sha256:{digest} (as the index gives it)" in log, f"{name} not fetched as planned")
    with open(os.path.join(prefix, "easybuild", "wheelmod-install.json")) as handle:
        provenance = json.load(handle)
    check(sorted(provenance["modules"]) == sorted(m["module"] for m in plan["modules"]),
          f"{provenance['modules']} against the plan's {plan['modules']}")
    recorded = {w["filename"]: w["sha256"] for w in provenance["wheels"]}
    check(recorded == wheels, f"the provenance records {recorded}, the plan said {wheels}")
    check(os.path.isfile(plan["module_file"]["file"]), "no module file where the plan said")


def startup_code(r):
    """A wheel that installs start-up code into site-packages (issue 32, class 5): a top-level
    sitecustomize.py, a json.py that shadows the standard library's, a .pth file with an import
    line, and a usercustomize.py in its .data/purelib. `install --strict` refuses it (exit 6)
    before anything is written, naming each file; without --strict each is named in a warning,
    in the text and JSON output and in the install log. Then the target Python shows they are
    real: with site-packages on PYTHONPATH, as the module puts it, sitecustomize runs at start-up
    and `import json` loads the wheel's; site.addsitedir (EBPYTHONPREFIXES) runs the .pth's import
    line. The sample torch gets no such warning."""
    marker = os.path.join(r.work, "sitecustomize-ran")
    pth_marker = os.path.join(r.work, "pth-ran")
    wheel = os.path.join(r.work, "hooks-1.0-py3-none-any.whl")
    write_wheel(wheel, {
        "hooks/__init__.py": b"",
        "sitecustomize.py": f"open({marker!r}, 'w').write('ran')\n".encode(),
        "json.py": b"SHADOWED = True\n",
        "hooks.pth": f"import os; open({pth_marker!r}, 'w').write('ran')\n".encode(),
        "pkg/json.py": b"",  # nested: not start-up code
        "hooks-1.0.data/purelib/usercustomize.py": b"",
    })
    flagged = ("sitecustomize.py", "json.py", "hooks.pth", "usercustomize.py")

    def install(prefix, *extra, expect=0):
        return run_expecting([r.wheelmod, "install", "--wheel", wheel, "--toolchain", "foss-2024a",
                              "--python", PYTHON, "--eb-installpath", r.sample, "--python-exe",
                              sys.executable, "--prefix", prefix, *extra], expect, timeout=300)

    prefix = os.path.join(r.work, "hooks")
    refused = install(prefix, "--strict", expect=6)
    check("install --strict: 1 wheel installs start-up code into site-packages" in refused.stderr,
          refused.stderr)
    for name in flagged:
        check(f"hooks-1.0-py3-none-any.whl: {name}: " in refused.stderr, f"{name} not named:\n"
              + refused.stderr)
    check("pkg/json.py" not in refused.stderr, refused.stderr)
    check(not os.path.exists(prefix), "the refused install created the prefix")
    check(not [n for n in os.listdir(r.work) if "staging" in n],
          f"a staging directory was left: {os.listdir(r.work)}")

    installed = install(prefix, "--format", "json")
    warning = installed.stderr
    check("warning: hooks-1.0-py3-none-any.whl installs start-up code into site-packages"
          in warning, warning)
    for name in flagged:
        check(f"\n  {name}: " in warning, f"{name} not in the warning:\n{warning}")
    check("shadows the standard library's json" in warning, warning)
    report = json.loads(installed.stdout)["startup_code"]
    check(sorted((c["path"], c["kind"]) for c in report) ==
          [("hooks.pth", "pth"), ("json.py", "stdlib_shadow"),
           ("sitecustomize.py", "sitecustomize"), ("usercustomize.py", "usercustomize")], report)
    with open(os.path.join(prefix, "easybuild", "wheelmod-install.log")) as handle:
        log = handle.read()
    check("start-up code in site-packages" in log, log)
    for name in flagged:
        check(f"hooks-1.0-py3-none-any.whl: {name}: " in log, f"{name} not in the log:\n{log}")

    # The real consumer: the target Python with the installation on PYTHONPATH.
    site = site_of(prefix)
    environment = dict(os.environ, PYTHONPATH=site)
    ran = subprocess.run([sys.executable, "-c", "import json; print(json.__file__)"],
                         capture_output=True, text=True, env=environment, timeout=60)
    check(ran.returncode == 0, ran.stderr)
    check(os.path.isfile(marker), "the wheel's sitecustomize.py did not run at start-up")
    check(ran.stdout.strip() == os.path.join(site, "json.py"),
          f"import json loaded {ran.stdout.strip()}, not the wheel's json.py")
    # PYTHONPATH directories are no site directories: their .pth files are not read; a site
    # directory's are (site.addsitedir, what EasyBuild's EBPYTHONPREFIXES does).
    check(not os.path.exists(pth_marker), "a .pth file ran from a PYTHONPATH directory")
    environment.pop("PYTHONPATH")
    ran = subprocess.run([sys.executable, "-c", "import site, sys; site.addsitedir(sys.argv[1])",
                          site], capture_output=True, text=True, env=environment, timeout=60)
    check(ran.returncode == 0 and os.path.isfile(pth_marker),
          f"the .pth file's import line did not run in site.addsitedir:\n{ran.stderr}")

    # An ordinary install: no warning, an empty list.
    command = r.command(OLD, os.path.join(r.work, "plain"), "--format", "json")
    command.remove("-q")
    plain = run_expecting(command, 0, timeout=300)
    check("start-up code" not in plain.stderr, plain.stderr)
    check(json.loads(plain.stdout)["startup_code"] == [], plain.stdout)


SCENARIOS = {f.__name__: f for f in (cuda_stack, replace_needs_force, rerun_is_noop,
                                          module_name_needs_install_dir, killed, bundle_missing,
                                          vision_audio, bad_input, interrupted_download,
                                          compile_overlaps, dry_run, startup_code)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing).
# The CUDA installs run a second time where a compute node stands (node_view=1: no host CUDA).
CTEST = {"*": {"timeout": 300},
         **{name: {"timeout": 300, "node_view": True}
            for name in ("cuda_stack", "vision_audio", "bundle_missing", "rerun_is_noop")}}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
