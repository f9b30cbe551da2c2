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
    retained = [e for e in entries if e["location"] != "mirror"]
    mirrored = [e for e in entries if e["location"] == "mirror"]
    for entry in sorted(mirrored, key=lambda e: e["filename"]):
        href = _href(entry, page_dir, style, second_host) + "#sha256=" + entry["sha256"]
        # PyPI leaves data-requires-python out where the file has none (mpmath 1.3.0).
        requires = entry["data_requires_python"]
        requires = f' data-requires-python="{requires.replace(">", "&gt;")}"' if requires else ""
        value = "sha256=" + entry["metadata_sha256"]
        lines.append(
            f'    <a href="{href}"{requires} data-dist-info-metadata="{value}"'
            f' data-core-metadata="{value}">{entry["filename"]}</a><br />'
        )
    # Files the index still hosts itself, appended after the upstream links
    # with root-relative hrefs (update_dependencies.py append_retained_wheels).
    for entry in sorted(retained, key=lambda e: e["filename"]):
        href = _href(entry, page_dir, style, second_host) + "#sha256=" + entry["sha256"]
        lines.append(f'    <a href="{href}">{entry["filename"]}</a><br/>')
    lines += ["  </body>", "</html>", f"<!--SERIAL {catalogue.PYPI_SERIAL}-->"]
    return "\n".join(lines) + "\n"


def _listing_page(names):
    lines = ["<!DOCTYPE html>", "<html>", "  <body>"]
    lines += [f'    <a href="{name}/">{name}</a><br/>' for name in sorted(names)]
    lines += ["  </body>", "</html>", f"<!--TIMESTAMP {catalogue.TIMESTAMP}-->"]
    return "\n".join(lines)


def directories_of(entry):
    """The directories whose package page lists the entry.

    whl/ (the prefix root) lists every file of a package in every variant,
    as manage.py's gen_file_list yields it; whl/<variant>/ the root files and
    that variant's. A mirrored page is one page copied into the directories
    it targets (all by default). The legacy directories and the variant
    prefix list only their own files (manage_v2.py skips the former and
    indexes the latter as a prefix of its own).
    """
    every = ["whl"] + [f"whl/{v}" for v in catalogue.VARIANTS]
    if entry["location"] == "mirror":
        targets = entry.get("targets")
        return every if targets is None else ["whl"] + [f"whl/{v}" for v in targets]
    if entry["location"] == "root":
        return every
    variant = entry["variant"]
    if variant in catalogue.LEGACY_DIRECTORIES or variant == catalogue.VARIANT_PREFIX:
        return [f"whl/{variant}"]
    return ["whl", f"whl/{variant}"]


def page_membership(entries):
    """{page path: [entries listed on it]} for every package page."""
    directories = ["whl"] + [f"whl/{v}" for v in catalogue.VARIANTS]
    directories += [f"whl/{d}" for d in catalogue.LEGACY_DIRECTORIES + (catalogue.VARIANT_PREFIX,)]
    pages = {}
    for directory in directories:
        for entry in entries:
            if directory in directories_of(entry):
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
        if any(e["location"] == "mirror" for e in listed):
            text = _pypi_page(name, listed, page_dir, style, second_host)
        else:
            text = _s3_package_page(name, listed, page_dir, style, second_host)
        out[page] = text.encode("utf-8")
        listings.setdefault(posixpath.dirname(page_dir), set()).add(name)
    # The prefix root also lists its sub-directories: manage_v2.py's
    # to_simple_packages_html adds every <name>/index.html it finds below the
    # prefix, so /whl/ names cpu/, cu126/, ..., variant/, cpu-cxx11-abi/ as if
    # they were projects (which is how a client can read the variants).
    subdirs = set(catalogue.VARIANTS + catalogue.LEGACY_DIRECTORIES + (catalogue.VARIANT_PREFIX,))
    listings.setdefault("whl", set()).update(subdirs)
    for directory, names in listings.items():
        out[f"{directory}/index.html"] = _listing_page(names).encode("utf-8")
    return dict(sorted(out.items()))
