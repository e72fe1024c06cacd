#!/usr/bin/env bash
# Issue 32's GPU figures in one call of at most 8 minutes on one GPU (H100/H200), from a bare machine with this checkout:
#   bench/gpu_check.sh                 # the bench rows (bare and trainer, the paper's batch and the FAST profile), fixed-length
#                                      # generation, one short real `citesum train` FAST run on SciTLDR-A, then the goal table
#   bench/gpu_check.sh --cpu-smoke     # the same stages on the CPU with a tiny BART and 1-2 steps (seconds): proves the script runs
# Environment: SCITLDR (SciTLDR-A folder; default ../shared/data/scitldr/SciTLDR-A from the project root), OUT (default
# runs/gpu_check), WHEELS (a folder of wheels for an offline `pip install`), COMPILE=1 (also time the FAST row with
# torch_compile, when time is left), BUDGET_S (default 470: the whole run's seconds). Each stage has its own timeout.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
SMOKE=0
[ "${1:-}" = "--cpu-smoke" ] && SMOKE=1
SCITLDR=${SCITLDR:-../shared/data/scitldr/SciTLDR-A}
OUT=${OUT:-runs/gpu_check}
BUDGET_S=${BUDGET_S:-$([ "${1:-}" = "--cpu-smoke" ] && echo 1200 || echo 470)}
PY=${PYTHON:-python}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false MPLBACKEND=Agg
START=$(date +%s)
mkdir -p "$OUT"
left() { echo $(( BUDGET_S - ($(date +%s) - START) )); }
stage() {  # stage NAME SECONDS COMMAND...: runs with min(SECONDS, time left - 15 s for the summary); says how it ended
  local name=$1 want=$2; shift 2
  [ $SMOKE = 1 ] && want=$(( want * 4 ))   # the CPU smoke run is not timed: a shared CPU may be slow
  local t; t=$(left); t=$(( t - 15 < want ? t - 15 : want ))
  if [ "$t" -lt 10 ]; then echo "== $name: SKIPPED (no time left in the ${BUDGET_S}s budget)"; return 124; fi
  echo "== $name (timeout ${t}s)"
  local s0; s0=$(date +%s)
  timeout --kill-after=10 "$t" "$@"; local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "== $name: TIMED OUT after ${t}s"; else echo "== $name: exit $rc in $(( $(date +%s) - s0 ))s"; fi
  return $rc
}

# 0. what is installed: torch (never installed here: it must match the machine's CUDA), then the project
if ! $PY -c "import torch" 2>/dev/null; then
  echo "MISSING: torch is not installed for $PY; install a CUDA build of torch (e.g. pip install torch, or from the carried wheels), then rerun"
  exit 2
fi
if ! $PY -c "import citesum_nb.train, transformers, accelerate, datasets" 2>/dev/null; then
  echo "== installing the project (pip install -e .$( [ -n "${WHEELS:-}" ] && echo " --no-index --find-links $WHEELS"))"
  if [ -n "${WHEELS:-}" ]; then timeout 180 $PY -m pip install -q --no-index --find-links "$WHEELS" -e . || echo "MISSING: pip install -e . from $WHEELS failed (see above)"
  else timeout 180 $PY -m pip install -q -e . || echo "MISSING: pip install -e . failed (no network? set WHEELS to a folder of wheels)"; fi
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
stage "environment" 60 $PY bench/gpu_check.py env || { echo "gpu_check: the environment lacks what is listed above"; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
if [ $SMOKE = 0 ] && ! $PY -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "MISSING: a CUDA device for torch ($($PY -c 'import torch; print(torch.__version__)')): no GPU, or a CPU build of torch; nothing measured"
  exit 2
fi

# 1. the bench rows: bare (4 modes) and trainer (the paper's batch 8; FAST), generation at exactly 100 new tokens; op counts on the CPU
if [ $SMOKE = 1 ]; then
  stage "bench rows (CPU smoke)" 300 $PY bench/bench_train.py --tiny --modes token_budget --steps 1 --warmup 1 --gen-examples 2 \
    --gen-batch-size 2 --gen-lengths fixed8 --records 64 --max-tokens 1024 \
    --trainer "fast;dataloader_num_workers=0;max_tokens_per_batch=1024" --out "$OUT/bench.json"
else
  stage "bench rows" 250 $PY bench/bench_train.py --steps 20 --warmup 3 --gen-examples 256 --gen-batch-size 64 --gen-lengths fixed100 \
    --trainer "batch_size=8;precision=bf16" --trainer fast --ops --out "$OUT/bench.json"
fi

# 2. one real short `citesum train` with the FAST profile on SciTLDR-A (a BART-large-shaped random model, tokenizer trained on it)
if [ -d "$SCITLDR" ]; then
  rm -rf "$OUT/train" "$OUT/model" "$OUT/scitldr_small"   # a fresh run each time
  DATA=$SCITLDR
  if [ $SMOKE = 1 ]; then   # the first lines of each split: the whole validation split is generated at the end of a run
    DATA=$OUT/scitldr_small; mkdir -p "$DATA"
    head -n 32 "$SCITLDR/train.jsonl" > "$DATA/train.jsonl"; head -n 8 "$SCITLDR/dev.jsonl" > "$DATA/dev.jsonl"; head -n 8 "$SCITLDR/test.jsonl" > "$DATA/test.jsonl"
    MODEL_ARGS=(--tiny); STEPS=2; EVALN=4; MORE=(--dataloader-num-workers 0 --max-source-length 256)
  else MODEL_ARGS=(); STEPS=150; EVALN=256; MORE=(); fi
  stage "model for the real-data run" 90 $PY bench/gpu_check.py make-model --data "$DATA" --out "$OUT/model" ${MODEL_ARGS[@]+"${MODEL_ARGS[@]}"} &&
  stage "citesum train FAST on SciTLDR-A" 170 $PY -c "import sys; from citesum_nb.cli import main; sys.exit(main())" train \
    --params params/06b_train.gpu.yaml --data-dir "$DATA" --model-name-or-path "$OUT/model" --out-dir "$OUT/train" \
    --max-steps $STEPS --eval-steps $STEPS --warmup-steps 10 --max-eval-examples $EVALN --max-test-examples 64 --disable-tqdm ${MORE[@]+"${MORE[@]}"}
else
  echo "== citesum train: SKIPPED: SciTLDR-A not found at $SCITLDR (set SCITLDR, or copy it into an ignored folder of the checkout)"
fi

# 3. optional: the FAST row with torch.compile, only with COMPILE=1 and time left
if [ "${COMPILE:-0}" = 1 ] && [ $SMOKE = 0 ]; then
  stage "FAST + torch_compile" 150 $PY bench/bench_train.py --modes "" --steps 20 --warmup 5 --gen-lengths "" \
    --trainer "fast;torch_compile=true" --out "$OUT/compile.json"
fi

# 4. the goal table
[ -f "$OUT/bench.json" ] || { echo "gpu_check: no bench results ($OUT/bench.json): nothing to summarise"; exit 1; }
$PY bench/gpu_check.py summary --bench "$OUT/bench.json" --train "$OUT/train" --compile "$OUT/compile.json"
echo "gpu_check: done in $(( $(date +%s) - START ))s; results in $OUT/"
