#!/usr/bin/env python3
"""Damaged ELF files in a prefix, through `wheelmod check` and `wheelmod relink`.

    hostile_elf.py --wheelmod BIN GROUP

A shared library is compiled by gcc here (elf_craft.build_library), copied
into lib/python3.11/site-packages/pkg/ of a prefix twice: libgood.so as it
is, libbad.so damaged by one edit. Then:

  broken    (the dynamic loader could not load it either): `check` exits 6
            naming libbad.so and what is broken; `relink` exits 4 (the ELF
            reader's IoError, "broken ELF file") naming it, and edits no
            file, libgood.so included; neither crashes (exit 1, a signal or a
            sanitizer report would be a bug).
  tolerated (damage ld.so ignores too: section headers, bytes past the last
            segment): both succeed, and the relinked libbad.so still loads
            with ctypes and answers 42.

Every run: nothing outside the prefix changes (the work root is
snapshotted), the peak RSS stays within a bound over the baseline.

Groups: headers (ELF and program headers, truncation), dynamic (the
dynamic array and its string table), sections (tolerated damage), install
(the damaged library inside a wheel, through `install --wheel`).
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from elf_craft import (DT_NEEDED, DT_RUNPATH, DT_STRSZ, DT_STRTAB, PT_DYNAMIC, PT_LOAD, Elf,
                       build_library)
from hostile_support import (Suite, check, check_error, check_no_sanitizer_report,
                             check_unchanged, main_with_groups, snapshot)

# The reader maps nothing it has not checked against the file's size: a crafted
# offset or size (2^40 bytes of DT_STRSZ, a PT_DYNAMIC of 2^40) must never turn
# into an allocation. Two 15 KiB files need next to nothing; 48 MiB over the
# baseline catches any allocation sized by a header field.
RSS_BUDGET_MIB = 48
SITE = Path("lib") / "python3.11" / "site-packages" / "pkg"


class Work:
    def __init__(self, suite):
        self.suite = suite
        self.top = Path(tempfile.mkdtemp(prefix="wheelmod-hostile-elf-"))
        self.library = build_library(self.top)
        self.good = self.library.read_bytes()
        self.root = self.top / "root"
        self.eb = self.root / "eb"  # an EasyBuild installpath with no modules
        self.eb.mkdir(parents=True)
        (self.root / "canary.txt").write_text("canary\n")
        self.count = 0

    def elf(self):
        """A fresh, editable copy of the good library."""
        return Elf(self.good)

    @staticmethod
    def open_group(args, case_class, command="wheelmod check PREFIX; wheelmod relink PREFIX"):
        """The suite of one class and its Work, the good library and its editor."""
        suite = Suite(args.wheelmod, case_class, command)
        work = Work(suite)
        return suite, work, work.good, work.elf

    def close(self):
        shutil.rmtree(self.top, ignore_errors=True)

    def prefix(self, bad):
        self.count += 1
        prefix = self.root / f"prefix{self.count}"
        site = prefix / SITE
        site.mkdir(parents=True)
        (site / "libgood.so").write_bytes(self.good)
        (site / "libbad.so").write_bytes(bytes(bad))
        return prefix

    def run(self, *args):
        return self.suite.wheelmod_run(*args, rss_budget_mib=RSS_BUDGET_MIB)

    def broken(self, bad, *patterns):
        prefix = self.prefix(bad)
        before = snapshot(self.root)
        result = self.run("check", str(prefix))
        check_error(result, 6, r"libbad\.so", r"broken ELF file", *patterns)
        # No unreadable file is dressed up as a resolved one.
        check("libbad.so" in result.stdout, f"the report does not name libbad.so\n{result.describe()}")
        relinked = self.run("relink", str(prefix), "--toolchain", "foss-2024a",
                            "--eb-installpath", str(self.eb))
        check_error(relinked, 4, r"libbad\.so: broken ELF file", *patterns)
        # relink plans every file before it edits one: libgood.so keeps its RUNPATH.
        # Beside the prefix only the lock install and relink share may appear.
        check_unchanged(before, snapshot(self.root), allowed=[self.lock_file()])
        check((prefix / SITE / "libgood.so").read_bytes() == self.good, "libgood.so was edited")
        return f"check 6, relink 4, {max(result.peak_rss_mib, relinked.peak_rss_mib):.0f} MiB"

    def lock_file(self):
        return rf"\.prefix{self.count}\.wheelmod\.lock"

    def skipped(self, bad):
        """Not an ELF file at all (no \\x7fELF): not counted, not touched."""
        prefix = self.prefix(bad)
        before = snapshot(self.root)
        result = self.run("check", str(prefix), "--format", "json")
        check_no_sanitizer_report(result)
        check(result.returncode == 0 and json.loads(result.stdout)["files"] == 1,
              f"expected 1 ELF file checked (libgood.so)\n{result.describe()}")
        relinked = self.run("relink", str(prefix), "--toolchain", "foss-2024a",
                            "--eb-installpath", str(self.eb))
        check_no_sanitizer_report(relinked)
        check(relinked.returncode == 0, relinked.describe())
        check((prefix / SITE / "libbad.so").read_bytes() == bytes(bad), "libbad.so was changed")
        check_unchanged(before, snapshot(self.root),
                        allowed=[rf"prefix{self.count}/{SITE}/libgood\.so", self.lock_file()])
        return "not ELF: skipped by check and relink"

    def tolerated(self, bad):
        prefix = self.prefix(bad)
        outside = snapshot(self.root)
        result = self.run("check", str(prefix))
        check_no_sanitizer_report(result)
        check(result.returncode == 0, f"check failed on damage ld.so ignores\n{result.describe()}")
        relinked = self.run("relink", str(prefix), "--toolchain", "foss-2024a",
                            "--eb-installpath", str(self.eb))
        check_no_sanitizer_report(relinked)
        check(relinked.returncode == 0, relinked.describe())
        after = snapshot(self.root)
        check_unchanged(outside, after, allowed=[rf"prefix{self.count}/.*", self.lock_file()])
        edited = prefix / SITE / "libbad.so"
        check(b"/nonexistent/nvidia" not in edited.read_bytes(), "libbad.so was not relinked")
        loaded = subprocess.run([sys.executable, "-c", LOAD, str(edited)], capture_output=True,
                                text=True, timeout=60)
        check(loaded.returncode == 0 and loaded.stdout.strip() == "42",
              f"the relinked libbad.so does not load: {loaded.stderr}")
        return f"check 0, relink 0, loads; {max(result.peak_rss_mib, relinked.peak_rss_mib):.0f} MiB"


LOAD = "import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).hostile_answer())"


def headers(args):
    suite, work, good, e = Work.open_group(args, "damaged ELF and program headers, truncated ELF files")
    size = len(good)
    dynamic_end = e().segment(PT_DYNAMIC)[3] + e().segment(PT_DYNAMIC)[5]
    cases = [
        ("e_phoff_past_eof", lambda: work.broken(e().set_header("<Q", 32, 0xFFFFFFFF00).data,
                                                 r"program headers")),
        ("e_phoff_wraps", lambda: work.broken(e().set_header("<Q", 32, 2**64 - 8).data)),
        ("e_phentsize_zero", lambda: work.broken(e().set_header("<H", 54, 0).data)),
        ("pt_load_offset_past_eof", lambda: work.broken(
            e().set_segment(PT_LOAD, "offset", 1 << 40).data)),
        ("pt_dynamic_offset_past_eof", lambda: work.broken(
            e().set_segment(PT_DYNAMIC, "offset", size + 4096).data, r"PT_DYNAMIC")),
        ("pt_dynamic_filesz_2tib", lambda: work.broken(
            e().set_segment(PT_DYNAMIC, "filesz", 1 << 41).data, r"PT_DYNAMIC")),
        ("magic_only", lambda: work.broken(b"\x7fELF")),
        # e_phnum PN_XNUM: the count is then section 0's sh_info, 0 here, so the
        # reader sees no program headers: an ET_DYN without a PT_LOAD, which ld.so
        # refuses ("cannot read file data"), so check and relink must too. Likewise
        # an ELF32 class byte on this file reads as no program headers.
        ("e_phnum_pn_xnum", lambda: work.broken(e().set_header("<H", 56, 0xFFFF).data)),
        ("elf32_class_on_elf64", lambda: work.broken(e().set_header("<B", 4, 1).data)),
        # Not ELF at all: an empty file, and what libc.so really is (a linker script).
        ("empty_file", lambda: work.skipped(b"")),
        ("linker_script", lambda: work.skipped(
            b"/* GNU ld script */\nGROUP ( /lib/x86_64-linux-gnu/libc.so.6 )\n")),
    ]
    for cut in (32, 64, 100, size // 4, size // 2, dynamic_end - 8):
        cases.append((f"truncated_at_{cut}", lambda cut=cut: work.broken(good[:cut])))
    return suite.run_all(cases, work,
                         "every ELF or program header pointing past the file, and every cut "
                         "before the dynamic array's end: check exit 6 and relink exit 4 naming "
                         "the file and the broken field; no file edited, nothing outside written")


def dynamic(args):
    suite, work, good, e = Work.open_group(args, "damaged dynamic arrays and string tables")
    strsz = e().dynamic_value(DT_STRSZ)
    cases = [
        ("dt_strtab_in_no_segment", lambda: work.broken(
            e().set_dynamic(DT_STRTAB, 0x7FFF0000).data, r"DT_STRTAB")),
        ("dt_strtab_wraps", lambda: work.broken(e().set_dynamic(DT_STRTAB, 2**64 - 16).data)),
        ("dt_strsz_1tib", lambda: work.broken(e().set_dynamic(DT_STRSZ, 1 << 40).data, r"DT_STRTAB")),
        ("dt_needed_past_strtab", lambda: work.broken(e().set_dynamic(DT_NEEDED, strsz + 100).data)),
        ("dt_runpath_past_strtab", lambda: work.broken(
            e().set_dynamic(DT_RUNPATH, 1 << 33).data)),
        # The table ends inside the RUNPATH string: no NUL before its end.
        ("dt_runpath_unterminated", lambda: work.broken(
            e().set_dynamic(DT_STRSZ, e().dynamic_value(DT_RUNPATH) + 4).data)),
        ("dynamic_without_dt_null", lambda: work.broken(e().drop_dt_null().data, r"DT_NULL")),
    ]
    return suite.run_all(cases, work,
                         "string tables outside every segment or past their size, names past "
                         "the table, a dynamic array without DT_NULL: check exit 6, relink exit 4, "
                         "no allocation sized by a crafted field, no file edited")


def sections(args):
    suite, work, good, e = Work.open_group(args, "damage the dynamic loader ignores (section headers, tail)")
    cases = [
        ("e_shoff_past_eof", lambda: work.tolerated(e().set_header("<Q", 40, 0xFFFFFFFF00).data)),
        ("e_shnum_huge", lambda: work.tolerated(e().set_header("<H", 60, 0xFFFF).data)),
        ("e_shstrndx_out_of_range", lambda: work.tolerated(e().set_header("<H", 62, 0xFFFE).data)),
        ("overlapping_sections", lambda: work.tolerated(
            e().overlap_sections(".dynstr", ".dynsym").data)),
        ("dynamic_section_over_text", lambda: work.tolerated(
            e().overlap_sections(".dynamic", ".text").data)),
        # The section header table is the file's tail: a cut through it leaves
        # every segment whole.
        ("truncated_in_section_headers", lambda: work.tolerated(good[:len(good) - 1])),
    ]
    cases.append(("control_good_library", lambda: work.tolerated(good)))
    return suite.run_all(cases, work,
                         "section headers out of range or overlapping, and a cut through the "
                         "section header table: read from the program headers as ld.so does, "
                         "relinked, and the edited library still loads (ctypes) and answers 42")


def install(args):
    """The same damage inside a wheel: `install --wheel` relinks and checks the staged
    tree, so a broken library stops it before the prefix exists (docs/install.md:
    "a prefix that would not load is never committed")."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "install"))
    from make_wheel import Member, Wheel

    suite, work, good, e = Work.open_group(args, "damaged ELF files inside a wheel",
                                           "wheelmod install --wheel FILE --prefix P")
    parent = work.root / "software"
    parent.mkdir()

    def attempt(name, library):
        wheel = Wheel()
        wheel.members.append(Member("demo/libbad.so", bytes(library), 0o755))
        directory = work.top / "wheels" / name
        directory.mkdir(parents=True)
        path = directory / wheel.file_name
        wheel.write(path)
        before = snapshot(work.root)
        prefix = parent / name
        result = work.run("install", "--wheel", str(path), "--prefix", str(prefix),
                          "--toolchain", "foss-2024a", "--python", "3.11", "--no-compile")
        return result, prefix, before

    def refused(name, library, *patterns):
        result, prefix, before = attempt(name, library)
        check_error(result, 4, r"libbad\.so: broken ELF file", *patterns)
        check(not prefix.exists(), f"{prefix} exists after a refused install")
        check_unchanged(before, snapshot(work.root), allowed=[rf"software/\.{name}\.wheelmod\.lock"])
        return f"exit 4, {result.peak_rss_mib:.0f} MiB"

    def installed(name, library):
        result, prefix, _ = attempt(name, library)
        check_no_sanitizer_report(result)
        check(result.returncode == 0, result.describe())
        loaded = subprocess.run([sys.executable, "-c", LOAD,
                                 str(prefix / SITE.parent / "demo" / "libbad.so")],
                                capture_output=True, text=True, timeout=60)
        check(loaded.returncode == 0 and loaded.stdout.strip() == "42",
              f"install committed a library that does not load: {loaded.stderr.strip()}")

    cases = [
        ("e_phoff_past_eof", lambda: refused("phoff", e().set_header("<Q", 32, 0xFFFFFFFF00).data)),
        ("dt_strtab_in_no_segment", lambda: refused(
            "strtab", e().set_dynamic(DT_STRTAB, 0x7FFF0000).data, r"DT_STRTAB")),
        ("dynamic_without_dt_null", lambda: refused("nonull", e().drop_dt_null().data)),
        ("truncated_half", lambda: refused("half", good[:len(good) // 2])),
        ("e_phnum_pn_xnum", lambda: refused("xnum", e().set_header("<H", 56, 0xFFFF).data)),
        ("control_good_library", lambda: installed("good", good)),
    ]
    return suite.run_all(cases, work,
                         "a wheel whose library is broken stopped by the staged relink with exit 4 "
                         "naming the file; no prefix, only the install lock in its parent; the "
                         "intact library installs and loads")


GROUPS = {"headers": headers, "dynamic": dynamic, "sections": sections, "install": install}
# What CTest needs to run each group (`--list`, read by tests/hostile/CMakeLists.txt).
CTEST = {"*": {"timeout": 120}}

if __name__ == "__main__":
    sys.exit(main_with_groups(__doc__.splitlines()[0], GROUPS, ctest=CTEST))
