#!/usr/bin/env python3
"""Checks generated easyconfigs the way a reviewer of easybuild-easyconfigs
would, without EasyBuild: parse with `ast`, evaluate the assignments for
each architecture with a small evaluator (no exec), and check

- every top-level name is a known easyconfig parameter or a `local_`
  variable (EasyBuild refuses other names);
- mandatory parameters are there, easyblock is PythonBundle;
- every exts_list entry has `checksums` covering every source (a sha256
  string, or a dict keyed by the file name) and only known options, so a
  typo like `checsums`, which EasyBuild skips silently, fails here;
- the file name is <name>-<version>-<toolchain>-<tcversion><versionsuffix>.eb;
- dependency tuples have EasyBuild's shape;
- the style `eb --check-contrib` enforces (120 columns, no tabs, no
  trailing whitespace; pycodestyle itself when it is installed).

    check_easyconfig.py [--arch x86_64 --arch aarch64] FILE.eb...
"""
import argparse
import ast
import os
import re
import sys

# Parameters from the EasyBuild documentation, "Available easyconfig
# parameters" (docs.easybuild.io/version-specific/easyconfig-parameters,
# easybuild-docs docs/version-specific/easyconfig-parameters.md) ...
GENERIC_PARAMETERS = {
    "description", "docurls", "homepage", "name", "software_license", "software_license_urls",
    "toolchain", "version", "onlytcmod", "toolchainopts", "banned_linked_shared_libs",
    "bin_lib_subdirs", "bitbucket_account", "buildopts", "checksums", "configopts",
    "cuda_compute_capabilities", "download_instructions", "easyblock", "easybuild_version",
    "enhance_sanity_check", "fix_bash_shebang_for", "fix_perl_shebang_for", "fix_python_shebang_for",
    "github_account", "hidden", "installopts", "maxparallel", "module_only", "patches",
    "postinstallcmds", "postinstallmsgs", "postinstallpatches", "prebuildopts", "preconfigopts",
    "preinstallopts", "pretestopts", "required_linked_shared_libs", "runtest",
    "sanity_check_commands", "sanity_check_paths", "skip", "skip_mod_files_sanity_check",
    "skipsteps", "source_urls", "sources", "stop", "testopts", "tests", "unpack_options",
    "unwanted_env_vars", "versionprefix", "versionsuffix", "buildininstalldir", "cleanupoldbuild",
    "cleanupoldinstall", "dontcreateinstalldir", "keeppreviousinstall", "keepsymlinks", "start_dir",
    "allow_system_deps", "builddependencies", "dependencies", "hiddendependencies",
    "moddependpaths", "multi_deps", "multi_deps_load_default", "osdependencies", "accept_eula",
    "group", "key", "license_file", "license_server", "license_server_port", "exts_classmap",
    "exts_default_options", "exts_defaultclass", "exts_download_dep_fail", "exts_filter",
    "exts_list", "citing", "docpaths", "examples", "include_modpath_extensions", "modaliases",
    "modaltsoftname", "modextrapaths", "modextravars", "modloadmsg", "modluafooter",
    "modtclfooter", "module_depends_on", "module_search_path_headers", "moduleclass",
    "moduleforceunload", "moduleloadnoconflict", "modunloadmsg", "recursive_module_unload",
    "site_contacts", "upstream_contacts", "usage", "whatis", "block", "build_info_msg",
    "buildstats", "deprecated",
}
# ... and the extra parameters of the PythonBundle easyblock ("Generic
# easyblocks", docs/version-specific/generic-easyblocks.md, PythonBundle),
# which PythonBundle also passes to its PythonPackage extensions.
PYTHONBUNDLE_PARAMETERS = {
    "altroot", "altversion", "buildcmd", "check_ldshared", "click_autocomplete_bins", "components",
    "default_component_specs", "default_easyblock", "download_dep_fail", "dummy_package",
    "fix_python_shebang_for", "install_src", "install_target", "max_py_majver", "max_py_minver",
    "options", "pip_ignore_installed", "pip_no_build_isolation", "pip_no_index", "pip_verbose",
    "req_py_majver", "req_py_minver", "runtest", "sanity_check_all_components",
    "sanity_check_components", "sanity_check_pip_list", "sanity_pip_check", "source_urls",
    "testinstall", "unpack_sources", "unversioned_packages", "use_pip", "use_pip_editable",
    "use_pip_extras", "use_pip_for_deps", "use_pip_requirement", "zipped_egg",
}
KNOWN_PARAMETERS = GENERIC_PARAMETERS | PYTHONBUNDLE_PARAMETERS
# Options of one exts_list entry: the source options of the framework's
# Extension class plus what a PythonPackage extension accepts.
EXTENSION_OPTIONS = {"source_urls", "sources", "source_tmpl", "checksums", "patches", "modulename",
                     "nosource", "skipsteps"} | PYTHONBUNDLE_PARAMETERS
