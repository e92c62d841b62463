#!/usr/bin/env bash
# The end-to-end H200 run recorded in docs/measurements/2026-11-22-h200.md: README configure (probe),
# cached reconfigure, three probe runs (first with --raw), GPU tests. Writes under $OUT.
set -o pipefail
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu --format=csv > $OUT/smi.txt 2>&1
rm -rf build
{ /usr/bin/time -f "first configure wall %e s" cmake --preset default; /usr/bin/time -f "cached reconfigure wall %e s" cmake --preset default; } > $OUT/configure.log 2>&1
P=build/default/_gpu_topology/probe-build/gpu-topology-probe
{ for i in 1 2 3; do /usr/bin/time -f "run $i wall %e s" $P probe --output /tmp/profile$i.json $([ $i = 1 ] && echo --raw /tmp/raw) --quiet; echo "rc=$?"; done; } > $OUT/probe.log 2>&1
cmake --preset ci -DGPU_TOPOLOGY_PROFILE=nvidia-h200 > $OUT/ci.log 2>&1 && cmake --build --preset ci >> $OUT/ci.log 2>&1; ctest --preset ci -L gpu --output-on-failure > $OUT/gpu_ctest.log 2>&1; echo "gpu ctest rc=$?" >> $OUT/gpu_ctest.log
cd /tmp && tar czf $OUT/results.tgz profile1.json profile2.json profile3.json raw
grep wall $OUT/configure.log $OUT/probe.log; tail -12 $OUT/gpu_ctest.log
