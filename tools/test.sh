#!/usr/bin/env bash
# The project's test command: every notebook with its default parameters (nbdev-test), then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 MPLBACKEND=Agg
nbdev-test --n-workers "${NBDEV_WORKERS:-2}" --timing
python -m pytest tests -q --durations=25
