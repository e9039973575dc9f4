#!/usr/bin/env bash
# Creates .venv (if missing) and installs the given requirements file into it.
# Usage: source scripts/setup_env.sh requirements.txt
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requirements="${1:-requirements.txt}"
if [ ! -x "$here/.venv/bin/python" ]; then
  python3 -m venv "$here/.venv"
fi
"$here/.venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r "$here/$requirements" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
export PATH="$here/.venv/bin:$PATH"
export TF_CPP_MIN_LOG_LEVEL="${TF_CPP_MIN_LOG_LEVEL:-2}"
