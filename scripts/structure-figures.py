#!/usr/bin/env python3
"""Figures on wheelmod's structure, for reviews of it: lines per library
under src/ (and the CLI's share), the longest functions, how much of the
public headers is comment, and how many places repeat a rule that has one
home (--rules).

Function lengths come from matching braces in the sources with comments
and string literals blanked: a definition is a `{` that follows a `)` at
namespace or class level; lambdas count towards the function around them.

Usage: scripts/structure-figures.py [SOURCE_DIR] [--longest N] [--rules]

--rules counts, in lines of code (comment lines skipped):
  lowercasing   hand-written ASCII case folding (tolower/toupper calls and
                'A'..'Z' arithmetic) outside core/strings, pep/ascii (wheelmod_pep
                links nothing of ours) and index/html_anchors (Python's
                str.lower() on Unicode, by design)
  install name  string literals that build the name of an installation of
                the wheels (its "-whl" versionsuffix) outside
                emit/installation_name
  net names     net's private file names (.part, .part.json,
                .wheelmod-fetch.lock) in literals outside src/net
  message text  test assertions on the English of a rejection (`.reason`)
                where a kind and its fields could be matched
  same helper   a namespace-level function defined with the same signature
                in two or more .cpp files of one library: each file's private
                copy of a helper the library could hold once, or two rules
                under one name (overloads for different types are not counted)
"""

import argparse
import os
import re
import sys


def blank(text):
    """The text with comments and string/char literals replaced by spaces."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i) + 2
        elif text.startswith('R"', i):
            delimiter = re.match(r'R"([^(]*)\(', text[i:]).group(1)
            j = text.find(")" + delimiter + '"', i) + len(delimiter) + 2
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


DEFINITION = re.compile(r"\)\s*(const|override|noexcept|final|->\s*[\w:<>,&*\s]+|\s)*$")
NOT_A_FUNCTION = re.compile(r"(namespace|struct|class|enum|union)\b")


def functions(path):
    """(lines, name, path, first line) of each function defined in `path`."""
    text = blank(open(path, encoding="utf-8").read())
    found, stack = [], []
    for match in re.finditer(r"[{}]", text):
        if match.group() == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    end = text.count("\n", 0, match.start()) + 1
                    found.append((end - start + 1, name, path, start))
            continue
        before = text[:match.start()]
        cut = max(before.rfind(";"), before.rfind("{"), before.rfind("}"))
        head = before[cut + 1:]
        inside = any(kind == "function" for kind, _, _ in stack)
        if not inside and DEFINITION.search(head.strip()) and \
                not NOT_A_FUNCTION.match(head.strip()) and "=" not in head.split("(")[0]:
            names = re.findall(r"([~\w:]+)\s*\(", head)
            leading = head[:len(head) - len(head.lstrip())]
            start = before.count("\n", 0, cut + 1) + 1 + leading.count("\n")
            stack.append(("function", start, names[0] if names else "?"))
        else:
            stack.append(("block", 0, ""))
    return found


def sources(root, suffixes=(".cpp", ".hpp")):
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(suffixes):
                yield os.path.join(folder, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source_dir", nargs="?",
                        default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--longest", type=int, default=5, help="functions listed per table")
    parser.add_argument("--rules", action="store_true",
                        help="count the places that repeat a rule with one home")
    args = parser.parse_args()
    src = os.path.join(os.path.abspath(args.source_dir), "src")

    lines = {}
    for lib in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, lib)):
            lines[lib] = sum(sum(1 for _ in open(f, encoding="utf-8"))
                             for f in sources(os.path.join(src, lib)))
    total = sum(lines.values())
    print(f"src/: {total} lines in {len(lines)} libraries")
    for lib, count in sorted(lines.items(), key=lambda item: -item[1]):
        print(f"  {lib:<14} {count:>6}  {100 * count / total:4.1f}%")

    for title, root in (("src/cli", os.path.join(src, "cli")), ("src", src)):
        print(f"longest functions in {title}:")
        every = sorted((f for path in sources(root, (".cpp",)) for f in functions(path)),
                       reverse=True)
        for length, name, path, start in every[:args.longest]:
            print(f"  {length:>4} lines  {name}  ({os.path.relpath(path, src)}:{start})")

    # Public headers are those under include/ (all of them in a tree from
    # before the include roots).
    headers = list(sources(src, (".hpp",)))
    public = [path for path in headers if f"{os.sep}include{os.sep}" in path] or headers
    comments = non_blank = 0
    for path in public:
        for line in open(path, encoding="utf-8"):
            if line.strip():
                non_blank += 1
                comments += line.strip().startswith("//")
    print(f"public headers: {comments} comment lines of {non_blank} non-blank "
          f"({100 * comments / max(non_blank, 1):.0f}%)")
    if args.rules:
        rules(os.path.abspath(args.source_dir), src)
    return 0


def rules(root, src):
    def count(paths, pattern, skip=()):
        places = []
        for path in paths:
            relative = os.path.relpath(path, root)
            if any(part in relative for part in skip):
                continue
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                if not line.lstrip().startswith(("//", "#")) and re.search(pattern, line):
                    places.append(f"{relative}:{number}")
        return places

    code = list(sources(src))
    found = {
        "lowercasing": count(code, r"\bto(lower|upper)\(|- 'A' \+ 'a'|c \+ 32",
                             ("core/strings", "pep/ascii.hpp", "index/html_anchors")),
        "install name": count(code, r'-whl"', ("emit/installation_name", "src/cli/")),
        "net names": count(code, r'"\.part"|"\.part\.json"|"\.wheelmod-fetch\.lock"|'
                                 r'"\.wheelmod-fetch\.lock|\.part\.json"', ("src/net/",)),
    }
    tests = [p for p in sources(os.path.join(root, "tests"), (".cpp", ".py"))]
    found["message text"] = count(tests, r"(\.|->)reason\b")
    found["same helper"] = repeated_helpers(root, src)
    for name, places in found.items():
        print(f"{name}: {len(places)} place{'s' if len(places) != 1 else ''}")
        for place in places:
            print(f"    {place}")


def repeated_helpers(root, src):
    """`lib/file.cpp:line name` for each namespace-level function whose
    name another .cpp file of the same library also defines."""
    by_library = {}
    for path in sources(src, (".cpp",)):
        library = os.path.relpath(path, src).split(os.sep)[0]
        lines = open(path, encoding="utf-8").read().split("\n")
        for _, name, _, start in functions(path):
            # Namespace-level code is not indented here (clang-format's
            # NamespaceIndentation: None); members of a class in a .cpp are.
            if "::" in name or lines[start - 1][:1].isspace():
                continue
            head = "\n".join(lines[start - 1:start + 4])
            signature = re.sub(r"\s+", "", head.split("{")[0])
            by_library.setdefault((library, signature), []).append(
                (f"{os.path.relpath(path, root)}:{start}", name))
    return [f"{place} {name}" for _, places in sorted(by_library.items())
            if len({place.split(':')[0] for place, _ in places}) > 1
            for place, name in places]


if __name__ == "__main__":
    sys.exit(main())
