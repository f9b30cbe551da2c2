#!/usr/bin/env python3
"""Every shape of index a site serves, over real HTTP on 127.0.0.1, with pip as the oracle.

    index_shapes.py --wheelmod BIN --sample DIR --nginx PATH [--keep] SHAPE...
    index_shapes.py --list

Each SHAPE is built from the sample index and served by real servers: nginx (autoindex on and
off, HTTPS with a test CA, basic auth), `python3 -m http.server`, a PEP 691 JSON-only server, a
server that redirects to another host and path, a forward proxy. For each, `pip download` picks
torch 2.6.0 for CPython 3.12 on x86_64 with glibc 2.28 from the shape's pip URL; then wheelmod's
resolve, fetch, install, easyconfig and mirror, given the shape's index URL and --accelerator
cu126, must all choose the same file with the same sha256. A project no page has (`torchh`):
pip fails, and wheelmod exits 3 naming the URLs it asked and what each answered.

Prints one line per command (`shape  command  result  pip: result`) and, with --table, the
rows as a Markdown table. Exit 0 when every command of every shape agrees with pip, 1 when one
does not, 77 (CTest's skip) when pip or nginx is missing, naming what.
"""
import argparse
import glob
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

SKIP = 77
PROJECT = "torch"
VERSION = "2.6.0"
PYTHON = "3.12"
TARGET = ["--python", PYTHON, "--arch", "x86_64", "--glibc", "2.28"]
PIP_TARGET = ["--python-version", PYTHON, "--implementation", "cp", "--abi", "cp312",
              "--platform", "manylinux_2_28_x86_64", "--platform", "linux_x86_64"]
USER, SECRET = "site-user", "s3cr3t-t0ken-4-wheelmod"
MIRROR_SPEC = """\
index: {index}
variants: [cu126, cpu]
packages:
  torch: "=={version}"
python: ["{python}"]
arches: [x86_64]
glibc: "2.28"
"""


# The helpers the CLI scenarios share (tests/cli/scenario_support.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from scenario_support import (Anchors, Failure, check, free_port, make_test_ca, sha256_of,  # noqa: E402
                              wait_for_port)


# ---- building the shapes from the sample ---------------------------------------------------

def page_files(page_path, page_url_dir):
    """The files a sample page links: (filename, absolute path, sha256 or None, metadata sha256
    or None, requires_python or None)."""
    parser = Anchors()
    with open(page_path, encoding="utf-8") as handle:
        parser.feed(handle.read())
    out = []
    for link in parser.links:
        href = link.get("href", "")
        path, _, fragment = href.partition("#")
        target = os.path.normpath(os.path.join(page_url_dir, urllib.parse.unquote(path)))
        name = os.path.basename(target)
        if not name.endswith(".whl") or not os.path.isfile(target):
            continue
        digest = fragment[len("sha256="):] if fragment.startswith("sha256=") else None
        core = link.get("data-core-metadata") or link.get("data-dist-info-metadata")
        metadata = core[len("sha256="):] if core and core.startswith("sha256=") else None
        out.append((name, target, digest, metadata, link.get("data-requires-python")))
    return out


def variant_projects(sample, variant):
    """project -> files of the sample's variant directory, as its pages list them."""
    root = os.path.join(sample, "whl", variant)
    projects = {}
    for entry in sorted(os.listdir(root)):
        page = os.path.join(root, entry, "index.html")
        if os.path.isfile(page):
            projects[entry] = page_files(page, os.path.dirname(page))
    return projects


