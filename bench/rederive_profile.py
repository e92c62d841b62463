#!/usr/bin/env python3
"""Re-derive a recorded GPU run's profile with the current analysis.

    bench/rederive_profile.py PROBE LIVE.json LOG.enginelog OUT.json

Replays LOG (the engine calls of the run that wrote LIVE.json) with PROBE and
writes the replayed profile to OUT.json, keeping from LIVE.json only what a
replay cannot know: the run's stage timings (`probe`) and what watched the GPU
(`conditions.monitor`). Written in the probe's own JSON layout. Use it when an
analysis change (not a measurement change: the replay would diverge) alters
what a recorded run yields; say so in the card's record (docs/records/probe.md). The run must have been
recorded without --quiet-reference (bench/record_card.sh records so): the
replay runs without one, and a different busy decision would take another path.
"""
import json
import math
import subprocess
import sys
import tempfile
from collections import OrderedDict


def number(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (math.isfinite(value) and value == math.floor(value) and abs(value) < 2**53):
        return str(int(value))
    return repr(value)


def dump(value, depth=0):
    """The layout of probe/profile/json.cpp: two-space indent, arrays of scalars on one line."""
    pad = "  "
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, (list, dict)) for v in value):
            return "[" + ", ".join(dump(v) for v in value) + "]"
        inner = ",".join("\n" + pad * (depth + 1) + dump(v, depth + 1) for v in value)
        return "[" + inner + "\n" + pad * depth + "]"
    if not value:
        return "{}"
    inner = ",".join("\n" + pad * (depth + 1) + json.dumps(k, ensure_ascii=False) + ": " + dump(v, depth + 1)
                     for k, v in value.items())
    return "{" + inner + "\n" + pad * depth + "}"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    probe, live_path, log, out = sys.argv[1:]
    live_text = open(live_path, encoding="utf-8").read()
    live = json.loads(live_text, object_pairs_hook=OrderedDict)
    if dump(live) + "\n" != live_text:
        sys.exit(f"{live_path}: not in the probe's layout; this script would rewrite more than it should")
    with tempfile.NamedTemporaryFile(suffix=".json") as replayed:
        subprocess.run([probe, "replay", log, "--output", replayed.name, "--quiet"], check=True)
        profile = json.load(open(replayed.name, encoding="utf-8"), object_pairs_hook=OrderedDict)
        picture = replayed.name[:-len(".json")] + ".svg"  # the probe draws one beside its output
        subprocess.run(["rm", "-f", picture], check=True)
    profile["probe"] = live["probe"]
    profile["conditions"]["monitor"] = live["conditions"]["monitor"]
    with open(out, "w", encoding="utf-8") as f:
        f.write(dump(profile) + "\n")


if __name__ == "__main__":
    main()
