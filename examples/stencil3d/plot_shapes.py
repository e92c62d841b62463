#!/usr/bin/env python3
"""Throughput of every block shape from `stencil3d --search --csv FILE`, one panel per grid,
the shape chosen from gpu_topology.hpp marked.

    plot_shapes.py search.csv out.png [--title TEXT]
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FOLD_COLOURS = {"none": "tab:blue", "2y": "tab:orange", "2z": "tab:green"}


def fold_of(row):
    if row["fold_y"] == "2":
        return "2y"
    if row["fold_z"] == "2":
        return "2z"
    return "none"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", default="25-point star stencil, double: GLup/s per block shape")
    args = parser.parse_args()

    grids = defaultdict(list)
    with open(args.csv) as f:
        for row in csv.DictReader(f):
            grids[row["grid"]].append(row)

    fig, axes = plt.subplots(len(grids), 1, figsize=(14, 4.2 * len(grids)), squeeze=False)
    for ax, (grid, rows) in zip(axes[:, 0], grids.items()):
        rows.sort(key=lambda r: float(r["glups"]), reverse=True)
        xs = range(len(rows))
        ax.bar(xs, [float(r["glups"]) for r in rows], color=[FOLD_COLOURS[fold_of(r)] for r in rows], width=0.85)
        best = float(rows[0]["glups"])
        ax.axhline(0.95 * best, color="grey", linestyle=":", linewidth=1)
        ax.text(len(rows) - 1, 0.95 * best, "95% of best", ha="right", va="bottom", fontsize=8, color="grey")
        for i, r in enumerate(rows):
            if r["chosen"] == "1":
                ax.annotate(f"chosen ({r['x']},{r['y']},{r['z']}) {fold_of(r)}\n{float(r['glups']):.0f} GLup/s, "
                            f"{float(r['glups']) / best:.1%} of best",
                            xy=(i, float(r["glups"])), xytext=(max(i, 8), best * 1.08),
                            arrowprops={"arrowstyle": "->", "color": "black"}, fontsize=9)
        ax.set_xticks(list(xs))
        # A search of a kernel with shared memory times launches at several carveouts: each bar names its own.
        at = lambda r: "" if "carveout" not in r else " @driver" if r["carveout"] == "-1" else f" @{r['carveout']}%"
        ax.set_xticklabels([f"{r['x']},{r['y']},{r['z']}{at(r)}" for r in rows], rotation=90, fontsize=6)
        ax.set_ylabel("GLup/s")
        ax.set_ylim(0, best * 1.3)
        ax.set_title(f"grid {grid}", fontsize=10)
        ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=c) for c in FOLD_COLOURS.values()],
                  labels=[f"fold {k}" for k in FOLD_COLOURS], loc="upper right", fontsize=8)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
