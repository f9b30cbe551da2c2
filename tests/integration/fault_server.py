#!/usr/bin/env python3
"""An HTTP server for the failures nginx will not produce, for the tests.

  fault_server.py start --root DIR --state DIR [--lifetime S] [--idle S]
      Starts the server in the background on 127.0.0.1 (a free port), waits
      until it answers, writes STATE/url (http://127.0.0.1:PORT) and
      STATE/fault_server.pid.
  fault_server.py stop --state DIR
  fault_server.py serve --root DIR --state DIR ...   (what start runs)

It serves files under DIR (percent-decoded paths, single byte ranges
honoured) and misbehaves by path prefix; TOKEN keeps the counters of
concurrent tests apart:

  /flaky/N/TOKEN/PATH      503 + Retry-After: 0 for the first N requests, then PATH
  /ratelimit/N/TOKEN/PATH  429 + Retry-After: 1 for the first N requests, then PATH
  /down/PATH               always 503 (Retry-After: 0)
  /status/CODE/PATH        always CODE
  /s3/PATH                 PATH, or 403 + application/xml when missing (download.pytorch.org)
  /norange/PATH            PATH, always 200 with the whole body (Range ignored)
  /stall/PATH              headers and 10 bytes, then nothing for 5 s, then close
  /drop/PATH               headers (full Content-Length) and half the body, then close
  /redirect/PATH           302 to /PATH
  /count/TOKEN             how many requests carried TOKEN so far (text)

The server exits by itself after --idle seconds without a request or
--lifetime seconds in all, so a crashed test run leaves nothing behind.
"""
import argparse
import http.server
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

STALL_S = 5
DEFAULT_LIFETIME_S = 1800
DEFAULT_IDLE_S = 600
SOCKET_TIMEOUT_S = 10


class State:
    def __init__(self, root: str):
        self.root = root
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.last_request = time.monotonic()

    def count(self, token: str) -> int:
        """Counts one more request for token; returns how many came before."""
        with self.lock:
            before = self.counts.get(token, 0)
            self.counts[token] = before + 1
            return before


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S
    state: State  # set on the class before serving

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_HEAD(self):  # noqa: N802
        self.handle_request(send_body=False)

    def do_GET(self):  # noqa: N802
        self.handle_request(send_body=True)

    def simple(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None, send_body=True):
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def file_bytes(self, relpath: str) -> bytes | None:
        path = os.path.normpath(os.path.join(self.state.root, relpath.lstrip("/")))
        if not path.startswith(os.path.normpath(self.state.root) + os.sep):
            return None
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError:
            return None

    def serve_file(self, relpath: str, send_body: bool, ranges: bool = True, missing: int = 404):
        data = self.file_bytes(relpath)
        if data is None:
            if missing == 403:
                self.simple(403, b"<?xml version='1.0'?><Error><Code>AccessDenied</Code></Error>",
                            {"Content-Type": "application/xml"}, send_body)
            else:
                self.simple(404, b"not found\n", {"Content-Type": "text/plain"}, send_body)
            return
        kind = "text/html" if relpath.endswith(("/", ".html")) else "application/octet-stream"
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "")) if ranges else None
        if match and (match.group(1) or match.group(2)):
            size = len(data)
            if match.group(1):
                first = int(match.group(1))
                last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
            else:
                first, last = max(0, size - int(match.group(2))), size - 1
            if first >= size or last < first:
                self.simple(416, b"", {"Content-Range": f"bytes */{size}"}, send_body)
                return
            self.simple(206, data[first : last + 1],
                        {"Content-Type": kind, "Content-Range": f"bytes {first}-{last}/{size}"}, send_body)
            return
        self.simple(200, data, {"Content-Type": kind}, send_body)

    def handle_request(self, send_body: bool):
        self.state.last_request = time.monotonic()
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        parts = path.lstrip("/").split("/")
        mode = parts[0]
        if mode in ("flaky", "ratelimit") and len(parts) >= 4:
            limit, token, rest = int(parts[1]), parts[2], "/".join(parts[3:])
            if self.state.count(token) < limit:
                code, after = (503, "0") if mode == "flaky" else (429, "1")
                self.simple(code, b"try again\n", {"Retry-After": after}, send_body)
            else:
                self.serve_file(rest, send_body)
        elif mode == "down":
            self.simple(503, b"down\n", {"Retry-After": "0"}, send_body)
        elif mode == "status" and len(parts) >= 2:
            self.simple(int(parts[1]), b"status\n", {}, send_body)
        elif mode == "s3":
            self.serve_file("/".join(parts[1:]), send_body, missing=403)
        elif mode == "norange":
            self.serve_file("/".join(parts[1:]), send_body, ranges=False)
        elif mode == "stall":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            time.sleep(STALL_S)
            self.close_connection = True
        elif mode == "drop":
            data = self.file_bytes("/".join(parts[1:])) or b"x" * 1000
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif mode == "redirect":
            self.simple(302, b"", {"Location": "/" + "/".join(parts[1:])}, send_body)
        elif mode == "count" and len(parts) == 2:
            with self.state.lock:
                body = str(self.state.counts.get(parts[1], 0)).encode()
            self.simple(200, body, {"Content-Type": "text/plain"}, send_body)
        else:
            self.serve_file(path, send_body)


