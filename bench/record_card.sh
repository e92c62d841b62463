#!/usr/bin/env bash
# What one card contributes to the repository, from the repo root, in phases that fit device calls
# (run the phases of one card back to back: a warm machine keeps /tmp/card between calls):
#   readme       the README's main command from scratch and again (bench/configure_time.sh: the first
#                configure builds the probe for this GPU and measures, the second reuses both),
#                timed; the probe it built: sm_90 machine code, or PTX for the driver to compile?
#   record       that probe with --record and --raw: the card's stored-profile candidate, its engine
#                log for the CPU replay tests and its sweeps; the log replayed here and compared
#   independent  bench/user_kernels.cu beside the recorded profile (bench/compare_user_kernels.py)
#   latencies    bench/path_latencies.cu beside the recorded profile: each path's latency as a whole
#                chain of dependent loads times it (bench/compare_path_latencies.py)
#   stencil      examples/stencil3d --search over grids the stencil model was not fitted on
#                (bench/stencil_grids.py draws them; STENCIL_DRAWS picks the sets)
#   remeasure    the installed package's examples/minimal: configure (it measures), then
#                `ctest -L gpu` (identity + re-measure) RUNS times in a row, every failure kept
#   gputests     the project's GPU tests (ctest -L gpu in build/ci; GPUTESTS=<regex> picks some)
#   native       cmake.gpu_native (a CUDA consumer that sets no architectures), without the ci tree
#   node         DEVICES ALL on this machine's GPUs: the CTest resource spec file it writes, and
#                the per-device checks under `ctest -L gpu -j`, each on the GPU CTest gave it
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
probe_of_readme() { echo build/default/_gpu_topology/probe-measure/gpu-topology-probe; }

