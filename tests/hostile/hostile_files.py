#!/usr/bin/env python3
"""Links planted under the names wheelmod creates in directories others can write.

    hostile_files.py --wheelmod BIN --sample SAMPLE GROUP

Groups:
  own_paths  two wheels of one install shipping one file; a wheel shipping
           easybuild/wheelmod-install.json through .data/data: exit 5, no prefix
  options  --wheel naming a FIFO, a directory, a device; --stall-timeout 0, --jobs 0 and 65,
           --retries 101, --threads 0: exit 2 before anything is opened
  deep_json  a resolve report, a provenance file and a mirror manifest nested 80,000 deep:
           refused before any parser walks them (exit 2 / 4), no crash, memory flat
  replace  `install --force` on a directory of the user's files (`--prefix .`, `sub/..`):
           refused, nothing touched; three installs of one prefix at once: one installs,
           the others are told it exists (the check is made under the prefix lock)
  planted  a symbolic link, a hard link and a FIFO put where wheelmod makes its lock files
           (fetch's DEST/.wheelmod-fetch.lock, install's PARENT/.NAME.wheelmod.lock, mirror's
           DEST/.wheelmod-mirror.lock) and its download's .part: wheelmod refuses (exit 4,
           naming the file), never writes through the link (the canary it points to keeps its
           bytes), never blocks on the FIFO, and leaves no result behind.
"""
import os
import re
import shutil
import sys
import tempfile

from hostile_support import Suite, check, check_error, main_with_groups

CANARY = b"canary: a file wheelmod must never write\n" * 4
WHEEL = "torch-2.6.0+cpu-cp312-cp312-linux_x86_64.whl"


class Work:
    def __init__(self, suite, sample):
        self.suite = suite
        self.sample = sample
        self.root = tempfile.mkdtemp(prefix="wheelmod-planted-")
        self.canary = os.path.join(self.root, "canary")

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def fresh(self, name):
        """An empty directory for one case and a new canary."""
        directory = os.path.join(self.root, name)
        os.makedirs(directory)
        with open(self.canary, "wb") as handle:
            handle.write(CANARY)
        return directory

    def plant(self, path, kind):
        if kind == "symlink":
            os.symlink(self.canary, path)
        elif kind == "hardlink":
            os.link(self.canary, path)
        else:
            os.mkfifo(path)

    def check_canary(self):
        with open(self.canary, "rb") as handle:
            check(handle.read() == CANARY, "the file the planted link points to was written")

    def selection(self):
        return ["--toolchain", "foss-2024a", "--accelerator", "cpu", "--python", "3.12",
                "--arch", "x86_64", "--glibc", "2.28", "--index",
                "file://" + os.path.join(self.sample, "whl")]

    def fetch(self, dest):
        return self.suite.wheelmod_run("fetch", "torch==2.6.0", "--no-deps", *self.selection(),
                                       "--dest", dest, "--cache-dir",
                                       os.path.join(self.root, "cache-" + os.path.basename(dest)),
                                       timeout=60)


