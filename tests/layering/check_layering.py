#!/usr/bin/env python3
"""The layering the build promises, checked against the #include lines.

CMake writes layering.json (cmake/Libraries.cmake): for every library under
src/, its folder, its public include root and its direct links, split into
PUBLIC and PRIVATE. This script reads every source and header of every
library and fails, one line per finding, when

  - a file includes a header of a library (or third-party package) its
    target does not link;
  - a public header includes one its target links only PRIVATE (users of
    the header would not see it);
  - a target links something PUBLIC that only its sources use (it should
    be PRIVATE), or links something none of its files include;
  - a file includes another library's private header, or a public header
    its own library's private one;
  - the libraries' links form a cycle.

Usage: check_layering.py BUILD_DIR/layering.json [--graph]
"""

import argparse
import json
import os
import re
import sys

# Targets that carry settings (warnings, sanitizers), not code.
SETTINGS = {"wheelmod_warnings", "wheelmod_sanitizers"}

# Third-party headers, by the start of the include name, and the CMake
# target that provides them (cmake/Dependencies.cmake).
THIRD_PARTY = [
    ("nlohmann/", "nlohmann_json::nlohmann_json"),
    ("CLI/", "CLI11::CLI11"),
    ("fmt/", "fmt::fmt"),
    ("yaml-cpp/", "yaml-cpp"),
    ("curl/", "CURL::libcurl"),
    ("openssl/", "OpenSSL::Crypto"),
    ("libelf.h", "PkgConfig::LIBELF"),
    ("gelf.h", "PkgConfig::LIBELF"),
    ("zip.h", "PkgConfig::LIBZIP"),
    ("zlib.h", "ZLIB::ZLIB"),
    ("kainjow/", "wheelmod_mustache"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
LINK_ONLY = re.compile(r"^\$<LINK_ONLY:(.+)>$")


def links_of(library):
    """(public, private) direct links, settings targets left out."""
    everything = [t for t in library["link_libraries"] if t not in SETTINGS]
    public = []
    for entry in library["interface_link_libraries"]:
        if LINK_ONLY.match(entry) or entry in SETTINGS:
            continue  # a static library's PRIVATE link, as CMake records it
        public.append(entry)
    private = [t for t in everything if t not in public]
    return set(public), set(private)


def sources_of(folder):
    for root, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith((".cpp", ".hpp")):
                yield os.path.join(root, name)


def third_party_target(name):
    for start, target in THIRD_PARTY:
        if name == start or (start.endswith("/") and name.startswith(start)):
            return target
    return None


def check(manifest):
    libraries = manifest["libraries"]
    by_folder = {os.path.basename(lib["folder"]): lib for lib in libraries}
    targets = {lib["target"] for lib in libraries}
    findings = []
    graph = {}
    for lib in libraries:
        target = lib["target"]
        public, private = links_of(lib)
        root = lib["include_root"]
        used_by_public, used = set(), set()
        for path in sources_of(lib["folder"]):
            is_public = path.endswith(".hpp") and os.path.commonpath([path, root]) == root
            where = os.path.relpath(path, manifest["source_dir"])
            text = open(path, encoding="utf-8").read()
            for kind, name in INCLUDE.findall(text):
                provider, header = None, None
                if kind == '"' and "/" in name and name.split("/")[0] in by_folder:
                    owner = by_folder[name.split("/")[0]]
                    header = os.path.join(owner["include_root"], name)
                    provider = owner["target"]
                    if not os.path.isfile(header):
                        folder = os.path.relpath(owner["include_root"], manifest["source_dir"])
                        findings.append(f"{where}: includes {name}, which is not a public header "
                                        f"of {provider} (not in {folder})")
                        continue
                    if provider == target:
                        used.add(target)
                        continue
                elif kind == '"':
                    local = os.path.normpath(os.path.join(os.path.dirname(path), name))
                    if not os.path.isfile(local):
                        findings.append(f"{where}: includes \"{name}\", which is no file beside it")
                    elif is_public and os.path.commonpath([local, root]) != root:
                        findings.append(f"{where}: a public header includes the private {name}")
                    continue
                else:
                    provider = third_party_target(name)
                    if provider is None:
                        continue  # the C++ or C library, POSIX, Linux
                used.add(provider)
                if is_public:
                    used_by_public.add(provider)
                if provider not in public | private:
                    findings.append(f"{where}: includes {name} of {provider}, "
                                    f"which {target} does not link")
                elif is_public and provider not in public:
                    findings.append(f"{where}: a public header includes {name}, but {target} "
                                    f"links {provider} PRIVATE (make it PUBLIC)")
        for provider in sorted(public - used_by_public - used):
            findings.append(f"{target}: links {provider} but includes none of its headers")
        for provider in sorted((public & used) - used_by_public):
            findings.append(f"{target}: links {provider} PUBLIC, but only its sources include it "
                            "(make it PRIVATE)")
        for provider in sorted(private - used):
            findings.append(f"{target}: links {provider} but includes none of its headers")
        graph[target] = sorted(t for t in public | private if t in targets)
    findings += cycles(graph)
    return findings, graph


def cycles(graph):
    state, found = {}, []

    def visit(node, path):
        state[node] = "open"
        for next_node in graph.get(node, []):
            if state.get(next_node) == "open":
                found.append("cycle: " + " -> ".join(path[path.index(next_node):] + [next_node]))
            elif next_node not in state:
                visit(next_node, path + [next_node])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest", help="BUILD_DIR/layering.json, written by CMake")
    parser.add_argument("--graph", action="store_true",
                        help="print each library's direct links to other libraries")
    args = parser.parse_args()
    with open(args.manifest, encoding="utf-8") as file:
        manifest = json.load(file)
    findings, graph = check(manifest)
    if args.graph:
        for target in sorted(graph):
            print(f"{target}: {', '.join(graph[target]) or '-'}")
    for line in findings:
        print(f"layering: {line}")
    if findings:
        print(f"{len(findings)} layering violations", file=sys.stderr)
        return 1
    print(f"layering: {len(manifest['libraries'])} libraries, no violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
