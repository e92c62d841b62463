#!/usr/bin/env bash
# The cache-family run recorded in docs/measurements/2026-11-22-h200-cache-family.md: builds the
# probe and the GPU tests (no configure-time probe), runs three probes with --raw, the dense
# `explore` sweeps, and the GPU tests. Writes under $OUT (at most 8 files).
set -o pipefail
OUT=${OUT:-/tmp/gpu-topology-out}
mkdir -p "$OUT"
B=build/family
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu --format=csv > "$OUT/smi.txt" 2>&1
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_BUILD_TESTS=ON -DGPU_TOPOLOGY_GENERATE=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B --target gpu-topology-probe gpu_topology_gpu_tests; } \
  > /tmp/build.log 2>&1 || { tail -50 /tmp/build.log; cp /tmp/build.log "$OUT/"; exit 1; }
P=$B/probe/gpu-topology-probe
rm -rf /tmp/runs && mkdir -p /tmp/runs
for i in 1 2 3; do
  /usr/bin/time -f "run $i wall %e s" $P probe --output /tmp/runs/profile$i.json --raw /tmp/runs/raw$i \
    2> /tmp/runs/probe$i.log; echo "run $i rc=$?" >> /tmp/runs/probe$i.log
done
/usr/bin/time -f "explore wall %e s" $P explore --raw /tmp/runs/explore > /tmp/runs/explore.log 2>&1
$B/tests/gpu_topology_gpu_tests > "$OUT/gpu_tests.log" 2>&1; echo "gpu tests rc=$?" >> "$OUT/gpu_tests.log"
cat /tmp/runs/probe1.log > "$OUT/probe1.log"
# The chase loops as compiled: the timer bracket around each load path.
cuobjdump -sass -fun program_kernel $P > "$OUT/sass.txt" 2>&1 || cuobjdump -sass $P > "$OUT/sass.txt" 2>&1
cd /tmp/runs && tar czf "$OUT/runs.tgz" . 
grep -h wall /tmp/runs/*.log; grep -h "FAILED\|rc=" "$OUT/gpu_tests.log" | head -20
