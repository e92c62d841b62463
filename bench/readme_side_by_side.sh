#!/usr/bin/env bash
# The README's first command (`cmake --preset default`, a fresh build/default and an empty per-user
# cache each time) in several source trees, rounds interleaved so that a machine that drifts affects
# each alike: the configure's wall time, the nested probe build and the measurement as its log gives
# them, the nested build's step time and longest step; then the built probe once more (wall time)
# and `compare`d with this card's stored profile. Needs a GPU.
# Keeps each run's configure log and nested Ninja log under OUT/<label>-<run>/; exits 1 when a
# configure failed. "step time" is the sum of the nested Ninja log's steps (compiles, links, the
# template): the build's work as Ninja saw it, not CPU time (nvcc's --split-compile threads).
#
#   bench/readme_side_by_side.sh [--runs N] [--out DIR] LABEL=SOURCE_DIR...
#
# A SOURCE_DIR is a tree of this repository (a copy with a change, a worktree of a commit); its
# build/default is removed before each of its runs.
set -euo pipefail
ROOT=$(CDPATH='' cd "$(dirname "$0")/.." && pwd)
RUNS=5
OUT=$ROOT/build/bench/readme_side_by_side
variants=()
while [ $# -gt 0 ]; do
  case $1 in
  --runs | --out)
    [ $# -ge 2 ] || { echo "readme_side_by_side.sh: $1 needs a value" >&2; exit 2; }
    if [ "$1" = --runs ]; then RUNS=$2; else OUT=$2; fi
    shift ;;
  -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
  -*) echo "readme_side_by_side.sh: unknown option $1" >&2; exit 2 ;;
  *=*) variants+=("$1") ;;
  *) echo "readme_side_by_side.sh: '$1' is not LABEL=SOURCE_DIR" >&2; exit 2 ;;
  esac
  shift
done
[ ${#variants[@]} -gt 0 ] || { echo "readme_side_by_side.sh: name at least one LABEL=SOURCE_DIR (--help)" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "readme_side_by_side.sh: --runs '$RUNS' is not a whole number of runs" >&2; exit 2; }
labels=" "
for variant in "${variants[@]}"; do
  [ -f "${variant#*=}/CMakePresets.json" ] || { echo "readme_side_by_side.sh: ${variant#*=} is not a source tree" >&2; exit 2; }
  [[ $labels != *" ${variant%%=*} "* ]] || { echo "readme_side_by_side.sh: label ${variant%%=*} given twice" >&2; exit 2; }
  labels="$labels${variant%%=*} "
done
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) || name=""
[ -n "$name" ] || { echo "readme_side_by_side.sh: needs a GPU (nvidia-smi lists none)" >&2; exit 2; }
mkdir -p "$OUT"
# An empty per-user cache for every run, whatever the environment names.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
unset GPU_TOPOLOGY_CACHE
export GPU_TOPOLOGY_CACHE_DIR=$cache
case $name in *H200*) card=h200 ;; *H100*) card=h100 ;; *) card="" ;; esac
echo "$name, $(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)" | tee "$OUT/results.txt"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
failed=0
for run in $(seq 1 "$RUNS"); do
  for variant in "${variants[@]}"; do
    label=${variant%%=*}
    src=$(CDPATH='' cd "${variant#*=}" && pwd)
    dir=$OUT/$label-$run
    mkdir -p "$dir"
    rm -rf "$src/build/default" "$cache"
    mkdir "$cache"
    t0=$(now_ms)
    status=0
    (cd "$src" && cmake --preset default) >"$dir/configure.log" 2>&1 || status=$?
    [ "$status" -eq 0 ] || failed=1
    t1=$(now_ms)
    built=$(grep -o "building the probe (measuring, [^)]*)[a-z ]* - done ([0-9.]* s)" "$dir/configure.log" | grep -o "[0-9.]* s)$" | paste -sd+ || true)
    probed=$(grep -o "probing .* - done ([0-9.]* s)" "$dir/configure.log" | grep -o "[0-9.]* s)$" | paste -sd+ || true)
    nested=$src/build/default/_gpu_topology/probe-measure
    line="$label $run: rc $status, configure $((t1 - t0)) ms, nested build ${built%)}, probe ${probed%)}"
    if [ -f "$nested/.ninja_log" ]; then
      cp "$nested/.ninja_log" "$dir/ninja_log"
      # A step of several outputs has a line per output, with the same times and command hash: once.
      line="$line, $(awk -F'\t' 'NR > 1 && !seen[$1 SUBSEP $2 SUBSEP $5]++ {
          d = ($2 - $1) / 1000; s += d; if (d > m) { m = d; n = $4 } }
        END { printf "step time %.1f s, longest %.2f s %s", s, m, n }' "$nested/.ninja_log")"
    fi
    if [ -x "$nested/gpu-topology-probe" ]; then
      t2=$(now_ms)
      "$nested/gpu-topology-probe" probe --output "$dir/again.json" >"$dir/again.log" 2>&1 || true
      t3=$(now_ms)
      line="$line; probe again $((t3 - t2)) ms"
      if [ -n "$card" ]; then
        "$nested/gpu-topology-probe" compare "$dir/again.json" "$ROOT/generated/profiles/nvidia-$card.json" \
          >"$dir/compare.txt" 2>&1 || true
        line="$line, compare: $(grep -o '[0-9]* vouched for and compared, [0-9]* outside' "$dir/compare.txt" || echo failed)"
      fi
    fi
    echo "$line" | tee -a "$OUT/results.txt"
  done
done
exit $failed
