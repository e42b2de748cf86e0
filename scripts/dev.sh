#!/usr/bin/env bash
# One entry point for working on graphsafe. Every command sets up what is missing first.
#   scripts/dev.sh example     analyze the bundled example project and print its diagnostics
#   scripts/dev.sh test        build (warnings are errors) and run the whole test suite
#   scripts/dev.sh build       build only
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
    sed -n '2,7p' "$0"
    exit 2
    ;;
esac
