#!/usr/bin/env python3
"""The output writers fed hostile and random strings, each output run through its real consumer.

    hostile_writers.py --wheelmod BIN --probe PROBE --lmod LMOD GROUP [--seed N]

One writer per output format, and each must be total over all input: whatever bytes it is given,
what it writes is read back by the program that consumes it as exactly that text (or the writer
refuses it with an error), and nothing in it runs. wheelmod-writer-probe (writer_probe.cpp)
renders with the writers themselves, whole easyconfigs and module files included; this driver
hands the results to the real consumers:

  python     python_string, wrap_string_item, wrap_comment and whole easyconfigs (three shapes):
             valid UTF-8 source, Python's ast parses it, literal_eval gives back the input, a
             comment holds nothing that runs, no call or import anywhere in an easyconfig
  easybuild  the same easyconfigs through EasyBuild's own parser (the pinned framework and
             easyblocks snapshots, $WHEELMOD_EASYBUILD_SRC or ../shared/easybuild; exit 77,
             skipped, without them) and `eb --dry-run`: every value read back
  lua_tcl    lua_string, lua_long_string (Lua 5.3) and tcl_text, tcl_quoted, tcl_word (tclsh):
             the value is exactly the input; a canary command never runs
  lmod       whole module files (render_module, Lua and Tcl, through Lmod's tcl2lua) carrying
             the strings in every field: real Lmod `load` sets each variable to exactly the
             value written, `whatis`, `help`, `show` and `spider` succeed and print no raw control
             character, no canary (`[exec ...]`, `$(...)`, `os.execute`) ever runs
  html       the mirror's project and root pages: html.parser gives back every href, attribute
             and text exactly
  json       `wheelmod config`/`check`/`resolve --format json` with invalid UTF-8 and control
             bytes in what they report: exit 0 with JSON Python's json reads, or a clear error
             (exit 2-6); never exit 1 (an internal error)
  terminal   core::terminal_text and core::printable: no control character left (C0 but tab
             and newline, DEL, C1, U+2028/9), reversible as documented; and the real binary's
             error paragraphs and text output naming hostile strings show them escaped

Inputs: a fixed corpus (every single byte, every closing delimiter of every language, `]===]`
and its prefixes, `[exec touch CANARY]`, `$(touch CANARY)`, backticks, unbalanced braces,
backslashes, CR, LF, NUL, escape sequences, U+0085, U+2028/9, invalid and overlong UTF-8,
EasyBuild's format marker, long strings) and seeded random strings (`--seed N`, or
$WHEELMOD_WRITERS_SEED; fixed by default, printed). A failing property prints, per kind of
failure, how many inputs fail and the shortest ones as hex with what the consumer said; inputs
batched into one module file are isolated by halving the batch.

The writer defects this suite found that src/ has not fixed yet are listed in KNOWN_DEFECTS:
printed as `xfail:`, they do not fail the test, and a listed defect that no longer occurs does
(remove its line). WHEELMOD_WRITERS_STRICT=1 fails on them all.
"""
import ast
import html.parser
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from hostile_support import Failure, Suite, check, main_with_groups

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SKIP_EXIT = 77
DEFAULT_SEED = 20261207
CANARY = "CANARY"
# How many failing inputs a failure message shows.
SHOWN = 6


# --- inputs --------------------------------------------------------------------------------------

def fixed_corpus():
    """The hostile strings: every byte alone, then what each consumer's grammar makes special."""
    out = [bytes([b]) for b in range(256)]
    texts = [
        "", " ", "  two  spaces ", "plain", "a b", "trailing space ", " leading",
        # Python
        '"', "'", '"""', "'''", "a'b", 'a"b', "a'b\"c", '"""x"""', "\\", "a\\", "\\'", '\\"',
        "\\n", "\\x00", "\\u2028", "\\N{BULLET}", "# not a comment", "x\n# comment\ny",
        "x\nimport os\nos.system('touch CANARY')",
        "x=getattr(__import__('os'),'system')('touch CANARY');y",
        "'+__import__('os').system('touch CANARY')+'",
        '"+__import__("os").system("touch CANARY")+"',
        "a = 1", "EASYCONFIGFORMAT 2.0", "x\n# EASYCONFIGFORMAT 2.0\ny", "# EASYCONFIGFORMAT 1.0",
        "%(name)s", "%(version)s-%(unknown)s", "100%", "%s %d", "%%", "{name}",
        # Lua
        "]]", "]=]", "]==]", "]===]", "]====]", "]===", "]=== ", "a]", "a]=", "a]==", "a]===",
        "[[", "[==[", "[===[", "]===]]===]", "]]]===]]]", "--", "--[[", "\n--", "\\ddd",
        "\\0", "\\999", "\\1234", '")os.execute("touch CANARY")--',
        "]]os.execute('touch CANARY')--[[", "]==]os.execute('touch CANARY')--[==[",
        "]===]os.execute('touch CANARY')--[===[",
        # Tcl and tcl2lua
        "[exec touch CANARY]", "$(touch CANARY)", "`touch CANARY`", "${HOME}", "$HOME",
        "$::env(HOME)", "$env(HOME)", "[set ::env(HOME)]", "{", "}", "}{", "{}", "{{", "}}",
        "{a", "a}", "\\{", "\\}", "a\\\nb", "\\\n", ";", "; exec touch CANARY", "a b c",
        '" ; exec touch CANARY ; "', "\t", "a\tb", "tab\t", "\"\\\"", "[", "]", "$",
        '",os.execute("touch CANARY"),"', '\\",os.execute(\\"touch CANARY\\"),\\"',
        "x/1.0 [exec touch CANARY]/1.0", "#", "\n#", "x\n", "\nx",
        # shells, paths
        "a:b", "::", "/", "//", "/./", "a/", "../x", "~", "*", "?", "a;b", "a|b", "a&b",
        "$(id)", "!", "'$(touch CANARY)'",
        # line breaks and control characters
        "\r", "\n", "\r\n", "\n\n", "a\rb", "a\nb", "a\x00b", "\x00\x00", "\x00x", "x\x00",
        "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x7f",
        "\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b]8;;http://example.org\x1b\\link\x1b]8;;\x1b\\",
        "\x1b[2J\x1b[H", "\x1bc", "\u0085", "a\u0085b", "\u2028", "\u2029", "a\u2028b",
        "\u0080", "\u009b31m", "\u200b", "\ufeff", "\ufffd", "\U0001f600", "é", "日本語",
        # HTML
        "<", ">", "&", "&amp;", "&#39;", "&lt;", "</a>", "<script>alert(1)</script>",
        '"><img src=x onerror=alert(1)>', "'", "<!--", "-->", "&#0;", "&unknown;",
        "a#sha256=00", "%2B", "%", "%zz", "+", " + ",
        # JSON
        '{"a": 1}', "\\u0000", "\\ud800",
    ]
    out += [text.encode() for text in texts]
    out += [
        b"\xff", b"\xfe\xff", b"\xc3", b"a\xc3", b"\xc3(", b"\xa9", b"\xc0\xaf", b"\xc1\xbf",
        b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80",
        b"\xf8\x88\x80\x80\x80", b"\xe2\x80", b"\xe2\x80\xa8\xff", b"x\x80y", b"\xc2\x85",
        b"\xc2\x9b", b"]===]\xff", b"\x00\xff\n\r",
    ]
    # Long: wrapping and level-growing code paths, a multi-byte character at every cut.
    out += [b"a" * 5000, b"x " * 400, ("é" * 150).encode(), ("€ " * 90).encode(),
            ("日本" * 40).encode(), b"/" * 300, ("a" * 110 + "é" * 20).encode(),
            # 110-118 characters: an item that fits 120 columns with or without its comma
            *(b"a" * n for n in range(110, 119)),
            b"]" + b"=" * 40 + b"]", b"]===]" * 50, b"\\" * 301, b"\x1b" * 100, b"'\"" * 100]
    unique = []
    for case in out:
        if case not in unique:
            unique.append(case)
    return unique


TOKENS = [b'"', b"'", b"\\", b"]", b"[", b"=", b"]===]", b"]]", b"{", b"}", b"$", b"(", b")",
          b"`", b";", b"#", b"%", b"<", b">", b"&", b":", b"/", b" ", b"\t", b"\n", b"\r", b"\x00",
          b"\x1b", b"\x7f", "\u2028".encode(), "\u0085".encode(), "é".encode(), b"\xff", b"\xc3",
          b"exec", b"os.execute", b"touch CANARY", b"%(name)s", b"-", b"--", b"*/", b"\\n"]


