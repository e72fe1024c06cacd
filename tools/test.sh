#!/usr/bin/env bash
# The project's test command: every notebook with its default parameters (nbdev-test), then pytest on two workers.
# Both halves run work side by side on the machine's cores, so each process computes on one thread (a tiny model or a
# BLAS call gains nothing from a second thread here, and threads that wait for a busy core burn CPU time).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 MPLBACKEND=Agg
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false
workers="${TEST_WORKERS:-2}"
nbdev-test --n-workers "$workers" --timing
# a test file is a unit of work, the files that read the demo run one unit (tests/conftest.py); --timeout ends a hang
python -m pytest tests -q -n "$workers" --durations=25 --timeout=1800 "$@"
