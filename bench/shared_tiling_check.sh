#!/usr/bin/env bash
# The shared-tiling check on one card, in one device call of about 150 s: builds examples/stencil3d and
# examples/gemm on the card's stored profile (generated/profiles/nvidia-<card>.json, what the CPU tests
# replay), then
#  - `stencil3d --search --shared-bytes S --threads T --min-x 16` for S = 8, 32, 96 KiB and T = 256,
#    1024 on STENCIL_GRIDS (8) grids of bench/stencil_grids.py STENCIL_SEED: every block at least 16
#    wide (no narrower one was ever the fastest in the recorded searches, and they take most of a
#    search's time) at every carveout the header offers on the front of resident blocks and L1, the
#    dominated carveouts with the fastest blocks; the chosen, tuned and default launches confirmed;
#  - `gemm --search` on GEMM_SHAPES (8) products of bench/gemm_shapes.py GEMM_SEED: every configuration
#    of the helper's space at two carveouts, the short list tuned, cuBLAS beside;
# and writes under $OUT: summary-<card>.md (bench/shared_tiling_summary.py: ratios to the best, the
# tuned list, the default launch, cuBLAS), shared-tiling-stencil-<card>.svg, shared-tiling-gemm-<card>.svg,
# and shared-tiling-<card>.tgz (every CSV and log, the card, the build logs, what was skipped).
# The summary is printed at the end too.
#
#   bench/shared_tiling_check.sh <card: h100 or h200>
#
# Each step runs under a time limit that shares what is left of BUDGET_S (150) fairly, keeping
# GEMM_RESERVE_S (20) for the SGEMM search and 5 s for the summary: a slow or stuck step loses its
# own grids, never the others', and a skipped step is written down, not hidden. The stencil steps
# flush their CSV after each grid, so a step cut short keeps the grids it finished.
# Environment: STENCIL_KINDS (the kernels searched, shared bytes:threads, "8192:256 8192:1024 32768:256
# 32768:1024 98304:256 98304:1024"; other sizes try the header's rule for sizes it did not measure)
# STENCIL_SEED (20261201) STENCIL_GRIDS (8) GEMM_SEED (20261202) GEMM_SHAPES (8)
# STENCIL_REPEATS (3) GEMM_REPEATS (3) BUDGET_S (150) GEMM_RESERVE_S (20); SHARED_TILING_PLAN=1 prints the
# plan (grids, products, commands) and exits before building; STENCIL3D and GEMM name built programs
# to use instead of building (the CPU test passes stand-ins).
# Exit status: 0 when every step ran to the end and every result was right, 1 otherwise (the summary is
# written either way), 2 for a bad argument.
set -o pipefail
cd "$(dirname "$0")/.." || exit 1
usage="usage: bench/shared_tiling_check.sh <card: h100 or h200>"
CARD=${1:-}
case "$CARD" in
  h100 | h200) ;;
  *) echo "bench/shared_tiling_check.sh: the card is h100 or h200, not '$CARD'" >&2; echo "$usage" >&2; exit 2 ;;
