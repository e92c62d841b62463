#!/usr/bin/env bash
# The device-index path on a node of two or more GPUs, in one device call from the repo root:
#   1. the node's link matrix (nvidia-smi topo -m);
#   2. the probe alone, built and installed; tests/gpu/last_device.cmake (probe --device <last>,
#      the profile names that device, check agrees);
#   3. examples/minimal against the installed package with GPU_TOPOLOGY_DEVICE=<last>: configure
#      (probes that device), build, and its CTest tests (identity and re-measure on that device);
#   4. tests/gpu/all_devices.cmake (the CTest gpu.all_devices): probe --all-devices, check, header;
#   5. bench/node_time.py: `probe --device 0` against `probe --all-devices`, 5 runs each, and the links;
#   6. examples/minimal with GPU_TOPOLOGY_DEVICE=ALL (gpu_topology_generate(... DEVICES ALL)):
#      configure, build, and its identity and re-measure tests on every device.
# Results under $OUT (node.log, node.tgz with the profiles and the summary).
set -o pipefail
OUT=${OUT:-/tmp/two-gpus}
mkdir -p "$OUT" /tmp/node
exec > >(tee "$OUT/node.log") 2>&1
nvidia-smi topo -m
nvidia-smi nvlink -s -i 0 | head -8
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
echo "== 3. examples/minimal with GPU_TOPOLOGY_DEVICE=$last"
start=$(date +%s.%N)
cmake -S examples/minimal -B /tmp/node/minimal -G Ninja -DCMAKE_PREFIX_PATH=/tmp/node/prefix \
  -DGPU_TOPOLOGY_DEVICE=$last > /tmp/node/minimal-configure.log 2>&1
echo "configure rc=$? in $(python3 -c "import time;print(round(time.time()-$start,2))") s"
grep -E "GPUTopology: (probing|NVIDIA|picture)|Error" /tmp/node/minimal-configure.log
cmake --build /tmp/node/minimal > /dev/null && ctest --test-dir /tmp/node/minimal --output-on-failure | tail -8
echo "== 4. all devices"
cmake -DPROBE=$P -DCXX=g++ -DINCLUDE_DIR=$PWD/include -DWORK_DIR=/tmp/node/all -P tests/gpu/all_devices.cmake
echo "all_devices rc=$?"
echo "== 5. one device against all devices"
python3 bench/node_time.py --probe $P --runs 5 --out /tmp/node/time; echo "node_time rc=$?"
echo "== 6. examples/minimal with GPU_TOPOLOGY_DEVICE=ALL"
start=$(date +%s.%N)
cmake -S examples/minimal -B /tmp/node/minimal-all -G Ninja -DCMAKE_PREFIX_PATH=/tmp/node/prefix \
  -DGPU_TOPOLOGY_DEVICE=ALL > /tmp/node/minimal-all-configure.log 2>&1
echo "configure rc=$? in $(python3 -c "import time;print(round(time.time()-$start,2))") s"
grep -E "GPUTopology: (probing|node|link|NVIDIA|picture|  link)|devices|Error" /tmp/node/minimal-all-configure.log | head -30
cmake --build /tmp/node/minimal-all > /dev/null && ctest --test-dir /tmp/node/minimal-all --output-on-failure | tail -8
mkdir -p /tmp/node/pack && cp -r /tmp/node/time /tmp/node/all/node.json /tmp/node/all/node.svg /tmp/node/minimal-all-configure.log /tmp/node/pack/ 2>/dev/null
cp /tmp/node/last/profile.json /tmp/node/pack/device$last.json 2>/dev/null
tar czf "$OUT/node.tgz" -C /tmp/node pack
