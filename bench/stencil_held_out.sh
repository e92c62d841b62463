#!/usr/bin/env bash
# The stencil chooser and its short list on grids drawn after the model's last change, at several
# block sizes, on this card: builds examples/stencil3d on the card's stored profile
# (generated/profiles/nvidia-<card>.json, what the CPU replay of tests/data uses), then for each
# DRAW "THREADS:SEED[/narrow][/COUNT]" runs `stencil3d --search --threads THREADS` over
# bench/stencil_grids.py's grids (the search tunes the short list first, then times every shape
# and confirms the chosen, the tuned and the fastest ones). Packs CSVs and logs into $OUT/<card>-held-out.tgz
# and prints, per grid, the confirmed chosen/best and tuned/best.
#   bench/stencil_held_out.sh <card: h100 or h200> "1024:20261158 64:20261156 64:20261157/narrow/2" ...
set -o pipefail
CARD=${1:?usage: bench/stencil_held_out.sh <card> THREADS:SEED[/narrow][/COUNT]...}
shift
[ $# -gt 0 ] || { echo "bench/stencil_held_out.sh: no draws (THREADS:SEED[/narrow][/COUNT])" >&2; exit 2; }
PROFILE="generated/profiles/nvidia-$CARD.json"
[ -f "$PROFILE" ] || { echo "bench/stencil_held_out.sh: no stored profile $PROFILE" >&2; exit 2; }
RESULT=${OUT:-/tmp/stencil-held-out}
W=/tmp/stencil-held-out-work
rm -rf "$W" && mkdir -p "$RESULT" "$W/out"
trap 'tar czf "$RESULT/$CARD-held-out.tgz" -C "$W" out' EXIT
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv \
  | tee "$W/out/card.txt"
start=$(date +%s)
cmake -S examples/stencil3d -B "$W/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" \
  -DGPU_TOPOLOGY_PROFILE="$PWD/$PROFILE" > "$W/out/build.log" 2>&1 \
  && cmake --build "$W/build" >> "$W/out/build.log" 2>&1 || { tail -30 "$W/out/build.log"; exit 1; }
echo "stencil3d built on $PROFILE in $(( $(date +%s) - start )) s"
status=0
for draw in "$@"; do
  IFS=: read -r threads rest <<< "$draw"
  IFS=/ read -r seed kind count <<< "$rest"
  grids=$(python3 bench/stencil_grids.py "$seed" "${count:-6}" ${kind:+--$kind}) || exit 1
  name="$CARD-threads$threads-seed$seed${kind:+-$kind}"
  t=$(date +%s)
  "$W/build/stencil3d" --search --repeats "${STENCIL_REPEATS:-3}" --threads "$threads" --csv "$W/out/$name.csv" $grids \
    > "$W/out/$name.log" 2>&1 || status=1
  echo "== $name ($(( $(date +%s) - t )) s): $grids"
  awk '/^grid /{g=$2} /^  confirmed /{c=$NF} /^  tuned /{print "  " g, "chosen/best", c, "tuned/best", $NF}' "$W/out/$name.log"
done
exit $status
