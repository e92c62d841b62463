#!/usr/bin/env bash
# One run of bench/explore_beyond.cu on the GPU machine, from the repo root, writing under $OUT
# (3 files and one folder):
#   env.txt      the compile output, then nvidia-smi before and after the run
#   beyond.log   the program's stdout (tables, one "## <section>" line per section, conclusions)
#   beyond.err   its progress and timings (stderr)
#   beyond/*.csv one CSV per section (tlb, banks, l1sets, dsmem)
# Extra arguments go to the program (e.g. --only tlb,dsmem).
set -o pipefail
OUT=${OUT:-/tmp/explore-beyond-out}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
BIN=/tmp/explore_beyond
mkdir -p "$OUT"
ENV_TXT="$OUT/env.txt"

echo "== build: $NVCC -std=c++17 -O2 -arch=sm_90 -lineinfo" > "$ENV_TXT"
if ! "$NVCC" -std=c++17 -O2 -arch=sm_90 -lineinfo bench/explore_beyond.cu -o "$BIN" >> "$ENV_TXT" 2>&1; then
    echo "build failed:"
    tail -n 30 "$ENV_TXT"
    exit 1
fi

SMI_QUERY=name,uuid,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,utilization.gpu,memory.used,memory.total
{
    echo "== nvidia-smi before"
    nvidia-smi --query-gpu=$SMI_QUERY --format=csv 2>&1
} >> "$ENV_TXT"

start=$(date +%s)
timeout --kill-after=10 240 "$BIN" --out "$OUT/beyond" "$@" 2> "$OUT/beyond.err" | tee "$OUT/beyond.log" > /dev/null
rc=$?
end=$(date +%s)

{
    echo "== nvidia-smi after"
    nvidia-smi --query-gpu=$SMI_QUERY --format=csv 2>&1
} >> "$ENV_TXT"

echo "explore_beyond rc=$rc ($((end - start)) s; 124 = timed out)"
cat "$ENV_TXT"
echo "--- progress (end) ---"
tail -n 25 "$OUT/beyond.err"
echo "--- conclusions ---"
awk '/^## /{on=0; print; next} /^-- /{on=($0 == "-- conclusion --")} on' "$OUT/beyond.log"
echo "--- log (end) ---"
tail -n 40 "$OUT/beyond.log"
echo "--- csv ---"
ls -l "$OUT/beyond" 2>/dev/null
du -sh "$OUT" 2>/dev/null
exit $rc
