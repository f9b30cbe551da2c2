#!/usr/bin/python3
"""Writes the differential test cases for wheelmod's src/pep, with the answers
of python3-packaging 23.0 (Debian 12's, the reference implementation pip
uses), as JSON Lines.

    /usr/bin/python3 gen_cases.py --out cases.jsonl

Every line is one case: {"kind": K, ...inputs..., ...packaging's answer...}.
The kinds and their fields are described in README.md; tests/differential/
pep_differential.cpp computes wheelmod's answer for each and compares.

The inputs come from small grammars (realistic PyTorch/nvidia/triton shapes,
every PEP 440 spelling variant) plus mutations that make them invalid, drawn
with a fixed seed: the output is the same on every run. Cases whose answer is
a documented difference carry "documented_difference": "<id>" (README.md).
"""

import argparse
import json
import os
import random
import re
import sys

# The only source of set-iteration order that could leak into an answer is
# str hashing; pin it so two runs give byte-identical files.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import packaging  # noqa: E402
from packaging.markers import Marker  # noqa: E402
from packaging.requirements import Requirement  # noqa: E402
from packaging.specifiers import InvalidSpecifier, SpecifierSet  # noqa: E402
from packaging.utils import parse_wheel_filename  # noqa: E402
from packaging.version import InvalidVersion, Version  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_tags import tags_for_target  # noqa: E402

SEED = 20250123
U64_MAX = 2**64 - 1

# Case counts, a little above the minimums pep_differential.cpp enforces.
COUNTS = {
    "version": 21000,
    "compare": 10500,
    "specifier": 10500,
    "marker": 2400,
    "requirement": 2200,
    "wheel": 2400,
}

PYTHONS = [f"3.{m}" for m in range(8, 15)]
TAG_ARCHES = ["x86_64", "aarch64"]
TAG_GLIBCS = ["2.17", "2.24", "2.28", "2.31", "2.34", "2.39"]
# Older glibc values: legacy manylinux1/2010 aliases, and (aarch64) none.
TAG_OLD_GLIBCS = ["2.5", "2.12"]

WHITESPACE = [" ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", " \t "]


def pick(rng, items, weights=None):
    if weights is None:
        return items[rng.randrange(len(items))]
    return rng.choices(items, weights=weights)[0]


# --------------------------------------------------------------------------
# PEP 440 versions: components, then a spelling of them.
# --------------------------------------------------------------------------

PRE_SPELLINGS = {
    "a": ["a", "A", "alpha", "ALPHA", "Alpha"],
    "b": ["b", "B", "beta", "BETA", "Beta"],
    "rc": ["rc", "RC", "Rc", "c", "C", "pre", "PRE", "preview", "Preview"],
}
POST_SPELLINGS = ["post", "POST", "Post", "rev", "REV", "r", "R"]
DEV_SPELLINGS = ["dev", "DEV", "Dev"]
SEPARATORS = ["", ".", "-", "_"]
LOCAL_WORDS = ["cu118", "cu121", "cu124", "cu126", "cu128", "cpu", "rocm6", "rocm",
               "xpu", "cxx11", "abi", "ubuntu", "g1234abc", "deadbeef", "local",
               "a", "z", "ABC", "Cu126", "CPU", "dev", "post", "x"]


def number(rng, overflow=False):
    """A component value: mostly small, sometimes large, rarely past uint64."""
    if overflow:
        return pick(rng, [2**64, 2**64 + 1, 10**20, 2**65, 10**30 + 7, 99999999999999999999999])
    r = rng.random()
    if r < 0.55:
        return rng.randrange(10)
    if r < 0.75:
        return rng.randrange(10, 100)
    if r < 0.85:
        return rng.randrange(100, 100000)
    if r < 0.92:
        return rng.randrange(20200101, 20260101)
    if r < 0.97:
        return rng.randrange(2**32, 2**63)
    return pick(rng, [U64_MAX, U64_MAX - 1, 2**63, 2**63 - 1, 2**32])


def number_text(rng, value):
    if rng.random() < 0.06:
        return "0" * rng.randrange(1, 4) + str(value)
    if rng.random() < 0.005:
        return "0" * 25 + str(value)  # long text, small value: fits uint64
    return str(value)


def components(rng, overflow=False):
    """Random version components; `overflow` puts one number past uint64."""
    c = {
        "epoch": number(rng) if rng.random() < 0.08 else None,
        "release": [number(rng) for _ in range(pick(rng, [1, 2, 3, 3, 3, 4, 5, 6]))],
        "pre": None, "post": None, "dev": None, "local": None,
    }
    if c["epoch"] is not None and c["epoch"] > 1000 and rng.random() < 0.8:
        c["epoch"] = rng.randrange(5)
    if rng.random() < 0.3:
        c["pre"] = (pick(rng, ["a", "b", "rc"]), number(rng) if rng.random() < 0.85 else None)
    for key, share in (("post", 0.2), ("dev", 0.25)):
        if rng.random() < share:
            if rng.random() < 0.85:
                c[key] = number(rng)
            else:
                c[key + "_implicit"] = True  # `1.0.post`, `1.0dev`: number 0
    if rng.random() < 0.3:
        c["local"] = local_segments(rng)
    if overflow:
        slots = ["release", "release", "pre", "post", "dev", "epoch", "local"]
        slot = pick(rng, slots)
        big = number(rng, overflow=True)
        if slot == "release":
            c["release"][rng.randrange(len(c["release"]))] = big
        elif slot == "pre":
            c["pre"] = (pick(rng, ["a", "b", "rc"]), big)
        elif slot == "local":
            c["local"] = (c["local"] or []) + [str(big)]
        else:
            c[slot] = big
    return c


def local_segments(rng):
    segs = []
    for _ in range(pick(rng, [1, 1, 1, 2, 2, 3, 4])):
        r = rng.random()
        if r < 0.5:
            segs.append(pick(rng, LOCAL_WORDS))
        elif r < 0.8:
            segs.append(number_text(rng, number(rng)))
        else:
            alphabet = "abcdefxyz0123456789"
            segs.append("".join(pick(rng, alphabet) for _ in range(rng.randrange(1, 7))))
    return segs


