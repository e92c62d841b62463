#pragma once
// Address translation (TLB) from chases whose elements lie a large stride
// apart, independent of the GPU. Each element of such a ring sits in some L2
// slice, near or far from the SM that chases (about 263 or 300 cycles on the
// H200, and which SM runs the chase changes from launch to launch), so medians
// and whole distributions of rings of different lengths differ with or without
// translation misses. The fastest loads differ less: a translation miss on
// every load raises the 10th percentile by its penalty (about 11 cycles on the
// H200), while a ring whose neighbours share an entry misses on only some loads
// and leaves it where it was. Short rings still move it by a few cycles with
// their slice mix (up to 9 on the H100): a rise must clear a threshold. The
// probe's stage avoids that: it compares the first elements of rings of
// growing length with those elements alone, each element with itself.
#include "sweep.hpp"

#include <cstdint>
#include <functional>

namespace gpu_topology::analysis {

// How many cycles `candidate` is slower than `reference`.
using Rise = std::function<double(const SweepPoint& reference, const SweepPoint& candidate)>;
// The 10th percentile's rise: the fast loads (rings of different lengths).
double fast_loads_rise(const SweepPoint& reference, const SweepPoint& candidate);
// For the same elements timed again and again (their loads in ring order,
// `positions` a pass): the largest rise
// of one position's median. One element's miss shows, whichever L2 slice it
// lies in, where a percentile of all loads waits for a slow slice's.
Rise positionwise_rise(std::uint32_t positions);
// The mean over the positions of each one's median rise: a miss penalty when
// every position misses. Its standard error comes from the spread of each
// position's loads: where L2 latencies vary load by load (not only slice by
// slice), 32 passes leave the mean several cycles off.
struct MeanRise {
    double cycles = 0;
    double standard_error = 0;
};
MeanRise mean_positionwise_rise(const SweepPoint& reference, const SweepPoint& candidate, std::uint32_t positions);

struct CountSearch {
    bool found = false;
    std::uint32_t last_fast = 0;   // the longest ring whose fast loads did not slow
    std::uint32_t first_slow = 0;  // the shortest ring whose fast loads did
    double rise_cycles = 0;        // the rise at first_slow
    Sweep trace;                   // every ring measured, in the order measured
};

// Doubling from `reference_elements`, then bisection to one element: the
// longest ring (at most `max_elements`) whose `rise` over the reference ring
// stays within `threshold_cycles`. `measure(n)` chases a ring of n (or
// disturbs a victim with one).
CountSearch longest_fast_ring(const std::function<SweepPoint(std::uint32_t)>& measure,
                              std::uint32_t reference_elements, std::uint32_t max_elements, double threshold_cycles,
                              const Rise& rise = fast_loads_rise);

}  // namespace gpu_topology::analysis
