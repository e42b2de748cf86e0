#!/usr/bin/env bash
# The CUDA C++ frontend's cost, by hand (not part of the test suite):
#   tu   FILE...  graphsafe's analysis of each translation unit against `clang-19 -fsyntax-only`
#                 with the same flags, with the CUDA toolkit and with the built-in declarations;
#   tree DIR      a whole tree, with the lexical pre-filter and without it
#                 (GRAPHSAFE_CUDA_PREFILTER=off parses every C++ file);
#   bodies DIR    a whole tree, skipping the function bodies of system headers and parsing them
#                 (GRAPHSAFE_CUDA_SKIP_BODIES=off), with the findings of both compared.
# Prints the median of REPEAT runs (default 3) of user+system CPU seconds, which a busy machine
# inflates far less than wall time, and the wall time.
#
#   bash bench/cuda_frontend.sh tu fixtures/cuda/gs301_non_capture_stream_bad.cu
#   bash bench/cuda_frontend.sh tree /path/to/flashinfer/include
#   EXTRA="--extra-arg=-Icsrc" bash bench/cuda_frontend.sh bodies csrc
set -euo pipefail

GRAPHSAFE=${GRAPHSAFE:-build/graphsafe}
CLANG=${CLANG:-clang-19}
CUDA=${CUDA:-/usr/local/cuda}
REPEAT=${REPEAT:-3}
JOBS=${JOBS:-$(nproc)}

# Median of REPEAT runs of a command: "cpu_seconds wall_seconds".
measure() {
  local samples=()
  local times
  times=$(mktemp)
  for _ in $(seq "$REPEAT"); do
    # -o: the command's own output is discarded, time's report is kept apart from it.
    /usr/bin/time -o "$times" -f '%U %S %e' "$@" >/dev/null 2>&1 || true
    samples+=("$(tail -1 "$times" | awk '{printf "%.3f %.3f\n", $1 + $2, $3}')")
  done
  rm -f "$times"
  printf '%s\n' "${samples[@]}" | sort -n | awk -v n="$REPEAT" 'NR == int((n + 1) / 2)'
}

# The flags the frontend gives Clang for a .cu file (frontends/cuda/compile_flags.cpp).
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
: >"$shim/texture_fetch_functions.h"
cuda_flags=(-x cuda --cuda-host-only "--cuda-path=$CUDA" -nocudalib -idirafter "$shim"
            -isystem "$CUDA/include/cccl" -std=c++17 -fsyntax-only -w -ferror-limit=0
            -Wno-unknown-cuda-version)

case "${1:-}" in
  tu)
    shift
    printf '%-48s %22s %22s %22s\n' "file" "clang -fsyntax-only" "graphsafe (toolkit)" \
      "graphsafe (built-in)"
    for file in "$@"; do
      read -r clang_cpu clang_wall < <(measure "$CLANG" "${cuda_flags[@]}" "$file")
      read -r tk_cpu tk_wall < <(GRAPHSAFE_CUDA_PATH=$CUDA measure "$GRAPHSAFE" check --exit-zero \
        -j 1 "$file")
      read -r bi_cpu bi_wall < <(GRAPHSAFE_CUDA_PATH=none measure "$GRAPHSAFE" check --exit-zero \
        -j 1 "$file")
      printf '%-48s %10ss cpu %6ss %10ss cpu %6ss %10ss cpu %6ss\n' "$(basename "$file")" \
        "$clang_cpu" "$clang_wall" "$tk_cpu" "$tk_wall" "$bi_cpu" "$bi_wall"
    done
    ;;
  tree)
    dir=$2
    files=$(find "$dir" -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cc' \
      -o -name '*.h' -o -name '*.hpp' \) | wc -l)
    echo "$dir: $files C++/CUDA files, -j $JOBS"
    read -r on_cpu on_wall < <(measure "$GRAPHSAFE" check --exit-zero -j "$JOBS" "$dir")
    read -r off_cpu off_wall < <(GRAPHSAFE_CUDA_PREFILTER=off measure "$GRAPHSAFE" check \
      --exit-zero -j "$JOBS" "$dir")
    printf 'with the pre-filter:    %8ss cpu %8ss wall\n' "$on_cpu" "$on_wall"
    printf 'without the pre-filter: %8ss cpu %8ss wall\n' "$off_cpu" "$off_wall"
    ;;
  bodies)
    dir=$2
    read -r -a extra <<<"${EXTRA:-}"
    echo "$dir: -j $JOBS ${extra[*]}"
    run=("$GRAPHSAFE" check --exit-zero --no-cache --format json -j "$JOBS" "${extra[@]}" "$dir")
    read -r skip_cpu skip_wall < <(measure "${run[@]}")
    read -r all_cpu all_wall < <(GRAPHSAFE_CUDA_SKIP_BODIES=off measure "${run[@]}")
    printf 'system bodies skipped: %8ss cpu %8ss wall\n' "$skip_cpu" "$skip_wall"
    printf 'system bodies parsed:  %8ss cpu %8ss wall\n' "$all_cpu" "$all_wall"
    if cmp -s <("${run[@]}" 2>/dev/null) <(GRAPHSAFE_CUDA_SKIP_BODIES=off "${run[@]}" 2>/dev/null); then
      echo "the same output"
    else
      echo "the outputs differ"
    fi
    ;;
  *)
    sed -n '2,15p' "$0"
    exit 2
    ;;
esac
