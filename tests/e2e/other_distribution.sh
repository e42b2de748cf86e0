#!/usr/bin/env bash
# The wheels on another distribution: a Debian 13 (trixie) root made with debootstrap, which has
# Python and nothing of the build's libraries (no yaml-cpp, fmt, toml++, LLVM, no libstdc++ of
# GCC 12). In a fresh virtualenv there, `pip install graphsafe graphsafe-cuda` from the wheels'
# directory, offline, must give the build tree's findings on examples/ and on a CUDA C++ file.
#   tests/e2e/other_distribution.sh BUILD_DIR SOURCE_DIR DIST_DIR
# The root is made once and kept as a tarball in ~/.cache/graphsafe/ (GRAPHSAFE_CHROOT_CACHE);
# making it needs the Debian mirror apt uses here. Needs root (chroot); exits 77 (skipped)
# without root, debootstrap, or a reachable mirror.
set -euo pipefail
build=$(cd "${1:?usage: other_distribution.sh BUILD_DIR SOURCE_DIR DIST_DIR}" && pwd)
source_dir=$(cd "${2:?usage: other_distribution.sh BUILD_DIR SOURCE_DIR DIST_DIR}" && pwd)
dist=$(cd "${3:?usage: other_distribution.sh BUILD_DIR SOURCE_DIR DIST_DIR}" && pwd)
release=${GRAPHSAFE_OTHER_RELEASE:-trixie}
cache=${GRAPHSAFE_CHROOT_CACHE:-$HOME/.cache/graphsafe/chroot}
tarball=$cache/$release-minbase-python3-venv.tar
fail() {
  echo "FAIL: $*"
  exit 1
}
skip() {
  echo "skipped: $*"
  exit 77
}
[ "$(id -u)" = 0 ] || skip "chroot needs root"
work=$(mktemp -d)
root=$work/root
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -f "$tarball" ]; then
  command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is not installed"
  # The mirror apt uses here (deb822 sources or a one-line sources.list).
  mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p; s/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -1)
  [ -n "$mirror" ] || skip "no Debian mirror in /etc/apt"
  if ! debootstrap --variant=minbase --include=python3-venv "$release" "$root" "$mirror" \
    >"$work/debootstrap.log" 2>&1; then
    grep -qiE "Failed getting release file|Temporary failure|Could not resolve|Connection" \
      "$work/debootstrap.log" && skip "the mirror $mirror cannot be reached"
    fail "debootstrap $release: $(tail -5 "$work/debootstrap.log")"
  fi
  mkdir -p "$cache"
  tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
else
  mkdir -p "$root"
  tar -C "$root" -xf "$tarball"
fi

# What the build tree's binary says, on a copy of the project.
mkdir -p "$root/project" "$root/dist"
cp -r "$source_dir/examples" "$root/project/examples"
cp "$source_dir/fixtures/cuda/gs401_host_sync_bad.cu" "$root/project/kernel.cu"
cp "$dist"/graphsafe-*.whl "$dist"/graphsafe_cuda-*.whl "$root/dist/"
for what in examples/ kernel.cu; do
  (cd "$root/project" && "$build/graphsafe" check --no-cache "$what" >"$work/ref-${what%/}.out" 2>/dev/null) || true
done
grep -q 'error\[GS401\]' "$work/ref-kernel.cu.out" || fail "the build tree's binary finds nothing in kernel.cu"

mount -t proc proc "$root/proc"
glibc=$(chroot "$root" /bin/sh -c 'ldd --version | head -1' 2>/dev/null || true)
chroot "$root" /bin/sh -ec '
  python3 -m venv /venv
  /venv/bin/pip install --quiet --no-index --disable-pip-version-check --find-links /dist graphsafe graphsafe-cuda
' >"$work/pip.log" 2>&1 || fail "pip install in $release: $(cat "$work/pip.log")"
for what in examples/ kernel.cu; do
  code=0
  chroot "$root" /bin/sh -c "cd /project && /venv/bin/graphsafe check --no-cache $what" \
    >"$work/got-${what%/}.out" 2>"$work/got-${what%/}.err" || code=$?
  [ "$code" = 1 ] || fail "graphsafe check $what in $release: exit $code: $(cat "$work/got-${what%/}.err")"
  diff -u "$work/ref-${what%/}.out" "$work/got-${what%/}.out" >&2 ||
    fail "graphsafe check $what in $release differs from the build tree's binary"
done
echo "ok: in Debian $release ($glibc), a fresh virtualenv's graphsafe and graphsafe-cuda wheels analyze examples/ and kernel.cu as the build tree does"
