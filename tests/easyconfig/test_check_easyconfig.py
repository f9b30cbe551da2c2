#!/usr/bin/env python3
"""check_easyconfig.py must catch what a reviewer would: the `checsums` typo
of easybuild-easyconfigs PR #25267 (EasyBuild skips unknown extension
options silently), a checksum missing for one architecture, an unknown
parameter, a wrong file name, a long line. Each case starts from a good
easyconfig and breaks one thing."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_easyconfig  # noqa: E402

SHA_A = "a" * 64
SHA_B = "b" * 64
GOOD = f"""easyblock = 'PythonBundle'

name = 'PyTorch'
version = '2.6.0'
versionsuffix = '-CUDA-%(cudaver)s-whl'

homepage = 'https://pytorch.org/'
description = \"\"\"Tensors.\"\"\"

toolchain = {{'name': 'foss', 'version': '2024a'}}

dependencies = [
    ('CUDA', '12.6.0', '', SYSTEM),
    ('Python', '3.12.3'),
]

local_torch_sources = {{
    'aarch64': 'torch-2.6.0-cp312-cp312-linux_aarch64.whl',
    'x86_64': {{
        'filename': 'torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl',
        'download_filename': 'torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl',
    }},
}}

exts_list = [
    ('sympy', '1.13.1', {{
        'source_urls': ['https://example.org/packages'],
        'sources': ['sympy-1.13.1-py3-none-any.whl'],
        'checksums': ['{SHA_A}'],
    }}),
    ('torch', '2.6.0', {{
        'source_urls': ['https://download.pytorch.org/whl/cu126'],
        'sources': [local_torch_sources[ARCH]],
        'checksums': [{{
            'torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl':
                '{SHA_A}',
            'torch-2.6.0-cp312-cp312-linux_aarch64.whl':
                '{SHA_B}',
        }}],
    }}),
]

moduleclass = 'ai'
"""
NAME = "PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb"

BROKEN = [
    ("typo checsums", lambda t: t.replace(f"'checksums': ['{SHA_A}']", f"'checsums': ['{SHA_A}']"),
     NAME, "unknown options ['checsums']"),
    ("no aarch64 checksum", lambda t: t.replace("'torch-2.6.0-cp312-cp312-linux_aarch64.whl':", "'other.whl':"),
     NAME, "(ARCH=aarch64): exts_list torch: no sha256 for torch-2.6.0-cp312-cp312-linux_aarch64.whl"),
    ("short sha", lambda t: t.replace(SHA_B, "b" * 63), NAME, "no sha256"),
    ("unknown parameter", lambda t: t.replace("moduleclass = 'ai'", "moduleclass = 'ai'\nmodule_class = 'ai'"),
     NAME, "module_class is not an easyconfig parameter"),
    ("wrong file name", lambda t: t, "PyTorch-2.6.0-foss-2024a-whl.eb",
     "the file name should be PyTorch-2.6.0-foss-2024a-CUDA-12.6.0-whl.eb"),
    ("no Python", lambda t: t.replace("    ('Python', '3.12.3'),\n", ""), NAME, "needs Python"),
    ("long line", lambda t: t.replace("Tensors.", "T" * 130), NAME, "columns (at most 120)"),
    ("no sources", lambda t: t.replace("        'sources': ['sympy-1.13.1-py3-none-any.whl'],\n", ""),
     NAME, "no sources"),
    ("code", lambda t: t + "import os\n", NAME, "only `name = value` statements"),
]


def problems_of(text, name):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(text)
        return check_easyconfig.check_file(path)


def main():
    failures = 0
    problems, evaluated = problems_of(GOOD, NAME)
    if problems:
        print("the good easyconfig is refused:", *problems, sep="\n  ")
        failures += 1
    elif evaluated["aarch64"]["exts_list"][1][2]["sources"] != ["torch-2.6.0-cp312-cp312-linux_aarch64.whl"]:
        print("ARCH did not select the aarch64 source")
        failures += 1
    for label, breaks, name, expected in BROKEN:
        problems, _ = problems_of(breaks(GOOD), name)
        if not any(expected in problem for problem in problems):
            print(f"{label}: expected a problem containing {expected!r}, got {problems}")
            failures += 1
        else:
            print(f"ok: {label}")
    print(f"{len(BROKEN) + 1 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
