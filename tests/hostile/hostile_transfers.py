#!/usr/bin/env python3
"""Redirects and lying lengths from a hostile index on 127.0.0.1, through
`wheelmod resolve`, `fetch` and `install`.

    hostile_transfers.py --wheelmod BIN GROUP

Groups:
  redirects  302 to file://, ftp://, gopher://, dict://; a loop; for pages
             and wheels; a page that links to a local file
  lengths    Content-Length smaller or larger than what is sent; a wheel
             longer than the index's size or hash allows (fetch and install)
  slow       a page or .metadata file trickled at 2 bytes/s (body or headers),
             ended by --page-timeout, not retried; a wheel of unknown size past
             --max-download-size, one announced or listed above it; 0 refused
"""
import json
import os
import re
import shutil
import sys
import time

from hostile_support import (MIB, Suite, check, check_error, check_unchanged, main_with_groups,
                             snapshot)
from index_fixture import (JSON_TYPE, METADATA, PAGE_PATH, TARGET, WHEEL_NAME, WHEEL_PATH, Work,
                           html, link, sha256)


# --- redirects --------------------------------------------------------------------------------

PASSWD_MARK = "root:x:0:0"  # what /etc/passwd would show, were it read


def redirects(args):
    suite = Suite(args.wheelmod, "redirects to other schemes",
                  "wheelmod resolve/fetch --index http://127.0.0.1:PORT/simple/")
    work = Work(suite)
    server = work.server

    def page_to(location):
        server.requests.clear()
        server.routes[PAGE_PATH] = lambda h: h.redirect(location)
        result = work.resolve("--no-deps", "--format", "json")
        check_error(result, 4, r"127\.0\.0\.1")
        check(PASSWD_MARK not in result.stdout + result.stderr, "a local file was read")
        check(sum(r["path"] == PAGE_PATH for r in server.requests) <= 4, "redirect retried too often")
        return f"exit 4: {result.stderr.splitlines()[0][-70:]}"

    def wheel_to(location):
        work.serve_page(html(work.good_link()))
        server.routes[WHEEL_PATH] = lambda h: h.redirect(location)
        result, dest = work.fetch()
        check_error(result, 4, r"torch-2\.6\.0|127\.0\.0\.1")
        check(PASSWD_MARK not in result.stdout + result.stderr, "a local file was read")
        check(not dest.exists() or not any(p.name.startswith("torch") and not p.name.endswith(
            (".part", ".part.json")) for p in dest.iterdir()), "a file at the final name")
        check(not (dest / WHEEL_NAME).exists(), "a redirected wheel at its final name")
        return f"exit 4: {result.stderr.splitlines()[0][-70:]}"

    def same_scheme_followed():
        # The control: a redirect to another http:// page of the index is followed.
        work.serve_page(html(work.good_link()))
        server.routes["/moved/"] = server.routes[PAGE_PATH]
        server.routes[PAGE_PATH] = lambda h: h.redirect(server.url("/moved/"))
        result = work.resolve("--no-deps", "--format", "json")
        check(work.chosen(result) == [WHEEL_NAME], result.describe())

    def loop():
        server.routes[PAGE_PATH] = lambda h: h.redirect(server.url(PAGE_PATH))
        result = work.resolve("--no-deps")
        check_error(result, 4, r"redirect")

    local = work.root / "local-torch.whl"
    local.write_bytes(work.wheel)

    def page_links_local_file():
        # An http index whose link is a file:// URL with the right hash: a remote page
        # must not make wheelmod read local files (pip's rule for remote indexes).
        work.serve_page(html(link(f"file://{local}#sha256={sha256(work.wheel)}".replace(
            "local-torch.whl", WHEEL_NAME.replace("+", "%2B")))))
        shutil.copy(local, work.root / WHEEL_NAME)
        result, dest = work.fetch()
        check(result.returncode != 0 and not (dest / WHEEL_NAME).exists(),
              f"a remote page made wheelmod copy a local file\n{result.describe()}")
        check_error(result, 5, r"not to an http\(s\) URL")

    cases = [("page_to_file_passwd", lambda: page_to("file:///etc/passwd")),
             ("page_to_ftp", lambda: page_to("ftp://127.0.0.1:21/simple/cpu/torch/")),
             ("page_to_gopher", lambda: page_to("gopher://127.0.0.1:70/1")),
             ("page_to_dict", lambda: page_to("dict://127.0.0.1:2628/d:torch")),
             ("page_to_relative_file", lambda: page_to("file:/etc/passwd")),
             ("wheel_to_file_passwd", lambda: wheel_to("file:///etc/passwd")),
             ("wheel_to_ftp", lambda: wheel_to("ftp://127.0.0.1:21/torch.whl")),
             ("redirect_loop", loop),
             ("page_links_local_file", page_links_local_file),
             ("control_same_scheme", same_scheme_followed)]
    return suite.run_all(cases, work,
                         "302s from http to file://, ftp://, gopher://, dict:// refused (exit 4) "
                         "for pages and wheels, nothing read or written; a loop stopped; an "
                         "http:// redirect followed")