def link_or_copy(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def build_flat(sample, dest, variant="cu126", listing_text=True, pages=True, with_metadata=True):
    """A single-variant index as a proxy serves it: DIR/simple/<project>/ linking
    DIR/packages/<xx>/<file>; the root page's link texts end in '/' (as a listing's do). Returns
    project -> [(filename, stored path, sha256, metadata sha256, requires_python)]."""
    projects = variant_projects(sample, variant)
    stored = {}
    for project, files in projects.items():
        for name, source, digest, metadata, requires in files:
            real = digest or sha256_of(source)
            target = os.path.join(dest, "packages", real[:2], name)
            link_or_copy(source, target)
            if with_metadata and metadata and os.path.isfile(source + ".metadata"):
                link_or_copy(source + ".metadata", target + ".metadata")
            elif not with_metadata:
                metadata = None
            stored.setdefault(project, []).append((name, target, digest, metadata, requires))
        if not pages:
            # A directory of wheels per project, no page: a web server's listing stands for it.
            for name, target, *_ in stored.get(project, []):
                link_or_copy(target, os.path.join(dest, "simple", project, name))
    if pages:
        for project, files in stored.items():
            lines = []
            for name, target, digest, metadata, requires in sorted(files):
                href = "../../" + os.path.relpath(target, dest).replace(os.sep, "/")
                href = urllib.parse.quote(href) + (f"#sha256={digest}" if digest else "")
                attributes = f' data-core-metadata="sha256={metadata}"' if metadata else ""
                if requires:
                    attributes += f' data-requires-python="{html_escape(requires)}"'
                lines.append(f'    <a href="{href}"{attributes}>{name}</a><br/>')
            write(os.path.join(dest, "simple", project, "index.html"),
                  "<!DOCTYPE html>\n<html><body>\n" + "\n".join(lines) + "\n</body></html>\n")
        anchors = [f'<a href="{p}/">{p + "/" if listing_text else p}</a><br/>' for p in sorted(stored)]
        write(os.path.join(dest, "simple", "index.html"),
              "<!DOCTYPE html>\n<html><body>\n" + "\n".join(anchors) + "\n</body></html>\n")
    return stored


def html_escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def build_variant_tree(sample, dest, variants=("cu126", "cpu")):
    """The sample's variant directories only (and packages/, which their dependency pages link):
    no whl/index.html, no whl/<project>/."""
    for variant in variants:
        shutil.copytree(os.path.join(sample, "whl", variant), os.path.join(dest, "whl", variant),
                        copy_function=link_or_copy)
    shutil.copytree(os.path.join(sample, "packages"), os.path.join(dest, "packages"),
                    copy_function=link_or_copy)
    # Root-level wheels (triton, networkx, ...) the variant pages link with ../
    for name in os.listdir(os.path.join(sample, "whl")):
        source = os.path.join(sample, "whl", name)
        if os.path.isfile(source) and name != "index.html":
            link_or_copy(source, os.path.join(dest, "whl", name))


# ---- servers ----------------------------------------------------------------------------

NGINX_CONF = """\
{user}
daemon on;
worker_processes 1;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
events {{ worker_connections 128; }}
http {{
  access_log {state}/access.log;
  client_body_temp_path {state}/tmp/client;
  proxy_temp_path {state}/tmp/proxy;
  fastcgi_temp_path {state}/tmp/fastcgi;
  uwsgi_temp_path {state}/tmp/uwsgi;
  scgi_temp_path {state}/tmp/scgi;
  types {{ text/html html; application/json json; }}
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{port}{ssl};
    server_name 127.0.0.1 localhost;
    root {root};
    index index.html;
    autoindex {autoindex};
{extra}
  }}
}}
"""


class Nginx:
    def __init__(self, binary, root, state, autoindex=False, tls=None, auth=None):
        self.state = state
        os.makedirs(os.path.join(state, "tmp"), exist_ok=True)
        self.port = free_port()
        extra = ""
        if tls:
            extra += f"    ssl_certificate {tls[0]};\n    ssl_certificate_key {tls[1]};\n"
        if auth:
            password_file = os.path.join(state, "htpasswd")
            with open(password_file, "w") as handle:
                handle.write(f"{auth[0]}:{{PLAIN}}{auth[1]}\n")
            extra += f'    auth_basic "wheelmod test";\n    auth_basic_user_file {password_file};\n'
        conf = os.path.join(state, "nginx.conf")
        write(conf, NGINX_CONF.format(user="user root;" if os.geteuid() == 0 else "", state=state,
                                      port=self.port, ssl=" ssl" if tls else "", root=root,
                                      autoindex="on" if autoindex else "off", extra=extra))
        result = subprocess.run([binary, "-c", conf, "-p", state], capture_output=True, text=True)
        check(result.returncode == 0, f"nginx did not start: {result.stderr}")
        wait_for_port(self.port)

    def stop(self):
        try:
            with open(os.path.join(self.state, "nginx.pid")) as handle:
                pid = int(handle.read().strip())
            os.kill(pid, signal.SIGQUIT)
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.05)
        except (OSError, ValueError):
            pass

    def requests(self):
        with open(os.path.join(self.state, "access.log")) as handle:
            return handle.read()


