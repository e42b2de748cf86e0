#!/usr/bin/env bash
# End-to-end: graphsafe installed without building (docs/install.md), run from outside the build
# tree on a copy of examples/ and on a CUDA C++ fixture, three ways:
#   1. `cmake --install BUILD_DIR --prefix` into a scratch prefix;
#   2. the Debian packages graphsafe and graphsafe-cuda, extracted with `dpkg-deb -x`;
#   3. the wheels, pip-installed offline (--no-index) into scratch virtualenvs: graphsafe alone
#      (Python analyzed, a .cu refused with the advice to install graphsafe-cuda), then with
#      graphsafe-cuda (the C++ frontend found in the virtualenv's lib/graphsafe/);
#   4. the wheel as a pre-commit hook of `language: python` (when pre-commit is installed);
#   5. with GRAPHSAFE_E2E_DPKG=1 (CI), the packages installed with dpkg -i and purged again;
#   6. the GitHub Action's steps (scripts/action/install.sh and check.sh), on the wheels;
#   7. lintian on both packages (when lintian is installed): no error, no warning.
# Each must print what the build tree's binary prints. A binary copied without its module must
# not find the build tree's module, and must say where it looked.
#   tests/e2e/install.sh BUILD_DIR SOURCE_DIR [DIST_DIR]
# DIST_DIR holds what scripts/package.sh wrote; without it the packages are made in a scratch
# directory. Builds nothing.
set -euo pipefail
build=$(cd "${1:?usage: install.sh BUILD_DIR SOURCE_DIR [DIST_DIR]}" && pwd)
source_dir=$(cd "${2:?usage: install.sh BUILD_DIR SOURCE_DIR [DIST_DIR]}" && pwd)
dist=${3:-}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset GRAPHSAFE_CUDA_FRONTEND
cuda_fixture=$source_dir/fixtures/cuda/gs401_host_sync_bad.cu

fail() {
  echo "FAIL: $*"
  exit 1
}

if [ -z "$dist" ]; then
  dist=$work/dist
  bash "$source_dir/scripts/package.sh" "$build" "$dist" >/dev/null
fi
deb=$(ls "$dist"/graphsafe_*.deb)
deb_cuda=$(ls "$dist"/graphsafe-cuda_*.deb)
wheel=$(ls "$dist"/graphsafe-*.whl)
wheel_cuda=$(ls "$dist"/graphsafe_cuda-*.whl)
[ "$(basename "$wheel")" != "$(basename "$wheel_cuda")" ] || fail "the two wheels share a name"

# The project to analyze: a copy, so that no path leads back into the source or build tree.
mkdir -p "$work/project"
cp -r "$source_dir/examples" "$work/project/examples"
cp "$cuda_fixture" "$work/project/kernel.cu"
cd "$work/project"

# What the build tree's binary says (exit 1: findings); each installed binary must say the same.
run() {  # run NAME BINARY ARGS...: stdout to $work/NAME.out, stderr to $work/NAME.err
  local name=$1
  shift
  local code=0
  "$@" >"$work/$name.out" 2>"$work/$name.err" || code=$?
  echo "$code" >"$work/$name.code"
}
expect_same() {  # expect_same NAME REFERENCE
  [ "$(cat "$work/$1.code")" = "$(cat "$work/$2.code")" ] ||
    fail "$1: exit $(cat "$work/$1.code"), the build tree's binary $(cat "$work/$2.code"): $(cat "$work/$1.err")"
  diff -u "$work/$2.out" "$work/$1.out" >&2 || fail "$1: output differs from the build tree's binary"
}
run ref-py "$build/graphsafe" check --no-cache examples/
run ref-cu "$build/graphsafe" check --no-cache kernel.cu
[ "$(cat "$work/ref-py.code")" = 1 ] && grep -q 'error\[GS' "$work/ref-py.out" ||
  fail "the build tree's binary finds nothing in examples/: $(cat "$work/ref-py.err")"
[ "$(cat "$work/ref-cu.code")" = 1 ] && grep -q 'error\[GS401\]' "$work/ref-cu.out" ||
  fail "the build tree's binary finds nothing in kernel.cu: $(cat "$work/ref-cu.err")"

