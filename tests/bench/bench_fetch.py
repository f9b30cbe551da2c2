#!/usr/bin/env python3
"""Download benchmark: `wheelmod fetch` against curl, in one run.

At each size of --sizes (64 MiB, 256 MiB and 1 GiB by default), writes a
wheel of random bytes (so nothing compresses) into a temporary directory,
serves it with nginx (sendfile on) on a free port of 127.0.0.1, and runs,
alternately (A B A B ...):

  A  curl -s -o FILE URL                                   the peer
  B  wheelmod -q fetch --from-report REPORT --dest DIR --cache-dir CACHE --format json
     (the report carries the sha256, which wheelmod checks as the bytes arrive;
     DEST and CACHE are fresh and empty every run, outputs deleted after it)

(before each run, as many bytes as it will write are written to a scratch
file and deleted, so that both tools write into recently freed memory:
Runner.warm_memory says why)

then `sha256sum FILE` and `openssl dgst -sha256 FILE` on the served file, to
set beside wheelmod's hashing overhead (its time minus curl's). Prints
medians and minima side by side, the wheelmod/curl ratios against their
targets (PASS/MISS; the exit status is 0 either way), and the peak RSS of
each process (ru_maxrss from os.wait4, per child). Last, how the cost
grows: each size's medians, and the seconds per 100 MiB between the
smallest and the largest size for each tool (--summary-json writes them).

  bench_fetch.py --wheelmod build/bench/src/cli/wheelmod --work-dir build/bench
  bench_fetch.py --wheelmod ... --sizes 2G --runs 7 --jobs-test
  bench_fetch.py --wheelmod ... --smoke    # CTest: 8 MiB, one run, checks the bytes

--jobs-test adds 4 files of SIZE/4 each: `wheelmod fetch --jobs 4` against
4 curl processes at once, twice: over HTTP/1.1 (nginx on http://, as most
site mirrors are served: one connection per transfer) and over HTTP/2
(nginx `listen ... ssl http2` with a self-signed certificate made by
openssl at run time, passed as --cacert to both; wheelmod multiplexes its 4
transfers on one connection, each curl has its own). nginx logs every
request's connection and protocol, and the first run of each tool says
what it used, at each size. Needs about 3 x the largest size free on disk
under --work-dir.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bench_support import (K_MIB, K_PR_SET_CHILD_SUBREAPER, K_PR_SET_PDEATHSIG, BenchError,
                           Summary, fs_type, first_line, load_average, machine_line, parse_list,
                           parse_size, prctl, run_one, run_parallel, size_label)

K_RSS_TARGET_MIB = 64
K_THROUGHPUT_TARGET = 0.90
K_DEFAULT_SIZES = "64M,256M,1G"
K_GOAL = f"wheelmod/curl throughput >= {K_THROUGHPUT_TARGET:.2f}, RSS < {K_RSS_TARGET_MIB} MiB"

NGINX_CONF = """\
# Written by bench_fetch.py; everything under {state}.
{user}
daemon off;
worker_processes auto;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {state}/client;
  proxy_temp_path {state}/proxy;
  fastcgi_temp_path {state}/fastcgi;
  uwsgi_temp_path {state}/uwsgi;
  scgi_temp_path {state}/scgi;
  types {{ }}
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  server {{
    listen 127.0.0.1:{port};
    root {root};
  }}
}}
"""

# --jobs-test: requests logged with their connection and protocol, and the
# same files over TLS + HTTP/2 (nginx 1.22: `listen ... ssl http2`).
NGINX_JOBS_CONF = """\
# Written by bench_fetch.py; everything under {state}.
{user}
daemon off;
worker_processes auto;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
events {{ worker_connections 64; }}
http {{
  log_format jobs '$connection $server_protocol $request_method $status $request_uri';
  access_log {state}/access.log jobs;
  client_body_temp_path {state}/client;
  proxy_temp_path {state}/proxy;
  fastcgi_temp_path {state}/fastcgi;
  uwsgi_temp_path {state}/uwsgi;
  scgi_temp_path {state}/scgi;
  types {{ }}
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  server {{
    listen 127.0.0.1:{port}{listen_options};
{tls}    root {root};
  }}
}}
"""


@dataclass
class Wheel:
    name: str
    path: Path
    sha256: str
    size: int

    @property
    def filename(self):
        return self.path.name


def die_with_parent():
    # nginx runs in the foreground as our child; if the driver is killed
    # (a CTest timeout) the kernel stops nginx too.
    prctl(K_PR_SET_PDEATHSIG, signal.SIGTERM)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Nginx:
    """nginx serving `root` on 127.0.0.1, state under `state`; a context
    manager, so it stops however the benchmark ends. Subclasses change the
    configuration through `conf_template` (same placeholders)."""

    conf_template = NGINX_CONF
    scheme = "http"

    def __init__(self, binary, root, state, probe):
        self.binary, self.root, self.state, self.probe = binary, root, state, probe
        self.process = None
        self.port = None

    def __enter__(self):
        self.state.mkdir(parents=True, exist_ok=True)
        # As root, workers would run as "nobody", who may not read the work
        # directory; as anyone else nginx ignores "user" with a warning.
        user = "user root;" if os.geteuid() == 0 else ""
        error_log = self.state / "error.log"
        for _ in range(5):  # another process may take the probed port first
            self.port = free_port()
            conf = self.state / "nginx.conf"
            conf.write_text(self.conf_template.format(state=self.state, root=self.root,
                                                      port=self.port, user=user,
                                                      **self.conf_extra()))
            self.process = subprocess.Popen(
                [self.binary, "-c", str(conf), "-p", str(self.state), "-e", str(error_log)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=die_with_parent)
            if self.wait_ready():
                return self
            self.stop()
        log = error_log.read_text(errors="replace")[-2000:] if error_log.exists() else ""
        raise BenchError(f"nginx did not start on 127.0.0.1:\n{log}")

    def conf_extra(self):
        """More placeholders for a subclass's template."""
        return {}

    def url(self, name):
        return f"{self.scheme}://127.0.0.1:{self.port}/{name}"

    def ssl_context(self):
        return None

    def client_args(self):
        """Options both tools need to fetch from this server: curl's, wheelmod's."""
        return [], []

    def wait_ready(self):
        deadline = time.monotonic() + 10
        request = urllib.request.Request(self.url(self.probe), method="HEAD")
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(request, timeout=2,
                                            context=self.ssl_context()) as response:
                    return response.status == 200
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)  # finish requests, then exit
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __exit__(self, *exc):
        self.stop()

    def version(self):
        result = subprocess.run([self.binary, "-v"], capture_output=True, text=True)
        return result.stderr.strip().removeprefix("nginx version: ")


