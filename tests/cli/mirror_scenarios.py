#!/usr/bin/env python3
"""`wheelmod mirror` end to end: the sample index copied as the upstream.

    mirror_scenarios.py --wheelmod BIN --sample DIR SCENARIO

Each scenario copies the sample index (pages, wheels, .metadata files) into
a scratch upstream it may change, mirrors it over file://, and checks the
mirror as its users read it: the manifest, the PEP 503 pages and their
hashes, the PEP 658 .metadata files, `wheelmod resolve --index file:///DIR`,
and pip (`pip download`, `pip install --no-deps`) against the mirror served
by nginx on 127.0.0.1.
"""
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from urllib.parse import unquote

from scenario_support import (anchors, check, free_port, run_expecting, scenario_main, sha256_of,
                              wait_for_port)

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
SPEC = """\
index: {index}
variants: [cu126, cpu]
packages:
  torch: "==2.6.0"
  torchvision: ">=0.21"
python: ["{python}", "3.12"]
arches: [x86_64, aarch64]
glibc: "2.28"
dependencies: true
"""
NGINX = """\
daemon off;
worker_processes 1;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
events {{ worker_connections 64; }}
http {{
  access_log {state}/access.log;
  client_body_temp_path {state}/tmp;
  proxy_temp_path {state}/tmp;
  fastcgi_temp_path {state}/tmp;
  uwsgi_temp_path {state}/tmp;
  scgi_temp_path {state}/tmp;
  types {{ text/html html; }}
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{port};
    root {root};
    index index.html;
  }}
}}
"""


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.work = tempfile.mkdtemp(prefix="wheelmod-mirror-")
        self.upstream = os.path.join(self.work, "upstream")
        for part in ("whl", "packages"):
            shutil.copytree(os.path.join(args.sample, part), os.path.join(self.upstream, part))
        self.dest = os.path.join(self.work, "mirror")
        self.spec = self.write_spec("spec.yaml")
        self.http_state = args.http_state
        self.fault_state = args.fault_state
        os.environ["no_proxy"] = os.environ["NO_PROXY"] = "127.0.0.1,localhost"

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def write_spec(self, name, text=None, index=None):
        path = os.path.join(self.work, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text or SPEC.format(index=index or "file://" + os.path.join(self.upstream, "whl"),
                                             python=PYTHON))
        return path

    def state_url(self, state, what):
        check(state, f"this scenario needs the {what} fixture (--http-state / --fault-state)")
        with open(os.path.join(state, "url"), encoding="utf-8") as handle:
            return handle.read().strip()

    def mirror(self, *extra, expect=0, spec=None):
        result = run_expecting([self.wheelmod, "-q", "mirror", spec or self.spec, "--dest", self.dest,
                                "--format", "json", *extra], expect, timeout=300)
        return json.loads(result.stdout) if result.stdout.strip() else None, result

    def manifest(self):
        with open(os.path.join(self.dest, "wheelmod-mirror.json"), encoding="utf-8") as handle:
            return json.load(handle)


def key_of(manifest, name, directory=None):
    """The manifest key (the stored path below DIR/files) of the file called `name`."""
    keys = [k for k in manifest["files"] if os.path.basename(k) == name and
            (directory is None or os.path.dirname(k) == directory)]
    check(len(keys) == 1, f"{name} in {directory}: manifest keys {keys}")
    return keys[0]


