#!/usr/bin/env python3
"""The stencil model of include/gpu_topology/stencil_model.hpp, in Python, to try its parameters on
every recorded search before one is changed in the header (which StencilChooser.RecordedSearches
then checks: that test, on the header itself, is the authority; this is a mirror for exploring).

    bench/stencil_fit.py [--sweep] [--shortlist] [--shared DIR]

Reads tests/data/stencil_searches.csv and the stored profiles' facts, and prints chosen / best
(confirmed where the search confirmed its shapes) per set and card: worst, mean, and how many are
below 0.95; then the same with each search's worst pick when one measured bandwidth moves by 3 %
(a pick that flips with such noise is not a pick). --sweep also tries kStencilZHaloRowShare,
kStencilLayerRampOfL2, kStencilIdleThreadShare and kStencilL2BytesPerRun around their values (the
plateaus they were chosen on). --shortlist also reports star_stencil_shortlist():
the fastest shape of the list (one-pass rates, as every shape has one) against the best, for 2 to 5
tiles.
--shared DIR replays the launch chooser (carveout and block, choose_star_stencil_launch, and its short list)
on the searches of bench/shared_tiling_check.sh (DIR/stencil-<card>-s<S>-t<T>.csv): one-pass rates of the chosen
launch and of the list's fastest over the best timed launch, per shared size and block size, and
kStencilL1Overcommit, kStencilZHaloDropPerLoad and kStencilIdleRisePerLoad each swept on half the grids
and reported on the other half.
Held-out grids are for checking only: a parameter picked because it suits them makes them fitted.
"""
import json
import re
import sys
from collections import defaultdict

# The header's parameters, read from it (kStencil* in include/gpu_topology/stencil_model.hpp), so that
# this mirror cannot drift from the model it mirrors.
PARAMETERS = dict(kStencilL2BytesPerRun="l2_bytes_per_run", kStencilDramBytesPerRun="dram_bytes_per_run",
                  kStencilLayerShareOfL2="layer_share", kStencilLayerRampOfL2="layer_ramp",
                  kStencilLevelOverlapNorm="norm", kStencilZHaloRowShare="z_halo_row_share",
                  kStencilIdleThreadShare="idle_thread_share", kStencilShortlistTiles="shortlist_tiles",
                  kStencilLatencyShare="latency_share", kStencilL1Overcommit="l1_overcommit",
                  kStencilShortlistOccupancies="shortlist_occupancies", kStencilZHaloDropPerLoad="z_halo_drop",
                  kStencilIdleRisePerLoad="idle_rise", kStencilShareLoadLimit="share_load_limit")


def header_parameters(path="include/gpu_topology/stencil_model.hpp"):
    # Every kStencil* constant, whatever its type or value: one this mirror does not know, or a value
    # that is not a plain number, stops it rather than being left out.
    found = dict(re.findall(r"inline constexpr \S+ (kStencil\w+) = ([^;]+);", open(path).read()))
    missing = set(PARAMETERS) - set(found)
    unknown = set(found) - set(PARAMETERS)
    if missing or unknown:
        sys.exit(f"{path}: the model's parameters changed (missing {sorted(missing)}, new {sorted(unknown)}): "
                 "update bench/stencil_fit.py with it")
    try:
        return {PARAMETERS[name]: float(value) for name, value in found.items()}
    except ValueError as error:
        sys.exit(f"{path}: a kStencil* value that is not a plain number ({error}): update bench/stencil_fit.py")


HEADER = header_parameters()
# Measured facts move by a few % from run to run: the robust worst case takes each search's worst
# pick over these changes to one bandwidth.
PERTURBATIONS = [{}] + [{k: v} for k in ("l1bw", "l2bw", "drambw") for v in (0.97, 1.03)]
RADIUS, VALUE_BYTES, WARP = 4, 8, 32


def machine(path):
    p = json.load(open(path))
    c = p["caches"]
    v = lambda q: q["value"] if isinstance(q, dict) else q
    return dict(l1=v(c["l1"]["size_bytes"]), l1bw=v(c["l1"]["bandwidth_bytes_per_s"]), line=v(c["l1"]["line_bytes"]),
                sector=v(c["l1"]["sector_bytes"]), l2=v(c["l2"]["size_bytes"]), l2bw=v(c["l2"]["bandwidth_bytes_per_s"]),
                drambw=v(c["dram"]["bandwidth_bytes_per_s"]), sms=v(p["device"]["sm_count"]), tps=v(p["sm"]["max_threads"]))


