#!/usr/bin/env python3
"""Grids for the stencil chooser that nobody picked: drawn by a seeded generator, printed as
`--grid X Y Z` arguments for `examples/stencil3d --search`.

    bench/stencil_grids.py SEED [COUNT] [--narrow]      (COUNT 12 by default)

A set is held out only if it was drawn after the model was last changed: pick a new seed then, and
write the seed down with the results (tests/data/stencil_searches.csv). The draw covers what tiling
kernels meet: 8 to 48 million points (a search of 168 shapes stays near a minute), x from 40 to
1200 points (narrower than one 64-wide tile up to many 128-wide ones), y : z from 1 : 6 to 6 : 1
(thin and thick), every size at least 24. x is moved to the nearest prime one time in three and to
an odd number one time in three, so few are multiples of a tile; y and z are even (stencil3d folds
two points a thread along them), and neither a power of two nor a multiple of 16 unless drawn so.
--narrow draws x from 33 to 79 only: grids narrower than 2.5 warps, where 16-wide tiles compete.
"""
import math
import random
import sys

from draw_sizes import log_uniform, nearest_prime, roughen


def draw(rng, x_range=(40, 1200)):
    points = log_uniform(rng, 8e6, 48e6)
    x = log_uniform(rng, *x_range)
    y_over_z = log_uniform(rng, 1 / 6, 6)
    z = math.sqrt(points / x / y_over_z)
    y = z * y_over_z
    even = lambda v: max(24, round(v / 2) * 2)
    # Rounding to a prime may step below the range (33 -> 31): the range's floor holds.
    return [max(x_range[0], roughen(round(x), rng)), even(y), even(z)]


def main(argv):
    narrow = "--narrow" in argv
    argv = [a for a in argv if a != "--narrow"]
    if not 1 <= len(argv) <= 2 or not all(a.isdigit() for a in argv):
        sys.exit("usage: bench/stencil_grids.py SEED [COUNT] [--narrow]   (SEED and COUNT whole numbers)")
    rng = random.Random(int(argv[0]))
    count = int(argv[1]) if len(argv) == 2 else 12
    x_range = (33, 79) if narrow else (40, 1200)
    print(" ".join(f"--grid {x} {y} {z}" for x, y, z in (draw(rng, x_range) for _ in range(count))))


if __name__ == "__main__":
    main(sys.argv[1:])
