"""A compute node's view of this machine, for the CUDA install, check and import scenarios.

This machine's linker cache holds a CUDA 13 tree (/usr/local/cuda-13.0/lib in /etc/ld.so.conf.d);
a compute node has no CUDA of its own: its libraries come from the EasyBuild modules, through the
RPATHs wheelmod writes. A command run through NodeView.wrap() runs in a private mount namespace
(unshare -m) where

  - /etc/ld.so.cache is one ldconfig built from /etc/ld.so.conf without any directory under the
    host's CUDA tree, so no library of it is found by the cache;
  - the host's CUDA tree is an empty tmpfs, so no path into it (/usr/local/cuda/lib/...) works;
  - NVIDIA's real libraries are reachable only through `software`, a copy of the sample's
    EasyBuild tree whose links into the CUDA tree now point at a bind mount of it (`alias`) that
    nothing else names.

Without `sample_software` nothing is copied: a scenario whose modules are the sample's CUDA 12
stand-ins (regular files) runs its commands in the view as they are (scenario_support's
in_node_view, WHEELMOD_TEST_NODE_VIEW=1).

NodeView() raises Skipped saying why when this cannot be made (not root, no unshare, no mount
namespaces): a scenario that needs it is then skipped, not passed.
"""
import os
import shutil
import subprocess

from scenario_support import Skipped

HOST_CUDA = "/usr/local/cuda"

# Runs "$@" after the mounts; $1..$3 are the CUDA tree (or ""), its alias and the linker cache.
_ENTER = r"""set -eu
cuda=$1 alias=$2 cache=$3
shift 3
if [ -n "$cuda" ]; then
  mount --bind "$cuda" "$alias"
  mount -t tmpfs -o size=1m,mode=0755 wheelmod-node-view "$cuda"
fi
mount --bind "$cache" /etc/ld.so.cache
exec "$@"
"""


def _conf_directories(path, seen=None):
    """The directories /etc/ld.so.conf names, its `include` globs followed, in order."""
    import glob
    seen = set() if seen is None else seen
    directories = []
    if path in seen or not os.path.isfile(path):
        return directories
    seen.add(path)
    with open(path) as handle:
        for line in handle:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("include "):
                pattern = line.split(None, 1)[1]
                if not os.path.isabs(pattern):
                    pattern = os.path.join(os.path.dirname(path), pattern)
                for included in sorted(glob.glob(pattern)):
                    directories += _conf_directories(included, seen)
            else:
                directories.append(line)
    return directories


class NodeView:
    def __init__(self, work, sample_software):
        if os.geteuid() != 0:
            raise Skipped("the node view needs root (mount namespaces, bind mounts)")
        for tool in ("unshare", "ldconfig", "mount"):
            if shutil.which(tool) is None and not os.path.exists(f"/sbin/{tool}"):
                raise Skipped(f"the node view needs {tool}")
        self.root = os.path.join(work, "node-view")
        os.makedirs(self.root, exist_ok=True)
        self.cuda = os.path.realpath(HOST_CUDA) if os.path.isdir(HOST_CUDA) else ""
        self.alias = os.path.join(self.root, "cuda-seen-only-through-modules")
        os.makedirs(self.alias, exist_ok=True)
        self.cache = os.path.join(self.root, "ld.so.cache")
        conf = os.path.join(self.root, "ld.so.conf")
        kept = [d for d in _conf_directories("/etc/ld.so.conf")
                if not self._in_cuda(d)]
        with open(conf, "w") as handle:
            handle.write("\n".join(kept) + "\n")
        built = subprocess.run(["ldconfig", "-C", self.cache, "-f", conf], capture_output=True,
                               text=True)
        if built.returncode != 0:
            raise Skipped(f"ldconfig could not build the node's cache: {built.stderr.strip()}")
        # Without a tree to copy (the scenarios whose modules hold no link into the host's CUDA,
        # run whole in the view): only the cache and the empty CUDA tree.
        self.software = os.path.join(self.root, "software")
        if sample_software:
            self._copy_tree(sample_software, self.software)
        probe = subprocess.run(self.wrap(["ldconfig", "-p"]), capture_output=True, text=True)
        if probe.returncode != 0:
            raise Skipped("no private mount namespace here (unshare -m: "
                          f"{probe.stderr.strip()[:200]})")
        leaked = [line for line in probe.stdout.splitlines()
                  if self.cuda and self.cuda in line]
        if leaked:
            raise AssertionError(f"the node's linker cache still names the host CUDA: {leaked}")

    def _in_cuda(self, directory):
        real = os.path.realpath(directory)
        return bool(self.cuda) and (real == self.cuda or real.startswith(self.cuda + os.sep)
                                    or directory.startswith(HOST_CUDA))

    def _copy_tree(self, source, target):
        """The sample's EasyBuild tree, its links into the host CUDA retargeted at the alias."""
        if os.path.isdir(target):
            shutil.rmtree(target)
        for folder, dirs, files in os.walk(source):
            relative = os.path.relpath(folder, source)
            os.makedirs(os.path.join(target, relative), exist_ok=True)
            for name in dirs + files:
                path = os.path.join(folder, name)
                out = os.path.join(target, relative, name)
                if os.path.islink(path):
                    link = os.readlink(path)
                    absolute = os.path.normpath(os.path.join(folder, link))
                    if self.cuda and self._in_cuda(absolute):
                        real = os.path.realpath(absolute)
                        link = os.path.join(self.alias, os.path.relpath(real, self.cuda))
                    os.symlink(link, out)
                elif name in files:
                    shutil.copy2(path, out)

    def wrap(self, argv):
        """`argv` run in the node's view."""
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", _ENTER, "node-view",
                self.cuda, self.alias, self.cache, *argv]

    def is_module_path(self, path):
        """Whether a loaded library's path is the module tree's (the alias is reached only
        through it)."""
        real = os.path.realpath(path) if os.path.exists(path) else path
        return any(path.startswith(root + os.sep) or real.startswith(root + os.sep)
                   for root in (self.software, self.alias))