def spell(rng, c, plain=False):
    """Writes components with random PEP 440 spellings (plain: normal form)."""
    out = []
    if not plain and rng.random() < 0.07:
        out.append(pick(rng, ["v", "V"]))
    if c["epoch"] is not None:
        out.append(f"{number_text(rng, c['epoch']) if not plain else c['epoch']}!")
    out.append(".".join(str(n) if plain else number_text(rng, n) for n in c["release"]))
    if c["pre"] is not None:
        label, n = c["pre"]
        if plain:
            out.append(f"{label}{0 if n is None else n}")
        else:
            out.append(pick(rng, SEPARATORS, [6, 2, 1, 1]) + pick(rng, PRE_SPELLINGS[label]))
            if n is not None:
                out.append(pick(rng, SEPARATORS, [6, 2, 1, 1]) + number_text(rng, n))
    if c["post"] is not None or c.get("post_implicit"):
        n = c["post"]
        if plain:
            out.append(f".post{0 if n is None else n}")
        elif n is not None and rng.random() < 0.15:
            out.append(f"-{number_text(rng, n)}")  # `1.0-1`
        else:
            out.append(pick(rng, SEPARATORS, [2, 6, 1, 1]) + pick(rng, POST_SPELLINGS))
            if n is not None:
                out.append(pick(rng, SEPARATORS, [6, 1, 1, 1]) + number_text(rng, n))
    if c["dev"] is not None or c.get("dev_implicit"):
        n = c["dev"]
        if plain:
            out.append(f".dev{0 if n is None else n}")
        else:
            out.append(pick(rng, SEPARATORS, [1, 6, 1, 1]) + pick(rng, DEV_SPELLINGS))
            if n is not None:
                out.append(pick(rng, SEPARATORS, [6, 1, 1, 1]) + number_text(rng, n))
    if c["local"]:
        segs = c["local"]
        if plain:
            out.append("+" + ".".join(segs))
        else:
            text = segs[0]
            for s in segs[1:]:
                text += pick(rng, [".", "-", "_"], [6, 1, 1]) + s
            out.append("+" + text)
    text = "".join(out)
    if not plain and rng.random() < 0.04:
        text = pick(rng, WHITESPACE) + text
    if not plain and rng.random() < 0.04:
        text = text + pick(rng, WHITESPACE)
    return text


TORCH_LOCALS = ["cu118", "cu121", "cu124", "cu126", "cu128", "cpu", "rocm6.2.4", "rocm6.1",
                "cpu.cxx11.abi", "xpu", "cu126.with.pypi.cudnn", "rocm5.7"]


def realistic_version(rng):
    """PyTorch ecosystem versions as download.pytorch.org and PyPI list them."""
    r = rng.random()
    major = pick(rng, ["2.4", "2.5", "2.6", "2.7", "2.8", "1.13", "0.21", "0.20", "0.19"])
    patch = rng.randrange(4)
    if r < 0.35:
        text = f"{major}.{patch}+{pick(rng, TORCH_LOCALS)}"
    elif r < 0.5:
        nightly = rng.randrange(20240101, 20251231)
        text = f"{major}.0.dev{nightly}+{pick(rng, ['cpu', 'cu126', 'cu128', 'rocm6.3'])}"
    elif r < 0.6:
        text = f"{major}.{patch}{pick(rng, ['rc1', 'rc2', 'a0', 'b1', 'rc3'])}"
    elif r < 0.75:
        text = pick(rng, ["12.6.77", "12.4.127", "9.1.0.70", "9.5.1.17", "2.21.5", "12.6.4.1",
                          "11.3.0.4", "10.3.7.77", "12.3.1.170", "0.6.3", "3.2.0", "3.1.0",
                          "3.0.0", "1.26.4", "2.2.1", "2024.1", "2023.12.1.post1",
                          "4.12.2", "1.16.0", "3.1.4", "3.13.1", "0.45.1", "75.8.0",
                          "24.3.1", "2.0.0.post1", "1.0.0b3", "5.0.0.dev0"])
    elif r < 0.85:
        text = f"{major}.{patch}"
    else:
        text = f"{rng.randrange(30)}.{rng.randrange(30)}.{rng.randrange(30)}"
    return text


GARBAGE = list("!@#$%^&*()=[]{};:'\",<>/?|\\`~ ") + ["..", "--", "__", "++", "+.", ".+", "!!"]


def mutate(rng, text):
    """Usually-invalid edits of a version text (packaging decides)."""
    op = rng.randrange(12)
    pos = rng.randrange(len(text) + 1)
    if op == 0:
        return text[:pos] + pick(rng, GARBAGE) + text[pos:]
    if op == 1 and text:
        p = min(pos, len(text) - 1)
        return text[:p] + text[p + 1:]
    if op == 2:
        return text[:pos] + pick(rng, [".", "-", "_", "+"]) * 2 + text[pos:]
    if op == 3 and text:
        p = min(pos, len(text) - 1)
        return text[:p] + pick(rng, "0123456789.-_+!abcdeoprstvx* ") + text[p + 1:]
    if op == 4:
        return text + pick(rng, [".", "-", "_", "+", "!", ".*", "+.", "+a.", ".post.",
                                 "a.b", " x", "+-a", "+a-", "+a..b", "+a b", "+ ", "-", ".dev.",
                                 "rc1rc2", ".post1.post2", "+cu126+cpu", "+@", "c1.c2"])
    if op == 5:
        return pick(rng, [".", "-", "+", "!", "vv", "=", "~", "_", "0!", "!!", "v ", "V.",
                          "x"]) + text
    if op == 6 and len(text) > 1:
        return text[:pos] + pick(rng, [" ", "\t"]) + text[pos:]
    if op == 7:
        return text[:pos]
    if op == 8 and len(text) > 2:
        p = min(pos, len(text) - 2)
        return text[:p] + text[p + 1] + text[p] + text[p + 2:]
    if op == 9:
        return text.replace(".", pick(rng, ["-", "_", "..", ""]), 1)
    if op == 10:
        return text + "+" + pick(rng, ["", ".", "a..b", "-x", "x-", "a b", "a$b", "_"])
    alphabet = "0123456789.-_+!vVabcrdeposltiwx* "
    return "".join(pick(rng, alphabet) for _ in range(rng.randrange(1, 12)))