# 1. cmake --install into a scratch prefix.
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" --strip >/dev/null
[ -x "$prefix/bin/graphsafe" ] || fail "cmake --install put no bin/graphsafe in the prefix"
[ -f "$prefix/lib/graphsafe/libgraphsafe_cuda.so" ] ||
  fail "cmake --install put no lib/graphsafe/libgraphsafe_cuda.so in the prefix"
bash "$source_dir/tests/e2e/module_runpath.sh" "$build/libgraphsafe_cuda.so" \
  "$prefix/lib/graphsafe/libgraphsafe_cuda.so" || fail "the module's RUNPATH"
run prefix-py "$prefix/bin/graphsafe" check --no-cache examples/
expect_same prefix-py ref-py
run prefix-cu "$prefix/bin/graphsafe" check --no-cache kernel.cu
expect_same prefix-cu ref-cu

# The binary alone, away from its module: the build tree's module must not be used.
mkdir -p "$work/alone"
cp "$prefix/bin/graphsafe" "$work/alone/graphsafe"
run alone-cu "$work/alone/graphsafe" check --no-cache kernel.cu
[ "$(cat "$work/alone-cu.code")" = 2 ] ||
  fail "a binary without its module: exit $(cat "$work/alone-cu.code"), not 2: $(cat "$work/alone-cu.err")"
grep -q "looked for $work/alone/libgraphsafe_cuda.so" "$work/alone-cu.err" ||
  fail "a binary without its module does not say where it looked: $(cat "$work/alone-cu.err")"
if grep -q "$build" "$work/alone-cu.err"; then
  fail "a binary outside the build tree looked into it: $(cat "$work/alone-cu.err")"
fi

# 2. The Debian packages, extracted. Their control fields: the versions match, the module's
# package depends on the binary's of the same version and on Clang 19.
version=$(dpkg-deb -f "$deb" Version)
[ "$(dpkg-deb -f "$deb_cuda" Version)" = "$version" ] || fail "the two packages' versions differ"
dpkg-deb -f "$deb_cuda" Depends | grep -q "graphsafe (= $version)" ||
  fail "graphsafe-cuda does not depend on graphsafe (= $version): $(dpkg-deb -f "$deb_cuda" Depends)"
# (Listings are read whole: grep -q would stop dpkg-deb with SIGPIPE.)
listing=$(dpkg-deb -c "$deb")
listing_cuda=$(dpkg-deb -c "$deb_cuda")
if grep -q libgraphsafe_cuda <<<"$listing"; then fail "the graphsafe package holds the module"; fi
grep -q "usr/lib/graphsafe/clang/include/" <<<"$listing_cuda" ||
  fail "graphsafe-cuda does not carry Clang's resource headers"
for file in copyright changelog.gz third-party-notices.gz; do
  grep -q "usr/share/doc/graphsafe/$file" <<<"$listing" || fail "graphsafe has no $file"
  grep -q "usr/share/doc/graphsafe-cuda/$file" <<<"$listing_cuda" || fail "graphsafe-cuda has no $file"
done
grep -q "usr/share/man/man1/graphsafe.1.gz" <<<"$listing" || fail "graphsafe has no man page"
root=$work/deb
dpkg-deb -x "$deb" "$root"
run deb-py-only "$root/usr/bin/graphsafe" check --no-cache examples/
expect_same deb-py-only ref-py
dpkg-deb -x "$deb_cuda" "$root"
bash "$source_dir/tests/e2e/module_runpath.sh" "$root/usr/lib/graphsafe/libgraphsafe_cuda.so" ||
  fail "the graphsafe-cuda package's module RUNPATH"
run deb-py "$root/usr/bin/graphsafe" check --no-cache examples/
expect_same deb-py ref-py
run deb-cu "$root/usr/bin/graphsafe" check --no-cache kernel.cu
expect_same deb-cu ref-cu

# 3. The wheels in scratch virtualenvs, offline: graphsafe alone analyzes Python and refuses a
# .cu with the advice to add graphsafe-cuda; with graphsafe-cuda the .cu is analyzed.
"$python" -m venv "$work/venv" ||
  fail "$python -m venv failed (Debian: the python3-venv package, scripts/setup.sh)"
