#!/usr/bin/python3
"""Writes the index page cases of the differential test, with the answers of
Python's html.parser (the reference /usr/bin/python3's), as JSON Lines.

    /usr/bin/python3 gen_index_pages.py --out index_pages.jsonl

pip reads a PEP 503 page with html.parser (pip/_internal/index/collector.py:
HTMLLinkParser, fed the whole page once, never closed); wheelmod reads it with
src/index/html_anchors.cpp. Every line is one page and what html.parser made
of it:

  {"family": F, "page": TEXT, "raises": BOOL,
   "tags": [[TAG, [[NAME, VALUE-or-null], ...], TEXT-or-null], ...],
   "names": [NAME, ...]}

`tags`: every <a>, <base> and <meta> start tag in order, the attributes as
html.parser gives them (names lower-cased, values with their character
references decoded, null when written without a value; names that are not
ASCII once lower-cased are left out on both sides), and for <a> the text
html.parser reports until the next </a> or <a>. `names`: what parse_root_html
must return (the text of each <a> that has an href, trimmed of ASCII
whitespace, when not empty). `raises`: html.parser 3.11 raised (an unknown
marked section); wheelmod must then read the page without failing, and is
not compared. index_html_differential.cpp checks every page; README.md says
what the families hold. The seed is fixed: every run writes the same file.
"""

import argparse
import hashlib
import json
import random
import sys
from html.entities import html5
from html.parser import HTMLParser

SEED = 20260503

# Pages per family (random families); the fixed ones add their own.
COUNTS = {"pytorch": 300, "pypi": 300, "grammar": 6000, "mutated": 6000, "entities": 2000}

