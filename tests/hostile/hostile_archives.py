#!/usr/bin/env python3
"""Hostile wheels through `wheelmod install --wheel FILE --prefix P`.

    hostile_archives.py --wheelmod BIN GROUP

Each case builds a real zip (Python's zipfile, then raw struct edits for
what zipfile will not write) from tests/install/make_wheel.py's demo wheel,
installs it, and asserts: the documented exit code with one error
paragraph on stderr; no prefix at the final path and nothing else new or
changed under the work root (a canary file, the prefix's parent; the
install lock in the parent, `.P.wheelmod.lock`, is the one allowed
leftover: docs/install.md); the peak RSS within a bound over the
sanitizer baseline.

Groups: names (zip-slip, absolute, symlinks, duplicates), bombs (ratio,
declared sizes, lying sizes, truncation), headers (central directory
against local headers), record (RECORD and METADATA that lie), layout
(archives zip readers read differently, overlapping entries: each held
against Python's zipfile, the reader pip uses).
"""
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "install"))
import make_wheel  # noqa: E402
from make_wheel import DIST_INFO, Member, Wheel, central_entries, edit_row, header_offsets  # noqa: E402
import zip_craft  # noqa: E402
from hostile_support import (Suite, check, check_error, check_unchanged,  # noqa: E402
                             main_with_groups, snapshot)

PYTHON = "3.11"
# Unpacking streams each entry through a 64 KiB buffer (install_extract.cpp)
# and reads WHEEL/METADATA/RECORD whole, capped at 64 MiB. The demo wheel's
# metadata is a few KiB, so anything past the baseline is the central
# directory and libzip's structures: 64 MiB of growth means a member (the
# 16 MiB bomb, the 256 MiB lying entry) was inflated into memory.
RSS_BUDGET_MIB = 64


class Work:
    """A work root per group: wheels/ (inputs), root/ (canary + the prefix's parent)."""

    def __init__(self, suite):
        self.suite = suite
        self.top = Path(tempfile.mkdtemp(prefix="wheelmod-hostile-archives-"))
        self.wheels = self.top / "wheels"
        self.root = self.top / "root"
        self.parent = self.root / "parent"
        for directory in (self.wheels, self.parent, self.root / "canary"):
            directory.mkdir(parents=True)
        (self.root / "canary" / "keep.py").write_text("canary = 1\n")
        self.count = 0

    def close(self):
        shutil.rmtree(self.top, ignore_errors=True)

    def wheel(self, edit, file_name=None):
        """The demo wheel with `edit(wheel)` applied, written under wheels/N/."""
        self.count += 1
        wheel = Wheel()
        edit(wheel)
        directory = self.wheels / str(self.count)
        directory.mkdir()
        path = directory / (file_name or wheel.file_name)
        wheel.write(path)
        return path

    def install(self, path, prefix_name="p", budget=RSS_BUDGET_MIB):
        prefix = self.parent / prefix_name
        return self.suite.wheelmod_run(
            "install", "--wheel", str(path), "--prefix", str(prefix), "--toolchain", "foss-2024a",
            "--python", PYTHON, "--no-compile", rss_budget_mib=budget), prefix

    def refused(self, path, exit_code, *patterns, budget=RSS_BUDGET_MIB):
        """Installs `path`, expecting a refusal that leaves nothing behind."""
        before = snapshot(self.root)
        result, prefix = self.install(path, budget=budget)
        check_error(result, exit_code, *patterns)
        check(not os.path.lexists(prefix), f"{prefix} exists after a refused install")
        check_unchanged(before, snapshot(self.root), allowed=[r"parent/\.p\.wheelmod\.lock"])
        # Where a crafted name would land relative to the staging directory or the prefix.
        for escaped in ("x.py", "evil.py", "parent/x.py", "parent/evil.py"):
            check(not (self.root / escaped).exists(), f"{escaped} was written outside the prefix")
        return f"exit {result.returncode}, {result.peak_rss_mib:.0f} MiB"