def check_mirror(r):
    """Every manifest file is stored with its hash, listed on each of its variants' pages with
    #sha256= and data-core-metadata, and its .metadata is the wheel's METADATA."""
    manifest = r.manifest()
    check(manifest["files"], "the manifest lists nothing")
    for key, entry in manifest["files"].items():
        filename = os.path.basename(key)
        stored = os.path.join(r.dest, "files", key)
        check(sha256_of(stored) == entry["sha256"], f"{filename}: stored bytes differ from the manifest")
        with zipfile.ZipFile(stored) as wheel:
            name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = wheel.read(name)
        with open(stored + ".metadata", "rb") as handle:
            check(handle.read() == metadata, f"{filename}.metadata is not the wheel's METADATA")
        check(hashlib.sha256(metadata).hexdigest() == entry["metadata_sha256"], f"{filename}: metadata hash")
        for variant in entry["variants"]:
            page = os.path.join(r.dest, variant, entry["project"], "index.html")
            links = {os.path.basename(unquote(a["href"].split("#")[0])): a for a in anchors(page)}
            check(filename in links, f"{filename} not on {page}")
            anchor = links[filename]
            check(anchor["href"].endswith("#sha256=" + entry["sha256"]), f"{filename}: href {anchor['href']}")
            check(anchor.get("data-core-metadata") == "sha256=" + entry["metadata_sha256"],
                  f"{filename}: data-core-metadata {anchor.get('data-core-metadata')}")
            target = os.path.normpath(os.path.join(os.path.dirname(page),
                                                   unquote(anchor["href"].split("#")[0])))
            check(target == os.path.normpath(stored), f"{filename}: the href leads to {target}")
        # The root's page of the project (download.pytorch.org's /whl/<project>/) lists it too.
        page = os.path.join(r.dest, entry["project"], "index.html")
        links = {os.path.basename(unquote(a["href"].split("#")[0])): a for a in anchors(page)}
        check(filename in links, f"{filename} not on {page}")
    root_projects = {a["href"].rstrip("/") for a in anchors(os.path.join(r.dest, "index.html"))}
    projects = {entry["project"] for entry in manifest["files"].values()}
    check(root_projects == projects, f"the root page lists {root_projects}, not {projects}")
    return manifest


def full(r):
    """A first run mirrors the selection (dependencies included, hashes computed where upstream
    gave none); wheelmod resolves against the mirror as it does against the upstream."""
    report, _ = r.mirror()
    check(report["downloads"] == len(r.manifest()["files"]), f"downloads {report['downloads']}")
    manifest = check_mirror(r)
    names = sorted(os.path.basename(k) for k in manifest["files"])
    print(len(names), "files mirrored;", report["pages_written"], "pages written")
    check(any(n.startswith("torch-2.6.0+cu126-cp312-cp312-linux_aarch64") for n in names), "aarch64 torch")
    check(any(n.startswith("torch-2.6.0+cpu") for n in names), "the cpu variant's torch")
    check(any(n.startswith("triton-3.2.0") for n in names), "triton (a dependency) not mirrored")
    check(any(n.startswith("sympy-1.13.1") for n in names), "sympy (a dependency) not mirrored")
    check(any(n.startswith("nvidia_cusparselt_cu12") for n in names), "nvidia-cusparselt-cu12 not mirrored")
    check(not any("2.5.1" in n for n in names if n.startswith("torch-")), "torch 2.5.1 is outside the spec")
    check(not any("cp313" in n for n in names), "cp313 files are outside the spec")
    aarch = manifest["files"][key_of(manifest, "torch-2.6.0+cu126-cp312-cp312-linux_aarch64.whl")]
    # download.pytorch.org serves different aarch64 torchvision wheels under one name in cpu
    # and cu126: both are kept, each listed by its own variant.
    same_name = [k for k in manifest["files"] if k.endswith("/torchvision-0.21.0-cp312-cp312-linux_aarch64.whl")]
    check(sorted(same_name) == ["whl/cpu/torchvision-0.21.0-cp312-cp312-linux_aarch64.whl",
                                "whl/cu126/torchvision-0.21.0-cp312-cp312-linux_aarch64.whl"], f"{same_name}")
    check(aarch["sha256_from_index"] is False, "the upstream gave no hash for it: it must say computed")
    check(any("filelock" in note for note in report["notes"]), f"missing dependencies not noted: {report['notes']}")
    ours = run_expecting([r.wheelmod, "resolve", "torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator",
                          "cuda", "--index", "file://" + r.dest, "--arch", "x86_64", "--glibc", "2.28",
                          "--format", "json", "--cache-dir", os.path.join(r.work, "c1")]).stdout
    theirs = run_expecting([r.wheelmod, "resolve", "torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator",
                            "cuda", "--index", "file://" + os.path.join(r.upstream, "whl"), "--arch", "x86_64",
                            "--glibc", "2.28", "--format", "json", "--cache-dir", os.path.join(r.work, "c2")]).stdout
    pick = lambda text: sorted((w["filename"], w["sha256"]) for w in json.loads(text)["wheels"])
    check(pick(ours) == pick(theirs), f"resolving against the mirror differs:\n{pick(ours)}\n{pick(theirs)}")


