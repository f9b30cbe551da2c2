#!/usr/bin/env python3
"""Index page benchmark: wheelmod against pip's way, in one run.

Writes project pages in download.pytorch.org's format (pytorch/test-infra
s3_management/manage.py) of several sizes into a temporary directory, then
runs, alternately (A B A B ...), the C++ program bench_index_parse and
pip_style_parse.py (html.parser + packaging under /usr/bin/python3). Both
parse the page, parse every wheel name and choose the best wheel for one
target; the driver checks they chose the same one, then prints medians side
by side with their ratio, the peak RSS of each process (from wait4's rusage,
launched as bench_support does), and the slope (ms per 1,000 links) between
the smallest and the largest page. Last, wheelmod alone on a page of
1,000,000 short links (hostile_index.py's shape): its peak RSS, and the
bytes a link takes beyond the page and the link's own text. The same figures
close the output as the summary every benchmark prints (--summary-json
writes them; README.md, "Summary").

  bench_index_parse.py --bench-binary build/bench/tests/bench/bench_index_parse
  bench_index_parse.py --bench-binary ... --sizes 20000 --rounds 9 --memory-links 0
  bench_index_parse.py --bench-binary ... --smoke     # the CTest smoke check
"""

import argparse
import hashlib
import signal
import statistics
import sys
import tempfile
from pathlib import Path

from bench_support import (K_MIB, K_PR_SET_CHILD_SUBREAPER, BenchError, Summary, first_line,
                           load_average, machine_line, prctl, run_one)

HERE = Path(__file__).resolve().parent
PAGE_URL = "https://download.pytorch.org/whl/torch/"
TARGET = {"project": "torch", "specifier": ">=2.5,<2.8", "python": "3.12", "arch": "x86_64",
          "glibc": "2.28"}

RELEASES = [
    "1.10.0", "1.10.1", "1.10.2", "1.11.0", "1.12.0", "1.12.1", "1.13.0", "1.13.1", "2.0.0",
    "2.0.1", "2.1.0", "2.1.1", "2.1.2", "2.2.0", "2.2.1", "2.2.2", "2.3.0", "2.3.1", "2.4.0",
    "2.4.1", "2.5.0", "2.5.1", "2.6.0", "2.7.0", "2.7.1", "2.8.0", "2.9.0", "2.9.1", "2.10.0",
    "2.11.0",
]
NIGHTLIES = [f"2.12.0.dev2026{month:02d}{day:02d}" for month in range(3, 9) for day in range(1, 29)]
# Older nightlies, after those above: they make the large pages (pre-releases, never chosen).
OLDER_NIGHTLIES = [f"2.{minor}.0.dev{2019 + minor // 2}{month:02d}{day:02d}"
                   for minor in range(11, -1, -1) for month in range(12, 0, -1)
                   for day in range(28, 0, -1)]
VARIANTS = ["cpu", "cu118", "cu121", "cu124", "cu126", "cu128", "cu130", "rocm6.2.4", "rocm6.4",
            "xpu"]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "linux_x86_64", "win_amd64"]


def key_of(version):
    return tuple(int(p) if p.isdigit() else 0 for p in version.split(".")[:3])


def python_tags(version):
    """The CPython tags torch was built for at `version` (PyTorch release matrix)."""
    v = key_of(version)
    low = 9 if v < (2, 9, 0) else 10
    high = (10 if v < (1, 13, 0) else 11 if v < (2, 2, 0) else 12 if v < (2, 5, 0)
            else 13 if v < (2, 9, 0) else 14)
    out = [f"cp3{m}-cp3{m}" for m in range(low, high + 1)]
    if v >= (2, 6, 0):
        out.append(f"cp3{high}-cp3{high}t")  # free-threaded
    return out


