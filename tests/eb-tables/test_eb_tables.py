#!/usr/bin/env python3
"""Round trip of scripts/eb-tables.py: generation 2026.1, regenerated from the
easyconfigs excerpt next to this file, is config/ byte for byte; a changed
excerpt makes --check fail with a diff; --write touches only its own block. The
compiler and MPI of each toolchain (for HierarchicalMNS) are those of the toolchain
easyconfigs: foss-like, compiler-only (GCC, GCCcore, rocm-compilers) and rompi.
The `rocm` section of 2025a (--section rocm: the libraries a ROCm torch wheel
bundles and the ROCm 6.4.1 modules that provide them), regenerated from the
same excerpt, is config/eb-dependencies.yaml's byte for byte; a generation
without a ROCm stack has none.

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
# The generation with a ROCm stack (ROCm 6.4.1); its other sections are hand-written.
ROCM_GENERATION = '2025a'
DEPENDENCIES = 'eb-dependencies.yaml'


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


def section(block, name):
    """The lines of section `name` ('    name:' up to the next 4-space key) of a block, or None."""
    found = re.search(rf'(?ms)^    {re.escape(name)}:.*?(?=^    \S|\Z)', block)
    return found.group(0).rstrip('\n') + '\n' if found else None


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

    def check(self, easyconfigs, config=None):
        return run('--easyconfigs', easyconfigs, '--generation', GENERATION, '--check',
                   config or CONFIG)

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
        read_paths = set()
        for args in (['--generation', GENERATION],
                     ['--generation', ROCM_GENERATION, '--section', 'rocm']):
            done = run('--easyconfigs', EXCERPT, *args, '--list-inputs')
            self.assertEqual(done.returncode, 0, done.stderr)
            read_paths.update(done.stdout.split())
        present = sorted(os.path.relpath(os.path.join(d, f), EXCERPT).replace(os.sep, '/')
                         for d, _, files in os.walk(EXCERPT) for f in files)
        self.assertEqual(sorted(read_paths), present)

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


class RocmSection(unittest.TestCase):
    """--section rocm: 2025a's `rocm` section of eb-dependencies.yaml from the excerpt."""

    def setUp(self):
        self.temp = tempfile.mkdtemp(prefix='eb-tables-')
        self.shipped = read(os.path.join(CONFIG, DEPENDENCIES))
        self.shipped_section = section(blocks(self.shipped)[1][ROCM_GENERATION], 'rocm')

    def tearDown(self):
        shutil.rmtree(self.temp)

    def rocm(self, *args, easyconfigs=EXCERPT, generation=ROCM_GENERATION):
        return run('--easyconfigs', easyconfigs, '--generation', generation, '--section', 'rocm',
                   *args)

    def excerpt(self):
        return shutil.copytree(EXCERPT, os.path.join(self.temp, 'easyconfigs'))

    def config(self, text=None):
        """A copy of config/ (with eb-dependencies.yaml replaced by `text` if given)."""
        config = shutil.copytree(CONFIG, os.path.join(self.temp, 'config'))
        if text is not None:
            write(os.path.join(config, DEPENDENCIES), text)
        return config

    def diff_lines(self, done):
        lines = done.stdout.splitlines()
        return ([ln for ln in lines if ln.startswith('-  ')],
                [ln for ln in lines if ln.startswith('+  ')])

    def test_shipped_generation_has_a_rocm_section(self):
        self.assertIsNotNone(self.shipped_section)
        self.assertRegex(self.shipped_section, r"^    rocm: +# ROCm 6\.4\.1 "
                                               r"\(rocm-compilers-19\.0\.0-ROCm-6\.4\.1\)")

    def test_excerpt_regenerates_the_shipped_section(self):
        done = self.rocm('--check', CONFIG)
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, '', ''))

    def test_stdout_is_the_shipped_section(self):
        done = self.rocm()
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, f'# --- {DEPENDENCIES}, generation {ROCM_GENERATION}, '
                                      f'section rocm\n{self.shipped_section}\n')

    def test_every_bundled_library_has_an_entry(self):
        # pytorch .ci/manywheel/build_rocm.sh ROCM_SO_FILES (ROCm >= 6.2) and OS_SO_PATHS on
        # AlmaLinux, under their link names.
        expected = ['libMIOpen.so', 'libamdhip64.so', 'libhipblas.so', 'libhipfft.so',
                    'libhiprand.so', 'libhipsolver.so', 'libhipsparse.so', 'libhsa-runtime64.so',
                    'libamd_comgr.so', 'libmagma.so', 'librccl.so', 'librocblas.so',
                    'librocfft.so', 'librocm_smi64.so', 'librocrand.so', 'librocsolver.so',
                    'librocsparse.so', 'libroctracer64.so', 'libroctx64.so', 'libhipblaslt.so',
                    'libhipsparselt.so', 'libhiprtc.so', 'librocprofiler-register.so',
                    'librocm-core.so', 'libgomp.so', 'libnuma.so', 'libelf.so', 'libtinfo.so',
                    'libdrm.so', 'libdrm_amdgpu.so']
        self.assertEqual(re.findall(r'(?m)^      (\S+):$', self.shipped_section), expected)
        missing = re.findall(r'(?m)^      (\S+):\n(?:        (?!provided_by).*\n)*'
                             r'        provided_by: \[\] +# (.*)$', self.shipped_section)
        self.assertEqual(missing, [('libMIOpen.so', 'no MIOpen easyconfig for ROCm 6.4.1'),
                                   ('libhipsolver.so', 'no hipSOLVER easyconfig for ROCm 6.4.1'),
                                   ('libmagma.so', 'no magma easyconfig for ROCm 6.4.1')])

    def test_providers_and_their_evidence(self):
        comments = {}  # (torch/lib file, module) -> the provider's comment
        for file, providers in re.findall(r'(?m)^      (\S+):\n((?:        .*\n?)*)',
                                          self.shipped_section):
            for module, comment in re.findall(r"(?m)^          - \{module: '([^']+)'.*\}   "
                                              r"# (.*)$", providers):
                comments[(file, module)] = comment
        rc = 'rocm-compilers-19.0.0-ROCm-6.4.1'
        llvm = 'ROCm-LLVM/19.0.0-GCCcore-14.2.0-ROCm-6.4.1'
        llvm_path = 'r/ROCm-LLVM/ROCm-LLVM-19.0.0-GCCcore-14.2.0-ROCm-6.4.1.eb'
        expected = {
            # HIP's sanity_check_paths lists libamdhip64.so, not libhiprtc.so
            ('libamdhip64.so', f'HIP/6.4.1-{rc}'):
                f'h/HIP/HIP-6.4.1-{rc}.eb (sanity_check_paths lib/libamdhip64.so)',
            ('libhiprtc.so', f'HIP/6.4.1-{rc}'): f'h/HIP/HIP-6.4.1-{rc}.eb',
            # ROCm-LLVM has no sanity_check_paths: the component that builds the library
            ('libhsa-runtime64.so', llvm): f'{llvm_path} (component ROCR-Runtime)',
            ('libamd_comgr.so', llvm): f'{llvm_path} (component ROCm-comgr)',
            # the module name carries the versionsuffix after the toolchain (EasyBuildMNS)
            ('libhipfft.so', f'hipFFT/1.0.18-{rc}-nompi'):
                f'h/hipFFT/hipFFT-1.0.18-{rc}-nompi.eb (sanity_check_paths lib/libhipfft.so)',
            # a ROCm build on GCCcore with versionsuffix -ROCm-6.4.1
            ('librocm_smi64.so', 'rocm-smi/7.6.0-GCCcore-14.2.0-ROCm-6.4.1'):
                'r/rocm-smi/rocm-smi-7.6.0-GCCcore-14.2.0-ROCm-6.4.1.eb '
                '(sanity_check_paths lib/librocm_smi64.so)',
            # the OS libraries: the versions ROCm-LLVM and HIP depend on, GCCcore itself
            ('libnuma.so', 'numactl/2.0.19-GCCcore-14.2.0'):
                'n/numactl/numactl-2.0.19-GCCcore-14.2.0.eb (dependency of ROCm-LLVM, HIP; '
                'sanity_check_paths lib/libnuma.so)',
            ('libgomp.so', 'GCCcore/14.2.0'):
                'g/GCCcore/GCCcore-14.2.0.eb (dependency of rocm-compilers)',
            # sanity_check_paths built by list comprehensions with SHLIB_EXT
            ('libtinfo.so', 'ncurses/6.5-GCCcore-14.2.0'):
                'n/ncurses/ncurses-6.5-GCCcore-14.2.0.eb (dependency of ROCm-LLVM; '
                'sanity_check_paths lib/libtinfo.so)',
            ('libelf.so', 'elfutils/0.193-GCCcore-14.2.0'):
                'e/elfutils/elfutils-0.193-GCCcore-14.2.0.eb (dependency of ROCm-LLVM; '
                'sanity_check_paths lib/libelf.so)',
        }
        for key, comment in expected.items():
            with self.subTest(key=key):
                self.assertEqual(comments.get(key), comment)
        self.assertIn("{module: 'GCCcore/14.2.0', name: GCCcore, version: '14.2.0', "
                      "libdir: 'lib64'}", self.shipped_section)
        self.assertIn("libdir: 'lib', rocm: '6.4.1', data: ['lib/rocblas/library']}",
                      self.shipped_section)

    def test_other_version_changes_one_line(self):
        excerpt = self.excerpt()
        old = os.path.join(excerpt, 'r/rocBLAS/rocBLAS-4.4.0-rocm-compilers-19.0.0-ROCm-6.4.1.eb')
        write(old.replace('4.4.0', '4.4.1'),
              read(old).replace("version = '4.4.0'", "version = '4.4.1'"))
        os.remove(old)
        done = self.rocm('--check', CONFIG, easyconfigs=excerpt)
        self.assertEqual(done.returncode, 1, done.stderr)
        removed, added = self.diff_lines(done)
        self.assertEqual(len(removed), 1, done.stdout)
        self.assertEqual(len(added), 1, done.stdout)
        self.assertIn("module: 'rocBLAS/4.4.0-rocm-compilers-19.0.0-ROCm-6.4.1'", removed[0])
        self.assertIn("module: 'rocBLAS/4.4.1-rocm-compilers-19.0.0-ROCm-6.4.1'", added[0])

    def test_without_hip(self):
        excerpt = self.excerpt()
        shutil.rmtree(os.path.join(excerpt, 'h/HIP'))
        done = self.rocm(easyconfigs=excerpt)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(re.findall(r'(?m)^      (libamdhip64\.so|libhiprtc\.so):\n.*\n'
                                    r'        provided_by: \[\] +# (.*)$', done.stdout),
                         [('libamdhip64.so', 'no HIP easyconfig for ROCm 6.4.1'),
                          ('libhiprtc.so', 'no HIP easyconfig for ROCm 6.4.1')])
        # numactl's version now comes from ROCm-LLVM alone
        self.assertIn('# n/numactl/numactl-2.0.19-GCCcore-14.2.0.eb (dependency of ROCm-LLVM; '
                      'sanity_check_paths lib/libnuma.so)', done.stdout)

    def test_unknown_rocm_series_is_refused(self):
        excerpt = self.excerpt()
        path = os.path.join(excerpt, 'r/rocm-compilers/rocm-compilers-19.0.0-ROCm-6.4.1.eb')
        write(path, read(path).replace("_rocm_version = '6.4.1'", "_rocm_version = '7.0.2'"))
        done = self.rocm(easyconfigs=excerpt)
        self.assertEqual((done.returncode, done.stdout), (2, ''))
        self.assertIn('ROCm 7.0.2; the SONAMEs of the libraries a ROCm wheel bundles are known '
                      'for ROCm 6.4 only', done.stderr)

    def test_generation_without_rocm_stack_has_no_section(self):
        # 2026.1 (GCCcore 15.2.0) has no rocm-compilers: no rocm section, alone or in its block.
        done = self.rocm(generation=GENERATION)
        self.assertEqual((done.returncode, done.stdout), (0, f'# --- {DEPENDENCIES}, generation '
                                                             f'{GENERATION}, section rocm: none\n'))
        done = run('--easyconfigs', EXCERPT, '--generation', GENERATION)
        self.assertEqual(done.returncode, 0, done.stderr)
        generated = done.stdout.split(f'# --- {DEPENDENCIES}, generation {GENERATION}\n')[1]
        self.assertIsNone(section(generated, 'rocm'))
        self.assertIsNone(section(blocks(self.shipped)[1][GENERATION], 'rocm'))
        # A rocm section in its block is what --check reports and --write removes.
        block = blocks(self.shipped)[1][GENERATION]
        config = self.config(self.shipped.replace(block, block + '\n' + self.shipped_section
                                                  .rstrip('\n')))
        done = self.rocm('--check', config, generation=GENERATION)
        self.assertEqual(done.returncode, 1, done.stderr)
        removed, added = self.diff_lines(done)
        self.assertEqual((len(removed), added),
                         (len(self.shipped_section.splitlines()), []), done.stdout)
        done = self.rocm('--write', config, generation=GENERATION)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(read(os.path.join(config, DEPENDENCIES)), self.shipped)

    def test_write_replaces_or_appends_only_the_section(self):
        block = blocks(self.shipped)[1][ROCM_GENERATION]
        # the section is the last of 2025a's block; without it, --write appends it again
        self.assertTrue(block.endswith(self.shipped_section.rstrip('\n')))
        config = self.config(self.shipped.replace(self.shipped_section, ''))
        done = self.rocm('--check', config)
        self.assertEqual(done.returncode, 1)
        self.assertIn('+    rocm: ', done.stdout)
        done = self.rocm('--write', config)
        self.assertEqual((done.returncode, done.stderr), (0, f'wrote {config}/{DEPENDENCIES}\n'))
        self.assertEqual(read(os.path.join(config, DEPENDENCIES)), self.shipped)
        # a changed section is replaced in place; toolchains.yaml is not touched
        changed = self.shipped.replace("soname: 'libamdhip64.so.6'", "soname: 'libamdhip64.so.7'")
        self.assertNotEqual(changed, self.shipped)
        shutil.rmtree(config)
        config = self.config(changed)
        write(os.path.join(config, 'toolchains.yaml'), 'not read\n')
        done = self.rocm('--write', config)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(read(os.path.join(config, DEPENDENCIES)), self.shipped)
        self.assertEqual(read(os.path.join(config, 'toolchains.yaml')), 'not read\n')

    def test_section_needs_the_block(self):
        _, found = blocks(self.shipped)
        config = self.config(self.shipped.replace(found[ROCM_GENERATION] + '\n\n', ''))
        done = self.rocm('--write', config)
        self.assertEqual(done.returncode, 2)
        self.assertIn(f'no block for generation {ROCM_GENERATION}', done.stderr)


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


class Evaluator(unittest.TestCase):
    """SHLIB_EXT and list comprehensions, as sanity_check_paths use them."""

    @classmethod
    def setUpClass(cls):
        cls.script = load_script()

    def env(self, text):
        return self.script.Easyconfig('x/x/x-1.eb', "name = 'x'\nversion = '1'\n" + text).env

    def test_comprehensions(self):
        env = self.env("a = ['', 'w']\n"
                       "b = ['%s%s' % (x, y) for x in a for y in ['.a', '.' + SHLIB_EXT]]\n"
                       "c = [f'lib/{n}.{e}' for n, e in [('libelf', SHLIB_EXT)]]\n"
                       "d = [x for x in unknown_name]\n"
                       "e = [x for x in a if x != '']\n"
                       "f = [x for x in a if x]\n")
        self.assertEqual(env['b'], ['.a', '.so', 'w.a', 'w.so'])
        self.assertEqual(env['c'], ['lib/libelf.so'])
        self.assertIs(env['d'], self.script.UNKNOWN)
        self.assertIs(env['e'], self.script.UNKNOWN)  # a comparison is not evaluated
        self.assertEqual(env['f'], ['w'])


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
