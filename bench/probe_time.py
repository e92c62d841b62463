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


def probe_runs(probe, out, label, count, extra):
    walls, stages, profiles, paths = [], {}, [], []
    for i in range(count):
        path = out / f"{label}{i + 1}.json"
        wall, _ = run([probe, "probe", "--output", path, "--quiet", *extra])
        profile = json.loads(path.read_text())
        walls.append(wall)
        profiles.append(profile)
        paths.append(path)
        for stage in profile["probe"]["stages"]:
            stages.setdefault(stage["name"], []).append(stage["seconds"])
        print(f"  {label} run {i + 1}: {wall:.2f} s wall, {profile['probe']['duration_s']} s measuring", flush=True)
    return {"wall_s": spread(walls), "stages": {k: spread(v) for k, v in stages.items()}, "profiles": profiles,
            "paths": paths}


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
        # The probe's own comparison (`compare`: model/agreement.hpp's tolerance per quantity, the one
        # the consumer's re-measure test uses): each fast run against the careful runs' range.
        lines += ["Each fast run against the careful pace's runs (`gpu-topology-probe compare`):", ""]
        disagreements = 0
        for path in full["paths"]:
            done = subprocess.run([probe, "compare", path, *careful["paths"]], capture_output=True, text=True)
            if done.returncode not in (0, 1):
                sys.exit(f"compare failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
            disagreements += done.returncode != 0
            lines += [f"- {path.name}: " + done.stdout.strip().replace("\n", "; ")]
        lines += ["", f"{disagreements} fast run(s) outside the careful pace's spread."]

    summary = "\n".join(lines) + "\n"
    (args.out / "summary.md").write_text(summary)
    (args.out / "summary.json").write_text(json.dumps(
        {"full": {k: v for k, v in full.items() if k not in ("profiles", "paths")},
         "quick": {k: v for k, v in quick.items() if k not in ("profiles", "paths")},
         "careful": careful and {k: v for k, v in careful.items() if k not in ("profiles", "paths")},
         "configures": {how: {"first_s": f, "cached_s": c} for how, (f, c) in configures.items()}}, indent=1))
    print(summary)


if __name__ == "__main__":
    main()