def generate_page(count):
    """`count` links of torch wheels over many versions, variants, Python
    tags and platforms, sorted by S3 key as manage.py writes them. Newest
    releases first, then nightlies, so a small page still holds the
    target's candidates."""
    entries = []
    for version in sorted(RELEASES, key=key_of, reverse=True) + NIGHTLIES[::-1] + OLDER_NIGHTLIES:
        new = key_of(version) >= (2, 6, 0)  # manylinux_2_28 from 2.6
        for variant in VARIANTS:
            for python in python_tags(version):
                for platform in PLATFORMS:
                    if platform == "win_amd64" and variant.startswith("rocm"):
                        continue
                    if platform != "win_amd64" and platform.startswith("manylinux") != new:
                        continue
                    entries.append((version, variant, python, platform))
        entries.append((version, "cpu", "cp312-none", "macosx_11_0_arm64"))
    if len(entries) < count:
        raise SystemExit(f"the generator makes at most {len(entries)} links")
    entries = entries[:count]

    lines = []
    for version, variant, python, platform in entries:
        local = "" if platform.startswith("macosx") else f"+{variant}"
        filename = f"torch-{version}{local}-{python}-{platform}.whl"
        key = f"whl/{variant}/{filename}".replace("+", "%2B")
        digest = hashlib.sha256(key.encode()).hexdigest()
        # R2 packages: absolute hrefs on the second host.
        host = "https://download-r2.pytorch.org" if key_of(version) >= (2, 9, 0) else ""
        href = f"{host}/{key}"
        if int(digest[:2], 16) >= 26:  # about 1 in 10 without a hash
            href += f"#sha256={digest}"
        attributes = ""
        if key_of(version) >= (2, 6, 0):
            meta = hashlib.sha256(f"{version}{local}".encode()).hexdigest()
            attributes += (f' data-dist-info-metadata="sha256={meta}"'
                           f' data-core-metadata="sha256={meta}"')
        if key_of(version) >= (2, 11, 0):
            attributes += ' data-upload-time="2026-04-23T10:11:12.123456Z"'
        lines.append((key, f'    <a href="{href}"{attributes}>{filename}</a><br/>'))
    lines.sort()
    body = "\n".join(line for _, line in lines)
    return ("<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for torch</h1>\n" + body +
            "\n  </body>\n</html>\n<!--TIMESTAMP 1703347410-->")


def generate_short_page(count):
    """`count` short links of win32 wheels after the one wheel that fits,
    as tests/hostile/hostile_index.py's `links` case writes them."""
    good = ("torch-2.7.0-cp312-cp312-manylinux_2_28_x86_64.whl", hashlib.sha256(b"x").hexdigest())
    lines = [f'<a href="/f/{good[0]}#sha256={good[1]}">{good[0]}</a>']
    lines += [f'<a href="/f/torch-0.{i}-py3-none-win32.whl">x</a>' for i in range(count)]
    return "<!DOCTYPE html><html><body>\n" + "\n".join(lines) + "\n</body></html>\n"


def run(command, scratch):
    """One measured run: the key=value lines it printed, wall ms, peak RSS MiB."""
    sample = run_one(command, scratch)
    out = (scratch / "out0").read_text()
    values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return values, sample.wall * 1000, sample.rss_kib / 1024


def check_agreement(ours, theirs):
    for key in ("links", "wheels", "supported_tags", "candidates", "best"):
        if ours[key] != theirs[key]:
            raise BenchError(f"wheelmod and pip's way disagree on {key}: "
                             f"{ours[key]!r} against {theirs[key]!r}")


def check_sane(values, links):
    problems = []
    if int(values.get("links", -1)) != links:
        problems.append(f"links={values.get('links')} (expected {links})")
    if int(values.get("candidates", 0)) <= 0:
        problems.append("no candidates")
    if not values.get("best", "").startswith("torch-2.7."):
        problems.append(f"best={values.get('best')!r} (expected a torch 2.7 wheel)")
    if not 0 < float(values.get("work_ms", 0)) < 600_000:
        problems.append(f"work_ms={values.get('work_ms')}")
    if problems:
        raise BenchError("bench_index_parse printed an insane result: " + "; ".join(problems))


def commands(args, page):
    common = [f"--{k}={v}" for k, v in {"page": page, "url": PAGE_URL, **TARGET}.items()]
    ours = [args.bench_binary] + [x for kv in common for x in kv.split("=", 1)]
    theirs = [args.python, "-B", str(HERE / "pip_style_parse.py")] + common
    return ours, theirs


