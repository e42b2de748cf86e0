#!/usr/bin/env bash
# The action's analysis step (action.yml): `graphsafe check` over GRAPHSAFE_PATHS (separated
# by spaces; default .) with GRAPHSAFE_ARGS, writing SARIF to GRAPHSAFE_SARIF; with
# GRAPHSAFE_ANNOTATIONS=true the same findings again as workflow annotations (the second run
# is served by the result cache). Never fails itself: the exit code and the report's path are
# step outputs ($GITHUB_OUTPUT), and the action's last step decides the job's result.
set -uo pipefail
read -ra paths <<<"${GRAPHSAFE_PATHS:-.}"
read -ra args <<<"${GRAPHSAFE_ARGS:-}"
[ "${#paths[@]}" -gt 0 ] || paths=(.)
sarif=${GRAPHSAFE_SARIF:-graphsafe.sarif}
code=0
graphsafe check --format sarif -o "$sarif" "${args[@]}" -- "${paths[@]}" || code=$?
if [ "${GRAPHSAFE_ANNOTATIONS:-true}" = true ] && [ "$code" != 2 ]; then
  graphsafe check --format github --exit-zero "${args[@]}" -- "${paths[@]}"
fi
{
  echo "exit-code=$code"
  if [ -f "$sarif" ]; then echo "sarif-file=$sarif"; fi
} >>"${GITHUB_OUTPUT:-/dev/stdout}"
echo "graphsafe check exited $code"
