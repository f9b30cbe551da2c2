#!/usr/bin/env python3
"""check_layering.py on a small tree made here: one clean layout passes, and
each kind of violation is found, by name, in a copy that has just that one."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write(text)


def make_tree(root):
    """low <- high: high's public header needs low; curl stays private to low."""
    write(f"{root}/src/low/include/low/api.hpp", "#pragma once\nint low();\n")
    write(f"{root}/src/low/detail.hpp", "#pragma once\n#include <curl/curl.h>\n")
    write(f"{root}/src/low/api.cpp", '#include "low/api.hpp"\n#include "detail.hpp"\n')
    write(f"{root}/src/high/include/high/api.hpp", '#pragma once\n#include "low/api.hpp"\n')
    write(f"{root}/src/high/api.cpp", '#include "high/api.hpp"\n#include <fmt/format.h>\n')
    libraries = [
        {"target": "wheelmod_low", "folder": f"{root}/src/low",
         "include_root": f"{root}/src/low/include",
         "link_libraries": ["wheelmod_warnings", "CURL::libcurl"],
         "interface_link_libraries": ["$<LINK_ONLY:wheelmod_warnings>",
                                      "$<LINK_ONLY:CURL::libcurl>"]},
        {"target": "wheelmod_high", "folder": f"{root}/src/high",
         "include_root": f"{root}/src/high/include",
         "link_libraries": ["wheelmod_low", "fmt::fmt"],
         "interface_link_libraries": ["wheelmod_low", "$<LINK_ONLY:fmt::fmt>"]},
    ]
    return {"source_dir": root, "libraries": libraries}


def run(root, manifest):
    path = os.path.join(root, "layering.json")
    with open(path, "w") as file:
        json.dump(manifest, file)
    result = subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True)
    return result.returncode, result.stdout


def main():
    failures = []
    cases = {
        "which wheelmod_low does not link": lambda r, m: write(
            f"{r}/src/low/more.cpp", '#include "high/api.hpp"\n'),
        "which is not a public header": lambda r, m: write(
            f"{r}/src/high/more.cpp", '#include "low/detail.hpp"\n'),
        "a public header includes the private": lambda r, m: write(
            f"{r}/src/low/include/low/leak.hpp", '#pragma once\n#include "../../detail.hpp"\n'),
        "links CURL::libcurl PRIVATE (make it PUBLIC)": lambda r, m: write(
            f"{r}/src/low/include/low/curl.hpp", "#pragma once\n#include <curl/curl.h>\n"),
        "PUBLIC, but only its sources include it": lambda r, m: m["libraries"][1][
            "interface_link_libraries"].append("fmt::fmt"),
        "but includes none of its headers": lambda r, m: m["libraries"][0][
            "link_libraries"].append("ZLIB::ZLIB"),
        "cycle: ": lambda r, m: m["libraries"][0]["link_libraries"].append("wheelmod_high"),
    }
    root = tempfile.mkdtemp(prefix="wheelmod-layering-")
    try:
        clean = os.path.join(root, "clean")
        code, out = run(clean, make_tree(clean))
        if code != 0:
            failures.append(f"the clean tree fails:\n{out}")
        for expected, change in cases.items():
            tree = os.path.join(root, str(len(failures)) + expected[:8].replace(" ", "_"))
            shutil.rmtree(tree, ignore_errors=True)
            manifest = make_tree(tree)
            change(tree, manifest)
            code, out = run(tree, manifest)
            if code == 0 or expected not in out:
                failures.append(f"'{expected}' not found (exit {code}):\n{out}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"{len(cases) + 1 - len(failures)} of {len(cases) + 1} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
