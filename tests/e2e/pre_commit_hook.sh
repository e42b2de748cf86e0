#!/usr/bin/env bash
# End-to-end: Debian's pre-commit with graphsafe's .pre-commit-hooks.yaml, in a temporary git
# repository, offline (language: system, the built binary on PATH). A commit adding a hazard
# must be blocked with graphsafe's message; a clean commit must pass; a staged file the
# configuration excludes must pass; a staged file named `--output=victim.py` must be analyzed
# and victim.py left alone; a staged caller must see its committed helpers; the hook's entry
# must give the same findings when its list of files is split in two; the hook's `args`
# (--select in any case, --fix) must be read as options. Exits 77 (skipped) only when pre-commit or git is not installed.
set -euo pipefail
binary=${1:?usage: pre_commit_hook.sh GRAPHSAFE_BINARY SOURCE_DIR}
source_dir=${2:?usage: pre_commit_hook.sh GRAPHSAFE_BINARY SOURCE_DIR}
for tool in pre-commit git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is not installed: skipped"
    exit 77
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work PRE_COMMIT_HOME=$work/cache GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
mkdir -p "$work/bin"
ln -s "$binary" "$work/bin/graphsafe"
export PATH=$work/bin:$PATH

fail() {
  echo "FAIL: $*"
  exit 1
}

# The hook repository: graphsafe's own hook definition, as pre-commit clones it.
git init -q "$work/hooks"
cp "$source_dir/.pre-commit-hooks.yaml" "$work/hooks/"
git -C "$work/hooks" add .pre-commit-hooks.yaml
git -C "$work/hooks" commit -q -m hooks
rev=$(git -C "$work/hooks" rev-parse HEAD)

# The project that uses it.
project=$work/project
git init -q "$project"
cd "$project"
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $work/hooks
    rev: $rev
    hooks:
      - id: graphsafe
YAML
git add .pre-commit-config.yaml
git commit -q --no-verify -m config
pre-commit install >/dev/null

cat >clean.py <<'PY'
import torch

