#!/usr/bin/env python3
"""An HTTP server for the failures nginx will not produce, for the tests.

  fault_server.py start --root DIR --state DIR [--lifetime S] [--idle S]
      Starts the server in the background on 127.0.0.1 (a free port), waits
      until it answers, writes STATE/url (http://127.0.0.1:PORT) and
      STATE/fault_server.pid.
  fault_server.py stop --state DIR
  fault_server.py serve --root DIR --state DIR ...   (what start runs)

Sources. A path that no prefix below claims is a file under DIR
(percent-decoded; a directory means its index.html). `/gen/SIZE/SEED/NAME`
is SIZE bytes of pseudo-random content, the same for the same SIZE and SEED
(random.Random(SEED).randbytes(SIZE)); `/gensha/SIZE/SEED` answers its
SHA-256 as hex text. Served bodies carry a strong ETag and Last-Modified,
and honour one `Range: bytes=N-`, `N-M` or `-N` unless If-Range names
another validator (RFC 9110 §13.1.5: then the whole body, 200).

Faults are prefixes that wrap whatever path follows, so they compose
(`/throttle/2000000/gen/33554432/7/big.whl`, `/once/drop/1/TOKEN/whl/...`).
TOKEN keeps the counters and logs of concurrent tests apart. A body fault
applies to what would have been sent (the range, or the whole body):

  /drop/PATH               full Content-Length, half the body, then close
  /reset/PATH              as drop, then a TCP reset (SO_LINGER 0), not a close
  /short/PATH              all but the last few bytes, then a clean close
  /wrong/PATH              right length and headers, some bytes in the middle changed
  /stall/PATH              half the body, then nothing for 5 s, then close
  /norange/PATH            Range ignored: always 200 with the whole body
  /throttle/BPS/PATH       sent at about BPS bytes per second
  /newetag/TOKEN/PATH      a new ETag on every request, so If-Range never matches
  /once/FAULT/N/TOKEN/PATH FAULT for the first N requests, then PATH as it is;
                           FAULT: drop reset short wrong stall, or 500, 503
                           (Retry-After: 0), 429 (Retry-After: 1)
  /flaky/N/TOKEN/PATH      503 + Retry-After: 0 for the first N requests, then PATH
  /ratelimit/N/TOKEN/PATH  429 + Retry-After: 1 for the first N requests, then PATH
  /tag/TOKEN/PATH          PATH as it is, logged under TOKEN
  /s3/PATH                 PATH, or 403 + application/xml when missing (download.pytorch.org)
  /down/...                always 503 (Retry-After: 0)
  /status/CODE/...         always CODE
  /redirect/PATH           302 to /PATH

A body fault over a missing file uses 1000 filler bytes instead of a 404.
Queries:

  /count/TOKEN             how many requests carried TOKEN so far (text)
  /log/TOKEN               JSON list, one object per request that carried TOKEN
                           (in a once, flaky, ratelimit, newetag or tag prefix):
                           path, range, if_range (the headers or null), status,
                           etag, sent (body bytes written so far)

The server exits by itself after --idle seconds without a request or
--lifetime seconds in all, so a crashed test run leaves nothing behind.
Standard library only.
"""
import argparse
import dataclasses
import email.utils
import hashlib
import http.server
import json
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

STALL_S = 5
RESET_DELAY_S = 0.2  # lets the client read what came before the reset
SHORT_BY = 64        # bytes a `short` body lacks (at most half of it)
WRONG_BYTES = 16     # bytes a `wrong` body has inverted
FILLER = b"x" * 1000
BODY_FAULTS = ("drop", "reset", "short", "wrong", "stall")
RETRY_AFTER = {503: "0", 429: "1"}
GEN_DATE = "Mon, 01 Jan 2024 00:00:00 GMT"
CHUNK = 1 << 20
DEFAULT_LIFETIME_S = 1800
DEFAULT_IDLE_S = 600
SOCKET_TIMEOUT_S = 10


class State:
    def __init__(self, root: str):
        self.root = root
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.logs: dict[str, list[dict]] = {}
        self.generated: dict[tuple[int, int], tuple[bytes, str]] = {}
        self.generate_lock = threading.Lock()  # apart from `lock`: counters stay quick meanwhile
        self.last_request = time.monotonic()

    def count(self, token: str) -> int:
        """Counts one more request for token; returns how many came before."""
        with self.lock:
            before = self.counts.get(token, 0)
            self.counts[token] = before + 1
            return before

    def generate(self, size: int, seed: int) -> tuple[bytes, str]:
        """The generated body for (size, seed) and its SHA-256 hex, made once."""
        with self.generate_lock:  # held while generating: a second request waits, not redoes it
            key = (size, seed)
            if key not in self.generated:
                data = random.Random(seed).randbytes(size)
                self.generated[key] = (data, hashlib.sha256(data).hexdigest())
            return self.generated[key]