class ThreadServer:
    """A ThreadingHTTPServer on 127.0.0.1 in a daemon thread."""
    def __init__(self, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.log = []
        self.server.request_log = self.log
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class ProcessServer:
    """`python3 -m http.server` itself, as a site would start it."""
    def __init__(self, directory):
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
             "--directory", directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        self.server.request_log.append(self.requestline)


def json_index_handler(flat_root, stored):
    """A PEP 691 JSON-only index of the flat tree: project pages only as JSON (406 to a client
    that does not accept it), files from disk."""
    class Handler(QuietHandler):
        def do_GET(self):
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            if path.startswith("/simple/"):
                if "application/vnd.pypi.simple.v1+json" not in self.headers.get("Accept", ""):
                    return self.answer(406, b"JSON only", "text/plain")
                name = path[len("/simple/"):].strip("/")
                if not name:
                    body = {"meta": {"api-version": "1.0"},
                            "projects": [{"name": p} for p in sorted(stored)]}
                elif name in stored:
                    files = []
                    for filename, target, digest, metadata, requires in stored[name]:
                        entry = {"filename": filename,
                                 "url": "/" + urllib.parse.quote(os.path.relpath(target, flat_root)),
                                 "hashes": {"sha256": digest} if digest else {}}
                        if metadata:
                            entry["core-metadata"] = {"sha256": metadata}
                        if requires:
                            entry["requires-python"] = requires
                        files.append(entry)
                    body = {"meta": {"api-version": "1.0"}, "name": name, "files": files}
                else:
                    return self.answer(404, b"no such project", "text/plain")
                return self.answer(200, json.dumps(body).encode(),
                                   "application/vnd.pypi.simple.v1+json")
            file_path = os.path.join(flat_root, path.lstrip("/"))
            if not os.path.isfile(file_path):
                return self.answer(404, b"not found", "text/plain")
            with open(file_path, "rb") as handle:
                self.answer(200, handle.read(), "application/octet-stream")

        def answer(self, status, body, content_type):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    return Handler


def redirect_handler(target_base):
    """Every GET under /idx/ answered 301 to the same path below `target_base` (another host
    name and another path)."""
    class Handler(QuietHandler):
        def do_GET(self):
            path = self.path
            if not path.startswith("/idx"):
                self.send_error(404)
                return
            self.send_response(301)
            self.send_header("Location", target_base + path[len("/idx"):])
            self.send_header("Content-Length", "0")
            self.end_headers()
        do_HEAD = do_GET
    return Handler


def proxy_handler(upstream_port):
    """A forward proxy for http:// URLs of any host: the request goes to 127.0.0.1:PORT (so a
    name that resolves nowhere, pytorch.invalid, is served), headers and body passed through."""
    class Handler(QuietHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            parts = urllib.parse.urlsplit(self.path)
            if parts.scheme != "http":
                self.send_error(400, "absolute http:// URL expected (a proxy request)")
                return
            connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in ("proxy-connection", "connection", "host")}
            headers["Host"] = f"127.0.0.1:{upstream_port}"
            path = parts.path + (("?" + parts.query) if parts.query else "")
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            self.send_response(response.status)
            for key, value in response.getheaders():
                if key.lower() not in ("connection", "transfer-encoding", "content-length"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            connection.close()
    return Handler


# ---- one shape ----------------------------------------------------------------------------

def clean_environment():
    """This process's environment without what would steer either tool past the shape: pip's
    own settings, CA bundles (requests prefers REQUESTS_CA_BUNDLE to --cert), proxies."""
    dropped = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR",
               "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
               "no_proxy", "NO_PROXY", "NETRC", "WHEELMOD_INDEX_URL", "WHEELMOD_CONFIG_FILE")
    return {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("PIP_")}


class Shape:
    """A served index: wheelmod's --index and --accelerator, pip's --index-url, the environment
    both run in, and the extra options each needs."""
    def __init__(self, name, index, pip_url, accelerator="cu126", env=None, wheelmod_extra=(),
                 pip_extra=(), servers=(), secret=None, note=""):
        self.name, self.index, self.pip_url, self.accelerator = name, index, pip_url, accelerator
        self.env = dict(clean_environment(), **(env or {}))
        self.wheelmod_extra, self.pip_extra = list(wheelmod_extra), list(pip_extra)
        self.servers, self.secret, self.note = list(servers), secret, note

    def stop(self):
        for server in self.servers:
            server.stop()


class Matrix:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.sample = os.path.abspath(args.sample)
        self.rows = []
        self.failed = False
        self.outputs = []  # every stdout/stderr text, for the credentials check

    # The shapes. Each builds its tree under work/<name> and starts its servers.
    def shape(self, name):
        root = os.path.join(self.work, name)
        os.makedirs(root, exist_ok=True)
        nginx = self.args.nginx
        if name == "pytorch":
            server = Nginx(nginx, self.sample, os.path.join(root, "nginx"))
            base = f"http://127.0.0.1:{server.port}/whl"
            return Shape(name, base, base + "/cu126/", servers=[server],
                         note="download.pytorch.org's: /whl/torch/ and /whl/cu126/torch/")
        if name == "pytorch_variant_url":
            server = Nginx(nginx, self.sample, os.path.join(root, "nginx"))
            url = f"http://127.0.0.1:{server.port}/whl/cu126/"
            return Shape(name, url, url, accelerator=None, servers=[server],
                         note="--index names the variant directory, as pytorch.org tells pip users")
        if name == "variant_tree":
            build_variant_tree(self.sample, os.path.join(root, "tree"))
            server = ProcessServer(os.path.join(root, "tree"))
            base = f"http://127.0.0.1:{server.port}/whl"
            return Shape(name, base, base + "/cu126/", servers=[server],
                         note="variant directories only, python3 -m http.server (a listing at /whl/)")
        if name == "single_variant":
            build_flat(self.sample, os.path.join(root, "flat"))
            server = Nginx(nginx, os.path.join(root, "flat"), os.path.join(root, "nginx"))
            url = f"http://127.0.0.1:{server.port}/simple/"
            return Shape(name, url, url, accelerator="cuda:12.6", servers=[server],
                         note="one variant as a proxy serves it (/simple/torch/, files elsewhere; "
                              "root link text 'torch/')")
        if name == "single_variant_autoindex":
            build_flat(self.sample, os.path.join(root, "flat"), pages=False)
            server = Nginx(nginx, os.path.join(root, "flat"), os.path.join(root, "nginx"),
                           autoindex=True)
            url = f"http://127.0.0.1:{server.port}/simple"
            return Shape(name, url, url + "/", servers=[server],
                         note="directories of wheels, nginx autoindex on: no page, no hash, no .metadata")
        if name == "pep691_json":
            flat = os.path.join(root, "flat")
            stored = build_flat(self.sample, flat)
            server = ThreadServer(json_index_handler(flat, stored))
            url = f"http://127.0.0.1:{server.port}/simple"
            return Shape(name, url, url + "/", servers=[server],
                         note="PEP 691 JSON only (406 without the JSON Accept)")
        if name.startswith("mirror"):
            mirror = self.make_mirror(os.path.join(root, "mirror"), old=name == "mirror_old")
            if name == "mirror_http_server":
                server = ProcessServer(mirror)
            else:
                server = Nginx(nginx, mirror, os.path.join(root, "nginx"),
                               autoindex=name == "mirror_nginx_autoindex")
            base = f"http://127.0.0.1:{server.port}"
            notes = {"mirror_http_server": "wheelmod's mirror behind python3 -m http.server",
                     "mirror_nginx": "wheelmod's mirror behind nginx, autoindex off",
                     "mirror_nginx_autoindex": "wheelmod's mirror behind nginx, autoindex on",
                     "mirror_old": "a mirror without root pages (as written before them), nginx"}
            return Shape(name, base, base + "/cu126/", servers=[server], note=notes[name])
        if name in ("https_auth", "https_auth_url"):
            ca, cert, key = make_test_ca(os.path.join(root, "ca"))
            server = Nginx(nginx, self.sample, os.path.join(root, "nginx"), tls=(cert, key),
                           auth=(USER, SECRET))
            if name == "https_auth":
                home = os.path.join(root, "home")
                write(os.path.join(home, ".netrc"),
                      f"machine 127.0.0.1 login {USER} password {SECRET}\n")
                os.chmod(os.path.join(home, ".netrc"), 0o600)
                base = f"https://127.0.0.1:{server.port}/whl"
                return Shape(name, base, base + "/cu126/", env={"HOME": home},
                             wheelmod_extra=["--cacert", ca], pip_extra=["--cert", ca],
                             servers=[server], secret=SECRET,
                             note="HTTPS with the site's CA (--cacert), basic auth from ~/.netrc")
            base = f"https://{USER}:{SECRET}@127.0.0.1:{server.port}/whl"
            return Shape(name, base, base + "/cu126/", env={"SSL_CERT_FILE": ca},
                         pip_extra=["--cert", ca], servers=[server], secret=SECRET,
                         note="HTTPS with the site's CA (SSL_CERT_FILE), credentials in the URL")
        if name == "redirects":
            server = Nginx(nginx, self.sample, os.path.join(root, "nginx"))
            redirector = ThreadServer(redirect_handler(f"http://localhost:{server.port}/whl"))
            base = f"http://127.0.0.1:{redirector.port}/idx"
            return Shape(name, base, base + "/cu126/", servers=[redirector, server],
                         note="every request redirected (301) to another host name and path")
        if name == "proxy":
            server = Nginx(nginx, self.sample, os.path.join(root, "nginx"))
            proxy = ThreadServer(proxy_handler(server.port))
            shape = Shape(name, "http://pytorch.invalid/whl", "http://pytorch.invalid/whl/cu126/",
                          env={"http_proxy": f"http://127.0.0.1:{proxy.port}"},
                          pip_extra=["--trusted-host", "pytorch.invalid"],
                          servers=[proxy, server], note="through http_proxy (the host resolves nowhere)")
            shape.proxy = proxy
            return shape
        raise Failure(f"unknown shape {name}")

    def make_mirror(self, dest, old):
        """The sample mirrored by the wheelmod under test (file://); `old`: without the root pages."""
        spec = os.path.join(os.path.dirname(dest), "mirror.yaml")
        write(spec, MIRROR_SPEC.format(index="file://" + os.path.join(self.sample, "whl"),
                                       version=VERSION, python=PYTHON))
        self.wheelmod(["mirror", spec, "--dest", dest], os.environ)
        if old:
            if os.path.exists(os.path.join(dest, "index.html")):
                os.remove(os.path.join(dest, "index.html"))
            for entry in os.listdir(dest):
                if entry not in ("cu126", "cpu", "files", ".wheelmod") and \
                        os.path.isdir(os.path.join(dest, entry)):
                    shutil.rmtree(os.path.join(dest, entry))
        return dest

    def wheelmod(self, args, env, expect=0):
        command = [self.args.wheelmod, "-q", *args]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        self.outputs.append((" ".join(args[:1]), result.stdout + result.stderr))
        if expect is not None and result.returncode != expect:
            raise Failure(f"wheelmod {' '.join(args)} -> exit {result.returncode}, expected "
                          f"{expect}\n{result.stderr.strip()}")
        return result

    def pip(self, shape, requirement, dest):
        command = [self.args.python, "-m", "pip", "download", "--no-deps", "--no-cache-dir",
                   "--disable-pip-version-check", "--only-binary=:all:", *PIP_TARGET,
                   "--index-url", shape.pip_url, "-d", dest, *shape.pip_extra, requirement]
        env = dict(shape.env, PIP_CONFIG_FILE=os.devnull)
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)

    def record(self, shape, command, ok, result, pip_result):
        self.rows.append((shape.name, command, "ok" if ok else "FAIL", result, pip_result))
        print(f"{shape.name:26} {command:11} {'ok  ' if ok else 'FAIL'} {result}   pip: {pip_result}",
              flush=True)
        if not ok:
            self.failed = True

    def run_shape(self, name):
        shape = self.shape(name)
        try:
            self.exercise(shape)
        finally:
            shape.stop()

    def exercise(self, shape):
        work = os.path.join(self.work, shape.name)
        pip_dir = os.path.join(work, "pip")
        pip = self.pip(shape, f"{PROJECT}=={VERSION}", pip_dir)
        files = glob.glob(os.path.join(pip_dir, "*.whl"))
        if pip.returncode != 0 or len(files) != 1:
            self.record(shape, "pip", False, "pip download failed", pip.stderr.strip()[-300:])
            return
        wanted_name = os.path.basename(files[0])
        wanted_sha = sha256_of(files[0])
        pip_text = f"{wanted_name} {wanted_sha[:12]}"
        env = shape.env
        cache = os.path.join(work, "cache")
        selection = [*(["--accelerator", shape.accelerator] if shape.accelerator else []),
                     "--index", shape.index, "--cache-dir", cache, *shape.wheelmod_extra]

        def attempt(command, body):
            try:
                ok, text = body()
            except Failure as failure:
                ok, text = False, str(failure).splitlines()[0][:300]
                print(str(failure), flush=True)
            self.record(shape, command, ok, text, pip_text)

        def resolve():
            # Spelt as PEP 503 allows: the page asked for is torch/ all the same.
            result = self.wheelmod(["resolve", f"Torch=={VERSION}", "--toolchain", "foss-2024a",
                                    *TARGET, *selection, "--format", "json"], env)
            wheel = next(w for w in json.loads(result.stdout)["wheels"] if w["name"] == PROJECT)
            same = wheel["filename"] == wanted_name and wheel["sha256"] in (wanted_sha, None)
            return same, f"{wheel['filename']} {(wheel['sha256'] or 'no hash on the index')[:12]}"
        attempt("resolve", resolve)

        def fetch():
            dest = os.path.join(work, "fetch")
            self.wheelmod(["fetch", f"{PROJECT}=={VERSION}", "--toolchain", "foss-2024a", *TARGET,
                           *selection, "--no-deps", "--dest", dest], env)
            path = os.path.join(dest, wanted_name)
            check(os.path.isfile(path), f"fetch: no {wanted_name} in {os.listdir(dest)}")
            digest = sha256_of(path)
            return digest == wanted_sha, f"{wanted_name} {digest[:12]}"
        attempt("fetch", fetch)

        def install():
            prefix = os.path.join(work, "prefix")
            self.wheelmod(["install", f"{PROJECT}=={VERSION}", "--toolchain", "foss-2024a", *TARGET,
                           *selection, "--eb-installpath", self.sample, "--no-compile",
                           "--prefix", prefix], env)
            with open(os.path.join(prefix, "easybuild", "wheelmod-install.log")) as handle:
                log = handle.read()
            # The "fetched" lines: each wheel with the sha256 checked (or computed where the
            # index gives none).
            found = re.search(re.escape(wanted_name) + r" sha256:([0-9a-f]{64})", log)
            check(found, f"install: the log names no {wanted_name}")
            dist = glob.glob(os.path.join(prefix, "lib", "python*", "site-packages",
                                          f"{PROJECT}-{VERSION}+cu126.dist-info"))
            check(dist, "install: no torch dist-info in the prefix")
            return found.group(1) == wanted_sha, f"{wanted_name} {found.group(1)[:12]}"
        attempt("install", install)

        def easyconfig():
            out = os.path.join(work, "easyconfigs")
            self.wheelmod(["easyconfig", f"{PROJECT}=={VERSION}", "--toolchain", "foss-2024a",
                           *selection, "--arch", "x86_64", "--output-dir", out], env)
            texts = ""
            for path in glob.glob(os.path.join(out, "*.eb")):
                with open(path) as handle:
                    texts += handle.read()
            named = wanted_name in texts or wanted_name.replace("+", "%2B") in texts
            # Shared and committed: no credentials at all, not even a masked `user:***@`.
            check(f"{USER}:" not in texts, "the easyconfig carries the index's user name")
            return named and wanted_sha in texts, \
                f"{'names' if named else 'lacks'} {wanted_name}, {'with' if wanted_sha in texts else 'without'} its sha256"
        attempt("easyconfig", easyconfig)

        def mirror():
            dest = os.path.join(work, "mirror-copy")
            spec = os.path.join(work, "copy.yaml")
            index = shape.index.rstrip("/")
            write(spec, MIRROR_SPEC.format(index=index, version=VERSION, python=PYTHON)
                  .replace("[cu126, cpu]", "[cu126]"))
            self.wheelmod(["mirror", spec, "--dest", dest, *shape.wheelmod_extra], env)
            with open(os.path.join(dest, "wheelmod-mirror.json")) as handle:
                manifest = json.load(handle)
            got = [entry for path, entry in manifest["files"].items()
                   if os.path.basename(path) == wanted_name]
            check(got, f"mirror: {wanted_name} not mirrored")
            return got[0]["sha256"] == wanted_sha, f"{wanted_name} {got[0]['sha256'][:12]}"
        attempt("mirror", mirror)

        def missing():
            pip_missing = self.pip(shape, "torchh==1.0", os.path.join(work, "pip-missing"))
            result = self.wheelmod(["resolve", "torchh", "--toolchain", "foss-2024a", *TARGET,
                                    *selection], env, expect=None)
            named = re.search(r"torchh/: (HTTP 40[34]|no such file)", result.stderr)
            # The nearest name from what the index shows (its root page or listing, else the
            # variant's root page).
            suggested = "did you mean 'torch'?" in result.stderr
            ok = pip_missing.returncode != 0 and result.returncode == 3 and named is not None \
                and suggested
            return ok, (f"exit {result.returncode}, names " + named.group(0) +
                        (", did you mean 'torch'?" if suggested else ", no suggestion") if named
                        else f"exit {result.returncode}: {result.stderr.strip()[:200]}")
        attempt("missing", missing)

        if getattr(shape, "proxy", None):
            asked = [line for line in shape.proxy.log if "pytorch.invalid" in line]
            self.record(shape, "via proxy", bool(asked), f"{len(asked)} requests through the proxy",
                        "-")
        if shape.secret:
            leaked = [name for name, text in self.outputs if shape.secret in text]
            for directory in (work,):
                for folder, _, names in os.walk(directory):
                    if os.sep + "nginx" in folder or os.sep + "home" in folder:
                        continue
                    for file_name in names:
                        path = os.path.join(folder, file_name)
                        if file_name == "copy.yaml":
                            continue  # the spec this test wrote, with the URL as given
                        try:
                            with open(path, "rb") as handle:
                                if shape.secret.encode() in handle.read():
                                    leaked.append(os.path.relpath(path, work))
                        except OSError:
                            pass
            self.record(shape, "no secret", not leaked,
                        "the password is in " + ", ".join(leaked) if leaked
                        else "in no output, report, log, easyconfig, prefix or mirror", "-")