def random_corpus(seed, count=140):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        kind = rng.random()
        length = rng.choice((1, 2, 3, 5, 8, 13, 30, 60, 130))
        if kind < 0.3:
            case = bytes(rng.randrange(256) for _ in range(length))
        elif kind < 0.6:
            case = b"".join(rng.choice(TOKENS) for _ in range(length))
        else:
            case = "".join(chr(rng.choice((rng.randrange(0x20, 0x7f), rng.randrange(0x80, 0x800),
                                           rng.randrange(0x800, 0xd800), rng.randrange(0x20)))
                                   ) for _ in range(length)).encode()
        out.append(case)
    return out


def corpus(args):
    seed = args.seed
    print(f"inputs: the fixed corpus and {140} random strings from seed {seed} "
          f"(--seed N or WHEELMOD_WRITERS_SEED=N to vary)")
    cases = fixed_corpus()
    cases += [case for case in random_corpus(seed) if case not in cases]
    return cases


def is_utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def shown(case):
    return f"{case.hex() or '(empty)'} {case[:60]!r}{'...' if len(case) > 60 else ''}"


# Writer defects found by this suite and reported, not fixed yet (they are in src/, which the suite
# does not change): (a regex of the property, Findings.what; a regex of the kind of failure, the
# first words of its message; the defect). A failure of such a kind is printed as `xfail:` and
# does not fail the test; a listed kind that no longer occurs fails it (the line is stale: remove
# it). WHEELMOD_WRITERS_STRICT=1 ignores the list.
KNOWN_DEFECTS = [
    # easybuild group: the probe puts the hostile text into every field, also those that carry
    # wheelmod's own %(installdir)s templates (postinstallcmds, sanity_check_commands), which are
    # not escaped on purpose: free text (description, homepage) is (easybuild_text).
    (r"render_easyconfig \(fields\) read by EasyBuild", r"EasyBuild's templating fails on it",
     "an unknown %(name)s in a command field, where wheelmod writes only its own commands with "
     "their templates; the free-text fields are escaped for templating"),
    # easybuild group: EasyBuild's parser on the files Python reads
    # lmod group: whole module files
    (r"render_module \(tcl\) through Lmod", r"module (whatis|help|spider) prints a raw "
     r"control character \(tcl\)", "help, whatis and extensions escape what they show since "
     "this suite found it (the Lua modules are clean); some inputs still show a raw control "
     "character through Lmod's Tcl conversion (not yet traced)"),
    (r"from the Tcl module differs from the Lua", r"a path from the Tcl module differs",
     "Tcl reads bytes that are not UTF-8 as Latin-1 (\\xff becomes U+00FF), in a prefix the Tcl "
     "writer accepts"),
    (r"render_module \(tcl\)", r"a variable the tcl module sets differs",
     "tcl2lua trims the trailing blanks and line breaks of every setenv value, and Tcl reads bytes "
     "that are not UTF-8 as Latin-1 (\\x80 becomes U+0080)"),
]


class Findings:
    """The failing inputs of one property, sorted by kind of failure (the message's first words):
    per kind its count and shortest inputs."""

    def __init__(self, what):
        self.what = what
        self.items = []

    def add(self, case, message):
        self.items.append((case, message))

    @staticmethod
    def kind(message):
        head = message.strip().split("\n")[0]
        return re.split(r": | back as | \[", head)[0].strip()

    def raise_if_any(self, total, through=""):
        kinds = {}
        for case, message in sorted(self.items, key=lambda item: (len(item[0]), item[0])):
            kinds.setdefault(self.kind(message), []).append((case, message))
        known = [] if os.environ.get("WHEELMOD_WRITERS_STRICT") == "1" else \
            [entry for entry in KNOWN_DEFECTS if re.search(entry[0], self.what)]
        unknown = {}
        for kind, items in kinds.items():
            entry = next((e for e in known if re.fullmatch(e[1], kind)), None)
            if entry is None:
                unknown[kind] = items
                continue
            print(f"xfail: {self.what}: [{len({c for c, _ in items})} inputs] {kind}: {entry[2]}"
                  f"\n  (shortest: {shown(items[0][0])})")
        stale = [entry for entry in known if not any(re.fullmatch(entry[1], kind) for kind in kinds)]
        lines = []
        if unknown:
            failing = len({case for items in unknown.values() for case, _ in items})
            lines.append(f"{failing} of {total} inputs{through} fail: {self.what}")
            for kind, items in unknown.items():
                lines.append(f"  [{len({case for case, _ in items})} inputs] {kind}")
                for case, message in items[:2]:
                    lines.append(f"    input {shown(case)}\n      " +
                                 message.strip()[:1500].replace("\n", "\n      "))
        for entry in stale:
            lines.append(f"  the known defect {entry[1]!r} ({entry[2]}) no longer occurs: "
                         "remove its line from KNOWN_DEFECTS")
        if lines:
            raise Failure("\n".join(lines))
        xfails = len(kinds)
        return f"{total} inputs{through}" + (f"; {xfails} known defects (xfail)" if xfails else "")


# --- the probe -----------------------------------------------------------------------------------

class Probe:
    """One wheelmod-writer-probe for the whole run: a request a line in, an answer a line out."""

    def __init__(self, path):
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr)

    def ask(self, requests):
        answers = []
        for request in requests:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
            if not line:
                self.close()
                raise Failure(f"the probe stopped answering (exit {self.process.returncode}):\n"
                              f"{self.said()}")
            answers.append(json.loads(line))
        return answers

    def said(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-4000:]

    def close(self):
        """Ends the probe; a sanitizer report or an exit other than 0 fails the run."""
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=60)
        stderr = self.said()
        for mark in ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                     "runtime error:"):
            check(mark not in stderr, f"sanitizer report from the probe ({mark}):\n{stderr}")
        check(self.process.returncode == 0,
              f"the probe exited {self.process.returncode}:\n{stderr}")


_PROBES = {}


def probe(args, requests):
    """Answers of wheelmod-writer-probe to `requests`, in order."""
    if args.probe not in _PROBES:
        _PROBES[args.probe] = Probe(args.probe)
    return _PROBES[args.probe].ask(requests)


def close_probes():
    for path in list(_PROBES):
        _PROBES.pop(path).close()


def probe_end():
    """The last case of every group: the probe exits 0 without a sanitizer report."""
    def end():
        close_probes()
        return "exit 0, no sanitizer report"
    return ("the probe ends cleanly", end)


def unhex(value):
    if isinstance(value, list):
        return [bytes.fromhex(item) for item in value]
    return bytes.fromhex(value)


def strings_of(args, cases):
    answers = probe(args, [{"op": "strings", "s": case.hex()} for case in cases])
    out = []
    for case, answer in zip(cases, answers):
        check("error" not in answer, f"the probe failed on {shown(case)}: {answer.get('error')}")
        out.append({key: unhex(value) for key, value in answer.items()})
    return out


def unprintable(text):
    """core::printable backwards: `\\\\` and `\\xNN`."""
    return re.sub(rb"\\(\\|x([0-9a-f]{2}))",
                  lambda m: b"\\" if m.group(1) == b"\\" else bytes.fromhex(m.group(2).decode()),
                  text)


def canary_check(where):
    found = [os.path.join(d, n) for d, _, names in os.walk(where) for n in names if n == CANARY]
    check(not found, f"a canary command ran: {found} exist")


class Work:
    def __init__(self):
        self.top = tempfile.mkdtemp(prefix="wheelmod-hostile-writers-")

    def path(self, *parts):
        return os.path.join(self.top, *parts)

    def close(self):
        if os.environ.get("WHEELMOD_KEEP_WORK"):
            print(f"note: WHEELMOD_KEEP_WORK is set, kept {self.top}")
            return
        shutil.rmtree(self.top, ignore_errors=True)


# --- python --------------------------------------------------------------------------------------

# What an easyconfig may hold: assignments of literals, names (SYSTEM, ARCH, version, ...),
# subscripts by ARCH and `+` of lists. A call, an import, an attribute or any other statement
# means text escaped a literal or a comment.
EASYCONFIG_NODES = (ast.Module, ast.Assign, ast.Name, ast.Load, ast.Store, ast.Constant, ast.Tuple,
                    ast.List, ast.Dict, ast.Subscript, ast.BinOp, ast.Add)


