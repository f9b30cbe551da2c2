"""The peer of bench_index_parse: the same work done the way pip does it.

pip's index reader (pip/_internal/index/collector.py) subclasses
html.parser.HTMLParser to collect every <a>'s attributes and the first
<base href>, joins each href with urllib.parse.urljoin, cleans the URL path,
reads the #<hash> fragment and the data-* attributes into a Link; then
packaging.utils.parse_wheel_filename, packaging.tags and
packaging.specifiers pick the candidates (pip/_internal/index/
package_finder.py). This script does that with python3-packaging, and
prints the same key=value lines as the C++ program, so the driver can
check that both chose the same wheel. parse_ms: the page into links;
select_ms: the target's tags, every wheel name, the best wheel.

Run with Debian's /usr/bin/python3 (python3-packaging 23.0).
"""

import argparse
import posixpath
import re
import sys
import time
import urllib.parse
from html.parser import HTMLParser

from packaging import tags
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import Version

# pip's models/link.py: hashes it reads from a URL fragment.
_HASH_RE = re.compile(r"(sha512|sha384|sha256|sha224|sha1|md5)=([0-9a-f]+)")


class LinkParser(HTMLParser):
    """pip's HTMLLinkParser: the <a> attributes and the first <base href>."""

    def __init__(self, url):
        super().__init__(convert_charrefs=True)
        self.url = url
        self.base_url = None
        self.anchors = []

    def handle_starttag(self, tag, attrs):
        if tag == "base" and self.base_url is None:
            href = dict(attrs).get("href")
            if href is not None:
                self.base_url = href
        elif tag == "a":
            self.anchors.append(dict(attrs))


def clean_url(url):
    """pip's _clean_link: percent-quote the path, keeping what is quoted."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.quote(urllib.parse.unquote(parts.path))
    return urllib.parse.urlunsplit(parts._replace(path=path))


class Link:
    __slots__ = ("url", "filename", "hashes", "requires_python", "yanked", "metadata")

    def __init__(self, anchor, base_url):
        href = anchor["href"]
        url = clean_url(urllib.parse.urljoin(base_url, href))
        self.url, _, fragment = url.partition("#")
        self.filename = urllib.parse.unquote(posixpath.basename(urllib.parse.urlsplit(url).path))
        match = _HASH_RE.search(fragment)
        self.hashes = {match.group(1): match.group(2)} if match else {}
        self.requires_python = anchor.get("data-requires-python") or None
        self.yanked = anchor.get("data-yanked")
        metadata = anchor.get("data-core-metadata")
        if metadata is None:
            metadata = anchor.get("data-dist-info-metadata")
        self.metadata = metadata


def target_tags(python, arch, glibc):
    """packaging.tags.sys_tags() of a CPython `python` on a glibc `glibc`
    machine (packaging's _manylinux.platform_tags, with the glibc given)."""
    major, minor = (int(x) for x in glibc.split("."))
    legacy = {(2, 17): "manylinux2014", (2, 12): "manylinux2010", (2, 5): "manylinux1"}
    oldest = 5 if arch in ("x86_64", "i686") else 17
    platforms = []
    for m in range(minor, oldest - 1, -1):
        platforms.append(f"manylinux_{major}_{m}_{arch}")
        if (major, m) in legacy:
            platforms.append(f"{legacy[(major, m)]}_{arch}")
    platforms.append(f"linux_{arch}")
    version = tuple(int(x) for x in python.split("."))
    interpreter = f"cp{version[0]}{version[1]}"
    return list(tags.cpython_tags(version, [interpreter], platforms)) + list(
        tags.compatible_tags(version, interpreter, platforms)
    )


def main():
    parser = argparse.ArgumentParser()
    for key in ("page", "url", "project", "specifier", "python", "arch", "glibc"):
        parser.add_argument(f"--{key}", required=True)
    args = parser.parse_args()
    specifier = SpecifierSet(args.specifier)
    python = Version(args.python)
    project = canonicalize_name(args.project)

    start = time.perf_counter()
    with open(args.page, "rb") as f:
        html = f.read().decode("utf-8")
    read_ms = (time.perf_counter() - start) * 1000

    start = time.perf_counter()
    link_parser = LinkParser(args.url)
    link_parser.feed(html)  # pip's parse_links feeds the page once and never calls close()
    base_url = urllib.parse.urljoin(args.url, link_parser.base_url or "")
    links = [Link(a, base_url) for a in link_parser.anchors if a.get("href")]
    parse_ms = (time.perf_counter() - start) * 1000

    start = time.perf_counter()
    supported = target_tags(args.python, args.arch, args.glibc)
    rank = {tag: i for i, tag in enumerate(supported)}
    wheels = 0
    candidates = 0
    best = None
    for link in links:
        if not link.filename.endswith(".whl"):
            continue
        try:
            name, version, build, wheel_tags = parse_wheel_filename(link.filename)
        except InvalidWheelFilename:
            continue
        wheels += 1
        if name != project or link.yanked is not None:
            continue
        if link.requires_python:
            try:
                if not SpecifierSet(link.requires_python).contains(python, prereleases=True):
                    continue
            except InvalidSpecifier:
                pass
        if not specifier.contains(version):
            continue
        ranks = [rank[t] for t in wheel_tags if t in rank]
        if not ranks:
            continue
        candidates += 1
        key = (version, -min(ranks), build)
        if best is None or key > best[0]:
            best = (key, link.filename)
    select_ms = (time.perf_counter() - start) * 1000

    print(f"links={len(links)}\nwheels={wheels}\nsupported_tags={len(supported)}")
    print(f"candidates={candidates}\nbest={best[1] if best else ''}")
    print(f"read_ms={read_ms:.3f}\nparse_ms={parse_ms:.3f}\nselect_ms={select_ms:.3f}")
    print(f"work_ms={parse_ms + select_ms:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
