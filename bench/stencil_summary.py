#!/usr/bin/env python3
"""The stencil chooser on recorded searches: per grid, the chosen shape's GLup/s over the best
shape's and over the common default (32,32,1), or (32,T/32,1) for blocks of T threads; a table on
stdout and, with --svg FILE, a picture.

    bench/stencil_summary.py SEARCH.csv [SEARCH.csv...] [--svg FILE] [--title TEXT] [--tuned]

Each SEARCH.csv is what `examples/stencil3d --search --csv` writes: its `chosen` column marks the
shape the header of that run chose. Where its `confirmed_glups` column is filled (the chosen and the
fastest shapes timed again in turn, stencil3d's confirmation), the ratio and the picture use those
rates, and the one-pass ratio is printed beside them. --tuned reports the shape stencil3d's tuning
picked from the header's short list (its `tuned` column) in place of the chosen one. No plotting
library is needed (plain SVG).
"""
import csv
import sys
from collections import OrderedDict


def front_rows(path):
    """The rows of a search at one carveout: every row of a CSV from before stencil3d searched carveouts, else
    those of the front (every shape timed there), which must be one carveout (a kernel without shared memory);
    searches over several: bench/shared_tiling_summary.py."""
    rows = list(csv.DictReader(open(path)))
    if rows and "front" in rows[0]:
        rows = [r for r in rows if r["front"] == "1"]
        carveouts = {r["carveout"] for r in rows}
        if len(carveouts) > 1:
            sys.exit(f"{path}: a search over {len(carveouts)} carveouts: bench/shared_tiling_summary.py reads those")
    return rows


def load(path, card):
    grids = OrderedDict()
    for r in front_rows(path):
        g = grids.setdefault(r["grid"], {"card": card, "rates": {}, "confirmed": {}, "chosen": None, "tuned": None})
        shape = (int(r["x"]), int(r["y"]), int(r["z"]), int(r["fold_y"]), int(r["fold_z"]))
        g["rates"][shape] = float(r["glups"])
        if r.get("confirmed_glups"):
            g["confirmed"][shape] = float(r["confirmed_glups"])
        if r["chosen"] == "1":
            g["chosen"] = shape
        if r.get("tuned") == "1":
            g["tuned"] = shape
    return grids


def main(argv):
    svg, title, files, pick = None, None, [], "chosen"
    i = 0
    while i < len(argv):
        if argv[i] == "--tuned":
            pick = "tuned"; i += 1
        elif argv[i] == "--svg":
            svg = argv[i + 1]; i += 2
        elif argv[i] == "--title":
            title = argv[i + 1]; i += 2
        else:
            files.append(argv[i]); i += 1
    title = title or f"{pick} block shape / best of every shape searched"
    rows = []
    for path in files:
        card = "h100" if "h100" in path else "h200" if "h200" in path else path
        for grid, g in load(path, card).items():
            if pick == "tuned":
                if g["tuned"] is None:
                    sys.exit(f"{path}: {grid}: no tuned shape (a search from before stencil3d tuned its short list?)")
                g["chosen"] = g["tuned"]
            if g["chosen"] not in g["rates"]:  # stencil3d leaves out a shape whose result was wrong
                print(f"{path}: {grid}: the chosen shape has no rate (wrong result?), left out", file=sys.stderr)
                continue
            one_pass = g["rates"][g["chosen"]] / max(g["rates"].values())
            rates = g["confirmed"] if g["chosen"] in g["confirmed"] else g["rates"]
            best_shape = max(rates, key=rates.get)
            chosen = rates[g["chosen"]]
            threads = next(x * y * z for x, y, z, _, _ in g["rates"])  # every shape of a search has one block size
            default = g["rates"].get((32, threads // 32, 1, 1, 1))  # the common default: 32 wide, one deep
            vs_default = g["rates"][g["chosen"]] / default if default else float("nan")
            rows.append((card, grid, g["chosen"], chosen, best_shape, rates[best_shape], chosen / rates[best_shape],
                         vs_default, one_pass, rates is g["confirmed"]))
    print(f"| card | grid | {pick} | GLup/s | best | GLup/s | {pick} / best | one pass | {pick} / (32,T/32,1) |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|")
    for card, grid, c, cr, b, br, ratio, vs_default, one_pass, confirmed in rows:
        mark = "" if confirmed else " (one pass)"
        print(f"| {card} | {grid} | {c} | {cr:.1f} | {b} | {br:.1f} | {ratio:.3f}{mark} | {one_pass:.3f} | {vs_default:.2f} |")
    for card in sorted({r[0] for r in rows}):
        ratios = [r[6] for r in rows if r[0] == card]
        defaults = [r[7] for r in rows if r[0] == card]
        print(f"{card}: {len(ratios)} grids, {pick}/best min {min(ratios):.3f}, mean {sum(ratios) / len(ratios):.3f}, "
              f"{sum(r >= 0.95 for r in ratios)} at or above 0.95; {pick}/(32,T/32,1) min {min(defaults):.2f}")
    if svg:
        width, height, left, top, bottom = 900, 360, 60, 40, 90
        cards = sorted({r[0] for r in rows})
        grids = list(OrderedDict.fromkeys(r[1] for r in rows))
        lo = 0.85
        y = lambda v: top + (1.0 - (max(v, lo) - lo) / (1.0 - lo)) * (height - top - bottom)
        x = lambda k: left + (k + 0.5) * (width - left - 20) / len(grids)
        colors = {"h100": "#1f77b4", "h200": "#d62728"}
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
               f'<text x="{left}" y="20" font-size="13">{title}</text>']
        for v in (0.85, 0.90, 0.95, 1.0):
            dash = ' stroke-dasharray="4 3"' if v == 0.95 else ""
            stroke = "#999" if v == 0.95 else "#ddd"
            out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="{stroke}"{dash}/>')
            out.append(f'<text x="{left - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
        for k, grid in enumerate(grids):
            out.append(f'<text transform="translate({x(k):.1f},{height - bottom + 12}) rotate(45)">{grid}</text>')
            for j, card in enumerate(cards):
                for r in rows:
                    if r[0] == card and r[1] == grid:
                        out.append(f'<circle cx="{x(k) + (j - 0.5) * 8:.1f}" cy="{y(r[6]):.1f}" r="4" fill="{colors.get(card, "#333")}"/>')
        for j, card in enumerate(cards):
            out.append(f'<circle cx="{width - 160 + j * 70}" cy="16" r="4" fill="{colors.get(card, "#333")}"/>'
                       f'<text x="{width - 152 + j * 70}" y="20">{card.upper()}</text>')
        out.append("</svg>")
        open(svg, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
