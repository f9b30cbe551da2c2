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
        """2024a and 2025b at least; every file is a generation of toolchains.yaml."""
        self.assertGreaterEqual(len(self.gcccore), 7, self.gcccore)
        have = {os.path.basename(p) for p in self.files}
        for generation in ('2024a', '2025b'):
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
                self.assertEqual(p['checksums'], [None, MUSTACHE_SHA256])
                build = {d[0] for d in p['builddependencies']}
                self.assertLessEqual({'binutils', 'CMake', 'pkgconf'}, build)
                run = {d[0]: d for d in p['dependencies']}
                self.assertLessEqual({'cURL', 'libzip', 'yaml-cpp', 'zlib', 'elfutils', 'fmt',
                                      'OpenSSL'}, set(run))
                self.assertEqual(run['OpenSSL'], ('OpenSSL', '3', '', Literal('SYSTEM')))
                # Nothing from the OS: index pages are read without an HTML library.
                self.assertNotIn('osdependencies', p)

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
                    self.assertEqual(p['checksums'], [sha, MUSTACHE_SHA256])
                    self.assertIn(f'{os.path.join(directory, copy)}\n', runs[0].stdout)
                    self.assertEqual(checker.check_style(path, read(path)), [])
            if os.path.exists(os.path.join(directory, MUSTACHE)):
                with open(os.path.join(directory, MUSTACHE), 'rb') as f:
                    self.assertEqual(hashlib.sha256(f.read()).hexdigest(), MUSTACHE_SHA256)


if __name__ == '__main__':
    if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]):
        SelfEasyconfig.root = os.path.abspath(sys.argv.pop(1))
    unittest.main()
