#!/usr/bin/env bash
# The man page and the shell completions the build made (BUILD_DIR/share, cmake/GenerateManual.cmake):
# man renders the page without a warning and it lists every option of every command's --help;
# bash, zsh and fish complete commands, aliases, options and their values from the scripts.
#   tests/e2e/manual.sh GRAPHSAFE_BINARY SHARE_DIR
# Exits 77 (skipped) only when man, zsh or fish is not installed.
set -euo pipefail
binary=${1:?usage: manual.sh GRAPHSAFE_BINARY SHARE_DIR}
share=$(cd "${2:?usage: manual.sh GRAPHSAFE_BINARY SHARE_DIR}" && pwd)
for tool in man zsh fish; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is not installed: skipped"
    exit 77
  fi
done
fail() {
  echo "FAIL: $*"
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# man: as lintian checks a page (groff's warnings), then its text.
page=$share/man/man1/graphsafe.1.gz
warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "man warns about the page: $warnings"
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null | col -b)
for command in check rules explain merge callgraph lsp generate-shell-completion; do
  grep -q "graphsafe $command" <<<"$text" || fail "the man page has no section for $command"
  for option in $("$binary" "$command" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    grep -q -- "$option" <<<"$text" || fail "the man page lacks $command's $option"
  done
done
for section in "EXIT STATUS" ENVIRONMENT GRAPHSAFE_CUDA_PATH CUDA_PATH; do
  grep -q "$section" <<<"$text" || fail "the man page lacks $section"
done
cmp -s <(gzip -dc "$page") <("$binary" generate-man-page) || fail "the installed page is not the binary's"

# bash: the completion function, called as bash calls it.
bash_complete() {  # bash_complete WORD...: the completions of the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _graphsafe; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$share/bash-completion/completions/graphsafe" "$@"
}
expect_bash() {  # expect_bash EXPECTED WORD...
  local expected=$1
  shift
  local got
  got=$(bash_complete "$@")
  grep -qx -- "$expected" <<<"$got" || fail "bash: '$*' does not complete to $expected: $(tr '\n' ' ' <<<"$got")"
}
expect_bash check graphsafe ch
expect_bash server graphsafe se
expect_bash --format graphsafe check --for
expect_bash --extend-select graphsafe check --ext
expect_bash sarif graphsafe check --format sa
expect_bash json graphsafe check --format = j
expect_bash GS401 graphsafe check --select GS40
expect_bash ALL graphsafe check --ignore A
expect_bash GS203 graphsafe explain GS20
expect_bash zsh graphsafe generate-shell-completion z
mkdir -p "$work/dir/sub" && : >"$work/dir/model.py"
(cd "$work/dir" && expect_bash model.py graphsafe check mo)
(cd "$work/dir" && expect_bash sub graphsafe check --cache-dir s)
# After a flag comes a path, not a value.
(cd "$work/dir" && expect_bash model.py graphsafe check --force-exclude mo)

# fish: its own completion engine on the script.
fish_complete() {
  fish --no-config -c "source $share/fish/vendor_completions.d/graphsafe.fish; complete -C '$1'" | cut -f1
}
expect_fish() {  # expect_fish EXPECTED COMMANDLINE
  local got
  got=$(fish_complete "$2")
  grep -qx -- "$1" <<<"$got" || fail "fish: '$2' does not complete to $1: $(tr '\n' ' ' <<<"$got")"
}
expect_fish check "graphsafe ch"
expect_fish server "graphsafe ser"
expect_fish --format "graphsafe check --for"
expect_fish github "graphsafe check --format gi"
expect_fish GS401 "graphsafe check --select GS40"
expect_fish --stdio "graphsafe lsp --st"

# zsh: the script parses, and defines the completion function.
zsh -n "$share/zsh/vendor-completions/_graphsafe" || fail "zsh cannot parse _graphsafe"
loaded=$(zsh -fc "fpath=($share/zsh/vendor-completions \$fpath); autoload -Uz _graphsafe; whence -w _graphsafe")
grep -q function <<<"$loaded" || fail "zsh does not load _graphsafe: $loaded"
for shell in bash zsh fish; do
  "$binary" generate-shell-completion "$shell" >"$work/$shell" || fail "generate-shell-completion $shell failed"
done
cmp -s "$work/bash" "$share/bash-completion/completions/graphsafe" || fail "the installed bash script is not the binary's"
"$binary" server --help | grep -q "Language Server" || fail "graphsafe server is not the language server"
code=0
"$binary" generate-shell-completion tcsh >/dev/null 2>&1 || code=$?
[ "$code" = 2 ] || fail "an unknown shell exits $code, not 2"
echo "ok: man renders graphsafe(1) without warnings and with every option; bash and fish complete commands, options, values and files; zsh loads its script"