def member(name, data=b"x = 1\n", **kw):
    return lambda wheel: wheel.members.append(Member(name, data, **kw))


def patched(*patches):
    return lambda wheel: wheel.patches.extend(patches)


def compose(*edits):
    def edit(wheel):
        for e in edits:
            e(wheel)
    return edit


# --- names ---------------------------------------------------------------------------------

def names(args):
    suite = Suite(args.wheelmod, "unsafe wheel entry names, symlinks, duplicates",
                  "wheelmod install --wheel FILE --prefix P")
    work = Work(suite)
    unsafe = r"^error: .*demo-1\.0-py3-none-any\.whl: entry '"
    absolute = str(work.root / "x.py")  # would land beside the canary
    slips = [("parent_dir", "../x.py"), ("inner_dotdot", "a/../../x.py"),
             ("deep_dotdot", "demo/../../../../evil.py"), ("dot_then_dotdot", "./../x.py"),
             ("absolute", absolute), ("absolute_double_slash", "/" + absolute),
             ("backslash_dotdot", "..\\x.py"), ("drive_letter", "C:/x.py"),
             ("control_character", "demo/ev\x1b]0;pwned\x07il.py"),
             ("dotdot_directory", "demo/../../x.py/")]
    cases = [(f"slip_{n}", lambda p=p: work.refused(work.wheel(member(p)), 5, unsafe))
             for n, p in slips]
    links = [("symlink_relative", member("demo/link", b"../../../../../canary/keep.py",
                                         mode=0o777, file_type=stat.S_IFLNK)),
             ("symlink_absolute", member("demo/link", str(work.root).encode(), mode=0o777,
                                         file_type=stat.S_IFLNK)),
             # A link named like a directory, then a file "inside" it: the classic
             # two-step escape (the file would be written through the link).
             ("symlink_then_file", compose(
                 member("demo/out", str(work.root).encode(), mode=0o777, file_type=stat.S_IFLNK),
                 member("demo/out/x.py"))),
             ("fifo", member("demo/fifo", b"", mode=0o644, file_type=stat.S_IFIFO)),
             ("block_device", member("demo/disk", b"", mode=0o644, file_type=stat.S_IFBLK))]
    cases += [(n, lambda e=e: work.refused(work.wheel(e), 5, unsafe, r"symbolic link|special file"))
              for n, e in links]
    duplicates = [("duplicate_exact", "demo/__init__.py"), ("duplicate_dot", "./demo/__init__.py"),
                  ("duplicate_double_slash", "demo//__init__.py"),
                  ("file_then_directory_below", "demo/cli.py/x.py")]
    cases += [(n, lambda p=p: work.refused(work.wheel(member(p, b"VERSION = 'evil'\n")), 5, unsafe))
              for n, p in duplicates]
    return suite.run_all(cases, work,
                         "every unsafe name, link, special file and duplicate refused with exit 5 "
                         "naming the entry, before anything was written; no prefix, no stray file")


# --- bombs and truncation -------------------------------------------------------------------

def set_sizes(name, compressed=None, size=None, where=("central", "local")):
    """Overwrites the sizes of `name` in its central and/or local header."""
    def patch(data):
        for central, local in header_offsets(data, name):
            for kind, at in (("central", central + 20), ("local", local + 18)):
                if kind not in where:
                    continue
                if compressed is not None:
                    struct.pack_into("<I", data, at, compressed)
                if size is not None:
                    struct.pack_into("<I", data, at + 4, size)
    return patch


