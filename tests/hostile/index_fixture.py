"""The hostile index the index drivers share: a hostile_server.Server with one
torch wheel that fits the target (cp311, linux_x86_64, cpu), the wheelmod
runs against it with a fresh --cache-dir and --dest each, and the helpers
that build pages.
"""
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from hostile_server import Server
from hostile_support import MIB, check, check_no_sanitizer_report

WHEEL_NAME = "torch-2.6.0+cpu-cp311-cp311-linux_x86_64.whl"
WHEEL_PATH = "/files/" + WHEEL_NAME.replace("+", "%2B")
PAGE_PATH = "/simple/cpu/torch/"
METADATA = b"Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0+cpu\n"
SECRET = "s3cr3t-Hostile-Pw"
TARGET = ("--toolchain", "foss-2024a", "--accelerator", "cpu", "--python", "3.11", "--arch",
          "x86_64", "--glibc", "2.28")
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
PAGE_CAP = 256 * MIB  # src/net/fetcher.cpp k_max_page_bytes
# A page stopped at the cap: the body up to it, and during the string's last
# growth (capacity 15 * 2^24 = 240 MiB, doubled) the old buffer beside its copy,
# so 2x the cap at the peak; ASan's shadow adds an eighth. Measured: +554 MiB
# (plain), +300 MiB (gzip). Without the cap there is no bound at all.
CAPPED_BUDGET_MIB = 2 * PAGE_CAP * 9 // 8 // MIB + 64


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def link(href, extra=""):
    return f'<a href="{href}"{extra}>{href.rsplit("/", 1)[-1].split("#")[0]}</a>\n'


def torch_wheel():
    """A real, installable wheel of WHEEL_NAME (what `install` needs; fetch needs only
    the bytes): one module, METADATA, WHEEL, RECORD."""
    import base64
    import io
    import zipfile
    dist_info = "torch-2.6.0+cpu.dist-info"
    files = {"torch/__init__.py": b"__version__ = '2.6.0+cpu'\n",
             f"{dist_info}/METADATA": METADATA,
             f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\n"
                                   b"Tag: cp311-cp311-linux_x86_64\n"}
    def digest(data):
        return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    rows = [f"{name},sha256={digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join(rows + [f"{dist_info}/RECORD,,"]) + "\n").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


def html(*links):
    return ("<!DOCTYPE html>\n<html><body>\n" + "".join(links) + "</body></html>\n").encode()


class Work:
    def __init__(self, suite):
        self.suite = suite
        self.server = Server()
        self.top = Path(tempfile.mkdtemp(prefix="wheelmod-hostile-index-"))
        self.root = self.top / "root"
        self.root.mkdir()
        (self.root / "canary.txt").write_text("canary\n")
        self.wheel = os.urandom(256 * 1024)  # fetch checks bytes, not zip structure
        self.count = 0
        self.serve_wheel()  # every group starts from a server that answers the wheel

    def close(self):
        self.server.close()
        shutil.rmtree(self.top, ignore_errors=True)

    def good_link(self, path=WHEEL_PATH, base=""):
        return link(f"{base}{path}#sha256={sha256(self.wheel)}",
                    f' data-dist-info-metadata="sha256={sha256(METADATA)}"')

    def serve_wheel(self, path=WHEEL_PATH):
        self.server.routes[path] = lambda h: h.respond(200, self.wheel, "application/octet-stream")
        self.server.routes[path + ".metadata"] = lambda h: h.respond(200, METADATA, "text/plain")

    def serve_page(self, body, content_type="text/html", headers=()):
        def page(h):
            etag = dict(headers).get("ETag")
            if etag and h.headers.get("If-None-Match") == etag:
                h.respond(304, b"", content_type, headers)  # RFC 9110 15.4.5: revalidated
            else:
                h.respond(200, body, content_type, headers)
        self.server.routes[PAGE_PATH] = page

    def fresh(self):
        """A new cache and destination per run (a cached page would hide the server)."""
        self.count += 1
        return self.root / f"cache{self.count}", self.root / f"dest{self.count}"

    def resolve(self, *extra, index=None, budget=64, env=None, timeout=120, cache=None):
        cache = cache or self.fresh()[0]
        self.last = (cache,)
        index = index or self.server.url("/simple/")
        return self.suite.wheelmod_run("resolve", "torch", "--index", index, *TARGET,
                                       "--cache-dir", str(cache), *extra, rss_budget_mib=budget,
                                       env=env, timeout=timeout)

    def fetch(self, *extra, index=None, budget=64, retries="2"):
        cache, dest = self.fresh()
        self.last = (cache, dest)
        index = index or self.server.url("/simple/")
        result = self.suite.wheelmod_run("fetch", "torch", "--index", index, *TARGET, "--no-deps",
                                         "--cache-dir", str(cache), "--dest", str(dest),
                                         "--retries", retries, *extra, rss_budget_mib=budget)
        return result, dest

    def chosen(self, result):
        check_no_sanitizer_report(result)
        check(result.returncode == 0, result.describe())
        report = json.loads(result.stdout)
        return [wheel["filename"] for wheel in report["wheels"]]


def quiet_asan():
    """ASan holds up to 256 MiB of freed blocks in quarantine, resident; the page
    cases measure what the program keeps, so they run with the quarantine off
    (use-after-free detection is weaker there; the other groups keep it)."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0").lstrip(":")
    return env
