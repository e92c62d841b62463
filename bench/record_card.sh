#!/usr/bin/env bash
# Everything one card contributes to the repository, in one device call from the repo root:
#   1. the README's test workflow (cmake --workflow --preset ci), GPU tests included, and the
#      install of that build tree (the package a consumer finds);
#   2. bench/probe_time.py: the probe per stage (median of 5; the careful pace beside it), and the
#      first and cached configure of examples/minimal from the source tree and from the install;
#   3. one probe with --record and --raw: the card's stored-profile candidate, its engine log for
#      the CPU replay tests and its sweeps; the log replayed here, compared with the live profile;
#   4. examples/transpose: both tile pitches checked, then timed twice (padded by the measured banks
#      against unpadded);
#   5. when .old/head.tar is carried (git archive of an earlier commit's probe/ and templates/),
#      two probes of that version on the same card, for before/after tables.
# Packs its files into $OUT/card.tgz and its log into $OUT/card.log.
#   bench/record_card.sh <card name, e.g. h200>     (RECORD_TIMES=0 skips step 2)
set -o pipefail
CARD=${1:?usage: bench/record_card.sh <card name, e.g. h200>}
RESULT=${OUT:-/tmp/record-card}
OUT=/tmp/card/out
rm -rf /tmp/card && mkdir -p "$RESULT" "$OUT"
exec > >(tee "$RESULT/card.log") 2>&1
trap 'tar czf "$RESULT/card.tgz" -C /tmp/card out' EXIT
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv | tee "$OUT/smi.txt"

echo "== 1. the test workflow"
rm -rf build/ci
start=$(date +%s)
cmake --workflow --preset ci > "$OUT/ci.log" 2>&1
echo "ci workflow rc=$? in $(( $(date +%s) - start )) s"
grep -E "tests passed|\(Failed\)|\(Skipped\)|\*\*\*Failed|Not Run" "$OUT/ci.log" | tail -25
cmake --install build/ci --prefix /tmp/card/prefix > /dev/null || echo "install failed"
P=build/ci/probe/gpu-topology-probe

echo "== 2. probe and configure times"
[ "${RECORD_TIMES:-1}" = 0 ] && echo "skipped (RECORD_TIMES=0)" || python3 bench/probe_time.py --probe "$P" --runs 5 --careful-runs 1 --out "$OUT/time" --installed /tmp/card/prefix \
  > "$OUT/probe_time.log" 2>&1
echo "probe_time rc=$?"
tail -60 "$OUT/probe_time.log"

echo "== 3. the recorded probe"
$P probe --output "$OUT/${CARD}_probe.json" --record "$OUT/${CARD}_probe.enginelog" --raw /tmp/card/raw \
  2> "$OUT/probe.err"
echo "probe rc=$?"
grep -E "check|finished|busy" "$OUT/probe.err"
$P replay "$OUT/${CARD}_probe.enginelog" --output /tmp/card/replay.json --quiet
echo "replay rc=$?"
python3 - "$OUT/${CARD}_probe.json" /tmp/card/replay.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
differences = []
def walk(x, y, path=""):
    if isinstance(x, dict):
        for k in x:
            if k not in ("duration_s", "stages", "seconds", "monitor"):
                walk(x[k], y.get(k) if isinstance(y, dict) else None, path + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, y[i] if isinstance(y, list) and i < len(y) else None, f"{path}[{i}]")
    elif x != y:
        differences.append(f"{path}: {x} != {y}")
walk(a, b)
print("replay reproduces the live profile" if not differences else "\n".join(["replay differs:"] + differences[:20]))
PY
tar czf "$OUT/raw.tgz" -C /tmp/card raw

echo "== 4. the transpose example"
cmake -S examples/transpose -B /tmp/card/transpose -G Ninja -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/transpose-configure.log" 2>&1 \
  && cmake --build /tmp/card/transpose > /dev/null 2>&1 || echo "transpose build failed"
/tmp/card/transpose/transpose --check
for i in 1 2; do /tmp/card/transpose/transpose | tee "$OUT/transpose$i.txt"; done

if [ -f .old/head.tar ]; then
  echo "== 5. the earlier probe on this card"
  mkdir -p /tmp/card/old-src && tar xf .old/head.tar -C /tmp/card/old-src
  cmake -S /tmp/card/old-src/probe -B /tmp/card/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    > /dev/null 2>&1 && cmake --build /tmp/card/old -j 16 > /dev/null 2>&1
  for i in 1 2; do
    /tmp/card/old/gpu-topology-probe probe --output "$OUT/old$i.json" --quiet; echo "old probe $i rc=$?"
  done
fi
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,utilization.gpu --format=csv,noheader
