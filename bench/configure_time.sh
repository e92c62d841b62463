#!/usr/bin/env bash
# How long the configures of a consumer take (issue 19, section 2; issue 31, section 1): each
# SCENARIO is one configure, timed as a whole process, RUNS times after one untimed warm-up;
# prints the median, minimum and maximum wall time and appends a row to RESULT (markdown: date,
# machine, scenario, command, figures) for the machine's table in docs/records/configure-time.md.
#
#   bench/configure_time.sh [--runs N] [--result FILE] [--work DIR] [--prefix DIR] [--cmake-arg ARG]... SCENARIO...
#   bench/configure_time.sh --once SCENARIO      one configure, untimed: for an outside timer
# --cmake-arg adds ARG to every configure of a consumer (-DGPU_TOPOLOGY_LEVEL=quick, or the
# stand-in probe that tries the script without a GPU: -DGPU_TOPOLOGY_PROBE_EXECUTABLE=...).
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
#   cached        first configure of a new tree, add_subdirectory, on a machine whose GPU the
#                 user's cache holds (the warm-up fills it: builds the probe and measures once;
#                 the script stops when that kept no measurement, as without a GPU):
#                 each run must build no probe and measure nothing, and write the header of
#                 the measurement byte for byte (the script stops when one does not)
#   cached-installed   the same against the installed package (--prefix DIR)
#   bare          first configure of a C++ project that does not use GPUTopology: the compiler
#                 checks every new tree pays, to subtract from the others
# The scenarios that time a first measurement (render, measure, readme, installed) and their
# re-configures use a cache of their own, emptied before each run (GPU_TOPOLOGY_CACHE_DIR); the
# cached ones the cache WORK/cache, which their warm-up empties and fills. The probe's per-user
# GPU lock is shared between runs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=5
RESULT=$ROOT/build/bench/configure_time.md
WORK=$ROOT/build/bench/configure
PREFIX=
ONCE=false
EXTRA=()
scenarios=()
while [ $# -gt 0 ]; do
  case $1 in
  --runs) RUNS=$2; shift ;;
  --result) RESULT=$2; shift ;;
  --work) WORK=$2; shift ;;
  --prefix) PREFIX=$2; shift ;;
  --once) ONCE=true ;;
  --cmake-arg) EXTRA+=("$2"); shift ;;
  -h | --help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
  -*) echo "configure_time.sh: unknown option $1" >&2; exit 2 ;;
  *) scenarios+=("$1") ;;
  esac
  shift
done
[ ${#scenarios[@]} -gt 0 ] || { echo "configure_time.sh: name a scenario (--help)" >&2; exit 2; }
mkdir -p "$WORK" "$(dirname "$RESULT")"
MINE=$WORK/mine.json  # a user's profile: outside the package, so it is rendered, not copied pre-rendered
cp "$ROOT/generated/profiles/nvidia-h200.json" "$MINE"

# Where each scenario's user cache is: the cached scenarios share one, filled once; the others
# start without one.
UNCACHED=$WORK/cache-none
CACHED=$WORK/cache
# The header a fresh measurement wrote, which every cached configure must write too.
reference_of() { echo "$WORK/$1-fill/gpu_topology/minimal/gpu_topology.hpp"; }

# What must happen before each timed run of a scenario.
prepare() {
  case $1 in
  render | measure | installed) rm -rf "${WORK:?}/$1" "$UNCACHED" ;;
  readme) rm -rf "$ROOT/build/default" "$UNCACHED" ;;
  reconfigure) [ -f "$WORK/measure/CMakeCache.txt" ] || run_once measure ;;
  readme-again) [ -f "$ROOT/build/default/CMakeCache.txt" ] || run_once readme ;;
  bare) rm -rf "${WORK:?}/bare" ;;
  cached | cached-installed)
    rm -rf "${WORK:?}/$1"
    if [ ! -f "$(reference_of "$1")" ] || ! ls "$CACHED"/profiles/*.json > /dev/null 2>&1; then
      rm -rf "$CACHED" "${WORK:?}/$1-fill"  # a fresh measurement fills the cache
      configure "$1" "$1-fill"
      ls "$CACHED"/profiles/*.json > /dev/null 2>&1 ||
        { echo "configure_time.sh: the fill kept no measurement in $CACHED (no GPU?); see $WORK/$1-fill.log" >&2; exit 1; }
    fi ;;
  esac
}
# The scenario's configure into the tree TREE (default: the scenario's), into the array `command`.
command_of() {
  local tree=$WORK/${2:-$1}
  local consumer=(cmake -S "$ROOT/examples/minimal" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=Release ${EXTRA[@]+"${EXTRA[@]}"})
  local uncached=(env "GPU_TOPOLOGY_CACHE_DIR=$UNCACHED")
  local cached=(env "GPU_TOPOLOGY_CACHE_DIR=$CACHED")
  case $1 in
  render) command=("${uncached[@]}" CUDA_VISIBLE_DEVICES= "${consumer[@]}" "-DGPU_TOPOLOGY_SOURCE_DIR=$ROOT"
                   "-DGPU_TOPOLOGY_PROFILE=$MINE") ;;
  measure) command=("${uncached[@]}" "${consumer[@]}" "-DGPU_TOPOLOGY_SOURCE_DIR=$ROOT") ;;  # a new tree measures
  reconfigure) command=("${uncached[@]}" cmake "$WORK/measure") ;;
  readme | readme-again) command=("${uncached[@]}" cmake --preset default) ;;
  installed) command=("${uncached[@]}" "${consumer[@]}" "-DCMAKE_PREFIX_PATH=$(prefix)") ;;
  cached) command=("${cached[@]}" "${consumer[@]}" "-DGPU_TOPOLOGY_SOURCE_DIR=$ROOT") ;;
  cached-installed) command=("${cached[@]}" "${consumer[@]}" "-DCMAKE_PREFIX_PATH=$(prefix)") ;;
  bare) command=(cmake -S "$WORK/bare-source" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=Release) ;;
  *) echo "configure_time.sh: unknown scenario $1 (--help)" >&2; exit 2 ;;
  esac
}
prefix() {
  [ -n "$PREFIX" ] || { echo "configure_time.sh: this scenario needs --prefix DIR" >&2; exit 2; }
  echo "$PREFIX"
}
# One configure of the scenario (into TREE, default: the scenario's), its output in
# WORK/<tree>.log; a cached one must have built and measured nothing, and written the header
# of the measurement.
configure() {
  local tree=${2:-$1}
  command_of "$1" "$tree"
  (cd "$ROOT" && "${command[@]}" > "$WORK/$tree.log" 2>&1) ||
    { cat "$WORK/$tree.log" >&2; echo "configure_time.sh: $1 failed: ${command[*]}" >&2; exit 1; }
  case $tree in
  cached | cached-installed)
    if grep -E "building the probe|GPUTopology: probing|not using the cached" "$WORK/$tree.log" >&2; then
      echo "configure_time.sh: $tree built the probe or measured; see $WORK/$tree.log" >&2
      exit 1
    fi
    cmp "$(reference_of "$tree")" "$WORK/$tree/gpu_topology/minimal/gpu_topology.hpp" ||
      { echo "configure_time.sh: $tree wrote another header than the measurement" >&2; exit 1; } ;;
  esac
}
run_once() {
  prepare "$1"
  configure "$1"
}
mkdir -p "$WORK/bare-source"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(bare LANGUAGES CXX)\n' > "$WORK/bare-source/CMakeLists.txt"

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
