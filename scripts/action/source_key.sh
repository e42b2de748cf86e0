#!/usr/bin/env bash
# The action's cache key (action.yml): a hash of the action's own source files, so that a build
# of graphsafe from source is made once per graphsafe commit and restored after that. The
# action's directory is a download of the commit `uses:` names, without .git.
set -euo pipefail
cd "${GRAPHSAFE_ACTION_PATH:?}"
key=$(find . -type f -not -path './.git/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum |
  sha256sum | cut -c1-32)
echo "key=$key" >>"${GITHUB_OUTPUT:-/dev/stdout}"
