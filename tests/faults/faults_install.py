#!/usr/bin/env python3
"""SIGKILL during `wheelmod install`: the prefix is the old installation or the new one.

    faults_install.py --wheelmod BIN --sample DIR [--seed S] {force,first}

force: torch 2.5.1+cpu and 2.6.0+cu126 (with triton) are installed over each other with
--force, each run killed at a random moment. After each kill the prefix must hold exactly
the files of one of the two complete installations (compared with reference installs),
with every RECORD row true to its file and one torch dist-info.

first: a first install into a new prefix, with an empty wheel cache, killed: the prefix
is absent or complete; the re-run (--force when it is complete) completes and removes the
killed run's staging directory.

States: "old" (the prefix as before the run), "new" (the run's installation), "absent";
"+staging" when the killed run left its staging directory beside the prefix.
"""
import os
import shutil
import sys

from faults_support import Campaign, check, kill_after, main, measure, run
from scenario_support import verify_record_rows  # tests/cli, put on the path by faults_support

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
VERSIONS = {"old": ("torch==2.5.1", "cpu"), "new": ("torch==2.6.0", "cuda")}


class Installer:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.index = "file://" + os.path.join(args.sample, "whl")

    def command(self, version, prefix, *extra, cache=None):
        spec, accelerator = VERSIONS[version]
        return [self.args.wheelmod, "-q", "install", spec, "--toolchain", "foss-2024a",
                "--accelerator", accelerator, "--python", PYTHON, "--arch", "x86_64",
                "--glibc", "2.28", "--index", self.index,
                "--cache-dir", cache or os.path.join(self.work, "cache"),
                "--eb-installpath", self.args.sample, "--python-exe", sys.executable,
                "--prefix", prefix, *extra]


def site_of(prefix):
    return os.path.join(prefix, "lib", f"python{PYTHON}", "site-packages")


def file_set(prefix):
    out = set()
    for directory, _, files in os.walk(prefix):
        out.update(os.path.relpath(os.path.join(directory, f), prefix) for f in files)
    return out


def verify_records(prefix):
    """Every RECORD row with a hash matches its file; exactly one torch dist-info."""
    site = site_of(prefix)
    dists = sorted(d for d in os.listdir(site) if d.endswith(".dist-info"))
    torch = [d for d in dists if d.startswith("torch-")]
    check(len(torch) == 1, f"{len(torch)} torch dist-infos in {site}: {dists}")
    for dist in dists:
        verify_record_rows(site, os.path.join(site, dist))
    return torch[0]


def staging_leftovers(prefix):
    parent, name = os.path.split(prefix)
    return sorted(n for n in os.listdir(parent) if n.startswith(f".{name}.wheelmod-staging-"))


def installed_version(prefix, references):
    """"old", "new" or "absent": the prefix must be one complete reference installation."""
    if not os.path.lexists(prefix):
        return "absent"
    files = file_set(prefix)
    matches = [v for v, ref in references.items() if ref == files]
    if not matches:
        nearest = min(references, key=lambda v: len(references[v] ^ files))
        extra = sorted(files - references[nearest])[:5]
        missing = sorted(references[nearest] - files)[:5]
        check(False, f"{prefix} is no complete installation (closest: {nearest}; "
                           f"extra {extra}, missing {missing})")
    torch = verify_records(prefix)
    check(torch.startswith("torch-" + VERSIONS[matches[0]][0].split("==")[1]),
          f"{prefix} has the files of {matches[0]} but {torch}")
    return matches[0]


def references(installer, work):
    refs = {}
    for version in VERSIONS:
        prefix = os.path.join(work, f"ref-{version}")
        run(installer.command(version, prefix))
        installed = file_set(prefix)
        verify_records(prefix)
        refs[version] = installed
    check(refs["old"] != refs["new"], "the two installations have the same files: the test proves nothing")
    return refs


def force(args, work):
    """install --force over an existing installation, killed; the versions alternate."""
    installer = Installer(args, work)
    refs = references(installer, work)  # also fills the wheel cache
    prefix = os.path.join(work, "PyTorch", "whl")
    run(installer.command("old", prefix))
    campaign = Campaign(args, "install.force", "SIGKILL during install --force",
                        "wheelmod install torch --force --prefix P (over an existing install)")
    duration = measure(installer.command("new", prefix, "--force"))
    current = "new"

    def one_case(delay):
        nonlocal current
        target = "old" if current == "new" else "new"
        finished = kill_after(installer.command(target, prefix, "--force"), delay)
        found = installed_version(prefix, refs)
        check(found in (current, target), f"the prefix holds {found}, expected {current} or {target}")
        check(finished is None or found == target, "the run completed but the prefix is the old one")
        state = "new" if found == target else "old"
        current = found
        return state + ("+staging" if staging_leftovers(prefix) else "")

    def final():
        run(installer.command("new", prefix, "--force"))
        check(installed_version(prefix, refs) == "new", "the re-run did not install the new version")
        check(not staging_leftovers(prefix), f"staging left after a completed run: {staging_leftovers(prefix)}")

    return campaign.run(duration, one_case,
                        "each kill left the old or the new installation whole (RECORDs "
                        "verified); the re-run completed and removed staging leftovers", final)


def first(args, work):
    """A first install into a new prefix (empty wheel cache), killed; then a re-run."""
    installer = Installer(args, work)
    refs = references(installer, work)
    prefix = os.path.join(work, "first", "PyTorch", "whl")
    os.makedirs(os.path.dirname(prefix))
    campaign = Campaign(args, "install.first", "SIGKILL during a first install",
                        "wheelmod install torch --prefix NEW (empty cache)")
    duration = measure(installer.command("new", prefix, cache=os.path.join(work, "cache-measure")))
    shutil.rmtree(prefix)
    counter = iter(range(1 << 30))

    def one_case(delay):
        cache = os.path.join(work, f"cache-{next(counter)}")
        finished = kill_after(installer.command("new", prefix, cache=cache), delay)
        found = installed_version(prefix, refs)
        check(found in ("absent", "new"), f"a first install left {found}")
        check(finished is None or found == "new", "the run completed but left no prefix")
        state = found + ("+staging" if staging_leftovers(prefix) else "")
        # The next run (on the killed run's cache) completes and cleans up.
        run(installer.command("new", prefix, *(["--force"] if found == "new" else []), cache=cache))
        check(installed_version(prefix, refs) == "new", "the re-run did not complete the install")
        check(not staging_leftovers(prefix), f"staging left after the re-run: {staging_leftovers(prefix)}")
        shutil.rmtree(prefix)
        shutil.rmtree(cache)
        return state

    return campaign.run(duration, one_case,
                        "each kill left no prefix or a complete one; every re-run "
                        "completed and removed the killed run's staging directory")


SCENARIOS = {"force": force, "first": first}
# What CTest needs to run each scenario (`--list`, read by tests/faults/CMakeLists.txt).
CTEST = {"*": {"timeout": 600}}

if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0], SCENARIOS, ctest=CTEST))
