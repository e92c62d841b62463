#!/usr/bin/env bash
# One device call for the trust questions (docs/measurements/*-trust-study.md), from the repo root,
# packing its files into $OUT/study.tgz (and the log into $OUT/study.log):
#   1. the probe, full level, 3 runs, one with --record (an engine log for the CPU replay tests),
#      and the replay of that log here, compared with the live profile;
#   2. bench/explore_trust.cu: L1 against carveout and launch shape, timer overhead, bandwidth
#      variants, NVML;
#   3. the probe of the last commit (.old/head.tar, when carried) for comparison;
#   4. the probe while bench/explore_trust --load streams memory on every SM: exit status 3 expected.
set -o pipefail
RESULT=${OUT:-/tmp/trust-study}
OUT=/tmp/study/out
mkdir -p "$RESULT" "$OUT"
exec > >(tee "$RESULT/study.log") 2>&1
trap 'tar czf "$RESULT/study.tgz" -C /tmp/study out' EXIT
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv
for h in /usr/include/nvml.h /usr/local/cuda/include/nvml.h /usr/local/cuda/targets/x86_64-linux/include/nvml.h; do
  [ -f "$h" ] && grep -n -A6 "typedef struct nvmlProcessInfo_st" "$h" | head -8 && break
done

echo "== build"
cmake -S probe -B /tmp/study/new -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/study/new.cfg 2>&1 &&
  cmake --build /tmp/study/new -j 16 > /tmp/study/new.build 2>&1 || { tail -30 /tmp/study/new.cfg /tmp/study/new.build; exit 1; }
P=/tmp/study/new/gpu-topology-probe
OLD_BUILD=
if [ -f .old/head.tar ]; then
  mkdir -p /tmp/study/old-src && tar xf .old/head.tar -C /tmp/study/old-src
  ( cmake -S /tmp/study/old-src/probe -B /tmp/study/old -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null 2>&1 && cmake --build /tmp/study/old -j 8 > /tmp/study/old.build 2>&1 ) &
  OLD_BUILD=$!
fi
nvcc -std=c++17 -O2 -arch=sm_90 -lineinfo bench/explore_trust.cu -o /tmp/explore_trust -ldl > /tmp/study/explore.build 2>&1 &
EXPLORE_BUILD=$!

echo "== probes"
for i in 1 2 3; do
  rec=""; [ $i = 1 ] && rec="--record $OUT/probe1.enginelog --raw /tmp/study/raw1"
  /usr/bin/time -f "probe $i: %e s" $P probe --output $OUT/probe$i.json $rec 2> /tmp/study/probe$i.err; echo "probe $i rc=$?"
  grep -E "probe [0-9]+:|check|FAILED|finished|timer" /tmp/study/probe$i.err | tail -14
done
cp /tmp/study/probe1.err $OUT/probe1.err
$P replay $OUT/probe1.enginelog --output /tmp/study/replay1.json --quiet; echo "replay rc=$?"
python3 - "$OUT/probe1.json" /tmp/study/replay1.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def walk(x, y, path=""):
    if isinstance(x, dict):
        for k in x:
            if k in ("duration_s", "stages", "seconds", "monitor"): continue
            walk(x[k], y.get(k) if isinstance(y, dict) else None, path + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x): walk(v, y[i] if isinstance(y, list) and i < len(y) else None, f"{path}[{i}]")
    elif x != y: print("replay differs:", path, x, y)
walk(a, b); print("replay compared")
PY
ls -la $OUT/probe1.enginelog

echo "== explore"
wait $EXPLORE_BUILD || tail -20 /tmp/study/explore.build
timeout 300 /tmp/explore_trust --out "$OUT/explore" > "$OUT/explore.log" 2> /tmp/study/explore.err; echo "explore rc=$?"
tail -3 /tmp/study/explore.err

if [ -n "$OLD_BUILD" ]; then
  echo "== old probe"; wait $OLD_BUILD
  for i in 1 2; do /usr/bin/time -f "old $i: %e s" /tmp/study/old/gpu-topology-probe probe --output $OUT/old$i.json 2> /tmp/study/old$i.err; echo "old $i rc=$?"; tail -1 /tmp/study/old$i.err; done
fi

echo "== under load"
/tmp/explore_trust --load 25 > /tmp/study/load.log 2>&1 &
LOAD=$!; sleep 3
$P probe --output $OUT/busy.json 2> $OUT/busy.err; echo "busy probe rc=$? (3 = measured while busy)"
grep -E "busy|other process|reference|vouch|FAILED" $OUT/busy.err | head -20
wait $LOAD; tail -2 /tmp/study/load.log
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv
tar czf "$OUT/raw1.tgz" -C /tmp/study raw1
