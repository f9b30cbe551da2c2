#!/usr/bin/env python3
"""Serves the sample index over real HTTP with nginx, for the tests.

  nginx_fixture.py start --sample DIR --state DIR [--nginx PATH] [--python PATH]
      Renders the server-style pages (root-relative hrefs, second host
      http://localhost:PORT) into STATE/pages, writes STATE/nginx.conf, starts
      nginx on 127.0.0.1:PORT and waits until it answers. Writes STATE/url
      (http://127.0.0.1:PORT/whl) and STATE/port. When the openssl program
      is there, the same tree is also served over TLS with HTTP/2 on a second
      port with a self-signed certificate: STATE/tls_url
      (https://127.0.0.1:PORT2/whl), STATE/tls/cert.pem (pass it as the CA
      bundle) and STATE/tls-access.log (connection, protocol, status, URI per
      request). A server left over from an earlier run (STATE/nginx.pid) is
      stopped first.

  nginx_fixture.py stop --state DIR
      Stops that nginx (SIGQUIT: finish requests, then exit) and waits.

nginx serves STATE/pages first and the sample tree for everything else
(wheels, .metadata), with ETag/Last-Modified, 304s and byte ranges, the way
download.pytorch.org does (except its 403 for missing files: see
fault_server.py). Everything nginx writes stays under STATE.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GENERATOR = os.path.join(HERE, "..", "..", "index-mirrors", "sample", "generate.py")
START_ATTEMPTS = 5
READY_TIMEOUT_S = 15
STOP_TIMEOUT_S = 15

CONFIG = """\
# Written by nginx_fixture.py; everything under {state}.
{user}
daemon on;
worker_processes 1;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log {state}/access.log;
  client_body_temp_path {state}/tmp/client;
  proxy_temp_path {state}/tmp/proxy;
  fastcgi_temp_path {state}/tmp/fastcgi;
  uwsgi_temp_path {state}/tmp/uwsgi;
  scgi_temp_path {state}/tmp/scgi;
  types {{
    text/html html;
    application/json json;
  }}
  default_type application/octet-stream;
  sendfile on;
  etag on;
  # Pages compressed on the fly (as CDNs do): the client must decode them,
  # and revalidate with the weak ETag nginx then sends.
  gzip on;
  gzip_types text/html application/json;
  gzip_min_length 256;
  keepalive_timeout 30s;
  # One line per request on the TLS server: which connection carried it and
  # over which protocol, so tests can see HTTP/2 streams share a connection.
  log_format streams '$connection $server_protocol $status $request_uri';
{tls_server}
  server {{
    listen 127.0.0.1:{port};
    server_name 127.0.0.1 localhost;
    root {state}/pages;
    index index.html;
    # The rendered pages first, then the tree with the wheels and .metadata
    # files (nginx decodes %2B, so the '+' file names are found).
    location / {{ try_files $uri $uri/index.html @tree; }}
    location @tree {{ root {sample}; }}
  }}
}}
"""

# The same tree over TLS with HTTP/2, with a self-signed certificate the
# tests pass as the CA bundle (--cacert / SSL_CERT_FILE).
TLS_SERVER = """\
  server {{
    listen 127.0.0.1:{tls_port} ssl http2;
    server_name 127.0.0.1 localhost;
    ssl_certificate {state}/tls/cert.pem;
    ssl_certificate_key {state}/tls/key.pem;
    access_log {state}/tls-access.log streams;
    root {state}/pages;
    index index.html;
    location / {{ try_files $uri $uri/index.html @tree; }}
    location @tree {{ root {sample}; }}
  }}