MANDATORY = ("easyblock", "name", "version", "homepage", "description", "toolchain", "moduleclass")
# framework tools/config.py DEFAULT_MODULECLASSES (the ones Stage-1 uses and neighbours)
MODULECLASSES = {"ai", "base", "bio", "cae", "chem", "compiler", "data", "debugger", "devel", "geo",
                 "ide", "lang", "lib", "math", "mpi", "numlib", "perf", "quantum", "phys", "system",
                 "toolchain", "tools", "vis"}
SHA256 = re.compile(r"^[0-9a-f]{64}$")


class System:
    """EasyBuild's SYSTEM toolchain constant."""
    def __repr__(self):
        return "SYSTEM"


SYSTEM = System()


class Problem(Exception):
    pass


def evaluate(node, names):
    """The value of a literal expression: constants, lists, tuples, dicts,
    names assigned before, subscripts and `+`. Anything else is refused:
    a generated easyconfig stays that simple."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [evaluate(item, names) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(evaluate(item, names) for item in node.elts)
    if isinstance(node, ast.Dict):
        return {evaluate(k, names): evaluate(v, names) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise Problem(f"line {node.lineno}: {node.id} is used before it is assigned")
        return names[node.id]
    if isinstance(node, ast.Subscript):
        value = evaluate(node.value, names)
        key = evaluate(node.slice, names)
        try:
            return value[key]
        except (KeyError, IndexError, TypeError):
            raise Problem(f"line {node.lineno}: no entry {key!r}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return evaluate(node.left, names) + evaluate(node.right, names)
    raise Problem(f"line {node.lineno}: unsupported expression {ast.dump(node)[:60]}")


def evaluate_file(tree, arch):
    """Runs the top-level assignments for ARCH = arch; returns the parameters."""
    names = {"ARCH": arch, "SYSTEM": SYSTEM}
    params = {}
    for statement in tree.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 or \
                not isinstance(statement.targets[0], ast.Name):
            raise Problem(f"line {statement.lineno}: only `name = value` statements are expected")
        target = statement.targets[0].id
        if target not in KNOWN_PARAMETERS and not target.startswith("local_"):
            raise Problem(f"line {statement.lineno}: {target} is not an easyconfig parameter "
                          "(and not a local_ variable)")
        names[target] = evaluate(statement.value, names)
        if not target.startswith("local_"):
            params[target] = names[target]
    return params


def check_dependency(dependency, where):
    if not isinstance(dependency, tuple) or not 2 <= len(dependency) <= 4:
        raise Problem(f"{where}: {dependency!r} is not (name, version[, suffix[, toolchain]])")
    if not all(isinstance(part, str) for part in dependency[:3]):
        raise Problem(f"{where}: {dependency!r}: name, version and suffix must be strings")
    if len(dependency) == 4 and not (dependency[3] is SYSTEM or isinstance(dependency[3], tuple)):
        raise Problem(f"{where}: {dependency!r}: the toolchain must be SYSTEM or (name, version)")


def check_extension(entry, dummy):
    if not isinstance(entry, tuple) or len(entry) not in (2, 3) or \
            not all(isinstance(part, str) for part in entry[:2]):
        raise Problem(f"exts_list: {entry!r} is not (name, version[, options])")
    name = entry[0]
    options = entry[2] if len(entry) == 3 else {}
    unknown = set(options) - EXTENSION_OPTIONS
    if unknown:
        raise Problem(f"exts_list {name}: unknown options {sorted(unknown)} (EasyBuild skips them silently)")
    if dummy:
        return
    sources = options.get("sources")
    checksums = options.get("checksums")
    if not sources or not options.get("source_urls"):
        raise Problem(f"exts_list {name}: no sources or no source_urls")
    if not isinstance(checksums, list) or len(checksums) != len(sources):
        raise Problem(f"exts_list {name}: checksums must list one entry per source")
    for source, checksum in zip(sources, checksums):
        filename = source if isinstance(source, str) else source.get("filename")
        if not isinstance(filename, str) or not filename:
            raise Problem(f"exts_list {name}: a source without a file name: {source!r}")
        if isinstance(checksum, dict):
            checksum = checksum.get(filename)
        if not isinstance(checksum, str) or not SHA256.match(checksum):
            raise Problem(f"exts_list {name}: no sha256 for {filename}")


def expected_file_name(params):
    suffix = params.get("versionsuffix", "")
    if "%(cudaver)s" in suffix:
        cuda = [d for d in params.get("dependencies", []) if d[0] == "CUDA"]
        if not cuda:
            raise Problem("versionsuffix uses %(cudaver)s, but CUDA is not a dependency")
        suffix = suffix.replace("%(cudaver)s", cuda[0][1])
    toolchain = params["toolchain"]
    middle = "" if toolchain is SYSTEM else f"-{toolchain['name']}-{toolchain['version']}"
    return f"{params['name']}-{params['version']}{middle}{suffix}.eb"


def check_style(path, text):
    problems = []
    for number, line in enumerate(text.split("\n"), 1):
        if len(line) > 120:
            problems.append(f"{path}:{number}: {len(line)} columns (at most 120)")
        if "\t" in line:
            problems.append(f"{path}:{number}: a tab")
        if line != line.rstrip():
            problems.append(f"{path}:{number}: trailing whitespace")
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and indent % 4 != 0 and not line.lstrip().startswith(("'", '"')):
            problems.append(f"{path}:{number}: indent {indent} is not a multiple of 4")
    if not text.endswith("\n") or text.endswith("\n\n"):
        problems.append(f"{path}: must end with exactly one newline")
    try:  # what `eb --check-contrib` runs (framework easyconfig/style.py)
        import pycodestyle
    except ImportError:
        return problems
    guide = pycodestyle.StyleGuide(quiet=True, max_line_length=120)
    guide.options.ignore = ("W291",)
    report = guide.check_files([path])
    if report.total_errors:
        problems.append(f"{path}: pycodestyle reports {report.total_errors} problems "
                        f"(run pycodestyle --max-line-length=120 {path})")
    return problems


def check_file(path, arches=("x86_64", "aarch64")):
    """Returns (problems, {arch: parameters})."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    problems = check_style(path, text)
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as error:
        return problems + [f"{path}: not valid Python: {error}"], {}
    evaluated = {}
    for arch in arches:
        try:
            params = evaluate_file(tree, arch)
            for key in MANDATORY:
                if key not in params:
                    raise Problem(f"mandatory parameter {key} is missing")
            if params["easyblock"] != "PythonBundle":
                raise Problem(f"easyblock is {params['easyblock']!r}, not 'PythonBundle'")
            if params["moduleclass"] not in MODULECLASSES:
                raise Problem(f"moduleclass {params['moduleclass']!r} is not one of EasyBuild's")
            for key in ("dependencies", "builddependencies"):
                for dependency in params.get(key, []):
                    check_dependency(dependency, key)
            if not any(d[0] == "Python" for d in params.get("dependencies", [])):
                raise Problem("PythonBundle needs Python as a dependency")
            for entry in params.get("exts_list", []):
                check_extension(entry, params.get("dummy_package") is True)
            for key in ("sanity_check_commands", "postinstallcmds"):
                if not all(isinstance(c, str) for c in params.get(key, [])):
                    raise Problem(f"{key} must be a list of strings")
            name = expected_file_name(params)
            if os.path.basename(path) != name:
                raise Problem(f"the file name should be {name}")
            evaluated[arch] = params
        except Problem as problem:
            problems.append(f"{path} (ARCH={arch}): {problem}")
    return problems, evaluated


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", action="append")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    failed = False
    for path in args.files:
        problems, _ = check_file(path, tuple(args.arch or ("x86_64", "aarch64")))
        for problem in problems:
            print(problem)
        failed = failed or bool(problems)
        print(("FAIL " if problems else "ok   ") + path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
