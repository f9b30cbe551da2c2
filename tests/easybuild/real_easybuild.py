#!/usr/bin/env python3
"""What `wheelmod easyconfig` writes, checked with the real EasyBuild (label easybuild).

The easyconfigs wheelmod writes are only worth something if EasyBuild accepts them: the parser,
`eb --check-contrib`, the easybuild-easyconfigs pull-request test suite, `eb --dry-run` against the
real repository, and a real installation. tests/easyconfig/check_easyconfig.py approximates the
parser; this driver runs the pinned EasyBuild snapshots themselves (framework, easyblocks,
easyconfigs: $WHEELMOD_EASYBUILD_SRC, else ../shared/easybuild beside the repository).

    real_easybuild.py --list
    real_easybuild.py --wheelmod BIN --sample DIR [--lmod LMOD] [--table FILE] [CASE...]

Without a CASE it runs them all and prints one table. Exit 0: every check of every written file
passed (or was a known artefact of the stand-in modules, said so); 1: some check failed; 77:
skipped (no EasyBuild snapshots, nothing written, nothing to install on), never a pass.

Every eb call is confined to a temporary directory (--prefix, --tmpdir, --buildpath,
--installpath, --sourcepath, --repositorypath; no EasyBuild configuration file is read), which is
removed at the end. Nothing reaches the network: the sample index is read over file://.
"""

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import easybuild_snapshots

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SKIP_EXIT = 77

SNAPSHOT_PREFIXES = {
    "framework": "easybuild-framework-",
    "easyblocks": "easybuild-easyblocks-",
    "easyconfigs": "easybuild-easyconfigs-",
}
GENERATIONS = ("2023a", "2023b", "2024a", "2025a", "2025b", "2026.1")
STACK = ("torch", "torchvision", "torchaudio")
# What a real install needs, and what this machine has: a CPython of the toolchain's X.Y
# (2025b: Python 3.13.5, 2025a: 3.13.1; pyenv's 3.13 stands in for them).
INSTALL_GENERATION = "2025b"
# The real installs: part -> (generation, row label of variants()).
INSTALLS = {
    f"install_{INSTALL_GENERATION}_cpu": (INSTALL_GENERATION, "cpu"),
    f"install_{INSTALL_GENERATION}_cuda": (INSTALL_GENERATION, "cuda"),
    # The ROCm libraries from the ROCm 6.4.1 modules (the sample's stand-in trees): relink removes
    # the wheel's copies in eb's postinstallcmds, torch imports with the modules' libraries.
    "install_2025a_rocm": ("2025a", "rocm6.4.relink"),
}
# A generation's ROCm stack as a wheelmod run whose libraries come from its modules (issue 34):
# download.pytorch.org has ROCm wheels for x86_64 only. --write-unmet changes nothing while
# easyconfigs/ ships wheelmod-0.1.0-GCCcore-14.2.0.eb (written beside, resolved by eb --robot like
# any dependency); without it wheelmod lists the file to add and the dry-run gives eb a stand-in
# (check_files, said so).
ROCM_MODULES_RUNS = {
    "2025a": ("rocm6.4.relink", ["torch==2.9.1", "torchvision", "--toolchain", "foss-2025a",
                                 "--accelerator", "rocm6.4", "--arch", "x86_64", "--with-relink",
                                 "--write-unmet"]),
}
COLUMNS = ("parse", "check_contrib", "pr_suite", "dry_run", "install", "pip_check")
COLUMN_TITLES = {"parse": "parse", "check_contrib": "check-contrib", "pr_suite": "PR suite",
                 "dry_run": "dry-run robot", "install": "real install", "pip_check": "pip check"}
# The easyconfig easybuild-easyconfigs merged for the CUDA-wheel-bundle route: with these
# easyblocks it fails the same checksum check as every dummy_package bundle (the snapshots'
# README), so a generated bundle failing exactly that way is a known artefact, not wheelmod's.
REFERENCE_WHEEL_BUNDLE = "c/CUDA-wheel-bundle/CUDA-wheel-bundle-12.8.0-gompi-2025a-CUDA-12.8.0.eb"


class Skipped(Exception):
    """What this run needs is absent; the message says what."""


class Failure(Exception):
    """The harness itself could not do what it had to (not a finding about a generated file)."""


def parts():
    """What a run can do, in order: one part per generation, wheelmod's own easyconfigs, the two
    installs."""
    names = ["g" + generation.replace(".", "_") for generation in GENERATIONS]
    names.append("self_easyconfig")
    names += list(INSTALLS)
    return names


# The CTest cases and the parts each runs. Every run extracts the 13,000 files of the snapshots
# and removes them again (several seconds of I/O here, more under load), so the generations share
# two cases, balanced for `ctest -j2` beside the installs (about 30-60 s each), which are cases of
# their own.
CASES = {
    "generated_2023_2024": ["g2023a", "g2023b", "g2024a", "self_easyconfig"],
    "generated_2025_2026": ["g2025a", "g2025b", "g2026_1"],
    **{name: [name] for name in parts() if name.startswith("install_")},
}
# Seconds a case took here (2 cores, ASan build of wheelmod, load 2-3 from a parallel build):
# each generated_* 90-120, an install 40-70. CTest's timeout is a few times that.
CASE_TIMEOUTS = {"generated": 600, "install": 400}


def case_timeout(name):
    return CASE_TIMEOUTS[name.split("_")[0]]


# ---------------------------------------------------------------------------------------------
# Results


def outcome(status, message=""):
    """One cell: status is pass, fail, discounted (a known artefact, message says which),
    skipped (could not be checked: not a pass), not_reached (an earlier step failed), elsewhere
    (checked in another row) or not_run (not this case's column)."""
    return {"status": status, "message": message.strip()}


SHORT = {"pass": "ok", "fail": "FAIL", "discounted": "artefact", "skipped": "SKIPPED",
         "not_run": "-", "not_reached": "not reached", "elsewhere": "see self"}


class Table:
    """Rows keyed by (row label, file); several cases of one run fill different columns."""

    def __init__(self):
        self.rows = {}
        self.not_generated = []
        self.crashes = []  # wheelmod runs that ended in an internal error or a crash
        self.said = {}  # row label -> what wheelmod asked the user to add ("to add ...")
        self.notes = []
        self.artefacts = []  # what the stand-ins do differently to avoid a known artefact

    def row(self, label, command, file_name):
        key = (label, file_name)
        if key not in self.rows:
            self.rows[key] = {"row": label, "command": command, "file": file_name,
                              "results": {column: outcome("not_run") for column in COLUMNS}}
        return self.rows[key]

    def set(self, label, command, file_name, column, result):
        self.row(label, command, file_name)["results"][column] = result

    def failed(self):
        return [(row, column, result) for row in self.rows.values()
                for column, result in row["results"].items()
                if result["status"] in ("fail", "skipped")] + self.crashes

    def checked_anything(self):
        return bool(self.crashes) or any(
            result["status"] in ("pass", "fail", "discounted")
            for row in self.rows.values() for result in row["results"].values())

    def as_json(self, meta):
        return {**meta, "columns": [COLUMN_TITLES[c] for c in COLUMNS],
                "rows": [{"row": r["row"], "command": r["command"], "file": r["file"],
                          **{COLUMN_TITLES[c]: r["results"][c] for c in COLUMNS}}
                         for r in sorted(self.rows.values(), key=lambda r: (r["row"], r["file"]))],
                "not_generated": self.not_generated, "wheelmod_failed": self.crashes,
                "wheelmod_said": self.said,
                "notes": self.notes,
                "artefacts_avoided": self.artefacts}

    def print(self):
        rows = sorted(self.rows.values(), key=lambda r: (r["row"], r["file"]))
        header = ["row", "file"] + [COLUMN_TITLES[c] for c in COLUMNS]
        lines = [[r["row"], r["file"]] + [SHORT[r["results"][c]["status"]] for c in COLUMNS]
                 for r in rows]
        widths = [max(len(str(x[i])) for x in [header] + lines) for i in range(len(header))]
        print()
        for line in [header, ["-" * w for w in widths]] + lines:
            print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip())
        for status, title in (
                ("fail", "FAILED"), ("skipped", "SKIPPED (not a pass)"),
                ("discounted", "DISCOUNTED (known artefacts, not the generated file's doing)")):
            entries = [(r, c, r["results"][c]) for r in rows for c in COLUMNS
                       if r["results"][c]["status"] == status]
            if entries:
                print(f"\n{title}:")
                for r, column, result in entries:
                    print(f"- {r['row']} {r['file']} [{COLUMN_TITLES[column]}]")
                    lines = result["message"].splitlines()
                    limit = 6 if status == "discounted" else 14
                    for line in lines[:limit]:
                        print("    " + line)
                    if len(lines) > limit:
                        print(f"    ... ({len(lines) - limit} more lines: --table FILE has them)")
                    for line in self.said.get(r["row"], []) if status == "fail" else []:
                        print(f"    (wheelmod said: {line})")
        warned = [(r, c) for r in rows for c in COLUMNS
                  if r["results"][c]["message"].startswith("EasyBuild warned")]
        if warned:
            print("\npassed, but EasyBuild WARNED:")
            for r, column in warned:
                print(f"- {r['row']} {r['file']} [{COLUMN_TITLES[column]}]")
                for line in r["results"][column]["message"].splitlines()[1:5]:
                    print("    " + line)
        if self.crashes:
            print("\nWHEELMOD FAILED (internal error or crash, not a refusal):")
            for entry in self.crashes:
                print(f"- {entry['row']}: {entry['command']}")
                for line in entry["why"].splitlines()[:14]:
                    print("    " + line)
        if self.artefacts:
            print("\nDISCOUNTED up front (the stand-ins differ from the real modules, because):")
            for note in self.artefacts:
                print(f"- {note}")
        if self.not_generated:
            print("\nnot generated (wheelmod exited non-zero; not a failure of this test):")
            for entry in self.not_generated:
                print(f"- {entry['row']}: {entry['why']}")
        for note in self.notes:
            print("note: " + note)


# ---------------------------------------------------------------------------------------------
# Helpers


def run(command, *, env=None, cwd=None, timeout=600, check=False):
    result = subprocess.run(command, env=env, cwd=cwd, timeout=timeout, capture_output=True,
                            text=True, errors="replace")
    if check and result.returncode != 0:
        raise Failure(f"{' '.join(command)} exited {result.returncode}:\n"
                      f"{(result.stdout + result.stderr).strip()[-3000:]}")
    return result


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no output)"


