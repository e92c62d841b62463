#!/usr/bin/env python3
"""How long the measuring probe takes to build, as a consumer's first configure builds it.

Configures <source>/probe as a project of its own (Ninja, Release, CUDA, the architectures given)
and builds gpu-topology-probe from scratch, --runs times per variant, variants interleaved so that
a machine that drifts affects each alike. Reports per variant: configure and build wall seconds
(min / median / max), the compile CPU seconds (the sum of the Ninja log's steps) and its longest
step. A variant is LABEL=SOURCE_DIR, optionally followed by extra configure arguments after '::', split
as a shell would (e.g. 'o2=/src::-DGPU_TOPOLOGY_UNITY_BATCH=2 "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"').

    bench/build_time.py --out DIR [--runs 3] [--jobs N] [--arch 90-real] VARIANT...
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(cmd, log):
    start = time.monotonic()
    with open(log, "w") as out:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({done.returncode}); see {log}")
    return time.monotonic() - start


def ninja_steps(build_dir):
    """(output, seconds) of every step of the last build in build_dir's .ninja_log. A step of several
    outputs (nvcc's objects are named relative and absolute) has a line per output, with the same
    times and command hash: it counts once."""
    steps, seen = [], set()
    for line in (build_dir / ".ninja_log").read_text().splitlines()[1:]:
        start, end, _, output, command_hash = line.split("\t")
        if (start, end, command_hash) not in seen:
            seen.add((start, end, command_hash))
            steps.append((output, (int(end) - int(start)) / 1000))
    return steps


def spread(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--arch", default="native")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    variants = []
    for spec in args.variants:
        label, _, rest = spec.partition("=")
        source, _, extra = rest.partition("::")
        variants.append((label, Path(source).resolve() / "probe", shlex.split(extra)))

    results = {label: {"configure": [], "build": [], "cpu": [], "longest": []} for label, _, _ in variants}
    for run in range(args.runs):
        for label, probe_dir, extra in variants:
            build = args.out / f"build-{label}"
            shutil.rmtree(build, ignore_errors=True)
            configure = timed(["cmake", "-S", probe_dir, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                               "-DGPU_TOPOLOGY_PROBE_CUDA=ON", f"-DCMAKE_CUDA_ARCHITECTURES={args.arch}", *extra],
                              args.out / f"{label}-configure.log")
            built = timed(["cmake", "--build", build, "--target", "gpu-topology-probe", "--parallel", str(args.jobs)],
                          args.out / f"{label}-build.log")
            steps = ninja_steps(build)
            longest = max(steps, key=lambda s: s[1])
            r = results[label]
            r["configure"].append(configure)
            r["build"].append(built)
            r["cpu"].append(sum(s for _, s in steps))
            r["longest"].append(longest)
            print(f"run {run + 1} {label}: configure {configure:.2f} s, build {built:.2f} s, "
                  f"compile steps {r['cpu'][-1]:.1f} s, longest {longest[1]:.2f} s ({longest[0]})", flush=True)

    summary = {}
    print(f"\n{args.runs} runs, {args.jobs} jobs, architectures {args.arch}: min / median / max seconds")
    for label, r in results.items():
        summary[label] = {k: spread(r[k]) for k in ("configure", "build", "cpu")}
        c, b, s = (summary[label][k] for k in ("configure", "build", "cpu"))
        print(f"{label:>12}: configure {c['min']:.2f} / {c['median']:.2f} / {c['max']:.2f}, "
              f"build {b['min']:.2f} / {b['median']:.2f} / {b['max']:.2f}, "
              f"compile CPU {s['min']:.1f} / {s['median']:.1f} / {s['max']:.1f}")
    (args.out / "build_time.json").write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
