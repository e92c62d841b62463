#include "size_search.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpu_topology::analysis {

bool fits(const SweepPoint& candidate, const SweepPoint& reference, const CapacitySearchOptions& options,
          KsResult* test) {
    const auto result =
        ks_slower(reference.cycles, candidate.cycles, options.tolerance.shift_for(reference.cycles));
    if (test) *test = result;
    return result.p_value >= options.alpha || result.statistic < options.min_effect;
}

CapacityEstimate find_capacity(const MeasureFootprint& measure, const CapacitySearchOptions& options) {
    if (options.step_bytes == 0 || options.reference_bytes == 0 || options.max_bytes <= options.reference_bytes)
        throw std::invalid_argument("capacity search needs reference < max and a non-zero step");
    const auto round = [&](std::uint64_t bytes) {
        return std::max(options.step_bytes, bytes / options.step_bytes * options.step_bytes);
    };

    CapacityEstimate estimate;
    const SweepPoint reference = measure(round(options.reference_bytes));
    estimate.trace.points.push_back(reference);

    KsResult last_test;
    auto try_footprint = [&](std::uint64_t bytes) {
        auto point = measure(bytes);
        const bool ok = fits(point, reference, options, &last_test);
        estimate.trace.points.push_back(std::move(point));
        return ok;
    };

    // Doubling: find the first footprint that no longer fits.
    std::uint64_t lo = reference.footprint_bytes, hi = 0;
    for (std::uint64_t bytes = round(lo * 2);; bytes = round(bytes * 2)) {
        bytes = std::min(bytes, round(options.max_bytes));
        if (!try_footprint(bytes)) {
            hi = bytes;
            estimate.at_first_miss = last_test;
            break;
        }
        lo = bytes;
        if (bytes >= round(options.max_bytes)) break;
    }
    if (hi != 0) {
        // Bisection down to one step.
        while (hi - lo > options.step_bytes) {
            const std::uint64_t mid = lo + (hi - lo) / options.step_bytes / 2 * options.step_bytes;
            if (try_footprint(mid)) {
                lo = mid;
            } else {
                hi = mid;
                estimate.at_first_miss = last_test;
            }
        }
        estimate.found = true;
        estimate.first_miss_bytes = hi;
        estimate.confidence = 1.0 - estimate.at_first_miss.p_value;
    }
    estimate.capacity_bytes = lo;
    auto& points = estimate.trace.points;
    std::sort(points.begin(), points.end(),
              [](const auto& a, const auto& b) { return a.footprint_bytes < b.footprint_bytes; });
    points.erase(std::unique(points.begin(), points.end(),
                             [](const auto& a, const auto& b) { return a.footprint_bytes == b.footprint_bytes; }),
                 points.end());
    return estimate;
}

}  // namespace gpu_topology::analysis
