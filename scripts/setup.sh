#!/usr/bin/env bash
# Installs what graphsafe needs to build and test on Debian 12, skipping what is already there.
# Idempotent: a second run installs nothing. Versions are Debian 12's (bookworm) packages; the
# tree-sitter C sources are fetched by CMake at configure time, pinned and sha512-checked.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git ca-certificates
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libtomlplusplus-dev
  libsodium-dev                       # the cache's keyed hash (linked statically)
  libgtest-dev libgmock-dev
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev   # the CUDA C++ frontend
  libclang-rt-19-dev                  # libFuzzer and the sanitizer runtimes for fuzz/ (clang-19)
  neovim pre-commit flake8            # real clients in tests; the benchmark's reference linter
  python3 python3-venv                # scripts/build_wheel.py; the wheel's install test (a virtualenv)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

# `npm pack` fetches the pinned tree-sitter sources. Any npm will do (some images ship Node.js
# from another source, whose package also provides npm): install Debian's only when there is none.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
