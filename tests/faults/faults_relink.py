#!/usr/bin/env python3
"""SIGKILL during `wheelmod relink PREFIX`: no library is ever half-written.

    faults_relink.py --wheelmod BIN --sample DIR [--seed S] {grow,in_place}

The prefix is the sample torch cu126 wheel unpacked (real ELF files made by gcc, their
RPATH naming the nvidia-* wheel directories). The sample EasyBuild tree is reached
through a symbolic link whose path length decides the route: a long one makes the new
RPATH longer than the old (grow: the edit goes to a copy beside the library, renamed
over it), a short one fits in the old string (in_place: written into the file).

After each kill every ELF file of the prefix must parse (`readelf -d -l -S`, no
complaint), its RPATH must be exactly the old or the new value, and its size and bytes
those of the untouched or of the relinked file. Then `wheelmod relink` again must
complete, leave no temporary copy, give every file the relinked bytes, and
`wheelmod check` must pass.

States: "old" (no library changed yet), "new" (all relinked), "partial" (some);
"+tmp" when a temporary copy (.NAME.wheelmod-XXXXXX) was left beside a library.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from faults_support import Campaign, check, kill_after, main, measure, run, sha256_of

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
TEMPORARY = re.compile(r"^\..+\.wheelmod-[A-Za-z0-9]{6}$")  # elf::SiblingCopy's mkstemp name


def unpack_torch(sample, prefix):
    tag = f"cp{PYTHON.replace('.', '')}"
    wheel = os.path.join(sample, "whl", "cu126",
                         f"torch-2.6.0+cu126-{tag}-{tag}-manylinux_2_28_x86_64.whl")
    check(os.path.exists(wheel), f"no sample wheel for Python {PYTHON}: {wheel}")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(os.path.join(prefix, "lib", f"python{PYTHON}", "site-packages"))


def walk(prefix):
    for directory, _, files in os.walk(prefix):
        for name in files:
            yield os.path.relpath(os.path.join(directory, name), prefix)


def is_elf(path):
    with open(path, "rb") as handle:
        return handle.read(4) == b"\x7fELF"


def rpath_of(path):
    """The DT_RPATH/DT_RUNPATH value; fails unless readelf parses the file without complaint."""
    result = subprocess.run(["readelf", "-W", "-d", "-l", "-S", path], capture_output=True, text=True,
                            timeout=60)
    check(result.returncode == 0 and not result.stderr.strip(),
          f"readelf cannot parse {path} (exit {result.returncode}):\n{result.stderr[:2000]}")
    for line in result.stdout.splitlines():
        if "(RPATH)" in line or "(RUNPATH)" in line:
            return line.split("[", 1)[1].rsplit("]", 1)[0]
    return None


def describe(prefix):
    """Per ELF file: (size, sha256, search path)."""
    return {rel: (os.path.getsize(os.path.join(prefix, rel)), sha256_of(os.path.join(prefix, rel)),
                  rpath_of(os.path.join(prefix, rel)))
            for rel in walk(prefix) if not TEMPORARY.match(os.path.basename(rel))
            and is_elf(os.path.join(prefix, rel))}


def scenario(args, work, route):
    pristine = os.path.join(work, "pristine")
    unpack_torch(args.sample, pristine)
    # The EasyBuild tree's path length picks the route (see the module docstring).
    if route == "grow":
        link = os.path.join(work, "easybuild-installpath-" + "x" * 100)
    else:
        # A short path outside the (possibly long) scratch directory.
        link = os.path.join(tempfile.mkdtemp(prefix="e", dir="/tmp" if os.path.isdir("/tmp") else None), "s")
    os.symlink(args.sample, link)
    relink = lambda prefix: [args.wheelmod, "-q", "relink", prefix, "--toolchain", "foss-2024a",
                             "--eb-installpath", link]
    try:
        return campaign(args, work, route, pristine, relink)
    finally:
        if route != "grow":
            shutil.rmtree(os.path.dirname(link), ignore_errors=True)


def campaign(args, work, route, pristine, relink):
    plan = json.loads(run(relink(pristine) + ["--dry-run", "--format", "json"]).stdout)
    methods = {f["file"]: f["method"] for f in plan["files"]}
    print("planned:", sorted(set(methods.values())))
    if route == "grow":
        check("appended" in methods.values(), f"no library must grow its RPATH: {methods}")
    else:
        check(set(methods.values()) == {"in place"}, f"not every edit is in place: {methods}")
    old = describe(pristine)
    reference = os.path.join(work, "reference")
    shutil.copytree(pristine, reference, symlinks=True)
    duration = measure(relink(reference))
    new = describe(reference)
    changed = [rel for rel in old if old[rel][1] != new[rel][1]]
    check(len(changed) >= 8, f"only {len(changed)} files change: the test proves nothing")
    files = set(walk(pristine))
    prefix = os.path.join(work, "PyTorch", "whl")
    grown = "RPATH grows" if route == "grow" else "RPATH fits in place"
    run_name = f"relink.{route}"
    case_class = ("SIGKILL during relink (RPATH grows: copy + rename)" if route == "grow"
                  else "SIGKILL during relink (RPATH rewritten in place)")
    camp = Campaign(args, run_name, case_class, f"wheelmod relink PREFIX ({grown})")

    def one_case(delay):
        shutil.rmtree(prefix, ignore_errors=True)
        shutil.copytree(pristine, prefix, symlinks=True)
        finished = kill_after(relink(prefix), delay)
        present = set(walk(prefix))
        temporary = sorted(p for p in present - files if TEMPORARY.match(os.path.basename(p)))
        check(present - set(temporary) == files, f"files appeared or vanished: {sorted(present ^ files)}")
        now = describe(prefix)
        relinked = 0
        for rel, (size, digest, rpath) in now.items():
            check(rpath in (old[rel][2], new[rel][2]), f"{rel}: RPATH {rpath!r} is neither old nor new")
            check(size in (old[rel][0], new[rel][0]),
                  f"{rel}: size {size}, old {old[rel][0]}, new {new[rel][0]}")
            check(digest in (old[rel][1], new[rel][1]), f"{rel}: bytes are neither the old nor the new file")
            relinked += digest == new[rel][1] and digest != old[rel][1]
        check(finished is None or relinked == len(changed), "the run completed but not every file changed")
        state = "old" if relinked == 0 else "new" if relinked == len(changed) else "partial"
        # The re-run completes, tidies up, and the prefix passes the check.
        run(relink(prefix))
        left = sorted(p for p in walk(prefix) if TEMPORARY.match(os.path.basename(p)))
        check(not left, f"temporary copies left after a completed re-run: {left}")
        check(describe(prefix) == new, "after the re-run the libraries differ from a relinked prefix")
        run([args.wheelmod, "check", prefix, "--allow", args.sample])
        return state + ("+tmp" if temporary else "")

    return camp.run(duration, one_case,
                    "each kill left every library whole, old or relinked (readelf "
                    "parses it, RPATH and bytes match one of the two); each re-run "
                    "completed, left no temporary copy, and `wheelmod check` passed")


def leftover_copy(args, work):
    """Regression: what a relink killed in the copy + rename route leaves beside a library
    (its temporary copy, cut short while copying, or whole but not yet renamed) used to make
    every later `wheelmod relink` and `wheelmod check` fail on a "broken ELF file"
    (exit 4). The kills above reach that window rarely; here it is set up directly."""
    link = os.path.join(work, "easybuild-installpath-" + "x" * 100)
    os.symlink(args.sample, link)
    relink = lambda prefix: [args.wheelmod, "-q", "relink", prefix, "--toolchain", "foss-2024a",
                             "--eb-installpath", link]
    reference = os.path.join(work, "reference")
    unpack_torch(args.sample, reference)
    run(relink(reference))
    new = describe(reference)
    prefix = os.path.join(work, "PyTorch", "whl")
    unpack_torch(args.sample, prefix)
    lib = os.path.join(prefix, "lib", f"python{PYTHON}", "site-packages", "torch", "lib")
    with open(os.path.join(lib, "libtorch_cuda.so"), "rb") as handle:
        data = handle.read()
    planted = [os.path.join(lib, ".libtorch_cuda.so.wheelmod-Ab12Cd"),
               os.path.join(lib, ".libc10.so.wheelmod-Zz99Yy")]
    with open(planted[0], "wb") as handle:
        handle.write(data[:4096])  # killed while copying
    shutil.copyfile(os.path.join(lib, "libc10.so"), planted[1])  # killed before the rename
    run(relink(prefix) + ["--dry-run"])
    check(all(os.path.exists(p) for p in planted), "--dry-run removed files")
    run(relink(prefix))
    left = [p for p in planted if os.path.exists(p)]
    check(not left, f"the killed run's copies are still there: {left}")
    check(describe(prefix) == new, "the libraries differ from a relinked prefix")
    run([args.wheelmod, "check", prefix, "--allow", args.sample])
    print("ok: leftover copies removed, prefix relinked, check passes")
    return 0


SCENARIOS = {"grow": lambda a, w: scenario(a, w, "grow"),
             "in_place": lambda a, w: scenario(a, w, "in_place"),
             "leftover_copy": leftover_copy}
# What CTest needs to run each scenario (`--list`, read by tests/faults/CMakeLists.txt).
CTEST = {"*": {"timeout": 600}}

if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0], SCENARIOS, ctest=CTEST))
