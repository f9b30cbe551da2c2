#!/usr/bin/env bash
# Makes the source tarball EasyBuild builds wheelmod from, and the easyconfigs that build it.
#
#   scripts/dist.sh [OUT [REF]]      (default OUT: build/dist, REF: HEAD)
#
# Writes into OUT/w/wheelmod/ (EasyBuild's <sourcepath>/<letter>/<name>/ layout):
# - wheelmod-<version>.tar.gz: `git archive` of the commit REF with the prefix wheelmod-<version>/,
#   <version> from the project() line of REF's CMakeLists.txt. The same commit gives the same bytes:
#   git stamps every entry with the commit's time, and gzip -n leaves out the name and the time.
# - wheelmod-<version>-GCCcore-<v>.eb: a copy of each easyconfigs/*.eb of REF whose `None` checksum
#   of the tarball is replaced by the tarball's sha256. The easyconfigs in the repository cannot
#   carry that hash: they are part of the commit the tarball is made from.
# - kainjow-mustache-<v>.hpp, the easyconfigs' second source, copied from the system's
#   /usr/include/kainjow/mustache.hpp when it has the sha256 the easyconfigs pin (Debian 12's
#   libkainjow-mustache-dev does), so that the build downloads nothing; else EasyBuild fetches it.
# and prints where it put them and the `eb` command for each easyconfig.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/dist}
ref=${2:-HEAD}

fail() {
  echo "error: $1" >&2
  [ $# -lt 2 ] || echo "hint: $2" >&2
  exit 1
}

commit=$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}") ||
  fail "$ref is not a commit of $root" "give a branch, tag or commit id, or nothing for HEAD"
version=$(git -C "$root" show "$commit:CMakeLists.txt" |
  sed -n 's/^project(wheelmod VERSION \([0-9][0-9.]*\).*/\1/p')
[ -n "$version" ] || fail "no 'project(wheelmod VERSION x.y.z' line in CMakeLists.txt of $commit"
mapfile -t easyconfigs < <(git -C "$root" ls-tree --name-only "$commit" easyconfigs/ | grep '\.eb$' || true)
[ ${#easyconfigs[@]} -gt 0 ] || fail "commit $commit has no easyconfigs/*.eb" \
  "the easyconfigs were added after it; use a later commit"
if [ "$ref" = HEAD ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
  echo "warning: the work tree has uncommitted changes; the tarball is HEAD ($commit) without them" >&2
fi

dir=$out/w/wheelmod
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tarball=$dir/wheelmod-$version.tar.gz
git -C "$root" archive --format=tar --prefix="wheelmod-$version/" "$commit" | gzip -9 -n >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
sha=$(sha256sum "$tarball" | cut -d' ' -f1)
echo "wrote $tarball (commit $commit, sha256 $sha)"

# The line the easyconfigs carry for the tarball, and what replaces it.
placeholder='^    None,  # wheelmod-%(version)s\.tar\.gz:.*$'
filled="    # wheelmod-%(version)s.tar.gz: git archive of commit $commit (scripts/dist.sh)\n    '$sha',"
written=()
for path in "${easyconfigs[@]}"; do
  target=$dir/$(basename "$path")
  git -C "$root" show "$commit:$path" | sed "s|$placeholder|$filled|" >"$target.tmp"
  if [ "$(grep -c "'$sha'" "$target.tmp")" != 1 ]; then
    rm -f "$target.tmp"
    fail "$path of $commit has no line '    None,  # wheelmod-%(version)s.tar.gz: ...' in its checksums" \
      "the tarball's checksum must be the first entry, None, with that comment"
  fi
  mv "$target.tmp" "$target"
  written+=("$target")
  echo "wrote $target"
done

# The Mustache header: its file name and sha256 are those the easyconfigs pin.
mustache=$(grep -ho "kainjow-mustache-[0-9.]*[0-9]\.hpp" "${written[@]}" | sort -u | head -n 1)
system_header=/usr/include/kainjow/mustache.hpp
if [ -n "$mustache" ] && [ -f "$system_header" ]; then
  header_sha=$(sha256sum "$system_header" | cut -d' ' -f1)
  if grep -q "'$header_sha'" "${written[0]}"; then
    cp "$system_header" "$dir/$mustache"
    echo "wrote $dir/$mustache (from $system_header, sha256 $header_sha)"
  else
    echo "note: $system_header is not the pinned $mustache; EasyBuild will download it" >&2
  fi
fi

out_abs=$(cd "$out" && pwd)
echo
echo "Build with EasyBuild (--robot also builds the missing dependencies):"
for target in "${written[@]}"; do
  echo "  eb --robot --sourcepath=$out_abs $target"
done
echo "(--sourcepath replaces the configured source path; to keep yours, give both:"
echo " --sourcepath=YOURS:$out_abs. EasyBuild also finds the sources beside the easyconfig.)"
