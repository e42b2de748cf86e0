#!/usr/bin/env bash
# End-to-end: Neovim's built-in LSP client (headless) against `graphsafe lsp`. Exits 77
# (skipped) only when nvim is not installed.
set -euo pipefail
binary=${1:?usage: neovim_lsp.sh GRAPHSAFE_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v nvim >/dev/null 2>&1; then
  echo "nvim is not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/fixtures/host_sync.py" "$work/host_sync.py"
export GRAPHSAFE_BIN=$binary
export GRAPHSAFE_FIXTURE=$work/host_sync.py
export GRAPHSAFE_E2E_RESULT=$work/result
export HOME=$work  # no user configuration, no shada, no swap files elsewhere
status=0
(cd "$work" && timeout 60 nvim --headless -u NONE -i NONE -n -c "luafile $here/neovim_lsp.lua") \
  </dev/null >"$work/nvim.log" 2>&1 || status=$?
verdict=$(cat "$work/result" 2>/dev/null || echo "no result (nvim exit status $status)")
if [[ $verdict != ok ]]; then
  echo "FAIL: $verdict"
  cat "$work/nvim.log"
  exit 1
fi
echo "ok: Neovim received graphsafe's GS401 diagnostic and applied the suppression"