# EasyBuild prints these on every run; they say nothing about the easyconfig.
EB_NOISE = re.compile(
    r"^(WARNING: 'eb' not found in \$PATH|== Temporary log file|== Temporary director|"
    r"WARNING: Using EasyBuild as root|\(this is only allowed because EasyBuild was configured|"
    r"== temporary log file|== Running with|== Running |== processing EasyBuild easyconfig|"
    r"== found valid index|== resolving dependencies)")


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def essential(output, limit=25):
    """EasyBuild's output without its routine lines or colours, for a failure message."""
    lines = [line.rstrip() for line in ANSI.sub("", output).splitlines()
             if line.strip() and not EB_NOISE.match(line.strip())]
    return "\n".join(lines[:limit])


def letter_dir(name):
    # easybuild-framework's letter_dir_for: the lower-case first letter, '0' for anything else.
    first = name[0].lower()
    return first if "a" <= first <= "z" else "0"


def ec_name(path):
    with open(path, encoding="utf-8") as handle:
        found = re.search(r"^name\s*=\s*['\"]([^'\"]+)['\"]", handle.read(), re.M)
    return found.group(1) if found else os.path.basename(path).split("-")[0]


def generation_pythons():
    """{generation: 'X.Y'} from config/toolchains.yaml (wheelmod's own table; a line scan, so the
    driver needs no YAML library)."""
    pythons = {}
    current = None
    with open(os.path.join(REPO, "config", "toolchains.yaml"), encoding="utf-8") as handle:
        for line in handle:
            generation = re.match(r"^  '([0-9.a-z]+)':", line)
            if generation:
                current = generation.group(1)
            python = re.match(r"^    python: \{version: '(\d+)\.(\d+)\.", line)
            if python and current:
                pythons[current] = f"{python.group(1)}.{python.group(2)}"
    return pythons


def cpython(version):
    """A real CPython X.Y: on PATH, else pyenv's ($PYENV_ROOT, else ~/.pyenv) versions/X.Y.*."""
    found = shutil.which(f"python{version}")
    if found:
        # the interpreter itself, not a pyenv shim (a venv made through a shim points at the shim)
        answer = run([found, "-c", "import sys; print(sys.executable)"])
        if answer.returncode == 0 and os.path.isfile(answer.stdout.strip()):
            return answer.stdout.strip()
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for candidate in sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin",
                                                   f"python{version}")), reverse=True):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


# ---------------------------------------------------------------------------------------------
# The run: the snapshots extracted once, the environment every eb call shares


class Run:
    def __init__(self, args):
        self.args = args
        self.wheelmod = args.wheelmod
        self.sample = os.path.abspath(args.sample)
        self.table = Table()
        self.timings = []
        self.source, self.tarballs = self.find_snapshots()
        for tool, package in (("git", "git"), ("tar", "tar")):
            if not shutil.which(tool):
                raise Skipped(f"no {tool} (Debian package {package}): the easyconfigs test suite "
                              "diffs a git branch, the snapshots are tarballs")
        self.work = tempfile.mkdtemp(prefix="wheelmod-easybuild-")
        self.src = os.path.join(self.work, "src")
        self.tree = None           # the easyconfigs snapshot, git-initialised on first use
        self.git_ready = False
        self.generated = {}        # (label) -> (out dir, files) of wheelmod runs done this run
        self.reference = None      # the merged CUDA-wheel-bundle's own check results
        self.pythons = generation_pythons()
        self.lmod_env = None
        self.gaps = None           # what the snapshots lack: [(eb option, why)] (snapshot_gaps)
        self.gaps_said = False

    def close(self):
        if os.environ.get("WHEELMOD_KEEP_WORK"):
            print(f"note: WHEELMOD_KEEP_WORK is set, kept {self.work}")
            return
        shutil.rmtree(self.work, ignore_errors=True)

    def timed(self, what, started):
        self.timings.append((what, time.monotonic() - started))

    # -- the snapshots ----------------------------------------------------------------------

    def find_snapshots(self):
        try:
            return easybuild_snapshots.find(SNAPSHOT_PREFIXES)
        except easybuild_snapshots.SnapshotsAbsent as absent:
            raise Skipped(str(absent))

    def extract(self):
        if os.path.isdir(self.src):
            return
        started = time.monotonic()
        os.makedirs(self.src)
        for part, tarball in self.tarballs.items():
            run(["tar", "-xzf", tarball, "-C", self.src], check=True)
            if not os.path.isdir(os.path.join(self.src, part)):
                raise Failure(f"{tarball} has no top-level {part}/ (git archive --prefix={part}/)")
        self.tree = os.path.join(self.src, "easyconfigs")
        self.robot = os.path.join(self.tree, "easybuild", "easyconfigs")
        self.timed("extract the snapshots", started)

    def git_base(self):
        """The easyconfigs snapshot as a repository on `develop`, once per run: the PR suite diffs
        a branch against it (git merge-base develop HEAD)."""
        if self.git_ready:
            return
        started = time.monotonic()
        git = ["git", "-C", self.tree, "-c", "gc.auto=0"]
        run(git + ["init", "-q", "-b", "develop"], check=True)
        # git fast-import writes the 13,000 files as one pack: `git add -A` wrote as many loose
        # objects, 4-7 s here to write and as long again to remove (ext4 with discard).
        importer = subprocess.Popen(git + ["fast-import", "--quiet"], stdin=subprocess.PIPE)
        entries = []
        for folder, subfolders, names in os.walk(self.tree):
            if folder == self.tree and ".git" in subfolders:
                subfolders.remove(".git")
            for name in sorted(names):
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    mode, data = "120000", os.readlink(path).encode()
                else:
                    mode = "100755" if os.access(path, os.X_OK) else "100644"
                    with open(path, "rb") as handle:
                        data = handle.read()
                importer.stdin.write(b"blob\nmark :%d\ndata %d\n" % (len(entries) + 1, len(data)))
                importer.stdin.write(data + b"\n")
                entries.append((mode, os.path.relpath(path, self.tree)))
        message = b"easybuild-easyconfigs snapshot"
        importer.stdin.write(b"commit refs/heads/develop\ncommitter wheelmod test "
                             b"<wheelmod-test@127.0.0.1> 0 +0000\ndata %d\n%s\n"
                             % (len(message), message))
        for mark, (mode, path) in enumerate(entries, start=1):
            importer.stdin.write(f"M {mode} :{mark} {path}\n".encode())
        importer.stdin.close()
        if importer.wait() != 0:
            raise Failure(f"git fast-import of {self.tree} exited {importer.returncode}")
        run(git + ["reset", "-q"], check=True)
        run(git + ["update-index", "-q", "--refresh"], check=True)
        if run(git + ["status", "--porcelain"], check=True).stdout.strip():
            raise Failure(f"{self.tree}: the imported commit differs from the files")
        self.git_ready = True
        self.timed("git repository of the easyconfigs snapshot", started)

    # -- environments -------------------------------------------------------------------------

    def lmod(self):
        """The environment Lmod's bash init script sets (EasyBuild runs `module` through it)."""
        if self.lmod_env is not None:
            return self.lmod_env
        lmod = self.args.lmod or shutil.which("lmod") or ""
        init = os.path.join(os.path.dirname(os.path.dirname(lmod)), "init", "bash")
        if not os.path.isfile(init):
            raise Skipped(f"no Lmod ({lmod or 'lmod'}: no init/bash beside it; "
                          "Debian package lmod)")
        result = run(["bash", "-c", f'source "{init}" >/dev/null 2>&1; env -0'], check=True)
        env = dict(entry.split("=", 1) for entry in result.stdout.split("\0") if "=" in entry)
        # A module loaded in the caller's shell would be in every eb call here.
        for name in list(env):
            if name in ("LOADEDMODULES", "_LMFILES_") or name.startswith("__LMOD_REF_COUNT") \
                    or name.startswith("_ModuleTable") or name.startswith("EBROOT") \
                    or name.startswith("EBVERSION") or name.startswith("EBDEVEL"):
                del env[name]
        self.lmod_env = env
        return env

    def eb_env(self, modulepath, pythonpath_extra=()):
        env = dict(self.lmod())
        # The developer's own EasyBuild settings (EASYBUILD_*, config files) must not change what
        # is checked; EASYBUILD_PREFIX catches any location not given on the command line.
        for name in list(env):
            if name.startswith("EASYBUILD_"):
                del env[name]
        config = os.path.join(self.work, "xdg")
        os.makedirs(config, exist_ok=True)
        env.update({
            "PYTHONPATH": ":".join([os.path.join(self.src, "framework"),
                                    os.path.join(self.src, "easyblocks"), *pythonpath_extra]),
            "EASYBUILD_PREFIX": os.path.join(self.work, "eb"),
            "XDG_CONFIG_HOME": config, "XDG_CONFIG_DIRS": config,
            "MODULEPATH": modulepath,
            # what the eb script sets before `python -m easybuild.main`
            "FANCYLOGGER_IGNORE_MPI4PY": "1",
            "PYTHONNOUSERSITE": "1",
            # pip (EasyBuild installs each wheel with it, and runs pip check) never asks an index
            "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1",
        })
        return env

    def eb_options(self):
        eb = os.path.join(self.work, "eb")
        return ["--allow-use-as-root-and-accept-consequences",
                f"--prefix={eb}", f"--tmpdir={eb}/tmp", f"--buildpath={eb}/build",
                f"--installpath={eb}/install", f"--sourcepath={eb}/sources",
                f"--repositorypath={eb}/ebfiles_repo", "--detect-loaded-modules=purge",
                *[option for option, _ in self.snapshot_gaps()]]

    def snapshot_gaps(self):
        """What the easyconfigs snapshot's ROCm 6.4.1 easyconfigs use and the pinned framework
        and easyblocks (older) lack, as eb options including stand-ins: the rocm-compilers
        toolchain (easybuild-framework easybuild/toolchains/rocm_compilers.py) and the generic
        ROCmComponent easyblock (easybuild-easyblocks easybuild/easyblocks/generic/
        rocmcomponent.py). Empty once the snapshots have them."""
        if self.gaps is not None:
            return self.gaps
        self.extract()
        self.gaps = []
        folder = os.path.join(self.work, "snapshot-gaps")
        os.makedirs(folder, exist_ok=True)
        for have, name, text, option in (
                (("framework", "easybuild", "toolchains", "rocm_compilers.py"),
                 "rocm_compilers_stand_in.py", ROCM_COMPILERS_STAND_IN, "--include-toolchains"),
                (("easyblocks", "easybuild", "easyblocks", "generic", "rocmcomponent.py"),
                 "rocmcomponent.py", ROCM_COMPONENT_STAND_IN, "--include-easyblocks")):
            if os.path.exists(os.path.join(self.src, *have)):
                continue
            path = os.path.join(folder, name)
            with open(path, "w") as handle:
                handle.write(text)
            self.gaps.append((f"{option}={path}", f"{'/'.join(have[1:])} (not in the pinned "
                              f"easybuild-{have[0]})"))
        return self.gaps

    def say_snapshot_gaps(self):
        """Once, where a checked file or install uses the ROCm modules: which stand-ins for the
        snapshots' gaps every eb call had."""
        if self.gaps_said or not self.snapshot_gaps():
            return
        self.gaps_said = True
        self.table.artefacts.append(
            "the ROCm 6.4.1 easyconfigs of the easyconfigs snapshot (2026-07-01) need what the "
            "pinned framework and easyblocks predate, so every eb call includes a stand-in: "
            + "; ".join(why for _, why in self.gaps) + ". They give EasyBuild the toolchain's "
            "name and subtoolchains (GCCcore, system) and the easyblock's parameters "
            "(compiler_toolchain, hip_platform), enough to parse and resolve; nothing is built "
            "with them")

    def empty_modulepath(self):
        path = os.path.join(self.work, "no-modules")
        os.makedirs(path, exist_ok=True)
        return path

    def worker(self, job, *, env, cwd=None, timeout=900):
        """Runs this script's --worker with EasyBuild importable; returns its JSON answer."""
        job_path = os.path.join(self.work, f"job-{len(self.timings)}-{job['kind']}.json")
        job["result"] = job_path + ".result"
        with open(job_path, "w") as handle:
            json.dump(job, handle)
        log_path = job_path + ".log"
        with open(log_path, "w") as log:
            # Without -B: EasyBuild's bytecode goes to the extracted (temporary) snapshots and
            # spares every later worker and eb process compiling it again (0.3 s each).
            result = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                                     job_path], env=env, cwd=cwd, timeout=timeout, stdout=log,
                                    stderr=subprocess.STDOUT)
        if result.returncode != 0 or not os.path.exists(job["result"]):
            with open(log_path, errors="replace") as log:
                tail = log.read()[-4000:]
            raise Failure(f"the EasyBuild worker ({job['kind']}) exited "
                          f"{result.returncode}:\n{tail}")
        with open(job["result"]) as handle:
            return json.load(handle)

    def eb_cli(self, arguments, *, env, timeout=600):
        """A fresh `eb` process (python3 -m easybuild.main, what the eb script runs)."""
        command = [sys.executable, "-m", "easybuild.main", *self.eb_options(), *arguments]
        env = dict(env, PYTHONOPTIMIZE="1")
        result = run(command, env=env, timeout=timeout)
        return result, command

    # -- wheelmod -------------------------------------------------------------------------------

    def wheelmod_binary(self):
        # A rebuild of build/dev relinks the binary: missing for a few seconds is that.
        for _ in range(60):
            if os.access(self.wheelmod, os.X_OK):
                return self.wheelmod
            time.sleep(1)
        raise Failure(f"{self.wheelmod} is not an executable (built? ninja -C build/dev wheelmod)")

    def generate(self, label, arguments):
        """wheelmod easyconfig ARGS into a fresh directory: (dir, [files]) or (dir, None) with the
        reason recorded when wheelmod wrote nothing."""
        if label in self.generated:
            return self.generated[label]
        # the label as a directory name: EasyBuild's dry-run listing is split at blanks
        out = os.path.join(self.work, "generated", re.sub(r"[^A-Za-z0-9_.-]+", "_", label))
        command = [self.wheelmod_binary(), "-q", "easyconfig", *arguments, "--index",
                   "file://" + os.path.join(self.sample, "whl"), "--cache-dir",
                   os.path.join(self.work, "wheelmod-cache"), "--output-dir", out]
        started = time.monotonic()
        result = run(command, timeout=300)
        self.timed(f"wheelmod {label}", started)
        shown = "wheelmod easyconfig " + " ".join(shlex.quote(a) for a in arguments) \
            + " --index file://[SAMPLE]/whl"
        files = sorted(glob.glob(os.path.join(out, "*.eb")))
        said = result.stderr + result.stdout
        if result.returncode == 1 or not 0 <= result.returncode < 128 \
                or re.search(r"Sanitizer|runtime error:", said):
            # exit 1 is wheelmod's internal error; a signal or a sanitizer report is a crash:
            # neither is a refusal, and neither may pass as "not generated"
            self.table.crashes.append({"row": label, "command": shown,
                                       "why": f"exit {result.returncode}:\n{said[-3000:]}"})
            print(f"FAIL: {label}: wheelmod exited {result.returncode}")
            self.generated[label] = (out, None, shown)
            return self.generated[label]
        if result.returncode != 0:
            # 2 usage, 3 nothing satisfies the request, ...: wheelmod refusing, as it should
            why = f"exit {result.returncode}: {first_line(result.stderr or result.stdout)}"
            self.table.not_generated.append({
                "row": label, "command": shown, "why": why,
                "said": [line for line in (result.stderr or result.stdout).splitlines()
                         if line.strip()][:8],
                "files_left": [os.path.basename(f) for f in files]})
            print(f"not generated: {label}: {why}")
            self.generated[label] = (out, None, shown)
        else:
            if not files:
                raise Failure(f"{shown} exited 0 but wrote no .eb file into {out}")
            # what wheelmod told the user to do before the files are complete
            told = [line.strip() for line in said.splitlines() if line.startswith("to add")]
            if told:
                self.table.said[label] = told
            print(f"generated: {label}: {', '.join(os.path.basename(f) for f in files)}")
            self.generated[label] = (out, files, shown)
        return self.generated[label]


