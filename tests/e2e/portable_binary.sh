#!/usr/bin/env bash
# The portable build's promise (cmake/PortableLinking.cmake, docs/install.md): each file needs no
# shared library but glibc's (libc, libm, the dynamic loader) and libgcc_s, no libstdc++ symbol
# version, and no GLIBC_ symbol version newer than the baseline its packages and wheels are
# tagged with (manylinux_2_34). Fails, naming the library or the symbols, when that drifts.
#   tests/e2e/portable_binary.sh BASELINE FILE...     (BASELINE: 2.34)
set -euo pipefail
baseline=${1:?usage: portable_binary.sh BASELINE FILE...}
shift
allowed=" libc.so.6 libm.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 "
newer() {  # newer A B: version A is newer than version B
  [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" = "$1" ]
}
status=0
for file in "$@"; do
  [ -f "$file" ] || { echo "FAIL: $file does not exist"; exit 1; }
  for library in $(readelf --dynamic --wide "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    if [[ $allowed != *" $library "* ]]; then
      echo "FAIL: $file needs $library, which is not glibc's or libgcc_s (link it in)"
      status=1
    fi
  done
  symbols=$(readelf --dyn-syms --wide "$file")
  if grep -qE '@(GLIBCXX|CXXABI)_' <<<"$symbols"; then
    echo "FAIL: $file needs libstdc++ symbols: $(grep -oE '[^ ]+@(GLIBCXX|CXXABI)_[0-9.]+' <<<"$symbols" | head -3 | tr '\n' ' ')"
    status=1
  fi
  newest=2.2.5
  for version in $(grep -oE '@GLIBC_[0-9.]+' <<<"$symbols" | sed 's/@GLIBC_//' | sort -uV); do
    if newer "$version" "$baseline"; then
      echo "FAIL: $file needs glibc $version, newer than the baseline $baseline:" \
        "$(grep -E "@GLIBC_$version( |$)" <<<"$symbols" | awk '{print $8}' | tr '\n' ' ')"
      status=1
    fi
    newer "$version" "$newest" && newest=$version
  done
  echo "$file: glibc $newest at most, libraries: $(readelf --dynamic --wide "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
done
exit $status