def measure_size(args, tmp, links):
    """Both sides on a page of `links` links, `args.rounds` times each, alternately."""
    page = tmp / f"index-{links}.html"
    page.write_text(generate_page(links), encoding="utf-8")
    ours_cmd, theirs_cmd = commands(args, page)
    samples = {"wheelmod": [], "pip": []}
    for _ in range(args.rounds):  # A B A B ...
        for name, command in (("wheelmod", ours_cmd), ("pip", theirs_cmd)):
            scratch = tmp / f"{name}-{links}-{len(samples[name])}"
            scratch.mkdir()
            samples[name].append(run(command, scratch))
    ours, theirs = samples["wheelmod"][0][0], samples["pip"][0][0]
    check_sane(ours, links)
    check_agreement(ours, theirs)
    size = page.stat().st_size
    page.unlink()
    return {"links": links, "size_mib": size / K_MIB, "samples": samples, "ours": ours,
            "theirs": theirs}


def median(samples, key):
    if key == "wall_ms":
        return statistics.median(s[1] for s in samples)
    if key == "rss_mib":
        return statistics.median(s[2] for s in samples)
    return statistics.median(float(s[0][key]) for s in samples)


def measure_memory(args, tmp, links):
    """wheelmod alone on `links` short links: peak RSS, and per link beyond the page and the
    links' own text (URL and file name), against a 1,000-link page of the same shape."""
    figures = []
    for count in (1000, links):
        page = tmp / f"short-{count}.html"
        page.write_text(generate_short_page(count), encoding="utf-8")
        ours_cmd, _ = commands(args, page)
        scratch = tmp / f"memory-{count}"
        scratch.mkdir()
        values, wall, rss = run(ours_cmd, scratch)
        if int(values["links"]) != count + 1 or not values["best"]:
            raise BenchError(f"the {count}-link page: {values}")
        figures.append((values, wall, rss))
        page.unlink()
    (small, _, small_rss), (big, wall, rss) = figures
    extra = (rss - small_rss) * K_MIB - (int(big["page_bytes"]) - int(small["page_bytes"]))
    text = int(big["link_text_bytes"]) - int(small["link_text_bytes"])
    return {"links": links, "page_mib": int(big["page_bytes"]) / K_MIB, "rss_mib": rss,
            "work_ms": float(big["work_ms"]), "per_link": extra / links,
            "text_per_link": text / links}


def report(args, sizes, memory):
    first = sizes[0]["ours"]
    print(f"index pages in download.pytorch.org's format; target: CPython {TARGET['python']} "
          f"{TARGET['arch']} glibc {TARGET['glibc']}, {TARGET['project']}{TARGET['specifier']} "
          f"({first['supported_tags']} tags)")
    print(machine_line())
    print(f"load average: {load_average()}")
    if args.build_type and args.build_type != "Release":
        print(f"warning: wheelmod built as {args.build_type}; measure a Release build")
    print(f"medians of {args.rounds} alternating runs (A B A B ...); work = parse page + "
          "wheel names + select, in-process\n")
    print(f"{'links':>9} {'MiB':>6} {'candidates':>10}   {'wheelmod ms':>11} {'pip ms':>9} "
          f"{'ratio':>6}   {'parse ms':>8} {'pip parse':>9}   {'RSS MiB':>7} {'pip RSS':>7}")
    for row in sizes:
        ours, theirs = row["samples"]["wheelmod"], row["samples"]["pip"]
        a, b = median(ours, "work_ms"), median(theirs, "work_ms")
        print(f"{row['links']:>9,} {row['size_mib']:>6.1f} {row['ours']['candidates']:>10}   "
              f"{a:>11.1f} {b:>9.1f} {b / a:>5.1f}x   {median(ours, 'parse_ms'):>8.1f} "
              f"{median(theirs, 'parse_ms'):>9.1f}   {median(ours, 'rss_mib'):>7.1f} "
              f"{median(theirs, 'rss_mib'):>7.1f}")
        print(f"{'':>9} both chose {row['ours']['best']}; whole process (wall): wheelmod "
              f"{median(ours, 'wall_ms'):.0f} ms, pip's way {median(theirs, 'wall_ms'):.0f} ms")
    if len(sizes) > 1:
        low, high = sizes[0], sizes[-1]
        per = 1000 / (high["links"] - low["links"])
        slope = [(median(high["samples"][n], "work_ms") - median(low["samples"][n], "work_ms"))
                 * per for n in ("wheelmod", "pip")]
        print(f"slope, {low['links']:,} -> {high['links']:,} links: wheelmod {slope[0]:.2f} ms, "
              f"pip's way {slope[1]:.2f} ms per 1,000 links ({slope[1] / slope[0]:.1f}x)")
    if memory:
        print(f"\n{memory['links']:,} short links ({memory['page_mib']:.0f} MiB page, "
              f"hostile_index.py's shape), wheelmod parse + choose: {memory['work_ms']:.0f} ms, "
              f"peak RSS {memory['rss_mib']:.0f} MiB")
        print(f"  per link, beyond the page: {memory['per_link']:.0f} bytes, against "
              f"{memory['text_per_link']:.0f} for its URL and file name as strings (index::Links "
              "keeps a file name that ends the URL as part of it; the record and the URL index "
              "take the rest)")
    print("\npip's way = html.parser.HTMLParser link collection + urljoin + "
          "packaging 23.0 (parse_wheel_filename, tags, SpecifierSet) on /usr/bin/python3")


