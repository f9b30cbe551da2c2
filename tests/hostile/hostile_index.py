#!/usr/bin/env python3
"""A hostile index on 127.0.0.1, through `wheelmod resolve` and `wheelmod fetch`.

    hostile_index.py --wheelmod BIN GROUP [--links N]

The index is index_fixture.Work (a real HTTP/1.1 server in a thread) with
one torch wheel that fits the target among whatever a case adds. Every run
asserts the exit code and the one error paragraph, that nothing appears or
changes in the work root but what the case allows (its --cache-dir and
--dest), and a peak RSS bound.

Groups:
  pages        huge pages: N links (default 100,000; --links 1000000 for the
               full measurement), a 100 MB attribute value, a page that never
               ends, a gzip bomb
  credentials  user:secret@ in --index: the secret never printed, in text,
               JSON, or any error, nor stored in the cache or the destination
  names        wheel names holding shell code or control bytes: never chosen,
               fetched or printed raw, and noted
  text         control bytes in METADATA (Summary, requirement URLs: ESC, NUL,
               C1) and in an --index URL: escaped in resolve's text, Markdown
               and JSON, in easyconfig comments (UTF-8 Python ast parses), and
               in errors
(redirects and lengths: hostile_transfers.py)
"""
import ast
import base64
import json
import os
import re
import sys
import zlib
from pathlib import Path

from hostile_server import closed_port
from hostile_support import MIB, Suite, check, check_error, main_with_groups
from index_fixture import (CAPPED_BUDGET_MIB, JSON_TYPE, METADATA, PAGE_CAP, PAGE_PATH, SECRET,
                           TARGET, WHEEL_NAME, WHEEL_PATH, Work, html, link, quiet_asan, sha256,
                           torch_wheel)


# --- pages --------------------------------------------------------------------------------------

