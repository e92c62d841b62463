#!/usr/bin/env python3
"""Replays `examples/gemm --search --csv` files (bench/shared_tiling_check.sh's out/gemm-<card>.csv) through a
mirror of the helper's rate model (include/gpu_topology/gemm_model.hpp, sgemm_estimate_of): per product, the pick
(the model's fastest configuration of the space, no tile that spills) and the short list (sgemm_tuning_list: the
model's best 8, one per block tile and depth), each at the rate timed at the helper's carveout, against the best
configuration timed (one-pass rates). Registers and resident blocks are the CSV's (what the compiler gave each
kernel, at the helper's carveout).

    bench/gemm_fit.py FILE.csv... [--store-share S] [--capped-per-trip N | --capped-trips N] [--run-bytes B] [--larger]
                      [--fit] [--grid]

--store-share, --capped-per-trip and --run-bytes replay other values of the model's fitted constants
(kSgemmStoreShare, kSgemmCappedElementsPerTrip, kSgemmL2BytesPerRun; --run-bytes 0 replays the model without
runs, --capped-per-trip 0 gives a kernel at its register budget one trip a step); --capped-trips N gives such a
kernel N trips a step whatever it stages, the form before kSgemmCappedElementsPerTrip (--capped-trips 3
--run-bytes 192 replays the model of then); --larger takes a round's step as the larger of the SM's busy time and
one block's chain instead of their sum (with --capped-per-trip 0 --run-bytes 0, the model's first form); --fit
sweeps the store share on each file and reports the value each file picks and what that value gives on the other
files (fitted on one, held out on the others); --grid prints, for all files together, the picks at 0.90 or
better, the lists at 0.97 or better and the worst pick over the elements per capped trip and the bytes a run.
The machine is that of the stored profile of the card a file's name holds (h200, else h100:
generated/profiles/nvidia-<card>.json), read as this_gpu_gemm() reads the header rendered from it.
"""
import csv
import json
import math
import sys
from collections import OrderedDict



def profile_machine(card):
    """this_gpu_gemm() of the header rendered from generated/profiles/nvidia-<card>.json: its facts, an estimate's
    median rounded as the header renders it, and what sm_architecture_of() gives the compute capability."""
    p = json.load(open(f"generated/profiles/nvidia-{card}.json"))
    def fact(*path):
        q = p
        for key in path:
            q = q[key]
        value = q["value"] if isinstance(q, dict) and "value" in q else q
        if isinstance(value, dict):  # an estimate: the header holds its median, rounded
            value = value["p50"]
        return math.floor(value + 0.5)
    major, minor = fact("device", "cc_major"), fact("device", "cc_minor")
    half_rate = (major == 6 and minor == 0) or major == 7 or (major == 8 and minor == 0)
    return dict(sm_count=fact("device", "sm_count"), clock=fact("device", "sm_clock_max_khz") * 1e3,
                fma=64 if half_rate else 128, issue=4, shared_bw=fact("caches", "shared", "bandwidth_bytes_per_s"),
                l2_bw=fact("caches", "l2", "bandwidth_bytes_per_s"), dram_bw=fact("caches", "dram", "bandwidth_bytes_per_s"),
                l2_bytes=fact("caches", "l2", "size_bytes"), l2_lat=fact("caches", "l2", "far_latency_cycles"),
                regs=fact("sm", "registers"), banks=fact("caches", "shared", "banks"),
                bank_bytes=fact("caches", "shared", "bank_bytes"), warp=32)


MACHINES = {card: profile_machine(card) for card in ("h100", "h200")}
BARRIER, PER_ELEMENT, PER_STEP, BEYOND_TILE, SECTOR, STORE_SHARE, LIST = 24, 3, 8, 32, 32, 0.3, 8
CAPPED_PER_TRIP = 5
RUN_BYTES = 224


def cdiv(a, b):
    return (a + b - 1) // b


