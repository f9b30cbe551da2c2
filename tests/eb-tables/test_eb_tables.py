#!/usr/bin/env python3
"""Round trip of scripts/eb-tables.py: generation 2026.1, regenerated from the
easyconfigs excerpt next to this file, is config/ byte for byte; a changed
excerpt makes --check fail with a diff; --write touches only its own block. The
compiler and MPI of each toolchain (for HierarchicalMNS) are those of the toolchain
easyconfigs: foss-like, compiler-only (GCC, GCCcore, rocm-compilers) and rompi.

Usage: test_eb_tables.py [REPO_ROOT]   (default: two levels above this file)
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
SCRIPT = os.path.join(ROOT, 'scripts', 'eb-tables.py')
EXCERPT = os.path.join(HERE, 'easyconfigs')
# Toolchain easyconfigs of the same commit that generating 2026.1 does not read (rompi).
TOOLCHAINS = os.path.join(HERE, 'toolchains')
CONFIG = os.path.join(ROOT, 'config')
FILES = ['toolchains.yaml', 'eb-dependencies.yaml']
GENERATION = '2026.1'


def run(*args):
    return subprocess.run([sys.executable, '-B', SCRIPT] + list(args),
                          capture_output=True, text=True)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def blocks(text):
    """{generation: its lines}, and the header before the first block."""
    parts = re.split(r"(?m)^(?=  '[^']+':\s*$)", text)
    found = {}
    for part in parts[1:]:
        found[re.match(r"  '([^']+)'", part).group(1)] = part.rstrip('\n')
    return parts[0], found


def load_script():
    spec = importlib.util.spec_from_file_location('eb_tables', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.mkdtemp(prefix='eb-tables-')

    def tearDown(self):
        shutil.rmtree(self.temp)

    def copy(self, source, name):
        target = os.path.join(self.temp, name)
        shutil.copytree(source, target)
        return target

    def check(self, easyconfigs, config=CONFIG):
        return run('--easyconfigs', easyconfigs, '--generation', GENERATION, '--check', config)

    def test_excerpt_regenerates_the_shipped_files(self):
        done = self.check(EXCERPT)
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, '', ''))

    def test_stdout_blocks_are_the_shipped_blocks(self):
        done = run('--easyconfigs', EXCERPT, '--generation', GENERATION)
        self.assertEqual(done.returncode, 0, done.stderr)
        for filename in FILES:
            shipped = blocks(read(os.path.join(CONFIG, filename)))[1][GENERATION]
            self.assertIn(f'# --- {filename}, generation {GENERATION}\n{shipped}\n',
                          done.stdout)

    def test_excerpt_is_exactly_what_the_generator_reads(self):
        done = run('--easyconfigs', EXCERPT, '--generation', GENERATION, '--list-inputs')
        self.assertEqual(done.returncode, 0, done.stderr)
        present = sorted(os.path.relpath(os.path.join(d, f), EXCERPT).replace(os.sep, '/')
                         for d, _, files in os.walk(EXCERPT) for f in files)
        self.assertEqual(done.stdout.split(), present)

    def test_other_cudnn_version_fails_the_check(self):
        excerpt = self.copy(EXCERPT, 'easyconfigs')
        old = os.path.join(excerpt, 'c/cuDNN/cuDNN-9.23.0.39-CUDA-13.3.0.eb')
        text = read(old).replace("version = '9.23.0.39'", "version = '9.24.0.1'")
        os.remove(old)
        write(os.path.join(excerpt, 'c/cuDNN/cuDNN-9.24.0.1-CUDA-13.3.0.eb'), text)
        done = self.check(excerpt)
        self.assertEqual(done.returncode, 1, done.stderr)
        removed = [ln for ln in done.stdout.splitlines() if ln.startswith('-  ')]
        added = [ln for ln in done.stdout.splitlines() if ln.startswith('+  ')]
        self.assertEqual(len(removed), 1, done.stdout)
        self.assertEqual(len(added), 1, done.stdout)
        self.assertIn("module: 'cuDNN/9.23.0.39-CUDA-13.3.0'", removed[0])
        self.assertIn("module: 'cuDNN/9.24.0.1-CUDA-13.3.0'", added[0])
        self.assertIn('--- ' + os.path.join(CONFIG, 'eb-dependencies.yaml'), done.stdout)

    def test_new_main_cuda_fails_the_check(self):
        excerpt = self.copy(EXCERPT, 'easyconfigs')
        cuda = read(os.path.join(excerpt, 'c/CUDA/CUDA-13.3.0.eb'))
        write(os.path.join(excerpt, 'c/CUDA/CUDA-13.4.0.eb'),
              cuda.replace("version = '13.3.0'", "version = '13.4.0'"))
        for i in range(8):  # more users than CUDA 13.3.0's 7
            write(os.path.join(excerpt, f'x/Xtest{i}/Xtest{i}-1.0-GCCcore-15.2.0-CUDA-13.4.0.eb'),
                  f"name = 'Xtest{i}'\nversion = '1.0'\nversionsuffix = '-CUDA-%(cudaver)s'\n"
                  "toolchain = {'name': 'GCCcore', 'version': '15.2.0'}\n"
                  "dependencies = [('CUDA', '13.4.0', '', SYSTEM)]\n")
        done = self.check(excerpt)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertRegex(done.stdout, r"(?m)^\+    cuda: \{version: '13\.4\.0', "
                                      r"module: 'CUDA/13\.4\.0'\} +# c/CUDA/CUDA-13\.4\.0\.eb; "
                                      r"8 easyconfigs \*-2026\.1-CUDA-13\.4\.0$")
        self.assertRegex(done.stdout, r"(?m)^\+    cuda_other: \['13\.3\.0'\] ")
        self.assertRegex(done.stdout, r"(?m)^-    cuda: \{version: '13\.3\.0'")
        # The libraries of the old main CUDA are no longer listed (README, Gaps).
        self.assertRegex(done.stdout, r"(?m)^\+        provided_by: \[\]   # no cuDNN module")

    def test_write_changes_only_its_own_block(self):
        excerpt = self.copy(EXCERPT, 'easyconfigs')
        path = os.path.join(excerpt, 'n/NCCL/NCCL-2.30.4-GCCcore-15.2.0-CUDA-13.3.0.eb')
        write(path.replace('2.30.4', '2.31.0'),
              read(path).replace("version = '2.30.4'", "version = '2.31.0'"))
        os.remove(path)
        config = self.copy(CONFIG, 'config')
        done = run('--easyconfigs', excerpt, '--generation', GENERATION, '--write', config)
        self.assertEqual(done.returncode, 0, done.stderr)
        for filename in FILES:
            shipped_header, shipped = blocks(read(os.path.join(CONFIG, filename)))
            written_header, written = blocks(read(os.path.join(config, filename)))
            self.assertEqual(written_header, shipped_header)
            self.assertEqual(list(written), list(shipped))
            for generation in shipped:
                if generation != GENERATION:
                    self.assertEqual(written[generation], shipped[generation], generation)
        self.assertIn("'NCCL/2.31.0-GCCcore-15.2.0-CUDA-13.3.0'",
                      blocks(read(os.path.join(config, 'eb-dependencies.yaml')))[1][GENERATION])
        # Writing the unchanged excerpt back gives the shipped bytes again.
        done = run('--easyconfigs', EXCERPT, '--generation', GENERATION, '--write', config)
        self.assertEqual(done.returncode, 0, done.stderr)
        for filename in FILES:
            self.assertEqual(read(os.path.join(config, filename)),
                             read(os.path.join(CONFIG, filename)), filename)

    def test_write_inserts_a_missing_generation(self):
        config = self.copy(CONFIG, 'config')
        for filename in FILES:
            text = read(os.path.join(config, filename))
            header, found = blocks(text)
            kept = [b for g, b in found.items() if g != GENERATION]
            write(os.path.join(config, filename), header + '\n\n'.join(kept) + '\n')
        done = self.check(EXCERPT, config)
        self.assertEqual(done.returncode, 1)
        self.assertIn(f"+  '{GENERATION}':", done.stdout)
        done = run('--easyconfigs', EXCERPT, '--generation', GENERATION, '--write', config)
        self.assertEqual(done.returncode, 0, done.stderr)
        for filename in FILES:
            self.assertEqual(read(os.path.join(config, filename)),
                             read(os.path.join(CONFIG, filename)), filename)

    def test_write_creates_site_files(self):
        site = os.path.join(self.temp, 'site')
        os.makedirs(site)
        done = run('--easyconfigs', EXCERPT, '--generation', GENERATION, '--write', site)
        self.assertEqual(done.returncode, 0, done.stderr)
        for filename in FILES:
            text = read(os.path.join(site, filename))
            self.assertIn('schema: 1\ngenerations:\n', text)
            self.assertEqual(blocks(text)[1][GENERATION],
                             blocks(read(os.path.join(CONFIG, filename)))[1][GENERATION])

    def test_refuses_a_generation_without_foss(self):
        done = run('--easyconfigs', EXCERPT, '--generation', '2099a', '--check', CONFIG)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stdout, '')
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertIn('no f/foss/foss-2099a.eb', done.stderr)
        self.assertIn('2099a is not a toolchain generation', done.stderr)

    def test_shipped_toolchains_name_their_compiler_and_mpi(self):
        block = blocks(read(os.path.join(CONFIG, 'toolchains.yaml')))[1][GENERATION]
        expected = {
            # foss-like: GCC and OpenMPI are dependencies of the toolchain easyconfig.
            'foss-2026.1': "{name: foss, version: '2026.1', compiler: 'GCC/15.2.0', "
                           "mpi: 'OpenMPI/5.0.10'}",
            'gompi-2026.1': "{name: gompi, version: '2026.1', compiler: 'GCC/15.2.0', "
                            "mpi: 'OpenMPI/5.0.10'}",
            'gfbf-2026.1': "{name: gfbf, version: '2026.1', compiler: 'GCC/15.2.0'}",
            # Compiler-only toolchains are their own compiler.
            'GCC-15.2.0': "{name: GCC, version: '15.2.0', compiler: 'GCC/15.2.0'}",
            'GCCcore-15.2.0': "{name: GCCcore, version: '15.2.0', compiler: 'GCCcore/15.2.0'}",
        }
        found = dict(re.findall(r'(?m)^      (\S+): (\{[^}]*\}) +# ', block))
        self.assertEqual(found, expected)
        self.assertRegex(block, r'(?m)^      foss-2026\.1: .*# f/foss/foss-2026\.1\.eb '
                                r'\(GCC 15\.2\.0, OpenMPI 5\.0\.10\)$')
        self.assertRegex(block, r'(?m)^      GCCcore-15\.2\.0: .*# g/GCCcore/GCCcore-15\.2\.0\.eb$')

    def test_other_openmpi_fails_the_check(self):
        excerpt = self.copy(EXCERPT, 'easyconfigs')
        path = os.path.join(excerpt, 'g/gompi/gompi-2026.1.eb')
        write(path, read(path).replace("('OpenMPI', '5.0.10',", "('OpenMPI', '5.0.11',"))
        done = self.check(excerpt)
        self.assertEqual(done.returncode, 1, done.stderr)
        removed = [ln for ln in done.stdout.splitlines() if ln.startswith('-  ')]
        added = [ln for ln in done.stdout.splitlines() if ln.startswith('+  ')]
        self.assertEqual([ln.split(':')[0] for ln in removed + added],
                         ['-      gompi-2026.1', '+      gompi-2026.1'], done.stdout)
        self.assertIn("mpi: 'OpenMPI/5.0.11'}", added[0])
        self.assertTrue(added[0].endswith('(GCC 15.2.0, OpenMPI 5.0.11)'), added[0])

    def test_rocm_toolchains_name_their_compiler_and_mpi(self):
        # A ROCm stack on GCCcore 15.2.0: rocm-compilers and rompi-2025a, moved to this
        # generation's GCCcore and name.
        excerpt = self.copy(EXCERPT, 'easyconfigs')
        path = os.path.join(excerpt, 'r/rocm-compilers/rocm-compilers-19.0.0-ROCm-6.4.1.eb')
        write(path, read(path).replace("local_gcc_version = '14.2.0'",
                                       "local_gcc_version = '15.2.0'"))
        rompi = read(os.path.join(TOOLCHAINS, 'r/rompi/rompi-2025a.eb'))
        write(os.path.join(excerpt, 'r/rompi/rompi-2026.1.eb'),
              rompi.replace("version = '2025a'", "version = '2026.1'"))
        done = run('--easyconfigs', excerpt, '--generation', GENERATION)
        self.assertEqual(done.returncode, 0, done.stderr)
        found = re.findall(r'(?m)^        (\S+): (\{[^}]*\}) +# (.*)$', done.stdout)
        self.assertEqual(found, [
            ('rocm-compilers-19.0.0-ROCm-6.4.1',
             "{name: rocm-compilers, version: '19.0.0-ROCm-6.4.1', "
             "compiler: 'rocm-compilers/19.0.0-ROCm-6.4.1'}",
             'r/rocm-compilers/rocm-compilers-19.0.0-ROCm-6.4.1.eb'),
            ('rompi-2026.1',
             "{name: rompi, version: '2026.1', compiler: 'rocm-compilers/19.0.0-ROCm-6.4.1', "
             "mpi: 'OpenMPI/5.0.7'}",
             'r/rompi/rompi-2026.1.eb (rocm-compilers 19.0.0-ROCm-6.4.1, OpenMPI 5.0.7)')])

    @unittest.skipUnless(shutil.which('git'), 'no git')
    def test_git_directory_reads_like_a_checkout(self):
        checkout = os.path.join(self.temp, 'repo')
        shutil.copytree(EXCERPT, os.path.join(checkout, 'easybuild', 'easyconfigs'))
        env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
                   GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t', GIT_CONFIG_NOSYSTEM='1',
                   HOME=self.temp)
        for command in (['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'excerpt']):
            subprocess.run(['git', '-C', checkout] + command, check=True, env=env)
        done = run('--git-dir', os.path.join(checkout, '.git'), '--commit', 'HEAD',
                   '--generation', GENERATION, '--check', CONFIG)
        self.assertEqual((done.returncode, done.stdout), (0, ''), done.stderr)
        done = run('--git-dir', os.path.join(checkout, '.git'), '--commit', 'no-such-rev',
                   '--generation', GENERATION)
        self.assertEqual(done.returncode, 2)
        self.assertIn('no commit no-such-rev', done.stderr)


class ToolchainElements(unittest.TestCase):
    """compiler and mpi of a toolchain easyconfig, as HierarchicalMNS finds them."""

    @classmethod
    def setUpClass(cls):
        cls.script = load_script()

    def elements(self, root, path, text=None):
        if text is None:
            text = read(os.path.join(root, path))
        return self.script.toolchain_elements(self.script.Easyconfig(path, text))

    def test_toolchains_of_the_commit(self):
        table = [
            # foss-like: both are dependencies of the toolchain easyconfig
            (EXCERPT, 'f/foss/foss-2026.1.eb',
             ('GCC/15.2.0', 'OpenMPI/5.0.10', ['GCC 15.2.0', 'OpenMPI 5.0.10'])),
            (EXCERPT, 'g/gompi/gompi-2026.1.eb',
             ('GCC/15.2.0', 'OpenMPI/5.0.10', ['GCC 15.2.0', 'OpenMPI 5.0.10'])),
            (EXCERPT, 'g/gfbf/gfbf-2026.1.eb', ('GCC/15.2.0', None, ['GCC 15.2.0'])),
            # compiler-only: the toolchain itself (GCC's GCCcore dependency is not its compiler)
            (EXCERPT, 'g/GCC/GCC-15.2.0.eb', ('GCC/15.2.0', None, [])),
            (EXCERPT, 'g/GCCcore/GCCcore-15.2.0.eb', ('GCCcore/15.2.0', None, [])),
            (EXCERPT, 'r/rocm-compilers/rocm-compilers-19.0.0-ROCm-6.4.1.eb',
             ('rocm-compilers/19.0.0-ROCm-6.4.1', None, [])),
            # rompi names its compiler with the versionsuffix inside the version
            (TOOLCHAINS, 'r/rompi/rompi-2025a.eb',
             ('rocm-compilers/19.0.0-ROCm-6.4.1', 'OpenMPI/5.0.7',
              ['rocm-compilers 19.0.0-ROCm-6.4.1', 'OpenMPI 5.0.7'])),
        ]
        for root, path, expected in table:
            with self.subTest(path=path):
                self.assertEqual(self.elements(root, path), expected)

    def test_full_version_has_prefix_and_suffix(self):
        gompi = read(os.path.join(EXCERPT, 'g/gompi/gompi-2026.1.eb')).replace(
            "('OpenMPI', '5.0.10', '',", "('OpenMPI', '5.0.10', '-%(version)s',")
        self.assertEqual(self.elements(None, 'g/gompi/gompi-2026.1.eb', gompi)[1],
                         'OpenMPI/5.0.10-2026.1')
        gcccore = "name = 'GCCcore'\nversion = '15.2.0'\nversionprefix = 'x'\n" \
                  "versionsuffix = '-y'\ntoolchain = SYSTEM\n"
        self.assertEqual(self.elements(None, 'g/GCCcore/GCCcore-15.2.0.eb', gcccore),
                         ('GCCcore/x15.2.0-y', None, []))

    def test_missing_element_is_refused(self):
        foss = read(os.path.join(EXCERPT, 'f/foss/foss-2026.1.eb'))
        table = [
            ('f/foss/foss-2026.1.eb',
             foss.replace("    ('OpenMPI', '5.0.10', '', ('GCC', local_gccver)),\n", ''),
             'f/foss/foss-2026.1.eb: no OpenMPI dependency, so no MPI of toolchain foss'),
            ('f/foss/foss-2026.1.eb',
             foss.replace("    ('GCC', local_gccver),\n", ''),
             'f/foss/foss-2026.1.eb: no GCC dependency, so no compiler of toolchain foss'),
            ('f/foss/foss-2026.1.eb',
             foss.replace("('OpenMPI', '5.0.10', '',", "('OpenMPI', '5.0.10', '-%(cudaver)s',"),
             'f/foss/foss-2026.1.eb: cannot read the version of its MPI OpenMPI'),
            ('i/intel/intel-2026.1.eb', "name = 'intel'\nversion = '2026.1'\n",
             'i/intel/intel-2026.1.eb: no compiler and MPI known for toolchain intel'),
        ]
        for path, text, message in table:
            with self.subTest(message=message):
                with self.assertRaises(self.script.Failure) as caught:
                    self.elements(None, path, text)
                self.assertIn(message, str(caught.exception))


class PlaceBlock(unittest.TestCase):
    """Blocks replace their namesake or go in generation order."""

    TEXT = "# header\nschema: 1\ngenerations:\n  '2025a':\n    x: 1\n\n  '2026.2':\n    x: 3\n"

    @classmethod
    def setUpClass(cls):
        cls.place = staticmethod(load_script().place_block)

    def test_insert_in_the_middle(self):
        self.assertEqual(self.place(self.TEXT, '2026.1', "  '2026.1':\n    x: 2\n"),
                         "# header\nschema: 1\ngenerations:\n  '2025a':\n    x: 1\n\n"
                         "  '2026.1':\n    x: 2\n\n  '2026.2':\n    x: 3\n")

    def test_insert_first_and_last(self):
        first = self.place(self.TEXT, '2024a', "  '2024a':\n    x: 0\n")
        self.assertTrue(first.startswith("# header\nschema: 1\ngenerations:\n  '2024a':\n"
                                         "    x: 0\n\n  '2025a':\n"))
        last = self.place(self.TEXT, '2027a', "  '2027a':\n    x: 9\n")
        self.assertEqual(last, self.TEXT + "\n  '2027a':\n    x: 9\n")

    def test_replace_keeps_the_separators(self):
        self.assertEqual(self.place(self.TEXT, '2025a', "  '2025a':\n    y: 1\n"),
                         self.TEXT.replace('x: 1', 'y: 1'))


if __name__ == '__main__':
    if len(sys.argv) > 1 and not sys.argv[1].startswith('-'):
        ROOT = os.path.abspath(sys.argv.pop(1))
        SCRIPT = os.path.join(ROOT, 'scripts', 'eb-tables.py')
        CONFIG = os.path.join(ROOT, 'config')
    unittest.main(verbosity=2)
