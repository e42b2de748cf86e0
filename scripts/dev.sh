#!/usr/bin/env bash
# One entry point for working on graphsafe. Every command sets up what is missing first.
#   scripts/dev.sh example     analyze the bundled example project and print its diagnostics
#   scripts/dev.sh test        build (warnings are errors) and run the whole test suite
#   scripts/dev.sh sanitize    the same under AddressSanitizer + UBSan, in build-sanitize/
#   scripts/dev.sh build       build only
#   scripts/dev.sh package     the Debian packages and the wheels, in build/dist/, then installed and run
#   scripts/dev.sh docs        regenerate docs/rules/ from the catalog
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHSAFE_BUILD_DIR:-$root/build}"
jobs="${GRAPHSAFE_BUILD_JOBS:-$(nproc)}"

setup() { bash "$root/scripts/setup.sh"; }

build() {
  setup
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHSAFE_WERROR=ON \
    "$@" >/dev/null
  cmake --build "$build" -j "$jobs"
}

case "${1:-}" in
  example)
    build
    cd "$root"
    # Exit code 1 means "findings", which is what the example is for.
    "$build/graphsafe" check examples/ || [ $? -eq 1 ]
    ;;
  test)
    build
    cd "$build"
    ctest --output-on-failure -j "$jobs"
    ;;
  sanitize)
    # A second tree, so that the plain build stays as it is. Any sanitizer report fails the test
    # that triggered it: ASan aborts, UBSan halts on the first error.
    build="${GRAPHSAFE_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
    build -DGRAPHSAFE_SANITIZE=ON -DGRAPHSAFE_CUDA_FRONTEND="${GRAPHSAFE_SANITIZE_CUDA:-OFF}"
    cd "$build"
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}" \
      UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
      ctest --output-on-failure -j "$jobs"
    ;;
  package)
    # Packages the build as it is (no second build), then runs the installed binary from a
    # scratch prefix, the extracted packages and a scratch virtualenv (docs/install.md).
    build
    bash "$root/scripts/package.sh" "$build" "$build/dist"
    bash "$root/tests/e2e/install.sh" "$build" "$root" "$build/dist"
    # The wheels on another Debian release (a debootstrap root, kept in ~/.cache/graphsafe/);
    # 77 is its "skipped" (no root, no debootstrap, no mirror).
    bash "$root/tests/e2e/other_distribution.sh" "$build" "$root" "$build/dist" || [ $? -eq 77 ]
    ;;
  build)
    shift
    build "$@"
    ;;
  docs)
    build
    cd "$build"
    GRAPHSAFE_UPDATE_DOCS=1 ctest -R 'RuleDocs' --output-on-failure
    ;;
  *)
    sed -n '2,8p' "$0"
    exit 2
    ;;
esac
