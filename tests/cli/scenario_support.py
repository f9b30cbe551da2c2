"""What the CLI scenario scripts share: a failure type, check(), and a main()
that parses the common options, runs one named scenario and maps the result
to an exit code (0 ok, 1 failed, 77 skipped: CTest's SKIP_RETURN_CODE), or with
--list prints the scenarios for CTest."""
import argparse
import base64
import csv
import hashlib
import html.parser
import os
import socket
import subprocess
import sys
import time
import types


class Failure(Exception):
    pass


class Skipped(Exception):
    """What the scenario needs is not here (said in the message): CTest reports it skipped."""


SKIP_EXIT = 77


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


def verify_record_rows(site, dist):
    """Every RECORD row of `dist` (a dist-info path) with a hash matches its file under `site`."""
    name = os.path.basename(dist)
    with open(os.path.join(dist, "RECORD"), newline="") as handle:
        for path, digest, size in csv.reader(handle):
            if not digest:
                continue
            with open(os.path.normpath(os.path.join(site, path)), "rb") as member:
                data = member.read()
            algorithm, value = digest.split("=", 1)
            computed = base64.urlsafe_b64encode(hashlib.new(algorithm, data).digest()).rstrip(b"=")
            check(computed.decode() == value, f"{name}: RECORD row for {path} does not match the file")
            check(int(size) == len(data), f"{name}: RECORD size for {path} is wrong")


def verify_site_records(site):
    """Every RECORD of `site` (a site-packages) is true: each row with a hash matches its file
    (verify_record_rows), and each row names a file that is there (a file removed after
    unpacking, such as a bundled library a module replaced, leaves no row). Returns the
    dist-info names."""
    import glob
    dists = sorted(glob.glob(os.path.join(site, "*.dist-info")))
    check(dists, f"no dist-info in {site}")
    for dist in dists:
        verify_record_rows(site, dist)
        with open(os.path.join(dist, "RECORD"), newline="") as handle:
            for path, _, _ in csv.reader(handle):
                check(os.path.lexists(os.path.normpath(os.path.join(site, path))),
                      f"{os.path.basename(dist)}/RECORD lists {path}, which is gone")
    return [os.path.basename(d) for d in dists]


def write_stand_in_module(modulepath, module, root, syntax="lua"):
    """A stand-in for the EasyBuild module `module` (Name/version) under modulepath/all: it sets
    EBROOT<NAME> to `root` and EBVERSION<NAME> to the version's first part, as EasyBuild's
    modules do (the variable name converted as easybuild.tools.filetools.convert_name)."""
    name, version = module.split("/", 1)
    variable = name.upper().replace("-", "MIN").replace("+", "PLUS").replace(".", "")
    path = os.path.join(modulepath, "all", name, version + (".lua" if syntax == "lua" else ""))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        if syntax == "lua":
            handle.write(f'setenv("EBROOT{variable}", "{root}")\n'
                         f'setenv("EBVERSION{variable}", "{version.split("-")[0]}")\n')
        else:
            handle.write(f"#%Module\nsetenv EBROOT{variable} {root}\n"
                         f"setenv EBVERSION{variable} {version.split('-')[0]}\n")
    return path


class Anchors(html.parser.HTMLParser):
    """The attributes of every <a> of an HTML page, in order."""
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs))


def anchors(page):
    parser = Anchors()
    with open(page, encoding="utf-8") as handle:
        parser.feed(handle.read())
    return parser.links


_NODE_VIEW = []  # the process's NodeView under WHEELMOD_TEST_NODE_VIEW, made on first use


def in_node_view(command):
    """`command` as it runs: in a compute node's view under WHEELMOD_TEST_NODE_VIEW=1 (the
    .node_view registrations: no host CUDA in the linker cache, the CUDA tree empty), else as
    given. The view is made once a process; where it cannot be, the scenario is Skipped."""
    if os.environ.get("WHEELMOD_TEST_NODE_VIEW") != "1":
        return list(command)
    if not _NODE_VIEW:
        import atexit
        import shutil
        import tempfile
        from node_view import NodeView
        work = tempfile.mkdtemp(prefix="wheelmod-node-view-")
        atexit.register(shutil.rmtree, work, True)
        _NODE_VIEW.append(NodeView(work, None))
    return _NODE_VIEW[0].wrap(command)


def run_expecting(command, expect=0, timeout=120, env=None, cwd=None):
    """Runs `command` (in `cwd`; in the node view under WHEELMOD_TEST_NODE_VIEW), prints it with
    its exit code, and fails (printing its output) unless it exits with `expect`."""
    command = in_node_view(command)
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                            cwd=cwd)
    print("ran:", " ".join(command), "->", result.returncode)
    if result.returncode != expect:
        print("stdout:\n" + result.stdout + "\nstderr:\n" + result.stderr)
        raise Failure(f"exit code {result.returncode}, expected {expect}")
    return result


# What --list may say of a scenario (tests/cli/CMakeLists.txt reads it): the options CTest passes
# besides --wheelmod and --sample, in that order (tests/cli/CMakeLists.txt maps each to its
# value, and registers the scenario only where all of them have one), the CTest fixtures it
# needs, its timeout in seconds.
CTEST_SETTINGS = ("options", "fixtures", "timeout", "node_view")


