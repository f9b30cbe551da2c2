#!/usr/bin/env python3
"""Builds the tarball scripts/dist.sh makes the way EasyBuild's CMakeMake
builds wheelmod's easyconfig, with this machine's libraries instead of
EasyBuild's modules: the sources laid out in a build directory as the
easyconfig's `sources` and `extract_cmd` say, `preconfigopts cmake
<CMakeMake's options> configopts <source>` in easybuild_obj/, make, make
install, then the sanity check (bin/wheelmod, share/wheelmod, `wheelmod
--version`) and the installed easyconfigs. 8-12 minutes on 2 cores
(label long).

Usage: build_from_tarball.py [REPO_ROOT] [--jobs N] [--keep DIR]
"""

import argparse
import ast
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def easyconfig_values(path, keys):
    """The string values of KEYS in the easyconfig (literals only, nothing executed)."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), filename=path)
    found = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and statement.targets[0].id in keys:
            found[statement.targets[0].id] = ast.literal_eval(statement.value)
    return found


def resolve(text, templates):
    """EasyBuild's %(name)s templates."""
    return re.sub(r'%\((\w+)\)s', lambda m: templates[m.group(1)], text)


def run(command, cwd, log):
    print('+', command if isinstance(command, str) else ' '.join(command), flush=True)
    shell = isinstance(command, str)  # preconfigopts and extract_cmd are shell text
    with open(log, 'w') as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, shell=shell,
                              executable='/bin/bash' if shell else None)
    if done.returncode:
        with open(log, errors='replace') as f:
            sys.stdout.write(''.join(f.readlines()[-40:]))
        sys.exit(f'error: exit {done.returncode}, the whole output is in {log}')


def build(root, work, jobs):
    dist = os.path.join(work, 'dist')
    subprocess.run(['bash', os.path.join(root, 'scripts', 'dist.sh'), dist], check=True)
    sources = os.path.join(dist, 'w', 'wheelmod')
    easyconfig = sorted(glob.glob(os.path.join(sources, '*.eb')))[0]
    keys = {'version', 'sources', 'preconfigopts', 'configopts', 'build_type'}
    values = easyconfig_values(easyconfig, keys)
    builddir = os.path.join(work, 'build')
    installdir = os.path.join(work, 'install')
    os.makedirs(builddir)
    templates = {'name': 'wheelmod', 'version': values['version'], 'builddir': builddir,
                 'installdir': installdir, 'arch': os.uname().machine}

    # The extract step: the tarball, then each extra source with its extract_cmd, in builddir.
    tarball, *extra = values['sources']
    run(['tar', '-xzf', os.path.join(sources, resolve(tarball, templates))], builddir,
        os.path.join(work, 'extract.log'))
    for source in extra:
        path = os.path.join(sources, source['filename'])
        if not os.path.exists(path):
            sys.exit(f'error: {path} is missing (scripts/dist.sh copies it from '
                     '/usr/include/kainjow/mustache.hpp: apt-get install libkainjow-mustache-dev)')
        run(resolve(source['extract_cmd'], templates) % path, builddir,
            os.path.join(work, 'extract.log'))

    # CMakeMake's configure command (easyblocks generic/cmakemake.py) with the easyconfig's options.
    obj = os.path.join(builddir, 'easybuild_obj')
    os.makedirs(obj)
    start_dir = os.path.join(builddir, f"wheelmod-{values['version']}")
    options = ['-DCMAKE_INSTALL_PREFIX=' + installdir, '-DCMAKE_MESSAGE_LOG_LEVEL=STATUS',
               '-DCMAKE_INSTALL_LIBDIR:PATH=lib', '-DCMAKE_VERBOSE_MAKEFILE=ON',
               '-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF']
    # The easyconfigs leave CMAKE_BUILD_TYPE to CMakeMake (easybuild-easyconfigs' test suite refuses
    # it in configopts): configure_step adds -DCMAKE_BUILD_TYPE=<build_type> unless configopts has
    # one, and its build_type property is 'Release' unless the easyconfig sets build_type or
    # toolchainopts ask for debug or noopt (easyblocks generic/cmakemake.py, CMakeMake.build_type).
    if '-DCMAKE_BUILD_TYPE=' not in values['configopts']:
        build_type = values.get('build_type') or 'Release'
        options.append('-DCMAKE_BUILD_TYPE=' + build_type)
    configure = ' '.join([resolve(values.get('preconfigopts', ''), templates), 'cmake', *options,
                          resolve(values['configopts'], templates), start_dir])
    run(configure, obj, os.path.join(work, 'configure.log'))
    run(['make', '-j', str(jobs)], obj, os.path.join(work, 'make.log'))
    run(['make', 'install'], obj, os.path.join(work, 'install.log'))

    # The sanity check.
    binary = os.path.join(installdir, 'bin', 'wheelmod')
    assert os.path.isfile(binary), binary
    assert os.path.isdir(os.path.join(installdir, 'share', 'wheelmod')), installdir
    version = subprocess.run([binary, '--version'], capture_output=True, text=True, check=True)
    print(version.stdout, end='')
    assert version.stdout.startswith(f"wheelmod {values['version']}\n"), version.stdout
    data = os.path.join(installdir, 'share', 'wheelmod')
    assert f'data:      {data} ' in version.stdout, version.stdout
    installed = sorted(os.path.basename(p)
                       for p in glob.glob(os.path.join(data, 'easyconfigs', '*.eb')))
    shipped = sorted(os.path.basename(p) for p in glob.glob(os.path.join(sources, '*.eb')))
    assert installed == shipped, (installed, shipped)
    print(f'ok: built, installed and ran {binary}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('root', nargs='?', default=os.path.abspath(os.path.join(HERE, '..', '..')))
    parser.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    parser.add_argument('--keep', help='work in DIR (kept) instead of a temporary directory')
    args = parser.parse_args()
    if args.keep:
        os.makedirs(args.keep)
        build(os.path.abspath(args.root), os.path.abspath(args.keep), args.jobs)
    else:
        with tempfile.TemporaryDirectory() as work:
            build(os.path.abspath(args.root), work, args.jobs)


if __name__ == '__main__':
    main()