FIXED_VERSION_INPUTS = [
    "", " ", "+", "v", "V", "!", "1", "1.0", "1.0.0", "0", "00", "v1", "V1.0", " 1.0 ", "\t1.0\n",
    "1.0-1", "1.0-r1", "1.0.r", "1.0.rev", "1.0post", "1.0.post", "1.0-post-1", "1.0_post_1",
    "1.0a", "1.0.a", "1.0-a.1", "1.0alpha_1", "1.0c1", "1.0pre1", "1.0preview-1",
    "1.0.dev", "1.0dev", "1.0-dev-1", "1.0+", "1.0+a", "1.0+-a", "1.0+a-", "1.0+a..b", "1.0+A.B",
    "1!", "1!1.0", "!1.0", "1!!1.0", "1.0.*", "1.*", "1.0rc1.post1.dev1+abc", "1.0-1-1",
    "2.6.0+cu126", "2.7.0.dev20250123+cpu", "2.6.0rc1", "0.21.0+rocm6.2.4", "2.6.0%2Bcu126",
    "18446744073709551615", "18446744073709551616", "1.18446744073709551615",
    "1.0+18446744073709551615", "1.0+18446744073709551616", "0" * 40 + "1",
    "1.0\x1c", "\x1f1.0", "1.0.post-1", "1.0-", "1.0_", "1.0.", ".1.0",
]


def version_overflows(v):
    nums = [v.epoch, *v.release]
    if v.pre is not None:
        nums.append(v.pre[1])
    for n in (v.post, v.dev):
        if n is not None:
            nums.append(n)
    nums += [p for p in (v._version.local or ()) if isinstance(p, int)]
    return any(n > U64_MAX for n in nums)


def version_record(text):
    rec = {"kind": "version", "input": text}
    try:
        v = Version(text)
    except InvalidVersion:
        rec["valid"] = False
        return rec
    rec["valid"] = True
    rec["str"] = str(v)
    if version_overflows(v):
        rec["documented_difference"] = "uint64-overflow"
        return rec
    rec.update({
        "public": v.public,
        "base_version": v.base_version,
        "is_prerelease": v.is_prerelease,
        "is_postrelease": v.is_postrelease,
        "is_devrelease": v.is_devrelease,
        "epoch": v.epoch,
        "release": list(v.release),
        "pre": [v.pre[0], v.pre[1]] if v.pre else None,
        "post": v.post,
        "dev": v.dev,
        "local": v.local,
    })
    return rec


def any_version_text(rng):
    """A version text from one of the generators (valid or not)."""
    r = rng.random()
    if r < 0.2:
        return realistic_version(rng)
    text = spell(rng, components(rng, overflow=(r > 0.985)))
    if r < 0.62:
        return text
    return mutate(rng, text)


def gen_version(rng):
    seen = {}
    for text in FIXED_VERSION_INPUTS:
        seen.setdefault(text, version_record(text))
    while len(seen) < COUNTS["version"]:
        text = any_version_text(rng)
        if not text.isascii() or text in seen:
            continue
        seen[text] = version_record(text)
    return list(seen.values())


# --------------------------------------------------------------------------
# Comparisons: near-ties built by editing one version.
# --------------------------------------------------------------------------

def small_components(rng):
    c = components(rng)
    c["release"] = [rng.randrange(12) if n > 11 and rng.random() < 0.8 else n
                    for n in c["release"]]
    return c


def drop(d, *keys):
    for key in keys:
        d[key] = None
        d.pop(key + "_implicit", None)


def variant(rng, c):
    """A neighbour of version `c`: one edit that may or may not change the order."""
    d = {k: (list(v) if isinstance(v, list) else v) for k, v in c.items()}
    op = rng.randrange(11)
    if op == 0:  # trailing zeros
        if rng.random() < 0.5:
            d["release"] = d["release"] + [0] * rng.randrange(1, 3)
        else:
            while len(d["release"]) > 1 and d["release"][-1] == 0:
                d["release"].pop()
    elif op == 1:
        d["pre"] = None if d["pre"] else (pick(rng, ["a", "b", "rc"]), rng.randrange(3))
    elif op in (2, 3):
        key = "post" if op == 2 else "dev"
        if d[key] is not None or d.get(key + "_implicit"):
            drop(d, key)
        else:
            d[key] = rng.randrange(3)
    elif op == 4:
        d["local"] = None if d["local"] else local_segments(rng)
    elif op == 5 and d["local"]:  # numeric vs alpha, leading zeros, case, extra segment
        segs = list(d["local"])
        i = rng.randrange(len(segs))
        segs[i] = pick(rng, [segs[i].upper(), "0" + segs[i], str(rng.randrange(3)), "a", "z",
                             segs[i] + "0"])
        if rng.random() < 0.3:
            segs.append(pick(rng, ["0", "1", "a"]))
        d["local"] = segs
    elif op == 6:
        i = rng.randrange(len(d["release"]))
        d["release"][i] = min(U64_MAX, max(0, d["release"][i] + pick(rng, [-1, 1])))
    elif op == 7:
        d["epoch"] = None if d["epoch"] else pick(rng, [0, 1, 2])
    elif op == 8 and d["pre"]:
        d["pre"] = (pick(rng, ["a", "b", "rc"]), d["pre"][1])
    elif op == 9:
        for key in ("pre", "post", "dev"):
            if rng.random() < 0.5:
                drop(d, key)
    # op 10 (and no-op edits): the same version, spelled another way
    return d


def gen_compare(rng):
    pool = [components(rng) for _ in range(400)]
    out = []
    seen = set()
    while len(out) < COUNTS["compare"]:
        r = rng.random()
        if r < 0.75:
            a = small_components(rng) if rng.random() < 0.7 else pick(rng, pool)
            b = variant(rng, a)
            if rng.random() < 0.4:
                b = variant(rng, b)
        else:
            a, b = pick(rng, pool), pick(rng, pool)
        ta, tb = spell(rng, a), spell(rng, b)
        if rng.random() < 0.5:
            ta, tb = tb, ta
        if (ta, tb) in seen:
            continue
        try:
            va, vb = Version(ta), Version(tb)
        except InvalidVersion:
            continue
        if version_overflows(va) or version_overflows(vb):
            continue
        seen.add((ta, tb))
        out.append({"kind": "compare", "a": ta, "b": tb,
                    "result": (va > vb) - (va < vb)})
    return out


