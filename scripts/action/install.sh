#!/usr/bin/env bash
# The action's install step (action.yml): graphsafe in a virtualenv of its own, whose bin/ is
# put on PATH for the steps after it ($GITHUB_PATH).
#   GRAPHSAFE_VERSION set: `pip install graphsafe==VERSION` (and graphsafe-cuda) from the index
#     pip is configured with (PIP_INDEX_URL, PIP_FIND_LINKS, ...);
#   empty: the wheels in GRAPHSAFE_DIST, built there first when it holds none (a cache miss):
#     scripts/package.sh on a build of the action's source, made directly on a Debian 12
#     runner, else in a debian:bookworm container (docker). The wheels are portable: they run
#     on the runner whatever its distribution (glibc 2.34 or newer).
# GRAPHSAFE_CUDA=true adds the CUDA C++ frontend. GRAPHSAFE_VENV is the virtualenv to create.
set -euo pipefail
action=${GRAPHSAFE_ACTION_PATH:?}
venv=${GRAPHSAFE_VENV:?}
dist=${GRAPHSAFE_DIST:-}
python=${PYTHON:-python3}

build_wheels() {
  mkdir -p "$dist"
  local commands='bash scripts/setup.sh --build &&
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHSAFE_TESTS=OFF \
      -DGRAPHSAFE_BENCH=OFF >/dev/null &&
    cmake --build build &&
    bash scripts/package.sh build "$0"'
  if grep -qx 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
    (cd "$action" && bash -c "$commands" "$dist")
  else
    docker run --rm -v "$action:/src:ro" -v "$dist:/dist" debian:bookworm \
      bash -c "cp -r /src /tmp/graphsafe && cd /tmp/graphsafe && $commands" /dist
  fi
}

packages=(graphsafe)
if [ "${GRAPHSAFE_CUDA:-true}" = true ]; then packages+=(graphsafe-cuda); fi
"$python" -m venv "$venv"
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
if [ -n "${GRAPHSAFE_VERSION:-}" ]; then
  "${pip[@]}" "${packages[@]/%/==$GRAPHSAFE_VERSION}"
else
  [ -n "$dist" ] || { echo "install: GRAPHSAFE_DIST is needed without GRAPHSAFE_VERSION" >&2; exit 2; }
  if ! compgen -G "$dist/graphsafe-*.whl" >/dev/null; then build_wheels; fi
  "${pip[@]}" --no-index --find-links "$dist" "${packages[@]}"
fi
"$venv/bin/graphsafe" --version
echo "$venv/bin" >>"${GITHUB_PATH:-/dev/null}"
