#!/usr/bin/env python3
"""Replays `examples/gemm --search --csv` files (bench/shared_tiling_check.sh's out/gemm-<card>.csv): per product,
the helper's pick (the row the program flagged chosen) and the short list rebuilt from the model's rate of each
configuration at the helper's carveout (the program's model_tflops, with the registers the compiler gave each kernel)
as sgemm_tuning_list builds it, against the best configuration timed (one-pass rates).

    bench/gemm_fit.py FILE.csv... [--shapes N] [--per-shape K] [--per-thread-tile J]

--shapes, --per-shape and --per-thread-tile try other lists (kSgemmShortlistShapes, kSgemmShortlistPerShape,
kSgemmShortlistShapesPerThreadTile; --per-thread-tile 4 is the list without the thread-tile share). Products
are split in two halves (even and odd in file order) and reported apart, so that a rule chosen on one half can be
checked on the other. Nothing here re-models the kernel: it ranks by the header's model as the program ran it.
"""
import csv
import sys
from collections import OrderedDict


def products(paths):
    out = OrderedDict()
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["kind"] != "config":
                continue
            p = out.setdefault((path, r["shape"]), dict(name=r["shape"], tiles=OrderedDict(), chosen=None, best=0.0))
            tile = tuple(int(r[k]) for k in ("block_m", "block_n", "block_k", "thread_m", "thread_n", "pad_a"))
            rate = float(r["tflops"])
            p["best"] = max(p["best"], rate)
            if tile not in p["tiles"]:  # the first row of a tile is at the helper's carveout (the program times it first)
                p["tiles"][tile] = dict(rate=rate, model=float(r["model_tflops"]))
            if r["chosen"] == "1":
                p["chosen"] = rate
    return list(out.values())


def tuning_list(p, shapes, per_shape, per_thread_tile):
    """sgemm_tuning_list: the model's best `shapes` block shapes (by their best configuration), at most
    `per_thread_tile` of one thread tile while another has shapes left, then each shape's best `per_shape`
    configurations."""
    ranked = sorted(p["tiles"].items(), key=lambda kv: -kv[1]["model"])  # stable: ties keep the space's order
    shape_of = lambda t: (t[0], t[1], t[3], t[4])
    taken = []
    while len(taken) < shapes:
        free = [t for t, _ in ranked if shape_of(t) not in taken]
        capped = [t for t in free if sum(s[2:] == t[3:5] for s in taken) < per_thread_tile]
        if not free:
            break
        taken.append(shape_of((capped or free)[0]))
    return [tile for s in taken for tile in [t for t, _ in ranked if shape_of(t) == s][:per_shape]]


def main(argv):
    shapes = int(argv[argv.index("--shapes") + 1]) if "--shapes" in argv else 4
    per_shape = int(argv[argv.index("--per-shape") + 1]) if "--per-shape" in argv else 2
    per_thread_tile = int(argv[argv.index("--per-thread-tile") + 1]) if "--per-thread-tile" in argv else 2
    paths = [a for a in argv if a.endswith(".csv")]
    if not paths:
        sys.exit(__doc__)
    every = products(paths)
    for label, group in (("every product", every), ("even half", every[0::2]), ("odd half", every[1::2])):
        chosen = [p["chosen"] / p["best"] for p in group if p["chosen"]]
        tuned = [max(p["tiles"][t]["rate"] for t in tuning_list(p, shapes, per_shape, per_thread_tile)) / p["best"] for p in group]
        print(f"{label}: {len(group)} products; pick worst {min(chosen):.3f}, {sum(v >= 0.9 for v in chosen)} at 0.90 "
              f"or better; list of {shapes}x{per_shape} worst {min(tuned):.3f}, {sum(v >= 0.97 for v in tuned)} at 0.97 "
              "or better")
        if label == "every product":
            for p, c, t in zip(group, chosen, tuned):
                print(f"  {p['name']:16} pick {c:.3f} list {t:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
