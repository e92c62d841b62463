#!/usr/bin/env bash
# A quick check of the probe on one GPU, in one device call from the repo root: builds the probe
# alone, probes twice with --record, replays the first log (must reproduce its profile), shows
# both profiles, and builds and runs examples/transpose. Results under $OUT.
set -o pipefail
B=/tmp/sb
nvidia-smi --query-gpu=name,uuid,clocks.sm,utilization.gpu --format=csv > $OUT/smi.txt
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_BUILD_TESTS=OFF -DGPU_TOPOLOGY_GENERATE=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/cfg.log 2>&1 || { tail -30 $OUT/cfg.log; exit 1; }
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A5 $OUT/build.log | head -40; exit 1; }
P=$B/probe/gpu-topology-probe
for i in 1 2; do s=$(date +%s.%N); $P probe --output $OUT/p$i.json --record $OUT/p$i.enginelog --raw /tmp/raw$i 2> $OUT/p$i.err; echo "probe $i rc=$? $(echo "$(date +%s.%N) - $s" | bc) s"; done
grep -E "bank|distributed|TLB|check" $OUT/p1.err
$P replay $OUT/p1.enginelog --output $OUT/r1.json --quiet; echo replay=$?
cmp <(python3 -c "import json,sys;d=json.load(open('$OUT/p1.json'));[d.pop(k,None) for k in ['probe','conditions']];print(json.dumps(d,sort_keys=True))") <(python3 -c "import json,sys;d=json.load(open('$OUT/r1.json'));[d.pop(k,None) for k in ['probe','conditions']];print(json.dumps(d,sort_keys=True))") && echo "replay identical"
$P show $OUT/p1.json > $OUT/show1.txt; $P show $OUT/p2.json > $OUT/show2.txt
cmake -S examples/transpose -B /tmp/tb -G Ninja -DGPU_TOPOLOGY_SOURCE_DIR=$PWD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/tcfg.log 2>&1 || tail -30 $OUT/tcfg.log
cmake --build /tmp/tb > $OUT/tbuild.log 2>&1 || grep error -A5 $OUT/tbuild.log | head -30
/tmp/tb/transpose --check; /tmp/tb/transpose; /tmp/tb/transpose
tar czf $OUT/raw.tgz -C /tmp raw1