def up(n, unit):
    return n if unit == 0 else (n + unit - 1) // unit * unit


def axis_parts(n, tile):
    """The tiles along an axis of n points: (extent, count) of the whole ones and of the partial one."""
    whole, rest = divmod(n, tile)
    return [(extent, count) for extent, count in ((tile, whole), (rest, 1)) if extent and count]


def seconds_per_update(b, g, m, P):
    """star_stencil_traffic(...).seconds_per_update. m["resident"]: the threads per SM of this launch (at_option),
    else every block size at its full occupancy (the searches without shared memory)."""
    x, y, z, fy, fz = b
    r, s = RADIUS, VALUE_BYTES
    tx, ty, tz = x, y * fy, z * fz
    cells = tx * ty * tz
    core_row = lambda wide: 2 * up(r * s, m["sector"]) + up(wide * s, m["sector"])
    per_sm = m.get("resident", m["tps"]) // (x * y * z)
    resident = per_sm * x * y * z
    load = m["tps"] / resident - 1 if 0 < resident < m["tps"] else 0.0  # the latency load
    share_load = min(load, P["share_load_limit"])
    z_halo_share = min(1.0, max(0.0, P["z_halo_row_share"] - P["z_halo_drop"] * share_load))
    idle_share = min(1.0, max(0.0, P["idle_thread_share"] + P["idle_rise"] * share_load))
    loaded = ty * tz * core_row(tx) + 2 * r * (ty + tz) * up(tx * s, m["sector"])
    footprint, l1_room = per_sm * loaded, P["l1_overcommit"] * m["l1"]
    lost_share = 1 - l1_room / footprint if footprint > l1_room else 0.0
    in_flight = 2 * m["sms"] * (per_sm or 1) * 2 * cells * s
    row_x, row_y, row_z = up(g[0], tx), up(g[1], ty), up(g[2], tz)
    room = P["layer_share"] * m["l2"]
    reloaded = lambda between: min(1.0, max(0.0, (between - room) / (P["layer_ramp"] * m["l2"])))
    reloaded_y = reloaded(row_x * tz * (2 * ty + 2 * r) * s + in_flight)
    reloaded_z = reloaded(row_x * row_y * (2 * tz + 2 * r) * s + in_flight)
    fold = max(fy, fz)
    loads = 6 * r + 1 if fold <= 1 else (4 * r * fold + fold + 2 * r) / fold
    spanned = lambda lanes, unit: (lanes * s + unit - s) / unit
    lines_per_sector = spanned(WARP, m["line"]) / spanned(WARP, m["sector"])
    row_lines = lambda wide: lines_per_sector * (spanned(wide, m["sector"]) if tx < WARP else
                                                 wide // WARP * spanned(WARP, m["sector"]) +
                                                 (spanned(wide % WARP, m["sector"]) if wide % WARP else 0))
    run_bytes = P["l2_bytes_per_run"]
    l1 = l2 = dram = reused = 0.0
    for wx, nx in axis_parts(g[0], tx):
        run, face_row = core_row(wx), up(wx * s, m["sector"])
        for wy, ny in axis_parts(g[1], ty):
            for wz, nz in axis_parts(g[2], tz):
                tiles, points = nx * ny * nz, wx * wy * wz
                l2_loads = wy * wz * run + 2 * r * face_row * (wz + z_halo_share * wy)
                l2_tile = l2_loads + points * s
                dram_tile = 2 * points * s + reloaded_y * 2 * r * wx * wz * s + reloaded_z * 2 * r * wx * wy * s
                l1 += tiles * (loads + 1) * wy * wz * row_lines(wx) * m["line"]
                reused += tiles * max(0.0, loads * wy * wz * row_lines(wx) / lines_per_sector * m["sector"] - l2_loads)
                l2 += tiles * l2_tile * (1 + run_bytes / run)
                dram += tiles * dram_tile * (1 + P["dram_bytes_per_run"] / run)
    points = g[0] * g[1] * g[2]
    l2 += lost_share * reused  # the reuse an overrun L1 loses
    l1, l2, dram = l1 / points / m["l1bw"], l2 / points / m["l2bw"], dram / points / m["drambw"]
    n = P["norm"]
    idle = 1 + idle_share * (row_x * row_y * row_z / points - 1)
    occupancy = 1 + P["latency_share"] * load
    return idle * (l1 ** n + l2 ** n + dram ** n) ** (1 / n) * occupancy


