#!/usr/bin/env bash
# Closing run for issues 4 and 5: the stencil search with the revised chooser (its header from a
# fresh probe of this GPU), then the CI workflow with the GPU tests. Writes under $OUT.
set -o pipefail
OUT=${OUT:-/tmp/gpu-topology-out}
mkdir -p "$OUT"
bash bench/h200_stencil.sh > "$OUT/stencil-summary.log" 2>&1
{ cmake --workflow --preset ci; echo "ci workflow rc=$?"; } > /tmp/ctest.log 2>&1
grep -E "tests passed|rc=|Failed|\*\*\*|gpu\.|stencil" /tmp/ctest.log > "$OUT/ctest-summary.log"
cat "$OUT/stencil-summary.log" | grep -E "grid|chosen|best|default|rc="; cat "$OUT/ctest-summary.log" | tail -15