def planted(args):
    suite = Suite(args.wheelmod, "links planted under wheelmod's own file names",
                  "wheelmod fetch/install/mirror with DEST or PARENT writable by others")
    work = Work(suite, args.sample)

    def fetch_lock(kind):
        dest = work.fresh(f"fetch-lock-{kind}")
        work.plant(os.path.join(dest, ".wheelmod-fetch.lock"), kind)
        result = work.fetch(dest)
        check_error(result, 4, r"\.wheelmod-fetch\.lock")
        work.check_canary()
        check(not os.path.exists(os.path.join(dest, WHEEL)), "fetched through the planted lock")
        return f"exit 4: {result.stderr.splitlines()[0][-80:]}"

    def part_file(kind):
        """A file:// copy replaces whatever is under the .part name (removing a link, never
        writing through it); a resumable HTTP .part is reused only when it is a regular file
        with one link (own_file.hpp), else exit 4."""
        dest = work.fresh(f"part-{kind}")
        work.plant(os.path.join(dest, WHEEL + ".part"), kind)
        result = work.fetch(dest)
        work.check_canary()
        wheel = os.path.join(dest, WHEEL)
        if result.returncode == 4:
            check_error(result, 4, r"\.part")
            check(not os.path.exists(wheel), "a wheel published from the .part")
            return f"exit 4: {result.stderr.splitlines()[0][-80:]}"
        check(result.returncode == 0, result.describe())
        check(os.path.isfile(wheel) and not os.path.islink(wheel)
              and not os.path.samefile(wheel, work.canary), "the fetched wheel is the planted link")
        return "exit 0: the planted entry replaced, not written through"

    def prefix_lock(kind):
        parent = work.fresh(f"prefix-lock-{kind}")
        wheel_dir = work.fresh(f"prefix-lock-{kind}-wheel")
        check(work.fetch(wheel_dir).returncode == 0, "the wheel for the install case")
        work.plant(os.path.join(parent, ".torch.wheelmod.lock"), kind)
        result = suite.wheelmod_run("install", "--wheel", os.path.join(wheel_dir, WHEEL),
                                    "--toolchain", "foss-2024a", "--python", "3.12",
                                    "--no-compile", "--prefix", os.path.join(parent, "torch"),
                                    timeout=120)
        check_error(result, 4, r"\.torch\.wheelmod\.lock")
        work.check_canary()
        check(not os.path.exists(os.path.join(parent, "torch")), "installed through the lock")
        return f"exit 4: {result.stderr.splitlines()[0][-80:]}"

    def mirror_lock(kind):
        dest = work.fresh(f"mirror-lock-{kind}")
        work.plant(os.path.join(dest, ".wheelmod-mirror.lock"), kind)
        spec = os.path.join(work.root, f"spec-{kind}.yaml")
        with open(spec, "w") as handle:
            handle.write(f"index: file://{os.path.join(work.sample, 'whl')}\nvariants: [cpu]\n"
                         "packages:\n  torch: '==2.6.0'\npython: ['3.12']\narches: [x86_64]\n"
                         "glibc: '2.28'\ndependencies: false\n")
        result = suite.wheelmod_run("mirror", spec, "--dest", dest, timeout=120)
        check_error(result, 4, r"\.wheelmod-mirror\.lock")
        work.check_canary()
        check(not os.path.exists(os.path.join(dest, "wheelmod-mirror.json")),
              "mirrored through the planted lock")
        return f"exit 4: {result.stderr.splitlines()[0][-80:]}"

    def download_area():
        # install's download directory, beside the prefix, planted as a link to another
        # directory: the wheels would be written there.
        parent = work.fresh("download-area")
        elsewhere = work.fresh("download-area-elsewhere")
        os.symlink(elsewhere, os.path.join(parent, ".torch.wheelmod-downloads"))
        result = suite.wheelmod_run("install", "torch==2.6.0", *work.selection(), "--no-compile",
                                    "--cache-dir", os.path.join(work.root, "cache-area"),
                                    "--prefix", os.path.join(parent, "torch"), timeout=120)
        check_error(result, 4, r"\.torch\.wheelmod-downloads", r"symbolic link")
        check(os.listdir(elsewhere) == [], f"written through the link: {os.listdir(elsewhere)}")
        check(not os.path.exists(os.path.join(parent, "torch")), "installed anyway")
        return f"exit 4: {result.stderr.splitlines()[0][-80:]}"

    cases = [("install download directory: symlink", download_area)]
    for kind in ("symlink", "hardlink", "fifo"):
        cases += [(f"fetch lock: {kind}", lambda k=kind: fetch_lock(k)),
                  (f"download .part: {kind}", lambda k=kind: part_file(k)),
                  (f"prefix lock: {kind}", lambda k=kind: prefix_lock(k)),
                  (f"mirror lock: {kind}", lambda k=kind: mirror_lock(k))]
    return suite.run_all(cases, work, "exit 4 naming the planted file; the file it points to "
                                      "unchanged; no wheel, prefix or manifest written")