def pages(args):
    suite = Suite(args.wheelmod, "huge and endless index pages", "wheelmod resolve torch --index URL")
    work = Work(suite)
    env = quiet_asan()

    def many_links():
        # The wheel that fits, then N that do not (win32): all parsed, one chosen.
        others = "".join(f'<a href="/f/torch-0.{i}-py3-none-win32.whl">x</a>\n'
                         for i in range(args.links))
        page = html(work.good_link(), others)
        work.serve_page(page)
        # Bound: the page (its body and the parser's input) twice, plus 1 KiB a link.
        # The page is read without a tree into index::Links (about 100 bytes a link here,
        # its URL included); most of the rest is the resolver's list of files that do not
        # fit, with why (index_client::CandidateSet::rejected). Measured, release build:
        # 100,000 links (4.9 MiB) 56 MiB, 1,000,000 links (50 MiB) 412 MiB. With gumbo's
        # tree and a std::vector<Link> it was 1.4 KiB a link, 1.37 GB for 1,000,000.
        budget = 2 * len(page) // MIB + args.links // 1024 + 64
        result = work.resolve("--no-deps", "--format", "json", budget=budget, env=env, timeout=280)
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        return f"{args.links} links ({len(page) / MIB:.0f} MiB): {result.peak_rss_mib:.0f} MiB"

    def huge_attribute():
        value = "A" * (100 * 1000 * 1000)
        page = html(link(f"{WHEEL_PATH}#sha256={sha256(work.wheel)}", f' data-junk="{value}"'))
        work.serve_page(page)
        # Bound: 4x the page + 64 MiB. The body (a string grown by doubling), the
        # parser's copy of the value (grown the same way): ~3.3x measured, release
        # and ASan without quarantine alike. A fifth copy fails it.
        result = work.resolve("--no-deps", "--format", "json", budget=4 * len(page) // MIB + 64,
                              env=env)
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        return f"{len(page) / MIB:.0f} MiB page: {result.peak_rss_mib:.0f} MiB"

    def endless():
        # Regression case (src/net/http_transport.cpp): a page body had no limit, so a
        # server that never ends its chunked body took memory until the OOM killer.
        def forever(h):
            block = link("/f/torch-0.0-py3-none-win32.whl").encode() * 4096
            h.chunked(200, iter(lambda: block, None), content_type="text/html")
        work.server.routes[PAGE_PATH] = forever
        work.server.sent.clear()  # counted per path, across cases
        result = work.resolve("--no-deps", budget=CAPPED_BUDGET_MIB, env=env)
        check_error(result, 4, r"larger than 256 MiB", r"127\.0\.0\.1")
        sent = work.server.sent.get(PAGE_PATH, 0)
        check(sent < PAGE_CAP + 64 * MIB, f"the server got {sent} bytes out before wheelmod stopped")
        return f"stopped after {sent / MIB:.0f} MiB sent, {result.peak_rss_mib:.0f} MiB"

    def gzip_bomb():
        # 1 GiB of spaces deflated to ~1 MiB: the cap counts decoded bytes.
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip wrapper
        chunk = b" " * MIB
        body = b"".join(compressor.compress(chunk) for _ in range(1024)) + compressor.flush()
        work.serve_page(body, headers=[("Content-Encoding", "gzip")])
        result = work.resolve("--no-deps", budget=CAPPED_BUDGET_MIB, env=env)
        check_error(result, 4, r"larger than 256 MiB")
        return f"{len(body) / MIB:.1f} MiB gzip refused, {result.peak_rss_mib:.0f} MiB"

    def json_nesting(where):
        # 1,000,000 nested arrays in a PEP 691 page, beside the real file or as its filename: a
        # parser, a message that dumps the value, or a destructor that recurses per level would
        # overflow the stack (SIGSEGV). The nesting is refused before parsing (64 levels, far
        # deeper than PEP 691's 4): exit 5 naming the byte, memory flat.
        depth = 1_000_000
        deep = b"[" * depth + b"]" * depth
        files = [{"filename": WHEEL_NAME, "url": WHEEL_PATH,
                  "hashes": {"sha256": sha256(work.wheel)}}]
        body = json.dumps({"meta": {"api-version": "1.1"}, "name": "torch", "files": files})
        if where == "beside":
            body = body[:-1].encode() + b', "x": ' + deep + b"}"
        else:
            body = body.replace(json.dumps(WHEEL_NAME), "@DEEP@", 1).encode().replace(b"@DEEP@",
                                                                                      deep)
        work.serve_page(body, JSON_TYPE)
        result = work.resolve("--no-deps", "--format", "json", budget=64, env=env)
        check_error(result, 5, r"nested deeper than 64 levels")
        return f"depth {depth} {where} the file: exit 5, {result.peak_rss_mib:.0f} MiB"

    def html_nesting():
        # 100,000 unclosed <div>s around the link: no tree is built (an HTML5 parser's tree
        # would be that deep).
        depth = 100_000
        page = html("<div>" * depth, work.good_link())
        work.serve_page(page)
        result = work.resolve("--no-deps", "--format", "json", budget=depth // 1024 + 64, env=env)
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        return f"depth {depth}: {result.peak_rss_mib:.0f} MiB"

    cases = [("links", many_links), ("attribute_100mb", huge_attribute),
             ("json_nesting_1m", lambda: json_nesting("beside")),
             ("json_nesting_1m_in_filename", lambda: json_nesting("filename")),
             ("html_nesting_100k", html_nesting),
             ("endless_page", endless), ("gzip_bomb", gzip_bomb)]
    return suite.run_all(cases, work,
                         f"a page of {args.links} links, one with a 100 MB attribute, JSON nested "
                         "1,000,000 deep and HTML 100,000 deep parsed (the fitting wheel chosen) "
                         "within their bounds; an endless page and a "
                         "gzip bomb stopped at 256 MiB with exit 4")


# --- credentials ------------------------------------------------------------------------------

def leaks(text):
    return SECRET in text or SECRET.replace("-", "%2D") in text


def check_no_secret(result, directories, bodies=True):
    """The password appears nowhere: not on stdout or stderr, not in any file the run
    wrote (its --cache-dir and --dest); `bodies=False` skips cached page bodies (a
    page that itself holds credentials is stored as the server sent it)."""
    check(not leaks(result.stdout) and not leaks(result.stderr),
          f"the password is printed in clear\n{result.describe()}")
    for directory in directories:
        for path in Path(directory).rglob("*"):
            if path.is_file() and not path.is_symlink() and (bodies or path.suffix != ".body"):
                check(SECRET.encode() not in path.read_bytes(),
                      f"the password is stored in clear in {path}")


def credentials(args):
    suite = Suite(args.wheelmod, "credentials in index URLs",
                  "wheelmod resolve/fetch/install --index http://user:secret@127.0.0.1:PORT/simple/")
    work = Work(suite)
    server = work.server
    index = server.url("/simple/", credentials=f"user:{SECRET}")

    token = "Basic " + base64.b64encode(f"user:{SECRET}".encode()).decode()

    def used_credentials():
        # The last request for the page carried the real password.
        pages = [r for r in server.requests if r["path"] == PAGE_PATH]
        check(pages and pages[-1]["authorization"] == token,
              f"the page was not asked for with the credentials: {pages[-1:]}")

    def fetch_authenticated():
        # The wheel, like the page, needs the credentials (401 without them).
        work.serve_page(html(work.good_link()))
        def wheel(h):
            if h.headers.get("Authorization") != token:
                h.respond(401, b"credentials needed\n", headers=[("WWW-Authenticate", "Basic")])
            else:
                h.respond(200, work.wheel, "application/octet-stream")
        server.routes[WHEEL_PATH] = wheel
        try:
            result, dest = work.fetch(index=index)
            check_no_secret(result, work.last)
            check(result.returncode == 0 and (dest / WHEEL_NAME).read_bytes() == work.wheel,
                  f"fetch from an index that needs credentials failed\n{result.describe()}")
        finally:
            work.serve_wheel()

    cached = [("ETag", '"v1"'), ("Last-Modified", "Tue, 01 Dec 2026 00:00:00 GMT")]

    def resolve_json():
        # With validators the page goes into the HTTP cache, with its URL.
        work.serve_page(html(work.good_link()), headers=cached)
        result = work.resolve("--format", "json", "--no-deps", index=index)
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        report = json.loads(result.stdout)
        check("user:***@" in report["index"], f"index not masked: {report['index']}")
        check_no_secret(result, work.last)
        used_credentials()

    def cache_hit_keeps_credentials():
        # The second run revalidates the cached page (304): its links must still
        # carry the credentials the wheel needs, though the cache holds none.
        work.serve_page(html(work.good_link()), headers=cached)
        first = work.resolve("--format", "json", "--no-deps", index=index)
        check(first.returncode == 0, first.describe())
        cache = work.last[0]
        server.requests.clear()
        work.serve_wheel()
        _, dest = work.fresh()
        result = work.suite.wheelmod_run("fetch", "torch", "--index", index, *TARGET, "--no-deps",
                                         "--cache-dir", str(cache), "--dest", str(dest))
        work.last = (cache, dest)
        check(result.returncode == 0, result.describe())
        check((dest / WHEEL_NAME).read_bytes() == work.wheel, "the fetched wheel differs")
        check(any(r["path"] == PAGE_PATH for r in server.requests), "the page was not revalidated")
        used_credentials()
        check_no_secret(result, work.last)

    def interrupted_fetch_sidecar():
        # A download cut off leaves NAME.part and its resume sidecar in --dest.
        # Regression case (src/net/part_file.cpp): the sidecar held the URL in clear.
        work.serve_page(html(work.good_link()))
        def cut(h):
            h.send_response(200)
            h.send_header("Content-Length", str(len(work.wheel)))
            h.send_header("ETag", '"w1"')
            h.end_headers()
            h.send(work.wheel[:len(work.wheel) // 2])
            h.close_connection = True
        server.routes[WHEEL_PATH] = cut
        result, dest = work.fetch(index=index, retries="1")
        check_error(result, 4)
        check(any(p.name.endswith(".part.json") for p in dest.iterdir()),
              f"no resume sidecar in {sorted(p.name for p in dest.iterdir())}")
        check(not (dest / WHEEL_NAME).exists(), "a cut wheel is at its final name")
        check_no_secret(result, work.last)
        work.serve_wheel()
        result = work.suite.wheelmod_run("fetch", "torch", "--index", index, *TARGET, "--no-deps",
                                         "--cache-dir", str(work.last[0]), "--dest", str(dest))
        check(result.returncode == 0 and (dest / WHEEL_NAME).read_bytes() == work.wheel,
              f"the resumed fetch failed\n{result.describe()}")
        check(server.requests[-1]["range"] == f"bytes={len(work.wheel) // 2}-",
              f"not resumed from the sidecar: {server.requests[-1]}")
        check_no_secret(result, work.last)

    def resolve_text_and_markdown():
        work.serve_page(html(work.good_link()))
        for form in ("text", "markdown"):
            result = work.resolve("--format", form, "--no-deps", index=index)
            check(result.returncode == 0, result.describe())
            check_no_secret(result, work.last)

    def absolute_links_with_credentials():
        # The page itself links to wheels with other credentials in their URLs.
        other = server.url("", credentials=f"mirror:{SECRET}")
        work.serve_page(html(work.good_link(base=other)), headers=cached)
        result = work.resolve("--format", "json", "--no-deps", index=index)
        check(work.chosen(result) == [WHEEL_NAME], result.describe())
        check_no_secret(result, work.last, bodies=False)

    def failures():
        # Each failure names the URL: masked in every one.
        outcomes = []
        server.routes.pop(PAGE_PATH, None)  # 404: no torch page (exit 3)
        result = work.resolve("--no-deps", index=index)
        check_error(result, 3)
        check_no_secret(result, work.last)
        outcomes.append(3)
        server.routes[PAGE_PATH] = lambda h: h.respond(503, b"down\n", headers=[("Retry-After", "0")])
        result = work.resolve("--no-deps", index=index)
        check_error(result, 4, r"user:\*\*\*@127\.0\.0\.1")
        check_no_secret(result, work.last)
        outcomes.append(4)
        refused = f"http://user:{SECRET}@127.0.0.1:{closed_port()}/simple/"
        result = work.resolve("--no-deps", index=refused)
        check_error(result, 4)
        check_no_secret(result, work.last)
        server.routes[PAGE_PATH] = lambda h: h.redirect("file:///etc/passwd")
        result = work.resolve("--no-deps", index=index)
        check_error(result, 4)
        check_no_secret(result, work.last)
        server.routes[PAGE_PATH] = lambda h: h.respond(200, b"{not json", JSON_TYPE)
        result = work.resolve("--no-deps", index=index)
        check(result.returncode in (4, 5), result.describe())
        check_error(result, result.returncode)
        check_no_secret(result, work.last)
        return "404, 503, refused, redirect, bad JSON: all masked"

    def fetch_mismatch_and_json():
        work.serve_wheel()
        work.serve_page(html(link(f"{WHEEL_PATH}#sha256={'0' * 64}")))
        result, dest = work.fetch(index=index)
        check_error(result, 5, r"user:\*\*\*@|torch-2\.6\.0")
        check_no_secret(result, work.last)
        check(not (dest / WHEEL_NAME).exists(), "a wheel with the wrong hash is at its final name")
        work.serve_page(html(work.good_link()))
        result, dest = work.fetch("--format", "json", index=index)
        check(result.returncode == 0, result.describe())
        check((dest / WHEEL_NAME).read_bytes() == work.wheel, "the fetched wheel differs")
        check_no_secret(result, work.last)

    def install_with_credentials():
        # install records the index it used in the prefix (easybuild/wheelmod-install.json).
        real = torch_wheel()
        work.serve_page(html(link(f"{WHEEL_PATH}#sha256={sha256(real)}")))
        server.routes[WHEEL_PATH] = lambda h: h.respond(200, real, "application/octet-stream")
        cache, _ = work.fresh()
        prefix = work.root / "software" / "PyTorch"
        try:
            result = work.suite.wheelmod_run(
                "install", "torch==2.6.0", "--index", index, *TARGET, "--no-deps", "--cache-dir",
                str(cache), "--prefix", str(prefix), "--no-compile", "--format", "json",
                rss_budget_mib=64)
        finally:
            work.serve_wheel()
        check(result.returncode == 0, result.describe())
        provenance = json.loads((prefix / "easybuild" / "wheelmod-install.json").read_text())
        check("user:***@" in provenance.get("index", ""), f"index not masked: {provenance}")
        check_no_secret(result, (cache, prefix))

    cases = [("resolve_json", resolve_json), ("cache_hit", cache_hit_keeps_credentials),
             ("install_json_and_prefix", install_with_credentials),
             ("interrupted_fetch_sidecar", interrupted_fetch_sidecar),
             ("resolve_text_markdown", resolve_text_and_markdown),
             ("page_links_with_credentials", absolute_links_with_credentials),
             ("failures", failures), ("fetch_mismatch_and_json", fetch_mismatch_and_json),
             ("fetch_from_authenticated_index", fetch_authenticated)]
    return suite.run_all(cases, work,
                         "user:secret@ sent as Basic auth, printed as user:***@ in text, markdown, "
                         "JSON and every error (404, 503, refused, redirect, bad page, hash "
                         "mismatch); never stored in the cache, the destination or the prefix")


# --- names -------------------------------------------------------------------------------------

# File names packaging accepts (any text after a build tag's digits, after a dot of a compressed
# tag set) that a shell would run: EasyBuild's PythonPackage runs `pip install ... <file>`
# through bash unquoted. Each sorts before the good wheel (a build tag wins; equal tags, the
# page's first), so before the charset check resolve chose it.
SHELL_NAMES = [
    "torch-2.6.0+cpu-1$(touch PWNED)-cp311-cp311-linux_x86_64.whl",
    "torch-2.6.0+cpu-1`touch PWNED`-cp311-cp311-linux_x86_64.whl",
    "torch-2.6.0+cpu-1;touch PWNED;-cp311-cp311-linux_x86_64.whl",
    "torch-2.6.0+cpu-cp311-cp311-linux_x86_64.$(touch PWNED).whl",
    "torch-2.6.0+cpu-1\x1b]0;owned\x07-cp311-cp311-linux_x86_64.whl",
    "torch-2.6.0+cpu-1%(installdir)s-cp311-cp311-linux_x86_64.whl",
]


def names(args):
    from urllib.parse import quote
    suite = Suite(args.wheelmod, "wheel file names that would reach a shell",
                  "wheelmod resolve/fetch torch --index URL (a page listing shell code in names)")
    work = Work(suite)

    def one(name, quoted=None):
        def case():
            path = "/files/" + (quoted or quote(name, safe="+"))
            work.serve_wheel(path)
            work.serve_page(html(link(f"{path}#sha256={sha256(work.wheel)}",
                                      f' data-dist-info-metadata="sha256={sha256(METADATA)}"'),
                                 work.good_link()))
            result = work.resolve("--format", "json", "--no-deps")
            check(work.chosen(result) == [WHEEL_NAME], f"chose {work.chosen(result)}")
            notes = json.loads(result.stdout)["notes"]
            check(any("skipped: its name holds" in note for note in notes), f"no note: {notes}")
            check(not any(ord(c) < 0x20 for note in notes for c in note), f"raw control bytes: {notes}")
            text = work.resolve("--no-deps")
            check(text.returncode == 0 and "\x1b" not in text.stdout + text.stderr,
                  f"raw escape on the terminal: {text.describe()}")
            fetched, dest = work.fetch()
            stored = sorted(n for n in os.listdir(dest) if not n.startswith(".wheelmod-")) \
                if dest.exists() else None
            check(fetched.returncode == 0 and stored == [WHEEL_NAME], f"fetched {stored}\n{fetched.describe()}")
            check(not any(p.name == "PWNED" for p in work.top.rglob("PWNED")), "PWNED was created")
        return case

    cases = [(name.encode("unicode_escape").decode()[:60], one(name)) for name in SHELL_NAMES]
    # Bytes that are not UTF-8 (%FF %FE): JSON output once ended in "internal error" (exit 1).
    cases.append(("not UTF-8 (%FF%FE in the build tag)",
                  one(None, "torch-2.6.0%2Bcpu-1%FF%FE-cp311-cp311-linux_x86_64.whl")))
    return suite.run_all(cases, work, "never chosen, fetched or printed raw; noted")


# --- text ---------------------------------------------------------------------------------------

# METADATA whose Summary and requirements hold terminal escapes (a title change, a screen clear),
# a NUL and a line break's worth of control bytes: accepted by the requirement parser as URL
# text, then printed, reported and written into easyconfig comments.
HOSTILE_METADATA = (
    b"Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0+cpu\n"
    b"Summary: tensors \x1b]0;owned\x07 and \x1b[2J done\n"
    b"Requires-Dist: evil @ https://example.org/\x1b[2J/evil-1.0-py3-none-any.whl\n"
    b"Requires-Dist: nul @ https://example.org/a\x00b/nul-1.0-py3-none-any.whl\n"
    b"Requires-Dist: bell @ https://example.org/\x07\x7f\xc2\x9b31m/bell-1.0-py3-none-any.whl\n")
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def text(args):
    suite = Suite(args.wheelmod, "control bytes in METADATA and URLs, on terminals and in files",
                  "wheelmod resolve (text, markdown, json) / easyconfig --write-unmet / errors")
    work = Work(suite)
    python = ("--python", "3.12")
    target = [*TARGET]
    target[target.index("--python") + 1] = "3.12"
    name = "torch-2.6.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"
    path = "/files/" + name.replace("+", "%2B")
    wheel = torch_wheel()
    work.server.routes[path] = lambda h: h.respond(200, wheel, "application/octet-stream")
    work.server.routes[path + ".metadata"] = lambda h: h.respond(200, HOSTILE_METADATA, "text/plain")
    work.serve_page(html(link(f"{path}#sha256={sha256(wheel)}",
                              f' data-dist-info-metadata="sha256={sha256(HOSTILE_METADATA)}"')))
    index = work.server.url("/simple/")

    def no_raw_control(result):
        for stream, shown in (("stdout", result.stdout), ("stderr", result.stderr)):
            found = RAW_CONTROL.search(shown)
            check(found is None, f"a raw control character {found and found.group()!r} on {stream}:"
                                 f" {result.describe()}")

    def resolve_formats():
        for form in ("text", "markdown", "json"):
            result = suite.wheelmod_run("resolve", "torch", "--index", index, *target,
                                        "--cache-dir", str(work.fresh()[0]), "--format", form,
                                        rss_budget_mib=96)
            check(result.returncode == 0, result.describe())
            no_raw_control(result)
            check("\\x1b[2J" in result.stdout or "\\u001b[2J" in result.stdout,
                  f"the requirement is not shown escaped: {result.stdout[-600:]}")
            if form == "json":
                report = json.loads(result.stdout)
                requirements = [d["requirement"] for w in report["wheels"] for d in w["dependencies"]]
                check(any("\x00" in r for r in requirements), f"JSON lost the NUL: {requirements}")

    def easyconfig_comments():
        out = work.root / "easyconfigs"
        result = suite.wheelmod_run("easyconfig", "torch", "--index", index,
                                    *[a for a in target if a not in python],
                                    "--cache-dir", str(work.fresh()[0]), "--output-dir", str(out),
                                    "--write-unmet", rss_budget_mib=160)
        check(result.returncode == 0, result.describe())
        no_raw_control(result)
        files = sorted(out.glob("*.eb"))
        check(files, f"no easyconfig written: {result.describe()}")
        for file in files:
            data = file.read_bytes()
            source = data.decode("utf-8")  # a non-UTF-8 .eb stops eb before it parses anything
            found = RAW_CONTROL.search(source)
            check(found is None, f"{file.name}: raw {found and found.group()!r}")
            ast.parse(source, str(file))  # EasyBuild reads an easyconfig as Python
            check("evil" in source and "\\x1b" in source, f"{file.name}: unmet list lost")

    def error_messages():
        bad = work.server.url("/simple/") + "\x1b]0;owned\x07/"
        result = suite.wheelmod_run("resolve", "torch", "--index", bad, *target,
                                    "--cache-dir", str(work.fresh()[0]))
        check(result.returncode not in (0, 1), result.describe())
        no_raw_control(result)
        check("\\x1b]0;owned\\x07" in result.stderr, result.describe())

    cases = [("resolve_text_markdown_json", resolve_formats),
             ("easyconfig_comments", easyconfig_comments), ("error_messages", error_messages)]
    return suite.run_all(cases, work, "shown as \\xNN (JSON \\u00NN), never raw; the .eb is UTF-8 Python")


GROUPS = {"pages": pages, "credentials": credentials, "names": names, "text": text}
# What CTest needs to run each group (`--list`, read by tests/hostile/CMakeLists.txt).
# pages: 100,000 links, a 100 MB attribute, 256 MiB cut-offs (~25 s under ASan; the
# reliability report's 1,000,000 links take ~110 s more).
CTEST = {"pages": {"timeout": 600}, "credentials": {"timeout": 240}, "names": {"timeout": 240},
         "text": {"timeout": 240}}


def main():
    # 100,000 in the suite (~25 s under ASan); scripts/reliability-report.py
    # sets WHEELMOD_HOSTILE_LINKS=1000000 (~110 s, ~2 GiB under ASan).
    links = int(os.environ.get("WHEELMOD_HOSTILE_LINKS", "100000"))
    if "--links" in sys.argv:
        at = sys.argv.index("--links")
        links = int(sys.argv[at + 1])
        del sys.argv[at:at + 2]
    groups = {name: (lambda args, f=f: f(setattr(args, "links", links) or args))
              for name, f in GROUPS.items()}
    return main_with_groups(__doc__.splitlines()[0], groups, ctest=CTEST)


if __name__ == "__main__":
    sys.exit(main())
