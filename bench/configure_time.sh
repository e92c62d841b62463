#!/usr/bin/env bash
# How long the configures of a consumer take (issue 19, section 2): each SCENARIO is one
# configure, timed as a whole process, RUNS times after one untimed warm-up; prints the
# median, minimum and maximum wall time and appends a row to RESULT (markdown: date, machine,
# scenario, command, figures) for the machine's table in docs/records/configure-time.md.
#
#   bench/configure_time.sh [--runs N] [--result FILE] [--work DIR] SCENARIO...
#   bench/configure_time.sh --once SCENARIO      one configure, untimed: for an outside timer
#
# Scenarios (examples/minimal as the consumer, the package from this source tree):
#   render        first configure, add_subdirectory, a user's profile, no GPU needed: builds the
#                 render-only probe (CUDA_VISIBLE_DEVICES= hides any GPU)
#   measure       first configure, add_subdirectory, on this machine's GPU: builds the probe for
#                 the GPU and measures it (an empty tree has no measurement to reuse)
#   reconfigure   the re-configure of the measure tree (the README's second command's case)
#   readme        `cmake --preset default` from scratch (build/default removed first)
#   readme-again  `cmake --preset default` once more on that tree
#   installed     first configure against an installed package (--prefix DIR from
#                 `cmake --install build/default --prefix DIR`): nothing compiled but the
#                 consumer's compiler checks
# A first configure starts from an empty build tree each run; the probe's per-user GPU lock
# and nothing else is shared between runs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=5
RESULT=$ROOT/build/bench/configure_time.md
WORK=$ROOT/build/bench/configure
PREFIX=
ONCE=false
scenarios=()
while [ $# -gt 0 ]; do
  case $1 in
  --runs) RUNS=$2; shift ;;
  --result) RESULT=$2; shift ;;
  --work) WORK=$2; shift ;;
  --prefix) PREFIX=$2; shift ;;
  --once) ONCE=true ;;
  -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
  -*) echo "configure_time.sh: unknown option $1" >&2; exit 2 ;;
  *) scenarios+=("$1") ;;
  esac
  shift
done
[ ${#scenarios[@]} -gt 0 ] || { echo "configure_time.sh: name a scenario (--help)" >&2; exit 2; }
mkdir -p "$WORK" "$(dirname "$RESULT")"
MINE=$WORK/mine.json  # a user's profile: outside the package, so it is rendered, not copied pre-rendered
cp "$ROOT/generated/profiles/nvidia-h200.json" "$MINE"

# What must happen before each timed run of a scenario.
prepare() {
  case $1 in
  render | measure | installed) rm -rf "${WORK:?}/$1" ;;
  readme) rm -rf "$ROOT/build/default" ;;
  reconfigure) [ -f "$WORK/measure/CMakeCache.txt" ] || run_once measure ;;
  readme-again) [ -f "$ROOT/build/default/CMakeCache.txt" ] || run_once readme ;;
  esac
}
# The scenario's configure, into the array `command`.
command_of() {
  local consumer=(cmake -S "$ROOT/examples/minimal" -B "$WORK/$1" -G Ninja -DCMAKE_BUILD_TYPE=Release)
  case $1 in
  render) command=(env CUDA_VISIBLE_DEVICES= "${consumer[@]}" "-DGPU_TOPOLOGY_SOURCE_DIR=$ROOT"
                   "-DGPU_TOPOLOGY_PROFILE=$MINE") ;;
  measure) command=("${consumer[@]}" "-DGPU_TOPOLOGY_SOURCE_DIR=$ROOT") ;;  # a new tree measures: no cache yet
  reconfigure) command=(cmake "$WORK/measure") ;;
  readme | readme-again) command=(cmake --preset default) ;;
  installed)
    [ -n "$PREFIX" ] || { echo "configure_time.sh: installed needs --prefix DIR" >&2; exit 2; }
    command=("${consumer[@]}" "-DCMAKE_PREFIX_PATH=$PREFIX") ;;
  *) echo "configure_time.sh: unknown scenario $1 (--help)" >&2; exit 2 ;;
  esac
}
# One configure of the scenario, its output in WORK/<scenario>.log.
configure() {
  command_of "$1"
  (cd "$ROOT" && "${command[@]}" > "$WORK/$1.log" 2>&1) ||
    { cat "$WORK/$1.log" >&2; echo "configure_time.sh: $1 failed: ${command[*]}" >&2; exit 1; }
}
run_once() {
  prepare "$1"
  configure "$1"
}

if $ONCE; then
  for scenario in "${scenarios[@]}"; do run_once "$scenario"; done
  exit 0
fi

machine="$(hostname), $(nproc) cores, $(cmake --version | head -1)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1 || true)
machine="$machine, ${gpu:-no GPU}"
[ -f "$RESULT" ] || printf '| date | machine | scenario | command | runs | median s | min s | max s |\n|---|---|---|---|---:|---:|---:|---:|\n' > "$RESULT"
for scenario in "${scenarios[@]}"; do
  run_once "$scenario"  # warm-up: file caches, the lock directory
  times=()
  for _ in $(seq "$RUNS"); do
    prepare "$scenario"
    start=$(date +%s.%N)
    configure "$scenario"
    end=$(date +%s.%N)
    times+=("$(awk "BEGIN { print $end - $start }")")
  done
  read -r median low high < <(printf '%s\n' "${times[@]}" | sort -g |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }')
  command_of "$scenario"
  shown="${command[*]}"
  echo "$scenario: median $median s (min $low, max $high) over $RUNS runs: $shown"
  # shellcheck disable=SC2016  # the backquotes are markdown
  printf '| %s | %s | %s | `%s` | %s | %s | %s | %s |\n' "$(date +%F)" "$machine" "$scenario" "${shown//$ROOT/.}" \
    "$RUNS" "$median" "$low" "$high" >> "$RESULT"
done
echo "appended to $RESULT"
