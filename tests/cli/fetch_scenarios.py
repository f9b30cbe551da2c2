#!/usr/bin/env python3
"""`wheelmod fetch` end to end: the real binary, real files, real servers.

    fetch_scenarios.py --wheelmod BIN --sample DIR [--http-state DIR]
                       [--fault-state DIR] SCENARIO

The sample index is read as files (file://) or through the nginx fixture
(--http-state); the fault server (--fault-state) gives large generated
files, throttled transfers and failures. Every scenario checks the exit
code, what is in the destination (nothing half-written, no .part where a
file was finished) and the SHA-256 of what arrived, computed here.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from scenario_support import (check, run_expecting, scenario_main, serve_locally, sha256_of,
                             stop_server)

CUDA = ["--toolchain", "foss-2024a", "--accelerator", "cuda", "--arch", "x86_64", "--glibc", "2.28"]
# Four wheels of the sample whose pages give PEP 658 metadata: resolving reads no wheel.
JOBS_SPECS = ["torch==2.6.0", "torchvision==0.21.0", "torchaudio==2.6.0", "sympy==1.13.1"]


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().strip()


class Runner:
    def __init__(self, args):
        self.wheelmod = args.wheelmod
        self.sample = args.sample
        self.index = "file://" + os.path.join(args.sample, "whl")
        self.work = tempfile.mkdtemp(prefix="wheelmod-fetch-")
        self.cache = os.path.join(self.work, "cache")
        self.http_state = args.http_state
        self.fault_state = args.fault_state
        # The servers are local: a proxy from the environment must not get these requests.
        os.environ["no_proxy"] = os.environ["NO_PROXY"] = "127.0.0.1,localhost"

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, *args, expect=0):
        command = [self.wheelmod, "fetch", "--cache-dir", self.cache, *args]
        return run_expecting(command, expect)

    def json(self, *args):
        return json.loads(self.run(*args, "--format", "json").stdout)

    def fault_url(self):
        check(self.fault_state, "this scenario needs --fault-state (the fault server fixture)")
        return read_text(os.path.join(self.fault_state, "url"))

    def nginx_url(self):
        check(self.http_state, "this scenario needs --http-state (the nginx fixture)")
        return read_text(os.path.join(self.http_state, "url"))

    def report_file(self, name, wheels):
        """A minimal resolve report (docs/resolve-report.md) listing `wheels`."""
        path = self.path(name)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"schema_version": 1, "index": "test", "specs": [], "wheels": wheels}, handle)
        return path


def wheel_entry(filename, url, sha256, size=None):
    name, version = filename.split("-")[:2]
    return {"name": name.lower().replace("_", "-"), "version": version, "filename": filename,
            "url": url, "sha256": sha256, "size": size}


def listing(directory):
    return sorted(os.listdir(directory)) if os.path.isdir(directory) else []


def assert_clean(directory, expected_files):
    """Exactly these wheels (plus the lock file): no .part, no temporaries."""
    names = [n for n in listing(directory) if n != ".wheelmod-fetch.lock"]
    check(names == sorted(expected_files), f"{directory} holds {names}, expected {sorted(expected_files)}")


def cuda_stack(r):
    """Resolve and fetch from the file:// sample; again (present); into a new dir (cache)."""
    dest = r.path("stack")
    report = r.json("torch", "torchvision", *CUDA, "--index", r.index, "--dest", dest)
    files = report["files"]
    check(len(files) >= 3, f"expected torch, torchvision and bundled wheels, got {files}")
    check(any(not f["requested"] for f in files), "no bundled wheel (triton/sympy) was fetched")
    for f in files:
        check(f["outcome"] == "downloaded", f"{f['filename']}: outcome {f['outcome']}")
        check(f["sha256_source"] == "index", f"{f['filename']}: hash from {f['sha256_source']}")
        check(sha256_of(f["path"]) == f["sha256"], f"{f['filename']}: bytes do not match sha256")
        check(os.path.dirname(f["path"]) == dest, f"{f['path']} is not in {dest}")
    assert_clean(dest, [f["filename"] for f in files])

    again = r.json("torch", "torchvision", *CUDA, "--index", r.index, "--dest", dest)
    check(all(f["outcome"] == "present" and f["received"] == 0 for f in again["files"]),
          f"second run: {[(f['filename'], f['outcome']) for f in again['files']]}")

    other = r.path("stack2")
    cached = r.json("torch", "torchvision", *CUDA, "--index", r.index, "--dest", other)
    check(all(f["outcome"] == "cached" for f in cached["files"]),
          f"new directory, same cache: {[(f['filename'], f['outcome']) for f in cached['files']]}")
    for f in cached["files"]:
        check(sha256_of(f["path"]) == f["sha256"], f"{f['filename']}: cached bytes differ")