class JobsNginx(Nginx):
    """nginx for --jobs-test over HTTP/1.1: every request logged with its
    connection number and protocol (connections_since)."""

    conf_template = NGINX_JOBS_CONF
    label = "HTTP/1.1 (http://)"

    def conf_extra(self):
        return {"listen_options": "", "tls": ""}

    def log_size(self):
        log = self.state / "access.log"
        return log.stat().st_size if log.exists() else 0

    def connections_since(self, offset):
        """'N requests on M connections, PROTOCOL' for the GETs logged after `offset`
        (not the HEAD that probed the server, which may be logged late)."""
        with open(self.state / "access.log", encoding="utf-8") as log:
            log.seek(offset)
            lines = [line.split() for line in log if line.split()[2:3] == ["GET"]]
        connections = {line[0] for line in lines}
        protocols = ", ".join(sorted({line[1] for line in lines}))
        return (f"{len(lines)} requests on {len(connections)} "
                f"connection{'s' if len(connections) != 1 else ''}, {protocols}")


class TlsNginx(JobsNginx):
    """The same over TLS with HTTP/2 offered by ALPN, a self-signed
    certificate for 127.0.0.1 made at start."""

    scheme = "https"
    label = "HTTP/2 (https://, TLS)"

    def __enter__(self):
        self.state.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1",
             "-keyout", str(self.state / "key.pem"), "-out", str(self.cert)],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise BenchError(f"openssl could not make a certificate:\n{result.stderr}")
        return super().__enter__()

    @property
    def cert(self):
        return self.state / "cert.pem"

    def conf_extra(self):
        return {"listen_options": " ssl http2",
                "tls": f"    ssl_certificate {self.cert};\n"
                       f"    ssl_certificate_key {self.state / 'key.pem'};\n"}

    def ssl_context(self):
        return ssl.create_default_context(cafile=str(self.cert))

    def client_args(self):
        return ["--http2", "--cacert", str(self.cert)], ["--cacert", str(self.cert)]


