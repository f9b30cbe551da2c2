"""The index pages, in the two renderings the sample needs.

Format (pytorch/test-infra s3_management/manage.py, to_simple_package_html
and gen_file_list):
per-package pages list the files at the prefix root (whl/) plus those of
the page's variant, sorted by S3 key, with `+` percent-encoded as %2B in
the href and shown literally in the link text; a #sha256= fragment when
the object has a checksum; data-dist-info-metadata and data-core-metadata
(PEP 658 + PEP 714, same value) when a .metadata object exists; lines
joined with "\\n" and no newline after the <!--TIMESTAMP n--> footer.
Dependency pages mirrored from PyPI keep PyPI's own format with absolute
links (pytorch/test-infra s3_management/update_dependencies.py).

Styles: "relative" hrefs are relative to the page, so the tree works over
file:// from any directory; "server" hrefs are root-relative (/whl/...) as
on download.pytorch.org, or absolute on the second host for the files
served from there and for the PyPI mirror.
"""

import posixpath

from . import catalogue


def project_name(dist: str) -> str:
    """The page name: lower case, '_' -> '-' (as manage.py)."""
    return dist.lower().replace("_", "-")


def _href(entry, page_dir, style, second_host):
    path = entry["path"]
    if style == "relative":
        href = posixpath.relpath(path, page_dir)
    elif entry["second_host"] or entry["location"] == "mirror":
        href = second_host.rstrip("/") + "/" + path
    else:
        href = "/" + path
    return href.replace("+", "%2B")


def _s3_link(entry, page_dir, style, second_host):
    href = _href(entry, page_dir, style, second_host)
    if entry["has_hash_on_index"]:
        href += "#sha256=" + entry["sha256"]
    attrs = ""
    if entry["data_requires_python"]:
        attrs += f' data-requires-python="{entry["data_requires_python"].replace(">", "&gt;")}"'
    if entry["has_metadata_file"]:
        value = "sha256=" + entry["metadata_sha256"]
        attrs += f' data-dist-info-metadata="{value}" data-core-metadata="{value}"'
    return f'    <a href="{href}"{attrs}>{entry["filename"]}</a><br/>'


def _s3_package_page(name, entries, page_dir, style, second_host):
    lines = ["<!DOCTYPE html>", "<html>", "  <body>", f"    <h1>Links for {name}</h1>"]
    # manage.py sorts the S3 objects by key, whose + is already %2B.
    for entry in sorted(entries, key=lambda e: e["path"].replace("+", "%2B")):
        lines.append(_s3_link(entry, page_dir, style, second_host))
    lines += ["  </body>", "</html>", f"<!--TIMESTAMP {catalogue.TIMESTAMP}-->"]
    return "\n".join(lines)


def _pypi_page(name, entries, page_dir, style, second_host):
    """A PyPI simple page as update_dependencies.py copies it (absolute
    links already, so nothing to rewrite)."""
    lines = [
        "<!DOCTYPE html>",
        "<html>",
        "  <head>",
        '    <meta name="pypi:repository-version" content="1.1">',
        f"    <title>Links for {name}</title>",
        "  </head>",
        "  <body>",
        f"    <h1>Links for {name}</h1>",
    ]
    for entry in sorted(entries, key=lambda e: e["filename"]):
        href = _href(entry, page_dir, style, second_host) + "#sha256=" + entry["sha256"]
        requires = entry["data_requires_python"].replace(">", "&gt;")
        value = "sha256=" + entry["metadata_sha256"]
        lines.append(
            f'    <a href="{href}" data-requires-python="{requires}" data-dist-info-metadata="{value}"'
            f' data-core-metadata="{value}">{entry["filename"]}</a><br />'
        )
    lines += ["  </body>", "</html>", f"<!--SERIAL {catalogue.PYPI_SERIAL}-->"]
    return "\n".join(lines) + "\n"


def _listing_page(names):
    lines = ["<!DOCTYPE html>", "<html>", "  <body>"]
    lines += [f'    <a href="{name}/">{name}</a><br/>' for name in sorted(names)]
    lines += ["  </body>", "</html>", f"<!--TIMESTAMP {catalogue.TIMESTAMP}-->"]
    return "\n".join(lines)


def page_membership(entries):
    """{page path: [entries listed on it]} for every package page.

    Directories: whl/ (the prefix root, which lists every file of a package
    in every variant, as manage.py's gen_file_list yields it) and
    whl/<variant>/ (root files + that variant's).
    """
    directories = ["whl"] + [f"whl/{v}" for v in catalogue.VARIANTS]
    pages = {}
    for directory in directories:
        variant = directory.split("/")[1] if "/" in directory else None
        for entry in entries:
            if entry["location"] == "mirror":
                on_page = True
            elif variant is None or entry["location"] == "root":
                on_page = True
            else:
                on_page = entry["variant"] == variant
            if on_page:
                page = f"{directory}/{project_name(entry['project'])}/index.html"
                pages.setdefault(page, []).append(entry)
    return pages


def render(entries, style="relative", second_host=None) -> dict[str, bytes]:
    """Every page: {path relative to the tree root: bytes}."""
    if style == "server" and not second_host:
        raise ValueError("the server style needs a second host (--second-host)")
    out = {}
    listings: dict[str, set[str]] = {}
    for page, listed in page_membership(entries).items():
        page_dir = posixpath.dirname(page)
        name = posixpath.basename(page_dir)
        if listed[0]["location"] == "mirror":
            text = _pypi_page(name, listed, page_dir, style, second_host)
        else:
            text = _s3_package_page(name, listed, page_dir, style, second_host)
        out[page] = text.encode("utf-8")
        listings.setdefault(posixpath.dirname(page_dir), set()).add(name)
    for directory, names in listings.items():
        out[f"{directory}/index.html"] = _listing_page(names).encode("utf-8")
    return dict(sorted(out.items()))