# --------------------------------------------------------------------------
# Specifier sets.
# --------------------------------------------------------------------------

OPERATORS = ["==", "!=", ">=", "<=", ">", "<", "~=", "==="]
BAD_OPERATORS = ["=", "=>", "=<", "<>", "!", "~", "===="]


def spec_clause(rng, c, noise=1.0):
    """One clause about version `c`; sometimes one PEP 440 forbids."""
    op = pick(rng, OPERATORS, [6, 3, 6, 3, 2, 4, 4, 1])
    d = {k: (list(v) if isinstance(v, list) else v) for k, v in c.items()}
    if op not in ("==", "!=") and rng.random() < 0.85:
        d["local"] = None  # a local label is only allowed with == and !=
    wildcard = op in ("==", "!=") and rng.random() < 0.3 or rng.random() < 0.02
    if wildcard and rng.random() < 0.9:
        drop(d, "pre", "post", "dev", "local")
    if op == "~=" and len(d["release"]) < 2 and rng.random() < 0.85:
        d["release"] = d["release"] + [rng.randrange(3)]
    if op == "===":
        version = pick(rng, [spell(rng, d), spell(rng, d, plain=True), "foobar", "1.0.*",
                             "", "2.6.0+cu126", realistic_version(rng), "1.0-legacy"],
                       [4, 4, 1, 1, 1, 1, 2, 1])
    else:
        version = spell(rng, d).strip()
        if wildcard:
            version += ".*"
    if rng.random() < 0.03 * noise:
        op = pick(rng, BAD_OPERATORS)
    text = op + (pick(rng, WHITESPACE[:3]) if rng.random() < 0.15 else "") + version
    if rng.random() < 0.05 * noise:
        text = mutate(rng, text)
    return text


def spec_text(rng, c, noise=1.0):
    n = pick(rng, [0, 1, 1, 1, 2, 2, 2, 3, 4])
    clauses = []
    for _ in range(n):
        base = c if rng.random() < 0.75 else variant(rng, c)
        clauses.append(spec_clause(rng, base, noise))
    if n >= 1 and rng.random() < 0.08:
        clauses.append(clauses[0])  # duplicate clause
    if n >= 1 and rng.random() < 0.05:
        clauses.append("")  # empty clause: `>=1.0,,<2`
    rng.shuffle(clauses)
    sep = pick(rng, [",", ",", ", ", " , ", ",\t"])
    text = sep.join(clauses)
    if rng.random() < 0.05:
        text = pick(rng, WHITESPACE) + text + pick(rng, WHITESPACE)
    return text


REALISTIC_SPECS = [">=2.6,<2.7", "==2.6.0+cu126", "~=2.6.0", "==2.6.*", "!=2.5.0",
                   ">=0.21.0+rocm", ">=3.9", "<3.14", ">=12.6.77", "==9.1.0.70", ">=2.6.0",
                   "==2.7.0.dev20250123+cpu", "~=2.6", "==2.6.0", ">=2.6.0rc1", "===2.6.0+cu126",
                   "!=2.6.0+cu126", ">2.6", "<=2.6.0", ">=1.0.dev0", "~=1!2.0", "==1!2.*",
                   "==1!2.0.*", "==2.*,!=2.6.*"]


def specifier_answer(spec_set, vtext, prereleases):
    """(packaging's contains answer, documented wheelmod answer or None);
    (None, None) for a case to leave out."""
    try:
        v = Version(vtext)
    except InvalidVersion:
        return "error", None
    if prereleases is None and spec_set._prereleases is None:
        # SpecifierSet.prereleases is any() over a frozenset: a `===` clause
        # whose text is no version raises there, and whether it is reached
        # depends on set order. Only keep cases where the order cannot matter.
        implied = []
        for s in spec_set:
            try:
                implied.append(bool(s.prereleases))
            except InvalidVersion:
                implied.append(None)
        if None in implied and True in implied:
            return None, None
        if None in implied:
            # Documented difference `arbitrary-prereleases`: packaging raises;
            # wheelmod takes such a clause as not implying pre-releases.
            return "error", spec_set.contains(v, prereleases=any(implied))
    try:
        return spec_set.contains(v, prereleases=prereleases), None
    except InvalidVersion:
        return "error", None


def prospective_version(rng, c):
    r = rng.random()
    if r < 0.03:
        return mutate(rng, spell(rng, c))
    if r < 0.1:
        return realistic_version(rng)
    d = c
    for _ in range(pick(rng, [0, 1, 1, 2, 3])):
        d = variant(rng, d)
    return spell(rng, d)


def gen_specifier(rng):
    out = []
    while len(out) < COUNTS["specifier"]:
        c = small_components(rng) if rng.random() < 0.85 else components(rng)
        if rng.random() < 0.06:
            text = pick(rng, REALISTIC_SPECS)
            c = {"epoch": None, "release": [2, 6, 0], "pre": None, "post": None, "dev": None,
                 "local": None}
        else:
            text = spec_text(rng, c)
        try:
            spec_set = SpecifierSet(text)
        except InvalidSpecifier:
            out.append({"kind": "specifier", "spec": text, "version": spell(rng, c),
                        "prereleases": None, "valid": False})
            continue
        if any(version_overflows(Version(s.version.rstrip(".*")))
               for s in spec_set if s.operator != "===" and _parses(s.version.rstrip(".*"))):
            continue
        for _ in range(4):
            vtext = prospective_version(rng, c)
            prereleases = pick(rng, [None, True, False], [2, 1, 1])
            try:
                if version_overflows(Version(vtext)):
                    continue
            except InvalidVersion:
                pass
            answer, documented = specifier_answer(spec_set, vtext, prereleases)
            if answer is None:
                continue
            rec = {"kind": "specifier", "spec": text, "version": vtext,
                   "prereleases": prereleases, "valid": True, "str": str(spec_set),
                   "contains": answer}
            if documented is not None:
                rec["documented_difference"] = "arbitrary-prereleases"
                rec["documented_contains"] = documented
            out.append(rec)
    return out


