#!/usr/bin/env python3
"""Swapcheck benchmark: `wheelmod swapcheck` over an EasyBuild tree of 50
dependents (~500 ELF files), against reading the same symbol tables with
binutils, in one run, at each size of --sizes (12, 50 and 200 dependents by
default, with 10 extension modules per dependent: 120, 500 and 2,000).

Generates, with gcc/g++ (-O0 -g0; cached under --work-dir by its parameters),
at 50 dependents:

  software/PyTorch/2.7.1-abi0, 2.7.1-abi1   two fake torch prefixes
      (lib/python3.11/site-packages/torch/lib/{libc10.so,libtorch_cpu.so},
      torch-2.7.1.dist-info) compiled from C++ with 20,000 + 2,000
      functions in torch's namespaces taking at::Tensor, c10::ArrayRef,
      std::vector<int64_t>, std::string ... (mangled names as long as
      torch's) and 1% extern "C" aoti_torch_* ones; the first with
      _GLIBCXX_USE_CXX11_ABI=0, the second with =1 and without 0.5% of
      libtorch_cpu's functions;
  software/PkgNN/1.0 x 50   dependents (Requires-Dist: torch>=2.0), ~10
      extension modules each (500 in all) calling 200-2,000 of the torch
      functions (C++), or 20-100 aoti_torch_* (the stable C ABI), plus
      libc, libstdc++ and Python C API symbols, and exporting their own;
      of every ten: six C++, one Python-only, one on the stable C ABI, two
      taking turns at importing a function the candidate lacks, an RPATH
      into the current torch, and a torch<2.7 pin.

Then, in alternating rounds (A B C D E, A B C D E, ...):

  A  wheelmod swapcheck --current abi0 --candidate abi1 --dependents software --format json
  B  A with --candidate abi0 (no C++ symbol breaks, so no long report)
  C  A with an empty --dependents: reading the two torches alone
  D  nm -D FILE...   every ELF file A reads, in one process
  E  readelf --dyn-syms -W FILE, one process per file (a shell loop)

Prints medians (wall, CPU, peak RSS from os.wait4), throughput, and the
targets: A within 2x of D's wall time, A's RSS < 256 MiB (PASS/MISS; the
exit status is 0 either way). The first round checks every verdict,
reason count and import count in A's and B's JSON against what was
generated, and that D and E read every file. Last, how the cost grows:
each size's medians, and the seconds per 10 dependents between the smallest
and the largest size (--summary-json writes them).

  bench_swapcheck.py --wheelmod build/bench/src/cli/wheelmod --work-dir build/bench --runs 5
  bench_swapcheck.py --wheelmod ... --sizes 50   # one size, no slope
  bench_swapcheck.py --wheelmod ... --smoke   # CTest: 5 dependents, 2,000 symbols, one round
"""

import argparse
import collections
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_support import (K_MIB, K_PR_SET_CHILD_SUBREAPER, BenchError, Summary, first_line,
                           fs_type, load_average, machine_line, median, parse_list, prctl,
                           run_one, verdict)

K_GENERATOR_VERSION = 2  # part of the cache key: bump when the tree changes shape
K_NM_FACTOR, K_RSS_TARGET_MIB = 2.0, 256
K_SMOKE = {"sizes": [5], "torch_symbols": 2000, "elf_files": 50, "runs": 1}
K_DEFAULT_SIZES = "12,50,200"  # dependents
K_ELF_PER_DEPENDENT = 10
K_SITE = "lib/python3.11/site-packages"
K_EXT = ".cpython-311-x86_64-linux-gnu.so"
K_TORCH_NAMESPACES = ("at::native", "at::_ops", "at::cpu", "at::functionalization",
                      "torch::jit", "torch::autograd::generated", "torch::nn::functional",
                      "torch::distributed::rpc")
K_C10_NAMESPACES = ("c10", "c10::impl", "c10::detail", "c10::ivalue")
K_WORDS = ("upsample", "bilinear2d", "backward", "out", "conv", "transpose", "batch", "norm",
           "index", "select", "scatter", "reduce", "embedding", "bag", "quantized", "linear",
           "dynamic", "fused", "adam", "sparse", "coo", "csr", "addmm", "layer", "softmax", "log",
           "nll", "loss", "pad", "grid", "sampler", "max", "pool", "unfold", "cumsum", "dropout",
           "gelu", "tensor", "schema", "parse", "graph", "node", "register", "operator", "kernel")
