#!/usr/bin/env python3
"""`cmake --install` gives a wheelmod that works wherever its prefix is moved, without the
source or build tree.

    relocated_install.py --cmake CMAKE --build-dir DIR --sample SAMPLE

Installs the build into a temporary prefix, moves the prefix, and runs the moved binary: its
--version names the moved share/wheelmod as its data; it installs the sample torch stack (the
demo's main job) and the result imports; the man page documents every subcommand and the bash
completion loads. A copy of the binary without its share/ directory refuses to run a command that
needs the tables (exit 2, saying where it looked) instead of reading the source tree, and works
again with WHEELMOD_DATA_DIR.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def run(command, expect=0, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    print("ran:", " ".join(command), "->", result.returncode)
    if result.returncode != expect:
        sys.exit(f"FAIL: exit {result.returncode}, expected {expect}\nstdout:\n{result.stdout}\n"
                 f"stderr:\n{result.stderr}")
    return result


def check(condition, message):
    if not condition:
        sys.exit("FAIL: " + message)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--sample", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="wheelmod-installed-")
    try:
        first = os.path.join(work, "first")
        run([args.cmake, "--install", args.build_dir, "--prefix", first])
        moved = os.path.join(work, "moved", "opt")
        os.makedirs(os.path.dirname(moved))
        shutil.move(first, moved)
        wheelmod = os.path.join(moved, "bin", "wheelmod")
        environment = {k: v for k, v in os.environ.items() if k != "WHEELMOD_DATA_DIR"}

        version = run([wheelmod, "--version"], env=environment).stdout
        data = os.path.join(moved, "share", "wheelmod")
        check(f"data:      {data} (installed beside the binary)" in version, version)
        check("libcurl:" in version and "libzip:" in version and "OpenSSL:" in version
              and "yaml-cpp:" in version and "commit:" in version, version)

        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        prefix = os.path.join(work, "software", "PyTorch", "2.6.0-foss-2024a-CUDA-12.6.0-whl")
        run([wheelmod, "-q", "install", "torch==2.6.0", "--toolchain", "foss-2024a",
             "--accelerator", "cuda", "--python", python, "--arch", "x86_64", "--glibc", "2.28",
             "--index", "file://" + os.path.join(args.sample, "whl"), "--cache-dir",
             os.path.join(work, "cache"), "--eb-installpath", args.sample, "--python-exe",
             sys.executable, "--prefix", prefix], env=environment)
        site = os.path.join(prefix, "lib", f"python{python}", "site-packages")
        imported = run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                       env={**environment, "PYTHONPATH": site})
        check(imported.stdout.strip() == "2.6.0+cu126", imported.stdout)

        with open(os.path.join(moved, "share", "man", "man1", "wheelmod.1")) as handle:
            man = handle.read()
        for command in ("resolve", "fetch", "install", "check", "module", "easyconfig",
                        "mirror", "swapcheck", "tags"):
            check(f".SS {command}\n" in man, f"the man page has no {command} section")
        completion = os.path.join(moved, "share", "bash-completion", "completions", "wheelmod")
        loaded = run(["bash", "-c", f"source {completion} && complete -p wheelmod"])
        check("_wheelmod" in loaded.stdout, loaded.stdout)

        alone = os.path.join(work, "alone", "wheelmod")
        os.makedirs(os.path.dirname(alone))
        shutil.copy2(wheelmod, alone)
        refused = run([alone, "resolve", "torch", "--toolchain", "foss-2024a", "--index",
                       "file:///nonexistent"], expect=2, env=environment)
        check("data directory" in refused.stderr and "WHEELMOD_DATA_DIR" in refused.stderr,
              refused.stderr)
        run([alone, "resolve", "torch==2.6.0", "--toolchain", "foss-2024a", "--arch", "x86_64",
             "--glibc", "2.28", "--index", "file://" + os.path.join(args.sample, "whl"),
             "--cache-dir", os.path.join(work, "cache")],
            env={**environment, "WHEELMOD_DATA_DIR": data})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