"""


def make_certificate(state: str) -> bool:
    """A self-signed certificate for 127.0.0.1 and localhost; False when the
    openssl program is missing (the TLS server is then left out)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return False
    directory = os.path.join(state, "tls")
    os.makedirs(directory, exist_ok=True)
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", os.path.join(directory, "key.pem"), "-out", os.path.join(directory, "cert.pem")],
        check=True, capture_output=True,
    )
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def read_pid(state: str) -> int | None:
    try:
        with open(os.path.join(state, "nginx.pid"), encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); it is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def stop(state: str) -> int:
    pid = read_pid(state)
    if pid is None or not alive(pid):
        return 0
    os.kill(pid, signal.SIGQUIT)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        if not alive(pid):
            return 0
        time.sleep(0.05)
    os.kill(pid, signal.SIGTERM)  # graceful stop did not finish in time
    time.sleep(0.5)
    if alive(pid):
        print(f"error: nginx (pid {pid}) did not stop", file=sys.stderr)
        return 1
    return 0


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def start(args) -> int:
    state = os.path.abspath(args.state)
    sample = os.path.abspath(args.sample)
    if not os.path.isfile(os.path.join(sample, "MANIFEST.json")):
        print(f"error: {sample}: no MANIFEST.json\nhint: build the sample_index target first", file=sys.stderr)
        return 1
    os.makedirs(state, exist_ok=True)
    stop(state)
    for name in ("url", "port", "tls_url", "ca.pem"):
        if os.path.exists(os.path.join(state, name)):
            os.remove(os.path.join(state, name))
    os.makedirs(os.path.join(state, "tmp"), exist_ok=True)
    # As root, workers would run as "nobody", who may not read the build
    # tree; as anyone else nginx ignores "user" with a warning, so omit it.
    user = "user root;" if os.geteuid() == 0 else ""
    tls = make_certificate(state)
    last_error = ""
    for _ in range(START_ATTEMPTS):
        # Another process may take the port between our probe and nginx's
        # bind; then nginx fails to start and we try another port.
        port = free_port()
        tls_port = free_port()
        pages = os.path.join(state, "pages")
        shutil.rmtree(pages, ignore_errors=True)
        subprocess.run(
            [args.python, "-B", args.generator, "render-pages", "--root", sample, "--dest", pages,
             "--style", "server", "--second-host", f"http://localhost:{port}"],
            check=True,
        )
        config = os.path.join(state, "nginx.conf")
        with open(config, "w", encoding="utf-8") as handle:
            tls_server = TLS_SERVER.format(state=state, sample=sample, tls_port=tls_port) if tls else ""
            handle.write(CONFIG.format(state=state, sample=sample, port=port, user=user,
                                       tls_server=tls_server))
        result = subprocess.run(
            [args.nginx, "-c", config, "-p", state, "-e", os.path.join(state, "error.log")],
            capture_output=True, text=True,
        )
        if result.returncode != 0:
            last_error = result.stderr.strip()
            continue
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline and not answers(base + "/whl/"):
            time.sleep(0.05)
        if not answers(base + "/whl/"):
            last_error = f"nginx started but {base}/whl/ does not answer"
            stop(state)
            continue
        with open(os.path.join(state, "port"), "w", encoding="ascii") as handle:
            handle.write(f"{port}\n")
        with open(os.path.join(state, "url"), "w", encoding="ascii") as handle:
            handle.write(f"{base}/whl\n")
        if tls:
            with open(os.path.join(state, "tls_url"), "w", encoding="ascii") as handle:
                handle.write(f"https://127.0.0.1:{tls_port}/whl\n")
        print(f"nginx serves {sample} at {base}/whl (state {state})")
        return 0
    print(f"error: nginx did not start after {START_ATTEMPTS} attempts: {last_error}", file=sys.stderr)
    return 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    start_cmd = commands.add_parser("start")
    start_cmd.add_argument("--sample", required=True, help="the generated sample index")
    start_cmd.add_argument("--state", required=True)
    start_cmd.add_argument("--nginx", default="/usr/sbin/nginx")
    start_cmd.add_argument("--python", default=sys.executable)
    start_cmd.add_argument("--generator", default=os.path.normpath(DEFAULT_GENERATOR))
    stop_cmd = commands.add_parser("stop")
    stop_cmd.add_argument("--state", required=True)
    args = parser.parse_args()
    return start(args) if args.command == "start" else stop(os.path.abspath(args.state))


if __name__ == "__main__":
    sys.exit(main())
