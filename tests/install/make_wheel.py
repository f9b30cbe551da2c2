"""Writes small wheels for the installer tests: a good one that uses every
part of the format (both script groups, `.data` scheme directories, a
`#!python` script, an executable file), and variants that each break one
rule of the PyPA "Binary distribution format" or of safe unpacking.

Run:  python3 make_wheel.py CASE OUTDIR   (writes OUTDIR/<wheel>, prints its path)
      python3 make_wheel.py --list        (the case names)
Standard library only; the output is the same bytes on every run.
"""

import argparse
import base64
import hashlib
import io
import stat
import struct
import sys
import warnings
import zipfile
from pathlib import Path

DATE = (2020, 1, 1, 0, 0, 0)
DIST_INFO = "demo-1.0.dist-info"
DATA = "demo-1.0.data"

CLI = b"""import sys


def main():
    print("demo main", " ".join(sys.argv[1:]))
    return 0


def gui():
    return 3
"""


class Member:
    def __init__(self, name, data, mode=0o644, file_type=stat.S_IFREG):
        self.name = name
        self.data = data
        self.mode = mode
        self.file_type = file_type


class Wheel:
    """A wheel being built: members, then RECORD from them unless a case edits it."""

    def __init__(self):
        self.file_name = "demo-1.0-py3-none-any.whl"
        self.dist_info = DIST_INFO
        self.members = [
            Member("demo/__init__.py", b"VERSION = '1.0'\n"),
            Member("demo/cli.py", CLI),
            Member("demo/data.bin", bytes(range(256)) * 64),
            Member("demo/tool.sh", b"#!/bin/sh\necho tool\n", 0o755),
            Member(f"{DATA}/scripts/demo-script",
                   b"#!python -u\nimport demo\nprint('script', demo.VERSION)\n"),
            Member(f"{DATA}/scripts/plain.sh", b"#!/bin/sh\necho plain\n", 0o755),
            # A setuptools wrapper for the `demo` entry point: replaced, as pip does.
            Member(f"{DATA}/scripts/demo", b"#!python\nraise SystemExit('old wrapper')\n"),
            Member(f"{DATA}/headers/demo.h", b"#define DEMO 1\n"),
            Member(f"{DATA}/data/share/demo/readme.txt", b"demo data\n"),
            Member(f"{DATA}/purelib/demo_extra.py", b"EXTRA = True\n"),
            Member(f"{DIST_INFO}/METADATA",
                   b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nSummary: test\n"),
            Member(f"{DIST_INFO}/WHEEL",
                   b"Wheel-Version: 1.0\nGenerator: make_wheel.py\nRoot-Is-Purelib: true\n"
                   b"Tag: py3-none-any\n"),
            Member(f"{DIST_INFO}/entry_points.txt",
                   b"[console_scripts]\ndemo = demo.cli:main\n\n"
                   b"[gui_scripts]\ndemo-gui = demo.cli:gui\n"),
        ]
        self.record_edits = []  # functions rows -> rows
        self.record = True
        self.force_zip64 = False
        self.compression = zipfile.ZIP_DEFLATED
        self.streamed = False  # written as to a pipe: sizes in data descriptors
        self.patches = []  # functions bytearray -> None, after writing

    def replace(self, name, data):
        for member in self.members:
            if member.name == name:
                member.data = data
                return
        raise KeyError(name)

    def record_rows(self):
        rows = []
        for member in self.members:
            if member.file_type != stat.S_IFREG or member.name.endswith("/"):
                continue
            digest = base64.urlsafe_b64encode(hashlib.sha256(member.data).digest())
            rows.append([member.name, "sha256=" + digest.rstrip(b"=").decode(),
                         str(len(member.data))])
        for edit in self.record_edits:
            rows = edit(rows)
        rows.append([f"{self.dist_info}/RECORD", "", ""])
        return "".join(",".join(row) + "\n" for row in rows).encode()

    def write(self, path):
        members = list(self.members)
        if self.record:
            members.append(Member(f"{self.dist_info}/RECORD", self.record_rows()))
        limits = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
        if self.force_zip64:
            # zipfile writes ZIP64 central directory fields and the ZIP64 end
            # records only past these limits; at 0 every record is ZIP64.
            zipfile.ZIP64_LIMIT = zipfile.ZIP_FILECOUNT_LIMIT = 0
        try:
            self._write_members(path, members)
        finally:
            zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limits
        if self.patches:
            data = bytearray(path.read_bytes())
            for patch in self.patches:
                patch(data)
            path.write_bytes(bytes(data))

    def _write_members(self, path, members):
        target = Unseekable() if self.streamed else path
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Duplicate name" is what some cases want
            with zipfile.ZipFile(target, "w") as archive:
                for member in members:
                    info = zipfile.ZipInfo(member.name, DATE)
                    info.create_system = 3  # Unix: external attributes hold st_mode
                    info.external_attr = (member.file_type | member.mode) << 16
                    info.compress_type = self.compression
                    with archive.open(info, "w", force_zip64=self.force_zip64) as out:
                        out.write(member.data)
        if self.streamed:
            path.write_bytes(target.getvalue())


class Unseekable(io.BytesIO):
    """A pipe to zipfile: it cannot seek back to fill in a local header, so
    it sets general purpose bit 3 and writes a data descriptor instead."""

    def seekable(self):
        return False

    def seek(self, *args):
        raise OSError("unseekable")

    def tell(self):
        raise OSError("unseekable")


def central_entries(data):
    """(offset of the central header, name) for each member (APPNOTE 4.3.12)."""
    end = data.rfind(b"PK\x05\x06")
    count, _size, offset = struct.unpack_from("<HII", data, end + 10)
    entries = []
    for _ in range(count):
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", data, offset + 28)
        entries.append((offset, bytes(data[offset + 46:offset + 46 + name_length]).decode()))
        offset += 46 + name_length + extra_length + comment_length
    return entries


def header_offsets(data, name):
    """(central header, local header) offsets of each member called `name`: the
    local header's offset is field 42 of the central one (APPNOTE 4.3.12)."""
    for offset, entry in central_entries(data):
        if entry == name:
            yield offset, struct.unpack_from("<I", data, offset + 42)[0]


def set_encrypted_flag(name):
    """Sets bit 0 (encrypted) in both headers of `name`; zipfile cannot encrypt."""
    def patch(data):
        for central, local in header_offsets(data, name):
            data[central + 8] |= 1
            data[local + 6] |= 1
    return patch


def rename_local_header(name, other):
    """The local header says `other`, the central directory `name`."""
    assert len(name) == len(other)
    def patch(data):
        for _, local in header_offsets(data, name):
            data[local + 30:local + 30 + len(other)] = other.encode()
    return patch


def set_uncompressed_size(name, size):
    """Both headers of `name` claim `size` uncompressed bytes (APPNOTE 4.3.7, 4.3.12)."""
    def patch(data):
        for central, local in header_offsets(data, name):
            struct.pack_into("<I", data, central + 24, size)
            struct.pack_into("<I", data, local + 22, size)
    return patch


def edit_row(name, field, value):
    def edit(rows):
        for row in rows:
            if row[0] == name:
                row[field] = value
        return rows
    return edit


CASES = {}


def case(function):
    CASES[function.__name__] = function
    return function


@case
def good(wheel):
    pass


@case
def zip64(wheel):
    wheel.force_zip64 = True


@case
def data_descriptor(wheel):
    wheel.streamed = True


@case
def stored(wheel):
    wheel.compression = zipfile.ZIP_STORED


@case
def platlib_root(wheel):
    wheel.replace(f"{DIST_INFO}/WHEEL", b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\n")


@case
def wheel_version_1_9(wheel):
    wheel.replace(f"{DIST_INFO}/WHEEL", b"Wheel-Version: 1.9\nRoot-Is-Purelib: true\n")


@case
def wheel_version_2_0(wheel):
    wheel.replace(f"{DIST_INFO}/WHEEL", b"Wheel-Version: 2.0\nRoot-Is-Purelib: true\n")


@case
def signature(wheel):
    wheel.members.append(Member(f"{DIST_INFO}/RECORD.jws", b"{}"))
    wheel.record_edits.append(lambda rows: [r for r in rows if not r[0].endswith(".jws")])


@case
def absolute(wheel):
    wheel.members.append(Member("/tmp/evil.py", b"x = 1\n"))


@case
def dotdot(wheel):
    wheel.members.append(Member("demo/../../evil.py", b"x = 1\n"))


@case
def backslash(wheel):
    wheel.members.append(Member("demo\\evil.py", b"x = 1\n"))


@case
def control_character(wheel):
    wheel.members.append(Member("demo/ev\x1b[2Kil.py", b"x = 1\n"))


@case
def empty_name(wheel):
    wheel.members.append(Member("", b"x = 1\n"))


@case
def symlink(wheel):
    wheel.members.append(Member("demo/link", b"../../../../etc/passwd", 0o777, stat.S_IFLNK))


@case
def duplicate(wheel):
    wheel.members.append(Member("demo/__init__.py", b"VERSION = 'evil'\n"))


@case
def duplicate_dot(wheel):
    wheel.members.append(Member("./demo/__init__.py", b"VERSION = 'evil'\n"))


@case
def size_mismatch(wheel):
    wheel.record_edits.append(edit_row("demo/cli.py", 2, str(len(CLI) + 1)))


@case
def lying_size(wheel):
    # Central directory and RECORD agree on 100 bytes; the data inflates to 111.
    wheel.record_edits.append(edit_row("demo/cli.py", 2, "100"))
    wheel.patches.append(set_uncompressed_size("demo/cli.py", 100))


@case
def hash_mismatch(wheel):
    wheel.record_edits.append(edit_row("demo/cli.py", 1, "sha256=" + "A" * 43))


@case
def unsupported_hash(wheel):
    digest = base64.urlsafe_b64encode(hashlib.sha512(CLI).digest()).rstrip(b"=").decode()
    wheel.record_edits.append(edit_row("demo/cli.py", 1, "sha512=" + digest))


@case
def record_lists_absent_file(wheel):
    wheel.record_edits.append(lambda rows: rows + [["demo/absent.py", "sha256=" + "A" * 43, "3"]])


@case
def record_misses_file(wheel):
    wheel.record_edits.append(lambda rows: [r for r in rows if r[0] != "demo/data.bin"])


@case
def no_record(wheel):
    wheel.record = False


@case
def zip_bomb(wheel):
    # 16 MiB of zeros deflate about 1030:1, over the default limit of 1000.
    wheel.members.append(Member("demo/zeros.bin", bytes(16 << 20)))


@case
def encrypted(wheel):
    wheel.patches.append(set_encrypted_flag("demo/cli.py"))


@case
def local_header_differs(wheel):
    wheel.patches.append(rename_local_header("demo/cli.py", "demo/evl.py"))


@case
def unknown_scheme(wheel):
    wheel.members.append(Member(f"{DATA}/elsewhere/x.txt", b"x\n"))


@case
def two_entries_one_file(wheel):
    wheel.members.append(Member(f"{DATA}/purelib/demo/__init__.py", b"VERSION = 'two'\n"))


@case
def foreign_dist_info(wheel):
    wheel.dist_info = "other-1.0.dist-info"
    for member in wheel.members:
        member.name = member.name.replace(DIST_INFO, wheel.dist_info)


@case
def bad_entry_point(wheel):
    wheel.replace(f"{DIST_INFO}/entry_points.txt",
                  b"[console_scripts]\ndemo = os; os.system('true') #:main\n")


@case
def not_a_zip(wheel):
    wheel.patches.append(lambda data: data.__setitem__(slice(0, len(data)), b"not a zip\n" * 10))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", nargs="?", choices=sorted(CASES))
    parser.add_argument("outdir", nargs="?", type=Path)
    parser.add_argument("--list", action="store_true", help="print the case names")
    args = parser.parse_args()
    if args.list:
        print("\n".join(sorted(CASES)))
        return 0
    if args.case is None or args.outdir is None:
        parser.error("CASE and OUTDIR are required")
    wheel = Wheel()
    CASES[args.case](wheel)
    args.outdir.mkdir(parents=True, exist_ok=True)
    path = args.outdir / wheel.file_name
    wheel.write(path)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