def parse_source(source, what, case=None):
    """(tree, None) or (None, why): `source` must be UTF-8 that Python's ast parses."""
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as error:
        whose = "" if case is None else " though its input is" if is_utf8(case) else \
            " (nor is its input)"
        return None, f"{what} is not UTF-8{whose}: {error}\n{source[:400]!r}"
    try:
        return ast.parse(text), None
    except (SyntaxError, ValueError) as error:
        message = re.sub(r"U\+[0-9A-F]+|\(.*", "", getattr(error, "msg", str(error))).strip()
        return None, f"{what} does not parse [{message}]: {error!r}\n{source[:400]!r}"


def literal_value(source, what, case):
    """The value of `x = <source>`; raises Failure with why not."""
    tree, why = parse_source(b"x = " + source + b"\n", what, case)
    check(tree is not None, why)
    check(len(tree.body) == 1 and isinstance(tree.body[0], ast.Assign),
          f"{what} is more than one expression:\n{source!r}")
    try:
        return ast.literal_eval(tree.body[0].value)
    except ValueError as error:
        raise Failure(f"{what} is no literal ({error}):\n{source!r}")


def easyconfig_values(source, what, case):
    """{name: value} of a whole easyconfig, every statement an assignment of a literal (names
    such as SYSTEM and ARCH kept as ('name', N))."""
    tree, why = parse_source(source, what, case)
    check(tree is not None, why)
    for node in ast.walk(tree):
        check(isinstance(node, EASYCONFIG_NODES),
              f"{what} holds code [{type(node).__name__}]: line {getattr(node, 'lineno', '?')}, "
              f"text escaped a literal or comment:\n{source.decode(errors='replace')[:1500]}")

    def value(node):
        if isinstance(node, ast.Name):
            return ("name", node.id)
        if isinstance(node, ast.Subscript):
            return ("subscript", value(node.value), value(node.slice))
        if isinstance(node, ast.BinOp):
            return ("+", value(node.left), value(node.right))
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [value(item) for item in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            return {value(k): value(v) for k, v in zip(node.keys, node.values)}
        return ast.literal_eval(node)
    out = {}
    for statement in tree.body:
        check(len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name),
              f"{what} assigns to something else than a name")
        out[statement.targets[0].id] = value(statement.value)
    return out


def same_words(written, given):
    """description_literal wraps at 120 columns: a space may become a line break."""
    return written.replace("\n", " ") == given.replace("\n", " ")


def check_fields_easyconfig(case, source):
    values = easyconfig_values(source, "the easyconfig (free-text fields)", case)
    expected = {"easyblock", "name", "version", "homepage", "description", "toolchain",
                "dependencies", "dummy_package", "exts_list", "postinstallcmds",
                "sanity_check_commands", "moduleclass"}
    check(set(values) == expected, f"assigned {sorted(values)}, expected {sorted(expected)}")
    check(values["dependencies"] == [], f"dependencies = {values['dependencies']!r}: a comment "
          "(the dependency note) holds code")
    if not is_utf8(case):
        return
    text = case.decode()
    for key, got, want in (("homepage", values["homepage"], eb_escaped(text)),
                           ("postinstallcmds", values["postinstallcmds"], [text]),
                           ("sanity_check_commands", values["sanity_check_commands"][0], text),
                           ("exts_list", values["exts_list"], [(text, text)])):
        check(got == want, f"{key} reads back as {got!r}, written from {want!r}")
    check(same_words(values["description"], eb_escaped(text)),
          f"description reads back as {values['description']!r}, written from {text!r}")


def eb_escaped(text):
    """Free text as wheelmod writes it for EasyBuild's templating (easyconfig.py resolve_template:
    an odd run of '%' before `(name)s` is a template): such runs doubled, so that the templated
    value is the text itself."""
    return re.sub(r"(%+)(?=\(\w+\)s)", lambda match: match.group(1) * 2, text)


def check_per_arch_easyconfig(case, source):
    values = easyconfig_values(source, "the easyconfig (an extension with a wheel per architecture)",
                               case)
    locals_ = [name for name in values if name.startswith("local_")]
    check(len(locals_) == 1, f"the easyconfig assigns other names than one local_*: {locals_}")
    if is_utf8(case):
        head = values["exts_list"][0]
        check(head[0] == case.decode(), f"the extension reads back as {head[0]!r}")


def check_one_arch_easyconfig(case, source):
    values = easyconfig_values(source, "the easyconfig (one architecture)", case)
    if is_utf8(case):
        arch = values["local_wheel_arch"]
        want = ("subscript", {case.decode(): case.decode()}, ("name", "ARCH"))
        check(arch == want, f"local_wheel_arch reads back as {arch!r}, written from {want!r}")


def check_literals(case, out):
    """python_string and the wrapped items: one line each, UTF-8, the value given back."""
    value = literal_value(out["python_string"], "python_string", case)
    for key, width in (("wrap_120", 120), ("wrap_24", 24)):
        lines = out[key]
        joined = b"x = (\n" + b"\n".join(lines) + b"\n)"
        tree, why = parse_source(joined, key, case)
        check(tree is not None, why)
        for line in lines:
            check(b"\n" not in line and b"\r" not in line, f"{key}: a raw line break in {line!r}")
            shown_width = len(line.decode(errors="replace"))
            # A piece of one character and its quotes, escaped, may pass a narrow width.
            check(shown_width <= width or len(lines) > 1 and shown_width <= 4 + 2 + 10 + 1,
                  f"{key}: a line of {shown_width} columns: {line!r}")
        wrapped = ast.literal_eval(tree.body[0].value)
        check(isinstance(wrapped, tuple) and len(wrapped) == 1,
              f"{key} is not one item: {wrapped!r}")
        if is_utf8(case):
            check(wrapped[0] == case.decode(), f"{key} reads back as {wrapped[0]!r}")
    if is_utf8(case):
        check(value == case.decode(), f"python_string reads back as {value!r}")
    for key in ("comment_0", "comment_4"):
        lines = out[key]
        indent = b"    " if key == "comment_4" else b""
        source = b"\n".join(lines) + b"\n"
        tree, why = parse_source(source, key, case)
        check(tree is not None, why)
        check(tree.body == [], f"{key}: the comment holds code: {source!r}")
        for line in lines:
            check(line.startswith(indent + b"#"), f"{key}: a line that is no comment: {line!r}")
            check(all(0x20 <= b < 0x7f for b in line), f"{key}: a byte outside printable ASCII "
                  f"in {line!r}")
        words = b" ".join(line[len(indent) + 2:] for line in lines).split(b" ")
        got = [unprintable(word) for word in words if word]
        want = [word for word in case.split(b" ") if word]
        check(got == want, f"{key}: the words read back as {got!r}")


def python(args):
    suite = Suite(args.wheelmod, "hostile strings through the Python writers",
                  "python_string, wrap_string_item, wrap_comment, render_easyconfig -> ast")
    work = Work()
    cases = corpus(args)
    state = {}

    def literals():
        findings = Findings("python_string / wrap_string_item / wrap_comment")
        for case, out in zip(cases, strings_of(args, cases)):
            try:
                check_literals(case, out)
            except Failure as failure:
                findings.add(case, str(failure))
        return findings.raise_if_any(len(cases))

    def easyconfigs(variant, checker):
        def run_variant():
            answers = probe(args, [{"op": "easyconfig", "variant": variant, "s": case.hex()}
                                   for case in cases])
            findings = Findings(f"render_easyconfig ({variant}) read by Python's ast")
            for case, answer in zip(cases, answers):
                try:
                    check("error" not in answer, f"the writer failed: {answer.get('error')}")
                    checker(case, unhex(answer["text"]))
                except Failure as failure:
                    findings.add(case, str(failure))
            state[variant] = answers
            return findings.raise_if_any(len(cases))
        return run_variant

    started = time.monotonic()
    code = suite.run_all([
        ("literals and comments", literals),
        ("easyconfig free-text fields", easyconfigs("fields", check_fields_easyconfig)),
        ("easyconfig extension with a wheel per architecture",
         easyconfigs("per_arch", check_per_arch_easyconfig)),
        ("easyconfig for one architecture", easyconfigs("one_arch", check_one_arch_easyconfig)),
        probe_end(),
    ], work, "every literal reads back as written; comments and easyconfigs hold no code")
    print(f"python: {time.monotonic() - started:.1f} s")
    return code


# --- easybuild -----------------------------------------------------------------------------------

