#!/usr/bin/env python3
"""Index page benchmark: wheelmod against pip's way, in one run.

Writes a project page in download.pytorch.org's format (pytorch/test-infra
s3_management/manage.py) into a temporary directory, then runs, alternately
(A B A B ...), the C++ program bench_index_parse and pip_style_parse.py
(html.parser + packaging under /usr/bin/python3). Both parse the page, parse
every wheel name and choose the best wheel for one target; the driver checks
they chose the same one, then prints medians side by side with their ratio,
and the peak RSS of each process (from wait4's rusage).

  bench_index_parse.py --bench-binary build/bench/tests/bench/bench_index_parse
  bench_index_parse.py --bench-binary ... --smoke     # the CTest smoke check
"""

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
    for version in sorted(RELEASES, key=key_of, reverse=True) + NIGHTLIES[::-1]:
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
            attributes += f' data-dist-info-metadata="sha256={meta}" data-core-metadata="sha256={meta}"'
        if key_of(version) >= (2, 11, 0):
            attributes += ' data-upload-time="2026-04-23T10:11:12.123456Z"'
        lines.append((key, f'    <a href="{href}"{attributes}>{filename}</a><br/>'))
    lines.sort()
    body = "\n".join(line for _, line in lines)
    return ("<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for torch</h1>\n" + body +
            "\n  </body>\n</html>\n<!--TIMESTAMP 1703347410-->")


def run_measured(command):
    """Runs `command` and reaps it with os.wait4, which gives the rusage
    (and so the peak RSS) of that one child."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({process.returncode}):\n{stderr}")
    values = dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)
    return values, wall * 1000, usage.ru_maxrss / 1024  # ru_maxrss is KiB on Linux


def check_agreement(ours, theirs):
    for key in ("links", "wheels", "supported_tags", "candidates", "best"):
        if ours[key] != theirs[key]:
            raise SystemExit(f"wheelmod and pip's way disagree on {key}: "
                             f"{ours[key]!r} against {theirs[key]!r}")


def check_sane(values, links):
    problems = []
    if int(values.get("links", -1)) != links:
        problems.append(f"links={values.get('links')} (expected {links})")
    if int(values.get("candidates", 0)) <= 0:
        problems.append("no candidates")
    if not values.get("best", "").startswith("torch-2.7."):
        problems.append(f"best={values.get('best')!r} (expected a torch 2.7 wheel)")
    if not 0 < float(values.get("work_ms", 0)) < 60_000:
        problems.append(f"work_ms={values.get('work_ms')}")
    if problems:
        raise SystemExit("bench_index_parse printed an insane result: " + "; ".join(problems))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-binary", required=True, help="the bench_index_parse program")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="python with python3-packaging for the peer (default /usr/bin/python3)")
    parser.add_argument("--links", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--build-type", default="", help="CMAKE_BUILD_TYPE, to warn about Debug")
    parser.add_argument("--smoke", action="store_true",
                        help="1,000 links, one run of each, check the result and agreement")
    args = parser.parse_args()
    if args.smoke:
        args.links, args.rounds = 1000, 1

    with tempfile.TemporaryDirectory(prefix="wheelmod-bench-") as tmp:
        page = Path(tmp) / "index.html"
        page.write_text(generate_page(args.links), encoding="utf-8")
        common = [f"--{k}={v}" for k, v in {"page": page, "url": PAGE_URL, **TARGET}.items()]
        ours_cmd = [args.bench_binary] + [x for kv in common for x in kv.split("=", 1)]
        theirs_cmd = [args.python, "-B", str(HERE / "pip_style_parse.py")] + common

        samples = {"wheelmod": [], "pip": []}
        for _ in range(args.rounds):  # A B A B ...
            for name, command in (("wheelmod", ours_cmd), ("pip", theirs_cmd)):
                samples[name].append(run_measured(command))
        ours, theirs = samples["wheelmod"][0][0], samples["pip"][0][0]
        check_sane(ours, args.links)
        check_agreement(ours, theirs)
        if args.smoke:
            print(f"ok: {ours['links']} links, {ours['candidates']} candidates, best {ours['best']}, "
                  f"wheelmod {float(ours['work_ms']):.1f} ms, pip's way {float(theirs['work_ms']):.1f} ms")
            return 0
        report(args, page, samples, ours)
    return 0


def report(args, page, samples, ours):
    def median(name, key):
        if key == "wall_ms":
            return statistics.median(s[1] for s in samples[name])
        if key == "rss_mib":
            return statistics.median(s[2] for s in samples[name])
        return statistics.median(float(s[0][key]) for s in samples[name])

    size_mib = page.stat().st_size / (1 << 20)
    print(f"index page: {args.links} links, {size_mib:.1f} MiB, download.pytorch.org format")
    print(f"target: CPython {TARGET['python']} {TARGET['arch']} glibc {TARGET['glibc']}, "
          f"{TARGET['project']}{TARGET['specifier']}: {ours['candidates']} candidates, "
          f"{ours['supported_tags']} tags")
    print(f"both chose: {ours['best']}")
    if args.build_type and args.build_type != "Release":
        print(f"warning: wheelmod built as {args.build_type}; measure a Release build")
    print(f"medians of {args.rounds} alternating runs (A B A B ...)\n")
    rows = [
        ("parse page + wheel names (ms)", "parse_ms"),
        ("select for the target (ms)", "select_ms"),
        ("work = parse + select (ms)", "work_ms"),
        ("whole process, wall (ms)", "wall_ms"),
        ("peak RSS (MiB)", "rss_mib"),
    ]
    header = ("", "wheelmod", "pip's way", "pip / wheelmod")
    print(f"{header[0]:32} {header[1]:>10} {header[2]:>10} {header[3]:>15}")
    for label, key in rows:
        a, b = median("wheelmod", key), median("pip", key)
        ratio = f"{b / a:.1f}x" if a > 0 else "-"
        print(f"{label:32} {a:10.1f} {b:10.1f} {ratio:>15}")
    print("\npip's way = html.parser.HTMLParser link collection + urljoin + "
          "packaging 23.0 (parse_wheel_filename, tags, SpecifierSet) on /usr/bin/python3")


if __name__ == "__main__":
    sys.exit(main())
