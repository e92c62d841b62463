#!/usr/bin/env bash
# What one card contributes to the repository, from the repo root, in phases that fit device calls
# (run the phases of one card back to back: a warm machine keeps /tmp/card between calls):
#   readme       the README's main command twice (first configure with its nested probe build and
#                measurement, then the re-configure), timed; the probe it built: native code?
#   record       that probe with --record and --raw: the card's stored-profile candidate, its engine
#                log for the CPU replay tests and its sweeps; the log replayed here and compared
#   independent  bench/user_kernels.cu beside the recorded profile (bench/compare_user_kernels.py)
#   stencil      examples/stencil3d --search over grids the stencil model was not fitted on
#   remeasure    the installed package's examples/minimal: configure (it measures), then
#                `ctest -L gpu` (identity + re-measure) RUNS times in a row, every failure kept
#   gputests     the project's GPU tests (ctest -L gpu in build/ci)
#   consumer     CUDA consumers: one that sets no architectures (probe native, cluster facts
#                measured, re-configure), timed; DEVICES ALL on this machine's GPUs with ctest -j
# Each phase appends to $OUT/<card>.log and packs its files into $OUT/<card>-<phase>.tgz.
#   bench/record_card.sh <card, e.g. h200> <phase>...      (RUNS=30 by default)
set -o pipefail
CARD=${1:?usage: bench/record_card.sh <card> <phase>...}
shift
RESULT=${OUT:-/tmp/record-card}
W=/tmp/card
RUNS=${RUNS:-30}
mkdir -p "$RESULT" "$W"
exec > >(tee -a "$RESULT/$CARD.log") 2>&1
jobs=$(nproc)
seconds() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$(seconds) - $1:.2f}')"; }
probe_of_readme() { ls build/default/_gpu_topology/probe-*/gpu-topology-probe 2>/dev/null | head -1; }

phase_readme() {
  nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv
  rm -rf build/default
  local t; t=$(seconds)
  cmake --preset default > "$W/readme-1.log" 2>&1; echo "README main command, first: rc=$? in $(elapsed "$t") s"
  grep -c "" "$W/readme-1.log" | xargs echo "  lines of output:"
  t=$(seconds)
  cmake --preset default > "$W/readme-2.log" 2>&1; echo "README main command, again: rc=$? in $(elapsed "$t") s"
  cat "$W/readme-2.log"
  local P; P=$(probe_of_readme)
  echo "probe: $P"
  cuobjdump --list-elf "$P" 2>&1 | head -5
  cuobjdump --list-ptx "$P" 2>&1 | head -3
}