# ---------------------------------------------------------------------------------------------
# The variants of one generation


def sample_variants_with_torch(sample, prefix, python):
    """The sample index's variant directories named prefix* with an x86_64 torch wheel for
    Python X.Y (cpXY), e.g. rocm6.2.4 for 3.12: the bundled-ROCm variants worth generating."""
    tag = "cp" + python.replace(".", "")
    found = []
    for page in sorted(glob.glob(os.path.join(sample, "whl", prefix + "*", "torch", "index.html"))):
        with open(page, encoding="utf-8") as handle:
            text = handle.read()
        if re.search(rf"torch-[^\"'<>]*-{tag}-{tag}-[^\"'<>]*x86_64\.whl", text):
            found.append(os.path.basename(os.path.dirname(os.path.dirname(page))))
    return found


def variants(generation, sample, python):
    """(label, wheelmod arguments) of one generation: CPU, CUDA, ROCm (the generation's module,
    and each ROCm the sample has wheels for, bundled), and the options that change what is
    written (--with-relink, --metadata keep, the site's modules with --bundle-missing)."""
    toolchain = ["--toolchain", f"foss-{generation}"]
    base = [*STACK, *toolchain]
    found = [
        ("cpu", [*base, "--accelerator", "cpu"]),
        ("cuda", [*base, "--accelerator", "cuda"]),
        # single-architecture files take another path in wheelmod (local_wheel_arch), and the
        # sample has no aarch64 CUDA wheel for the older generations
        ("cuda.x86_64", [*base, "--accelerator", "cuda", "--arch", "x86_64"]),
        ("rocm.x86_64", [*base, "--accelerator", "rocm", "--arch", "x86_64"]),
    ]
    for variant in sample_variants_with_torch(sample, "rocm", python) if python else []:
        found.append((f"{variant}.x86_64", [*base, "--accelerator", variant, "--arch", "x86_64"]))
    if generation in ROCM_MODULES_RUNS:
        label, arguments = ROCM_MODULES_RUNS[generation]
        found.append((label, arguments))
    found += [
        ("cpu.relink", [*base, "--accelerator", "cpu", "--with-relink"]),
        ("cuda.relink", [*base, "--accelerator", "cuda", "--with-relink"]),
        ("cuda.keep", [*base, "--accelerator", "cuda", "--metadata", "keep"]),
        ("cuda.site", [*base, "--accelerator", "cuda", "--eb-installpath", sample,
                       "--bundle-missing"]),
    ]
    return [(f"{generation} {label}", arguments) for label, arguments in found]


# ---------------------------------------------------------------------------------------------
# The checks of written files: parse, check-contrib, dry-run (one worker), PR suite (another)


def uses_rocm_modules(path):
    """Whether an easyconfig depends on modules built with the rocm-compilers toolchain."""
    with open(path, encoding="utf-8") as handle:
        return "('rocm-compilers', " in handle.read()


def is_dummy_bundle(path):
    with open(path, encoding="utf-8") as handle:
        return re.search(r"^dummy_package\s*=\s*True", handle.read(), re.M) is not None


# What check_sha256_checksums says of a dummy_package extension (it has a source, no checksum):
# the known artefact, and the only thing a discounted failure may say (after the PR suite's
# assertion header).
DUMMY_CHECKSUM = re.compile(r"^Checksums missing for one or more sources/patches of extension "
                            r"\S+ in \S+: found 1 sources \+ 0 patches vs 0 checksums$")
CHECKSUM_HEADER = re.compile(r"^(AssertionError: )?(False is not true : )?No checksum issues:$")


def only_dummy_checksums(text):
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not CHECKSUM_HEADER.match(line.strip())]
    return bool(lines) and all(DUMMY_CHECKSUM.match(line) for line in lines)


def site_modulepath(r, installpath):
    """Stand-in module files for every installation under `installpath`/software (<Name>/<dir>),
    as a site that installed them with EasyBuild has in its MODULEPATH: what `eb --robot` sees
    there (framework robot_find_subtoolchain_for_dep takes an existing module's subtoolchain when
    the robot path has no easyconfig of it)."""
    path = os.path.join(r.work, "site-modules")
    for root in sorted(glob.glob(os.path.join(installpath, "software", "*", "*"))):
        name, version = root.split(os.sep)[-2:]
        write_module(os.path.join(path, name, version + ".lua"),
                     [f'whatis("stand-in for the site\'s {name}/{version}")',
                      f'setenv("EBROOT{name.upper().replace("-", "MIN")}", "{root}")',
                      f'setenv("EBVERSION{name.upper().replace("-", "MIN")}", "{version.split("-")[0]}")'])
    return path