def rerun(r):
    """An unchanged upstream: the second run downloads nothing and rewrites no page or manifest."""
    r.mirror()
    before = {p: os.stat(p).st_mtime_ns for p in walk(r.dest) if not p.startswith(os.path.join(r.dest, ".wheelmod"))}
    report, _ = r.mirror()
    check(report["downloads"] == 0 and report["received_bytes"] == 0, f"re-run fetched: {report}")
    check(report["pages_written"] == 0, f"re-run wrote {report['pages_written']} pages")
    check(report["totals"]["add"]["files"] == 0, f"re-run adds {report['totals']['add']}")
    after = {p: os.stat(p).st_mtime_ns for p in walk(r.dest) if not p.startswith(os.path.join(r.dest, ".wheelmod"))}
    changed = sorted(p for p in after if before.get(p) != after[p] and not p.endswith(".lock"))
    check(not changed, f"files rewritten by an unchanged re-run: {changed}")


def walk(top):
    for directory, _, files in os.walk(top):
        for name in files:
            yield os.path.join(directory, name)


def dry_run(r):
    """--dry-run on a new mirror lists what it would add, with bytes, and creates nothing."""
    report, _ = r.mirror("--dry-run")
    check(report["mode"] == "dry-run", report["mode"])
    check(report["totals"]["add"]["files"] > 10, f"plan: {report['totals']}")
    check(not os.path.exists(r.dest), "a dry run created the mirror directory")
    r.mirror()
    report, _ = r.mirror("--dry-run")
    check(report["totals"]["add"]["files"] == 0 and report["totals"]["keep"]["files"] > 10, report["totals"])


def upstream_change(r):
    """Upstream drops a file and the spec adds a Python: only that changes; --prune removes the
    dropped file from the store and its page."""
    r.mirror()
    page = os.path.join(r.upstream, "whl", "cu126", "torchvision", "index.html")
    with open(page, encoding="utf-8") as handle:
        lines = handle.read().splitlines(True)
    gone = "torchvision-0.21.0+cu126-cp312-cp312-linux_x86_64.whl"
    with open(page, "w", encoding="utf-8") as handle:
        handle.writelines(line for line in lines if gone.replace("+", "%2B") not in line)
    spec = r.write_spec("spec313.yaml", SPEC.format(index="file://" + os.path.join(r.upstream, "whl"),
                                                    python=PYTHON).replace('"3.12"]', '"3.12", "3.13"]'))
    report, _ = r.mirror(spec=spec)
    added = [f["file"] for f in report["files"] if f["action"] == "add"]
    stale = [f["file"] for f in report["files"] if f["action"] == "stale"]
    print("added:", added, "stale:", stale)
    # Only files for Python 3.13: cp313 builds, and pure wheels only they require (the torch
    # 2.10/2.12 cp313 builds need a newer sympy than the cp312 ones).
    check(added and all("cp313" in name or name.endswith("-py3-none-any.whl") for name in added)
          and any("cp313" in name for name in added), f"added {added}")
    gone_key = key_of(r.manifest(), gone)
    check([os.path.basename(f) for f in stale] == [gone], f"stale {stale}")
    check(report["downloads"] == len(added), f"{report['downloads']} downloads for {len(added)} new files")
    check(os.path.exists(os.path.join(r.dest, "files", gone_key)), "a stale file was removed without --prune")
    report, _ = r.mirror("--prune", spec=spec)
    check([f["file"] for f in report["files"] if f["action"] == "remove"] == [gone_key], "prune")
    check(not os.path.exists(os.path.join(r.dest, "files", gone_key)), "--prune left the file")
    check(gone_key not in r.manifest()["files"], "--prune left the manifest entry")
    check_mirror(r)
    page = os.path.join(r.dest, "cu126", "torchvision", "index.html")
    check(not any(gone.replace("+", "%2B") in a["href"] for a in anchors(page)), "pruned file still listed")