def bombs(args):
    suite = Suite(args.wheelmod, "zip bombs and truncated archives",
                  "wheelmod install --wheel FILE --prefix P")
    work = Work(suite)
    ratio = r"more than 1000 times \(a zip bomb\)"
    cases = [
        ("ratio_16mib_zeros", lambda: work.refused(
            work.wheel(member("demo/zeros.bin", bytes(16 << 20))), 5, ratio)),
        # 256 MiB of zeros: RECORD and the directory tell the truth, the ratio alone refuses it.
        ("ratio_256mib_zeros", lambda: work.refused(
            work.wheel(member("demo/zeros.bin", bytes(256 << 20))), 5, ratio)),
        # The directory claims 4 GiB - 2 for a 6-byte member (RECORD agrees): the
        # declared size alone must be refused, nothing allocated for it.
        ("declared_4gib", lambda: work.refused(work.wheel(compose(
            member("demo/big.bin", b"x = 1\n"),
            lambda w: w.record_edits.append(edit_row("demo/big.bin", 2, str(0xFFFFFFFE))),
            patched(set_sizes("demo/big.bin", size=0xFFFFFFFE)))), 5, ratio)),
        # Central directory and RECORD say 100 bytes; the member inflates to 64 MiB.
        ("lying_size_inflates_64mib", lambda: work.refused(work.wheel(compose(
            member("demo/zeros.bin", bytes(64 << 20)),
            lambda w: w.record_edits.append(edit_row("demo/zeros.bin", 2, "100")),
            patched(set_sizes("demo/zeros.bin", size=100)))), 5,
            r"inflates to more than the 100 bytes")),
        # 100 entries of 1 MiB zeros, bzip2: each at the per-entry floor (not over
        # it), ~50 bytes each; the whole archive's ratio refuses it.
        ("total_ratio_many_entries", lambda: work.refused(work.wheel(compose(
            *[member(f"demo/z{i}.bin", bytes(1 << 20)) for i in range(100)],
            lambda w: setattr(w, "compression", zipfile.ZIP_BZIP2))), 5,
            r"entries inflate from \d+ to \d+ bytes, more than 1000 times")),
        # Compressed size claims more bytes than the file has.
        ("compressed_size_past_eof", lambda: work.refused(work.wheel(
            patched(set_sizes("demo/cli.py", compressed=0x7FFFFFF0))), 5)),
    ]
    good = work.wheel(lambda w: None)
    whole = good.read_bytes()
    for fraction in (0.02, 0.5, 0.9, 0.99):
        cut = int(len(whole) * fraction)
        cases.append((f"truncated_at_{int(fraction * 100)}pct", lambda cut=cut: truncated(work, whole, cut)))
    cases.append(("truncated_end_record", lambda: truncated(work, whole, len(whole) - 10)))
    # The controls of the line drawn above: no zip at all is a usage error (the
    # file given is no wheel), not a damaged download.
    cases.append(("empty_file", lambda: truncated(work, whole, 0, exit_code=2)))
    cases.append(("text_file", lambda: truncated(work, b"not a zip\n" * 10, 100, exit_code=2)))
    return suite.run_all(cases, work,
                         "ratio (per entry and over the archive) and declared-size bombs refused "
                         "before unpacking, a lying size "
                         "stopped at the declared size, truncated archives refused as damaged "
                         "(exit 5); no prefix, memory flat")


def truncated(work, whole, cut, exit_code=5):
    """The first `cut` bytes of a good wheel: a download cut short. Exit 5 (damaged),
    except an empty file, which is no zip at all (exit 2). Regression cases: libzip
    calls a zip without its end records "not a zip" (ZIP_ER_NOZIP), which was exit 2
    with no hint; a file that starts with a local header is now a damaged wheel
    (src/wheel/install_zip.cpp)."""
    work.count += 1
    directory = work.wheels / str(work.count)
    directory.mkdir()
    path = directory / "demo-1.0-py3-none-any.whl"
    path.write_bytes(whole[:cut])
    return work.refused(path, exit_code, r"damaged|truncated|not a zip")


# --- central directory against local headers ------------------------------------------------

def local_offset_of(name):
    """Points `name`'s central entry at the local header of the first entry."""
    def patch(data):
        entries = central_entries(data)
        first = struct.unpack_from("<I", data, entries[0][0] + 42)[0]
        for offset, entry in entries:
            if entry == name:
                struct.pack_into("<I", data, offset + 42, first)
    return patch