EB_SNAPSHOTS = {"framework": "easybuild-framework-", "easyblocks": "easybuild-easyblocks-"}
EB_PARAMETERS = ("description", "homepage", "postinstallcmds", "sanity_check_commands",
                 "exts_list")


def easybuild_snapshots():
    """({part: tarball}, None), or (None, the reason to skip) where EasyBuild is absent."""
    sys.path.insert(0, os.path.join(REPO, "tests", "easybuild"))
    import easybuild_snapshots as snapshots
    try:
        return snapshots.find(EB_SNAPSHOTS)[1], None
    except snapshots.SnapshotsAbsent as absent:
        return None, str(absent)


def lmod_init_environment(lmod):
    """The environment Lmod's bash init script sets (EasyBuild runs `module` through it, and a
    user's shell has LMOD_VERSION, which the Tcl template tests)."""
    init = os.path.join(os.path.dirname(os.path.dirname(lmod)), "init", "bash")
    check(os.path.isfile(init), f"no {init} beside {lmod} (Debian package lmod)")
    base = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/tmp")}
    result = subprocess.run(["bash", "--noprofile", "--norc", "-c",
                             f'source "{init}" >/dev/null 2>&1; env -0'],
                            capture_output=True, env=base, timeout=60)
    check(result.returncode == 0, f"sourcing {init} failed: {result.stderr[-2000:]!r}")
    env = dict(entry.split("=", 1) for entry in result.stdout.decode().split("\0") if "=" in entry)
    for name in list(env):
        if name in ("LOADEDMODULES", "_LMFILES_", "MODULEPATH", "OLDPWD", "PWD", "SHLVL", "_") \
                or name.startswith(("__LMOD_REF_COUNT", "_ModuleTable", "EBROOT", "EBVERSION",
                                    "EASYBUILD_", "BASH_FUNC_")):
            del env[name]
    return env


def eb_worker(job_path):
    """Runs with EasyBuild importable: parses each file with EasyBuild's own parser, reads the
    parameters back untemplated and templated, writes the answers as JSON."""
    import contextlib
    import io
    with open(job_path) as handle:
        job = json.load(handle)
    from easybuild.framework.easyconfig.easyconfig import process_easyconfig
    from easybuild.tools.options import set_up_configuration
    set_up_configuration(args=job["options"], silent=True)

    def plain(value):
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        return value
    answers = {}
    for item in job["files"]:
        said = io.StringIO()
        answer = {"ok": False}
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            try:
                ec = process_easyconfig(item["path"])[0]["ec"]
                with ec.disable_templating():
                    answer["raw"] = {key: plain(ec[key]) for key in job["parameters"]}
                answer["ok"] = True
                try:
                    answer["templated"] = {key: plain(ec[key]) for key in job["parameters"]}
                except Exception as error:  # noqa: BLE001 - what EasyBuild says is the finding
                    answer["templated_error"] = getattr(error, "msg", None) or repr(error)
            except Exception as error:  # noqa: BLE001
                answer["message"] = getattr(error, "msg", None) or repr(error)
        answer["said"] = said.getvalue()[-2000:]
        answers[item["id"]] = answer
    with open(job["result"], "w") as handle:
        json.dump(answers, handle)
    return 0


def easybuild(args):
    suite = Suite(args.wheelmod, "hostile strings in easyconfigs read by EasyBuild",
                  "render_easyconfig -> EasyBuild's parser (process_easyconfig), eb --dry-run")
    snapshots, reason = easybuild_snapshots()
    if snapshots is None:
        print(f"skipped: {reason}")
        return SKIP_EXIT
    work = Work()
    cases = corpus(args)
    started = time.monotonic()
    src = work.path("src")
    os.makedirs(src)
    for part, tarball in snapshots.items():
        subprocess.run(["tar", "-xzf", tarball, "-C", src], check=True, timeout=300)
        check(os.path.isdir(os.path.join(src, part)), f"{tarball} has no top-level {part}/")
    env = lmod_init_environment(args.lmod)
    eb_dir = work.path("eb")
    env.update({"PYTHONPATH": f"{src}/framework:{src}/easyblocks", "HOME": work.path("home"),
                "XDG_CONFIG_HOME": work.path("xdg"), "XDG_CONFIG_DIRS": work.path("xdg"),
                "MODULEPATH": work.path("no-modules"), "EASYBUILD_PREFIX": eb_dir,
                "FANCYLOGGER_IGNORE_MPI4PY": "1", "PYTHONNOUSERSITE": "1", "LANG": "C.UTF-8"})
    for directory in ("home", "xdg", "no-modules"):
        os.makedirs(work.path(directory), exist_ok=True)
    options = ["--allow-use-as-root-and-accept-consequences", f"--prefix={eb_dir}",
               f"--tmpdir={eb_dir}/tmp", f"--buildpath={eb_dir}/build",
               f"--installpath={eb_dir}/install", f"--sourcepath={eb_dir}/sources",
               f"--repositorypath={eb_dir}/ebfiles_repo", "--detect-loaded-modules=purge"]
    print(f"easybuild: snapshots extracted in {time.monotonic() - started:.1f} s")

    def variant(name, checker):
        def run_variant():
            answers = probe(args, [{"op": "easyconfig", "variant": name, "s": case.hex()}
                                   for case in cases])
            files, skipped = [], 0
            folder = work.path(name)
            os.makedirs(folder)
            for index, (case, answer) in enumerate(zip(cases, answers)):
                text = unhex(answer.get("text", ""))
                tree, _ = parse_source(text, "")
                if tree is None:
                    skipped += 1  # the python group reports what Python cannot read
                    continue
                # A version of its own per file, so that eb --dry-run tells them apart.
                text = re.sub(rb"^version = '1\.0'$", f"version = '1.{index}'".encode(), text,
                              count=1, flags=re.M)
                path = os.path.join(folder, f"Probe-1.{index}.eb")
                with open(path, "wb") as handle:
                    handle.write(text)
                files.append({"id": str(index), "path": path})
            job = {"options": options, "parameters": list(EB_PARAMETERS), "files": files,
                   "result": os.path.join(folder, "result.json")}
            with open(os.path.join(folder, "job.json"), "w") as handle:
                json.dump(job, handle)
            result = subprocess.run([sys.executable, os.path.abspath(__file__), "--eb-worker",
                                     os.path.join(folder, "job.json")], env=env, cwd=work.top,
                                    capture_output=True, timeout=600)
            check(result.returncode == 0 and os.path.exists(job["result"]),
                  f"the EasyBuild worker exited {result.returncode}:\n"
                  f"{result.stdout.decode(errors='replace')[-3000:]}"
                  f"{result.stderr.decode(errors='replace')[-3000:]}")
            with open(job["result"]) as handle:
                parsed = json.load(handle)
            canary_check(work.top)
            findings = Findings(f"render_easyconfig ({name}) read by EasyBuild")
            good = []
            for item in files:
                case = cases[int(item["id"])]
                answer = parsed[item["id"]]
                try:
                    check(answer["ok"], f"EasyBuild does not parse it: {answer.get('message')}\n"
                          f"{answer.get('said', '')}")
                    checker(case, answer)
                    good.append(item["path"])
                except Failure as failure:
                    findings.add(case, str(failure))
            # eb --dry-run over every file EasyBuild parsed: the whole command line tool.
            dry = subprocess.run([sys.executable, "-m", "easybuild.main", *options, "--dry-run",
                                  *good], env=env, cwd=work.top, capture_output=True, timeout=600)
            listed = re.findall(rb"^ \* \[.\] (\S+)", dry.stdout, re.M)
            if dry.returncode != 0 or len(listed) != len(good):
                findings.add(b"", f"eb --dry-run of the {len(good)} files EasyBuild parsed exited "
                             f"{dry.returncode}, listing {len(listed)}:\n"
                             f"{dry.stdout.decode(errors='replace')[-2000:]}"
                             f"{dry.stderr.decode(errors='replace')[-2000:]}")
            canary_check(work.top)
            outcome = findings.raise_if_any(len(files))
            return f"{outcome}, parsed and dry-run ({skipped} that Python's ast refuses left to " \
                   "the python group)"
        return run_variant

    def fields(case, answer):
        if not is_utf8(case):
            return
        text = case.decode()
        raw = answer["raw"]
        for key, want in (("homepage", eb_escaped(text)), ("postinstallcmds", [text]),
                          ("exts_list", [[text, text]])):
            check(raw[key] == want, f"EasyBuild reads {key} back as {raw[key]!r}, written from {want!r}")
        check(raw["sanity_check_commands"][0] == text,
              f"EasyBuild reads sanity_check_commands back as {raw['sanity_check_commands']!r}")
        check(same_words(raw["description"], eb_escaped(text)),
              f"EasyBuild reads description back as {raw['description']!r}, written from {text!r}")
        check("templated_error" not in answer,
              f"EasyBuild's templating fails on it: {answer.get('templated_error')}")

    def per_arch(case, answer):
        if is_utf8(case):
            got = answer["raw"]["exts_list"][0][0]
            check(got == case.decode(), f"EasyBuild reads the extension back as {got!r}")

    code = suite.run_all([("free-text fields", variant("fields", fields)),
                          ("extension with a wheel per architecture", variant("per_arch", per_arch)),
                          probe_end()],
                         work, "EasyBuild parses each file Python reads and gives back every value")
    print(f"easybuild: {time.monotonic() - started:.1f} s")
    return code