K_PARAMS = ("const at::Tensor&", "at::Tensor&", "c10::ArrayRef<int64_t>", "int64_t", "double",
            "bool", "const std::vector<int64_t>&", "std::optional<double>", "const c10::Scalar&")
K_PRELUDE = """#include <cstdint>
#include <optional>
#include <string>
#include <vector>
namespace at { struct Tensor { void* impl; }; }
namespace c10 {
template <class T> struct ArrayRef { const T* data; std::size_t size; };
struct Scalar { double value; };
}
"""
# What extension modules import besides torch: libc, libstdc++ under the
# old string ABI (the current torch's), the Python C API (left undefined,
# as in real extensions).
K_OTHER_IMPORTS = (
    "malloc", "free", "memcpy", "memset", "strlen", "strcmp", "snprintf", "fprintf", "stderr",
    "pthread_mutex_lock", "pthread_mutex_unlock", "__stack_chk_fail", "_Znwm", "_ZdlPv",
    "__cxa_begin_catch", "__cxa_end_catch", "__cxa_throw", "__gxx_personality_v0",
    "_Unwind_Resume", "_ZSt9terminatev", "_ZNSsC1EPKcRKSaIcE", "_ZNSsD1Ev", "_ZNSs6appendEPKc",
    "PyModule_Create2", "PyArg_ParseTuple", "Py_BuildValue", "PyErr_SetString",
    "PyExc_RuntimeError", "PyLong_FromLong", "PyLong_AsLong", "PyTuple_New", "PyDict_SetItemString",
    "PyObject_GetAttrString", "PyCapsule_New", "_Py_Dealloc", "PyGILState_Ensure",
    "PyGILState_Release", "_Py_NoneStruct")
K_DATA_IMPORTS = {"stderr", "PyExc_RuntimeError", "_Py_NoneStruct"}  # loaded through the GOT
# Of every ten dependents: six C++ extensions, one Python-only, one on the
# stable C ABI, two special ones (stable C ABI too) taking turns: one
# importing a function the candidate lacks, one with an RPATH into the
# current torch, one pinned to torch<2.7.
K_CYCLE = ("cxx", "python", "special", "stable", "special", "cxx", "cxx", "cxx", "cxx", "cxx")
K_SPECIAL = ("api", "rpath", "pin")