def from_report(r):
    """resolve --format json, then fetch --from-report: exactly the reviewed wheels."""
    resolved = subprocess.run([r.wheelmod, "resolve", "torch==2.5.1", *CUDA, "--index", r.index,
                               "--cache-dir", r.cache, "--format", "json"],
                              capture_output=True, text=True, timeout=120, check=True).stdout
    report_path = r.path("reviewed.json")
    with open(report_path, "w", encoding="utf-8") as handle:
        handle.write(resolved)
    wanted = {w["filename"]: w["sha256"] for w in json.loads(resolved)["wheels"]}
    dest = r.path("from-report")
    fetched = r.json("--from-report", report_path, "--dest", dest, "--no-cache")
    got = {f["filename"]: f["sha256"] for f in fetched["files"]}
    check(got == wanted, f"fetched {got}, the report lists {wanted}")
    for name, digest in wanted.items():
        check(sha256_of(os.path.join(dest, name)) == digest, f"{name}: bytes do not match")
    assert_clean(dest, list(wanted))


def http(r):
    """The same stack over nginx; text output names each file with its digest."""
    dest = r.path("http")
    result = r.run("torch", *CUDA, "--index", r.nginx_url(), "--dest", dest, "--no-cache")
    lines = result.stdout.splitlines()
    check(lines and all(line.startswith("downloaded  ") for line in lines), f"stdout: {lines}")
    for line in lines:
        _, filename, digest = line.split()
        check(sha256_of(os.path.join(dest, filename)) == digest.removeprefix("sha256:"),
              f"{filename}: bytes do not match the printed digest")
    check("received" in result.stderr, f"no summary on stderr: {result.stderr}")


def missing_hash(r):
    """aarch64 wheels have no index hash: fetched with a computed one and a warning;
    --require-hashes refuses before downloading anything (exit 5)."""
    target = ["torch==2.6.0", "--toolchain", "foss-2024a", "--accelerator", "cuda",
              "--arch", "aarch64", "--glibc", "2.28", "--index", r.index, "--no-deps"]
    refused = r.path("refused")
    result = r.run(*target, "--dest", refused, "--require-hashes", expect=5)
    check("--require-hashes" in result.stderr and "no SHA-256" in result.stderr, result.stderr)
    check("aarch64.whl" in result.stderr, f"the unhashed wheel is not named: {result.stderr}")
    assert_clean(refused, [])

    dest = r.path("unhashed")
    result = r.run(*target, "--dest", dest, "--format", "json")
    report = json.loads(result.stdout)
    (only,) = report["files"]
    check(only["sha256_source"] == "computed", f"sha256_source {only['sha256_source']}")
    check(only["sha256"] == sha256_of(only["path"]), "the computed hash is not the file's")
    check(any("no SHA-256" in w for w in report["warnings"]), f"warnings: {report['warnings']}")
    check("no SHA-256" in result.stderr, f"no warning on stderr: {result.stderr}")


