"""What the CLI scenario scripts share: a failure type, check(), and a main()
that parses the common options, runs one named scenario and maps the result
to an exit code (0 ok, 1 failed)."""
import argparse
import hashlib
import subprocess


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def sha256_of(path):
    """Hex SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_expecting(command, expect=0, timeout=120, env=None):
    """Runs `command`, prints it with its exit code, and fails (printing its
    output) unless it exits with `expect`."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    print("ran:", " ".join(command), "->", result.returncode)
    if result.returncode != expect:
        print("stdout:\n" + result.stdout + "\nstderr:\n" + result.stderr)
        raise Failure(f"exit code {result.returncode}, expected {expect}")
    return result


def scenario_main(description, scenarios, make_runner, extra_options=()):
    """Runs the scenario named on the command line with make_runner(args);
    a runner with a close() method is closed afterwards, pass or fail."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--wheelmod", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--http-state")
    for option in extra_options:
        parser.add_argument(option)
    parser.add_argument("scenario", choices=sorted(scenarios))
    args = parser.parse_args()
    runner = make_runner(args)
    try:
        scenarios[args.scenario](runner)
    except Failure as failure:
        print("FAIL:", failure)
        return 1
    finally:
        if hasattr(runner, "close"):
            runner.close()
    print("ok:", args.scenario)
    return 0
