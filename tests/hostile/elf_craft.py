"""Damages a real ELF64 little-endian shared library, one field at a time
(System V gABI, "ELF Header", "Program Header", "Dynamic Section").

The library is compiled by gcc in the test (build_library); each function
here returns a bytearray edit of it. Offsets are those of Elf64_Ehdr,
Elf64_Phdr, Elf64_Shdr and Elf64_Dyn.
"""
import struct
import subprocess
from pathlib import Path

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 15, 29

SOURCE = "int hostile_answer(void) { return 42; }\n"


def build_library(directory, name="libvictim.so", rpath="$ORIGIN:/nonexistent/nvidia/cublas/lib"):
    """A real shared library: DT_NEEDED libm.so.6 and libc.so.6, a DT_RUNPATH
    that relink has work on (a kept $ORIGIN, a dropped non-existent entry)."""
    directory = Path(directory)
    source = directory / "victim.c"
    source.write_text(SOURCE)
    out = directory / name
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(out), str(source),
                    f"-Wl,-rpath,{rpath}", "-Wl,--no-as-needed", "-lm"], check=True)
    return out


class Elf:
    def __init__(self, data):
        self.data = bytearray(data)
        assert self.data[:4] == b"\x7fELF" and self.data[4] == 2 and self.data[5] == 1, "ELF64 LE"
        (self.phoff, self.shoff) = struct.unpack_from("<QQ", self.data, 32)
        (self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHHHH", self.data, 54)

    # --- header fields
    def set_header(self, fmt, offset, value):
        struct.pack_into(fmt, self.data, offset, value)
        return self

    # --- program headers: (index, p_type, p_offset, p_vaddr, p_filesz, p_memsz)
    def segments(self):
        for i in range(self.phnum):
            at = self.phoff + i * self.phentsize
            p_type, _flags, offset, vaddr, _paddr, filesz, memsz = struct.unpack_from(
                "<IIQQQQQ", self.data, at)
            yield i, at, p_type, offset, vaddr, filesz, memsz

    def segment(self, wanted):
        return next(s for s in self.segments() if s[2] == wanted)

    def set_segment(self, wanted, field, value):
        _, at, *_ = self.segment(wanted)
        offsets = {"offset": 8, "vaddr": 16, "filesz": 32, "memsz": 40}
        struct.pack_into("<Q", self.data, at + offsets[field], value)
        return self

    # --- the dynamic array
    def dynamic(self, past_dt_null=False):
        """(offset, tag, value) of each entry, up to DT_NULL unless `past_dt_null`
        (then the padding after the terminator too)."""
        _, _, _, offset, _, filesz, _ = self.segment(PT_DYNAMIC)
        for at in range(offset, offset + filesz, 16):
            tag, value = struct.unpack_from("<qQ", self.data, at)
            yield at, tag, value
            if tag == DT_NULL and not past_dt_null:
                return

    def set_dynamic(self, wanted, value, nth=0):
        matches = [at for at, tag, _ in self.dynamic() if tag == wanted]
        struct.pack_into("<Q", self.data, matches[nth] + 8, value)
        return self

    def dynamic_value(self, wanted):
        return next(value for _, tag, value in self.dynamic() if tag == wanted)

    def drop_dt_null(self):
        """Every DT_NULL (the terminator and the padding after it) becomes DT_NEEDED 1."""
        for at, tag, _ in list(self.dynamic(past_dt_null=True)):
            if tag == DT_NULL:
                struct.pack_into("<qQ", self.data, at, DT_NEEDED, 1)
        return self

    # --- section headers
    def section(self, index):
        return self.shoff + index * self.shentsize

    def section_named(self, name):
        names_at = struct.unpack_from("<Q", self.data, self.section(self.shstrndx) + 24)[0]
        for i in range(self.shnum):
            at = self.section(i)
            name_offset = struct.unpack_from("<I", self.data, at)[0]
            end = self.data.index(0, names_at + name_offset)
            if self.data[names_at + name_offset:end].decode() == name:
                return at
        raise KeyError(name)

    def overlap_sections(self, moved, onto):
        """Section `moved` gets the file offset of section `onto`, and grows over it."""
        target = self.section_named(onto)
        offset, size = struct.unpack_from("<QQ", self.data, target + 24)
        at = self.section_named(moved)
        struct.pack_into("<QQ", self.data, at + 24, offset, size * 4)
        return self