SHAPES = ["pytorch", "pytorch_variant_url", "variant_tree", "single_variant",
          "single_variant_autoindex", "pep691_json", "mirror_http_server", "mirror_nginx",
          "mirror_nginx_autoindex", "mirror_old", "https_auth", "https_auth_url", "redirects",
          "proxy"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelmod")
    parser.add_argument("--sample")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    parser.add_argument("--python", default=sys.executable, help="the Python whose pip is the oracle")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--table", action="store_true", help="print the rows as a Markdown table")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("shapes", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(SHAPES))
        return 0
    if not args.wheelmod or not args.sample:
        parser.error("--wheelmod and --sample are required")
    if subprocess.run([args.python, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        print(f"skipped: {args.python} has no pip (Debian: python3-pip), the oracle of these tests")
        return SKIP
    if not os.access(args.nginx, os.X_OK) or shutil.which("openssl") is None:
        print(f"skipped: nginx ({args.nginx}) or openssl is missing (Debian: nginx-light, openssl)")
        return SKIP
    work = tempfile.mkdtemp(prefix="wheelmod-shapes-")
    matrix = Matrix(args, work)
    try:
        for name in args.shapes or SHAPES:
            try:
                matrix.run_shape(name)
            except (Failure, OSError, subprocess.SubprocessError) as failure:
                matrix.failed = True
                print(f"{name}: FAIL: {failure}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("work directory:", work)
    if args.table:
        print("\n| shape | command | wheelmod | pip |\n|---|---|---|---|")
        for row in matrix.rows:
            print(f"| {row[0]} | {row[1]} | {row[2]}: {row[3]} | {row[4]} |")
    return 1 if matrix.failed else 0


if __name__ == "__main__":
    sys.exit(main())