ODD_SPACES = ["\x0b", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680", "\u2000",
              "\u2005", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
ASCII_SPACES = [" ", "\t", "\n", "\r", "\f"]
# Characters Python folds onto ASCII letters: KELVIN SIGN lower-cases to 'k';
# re.IGNORECASE matches LONG S with 's' and the dotted and dotless I with 'i'.
FOLDING = ["\u212a", "\u017f", "\u0130", "\u0131"]


class Reference(HTMLParser):
    """pip's HTMLLinkParser, recording every a/base/meta start tag and the
    text of each <a>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.current = None

    def handle_starttag(self, tag, attrs):
        if tag not in ("a", "base", "meta"):
            return
        entry = [tag, [[name, value] for name, value in attrs if name.isascii()], None]
        self.tags.append(entry)
        if tag == "a":
            entry[2] = ""
            self.current = entry

    def handle_endtag(self, tag):
        if tag == "a":
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current[2] += data


def reference(page):
    parser = Reference()
    try:
        parser.feed(page)  # no close(), as pip
    except AssertionError:
        return {"raises": True, "tags": [], "names": []}
    names = []
    for tag, attrs, text in parser.tags:
        if tag == "a" and any(name == "href" for name, _ in attrs):
            name = text.strip(" \t\n\f\r")
            if name:
                names.append(name)
    return {"raises": False, "tags": parser.tags, "names": names}


# --- building blocks ----------------------------------------------------------------------------

ENTITY_NAMES = sorted(html5)
LEGACY = sorted(name for name in html5 if not name.endswith(";"))


def entity(rng):
    """A character reference, valid or not, as pages (and html.unescape's
    corner cases) write them."""
    kind = rng.randrange(14)
    if kind == 0:
        return "&" + rng.choice(ENTITY_NAMES)
    if kind == 1:
        return "&" + rng.choice(LEGACY) + rng.choice(["", "x", "=", "1", ";", "it;", "a=b"])
    if kind == 2:
        return "&" + rng.choice(["amp;", "lt;", "gt;", "quot;", "apos;", "plus;", "nbsp;"])
    if kind == 3:
        return "&" + rng.choice(["plus", "ampx", "notit;", "notin", "copy=", "lang", "AMP", "Amp",
                                 "ampamp;", "am", "a", "x;", "#", "#;", "#x", "#x;", "#X41",
                                 "#xg", "&", " ", ";", "<"])
    if kind == 4:
        number = rng.choice([0, 9, 10, 11, 12, 13, 31, 32, 43, 60, 62, 127, 128, 129, 141, 150,
                             159, 160, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFDD0, 0xFDEF, 0xFFFE,
                             0xFFFF, 0x1FFFE, 0x10FFFF, 0x110000, 2**32 + 43, 10**30])
        digits = f"x{number:x}" if rng.random() < 0.5 else str(number)
        if rng.random() < 0.2:
            zeros = "0" * rng.randrange(1, 40)
            digits = digits.upper() if digits.startswith("x") else zeros + digits
        return "&#" + digits + rng.choice([";", ";", "", " ", "x", "z"])
    if kind == 5:
        return "&#" + str(rng.randrange(0, 0x11000)) + rng.choice([";", ""])
    if kind == 6:
        return "&#x" + format(rng.randrange(0, 0x110000), rng.choice(["x", "X"])) + ";"
    if kind == 7:  # longer than the 32 characters a name may have
        return "&" + "".join(rng.choice("abcdeAB") for _ in range(rng.randrange(28, 40))) + ";"
    if kind == 8:
        return "&" + rng.choice(["CounterClockwiseContourIntegral;", "NotNestedGreaterGreater;",
                                 "CounterClockwiseContourIntegral", "ContourIntegral"])
    if kind == 9:
        return "&" + rng.choice(["amp", "not", "lt"]) + rng.choice(["é", "\u20ac", "\U0001f600"])
    if kind == 10:
        return "&" + rng.choice(["\u212a", "é", "\x00", "\r", "\x0b"]) + "amp;"
    if kind == 11:
        return "&" + rng.choice(LEGACY)[: rng.randrange(1, 4)]
    if kind == 12:
        return "&#" + rng.choice(["", "-1", "+1", "1e3", " 65;"])
    return rng.choice(["&", "&&", "&amp;amp;", "&;", "& ", "&\n"])


def plain_text(rng, alphabet="abcXYZ019 -_.+"):
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def text_with_entities(rng):
    parts = []
    for _ in range(rng.randrange(1, 5)):
        parts.append(plain_text(rng) if rng.random() < 0.6 else entity(rng))
    return "".join(parts)


def sha(seed):
    return hashlib.sha256(str(seed).encode()).hexdigest()


def href(rng):
    name = rng.choice(["torch", "numpy", "nvidia_cudnn_cu12", "Jinja2", "typing-extensions"])
    version = rng.choice(["2.6.0", "2.6.0+cu126", "1.0", "2.7.0.dev20250101+cpu", "0.1"])
    file = f"{name}-{version}-cp312-cp312-manylinux_2_28_x86_64.whl"
    kind = rng.randrange(10)
    if kind == 0:
        file = file.replace("+", "%2B")
    elif kind == 1:
        file = file.replace("+", "&#43;")
    elif kind == 2:
        file = file.replace("+", "&#x2B;")
    elif kind == 3:
        file = file.replace("+", "&plus;")
    elif kind == 4:
        file = file.replace("+", "&plus")
    prefix = rng.choice(["", "/whl/cu126/", "../../", "https://download.pytorch.org/whl/",
                         "//mirror.example/a/", "file:///tmp/x/", "/simple/x/"])
    fragment = rng.choice(["", "", f"#sha256={sha(file)}", "#sha256=", "#egg=x", "#md5=ab&amp;x"])
    query = rng.choice(["", "", "?a=1&amp;b=2", "?a=1&b=2", "?x=1&copy=2", "?q=&lt;"])
    return prefix + file + query + fragment


def value_text(rng):
    kind = rng.randrange(12)
    if kind < 4:
        return href(rng)
    if kind == 4:
        return rng.choice([">=3.8", "&gt;=3.9,&lt;4", "&gt;=3.10", "", "<3", "&gt", "&gt=3.8"])
    if kind == 5:
        return rng.choice(["true", "false", "TRUE", f"sha256={sha(rng.random())}", "sha256=zz"])
    if kind == 6:
        return text_with_entities(rng)
    if kind == 7:
        return rng.choice(["a b", "a>b", "a<b", "a'b", 'a"b', "a=b", "a/b", "/", ">", "=", "'",
                           '"', "a\x00b", "é\u3000x", "x\u212ay"])
    if kind == 8:
        return "2026-04-23T10:11:12.123456Z"
    if kind == 9:
        return "".join(rng.choice("abc&;<>=/ '\"\t\n") for _ in range(rng.randrange(0, 20)))
    if kind == 10:
        return rng.choice(["", " ", "  x  "])
    return plain_text(rng)


ATTRIBUTE_NAMES = ["href", "HREF", "Href", "data-requires-python", "DATA-REQUIRES-PYTHON",
                   "data-yanked", "data-core-metadata", "data-dist-info-metadata",
                   "data-upload-time", "data-gpg-sig", "name", "content", "rel", "class", "id",
                   "x", "data-yan\u212aed", "h\u0130ref", "\u0131d", "é", "\x00x", "a<b", "=x",
                   "'q", 'a"b', "data-", "hr\x0bef", "hre=f"]


def space(rng):
    roll = rng.random()
    if roll < 0.75:
        return " "
    if roll < 0.9:
        return rng.choice(ASCII_SPACES)
    return rng.choice(ODD_SPACES)


def separator(rng):
    roll = rng.random()
    if roll < 0.8:
        return space(rng)
    if roll < 0.9:
        return space(rng) + space(rng)
    return rng.choice(["/", " / ", "", "\n  ", "//"])


def attribute(rng):
    name = rng.choice(ATTRIBUTE_NAMES)
    roll = rng.random()
    if roll < 0.1:
        return name  # no value
    value = value_text(rng)
    equals = rng.choice(["=", "=", "=", "=", " = ", "\n=\n", "==", "= ", " ="])
    style = rng.random()
    if style < 0.45:
        return f'{name}{equals}"{value.replace(chr(34), "")}"'
    if style < 0.7:
        return f"{name}{equals}'{value.replace(chr(39), '')}'"
    if style < 0.93:
        return f"{name}{equals}{value}"
    quote = rng.choice(["'", '"'])
    return f"{name}{equals}{quote}{value}"  # never closed (or closed later)


def start_tag(rng, name, attributes):
    out = "<" + name
    for attr in attributes:
        out += separator(rng) + attr
    out += rng.choice(["", "", "", " ", "/", " /", "\n"])
    return out + ">"


def anchor(rng):
    attributes = [attribute(rng) for _ in range(rng.randrange(0, 5))]
    if rng.random() < 0.8:
        attributes.insert(rng.randrange(len(attributes) + 1), f'href="{href(rng)}"')
    name = rng.choice(["a", "a", "a", "A", "a\x0b", "abbr", "a\u212a"])
    text = text_with_entities(rng) if rng.random() < 0.7 else plain_text(rng)
    end = rng.choice(["</a>", "</a>", "</A>", "</a >", "</ a>", "</a x='>'>", "</a\x00>", "",
                      "</b>", "</a\n>"])
    return start_tag(rng, name, attributes) + text + end


def other_markup(rng):
    kind = rng.randrange(22)
    if kind == 0:
        return rng.choice(["<!DOCTYPE html>", "<!doctype html>", "<!DocType html PUBLIC 'x'>",
                           "<!DOCTYPE"])
    if kind == 1:
        return "<!--" + rng.choice(["", " ", "-", " <a href='c.whl'>c</a> ", "- -", " -- x"]) + \
            rng.choice(["-->", "-- >", "--\u3000>", "--!>", "->", "--->", "---->"])
    if kind == 2:
        return "<?" + rng.choice(["xml version='1.0'?>", "php echo 1 ?>", "x <a href=p>"])
    if kind == 3:
        return "<![" + rng.choice(["CDATA[<a href='cd.whl'>x</a>]]>", "CDATA[ ] ]>x]] >",
                                   "cdata[x]]>", "if !IE]><a href='ie.whl'>ie</a><![endif]>",
                                   "endif]>", "IGNORE[ x ]]>", "temp x ] ]>"])
    if kind == 4 and rng.random() < 0.1:  # html.parser raises on these
        return "<![" + rng.choice(["foo[x]]>", " CDATA[x]]>", "[x]>", "1]>"])
    if kind == 4:
        # Never closed: the rest of the page is inside.
        return "<![" + rng.choice(["CDATA[", "if", "endif", "temp"]) + "<a href='m.whl'>m</a>"
    if kind == 5:
        element = rng.choice(["script", "style", "SCRIPT", "Style"])
        body = rng.choice(["<a href='in.whl'>x</a>", "if (a < b) {}", "</scrip>", "</a>",
                           "document.write('<a href=\"w.whl\">')", "&amp;"])
        end = rng.choice([f"</{element}>", f"</{element.lower()} >", f"</ {element}\t>",
                          "</\u017fcript>", "</scr\u0130pt>", "</scr\u0131pt>", "</\u017ftyle>",
                          f"</{element}", f"</{element} x>", ""])
        return f"<{element}>{body}{end}"
    if kind == 6:
        return rng.choice(["<br/>", "<br>", "<br />", "<hr/>", "<p>", "</p>", "<div>", "</div>",
                           "<h1>Links for torch</h1>", "<table><tr><td>", "</td></tr></table>",
                           "<b>", "</b>", "<body>", "</body>", "<html>", "</html>", "<head>",
                           "</head>", "<title><a href=t.whl>t</a></title>", "<textarea>",
                           "<svg><a href='s.whl'>s</a></svg>"])
    if kind == 7:
        attributes = [attribute(rng) for _ in range(rng.randrange(0, 3))]
        if rng.random() < 0.8:
            attributes.insert(0, f'href="{href(rng)}"')
        return start_tag(rng, rng.choice(["base", "BASE", "base"]), attributes)
    if kind == 8:
        version = rng.choice(["1.0", "1.1", "2.0", "", "v1", "&#49;.0"])
        return start_tag(rng, "meta", [rng.choice(['name="pypi:repository-version"',
                                                   "NAME=pypi:repository-version", "name=x"]),
                                       f'content="{version}"'])
    if kind == 9:
        return rng.choice(["<", "< a>", "<>", "<<", "<3", "<-", "< /a>", "</>", "</3>", "</ >",
                           "&", ">", "'", '"', "<a", "<a ", "<a href", "<a href=", "<a/", "<a/b>",
                           "<a\x00>", "<a\x00 href=n.whl>"])
    if kind == 10:
        return "\n" + " " * rng.randrange(0, 6)
    if kind == 11:
        return text_with_entities(rng)
    if kind == 12:
        return "<" + rng.choice(["div", "span", "p", "a", "img"]) + separator(rng) + \
            attribute(rng) + rng.choice(["", "'", '"', "x", "=", "/"]) + ">"
    if kind == 13:
        return rng.choice(["<a href='x.whl'junk>", '<a href="x.whl""y">', "<a href=x.whl'>",
                           "<a href='x.whl' =y>", "<a href=x.whl/>", "<a href='x.whl'/ >",
                           "<a href=x.whl//>", "<a b='c'd=e>", "<a/href=x.whl>",
                           "<a href=\"a>b.whl\">", "<a href='a<b.whl'>", "<a href=a<b.whl>"])
    if kind == 14:
        return rng.choice(ODD_SPACES + FOLDING)
    if kind == 15:
        return "<a" + rng.choice(ODD_SPACES) + 'href="odd.whl">odd</a>'
    if kind == 16:
        return "\x00"
    if kind == 17:
        return "<!" + rng.choice(["x>", "->", ">", "-", "ELEMENT x>", "[", "--"])
    if kind == 18:
        return f'<a href="{"y" * rng.randrange(100, 2000)}.whl">long</a>'
    if kind == 19:
        return "</" + rng.choice(["a", "A", "div", "script", "x y", " a ", "a/"]) + ">"
    if kind == 20:
        return "<a href=" + rng.choice(["'", '"']) + "open.whl>open"  # closed by a later quote
    return anchor(rng)


def grammar_page(rng):
    parts = []
    if rng.random() < 0.5:
        parts.append(rng.choice(["<!DOCTYPE html>\n", "<html><head>", "<html>\n  <body>\n"]))
    for _ in range(rng.randrange(1, 12)):
        parts.append(anchor(rng) if rng.random() < 0.5 else other_markup(rng))
    if rng.random() < 0.5:
        parts.append(rng.choice(["\n</body></html>", "<!--TIMESTAMP 1703347410-->", "&amp", "&x",
                                 "x &y", "&abc def", "&a;"]))
    return "".join(parts)


def mutate(rng, page):
    """Edits that leave markup broken: deletions, insertions of the
    characters that delimit it, swaps, a cut at a random point."""
    chars = list(page)
    for _ in range(rng.randrange(1, 6)):
        if not chars:
            break
        at = rng.randrange(len(chars))
        roll = rng.random()
        if roll < 0.3:
            del chars[at]
        elif roll < 0.75:
            chars.insert(at, rng.choice(["<", ">", "'", '"', "=", "/", "&", "-", "!", "?", "[",
                                         "]", ";", "#", " ", "\n", "\x00", "\xa0", "\u212a", "a",
                                         "<a ", "</", "<!--", "-->", "</a>", "<script>"]))
        elif roll < 0.9:
            other = rng.randrange(len(chars))
            chars[at], chars[other] = chars[other], chars[at]
        else:
            chars = chars[:at]
    return "".join(chars)


def pytorch_page(rng):
    """download.pytorch.org's format (pytorch/test-infra s3_management/manage.py)."""
    lines = []
    for i in range(rng.randrange(1, 60)):
        version = f"2.{rng.randrange(12)}.{rng.randrange(3)}+cu12{rng.randrange(9)}"
        name = f"torch-{version}-cp3{rng.randrange(9, 15)}-cp3{rng.randrange(9, 15)}-" \
               f"manylinux_2_28_x86_64.whl"
        key = f"whl/cu126/{name}".replace("+", "%2B")
        attributes = ""
        if rng.random() < 0.6:
            meta = sha(name)
            attributes = f' data-dist-info-metadata="sha256={meta}" ' \
                         f'data-core-metadata="sha256={meta}"'
        if rng.random() < 0.2:
            attributes += ' data-requires-python="&gt;=3.9"'
        lines.append(f'    <a href="/{key}#sha256={sha(i)}"{attributes}>{name}</a><br/>')
    return ("<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for torch</h1>\n" +
            "\n".join(lines) + "\n  </body>\n</html>\n<!--TIMESTAMP 1703347410-->")


def pypi_page(rng):
    """PyPI's (warehouse) simple page format, with yanked files and
    requires-python."""
    lines = ['<!DOCTYPE html>', '<html>', '  <head>',
             '    <meta name="pypi:repository-version" content="1.1">',
             '    <title>Links for numpy</title>', '  </head>', '  <body>',
             '    <h1>Links for numpy</h1>']
    for i in range(rng.randrange(1, 40)):
        name = f"numpy-1.{i}.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
        attributes = f' data-requires-python="&gt;=3.{rng.randrange(6, 12)}"'
        if rng.random() < 0.2:
            attributes += rng.choice([' data-yanked=""', ' data-yanked="broken &amp; bad"',
                                      " data-yanked"])
        if rng.random() < 0.5:
            attributes += f' data-dist-info-metadata="sha256={sha(name)}"'
        lines.append(f'    <a href="https://files.pythonhosted.org/packages/ab/cd/{name}'
                     f'#sha256={sha(i)}"{attributes}>{name}</a><br />')
    lines += ["  </body>", "</html>", "<!--SERIAL 12345678-->"]
    return "\n".join(lines)


def fixed_pages():
    """The hostile cases named one by one."""
    long_value = "v" * 100_000
    pages = [
        '<a href="a.whl">a</a><a href=\'b.whl\'>b</a><a href=c.whl>c</a><a href>d</a>',
        '<A HREF="x.whl" DATA-YANKED>x</A><a Href = "y.whl" data-yanked = "">y</a>',
        '<a href="1.whl" href="2.whl">dup</a><a data-yanked="a" data-yanked>dup2</a>',
        '<a href="&amp;&#x2B;&plus&plus;&#43&#0;&#xD800;&#x110000;&#129;&#x80;&#13;&#11;">e</a>',
        '<a href="&ampx&notit;&notin;&copy=&lt=&AMP&ampamp;&#;&#x;&">e2</a>',
        "<!-- <a href='c.whl'>c</a> --><a href='d.whl'>d</a>",
        "<script><a href='s.whl'>s</a></script><style><a href=t.whl></style><a href=u.whl>u</a>",
        "<![CDATA[<a href='cd.whl'>]]><a href=after.whl>after</a>",
        "<a href='x.whl' <a href='y.whl'>y</a>",
        "<p <a href=z.whl>z</a>",
        "<a href=\x00.whl>nul</a>\x00<a\x00href=n.whl>n</a>",
        f'<a href="{long_value}.whl">long</a>',
        f"<a data-x='{long_value}' href=ok.whl>ok</a>",
        "<a href='a<b.whl'>lt</a><a href=\"a>b.whl\">gt</a><a href=a<b>c</a>",
        "<a href='unclosed.whl>x</a><a href=next.whl>next</a>",
        '<a href="unclosed.whl>x</a><a href=next.whl>next</a>',
        "<a href='ok.whl'>ok</a><a href='eof.whl'",
        "<a href='ok.whl'>ok</a><a href=eof.whl",
        "<a href='ok.whl'>ok</a><!-- never closed <a href='x.whl'>x</a>",
        "<a href='ok.whl'>ok</a><script><a href='x.whl'>x</a>",
        "<a href='ok.whl'>ok</a><?pi <a href='x.whl'>x</a>",
        "<a href='ok.whl'>ok</a></a <a href='x.whl'>x</a>",
        "<a href='ok.whl'>ok &amp",
        "<a href='ok.whl'>ok &amp;",
        "<a href='ok.whl'>ok &amp x",
        "<a href=ok.whl>AT&T",
        "<a href=ok.whl>" + "x" * 40 + "&y",
        "<base href='https://b/'><base href='https://c/'><a href=x.whl>x</a>",
        "<base href><base href='https://c/'><a href=x.whl>x</a>",
        "<a href=x.whl>x</a><base href='https://late/'>",
        "<a href='a.whl'/>self<a href=b.whl/>b</a>",
        "<a href='a.whl' / >slash</a>",
        "<a\u3000href='a.whl'>ideographic space</a>",
        "<a\xa0href='a.whl'>nbsp</a><a href\xa0=\xa0'b.whl'>b</a>",
        "<a href='a.whl'\u2028data-yanked>ls</a>",
        "<a data-yan\u212aed href=k.whl>kelvin</a>",
        "<script>x</\u017fcript><a href=s.whl>s</a></script><a href=t.whl>t</a>",
        "<script>x</scr\u0130pt><a href=s.whl>s</a>",
        "<a href=x.whl>x</a><![foo]><a href=y.whl>y</a>",
        "<a href==x.whl>eq</a><a href== 'q.whl>q</a><a href='q'>",
        "<a href= 'open.whl>o</a><a href=n.whl>n</a>",
        "<a b= 'c><a href=d.whl>d</a>",
        "",
        "<",
        "<a",
        "&",
        "<!DOCTYPE",
        "<![CDATA[",
        "<a href=x.whl>\r\n x \r\n</a>",
        "<a href=x.whl><b>bold</b>-name</a><a href='y/'><a href=z.whl>z</a>",
        "<meta name='pypi:repository-version' content='2.0'><a href=x.whl>x</a>",
        "<meta content='1.0' name='pypi:repository-version'><meta name=pypi:repository-version>",
    ]
    return pages


def generate(out, seed, scale):
    rng_of = {family: random.Random(f"{seed}-{family}") for family in COUNTS}
    count = {family: n * scale for family, n in COUNTS.items()}
    rows = [("fixed", page) for page in fixed_pages()]
    for _ in range(count["pytorch"]):
        rows.append(("pytorch", pytorch_page(rng_of["pytorch"])))
    for _ in range(count["pypi"]):
        rows.append(("pypi", pypi_page(rng_of["pypi"])))
    for _ in range(count["grammar"]):
        rows.append(("grammar", grammar_page(rng_of["grammar"])))
    rng = rng_of["mutated"]
    for _ in range(count["mutated"]):
        base = grammar_page(rng) if rng.random() < 0.9 else pytorch_page(rng)
        rows.append(("mutated", mutate(rng, base)))
    rng = rng_of["entities"]
    for _ in range(count["entities"]):
        value = "".join(entity(rng) + plain_text(rng) for _ in range(rng.randrange(1, 6)))
        quote = rng.choice(['"', "'"])
        rows.append(("entities", f"<a href={quote}{value.replace(quote, '')}{quote} "
                                 f"data-x={quote}{value.replace(quote, '')}{quote}>{value}</a>"))
    counts = {}
    for family, page in rows:
        record = {"family": family, "page": page, **reference(page)}
        out.write(json.dumps(record) + "\n")
        counts[family] = counts.get(family, 0) + 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=SEED,
                        help="another draw from the same grammars (exploring; CTest: the default)")
    parser.add_argument("--scale", type=int, default=1, help="K times the pages of each family")
    args = parser.parse_args()
    with open(args.out, "w", encoding="utf-8") as out:
        counts = generate(out, args.seed, args.scale)
    total = sum(counts.values())
    print(f"{total} pages: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