def replace(args):
    suite = Suite(args.wheelmod, "installations replaced without being asked",
                  "wheelmod install --wheel W --prefix P [--force]")
    work = Work(suite, args.sample)
    wheels = work.fresh("wheels")
    check(work.fetch(wheels).returncode == 0, "the wheel for the install cases")
    wheel = os.path.join(wheels, WHEEL)

    def install(prefix, *extra, cwd=None):
        return suite.wheelmod_run("install", "--wheel", wheel, "--toolchain", "foss-2024a",
                                  "--python", "3.12", "--no-compile", "--prefix", prefix, *extra,
                                  timeout=120, cwd=cwd)

    def force_on_other_files(spelling):
        directory = work.fresh(f"user-files-{spelling.replace('/', '_').replace('.', 'dot')}")
        for name in ("thesis.tex", "data.csv"):
            with open(os.path.join(directory, name), "w") as handle:
                handle.write("the user's own work\n")
        os.makedirs(os.path.join(directory, "sub"))
        result = install(spelling, "--force", cwd=directory)
        check_error(result, 2, r"not an installation", r"thesis\.tex|data\.csv")
        check(sorted(os.listdir(directory)) == ["data.csv", "sub", "thesis.tex"],
              f"the directory changed: {sorted(os.listdir(directory))}")
        return f"exit 2: {result.stderr.splitlines()[0][-90:]}"

    def force_on_an_installation():
        parent = work.fresh("reinstall")
        prefix = os.path.join(parent, "torch")
        check(install(prefix).returncode == 0, "first install")
        result = install(prefix, "--force")
        check(result.returncode == 0, result.describe())
        return "exit 0: an installation (its provenance) is replaced with --force"

    def two_at_once():
        import subprocess
        parent = work.fresh("concurrent")
        prefix = os.path.join(parent, "torch")
        command = [args.wheelmod, "-q", "install", "--wheel", wheel, "--toolchain", "foss-2024a",
                   "--python", "3.12", "--no-compile", "--prefix", prefix]
        runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(3)]
        outcomes = [(run.wait(timeout=120), run.stderr.read()) for run in runs]
        codes = sorted(code for code, _ in outcomes)
        check(codes == [0, 2, 2], f"exit codes {codes}: {outcomes}")
        check(all("already exists" in err for code, err in outcomes if code == 2), outcomes)
        return "one run installs, the others exit 2 \"already exists\" (decided under the lock)"

    cases = [(f"--force --prefix {spelling} on a directory of other files",
              lambda s=spelling: force_on_other_files(s)) for spelling in (".", "sub/..", "./")]
    cases += [("--force on an installation", force_on_an_installation),
              ("three installs of one prefix at once", two_at_once)]
    return suite.run_all(cases, work, "--force refuses a directory that is no installation (exit "
                                      "2, naming what is in it); concurrent installs: one wins, "
                                      "the others exit 2")


def deep_json(args):
    suite = Suite(args.wheelmod, "JSON nested deeper than any file wheelmod reads",
                  "wheelmod fetch --from-report / module / mirror on 80,000-deep JSON")
    work = Work(suite, args.sample)
    deep = "[" * 80_000 + "]" * 80_000

    def report(where):
        directory = work.fresh(f"report-{where}")
        path = os.path.join(directory, "report.json")
        with open(path, "w") as handle:
            handle.write('{"schema_version": 1, "wheels": [{"filename": ' + deep + '}]}'
                         if where == "filename" else deep)
        result = suite.wheelmod_run("fetch", "--from-report", path, "--dest",
                                    os.path.join(directory, "dest"), rss_budget_mib=64)
        check_error(result, 2, r"nested deeper than 64 levels")
        check(not os.path.exists(os.path.join(directory, "dest")), "a dest was created")
        return f"exit 2: {result.stderr.splitlines()[0][-70:]}"

    def provenance():
        prefix = os.path.join(work.fresh("provenance"), "software", "PyTorch", "2.6.0-whl")
        os.makedirs(os.path.join(prefix, "easybuild"))
        with open(os.path.join(prefix, "easybuild", "wheelmod-install.json"), "w") as handle:
            handle.write(deep)
        result = suite.wheelmod_run("module", prefix, "--stdout", rss_budget_mib=64)
        check_error(result, 2, r"nested deeper")
        return f"exit 2: {result.stderr.splitlines()[0][-70:]}"

    def manifest():
        dest = work.fresh("manifest")
        with open(os.path.join(dest, "wheelmod-mirror.json"), "w") as handle:
            handle.write(deep)
        spec = os.path.join(work.root, "deep-spec.yaml")
        with open(spec, "w") as handle:
            handle.write(f"index: file://{os.path.join(work.sample, 'whl')}\nvariants: [cpu]\n"
                         "packages:\n  torch: '==2.6.0'\npython: ['3.12']\narches: [x86_64]\n"
                         "glibc: '2.28'\ndependencies: false\n")
        result = suite.wheelmod_run("mirror", spec, "--verify", "--dest", dest, rss_budget_mib=64)
        check_error(result, 4, r"nested deeper than 64 levels")
        return f"exit 4: {result.stderr.splitlines()[0][-70:]}"

    cases = [("report nested 80,000 deep", lambda: report("whole")),
             ("report with a filename nested 80,000 deep", lambda: report("filename")),
             ("provenance nested 80,000 deep", provenance),
             ("mirror manifest nested 80,000 deep", manifest)]
    return suite.run_all(cases, work, "refused before parsing with the byte named (exit 2, or 4 "
                                      "for a mirror's manifest), memory flat, nothing written")