def hash_change(r):
    """Upstream serves other bytes under a mirrored name: exit 5, the mirrored file stays, the new
    bytes are kept aside for review."""
    r.mirror()
    name = "triton-3.2.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    upstream_file = os.path.join(r.upstream, "whl", name)
    # Other bytes that are still a valid wheel: an archive comment (the end record's comment
    # length, its last two bytes, was 0), as a rebuilt wheel would differ.
    with open(upstream_file, "r+b") as handle:
        handle.seek(-2, os.SEEK_END)
        check(handle.read(2) == b"\0\0", "the wheel already has a comment")
        handle.seek(-2, os.SEEK_END)
        handle.write(len(b"changed upstream").to_bytes(2, "little") + b"changed upstream")
    new_sha = sha256_of(upstream_file)
    for directory, _, files in os.walk(os.path.join(r.upstream, "whl")):
        if "index.html" in files:
            page = os.path.join(directory, "index.html")
            with open(page, encoding="utf-8") as handle:
                text = handle.read()
            text = text.replace(r.manifest()["files"]["whl/" + name]["sha256"], new_sha)
            with open(page, "w", encoding="utf-8") as handle:
                handle.write(text)
    old_sha = r.manifest()["files"]["whl/" + name]["sha256"]
    report, result = r.mirror(expect=5)
    check("changed their sha256" in result.stderr, result.stderr)
    conflicts = [f for f in report["files"] if f["action"] == "conflict"]
    check([c["file"] for c in conflicts] == ["whl/" + name], f"conflicts {conflicts}")
    check(sha256_of(os.path.join(r.dest, "files", "whl", name)) == old_sha, "the mirrored file was replaced")
    aside = os.path.join(r.dest, ".wheelmod", "conflicts", new_sha, name)
    check(os.path.exists(aside) and sha256_of(aside) == new_sha, f"new bytes not kept at {aside}")
    check(r.manifest()["files"]["whl/" + name]["sha256"] == old_sha, "the manifest took the new hash")


def verify(r):
    """A corrupted stored file: --verify names it (exit 5); --verify --repair fetches it again."""
    r.mirror()
    name = key_of(r.manifest(), "sympy-1.13.1-py3-none-any.whl")
    stored = os.path.join(r.dest, "files", name)
    with open(stored, "r+b") as handle:
        handle.seek(100)
        byte = handle.read(1)
        handle.seek(100)
        handle.write(bytes([byte[0] ^ 0xFF]))
    report, result = r.mirror("--verify", expect=5)
    corrupt = [f["file"] for f in report["files"] if f["action"] == "corrupt"]
    check(corrupt == [name], f"corrupt {corrupt}")
    check("--repair" in result.stderr, result.stderr)
    report, _ = r.mirror("--verify", "--repair")
    check([f["file"] for f in report["files"] if f["action"] == "repaired"] == [name], "repaired")
    check(sha256_of(stored) == r.manifest()["files"][name]["sha256"], "repair did not restore the bytes")
    r.mirror("--verify")


