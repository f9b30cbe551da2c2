#!/usr/bin/env python3
"""Writes src/wheel/stdlib_module_names.cpp: the top-level modules of CPython's standard library,
each with the Python 3 minor versions that have it (startup_code.cpp flags a wheel's top-level
module of such a name: on PYTHONPATH it shadows the standard library's).

    python3 src/wheel/generate_stdlib_module_names.py PYTHON... > src/wheel/stdlib_module_names.cpp

PYTHON... are interpreters of consecutive versions from 3.10 down (pyenv's 3.6-3.13 here:
~/.pyenv/versions/3.*/bin/python3). Sources, per version:

* 3.10 and later: the interpreter's sys.stdlib_module_names, which is CPython's
  Python/stdlib_module_names.h (written by Tools/build/generate_stdlib_module_names.py): private
  modules (`_json`) included, test modules (`_testcapi`, `xxlimited`) left out.
* 3.14 when no 3.14 interpreter is given: 3.13's list plus what CPython 3.14 added (ADDED_IN,
  each with its source).
* before 3.10, which has no sys.stdlib_module_names: what the interpreter's own standard library
  holds (Lib/*.py and packages, lib-dynload extensions, sys.builtin_module_names; test modules
  left out as CPython's generator leaves them out), plus the names of the 3.10 list that no
  interpreter here can show: other platforms' (`winreg`, `_scproxy`) and extensions a build
  leaves out (OPTIONAL). The same scan of each 3.10+ interpreter is checked against its
  sys.stdlib_module_names (stderr says what differs), so the method is seen to agree.
"""
import json
import subprocess
import sys

# What CPython 3.14 added to sys.stdlib_module_names, with where each is said.
ADDED_IN = {
    14: {
        # Python/stdlib_module_names.h of python/cpython at 00271b5d79a4cf6ffaa600e90d413cb2927a3230
        # (main during 3.14's development): 3.13's list plus _hmac and annotationlib.
        "_hmac": "Python/stdlib_module_names.h (3.14 development)",
        "annotationlib": "PEP 749; What's New In Python 3.14, New modules",
        "compression": "PEP 784; What's New In Python 3.14, New modules",
        "_zstd": "PEP 784 (compression.zstd's extension module)",
    },
}

# Extensions that existed before 3.6 and that a build can leave out (a missing library): a scan
# that lacks one says nothing about the version. pyenv's 3.6 builds no _hashlib against OpenSSL 3.
OPTIONAL = {"_bz2", "_ctypes", "_curses", "_curses_panel", "_dbm", "_decimal", "_gdbm", "_hashlib",
            "_lzma", "_sqlite3", "_ssl", "_tkinter", "nis", "readline", "zlib"}

# Run in each interpreter: its minor version, its list where it has one, and the scan.
PROBE = r"""
import importlib.machinery, json, os, sys, sysconfig
lib = sysconfig.get_paths()["stdlib"]
names = set(sys.builtin_module_names)
for entry in os.listdir(lib):
    if entry.endswith(".py"):
        names.add(entry[:-3])
    elif os.path.isfile(os.path.join(lib, entry, "__init__.py")):
        names.add(entry)
dynload = os.path.join(lib, "lib-dynload")
for entry in os.listdir(dynload):
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if entry.endswith(suffix):
            names.add(entry[: -len(suffix)])
            break
print(json.dumps({"minor": sys.version_info[1], "version": sys.version.split()[0],
                  "names": sorted(getattr(sys, "stdlib_module_names", [])) or None,
                  "scanned": sorted(names)}))
"""


def is_test_module(name):
    """What CPython's generator leaves out: test packages and extensions, the example extensions
    (xx*), the build's sysconfig data, the frozen test modules."""
    return (name == "test" or name.startswith(("_test", "xx", "_xx", "__phello__", "__hello__",
                                               "_sysconfigdata", "_ctypes_test")))


def probe(python):
    result = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, check=True)
    found = json.loads(result.stdout)
    found["scanned"] = {n for n in found["scanned"] if not is_test_module(n)}
    return found


def main(pythons):
    found = {}
    for python in pythons:
        probed = probe(python)
        found[probed["minor"]] = probed
    if 10 not in found or not found[10]["names"]:
        sys.exit("a Python 3.10 is needed: its list is the base of the older ones")
    sets = {}
    sources = {}
    for minor, probed in found.items():
        if probed["names"]:
            sets[minor] = set(probed["names"])
            sources[minor] = f"sys.stdlib_module_names of {probed['version']}"
            differs = probed["scanned"] ^ sets[minor]
            print(f"3.{minor}: the scan differs from sys.stdlib_module_names in "
                  f"{' '.join(sorted(differs))} (other platforms, optional extensions)",
                  file=sys.stderr)
    unseen = set(found[10]["names"]) - set().union(*(p["scanned"] for p in found.values()))
    for minor, probed in found.items():
        if not probed["names"]:
            sets[minor] = probed["scanned"] | unseen | (OPTIONAL & set(found[10]["names"]))
            sources[minor] = f"a scan of {probed['version']}'s standard library"
    for minor, added in sorted(ADDED_IN.items()):
        if minor not in sets and minor - 1 in sets:
            sets[minor] = sets[minor - 1] | set(added)
            sources[minor] = f"3.{minor - 1}'s list and\n" + "\n".join(
                f"        {name}: {why}" for name, why in sorted(added.items()))
    minors = sorted(sets)
    if minors != list(range(minors[0], minors[-1] + 1)):
        sys.exit(f"versions missing between 3.{minors[0]} and 3.{minors[-1]}: {minors}")
    rows = []
    for name in sorted(set().union(*sets.values())):
        present = [m for m in minors if name in sets[m]]
        start = present[0]
        for at, minor in enumerate(present):
            if at + 1 == len(present) or present[at + 1] != minor + 1:
                rows.append((name, start, minor))
                if at + 1 < len(present):
                    start = present[at + 1]
    write(rows, minors, sources)


def write(rows, minors, sources):
    lines = [("// Generated by src/wheel/generate_stdlib_module_names.py: do not edit, "
              "run it again."),
             "// The top-level modules of CPython's standard library, each with the first and last",
             "// Python 3 minor version that has it. Sources:"]
    for minor in minors:
        lines += ["//   " + line for line in f"3.{minor}: {sources[minor]}".split("\n")]
    lines += ['#include "stdlib_module_names.hpp"', "", "namespace wheelmod::wheel {", "",
              "namespace {", "", "// clang-format off", "constexpr StdlibModule k_modules[] = {"]
    lines += [f'    {{"{name}", {first}, {last}}},' for name, first, last in rows]
    lines += ["};", "// clang-format on", "", "}  // namespace", "",
              "std::span<const StdlibModule> stdlib_modules() { return k_modules; }", "",
              f"int stdlib_oldest_minor() {{ return {minors[0]}; }}",
              f"int stdlib_newest_minor() {{ return {minors[-1]}; }}", "",
              "}  // namespace wheelmod::wheel"]
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
