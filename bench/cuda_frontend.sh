#!/usr/bin/env bash
# The CUDA C++ frontend's cost, by hand (not part of the test suite):
#   tu   FILE...  graphsafe's analysis of each translation unit against `clang-19 -fsyntax-only`
#                 with the same flags, with the CUDA toolkit and with the built-in declarations;
#   tree DIR      a whole tree, with the lexical pre-filter and without it
#                 (GRAPHSAFE_CUDA_PREFILTER=off parses every C++ file);
#   bodies DIR    a whole tree, skipping the function bodies of system headers and parsing them
#                 (GRAPHSAFE_CUDA_SKIP_BODIES=off), with the findings of both compared;
#   units DB [N]  N translation units of a compile_commands.json (default 8, spread over it):
#                 graphsafe's analysis of each against `clang-19 -fsyntax-only` with exactly the
#                 command graphsafe gives Clang for it (the database's flags, nvcc's macros, the
#                 toolkit), and the ratio of the totals. Needs the CUDA toolkit: the built-in
#                 declarations live only in graphsafe's memory.
# Prints the median of REPEAT runs (default 3) of user+system CPU seconds, which a busy machine
# inflates far less than wall time, and the wall time.
#
#   bash bench/cuda_frontend.sh tu fixtures/cuda/gs301_non_capture_stream_bad.cu
#   bash bench/cuda_frontend.sh tree /path/to/flashinfer/include
#   EXTRA="--extra-arg=-Icsrc" bash bench/cuda_frontend.sh bodies csrc
#   bash bench/cuda_frontend.sh units /path/to/build 12
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

# graphsafe's in-memory headers, for Clang: the shim (frontends/cuda/compile_flags.h's
# kNvccViewText and the texture header CUDA 13 dropped); the torch stand-in is left out.
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
: >"$shim/texture_fetch_functions.h"
printf '#pragma once\n#undef __CUDA__\n' >"$shim/nvcc_view.h"

# The command graphsafe gives Clang for a file, as it prints it (GRAPHSAFE_CUDA_PRINT_COMMAND):
# sets `directory` and `clang_args`; fails when graphsafe does not parse the file.
clang_command() {
  local line fields i
  line=$(GRAPHSAFE_CXX_IN_PROCESS=1 GRAPHSAFE_CUDA_PRINT_COMMAND=1 GRAPHSAFE_CUDA_PATH=$CUDA \
    "$GRAPHSAFE" check --no-cache --exit-zero -j 1 "$@" 2>&1 >/dev/null |
    grep -m1 '^graphsafe-cuda-command' || true)
  [ -n "$line" ] || return 1
  IFS=$'\t' read -r -a fields <<<"$line"
  directory=${fields[1]}
  clang_args=()
  for ((i = 3; i < ${#fields[@]}; i++)); do
    if [ "${fields[i]}" = "-idirafter" ] && [ "${fields[i + 1]:-}" = /__graphsafe__/torch ]; then
      ((i++))
      continue
    fi
    clang_args+=("${fields[i]//\/__graphsafe__\/shim/$shim}")
  done
}

case "${1:-}" in
  tu)
    shift
    printf '%-48s %22s %22s %22s\n' "file" "clang -fsyntax-only" "graphsafe (toolkit)" \
      "graphsafe (built-in)"
    for file in "$@"; do
      clang_command "$file" || { echo "$(basename "$file"): not parsed"; continue; }
      read -r clang_cpu clang_wall < <(cd "$directory" && measure "$CLANG" "${clang_args[@]}")
      read -r tk_cpu tk_wall < <(GRAPHSAFE_CUDA_PATH=$CUDA measure "$GRAPHSAFE" check --exit-zero \
        --no-cache -j 1 "$file")
      read -r bi_cpu bi_wall < <(GRAPHSAFE_CUDA_PATH=none measure "$GRAPHSAFE" check --exit-zero \
        --no-cache -j 1 "$file")
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
  units)
    db=$2
    count=${3:-8}
    mapfile -t units < <(/usr/bin/python3 - "$db/compile_commands.json" "$count" <<'PY'
import json, os, sys
entries = json.load(open(sys.argv[1]))
files = sorted({os.path.join(e["directory"], e["file"]) for e in entries})
step = max(1, len(files) // int(sys.argv[2]))
print("\n".join(files[::step][: int(sys.argv[2])]))
PY
)
    printf '%-44s %24s %24s %7s\n' "unit" "clang -fsyntax-only" "graphsafe check" "ratio"
    clang_total=0
    graphsafe_total=0
    for unit in "${units[@]}"; do
      if ! clang_command -p "$db" "$unit"; then
        printf '%-44s %s\n' "$(basename "$unit")" "not parsed (the pre-filter skips it)"
        continue
      fi
      read -r clang_cpu clang_wall < <(cd "$directory" && measure "$CLANG" "${clang_args[@]}")
      read -r gs_cpu gs_wall < <(GRAPHSAFE_CUDA_PATH=$CUDA measure "$GRAPHSAFE" check --no-cache \
        --exit-zero -j 1 -p "$db" "$unit")
      clang_total=$(awk -v a="$clang_total" -v b="$clang_cpu" 'BEGIN { print a + b }')
      graphsafe_total=$(awk -v a="$graphsafe_total" -v b="$gs_cpu" 'BEGIN { print a + b }')
      printf '%-44s %10ss cpu %7ss %10ss cpu %7ss %6.2fx\n' "$(basename "$unit")" "$clang_cpu" \
        "$clang_wall" "$gs_cpu" "$gs_wall" \
        "$(awk -v a="$gs_cpu" -v b="$clang_cpu" 'BEGIN { print (b > 0 ? a / b : 0) }')"
    done
    printf 'total: clang %ss cpu, graphsafe %ss cpu, ratio %sx\n' "$clang_total" \
      "$graphsafe_total" \
      "$(awk -v a="$graphsafe_total" -v b="$clang_total" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    ;;
  *)
    sed -n '2,21p' "$0"
    exit 2
    ;;
esac
