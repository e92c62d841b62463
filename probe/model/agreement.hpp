#pragma once
// When two measurements of one quantity agree: `check` (a device against its
// profile), `compare` (a run against quiet references) and a node's verdict
// that its devices are alike all use this one rule.
#include "quantities.hpp"

#include <algorithm>

namespace gpu_topology::model {

// The tolerance within which a re-measured value agrees with the profile's:
// lines, fetch granularities, counts and flags exactly; latencies within 5%
// (at least 2 cycles); sizes within 4% but never less than two search steps
// (1 KiB in L1, 256 KiB in L2: runs differed by one step); bandwidths 15%.
inline double agreement_tolerance(const Quantity& q, double expected) {
    if (q.rule.power_of_two || q.unit == "instances" || q.unit == "bool") return 0;
    if (q.shape == Shape::latency || q.unit == "cycles") return std::max(0.05 * expected, 2.0);
    if (q.unit == "bytes/s") return 0.15 * expected;
    if (q.unit == "bytes") return std::max(0.04 * expected, q.object() == "l2" ? 512.0 * 1024 : 2048.0);
    return 0.05 * expected;
}

}  // namespace gpu_topology::model
