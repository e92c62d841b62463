#!/usr/bin/env bash
# Hardware counters of examples/stencil3d for every block shape (issue 10: why do wide, shallow
# tiles beat the model's pick on the H100?). Builds the example against the stored profile of this
# card's model (no probe needed), then runs its search under Nsight Compute, one row per star25
# launch: time, L2 sectors read and written by L1, L1 sectors and hits, DRAM bytes, occupancy; then
# one row per grid and shape (bench/stencil_counters_table.py, table.csv). Packs its files into $OUT/counters.tgz.
#   bench/stencil_counters.sh <stored profile, e.g. nvidia-h100> [grid NX NY NZ]...
set -o pipefail
PROFILE=${1:?usage: bench/stencil_counters.sh <stored profile> [NX NY NZ]...}
shift
SIZES=""
while [ $# -ge 3 ]; do SIZES="$SIZES $1 $2 $3"; shift 3; done
[ -n "$SIZES" ] || SIZES="512 512 512 384 384 384"
GRIDS=$(echo $SIZES | xargs -n 3 printf -- '--grid %s %s %s ')
RESULT=${OUT:-/tmp/stencil-counters}
W=/tmp/counters
rm -rf $W && mkdir -p $W/out "$RESULT"
trap 'tar czf "$RESULT/counters.tgz" -C $W out' EXIT
cmake -S examples/stencil3d -B $W/build -G Ninja -DGPU_TOPOLOGY_SOURCE_DIR="$PWD" -DCMAKE_BUILD_TYPE=Release \
  -DGPU_TOPOLOGY_PROFILE="$PROFILE" > $W/out/configure.log 2>&1 && cmake --build $W/build > $W/out/build.log 2>&1 \
  || { tail -20 $W/out/*.log; exit 1; }
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "no ncu"; exit 1; }
"$NCU" --query-metrics --chip gh100 > $W/out/metrics-available.txt 2>&1
WANTED="gpu__time_duration.sum lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum dram__bytes_read.sum dram__bytes_write.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_lg.sum
sm__warps_active.avg.pct_of_peak_sustained_active l1tex__throughput.avg.pct_of_peak_sustained_active
lts__throughput.avg.pct_of_peak_sustained_elapsed dram__throughput.avg.pct_of_peak_sustained_elapsed"
METRICS=""
for m in $WANTED; do
  base=${m%.*}; base=${base%.avg}; base=${base%.sum}
  grep -q "^$base\b\|^${m%%.*}" $W/out/metrics-available.txt && METRICS="$METRICS,$m" || echo "not available: $m"
done
METRICS=${METRICS#,}
[ -n "$METRICS" ] || METRICS=$(echo $WANTED | tr ' ' ',')  # the query failed: ask for them all
echo "metrics: $METRICS"
start=$(date +%s)
# Base units (ns, byte, sector), not ones scaled to each value: the table's arithmetic assumes them.
"$NCU" --clock-control none --kernel-name star25 --metrics "$METRICS" --csv --page raw --print-units base \
  $W/build/stencil3d --search --repeats 1 --csv $W/out/search.csv $GRIDS > $W/out/counters.csv 2> $W/out/ncu.err
echo "ncu rc=$? in $(( $(date +%s) - start )) s, $(grep -c star25 $W/out/counters.csv) kernel rows"
tail -3 $W/out/ncu.err
# One row per grid and shape: per-update traffic, hit rates and each level's share of its peak.
python3 bench/stencil_counters_table.py $W/out/counters.csv $SIZES > $W/out/table.csv && head -3 $W/out/table.csv