def role_of(index):
    role = K_CYCLE[index % len(K_CYCLE)]
    if role != "special":
        return role
    before = (index // len(K_CYCLE)) * K_CYCLE.count("special") + \
        K_CYCLE[:index % len(K_CYCLE)].count("special")
    return K_SPECIAL[before % len(K_SPECIAL)]


def sh(*command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise BenchError(f"{' '.join(map(str, command))} exited {result.returncode}:\n"
                         f"{result.stderr[-2000:]}")
    return result.stdout


# --- the fake torch ---------------------------------------------------------

def torch_functions(count, rng):
    """(index, library, namespace, name, params, takes_string) of every C++
    function, then the aoti_torch_* names."""
    functions = []
    c10_count = max(count // 10, 1)
    for index in range(count + c10_count):
        library = "torch_cpu" if index < count else "c10"
        namespace = rng.choice(K_TORCH_NAMESPACES if library == "torch_cpu" else K_C10_NAMESPACES)
        name = "_".join(rng.sample(K_WORDS, rng.randint(2, 4))) + f"_{index}"
        params = [rng.choice(K_PARAMS) for _ in range(rng.randint(1, 5))]
        # A quarter take a std::string: the names that the C++ ABI changes.
        takes_string = rng.random() < 0.25
        if takes_string:
            params.insert(rng.randint(0, len(params)), "const std::string&")
        functions.append((index, library, namespace, name, params, takes_string))
    aoti = [f"aoti_torch_{'_'.join(rng.sample(K_WORDS, 2))}_{i}"
            for i in range(max(count // 100, 8))]
    return functions, aoti


def write_torch_sources(directory, functions, aoti, chunk=2500):
    """C++ translation units per library, chunk functions each."""
    units = collections.defaultdict(list)
    for library in ("c10", "torch_cpu"):
        mine = [f for f in functions if f[1] == library]
        for start in range(0, len(mine), chunk):
            text = [K_PRELUDE]
            for _, _, namespace, name, params, _ in mine[start:start + chunk]:
                text.append(f"namespace {namespace} {{ int64_t {name}({', '.join(params)}) "
                            "{ return 0; } }")
            if library == "torch_cpu" and start == 0:
                text += [f'extern "C" int32_t {name}(void*, int64_t) {{ return 0; }}'
                         for name in aoti]
            source = directory / f"{library}_{start // chunk}.cpp"
            source.write_text("\n".join(text) + "\n")
            units[library].append(source)
    return units


def build_torches(software, count, seed, jobs):
    """The two torch prefixes; returns (functions, aoti names, indices of the
    functions the candidate lacks, the aoti function it lacks)."""
    rng = random.Random(seed)
    functions, aoti = torch_functions(count, rng)
    removed = set(rng.sample([f[0] for f in functions if f[1] == "torch_cpu"],
                             max(count // 200, 2)))
    removed_aoti = aoti[0]  # what an "API change" dependent imports
    compiles, links = [], []
    for abi, version in ((0, "2.7.1-abi0"), (1, "2.7.1-abi1")):
        prefix = software / "PyTorch" / version
        lib = prefix / K_SITE / "torch" / "lib"
        build = prefix.parent / f".build-{version}"
        for directory in (lib, build, prefix / K_SITE / "torch-2.7.1.dist-info"):
            directory.mkdir(parents=True, exist_ok=True)
        (prefix / K_SITE / "torch-2.7.1.dist-info" / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.7.1\n")
        (prefix / K_SITE / "torch" / "__init__.py").write_text("# fake torch\n")
        mine = functions if abi == 0 else [f for f in functions if f[0] not in removed]
        units = write_torch_sources(build, mine, [a for a in aoti if abi == 0 or a != removed_aoti])
        flags = ["-O0", "-g0", "-fPIC", f"-D_GLIBCXX_USE_CXX11_ABI={abi}"]
        objects = {}
        for library, sources in units.items():
            objects[library] = [s.with_suffix(".o") for s in sources]
            compiles += [("g++", *flags, "-c", s, "-o", s.with_suffix(".o")) for s in sources]
        links.append(("g++", "-shared", "-o", lib / "libc10.so", "-Wl,-soname,libc10.so",
                      *objects["c10"]))
        links.append(("g++", "-shared", "-o", lib / "libtorch_cpu.so",
                      "-Wl,-soname,libtorch_cpu.so", *objects["torch_cpu"], "-L", lib, "-lc10"))
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda c: sh(*c), compiles))
        list(pool.map(lambda c: sh(*c), links[0::2]))  # libc10 first: libtorch_cpu needs it
        list(pool.map(lambda c: sh(*c), links[1::2]))
    for version in ("2.7.1-abi0", "2.7.1-abi1"):
        shutil.rmtree(software / "PyTorch" / f".build-{version}")
    return functions, aoti, removed, removed_aoti


def mangled_names(lib_dir, functions, aoti):
    """index -> mangled name of each C++ function, from nm; and the set of
    every name the libraries export."""
    exported, by_index = set(), {}
    for library in ("libc10.so", "libtorch_cpu.so"):
        for line in sh("nm", "-D", "--defined-only", "-P", lib_dir / library).splitlines():
            name, kind = line.split()[:2]
            exported.add(name)
            match = re.search(r"_(\d+)E", name) if name.startswith("_Z") and kind == "T" else None
            if match:
                by_index[int(match.group(1))] = name
    for index, _, _, name, _, _ in functions:
        if f"{len(name)}{name}E" not in by_index.get(index, ""):
            raise BenchError(f"{lib_dir}: no exported function {name} (nm -D)")
    missing = [name for name in aoti if name not in exported]
    if missing:
        raise BenchError(f"{lib_dir}: {missing[0]} is not exported")
    return by_index, exported


# --- the dependents ---------------------------------------------------------

def assembly(entry, imports, own):
    """An extension module: PyInit_* calls every import through the PLT, as
    compiled code does; `own` are its own exported functions."""
    lines = ["\t.text"]
    for name in [entry, *own]:
        body = ["\tsubq $8, %rsp",
                *(f"\tmovq {i}@GOTPCREL(%rip), %rax" if i in K_DATA_IMPORTS else f"\tcall {i}@PLT"
                  for i in imports), "\taddq $8, %rsp"] if name == entry else []
        lines += [f"\t.globl {name}", f"\t.type {name}, @function", f"{name}:", *body, "\tret",
                  f"\t.size {name}, .-{name}"]
    lines.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n"


def plan_dependents(args, names, functions, aoti, removed, removed_aoti, current_lib):
    """Each dependent's files, links and the verdict swapcheck must give it."""
    rng = random.Random(args.seed + 1)
    cxx_pool = sorted(names)  # indices of every C++ function (both libraries)
    takes_string = {f[0]: f[5] for f in functions}
    kept_aoti = [a for a in aoti if a != removed_aoti]
    with_elf = [i for i in range(args.dependents) if role_of(i) != "python"]
    base, extra = divmod(args.elf_files, max(len(with_elf), 1))
    plans, jobs = [], []
    for i in range(args.dependents):
        role, pkg = role_of(i), f"pkg{i:02d}"
        prefix = Path("software") / f"Pkg{i:02d}" / "1.0"
        count = 0 if role == "python" else base + (1 if with_elf.index(i) < extra else 0)
        expect = {"prefix": str(prefix), "role": role, "elf_files": count, "torch_imports": 0,
                  "reasons": collections.Counter()}
        for k in range(count):
            relative = f"{K_SITE}/{pkg}/" + ("_C" if k == 0 else f"ops/_ext_{k}") + K_EXT
            if role == "cxx":
                high = min(args.max_imports, len(cxx_pool) // 2)
                chosen = rng.sample(cxx_pool, rng.randint(min(args.min_imports, high), high))
                torch = [names[c] for c in chosen]
                gone = sum(c in removed for c in chosen)
                expect["reasons"]["API change"] += gone
                expect["reasons"]["C++ ABI mismatch"] += sum(
                    takes_string[c] and c not in removed for c in chosen)
            else:
                torch = rng.sample(kept_aoti, rng.randint(min(20, len(kept_aoti)),
                                                          min(100, len(kept_aoti))))
                if role == "api" and k == 0:
                    torch.append(removed_aoti)
            others = rng.sample(K_OTHER_IMPORTS, rng.randint(10, len(K_OTHER_IMPORTS)))
            own = [f"_ZN{len(pkg)}{pkg}3ops{len(f'kernel_{j}')}kernel_{j}Eld"
                   for j in range(rng.randint(20, 800))]
            expect["torch_imports"] += len(torch)
            rpath = [f"-Wl,-rpath,{current_lib}"] if role == "rpath" else []
            jobs.append((prefix / relative, assembly(f"PyInit_{Path(relative).name.split('.')[0]}",
                                                     torch + others, own), rpath))
        if role == "cxx" and not expect["reasons"]:  # nothing per symbol: the whole-ABI reason
            expect["reasons"]["C++ ABI mismatch"] = 1
        expect["reasons"] += {"api": {"API change": 1}, "pin": {"pin": 1},
                              "rpath": {"RPATH into the current prefix": count}}.get(role, {})
        expect["verdict"] = {"python": "safe", "stable": "compatible",
                             "rpath": "relink needed"}.get(role, "breaks")
        expect["stable_abi"] = role not in ("python", "cxx")
        expect["reasons"] = {k: v for k, v in expect["reasons"].items() if v}
        plans.append(expect)
    return plans, jobs


def write_dependent_files(tree, plans, rng):
    for i, plan in enumerate(plans):
        site, pkg = tree / plan["prefix"] / K_SITE, f"pkg{i:02d}"
        (site / f"{pkg}-1.0.dist-info").mkdir(parents=True)
        pin = "torch<2.7" if plan["role"] == "pin" else "torch>=2.0"
        (site / f"{pkg}-1.0.dist-info" / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {pkg}\nVersion: 1.0\nRequires-Dist: {pin}\n")
        (site / pkg / "ops").mkdir(parents=True)
        for k in range(20):  # the Python side, which the walk also visits
            body = "".join(f"def op_{j}(x):\n    return torch.ops.{pkg}.kernel_{j}(x)\n\n"
                           for j in range(rng.randint(10, 60)))
            (site / pkg / ("__init__.py" if k == 0 else f"mod_{k}.py")).write_text(
                "import torch\n\n" + body)


def generate(args, work):
    """The tree under work/, reused when its parameters match."""
    gcc = first_line(["gcc", "--version"])
    key_text = json.dumps([K_GENERATOR_VERSION, args.torch_symbols, args.dependents, args.elf_files,
                           args.min_imports, args.max_imports, args.seed, gcc, str(work)])
    tree = work / f"swapcheck-tree-{hashlib.sha256(key_text.encode()).hexdigest()[:12]}"
    manifest = tree / "manifest.json"
    if manifest.is_file() and not args.regenerate:
        print(f"tree: {tree} (cached; --regenerate to rebuild)")
        return tree, json.loads(manifest.read_text())
    shutil.rmtree(tree, ignore_errors=True)
    started, jobs = time.monotonic(), len(os.sched_getaffinity(0))
    software = tree / "software"
    functions, aoti, removed, removed_aoti = build_torches(software, args.torch_symbols, args.seed,
                                                           jobs)
    current_lib = software / "PyTorch" / "2.7.1-abi0" / K_SITE / "torch" / "lib"
    names, exported = mangled_names(current_lib, functions, aoti)
    plans, links = plan_dependents(args, names, functions, aoti, removed, removed_aoti, current_lib)
    clash = exported.intersection(K_OTHER_IMPORTS)
    if clash:
        raise BenchError(f"the fake torch exports {sorted(clash)[0]}, which stands for libc's")
    write_dependent_files(tree, plans, random.Random(args.seed + 2))

    def link(job):
        relative, text, rpath = job
        target = tree / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        source = target.with_suffix(".s")
        source.write_text(text)
        sh("gcc", "-shared", "-o", target, source, "-L", current_lib, "-lc10", "-ltorch_cpu",
           "-lstdc++", *rpath)
        source.unlink()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(link, links))
    facts = {"plans": plans, "current_exports": len(exported), "torch_files": 4,
             "generated_s": round(time.monotonic() - started, 1)}
    manifest.write_text(json.dumps(facts, indent=1))
    print(f"tree: {tree} (generated in {facts['generated_s']} s on {jobs} cores)")
    return tree, facts


# --- the measurement --------------------------------------------------------

# wheelmod swapcheck exits 6 when a dependent breaks (README "Exit codes"); bench_support
# takes any other status than 0 for a failure, so a /bin/sh maps the one
# expected status to 0 (its fork costs ~1 ms, inside the figures).
K_EXPECT = 'want=$1; shift; "$@"; code=$?; [ "$code" -eq "$want" ] && exit 0; ' \
           'echo "exit $code, expected $want" >&2; exit 1'
K_READELF_LOOP = 'while IFS= read -r f; do readelf --dyn-syms -W "$f" || exit; done < "$1"'
SIDES = ("wheelmod", "same torch", "torches only", "nm", "readelf")


class Runner:
    def __init__(self, args, tree, facts, scratch):
        self.tree, self.facts, self.scratch = tree, facts, scratch
        software = tree / "software"
        self.current = software / "PyTorch" / "2.7.1-abi0"
        self.candidate = software / "PyTorch" / "2.7.1-abi1"
        self.files = sorted(p for p in software.rglob("*.so") if p.is_file())
        listing = scratch / "files.txt"
        listing.write_text("".join(f"{p}\n" for p in self.files))
        (scratch / "empty").mkdir()
        # The same torch as candidate: only pins break; an RPATH into its own libraries is no
        # longer one into the *current* torch's (src/swap/swapcheck.cpp, check_search_path).
        same_fails = any(p["role"] == "pin" for p in facts["plans"])
        swapcheck = [args.wheelmod, "swapcheck", "--current", self.current,
                     "--candidate", self.candidate, "--format", "json", "--dependents"]
        self.commands = {
            "wheelmod": ["/bin/sh", "-c", K_EXPECT, "sh", "6", *swapcheck, software],
            "same torch": ["/bin/sh", "-c", K_EXPECT, "sh", "6" if same_fails else "0",
                           *swapcheck[:5], self.current,
                           *swapcheck[6:], software],
            "torches only": ["/bin/sh", "-c", K_EXPECT, "sh", "0", *swapcheck, scratch / "empty"],
            "nm": ["nm", "-D", *self.files],
            "readelf": ["/bin/sh", "-c", K_READELF_LOOP, "sh", listing]}
        self.samples = {side: [] for side in SIDES}
        self.symbols = None  # from nm's output in the first round
        self.json_facts = {}

    def run(self, side):
        directory = self.scratch / side.replace(" ", "-")
        directory.mkdir(exist_ok=True)
        sample = run_one(self.commands[side], directory)
        self.samples[side].append(sample)
        return directory / "out0"

    def round(self, check):
        for side in SIDES:
            out = self.run(side)
            if not check:
                continue
            if side in ("wheelmod", "same torch"):
                self.json_facts[side] = check_report(out, self.tree, self.facts, side != "wheelmod")
            elif side == "nm":
                self.symbols = count_symbols(out, self.files)
            elif side == "readelf":
                tables = out.read_text().count("Symbol table '.dynsym'")
                if tables != len(self.files):
                    raise BenchError(f"readelf printed {tables} .dynsym tables for "
                                     f"{len(self.files)} files")


def check_report(out, tree, facts, same):
    """Every verdict, reason count and import count as generated; `same`:
    the current torch given as the candidate too."""
    text = out.read_text()
    report = json.loads(text)
    problems = []
    pins = any(p["role"] == "pin" for p in facts["plans"])
    want = {"ok": same and not pins, "current cxx11_abi": False, "candidate cxx11_abi": not same,
            "current exported_symbols": facts["current_exports"],
            # the other torch is no longer skipped: one dependent more, left unchecked
            "dependents": len(facts["plans"]) + same}
    got = {"ok": report["ok"], "current cxx11_abi": report["current"]["cxx11_abi"],
           "candidate cxx11_abi": report["candidate"]["cxx11_abi"],
           "current exported_symbols": report["current"]["exported_symbols"],
           "dependents": len(report["dependents"])}
    problems += [f"{k}: {got[k]}, expected {v}" for k, v in want.items() if got[k] != v]
    by_prefix = {Path(d["prefix"]).relative_to(tree).as_posix(): d for d in report["dependents"]}
    for index, plan in enumerate(facts["plans"]):
        dependent = by_prefix.get(plan["prefix"])
        if dependent is None:
            problems.append(f"{plan['prefix']}: not in the report")
            continue
        expected = dict(plan)
        if same:  # only the pin remains: the RPATH names the candidate's own libraries
            expected["reasons"] = {k: v for k, v in plan["reasons"].items() if k == "pin"}
            expected["verdict"] = {"python": "safe", "pin": "breaks"}.get(plan["role"],
                                                                          "compatible")
        expected["projects"] = [f"pkg{index:02d} 1.0"]
        reasons = collections.Counter()  # a symbol reason names its symbols; the plan counts them
        for r in dependent["reasons"]:
            reasons[r["kind"]] += len(r.get("symbols", [])) or 1
        reasons = dict(reasons)
        for key in ("verdict", "elf_files", "torch_imports", "stable_abi", "reasons", "projects"):
            seen = reasons if key == "reasons" else dependent[key]
            if seen != expected[key]:
                case = plan["role"] + (", same torch" if same else "")
                problems.append(f"{plan['prefix']} ({case}): {key} {seen}, "
                                f"expected {expected[key]}")
    if problems:
        raise BenchError("wheelmod swapcheck's report differs from the generated tree:\n  "
                         + "\n  ".join(problems[:20]))
    return {"bytes": len(text.encode()),
            "reasons": sum(len(d["reasons"]) for d in report["dependents"]),
            "symbols": sum(len(r.get("symbols", [])) for d in report["dependents"]
                           for r in d["reasons"]),
            "verdicts": collections.Counter(d["verdict"] for d in report["dependents"])}


def count_symbols(out, files):
    """Dynamic symbols per group from nm -D's output: {(torch|dependents, defined|undefined): n}."""
    names = {str(p) for p in files}
    counts, group, seen = collections.Counter(), None, 0
    for line in out.read_text().splitlines():
        if line.endswith(":") and line[:-1] in names:
            group, seen = ("torch" if "/PyTorch/" in line else "dependents"), seen + 1
        elif line.strip() and group:
            counts[group, "undefined" if len(line.split()) == 2 else "defined"] += 1
    if seen != len(files):
        raise BenchError(f"nm -D printed {seen} files of {len(files)}")
    return counts


def report(args, runner):
    samples, symbols, said = runner.samples, runner.symbols, runner.json_facts
    files, total = len(runner.files), sum(symbols.values())
    from_torch = sum(p["torch_imports"] for p in runner.facts["plans"])
    main_runs, nm_runs = samples["wheelmod"], samples["nm"]
    over_nm = median(main_runs) / median(nm_runs)
    rss = max(s.rss_kib for s in main_runs) / 1024
    rows = (("wheelmod swapcheck ABI 0 -> 1 --format json", "wheelmod",
             f"<= {K_NM_FACTOR:g}x nm -D: {verdict(over_nm <= K_NM_FACTOR)}, RSS < "
             f"{K_RSS_TARGET_MIB} MiB: {verdict(rss < K_RSS_TARGET_MIB)}"),
            ("wheelmod swapcheck, candidate = current", "same torch", ""),
            ("wheelmod swapcheck, no dependents (2 torches)", "torches only", ""),
            ("nm -D, every file in one process", "nm", ""),
            ("readelf --dyn-syms -W, one process per file", "readelf", ""))
    title = f"swapcheck {args.dependents} dependents, {files} ELF files"
    print(f"\n{title:48} {'wall s':>8} {'CPU s':>8} {'RSS MiB':>8} {'ratio':>6}   target")
    for label, side, target in rows:
        runs = samples[side]
        print(f"  {label:46} {median(runs):8.3f} {median(runs, 'cpu'):8.3f} "
              f"{max(s.rss_kib for s in runs) / 1024:8.1f} {median(runs) / median(main_runs):5.2f}x"
              f"   {target}".rstrip())
    print("  ratio: each side's median wall time over wheelmod's first row's")
    paired = sorted(w.wall / n.wall for w, n in zip(main_runs, nm_runs))
    print(f"  wheelmod / nm -D: {over_nm:.2f} (per round {paired[0]:.2f} to {paired[-1]:.2f}), "
          f"target <= {K_NM_FACTOR:g}")
    print(f"  symbols read: {total:,} dynamic symbols; the torches export "
          f"{symbols['torch', 'defined']:,} (2 builds), the dependents import "
          f"{symbols['dependents', 'undefined']:,} ({from_torch:,} from torch) and export "
          f"{symbols['dependents', 'defined']:,}")
    for label, side in (("wheelmod", "wheelmod"), ("nm -D", "nm"), ("readelf loop", "readelf")):
        wall = median(samples[side])
        print(f"  throughput, {label}: {files / wall:,.0f} ELF files/s, {total / wall / 1e6:.2f} M "
              "symbols/s")
    for side, label in (("wheelmod", "ABI 0 -> 1"), ("same torch", "candidate = current")):
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(said[side]["verdicts"].items()))
        print(f"  wheelmod's report, {label}: {verdicts}; {said[side]['reasons']:,} reasons naming "
              f"{said[side]['symbols']:,} symbols, {said[side]['bytes'] / K_MIB:.1f} MiB of JSON")


def add_rows(args, runner, summary):
    """The size's summary rows: swapcheck against nm -D and the readelf
    loop, and wheelmod's two other runs alone."""
    samples = runner.samples
    label = f"{args.dependents} dependents / {len(runner.files)} ELF files"

    def rss(side):
        return max(s.rss_kib for s in samples[side]) / 1024
    main = median(samples["wheelmod"])
    operation = "swapcheck ABI 0 -> 1"
    summary.row(operation, label, main, "nm -D", median(samples["nm"]), "s",
                rss_mib=rss("wheelmod"), peer_rss_mib=rss("nm"),
                goal=f"<= {K_NM_FACTOR:g}x nm -D's time, RSS < {K_RSS_TARGET_MIB} MiB",
                met=main <= K_NM_FACTOR * median(samples["nm"])
                and rss("wheelmod") < K_RSS_TARGET_MIB, units=args.dependents)
    summary.row(operation, label, main, "readelf loop", median(samples["readelf"]), "s",
                rss_mib=rss("wheelmod"), peer_rss_mib=rss("readelf"), units=args.dependents)
    for side, name in (("same torch", "swapcheck, candidate = current"),
                       ("torches only", "swapcheck, no dependents (2 torches)")):
        summary.row(name, label, median(samples[side]), None, None, "s", rss_mib=rss(side),
                    units=args.dependents)


def run(args, work_parent, summary):
    tree, facts = generate(args, work_parent)
    tree = tree.resolve()
    os.sync()
    print(machine_line())
    print(f"work dir: {work_parent} ({fs_type(work_parent)}); load average {load_average()}")
    print(f"wheelmod: {first_line([args.wheelmod, '--version'])}"
          + (f" ({args.build_type} build)" if args.build_type else ""))
    print(f"{first_line(['nm', '--version'])}; {first_line(['readelf', '--version'])}; "
          f"{first_line(['gcc', '--version'])}")
    with tempfile.TemporaryDirectory(prefix="bench-swapcheck-", dir=work_parent) as scratch:
        runner = Runner(args, tree, facts, Path(scratch))
        print(f"rounds: {args.runs}, each: wheelmod swapcheck (ABI 0 -> 1, then 0 -> 0, then no "
              f"dependents), nm -D, readelf loop ({len(runner.files)} files)")
        if not args.smoke:  # warm up: the page cache, the dynamic loader's
            runner.round(False)
            runner.samples = {side: [] for side in SIDES}
        for index in range(args.runs):
            runner.round(index == 0)
            print(f"  round {index + 1}/{args.runs}: " + ", ".join(
                f"{side} {runs[-1].wall:.3f} s" for side, runs in runner.samples.items()))
        report(args, runner)
        add_rows(args, runner, summary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheelmod", required=True, help="the wheelmod binary (a Release build)")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="where the generated tree is kept (reused by later runs)")
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--sizes", type=parse_list, default=parse_list(K_DEFAULT_SIZES),
                       help="dependents at each size, comma-separated (default "
                            f"{K_DEFAULT_SIZES}); one size: no slope")
    sizes.add_argument("--dependents", type=lambda text: [int(text)], dest="sizes",
                       help="one size: the same as --sizes N")
    parser.add_argument("--elf-files", type=int,
                        help="extension modules over all dependents, with one size only "
                             f"(default {K_ELF_PER_DEPENDENT} per dependent)")
    parser.add_argument("--torch-symbols", type=int, default=20000,
                        help="C++ functions in libtorch_cpu.so (default 20,000; libc10.so a "
                             "tenth more, aoti_torch_* a hundredth)")
    parser.add_argument("--min-imports", type=int, default=200)
    parser.add_argument("--max-imports", type=int, default=2000,
                        help="torch functions each C++ extension module imports "
                             "(default 200-2,000)")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--regenerate", action="store_true", help="rebuild the cached tree")
    parser.add_argument("--build-type", default="", help="CMAKE_BUILD_TYPE, to warn about Debug")
    parser.add_argument("--summary-json", type=Path,
                        help="write the summary (rows and slopes) as JSON here (README.md)")
    parser.add_argument("--smoke", action="store_true",
                        help="5 dependents, 2,000 torch symbols, one round, every check")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # in order with the errors on stderr
    if args.smoke:
        vars(args).update(K_SMOKE)
    if args.runs < 1 or not all(1 <= d <= 1000 for d in args.sizes) or \
            args.torch_symbols < 100 or not 1 <= args.min_imports <= args.max_imports:
        parser.error("--runs >= 1, dependents 1 to 1000, --torch-symbols >= 100, "
                     "1 <= --min-imports <= --max-imports")
    if args.elf_files is not None and len(args.sizes) > 1:
        parser.error("--elf-files goes with one size; several sizes get "
                     f"{K_ELF_PER_DEPENDENT} per dependent")
    for sig in (signal.SIGTERM, signal.SIGHUP):  # unwind like Ctrl-C: the scratch files go
        signal.signal(sig, lambda signum, _: sys.exit(128 + signum))
    work_parent = args.work_dir.resolve()
    work_parent.mkdir(parents=True, exist_ok=True)
    try:
        prctl(K_PR_SET_CHILD_SUBREAPER, 1)  # see bench_support.LAUNCH
        for tool in ("gcc", "g++", "nm", "readelf"):
            if shutil.which(tool) is None:
                raise BenchError(f"{tool}: not found\nhint: apt-get install g++ binutils")
        if args.build_type and args.build_type != "Release":
            print(f"warning: wheelmod built as {args.build_type}; measure a Release build")
        summary = Summary("swapcheck", args.build_type)
        summary.tools = {"wheelmod": first_line([args.wheelmod, "--version"]),
                         "nm": first_line(["nm", "--version"]),
                         "gcc": first_line(["gcc", "--version"])}
        elf_files = args.elf_files
        for dependents in args.sizes:
            args.dependents = dependents
            args.elf_files = elf_files if elf_files is not None else \
                K_ELF_PER_DEPENDENT * dependents
            if len(args.sizes) > 1:
                print(f"\n=== {dependents} dependents, {args.elf_files} extension modules ===")
            run(args, work_parent, summary)
        summary.all_slopes("10 dependents", 10)
        summary.print()
        print(f"\nload average at the end: {load_average()}")
        if args.summary_json:
            summary.write(args.summary_json)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.smoke:
        print("ok: every verdict, reason and import count in wheelmod's report is as generated; "
              "nm and readelf read every file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
