#!/usr/bin/env bash
# How long the README's test command (`cmake --workflow --preset ci`, what .ci/run runs) takes
# from a fresh clone, per commit, commits interleaved so that a machine that drifts affects each
# alike. The workflow's three steps run one by one, each timed: configure, build, test. Prints
# per run the configure, build and test wall seconds, the whole command, the build's CPU seconds
# (the sum of the steps of every .ninja_log in the build tree once the build step is done: the
# project's and the probe builds its configure nests) and `uptime`'s load average, and keeps
# per run the ninja log and CTest's per-test times under OUT/<label>-<run>/.
#
#   bench/ci_time.sh [--runs N] [--out DIR] [--keep] LABEL=COMMIT...
#
# A COMMIT is anything `git rev-parse` takes in this repository. No compiler launcher is used
# (CCACHE_* and CMAKE_*_COMPILER_LAUNCHER are cleared): every file compiles as on a fresh
# CI runner. Clones are removed after their run unless --keep.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=1
OUT=/tmp/ci_time
KEEP=false
variants=()
while [ $# -gt 0 ]; do
  case $1 in
  --runs) RUNS=$2; shift ;;
  --out) OUT=$2; shift ;;
  --keep) KEEP=true ;;
  -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
  -*) echo "ci_time.sh: unknown option $1" >&2; exit 2 ;;
  *=*) variants+=("$1") ;;
  *) echo "ci_time.sh: '$1' is not LABEL=COMMIT" >&2; exit 2 ;;
  esac
  shift
done
[ ${#variants[@]} -gt 0 ] || { echo "ci_time.sh: name at least one LABEL=COMMIT (--help)" >&2; exit 2; }
unset CCACHE_DIR CCACHE_BASEDIR CMAKE_CXX_COMPILER_LAUNCHER CMAKE_CUDA_COMPILER_LAUNCHER CMAKE_C_COMPILER_LAUNCHER
mkdir -p "$OUT"

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
load() { uptime | sed 's/.*load average: //; s/,//g'; }

# The sum of every ninja step's duration, each output counted once (its last build), and a step of
# several outputs once (Ninja logs a line per output, with the same times and command hash).
ninja_cpu() {
  find "$1" -name .ninja_log -print0 | xargs -0 -r awk -F'\t' '
    FNR == 1 { next }
    { step[FILENAME SUBSEP $4] = $1 SUBSEP $2 SUBSEP $5 }
    END { for (s in step) { split(s, where, SUBSEP); edge[where[1] SUBSEP step[s]] = 1 }
          for (e in edge) { split(e, f, SUBSEP); total += (f[3] - f[2]) / 1000 }
          printf "%.1f", total }'
}

printf '%-10s %3s %9s %7s %7s %7s %9s  %s\n' label run configure build test total build-cpu "load (1 5 15 min) before build / test"
for run in $(seq 1 "$RUNS"); do
  for variant in "${variants[@]}"; do
    label=${variant%%=*}
    commit=$(git -C "$ROOT" rev-parse --verify "${variant#*=}^{commit}")
    dir=$OUT/$label-$run
    src=$OUT/src-$label-$run
    rm -rf "$dir" "$src"
    mkdir -p "$dir"
    git clone --quiet --no-checkout "$ROOT" "$src"
    git -C "$src" checkout --quiet "$commit"
    echo "$commit" >"$dir/commit"
    (
      cd "$src"
      t0=$(now)
      cmake --preset ci >"$dir/configure.log" 2>&1
      t1=$(now)
      load_build=$(load)
      cmake --build --preset ci >"$dir/build.log" 2>&1
      t2=$(now)
      cpu=$(ninja_cpu build/ci)
      load_test=$(load)
      status=passed
      ctest --preset ci >"$dir/test.log" 2>&1 || status=FAILED
      t3=$(now)
      cp build/ci/.ninja_log "$dir/ninja_log"
      cp build/ci/Testing/Temporary/CTestCostData.txt "$dir/" 2>/dev/null || true
      printf '%-10s %3s %9s %7s %7s %7s %9s  %s / %s  tests %s\n' "$label" "$run" "$(seconds "$t0" "$t1")" \
        "$(seconds "$t1" "$t2")" "$(seconds "$t2" "$t3")" "$(seconds "$t0" "$t3")" "$cpu" "$load_build" \
        "$load_test" "$status"
    ) | tee -a "$OUT/results.txt"
    $KEEP || rm -rf "$src"
  done
done
