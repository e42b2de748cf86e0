#!/usr/bin/env bash
# The library search path the C++ frontend module carries (DT_RUNPATH, or DT_RPATH): every entry
# relative to the module's own directory ($ORIGIN), none empty. An absolute directory, or an empty
# entry (which the dynamic loader reads as the working directory: a checkout's own
# libLLVM.so.19.1 would be loaded into graphsafe), fails.
#   tests/e2e/module_runpath.sh MODULE.so...
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: module_runpath.sh MODULE.so..." >&2; exit 2; }
command -v readelf >/dev/null 2>&1 || { echo "module_runpath: readelf is not installed" >&2; exit 77; }
status=0
for module in "$@"; do
  [ -f "$module" ] || { echo "FAIL: $module: no such file"; status=1; continue; }
  paths=$(readelf -d "$module" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]$/\2/p')
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    IFS=: read -r -a entries <<<"$path"
    if [[ "$path" == *: || "$path" == :* || "$path" == *::* ]]; then
      echo "FAIL: $module: an empty entry in its library search path '$path' (the working directory)"
      status=1
    fi
    for entry in "${entries[@]}"; do
      [ -z "$entry" ] && continue
      case "$entry" in
        '$ORIGIN' | '$ORIGIN/'*) ;;
        *) echo "FAIL: $module: '$entry' in its library search path is not relative to \$ORIGIN"
           status=1 ;;
      esac
    done
  done <<<"$paths"
done
[ "$status" = 0 ] && echo "module_runpath: $# module(s), every search path entry relative to \$ORIGIN"
exit "$status"
