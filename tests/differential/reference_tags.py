#!/usr/bin/python3
"""Reference tag lists: what python3-packaging 23.0's ``sys_tags()`` gives
on a CPython X.Y, glibc 2.N, <arch> Linux machine (what pip uses).

``packaging.tags.sys_tags()`` only describes the interpreter it runs in, so
this module calls the same building blocks with explicit arguments and
patches the few host probes they make:

* ``packaging._manylinux._get_glibc_version`` returns the target glibc, parsed
  by packaging's own ``_parse_glibc_version`` (so "2.20-2014.11" is 2.20).
* ``packaging._manylinux._have_compatible_abi`` answers as on a normal
  CPython of that arch: the ELF probes for ``armv7l`` (hard-float) and
  ``i686`` (32-bit x86) are taken as true, every other arch keeps
  packaging's own rule (x86_64, aarch64, ppc64, ppc64le, s390x; anything
  else gets no manylinux tags at all in 23.0).
* ``sys.modules["_manylinux"] = None``: no distributor override module.
* ``packaging._musllinux.platform_tags`` yields nothing: a glibc host.
* ``sysconfig.get_platform`` returns ``linux-<arch>``; ``_linux_platforms``
  is called with ``is_32bit=False`` so the arch is taken as given.

Then, as ``sys_tags()`` does for CPython::

    cpython_tags(python_version=(X, Y), abis=[abi], platforms=platforms)
    compatible_tags(python_version=(X, Y), interpreter="cpXY", platforms=...)

with ``abi`` what ``_cpython_abis`` gives on a normal (non-debug) build:
``cpXY``, or ``cp37m`` for 3.7 (pymalloc).

Free-threaded targets (``3.13t``) postdate packaging 23.0. They are
emulated as packaging >= 24.1 behaves on such a build: abi ``cp313t`` and no
abi3 tags (PEP 703: the stable ABI is not available without the GIL), i.e.
23.0's list with ``abis=["cp313t"]`` and the abi3 tags dropped. That part is
an emulation, not the reference itself.

Usage as a script: ``reference_tags.py 3.12 x86_64 2.28`` prints one tag per
line, best first.
"""

import re
import sys
import sysconfig
from typing import List, Tuple
from unittest import mock

from packaging import _manylinux, _musllinux, tags


def _parse_python(python: str) -> Tuple[int, int, bool]:
    m = re.fullmatch(r"(\d+)\.(\d+)(t?)", python)
    if m is None:
        raise ValueError(f"python version must look like 3.12 or 3.13t, got {python!r}")
    return int(m.group(1)), int(m.group(2)), m.group(3) == "t"


def _have_compatible_abi(executable: str, arch: str) -> bool:
    if arch in ("armv7l", "i686"):
        return True
    return arch in {"x86_64", "aarch64", "ppc64", "ppc64le", "s390x"}


def platforms_for_target(arch: str, glibc: str) -> List[str]:
    """The platform tags of ``_linux_platforms()`` on that host, best first."""
    glibc_version = _manylinux._parse_glibc_version(glibc)
    with mock.patch.object(
        _manylinux, "_get_glibc_version", lambda: glibc_version
    ), mock.patch.object(
        _manylinux, "_have_compatible_abi", _have_compatible_abi
    ), mock.patch.object(
        _musllinux, "platform_tags", lambda arch: iter(())
    ), mock.patch.object(
        sysconfig, "get_platform", lambda: f"linux-{arch}"
    ), mock.patch.dict(
        sys.modules, {"_manylinux": None}
    ):
        return list(tags._linux_platforms(is_32bit=False))


def tags_for_target(python: str, arch: str, glibc: str) -> List[str]:
    """Tags ("interp-abi-platform") a CPython ``python`` ("3.12", "3.13t")
    on ``arch`` Linux with glibc ``glibc`` ("2.28") accepts, best first."""
    major, minor, free_threaded = _parse_python(python)
    version = (major, minor)
    nodot = f"{major}{minor}"
    platforms = platforms_for_target(arch, glibc)
    if free_threaded:
        abi = f"cp{nodot}t"
    elif version < (3, 8):
        abi = f"cp{nodot}m"
    else:
        abi = f"cp{nodot}"
    result = list(tags.cpython_tags(python_version=version, abis=[abi], platforms=platforms))
    if free_threaded:
        result = [t for t in result if t.abi != "abi3"]
    result += tags.compatible_tags(
        python_version=version, interpreter=f"cp{nodot}", platforms=platforms
    )
    return [str(t) for t in result]


def main(argv: List[str]) -> int:
    if len(argv) != 4:
        print(f"usage: {argv[0]} PYTHON ARCH GLIBC   (e.g. 3.12 x86_64 2.28)", file=sys.stderr)
        return 2
    for tag in tags_for_target(argv[1], argv[2], argv[3]):
        print(tag)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