# --- lengths ----------------------------------------------------------------------------------

def lengths(args):
    suite = Suite(args.wheelmod, "responses longer or shorter than advertised",
                  "wheelmod resolve/fetch/install --index http://127.0.0.1:PORT/simple/")
    work = Work(suite)
    server = work.server
    size = len(work.wheel)

    def json_page(declared):
        files = [{"filename": WHEEL_NAME, "url": WHEEL_PATH, "size": declared,
                  "hashes": {"sha256": sha256(work.wheel)}}]
        body = json.dumps({"meta": {"api-version": "1.1"}, "name": "torch", "files": files}).encode()
        work.serve_page(body, JSON_TYPE)

    def page_smuggled():
        # Content-Length covers the real page; past it, a whole second response that
        # would answer the next request on the connection (the .metadata), and a
        # better torch link. The page is what Content-Length says: the torch 9.9.9
        # link after it is never read. Whether libcurl takes the bytes after it as
        # the next response depends on whether they arrive in the same read
        # (libcurl then drops the connection) or later (it keeps the connection),
        # so the metadata's source is not asserted: a server that wants to serve
        # other metadata can do so directly, the page gives no hash for it.
        page = html(link(f"{WHEEL_PATH}#sha256={sha256(work.wheel)}",
                         ' data-dist-info-metadata="true"'))
        evil_meta = METADATA + b"Requires-Dist: evil-package\n"
        smuggled = (b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(evil_meta) + evil_meta +
                    link("/files/torch-9.9.9-cp311-cp311-linux_x86_64.whl").encode())

        def respond(h):
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", str(len(page)))
            h.end_headers()
            h.send(page + smuggled)
        server.routes[PAGE_PATH] = respond
        result = work.resolve("--format", "json")
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        check("9.9.9" not in result.stdout, "the link past Content-Length was read")

    def page_short():
        # Content-Length promises more than comes before the close: a failure, retried.
        page = html(work.good_link())

        def respond(h):
            h.send_response(200)
            h.send_header("Content-Length", str(len(page) + 5000))
            h.end_headers()
            h.send(page)
            h.close_connection = True
        server.routes[PAGE_PATH] = respond
        result = work.resolve("--no-deps")
        check_error(result, 4, r"127\.0\.0\.1")

    def fetch(expect, *patterns):
        before = snapshot(work.root)
        result, dest = work.fetch()
        if expect == 0:
            check(result.returncode == 0, result.describe())
            check((dest / WHEEL_NAME).read_bytes() == work.wheel, "the fetched wheel differs")
        else:
            check_error(result, expect, *patterns)
            check(not (dest / WHEEL_NAME).exists(), "a wrong wheel at its final name")
            check(not any(dest.glob("*.part")), f"a .part with bad bytes kept: {list(dest.iterdir())}")
        check_unchanged(before, snapshot(work.root), allowed=[rf"{d.name}(/.*)?" for d in work.last])
        return result

    def wheel_endless():
        # Regression case (src/net/transfer.cpp): the index says `size` bytes; a chunked
        # body (no Content-Length to compare) that never ends was written until the
        # disk filled. Now it stops past the index's size.
        json_page(size)
        block = os.urandom(1 << 16)
        server.sent.clear()  # counted per path, across cases
        server.routes[WHEEL_PATH] = lambda h: h.chunked(
            200, [work.wheel] + [block] * (4 << 10))  # then 256 MiB more
        fetch(5, r"more than the %d bytes the index says" % size)
        sent = server.sent.get(WHEEL_PATH, 0)
        check(sent < 64 * MIB, f"{sent} bytes went out before wheelmod stopped")
        return f"stopped after {sent / MIB:.1f} MiB"

    def wheel_length_over_index():
        json_page(size)
        server.routes[WHEEL_PATH] = lambda h: h.respond(200, work.wheel + b"x" * 1000,
                                                        "application/octet-stream")
        fetch(5, r"sends %d bytes, the index says %d" % (size + 1000, size))

    def wheel_excess_after_length():
        # Content-Length and the index agree; junk follows on the socket: ignored.
        json_page(size)
        server.routes[WHEEL_PATH] = lambda h: h.respond(200, work.wheel + os.urandom(MIB),
                                                        "application/octet-stream", length=size)
        fetch(0)

    def wheel_longer_no_size():
        # An HTML page gives no size; the hash still refuses a longer file.
        work.serve_page(html(work.good_link()))
        server.routes[WHEEL_PATH] = lambda h: h.chunked(200, [work.wheel, b"trailing junk"])
        fetch(5, r"(?i)sha-?256 mismatch")

    def install_wheel_endless():
        # The same endless wheel through `install`: refused before any prefix exists;
        # its download directory beside the prefix is gone, only the lock remains.
        json_page(size)
        block = os.urandom(1 << 16)
        server.routes[WHEEL_PATH] = lambda h: h.chunked(200, [work.wheel] + [block] * (4 << 10))
        parent = work.root / "software"
        parent.mkdir(exist_ok=True)
        before = snapshot(work.root)
        cache, _ = work.fresh()
        result = work.suite.wheelmod_run(
            "install", "torch==2.6.0", "--index", work.server.url("/simple/"), *TARGET,
            "--no-deps", "--cache-dir", str(cache), "--prefix", str(parent / "PyTorch"),
            "--no-compile", "--retries", "2", rss_budget_mib=64)
        check_error(result, 5, r"more than the %d bytes the index says" % size)
        check(not (parent / "PyTorch").exists(), "the prefix exists after a refused install")
        check_unchanged(before, snapshot(work.root),
                        allowed=[rf"{cache.name}(/.*)?", r"software/\.PyTorch\.wheelmod\.lock"])

    cases = [("page_smuggled_response", page_smuggled), ("page_shorter_than_length", page_short),
             ("install_wheel_endless", install_wheel_endless),
             ("wheel_endless_chunked", wheel_endless),
             ("wheel_length_over_index", wheel_length_over_index),
             ("wheel_excess_after_length", wheel_excess_after_length),
             ("wheel_longer_without_size", wheel_longer_no_size)]
    return suite.run_all(cases, work,
                         "bytes past Content-Length never read (a smuggled response and link "
                         "ignored), a short page exit 4, a wheel longer than the index's size or "
                         "hash refused with exit 5 and stopped within a few MiB, nothing at the "
                         "final name, no prefix")