def wavefronts(nbytes, m, address):
    """detail::wavefronts: a warp-wide access, served a phase of lanes at a time, one distinct word per bank each."""
    lanes = m["warp"]
    phase = lanes // 4 if nbytes >= 16 else lanes // 2 if nbytes >= 8 else lanes
    words = max(1, nbytes // m["bank_bytes"])
    total = 0
    for first in range(0, lanes, phase):
        seen, ways = set(), {}
        for lane in range(first, min(first + phase, lanes)):
            for w in range(words):
                word = address(lane) // m["bank_bytes"] + w
                if word not in seen:
                    seen.add(word)
                    ways[word % m["banks"]] = ways.get(word % m["banks"], 0) + 1
        total += max(ways.values())
    return total


def budget(tile, m):
    """sgemm_register_budget: a thread's registers under the launch bounds."""
    bm, bn, _, tm, tn, _ = tile
    threads = (bm // tm) * (bn // tn)
    return min(255, m["regs"] // (max(1, 512 // threads) * threads) // 8 * 8)


def spills(tile, m):
    """sgemm_spills: registers wanted beyond the launch bounds' budget."""
    bm, bn, bk, tm, tn, _ = tile
    threads = (bm // tm) * (bn // tn)
    want = tm * tn + tm + tn + bk * (bm + bn) // threads + BEYOND_TILE
    return want > budget(tile, m)


def estimate(tile, e, m, resident, registers, store_share=STORE_SHARE, capped_per_trip=CAPPED_PER_TRIP, capped_trips=None,
             larger=False, run_bytes=RUN_BYTES):
    """sgemm_estimate_of (beta = 0), seconds."""
    bm, bn, bk, tm, tn, pad = tile
    M, N, K = e
    threads = (bm // tm) * (bn // tn)
    warps = cdiv(threads, m["warp"])
    clock, steps = m["clock"], cdiv(K, bk)
    elements = bk * (bm + bn)
    instructions = warps * (bk * tm * tn + bk * (cdiv(tm, 4) + cdiv(tn, 4)) + PER_ELEMENT * elements / threads + PER_STEP)
    fma_cycles = bm * bn * bk / m["fma"]
    across = bn // tn
    loads = cdiv(tm, 4) * wavefronts(16, m, lambda i: (i // across) * tm * 4) + \
        cdiv(tn, 4) * wavefronts(16, m, lambda i: (i % across) * tn * 4)
    stores = bk * bm / threads * wavefronts(4, m, lambda i: ((i % bk) * (bm + pad) + i // bk) * 4) + \
        bk * bn / threads * wavefronts(4, m, lambda i: i * 4)
    shared = warps * (bk * loads + stores) * m["banks"] * m["bank_bytes"] / (m["shared_bw"] / (m["sm_count"] * clock))
    l2 = (elements * 4 + (bm + bk) * run_bytes) / (m["l2_bw"] / m["sm_count"]) * clock
    busy = max(instructions / m["issue"], fma_cycles, shared, l2)
    capped = registers >= budget(tile, m)
    if capped and capped_trips is not None:
        trips = capped_trips
    elif capped and capped_per_trip > 0:
        trips = max(1.0, elements // threads / capped_per_trip)
    else:
        trips = 1.0
    chain = trips * m["l2_lat"] + 2 * BARRIER + max(instructions / min(warps, m["issue"]), fma_cycles)

    def round_seconds(r):
        return steps * (max(r * busy, chain) if larger else r * busy + chain) / clock + r * bm * bn * 4 / (m["l2_bw"] / m["sm_count"])

    per_sm = cdiv(cdiv(M, bm) * cdiv(N, bn), m["sm_count"])
    full, rest = divmod(per_sm, resident)
    sm_seconds = full * round_seconds(resident) + (round_seconds(rest) if rest else 0.0)
    b_bytes = K * N * 4
    b_reads = 1 if b_bytes <= 0.5 * m["l2_bytes"] else cdiv(M, bm)
    dram = ((M * K + M * N) * 4 + b_reads * b_bytes) / m["dram_bw"]
    lanes = min(across, m["warp"])
    sectors = ((lanes - 1) * tn * 4 // SECTOR + 1) / lanes
    return max(sm_seconds, dram) + M * N * sectors * SECTOR / (store_share * m["l2_bw"])


def products(path):
    """The products of one search CSV, each with the machine of the card its file name holds."""
    machine = MACHINES["h200" if "h200" in path.rsplit("/", 1)[-1] else "h100"]
    out = OrderedDict()
    for r in csv.DictReader(open(path)):
        if r["kind"] != "config":
            continue
        p = out.setdefault(r["shape"], dict(name=r["shape"], e=(int(r["m"]), int(r["n"]), int(r["k"])), tiles=OrderedDict(),
                                            best=0.0, machine=machine))
        tile = tuple(int(r[k]) for k in ("block_m", "block_n", "block_k", "thread_m", "thread_n", "pad_a"))
        p["best"] = max(p["best"], float(r["tflops"]))  # over every configuration timed, spilling ones too
        if tile not in p["tiles"]:  # the first row of a tile is at the helper's carveout (the program times it first)
            p["tiles"][tile] = dict(rate=float(r["tflops"]), resident=int(r["resident_blocks"]),
                                    registers=int(r["registers"]))
    return list(out.values())


def replay(p, constants):
    """(pick / best, list's best / best) for one product; `constants` the fitted ones (estimate's keywords)."""
    m = p["machine"]
    tiles = {t: v for t, v in p["tiles"].items() if not spills(t, m)}
    seconds = {t: estimate(t, p["e"], m, v["resident"], v["registers"], **constants) for t, v in tiles.items()}
    ranked = sorted(tiles, key=lambda t: (seconds[t], -t[5]))  # sgemm_ahead: ties to the padded one
    listed = []
    for t in ranked:
        if len(listed) < LIST and all(t[:5] != s[:5] for s in listed):
            listed.append(t)
    return tiles[ranked[0]]["rate"] / p["best"], max(tiles[t]["rate"] for t in listed) / p["best"]


def summary(group, constants):
    ratios = [replay(p, constants) for p in group]
    picks, lists = [r[0] for r in ratios], [r[1] for r in ratios]
    return (f"{len(group)} products; pick worst {min(picks):.3f}, {sum(v >= 0.9 for v in picks)} at 0.90 or better; "
            f"list worst {min(lists):.3f}, {sum(v >= 0.97 for v in lists)} at 0.97 or better"), ratios


def option(argv, name, default):
    return float(argv[argv.index(name) + 1]) if name in argv else default


def main(argv):
    constants = dict(store_share=option(argv, "--store-share", STORE_SHARE),
                     capped_per_trip=option(argv, "--capped-per-trip", CAPPED_PER_TRIP),
                     capped_trips=option(argv, "--capped-trips", None), larger="--larger" in argv,
                     run_bytes=option(argv, "--run-bytes", RUN_BYTES))
    paths = [a for a in argv if a.endswith(".csv")]
    if not paths:
        sys.exit(__doc__)
    files = {path: products(path) for path in paths}
    for path, group in files.items():
        text, ratios = summary(group, constants)
        print(f"{path} ({', '.join(f'{k} {v}' for k, v in constants.items() if v is not None)}): {text}")
        for p, (pick, listed) in zip(group, ratios):
            print(f"  {p['name']:16} pick {pick:.3f} list {listed:.3f}")
    if "--fit" in argv:
        grid = [0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0]
        for path, group in files.items():
            # The share that gives this file the most picks at 0.90, then the best worst pick (the first such).
            results = {s: summary(group, dict(constants, store_share=s))[1] for s in grid}
            score = {s: (sum(r[0] >= 0.9 for r in results[s]), min(r[0] for r in results[s])) for s in grid}
            fitted = max(grid, key=lambda s: score[s])
            print(f"fitted on {path}: store share {fitted}")
            for other, held in files.items():
                if other != path:
                    print(f"  held out {other}: {summary(held, dict(constants, store_share=fitted))[0]}")
    if "--grid" in argv:
        everything = [p for group in files.values() for p in group]
        runs = [192, 224, 256, 320]
        print(f"{len(everything)} products: picks at 0.90 or better / lists at 0.97 or better / worst pick, "
              f"per elements a capped trip (rows) and bytes a run (columns {runs})")
        for n in [0, 2, 3, 4, 5, 6, 8]:
            cells = []
            for run_bytes in runs:
                ratios = summary(everything, dict(constants, capped_per_trip=n, run_bytes=run_bytes))[1]
                picks, lists = [x[0] for x in ratios], [x[1] for x in ratios]
                cells.append(f"{sum(v >= 0.9 for v in picks)}/{sum(v >= 0.97 for v in lists)}/{min(picks):.2f}")
            print(f"  {n:>3}: " + "   ".join(f"{c:>14}" for c in cells))


if __name__ == "__main__":
    main(sys.argv[1:])
