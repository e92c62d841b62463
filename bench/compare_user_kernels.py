#!/usr/bin/env python3
"""The probe's facts against what plain kernels saw in the same run (bench/user_kernels.cu), issue 18.

    bench/compare_user_kernels.py PROFILE USER_KERNELS_DIR

L1 per kind of kernel, carveout and block size: every row of the profile's table against the
independent chase of the same launch (the probe's own kernel against a kernel with 4 B of static
shared memory, the plain kinds against the same declared bytes). L1 and shared-memory bandwidth
against the best plain kernel. The TLB's entries against the stride-and-count chase at 64 MiB.
Prints a report; exits 1 when a fact is off: an L1 row by more than 4 KiB, a bandwidth below 95 %
of the plain kernels', or another number of entries.
"""
import csv
import json
import sys
from collections import defaultdict

KIB = 1024


def main(profile_path, uk_dir):
    profile = json.load(open(profile_path))
    failures = []

    # --- L1 rows
    uk = {}
    for r in csv.DictReader(open(f"{uk_dir}/l1_kinds.csv")):
        if not r["table"].startswith("l1 per kind"):
            continue
        carveout = -1 if r["carveout"] == "driver" else int(r["carveout"])
        uk[(r["kind"], int(r["shared_bytes"]), carveout, int(r["threads"]))] = int(r["l1_kib"])
    rows = profile["caches"]["l1"]["carveouts"]
    worst, compared = 0, 0
    print("L1 per launch: probe row against the independent chase (KiB)")
    for row in rows:
        kind = row.get("kernel_shared", "static")
        shared = row.get("shared_bytes_per_block", 16)
        key = ("static", 4) if kind == "static" else (kind, shared)
        other = uk.get(key + (row["carveout_percent"], row["threads_per_block"]))
        if other is None or row.get("size_bytes") is None:
            continue
        mine = row["size_bytes"] / KIB
        compared += 1
        diff = mine - other
        worst = max(worst, abs(diff))
        flag = "" if abs(diff) <= 4 else "   <-- differs"
        if flag:
            failures.append(f"L1 {kind} {shared} B carveout {row['carveout_percent']} threads {row['threads_per_block']}: "
                            f"probe {mine:.0f} KiB, independent {other} KiB")
        print(f"  {kind:8s} {shared:6d} B  carveout {row['carveout_percent']:4d}  {row['threads_per_block']:5d} threads: "
              f"probe {mine:6.1f}  independent {other:4d}  ({diff:+.1f}){flag}")
    print(f"  {compared} rows compared, largest difference {worst:.1f} KiB")
    if compared == 0:
        failures.append("no L1 row could be compared")

    # --- bandwidths
    best = defaultdict(lambda: (0.0, ""))
    for r in csv.DictReader(open(f"{uk_dir}/bandwidth.csv")):
        rate = float(r["tb_per_s"])
        if rate > best[r["level"]][0]:
            best[r["level"]] = (rate, f"{r['threads']} threads x {r['blocks_per_sm']} blocks, {r['kib_per_block']} KiB, "
                                      f"unroll {r['unroll']}, {r['bytes_per_cycle_per_sm']} B/cycle/SM")
    print("bandwidth: probe against the best plain kernel")
    for level, name in (("l1", "l1"), ("shared", "shared")):
        estimate = profile["caches"][name]["bandwidth_bytes_per_s"]
        probe = estimate["value"] / 1e12
        plain, how = best[level]
        ratio = probe / plain if plain else 0
        per_cycle = estimate.get("bytes_per_cycle_per_sm", "?")
        print(f"  {level:6s} probe {probe:6.2f} TB/s ({per_cycle} B/cycle/SM)  plain {plain:6.2f} TB/s ({how})  "
              f"ratio {ratio:.3f}")
        if ratio < 0.95:
            failures.append(f"{level} bandwidth {probe:.2f} TB/s is {ratio:.3f} of the plain kernels' {plain:.2f}")

    # --- TLB
    counts = defaultdict(dict)
    for r in csv.DictReader(open(f"{uk_dir}/tlb.csv")):
        counts[(r["repeat"], int(r["stride_mib"]))][int(r["elements"])] = float(r["rise_max"])
    print("TLB: stride and count (independent): the longest ring whose first 4 elements did not slow by 6 cycles")
    independent = {}
    for (repeat, stride), rises in sorted(counts.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        fast = [n for n, rise in sorted(rises.items()) if rise <= 6]
        slow = [n for n, rise in sorted(rises.items()) if rise > 6]
        last_fast = max((n for n in fast if not slow or n < min(slow)), default=None)
        independent.setdefault(stride, []).append((last_fast, min(slow) if slow else None))
        print(f"  repeat {repeat}, {stride:3d} MiB: fast up to {last_fast}, first slow {min(slow) if slow else 'none'}")
    entries = profile.get("tlb", {}).get("entries", {}).get("value")
    wide = independent.get(64, [])
    if entries is not None and wide:
        brackets = [(f, s) for f, s in wide if f is not None and s is not None]
        agree = all(f <= entries < s for f, s in brackets)
        print(f"  probe: {entries} entries; independent brackets at 64 MiB: {brackets} -> {'agree' if agree else 'DIFFER'}")
        if not agree:
            failures.append(f"TLB entries {entries} outside the independent brackets {brackets}")
    print("\n" + ("every fact agrees with the plain kernels" if not failures else "FAILURES:\n  " + "\n  ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