def check_files(r, items, modulepath=None):
    """items: [{row, command, file, path, robot_dirs}] -> fills parse, check_contrib, dry_run,
    pr_suite. A run that read the site's installations (--eb-installpath DIR) is checked with
    that site's modules in MODULEPATH, as eb runs there."""
    site = [item for item in items if "--eb-installpath" in item["command"]]
    if site and modulepath is None:
        # the one site the generated runs read: the sample's software tree
        check_files(r, site, site_modulepath(r, r.sample))
        items = [item for item in items if item not in site]
        if not items:
            return
    r.extract()
    if any(uses_rocm_modules(item["path"]) for item in items):
        r.say_snapshot_gaps()
    env = r.eb_env(modulepath or r.empty_modulepath())
    groups = {}
    for i, item in enumerate(items):
        robot = ":".join([*item["robot_dirs"], r.robot])
        groups.setdefault(robot, []).append({"id": i, "path": item["path"]})
    want_reference = any(is_dummy_bundle(item["path"]) for item in items) and r.reference is None
    if want_reference:
        groups.setdefault(r.robot, []).append(
            {"id": "reference", "path": os.path.join(r.robot, REFERENCE_WHEEL_BUNDLE)})
    started = time.monotonic()
    answer = r.worker({"kind": "checks", "options": r.eb_options(), "repository": r.robot,
                       "groups": [{"robot": robot, "items": group}
                                  for robot, group in groups.items()]}, env=env)
    r.timed(f"parse, check-contrib, dry-run of {len(items)} files", started)
    if want_reference:
        r.reference = answer["reference"]
    robot_of = {item["id"]: robot for robot, group in groups.items() for item in group}
    for i, item in enumerate(items):
        got = answer[str(i)]

        def cell(column, result, item=item):
            r.table.set(item["row"], item["command"], item["file"], column, result)

        warned = [line for line in essential(got["parse"]["message"], 60).splitlines()
                  if line.startswith("WARNING")]
        if got["parse"]["ok"]:
            cell("parse", outcome("pass", "EasyBuild warned:\n" + "\n".join(warned)
                                  if warned else ""))
        else:
            cell("parse", outcome("fail", essential(got["parse"]["message"])))

        contrib = got["check_contrib"]
        said = "\n".join(contrib["lines"])
        summary = f"style: {contrib.get('style', '?')}, SHA256 checksums: " \
            f"{contrib.get('sha256', '?')}"
        message = f"$ eb --check-contrib {item['path']}\n{summary}\n{essential(said, 40)}"
        if "(pycodestyle) is available" in said:
            message += ("\nhint: --check-contrib needs pycodestyle for Debian's python3: "
                        "apt-get install python3-pycodestyle (scripts/install-deps.sh test)")
        reference = (r.reference or {}).get("check_contrib", {})
        if contrib.get("style") == contrib.get("sha256") == "PASS":
            cell("check_contrib", outcome("pass"))
        elif is_dummy_bundle(item["path"]) and contrib.get("style") == "PASS" \
                and contrib.get("sha256") == "FAIL" and only_dummy_checksums(said) \
                and reference.get("style") == "PASS" and reference.get("sha256") == "FAIL":
            cell("check_contrib", outcome(
                "discounted", "dummy_package bundle: only the SHA256 part fails, as it does "
                f"for the merged {os.path.basename(REFERENCE_WHEEL_BUNDLE)} with these "
                "easyblocks (snapshots' README)\n" + message))
        else:
            cell("check_contrib", outcome("fail", message))

        dry = got["dry_run"]
        if dry["ok"] and item.get("stand_in"):
            cell("dry_run", outcome("discounted", f"{dry['summary']}, {item['stand_in']}"))
        elif dry["ok"]:
            cell("dry_run", outcome("pass", dry["summary"]))
        else:
            cell("dry_run", outcome("fail", f"$ eb --dry-run --robot={robot_of[i]} {item['path']}"
                                    f"\n{essential(dry['message'], 40)}"))
    pr_suite(r, items)