def lock(r):
    """A second run on a mirror another run holds is refused (exit 4), naming the holder."""
    import fcntl
    os.makedirs(r.dest)
    with open(os.path.join(r.dest, ".wheelmod-mirror.lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        _, result = r.mirror(expect=4)
        check(f"process {os.getpid()}" in result.stderr and "in use" in result.stderr, result.stderr)
    check(not os.path.exists(os.path.join(r.dest, "files")), "the refused run wrote files")


def killed(r):
    """SIGKILL at random moments of a first run, then a plain re-run: it completes, and the
    mirror is whole (every page's file verified, --verify clean)."""
    started = time.monotonic()
    r.mirror()
    duration = time.monotonic() - started
    shutil.rmtree(r.dest)
    rng = random.Random(7)
    for attempt in range(5):
        process = subprocess.Popen([r.wheelmod, "-q", "mirror", r.spec, "--dest", r.dest],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, duration))
        process.send_signal(signal.SIGKILL)
        process.wait()
        print(f"kill {attempt + 1}: manifest {'present' if os.path.exists(os.path.join(r.dest, 'wheelmod-mirror.json')) else 'absent'}")
    r.mirror()
    check_mirror(r)
    r.mirror("--verify")


def pip_nginx(r):
    """pip downloads and installs (--no-deps) from the mirror served by nginx on 127.0.0.1."""
    r.mirror()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    state = os.path.join(r.work, "nginx")
    os.makedirs(os.path.join(state, "tmp"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = os.path.join(state, "nginx.conf")
    user = "user root;\n" if os.geteuid() == 0 else ""
    with open(config, "w") as handle:
        handle.write(user + NGINX.format(state=state, port=port, root=r.dest))
    server = subprocess.Popen([nginx, "-p", state, "-c", config], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/cu126/"
        out = os.path.join(r.work, "pip-download")
        run_expecting([sys.executable, "-m", "pip", "download", "--no-deps", "--index-url", url, "-d", out,
                       "--only-binary", ":all:", "--platform", "manylinux_2_28_x86_64", "--python-version",
                       "3.12", "--disable-pip-version-check", "torch==2.6.0"], timeout=120)
        (downloaded,) = os.listdir(out)
        check(downloaded == "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl", downloaded)
        manifest = r.manifest()
        check(sha256_of(os.path.join(out, downloaded)) ==
              manifest["files"][key_of(manifest, downloaded, "whl/cu126")]["sha256"], "hash")
        target = os.path.join(r.work, "pip-install")
        result = run_expecting([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile",
                                "--index-url", url, "--target", target, "--disable-pip-version-check",
                                "--no-cache-dir", "torchvision"], timeout=120)
        check(any(n.startswith("torchvision-0.21.0") and n.endswith(".dist-info") for n in os.listdir(target)),
              f"pip did not install torchvision from the mirror:\n{result.stdout}")
        with open(os.path.join(state, "access.log")) as log:
            requests = log.read()
        check(".metadata" in requests or "torchvision" in requests, "nginx saw no request")
    finally:
        server.terminate()
        server.wait(timeout=15)


def mirror_of_mirror(r):
    """A mirror served by `python3 -m http.server` is the index of another mirror whose spec
    takes variants by CUDA range: the variants come from the first mirror's root pages, or, for
    one written without them, from the server's listing of its root; the second mirror holds
    the first one's files with their hashes."""
    first, _ = r.mirror()
    first_manifest = r.manifest()
    cu126 = {os.path.basename(k): e["sha256"] for k, e in first_manifest["files"].items()
             if "cu126" in e["variants"] and e["project"] == "torch"}
    check(cu126, "the first mirror has no cu126 torch")
    for old in (False, True):
        if old:  # as a mirror written before the root pages
            os.remove(os.path.join(r.dest, "index.html"))
            for entry in os.listdir(r.dest):
                if entry not in ("cu126", "cpu", "files", ".wheelmod") and \
                        os.path.isdir(os.path.join(r.dest, entry)):
                    shutil.rmtree(os.path.join(r.dest, entry))
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                                   "127.0.0.1", "--directory", r.dest],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port)
            spec = r.write_spec("second.yaml", SPEC.format(index=f"http://127.0.0.1:{port}",
                                                           python=PYTHON)
                                .replace("[cu126, cpu]", '[{cuda: ">=12.4"}]')
                                .replace("[x86_64, aarch64]", "[x86_64]"))
            second_dest = os.path.join(r.work, f"second-{old}")
            result = run_expecting([r.wheelmod, "-q", "mirror", spec, "--dest", second_dest,
                                    "--format", "json"], 0, timeout=300)
            with open(os.path.join(second_dest, "wheelmod-mirror.json")) as handle:
                second = json.load(handle)
            got = {os.path.basename(k): e["sha256"] for k, e in second["files"].items()
                   if e["project"] == "torch"}
            check(all(e["variants"] == ["cu126"] for e in second["files"].values()),
                  f"old={old}: variants {[e['variants'] for e in second['files'].values()]}")
            wanted = {name: digest for name, digest in cu126.items() if "x86_64" in name}
            check(got == wanted, f"old={old}: second mirror's torch {got}, first's {wanted}")
            check(json.loads(result.stdout)["downloads"] > 0, "nothing downloaded")
        finally:
            server.terminate()
            server.wait(timeout=15)


def http(r):
    """The sample served by nginx: mirrored over HTTP; the re-run sends conditional requests for
    the pages and downloads no wheel."""
    spec = r.write_spec("http.yaml", index=r.state_url(r.http_state, "nginx"))
    first, _ = r.mirror(spec=spec)
    check(first["downloads"] > 10, f"{first['downloads']} downloads")
    check_mirror(r)
    second, _ = r.mirror(spec=spec)
    print("first:", first["index_requests"], "index requests,", first["metadata_fetched"], "metadata files;",
          "re-run:", second["index_requests"], "of which", second["index_not_modified"], "answered 304,",
          second["metadata_fetched"], "metadata files")
    check(first["metadata_fetched"] > 0, "the first run read no metadata upstream")
    check(second["metadata_fetched"] == 0, "the re-run read core metadata upstream again")
    check(second["index_not_modified"] > 0, "no page was revalidated with a conditional request")
    check(second["downloads"] == 0 and second["received_bytes"] == 0, f"re-run fetched: {second}")
    check(second["pages_written"] == 0, f"re-run wrote {second['pages_written']} pages")


def http_credentials(r):
    """An index URL with credentials: the mirror works, and no file it writes (the manifest, the
    pages, the cache) holds the password, since docs/mirror.md says to publish the directory;
    --verify --repair fetches a damaged file again with the spec's credentials."""
    secret = f"s3cret-{os.getpid()}"
    url = r.state_url(r.http_state, "nginx")
    with_secret = url.replace("://", f"://mirror:{secret}@", 1)
    spec = r.write_spec("credentials.yaml", index=with_secret)
    report, result = r.mirror(spec=spec)
    check(report["downloads"] > 10, f"{report['downloads']} downloads")
    check(secret not in result.stdout + result.stderr, "the password is printed")
    leaks = []
    for directory in (r.dest, os.path.join(r.work, "cache")):
        for root, _, names in os.walk(directory):
            for name in names:
                path = os.path.join(root, name)
                if not os.path.islink(path):
                    with open(path, "rb") as handle:
                        if secret.encode() in handle.read():
                            leaks.append(path)
    check(not leaks, f"the password is stored in {leaks[:5]}")
    manifest = r.manifest()
    check(manifest["source_index"] == url, manifest["source_index"])
    damaged = next(k for k in manifest["files"] if k.endswith(".whl"))
    with open(os.path.join(r.dest, "files", damaged), "r+b") as handle:
        handle.write(b"XX")
    repaired, _ = r.mirror("--verify", "--repair", spec=spec)
    check(repaired["downloads"] == 1, f"repair downloads: {repaired['downloads']}")
    r.mirror("--verify", spec=spec)


def http_faults(r):
    """Through the fault server: the first three answers break off halfway (pages or wheels,
    whichever come first); the mirror retries, resumes and ends whole."""
    base = r.state_url(r.fault_state, "fault server")
    token = f"mirror{os.getpid()}"
    spec = r.write_spec("faults.yaml", index=f"{base}/once/drop/3/{token}/whl")
    report, _ = r.mirror("--retries", "8", spec=spec)
    check(report["downloads"] > 10, f"{report['downloads']} downloads")
    check_mirror(r)
    r.mirror("--verify")


def eb_sourcepath(r):
    """--eb-sourcepath lays the wheels out where EasyBuild looks for extension sources. Two
    different files of one name (upstream's cpu and cu126 aarch64 torchvision) are both there:
    the first in SOURCES, the other in SOURCES/variants/<variant>, which EasyBuild searches first
    when given `--sourcepath SOURCES/variants/<variant>:SOURCES` (as the warning says)."""
    sourcepath = os.path.join(r.work, "sources")
    report, _ = r.mirror("--eb-sourcepath", sourcepath)
    notes = "\n".join(report["notes"])
    files = r.manifest()["files"]
    first_of = {}
    clashes = []
    for key in sorted(files):
        name = os.path.basename(key)
        if name in first_of and files[first_of[name]]["sha256"] != files[key]["sha256"]:
            clashes.append(key)
        else:
            first_of.setdefault(name, key)
    check(clashes, "the sample has no two different files of one name: the case is not tested")
    for key, entry in files.items():
        variant_tree = os.path.join(sourcepath, "variants", entry["variants"][0])
        tree = variant_tree if key in clashes else sourcepath
        for easyconfig in ("PyTorch", "PyTorch-bundle"):
            path = os.path.join(tree, "p", easyconfig, "extensions", os.path.basename(key))
            check(os.path.exists(path) and sha256_of(path) == entry["sha256"],
                  f"{path} missing or not {key}")
        if key in clashes:
            check(f"eb --sourcepath {variant_tree}:{sourcepath}" in notes,
                  f"no note naming {variant_tree}: {notes}")
            check(os.path.basename(key) in notes, notes)


def size_limit(r):
    """A selection bigger than size_limit stops before any download (exit 2); the sizes come
    from range requests, since HTML pages give none."""
    dry, _ = r.mirror("--dry-run")
    total = dry["totals"]["add"]["bytes"]
    spec = r.write_spec("limited.yaml", SPEC.format(index="file://" + os.path.join(r.upstream, "whl"),
                                                    python=PYTHON) + "size_limit: 100 kB\n")
    _, result = r.mirror(spec=spec, expect=2)
    check("over size_limit" in result.stderr, result.stderr)
    check(not os.path.exists(os.path.join(r.dest, "files")), "files were downloaded over the limit")
    big = r.write_spec("big.yaml", SPEC.format(index="file://" + os.path.join(r.upstream, "whl"),
                                               python=PYTHON) + "size_limit: 1 GiB\n")
    r.mirror(spec=big)
    stored = sum(f["size"] for f in r.manifest()["files"].values())
    print("plan:", total, "bytes; stored:", stored)
    check(total == stored, "the dry run's total is not what was stored")


def bad_spec(r):
    """A spec with an unknown key: exit 2 with file:line:column, nothing created."""
    spec = r.write_spec("bad.yaml", "index: /x\nvariants: [cpu]\npackages: {torch: '*'}\npython: ['3.12']\n"
                                    "arches: [x86_64]\nmirror_everything: true\n")
    _, result = r.mirror(spec=spec, expect=2)
    check("bad.yaml:6:" in result.stderr and "mirror_everything" in result.stderr, result.stderr)
    check(not os.path.exists(r.dest), "a bad spec created the mirror")


def nothing_matches(r):
    """A package no variant has a fitting wheel of (a version that does not exist, a name the
    index lacks, an index path that is not there) is refused with exit 3 before anything is
    downloaded, naming the package and what each variant had; a package found on one variant
    of two is no error."""
    index = "file://" + os.path.join(r.upstream, "whl")
    cases = [
        ("version.yaml", index, 'torch: "==9.9.9"\n  torchvision: ">=0.21"',
         ["torch==9.9.9", "none fits torch==9.9.9"]),
        ("name.yaml", index, 'torchh: "*"', ["torchh", "no torchh page"]),
        ("path.yaml", "file://" + os.path.join(r.work, "no-such-index"), 'torch: "==2.6.0"',
         ["torch==2.6.0", "no torch page"]),
    ]
    for name, where, packages, wanted in cases:
        spec = r.write_spec(name, f"index: {where}\nvariants: [cu126, cpu]\npackages:\n"
                                  f"  {packages}\npython: ['{PYTHON}']\narches: [x86_64]\n"
                                  "glibc: '2.28'\n")
        _, result = r.mirror(spec=spec, expect=3)
        for text in wanted + ["no wheel on the index fits the mirror spec", "hint:"]:
            check(text in result.stderr, f"{name}: {text!r} not in:\n{result.stderr}")
        check(not os.path.exists(os.path.join(r.dest, "files")), f"{name}: files were downloaded")
        check(not os.path.exists(os.path.join(r.dest, "wheelmod-mirror.json")),
              f"{name}: a manifest was written")
    # A version with files for another Python only: each file is named with why it does not
    # fit (the target's Python), not only "N files listed, none fits".
    other = "3.13" if PYTHON != "3.13" else "3.12"
    spec = r.write_spec("why.yaml", f"index: {index}\nvariants: [cpu]\npackages:\n"
                                    f"  torch: \"==2.6.0\"\npython: ['{other}']\n"
                                    "arches: [s390x]\n")
    _, result = r.mirror(spec=spec, expect=3)
    check("torch-2.6.0+cpu-" in result.stderr and "s390x" in result.stderr, result.stderr)
    # No glibc in the spec: 2.28, which today's manylinux_2_28 torch wheels need (2.17 took none).
    spec = r.write_spec("no-glibc.yaml", f"index: {index}\nvariants: [cu126]\n"
                                         "packages: {torch: '==2.6.0'}\n"
                                         f"python: ['{PYTHON}']\narches: [x86_64]\n")
    report, _ = r.mirror("--dry-run", spec=spec)
    check(report["totals"]["add"]["files"] > 0, f"nothing planned without glibc: {report['totals']}")
    # torch 2.6.0 is on cu126, not on cu130 (CUDA 13 wheels began with later releases): the
    # package is found, cu130's lack is a note, no error.
    spec = r.write_spec("one-variant.yaml", f"index: {index}\nvariants: [cu126, cu130]\n"
                                            "packages: {torch: '==2.6.0'}\n"
                                            f"python: ['{PYTHON}']\narches: [x86_64]\n"
                                            "glibc: '2.28'\n")
    report, _ = r.mirror("--dry-run", spec=spec)
    check(report["totals"]["add"]["files"] > 0, f"nothing planned: {report['totals']}")


def renamed_wheel(r):
    """One wheel served under other versions' names (torch 2.6.0+cpu as 2.6.1...2.6.3, its
    METADATA and .metadata saying 2.6.0): refused with exit 5 naming the file, as resolve and
    fetch refuse it, and nothing published (fd98fdf stored and published them, exit 0)."""
    cpu = os.path.join(r.upstream, "whl", "cpu")
    original = "torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl"
    page = os.path.join(cpu, "torch", "index.html")
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    links = ""
    for version in ("2.6.1", "2.6.2", "2.6.3"):
        renamed = original.replace("2.6.0", version)
        shutil.copy(os.path.join(cpu, original), os.path.join(cpu, renamed))
        shutil.copy(os.path.join(cpu, original + ".metadata"), os.path.join(cpu, renamed + ".metadata"))
        digest = sha256_of(os.path.join(cpu, renamed))
        links += (f'<a href="../{renamed.replace("+", "%2B")}#sha256={digest}" '
                  f'data-dist-info-metadata="true">{renamed}</a><br/>\n')
    with open(page, "w", encoding="utf-8") as handle:
        handle.write(text.replace("</body>", links + "</body>"))
    spec = r.write_spec("renamed.yaml", "index: file://" + os.path.join(r.upstream, "whl") + "\n"
                        "variants: [cpu]\npackages: {torch: '>=2.6.0,<2.7'}\n"
                        "python: ['3.12']\narches: [x86_64]\nglibc: '2.28'\ndependencies: false\n")
    _, result = r.mirror(spec=spec, expect=5)
    check("its METADATA names torch 2.6.0+cpu, not the file name's project and version" in result.stderr
          and "torch-2.6." in result.stderr, result.stderr)
    published = [os.path.join(d, f) for d, _, files in os.walk(r.dest) for f in files
                  if f == "index.html" or f == "wheelmod-mirror.json"]
    check(not published, f"published although refused: {published}")


SCENARIOS = {f.__name__: f for f in (full, rerun, dry_run, upstream_change, hash_change, verify, lock,
                                          killed, pip_nginx, http, http_credentials, http_faults, eb_sourcepath, size_limit,
                                          bad_spec, nothing_matches, mirror_of_mirror, renamed_wheel)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing):
# the http scenarios read the state of nginx and the fault server, and are registered only where
# tests/integration starts them.
_SERVED = {"options": ("--http-state", "--fault-state"), "fixtures": "net_servers", "timeout": 120}
CTEST = {"*": {"timeout": 300}, **dict.fromkeys(("http", "http_credentials", "http_faults"), _SERVED)}


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, extra_options=("--fault-state",),
                         ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
