#!/usr/bin/env python3
"""wheelmod's own easyconfigs (easyconfigs/*.eb) and the tarball they build
(scripts/dist.sh), without EasyBuild:

- each easyconfig, read with `ast` (nothing executed), is wheelmod at the
  version of the top CMakeLists.txt's project() line, CMakeMake, on the
  GCCcore of its generation in config/toolchains.yaml, with the sanity
  check, the pinned Mustache header and the tarball's checksum left to
  dist.sh;
- tests/easyconfig/check_easyconfig.py accepts them but for the two checks
  that only hold for the generated PythonBundles;
- CLI11 is a build dependency, or, for a GCCcore easybuild-easyconfigs
  has no CLI11 for (2025a's 14.2.0), the tarball of one of its CLI11
  easyconfigs as a further source, installed by preconfigopts and found
  through CLI11_DIR; with the snapshot of ../shared/easybuild, each
  dependency is the easyconfig its comment names and the CLI11 source has
  that easyconfig's URL and sha256;
- scripts/dist.sh gives the same bytes twice, the tarball holds the tree
  under wheelmod-<version>/, and its easyconfig copies carry its sha256.

Usage: test_self_easyconfig.py [REPO_ROOT]   (default: two levels above this file)
"""

import ast
import glob
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
CHECKER = 'tests/easyconfig/check_easyconfig.py'
# The checker's complaints that hold for the generated PythonBundles only.
PYTHONBUNDLE_ONLY = ("easyblock is 'CMakeMake', not 'PythonBundle'",
                     'PythonBundle needs Python as a dependency')
MUSTACHE = 'kainjow-mustache-4.1.hpp'
# sha256 of mustache.hpp at kainjow/Mustache tag v4.1 (= Debian 12's libkainjow-mustache-dev).
MUSTACHE_SHA256 = '6a07bd8c31be6bb3eae6df98b12f89df8931604bd890e8bba59298a68b89ff29'
# CLI11 as a source: CLI11-<v>.tar.gz, GitHub's v<v>.tar.gz of CLIUtils/CLI11.
CLI11_SOURCE = re.compile(r'CLI11-([0-9.]+)\.tar\.gz$')


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def project_version(root):
    text = read(os.path.join(root, 'CMakeLists.txt'))
    match = re.search(r'^project\(wheelmod VERSION ([0-9.]+)', text, re.M)
    return match.group(1)


def gcccore_by_generation(root):
    """{generation: GCCcore version} from config/toolchains.yaml (its two-space
    generation keys and their `gcccore:` lines; no YAML library needed)."""
    text = read(os.path.join(root, 'config', 'toolchains.yaml'))
    pairs = re.findall(r"^  '([^']+)':\s*\n    gcccore: '([^']+)'", text, re.M)
    return dict(pairs)


class Literal:
    """A name the easyconfig uses that EasyBuild defines (SYSTEM)."""
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Literal) and other.name == self.name

    def __repr__(self):
        return self.name


def parameters(path):
    """The easyconfig's top-level assignments, each a literal (ast.literal_eval
    with SYSTEM allowed); nothing is executed."""
    tree = ast.parse(read(path), filename=path)
    return assignments(tree, path)


def parameters_of_text(text, path):
    """An easybuild-easyconfigs file's assignments that are literals (its constants such as
    V_VERSION_TAR_GZ are not); nothing is executed."""
    found = {}
    for statement in ast.parse(text, filename=path).body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            try:
                found[statement.targets[0].id] = ast.literal_eval(statement.value)
            except ValueError:
                pass
    return found


def assignments(tree, path):
    found = {}
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            raise AssertionError(f'{path}:{statement.lineno}: not a plain `name = value`')
        found[statement.targets[0].id] = literal(statement.value, path)
    return found