def _parses(text):
    try:
        Version(text)
        return True
    except InvalidVersion:
        return False


# --------------------------------------------------------------------------
# Markers.
# --------------------------------------------------------------------------

def environment(rng):
    """A full PEP 508 environment for a plausible (sometimes odd) target."""
    minor = rng.randrange(8, 15)
    micro = rng.randrange(12)
    full = f"3.{minor}.{micro}"
    if rng.random() < 0.1:
        full = f"3.{minor}.0{pick(rng, ['a1', 'b2', 'rc1', 'c1'])}"
    if rng.random() < 0.03:
        full = f"3.{minor}.0+"  # a CPython built from git: not a PEP 440 version
    system = pick(rng, ["Linux", "Linux", "Linux", "Darwin", "Windows"])
    if system == "Linux":
        machine = pick(rng, ["x86_64", "x86_64", "aarch64", "ppc64le", "s390x", "i686"])
        release = pick(rng, ["6.8.0-45-generic", "5.15.0", "4.18.0-513.el8.x86_64", "5.14.0",
                             "6.1.0-28-amd64", "3.10.0-1160.el7.x86_64", ""])
        version = pick(rng, ["#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)",
                             "#1 SMP Tue Nov 5 00:21:55 UTC 2024", ""])
        os_name, sys_platform = "posix", "linux"
    elif system == "Darwin":
        machine = pick(rng, ["arm64", "x86_64"])
        release = pick(rng, ["23.1.0", "24.2.0"])
        version = "Darwin Kernel Version 23.1.0: Mon Oct  9 21:27:24 PDT 2023"
        os_name, sys_platform = "posix", "darwin"
    else:
        machine = pick(rng, ["AMD64", "ARM64"])
        release = pick(rng, ["10", "11"])
        version = pick(rng, ["10.0.22631", "10.0.19045"])
        os_name, sys_platform = "nt", "win32"
    impl = pick(rng, ["cpython", "cpython", "cpython", "pypy"])
    return {
        "implementation_name": impl,
        "implementation_version": full if impl == "cpython" else "7.3.17",
        "os_name": os_name,
        "platform_machine": machine,
        "platform_release": release,
        "platform_system": system,
        "platform_version": version,
        "python_full_version": full,
        "platform_python_implementation": "CPython" if impl == "cpython" else "PyPy",
        "python_version": f"3.{minor}",
        "sys_platform": sys_platform,
    }


VARIABLE_SPELLINGS = {
    "python_version": ["python_version"],
    "python_full_version": ["python_full_version"],
    "os_name": ["os_name", "os.name"],
    "sys_platform": ["sys_platform", "sys.platform"],
    "platform_release": ["platform_release"],
    "platform_system": ["platform_system"],
    "platform_version": ["platform_version", "platform.version"],
    "platform_machine": ["platform_machine", "platform.machine"],
    "platform_python_implementation": ["platform_python_implementation",
                                       "platform.python_implementation",
                                       "python_implementation"],
    "implementation_name": ["implementation_name"],
    "implementation_version": ["implementation_version"],
    "extra": ["extra"],
}
BAD_VARIABLES = ["platform.release", "platform.system", "implementation.name", "python.version",
                 "foo", "extras", "python_versions", "Python_Version", "os-name", "sys_platformx"]
VERSION_VARIABLES = {"python_version", "python_full_version", "implementation_version",
                     "platform_release"}
EXTRAS = ["", "cuda", "CUDA_12", "dev", "test.all", "test-all", "Test__All", "opt", "x"]
MARKER_OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in"]


def marker_value(rng, var, env):
    if var in ("python_version", "python_full_version", "implementation_version"):
        m = rng.randrange(6, 16)
        return pick(rng, [f"3.{m}", f"3.{m}.{rng.randrange(10)}", f"3.{m}.*", "3", f"3.{m}rc1",
                          f"3.{m}.0b1", "2.7", "3.1*", "3.8 3.9 3.10", "", "foo", env[var],
                          f"v3.{m}", f" 3.{m} ", f"3.{m}+local", f"3.{m}.0+", "3.12.0.*"],
                    [5, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1])
    if var == "platform_release":
        return pick(rng, ["5.0", "6.8.0-45-generic", "4.18", env[var], "23", "", "5"])
    if var == "extra":
        return pick(rng, EXTRAS[1:] + ["Cuda", "cuda-12", "cuda_12", "test__all", "1.0"])
    values = {
        "os_name": ["posix", "nt", "java", "Posix"],
        "sys_platform": ["linux", "darwin", "win32", "cygwin", "lin", "Linux"],
        "platform_system": ["Linux", "Darwin", "Windows", "linux", "Java"],
        "platform_machine": ["x86_64", "aarch64", "AMD64", "arm64", "ppc64le", "x86", "64", "arm"],
        "platform_python_implementation": ["CPython", "PyPy", "cpython", "Jython"],
        "implementation_name": ["cpython", "pypy", "CPython"],
        "platform_version": ["#1 SMP", "Debian", "10.0.22631", "Darwin"],
    }[var]
    if rng.random() < 0.25:
        return env[var]
    return pick(rng, values)


def escape_one(rng, value):
    """A Python escape in a marker string: packaging reads the string with
    ast.literal_eval, so `'\\x70osix'` is "posix" and `'\\'` does not parse."""
    if not value or rng.random() < 0.3:
        return value + pick(rng, ["\\\\", "\\n", "\\t", "\\", "\\x41", "\\u0041"])
    i = rng.randrange(len(value))
    return value[:i] + f"\\x{ord(value[i]):02x}" + value[i + 1:]


def quote(rng, value):
    if rng.random() < 0.015:
        value = escape_one(rng, value)
    if "'" in value:
        return f'"{value}"'
    if '"' in value:
        return f"'{value}'"
    return pick(rng, ['"', "'"], [3, 1]).join(["", value, ""])