def write_random_wheel(directory, name, size):
    """A wheel-named file of `size` random bytes, and its sha256."""
    path = directory / f"{name}-1.0-py3-none-any.whl"
    digest = hashlib.sha256()
    with open(path, "wb") as out:
        left = size
        while left:
            chunk = os.urandom(min(left, 4 * K_MIB))
            digest.update(chunk)
            out.write(chunk)
            left -= len(chunk)
    return Wheel(name, path, digest.hexdigest(), size)


def write_report(path, wheels, nginx):
    """A minimal `wheelmod resolve --format json` report (docs/resolve-report.md)."""
    report = {
        "schema_version": 1,
        "index": nginx.url(""),
        "specs": [f"{w.name}==1.0" for w in wheels],
        "wheels": [{"name": w.name, "version": "1.0", "filename": w.filename,
                    "url": nginx.url(w.filename), "sha256": w.sha256, "size": w.size}
                   for w in wheels],
    }
    path.write_text(json.dumps(report, indent=2) + "\n")


def check_wheelmod_output(stdout_path, dest, wheels):
    """`fetch --format json`: every wheel downloaded (not from a cache) and
    verified against the report's sha256."""
    files = {f["filename"]: f for f in json.loads(Path(stdout_path).read_text())["files"]}
    for wheel in wheels:
        entry = files.get(wheel.filename)
        if entry is None:
            raise BenchError(f"wheelmod's JSON output does not list {wheel.filename}")
        facts = (entry["outcome"], entry["sha256"], entry["sha256_source"], entry["path"])
        if facts != ("downloaded", wheel.sha256, "index", str(dest / wheel.filename)):
            raise BenchError(f"wheelmod reports (outcome, sha256, sha256_source, path) = {facts} "
                             f"for {wheel.filename}, expected a download of sha256 {wheel.sha256}")
        check_file(dest / wheel.filename, wheel, "wheelmod")


def check_file(path, wheel, tool, compare_bytes=False):
    if not path.is_file() or path.stat().st_size != wheel.size:
        raise BenchError(f"{tool} left no {wheel.size}-byte file at {path}")
    if compare_bytes:
        with open(path, "rb") as got, open(wheel.path, "rb") as want:
            while True:
                a, b = got.read(4 * K_MIB), want.read(4 * K_MIB)
                if a != b:
                    raise BenchError(f"{tool} wrote other bytes than the server's {wheel.filename}")
                if not a:
                    break


def fresh(*directories):
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)


