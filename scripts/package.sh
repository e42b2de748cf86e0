#!/usr/bin/env bash
# Packages an existing build, without building anything (docs/install.md):
#   scripts/package.sh [BUILD_DIR [OUT_DIR]]     defaults: build/ and BUILD_DIR/dist/
# writes into OUT_DIR
#   graphsafe_<version>_<arch>.deb        the binary: the Python analysis (CPack, cmake/Packaging.cmake)
#   graphsafe-cuda_<version>_<arch>.deb   the CUDA C++ frontend module (Clang 19 linked in)
#   graphsafe-<version>-py3-none-<platform>.whl        the binary as a wheel (scripts/build_wheel.py)
#   graphsafe_cuda-<version>-py3-none-<platform>.whl   the module as a wheel of its own
# and prints their paths. The version is the CMake project version; the platform tag is
# measured from the files (manylinux_2_34_x86_64 for the default, portable build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="${2:-$build/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if [ ! -x "$build/graphsafe" ] || [ ! -f "$build/CPackConfig.cmake" ]; then
  echo "package: no configured and built tree in $build (bash scripts/dev.sh build)" >&2
  exit 2
fi

rm -f "$out"/graphsafe_*.deb "$out"/graphsafe-cuda_*.deb "$out"/graphsafe-*.whl \
  "$out"/graphsafe_cuda-*.whl   # a previous version's
# CPack installs the components into its own staging tree under OUT_DIR/_CPack_Packages.
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >/dev/null
rm -rf "$out/_CPack_Packages"
cuda=()
if [ -f "$build/libgraphsafe_cuda.so" ]; then cuda=(--cuda); fi
python3 "$root/scripts/build_wheel.py" --build-dir "$build" --out-dir "$out" "${cuda[@]}" >/dev/null
ls -1 "$out"/graphsafe*.deb "$out"/graphsafe*.whl