# --- lua_tcl -------------------------------------------------------------------------------------

LUA_RUNNER = r"""
local function unhex(h) return (h:gsub('..', function(c) return string.char(tonumber(c, 16)) end)) end
local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end
for line in io.lines(arg[1]) do
  local chunk, err = load(unhex(line), '=literal', 't')
  if not chunk then
    io.write('ERR ', hex(err), '\n')
  else
    local ok, value, extra = pcall(chunk)
    if not ok then io.write('ERR ', hex(tostring(value)), '\n')
    elseif type(value) ~= 'string' or extra ~= nil then io.write('ERR ', hex('not one string'), '\n')
    else io.write('OK ', hex(value), '\n') end
  end
end
"""

# Each source is a file `source`d in an interpreter of its own, as Lmod's tcl2lua.tcl and
# Environment Modules read a module (system encoding, ^Z the end of the file); a full
# interpreter: `exec` works, so an escape shows.
TCL_RUNNER = r"""
proc hex {s} { binary scan [encoding convertto utf-8 $s] H* h; return $h }
set f [open [lindex $argv 0]]
set file [lindex $argv 1]
while {[gets $f line] >= 0} {
  set out [open $file w]
  fconfigure $out -translation binary
  puts -nonewline $out [binary format H* $line]
  close $out
  set i [interp create]
  if {[catch {$i eval [list source $file]} err]} {
    puts "ERR [hex $err]"
  } elseif {[catch {$i eval {set v}} value]} {
    puts "ERR [hex $value]"
  } else {
    puts "OK [hex $value]"
  }
  interp delete $i
}
"""


def run_sources(work, interpreter, runner, sources):
    """[(ok, value bytes or error text)] for each source, run by `interpreter` in `work`."""
    script = work.path(f"runner-{os.path.basename(interpreter)}")
    with open(script, "w") as handle:
        handle.write(runner)
    inputs = work.path(f"sources-{os.path.basename(interpreter)}")
    with open(inputs, "w") as handle:
        handle.write("".join(source.hex() + "\n" for source in sources))
    result = subprocess.run([interpreter, script, inputs, work.path("source.tcl")],
                            capture_output=True, cwd=work.top, timeout=300,
                            env=dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8"))
    check(result.returncode == 0, f"{interpreter} exited {result.returncode}: "
          f"{result.stderr.decode(errors='replace')[-2000:]}")
    lines = result.stdout.decode().splitlines()
    check(len(lines) == len(sources), f"{interpreter} answered {len(lines)} of {len(sources)}")
    out = []
    for line in lines:
        status, _, value = line.partition(" ")
        data = bytes.fromhex(value)
        out.append((True, data) if status == "OK" else (False, data.decode(errors="replace")))
    return out


def lua_tcl(args):
    suite = Suite(args.wheelmod, "hostile strings through the Lua and Tcl quoting",
                  "lua_string, lua_long_string (lua5.3); tcl_text, tcl_quoted, tcl_word (tclsh)")
    work = Work()
    cases = corpus(args)
    outputs = strings_of(args, cases)
    started = time.monotonic()

    def language(interpreter, runner, writers, prefix, exact_for_all):
        def run_language():
            path = shutil.which(interpreter)
            check(path, f"no {interpreter} (Debian package lua5.3 / tcl8.6, which Lmod needs)")
            findings = Findings(f"{', '.join(writers)} evaluated by {interpreter}")
            for writer in writers:
                sources = [prefix + out[writer] for out in outputs]
                for case, source, (ok, value) in zip(cases, sources,
                                                     run_sources(work, path, runner, sources)):
                    if not ok:
                        findings.add(case, f"{writer} fails in {interpreter}: {value}\n"
                                     f"{source[:300]!r}")
                    elif value != case and (exact_for_all or is_utf8(case)):
                        findings.add(case, f"{writer} reads back differently in {interpreter}: "
                                     f"{value[:200]!r}\n{source[:300]!r}")
            canary_check(work.top)
            return findings.raise_if_any(len(cases), f" (each through {len(writers)} writers)")
        return run_language

    code = suite.run_all([
        ("Lua strings", language("lua5.3", LUA_RUNNER, ("lua_string", "lua_long_string"),
                                 b"return ", True)),
        # Tcl reads its source as text: for bytes that are not UTF-8 only "no error, no escape".
        ("Tcl words", language("tclsh", TCL_RUNNER, ("tcl_text", "tcl_quoted", "tcl_word"),
                               b"set v ", False)),
        probe_end(),
    ], work, "each literal evaluates to exactly its input; nothing runs")
    print(f"lua_tcl: {time.monotonic() - started:.1f} s")
    return code


# --- lmod ----------------------------------------------------------------------------------------

LMOD_BATCH = 32
# Bytes a terminal must never get raw from `module whatis/help/spider`: C0 but tab and newline,
# DEL, the C1 range (as UTF-8), U+2028/9.
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]")
LUA_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"a": b"\a", b"b": b"\b", b"f": b"\f",
               b"v": b"\v", b"\\": b"\\", b'"': b'"', b"'": b"'", b"\n": b"\n"}


def lua_unquote(body):
    """A Lua short string's contents (as Lmod's %q writes them) to bytes."""
    def one(match):
        escape = match.group(1)
        if escape[:1].isdigit():
            return bytes([int(escape)])
        if escape[:1] == b"x":
            return bytes.fromhex(escape[1:].decode())
        return LUA_ESCAPES[escape]
    return re.sub(rb"\\(\d{1,3}|x[0-9a-fA-F]{2}|.)", one, body, flags=re.S)


def lmod_environment(stdout):
    """What `lmod python ...` sets (None for what it unsets), read from its output without
    running it: `os.environ["K"] = "<Lua %q string>";`."""
    out = {}
    for key, value in re.findall(rb'os\.environ\["((?:[^"\\]|\\.)*)"\] = "((?:[^"\\]|\\.)*)";',
                                 stdout, flags=re.S):
        out[lua_unquote(key).decode()] = lua_unquote(value)
    for key in re.findall(rb'del os\.environ\["((?:[^"\\]|\\.)*)"\]', stdout, flags=re.S):
        out[lua_unquote(key).decode()] = None
    return out


def one_line(data):
    return data.replace(b"\n", b" ").replace(b"\r", b" ")


# The module families: which fields of a ModuleDescription carry the inputs of a batch.
#   values  the extensions (every input a name and a version), EBVERSION, description, homepage
#           (through terminal_text, as describe_installation writes them), the footer comment
#   paths   every input a path component (prepend_path of root/<input>), and the site-packages
#   roots   one input, the installation prefix (one module per input)
#   deps    every input a module the module depends on (`module show` only: no such modules)
def module_request(name, family, cases, terminal):
    """(request for the probe, {variable: value Lmod must set}, description)."""
    def at(i):
        return cases[i % len(cases)]
    upper = name.upper()
    description = b"A probe.\nThis module provides the official wheels of " + name.encode()
    request = {"op": "module", "name": name, "version": b"1.0".hex(), "root": b"/wm/root".hex(),
               "description": description.hex(), "homepage": b"https://example.org/".hex(),
               "generator": b"wheelmod probe".hex(), "extensions": [[b"probe".hex(), b"1.0".hex()]],
               "paths": [], "python_path": [f"{upper}_PY", [b"lib".hex()]], "dependencies": []}
    if family == "values":
        description = terminal[at(1)] + b"\nThis module provides the official wheels of " + \
            name.encode()
        request.update({
            "version": at(0).hex(), "description": description.hex(),
            "homepage": terminal[at(2)].hex(), "generator": one_line(at(3)).hex(),
            "extensions": [[case.hex(), at(i + 1).hex()] for i, case in enumerate(cases)]})
    elif family == "paths":
        request["paths"] = [[f"{upper}_P{i:02d}", [case.hex()]] for i, case in enumerate(cases)]
        request["python_path"] = [f"{upper}_PY", [b"lib".hex(), at(0).hex()]]
    elif family == "roots":
        request["root"] = at(0).hex()
        request["python_path"] = [f"{upper}_PY", []]
    elif family == "deps":
        request["dependencies"] = [case.hex() for case in cases]
    root, version = unhex(request["root"]), unhex(request["version"])
    extensions = [(unhex(n), unhex(v)) for n, v in request["extensions"]]
    expected = {f"EBVERSION{upper}": version, f"EBROOT{upper}": root,
                f"EBEXTSLIST{upper}": b",".join(n + b"-" + v for n, v in extensions)}
    return request, expected, description


