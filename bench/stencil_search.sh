#!/usr/bin/env bash
# The stencil chooser against every block shape, on this card (docs/records/stencil.md):
# configures examples/stencil3d (the probe measures this GPU and writes the header), checks the
# chosen shape against the reference, then times all 168 shapes on the default grids and on
# further ones (one not a power of two), and plots them. Packs its files into $OUT/stencil.tgz.
#   bench/stencil_search.sh <card name, e.g. h200>
set -o pipefail
CARD=${1:?usage: bench/stencil_search.sh <card name>}
RESULT=${OUT:-/tmp/stencil-search}
OUT=/tmp/stencil/out
B=/tmp/stencil/build
rm -rf /tmp/stencil && mkdir -p "$RESULT" "$OUT"
trap 'tar czf "$RESULT/stencil.tgz" -C /tmp/stencil out' EXIT
start=$(date +%s)
cmake -S examples/stencil3d -B $B -G Ninja -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" -DCMAKE_BUILD_TYPE=Release \
  > "$OUT/configure.log" 2>&1 && cmake --build $B > "$OUT/build.log" 2>&1 || { tail -30 "$OUT"/*.log; exit 1; }
echo "configure and build: $(( $(date +%s) - start )) s"
cp $B/_gpu_topology/profile-*.json "$OUT/profile.json"
cp $B/gpu_topology/stencil3d/gpu_topology.hpp "$OUT/gpu_topology.hpp"
$B/stencil3d --check > "$OUT/check.log" 2>&1; echo "check rc=$?"; tail -3 "$OUT/check.log"
GRIDS="--grid 256 256 256 --grid 512 512 512 --grid 1024 1024 128 --grid 384 384 384 --grid 2048 512 96"
$B/stencil3d --search --csv "$OUT/search-$CARD.csv" $GRIDS > "$OUT/search.log" 2>&1; echo "search rc=$?"
cat "$OUT/search.log"
python3 examples/stencil3d/plot_shapes.py "$OUT/search-$CARD.csv" "$OUT/stencil3d-$CARD.png" \
  --title "25-point star stencil (double) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1): GLup/s per block shape" \
  > "$OUT/plot.log" 2>&1 || tail -3 "$OUT/plot.log"