x = torch.ones(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x * 2
g.replay()
print(y.sum().item())
PY
git add clean.py
git commit -q -m clean >"$work/clean.log" 2>&1 || { cat "$work/clean.log"; fail "a clean commit was blocked"; }
grep -q "graphsafe" "$work/clean.log" || { cat "$work/clean.log"; fail "the hook did not run"; }
grep -q "Passed" "$work/clean.log" || { cat "$work/clean.log"; fail "the hook did not pass"; }

cat >hazard.py <<'PY'
import torch

x = torch.ones(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x.sum().item()
PY
git add hazard.py
if git commit -q -m hazard >"$work/hazard.log" 2>&1; then
  cat "$work/hazard.log"
  fail "a commit adding a hazard was not blocked"
fi
grep -q "hazard.py:6:9: error\[GS401\]" "$work/hazard.log" || { cat "$work/hazard.log"; fail "graphsafe's message is missing"; }
grep -q "Failed" "$work/hazard.log" || { cat "$work/hazard.log"; fail "pre-commit did not report the hook as failed"; }
[[ $(git rev-list --count HEAD) == 2 ]] || fail "the hazard was committed"

# A staged file the configuration excludes does not block the commit (--force-exclude).
git rm -q --cached hazard.py
rm hazard.py
mkdir -p generated
cat >generated/hazard.py <<'PY'
import torch

x = torch.ones(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x.sum().item()
PY
printf 'exclude: ["generated/"]\n' >.graphsafe.yaml
git add .graphsafe.yaml generated/hazard.py
git commit -q -m excluded >"$work/excluded.log" 2>&1 || { cat "$work/excluded.log"; fail "an excluded file blocked the commit"; }
grep -q "Passed" "$work/excluded.log" || { cat "$work/excluded.log"; fail "the hook did not pass on an excluded file"; }

# A staged file named like an option is a file: it is analyzed (and blocks the commit), and the
# file the option would name is left as it is.
printf 'keep = 1\n' >victim.py
git add victim.py
git commit -q --no-verify -m victim
cp generated/hazard.py -- "--output=victim.py"
git add -- "--output=victim.py"
if git commit -q -m option-like >"$work/option.log" 2>&1; then
  cat "$work/option.log"
  fail "a hazard in a file named --output=victim.py was not reported"
fi
grep -q -- "--output=victim.py:6:9: error\[GS401\]" "$work/option.log" || { cat "$work/option.log"; fail "the file named --output=victim.py was not analyzed"; }
[[ $(cat victim.py) == "keep = 1" ]] || fail "victim.py was overwritten"
git diff --quiet -- victim.py || fail "victim.py was changed"

# A staged caller sees its committed helpers: the helper's capture runs the caller's function,
# so the finding is in the caller although its own lines hold no capture.
git rm -q --cached -- "--output=victim.py"
rm -- "--output=victim.py"
mkdir -p pkg
: >pkg/__init__.py
cat >pkg/helper.py <<'PY'
import torch


def run_captured(fn):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g
PY
git add pkg/__init__.py pkg/helper.py
git commit -q -m helper >"$work/helper.log" 2>&1 || { cat "$work/helper.log"; fail "the helper alone was blocked"; }
cat >pkg/caller.py <<'PY'
import torch

from pkg.helper import run_captured

x = torch.ones(4, device="cuda")


def step():
    return x.sum().item()


run_captured(step)
PY
git add pkg/caller.py
if git commit -q -m caller >"$work/caller.log" 2>&1; then
  cat "$work/caller.log"
  fail "a staged caller did not see its committed helper's capture"
fi
grep -q "pkg/caller.py:9:12: error\[GS401\]" "$work/caller.log" || { cat "$work/caller.log"; fail "the caller's finding is missing"; }

# pre-commit splits a long list of files into several runs of the entry: split in two, the
# entry reports what one run over all the files reports.
entry=$(sed -n 's/^ *entry: //p' "$source_dir/.pre-commit-hooks.yaml")
cat >pkg/other.py <<'PY'
import torch

x = torch.ones(4, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = x.sum().item()
PY
one=$($entry pkg/__init__.py pkg/caller.py pkg/helper.py pkg/other.py 2>/dev/null | grep 'error\[' || true)
first=$($entry pkg/__init__.py pkg/other.py 2>/dev/null | grep 'error\[' || true)
second=$($entry pkg/caller.py pkg/helper.py 2>/dev/null | grep 'error\[' || true)
[[ $(printf '%s\n' "$one" | grep -c 'error\[') == 2 ]] || fail "one run found: $one"
[[ $(printf '%s\n%s\n' "$second" "$first") == "$(printf '%s\n' "$one")" ]] || fail "split runs found: $first / $second; one run: $one"

# The hook's `args` are options (--pre-commit tells them from the staged files): a selection
# that leaves the staged hazard's rule out passes, in any case of the code.
git reset -q
rm -f pkg/caller.py pkg/other.py
hook_args() {  # hook_args ARG...: the project's configuration with these args
  local list
  list=$(printf '%s, ' "$@")
  cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $work/hooks
    rev: $rev
    hooks:
      - id: graphsafe
        args: [${list%, }]
YAML
  git add .pre-commit-config.yaml
}
hook_args --select gs1
cp generated/hazard.py selected.py
git add selected.py
git commit -q -m selected >"$work/selected.log" 2>&1 || { cat "$work/selected.log"; fail "args: [--select, gs1] did not leave GS401 out"; }
grep -q "Passed" "$work/selected.log" || { cat "$work/selected.log"; fail "the hook with --select did not pass"; }
hook_args --select=GS4
printf '\n' >>selected.py
git add selected.py
if git commit -q -m selected-again >"$work/selected4.log" 2>&1; then
  cat "$work/selected4.log"
  fail "args: [--select=GS4] did not report the GS401 hazard"
fi
grep -q "selected.py:6:9: error\[GS401\]" "$work/selected4.log" || { cat "$work/selected4.log"; fail "--select=GS4 lost graphsafe's message"; }

# args: [--fix]: the hook writes the safe fix into the staged file; pre-commit fails the commit
# because the hook changed a file, and the commit of the fixed file passes.
git reset -q
git checkout -q -- selected.py
hook_args --fix
git commit -q -m fix-args >/dev/null 2>&1 || fail "the configuration with args: [--fix] was not committed"
cat >kept.py <<'PY'
import torch

x = torch.zeros(1, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = (x ** 2 + 1) * 3  # three operations: enough work for its input copy (GS602)
ys = []
for i in range(3):
    x.fill_(i)
    g.replay()
    ys.append(y)
out = torch.cat(ys)
PY
git add kept.py
if git commit -q -m kept >"$work/fix.log" 2>&1; then
  cat "$work/fix.log"
  fail "args: [--fix] let the unfixed file through"
fi
grep -q "ys.append(y.clone())" kept.py || { cat "$work/fix.log"; fail "args: [--fix] did not fix kept.py"; }
grep -q "files were modified by this hook" "$work/fix.log" || { cat "$work/fix.log"; fail "pre-commit did not see the fix"; }
git add kept.py
git commit -q -m kept-fixed >"$work/fixed.log" 2>&1 || { cat "$work/fixed.log"; fail "the fixed file was blocked"; }

echo "ok: the hazard was blocked with graphsafe's message; the clean commit passed; an excluded file passed; a file named like an option was analyzed and victim.py left alone; a staged caller saw its committed helper; a split list gave the findings of one run; args: [--select, gs1], [--select=GS4] and [--fix] worked"
