"""Where the real EasyBuild's snapshots are: one tarball per part (framework, easyblocks,
easyconfigs) in $WHEELMOD_EASYBUILD_SRC, else in ../shared/easybuild beside the checkout.

Shared by tests/easybuild/real_easybuild.py and tests/hostile/hostile_writers.py, which both run
EasyBuild itself and are skipped (exit 77, with this reason) where it is absent.
"""
import glob
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class SnapshotsAbsent(Exception):
    """What is missing, said in one line: the reason a test is skipped."""


def find(prefixes):
    """`prefixes`: {part: tarball name prefix}. Returns (directory, {part: tarball}); raises
    SnapshotsAbsent when the directory or exactly one tarball of a part is not there."""
    given = os.environ.get("WHEELMOD_EASYBUILD_SRC")
    where = given or os.path.normpath(os.path.join(REPO, "..", "shared", "easybuild"))
    how = "$WHEELMOD_EASYBUILD_SRC" if given else "the fallback ../shared/easybuild"
    wanted = ", ".join(prefix + "*.tar.gz" for prefix in prefixes.values())
    if not os.path.isdir(where):
        raise SnapshotsAbsent(f"no EasyBuild ({how}: {where} is not a directory; set "
                              f"WHEELMOD_EASYBUILD_SRC to a directory holding {wanted})")
    tarballs = {}
    for part, prefix in prefixes.items():
        found = sorted(glob.glob(os.path.join(where, prefix + "*.tar.gz")))
        if len(found) != 1:
            raise SnapshotsAbsent(f"no EasyBuild ({how} {where} holds {len(found)} "
                                  f"{prefix}*.tar.gz, not one)")
        tarballs[part] = found[0]
    return where, tarballs