def set_crc(name, where):
    def patch(data):
        for central, local in header_offsets(data, name):
            at = central + 16 if where == "central" else local + 14
            struct.pack_into("<I", data, at, struct.unpack_from("<I", data, at)[0] ^ 0x5A5A5A5A)
    return patch


def headers(args):
    suite = Suite(args.wheelmod, "central directory and local header disagreements",
                  "wheelmod install --wheel FILE --prefix P")
    work = Work(suite)
    inconsistent = r"inconsisten|damaged|CRC|differs|disagree"
    cli_size = len(make_wheel.CLI)
    cases = [
        ("local_name_differs", lambda: work.refused(work.wheel(
            patched(make_wheel.rename_local_header("demo/cli.py", "demo/evl.py"))), 5, inconsistent)),
        ("local_name_escapes", lambda: work.refused(work.wheel(
            patched(make_wheel.rename_local_header("demo/data.bin", "../../evil.py"))), 5,
            inconsistent)),
        ("local_size_differs", lambda: work.refused(work.wheel(
            patched(set_sizes("demo/cli.py", size=cli_size + 7, where=("local",)))), 5, inconsistent)),
        ("local_compressed_size_differs", lambda: work.refused(work.wheel(
            patched(set_sizes("demo/cli.py", compressed=3, where=("local",)))), 5, inconsistent)),
        ("local_crc_differs", lambda: work.refused(work.wheel(
            patched(set_crc("demo/cli.py", "local"))), 5, inconsistent)),
        # Both headers carry a CRC the data does not have; RECORD's hash is right.
        ("crc_wrong_everywhere", lambda: work.refused(work.wheel(
            patched(set_crc("demo/cli.py", "local"), set_crc("demo/cli.py", "central"))), 5,
            inconsistent)),
        # Two central entries share one local header and its data (overlapping entries,
        # the basis of non-recursive zip bombs).
        ("overlapping_entries", lambda: work.refused(work.wheel(
            patched(local_offset_of("demo/cli.py"))), 5, inconsistent)),
    ]
    return suite.run_all(cases, work,
                         "every disagreement between a central entry and its local header "
                         "(name, sizes, CRC, shared data) refused with exit 5; nothing written")


# --- RECORD and METADATA that lie -------------------------------------------------------------

