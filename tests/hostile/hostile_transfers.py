#!/usr/bin/env python3
"""Redirects and lying lengths from a hostile index on 127.0.0.1, through
`wheelmod resolve`, `fetch` and `install`.

    hostile_transfers.py --wheelmod BIN GROUP

Groups:
  redirects  302 to file://, ftp://, gopher://, dict://; a loop; for pages
             and wheels; a page that links to a local file
  lengths    Content-Length smaller or larger than what is sent; a wheel
             longer than the index's size or hash allows (fetch and install)
"""
import json
import os
import shutil
import sys

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


GROUPS = {"redirects": redirects, "lengths": lengths}

if __name__ == "__main__":
    sys.exit(main_with_groups(__doc__.splitlines()[0], GROUPS))
