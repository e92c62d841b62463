#!/usr/bin/env bash
# The device-index path on a node of two or more GPUs, in one device call from the repo root:
#   1. the node's link matrix (nvidia-smi topo -m);
#   2. the probe alone, built and installed; tests/gpu/last_device.cmake (probe --device <last>,
#      the profile names that device, check agrees);
#   3. examples/minimal against the installed package with GPU_TOPOLOGY_DEVICE=<last>: configure
#      (probes that device), build, and its CTest tests (identity and re-measure on that device);
#   4. one probe of device 0 alone, then probes of every device at once (one process each), timed.
# Results under $OUT (node.log).
set -o pipefail
OUT=${OUT:-/tmp/two-gpus}
mkdir -p "$OUT" /tmp/node
exec > >(tee "$OUT/node.log") 2>&1
nvidia-smi topo -m
nvidia-smi --query-gpu=index,name,uuid --format=csv
count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && count=$(tr ',' '\n' <<< "$CUDA_VISIBLE_DEVICES" | wc -l)
[ "$count" -ge 2 ] || { echo "this script needs two or more GPUs; $count visible"; exit 77; }
last=$(( count - 1 ))
echo "== 2. probe, last device $last"
cmake -S . -B /tmp/node/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_BUILD_TESTS=OFF \
  -DGPU_TOPOLOGY_GENERATE=OFF > /tmp/node/configure.log 2>&1 && cmake --build /tmp/node/build > /dev/null 2>&1 \
  && cmake --install /tmp/node/build --prefix /tmp/node/prefix > /dev/null || { echo "probe build failed"; exit 1; }
P=/tmp/node/prefix/bin/gpu-topology-probe
cmake -DPROBE=$P -DWORK_DIR=/tmp/node/last -P tests/gpu/last_device.cmake; echo "last_device rc=$?"
cp /tmp/node/last/profile.json "$OUT/device$last.json" 2>/dev/null
echo "== 3. examples/minimal with GPU_TOPOLOGY_DEVICE=$last"
start=$(date +%s.%N)
cmake -S examples/minimal -B /tmp/node/minimal -G Ninja -DCMAKE_PREFIX_PATH=/tmp/node/prefix \
  -DGPU_TOPOLOGY_DEVICE=$last > /tmp/node/minimal-configure.log 2>&1
echo "configure rc=$? in $(python3 -c "import time;print(round(time.time()-$start,2))") s"
grep -E "GPUTopology: (probing|NVIDIA|picture)|Error" /tmp/node/minimal-configure.log
cmake --build /tmp/node/minimal > /dev/null && ctest --test-dir /tmp/node/minimal --output-on-failure | tail -8
echo "== 4. one device, then all at once"
start=$(date +%s.%N); $P probe --device 0 --output /tmp/node/alone.json --quiet; echo "device 0 alone rc=$? $(python3 -c "import time;print(round(time.time()-$start,2))") s"
start=$(date +%s.%N)
for d in $(seq 0 $last); do $P probe --device $d --output /tmp/node/all$d.json --quiet & done; wait
echo "all $((last + 1)) devices at once: $(python3 -c "import time;print(round(time.time()-$start,2))") s"
for d in $(seq 0 $last); do python3 -c "import json;d=json.load(open('/tmp/node/all$d.json'));print($d, d['device']['uuid'], d['probe']['duration_s'], 'quiet' if d['conditions']['quiet'] else 'BUSY', d['caches']['l2']['near_size_bytes'].get('value'), d['caches']['l1']['size_bytes'].get('value'))"; done
cp /tmp/node/alone.json "$OUT/alone.json"
