#!/usr/bin/env bash
# Installs the runtime stack into .venv and runs the main job on built-in defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup_env.sh requirements.txt
exec python main.py "$@"
