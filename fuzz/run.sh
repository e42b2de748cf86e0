#!/usr/bin/env bash
# Runs one fuzz target for a given time:
#   fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#   fuzz/run.sh list
# Builds the fuzz tree first when needed (clang-19, -DGRAPHSAFE_FUZZ=ON, in $GRAPHSAFE_FUZZ_BUILD_DIR,
# default build-fuzz/; GRAPHSAFE_FUZZ_NO_BUILD=1 skips the build). The working corpus lives in that
# tree (corpus/TARGET) and grows from run to run; it starts from seeds made out of the fixtures,
# the examples and the runtime probe's cases.
# A crash leaves its input in artifacts/TARGET/ and the script exits non-zero; reproduce it with
#   build-fuzz/fuzz/fuzz_TARGET artifacts/TARGET/crash-...
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHSAFE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${GRAPHSAFE_BUILD_JOBS:-$(nproc)}"
targets=(python_analysis config_yaml config_toml suppression_comment cuda_prefilter lsp_reader cuda_unit
         cache_entry text_output)

usage() {
  sed -n '2,9p' "$0"
  echo "targets: ${targets[*]}"
  exit 2
}

[ "${1:-}" = "list" ] && { printf '%s\n' "${targets[@]}"; exit 0; }
[ $# -ge 2 ] || usage
target="$1"
seconds="$2"
shift 2
[[ " ${targets[*]} " == *" $target "* ]] || usage
[[ "$seconds" =~ ^[0-9]+$ ]] || usage

if [ ! -f "$build/CMakeCache.txt" ]; then
  bash "$root/scripts/setup.sh"
  # -O1 with line tables: what sanitizer reports need, at half the compile time of -O2 -g.
  CC=clang-19 CXX=clang++-19 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DGRAPHSAFE_FUZZ=ON -DGRAPHSAFE_TESTS=OFF -DGRAPHSAFE_CUDA_FRONTEND=ON >/dev/null
fi
# GRAPHSAFE_FUZZ_NO_BUILD=1 runs the binary as it is (while another build uses the tree).
if [ -z "${GRAPHSAFE_FUZZ_NO_BUILD:-}" ]; then
  cmake --build "$build" -j "$jobs" --target "fuzz_$target"
fi

corpus="$build/corpus/$target"
seeds="$build/seeds/$target"
artifacts="$build/artifacts/$target"
rm -rf "$seeds"
mkdir -p "$corpus" "$artifacts"
python3 "$root/fuzz/seed_corpus.py" "$target" "$root" "$seeds"

flags=(
  -max_total_time="$seconds"
  -artifact_prefix="$artifacts/"
  -timeout=30          # one input over 30 s is a hang
  -rss_limit_mb=4096   # and one over 4 GiB a memory blow-up
  -print_final_stats=1
)
case "$target" in
  python_analysis) flags+=(-max_len=16384 -dict="$root/fuzz/dictionaries/python.dict") ;;
  lsp_reader) flags+=(-max_len=16384 -dict="$root/fuzz/dictionaries/lsp.dict") ;;
  config_yaml) flags+=(-dict="$root/fuzz/dictionaries/config.dict") ;;
  config_toml) flags+=(-dict="$root/fuzz/dictionaries/config.dict") ;;
  suppression_comment) flags+=(-dict="$root/fuzz/dictionaries/suppression.dict") ;;
  cuda_prefilter) flags+=(-dict="$root/fuzz/dictionaries/cuda.dict") ;;
  cuda_unit) flags+=(-max_len=8192 -dict="$root/fuzz/dictionaries/cuda.dict") ;;
  cache_entry) flags+=(-max_len=65536) ;;
  text_output) flags+=(-max_len=65536 -dict="$root/fuzz/dictionaries/python.dict") ;;
esac

# New inputs go to the first directory (the working corpus); the seeds are read only.
exec "$build/fuzz/fuzz_$target" "${flags[@]}" "$@" "$corpus" "$seeds"