class Runner:
    def __init__(self, args, work, nginx):
        self.args, self.work, self.nginx = args, work, nginx
        self.scratch = work / "scratch"
        self.scratch.mkdir(exist_ok=True)

    def client_args(self):
        return self.nginx.client_args()

    def warm_memory(self, wheels):
        """Writes and deletes as many bytes as the run will write, so that the run's page-cache
        pages are ones just freed. On this kind of VM (Firecracker) memory the guest has not
        touched lately is mapped by the host on first write: a 1 GiB file then takes 2.4 s of
        system time to write instead of 0.2 s (`dd of=F bs=1M count=1024` after `rm F`, and
        again into new memory), and whichever tool came after the larger deletion won. It
        costs the same to both tools, outside their timing."""
        scratch = self.scratch / "warm"
        block = bytes(K_MIB)
        with open(scratch, "wb") as handle:
            for _ in range(sum(w.size for w in wheels) // K_MIB + 1):
                handle.write(block)
        scratch.unlink()

    def curl(self, wheels, check_bytes):
        out = self.work / "curl-out"
        fresh(out)
        self.warm_memory(wheels)
        extra = self.client_args()[0]
        sample = run_parallel([[self.args.curl, "-s", *extra, "-o", str(out / w.filename),
                                self.nginx.url(w.filename)] for w in wheels], self.scratch)
        for wheel in wheels:
            check_file(out / wheel.filename, wheel, "curl", compare_bytes=check_bytes)
        shutil.rmtree(out)
        return sample

    def wheelmod(self, wheels, report, check_bytes):
        dest, cache = self.work / "wheelmod-dest", self.work / "wheelmod-cache"
        fresh(dest, cache)  # nothing may come from the cache
        self.warm_memory(wheels)
        command = [self.args.wheelmod, "-q", "fetch", "--from-report", str(report),
                   "--dest", str(dest), "--cache-dir", str(cache), "--format", "json",
                   *self.client_args()[1]]
        if len(wheels) > 1:
            command += ["--jobs", str(len(wheels))]
        sample = run_one(command, self.scratch)
        check_wheelmod_output(self.scratch / "out0", dest, wheels)
        if check_bytes:
            for wheel in wheels:
                check_file(dest / wheel.filename, wheel, "wheelmod", compare_bytes=True)
        shutil.rmtree(dest)
        shutil.rmtree(cache)
        return sample

    def hasher(self, command, wheel):
        sample = run_one(command + [str(wheel.path)], self.scratch)
        printed = (self.scratch / "out0").read_text().split()
        if not printed or printed[0] != wheel.sha256:
            raise BenchError(f"{command[0]} printed {printed[:1]}, expected {wheel.sha256}")
        return sample

    def rounds(self, wheels, report, hashers):
        """Alternating rounds; the first checks every byte both tools wrote."""
        samples = {"curl": [], "wheelmod": [], **{name: [] for name in hashers}}
        for round_index in range(self.args.runs):
            check = round_index == 0
            if self.args.curl:
                samples["curl"].append(self.curl(wheels, check))
            samples["wheelmod"].append(self.wheelmod(wheels, report, check))
            for name, command in hashers.items():
                samples[name].append(self.hasher(command, wheels[0]))
            print(f"  round {round_index + 1}/{self.args.runs}: " + ", ".join(
                f"{k} {v[-1].wall:.3f} s" for k, v in samples.items() if v), flush=True)
        return samples


def median(samples, field):
    return statistics.median(getattr(s, field) for s in samples)


def verdict(ok):
    return "PASS" if ok else "MISS"


def table(title, size, samples):
    """curl and wheelmod side by side, their ratio, and the targets."""
    curl, ours = samples.get("curl"), samples["wheelmod"]
    rows = []  # label, curl, wheelmod, wheelmod/curl, target

    def row(label, pick, fmt, ratio=None, target=""):
        a, b = (pick(curl) if curl else None), pick(ours)
        r = ratio(a, b) if ratio and a else None
        rows.append((label, "-" if a is None else fmt.format(a), fmt.format(b),
                     "" if r is None else f"{r:.2f}", target))
        return r

    speed = lambda pick: lambda runs: size / pick(s.wall for s in runs) / 1e9
    ratio = row("throughput, median (GB/s)", speed(statistics.median), "{:.2f}",
                lambda a, b: b / a)
    row("throughput, best (GB/s)", speed(min), "{:.2f}", lambda a, b: b / a)
    row("wall time, median (s)", lambda runs: median(runs, "wall"), "{:.3f}")
    row("CPU user+sys, median (s)", lambda runs: median(runs, "cpu"), "{:.2f}",
        lambda a, b: b / a)
    rss = max(s.rss_kib for s in ours) / 1024
    row("peak RSS, max (MiB)", lambda runs: max(s.rss_kib for s in runs) / 1024, "{:.1f}",
        lambda a, b: b / a, f"< {K_RSS_TARGET_MIB} MiB: {verdict(rss < K_RSS_TARGET_MIB)}")
    if ratio is not None:
        rows[0] = rows[0][:4] + (f">= {K_THROUGHPUT_TARGET:.2f}: "
                                 f"{verdict(ratio >= K_THROUGHPUT_TARGET)}",)
    print(f"\n{title:34} {'curl':>9} {'wheelmod':>9} {'wheelmod/curl':>14}   target")
    for label, a, b, r, target in rows:
        print(f"  {label:32} {a:>9} {b:>9} {r:>14}   {target}".rstrip())
    if curl:
        paired = sorted(c.wall / w.wall for c, w in zip(curl, ours))
        print(f"  wheelmod/curl throughput per round: {paired[0]:.2f} to {paired[-1]:.2f}")


def hashing(size, samples, hashers):
    """wheelmod's time over curl's, beside hashing the file alone."""
    print(f"\n{'hashing':34} {'median s':>9} {'min s':>9} {'GB/s':>14}")
    if samples.get("curl"):
        extra = [w.wall - c.wall for c, w in zip(samples["curl"], samples["wheelmod"])]
        print(f"  {'wheelmod - curl, per round':32} {statistics.median(extra):9.3f} "
              f"{min(extra):9.3f}")
    for name in hashers:
        runs = samples[name]
        print(f"  {name + ' FILE':32} {median(runs, 'wall'):9.3f} "
              f"{min(s.wall for s in runs):9.3f} {size / median(runs, 'wall') / 1e9:14.2f}")


def machine_facts(args, work_parent):
    print(machine_line())
    print(f"work dir: {work_parent} ({fs_type(work_parent)}); load average {load_average()}")
    print(f"curl: {first_line([args.curl, '--version']) if args.curl else 'not installed'}")
    print(f"wheelmod: {first_line([args.wheelmod, '--version'])}"
          + (f" ({args.build_type} build)" if args.build_type else ""))
    print(f"openssl: {first_line(['openssl', 'version'])}; sha256sum: "
          f"{first_line(['sha256sum', '--version'])}")


def preflight(args, work_parent):
    need = 3 * max(args.sizes) + 256 * K_MIB  # source, one output, a cache copy
    free = shutil.disk_usage(work_parent).free
    if free < need:
        raise BenchError(f"{work_parent}: {free / K_MIB:.0f} MiB free, the benchmark needs "
                         f"{need / K_MIB:.0f} MiB\nhint: pass smaller --sizes or another "
                         "--work-dir")
    if fs_type(work_parent) == "tmpfs" and not args.smoke:
        print(f"warning: {work_parent} is tmpfs: outputs land in memory, not on disk")
    try:
        has_fetch = subprocess.run([args.wheelmod, "fetch", "--help"], capture_output=True,
                                   timeout=30).returncode == 0
    except OSError as error:
        raise BenchError(f"{args.wheelmod}: {error.strerror}") from None
    if not has_fetch:
        raise BenchError(f"{args.wheelmod} has no working 'fetch' command")
    if not args.curl:
        if not args.smoke:
            raise BenchError("curl not found\nhint: apt-get install curl, or pass --curl PATH")
        print("curl not installed: the peer side is skipped")


def measure(args, work, nginx, wheels, report, hashers, title):
    runner = Runner(args, work, nginx)
    if not args.smoke:  # warm up: the file in the page cache, nginx's worker started
        runner.wheelmod(wheels, report, False)
    samples = runner.rounds(wheels, report, hashers)
    table(title, sum(w.size for w in wheels), samples)
    return samples


def main_part(args, work, hashers, size):
    source = work / "served"
    source.mkdir()
    wheel = write_random_wheel(source, "bigwheel", size)
    os.sync()
    with Nginx(args.nginx, source, work / "nginx", wheel.filename) as nginx:
        report = work / "report.json"
        write_report(report, [wheel], nginx)
        print(f"file: {wheel.filename}, {size / K_MIB:.0f} MiB of random bytes, served by "
              f"nginx {nginx.version()} (sendfile on) at {nginx.url('')}")
        print(f"{args.runs} rounds, each: curl, wheelmod, then the hashers on the served file")
        samples = measure(args, work, nginx, [wheel], report, hashers,
                          f"one {size / K_MIB:.0f} MiB file")
        hashing(size, samples, hashers)
    shutil.rmtree(source)  # room for the --jobs-test files
    return samples


def show_connections(args, work, nginx, wheels, report):
    """One run of each tool, untimed: what nginx saw of it."""
    runner = Runner(args, work, nginx)
    runs = {"wheelmod": lambda: runner.wheelmod(wheels, report, False)}
    if args.curl:
        runs = {"curl": lambda: runner.curl(wheels, False), **runs}
    for name, run in runs.items():
        offset = nginx.log_size()
        run()
        print(f"  nginx saw {name}: {nginx.connections_since(offset)}")


def jobs_part(args, work, size):
    source = work / "served-jobs"
    source.mkdir()
    wheels = [write_random_wheel(source, f"bigpart{i}", size // 4) for i in range(1, 5)]
    os.sync()
    results = []
    for kind in (JobsNginx, TlsNginx):
        state = work / f"nginx-jobs-{kind.scheme}"
        with kind(args.nginx, source, state, wheels[0].filename) as nginx:
            report = work / f"report-jobs-{kind.scheme}.json"
            write_report(report, wheels, nginx)
            print(f"\n--jobs-test, {kind.label}: 4 files of {size // 4 / K_MIB:.0f} MiB: "
                  f"wheelmod fetch --jobs 4 against 4 curl processes at once")
            show_connections(args, work, nginx, wheels, report)
            samples = measure(args, work, nginx, wheels, report, {},
                              f"4 files at once, {kind.label.split()[0]}")
            print("  (4 curls: wall until the last ends, CPU summed, RSS of the largest)")
            results.append((kind.label, samples))
    jobs_summary(size // 4 * 4, results)
    shutil.rmtree(source)
    return results


def jobs_summary(size, results):
    """Both protocols side by side: median throughputs, ratio, peak RSS."""
    print(f"\n{'--jobs 4 vs 4 curls':26} {'curl GB/s':>10} {'wheelmod GB/s':>14} "
          f"{'wheelmod/curl':>14} {'wheelmod MiB':>13}   target")
    for label, samples in results:
        ours = size / median(samples["wheelmod"], "wall") / 1e9
        rss = max(s.rss_kib for s in samples["wheelmod"]) / 1024
        if samples.get("curl"):
            theirs = size / median(samples["curl"], "wall") / 1e9
            ratio = ours / theirs
            cells = (f"{theirs:10.2f} {ours:14.2f} {ratio:14.2f} {rss:13.1f}   "
                     f">= {K_THROUGHPUT_TARGET:.2f}: {verdict(ratio >= K_THROUGHPUT_TARGET)}, "
                     f"RSS < {K_RSS_TARGET_MIB}: {verdict(rss < K_RSS_TARGET_MIB)}")
        else:
            cells = f"{'-':>10} {ours:14.2f} {'':14} {rss:13.1f}"
        print(f"  {label:24} {cells}")


def add_rows(summary, operation, size, label, samples):
    """One summary row: median wall times, peak RSS, the targets."""
    ours, curl = samples["wheelmod"], samples.get("curl")
    rss = max(s.rss_kib for s in ours) / 1024
    wall = median(ours, "wall")
    peer = median(curl, "wall") if curl else None
    met = None if peer is None else \
        (peer / wall >= K_THROUGHPUT_TARGET and rss < K_RSS_TARGET_MIB)
    summary.row(operation, label, wall, "curl" if curl else None, peer, "s", rss_mib=rss,
                peer_rss_mib=max(s.rss_kib for s in curl) / 1024 if curl else None,
                goal=K_GOAL, met=met, units=size / K_MIB)


def measure_size(args, work, hashers, size, summary):
    """Every part at one size, its rows added to `summary`."""
    samples = main_part(args, work, hashers, size)
    add_rows(summary, "download one file", size, size_label(size), samples)
    if args.jobs_test:
        for label, samples in jobs_part(args, work, size):
            add_rows(summary, f"4 files at once, {label}", size // 4 * 4,
                     f"4 x {size_label(size // 4)}", samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelmod", required=True, help="the wheelmod binary (a Release build)")
    parser.add_argument("--curl", default=shutil.which("curl"), help="curl (default: on PATH)")
    parser.add_argument("--nginx", default="/usr/sbin/nginx")
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--sizes", type=lambda text: parse_list(text, parse_size),
                       default=parse_list(K_DEFAULT_SIZES, parse_size),
                       help="bytes of the wheel at each size, comma-separated: 1G, 512M, 2GiB "
                            f"... (default {K_DEFAULT_SIZES}); one size: no slope")
    sizes.add_argument("--size", type=lambda text: [parse_size(text)], dest="sizes",
                       help="one size: the same as --sizes SIZE")
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="where the temporary files go (removed at the end)")
    parser.add_argument("--jobs-test", action="store_true", help="also 4 files, --jobs 4")
    parser.add_argument("--build-type", default="", help="CMAKE_BUILD_TYPE, to warn about Debug")
    parser.add_argument("--summary-json", type=Path,
                        help="write the summary (rows and slopes) as JSON here (README.md)")
    parser.add_argument("--smoke", action="store_true",
                        help="8 MiB, one round, check the bytes and the reported sha256")
    args = parser.parse_args()
    if args.smoke:
        args.sizes, args.runs, args.jobs_test = [8 * K_MIB], 1, False
    if args.runs < 1 or min(args.sizes) < 4:
        parser.error("--runs must be >= 1 and every size >= 4 bytes")
    # Let SIGTERM/SIGHUP unwind like Ctrl-C, so nginx stops and files go.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _: sys.exit(128 + signum))

    work_parent = args.work_dir.resolve()
    work_parent.mkdir(parents=True, exist_ok=True)
    hashers = {"sha256sum": ["sha256sum"]}
    if shutil.which("openssl"):
        hashers["openssl dgst -sha256"] = ["openssl", "dgst", "-sha256", "-r"]
    summary = Summary("fetch", args.build_type)
    try:
        prctl(K_PR_SET_CHILD_SUBREAPER, 1)  # see LAUNCH
        preflight(args, work_parent)
        machine_facts(args, work_parent)
        summary.tools = {"wheelmod": first_line([args.wheelmod, "--version"]),
                         "curl": first_line([args.curl, "--version"]) if args.curl else None,
                         "nginx": first_line([args.nginx, "-v"])}
        if args.build_type and args.build_type != "Release":
            print(f"warning: wheelmod built as {args.build_type}; measure a Release build")
        for size in args.sizes:
            if len(args.sizes) > 1:
                print(f"\n=== {size_label(size)} ===")
            with tempfile.TemporaryDirectory(prefix="bench-fetch-", dir=work_parent) as tmp:
                measure_size(args, Path(tmp), hashers, size, summary)
        summary.all_slopes("100 MiB", 100)
        summary.print()
        print(f"\nload average at the end: {load_average()}")
        if args.summary_json:
            summary.write(args.summary_json)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.smoke:
        tools = "curl and wheelmod" if args.curl else "wheelmod"
        print(f"ok: {tools} wrote the served bytes; wheelmod reported the right sha256")
    return 0


if __name__ == "__main__":
    sys.exit(main())
