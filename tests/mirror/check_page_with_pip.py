#!/usr/bin/python3
"""Reads a PEP 503 project page the way pip does and prints what pip sees.

Usage: check_page_with_pip.py PAGE [--url URL]

PAGE is an HTML file; URL is the address the page is served at (default:
its file:// URL), against which pip resolves the hrefs. Prints one JSON list
on stdout, one object per link, in page order:

  {"filename": ..., "url": ..., "hash_name": ..., "hash": ...,
   "requires_python": ..., "metadata_hash_name": ..., "metadata_hash": ...,
   "has_metadata": ..., "data_core_metadata": ..., "data_dist_info_metadata": ...}

`has_metadata` and the metadata hash are what pip's own PEP 658 logic
(Link.metadata_link) derives; the two raw attributes are as pip's HTML
parser decoded them (pip 23 reads only data-dist-info-metadata; PEP 714's
data-core-metadata is read by later releases).

Uses pip's internal modules (pip._internal.index.collector), which Debian 12
ships in python3-pip 23.0.1; run it with /usr/bin/python3.
"""

import argparse
import json
import pathlib
import sys

try:
    from pip._internal.index.collector import HTMLLinkParser, IndexContent, parse_links
except ImportError as error:  # pragma: no cover - depends on the host
    sys.exit(f"error: cannot import pip's index collector ({error})\n"
             "hint: apt-get install python3-pip, and run this with /usr/bin/python3")


def raw_anchors(content: bytes, url: str) -> list:
    """The anchors' attributes as pip's HTML parser decodes them."""
    parser = HTMLLinkParser(url)
    parser.feed(content.decode("utf-8"))
    return [anchor for anchor in parser.anchors if anchor.get("href")]


def describe(link, anchor: dict) -> dict:
    metadata = link.metadata_link()
    return {
        "filename": link.filename,
        "url": link.url_without_fragment,
        "hash_name": link.hash_name,
        "hash": link.hash,
        "requires_python": link.requires_python,
        "has_metadata": metadata is not None,
        "metadata_hash_name": metadata.hash_name if metadata is not None else None,
        "metadata_hash": metadata.hash if metadata is not None else None,
        "data_core_metadata": anchor.get("data-core-metadata"),
        "data_dist_info_metadata": anchor.get("data-dist-info-metadata"),
    }


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("page", type=pathlib.Path)
    arguments.add_argument("--url", help="the page's URL (default: its file:// URL)")
    options = arguments.parse_args()

    content = options.page.read_bytes()
    url = options.url or options.page.resolve().as_uri()
    page = IndexContent(content, "text/html", "utf-8", url, cache_link_parsing=False)
    links = list(parse_links(page))
    anchors = raw_anchors(content, url)
    if len(links) != len(anchors):
        sys.exit(f"error: {options.page}: pip made {len(links)} links "
                 f"of {len(anchors)} anchors with an href")
    json.dump([describe(link, anchor) for link, anchor in zip(links, anchors)],
              sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
