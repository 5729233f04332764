#!/usr/bin/env bash
# The Python package's tests in a fresh virtual environment:
#   bash python/test.sh            # from anywhere in the checkout
#   bash python/test.sh -m 'not slow'   # extra arguments go to pytest
#
# Creates a virtual environment (in a new temporary directory, removed at
# the end; set BLOCKMODES_VENV=/some/dir to keep and reuse one), installs
# the package from source with `pip install "./python[dask]"` (maturin
# builds the Rust extension; needs the Rust toolchain and network access to
# PyPI and crates.io) plus the test dependencies, and runs pytest on
# python/tests (every vector file, hypothesis round trips, errors, the GIL,
# a Dask LocalCluster with two worker processes).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"

if [[ -n "${BLOCKMODES_VENV:-}" ]]; then
    venv="$BLOCKMODES_VENV"
else
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    venv="$tmp/venv"
fi

echo "== python/test.sh: virtual environment $venv ($("$python" --version))"
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
echo "== pip install \"./python[dask]\" and the test dependencies (builds the extension)"
start=$SECONDS
"$venv/bin/python" -m pip install --quiet "$here[dask]" \
    pytest hypothesis numpy cryptography
echo "   installed in $((SECONDS - start)) s"

# Run from outside the source tree so that `import blockmodes` is the
# installed package, not python/blockmodes (which has no compiled module).
cd "$here/tests"
"$venv/bin/python" -c 'import blockmodes, sys; print("== blockmodes", blockmodes.__version__, "from", blockmodes.__file__)'
exec "$venv/bin/python" -m pytest -c "$here/pyproject.toml" --rootdir "$here" -p no:cacheprovider "$here/tests" "$@"
