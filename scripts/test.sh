#!/usr/bin/env bash
# Installs the runtime stack and the test oracles into .venv, then runs the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup_env.sh requirements-test.txt
exec python -m pytest -q "$@"
