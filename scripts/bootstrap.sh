#!/usr/bin/env bash
# Create or refresh the project's virtual environment (.venv) with everything the
# notebooks, the tests and the benchmarks need. Safe to run again: pip only installs
# what changed. Needs Python >= 3.11 and network access to PyPI (and, as root on
# Debian, apt for python3-venv when it is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
EXTRAS=${EXTRAS:-dev}

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "bootstrap: need Python >= 3.11 as '$PYTHON' (set PYTHON=/path/to/python3.11)" >&2
  exit 2
fi
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "bootstrap: installing Debian's python3-venv"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      "$PYTHON" -m venv "$VENV"
    else
      echo "bootstrap: '$PYTHON -m venv' failed; install python3-venv (Debian: sudo apt-get install python3-venv)" >&2
      exit 2
    fi
  fi
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[$EXTRAS]"
touch "$VENV/.wargame-installed"