def marker_atom(rng, env):
    var = pick(rng, list(VARIABLE_SPELLINGS))
    var_text = pick(rng, VARIABLE_SPELLINGS[var])
    if rng.random() < 0.02:
        var_text = pick(rng, BAD_VARIABLES)
    if var in VERSION_VARIABLES:
        op = pick(rng, MARKER_OPS, [4, 2, 2, 2, 2, 4, 1, 1, 1, 1])
    else:
        op = pick(rng, MARKER_OPS, [6, 3, 1, 1, 1, 1, 1, 1, 3, 2])
    value = marker_value(rng, var, env)
    op_text = op
    if op == "not in" and rng.random() < 0.2:
        op_text = pick(rng, ["not  in", "not\tin", "notin", "not"])
    elif rng.random() < 0.01:
        op_text = pick(rng, ["=", "<>", "is", "IN", "=>"])
    sp = lambda: pick(rng, ["", " ", " ", " ", "  ", "\t"])  # noqa: E731
    if op_text.startswith(("in", "not")) or op_text in ("is", "IN"):
        sp1, sp2 = pick(rng, [" ", " ", "  ", "\t"]), pick(rng, [" ", " ", "  ", "\t", ""])
    else:
        sp1, sp2 = sp(), sp()
    r = rng.random()
    if r < 0.82:
        return f"{var_text}{sp1}{op_text}{sp2}{quote(rng, value)}"
    if r < 0.97:
        return f"{quote(rng, value)}{sp1}{op_text}{sp2}{var_text}"
    if r < 0.985:  # two literals: packaging looks the right one up as a variable
        return f"{quote(rng, value)}{sp1}{op_text}{sp2}{quote(rng, pick(rng, [var, value]))}"
    other = pick(rng, VARIABLE_SPELLINGS[pick(rng, list(VARIABLE_SPELLINGS))])
    return f"{var_text}{sp1}{op_text}{sp2}{other}"  # two variables


def marker_expr(rng, env, depth=0):
    n = pick(rng, [1, 1, 2, 2, 3]) if depth < 3 else 1
    parts = []
    for i in range(n):
        if i:
            parts.append(pick(rng, [" and ", " or ", " and ", "  or\t", "and", " AND ", " or"],
                              [10, 8, 1, 1, 1, 1, 1]))
        if depth < 3 and rng.random() < 0.2:
            inner = marker_expr(rng, env, depth + 1)
            parts.append(pick(rng, ["(", "( "]) + inner + pick(rng, [")", " )"]))
        else:
            parts.append(marker_atom(rng, env))
    return "".join(parts)


MARKER_BREAKERS = [" garbage", " )", ")", " and", " or ", "(", " ;", " extra", "  ", "\t",
                   ' == "x"', " and ()", "()", "\n", " # comment", " 'x'", "andos_name == 'nt'",
                   "\x0b"]


def marker_text(rng, env):
    text = marker_expr(rng, env)
    r = rng.random()
    if r < 0.04:
        text += pick(rng, MARKER_BREAKERS)  # packaging 23.0 ignores some trailing text
    elif r < 0.06:
        text = pick(rng, MARKER_BREAKERS) + text
    elif r < 0.08:
        text = "(" + text
    elif r < 0.09:
        text = pick(rng, ["", " ", "()", "extra", '"a"', "python_version >", "and"])
    elif r < 0.10:
        text = text.replace('"', "", 1)
    if rng.random() < 0.05:
        text = pick(rng, [" ", "\t"]) + text
    return text


def marker_answer(text, env, extra):
    rec = {}
    try:
        m = Marker(text)
    except Exception as e:  # InvalidMarker, and SyntaxError from ast.literal_eval
        rec["valid"] = False
        rec["parse_error"] = type(e).__name__
        return rec
    rec["valid"] = True
    rec["str"] = str(m)
    full_env = dict(env)
    full_env["extra"] = extra
    try:
        rec["result"] = m.evaluate(full_env)
        rec["error"] = None
    except Exception as e:  # InvalidVersion, UndefinedComparison, KeyError
        rec["result"] = None
        rec["error"] = type(e).__name__
    return rec


def gen_marker(rng):
    out = []
    while len(out) < COUNTS["marker"]:
        env = environment(rng)
        text = marker_text(rng, env)
        extra = pick(rng, EXTRAS)
        rec = {"kind": "marker", "marker": text, "env": env, "extra": extra}
        rec.update(marker_answer(text, env, extra))
        out.append(rec)
    return out


# --------------------------------------------------------------------------
# Requirements.
# --------------------------------------------------------------------------

REQ_NAMES = ["torch", "torchvision", "nvidia-cudnn-cu12", "nvidia_nccl_cu12", "triton",
             "Typing_Extensions", "zope.interface", "a", "A1", "pytorch-triton-rocm",
             "numpy", "sympy", "jinja2", "fsspec", "networkx", "filelock", "setuptools",
             "X.Y_Z-1", "1abc"]
BAD_NAMES = ["-torch", "torch-", "_x", "", "to rch", "torch.", ".torch", "tor!ch", "torch[",
             "torch\n"]
URLS = ["https://download.pytorch.org/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl",
        "git+https://github.com/pytorch/vision.git@v0.21.0#egg=torchvision",
        "file:///tmp/torch-2.6.0-cp312-cp312-linux_x86_64.whl", "file:/tmp/x.whl",
        "file://localhost/tmp/x.whl", "/local/path/x.whl", "https:foo", "https://",
        "file:///x#", "file:///x?", "FILE:///x", "http://example.com/x.zip#sha256=abc",
        "file:///x?q=1#frag", "https://example.com/a;b", "C:\\path\\x.whl", "./x.whl",
        "https://user:pw@example.com:8080/x.whl", "https://example.com/x.whl;", "file:",
        "file://", "file:////x", "https://[::1]/x", "https://[/x", "x://y", "1://y",
        "File:///x", "file:#x", "file:///a;b?c#d", "git+ssh://git@github.com/a/b.git"]


