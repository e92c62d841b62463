#!/usr/bin/env bash
# One run of bench/explore_trust.cu on the GPU machine, from the repo root, writing under $OUT:
#   smi.txt / smi_after.txt  nvidia-smi before and after the run (clocks, temperature, utilisation)
#   build.log                the compile
#   explore.log              the program's stdout (tables, one "## <section>" line per section)
#   explore.err              its progress and timings (stderr)
#   explore/*.csv            one CSV per section
# Sections A-E (carveout, shape, overhead, bandwidth, nvml); the load generator is not run here.
set -o pipefail
OUT=${OUT:-/tmp/explore-trust-out}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
BIN=/tmp/explore_trust
mkdir -p "$OUT"

if ! "$NVCC" -std=c++17 -O2 -arch=sm_90 -lineinfo bench/explore_trust.cu -o "$BIN" -ldl > "$OUT/build.log" 2>&1; then
    echo "build failed:"
    tail -n 30 "$OUT/build.log"
    exit 1
fi

SMI_QUERY=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu
nvidia-smi --query-gpu=$SMI_QUERY --format=csv > "$OUT/smi.txt" 2>&1

start=$(date +%s)
timeout --kill-after=10 300 "$BIN" --out "$OUT/explore" 2> "$OUT/explore.err" | tee "$OUT/explore.log" > /dev/null
rc=$?
end=$(date +%s)

nvidia-smi --query-gpu=$SMI_QUERY --format=csv > "$OUT/smi_after.txt" 2>&1

echo "explore rc=$rc ($((end - start)) s; 124 = timed out)"
cat "$OUT/smi.txt"
echo "--- progress (end) ---"
tail -n 12 "$OUT/explore.err"
echo "--- log (end) ---"
tail -n 60 "$OUT/explore.log"
echo "--- csv ---"
ls -l "$OUT/explore" 2>/dev/null
exit $rc