def add_rows(summary, sizes, memory):
    """Per page size: the in-process work and the whole process, both sides;
    then wheelmod alone on the page of short links."""
    for key, operation in (("work_ms", "parse + wheel names + select, in-process"),
                           ("wall_ms", "whole process (start-up included)")):
        for row in sizes:
            ours, theirs = row["samples"]["wheelmod"], row["samples"]["pip"]
            summary.row(operation, f"{row['links']:,} links ({row['size_mib']:.1f} MiB)",
                        median(ours, key), "pip's way", median(theirs, key), "ms",
                        rss_mib=median(ours, "rss_mib"), peer_rss_mib=median(theirs, "rss_mib"),
                        units=row["links"])
    if memory:
        summary.row("parse + choose, short links (hostile_index.py's shape)",
                    f"{memory['links']:,} links ({memory['page_mib']:.0f} MiB)",
                    memory["work_ms"], None, None, "ms", rss_mib=memory["rss_mib"])
        summary.notes.append(f"{memory['links']:,} short links: {memory['per_link']:.0f} bytes "
                             "a link beyond the page")
    summary.all_slopes("1,000 links", 1000)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-binary", required=True, help="the bench_index_parse program")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="python with python3-packaging for the peer "
                             "(default /usr/bin/python3)")
    parser.add_argument("--sizes", default="20000,80000,320000",
                        help="links per page, comma-separated (default 20000,80000,320000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory-links", type=int, default=1_000_000,
                        help="links of the memory measurement (0: none)")
    parser.add_argument("--build-type", default="", help="CMAKE_BUILD_TYPE, to warn about Debug")
    parser.add_argument("--summary-json", type=Path,
                        help="write the summary (rows and slopes) as JSON here (README.md)")
    parser.add_argument("--smoke", action="store_true",
                        help="1,000 links, one run of each, check the result and agreement")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    if args.smoke:
        sizes, args.rounds, args.memory_links = [1000], 1, 0
    prctl(K_PR_SET_CHILD_SUBREAPER, 1)  # see bench_support.LAUNCH
    for sig in (signal.SIGTERM, signal.SIGHUP):  # unwind like Ctrl-C: the scratch files go
        signal.signal(sig, signal.default_int_handler)
    summary = Summary("index", args.build_type)
    summary.tools = {"python": first_line([args.python, "--version"])}
    try:
        with tempfile.TemporaryDirectory(prefix="wheelmod-bench-") as tmp:
            rows = [measure_size(args, Path(tmp), links) for links in sizes]
            memory = measure_memory(args, Path(tmp), args.memory_links) if args.memory_links \
                else None
            add_rows(summary, rows, memory)
            if args.summary_json:
                summary.write(args.summary_json)
            if args.smoke:
                row = rows[0]
                ours, theirs = row["ours"], row["theirs"]
                print(f"ok: {ours['links']} links, {ours['candidates']} candidates, "
                      f"best {ours['best']}, wheelmod {float(ours['work_ms']):.1f} ms, "
                      f"pip's way {float(theirs['work_ms']):.1f} ms")
                return 0
            report(args, rows, memory)
            summary.print()
    except (BenchError, KeyboardInterrupt) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
