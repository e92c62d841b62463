#!/usr/bin/env bash
# The run that produced generated/profiles/nvidia-h200.json (docs/measurements/2026-11-22-h200-cache-family.md):
# three complete probes, the first stored as the profile, then the README's configure (probe inside)
# and a cached reconfigure, then every test (CPU and GPU) against the new stored profile. Writes under $OUT.
set -o pipefail
OUT=${OUT:-/tmp/gpu-topology-out}
mkdir -p "$OUT" /tmp/runs
B=build/family
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_GENERATE=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    && cmake --build $B --target gpu-topology-probe; } > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
P=$B/probe/gpu-topology-probe
for i in 1 2 3; do
  /usr/bin/time -f "run $i wall %e s" $P probe --output /tmp/runs/profile$i.json $([ $i = 1 ] && echo --raw /tmp/runs/raw1) \
    2> /tmp/runs/probe$i.log; echo "run $i rc=$?" >> /tmp/runs/probe$i.log
done
cp /tmp/runs/profile1.json generated/profiles/nvidia-h200.json
$P render generated/profiles/nvidia-h200.json --header generated/nvidia-h200/gpu_topology.hpp --source stored:nvidia-h200.json
rm -rf build/default
{ /usr/bin/time -f "first configure wall %e s" cmake --preset default; /usr/bin/time -f "cached reconfigure wall %e s" cmake --preset default; } > "$OUT/configure.log" 2>&1
{ cmake --workflow --preset ci; echo "ci workflow rc=$?"; ctest --test-dir build/ci -L gpu --output-on-failure; echo "gpu ctest rc=$?"; } > "$OUT/ctest.log" 2>&1
cuobjdump -sass $P > /tmp/runs/sass_all.txt 2>&1
cp /tmp/runs/probe1.log "$OUT/"
cd /tmp/runs && tar czf "$OUT/runs.tgz" profile1.json profile2.json profile3.json probe2.log probe3.log raw1 sass_all.txt
grep -h wall /tmp/runs/*.log "$OUT/configure.log"; grep -E "tests passed|rc=|Failed|\*\*\*" "$OUT/ctest.log" | head -20
