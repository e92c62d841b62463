#!/usr/bin/env python3
"""How long a whole node takes against one device (issue: all devices in about one probe).

Alternates, --runs times each: `probe --device 0` and `probe --all-devices`, wall time of the
process (context creation included). Reports median (min..max) of both, their ratio, the node
probe's own split (slowest device, links) and every link's values from the last node profile.

    bench/node_time.py --probe PATH [--runs 5] [--out DIR]

Writes the profiles and summary.json / summary.md into --out (default build/bench/node).
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(command):
    start = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return time.monotonic() - start, done.returncode, done.stderr


def spread(values):
    return f"{statistics.median(values):.2f} s ({min(values):.2f}..{max(values):.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probe", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("build/bench/node"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    single, node, failures = [], [], []
    for run in range(args.runs):
        for kind, extra, times in (("single", ["--device", "0"], single), ("node", ["--all-devices"], node)):
            output = args.out / f"{kind}{run}.json"
            seconds, rc, err = timed([str(args.probe), "probe", *extra, "--output", str(output), "--quiet"])
            print(f"{kind} run {run}: rc={rc} {seconds:.2f} s", flush=True)
            if rc != 0:
                failures.append(f"{kind} run {run} exited {rc}: {err.strip()[-400:]}")
            times.append(seconds)
    last = json.loads((args.out / f"node{args.runs - 1}.json").read_text())
    ratio = statistics.median(node) / statistics.median(single)
    summary = {
        "single_device_s": single, "all_devices_s": node, "ratio_of_medians": round(ratio, 3),
        "devices": len(last["devices"]), "probe": last["probe"], "failures": failures,
        "links": [{k: v for k, v in link.items()} for link in last["links"]],
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    lines = [f"# node probe against one device, {args.runs} runs each",
             f"- one device (`probe --device 0`): {spread(single)}",
             f"- all {len(last['devices'])} devices (`probe --all-devices`): {spread(node)}",
             f"- ratio of medians: {ratio:.3f}",
             f"- last node run: slowest device {last['probe']['slowest_device_s']} s, links {last['probe']['links_s']} s",
             "", "| from | to | transport | nominal GB/s | CE read | CE write | SM read | SM write | load ns | load cycles |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for link in last["links"]:
        route = link["route"]
        def cell(key, scale=1e9):
            v = link[key]
            if v["value"] is None:
                return "—"
            s = v["spread"]
            return f"{v['value'] / scale:.1f} ({s['min'] / scale:.1f}..{s['max'] / scale:.1f})"
        nominal = route["nominal_bytes_per_s"]
        lines.append(f"| {link['from']} | {link['to']} | {route['transport']} x{route['nvlinks']} | "
                     f"{'—' if nominal is None else f'{nominal / 1e9:.1f}'} | {cell('ce_read_bytes_per_s')} | "
                     f"{cell('ce_write_bytes_per_s')} | {cell('sm_read_bytes_per_s')} | {cell('sm_write_bytes_per_s')} | "
                     f"{cell('load_latency_ns', 1)} | {cell('load_latency_cycles', 1)} |")
    lines += [f"- FAILED: {f}" for f in failures]
    (args.out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