@dataclasses.dataclass
class Plan:
    """What the prefixes asked of one response."""
    body_fault: str | None = None
    ranges: bool = True
    rate: int | None = None        # bytes per second
    etag_token: str | None = None  # newetag
    missing: int = 404
    entries: list[dict] = dataclasses.field(default_factory=list)  # log entries of this request


def parse_range(value: str, size: int) -> tuple[int, int] | str | None:
    """(first, last) of one byte range, "unsatisfiable", or None to ignore the header."""
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", value.strip())
    if not match or not (match.group(1) or match.group(2)):
        return None  # several ranges or another unit: a server may ignore Range (RFC 9110 §14.2)
    if match.group(1):
        first = int(match.group(1))
        last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
        if match.group(2) and int(match.group(2)) < first:
            return None  # invalid range-spec: ignored
        return "unsatisfiable" if first >= size else (first, last)
    suffix = int(match.group(2))
    return "unsatisfiable" if suffix == 0 or size == 0 else (max(0, size - suffix), size - 1)


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

    def handle_request(self, send_body: bool):
        self.state.last_request = time.monotonic()
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        try:
            self.route(path.lstrip("/").split("/"), Plan(), send_body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away; nothing to answer

    # -- bookkeeping ------------------------------------------------------

    def log_to(self, plan: Plan, token: str):
        entry = {"path": self.path, "range": self.headers.get("Range"),
                 "if_range": self.headers.get("If-Range"), "status": None, "etag": None, "sent": 0}
        with self.state.lock:
            self.state.logs.setdefault(token, []).append(entry)
        plan.entries.append(entry)

    def note(self, plan: Plan, **fields):
        with self.state.lock:
            for entry in plan.entries:
                for name, value in fields.items():
                    entry[name] = entry[name] + value if name == "sent" else value

    # -- routing ----------------------------------------------------------

    def route(self, parts: list[str], plan: Plan, send_body: bool):
        """Consumes fault prefixes into `plan`, then answers from the source that remains."""
        while True:
            mode, args = (parts[0], parts[1:]) if parts else ("", [])
            if mode in ("flaky", "ratelimit") and len(args) >= 3:
                self.log_to(plan, args[1])
                if self.state.count(args[1]) < int(args[0]):
                    return self.status(plan, 503 if mode == "flaky" else 429, send_body)
                parts = args[2:]
            elif mode == "once" and len(args) >= 4 and (args[0] in BODY_FAULTS or args[0].isdigit()):
                self.log_to(plan, args[2])
                if self.state.count(args[2]) < int(args[1]):
                    if args[0].isdigit():
                        return self.status(plan, int(args[0]), send_body)
                    plan.body_fault = args[0]
                parts = args[3:]
            elif mode in BODY_FAULTS:
                plan.body_fault, parts = mode, args
            elif mode == "norange":
                plan.ranges, parts = False, args
            elif mode == "throttle" and args and args[0].isdigit():
                plan.rate, parts = max(1, int(args[0])), args[1:]
            elif mode == "newetag" and args:
                plan.etag_token = args[0]
                self.log_to(plan, args[0])
                parts = args[1:]
            elif mode == "tag" and args:
                self.log_to(plan, args[0])
                parts = args[1:]
            elif mode == "s3":
                plan.missing, parts = 403, args
            elif mode == "down":
                return self.status(plan, 503, send_body)
            elif mode == "status" and args and args[0].isdigit():
                return self.status(plan, int(args[0]), send_body)
            elif mode == "redirect":
                return self.reply(plan, 302, b"", {"Location": "/" + "/".join(args)}, send_body)
            elif mode == "count" and len(args) == 1:
                with self.state.lock:
                    body = str(self.state.counts.get(args[0], 0)).encode()
                return self.reply(plan, 200, body, {"Content-Type": "text/plain"}, send_body)
            elif mode == "log" and len(args) == 1:
                with self.state.lock:
                    body = json.dumps(self.state.logs.get(args[0], [])).encode()
                return self.reply(plan, 200, body, {"Content-Type": "application/json"}, send_body)
            elif mode == "gensha" and len(args) == 2 and all(a.isdigit() for a in args):
                digest = self.state.generate(int(args[0]), int(args[1]))[1]
                return self.reply(plan, 200, digest.encode(), {"Content-Type": "text/plain"}, send_body)
            elif mode == "gen" and len(args) >= 3 and args[0].isdigit() and args[1].isdigit():
                data = self.state.generate(int(args[0]), int(args[1]))[0]
                return self.serve(plan, data, f'"gen-{args[0]}-{args[1]}"', GEN_DATE,
                                  "application/octet-stream", send_body)
            else:
                return self.serve_file(plan, "/".join(parts), send_body)

    def status(self, plan: Plan, code: int, send_body: bool):
        headers = {"Retry-After": RETRY_AFTER[code]} if code in RETRY_AFTER else {}
        self.reply(plan, code, f"status {code}\n".encode(), headers, send_body)

    def reply(self, plan: Plan, code: int, body: bytes, headers: dict[str, str], send_body: bool):
        self.send_response(code)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.note(plan, status=code)
        if send_body:
            self.wfile.write(body)
            self.note(plan, sent=len(body))

    def serve_file(self, plan: Plan, relpath: str, send_body: bool):
        root = os.path.normpath(self.state.root)
        path = os.path.normpath(os.path.join(root, relpath))
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        try:
            if not path.startswith(root + os.sep):
                raise FileNotFoundError(path)
            with open(path, "rb") as handle:
                info = os.fstat(handle.fileno())
                data = handle.read()
        except OSError:
            if plan.body_fault:
                return self.serve(plan, FILLER, '"filler"', GEN_DATE, "application/octet-stream", send_body)
            if plan.missing == 403:
                return self.reply(plan, 403, b"<?xml version='1.0'?><Error><Code>AccessDenied</Code></Error>",
                                  {"Content-Type": "application/xml"}, send_body)
            return self.reply(plan, 404, b"not found\n", {"Content-Type": "text/plain"}, send_body)
        kind = "text/html" if path.endswith(".html") else "application/octet-stream"
        self.serve(plan, data, f'"{info.st_size:x}-{info.st_mtime_ns:x}"',
                   email.utils.formatdate(info.st_mtime, usegmt=True), kind, send_body)

    # -- serving a body ---------------------------------------------------

    def if_range_matches(self, etag: str, last_modified: str) -> bool:
        """RFC 9110 §13.1.5: an entity-tag matches by strong comparison, a date exactly."""
        value = self.headers.get("If-Range")
        if value is None:
            return True
        value = value.strip()
        return value == (etag if value.startswith(('"', "W/")) else last_modified)

    def serve(self, plan: Plan, data: bytes, etag: str, last_modified: str, kind: str, send_body: bool):
        if plan.etag_token:
            etag = f'{etag[:-1]}-n{self.state.count("newetag:" + plan.etag_token)}"'
        size, first, last, code = len(data), 0, len(data) - 1, 200
        headers = {"Content-Type": kind, "ETag": etag, "Last-Modified": last_modified,
                   "Accept-Ranges": "bytes" if plan.ranges else "none"}
        wanted = self.headers.get("Range")
        if plan.ranges and wanted is not None and self.if_range_matches(etag, last_modified):
            chosen = parse_range(wanted, size)
            if chosen == "unsatisfiable":
                return self.reply(plan, 416, b"", {"Content-Range": f"bytes */{size}"}, send_body)
            if chosen:
                (first, last), code = chosen, 206
                headers["Content-Range"] = f"bytes {first}-{last}/{size}"
        body = memoryview(data)[first : last + 1]
        if plan.body_fault == "wrong" and body:
            changed = bytearray(body)
            middle = len(changed) // 2
            for index in range(middle, min(middle + WRONG_BYTES, len(changed))):
                changed[index] ^= 0xFF
            body = memoryview(bytes(changed))
        self.send_response(code)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.note(plan, status=code, etag=etag)
        if not send_body:
            return
        count = len(body)
        if plan.body_fault in ("drop", "reset", "stall"):
            count = len(body) // 2
        elif plan.body_fault == "short":
            count = len(body) - min(SHORT_BY, len(body) // 2)
        self.send_paced(plan, body[:count])
        if plan.body_fault == "stall":
            time.sleep(STALL_S)
        if plan.body_fault == "reset":
            time.sleep(RESET_DELAY_S)
            # Linger 0: close() aborts the connection with RST instead of FIN.
            # The socket closes for real once rfile lets go of it, before the
            # server's own shutdown(SHUT_WR) could send a FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        if plan.body_fault in BODY_FAULTS and plan.body_fault != "wrong":
            self.close_connection = True

    def send_paced(self, plan: Plan, body: memoryview):
        """Writes body, at about plan.rate bytes per second when set."""
        chunk = max(1, plan.rate // 20) if plan.rate else CHUNK
        started = time.monotonic()
        for offset in range(0, len(body), chunk):
            piece = body[offset : offset + chunk]
            self.wfile.write(piece)
            self.note(plan, sent=len(piece))
            if plan.rate:
                ahead = (offset + len(piece)) / plan.rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)


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