pip_offline=(--quiet --no-index --disable-pip-version-check --find-links "$dist")
"$work/venv/bin/pip" install "${pip_offline[@]}" graphsafe >/dev/null
[ -x "$work/venv/bin/graphsafe" ] || fail "the wheel installed no bin/graphsafe"
run venv-py "$work/venv/bin/graphsafe" check --no-cache examples/
expect_same venv-py ref-py
run venv-cu-missing "$work/venv/bin/graphsafe" check --no-cache kernel.cu
[ "$(cat "$work/venv-cu-missing.code")" = 2 ] && grep -q "pip install graphsafe-cuda" "$work/venv-cu-missing.err" ||
  fail "graphsafe without graphsafe-cuda on a .cu: exit $(cat "$work/venv-cu-missing.code"): $(cat "$work/venv-cu-missing.err")"
"$work/venv/bin/pip" install "${pip_offline[@]}" graphsafe-cuda >/dev/null
[ -f "$work/venv/lib/graphsafe/libgraphsafe_cuda.so" ] || fail "graphsafe-cuda installed no lib/graphsafe/"
run venv-cu "$work/venv/bin/graphsafe" check --no-cache kernel.cu
expect_same venv-cu ref-cu
# The wheels' metadata: the licence, and graphsafe-cuda pinned to graphsafe's version.
for file in "$wheel" "$wheel_cuda"; do
  "$python" - "$file" "$version" <<'PY' || fail "the metadata of $(basename "$file")"
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
text = wheel.read(meta).decode()
assert "License-Expression: Apache-2.0" in text, text
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist())
assert "Apache License" in wheel.read(meta.replace("METADATA", "licenses/LICENSE")).decode()
if "Name: graphsafe-cuda" in text:
    assert f"Requires-Dist: graphsafe=={sys.argv[2]}" in text, text
assert "manylinux_2_34_x86_64" in sys.argv[1], sys.argv[1]
PY
done

# 4. The wheel through pre-commit (docs/pre-commit.md): a local hook of `language: python` whose
# environment pip-installs the wheel offline; skipped without pre-commit or git.
if command -v pre-commit >/dev/null 2>&1 && command -v git >/dev/null 2>&1; then
  repo=$work/hooked
  git init -q "$repo"
  cp "$work/project/examples/train_step.py" "$repo/"
  cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: local
    hooks:
      - id: graphsafe
        name: graphsafe
        entry: graphsafe check --no-cache --whole-project --force-exclude --
        language: python
        additional_dependencies: [graphsafe==$version]
        types_or: [python, cuda, c++]
        require_serial: true
YAML
  git -C "$repo" add .
  code=0
  (cd "$repo" && HOME=$work PRE_COMMIT_HOME=$work/pre-commit GIT_CONFIG_NOSYSTEM=1 \
    PIP_NO_INDEX=1 PIP_FIND_LINKS=$dist pre-commit run --all-files) >"$work/hook.out" 2>&1 || code=$?
  [ "$code" = 1 ] && grep -q 'train_step.py:[0-9]*:[0-9]*: error\[GS' "$work/hook.out" ||
    fail "the wheel as a pre-commit hook: exit $code: $(cat "$work/hook.out")"
fi

# 5. The Debian packages installed for real with dpkg -i, which checks their Depends against the
# machine's packages (Debian 12's Clang 19 libraries), then removed. Only when asked
# (GRAPHSAFE_E2E_DPKG=1: CI, on a fresh machine), as root, and when neither is installed already.
installed_for_real=no
if [ "${GRAPHSAFE_E2E_DPKG:-0}" = 1 ]; then
  [ "$(id -u)" = 0 ] || fail "GRAPHSAFE_E2E_DPKG=1 needs root (dpkg -i)"
  if dpkg-query -W graphsafe >/dev/null 2>&1 || dpkg-query -W graphsafe-cuda >/dev/null 2>&1; then
    fail "graphsafe is installed on this machine already: not replacing it"
  fi
  trap 'dpkg --purge graphsafe-cuda graphsafe >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  dpkg -i "$deb" "$deb_cuda" >"$work/dpkg.out" 2>&1 ||
    fail "dpkg -i of the packages failed: $(cat "$work/dpkg.out")"
  run dpkg-py /usr/bin/graphsafe check --no-cache examples/
  expect_same dpkg-py ref-py
  run dpkg-cu /usr/bin/graphsafe check --no-cache kernel.cu
  expect_same dpkg-cu ref-cu
  dpkg --purge graphsafe-cuda graphsafe >"$work/dpkg.out" 2>&1 ||
    fail "dpkg --purge of the packages failed: $(cat "$work/dpkg.out")"
  [ ! -e /usr/bin/graphsafe ] || fail "dpkg --purge left /usr/bin/graphsafe behind"
  installed_for_real=yes
