"""One line per class of hostile input or fault, for tests/RELIABILITY.md.

The hostile and fault suites call record() once per class after its cases
ran. When WHEELMOD_RELIABILITY_DIR is set (scripts/reliability-report sets
it), the record is appended as a JSON line to DIR/<suite>.jsonl; otherwise
nothing is written and the suites are ordinary tests.
"""
import json
import os


def record(suite, case_class, command, cases, failures, outcome, **figures):
    """suite: "hostile" or "faults"; case_class: what was attacked ("zip-slip names");
    command: the wheelmod command driven; cases: how many inputs or runs; failures: how many
    broke an invariant (the test has failed when this is not 0); outcome: one sentence,
    what wheelmod did (exit code, message, what was left on disk); figures: numbers worth
    printing (peak_rss_mib=..., states={...})."""
    line = {"suite": suite, "class": case_class, "command": command, "cases": cases,
            "failures": failures, "outcome": outcome, **figures}
    print("reliability:", json.dumps(line, sort_keys=True))
    directory = os.environ.get("WHEELMOD_RELIABILITY_DIR")
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"{suite}.jsonl"), "a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")
