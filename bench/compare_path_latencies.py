#!/usr/bin/env python3
"""The probe's latencies against the whole-chain timing of plain kernels in the same run
(bench/path_latencies.cu).

    gpu-topology-probe docs --list > quantities.txt
    bench/compare_path_latencies.py PROFILE LATENCY_CSV quantities.txt

Per row: the probe's median (its per-load timing, the timer's overhead subtracted) against the
median cycles per load of the chain, and whether they agree by the rule a card's own runs are
held to (model/agreement.hpp, as `docs --list` gives it: 5 %, at least 2 cycles for a latency).
Exits 1 when one does not.
"""
import csv
import json
import sys


def main(profile_path, csv_path, quantities_path):
    profile = json.load(open(profile_path))
    paths, rules = {}, {}
    for line in open(quantities_path):
        fields = line.split()
        if len(fields) != 7:
            sys.exit(f"{quantities_path}: not a line of `gpu-topology-probe docs --list` (NAME path object member "
                     f"shape relative at_least): {line.rstrip()!r}")
        paths[fields[0]] = fields[1].split(".")
        rules[fields[0]] = (float(fields[5]), float(fields[6]))
    failures = 0
    print(f"{'quantity':34} {'probe':>8} {'chain':>8} {'least':>7} {'most':>7} {'diff':>7}  verdict")
    for row in csv.DictReader(open(csv_path)):
        name = row["quantity"]
        if name == "-":  # a row no quantity answers, shown for what it is
            print(f"{'(' + row['what'] + ')':34} {'':>8} {float(row['median']):8.1f}")
            continue
        if name not in paths:
            print(f"{name:34} not a quantity of this probe")
            failures += 1
            continue
        value = profile
        for key in paths[name]:
            value = value.get(key) if isinstance(value, dict) else None
        probe = value.get("p50") if isinstance(value, dict) else None
        chain = float(row["median"])
        if probe is None:
            print(f"{name:34} {'-':>8} {chain:8.1f}  the profile has no measured value")
            continue
        relative, at_least = rules[name]
        tolerance = max(relative * probe, at_least)
        agrees = abs(chain - probe) <= tolerance
        failures += not agrees
        print(f"{name:34} {probe:8.1f} {chain:8.1f} {float(row['least']):7.1f} {float(row['most']):7.1f} "
              f"{chain - probe:+7.1f}  {'agrees' if agrees else 'DIFFERS'} (tolerance {tolerance:.1f})")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