fi

# 6. The GitHub Action's own steps (action.yml), as its runner runs them: install from a package
# index (here the wheels' directory, through pip's environment), then check with SARIF and
# annotations.
action_out=$work/action-outputs
: >"$action_out"
GRAPHSAFE_ACTION_PATH=$source_dir GRAPHSAFE_VERSION=$version GRAPHSAFE_CUDA=true \
  GRAPHSAFE_VENV=$work/action-venv GITHUB_PATH=$work/action-path PIP_NO_INDEX=1 PIP_FIND_LINKS=$dist \
  bash "$source_dir/scripts/action/install.sh" >"$work/action-install.log" 2>&1 ||
  fail "the action's install step: $(cat "$work/action-install.log")"
[ "$(cat "$work/action-path")" = "$work/action-venv/bin" ] || fail "the action's install step put nothing on PATH"
# Without a version: the wheels of GRAPHSAFE_DIST (a cache hit; a miss would build them there).
GRAPHSAFE_ACTION_PATH=$source_dir GRAPHSAFE_VERSION= GRAPHSAFE_CUDA=false GRAPHSAFE_DIST=$dist \
  GRAPHSAFE_VENV=$work/action-venv-dist GITHUB_PATH=/dev/null \
  bash "$source_dir/scripts/action/install.sh" >"$work/action-install-dist.log" 2>&1 ||
  fail "the action's install step from GRAPHSAFE_DIST: $(cat "$work/action-install-dist.log")"
[ -x "$work/action-venv-dist/bin/graphsafe" ] && [ ! -e "$work/action-venv-dist/lib/graphsafe" ] ||
  fail "the action's install step from GRAPHSAFE_DIST with cuda: false"
PATH="$work/action-venv/bin:$PATH" GRAPHSAFE_PATHS="examples kernel.cu" GRAPHSAFE_ARGS="--no-cache" \
  GRAPHSAFE_SARIF=action.sarif GRAPHSAFE_ANNOTATIONS=true GITHUB_OUTPUT=$action_out \
  bash "$source_dir/scripts/action/check.sh" >"$work/action-check.log" 2>&1 ||
  fail "the action's check step failed itself: $(cat "$work/action-check.log")"
grep -qx "exit-code=1" "$action_out" && grep -qx "sarif-file=action.sarif" "$action_out" ||
  fail "the action's check step outputs: $(cat "$action_out")"
grep -q '"ruleId": "GS401"' action.sarif || fail "the action's SARIF has no GS401 from kernel.cu"
grep -q "^::error file=examples/train_step.py,.*capture region starts here" "$work/action-check.log" ||
  fail "the action printed no annotation with its capture site: $(cat "$work/action-check.log")"

# 7. lintian, as Debian checks a package: no error and no warning (skipped without lintian).
linted=no
if command -v lintian >/dev/null 2>&1; then
  lintian --fail-on error,warning \
    "$deb" "$deb_cuda" >"$work/lintian.out" 2>&1 || fail "lintian: $(cat "$work/lintian.out")"
  if grep -E '^[EW]: ' "$work/lintian.out"; then fail "lintian: $(cat "$work/lintian.out")"; fi
  linted=yes
fi

echo "install: cmake --install, the Debian packages ($version; installed with dpkg -i: $installed_for_real; lintian: $linted), the wheels (also as a pre-commit hook) and the action's steps analyze as the build tree does"