def record(args):
    suite = Suite(args.wheelmod, "RECORD and METADATA that lie",
                  "wheelmod install --wheel FILE --prefix P")
    work = Work(suite)
    row = lambda *e: lambda w: w.record_edits.append(edit_row(*e))  # noqa: E731
    rows = lambda f: lambda w: w.record_edits.append(f)  # noqa: E731
    cases = [
        ("hash_differs", lambda: work.refused(work.wheel(row("demo/cli.py", 1, "sha256=" + "A" * 43)),
                                              5, r"hash differs from RECORD")),
        # The last entry's hash differs: earlier entries were already unpacked in
        # the staging directory, which must go too.
        ("hash_differs_last", lambda: work.refused(work.wheel(
            row(f"{DIST_INFO}/entry_points.txt", 1, "sha256=" + "B" * 43)), 5,
            r"hash differs from RECORD")),
        ("hash_truncated", lambda: work.refused(work.wheel(row("demo/cli.py", 1, "sha256=AAAA")), 5,
                                                r"not 32")),
        ("hash_md5", lambda: work.refused(work.wheel(
            row("demo/cli.py", 1, "md5=1B2M2Y8AsgTpgAmY7PhCfg")), 5, r"unsupported")),
        ("size_differs", lambda: work.refused(work.wheel(row("demo/cli.py", 2, "1")), 5,
                                              r"RECORD 1")),
        ("row_missing", lambda: work.refused(work.wheel(
            rows(lambda r: [x for x in r if x[0] != "demo/data.bin"])), 5, r"not listed in RECORD")),
        ("row_for_absent_file", lambda: work.refused(work.wheel(
            rows(lambda r: r + [["demo/absent.py", "sha256=" + "A" * 43, "3"]])), 5,
            r"not in the archive")),
        ("row_escapes", lambda: work.refused(work.wheel(
            rows(lambda r: r + [["../../x.py", "sha256=" + "A" * 43, "3"]])), 5, r"RECORD row")),
        ("row_twice", lambda: work.refused(work.wheel(
            rows(lambda r: r + [r[0]])), 5, r"twice")),
        ("no_record", lambda: work.refused(work.wheel(lambda w: setattr(w, "record", False)), 5,
                                           r"RECORD")),
        # 100,000 rows of absent files (a 6.5 MiB RECORD; torch's has ~15,000): read whole
        # and parsed into rows, so memory grows with the rows, bounded by the 64 MiB cap
        # on metadata. Measured: the release build grows ~370 B a row, this ASan build
        # ~1.7 KiB (a redzone per small string); 2 KiB a row + 64 MiB still fails a
        # quadratic copy or a second parse of every row.
        ("record_100k_rows", lambda: work.refused(work.wheel(rows(lambda r: r + [
            [f"demo/absent{i}.py", "sha256=" + "A" * 43, "3"] for i in range(100_000)])), 5,
            r"not in the archive", budget=RSS_BUDGET_MIB + 100_000 * 2 // 1024)),
        # METADATA against the file name: a wheel that claims to be another project.
        ("metadata_name_differs", lambda: work.refused(work.wheel(lambda w: w.replace(
            f"{DIST_INFO}/METADATA", b"Metadata-Version: 2.1\nName: other\nVersion: 1.0\n")), 2,
            r"METADATA names other 1\.0")),
        ("metadata_version_differs", lambda: work.refused(work.wheel(lambda w: w.replace(
            f"{DIST_INFO}/METADATA", b"Metadata-Version: 2.1\nName: demo\nVersion: 6.6.6\n")), 2,
            r"METADATA names demo 6\.6\.6")),
        # Requires-Python excluding the target (3.11): pip refuses it ("requires a different
        # Python"); exit 3, nothing satisfies the request.
        ("metadata_requires_python", lambda: work.refused(work.wheel(lambda w: w.replace(
            f"{DIST_INFO}/METADATA", b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
            b"Requires-Python: >=3.12\n")), 3,
            r"requires Python >=3\.12 \(its METADATA\), the target is 3\.11")),
        ("file_name_differs", lambda: work.refused(work.wheel(
            lambda w: None, file_name="other-2.0-py3-none-any.whl"), 2, r"does not belong")),
        ("metadata_missing", lambda: work.refused(work.wheel(
            lambda w: w.members.__setitem__(slice(None), [m for m in w.members
                                                          if not m.name.endswith("METADATA")])),
            2, r"no demo-1\.0\.dist-info/METADATA")),
    ]
    # The control: the same builder's untouched wheel installs, so every refusal above
    # is the edit's doing.
    cases.append(("control_good_wheel_installs", lambda: good_installs(work)))
    return suite.run_all(cases, work,
                         "RECORD hashes, sizes, rows and algorithms that lie refused with exit 5 "
                         "(staging removed); METADATA or file names that disagree refused with "
                         "exit 2; the untouched wheel installs")


def good_installs(work):
    # Requires-Python that admits the target: installed.
    result, prefix = work.install(work.wheel(lambda w: w.replace(
        f"{DIST_INFO}/METADATA", b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
        b"Requires-Python: >=3.8, <4\n")), prefix_name="good")
    check(result.returncode == 0, result.describe())
    check((prefix / "lib" / f"python{PYTHON}" / "site-packages" / "demo" / "cli.py").is_file(),
          "the good wheel's files are missing")
    return f"{result.peak_rss_mib:.0f} MiB"


# --- layouts that zip readers read differently ---------------------------------------------

def python_view(path):
    """What pip's reader (zipfile, this Python's) extracts: ({name: bytes}, None) or (None, why)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in archive.namelist()}, None
    except (zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError) as error:
        return None, f"{type(error).__name__}: {error}"


def unzip_names(path):
    """`unzip -Z1`'s listing, or None when unzip is missing or refuses."""
    if not shutil.which("unzip"):
        return None
    listing = subprocess.run(["unzip", "-Z1", str(path)], capture_output=True)
    return listing.stdout.decode(errors="replace").split() if listing.returncode == 0 else None


def differential(work, data, refused=None, python_refuses=False, python_sees=None):
    """Installs `data` and holds the result against Python's zipfile. Accepted (`refused` None):
    both read it, and every file of the demo package is installed with zipfile's bytes. Refused
    (exit 5 matching `refused`): `python_refuses` says zipfile refuses too (Overlapped entries
    needs a zipfile with that check: 3.12, or a 3.11/3.10 with the 2023 backport);
    `python_sees` names a file zipfile lists that wheelmod's reading would not have installed.
    Either way wheelmod never installs what zipfile reads differently or refuses."""
    work.count += 1
    directory = work.wheels / str(work.count)
    directory.mkdir()
    path = directory / "demo-1.0-py3-none-any.whl"
    path.write_bytes(data)
    contents, why = python_view(path)
    if refused is None:
        check(contents is not None, f"zipfile refuses the control: {why}")
        result, prefix = work.install(path, prefix_name=f"ok{work.count}")
        check(result.returncode == 0, result.describe())
        site = prefix / "lib" / f"python{PYTHON}" / "site-packages"
        package = {n: c for n, c in contents.items() if n.startswith("demo/")}
        installed = {str(f.relative_to(site)): f.read_bytes()
                     for f in (site / "demo").rglob("*") if f.is_file()}
        check(installed == package, f"installed {sorted(installed)}, zipfile reads "
                                    f"{sorted(package)} (or their bytes differ)")
        return f"exit 0, {len(package)} files as zipfile reads them"
    outcome = work.refused(path, 5, refused)
    overlap_check = "_end_offset" in getattr(zipfile.ZipInfo, "__slots__", ())
    if python_refuses and overlap_check:
        check(contents is None and "Overlapped" in why, f"zipfile did not refuse it: {why}")
        outcome += f"; zipfile too: {why}"
    elif python_refuses:
        outcome += "; this zipfile has no overlap check (the oracle is inconclusive)"
    if python_sees:
        check(contents is not None and python_sees in contents,
              f"zipfile should read the other archive ({python_sees}): {why}")
        names = unzip_names(path)
        check(names is None or python_sees in names, f"unzip -Z1 lists {names}")
        outcome += f"; zipfile and unzip read {python_sees}"
    return outcome


def layout(args):
    suite = Suite(args.wheelmod, "zip layouts that readers read differently, overlapping entries",
                  "wheelmod install --wheel FILE --prefix P, against Python's zipfile")
    work = Work(suite)
    package = {"__init__.py": b"VERSION = 'A'\n", "core.py": b"def f():\n    return 1\n"}
    hidden = {"__init__.py": b"VERSION = 'B'\n", "evil.py": b"import os\n"}
    plain = zip_craft.plain_wheel(package)
    entries = [zip_craft.Entry(n, d) for n, d in zip_craft.wheel_files(package).items()]
    fake_end = zip_craft.END_SIGNATURE + bytes(16) + struct.pack("<H", 500)
    bomb, bomb_bytes = zip_craft.overlapping_bomb(entries=64)
    # The last entry's sizes, in both headers, reach 10 bytes into the central directory.
    past = zip_craft.archive([zip_craft.Entry(n, d, method=0)
                              for n, d in zip_craft.wheel_files(package).items()])
    long_data = bytearray(past)
    for central, local in make_wheel.header_offsets(long_data, f"{zip_craft.DIST_INFO}/RECORD"):
        for at in (central + 20, local + 18):
            size = struct.unpack_from("<I", long_data, at)[0] + 10
            struct.pack_into("<II", long_data, at, size, size)
    gap = plain[:-22] + b"\0\0" + plain[-22:]
    stored = zip_craft.archive([zip_craft.Entry(n, d, method=0)
                                for n, d in zip_craft.wheel_files(package).items()])

    def broken_deflate(change):
        """The wheel with demo/core.py's deflate bytes changed; both headers agree with them."""
        crafted = [zip_craft.Entry(n, d) for n, d in zip_craft.wheel_files(package).items()]
        core = next(e for e in crafted if e.name == b"demo/core.py")
        core.raw = change(core.raw)
        return zip_craft.archive(crafted)
    cases = [
        ("control_crafted", lambda: differential(work, plain)),
        ("control_comment", lambda: differential(
            work, zip_craft.plain_wheel(package, comment=b"built by hand"))),
        ("control_zipfile_zip64", lambda: differential(
            work, work.wheel(make_wheel.zip64).read_bytes())),
        ("control_zipfile_data_descriptors", lambda: differential(
            work, work.wheel(make_wheel.data_descriptor).read_bytes())),
        # Entries wheelmod reads itself (pread + zlib): stored, deflate streams cut short or
        # damaged while every header agrees with them (zipfile: "Error -3" or a bad CRC).
        ("control_stored", lambda: differential(work, stored)),
        ("deflate_cut_short", lambda: differential(
            work, broken_deflate(lambda raw: raw[:len(raw) // 2]), r"cut short")),
        ("deflate_damaged", lambda: differential(
            work, broken_deflate(lambda raw: raw[:2] + bytes(b ^ 0xA5 for b in raw[2:])),
            r"damaged deflate data|CRC-32 mismatch")),
        # The outside attack's instances: a 12 KiB wheel that zipfile refuses ("Overlapped
        # entries") and that wrote 64 x 1 MiB; archive A hiding archive B in its comment.
        (f"overlapping_bomb_{bomb_bytes >> 20}_mib", lambda: differential(
            work, bomb, r"overlaps .*overlapping entries", python_refuses=True)),
        ("second_archive_in_comment", lambda: differential(
            work, zip_craft.hidden_second_archive(package, hidden),
            r"two end-of-central-directory records", python_sees="demo/evil.py")),
        ("data_runs_into_directory", lambda: differential(
            work, bytes(long_data), r"run past the start of the central directory",
            python_refuses=True)),
        ("signature_inside_comment", lambda: differential(
            work, zip_craft.plain_wheel(package, comment=b"a " + fake_end + b" b"),
            r"does not end the archive")),
        ("signature_ending_comment", lambda: differential(
            work, zip_craft.plain_wheel(package, comment=b"yy" + fake_end),
            r"does not end the archive")),
        # Stricter than zipfile, which reads these (from the last signature, or shifting every
        # offset by the bytes in front): a wheel has no reason to carry either.
        ("bytes_after_end_record", lambda: differential(
            work, plain + b"trailing", r"does not end the archive")),
        ("bytes_before_archive", lambda: differential(
            work, b"#!/bin/sh\nexit 0\n" + plain, r"does not end where the end record begins")),
        ("gap_before_end_record", lambda: differential(
            work, gap, r"does not end where the end record begins")),
        # zipfile reads the directory until its size is used up, libzip takes the count.
        ("count_below_directory", lambda: differential(
            work, zip_craft.archive(entries, count=len(entries) - 1), r"bytes after its")),
    ]
    return suite.run_all(cases, work,
                         "every layout zip readers disagree on, and every overlap, refused with "
                         "exit 5 before anything was written; the controls install exactly what "
                         "zipfile reads")


GROUPS = {"names": names, "bombs": bombs, "headers": headers, "record": record,
          "layout": layout}
# What CTest needs to run each group (`--list`, read by tests/hostile/CMakeLists.txt).
CTEST = {"*": {"timeout": 120}}

if __name__ == "__main__":
    sys.exit(main_with_groups(__doc__.splitlines()[0], GROUPS, ctest=CTEST))
