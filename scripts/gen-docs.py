#!/usr/bin/env python3
"""Writes wheelmod's man page and bash completion from the same text as its --help.

    gen-docs.py --wheelmod BIN --man OUT.1 --completion OUT

Runs `BIN --help` and `BIN SUBCOMMAND --help` for every subcommand CLI11 lists, and turns what
they print into a troff man page (man-pages(7) sections: NAME, SYNOPSIS, DESCRIPTION, COMMANDS,
EXIT STATUS, ENVIRONMENT, FILES) and a bash completion script (subcommands, their options, the
values of the options with a fixed set). Standard library only; the same input gives the same
bytes, so the build writes them again only when --help changed.
"""
import argparse
import os
import re
import subprocess
import sys

# Options whose values are a fixed set (their --help text lists them).
VALUES = {
    "--format": "text json markdown",
    "--accelerator": "cpu cuda rocm cu126 cu128 cu129 cu130 cu132 rocm6.4 rocm7.1 rocm7.2",
    "--metadata": "strip keep",
    "--syntax": "lua tcl",
    "--arch": "x86_64 aarch64 ppc64le",
}

ENVIRONMENT = [
    ("WHEELMOD_DATA_DIR", "The directory holding config/ and templates/, instead of the "
     "share/wheelmod directory beside the binary."),
    ("XDG_CACHE_HOME", "The HTTP and wheel cache goes to $XDG_CACHE_HOME/wheelmod (else "
     "~/.cache/wheelmod) unless --cache-dir names one."),
    ("EBROOT<NAME>, EBVERSION<NAME>", "Loaded EasyBuild modules: where relink and check find "
     "CUDA, cuDNN, NCCL and the other modules when no --eb-installpath is given."),
    ("SSL_CERT_FILE, CURL_CA_BUNDLE", "CA bundle for https (--cacert wins)."),
]


def run_help(wheelmod, *args):
    result = subprocess.run([wheelmod, *args, "--help"], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "COLUMNS": "100"})
    if result.returncode != 0:
        sys.exit(f"gen-docs: {wheelmod} {' '.join(args)} --help exited {result.returncode}:\n"
                 f"{result.stderr}")
    return result.stdout


def sections(text):
    """{heading: [lines]} of a CLI11 help text, and the lines before the first heading."""
    out, current = {"": []}, ""
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            current = line[:-1]
            out[current] = []
        else:
            out[current].append(line)
    return out


def entries(lines):
    """(name, description) per entry of an Options/Subcommands/Positionals block; continuation
    lines (deeper indentation) join the description."""
    items = []
    for line in lines:
        if not line.strip():
            continue
        match = re.match(r"^  (\S.*?)(?:\s{2,}(.*))?$", line)
        if match and not line.startswith("    "):
            items.append([match.group(1).strip(), (match.group(2) or "").strip()])
        elif items:
            items[-1][1] = (items[-1][1] + " " + line.strip()).strip()
    return [(name, text) for name, text in items]


def option_names(name):
    """"-j,--jobs UINT" -> ["-j", "--jobs"]."""
    return [word for word in name.split()[0].split(",") if word.startswith("-")]


def troff(text):
    text = text.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", text.replace("-", "\\-"), flags=re.M)


