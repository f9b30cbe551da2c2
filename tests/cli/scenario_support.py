"""What the CLI scenario scripts share: a failure type, check(), and a main()
that parses the common options, runs one named scenario and maps the result
to an exit code (0 ok, 1 failed)."""
import argparse


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


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
