#!/usr/bin/env python3
"""Appends recorded stencil searches to tests/data/stencil_searches.csv, which
`StencilChooser.RecordedSearches` replays on the CPU.

    bench/stencil_to_test_data.py CARD RUN SET SEARCH.csv [--data FILE]

SEARCH.csv is what `examples/stencil3d --search --csv` writes; CARD is h100 or h200, RUN names the
run (e.g. 2026-11-23-run48), SET is fit or held_out (held out: drawn by bench/stencil_grids.py after
the model's last change, never fitted on). One line per grid with every shape's one-pass GLup/s in
the data file's shape order; where the search confirmed shapes (its confirmed_glups column), a
`confirmed` line after it holds those rates and leaves the other shapes empty.
"""
import math
import sys
from collections import OrderedDict

from stencil_summary import front_rows


def main(argv):
    data = "tests/data/stencil_searches.csv"
    if "--data" in argv:
        i = argv.index("--data")
        data = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 4 or argv[2] not in ("fit", "held_out"):
        sys.exit(__doc__)
    card, run, kind, search = argv
    if card not in ("h100", "h200"):  # the test replays each card on its stored profile
        sys.exit(f"card {card!r}: h100 or h200 (the stored profiles StencilChooser.RecordedSearches replays)")
    shapes, recorded = None, set()
    for line in open(data):
        if line.startswith("shapes,"):
            shapes = line.rstrip("\n").split(",")[4:]
        elif not line.startswith(("#", "confirmed,")) and line.strip():
            recorded.add(tuple(line.split(",")[:2]))
    if not shapes:
        sys.exit(f"{data}: no shapes line")
    if (card, run) in recorded:
        sys.exit(f"{data}: {card} {run} is recorded already")
    grids = OrderedDict()
    for r in front_rows(search):
        key = "_".join(r[k] for k in ("x", "y", "z", "fold_y", "fold_z"))
        g = grids.setdefault(r["grid"], ({}, {}))
        g[0][key] = r["glups"]
        if r.get("confirmed_glups"):
            g[1][key] = r["confirmed_glups"]
    lines = []
    # A search of another block size (stencil3d --threads) times other shapes: its own shapes line,
    # which holds for the lines after it.
    # A search of the same block size must have every shape of the shapes line (stencil3d leaves out a
    # shape that computed wrong results: that search is refused below, not recorded with fewer shapes).
    threads = lambda key: math.prod(int(v) for v in key.split("_")[:3])
    searched = list(OrderedDict.fromkeys(key for rates, _ in grids.values() for key in rates))
    if searched and threads(searched[0]) != threads(shapes[0]):
        shapes = searched
        lines.append(",".join(["shapes", "", "", ""] + shapes))
    for grid, (rates, confirmed) in grids.items():
        missing = [s for s in shapes if s not in rates]
        if missing:
            sys.exit(f"{search}: grid {grid} lacks {len(missing)} shapes, e.g. {missing[0]}")
        lines.append(",".join([card, run, kind, grid] + [rates[s] for s in shapes]))
        if confirmed:
            lines.append(",".join(["confirmed", card, run, grid] + [confirmed.get(s, "") for s in shapes]))
    with open(data, "a") as out:
        out.write("\n".join(lines) + "\n")
    print(f"{data}: {len(grids)} grids of {card} {run} ({kind}) appended")


if __name__ == "__main__":
    main(sys.argv[1:])