def man_page(top, commands):
    head = sections(top)
    description = head[""][0].strip() if head[""] else "wheelmod"
    out = [".TH WHEELMOD 1 \"\" \"wheelmod\" \"User Commands\"",
           ".SH NAME", "wheelmod \\- " + troff(description.split(": ", 1)[-1]),
           ".SH SYNOPSIS", ".B wheelmod", "[\\fB\\-q\\fR] \\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR]",
           ".SH DESCRIPTION", troff(description),
           ".SH OPTIONS"]
    for name, text in entries(head.get("Options", [])):
        out += [".TP", "\\fB" + troff(name) + "\\fR", troff(text)]
    out.append(".SH COMMANDS")
    for command, summary, text in commands:
        parts = sections(text)
        usage = next((line for line in parts[""] if line.startswith("Usage:")), "")
        out += [".SS " + command, troff(summary)]
        if usage:
            out += [".PP", "\\fB" + troff(usage.split(":", 1)[1].strip()) + "\\fR"]
        for heading in ("Positionals", "Options"):
            for name, body in entries(parts.get(heading, [])):
                if name.startswith("-h,--help"):
                    continue
                out += [".TP", "\\fB" + troff(name) + "\\fR", troff(body)]
    footer = [line for line in head.get("Subcommands", []) if line.startswith("Exit codes")]
    exit_text = footer[0] if footer else next(
        (line for line in top.splitlines() if line.startswith("Exit codes")), "")
    out += [".SH EXIT STATUS", troff(exit_text.split(": ", 1)[-1])]
    out.append(".SH ENVIRONMENT")
    for name, text in ENVIRONMENT:
        out += [".TP", "\\fB" + troff(name) + "\\fR", troff(text)]
    out += [".SH FILES", ".TP", "\\fI<prefix>/share/wheelmod/config/\\fR",
            "The toolchain generation tables (toolchains.yaml, eb-dependencies.yaml); a site "
            "overrides them with \\fB\\-\\-config\\fR \\fIDIR\\fR.",
            ".TP", "\\fI<prefix>/share/wheelmod/templates/\\fR",
            "The easyconfig and module file templates.",
            ".SH SEE ALSO", "\\fBeb\\fR(1), \\fBmodule\\fR(1), \\fBpip\\fR(1)"]
    return "\n".join(out) + "\n"


def completion(commands, top_options):
    lines = ["# bash completion for wheelmod; generated from its --help by scripts/gen-docs.py",
             "_wheelmod() {",
             "    local cur prev command i",
             "    cur=${COMP_WORDS[COMP_CWORD]}",
             "    prev=${COMP_WORDS[COMP_CWORD-1]}",
             "    command=",
             "    for ((i = 1; i < COMP_CWORD; i++)); do",
             "        case ${COMP_WORDS[i]} in -*) ;; *) command=${COMP_WORDS[i]}; break ;; esac",
             "    done",
             "    case $prev in"]
    for option, values in sorted(VALUES.items()):
        lines.append(f"        {option}) COMPREPLY=($(compgen -W \"{values}\" -- \"$cur\"))"
                     "; return ;;")
    lines += ["        --prefix|--dest|--output-dir|--cache-dir|--config|--modulepath|"
              "--eb-installpath|--templates|--wheel|--python-exe|--cacert)",
              "            COMPREPLY=($(compgen -f -- \"$cur\")); return ;;",
              "    esac",
              "    case $command in"]
    for command, _, text in commands:
        options = sorted({n for name, _ in entries(sections(text).get("Options", []))
                          for n in option_names(name)})
        lines.append(f"        {command}) COMPREPLY=($(compgen -W \"{' '.join(options)}\" "
                     "-- \"$cur\")) ;;")
    names = " ".join(command for command, _, _ in commands)
    lines += [f"        *) COMPREPLY=($(compgen -W \"{names} {' '.join(top_options)}\" "
              "-- \"$cur\")) ;;",
              "    esac",
              "}",
              "complete -o default -F _wheelmod wheelmod"]
    return "\n".join(lines) + "\n"


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelmod", required=True)
    parser.add_argument("--man", required=True)
    parser.add_argument("--completion", required=True)
    args = parser.parse_args()
    top = run_help(args.wheelmod)
    head = sections(top)
    commands = [(name, summary, run_help(args.wheelmod, name))
                for name, summary in entries(head.get("Subcommands", []))
                if not name.startswith("Exit codes")]
    if not commands:
        sys.exit("gen-docs: no subcommands in `wheelmod --help`")
    top_options = sorted({n for name, _ in entries(head.get("Options", []))
                          for n in option_names(name)})
    write_if_changed(args.man, man_page(top, commands))
    write_if_changed(args.completion, completion(commands, top_options))
    return 0


if __name__ == "__main__":
    sys.exit(main())
