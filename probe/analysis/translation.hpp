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
// their slice mix (up to 9 on the H100): a rise must clear a threshold.
#include "sweep.hpp"

#include <cstdint>
#include <functional>

namespace gpu_topology::analysis {

// Cycles the 10th percentile of `candidate` lies above that of `reference`.
double fast_loads_rise(const SweepPoint& reference, const SweepPoint& candidate);

struct CountSearch {
    bool found = false;
    std::uint32_t last_fast = 0;   // the longest ring whose fast loads did not slow
    std::uint32_t first_slow = 0;  // the shortest ring whose fast loads did
    double rise_cycles = 0;        // fast_loads_rise at first_slow
    Sweep trace;                   // every ring measured, in the order measured
};

// Doubling from `reference_elements`, then bisection to one element: the
// longest ring (at most `max_elements`) whose fast loads stay within
// `threshold_cycles` of the reference ring's. `measure(n)` chases a ring of n.
CountSearch longest_fast_ring(const std::function<SweepPoint(std::uint32_t)>& measure,
                              std::uint32_t reference_elements, std::uint32_t max_elements, double threshold_cycles);

}  // namespace gpu_topology::analysis
