#!/usr/bin/env python3
"""wheelmod swapcheck on Debian's real PyTorch (python3-torch).

    test_real_torch.py --wheelmod BIN --work DIR [--python /usr/bin/python3]

Builds the cases of make_real_cases.py under DIR/cases (reused while their
sources and the installed torch are unchanged), each proven by importing it,
then runs `BIN swapcheck --current /usr --candidate /usr --dependents
<every case prefix> --format json` and checks the report: each case's
verdict and reasons, and that both torches are read as Debian's (exported
symbols, _GLIBCXX_USE_CXX11_ABI=1, the version its metadata gives). Prints
a table case | expected | actual | proven by import. Exit 0 only when all
match; exit 1 otherwise, and when python3-torch is not installed (this test
needs it and says so rather than pass).
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_INIT = "/usr/lib/python3/dist-packages/torch/__init__.py"
TORCH_PREFIX = "/usr"


def canonical(name):
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def run_swapcheck(wheelmod, prefixes, work):
    command = [wheelmod, "swapcheck", "--current", TORCH_PREFIX, "--candidate", TORCH_PREFIX,
               "--dependents", *prefixes, "--format", "json"]
    print("$ " + " ".join(command[:7]) + " <" + str(len(prefixes)) + " prefixes> "
          + " ".join(command[-2:]))
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    with open(os.path.join(work, "swapcheck.json"), "w", encoding="utf-8") as stream:
        stream.write(result.stdout)
    if result.stderr.strip():
        print(result.stderr.rstrip())
    # 6: some dependent breaks or is broken now (README "Exit codes"); the cases include both.
    if result.returncode != 6:
        return None, f"wheelmod exited {result.returncode}: {result.stderr.strip()[-300:]}"
    try:
        return json.loads(result.stdout), None
    except ValueError as error:
        return None, f"wheelmod exited {result.returncode} without a JSON report ({error})"


def check_torch(report, torch):
    """Problems with the report's reading of Debian's torch, as current and candidate."""
    problems = []
    expected_version = torch.get("torch_metadata_version")
    for side in ("current", "candidate"):
        facts = report.get(side) or {}
        if not (facts.get("exported_symbols") or 0) > 0:
            problems.append(f"{side}.exported_symbols is {facts.get('exported_symbols')}, "
                            "expected > 0 (libtorch's dynamic symbols)")
        if facts.get("cxx11_abi") is not True:
            problems.append(f"{side}.cxx11_abi is {json.dumps(facts.get('cxx11_abi'))}, "
                            "expected true (python3-torch is built with _GLIBCXX_USE_CXX11_ABI=1)")
        if facts.get("version") != expected_version:
            problems.append(f"{side}.version is {facts.get('version')!r}, expected "
                            f"{expected_version!r} (importlib.metadata.version('torch'); "
                            f"torch.__version__ is {torch.get('torch_version')!r})")
    return problems


def check_case(entry, dependent):
    """Problems with one dependent's verdict and reasons."""
    if dependent is None:
        return ["not in the report"]
    problems = []
    verdict, reasons = dependent.get("verdict"), dependent.get("reasons") or []
    if verdict != entry["expected_verdict"]:
        problems.append(f"verdict {verdict!r}, expected {entry['expected_verdict']!r}")
    if not entry["expected_reasons"] and reasons:
        problems.append("unexpected reasons: " + "; ".join(
            f"{r.get('kind')}: {r.get('detail')}" for r in reasons))
    for wanted in entry["expected_reasons"]:
        found = [r for r in reasons if r.get("kind") == wanted["kind"]]
        if "symbols_contain" in wanted:
            found = [r for r in found
                     if any(wanted["symbols_contain"] in s for s in r.get("symbols") or [])]
        if "detail_contains" in wanted:
            found = [r for r in found if wanted["detail_contains"] in (r.get("detail") or "")]
        if not found:
            problems.append(f"no reason of kind {wanted['kind']!r} with "
                            f"{wanted.get('symbols_contain') or wanted.get('detail_contains')!r}"
                            f" (reasons: {json.dumps(reasons)})")
        for text in wanted.get("no_reason_contains", []):
            if any(text in json.dumps(r) for r in reasons):
                problems.append(f"a reason names {text!r}, which does not apply on CPython 3 "
                                "without extras")
    if verdict == "compatible" and not dependent.get("torch_imports"):
        problems.append("compatible, but torch_imports is 0 (the extension binds to libtorch)")
    projects = [canonical(p.rsplit(" ", 1)[0]) for p in dependent.get("projects") or []]
    if canonical(entry["project"]) not in projects:
        problems.append(f"projects {dependent.get('projects')} lack {entry['project']!r}")
    return problems


