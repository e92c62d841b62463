#pragma once
// Capacity search (thesis: doubling, then binary search), independent of how a
// footprint is measured: the caller passes a function that measures one.
//
// A footprint "fits" when its latencies are not slower than the all-hit
// reference: the one-sided KS test with an indifference zone (ks_slower) does
// not reject at `alpha`, or the share of loads that became slower stays below
// `min_effect`. The effective capacity is
// the largest fitting footprint, to within `step_bytes`.
#include "ks_test.hpp"
#include "sweep.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace gpu_topology::analysis {

struct CapacitySearchOptions {
    std::uint64_t reference_bytes = 0;  // surely fits: the all-hit reference
    std::uint64_t step_bytes = 0;       // resolution; footprints are multiples of it
    std::uint64_t max_bytes = 0;        // search no further
    double alpha = 1e-3;
    double min_effect = 0.05;
    Tolerance tolerance;
};

struct CapacityEstimate {
    bool found = false;                 // false: everything up to max_bytes fit
    std::uint64_t capacity_bytes = 0;   // largest fitting footprint
    std::uint64_t first_miss_bytes = 0; // smallest non-fitting footprint seen
    KsResult at_first_miss;             // the test that rejected it
    double confidence = 0;              // 1 - p of that rejection
    Sweep trace;                        // every point measured, ascending
};

using MeasureFootprint = std::function<SweepPoint(std::uint64_t footprint_bytes)>;

bool fits(const SweepPoint& candidate, const SweepPoint& reference, const CapacitySearchOptions& options,
          KsResult* test = nullptr);

CapacityEstimate find_capacity(const MeasureFootprint& measure, const CapacitySearchOptions& options);

// The same search for a launch like others whose capacities were `hints`: each
// hint, in order, and one step beyond it first. When a hint fits and the step
// beyond does not, that is the answer (two footprints at the capacity, whose
// loads mostly hit: cheap); otherwise each hint narrows the bracket, and a
// bisection or a doubling search finishes within it. `reference`, when given, is
// an all-hit footprint of the same kernel measured before (no need to measure it
// again for each launch).
CapacityEstimate find_capacity_near(const MeasureFootprint& measure, const CapacitySearchOptions& options,
                                    const std::vector<std::uint64_t>& hints, const SweepPoint* reference = nullptr);

}  // namespace gpu_topology::analysis