class Lmod:
    def __init__(self, args, work):
        self.lmod = args.lmod
        self.work = work
        self.env = lmod_initial = lmod_init_environment(args.lmod)
        check("LMOD_VERSION" in lmod_initial, "Lmod's init script sets no LMOD_VERSION")
        os.makedirs(work.path("home"), exist_ok=True)
        self.env.update({"HOME": work.path("home"), "LMOD_IGNORE_CACHE": "1", "TERM": "dumb",
                         "LMOD_PAGER": "none", "LMOD_COLORIZE": "no", "LMOD_REDIRECT": "no"})
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, tree, *command):
        env = dict(self.env, MODULEPATH=tree)
        started = time.monotonic()
        result = subprocess.run([self.lmod, "python", *command], capture_output=True, env=env,
                                cwd=self.work.top, timeout=300)
        self.calls += 1
        self.seconds += time.monotonic() - started
        ok = result.returncode == 0 and b"_mlstatus = False" not in result.stdout
        return ok, result.stdout, result.stderr


def raw_controls(text):
    return sorted({match.group(0) for match in RAW_CONTROL.finditer(text)})


def lmod(args):
    suite = Suite(args.wheelmod, "hostile strings in module files loaded by Lmod",
                  "render_module (Lua, Tcl) -> Lmod load, whatis, help, show, spider")
    work = Work()
    cases = corpus(args)
    terminal = {case: out["terminal_text"] for case, out in zip(cases, strings_of(args, cases))}
    lmod_run = Lmod(args, work)
    started = time.monotonic()
    batches = [cases[i:i + LMOD_BATCH] for i in range(0, len(cases), LMOD_BATCH)]
    # One module per input costs a tclsh per Lmod command: the installation prefix is tried
    # with the inputs that are not single bytes, a few of those, and the random ones.
    several = [case for case in cases if len(case) != 1 and len(case) < 200]
    roots = [bytes([b]) for b in b'"\\$[]{} \t\n\r\x1a\x1b\x7f\xff'] + several[:80] + several[-30:]
    bisect_budget = [400]  # Lmod calls spent isolating failing inputs, at most (40 a module)
    refused = {}  # (syntax, family) -> inputs the writer refused
    paths_seen = {}  # (syntax, variable) -> value

    def render(name, family, batch, syntax):
        """The module text, or None when the writer refuses `batch` (then `refused` says
        which inputs, each tried alone)."""
        request, expected, description = module_request(name, family, batch, terminal)
        answer = probe(args, [request])[0]
        check("error" not in answer, f"the probe failed: {answer.get('error')}")
        if syntax + "_error" not in answer:
            return unhex(answer[syntax]), expected, description
        return None, expected, description

    def write(tree, name, syntax, text):
        path = os.path.join(tree, name, "1.0" + (".lua" if syntax == "lua" else ""))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(text)

    def build(syntax, family, groups, prefix):
        """Writes one module per group of inputs into a fresh tree, leaving out the inputs the
        writer refuses; returns (tree, [(name, inputs, expected, description)])."""
        tree = work.path(f"{syntax}-{family}", "all")
        modules = []
        for k, group in enumerate(groups):
            name = f"{prefix}{k}"
            text, expected, description = render(name, family, group, syntax)
            if text is None:
                answers = probe(args, [module_request(name, family, [case], terminal)[0]
                                       for case in group])
                bad = [case for case, answer in zip(group, answers) if syntax + "_error" in answer]
                refused.setdefault((syntax, family), []).extend(bad)
                group = [case for case in group if case not in bad]
                if not group:
                    continue
                text, expected, description = render(name, family, group, syntax)
                check(text is not None, f"the writer refuses batch {name} ({syntax}, {family}) "
                      "though it accepts each of its inputs alone")
            write(tree, name, syntax, text)
            modules.append((name, group, expected, description))
        return tree, modules

    def isolate(syntax, family, batch, fails):
        """The inputs of `batch` that alone make `fails(name, tree)` true, by halving."""
        found = []
        budget = [40]

        def search(part):
            if not part or bisect_budget[0] <= 0 or budget[0] <= 0:
                return
            bisect_budget[0] -= 1
            budget[0] -= 1
            tree = work.path(f"bisect-{bisect_budget[0]}", "all")
            text, _, _ = render("Wmbisect", family, part, syntax)
            if text is None:
                return
            write(tree, "Wmbisect", syntax, text)
            if not fails("Wmbisect", tree):
                return
            if len(part) == 1:
                found.append(part[0])
                return
            half = len(part) // 2
            search(part[:half])
            search(part[half:])
        search(batch)
        return found

    def each_alone(syntax, family, tree, modules, command, findings, what):
        """`command` on every module at once; when that fails, on each alone, and the inputs
        that make it fail isolated. Returns {name: stdout} of the modules it succeeded on."""
        ok, stdout, stderr = lmod_run(tree, command, *[f"{m[0]}/1.0" for m in modules])
        if ok:
            return {m[0]: stdout for m in modules}
        out = {}
        for name, group, _, _ in modules:
            ok_one, out_one, err_one = lmod_run(tree, command, f"{name}/1.0")
            if ok_one:
                out[name] = out_one
                continue
            culprits = isolate(syntax, family, group,
                               lambda n, t: not lmod_run(t, command, f"{n}/1.0")[0])
            message = err_one.decode(errors="replace")[-1500:]
            for case in culprits or group[:1]:
                findings.add(case, f"{what} fails ({syntax}): " +
                             ("" if culprits else f"no single input of {name} isolated: ") +
                             message)
        return out

    def check_values(syntax, modules, outputs, findings):
        for name, group, expected, _ in modules:
            if name not in outputs:
                continue
            environment = lmod_environment(outputs[name])
            for variable, want in expected.items():
                got = environment.get(variable)
                if got != want:
                    culprit = min((c for c in group if c not in got), key=len,
                                  default=group[0]) if got is not None else group[0]
                    findings.add(culprit, f"a variable the {syntax} module sets differs: "
                                 f"{variable}: Lmod sets {got!r}, the module was written for "
                                 f"{want!r}")
            for variable, value in environment.items():
                if variable.startswith(name.upper() + "_") and name.startswith(("Wmp", "Wmr")):
                    paths_seen[(syntax, variable)] = (value, group)

    def shown_clean(syntax, tree, modules, command, findings):
        for name, group, _, _ in modules:
            ok, _, stderr = lmod_run(tree, command, f"{name}/1.0")
            if not ok:
                findings.add(group[0], f"module {command} fails ({syntax}): "
                             f"{stderr.decode(errors='replace')[-1500:]}")
            for control in raw_controls(stderr):
                culprits = [c for c in group if control in c] or group[:1]
                findings.add(min(culprits, key=len),
                             f"module {command} prints a raw control character ({syntax}): "
                             f"{control!r}, from input(s) "
                             f"{', '.join(c.hex() for c in culprits[:4])}\n{stderr[:500]!r}")

    def syntax_case(syntax):
        def run_syntax():
            findings = Findings(f"render_module ({syntax}) through Lmod"
                                + (" and its tcl2lua" if syntax == "tcl" else ""))
            # values: load, then whatis, help and spider print nothing raw
            tree, modules = build(syntax, "values", batches, "Wmv")
            loaded = each_alone(syntax, "values", tree, modules, "load", findings, "module load")
            canary_check(work.top)
            check_values(syntax, modules, loaded, findings)
            good = [m for m in modules if m[0] in loaded]
            for command in ("whatis", "help"):
                shown_clean(syntax, tree, good, command, findings)
            shown_clean(syntax, tree, good, "spider", findings)
            ok, _, stderr = lmod_run(tree, "spider")
            if not ok:
                findings.add(b"", f"module spider fails ({syntax}): "
                             f"{stderr.decode(errors='replace')[-2000:]}")
            for control in raw_controls(stderr):
                findings.add(control, f"module spider prints a raw control character ({syntax}): "
                             f"{control!r}")
            canary_check(work.top)
            # paths and prefixes: load
            for family, groups, prefix in (("paths", batches, "Wmp"),
                                           ("roots", [[case] for case in roots], "Wmr")):
                tree, modules = build(syntax, family, groups, prefix)
                loaded = each_alone(syntax, family, tree, modules, "load", findings,
                                    f"module load ({family})")
                check_values(syntax, modules, loaded, findings)
                canary_check(work.top)
            # dependencies: show
            tree, modules = build(syntax, "deps", batches, "Wmd")
            each_alone(syntax, "deps", tree, modules, "show", findings,
                       "module show (hostile depends_on)")
            canary_check(work.top)
            for (refusing, family), inputs in refused.items():
                if refusing == syntax:
                    print(f"note: the {syntax} writer refuses {len(inputs)} inputs as {family} "
                          f"(allowed: an error, nothing written)")
            return findings.raise_if_any(len(cases))
        return run_syntax

    def same_paths():
        """Lmod normalises path values its own way; the Tcl module must give what the Lua one
        gives (where the Tcl writer did not refuse the input)."""
        findings = Findings("a path's value from the Tcl module differs from the Lua module's")
        for (syntax, variable), (value, group) in paths_seen.items():
            if syntax != "lua" or ("tcl", variable) not in paths_seen:
                continue
            tcl_value, tcl_group = paths_seen[("tcl", variable)]
            if tcl_group != group:
                continue  # the Tcl writer refused some of this module's inputs
            if tcl_value != value:
                findings.add(min(group, key=len), f"a path from the Tcl module differs: "
                             f"{variable}: Lua {value!r}, Tcl {tcl_value!r}")
        return findings.raise_if_any(len(paths_seen) // 2)

    code = suite.run_all([("Lua modules", syntax_case("lua")), ("Tcl modules", syntax_case("tcl")),
                          ("paths the same from Lua and Tcl", same_paths), probe_end()],
                         work, "each module loads with exactly its values; whatis, help, spider "
                         "and show print nothing raw; no canary ran")
    print(f"lmod: {time.monotonic() - started:.1f} s, {lmod_run.calls} Lmod calls "
          f"({lmod_run.seconds:.1f} s)")
    return code

# --- html ----------------------------------------------------------------------------------------

class PageReader(html.parser.HTMLParser):
    """What pip reads from a PEP 503 page: each anchor's attributes and text, the title."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = []
        self.title = None
        self.h1 = None
        self._in = None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.anchors.append({"attrs": dict(attrs), "text": ""})
            self._in = "a"
        elif tag in ("title", "h1"):
            self._in = tag
            setattr(self, tag, "")

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "a":
            self.anchors[-1]["text"] += data
        elif self._in in ("title", "h1"):
            setattr(self, self._in, getattr(self, self._in) + data)


def read_page(data):
    """html.parser on the page as pip decodes it (UTF-8; bytes that are not kept as
    surrogates, so nothing is lost)."""
    reader = PageReader()
    reader.feed(data.decode("utf-8", "surrogateescape"))
    reader.close()
    return reader


def text_of(data):
    return data.decode("utf-8", "surrogateescape")


def check_pages(case, answer):
    project_page, root_page = unhex(answer["project_page"]), unhex(answer["root_page"])
    encoded = [unhex(value) for value in answer["encoded"]]
    page = read_page(project_page)
    value = text_of(case)
    check(page.title == "Links for " + value and page.h1 == "Links for " + value,
          f"project page title reads back as {page.title!r} / {page.h1!r}")
    check(len(page.anchors) == 1, f"project page holds {len(page.anchors)} anchors: "
          f"{page.anchors!r}\n{project_page[:600]!r}")
    anchor = page.anchors[0]
    # An empty metadata hash is written as "true" (PEP 714: the file exists, hash unknown).
    metadata = "sha256=" + value if case else "true"
    want = {"href": value + ("#sha256=" + value if case else ""),
            "data-core-metadata": metadata, "data-dist-info-metadata": metadata}
    if case:
        want["data-requires-python"] = value
    check(anchor["attrs"] == want, f"project page anchor attributes: read back as "
          f"{anchor['attrs']!r}, written from {want!r}")
    check(anchor["text"] == value, f"project page anchor text reads back as {anchor['text']!r}")
    root = read_page(root_page)
    names = sorted({case, b"plain"})
    check(len(root.anchors) == len(names), f"root page holds {len(root.anchors)} anchors")
    for anchor, name in zip(root.anchors, names):
        check(anchor["text"] == text_of(name), f"root page anchor text reads back as "
              f"{anchor['text']!r}")
        href = anchor["attrs"].get("href", "")
        check(href.endswith("/") and urllib.parse.unquote_to_bytes(href[:-1]) == name,
              f"root page href {href!r} does not name {name!r}")
        check(all(0x21 <= ord(c) < 0x7f for c in href), f"root page href {href!r} is not "
              "percent-encoded ASCII")
    for name, value in zip((case, b"plain"), encoded):
        check(urllib.parse.unquote_to_bytes(value) == name and
              re.fullmatch(rb"[A-Za-z0-9._~!$&'()*,;=:@%-]*", value),
              f"encode_filename gives {value!r}")


def html_pages(args):
    suite = Suite(args.wheelmod, "hostile strings in the mirror's PEP 503 pages",
                  "mirror render_project_page, render_root_page, encode_filename -> html.parser")
    work = Work()
    cases = corpus(args)
    started = time.monotonic()

    def pages():
        requests = [{"op": "html", "project": case.hex(),
                     "files": [{"filename": case.hex(), "href": case.hex(), "sha256": case.hex(),
                                "metadata_sha256": case.hex(), "requires_python": case.hex()}],
                     "projects": [case.hex(), b"plain".hex()]} for case in cases]
        findings = Findings("the mirror's pages read by html.parser")
        for case, answer in zip(cases, probe(args, requests)):
            try:
                check("error" not in answer, f"the writer failed: {answer.get('error')}")
                check_pages(case, answer)
            except Failure as failure:
                findings.add(case, str(failure))
        return findings.raise_if_any(len(cases))

    code = suite.run_all([("project and root pages", pages), probe_end()], work,
                         "html.parser reads back every href, attribute and text")
    print(f"html: {time.monotonic() - started:.1f} s")
    return code


# --- json and terminal: the real binary ----------------------------------------------------------

# Text a terminal or a JSON reader gets from wheelmod that names these: escape sequences, a
# carriage return, C1 controls, the line separators, bytes that are not UTF-8, quotes.
HOSTILE_NAMES = [b"\x1b[2J\x1b[31mred", b"\x1b]0;title\x07", b"a\rb", b"\xc2\x9b31m",
                 "\u2028x\u2029".encode(), b"x\xff\xfe", b"\xc0\xaf", b"\x7fdel", b"q\"b\\s", b"tab\there"]


def environ_bytes(**changes):
    env = {key.encode(): value.encode() for key, value in os.environ.items()}
    env.update({key.encode(): value for key, value in changes.items()})
    return env


def binary_run(suite, args, env=None, cwd=None):
    """wheelmod ARGS (bytes allowed) with raw stdout and stderr."""
    command = [suite.wheelmod.encode(), *[a if isinstance(a, bytes) else a.encode() for a in args]]
    result = subprocess.run(command, capture_output=True, env=env, cwd=cwd, timeout=120)
    stderr = result.stderr.decode(errors="replace")
    for mark in ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                 "runtime error:"):
        check(mark not in stderr, f"sanitizer report ({mark}): a bug\n{stderr[-3000:]}")
    check(result.returncode >= 0, f"killed by signal {-result.returncode}")
    return result


def describe_run(args, result):
    shown_args = " ".join(repr(a) if isinstance(a, bytes) else a for a in args)
    return (f"$ wheelmod {shown_args}\n-> exit {result.returncode}\nstdout: "
            f"{result.stdout[:1200]!r}\nstderr: {result.stderr[-1200:]!r}")


def check_json_or_error(args, result):
    """Exit 0 with JSON Python reads, or a clear error (exit 2-6, `error: ` first); never exit 1,
    an internal error."""
    check(result.returncode != 1, f"exit 1 (an internal error)\n{describe_run(args, result)}")
    if result.returncode == 0 or (result.returncode in (3, 6) and result.stdout.strip()):
        try:
            json.loads(result.stdout)
        except ValueError as error:
            raise Failure(f"the JSON on stdout does not parse ({error})\n"
                          f"{describe_run(args, result)}")
    if result.returncode != 0:
        check(result.returncode in (2, 3, 4, 5, 6) and result.stderr.startswith(b"error: "),
              f"neither JSON nor a clear error\n{describe_run(args, result)}")


def check_terminal_output(args, result):
    check(result.returncode != 1, f"exit 1 (an internal error)\n{describe_run(args, result)}")
    for stream, data in (("stdout", result.stdout), ("stderr", result.stderr)):
        found = raw_controls(data)
        check(not found, f"{stream} holds raw control characters {found}\n"
              f"{describe_run(args, result)}")


def hostile_index(suite):
    """index_fixture's server: one torch wheel that fits, and whatever a case adds."""
    from index_fixture import Work as IndexWork
    return IndexWork(suite)


def cli_cases(suite, work, checker, formats):
    """(name, function) for each command that reports a hostile string it was given."""
    from index_fixture import METADATA, TARGET, WHEEL_PATH, html, link, sha256
    out = []
    index = [None]

    def run_cli(args, env=None):
        result = binary_run(suite, args, env=env, cwd=work.top)
        checker(args, result)
        canary_check(work.top)

    for number, name in enumerate(HOSTILE_NAMES):
        directory = os.path.join(work.top.encode(), b"p%d-" % number + name.replace(b"/", b"_"))

        def config(name=name, directory=directory):
            for variable in (b"EASYBUILD_INSTALLPATH", b"WHEELMOD_INDEX_URL"):
                value = directory if variable == b"EASYBUILD_INSTALLPATH" else \
                    b"https://example.org/" + name
                for extra in formats:
                    run_cli(["-q", "config", *extra], env=environ_bytes(**{variable.decode(): value}))

        def check_prefix(name=name, directory=directory):
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, b"lib" + name.replace(b"/", b"_") + b".so"),
                      "wb") as handle:
                handle.write(b"not an ELF file")
            for extra in formats:
                run_cli(["-q", "check", directory, *extra])
                run_cli(["-q", "list", *extra], env=environ_bytes(EASYBUILD_INSTALLPATH=directory))

        def arguments(name=name):
            for extra in formats:
                run_cli(["-q", "resolve", b"torch" + name, "--index", "file:///nonexistent",
                         *TARGET, *extra])
                run_cli(["-q", "tags", "--python", b"3.11" + name, *extra])
                run_cli(["-q", "module", b"/nonexistent/" + name, "--stdout"])

        def resolve(name=name):
            if index[0] is None:
                index[0] = hostile_index(suite)
            server = index[0]
            quoted = urllib.parse.quote_from_bytes(name, safe="")
            odd = f"/files/torch-2.6.0+cpu-cp311-cp311-linux_x86_64{quoted}.whl"
            server.serve_wheel(odd)
            page = html(server.good_link(), link(f"{odd}#sha256={sha256(server.wheel)}"))
            # Raw bytes in attributes: data-requires-python and data-yanked hold the name.
            raw = page.replace(b"</body>", b'<a href="/files/torch-2.5.0-cp311-cp311-linux_x86_64'
                               b'.whl" data-requires-python="&gt;=3.9' + name + b'" data-yanked="'
                               + name + b'">x</a>\n</body>')
            server.serve_page(raw)
            server.server.routes[WHEEL_PATH + ".metadata"] = lambda h: h.respond(
                200, METADATA + b"Summary: " + name + b"\n", "text/plain")
            for extra in formats:
                run_cli(["-q", "resolve", "torch", "--index", server.server.url("/simple/"),
                         *TARGET, "--no-deps", "--cache-dir",
                         os.path.join(work.top, "cache-%d" % len(os.listdir(work.top))), *extra])

        label = name.decode("utf-8", "backslashreplace").encode("unicode_escape").decode()[:40]
        out += [(f"config {label}", config), (f"check and list {label}", check_prefix),
                (f"arguments {label}", arguments), (f"resolve from an index {label}", resolve)]

    def close_index():
        if index[0] is not None:
            index[0].close()
    return out, close_index