def literal(node, path):
    if isinstance(node, ast.Name) and node.id == 'SYSTEM':
        return Literal('SYSTEM')
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [literal(item, path) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        return {literal(k, path): literal(v, path) for k, v in zip(node.keys, node.values)}
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise AssertionError(f'{path}:{node.lineno}: not a literal: {ast.dump(node)[:80]}')


def load_checker(root):
    sys.path.insert(0, os.path.join(root, 'tests', 'easyconfig'))
    try:
        import check_easyconfig
    finally:
        sys.path.pop(0)
    return check_easyconfig


class SelfEasyconfig(unittest.TestCase):
    root = ROOT

    @classmethod
    def setUpClass(cls):
        cls.version = project_version(cls.root)
        cls.gcccore = gcccore_by_generation(cls.root)
        cls.files = sorted(glob.glob(os.path.join(cls.root, 'easyconfigs', '*.eb')))

    def test_generations(self):
        """2024a, 2025a and 2025b at least; every file is a generation of toolchains.yaml."""
        self.assertGreaterEqual(len(self.gcccore), 7, self.gcccore)
        have = {os.path.basename(p) for p in self.files}
        for generation in ('2024a', '2025a', '2025b'):
            self.assertIn(f'wheelmod-{self.version}-GCCcore-{self.gcccore[generation]}.eb', have)

    def test_fields(self):
        for path in self.files:
            with self.subTest(easyconfig=os.path.basename(path)):
                p = parameters(path)
                self.assertEqual(p['easyblock'], 'CMakeMake')
                self.assertEqual(p['name'], 'wheelmod')
                self.assertEqual(p['version'], self.version)
                self.assertNotIn('versionsuffix', p)
                self.assertEqual(p['toolchain']['name'], 'GCCcore')
                # The first line names the generation; its GCCcore is that of toolchains.yaml.
                first = read(path).split('\n', 1)[0]
                match = re.search(r'generation (\S+) \(GCCcore ([0-9.]+)\)', first)
                self.assertTrue(match, first)
                self.assertEqual(self.gcccore[match.group(1)], match.group(2))
                self.assertEqual(p['toolchain']['version'], match.group(2))
                self.assertEqual(os.path.basename(path),
                                 f"wheelmod-{self.version}-GCCcore-{p['toolchain']['version']}.eb")
                self.assertEqual(p['moduleclass'], 'tools')
                self.assertTrue(p['homepage'] and p['description'])
                self.assertEqual(p['sanity_check_commands'], ['wheelmod --version'])
                self.assertIn('bin/wheelmod', p['sanity_check_paths']['files'])
                self.assertIn('share/wheelmod', p['sanity_check_paths']['dirs'])
                # A Release build through CMakeMake's build_type left at its default, as
                # easybuild-easyconfigs' test_pr_CMAKE_BUILD_TYPE demands (it refuses both
                # -DCMAKE_BUILD_TYPE in configopts and build_type = 'Release').
                self.assertNotIn('CMAKE_BUILD_TYPE', p['configopts'])
                self.assertNotIn('build_type', p)
                self.assertIn('-DWHEELMOD_BUILD_TESTS=OFF', p['configopts'])
                # No source_urls for the tarball; the pinned Mustache header as the second source.
                self.assertNotIn('source_urls', p)
                self.assertEqual(p['sources'][0], '%(name)s-%(version)s.tar.gz')
                self.assertEqual(p['sources'][1]['filename'], MUSTACHE)
                self.assertEqual(p['checksums'][:2], [None, MUSTACHE_SHA256])
                self.assertEqual(len(p['checksums']), len(p['sources']))
                for checksum in p['checksums'][2:]:
                    self.assertRegex(checksum, r'^[0-9a-f]{64}$')
                build = {d[0] for d in p['builddependencies']}
                self.assertLessEqual({'binutils', 'CMake', 'pkgconf', 'nlohmann_json'}, build)
                self.check_cli11(p, build)
                run = {d[0]: d for d in p['dependencies']}
                self.assertLessEqual({'cURL', 'libzip', 'yaml-cpp', 'zlib', 'elfutils', 'fmt',
                                      'OpenSSL'}, set(run))
                self.assertEqual(run['OpenSSL'], ('OpenSSL', '3', '', Literal('SYSTEM')))
                # Nothing from the OS: index pages are read without an HTML library.
                self.assertNotIn('osdependencies', p)

    def check_cli11(self, p, build):
        """CLI11 is a build dependency or a source that preconfigopts install into the build
        directory and configopts name as CLI11_DIR; never both."""
        extra = [s for s in p['sources'][2:] if CLI11_SOURCE.match(s['filename'])]
        if 'CLI11' in build:
            self.assertEqual(extra, [])
            self.assertNotIn('CLI11', p.get('preconfigopts', '') + p['configopts'])
            self.assertEqual(len(p['sources']), 2)
            return
        self.assertEqual(len(extra), 1, p['sources'])
        self.assertEqual(len(p['sources']), 3)
        source = extra[0]
        version = CLI11_SOURCE.match(source['filename']).group(1)
        self.assertEqual(source['download_filename'], f'v{version}.tar.gz')
        self.assertEqual(source['source_urls'],
                         ['https://github.com/CLIUtils/CLI11/archive/refs/tags/'])
        self.assertNotIn('extract_cmd', source)  # unpacked as CLI11-<v>/ into the build directory
        pre = p['preconfigopts']
        self.assertTrue(pre.endswith('&& '), pre)
        self.assertIn(f'cmake -S %(builddir)s/CLI11-{version} -B %(builddir)s/CLI11-build '
                      '-DCMAKE_INSTALL_PREFIX=%(builddir)s/CLI11 ', pre)
        for option in ('-DCLI11_BUILD_TESTS=OFF', '-DCLI11_BUILD_EXAMPLES=OFF',
                       '-DCLI11_BUILD_DOCS=OFF', 'cmake --install %(builddir)s/CLI11-build'):
            self.assertIn(option, pre)
        self.assertNotIn('%(installdir)s', pre)  # not installed with wheelmod
        self.assertIn('-DCLI11_DIR=%(builddir)s/CLI11/share/cmake/CLI11', p['configopts'])

    def test_dependencies_in_snapshot(self):
        """Each dependency is the easyconfig of easybuild-easyconfigs its comment names (in
        the snapshot tests/easybuild uses); a CLI11 source is that of a CLI11 easyconfig there,
        used only where the snapshot has no CLI11 for the GCCcore."""
        sys.path.insert(0, os.path.join(self.root, 'tests', 'easybuild'))
        try:
            import easybuild_snapshots
            try:
                _, tarballs = easybuild_snapshots.find({'easyconfigs': 'easybuild-easyconfigs-'})
            except easybuild_snapshots.SnapshotsAbsent as absent:
                self.skipTest(str(absent))
        finally:
            sys.path.pop(0)
        with tarfile.open(tarballs['easyconfigs']) as tar:
            members = {}
            for member in tar.getmembers():
                _, sep, below = member.name.partition('/easybuild/easyconfigs/')
                if sep and member.isfile() and below.endswith('.eb'):
                    members[below] = member
            def text_of(below):
                return tar.extractfile(members[below]).read().decode('utf-8')
            for path in self.files:
                with self.subTest(easyconfig=os.path.basename(path)):
                    p = parameters(path)
                    gcccore = p['toolchain']['version']
                    lines = read(path).splitlines()
                    for dependency in p['builddependencies'] + p['dependencies']:
                        name, version = dependency[:2]
                        suffix = (f'-{dependency[2]}' if len(dependency) > 2 and dependency[2]
                                  else '')
                        toolchain = ('' if len(dependency) > 3 else f'-GCCcore-{gcccore}')
                        below = f'{name[0].lower()}/{name}/{name}-{version}{toolchain}{suffix}.eb'
                        self.assertIn(below, members)
                        line = [l for l in lines if l.strip().startswith(f"('{name}', ")]
                        self.assertEqual(len(line), 1, name)
                        self.assertIn(f'# {below}', line[0])
                    cli11 = sorted(b for b in members if b.startswith('c/CLI11/')
                                   and b.endswith(f'-GCCcore-{gcccore}.eb'))
                    extra = [s for s in p['sources'][2:] if CLI11_SOURCE.match(s['filename'])]
                    if not extra:
                        continue
                    self.assertEqual(cli11, [], 'CLI11 has an easyconfig for this GCCcore: '
                                     'make it a build dependency')
                    version = CLI11_SOURCE.match(extra[0]['filename']).group(1)
                    pattern = rf'c/CLI11/CLI11-{re.escape(version)}-GCCcore-[0-9.]+\.eb'
                    upstream = [b for b in members if re.fullmatch(pattern, b)]
                    self.assertTrue(upstream, f'no CLI11 {version} easyconfig in the snapshot')
                    theirs = parameters_of_text(text_of(upstream[0]), upstream[0])
                    self.assertEqual(extra[0]['source_urls'], theirs['source_urls'])
                    self.assertEqual(p['checksums'][p['sources'].index(extra[0])],
                                     theirs['checksums'][0])

    def test_mustache_checksum_is_debians(self):
        """The pinned header is the one wheelmod is developed with, where it is installed."""
        header = '/usr/include/kainjow/mustache.hpp'
        if not os.path.exists(header):
            self.skipTest(f'{header} is not installed')
        with open(header, 'rb') as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), MUSTACHE_SHA256)

    def test_checker(self):
        """check_easyconfig.py's generic checks (style, known parameters, literal values,
        dependency shapes, file name) pass; its complaints are only the PythonBundle ones."""
        checker = load_checker(self.root)
        for path in self.files:
            with self.subTest(easyconfig=os.path.basename(path)):
                text = read(path)
                self.assertEqual(checker.check_style(path, text), [])
                for arch in ('x86_64', 'aarch64'):
                    params = checker.evaluate_file(ast.parse(text), arch)
                    for key in ('dependencies', 'builddependencies'):
                        for dependency in params[key]:
                            checker.check_dependency(dependency, key)
                    self.assertEqual(checker.expected_file_name(params), os.path.basename(path))
        done = subprocess.run([sys.executable, '-B', os.path.join(self.root, CHECKER)] + self.files,
                              capture_output=True, text=True)
        for line in done.stdout.splitlines():
            if line.startswith(('ok ', 'FAIL ')):
                continue
            self.assertTrue(line.endswith(PYTHONBUNDLE_ONLY), line)

    def test_dist(self):
        script = os.path.join(self.root, 'scripts', 'dist.sh')
        with tempfile.TemporaryDirectory() as tmp:
            outs = [os.path.join(tmp, 'a'), os.path.join(tmp, 'b')]
            runs = [subprocess.run(['bash', script, out], capture_output=True, text=True)
                    for out in outs]
            for done in runs:
                self.assertEqual(done.returncode, 0, done.stderr)
            name = f'wheelmod-{self.version}.tar.gz'
            tarballs = [os.path.join(out, 'w', 'wheelmod', name) for out in outs]
            blobs = []
            for path in tarballs:
                with open(path, 'rb') as f:
                    blobs.append(f.read())
            self.assertEqual(blobs[0], blobs[1], 'two runs gave different tarballs')
            sha = hashlib.sha256(blobs[0]).hexdigest()
            self.assertIn(f'sha256 {sha}', runs[0].stdout)
            self.assertIn(f'eb --robot --sourcepath={outs[0]} ', runs[0].stdout)

            with tarfile.open(tarballs[0]) as tar:
                names = tar.getnames()
                prefix = f'wheelmod-{self.version}/'
                self.assertTrue(all(n == prefix.rstrip('/') or n.startswith(prefix) for n in names))
                self.assertIn(prefix + 'CMakeLists.txt', names)
                self.assertIn(prefix + 'scripts/dist.sh', names)
                members = tar.getmembers()
                self.assertEqual(len({m.mtime for m in members}), 1, 'not one fixed mtime')
            commit = subprocess.run(['git', '-C', self.root, 'log', '-1', '--format=%ct'],
                                    capture_output=True, text=True, check=True).stdout.strip()
            self.assertEqual(members[0].mtime, int(commit))

            directory = os.path.dirname(tarballs[0])
            head = subprocess.run(['git', '-C', self.root, 'ls-tree', '--name-only', 'HEAD',
                                   'easyconfigs/'], capture_output=True, text=True, check=True)
            committed = sorted(os.path.basename(p)
                               for p in head.stdout.split() if p.endswith('.eb'))
            copies = sorted(os.path.basename(p)
                            for p in glob.glob(os.path.join(directory, '*.eb')))
            self.assertEqual(copies, committed)
            self.assertTrue(copies)
            checker = load_checker(self.root)
            for copy in copies:
                with self.subTest(copy=copy):
                    path = os.path.join(directory, copy)
                    p = parameters(path)
                    shipped = parameters(os.path.join(self.root, 'easyconfigs', copy))
                    self.assertEqual(p['checksums'],
                                     [sha, MUSTACHE_SHA256] + shipped['checksums'][2:])
                    self.assertIn(f'{os.path.join(directory, copy)}\n', runs[0].stdout)
                    self.assertEqual(checker.check_style(path, read(path)), [])
            if os.path.exists(os.path.join(directory, MUSTACHE)):
                with open(os.path.join(directory, MUSTACHE), 'rb') as f:
                    self.assertEqual(hashlib.sha256(f.read()).hexdigest(), MUSTACHE_SHA256)


if __name__ == '__main__':
    if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]):
        SelfEasyconfig.root = os.path.abspath(sys.argv.pop(1))
    unittest.main()