def actual_text(dependent):
    if dependent is None:
        return "-"
    kinds = sorted({r.get("kind", "?") for r in dependent.get("reasons") or []})
    return dependent.get("verdict", "?") + (f" ({', '.join(kinds)})" if kinds else "")


def proof_text(entry):
    if not entry["proven"]:
        return "NOT PROVEN"
    if entry["imports"]:
        text = "yes: imports"
    else:
        text = "yes: fails, " + entry["import_error"].split(": ", 2)[-1]
    if entry.get("unmet"):
        text += "; unmet " + ", ".join(entry["unmet"])
    return text


def print_table(rows, proof="proven by import"):
    """The case | expected | actual | proof table both real-torch tests print."""
    header = ("case", "expected", "actual", proof)
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(4)]
    for row in [header, tuple("-" * w for w in widths)] + rows:
        print(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheelmod", required=True, help="the wheelmod binary")
    parser.add_argument("--work", required=True, help="a directory for the cases and report")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the interpreter that proves the cases")
    arguments = parser.parse_args()
    if not os.path.exists(TORCH_INIT):
        print(f"FAILED: python3-torch is not installed ({TORCH_INIT} is missing); this test "
              "needs Debian's python3-torch, libtorch-dev, python3-torchvision and "
              "pybind11-dev (apt-get install them) and does not pass without them")
        return 1
    work = os.path.realpath(arguments.work)
    os.makedirs(work, exist_ok=True)
    cases_dir = os.path.join(work, "cases")
    made = subprocess.run([sys.executable, "-B", os.path.join(HERE, "make_real_cases.py"),
                           "--out", cases_dir, "--python", arguments.python], check=False)
    if made.returncode != 0:
        print(f"FAILED: make_real_cases.py exited {made.returncode}: the cases are not as "
              "recorded (see above)")
        return 1
    with open(os.path.join(cases_dir, "cases.json"), encoding="utf-8") as stream:
        cases = json.load(stream)
    entries = cases["cases"]
    report, error = run_swapcheck(arguments.wheelmod, [e["prefix"] for e in entries], work)
    failures = []
    dependents = {}
    if report is None:
        failures.append(("swapcheck", error))
    else:
        failures += [("torch", problem) for problem in check_torch(report, cases["torch"])]
        for dependent in report.get("dependents") or []:
            dependents[os.path.realpath(dependent.get("prefix", ""))] = dependent
    rows = []
    passed = 0
    for entry in entries:
        dependent = dependents.get(os.path.realpath(entry["prefix"]))
        problems = check_case(entry, dependent) if report is not None else ["no report"]
        if not entry["proven"]:
            problems.append("the case itself is not proven: " + "; ".join(entry["proof_problems"]))
        failures += [(entry["name"], problem) for problem in problems]
        passed += not problems
        rows.append((entry["name"], entry["expected_verdict"], actual_text(dependent),
                     proof_text(entry)))
    print()
    print_table(rows)
    if report is not None:
        for side in ("current", "candidate"):
            facts = report.get(side) or {}
            print(f"{side}: version {facts.get('version')!r}, exported_symbols "
                  f"{facts.get('exported_symbols')}, cxx11_abi {facts.get('cxx11_abi')}, "
                  f"prefix {facts.get('prefix')}")
    print(f"report: {os.path.join(work, 'swapcheck.json')}")
    for name, problem in failures:
        print(f"FAILED {name}: {problem}")
    failed = len(entries) - passed + (1 if any(n in ("torch", "swapcheck") for n, _ in failures)
                                      else 0)
    print(f"{passed} passed, {failed} failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
