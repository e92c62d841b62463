#!/usr/bin/env bash
# The probe alone on this card, recorded (no test workflow, no timing): its profile, engine log and
# the replay check, packed into $OUT/card.tgz. bench/record_probe.sh <card name, e.g. h100>
CARD=$1
set -o pipefail
rm -rf /tmp/o /tmp/raw && mkdir -p /tmp/o
nvidia-smi --query-gpu=name,uuid,clocks.sm,driver_version,utilization.gpu --format=csv > /tmp/o/smi.txt
cmake -S probe -B /tmp/pb -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/o/build.log 2>&1 && cmake --build /tmp/pb -j 16 >> /tmp/o/build.log 2>&1 || { tail -20 /tmp/o/build.log; exit 1; }
P=/tmp/pb/gpu-topology-probe
$P probe --output /tmp/o/${CARD}_probe.json --record /tmp/o/${CARD}_probe.enginelog --raw /tmp/raw 2> /tmp/o/probe.err
echo "probe rc=$?"
grep -E "TLB|finished|busy" /tmp/o/probe.err
$P replay /tmp/o/${CARD}_probe.enginelog --output /tmp/o/replay.json --quiet; echo "replay rc=$?"
python3 - /tmp/o/${CARD}_probe.json /tmp/o/replay.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
d = []
def walk(x, y, path=""):
    if isinstance(x, dict):
        for k in x:
            if k not in ("duration_s", "stages", "seconds", "monitor"): walk(x[k], y.get(k) if isinstance(y, dict) else None, path + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x): walk(v, y[i] if isinstance(y, list) and i < len(y) else None, f"{path}[{i}]")
    elif x != y: d.append(f"{path}: {x} != {y}")
walk(a, b)
print("replay reproduces the live profile" if not d else "\n".join(["replay differs:"] + d[:20]))
PY
cat /tmp/o/smi.txt
tar czf $OUT/card.tgz -C /tmp o