def pr_suite(r, items):
    """easybuild-easyconfigs' test/easyconfigs/easyconfigs.py in pull-request mode: for each
    wheelmod run, a branch off develop adding its files where a contributor would put them."""
    r.git_base()
    branches = {}
    for item in items:
        branches.setdefault(item["row"], []).append(item)
    job_branches = [{"row": row, "files": [{"path": item["path"], "name": ec_name(item["path"])}
                                           for item in group]}
                    for row, group in branches.items()]
    want_reference = any(is_dummy_bundle(item["path"]) for item in items) \
        and "pr" not in (r.reference or {})
    if want_reference:
        # The merged bundle as a pull request touching it (one comment line more) would see it.
        touched = os.path.join(r.work, "reference", os.path.basename(REFERENCE_WHEEL_BUNDLE))
        os.makedirs(os.path.dirname(touched), exist_ok=True)
        with open(os.path.join(r.robot, REFERENCE_WHEEL_BUNDLE)) as source, \
                open(touched, "w") as copy:
            copy.write(source.read() + "# touched by tests/easybuild/real_easybuild.py\n")
        job_branches.append({"row": "reference", "files": [
            {"path": touched, "name": ec_name(touched)}]})
    env = r.eb_env(r.empty_modulepath(), pythonpath_extra=[r.tree])
    env.update({"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "develop"})
    started = time.monotonic()
    answer = r.worker({"kind": "pr", "tree": r.tree, "branches": job_branches}, env=env,
                      cwd=r.tree)
    r.timed(f"PR test suite on {len(items)} files", started)
    if want_reference:
        r.reference = dict(r.reference or {}, pr=answer["branches"][-1]["files"][0])
    reference_failed = set(((r.reference or {}).get("pr") or {}).get("failures", {}))
    for branch, group in zip(answer["branches"], branches.values()):
        for got, item in zip(branch["files"], group):
            failures = got["failures"]
            if not failures:
                r.table.set(item["row"], item["command"], item["file"], "pr_suite",
                            outcome("pass", f"{got['ran']} tests"))
                continue
            message = "\n".join(f"{name}: {text}" for name, text in sorted(failures.items()))
            real = [name for name in failures
                    if not (name == "test_pr_sha256_checksums" and is_dummy_bundle(item["path"])
                            and name in reference_failed
                            and only_dummy_checksums(failures[name]))]
            if not real:
                r.table.set(item["row"], item["command"], item["file"], "pr_suite", outcome(
                    "discounted", "dummy_package bundle: test_pr_sha256_checksums fails for the "
                    f"merged {os.path.basename(REFERENCE_WHEEL_BUNDLE)} too\n" + message))
            elif all(failures[name].startswith("skipped:") for name in real):
                r.table.set(item["row"], item["command"], item["file"], "pr_suite",
                            outcome("skipped", message))
            else:
                r.table.set(item["row"], item["command"], item["file"], "pr_suite",
                            outcome("fail", message))


def check_generated(r, rows):
    """rows: [(label, out dir, files, command)] -> every file of every run checked."""
    items = []
    for label, out, files, command in rows:
        stand_in, why = wheelmod_stand_in(r, label, out)
        for path in files:
            items.append({"row": label, "command": command, "file": os.path.basename(path),
                          "path": path, "robot_dirs": [out] + ([stand_in] if stand_in else []),
                          "stand_in": why})
    if items:
        check_files(r, items)
    return items


# ---------------------------------------------------------------------------------------------
# Cases


def case_generation(r, generation):
    python = r.pythons.get(generation)
    rows = []
    for label, arguments in variants(generation, r.sample, python):
        out, files, command = r.generate(label, arguments)
        if files is None:
            continue
        # wheelmod's own easyconfig, written beside by --with-relink, is the shipped file: the
        # self_easyconfig case checks the copy scripts/dist.sh makes of it (with the tarball's
        # sha256); here it is what the PyTorch file's dry-run resolves its build dependency to.
        checked = []
        for path in files:
            shipped = os.path.join(REPO, "easyconfigs", os.path.basename(path))
            if os.path.basename(path).startswith("wheelmod-") and os.path.isfile(shipped) \
                    and same_bytes(path, shipped):
                name = os.path.basename(path)
                for column in ("parse", "check_contrib", "pr_suite", "dry_run"):
                    r.table.set(label, command, name, column, outcome(
                        "elsewhere", f"identical to easyconfigs/{name}: checked as scripts/dist.sh "
                        "ships it, with the tarball's sha256 (row 'wheelmod (scripts/dist.sh)', "
                        "part self_easyconfig)"))
                continue
            checked.append(path)
        rows.append((label, out, checked, command))
    if not any(files for _, _, files, _ in rows):
        return
    check_generated(r, rows)


def same_bytes(first, second):
    with open(first, "rb") as one, open(second, "rb") as other:
        return one.read() == other.read()


def case_self_easyconfig(r):
    """wheelmod's own easyconfigs as scripts/dist.sh ships them: the work tree's easyconfigs/*.eb
    with the tarball's sha256 for the None the repository's copies must carry."""
    if run(["git", "-C", REPO, "rev-parse", "--git-dir"]).returncode != 0:
        raise Skipped(f"{REPO} is not a git work tree: scripts/dist.sh archives a commit")
    started = time.monotonic()
    clone = os.path.join(r.work, "dist-clone")
    # A shared clone reads the repository's objects and writes none into it; the work tree's
    # easyconfigs and dist.sh are committed there, so the copies are those of this work tree.
    run(["git", "clone", "-q", "--shared", REPO, clone], check=True)
    shutil.rmtree(os.path.join(clone, "easyconfigs"))
    shutil.copytree(os.path.join(REPO, "easyconfigs"), os.path.join(clone, "easyconfigs"))
    shutil.copy2(os.path.join(REPO, "scripts", "dist.sh"),
                 os.path.join(clone, "scripts", "dist.sh"))
    git = ["git", "-C", clone, "-c", "user.name=wheelmod test",
           "-c", "user.email=wheelmod-test@127.0.0.1"]
    run(git + ["add", "-A", "easyconfigs", "scripts/dist.sh"], check=True)
    if run(git + ["diff", "--cached", "--quiet"]).returncode != 0:
        run(git + ["commit", "-q", "--no-verify", "-m", "the work tree's easyconfigs"], check=True)
    out = os.path.join(r.work, "dist")
    made = run(["bash", os.path.join(clone, "scripts", "dist.sh"), out], timeout=300)
    r.timed("scripts/dist.sh", started)
    label = "wheelmod (scripts/dist.sh)"
    command = "scripts/dist.sh (the work tree's easyconfigs/*.eb)"
    if made.returncode != 0:
        for path in sorted(glob.glob(os.path.join(REPO, "easyconfigs", "*.eb"))):
            r.table.set(label, command, os.path.basename(path), "parse", outcome(
                "fail", f"scripts/dist.sh exited {made.returncode}: {made.stderr.strip()}"))
        return
    files = sorted(glob.glob(os.path.join(out, "w", "wheelmod", "*.eb")))
    check_generated(r, [(label, os.path.dirname(files[0]), files, command)] if files else [])


def write_module(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def shared_object_dirs(root):
    """The directories below root an EasyBuild module would put on LD_LIBRARY_PATH: lib, lib64
    and CUDA's extras/CUPTI/lib64 and nvvm/lib64, where they hold shared objects."""
    found = []
    for sub in ("lib", "lib64", "extras/CUPTI/lib64", "nvvm/lib64"):
        path = os.path.join(root, sub)
        if os.path.isdir(path) and glob.glob(os.path.join(path, "*.so*")):
            found.append(path)
    return found


def stub_distribution(site, name, version):
    """Metadata of a distribution a dependency module provides, for pip check (no code)."""
    folder = re.sub(r"[-_.]+", "_", name) + "-" + version + ".dist-info"
    os.makedirs(os.path.join(site, folder), exist_ok=True)
    with open(os.path.join(site, folder, "METADATA"), "w") as handle:
        handle.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    with open(os.path.join(site, folder, "INSTALLER"), "w") as handle:
        handle.write("wheelmod-stand-in\n")
    open(os.path.join(site, folder, "RECORD"), "w").close()


def stand_ins(r, specs, targets, python_exe, python_version, required=()):
    """Lua modules for every module the targets load (their toolchain, dependencies, and what
    those load in turn) that are not themselves targets: EBROOT*/EBVERSION* and the paths the
    real module sets, the Python distributions the real easyconfig installs as metadata-only
    stand-ins, a venv of a real CPython X.Y for Python, the sample's CUDA, cuDNN, NCCL, NVSHMEM and
    cuSPARSELt trees (the libraries the sample's torch wheels need) for those, and for the modules
    in `required`.
    Returns (modulepath, {"sources": [...], "artefacts": [...]})."""
    by_module = {spec["module"]: spec for spec in specs}
    wanted, todo = set(), []
    for spec in specs:
        if spec["path"] in targets:
            todo += spec["deps"] + spec["builddeps"] + ([spec["toolchain"]] if spec["toolchain"]
                                                        else [])
    while todo:
        module = todo.pop()
        if module in wanted or module not in by_module or by_module[module]["path"] in targets:
            continue
        wanted.add(module)
        todo += by_module[module]["deps"]
    modulepath = os.path.join(r.work, "stand-ins", "modules")
    software = os.path.join(r.work, "stand-ins", "software")
    notes = {"sources": [], "artefacts": []}
    no_library_path = []
    for module in sorted(wanted):
        spec = by_module[module]
        own = os.path.join(software, module)  # this test's directory for the module
        for sub in ("bin", "lib", "include"):
            os.makedirs(os.path.join(own, sub), exist_ok=True)
        root = own
        sample_root = os.path.join(r.sample, "software", module)
        if spec["name"] == "Python":
            # a venv: a real CPython X.Y whose site-packages holds only what is put there
            run([python_exe, "-m", "venv", "--clear", "--without-pip", "--system-site-packages",
                 own], check=True)
            notes["sources"].append(f"{module}: a venv of {python_exe}")
        elif os.path.isdir(sample_root):
            root = sample_root
            notes["sources"].append(f"{module}: the sample's {os.path.relpath(root, r.sample)}")
        elif spec["name"] in SAMPLE_TREES or module in required:
            raise Skipped(f"no {module} tree to stand in for it: the sample has no "
                          f"software/{module}")
        if spec["name"] == "wheelmod":
            # the build dependency of --with-relink: the wheelmod under test runs the relink and
            # check of postinstallcmds
            target = os.path.join(own, "bin", "wheelmod")
            if not os.path.lexists(target):
                os.symlink(os.path.abspath(r.wheelmod_binary()), target)
            notes["sources"].append(f"{module}: {r.wheelmod_binary()}")
        if spec["name"] == "FlexiBLAS":
            # EasyBuild's sanity check of anything built with a FlexiBLAS toolchain runs
            # `flexiblas list` (det_flexiblas_backend_libs); the real easyconfig's backends are
            # its dependencies (OpenBLAS, ...).
            listing = "System-wide (config directory):\n" + "".join(
                f" {dep.split('/')[0].upper()}\n   library = "
                f"libflexiblas_{dep.split('/')[0].lower()}.so\n" for dep in spec["deps"])
            write_script(os.path.join(own, "bin", "flexiblas"),
                         "# stand-in: what `flexiblas list` of the real FlexiBLAS lists\n"
                         f"printf '%s' '{listing}'")
        if spec["name"] == "CUDA":
            real = shutil.which("cuobjdump")
            if real:
                os.symlink(real, os.path.join(own, "bin", "cuobjdump"))
                notes["sources"].append(f"{module}: cuobjdump {real}")
            else:
                # EasyBuild's CUDA sanity check of anything depending on CUDA runs cuobjdump on
                # every library; for the sample's libraries (no device code) the real one says so.
                write_script(os.path.join(own, "bin", "cuobjdump"),
                             "# stand-in: the real cuobjdump's answer for a file without device "
                             "code\necho \"cuobjdump info    : File '$1' does not contain device "
                             "code\" >&2\nexit 255")
                notes["artefacts"].append(
                    f"{module}: no cuobjdump here; a stand-in answers 'does not contain device "
                    "code', which is what the real one says of the sample's libraries")
        lines = [f"-- Stand-in for {module} ({os.path.relpath(spec['path'], r.robot)}), written by",
                 "-- tests/easybuild/real_easybuild.py: what EasyBuild reads of a module, not the "
                 "software."]
        lines += [f'depends_on("{dep}")' for dep in spec["deps"]]
        if spec["name"] in STUB_TORCH_TRIGGERS:
            notes["artefacts"].append(f"{module}: no {spec['root_var']} "
                                      f"({STUB_TORCH_TRIGGERS[spec['name']]})")
        else:
            lines.append(f'setenv("{spec["root_var"]}", "{root}")')
        lines.append(f'setenv("{spec["version_var"]}", "{spec["version"]}")')
        for directory in {os.path.join(root, "bin"), os.path.join(own, "bin")}:
            if os.path.isdir(directory):
                lines.append(f'prepend_path("PATH", "{directory}")')
        if spec["name"] in NO_LIBRARY_PATH and root != own:
            no_library_path.append(module)
        else:
            for directory in shared_object_dirs(root):
                lines.append(f'prepend_path("LD_LIBRARY_PATH", "{directory}")')
        if spec["dists"]:
            site = os.path.join(own, "lib", f"python{python_version}", "site-packages")
            base = set()
            if spec["name"] == "Python":
                # what the CPython itself brings (pip) stays the real thing
                listing = run([os.path.join(own, "bin", "python"), "-c",
                               "import importlib.metadata as m; "
                               "print('\\n'.join(d.metadata['Name'].lower() "
                               "for d in m.distributions()))"], check=True)
                base = set(listing.stdout.split())
            for name, version in spec["dists"]:
                if name.lower() not in base:
                    stub_distribution(site, name, version)
            if spec["name"] != "Python":
                lines.append(f'prepend_path("PYTHONPATH", "{site}")')
        write_module(os.path.join(modulepath, module + ".lua"), lines)
    if no_library_path:
        notes["artefacts"].append(
            f"no LD_LIBRARY_PATH in the stand-ins of the sample's {', '.join(no_library_path)}: "
            "their libraries are stubs (the sample's libtinfo.so.6 before the system's stops "
            "bash), and the relinked torch finds them through the RPATH `wheelmod relink` writes")
    return modulepath, notes


def write_script(path, body):
    with open(path, "w") as handle:
        handle.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)


# What the sample's software/ tree holds, and only it can stand in for (the sample's torch wheels
# need those libraries): the CUDA ones, and, where an install takes a ROCm torch's libraries from
# the modules, the providers of the 2025a ROCm table it depends on (relink takes the libraries from
# them; elsewhere, ncurses of another GCCcore under Python, an empty stand-in does).
ROCM_SAMPLE_TREES = ("HIP", "hipBLAS", "hipBLASLt", "hipFFT", "hipRAND", "hipSPARSE",
                     "hipSPARSELt", "RCCL", "rocBLAS", "rocFFT", "rocm-core", "ROCm-LLVM",
                     "rocm-smi", "rocprofiler-register", "rocRAND", "rocSOLVER", "rocSPARSE",
                     "rocTracer", "elfutils", "libdrm", "ncurses", "numactl")
SAMPLE_TREES = ("CUDA", "cuDNN", "NCCL", "NVSHMEM", "cuSPARSELt")
# Stand-in modules of the sample's trees that set no LD_LIBRARY_PATH: the ROCm stack's and
# GCCcore's. Their OS libraries are stubs (the sample's libtinfo.so.6 in front of the system's
# stops /usr/bin/bash: "undefined symbol: UP"), and a relinked torch finds every library of them
# through the RPATH `wheelmod relink` writes, which is what the install checks.
NO_LIBRARY_PATH = (*ROCM_SAMPLE_TREES, "GCCcore")

# The stand-ins for what the pinned snapshots lack (Run.snapshot_gaps), written for this test.
# rocm-compilers as easybuild-framework names it (easybuild/toolchains/rocm_compilers.py: NAME
# 'rocm-compilers', its own compiler module, subtoolchains GCCcore and system), on the pinned
# framework's LLVM compilers toolchain; ROCmComponent with its two easyconfig parameters
# (easybuild-easyblocks generic/rocmcomponent.py) on CMakeMake.
ROCM_COMPILERS_STAND_IN = '''"""Stand-in written by tests/easybuild/real_easybuild.py: the pinned framework has no
rocm-compilers toolchain."""
from easybuild.toolchains.llvm_compilers import LLVMCompilersToolchain


class ROCmCompilersStandIn(LLVMCompilersToolchain):
    """rocm-compilers: ROCm-LLVM on GCCcore, its own compiler module."""
    NAME = 'rocm-compilers'
    COMPILER_MODULE_NAME = [NAME]
'''
ROCM_COMPONENT_STAND_IN = '''"""Stand-in written by tests/easybuild/real_easybuild.py: the pinned easyblocks have no
generic ROCmComponent easyblock."""
from easybuild.easyblocks.generic.cmakemake import CMakeMake
from easybuild.framework.easyconfig import CUSTOM


class ROCmComponent(CMakeMake):
    """ROCmComponent's easyconfig parameters, for parsing and resolving; it builds nothing here."""

    @staticmethod
    def extra_options(extra_vars=None):
        extra_vars = CMakeMake.extra_options(extra_vars)
        extra_vars.update({
            'compiler_toolchain': ['rocm-llvm', "Toolchain to build the package with", CUSTOM],
            'hip_platform': ['amd', "HIP platform", CUSTOM],
        })
        return extra_vars
'''

# wheelmod's own easyconfig where wheelmod said to add it (it ships none for the generation's
# GCCcore): a Bundle of nothing standing for the build dependency, so that eb --robot resolves the
# rest of the file (and, installing, a module that puts the wheelmod under test on PATH).
WHEELMOD_STAND_IN = '''# Stand-in written by tests/easybuild/real_easybuild.py: wheelmod said to add this file
# ({said})
easyblock = 'Bundle'

name = 'wheelmod'
version = '{version}'

homepage = '(stand-in)'
description = """Stand-in for wheelmod's own easyconfig."""

toolchain = {{'name': 'GCCcore', 'version': '{gcccore}'}}

moduleclass = 'tools'
'''
WHEELMOD_TO_ADD = re.compile(r"^to add\s+wheelmod \S+ \(build dependency.*copy one as "
                             r"(wheelmod-([^-\s]+)-GCCcore-([0-9.]+))\.eb")


def wheelmod_stand_in(r, label, out, installing=False):
    """A directory with a stand-in for wheelmod's own easyconfig when the run `label` said to add
    it and wrote none into `out`, or, `installing`, in place of the shipped one it wrote there;
    (None, "") otherwise."""
    # The shipped easyconfig written beside (easyconfigs/wheelmod-*.eb) would build wheelmod from
    # its source tarball, which is self_easyconfig.build's test: here it gives way to the stand-in
    # too, so that the wheelmod under test runs the relink and check of postinstallcmds.
    for shipped in sorted(glob.glob(os.path.join(out, "wheelmod-*-GCCcore-*.eb"))) if installing else ():
        found = re.match(r"(wheelmod-([^-\s]+)-GCCcore-([0-9.]+))\.eb$", os.path.basename(shipped))
        if not found:
            continue
        os.remove(shipped)
        folder = os.path.join(r.work, "wheelmod-stand-in", found.group(3))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, found.group(1) + ".eb"), "w") as handle:
            handle.write(WHEELMOD_STAND_IN.format(said="the shipped " + found.group(1) + ".eb",
                                                  version=found.group(2), gcccore=found.group(3)))
        return folder, (f"with a stand-in for {found.group(1)}.eb (the shipped one builds wheelmod "
                        "from source: self_easyconfig.build)")
    for line in r.table.said.get(label, []):
        found = WHEELMOD_TO_ADD.match(line)
        if not found or os.path.exists(os.path.join(out, found.group(1) + ".eb")):
            continue
        folder = os.path.join(r.work, "wheelmod-stand-in", found.group(3))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, found.group(1) + ".eb"), "w") as handle:
            handle.write(WHEELMOD_STAND_IN.format(said=line[:200], version=found.group(2),
                                                  gcccore=found.group(3)))
        return folder, (f"with a stand-in for {found.group(1)}.eb, which wheelmod said to add "
                        "(it ships no easyconfig of itself for this GCCcore: easyconfigs/)")
    return None, ""