def gen_requirement(rng):
    out = []
    seen = set()
    while len(out) < COUNTS["requirement"]:
        env = environment(rng)
        name = pick(rng, REQ_NAMES) if rng.random() > 0.04 else pick(rng, BAD_NAMES)
        text = name
        if rng.random() < 0.3:
            extras = [pick(rng, ["cuda", "dev", "Test_All", "opt", "cuda", "x.y", "a-b"])
                      for _ in range(pick(rng, [0, 1, 1, 2, 3]))]
            sep = pick(rng, [",", ", ", " ,", ",  "])
            inner = sep.join(extras)
            if rng.random() < 0.05:
                inner = pick(rng, ["a,", ",a", "a b", "a-", "a,,b", " a ", "-a"])
            text += pick(rng, ["", "", " "]) + "[" + inner + "]"
        r = rng.random()
        if r < 0.15:
            text += pick(rng, [" @ ", "@", " @", "@ "]) + pick(rng, URLS)
            if rng.random() < 0.4:
                text += pick(rng, [" ; ", " ;", ";", " "]) + marker_expr(rng, env)
        else:
            if r < 0.8:
                spec = spec_text(rng, small_components(rng), noise=0.3) if rng.random() < 0.8 \
                    else pick(rng, REALISTIC_SPECS)
                if rng.random() < 0.2:
                    spec = "(" + spec + ")"
                text += pick(rng, ["", " ", "  "]) + spec
            if rng.random() < 0.35:
                text += pick(rng, [";", " ; ", " ;", "; ", ";\t"]) + marker_expr(rng, env)
        r = rng.random()
        if r < 0.03:
            text += "\n"  # `$` in packaging's END rule matches before a final newline
        elif r < 0.06:
            text = pick(rng, [" ", "\t"]) + text + pick(rng, [" ", "\t", ""])
        elif r < 0.08:
            text += pick(rng, [";", " garbage", ",", ")", " @", "["])
        if text in seen:
            continue
        seen.add(text)
        rec = {"kind": "requirement", "input": text}
        try:
            req = Requirement(text)
        except Exception as e:  # InvalidRequirement, SyntaxError from literal_eval
            rec["valid"] = False
            rec["parse_error"] = type(e).__name__
            out.append(rec)
            continue
        rec.update({
            "valid": True,
            "name": req.name,
            "extras": sorted(req.extras),
            "specifier": str(req.specifier),
            "url": req.url,
            "marker": None if req.marker is None else str(req.marker),
            "str": str(req),
        })
        out.append(rec)
    return out


# --------------------------------------------------------------------------
# Wheel file names and tags.
# --------------------------------------------------------------------------

PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64",
             "manylinux2014_x86_64.manylinux_2_17_x86_64",
             "manylinux_2_17_aarch64.manylinux2014_aarch64", "linux_x86_64", "linux_aarch64",
             "win_amd64", "macosx_11_0_arm64", "macosx_10_9_x86_64", "manylinux1_x86_64",
             "manylinux2010_x86_64.manylinux_2_12_x86_64", "musllinux_1_1_x86_64",
             "manylinux_2_31_aarch64", "manylinux_2_34_x86_64", "manylinux_2_39_x86_64",
             "manylinux_2_27_x86_64.manylinux_2_28_x86_64", "any", "manylinux_2_5_x86_64",
             "manylinux2014_aarch64", "manylinux_2_40_x86_64", "manylinux_3_0_x86_64",
             "manylinux_2_17_ppc64le", "MANYLINUX_2_28_X86_64", "linux_i686",
             "manylinux_2_24_x86_64.manylinux_2_28_x86_64.linux_x86_64"]
DISTS = ["torch", "torchvision", "torchaudio", "nvidia_cudnn_cu12", "nvidia_nccl_cu12",
         "nvidia_cuda_runtime_cu12", "triton", "pytorch_triton_rocm", "numpy", "six",
         "typing_extensions", "cryptography", "Jinja2", "MarkupSafe", "zope.interface",
         "A", "x1", "foo_bar.baz"]


def wheel_tags(rng):
    py = rng.randrange(6, 15)
    r = rng.random()
    if r < 0.4:
        return f"cp3{py}-cp3{py}-{pick(rng, PLATFORMS)}"
    if r < 0.5:
        return f"cp3{py}-abi3-{pick(rng, PLATFORMS)}"
    if r < 0.6:
        return f"py3-none-{pick(rng, PLATFORMS)}"
    if r < 0.7:
        return pick(rng, ["py3-none-any", "py2.py3-none-any", "py3-none-any", "py312-none-any",
                          "cp312-none-any", "py30-none-any", "py3.py2-none-any", "py4-none-any"])
    if r < 0.75:
        return f"cp3{py}-cp3{py}t-{pick(rng, PLATFORMS)}"
    if r < 0.8:
        return f"cp3{py}.cp3{py + 1}-abi3.none-{pick(rng, PLATFORMS)}"
    if r < 0.85:
        return pick(rng, ["CP312-CP312-MANYLINUX_2_28_X86_64", "Py3-None-Any",
                          "cp312-cp312-", "-none-any", "py3--any", "py3.-none-any",
                          "cp312-cp312-manylinux_2_28_x86_64.",
                          "pp310-pypy310_pp73-manylinux_2_28_x86_64", "cp3-cp3-linux_x86_64",
                          "cp312-abi3-linux_x86_64", "py3-none-linux-x86_64"])
    return f"cp3{py}-cp3{py}-{pick(rng, PLATFORMS)}"


def coherent_tags(rng, target):
    """A tag set written for (or near) `target`, so ranks are exercised."""
    minor = int(target["python"].split(".")[1])
    arch = target["arch"]
    glibc = int(target["glibc"].split(".")[1])
    platform = pick(rng, [f"manylinux_2_{rng.randrange(5, glibc + 3)}_{arch}",
                          f"manylinux2014_{arch}.manylinux_2_17_{arch}",
                          f"manylinux_2_17_{arch}.manylinux2014_{arch}",
                          f"manylinux1_{arch}", f"manylinux2010_{arch}", f"linux_{arch}",
                          f"manylinux_2_{glibc}_{arch}", f"manylinux_2_{glibc + 1}_{arch}",
                          f"manylinux_2_27_{arch}.manylinux_2_28_{arch}", "any"],
                    [5, 3, 1, 1, 1, 1, 2, 1, 1, 2])
    r = rng.random()
    if r < 0.4:
        interp, abi = f"cp3{minor}", f"cp3{minor}"
    elif r < 0.55:
        interp, abi = f"cp3{rng.randrange(2, minor + 2)}", "abi3"
    elif r < 0.65:
        interp, abi = f"cp3{minor}", "none"
    elif r < 0.8:
        interp, abi = pick(rng, ["py3", f"py3{minor}", f"py3{rng.randrange(0, minor + 2)}",
                                 "py2.py3", "py30", "py2"]), "none"
    elif r < 0.9:
        interp, abi = f"cp3{minor}.cp3{minor + 1}", f"cp3{minor}.abi3"
    else:
        interp, abi = f"cp3{minor}", f"cp3{minor}t"
    return f"{interp}-{abi}-{platform}"


