#!/usr/bin/env bash
# Installs what graphsafe needs to build and test on Debian 12, skipping what is already there.
# Idempotent: a second run installs nothing. Versions are Debian 12's (bookworm) packages; the
# tree-sitter C sources are fetched by CMake at configure time, pinned and sha512-checked.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git ca-certificates
  nodejs npm                          # `npm pack` fetches the pinned tree-sitter sources
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev   # the CUDA C++ frontend
  neovim pre-commit flake8            # real clients in tests; the benchmark's reference linter
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
