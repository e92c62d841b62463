#!/usr/bin/env bash
# Issue 5 on the H200 (docs/measurements/2026-11-22-h200-stencil3d.md): configure examples/stencil3d
# (the probe measures this GPU and writes the header), check it, time the chosen shape,
# search every block shape, plot. Writes under $OUT.
set -o pipefail
OUT=${OUT:-/tmp/gpu-topology-out}
mkdir -p "$OUT"
B=/tmp/stencil-build
rm -rf $B
{ /usr/bin/time -f "configure wall %e s" cmake -S examples/stencil3d -B $B -G Ninja -DGPU_TOPOLOGY_SOURCE_DIR=$PWD \
    -DCMAKE_BUILD_TYPE=Release && cmake --build $B; } > "$OUT/stencil-build.log" 2>&1 || { tail -30 "$OUT/stencil-build.log"; exit 1; }
cp $B/_gpu_topology/profile-*.json "$OUT/stencil-profile.json"
cp $B/gpu_topology/gpu_topology.hpp "$OUT/stencil-gpu_topology.hpp"
{ $B/stencil3d --check; echo "check rc=$?"; $B/stencil3d; echo "run rc=$?"; } > "$OUT/stencil-run.log" 2>&1
$B/stencil3d --search --csv "$OUT/stencil-search.csv" > "$OUT/stencil-search.log" 2>&1; echo "search rc=$?" >> "$OUT/stencil-search.log"
python3 examples/stencil3d/plot_shapes.py "$OUT/stencil-search.csv" "$OUT/stencil3d-h200.png" \
  --title "25-point star stencil (double) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1): GLup/s per block shape" \
  >> "$OUT/stencil-search.log" 2>&1
cd "$OUT" && tar czf stencil.tgz stencil-search.csv stencil3d-h200.png stencil-build.log stencil-profile.json stencil-gpu_topology.hpp && rm stencil-search.csv stencil3d-h200.png stencil-build.log stencil-profile.json stencil-gpu_topology.hpp
cat "$OUT/stencil-run.log" "$OUT/stencil-search.log"
