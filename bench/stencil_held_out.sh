#!/usr/bin/env bash
# The stencil chooser and its short list on grids drawn after the model's last change, at several
# block sizes, on this card: builds examples/stencil3d on the card's stored profile
# (generated/profiles/nvidia-<card>.json, what the CPU replay of tests/data uses), then for each
# draw THREADS:SEED[/narrow][/COUNT] runs `stencil3d --search --threads THREADS` over
# bench/stencil_grids.py's grids for SEED (COUNT of them, 6 unless given; narrow: 33-79 points wide).
# The search tunes the short list first, then times every shape and confirms the chosen, the tuned
# and the fastest ones. Packs CSVs and logs into $OUT/<card>-held-out.tgz and prints, per grid, the
# one-pass and confirmed chosen/best and the confirmed tuned/best (bench/stencil_log_summary.awk).
# STENCIL_ARGS adds arguments to every search (e.g. "--shared-bytes 32768": a kernel with its own
# shared memory); STENCIL_REPEATS sets --repeats (3).
#   bench/stencil_held_out.sh <card: h100 or h200> THREADS:SEED[/narrow][/COUNT]...
#   e.g. bench/stencil_held_out.sh h200 1024:20261158//8 1024:20261159/narrow/4 64:20261156
set -o pipefail
cd "$(dirname "$0")/.." || exit 1
usage="usage: bench/stencil_held_out.sh <card: h100 or h200> THREADS:SEED[/narrow][/COUNT]..."
CARD=${1:?$usage}
shift
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
PROFILE="generated/profiles/nvidia-$CARD.json"
[ -f "$PROFILE" ] || { echo "bench/stencil_held_out.sh: no stored profile $PROFILE" >&2; exit 2; }
# Every draw is read before anything runs, so that a typo costs no device time.
draws=()
for draw in "$@"; do
  IFS=: read -r threads rest <<< "$draw"
  IFS=/ read -r seed kind count extra <<< "$rest"
  if [[ "$kind" =~ ^[0-9]+$ && -z "$count" ]]; then count=$kind; kind=""; fi  # SEED/COUNT
  if ! [[ "$threads" =~ ^[0-9]+$ && "$seed" =~ ^[0-9]+$ && "${count:-6}" =~ ^[0-9]+$ && -z "$extra" ]] ||
     [[ -n "$kind" && "$kind" != narrow ]]; then
    echo "bench/stencil_held_out.sh: a draw is THREADS:SEED[/narrow][/COUNT], not '$draw'" >&2
    exit 2
  fi
  draws+=("$threads $seed ${kind:--} ${count:-6}")
done
RESULT=${OUT:-/tmp/stencil-held-out}
W=$(mktemp -d /tmp/stencil-held-out.XXXXXX) && mkdir -p "$RESULT" "$W/out" || exit 1
trap 'tar czf "$RESULT/$CARD-held-out.tgz" -C "$W" out || echo "bench/stencil_held_out.sh: packing $W/out failed" >&2' EXIT
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv \
  | tee "$W/out/card.txt"
start=$(date +%s)
cmake -S examples/stencil3d -B "$W/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" \
  -DGPU_TOPOLOGY_PROFILE="$PWD/$PROFILE" > "$W/out/build.log" 2>&1 \
  && cmake --build "$W/build" >> "$W/out/build.log" 2>&1 || { tail -30 "$W/out/build.log"; exit 1; }
echo "stencil3d built on $PROFILE in $(( $(date +%s) - start )) s"
status=0
for draw in "${draws[@]}"; do
  read -r threads seed kind count <<< "$draw"
  [ "$kind" = - ] && kind=""
  grids=$(python3 bench/stencil_grids.py "$seed" "$count" ${kind:+--$kind}) || exit 1
  name="$CARD-threads$threads-seed$seed${kind:+-$kind}$(echo ${STENCIL_ARGS:-} | tr -d ' -' | sed 's/^./-&/')"
  t=$(date +%s)
  "$W/build/stencil3d" --search --repeats "${STENCIL_REPEATS:-3}" --threads "$threads" ${STENCIL_ARGS:-} \
    --csv "$W/out/$name.csv" $grids \
    > "$W/out/$name.log" 2>&1 || status=1
  echo "== $name ($(( $(date +%s) - t )) s): $grids"
  awk -f bench/stencil_log_summary.awk "$W/out/$name.log"
done
exit $status