def candidates(g, m, P, threads):
    """detail::for_each_stencil_block with candidate_of: (block, rows of whole lines, time) in the chooser's order,
    x largest first, then y."""
    out = []
    x = threads
    while x >= 1:
        y = threads // x
        while y >= 1:
            z = threads // (x * y)
            if x * y * z == threads and z <= 64:
                for fy, fz in ((1, 1), (2, 1), (1, 2)):
                    t = seconds_per_update((x, y, z, fy, fz), g, m, P)
                    out.append(((x, y, z, fy, fz), int(x * VALUE_BYTES >= m["line"]), t))
            y //= 2
        x //= 2
    return out


def tile_of(b):
    return b[0], b[1] * b[3], b[2] * b[4]


def shortlist(g, m, P, threads=1024, tiles=None):
    """star_stencil_shortlist: the chooser's tile, then the next best tiles (every block of each), then the default."""
    tiles = int(P["shortlist_tiles"]) if tiles is None else tiles
    ranked = candidates(g, m, P, threads)
    listed = []
    def add_tile_of(first):  # first, then the other block of its tile
        for b in [first] + [c for c, _, _ in ranked if tile_of(c) == tile_of(first)]:
            if b not in listed:
                listed.append(b)
    add_tile_of(choose(g, m, P, threads))
    for _ in range(1, tiles):
        rest = [(-rank, t, b) for b, rank, t in ranked if b not in listed]  # the best whose tile is not listed
        if not rest:
            break
        add_tile_of(min(rest, key=lambda c: c[:2])[2])
    default_x = min(32, threads)
    default = (default_x, threads // default_x, 1, 1, 1)
    return listed + ([default] if default_x and threads % default_x == 0 and default not in listed else [])


def choose(g, m, P, threads=1024):
    """choose_star_stencil_block: rows of whole lines (16 doubles or more) first, then time; of one tile and time,
    the fold along y when an xy plane fits L1, else along z."""
    plane_fits_l1 = (g[0] + 2 * RADIUS) * (g[1] + 2 * RADIUS) * VALUE_BYTES <= m["l1"]
    best = None
    for b, rank, t in candidates(g, m, P, threads):
        tile, fy, fz = tile_of(b), b[3], b[4]
        tie_won = best is not None and rank == best[1] and t == best[2] and tile == best[3] and (
            fy > 1 if plane_fits_l1 else fz > 1)
        if best is None or rank > best[1] or (rank == best[1] and (t < best[2] or tie_won)):
            best = (b, rank, t, tile)
    return best[0]


def searches(path="tests/data/stencil_searches.csv"):
    shapes, out = None, []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        c = line.rstrip("\n").split(",")
        if c[0] == "shapes":
            shapes = [tuple(map(int, k.split("_"))) for k in c[4:]]
            continue
        rates = {s: float(v) for s, v in zip(shapes, c[4:]) if v}
        if c[0] == "confirmed":
            last = out[-1] if out else None
            if not last or (last["card"], last["run"], "x".join(map(str, last["grid"]))) != tuple(c[1:4]):
                sys.exit(f"{path}: a confirmed line for {','.join(c[1:4])} does not follow its search")
            last["confirmed"] = rates
            continue
        x, y, z = shapes[0][:3]  # every shape of a search has the block size it was searched at
        out.append(dict(card=c[0], run=c[1], set=c[2], grid=tuple(map(int, c[3].split("x"))), rates=rates, confirmed={},
                        threads=x * y * z))
    return out


def evaluate(all_searches, machines, P, perturbations=({},)):
    """chosen / best per (set, card); with perturbations, each search's worst over them."""
    ratios = defaultdict(list)
    for s in all_searches:
        worst = 1.0
        for change in perturbations:
            m = dict(machines[s["card"]])
            for fact, factor in change.items():
                m[fact] *= factor
            chosen = choose(s["grid"], m, P, s["threads"])
            rates = s["confirmed"] if chosen in s["confirmed"] else s["rates"]
            worst = min(worst, rates[chosen] / max(rates.values()))
        ratios[(s["set"], s["card"])].append(worst)
    return ratios


def report(ratios):
    for (kind, card), r in sorted(ratios.items()):
        print(f"  {kind:8} {card}: {len(r):3} grids, worst {min(r):.3f}, mean {sum(r) / len(r):.4f}, "
              f"{sum(v < 0.95 for v in r)} below 0.95")


# ---- Kernels with shared memory of their own: the launch chooser (carveout and block) --------------------------
def at_option(m, option, threads):
    """at_option(): the machine at one carveout option (carveout, resident blocks, L1 bytes)."""
    return dict(m, l1=option[2], resident=option[1] * threads)


def launch_ranked(g, m, P, threads, option):
    """detail::best_at: the block chooser's block at an option, and its time."""
    at = at_option(m, option, threads)
    b = choose(g, at, P, threads)
    return (option, b), seconds_per_update(b, g, at, P)


def launch_key(option, t):
    """detail::launch_ranks_ahead: less time; alike, more L1, then the driver's default, then the smaller carveout."""
    return t, -option[2], option[0] >= 0, option[0]


def choose_launch(g, m, P, threads, options):
    """choose_star_stencil_launch: each option's chooser block, the options weighed by their blocks' times."""
    return min((launch_ranked(g, m, P, threads, o) for o in options), key=lambda c: launch_key(c[0][0], c[1]))[0]


def launch_shortlist(g, m, P, threads, options):
    """star_stencil_launch_shortlist: the chosen option's short list, the best launch of each of the next
    other occupancies, then the default launch."""
    chosen = choose_launch(g, m, P, threads, options)
    listed = [(chosen[0], b) for b in shortlist(g, at_option(m, chosen[0], threads), P, threads)]
    taken = [chosen[0][1]]
    for _ in range(1, int(P["shortlist_occupancies"])):
        rest = [launch_ranked(g, m, P, threads, o) for o in options if o[1] not in taken]
        if not rest:
            break
        nxt = min(rest, key=lambda c: launch_key(c[0][0], c[1]))[0]
        taken.append(nxt[0][1])
        listed.append(nxt)
    driver = next(o for o in options if o[0] < 0)
    default = (driver, (32, threads // 32, 1, 1, 1))
    return listed + ([default] if default not in listed else [])


def shared_searches(paths):
    """The grids of `stencil3d --search --shared-bytes S` CSVs (bench/shared_tiling_check.sh's out/): per grid the
    options (carveout, resident blocks, L1 bytes) it timed and each launch's one-pass rate (GLup/s)."""
    import csv as csvlib
    out = {}
    for path in paths:
        for row in csvlib.DictReader(open(path)):
            key = (path, row["grid"])
            if key not in out:
                out[key] = dict(path=path, kind=f"S={int(row['shared_bytes']) // 1024}K T={row['threads']}",
                                grid=tuple(map(int, row["grid"].split("x"))), threads=int(row["threads"]),
                                options=[], rates={}, default=None)
            s = out[key]
            option = (int(row["carveout"]), int(row["resident_blocks"]), int(row["l1_bytes"]))
            if option not in s["options"]:
                s["options"].append(option)
            block = tuple(int(row[k]) for k in ("x", "y", "z", "fold_y", "fold_z"))
            s["rates"][(option, block)] = float(row["glups"])
            if row["default_launch"] == "1":
                s["default"] = (option, block)
    return list(out.values())


def replay_shared(searches, m, P, card="h100"):
    """Per kind: the chosen launch's and the tuned list's one-pass rate over the best timed launch, and the chosen
    over the default launch. A launch the search did not time is counted as missing, not guessed."""
    ratios = defaultdict(lambda: dict(chosen=[], tuned=[], vs_default=[], missing=0, listed=[]))
    for s in searches:
        best = max(s["rates"].values())
        r = ratios[s["kind"]]
        chosen = choose_launch(s["grid"], m, P, s["threads"], s["options"])
        listed = launch_shortlist(s["grid"], m, P, s["threads"], s["options"])
        r["listed"].append(len(listed))
        if chosen not in s["rates"]:
            r["missing"] += 1
            continue
        r["chosen"].append(s["rates"][chosen] / best)
        r["tuned"].append(max(s["rates"].get(l, 0) for l in listed) / best)
        if s["default"]:
            r["vs_default"].append(s["rates"][chosen] / s["rates"][s["default"]])
    return ratios


def report_shared(ratios, label):
    everything = [v for r in ratios.values() for v in r["chosen"]]
    print(f"{label}: chosen worst {min(everything):.3f}, {sum(v < 0.95 for v in everything)} of {len(everything)} "
          f"below 0.95")
    for kind, r in sorted(ratios.items()):
        c, t, d = r["chosen"], r["tuned"], r["vs_default"]
        print(f"  {kind:13} {len(c)} grids: chosen worst {min(c):.3f} mean {sum(c) / len(c):.3f}; tuned worst "
              f"{min(t):.3f} ({min(r['listed'])}-{max(r['listed'])} launches); chosen/default worst {min(d):.3f}"
              + (f"; {r['missing']} picks not timed" if r["missing"] else ""))


def shared_report(directory, machines):
    """--shared DIR: the launch chooser on the searches of bench/shared_tiling_check.sh (DIR/stencil-<card>-s*-t*.csv):
    the header's parameters on every grid, then kStencilL1Overcommit and the low-occupancy shares swept on half the
    grids of each kind (the even ones in order) and reported on the other half, so that a gain on the fitted half
    that the held-out half does not share shows as overfitting."""
    import glob
    import os
    if not directory:
        sys.exit("bench/stencil_fit.py: --shared needs the directory of the check's CSVs")
    for card in sorted(machines):
        paths = sorted(glob.glob(os.path.join(directory, f"stencil-{card}-s*-t*.csv")))
        if not paths:
            continue
        every = shared_searches(paths)
        report_shared(replay_shared(every, machines[card], HEADER), f"{card}, the header's parameters, every grid")
        by_kind = defaultdict(list)
        for s in every:
            by_kind[s["kind"]].append(s)
        fitted = [s for group in by_kind.values() for s in group[0::2]]
        held_out = [s for group in by_kind.values() for s in group[1::2]]
        swept = [("kStencilL1Overcommit", "l1_overcommit", v) for v in (1.5, 2, 2.5, 2.75, 3, 3.5, 4, 4.5, 5, 6)]
        swept += [("kStencilZHaloDropPerLoad", "z_halo_drop", v) for v in (0, 0.05, 0.1, 0.15, 0.2)]
        swept += [("kStencilIdleRisePerLoad", "idle_rise", v) for v in (0, 0.05, 0.1, 0.15, 0.2)]
        swept += [("kStencilShareLoadLimit", "share_load_limit", v) for v in (1, 2, 3, 7)]
        for name, key, value in swept:
            P = dict(HEADER, **{key: value})
            line = []
            for label, grids in (("fitted", fitted), ("held out", held_out)):
                r = replay_shared(grids, machines[card], P)
                chosen = [v for k in r.values() for v in k["chosen"]]
                tuned = [v for k in r.values() for v in k["tuned"]]
                line.append(f"{label} chosen worst {min(chosen):.3f} mean {sum(chosen) / len(chosen):.3f} "
                            f"({sum(v < 0.95 for v in chosen)} below 0.95), tuned worst {min(tuned):.3f}")
            print(f"  {name} {value}: " + "; ".join(line))
        print(f"  {card}, the header's parameters, held-out half alone:")
        report_shared(replay_shared(held_out, machines[card], HEADER), f"  {card} held out")


def main(argv):
    machines = {c: machine(f"generated/profiles/nvidia-{c}.json") for c in ("h100", "h200")}
    recorded = searches()
    print("the header's parameters, the stored profiles' facts:")
    report(evaluate(recorded, machines, HEADER))
    print("the same, each search's worst pick with one bandwidth 3 % lower or higher:")
    report(evaluate(recorded, machines, HEADER, PERTURBATIONS))
    if "--shortlist" in argv:
        for tiles in (2, 3, 4, 5):
            ratios, sizes = defaultdict(list), []
            for s in recorded:
                listed = shortlist(s["grid"], machines[s["card"]], HEADER, s["threads"], tiles)
                sizes.append(len(listed))
                ratios[(s["set"], s["card"])].append(max(s["rates"].get(b, 0) for b in listed) / max(s["rates"].values()))
            print(f"star_stencil_shortlist, {tiles} tiles ({min(sizes)}-{max(sizes)} shapes): the fastest of the list")
            report(ratios)
    if "--shared" in argv:
        shared_report(argv[argv.index("--shared") + 1] if argv.index("--shared") + 1 < len(argv) else None, machines)
    if "--sweep" in argv:
        fitted = [s for s in recorded if s["set"] == "fit"]
        for name, values in (("z_halo_row_share", (0.5, 0.625, 0.75, 0.875, 1.0)),
                             ("layer_ramp", (0.1, 0.15, 0.2, 0.25, 0.3)),
                             ("idle_thread_share", (0, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0)),
                             ("l2_bytes_per_run", (128, 160, 192, 224, 256))):
            for value in values:
                r = [v for vs in evaluate(fitted, machines, dict(HEADER, **{name: value}), PERTURBATIONS).values()
                     for v in vs]
                print(f"{name} {value}: fitted grids, bandwidths moved 3 %: worst {min(r):.3f}, "
                      f"mean {sum(r) / len(r):.4f}, {sum(v < 0.95 for v in r)} below 0.95")


if __name__ == "__main__":
    main(sys.argv[1:])