# --- slow -------------------------------------------------------------------------------------

def slow(args):
    suite = Suite(args.wheelmod, "pages that never finish, wheels without end",
                  "wheelmod resolve/fetch --index http://127.0.0.1:PORT/simple/ "
                  "--page-timeout S --max-download-size SIZE")
    work = Work(suite)
    server = work.server
    page_url = re.escape(server.url(PAGE_PATH))

    def trickled_page(h, body=None):
        # 2 bytes/s with a Content-Length it never reaches: bytes keep coming, so no
        # stall timeout can fire; only a total limit ends it.
        page = body or html(work.good_link())
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(page) * 1000))
        h.end_headers()
        h.trickle(page + b" " * 64)

    def timed(run):
        start = time.monotonic()
        result = run()
        return result, time.monotonic() - start

    def page_requests(path=PAGE_PATH):
        return sum(r["path"] == path for r in server.requests)

    def page_trickle(*extra, limit=3, low=3, high=10):
        server.requests.clear()
        server.routes[PAGE_PATH] = trickled_page
        result, wall = timed(lambda: work.resolve("--no-deps", "--page-timeout", str(limit),
                                                  *extra))
        check_error(result, 4, page_url, rf"longer than {limit} s in all \(\d+ B received\)",
                    r"--page-timeout")
        check(low <= wall <= high, f"ended after {wall:.1f} s, expected {low} to {high} s")
        # The limit is the page's in all: a trickle is not tried again.
        check(page_requests() == 1, f"{page_requests()} requests for the page")
        return f"exit 4 after {wall:.1f} s"

    def page_trickle_through_fetch():
        # fetch with a stall timeout far shorter than the page takes: bytes arrive every
        # half second, so the stall never fires; the total limit does, at 5 s.
        server.requests.clear()
        server.routes[PAGE_PATH] = trickled_page
        (result, dest), wall = timed(lambda: work.fetch("--stall-timeout", "2",
                                                        "--page-timeout", "5"))
        check_error(result, 4, page_url, r"longer than 5 s in all", r"--page-timeout")
        check("stalled" not in result.stderr, result.describe())
        check(5 <= wall <= 12, f"ended after {wall:.1f} s, expected 5 to 12 s")
        check(not dest.exists() or not any(dest.glob("torch*")),
              "a wheel was fetched from a page that never ended")
        return f"exit 4 after {wall:.1f} s"

    def header_trickle():
        # The status line and headers themselves, a byte every half second.
        server.requests.clear()
        page = html(work.good_link())
        response = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" +
                    b"X-Slow: " + b"a" * 4096 + b"\r\nContent-Length: %d\r\n\r\n" % len(page) +
                    page)
        server.routes[PAGE_PATH] = lambda h: h.trickle(response)
        result, wall = timed(lambda: work.resolve("--no-deps", "--page-timeout", "3"))
        check_error(result, 4, page_url, r"longer than 3 s in all", r"--page-timeout")
        check(3 <= wall <= 10, f"ended after {wall:.1f} s, expected 3 to 10 s")
        return f"exit 4 after {wall:.1f} s"

    def metadata_trickle():
        # The page is quick; its PEP 658 .metadata file trickles: a page too.
        server.requests.clear()
        work.serve_wheel()
        work.serve_page(html(work.good_link()))
        metadata_path = WHEEL_PATH + ".metadata"

        def respond(h):
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Content-Length", str(len(METADATA) * 1000))
            h.end_headers()
            h.trickle(METADATA)
        server.routes[metadata_path] = respond
        result, wall = timed(lambda: work.resolve("--page-timeout", "3"))
        check_error(result, 4, re.escape(server.url(metadata_path)), r"longer than 3 s in all",
                    r"--page-timeout")
        check(3 <= wall <= 10, f"ended after {wall:.1f} s, expected 3 to 10 s")
        check(page_requests(metadata_path) == 1,
              f"{page_requests(metadata_path)} requests for the .metadata")
        work.serve_wheel()
        return f"exit 4 after {wall:.1f} s"

    def slow_page_within_limit():
        # The control: a page that takes about 2 s (a chunk every 0.5 s) within a 6 s
        # limit is read whole.
        page = html(work.good_link())
        pieces = [page[i:i + len(page) // 4 + 1] for i in range(0, len(page), len(page) // 4 + 1)]

        def respond(h):
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", str(len(page)))
            h.end_headers()
            for piece in pieces:
                h.send(piece)
                time.sleep(0.5)
        server.routes[PAGE_PATH] = respond
        result, wall = timed(lambda: work.resolve("--no-deps", "--page-timeout", "6",
                                                  "--format", "json"))
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        return f"resolved in {wall:.1f} s"

    def fetch(expect, *extra, patterns=()):
        before = snapshot(work.root)
        result, dest = work.fetch(*extra)
        if expect == 0:
            check(result.returncode == 0, result.describe())
            check((dest / WHEEL_NAME).read_bytes() == work.wheel, "the fetched wheel differs")
        else:
            check_error(result, expect, *patterns)
            left = sorted(p.name for p in dest.iterdir()) if dest.exists() else []
            check(not [n for n in left if n.startswith("torch")],
                  f"the wheel, its .part or its sidecar left for a resume: {left}")
        check_unchanged(before, snapshot(work.root),
                        allowed=[rf"{d.name}(/.*)?" for d in work.last])
        return result

    wheel_url = r"127\.0\.0\.1:\d+/files/torch-2\.6\.0"

    def wheel_endless_no_size():
        # An HTML page gives no size, the chunked body none either; an ETag makes a
        # resume sidecar that must go with the .part.
        work.serve_page(html(work.good_link()))
        block = os.urandom(1 << 16)
        server.sent.clear()
        server.routes[WHEEL_PATH] = lambda h: h.chunked(
            200, [work.wheel] + [block] * (4 << 10), headers=[("ETag", '"endless"')])
        fetch(4, "--max-download-size", "1M",
              patterns=(wheel_url, r"past --max-download-size \(1\.0 MiB\)",
                        r"hint: .*--max-download-size"))
        sent = server.sent.get(WHEEL_PATH, 0)
        check(sent < 64 * MIB, f"{sent} bytes went out before wheelmod stopped")
        return f"stopped after {sent / MIB:.1f} MiB"

    def wheel_announced_over_cap():
        # Content-Length above the cap: refused when the headers are in, before the
        # body is written.
        work.serve_page(html(work.good_link()))
        size = 96 * MIB
        block = os.urandom(1 << 16)

        def respond(h):
            h.send_response(200)
            h.send_header("Content-Type", "application/octet-stream")
            h.send_header("Content-Length", str(size))
            h.send_header("ETag", '"big"')
            h.end_headers()
            for _ in range(size // len(block)):
                h.send(block)
        server.sent.clear()
        server.routes[WHEEL_PATH] = respond
        fetch(4, "--max-download-size", "1M",
              patterns=(wheel_url, rf"announces {size} bytes, more than --max-download-size",
                        r"not downloaded"))
        sent = server.sent.get(WHEEL_PATH, 0)
        check(sent < 32 * MIB, f"{sent} bytes of {size} went out before wheelmod stopped")
        return f"stopped after {sent / MIB:.1f} MiB"

    def wheel_listed_over_cap():
        # A JSON page that lists a size above the cap: no request for the wheel at all.
        files = [{"filename": WHEEL_NAME, "url": WHEEL_PATH, "size": 2 * MIB,
                  "hashes": {"sha256": sha256(work.wheel)}}]
        work.serve_page(json.dumps({"meta": {"api-version": "1.1"}, "name": "torch",
                                    "files": files}).encode(), JSON_TYPE)
        work.serve_wheel()
        server.requests.clear()
        fetch(4, "--max-download-size", "1M",
              patterns=(wheel_url, rf"index says {2 * MIB} bytes, more than --max-download-size"))
        check(not any(r["path"] == WHEEL_PATH for r in server.requests), "the wheel was requested")

    def wheel_at_cap():
        # The control: a chunked wheel of exactly the cap (256 KiB) is fetched.
        work.serve_page(html(work.good_link()))
        server.routes[WHEEL_PATH] = lambda h: h.chunked(200, [work.wheel])
        check(len(work.wheel) == 256 * 1024, "the fixture's wheel is no longer 256 KiB")
        fetch(0, "--max-download-size", "256K")

    def zero(command, option, value):
        cache, dest = work.fresh()
        args = [command, "torch==2.6.0", "--index", server.url("/simple/"), *TARGET,
                "--cache-dir", str(cache), option, value]
        if command == "fetch":
            args += ["--dest", str(dest)]
        if command == "mirror":
            args = [command, str(work.root / "absent.yaml"), "--dest", str(dest), option, value]
        server.requests.clear()
        result = suite.wheelmod_run(*args, timeout=30)
        check_error(result, 2, re.escape(option))
        check(not cache.exists() and not dest.exists(), "a usage error wrote something")
        check(not server.requests, "a usage error reached the network")
        return f"exit 2: {result.stderr.splitlines()[0][-60:]}"

    cases = [("page_trickle_page_timeout_3", page_trickle),
             ("page_trickle_fetch_stall_timeout_2", page_trickle_through_fetch),
             ("page_headers_trickle", header_trickle),
             ("metadata_trickle", metadata_trickle),
             ("control_slow_page_within_limit", slow_page_within_limit),
             ("wheel_endless_without_size", wheel_endless_no_size),
             ("wheel_content_length_over_cap", wheel_announced_over_cap),
             ("wheel_index_size_over_cap", wheel_listed_over_cap),
             ("control_wheel_exactly_at_cap", wheel_at_cap)]
    cases += [(f"{command} {option} {value}", lambda c=command, o=option, v=value: zero(c, o, v))
              for command, option, value in (("resolve", "--page-timeout", "0"),
                                             ("fetch", "--page-timeout", "0"),
                                             ("mirror", "--page-timeout", "0"),
                                             ("fetch", "--max-download-size", "0"),
                                             ("fetch", "--max-download-size", "-1"),
                                             ("fetch", "--max-download-size", "1.5G"),
                                             ("fetch", "--max-download-size", "64X"))]
    return suite.run_all(cases, work,
                         "a page, its headers or a .metadata file trickled at 2 bytes/s ended by "
                         "--page-timeout (exit 4, one request, within the limit plus a few s); a "
                         "slow page within it read; a wheel past --max-download-size without a "
                         "size stopped within a few MiB, one announced or listed above it refused, "
                         "nothing left to resume (exit 4); 0 and bad sizes exit 2")


GROUPS = {"redirects": redirects, "lengths": lengths, "slow": slow}
# What CTest needs to run each group (`--list`, read by tests/hostile/CMakeLists.txt);
# slow: pages trickled until --page-timeout (3-5 s each), ~20 s in all.
CTEST = {"*": {"timeout": 120}}

if __name__ == "__main__":
    sys.exit(main_with_groups(__doc__.splitlines()[0], GROUPS, ctest=CTEST))