def json_output(args):
    suite = Suite(args.wheelmod, "hostile strings in what wheelmod reports as JSON",
                  "wheelmod config/check/list/resolve/tags --format json")
    work = Work()
    started = time.monotonic()
    cases, close_index = cli_cases(suite, work, check_json_or_error, [["--format", "json"]])
    try:
        code = suite.run_all(cases, work, "JSON Python reads, or a clear error; never exit 1")
    finally:
        close_index()
    print(f"json: {time.monotonic() - started:.1f} s")
    return code


def terminal(args):
    suite = Suite(args.wheelmod, "hostile strings on the terminal",
                  "core::terminal_text, core::printable; wheelmod's text output and errors")
    work = Work()
    cases = corpus(args)
    started = time.monotonic()

    def functions():
        findings = Findings("terminal_text / printable")
        for case, out in zip(cases, strings_of(args, cases)):
            try:
                shown_text, printed = out["terminal_text"], out["printable"]
                check(is_utf8(shown_text), f"terminal_text is not UTF-8: {shown_text!r}")
                check(not raw_controls(shown_text), f"terminal_text leaves control characters "
                      f"{raw_controls(shown_text)}: {shown_text!r}")
                if b"\\" not in case:
                    check(unprintable(shown_text) == case, f"terminal_text is not reversible "
                          f"(no backslash in the input): {shown_text!r}")
                if is_utf8(case) and not raw_controls(case):
                    check(shown_text == case, f"terminal_text changes readable text: "
                          f"{shown_text!r}")
                check(all(0x20 <= b < 0x7f for b in printed), f"printable leaves a byte outside "
                      f"printable ASCII: {printed!r}")
                check(unprintable(printed) == case, f"printable is not reversible: {printed!r}")
            except Failure as failure:
                findings.add(case, str(failure))
        return findings.raise_if_any(len(cases))

    cli, close_index = cli_cases(suite, work, check_terminal_output, [[]])
    try:
        code = suite.run_all([("terminal_text and printable", functions), *cli, probe_end()],
                             work, "no raw control character reaches the terminal")
    finally:
        close_index()
    print(f"terminal: {time.monotonic() - started:.1f} s")
    return code