# Dependencies whose root, when set, makes an EasyBuild easyblock run code the sample's wheels do
# not have (they are small stand-ins with the real wheels' layout and metadata, not PyTorch): the
# stand-in module leaves that root unset, and the output says so.
STUB_TORCH_TRIGGERS = {
    "libjpeg-turbo": "EasyBuild's torchvision easyblock would run "
                     "torchvision.io.image.encode_jpeg(torch.zeros(...)), which the sample's "
                     "torch does not have; real wheels pass it",
}

# An EasyBuild hook file (eb --hooks) for the same reason as STUB_TORCH_TRIGGERS: the torchvision
# easyblock's sanity check of a CUDA build runs torchvision.ops.nms on a tensor moved to 'cuda'
# when torch.cuda.device_count() is not 0; the sample's libcudart reports one device (so that the
# tests can tell which library was loaded), and its torch has no tensors. It says when it acts.
STUB_TORCH_HOOKS = '''"""Written by tests/easybuild/real_easybuild.py (STUB_TORCH_HOOKS)."""


def pre_sanitycheck_hook(self, *args, **kwargs):
    for ext in getattr(self, "ext_instances", None) or []:
        if type(ext).__name__ == "EB_torchvision" and getattr(ext, "with_cuda", False):
            ext.with_cuda = False
            print("stand-in hook: EasyBuild's torchvision easyblock: its CUDA sanity command "
                  "(torchvision.ops.nms on torch.tensor(...).to('cuda')) left out: the sample's "
                  "libcudart reports a device, its torch has no tensors; real wheels on a GPU "
                  "node pass it")
'''

TRACE_PIP = re.compile(r"Check on requirements for installed Python packages with 'pip check': "
                       r"(OK|FAIL)")


def case_install(r, part):
    """A real `eb --robot` of the generation's PyTorch-bundle easyconfig (PyTorch first), then the
    module loaded with Lmod and torch imported. For a build whose ROCm libraries come from the
    modules, also where torch loads libamdhip64.so from (the HIP module's) and what relink left
    in torch/lib."""
    generation, row = INSTALLS[part]
    label, arguments = next((label, arguments) for label, arguments
                            in variants(generation, r.sample, r.pythons.get(generation))
                            if label == f"{generation} {row}")
    out, files, command = r.generate(label, arguments)
    if files is None:
        why = next((entry["why"] for entry in r.table.not_generated if entry["row"] == label),
                   "wheelmod failed, above")
        raise Skipped(f"nothing to install: {label} was not generated ({why})")
    r.extract()
    python = r.pythons.get(generation)
    python_exe = cpython(python) if python else None
    names = {os.path.basename(f): f for f in files}
    bundle = next((f for n, f in names.items() if n.startswith("PyTorch-bundle-")), None)
    target = bundle or next((f for n, f in names.items() if n.startswith("PyTorch-")), None)
    if target is None:
        raise Failure(f"{label}: no PyTorch easyconfig among {sorted(names)}")
    installed = [f for f in files if os.path.basename(f).startswith("PyTorch")]
    if python_exe is None:
        raise Skipped(f"no CPython {python} for {label} (python{python} on PATH, or pyenv's "
                      f"versions/{python}.*)")
    started = time.monotonic()
    stand_in, why = wheelmod_stand_in(r, label, out, installing=True)
    robot = ":".join([out] + ([stand_in] if stand_in else []) + [r.robot])
    if stand_in:
        r.table.artefacts.append(f"{label}: installed {why}: a module putting the wheelmod "
                                 "under test on PATH")
    rocm_modules = any(uses_rocm_modules(f) for f in installed)
    if rocm_modules:
        r.say_snapshot_gaps()
    env = r.eb_env(r.empty_modulepath())
    specs = r.worker({"kind": "closure", "options": r.eb_options(), "paths": [target],
                      "robot": robot}, env=env)["specs"]
    targets = {spec["path"] for spec in specs if os.path.dirname(spec["path"]) == out}
    # the ROCm modules the PyTorch easyconfig depends on: the sample's trees, or nothing to test
    required = {dep for spec in specs if spec["path"] in targets for dep in spec["deps"]
                if dep.split("/")[0] in ROCM_SAMPLE_TREES} if rocm_modules else set()
    modulepath, notes = stand_ins(r, specs, targets, python_exe, python, required)
    r.timed(f"stand-in modules for {label}", started)
    started = time.monotonic()
    env = r.eb_env(modulepath)
    hooks = os.path.join(r.work, "stand-ins", "hooks.py")
    with open(hooks, "w") as handle:
        handle.write(STUB_TORCH_HOOKS)
    result, _ = r.eb_cli(["--robot=" + robot, "--trace", f"--hooks={hooks}", target], env=env,
                         timeout=800)
    r.timed(f"eb --robot {os.path.basename(target)}", started)
    output = result.stdout + result.stderr
    # --trace output, one section per easyconfig built: "== building and installing MODULE..."
    sections = re.split(r"^== building and installing (\S+)\.\.\.$", output, flags=re.M)
    by_module = dict(zip(sections[1::2], sections[2::2]))
    module_of = {spec["path"]: spec["module"] for spec in specs}
    summary = {module: state for state, module
               in re.findall(r"^\s+\* \[(\w+)\]\s+(\S+)$", ANSI.sub("", output), re.M)}
    install_root = os.path.join(r.work, "eb", "install")
    print("stand-ins: " + "; ".join(notes["sources"]))
    for note in notes["artefacts"]:
        r.table.artefacts.append(f"{label}: {note}")
    for said in sorted(set(re.findall(r"^stand-in hook: (.*)$", output, re.M))):
        r.table.artefacts.append(f"{label}: {said}")
    for path in installed:
        name = os.path.basename(path)
        module = module_of.get(path)
        text = by_module.get(module, "")
        pip = TRACE_PIP.search(text)
        if pip:
            r.table.set(label, command, name, "pip_check", outcome(
                "pass" if pip.group(1) == "OK" else "fail",
                "EasyBuild's sanity check: " + pip.group(0)
                + ("" if pip.group(1) == "OK" else "\n" + pip_failure(text))))
        else:
            r.table.set(label, command, name, "pip_check", outcome(
                "not_reached", "EasyBuild stopped before the sanity check"))
        if summary.get(module) == "SKIPPED":
            r.table.set(label, command, name, "install", outcome(
                "not_reached", "eb skipped it: an easyconfig it depends on failed (above)"))
            continue
        if "== COMPLETED: Installation ended successfully" not in text:
            why = essential(text[text.find("== FAILED"):] if "== FAILED" in text else "", 15) \
                or essential(output[-6000:], 30)
            r.table.set(label, command, name, "install", outcome(
                "fail", f"$ eb --robot ... --trace {os.path.basename(target)}\n{why}"))
            continue
        # The module as a user gets it: Lmod loads it (and the stand-ins it depends on), and the
        # torch packages of the file import (EasyBuild's sanity check ran in its own environment).
        with open(path, encoding="utf-8") as handle:
            packages = sorted({"torch"} | {found.replace("-", "_") for found in re.findall(
                r"^\s+\('(torch[a-z]*)', '", handle.read(), re.M)})
        code = (f"import sys, {', '.join(packages)}; print(sys.version.split()[0], "
                + ", ".join(f"{p}.__version__" for p in packages)
                + ", torch.version.cuda, torch.version.hip)")
        if rocm_modules:
            # which libamdhip64 the process mapped: the HIP module's, once relink removed the
            # wheel's copy
            code += ("; print('libamdhip64:', *sorted({l.split()[-1] for l in open('/proc/self/maps')"
                     " if 'libamdhip64' in l}))")
        load = run(["bash", "-c", 'source "$1"; module use "$2"; module use "$3"; '
                    'module load "$4" || exit 9; python -c "$5"', "load",
                    os.path.join(os.path.dirname(os.path.dirname(r.lmod()["LMOD_CMD"])), "init",
                                 "bash"),
                    modulepath, os.path.join(install_root, "modules", "all"), module, code],
                   env=r.eb_env(modulepath), timeout=120)
        wrong = rocm_install_problems(r, path, module, load.stdout, specs) if rocm_modules \
            and load.returncode == 0 else ""
        if load.returncode != 0:
            r.table.set(label, command, name, "install", outcome(
                "fail", f"installed, but `module load {module}; python -c '{code}'` "
                f"exited {load.returncode}:\n{essential(load.stdout + load.stderr, 15)}"))
        elif wrong:
            r.table.set(label, command, name, "install", outcome(
                "fail", f"installed, module load and import work, but {wrong}"))
        else:
            r.table.set(label, command, name, "install", outcome(
                "pass", f"eb installed {module}; module load, import {', '.join(packages)}: "
                + " | ".join(line.strip() for line in load.stdout.splitlines() if line.strip())))
    r.table.notes.append(f"{label}: eb installed against stand-in modules "
                         f"({'; '.join(notes['sources'])}) in {r.timings[-1][1]:.0f} s")


