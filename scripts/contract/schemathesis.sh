#!/usr/bin/env bash
# Ensures the pinned contract fuzzer (Schemathesis, scripts/contract/requirements.txt) in a
# virtualenv and prints the path of its `schemathesis` executable on stdout (progress goes
# to stderr). Used by .ci/run and by test/integration/contract.test.ts, so that `npm test`
# on a fresh machine installs it itself. Needs python3 (>= 3.10) with venv, and PyPI.
#   CONTRACT_VENV   where the virtualenv lives (default: <repo>/.venv-contract)
#   PYTHON          the interpreter to build it with (default: python3)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REQUIREMENTS="$ROOT/scripts/contract/requirements.txt"
VENV=${CONTRACT_VENV:-$ROOT/.venv-contract}
PYTHON=${PYTHON:-python3}
BIN="$VENV/bin/schemathesis"
STAMP="$VENV/.requirements.sha256"
want=$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)

# A virtualenv's scripts name its interpreter by absolute path: a moved or copied one does not run.
installed() { [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && "$BIN" --version >/dev/null 2>&1; }

if ! installed; then
  mkdir -p "$(dirname "$VENV")"
  # One installer at a time (CI's step and a test run may race for the same directory).
  exec 9>"$VENV.lock"
  flock 9
  if ! installed; then
    echo "[contract] installing $(grep -i '^schemathesis==' "$REQUIREMENTS") into $VENV" >&2
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQUIREMENTS" >&2
    "$BIN" --version >&2
    echo "$want" >"$STAMP"
  fi
  flock -u 9
fi
echo "$BIN"
