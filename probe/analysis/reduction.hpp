#pragma once
// Reduction of a sweep (one latency vector per footprint) to one number per
// footprint, the series the change-point estimators work on.
//
// The thesis' "geometric mapping": each latency vector is a point in sample
// space and is mapped to its distance from a reference point (the vector at a
// footprint known to hit). We compare *sorted* vectors resampled to common
// quantiles, so the distance is the 2-Wasserstein distance between the two
// latency distributions: zero on the reference plateau, and growing with the
// fraction of loads that moved to a slower level times how much slower it is.
// It is insensitive to access order and to the few stray slow loads (timer
// interrupts, refresh) that a mean would smear over the whole curve.
#include "sweep.hpp"

#include <span>
#include <vector>

namespace gpu_topology::analysis {

double wasserstein2(std::span<const double> a, std::span<const double> b);

// One value per point: the distance of its latencies from point `reference`.
std::vector<double> geometric_mapping(const Sweep& sweep, std::size_t reference = 0);

}  // namespace gpu_topology::analysis