def rocm_install_problems(r, path, module, said, specs):
    """For a PyTorch installation whose ROCm libraries come from the modules: what is wrong with
    it ("" when nothing): torch/lib must no longer hold the copies of what a dependency module
    provides (libamdhip64.so), must keep those no module provides (libMIOpen.so), and the process
    must have mapped libamdhip64.so from the HIP module's tree."""
    if not os.path.basename(path).startswith("PyTorch-2"):
        return ""
    install = os.path.join(r.work, "eb", "install", "software", *module.split("/"))
    lib = glob.glob(os.path.join(install, "lib", "python*", "site-packages", "torch", "lib"))
    if not lib:
        return f"no torch/lib under {install}"
    present = set(os.listdir(lib[0]))
    problems = []
    if "libamdhip64.so" in present:
        problems.append("torch/lib still holds libamdhip64.so (relink --rocm-libraries modules "
                        "removes it)")
    if "libMIOpen.so" not in present:
        problems.append("torch/lib lost libMIOpen.so, which no module provides")
    hip = next((spec for spec in specs if spec["name"] == "HIP"), None)
    mapped = re.search(r"^libamdhip64: (.*)$", said, re.M)
    root = os.path.join(r.sample, "software", *hip["module"].split("/")) if hip else None
    if not mapped or not root or not all(p.startswith(root + os.sep) for p in mapped.group(1).split()):
        problems.append(f"libamdhip64.so was mapped from {mapped.group(1) if mapped else 'nowhere'}"
                        f", not from the HIP module ({root})")
    return "; ".join(problems)


def pip_failure(text):
    """What `pip check` said, from EasyBuild's failure message."""
    found = re.search(r"`[^`]*pip check` failed:\n(.*?)(?:\n\s*\(took |\n==|\n\n|\Z)", text,
                      re.S)
    return found.group(1).strip()[:2000] if found else ""


# ---------------------------------------------------------------------------------------------
# The worker: runs with EasyBuild on PYTHONPATH (never imported by the driver itself)


def worker_main(job_path):
    with open(job_path) as handle:
        job = json.load(handle)
    answer = {"checks": worker_checks, "pr": worker_pr, "closure": worker_closure}[job["kind"]](job)
    with open(job["result"], "w") as handle:
        json.dump(answer, handle)
    return 0


def _forked(function):
    """function() in a child forked from this worker, whose only state is EasyBuild's modules
    imported: each eb call starts as a fresh `eb` process would (easybuild.main.main keeps its
    configuration and caches in module globals, and one call changes what the next finds: a
    --check-contrib made a following --dry-run skip every dependency), without the second of
    Python start-up and imports per call. Returns (exit code, output, the child's answer)."""
    import traceback
    from easybuild.tools.build_log import EasyBuildError

    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.NamedTemporaryFile("w+", prefix="eb-call-", suffix=".out") as output, \
            tempfile.NamedTemporaryFile("w+", prefix="eb-call-", suffix=".json") as answer:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.dup2(output.fileno(), 1)
                os.dup2(output.fileno(), 2)
                result = function()
                with open(answer.name, "w") as handle:
                    json.dump(result, handle)
                code = 0 if result.get("code", 0) in (None, 0) else 1
            except EasyBuildError as error:
                print(f"ERROR: {error.msg}")
                code = 1
            except SystemExit as error:
                code = error.code if isinstance(error.code, int) else 1
            except BaseException:  # noqa: BLE001 - EasyBuild crashing is a finding
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read()
        answer.seek(0)
        content = answer.read()
        return code, text, json.loads(content) if content else None


def contrib_verdicts(text):
    """--check-contrib's output for several files -> {path: {"style": PASS|FAIL, "sha256":
    PASS|FAIL, "lines": [what it said of the file]}}."""
    verdicts, section, current = {}, None, None
    for line in ANSI.sub("", text).splitlines():
        if line.startswith("Running style check"):
            section, current = "style", None
            continue
        if line.startswith("Checking for SHA256 checksums"):
            section, current = "sha256", None
            continue
        verdict = re.match(r"^\[(PASS|FAIL)\] (\S+)$", line)
        if verdict and section:
            entry = verdicts.setdefault(verdict.group(2), {"lines": []})
            entry[section] = verdict.group(1)
            current = verdict.group(2) if section == "sha256" else None
            continue
        style = re.match(r"^(\S+\.eb):\d+:\d+: ", line)
        if section == "style" and style:
            verdicts.setdefault(style.group(1), {"lines": []})["lines"].append(line)
        elif section == "sha256" and current and line.strip() and not EB_NOISE.match(line) \
                and not re.match(r"(>>|==|ERROR: One or more)", line):
            verdicts[current]["lines"].append(line)
    return verdicts


def worker_checks(job):
    """The parse of every file, one `eb --check-contrib` of them all, and per group (one wheelmod
    run, its own robot path) one `eb --dry-run --robot` of its files; a call that does not answer
    for every file is made again file by file, so each failure is the file's own."""
    import contextlib
    import io
    from easybuild.framework.easyconfig.tools import process_easyconfig
    from easybuild.main import main as eb_main
    from easybuild.tools.options import set_up_configuration

    options = job["options"]
    robot_paths = f"--robot-paths={job['repository']}"

    def parse_all(paths):
        def run_it():
            set_up_configuration(args=[*options, robot_paths], silent=True)
            parsed = {}
            for path in paths:
                said = io.StringIO()
                with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                    try:
                        process_easyconfig(path)
                        ok, message = True, ""
                    except Exception as error:  # noqa: BLE001 - any parse error is the finding
                        ok, message = False, getattr(error, "msg", None) or repr(error)
                parsed[path] = {"ok": ok, "message": (message + "\n" + said.getvalue()).strip()}
            return parsed
        return run_it

    def eb(arguments):
        return lambda: {"code": eb_main(args=[*options, *arguments])}

    # One parse and one --check-contrib for every file: the robot path does not change either.
    every = [item["path"] for group in job["groups"] for item in group["items"]]
    _, _, parsed = _forked(parse_all(every))
    parsed = parsed or {}
    contrib = {}
    code, text, _ = _forked(eb(["--check-contrib", robot_paths, *every]))
    verdicts = contrib_verdicts(text)
    for path in every:
        verdict = verdicts.get(path, {})
        if "style" not in verdict or "sha256" not in verdict:
            # eb stopped before judging this file (one that does not parse stops it for all)
            code, text, _ = _forked(eb(["--check-contrib", robot_paths, path]))
            verdict = contrib_verdicts(text).get(path, {"lines": []})
            if "style" not in verdict or "sha256" not in verdict:
                verdict["lines"] = [text]
        contrib[path] = verdict
    answer = {}
    for group in job["groups"]:
        paths = [item["path"] for item in group["items"]]
        robot = f"--robot={group['robot']}"
        code, text, _ = _forked(eb(["--dry-run", robot, *paths]))
        listed = re.findall(r"^ \* \[(.)\] (\S+)", text, re.M)
        dry = {}
        if code == 0 and all(any(p == path for _, p in listed) for path in paths):
            own = sum(1 for _, p in listed if p.startswith(group["robot"].split(":")[0] + os.sep))
            for path in paths:
                dry[path] = {"ok": True, "message": "", "summary": (
                    f"{len(listed)} easyconfigs resolve ({own} from the directory wheelmod wrote, "
                    f"the rest from the repository; eb --dry-run of the {len(paths)} files)")}
        else:
            for path in paths:
                code, text, _ = _forked(eb(["--dry-run", robot, path]))
                listed = re.findall(r"^ \* \[(.)\] (\S+)", text, re.M)
                ok = code == 0 and any(p == path for _, p in listed)
                dry[path] = {"ok": ok, "message": text if not ok else "",
                             "summary": f"{len(listed)} easyconfigs resolve"}
        for item in group["items"]:
            path = item["path"]
            answer[str(item["id"])] = {
                "parse": parsed.get(path, {"ok": False, "message": "the parse child crashed"}),
                "check_contrib": contrib[path], "dry_run": dry[path]}
    return answer


