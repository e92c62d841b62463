#!/usr/bin/env bash
# The probe built with a carveout per launch (this toolkit) and with a fresh chase-kernel instance per
# carveout (the path of toolkits before CUDA 12.6, forced in a copy of the tree): each run twice in
# turn on this GPU, their 99 L1 rows side by side, each profile compared with and checked against the
# stored one of this model (docs/l1-effective-capacity.md, "One function, any carveout").
#   OUT=<dir> bash bench/carveout_per_instance.sh        # from the repository root, on a GPU machine
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$card" in *H200*) stored=generated/profiles/nvidia-h200.json ;; *) stored=generated/profiles/nvidia-h100.json ;; esac
nvidia-smi --query-gpu=name,uuid --format=csv,noheader | tee "$OUT/card.txt"
rm -rf /tmp/src-instance && mkdir /tmp/src-instance && git ls-files -z | xargs -0 cp --parents -t /tmp/src-instance
sed -i 's/#if CUDART_VERSION >= 12060 \&\& !defined(GPU_TOPOLOGY_CARVEOUT_PER_INSTANCE)/#if 0/' /tmp/src-instance/probe/kernels/chase_program.hpp
grep -q "^#if 0" /tmp/src-instance/probe/kernels/chase_program.hpp || { echo "chase_program.hpp has no such condition" >&2; exit 1; }
for v in launch instance; do
  src=$PWD; [ $v = instance ] && src=/tmp/src-instance
  s=$(date +%s)
  cmake -S $src/probe -B /tmp/b-$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPU_TOPOLOGY_PROBE_CUDA=ON > "$OUT/conf-$v.log" 2>&1 && cmake --build /tmp/b-$v --target gpu-topology-probe > "$OUT/build-$v.log" 2>&1
  echo "$v: build rc $? in $(( $(date +%s) - s )) s" | tee -a "$OUT/card.txt"
done
for round in 1 2; do
  for v in launch instance; do
    s=$(date +%s%N); /tmp/b-$v/gpu-topology-probe probe --output "$OUT/p-$v-$round.json" > "$OUT/probe-$v-$round.log" 2>&1; rc=$?
    echo "$v probe $round: rc $rc $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a "$OUT/card.txt"
  done
done
for v in launch instance; do
  /tmp/b-launch/gpu-topology-probe compare "$OUT/p-$v-1.json" "$stored" 2>&1 | grep -E "OUTSIDE|vouched for and compared" | sed "s/^/$v vs stored: /" | tee -a "$OUT/card.txt"
  /tmp/b-$v/gpu-topology-probe check "$stored" > "$OUT/check-$v.txt" 2>&1; echo "$v check stored: rc $? $(grep -c '^FAIL' "$OUT/check-$v.txt") FAIL" | tee -a "$OUT/card.txt"
done
python3 - "$OUT" <<'PY' | tee -a "$OUT/card.txt"
import json, sys
out = sys.argv[1]
def rows(f):
    p = json.load(open(f))
    return {(r["kernel_shared"], r["shared_bytes_per_block"], r["carveout_percent"], r["threads_per_block"]): r for r in p["caches"]["l1"]["carveouts"]}
def cap(r):
    v = r["size_bytes"]
    return v.get("value", v) if isinstance(v, dict) else v
for a, b in (("launch-1", "launch-2"), ("instance-1", "instance-2"), ("launch-1", "instance-1"), ("launch-2", "instance-2")):
    ra, rb = rows(f"{out}/p-{a}.json"), rows(f"{out}/p-{b}.json")
    diffs = [(k, cap(ra[k]), cap(rb[k])) for k in ra if k in rb and cap(ra[k]) != cap(rb[k])]
    big = [d for d in diffs if d[1] and d[2] and abs(d[1] - d[2]) > 0.05 * max(d[1], d[2])]
    blocks = [k for k in ra if k in rb and ra[k]["resident_blocks"] != rb[k]["resident_blocks"]]
    print(f"{a} vs {b}: {len(ra)} / {len(rb)} rows, {len(diffs)} sizes differ, {len(big)} by more than 5 %: {big[:6]}; resident blocks differ on {len(blocks)}")
PY