esac
shift
[ $# -eq 0 ] || { echo "bench/shared_tiling_check.sh: unexpected argument '$1'" >&2; echo "$usage" >&2; exit 2; }
PROFILE="generated/profiles/nvidia-$CARD.json"
[ -f "$PROFILE" ] || { echo "bench/shared_tiling_check.sh: no stored profile $PROFILE" >&2; exit 2; }
STENCIL_SEED=${STENCIL_SEED:-20261201}
STENCIL_GRIDS=${STENCIL_GRIDS:-8}
GEMM_SEED=${GEMM_SEED:-20261202}
GEMM_SHAPES=${GEMM_SHAPES:-8}
STENCIL_REPEATS=${STENCIL_REPEATS:-3}
GEMM_REPEATS=${GEMM_REPEATS:-3}
BUDGET_S=${BUDGET_S:-150}
GEMM_RESERVE_S=${GEMM_RESERVE_S:-20}
for setting in STENCIL_SEED STENCIL_GRIDS GEMM_SEED GEMM_SHAPES STENCIL_REPEATS GEMM_REPEATS BUDGET_S GEMM_RESERVE_S; do
  value=${!setting}
  [[ "$value" =~ ^[0-9]+$ ]] || { echo "bench/shared_tiling_check.sh: $setting must be a whole number, not '$value'" >&2; exit 2; }
done
STENCIL_KINDS=${STENCIL_KINDS:-8192:256 8192:1024 32768:256 32768:1024 98304:256 98304:1024}
SUMMARY_RESERVE_S=5
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

# The draws first: a typo or a missing python costs no device time.
grids=$(python3 bench/stencil_grids.py "$STENCIL_SEED" "$STENCIL_GRIDS") || exit 2
shapes=$(python3 bench/gemm_shapes.py "$GEMM_SEED" "$GEMM_SHAPES") || exit 2
stencil_steps=()
for kind in $STENCIL_KINDS; do
  [[ "$kind" =~ ^[0-9]+:[1-9][0-9]*$ ]] || { echo "bench/shared_tiling_check.sh: STENCIL_KINDS holds shared bytes:threads, not '$kind'" >&2; exit 2; }
  stencil_steps+=("${kind%:*} ${kind#*:}")
done
echo "shared-tiling check on $CARD ($PROFILE), budget ${BUDGET_S} s"
echo "stencil grids (seed $STENCIL_SEED): $grids"
echo "SGEMM products (seed $GEMM_SEED): $shapes"
if [ -n "${SHARED_TILING_PLAN:-}" ]; then
  for step in "${stencil_steps[@]}"; do
    read -r S T <<< "$step"
    echo "stencil3d --search --repeats $STENCIL_REPEATS --threads $T --shared-bytes $S --min-x 16 --csv stencil-$CARD-s$S-t$T.csv $grids"
  done
  echo "gemm --search --repeats $GEMM_REPEATS --csv gemm-$CARD.csv $shapes"
  exit 0
fi

RESULT=${OUT:-/tmp/shared-tiling-check}
W=$(mktemp -d "${TMPDIR:-/tmp}/shared-tiling.XXXXXX") && mkdir -p "$RESULT" "$W/out" || exit 1
status=0
# shellcheck disable=SC2317 # run by the EXIT trap
summarise() {
  local inputs=() f step S T
  for step in "${stencil_steps[@]}"; do
    read -r S T <<< "$step"
    f="$W/out/stencil-$CARD-s$S-t$T.csv"
    [ -s "$f" ] && inputs+=("$CARD:$f")
  done
  [ -s "$W/out/gemm-$CARD.csv" ] && inputs+=("$CARD:$W/out/gemm-$CARD.csv")
  if [ ${#inputs[@]} -gt 0 ]; then
    python3 bench/shared_tiling_summary.py --out "$RESULT/summary-$CARD.md" --svg "$RESULT/shared-tiling" "${inputs[@]}" \
      > "$W/out/summary.log" 2>&1 || { echo "bench/shared_tiling_check.sh: the summary failed:" >&2; tail -20 "$W/out/summary.log" >&2; }
  else
    echo "no search wrote a CSV: no summary" | tee "$RESULT/summary-$CARD.md"
  fi
  [ -s "$W/out/skipped.txt" ] && { echo; echo "## Not run"; cat "$W/out/skipped.txt"; } >> "$RESULT/summary-$CARD.md"
  # The working folder (the examples' builds, the searches' CSVs and logs) goes once its archive is
  # written; where packing fails it stays, and the line says where.
  if tar czf "$RESULT/shared-tiling-$CARD.tgz" -C "$W" out; then
    rm -rf "$W"
  else
    echo "bench/shared_tiling_check.sh: packing $W/out failed; it is kept" >&2
  fi
  echo "== the whole check: $(elapsed) s"
  cat "$RESULT/summary-$CARD.md" 2> /dev/null
}
trap summarise EXIT
{ nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv \
    || echo "nvidia-smi: not available"; } > "$W/out/card.txt" 2>&1
cat "$W/out/card.txt"

# Both examples at once (the GEMM's space compiles in four parts side by side).
build() {
  local name=$1
  cmake -S "examples/$name" -B "$W/build-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" \
    -DGPU_TOPOLOGY_PROFILE="$PWD/$PROFILE" > "$W/out/build-$name.log" 2>&1 &&
    cmake --build "$W/build-$name" >> "$W/out/build-$name.log" 2>&1
}
builds=()
if [ -z "${STENCIL3D:-}" ]; then build stencil3d & builds+=($!); STENCIL3D="$W/build-stencil3d/stencil3d"; fi
if [ -z "${GEMM:-}" ]; then build gemm & builds+=($!); GEMM="$W/build-gemm/gemm"; fi
for pid in "${builds[@]}"; do wait "$pid"; done
echo "== built in $(elapsed) s"
for program in "$STENCIL3D" "$GEMM"; do
  if [ ! -x "$program" ]; then
    echo "bench/shared_tiling_check.sh: $program was not built:" >&2
    tail -25 "$W/out/build-$(basename "$program").log" >&2 2> /dev/null
    echo "- $(basename "$program"): not built (build log in the archive)" >> "$W/out/skipped.txt"
    status=1
  fi
done

# Every kernel loaded when the program starts, not at its first launch, which a search would time.
export CUDA_MODULE_LOADING=EAGER
# One step under a time limit: $1 its name, $2 the seconds it may take at most, then the command.
run_step() {
  local name=$1 limit=$2 t0 rc
  shift 2
  if [ "$limit" -lt 5 ]; then
    echo "- $name: skipped, the budget was spent ($(elapsed) s gone)" >> "$W/out/skipped.txt"
    echo "== $name: skipped (budget)"
    status=1
    return
  fi
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" > "$W/out/$name.log" 2>&1
  rc=$?
  echo "== $name: exit $rc in $(( $(date +%s) - t0 )) s (limit $limit s)"
  grep -E "^(grid|shape) |confirmed|tuned|default|cublas" "$W/out/$name.log" | sed 's/^/  /' | tail -60
  if [ "$rc" -ne 0 ]; then
    status=1
    [ "$rc" -ge 124 ] && echo "- $name: stopped at its time limit ($limit s): the grids it finished are in its CSV" >> "$W/out/skipped.txt"
    [ "$rc" -lt 124 ] && echo "- $name: exit $rc (log in the archive)" >> "$W/out/skipped.txt"
  fi
}
# The seconds a step may take: what is left of the budget, less the reserves, shared by the steps left.
share() {
  local steps_left=$1 reserve=$2 left
  left=$(( BUDGET_S - $(elapsed) - SUMMARY_RESERVE_S - reserve ))
  [ "$left" -lt 0 ] && left=0
  echo $(( left / steps_left ))
}

remaining=${#stencil_steps[@]}
for step in "${stencil_steps[@]}"; do
  read -r S T <<< "$step"
  limit=$(share "$remaining" "$GEMM_RESERVE_S")
  remaining=$(( remaining - 1 ))
  if [ -x "$STENCIL3D" ]; then
    # shellcheck disable=SC2086 # the grids are separate arguments
    run_step "stencil-$CARD-s$S-t$T" "$limit" "$STENCIL3D" --search --repeats "$STENCIL_REPEATS" --threads "$T" \
      --shared-bytes "$S" --min-x 16 --csv "$W/out/stencil-$CARD-s$S-t$T.csv" $grids
  fi
done
if [ -x "$GEMM" ]; then
  # shellcheck disable=SC2086 # the shapes are separate arguments
  run_step "gemm-$CARD" "$(share 1 0)" "$GEMM" --search --repeats "$GEMM_REPEATS" --csv "$W/out/gemm-$CARD.csv" $shapes
fi
exit $status