phase_record() {
  local P; P=$(probe_of_readme)
  [ -x "$P" ] || { echo "no probe from the readme phase"; return 1; }
  mkdir -p "$W/record"
  "$P" probe --output "$W/record/${CARD}_probe.json" --record "$W/record/${CARD}_probe.enginelog" \
    --raw "$W/record/raw" 2> "$W/record/probe.err"
  echo "probe rc=$?"
  grep -E "check|finished|busy|TLB|bandwidth" "$W/record/probe.err"
  "$P" replay "$W/record/${CARD}_probe.enginelog" --output "$W/record/replay.json" --quiet
  echo "replay rc=$?"
  python3 - "$W/record/${CARD}_probe.json" "$W/record/replay.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
differences = []
def walk(x, y, path=""):
    if isinstance(x, dict):
        for k in x:
            if k not in ("duration_s", "stages", "seconds", "monitor"):
                walk(x[k], y.get(k) if isinstance(y, dict) else None, path + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, y[i] if isinstance(y, list) and i < len(y) else None, f"{path}[{i}]")
    elif x != y:
        differences.append(f"{path}: {x} != {y}")
walk(a, b)
print("replay reproduces the live profile" if not differences else "\n".join(["replay differs:"] + differences[:20]))
PY
  python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print('duration', p['probe']['duration_s'], 's;', ', '.join(f\"{s['name']} {s['seconds']}\" for s in p['probe']['stages']))" "$W/record/${CARD}_probe.json"
  tar czf "$RESULT/$CARD-record.tgz" -C "$W" record
}

phase_independent() {
  mkdir -p "$W/uk"
  nvcc -std=c++17 -O3 -arch=sm_90 bench/user_kernels.cu -o "$W/user_kernels" || return 1
  "$W/user_kernels" --out "$W/uk" > "$W/uk/tables.txt" 2> "$W/uk/progress.txt"; echo "user_kernels rc=$?"
  python3 bench/compare_user_kernels.py "$W/record/${CARD}_probe.json" "$W/uk" | tee "$W/uk/compare.txt" | tail -32
  tar czf "$RESULT/$CARD-independent.tgz" -C "$W" uk
}

phase_stencil() {
  local t; t=$(seconds)
  cmake -S examples/stencil3d -B "$W/stencil" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" \
    -DGPU_TOPOLOGY_PROFILE="$W/record/${CARD}_probe.json" -DGPU_TOPOLOGY_PROBE_EXECUTABLE="$(probe_of_readme)" \
    > "$W/stencil-build.log" 2>&1 \
    && cmake --build "$W/stencil" -j "$jobs" >> "$W/stencil-build.log" 2>&1 || { tail -20 "$W/stencil-build.log"; return 1; }
  echo "stencil3d built against the recorded profile in $(elapsed "$t") s"
  # Drawn by a seeded generator (seed 20261124), after the model was fitted: held out.
  local grids="--grid 1040 92 556 --grid 851 116 426 --grid 492 150 512 --grid 552 260 204 --grid 397 238 176
               --grid 952 318 194 --grid 64 1016 360 --grid 255 1214 218 --grid 115 596 540 --grid 158 634 534
               --grid 526 254 184 --grid 186 398 304"
  mkdir -p "$W/st"
  "$W/stencil/stencil3d" --search --repeats 5 --csv "$W/st/stencil-held-$CARD.csv" $grids > "$W/st/search.log" 2>&1
  echo "stencil search rc=$? in $(elapsed "$t") s"
  grep -E "^grid|chosen/best" "$W/st/search.log" | paste - - | awk '{print $2, $NF}'
  tar czf "$RESULT/$CARD-stencil.tgz" -C "$W" st
}

build_ci() {
  [ -x build/ci/probe/gpu-topology-probe ] && [ -f build/ci/.gpu-targets-built ] && return 0
  cmake --preset ci > "$W/ci-configure.log" 2>&1 || { tail -20 "$W/ci-configure.log"; return 1; }
  cmake --build build/ci -j "$jobs" > "$W/ci-build.log" 2>&1 || { tail -30 "$W/ci-build.log"; return 1; }
  touch build/ci/.gpu-targets-built
}

phase_remeasure() {
  local t; t=$(seconds)
  build_ci || return 1
  rm -rf "$W/prefix" "$W/minimal"
  cmake --install build/ci --prefix "$W/prefix" > /dev/null || { echo "install failed"; return 1; }
  echo "package built and installed in $(elapsed "$t") s"
  t=$(seconds)
  cmake -S examples/minimal -B "$W/minimal" -G Ninja -DCMAKE_PREFIX_PATH="$W/prefix" > "$W/minimal-configure.log" 2>&1 \
    || { tail -20 "$W/minimal-configure.log"; return 1; }
  echo "examples/minimal configured (measured) in $(elapsed "$t") s"
  mkdir -p "$W/loop"
  local failures=0
  for i in $(seq 1 "$RUNS"); do
    if ctest --test-dir "$W/minimal" -L gpu --output-on-failure > "$W/loop/run-$i.log" 2>&1; then
      echo "run $i: passed ($(grep -o 'Total Test time (real) = *[0-9.]* sec' "$W/loop/run-$i.log" | grep -o '[0-9.]* sec'))"
    else
      failures=$((failures + 1)); echo "run $i: FAILED"; grep -E "^FAIL" "$W/loop/run-$i.log"
    fi
  done
  echo "identity + re-measure: $failures failures in $RUNS runs"
  tar czf "$RESULT/$CARD-remeasure.tgz" -C "$W" loop minimal-configure.log
}

phase_gputests() {
  local t; t=$(seconds)
  build_ci || return 1
  ctest --test-dir build/ci -L gpu --output-on-failure > "$W/gputests.log" 2>&1
  echo "GPU tests rc=$? in $(elapsed "$t") s"
  grep -E "Test +#|tests passed|tests failed" "$W/gputests.log"
  gzip -c "$W/gputests.log" > "$RESULT/$CARD-gputests.log.gz"
}

phase_consumer() {
  echo "(filled in when the package work of issues 19 and 22 lands)"
}

for phase in "$@"; do
  echo "== $CARD: $phase ($(date -u +%H:%M:%S))"
  "phase_$phase" || echo "phase $phase FAILED"
done
