#!/usr/bin/env bash
# Installs the runtime stack and the test oracles into .venv, then runs the suite in
# TEST_WORKERS processes (default 2; each module's tests share one, see tests/conftest.py), the
# groups in the order tests/suite_schedule.py gives them (longest first), not xdist's.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup_env.sh requirements-test.txt
exec python -m pytest -q -n "${TEST_WORKERS:-2}" --dist loadgroup --no-loadscope-reorder "$@"
