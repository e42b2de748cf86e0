#!/usr/bin/env bash
# Installs what graphsafe needs to build and test on Debian 12, skipping what is already there.
# Idempotent: a second run installs nothing. Versions are Debian 12's (bookworm) packages; the
# tree-sitter C sources (and the workflow validators the tests run) are fetched by CMake at
# configure time, pinned and sha512-checked.
#   scripts/setup.sh           what the build and the test suite need
#   scripts/setup.sh --build   what a build and scripts/package.sh need (the GitHub Action's build)
set -euo pipefail

packages=(
  cmake ninja-build g++ binutils pkg-config git ca-certificates
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libtomlplusplus-dev
  libsodium-dev                       # the cache's keyed hash (linked statically)
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev   # the CUDA C++ frontend
  zlib1g-dev libzstd-dev              # their static archives: LLVM's compression, linked into the module
  python3 python3-venv python3-yaml   # scripts/build_wheel.py; the wheel's install test; the docs tests
)
if [ "${1:-}" != "--build" ]; then
  packages+=(
    libgtest-dev libgmock-dev
    libclang-rt-19-dev                # libFuzzer and the sanitizer runtimes for fuzz/ (clang-19)
    neovim pre-commit flake8          # real clients in tests; the benchmark's reference linter
    lintian                           # the Debian packages' check (tests/e2e/install.sh)
    bash-completion zsh fish          # the shell completions' tests
    debootstrap                       # the wheels on another Debian release (tests/e2e/other_distribution.sh)
  )
fi

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
