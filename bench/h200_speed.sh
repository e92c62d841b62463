#!/usr/bin/env bash
# Issue 4 on the H200 (docs/measurements/2026-11-22-h200-speed.md): the probe's time per stage
# and level (median of 5), the careful pace beside it, the first and cached configure of
# examples/minimal, a fast probe's raw sweeps for tests/data, and the CLI's quick/budget test.
# Writes under $OUT.
set -o pipefail
OUT=${OUT:-/tmp/gpu-topology-out}
mkdir -p "$OUT" /tmp/speed
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
python3 bench/probe_time.py --runs 5 --careful-runs ${CAREFUL_RUNS:-2} --out /tmp/speed/bench > "$OUT/bench.log" 2>&1
echo "bench rc=$?" >> "$OUT/bench.log"
P=build/bench/probe/gpu-topology-probe
$P probe --output /tmp/speed/fast_raw.json --raw /tmp/speed/raw_fast 2> /tmp/speed/fast_raw.log
cmake -DPROBE=$P -DWORK_DIR=/tmp/speed/cli -P tests/gpu/probe_cli.cmake > "$OUT/cli.log" 2>&1; echo "cli rc=$?" >> "$OUT/cli.log"
cd /tmp/speed && tar czf "$OUT/speed.tgz" bench raw_fast fast_raw.json fast_raw.log
tail -45 "$OUT/bench.log"; tail -3 "$OUT/cli.log"