def wheel_filename(rng, target):
    dist = pick(rng, DISTS)
    if rng.random() < 0.04:
        dist = pick(rng, ["torch__nightly", "torch+x", "", "to rch", "_torch", "torch.", "T0rch_",
                          "a__b", "t-x"])
    r = rng.random()
    if r < 0.75:
        version = realistic_version(rng)
    elif r < 0.93:
        version = spell(rng, small_components(rng)).strip()
    else:
        version = mutate(rng, realistic_version(rng))
    name = f"{dist}-{version}"
    if rng.random() < 0.08:
        name += "-" + pick(rng, ["1", "2", "007", "1abc", "12_x", "0", "abc", "", "1.5", "99"])
    name += "-" + (coherent_tags(rng, target) if rng.random() < 0.6 else wheel_tags(rng))
    r = rng.random()
    if r < 0.96:
        name += ".whl"
    else:
        name += pick(rng, [".WHL", ".zip", "", ".whl.metadata", "whl"])
    return name.replace("%", "")


VARIANT_LABEL = re.compile(r"^[0-9a-z_.]{1,16}$")  # PEP 825 "Variant label"


def pep825_label(filename):
    """The variant label PEP 825's file name grammar finds in a name packaging
    refuses, when the rest of the name is one packaging accepts; else None."""
    if not filename.endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    if len(parts) not in (6, 7) or (len(parts) == 6 and parts[2][:1].isdigit()):
        return None
    label, python_tag = parts[-1], parts[-4]
    if not VARIANT_LABEL.match(label) or not python_tag or python_tag[0] in "0123456789.":
        return None
    try:
        parse_wheel_filename("-".join(parts[:-1]) + ".whl")
    except Exception:  # noqa: BLE001 - any refusal: not this difference
        return None
    return label


def wheel_record(filename, target, ranks):
    rec = {"kind": "wheel", "filename": filename, "target": target}
    try:
        name, version, build, tags = parse_wheel_filename(filename)
    except Exception as e:  # InvalidWheelFilename, InvalidVersion
        rec["valid"] = False
        rec["parse_error"] = type(e).__name__
        label = pep825_label(filename)
        if label is not None:
            rec["documented_difference"] = "pep825-variant-label"
            rec["documented_label"] = label
        return rec
    rec["valid"] = True
    rec["name"] = name
    rec["version"] = str(version)
    if version_overflows(version):
        rec["documented_difference"] = "uint64-overflow"
        return rec
    rec["build"] = [build[0], build[1]] if build else None
    rec["tags"] = sorted(str(t) for t in tags)
    best = min((ranks[t] for t in rec["tags"] if t in ranks), default=None)
    rec["supported"] = best is not None
    rec["best_rank"] = best
    return rec


def gen_wheel(rng, rank_cache):
    out = []
    seen = set()
    for big in ("18446744073709551616", "1.0.99999999999999999999", "1.0+99999999999999999999"):
        filename = f"torch-{big}-py3-none-any.whl"
        target = {"python": "3.12", "arch": "x86_64", "glibc": "2.28"}
        out.append(wheel_record(filename, target, ranks_for(rank_cache, target)))
    while len(out) < COUNTS["wheel"]:
        target = {"python": pick(rng, PYTHONS), "arch": pick(rng, TAG_ARCHES),
                  "glibc": f"2.{rng.randrange(17, 40)}"}
        filename = wheel_filename(rng, target)
        if not filename.isascii():
            continue
        key = (filename, target["python"], target["arch"], target["glibc"])
        if key in seen:
            continue
        seen.add(key)
        out.append(wheel_record(filename, target, ranks_for(rank_cache, target)))
    return out


def ranks_for(cache, target):
    key = (target["python"], target["arch"], target["glibc"])
    if key not in cache:
        ranks = {}
        for i, tag in enumerate(tags_for_target(*key)):
            ranks.setdefault(tag, i)
        cache[key] = ranks
    return cache[key]


def gen_tags():
    out = []
    grid = [(p, a, g) for p in PYTHONS for a in TAG_ARCHES for g in TAG_GLIBCS]
    grid += [(p, a, g) for p in ("3.8", "3.12") for a in TAG_ARCHES for g in TAG_OLD_GLIBCS]
    for python, arch, glibc in grid:
        out.append({"kind": "tags", "python": python, "arch": arch, "glibc": glibc,
                    "tags": list(tags_for_target(python, arch, glibc))})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON Lines file to write")
    parser.add_argument("--seed", type=int, default=SEED,
                        help="another seed, for exploratory runs (the tests use the default)")
    parser.add_argument("--scale", type=int, default=1,
                        help="multiply the case counts, for exploratory runs")
    args = parser.parse_args()
    for kind in COUNTS:
        COUNTS[kind] *= max(1, args.scale)
    if packaging.__version__ != "23.0":
        print(f"warning: expected packaging 23.0, found {packaging.__version__}", file=sys.stderr)

    kinds = [
        ("version", gen_version),
        ("compare", gen_compare),
        ("specifier", gen_specifier),
        ("marker", gen_marker),
        ("requirement", gen_requirement),
    ]
    cases = []
    for index, (kind, generate) in enumerate(kinds):
        cases += generate(random.Random(args.seed + index))  # one stream per kind: independent
    rank_cache = {}
    cases += gen_wheel(random.Random(args.seed + 100), rank_cache)
    cases += gen_tags()

    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        for case in cases:
            f.write(json.dumps(case, separators=(",", ":")) + "\n")
    os.replace(tmp, args.out)

    counts = {}
    for case in cases:
        counts[case["kind"]] = counts.get(case["kind"], 0) + 1
    print(" ".join(f"{k}={n}" for k, n in counts.items()), f"-> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