# --- main ----------------------------------------------------------------------------------------

GROUPS = {"python": python, "easybuild": easybuild, "lua_tcl": lua_tcl, "lmod": lmod, "html": html_pages, "json": json_output,
          "terminal": terminal}
# Seconds measured here (2 cores, the ASan build, a parallel build beside it): python 6-8,
# easybuild 15-18, lua_tcl 5-7, lmod 40-75 (most of it isolating the inputs of the known Tcl
# defects, 500 Lmod calls; about 100 without them), html 1-2, json 25, terminal 30. CTest's
# timeout is a few times that.
CTEST = {"python": {"timeout": 120}, "easybuild": {"timeout": 300}, "lua_tcl": {"timeout": 120},
         "lmod": {"timeout": 400}, "html": {"timeout": 120}, "json": {"timeout": 240},
         "terminal": {"timeout": 240}}
GROUP_NAMES = ("python", "easybuild", "lua_tcl", "lmod", "html", "json", "terminal")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--eb-worker":
        return eb_worker(sys.argv[2])
    seed = int(os.environ.get("WHEELMOD_WRITERS_SEED", DEFAULT_SEED))
    if "--seed" in sys.argv:
        at = sys.argv.index("--seed")
        seed = int(sys.argv[at + 1])
        del sys.argv[at:at + 2]

    def runner(name):
        def run_group(args):
            args.seed = seed
            try:
                return GROUPS[name](args)
            finally:
                for process in _PROBES.values():
                    process.process.kill()
        return run_group
    return main_with_groups(__doc__.splitlines()[0], {name: runner(name) for name in GROUP_NAMES},
                            ctest=CTEST, options=("--probe", "--lmod"))


if __name__ == "__main__":
    sys.exit(main())
