#pragma once
// Change-point estimation on a reduced sweep.
//
// single_change_point: the thesis' Opt estimator — the split that minimises
// the summed squared deviation of each side from its own mean.
//
// detect_change_points: several levels in one curve (L1 -> L2 near -> L2 far
// -> DRAM). Binary segmentation with Opt; each candidate split is accepted
// only if a one-sided KS test with an indifference zone (ks_slower) on the raw
// latencies either side of it finds at least `min_effect` of the loads after
// it slower than before it, at significance `alpha`.
#include "ks_test.hpp"
#include "sweep.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace gpu_topology::analysis {

struct SplitEstimate {
    std::size_t index = 0;  // first element of the right segment
    double cost_reduction = 0;
};

std::optional<SplitEstimate> single_change_point(std::span<const double> series, std::size_t min_segment = 1);

struct ChangePointOptions {
    double alpha = 1e-3;        // KS significance level
    double min_effect = 0.05;   // smallest KS D that counts as a change
    std::size_t min_segment = 2;
    std::size_t test_window = 2;  // points pooled on each side for the KS test
    Tolerance tolerance;
};

struct ChangePoint {
    std::size_t index = 0;                 // first point of the new level
    std::uint64_t last_before_bytes = 0;   // footprint of the point just before
    std::uint64_t first_after_bytes = 0;   // footprint of the first point after
    KsResult test;
};

std::vector<ChangePoint> detect_change_points(const Sweep& sweep, const ChangePointOptions& options = {});

// Raw samples of points [first, last) pooled.
std::vector<double> pool(const Sweep& sweep, std::size_t first, std::size_t last);

}  // namespace gpu_topology::analysis