def options(args):
    suite = Suite(args.wheelmod, "out-of-range options and --wheel that is no file",
                  "wheelmod install --wheel FIFO|DIR|DEVICE; fetch/install with option values "
                  "out of range")
    work = Work(suite, args.sample)

    def wheel_kind(kind):
        directory = work.fresh(f"wheel-{kind}")
        path = {"directory": directory, "device": "/dev/null"}.get(kind)
        if kind == "fifo":
            path = os.path.join(directory, "torch-2.6.0-cp312-cp312-linux_x86_64.whl")
            os.mkfifo(path)
        result = suite.wheelmod_run("install", "--wheel", path, "--toolchain", "foss-2024a",
                                    "--prefix", os.path.join(directory, "prefix"), timeout=30)
        check_error(result, 2, r"not a regular file")
        check(not os.path.exists(os.path.join(directory, "prefix")), "a prefix was made")
        return f"exit 2: {result.stderr.splitlines()[0][-60:]}"

    def out_of_range(command, option, value):
        dest = work.fresh(f"range-{command}-{option.strip('-')}-{value}")
        result = suite.wheelmod_run(command, "torch==2.6.0", *work.selection(), option, value,
                                    *(["--dest", dest] if command == "fetch" else
                                      ["--prefix", os.path.join(dest, "p")]), timeout=30)
        check_error(result, 2, re.escape(option))
        check(os.listdir(dest) == [], f"{dest} is not empty")
        return f"exit 2: {result.stderr.splitlines()[0][-60:]}"

    cases = [(f"--wheel {kind}", lambda k=kind: wheel_kind(k))
             for kind in ("fifo", "directory", "device")]
    cases += [(f"{command} {option} {value}", lambda c=command, o=option, v=value:
               out_of_range(c, o, v))
              for command, option, value in (("fetch", "--stall-timeout", "0"),
                                             ("fetch", "--jobs", "0"), ("fetch", "--jobs", "65"),
                                             ("fetch", "--retries", "101"),
                                             ("install", "--threads", "0"))]
    return suite.run_all(cases, work, "exit 2 naming the option or saying 'not a regular file', "
                                      "before anything is opened or written; a FIFO never "
                                      "blocks")