phase_readme() {
  nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,utilization.gpu --format=csv
  rm -rf build/default
  local t; t=$(seconds)
  cmake --preset default > "$W/readme-1.log" 2>&1; echo "README main command, first: rc=$? in $(elapsed "$t") s"
  cat "$W/readme-1.log"
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

phase_latencies() {
  mkdir -p "$W/lat"
  nvcc -std=c++17 -O3 -arch=sm_90 bench/path_latencies.cu -o "$W/path_latencies" || return 1
  "$W/path_latencies" --out "$W/lat" > "$W/lat/table.txt" 2> "$W/lat/progress.txt"
  local rc=$?; echo "path_latencies rc=$rc"
  [ $rc -eq 0 ] || { cat "$W/lat/progress.txt"; return 1; }
  "$(probe_of_readme)" docs --list > "$W/lat/quantities.txt" || return 1
  echo "-- against this run's profile"
  python3 bench/compare_path_latencies.py "$W/record/${CARD}_probe.json" "$W/lat/latency.csv" "$W/lat/quantities.txt" \
    | tee "$W/lat/compare.txt"
  rc=$?  # the comparison's: 1 where a row differs
  tar czf "$RESULT/$CARD-latencies.tgz" -C "$W" lat
  return $rc
}

phase_stencil() {
  local t; t=$(seconds)
  cmake -S examples/stencil3d -B "$W/stencil" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" \
    -DGPU_TOPOLOGY_PROFILE="$W/record/${CARD}_probe.json" -DGPU_TOPOLOGY_PROBE_EXECUTABLE="$(probe_of_readme)" \
    > "$W/stencil-build.log" 2>&1 \
    && cmake --build "$W/stencil" -j "$jobs" >> "$W/stencil-build.log" 2>&1 || { tail -20 "$W/stencil-build.log"; return 1; }
  echo "stencil3d built against the recorded profile in $(elapsed "$t") s"
  # Held out: drawn by bench/stencil_grids.py after the model was last changed (a new seed each time).
  # STENCIL_DRAWS: one or more draws searched together, each SEED or SEED/narrow or SEED/narrow/COUNT
  # or SEED//COUNT (narrow: grids 33-79 points wide only; 12 grids a draw unless COUNT says).
  local grids="" draw seed kind count
  for draw in ${STENCIL_DRAWS:-20261136}; do
    IFS=/ read -r seed kind count <<< "$draw"
    grids+=" $(python3 bench/stencil_grids.py "$seed" ${count:-12} ${kind:+--$kind})" || return 1
  done
  echo "stencil grids (${STENCIL_DRAWS:-20261136}):$grids"
  mkdir -p "$W/st"
  "$W/stencil/stencil3d" --search --repeats "${STENCIL_REPEATS:-3}" --csv "$W/st/stencil-held-$CARD.csv" $grids > "$W/st/search.log" 2>&1
  echo "stencil search rc=$? in $(elapsed "$t") s"
  awk -f bench/stencil_log_summary.awk "$W/st/search.log"
  tar czf "$RESULT/$CARD-stencil.tgz" -C "$W" st
}

# The ci build's probe and GPU test programs (not the CPU tests: they run in CI).
build_ci() {
  [ -f build/ci/.gpu-targets-built ] && return 0
  cmake --preset ci > "$W/ci-configure.log" 2>&1 || { tail -20 "$W/ci-configure.log"; return 1; }
  cmake --build build/ci -j "$jobs" --target gpu-topology-probe gpu_topology_gpu_tests gpu_topology_load_generator \
    header_device_runtime > "$W/ci-build.log" 2>&1 || { tail -30 "$W/ci-build.log"; return 1; }
  touch build/ci/.gpu-targets-built
}

phase_remeasure() {
  local t; t=$(seconds)
  rm -rf "$W/prefix" "$W/minimal"
  # The README's way: its build tree, built, installed.
  cmake --build --preset default -j "$jobs" > "$W/default-build.log" 2>&1 || { tail -20 "$W/default-build.log"; return 1; }
  cmake --install build/default --prefix "$W/prefix" > /dev/null || { echo "install failed"; return 1; }
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
  ctest --test-dir build/ci -L gpu ${GPUTESTS:+-R "$GPUTESTS"} --output-on-failure > "$W/gputests.log" 2>&1
  echo "GPU tests rc=$? in $(elapsed "$t") s"
  grep -E "Test +#|tests passed|tests failed" "$W/gputests.log"
  gzip -c "$W/gputests.log" > "$RESULT/$CARD-gputests.log.gz"
}

# cmake.gpu_native without the ci tree: a CUDA consumer that sets no architectures.
phase_native() {
  local t; t=$(seconds)
  cmake -DWORK="$W/native" -DGENERATOR=Ninja -DPACKAGE_SOURCE="$PWD" -DPACKAGE_BUILD="$W/none" \
    -DCMAKE_CTEST_COMMAND="$(command -v ctest)" -DPROBE=none -DCUDA_COMPILER="$(command -v nvcc)" \
    -P tests/cmake/gpu_native.cmake > "$W/native.log" 2>&1
  echo "cmake.gpu_native: rc=$? in $(elapsed "$t") s"
  grep -E "fact |first configure|configure|machine code|sm_|passed|Error|error" "$W/native.log" | head -30
  gzip -c "$W/native.log" > "$RESULT/$CARD-native.log.gz"
}

phase_node() {
  local t; t=$(seconds)
  rm -rf "$W/node"
  cmake -S examples/minimal -B "$W/node" -G Ninja -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" -DGPU_TOPOLOGY_DEVICE=ALL \
    -DGPU_TOPOLOGY_PROBE_EXECUTABLE="$(probe_of_readme)" > "$W/node-configure.log" 2>&1 \
    || { tail -30 "$W/node-configure.log"; return 1; }
  echo "DEVICES ALL configured (measured) in $(elapsed "$t") s:"
  cat "$W/node-configure.log"
  echo "-- the resource spec file:"
  cat "$W/node/_gpu_topology/ctest-resource-spec.json"; echo
  grep CTEST_RESOURCE_SPEC_FILE "$W/node/CMakeCache.txt"
  ctest --test-dir "$W/node" -L gpu -j 4 -V > "$W/node-ctest.log" 2>&1; echo "ctest -L gpu -j 4: rc=$?"
  grep -E "Test +#|tests passed|CTEST_RESOURCE_GROUP|device [0-9]|GPU [0-9]|Resource" "$W/node-ctest.log" | head -40
  gzip -c "$W/node-ctest.log" > "$RESULT/$CARD-node-ctest.log.gz"
}

for phase in "$@"; do
  echo "== $CARD: $phase ($(date -u +%H:%M:%S))"
  "phase_$phase" || echo "phase $phase FAILED"
done
