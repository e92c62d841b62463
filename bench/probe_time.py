#!/usr/bin/env python3
"""How long the probe takes, and whether the fast path still measures what the careful one does.

Reports, on the GPU of this machine:
  * the full and the quick probe: wall time and each stage's time, median (min..max) of --runs runs;
  * the careful pace (every warm pass chased, every pass timed whole: the probe before the fast
    path) for comparison, and its results beside the fast path's;
  * the first configure of examples/minimal in a fresh build tree, building the probe included,
    and a cached reconfigure of the same tree;
  * with --installed PREFIX (an installed GPUTopology): the same against the installed package,
    whose prebuilt probe measures (nothing is compiled but the consumer's own compiler checks).

    bench/probe_time.py [--runs 5] [--careful-runs 1] [--out DIR] [--probe PATH] [--installed PREFIX]

Needs a CUDA toolkit, CMake and Ninja; builds the probe into build/bench unless --probe is given.
Writes every profile and a summary (summary.md, summary.json) into --out (default build/bench/out).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Quantities compared between the paces: (profile path, field, relative, absolute tolerance); two
# values agree within max(relative * value, absolute), the spread seen between runs of one pace
# (docs/measurements/2026-11-22-h200*.md) and the cross-checks' rule for sizes.
KiB = 1024
COMPARED = [
    ("caches.l1.size_bytes", "value", 0.02, 2 * KiB),
    ("caches.l1.bandwidth_bytes_per_s", "value", 0.05, 0),
    ("caches.shared.bandwidth_bytes_per_s", "value", 0.05, 0),
    ("caches.l2.bandwidth_bytes_per_s", "value", 0.08, 0),
    ("caches.dram.bandwidth_bytes_per_s", "value", 0.05, 0),
    ("caches.l1.size_bytes_default_carveout", "value", 0.02, 2 * KiB),
    ("caches.l1.size_bytes_max_shared_carveout", "value", 0.02, 2 * KiB),
    ("caches.l1.line_bytes", "value", 0, 0),
    ("caches.l1.sector_bytes", "value", 0, 0),
    ("caches.l1.latency_cycles", "p50", 0.05, 2),
    ("caches.l1.miss_penalty_cycles", "value", 0.05, 2),
    ("caches.texture.size_bytes", "value", 0.02, 2 * KiB),
    ("caches.readonly.size_bytes", "value", 0.02, 2 * KiB),
    ("caches.readonly.line_bytes", "value", 0, 0),
    ("caches.constant_l1.size_bytes", "value", 0.05, 64),
    ("caches.constant_l1.latency_cycles", "p50", 0.05, 2),
    ("caches.constant_l15.latency_cycles", "p50", 0.05, 2),
    ("caches.shared.latency_cycles", "p50", 0.05, 2),
    ("caches.l2.near_size_bytes", "value", 0.03, 512 * KiB),
    ("caches.l2.line_bytes", "value", 0, 0),
    ("caches.l2.dram_fetch_bytes", "value", 0, 0),
    ("caches.l2.near_latency_cycles", "p50", 0.05, 2),
    ("caches.l2.far_latency_cycles", "p50", 0.05, 2),
    ("caches.dram.latency_cycles", "p50", 0.05, 2),
    ("sharing.l1_texture", "value", 0, 0),
    ("sharing.l1_readonly", "value", 0, 0),
    ("sharing.l1_constant_l1", "value", 0, 0),
]


def run(cmd, **kw):
    """Runs cmd; returns (wall seconds, completed process). Stops the benchmark on failure."""
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    wall = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return wall, done


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def fmt(s, digits=2):
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}..{s['max']:.{digits}f})"


def get(profile, path, field):
    node = profile
    for key in path.split("."):
        node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            return None
    return node.get(field) if isinstance(node, dict) and node.get("source") != "unmeasured" else None


def probe_runs(probe, out, label, count, extra):
    walls, stages, profiles = [], {}, []
    for i in range(count):
        path = out / f"{label}{i + 1}.json"
        wall, _ = run([probe, "probe", "--output", path, "--quiet", *extra])
        profile = json.loads(path.read_text())
        walls.append(wall)
        profiles.append(profile)
        for stage in profile["probe"]["stages"]:
            stages.setdefault(stage["name"], []).append(stage["seconds"])
        print(f"  {label} run {i + 1}: {wall:.2f} s wall, {profile['probe']['duration_s']} s measuring", flush=True)
    return {"wall_s": spread(walls), "stages": {k: spread(v) for k, v in stages.items()}, "profiles": profiles}


def configure_times(out, label, extra):
    """First configure of examples/minimal (probe build, if any, and probe included), then a cached one."""
    tree = out / f"minimal-{label}"
    shutil.rmtree(tree, ignore_errors=True)
    cmd = ["cmake", "-S", ROOT / "examples/minimal", "-B", tree, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", *extra]
    first, done = run(cmd)
    (out / f"configure-{label}-first.log").write_text(done.stdout + done.stderr)
    cached, done = run(cmd)
    (out / f"configure-{label}-cached.log").write_text(done.stdout + done.stderr)
    if "this build tree's measurement" not in done.stdout:
        sys.exit("the second configure did not reuse the cached profile:\n" + done.stdout)
    return first, cached


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--careful-runs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "build/bench/out")
    parser.add_argument("--probe", type=Path)
    parser.add_argument("--installed", type=Path, help="prefix of an installed GPUTopology")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    probe = args.probe
    if probe is None:
        build = ROOT / "build/bench"
        run(["cmake", "-S", ROOT / "probe", "-B", build / "probe", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
        run(["cmake", "--build", build / "probe", "--target", "gpu-topology-probe"])
        probe = build / "probe/gpu-topology-probe"

    print("probe, full level", flush=True)
    full = probe_runs(probe, args.out, "full", args.runs, [])
    print("probe, quick level", flush=True)
    quick = probe_runs(probe, args.out, "quick", args.runs, ["--level", "quick"])
    careful = None
    if args.careful_runs > 0:
        print("probe, full level, careful pace", flush=True)
        careful = probe_runs(probe, args.out, "careful", args.careful_runs, ["--careful"])
    print("examples/minimal: first and cached configure", flush=True)
    configures = {"source tree (nested probe build)": configure_times(args.out, "source", [f"-DGPU_TOPOLOGY_SOURCE_DIR={ROOT}"])}
    if args.installed:
        configures["installed package (prebuilt probe)"] = configure_times(
            args.out, "installed", [f"-DCMAKE_PREFIX_PATH={args.installed}"])

    device = full["profiles"][0]["device"]
    lines = [f"# Probe time on {device['name']} ({device['uuid']})", "",
             f"Median (min..max) of {args.runs} runs; seconds.", "",
             "| stage | full | quick |" + (" careful |" if careful else ""),
             "|---|---:|---:|" + ("---:|" if careful else "")]
    for name in full["stages"]:
        row = f"| {name} | {fmt(full['stages'][name], 3)} | "
        row += (fmt(quick["stages"][name], 3) if name in quick["stages"] else "skipped") + " |"
        if careful:
            row += f" {fmt(careful['stages'][name], 3)} |" if name in careful["stages"] else " |"
        lines.append(row)
    lines.append(f"| **wall (process)** | **{fmt(full['wall_s'])}** | **{fmt(quick['wall_s'])}** |" +
                 (f" **{fmt(careful['wall_s'])}** |" if careful else ""))
    lines += [""]
    for how, (first, cached) in configures.items():
        lines += [f"examples/minimal against the {how}: first configure {first:.2f} s, cached reconfigure {cached:.2f} s"]
    lines += [""]

    if careful:
        lines += ["Fast against careful pace (median of the runs of each; tolerance = repeatability):", "",
                  "| quantity | fast | careful | agrees |", "|---|---:|---:|:-:|"]
        disagreements = 0
        for path, field, relative, absolute in COMPARED:
            fast_values = [v for v in (get(p, path, field) for p in full["profiles"]) if v is not None]
            careful_values = [v for v in (get(p, path, field) for p in careful["profiles"]) if v is not None]
            if not fast_values or not careful_values:
                lines.append(f"| {path} | {fast_values or 'unmeasured'} | {careful_values or 'unmeasured'} | - |")
                continue
            f, c = statistics.median(fast_values), statistics.median(careful_values)
            ok = abs(f - c) <= max(relative * abs(c), absolute)
            disagreements += not ok
            lines.append(f"| {path}.{field} | {f:g} | {c:g} | {'yes' if ok else 'NO'} |")
        lines += ["", f"{disagreements} disagreement(s)."]

    summary = "\n".join(lines) + "\n"
    (args.out / "summary.md").write_text(summary)
    (args.out / "summary.json").write_text(json.dumps(
        {"full": {k: v for k, v in full.items() if k != "profiles"},
         "quick": {k: v for k, v in quick.items() if k != "profiles"},
         "careful": careful and {k: v for k, v in careful.items() if k != "profiles"},
         "configures": {how: {"first_s": f, "cached_s": c} for how, (f, c) in configures.items()}}, indent=1))
    print(summary)


if __name__ == "__main__":
    main()