def worker_pr(job):
    import unittest

    tree = job["tree"]
    os.chdir(tree)
    sys.argv = [sys.argv[0]]
    import test.easyconfigs.easyconfigs as suite_module
    from easybuild.framework.easyconfig import easyconfig as ec_module
    from easybuild.framework.easyconfig.tools import process_easyconfig

    cls = suite_module.EasyConfigTest
    cls.setUpClass()
    pr_methods = sorted(name for name in dir(cls)
                        if name.startswith("test_pr_") or name == "test_ec_file_permissions")
    git = ["git", "-c", "user.name=wheelmod test", "-c", "user.email=wheelmod-test@127.0.0.1",
           "-c", "gc.auto=0"]

    def reset():
        cls._changed_ecs = None
        cls._changed_patches = None
        cls._parsed_easyconfigs = []
        cls._parsed_all_easyconfigs = False
        cls._ordered_specs = None
        ec_module._easyconfigs_cache.clear()
        ec_module._easyconfig_files_cache.clear()

    def run_test(name):
        """None when the test passed, else what it said: the exception at the end of the
        traceback, whole."""
        result = unittest.TestResult()
        cls(name).run(result)
        for _, text in result.failures + result.errors:
            lines = text.strip().splitlines()
            starts = [i for i, line in enumerate(lines)
                      if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Failure)\b", line)]
            return "\n".join(lines[starts[-1]:] if starts else lines[-12:])
        for _, reason in result.skipped:
            return f"skipped: {reason}"
        return None

    def on_branch(branch, files):
        subprocess.run(git + ["checkout", "-q", "-f", "-B", branch, "develop"], check=True)
        placed = []
        for entry in files:
            folder = os.path.join("easybuild", "easyconfigs", letter_dir(entry["name"]),
                                  entry["name"])
            os.makedirs(folder, exist_ok=True)
            target = os.path.join(tree, folder, os.path.basename(entry["path"]))
            shutil.copy2(entry["path"], target)  # the mode wheelmod wrote is one of the checks
            placed.append(target)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-q", "--no-verify", "-m", branch], check=True)
        reset()
        # The suite's own view of the branch (git diff against the merge base with develop).
        unparsed = {}
        try:
            changed = list(cls(pr_methods[0]).changed_ecs)
            added = list(cls._added_ecs_filenames)
            modified = list(cls._changed_ecs_filenames)
        except Exception:  # noqa: BLE001 - one file that does not parse stops the suite's listing
            # ... so each file on its own, as the suite's listing processes them
            added = [os.path.basename(f) for f in suite_module.get_eb_files_from_diff("A")]
            modified = [os.path.basename(f) for f in suite_module.get_eb_files_from_diff("M")]
            changed = []
            for target in placed:
                try:
                    changed.append(process_easyconfig(target)[0]["ec"])
                except Exception as error:  # noqa: BLE001 - reported as the file's failure
                    unparsed[target] = getattr(error, "msg", None) or repr(error)
        suite_module.suite(unittest.TestLoader())  # defines test__parse_easyconfig_<file>
        results = []
        for target in placed:
            base = os.path.basename(target)
            failures = {}
            ec = next((e for e in changed if os.path.realpath(e.path) == os.path.realpath(target)),
                      None)
            if target in unparsed:
                failures["the suite's process_easyconfig"] = unparsed[target]
            elif ec is None:
                failures["git diff"] = ("the suite's git diff against develop does not list "
                                        f"{base} (added: {added}, modified: {modified})")
            if ec is None:
                results.append({"failures": failures, "ran": 0})
                continue
            ran = 0
            for name in pr_methods:
                cls._changed_ecs = [ec]
                cls._added_ecs_filenames = [base] if base in added else []
                cls._changed_ecs_filenames = [base] if base in modified else []
                cls._changed_patches = []
                message = run_test(name)
                ran += 1
                if message:
                    failures[name] = message
            cls._parsed_easyconfigs = []
            parse_test = "test__parse_easyconfig_" + base
            if hasattr(cls, parse_test):
                message = run_test(parse_test)
                ran += 1
                if message:
                    failures[parse_test] = message
            else:
                failures[parse_test] = "the suite did not define it (file not found in the tree?)"
            results.append({"failures": failures, "ran": ran})
        return results

    answer = {"branches": []}
    for number, branch in enumerate(job["branches"]):
        results = on_branch(f"wheelmod-{number}", branch["files"])
        answer["branches"].append({"row": branch["row"], "files": results})
    subprocess.run(git + ["checkout", "-q", "-f", "develop"], check=True)
    return answer


def worker_closure(job):
    from easybuild.framework.easyconfig.easyconfig import get_easyblock_class
    from easybuild.framework.easyconfig.tools import process_easyconfig
    from easybuild.tools.modules import (get_software_root_env_var_name,
                                         get_software_version_env_var_name, modules_tool)
    from easybuild.tools.options import set_up_configuration
    from easybuild.tools.robot import resolve_dependencies
    from easybuild.easyblocks.generic.pythonbundle import PythonBundle
    from easybuild.easyblocks.generic.pythonpackage import PythonPackage

    set_up_configuration(args=[*job["options"], f"--robot={job['robot']}"], silent=True)
    parsed = []
    for path in job["paths"]:
        parsed += process_easyconfig(path)
    ordered = resolve_dependencies(parsed, modules_tool(), retain_all_deps=True)
    specs = []
    for spec in ordered:
        ec = spec["ec"]
        try:
            block = get_easyblock_class(ec["easyblock"], name=ec["name"])
        except Exception:  # noqa: BLE001 - an unknown easyblock just provides no Python package
            block = None
        dists = []
        python_like = ec["name"] == "Python" or (
            block is not None and issubclass(block, (PythonPackage, PythonBundle)))
        if python_like:
            if block is not None and issubclass(block, PythonPackage) \
                    and not issubclass(block, PythonBundle) and ec["name"] != "Python":
                dists.append((ec["name"], ec["version"]))
            try:
                exts_list = ec["exts_list"]
            except Exception:  # noqa: BLE001 - a template the pinned framework lacks
                # (Z3-4.13.4-GCCcore-14.2.0's %(parallel)s, a build dependency of ROCm-LLVM
                # far below what an install loads): its extensions are nobody's stand-ins
                exts_list = []
            for ext in exts_list:
                if isinstance(ext, (list, tuple)) and len(ext) >= 2:
                    dists.append((ext[0], str(ext[1])))
        toolchain = ec.toolchain
        specs.append({
            "module": spec["full_mod_name"], "name": ec["name"], "version": ec["version"],
            "path": spec["spec"],
            "deps": [d["full_mod_name"] for d in ec["dependencies"]
                     if not d.get("external_module")],
            "builddeps": [d["full_mod_name"] for d in ec.builddependencies()
                          if not d.get("external_module")],
            "toolchain": None if toolchain.is_system_toolchain() else toolchain.mod_full_name,
            "dists": dists,
            "root_var": get_software_root_env_var_name(ec["name"]),
            "version_var": get_software_version_env_var_name(ec["name"]),
        })
    return {"specs": specs}


# ---------------------------------------------------------------------------------------------


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        return worker_main(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true",
                        help="print the CTest cases, one a line (tests/easybuild/CMakeLists.txt)")
    parser.add_argument("--wheelmod")
    parser.add_argument("--sample", help="the sample index (build/dev/index-mirrors/sample)")
    parser.add_argument("--lmod", help="Lmod's lmod command (its init/bash is beside it)")
    parser.add_argument("--table", help="also write the results table as JSON to this file")
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help="what to run (default: everything): a CTest case (" + ", ".join(CASES)
                        + ") or a part of one (" + ", ".join(parts()) + ")")
    args = parser.parse_args()
    unknown = [name for name in args.cases if name not in CASES and name not in parts()]
    if unknown:
        parser.error(f"unknown case {', '.join(unknown)} (cases: {', '.join(CASES)}; "
                     f"parts: {', '.join(parts())})")
    if args.list:
        if sorted(part for case in CASES.values() for part in case) != sorted(parts()):
            print("error: CASES must run every part once", file=sys.stderr)
            return 2
        for name in CASES:
            print(f"{name} options=--lmod timeout={case_timeout(name)}")
        return 0
    if not args.wheelmod or not args.sample:
        parser.error("--wheelmod and --sample are required")
    try:
        r = Run(args)
    except Skipped as why:
        print(f"skipped: {why}")
        return SKIP_EXIT
    try:
        return run_cases(r, args)
    except Failure as failure:
        print(f"FAIL: the test itself could not proceed: {failure}")
        return 1
    finally:
        started = time.monotonic()
        r.close()
        print(f"removed the work directory in {time.monotonic() - started:.1f} s")


def run_cases(r, args):
    started = time.monotonic()
    skipped = []
    chosen = [part for name in args.cases or CASES for part in CASES.get(name, [name])]
    for name in dict.fromkeys(chosen):
        print(f"== {name}", flush=True)
        case_started = time.monotonic()
        try:
            if name.startswith("g") and name[1:].replace("_", ".") in GENERATIONS:
                case_generation(r, name[1:].replace("_", "."))
            elif name == "self_easyconfig":
                case_self_easyconfig(r)
            else:
                case_install(r, name)
        except Skipped as why:
            skipped.append(f"{name}: {why}")
            print(f"skipped: {name}: {why}")
        r.timed(f"part {name}", case_started)
    r.table.print()
    total = time.monotonic() - started
    print("\ntimings:")
    for what, seconds in r.timings:
        print(f"  {seconds:7.1f} s  {what}")
    print(f"  {total:7.1f} s  in all")
    if args.table:
        meta = {"easybuild": {part: os.path.basename(path) for part, path in r.tarballs.items()},
                "cases": args.cases or list(CASES), "seconds": round(total, 1),
                "skipped": skipped}
        with open(args.table, "w") as handle:
            json.dump(r.table.as_json(meta), handle, indent=1)
            handle.write("\n")
    failed = r.table.failed()
    if failed:
        print(f"FAIL: {len(failed)} checks failed or could not run (above)")
        return 1
    if not r.table.checked_anything():
        print("skipped: nothing was checked: " + ("; ".join(skipped) or
                                                  "wheelmod wrote no easyconfig"))
        return SKIP_EXIT
    discounted = any(result["status"] == "discounted" for row in r.table.rows.values()
                     for result in row["results"].values()) or r.table.artefacts
    print("ok: every check of every written file passed"
          + (" (known artefacts discounted, above)" if discounted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
