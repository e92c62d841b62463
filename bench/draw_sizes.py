"""What bench/stencil_grids.py and bench/gemm_shapes.py draw sizes with: log-uniform sizes, moved to
an odd number or the nearest prime one time in three each, so that few are multiples of a tile."""
import math


def is_prime(n):
    return n > 1 and all(n % d for d in range(2, math.isqrt(n) + 1))


def nearest_prime(n):
    for step in range(n):
        for candidate in (n - step, n + step):
            if is_prime(candidate):
                return candidate
    return n


def roughen(n, rng):
    kind = rng.random()
    if kind < 1 / 3:
        return nearest_prime(n)
    if kind < 2 / 3:
        return n | 1
    return n


def log_uniform(rng, low, high):
    return math.exp(rng.uniform(math.log(low), math.log(high)))