def write_wheel(directory, name, files):
    """A valid py3-none-any wheel of project `name` 1.0 with `files` ({path: bytes}) and RECORD."""
    import base64
    import hashlib
    import zipfile
    dist = f"{name}-1.0.dist-info"
    members = dict(files)
    members[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode()
    members[f"{dist}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                b"Tag: py3-none-any\n")
    rows = []
    for path, data in members.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{path},sha256={digest},{len(data)}")
    members[f"{dist}/RECORD"] = ("\n".join(rows + [f"{dist}/RECORD,,"]) + "\n").encode()
    path = os.path.join(directory, f"{name}-1.0-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return path


def own_paths(args):
    suite = Suite(args.wheelmod, "wheels writing over each other or over wheelmod's records",
                  "wheelmod install --wheel A --wheel B")
    work = Work(suite, args.sample)

    def install(directory, *wheels, extra=()):
        command = ["install"]
        for wheel in wheels:
            command += ["--wheel", wheel]
        return suite.wheelmod_run(*command, "--toolchain", "foss-2024a", "--python", "3.12",
                                  "--no-compile", "--prefix", os.path.join(directory, "p"),
                                  *extra, timeout=60)

    def record_paths(directory, project):
        record = os.path.join(directory, "p", "lib", "python3.12", "site-packages",
                              f"{project}-1.0.dist-info", "RECORD")
        with open(record) as f:
            return [line.split(",")[0] for line in f]

    def same_file():
        directory = work.fresh("same-file")
        alpha = write_wheel(directory, "alpha", {"shared/x.py": b"A = 1\n"})
        beta = write_wheel(directory, "beta", {"shared/x.py": b"B = 2\n"})
        result = install(directory, alpha, beta)
        check_error(result, 5, r"shared/x\.py", r"alpha 1\.0", r"beta 1\.0",
                    r"--clash-winner alpha")
        check(not os.path.exists(os.path.join(directory, "p")), "installed anyway")
        # A winner that is neither of the two changes nothing.
        result = install(directory, alpha, beta, extra=("--clash-winner", "gamma"))
        check_error(result, 5, r"shared/x\.py")
        check(not os.path.exists(os.path.join(directory, "p")), "installed anyway")
        return f"exit 5: {result.stderr.splitlines()[0][-80:]}"

    def clash_winner(first_wins):
        # The winner named on the command line keeps its file whatever the order of --wheel;
        # the other wheel's RECORD no longer lists it, so every RECORD is true.
        directory = work.fresh(f"winner-{first_wins}")
        alpha = write_wheel(directory, "alpha", {"shared/x.py": b"A = 1\n"})
        beta = write_wheel(directory, "beta", {"shared/x.py": b"B = 2\n"})
        winner, loser = ("alpha", "beta") if first_wins else ("beta", "alpha")
        result = install(directory, alpha, beta, extra=("--clash-winner", winner.upper()))
        check(result.returncode == 0, result.describe())
        shared = os.path.join(directory, "p", "lib", "python3.12", "site-packages", "shared",
                              "x.py")
        with open(shared, "rb") as f:
            content = f.read()
        check(content == (b"A = 1\n" if first_wins else b"B = 2\n"), f"kept {content!r}")
        check("shared/x.py" in record_paths(directory, winner), f"{winner}'s RECORD lost it")
        check("shared/x.py" not in record_paths(directory, loser), f"{loser}'s RECORD keeps it")
        return f"exit 0: {winner}'s file kept, {loser}'s RECORD row dropped"

    def same_bytes():
        # Namespace packages: every nvidia-*-cu12 wheel ships the same empty nvidia/__init__.py.
        directory = work.fresh("same-bytes")
        alpha = write_wheel(directory, "alpha", {"nvidia/__init__.py": b"", "alpha/x.py": b""})
        beta = write_wheel(directory, "beta", {"nvidia/__init__.py": b"", "beta/x.py": b""})
        result = install(directory, alpha, beta)
        check(result.returncode == 0, result.describe())
        for project in ("alpha", "beta"):
            check("nvidia/__init__.py" in record_paths(directory, project), project)
        return "exit 0: the same bytes at one path, both RECORDs list it"

    def provenance_path():
        directory = work.fresh("own-path")
        gamma = write_wheel(directory, "gamma", {
            "gamma/__init__.py": b"",
            "gamma-1.0.data/data/easybuild/wheelmod-install.json": b"{}"})
        result = install(directory, gamma)
        check_error(result, 5, r"easybuild/wheelmod-install\.json")
        check(not os.path.exists(os.path.join(directory, "p")), "installed anyway")
        return f"exit 5: {result.stderr.splitlines()[0][-80:]}"

    def distinct_files():
        directory = work.fresh("distinct")
        alpha = write_wheel(directory, "alpha", {"alpha/x.py": b"A = 1\n"})
        beta = write_wheel(directory, "beta", {"beta/x.py": b"B = 2\n"})
        result = install(directory, alpha, beta)
        check(result.returncode == 0, result.describe())
        return "exit 0: two wheels with their own files"

    cases = [("two wheels ship one file", same_file),
             ("--clash-winner names the first wheel", lambda: clash_winner(True)),
             ("--clash-winner names the second wheel", lambda: clash_winner(False)),
             ("two wheels ship one file with the same bytes", same_bytes),
             ("a wheel ships easybuild/wheelmod-install.json", provenance_path),
             ("two wheels of distinct files (control)", distinct_files)]
    return suite.run_all(cases, work, "exit 5 naming the file and both wheels, or the path under "
                                      "easybuild/; no prefix; --clash-winner keeps the named "
                                      "wheel's file with every RECORD true; equal bytes pass")


GROUPS = {"planted": planted, "replace": replace, "deep_json": deep_json, "options": options,
          "own_paths": own_paths}
# What CTest needs to run each group (`--list`, read by tests/hostile/CMakeLists.txt).
CTEST = {"*": {"timeout": 180}}

if __name__ == "__main__":
    # --wheelmod and --sample are made absolute: the replace cases run in other directories.
    sys.exit(main_with_groups(__doc__.splitlines()[0], GROUPS, ctest=CTEST, options=("--sample",)))
