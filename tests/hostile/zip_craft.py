"""Zip archives written byte by byte (PKWARE APPNOTE 6.3.10), for layouts that Python's
zipfile will not write: entries whose bytes overlap, a second archive hidden in the end
record's comment, bytes before or after the archive, a central directory whose count and size
disagree. Each archive is a small wheel of the project `demo` 1.0 whose RECORD is right for the
entries as a reader that accepts the layout would extract them, so only the layout can be the
reason for a refusal.
"""
import base64
import hashlib
import random
import struct
import zlib

DIST_INFO = "demo-1.0.dist-info"
WHEEL = b"Wheel-Version: 1.0\nGenerator: zip_craft\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
METADATA = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
END_SIGNATURE = b"PK\x05\x06"


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def wheel_files(package):
    """{name: content} of a wheel holding `package` ({path under demo/: bytes})."""
    files = {f"demo/{path}": data for path, data in package.items()}
    files[f"{DIST_INFO}/WHEEL"] = WHEEL
    files[f"{DIST_INFO}/METADATA"] = METADATA
    return with_record(files)


def with_record(files):
    rows = [f"{name},{record_hash(data)},{len(data)}" for name, data in files.items()]
    rows.append(f"{DIST_INFO}/RECORD,,")
    return {**files, f"{DIST_INFO}/RECORD": ("\n".join(rows) + "\n").encode()}


class Entry:
    """One entry as stored: `raw` the bytes after the local header, `content` what they
    extract to."""

    def __init__(self, name, content, method=8, flags=0):
        self.name = name.encode()
        self.content = content
        self.method = method
        self.flags = flags
        self.raw = deflate(content) if method == 8 else content
        self.crc = zlib.crc32(content)
        self.offset = 0

    def local_header(self):
        # §4.3.7: signature, version, flags, method, time, date, CRC, sizes, name and extra lengths.
        return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, self.flags, self.method, 0, 0x5021,
                           self.crc, len(self.raw), len(self.content), len(self.name), 0) + self.name

    def central_header(self):
        # §4.3.12; external attributes: a Unix regular file, 0644.
        return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, self.flags, self.method,
                           0, 0x5021, self.crc, len(self.raw), len(self.content), len(self.name),
                           0, 0, 0, 0, (0o100644 << 16), self.offset) + self.name


def deflate(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def end_record(count, directory_size, directory_offset, comment=b""):
    # §4.3.16
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, directory_size,
                       directory_offset, len(comment)) + comment


def archive(entries, base=0, comment=b"", count=None):
    """Entries one after another, the central directory, the end record; offsets counted from
    `base` (where the archive will start in the file)."""
    body = b""
    for entry in entries:
        entry.offset = base + len(body)
        body += entry.local_header() + entry.raw
    directory = b"".join(entry.central_header() for entry in entries)
    listed = len(entries) if count is None else count
    return (body + directory +
            end_record(listed, len(directory), base + len(body), comment))


def plain_wheel(package, comment=b""):
    return archive([Entry(n, d) for n, d in wheel_files(package).items()], comment=comment)


def hidden_second_archive(package, hidden_package):
    """Archive A whose end record's comment is archive B, entries, directory and end record,
    at the offsets they have in the file: pip and `unzip -l` read B, a reader that takes the
    first consistent record reads A."""
    first = [Entry(n, d) for n, d in wheel_files(package).items()]
    body = archive(first)[:-22]  # A's entries and directory
    second_base = len(body) + 22
    second = archive([Entry(n, d) for n, d in wheel_files(hidden_package).items()],
                     base=second_base)
    directory_size = sum(len(entry.central_header()) for entry in first)
    return body + end_record(len(first), directory_size, len(body) - directory_size, second)


def overlapping_bomb(entries=64, kernel_mib=1):
    """Fifield's non-recursive bomb ("A better zip bomb", WOOT 2019): one deflated kernel that
    every entry ends with, each entry's data quoting the local headers of the entries after it
    in stored (non-compressed) deflate blocks. Every local header agrees with its central
    entry, each entry's ratio is modest, yet the archive extracts entries x kernel bytes."""
    rng = random.Random(1)
    kernel_out = rng.randbytes(4096) * (256 * kernel_mib)  # compresses ~300:1, not 1000:1
    kernel = deflate(kernel_out)
    files = {f"{DIST_INFO}/WHEEL": WHEEL, f"{DIST_INFO}/METADATA": METADATA}
    names = [f"demo/bomb_{i:03d}.bin".encode() for i in range(entries)]
    # From the last entry back: entry i extracts to LH(i+1) .. LH(n) + kernel_out, and its raw
    # data is a stored block quoting LH(i+1), then entry i+1's raw data.
    headers = [None] * entries
    contents = [None] * entries
    raws = [None] * entries
    for i in reversed(range(entries)):
        if i == entries - 1:
            raw, content = kernel, kernel_out
        else:
            quoted = headers[i + 1]
            stored = b"\x00" + struct.pack("<HH", len(quoted), len(quoted) ^ 0xFFFF)
            raw, content = stored + quoted + raws[i + 1], quoted + contents[i + 1]
        raws[i], contents[i] = raw, content
        headers[i] = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x5021,
                                 zlib.crc32(content), len(raw), len(content), len(names[i]),
                                 0) + names[i]
    for name, content in zip(names, contents):
        files[name.decode()] = content
    files = with_record(files)
    # The metadata first, as ordinary entries; then the bomb's headers back to back.
    plain = [Entry(n, d) for n, d in files.items() if not n.startswith("demo/bomb_")]
    body = b""
    for entry in plain:
        entry.offset = len(body)
        body += entry.local_header() + entry.raw
    bomb = []
    for i, name in enumerate(names):
        entry = Entry(name.decode(), b"")
        entry.raw, entry.content, entry.crc = raws[i], contents[i], zlib.crc32(contents[i])
        entry.offset = len(body)
        bomb.append(entry)
        body += headers[i] + (b"\x00" + struct.pack("<HH", len(headers[i + 1]),
                                                    len(headers[i + 1]) ^ 0xFFFF)
                              if i + 1 < entries else kernel)
    everything = plain + bomb
    directory = b"".join(entry.central_header() for entry in everything)
    data = body + directory + end_record(len(everything), len(directory), len(body))
    return data, entries * len(kernel_out)