def mismatch(r):
    """An index hash that the bytes do not have: exit 5, both digests and the URL shown,
    nothing left at the final path or as .part."""
    wheel = os.path.join(r.sample, "whl", "cpu")
    name = sorted(n for n in os.listdir(wheel) if n.endswith(".whl"))[0]
    real = sha256_of(os.path.join(wheel, name))
    wrong = "0" * 64
    url = r.nginx_url() + "/cpu/" + name.replace("+", "%2B")
    report = r.report_file("wrong.json", [wheel_entry(name, url, wrong)])
    dest = r.path("mismatch")
    result = r.run("--from-report", report, "--dest", dest, "--no-cache", expect=5)
    for needle in (wrong, real, url, "SHA-256 mismatch"):
        check(needle in result.stderr, f"{needle!r} not in the error:\n{result.stderr}")
    assert_clean(dest, [])


def kill_resume(r):
    """SIGKILL in the middle of a large download, then the same command again: it resumes
    (fewer bytes than the file the second time) and ends verified."""
    size, seed = 24 * 1024 * 1024, 11
    base = r.fault_url()
    digest = urllib.request.urlopen(f"{base}/gensha/{size}/{seed}", timeout=10).read().decode().strip()
    url = f"{base}/throttle/6000000/gen/{size}/{seed}/bigwheel-1.0-py3-none-any.whl"
    report = r.report_file("big.json", [wheel_entry("bigwheel-1.0-py3-none-any.whl", url, digest, size)])
    dest = r.path("killed")
    final = os.path.join(dest, "bigwheel-1.0-py3-none-any.whl")
    part = final + ".part"
    command = [r.wheelmod, "-q", "fetch", "--from-report", report, "--dest", dest, "--no-cache",
               "--format", "json"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if os.path.exists(part) and os.path.getsize(part) >= size // 4:
            break
        check(process.poll() is None, f"fetch ended ({process.returncode}) before it was killed")
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    left = os.path.getsize(part)
    print(f"killed with {left} of {size} bytes in the .part")
    check(0 < left < size, f".part holds {left} bytes")
    check(not os.path.exists(final), "a killed download left a file at the final path")

    report_json = json.loads(r.run("--from-report", report, "--dest", dest, "--no-cache",
                                   "--format", "json").stdout)
    (only,) = report_json["files"]
    print(f"second run: outcome {only['outcome']}, resumed_from {only['resumed_from']}, "
          f"received {only['received']}")
    check(only["outcome"] == "resumed", f"outcome {only['outcome']}")
    check(only["resumed_from"] is not None and only["resumed_from"] >= left,
          f"resumed_from {only['resumed_from']}, the .part had {left}")
    check(only["received"] < size, f"received {only['received']} of {size}: not a resume")
    check(only["received"] + only["resumed_from"] == size, "resumed bytes + received != size")
    check(sha256_of(final) == digest, "the resumed file does not hash to the index digest")
    assert_clean(dest, ["bigwheel-1.0-py3-none-any.whl"])


def lock(r):
    """Two fetches into one directory: the second waits for the first, says so, and
    both end with the verified file."""
    size, seed = 8 * 1024 * 1024, 12
    base = r.fault_url()
    digest = urllib.request.urlopen(f"{base}/gensha/{size}/{seed}", timeout=10).read().decode().strip()
    url = f"{base}/throttle/8000000/gen/{size}/{seed}/lockwheel-1.0-py3-none-any.whl"
    report = r.report_file("lock.json", [wheel_entry("lockwheel-1.0-py3-none-any.whl", url, digest)])
    dest = r.path("locked")
    command = [r.wheelmod, "fetch", "--from-report", report, "--dest", dest, "--no-cache"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not os.path.exists(os.path.join(dest, "lockwheel-1.0-py3-none-any.whl.part")):
        check(time.monotonic() < deadline and first.poll() is None, "the first fetch did not start")
        time.sleep(0.02)
    second = subprocess.run(command, capture_output=True, text=True, timeout=60)
    first_out, first_err = first.communicate(timeout=60)
    print("first:", first.returncode, first_err, "second:", second.returncode, second.stderr)
    check(first.returncode == 0 and second.returncode == 0, "a fetch failed")
    check("in use by process" in second.stderr and "waiting" in second.stderr,
          f"the second fetch did not say it waited: {second.stderr}")
    check(second.stdout.startswith("present  "), f"the second fetch re-downloaded: {second.stdout}")
    check(sha256_of(os.path.join(dest, "lockwheel-1.0-py3-none-any.whl")) == digest, "bad bytes")


def tls_http2(r):
    """TLS is always verified: an unknown CA is exit 4 with a hint; --cacert or
    SSL_CERT_FILE makes it work. Over HTTP/2 the transfers share one connection."""
    tls_url = read_text(os.path.join(r.http_state, "tls_url"))
    ca = os.path.join(r.http_state, "tls", "cert.pem")
    wheel_dir = os.path.join(r.sample, "whl", "cpu")
    names = sorted(n for n in os.listdir(wheel_dir) if n.endswith(".whl"))[:3]
    wheels = [wheel_entry(n, f"{tls_url}/cpu/{n.replace('+', '%2B')}", sha256_of(os.path.join(wheel_dir, n)))
              for n in names]
    report = r.report_file("tls.json", wheels)
    for variable in ("SSL_CERT_FILE", "CURL_CA_BUNDLE"):
        os.environ.pop(variable, None)

    untrusted = r.path("untrusted")
    result = r.run("--from-report", report, "--dest", untrusted, "--no-cache", expect=4)
    check("certificate" in result.stderr.lower() and "--cacert" in result.stderr,
          f"no certificate hint:\n{result.stderr}")
    assert_clean(untrusted, [])

    log = os.path.join(r.http_state, "tls-access.log")
    seen = os.path.getsize(log) if os.path.exists(log) else 0
    dest = r.path("tls")
    report_json = r.json("--from-report", report, "--dest", dest, "--no-cache", "--cacert", ca)
    for f in report_json["files"]:
        check(sha256_of(f["path"]) == f["sha256"], f"{f['filename']}: bytes do not match")
    with open(log, encoding="utf-8") as handle:
        handle.seek(seen)
        lines = [line.split() for line in handle if "/cpu/" in line]
    print("nginx saw:", lines)
    check(len(lines) == len(names), f"{len(lines)} requests logged for {len(names)} files")
    check(all(line[1] == "HTTP/2.0" and line[2] == "200" for line in lines), "not all over HTTP/2")
    check(len({line[0] for line in lines}) == 1, "the HTTP/2 transfers did not share one connection")

    os.environ["SSL_CERT_FILE"] = ca
    r.run("--from-report", report, "--dest", r.path("tls-env"), "--no-cache")


class ThrottledIndex:
    """The sample tree over HTTP/1.1 on 127.0.0.1 (http.server: no HTTP/2, as most site mirrors
    are served), each wheel body spread over about 1.5 s; `log` holds one (name, start, last)
    per wheel request: when it arrived and when its last piece was sent (time.monotonic()).
    A Range request (a metadata probe) is answered whole at once (RFC 9110 §14.2 allows it)."""

    PIECES, PAUSE_S = 30, 0.05

    def __init__(self, root):
        import http.server
        import urllib.parse
        served = self
        self.log = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: connections may be reused

            def log_message(self, *args):
                pass

            def do_GET(self):
                start = time.monotonic()
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
                local = os.path.join(root, path.lstrip("/"))
                if os.path.isdir(local):
                    local = os.path.join(local, "index.html")
                if not os.path.isfile(local):
                    self.send_error(404)
                    return
                with open(local, "rb") as handle:
                    body = handle.read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not path.endswith(".whl") or self.headers.get("Range"):
                    self.wfile.write(body)
                    return
                step = -(-len(body) // ThrottledIndex.PIECES)
                for at in range(0, len(body), step):
                    if at + step >= len(body):
                        served.log.append((os.path.basename(path), start, time.monotonic()))
                    self.wfile.write(body[at:at + step])
                    self.wfile.flush()
                    time.sleep(ThrottledIndex.PAUSE_S)

        self.server = serve_locally(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/whl"

    def close(self):
        stop_server(self.server)


def jobs_overlap(r):
    """--jobs 4 over HTTP/1.1: the four downloads run at once, one connection each. libcurl's
    PIPEWAIT held the others back until the first was done (it waited to learn whether the
    server multiplexes, and a clear-text HTTP/1.1 server says so only in its response)."""
    server = ThrottledIndex(r.sample)
    try:
        dest = r.path("overlap")
        report = r.json(*JOBS_SPECS, *CUDA, "--no-deps", "--index", server.url, "--dest", dest,
                        "--no-cache", "--jobs", "4")
    finally:
        server.close()
    for f in report["files"]:
        check(sha256_of(f["path"]) == f["sha256"], f"{f['filename']}: bytes do not match sha256")
    assert_clean(dest, [f["filename"] for f in report["files"]])
    first = sorted(server.log, key=lambda entry: entry[1])[:4]
    t0 = first[0][1] if first else 0
    for name, start, last in first:
        print(f"  {name}: requested at {start - t0:.2f} s, last byte sent at {last - t0:.2f} s")
    check(len(first) == 4, f"{len(server.log)} wheel requests logged, expected 4")
    latest_start = max(start for _, start, _ in first)
    earliest_end = min(last for _, _, last in first)
    check(latest_start < earliest_end,
          f"the transfers did not overlap: the last began {latest_start - t0:.2f} s in, "
          f"after the first ended ({earliest_end - t0:.2f} s)")


def bad_input(r):
    """Usage mistakes: exit 2, one paragraph, nothing written."""
    dest = r.path("bad")
    cases = [
        ((), "nothing to fetch"),
        (("torch", "--from-report", r.path("x.json")), "not both"),
        (("--from-report", r.path("absent.json")), "cannot read the file"),
        (("torch", *CUDA, "--index", r.index, "--jobs", "0"), "not in range 1 to 64"),
    ]
    with open(r.path("broken.json"), "w") as handle:
        handle.write("{not json")
    cases.append((("--from-report", r.path("broken.json")), "not valid JSON"))
    bad_name = r.report_file("badname.json", [wheel_entry("../evil-1.0-py3-none-any.whl",
                                                          "http://127.0.0.1:1/x.whl", None)])
    cases.append((("--from-report", bad_name), "wheels[0].filename"))
    for args, needle in cases:
        result = r.run(*args, "--dest", dest, expect=2)
        check(result.stderr.startswith("error: ") and needle in result.stderr,
              f"{args}: {needle!r} not in:\n{result.stderr}")
    check(not os.path.exists(dest) or listing(dest) in ([], [".wheelmod-fetch.lock"]),
          f"bad input wrote into {dest}: {listing(dest)}")


def unreachable(r):
    """A server that is not there: exit 4 after the retries, naming the URL and the cause."""
    url = "http://127.0.0.1:1/whl/cpu/gone-1.0-py3-none-any.whl"
    report = r.report_file("gone.json", [wheel_entry("gone-1.0-py3-none-any.whl", url, "a" * 64)])
    dest = r.path("gone")
    result = r.run("--from-report", report, "--dest", dest, "--retries", "1", expect=4)
    check(url in result.stderr and "after 2 attempts" in result.stderr, result.stderr)
    assert_clean(dest, [])


SCENARIOS = {f.__name__: f for f in (cuda_stack, from_report, http, missing_hash, mismatch,
                                      kill_resume, lock, tls_http2, bad_input, unreachable,
                                      jobs_overlap)}

# How CTest runs them (--list, read by tests/cli/CMakeLists.txt; scenario_support.ctest_listing):
# the scenarios served by nginx and the fault server read both servers' state, and are registered
# only where tests/integration starts them.
_SERVED = {"options": ("--http-state", "--fault-state"), "fixtures": "net_servers", "timeout": 90}
CTEST = dict.fromkeys(("http", "missing_hash", "mismatch", "kill_resume", "lock", "tls_http2",
                       "unreachable"), _SERVED)


def main():
    return scenario_main(__doc__.splitlines()[0], SCENARIOS, Runner, ["--fault-state"], ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