def serve(args) -> int:
    state = State(os.path.abspath(args.root))
    Handler.state = state
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    started = time.monotonic()

    def watchdog():
        while True:
            time.sleep(1)
            now = time.monotonic()
            if now - started > args.lifetime or now - state.last_request > args.idle:
                server.shutdown()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    os.makedirs(args.state, exist_ok=True)
    with open(os.path.join(args.state, "url.tmp"), "w", encoding="ascii") as handle:
        handle.write(f"http://127.0.0.1:{port}\n")
    os.replace(os.path.join(args.state, "url.tmp"), os.path.join(args.state, "url"))
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    return 0


def read_pid(state: str) -> int | None:
    try:
        with open(os.path.join(state, "fault_server.pid"), encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def stop(state: str) -> int:
    pid = read_pid(state)
    if pid is None:
        return 0
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return 0
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                if handle.read().split(")")[-1].split()[0] == "Z":
                    break
        except (ProcessLookupError, OSError):
            break
        time.sleep(0.05)
    os.remove(os.path.join(state, "fault_server.pid"))
    return 0


def start(args) -> int:
    state = os.path.abspath(args.state)
    os.makedirs(state, exist_ok=True)
    stop(state)
    url_file = os.path.join(state, "url")
    if os.path.exists(url_file):
        os.remove(url_file)
    log = open(os.path.join(state, "fault_server.log"), "ab")  # noqa: SIM115 - handed to the child
    child = subprocess.Popen(
        [sys.executable, "-B", os.path.abspath(__file__), "serve", "--root", args.root, "--state", state,
         "--lifetime", str(args.lifetime), "--idle", str(args.idle)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
    )
    with open(os.path.join(state, "fault_server.pid"), "w", encoding="ascii") as handle:
        handle.write(f"{child.pid}\n")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if child.poll() is not None:
            print(f"error: the fault server exited with {child.returncode}; see {state}/fault_server.log",
                  file=sys.stderr)
            return 1
        if os.path.exists(url_file):
            with open(url_file, encoding="ascii") as handle:
                url = handle.read().strip()
            try:
                with urllib.request.urlopen(url + "/count/ready", timeout=2):
                    print(f"fault server at {url} (state {state})")
                    return 0
            except OSError:
                pass
        time.sleep(0.05)
    print("error: the fault server did not answer within 15 s", file=sys.stderr)
    stop(state)
    return 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("start", "serve"):
        command = commands.add_parser(name)
        command.add_argument("--root", required=True)
        command.add_argument("--state", required=True)
        command.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME_S)
        command.add_argument("--idle", type=float, default=DEFAULT_IDLE_S)
    commands.add_parser("stop").add_argument("--state", required=True)
    args = parser.parse_args()
    if args.command == "serve":
        return serve(args)
    if args.command == "start":
        return start(args)
    return stop(os.path.abspath(args.state))


if __name__ == "__main__":
    sys.exit(main())