def ctest_listing(scenarios, ctest, known_options):
    """The lines `--list` prints, one per scenario in the order of `scenarios`:
    `NAME [options=--a,--b] [fixtures=x,y] [timeout=SECONDS] [node_view=1]`, fields separated by
    one space. node_view: CTest registers the scenario a second time (NAME.node_view) with
    WHEELMOD_TEST_NODE_VIEW=1, under which run_expecting runs every command in a compute node's
    view (node_view.py).
    `ctest` maps a scenario's name to its settings (CTEST_SETTINGS); the settings of "*" apply
    to every scenario, a scenario's own replace them key by key. Raises ValueError when `ctest`
    names no scenario of `scenarios`, a setting is unknown, or an option is not one of
    `known_options` (what the parser accepts)."""
    ctest = dict(ctest or {})
    default = ctest.pop("*", {})
    strays = sorted(set(ctest) - set(scenarios))
    if strays:
        raise ValueError(f"CTEST names no scenario: {', '.join(strays)}")
    lines = []
    for name in scenarios:
        if not name.isidentifier():
            raise ValueError(f"scenario name {name!r} is not an identifier")
        settings = {**default, **ctest.get(name, {})}
        unknown = sorted(set(settings) - set(CTEST_SETTINGS))
        if unknown:
            raise ValueError(f"{name}: unknown CTEST setting {', '.join(unknown)} "
                             f"(known: {', '.join(CTEST_SETTINGS)})")
        fields = [name]
        options = list(settings.get("options", ()))
        for option in options:
            if option not in known_options:
                raise ValueError(f"{name}: option {option} is not one the script accepts "
                                 f"({', '.join(known_options)})")
        if options:
            fields.append("options=" + ",".join(options))
        fixtures = settings.get("fixtures", ())
        fixtures = [fixtures] if isinstance(fixtures, str) else list(fixtures)
        for fixture in fixtures:
            if not fixture.isidentifier():
                raise ValueError(f"{name}: fixture name {fixture!r} is not an identifier")
        if fixtures:
            fields.append("fixtures=" + ",".join(fixtures))
        timeout = settings.get("timeout")
        if timeout is not None:
            if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
                raise ValueError(f"{name}: timeout {timeout!r} is not a positive whole number")
            fields.append(f"timeout={timeout}")
        node_view = settings.get("node_view", False)
        if not isinstance(node_view, bool):
            raise ValueError(f"{name}: node_view {node_view!r} is not True or False")
        if node_view:
            fields.append("node_view=1")
        lines.append(" ".join(fields))
    return lines


def scenario_main(description, scenarios, make_runner, extra_options=(), ctest=None):
    """Runs the scenario named on the command line with make_runner(args);
    a runner with a close() method is closed afterwards, pass or fail.
    With --list (and nothing else needed), prints the scenarios as CTest registers them
    (ctest_listing: `ctest` holds what a scenario needs beyond --wheelmod and --sample)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--list", action="store_true",
                        help="print the scenarios, one a line, with what CTest needs to run each, "
                             "and exit (tests/cli/CMakeLists.txt reads it)")
    parser.add_argument("--wheelmod")
    parser.add_argument("--sample")
    parser.add_argument("--http-state")
    for option in extra_options:
        parser.add_argument(option)
    parser.add_argument("scenario", nargs="?", choices=sorted(scenarios))
    args = parser.parse_args()
    if args.list:
        try:
            lines = ctest_listing(scenarios, ctest, ["--http-state", *extra_options])
        except ValueError as error:
            print(f"{parser.prog}: error: --list: {error}", file=sys.stderr)
            return 2
        print("\n".join(lines))
        return 0
    missing = [option for option, value in (("--wheelmod", args.wheelmod), ("--sample", args.sample),
                                            ("scenario", args.scenario)) if value is None]
    if missing:
        parser.error(f"the following arguments are required: {', '.join(missing)}")
    runner = make_runner(args)
    try:
        scenarios[args.scenario](runner)
    except Failure as failure:
        print("FAIL:", failure)
        return 1
    except Skipped as reason:
        print("skipped:", reason)
        return SKIP_EXIT
    finally:
        if hasattr(runner, "close"):
            runner.close()
    print("ok:", args.scenario)
    return 0


def lmod_apply(lmod_cmd, environment, *args):
    """Runs `lmod python ARGS` (whose output is Python code that sets the environment) and
    applies it to a copy of `environment`; returns (new environment, ok, stderr)."""
    result = subprocess.run([lmod_cmd, "python", *args], capture_output=True, text=True,
                            env=environment, timeout=120)
    changed = dict(environment)
    namespace = {"os": types.SimpleNamespace(environ=changed)}
    exec("\n".join(line for line in result.stdout.splitlines() if line.strip() != "import os"),
         namespace)
    return changed, namespace.get("_mlstatus", result.returncode == 0), result.stderr


def serve_locally(handler_class):
    """A ThreadingHTTPServer (HTTP/1.1 only) for `handler_class` on a free port of 127.0.0.1,
    serving from a daemon thread; stop it with stop_server."""
    import http.server
    import threading
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop_server(server):
    server.shutdown()
    server.server_close()


def free_port():
    """A TCP port of 127.0.0.1 no one listens on now (a server may still take it first)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port, timeout=15):
    """Returns once something accepts connections on 127.0.0.1:`port`; Failure after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise Failure(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def make_test_ca(directory):
    """A test CA and a server certificate it signs for 127.0.0.1 and localhost, made with
    openssl: (ca.pem, server.pem, server.key)."""
    os.makedirs(directory, exist_ok=True)
    ca_key, ca = os.path.join(directory, "ca.key"), os.path.join(directory, "ca.pem")
    key, csr = os.path.join(directory, "server.key"), os.path.join(directory, "server.csr")
    cert, ext = os.path.join(directory, "server.pem"), os.path.join(directory, "ext.cnf")
    with open(ext, "w", encoding="utf-8") as handle:
        handle.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for command in (
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=wheelmod test site CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", ca_key, "-out", ca],
            ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
             "-keyout", key, "-out", csr],
            ["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
             "-days", "2", "-out", cert, "-extfile", ext]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise Failure(f"{' '.join(command[:2])} failed: {result.stderr}")
    return ca, cert, key
