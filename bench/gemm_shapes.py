#!/usr/bin/env python3
"""Matrix products for the SGEMM helper that nobody picked: drawn by a seeded generator, printed as
`--shape M N K` arguments for `examples/gemm --search`.

    bench/gemm_shapes.py SEED [COUNT]      (COUNT 8 by default)

The kinds come in turn: square (1024 to 4096 a side), tall and skinny (M 8192 to 65536, N 32 to
256, K 512 to 4096), odd (each side odd, a third of them prime, 500 to 3000), and one side small
(M, N or K from 16 to 256, the others 1024 to 8192). A side is moved to an odd number or the nearest prime one time in
three, so few are multiples of a tile. Each product stays within 4e10 flops and each matrix within
4e8 elements (what examples/gemm accepts), shrinking its largest side that is not the small one.
A set is held out only if it was drawn after the helper was last changed: pick a new seed then.
"""
import random
import sys

from draw_sizes import log_uniform, nearest_prime, roughen

KINDS = ("square", "tall", "odd", "small")
MAX_FLOPS = 4e10
MAX_ELEMENTS = 4e8


def fits(m, n, k):
    return 2.0 * m * n * k <= MAX_FLOPS and max(m * k, k * n, m * n) <= MAX_ELEMENTS


def draw(rng, kind):
    small = None  # the side that stays as drawn
    if kind == "square":
        m = n = k = round(log_uniform(rng, 1024, 4096))
        m, n, k = roughen(m, rng), roughen(n, rng), roughen(k, rng)
    elif kind == "tall":
        m, n, k = round(log_uniform(rng, 8192, 65536)), round(log_uniform(rng, 32, 256)), round(log_uniform(rng, 512, 4096))
        m, k = roughen(m, rng), roughen(k, rng)
        small = 1
    elif kind == "odd":
        m, n, k = (round(log_uniform(rng, 500, 3000)) | 1 for _ in range(3))
        m = nearest_prime(m) if rng.random() < 1 / 3 else m
    else:
        sides = [round(log_uniform(rng, 1024, 8192)) for _ in range(3)]
        small = rng.randrange(3)
        sides[small] = round(log_uniform(rng, 16, 256))
        m, n, k = (roughen(s, rng) if i != small else s for i, s in enumerate(sides))
    sides = [m, n, k]
    while not fits(*sides):  # shrink the largest side that may move
        i = max((j for j in range(3) if j != small), key=lambda j: sides[j])
        sides[i] = max(16, int(sides[i] * 0.9)) | (sides[i] & 1)
    return sides


def main(argv):
    if not 1 <= len(argv) <= 2 or not all(a.isdigit() for a in argv):
        sys.exit("usage: bench/gemm_shapes.py SEED [COUNT]   (SEED and COUNT whole numbers)")
    rng = random.Random(int(argv[0]))
    count = int(argv[1]) if len(argv) == 2 else 8
    shapes = [draw(rng, KINDS[i % len(KINDS)]) for i in range(count)]
    print(" ".join(f"--shape {m} {n} {k}" for m, n, k in shapes))


if __name__ == "__main__":
    main(sys.argv[1:])
