#include "translation.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gpu_topology::analysis {

double fast_loads_rise(const SweepPoint& reference, const SweepPoint& candidate) {
    if (reference.cycles.empty() || candidate.cycles.empty()) return 0;
    return quantile(candidate.cycles, 0.1) - quantile(reference.cycles, 0.1);
}

namespace {

// Every `positions`-th load from `position` on.
std::vector<double> loads_at(const SweepPoint& point, std::uint32_t position, std::uint32_t positions) {
    std::vector<double> at;
    for (std::size_t i = position; i < point.cycles.size(); i += positions) at.push_back(point.cycles[i]);
    return at;
}

double median_at(const SweepPoint& point, std::uint32_t position, std::uint32_t positions) {
    const auto at = loads_at(point, position, positions);
    return at.empty() ? 0.0 : median(at);
}

}  // namespace

Rise positionwise_rise(std::uint32_t positions) {
    if (positions == 0) throw std::invalid_argument("positionwise_rise needs one or more positions");
    return [positions](const SweepPoint& reference, const SweepPoint& candidate) {
        if (reference.cycles.size() < positions || candidate.cycles.size() < positions) return 0.0;
        double most = -1e300;
        for (std::uint32_t p = 0; p < positions; ++p)
            most = std::max(most, median_at(candidate, p, positions) - median_at(reference, p, positions));
        return most;
    };
}

MeanRise mean_positionwise_rise(const SweepPoint& reference, const SweepPoint& candidate, std::uint32_t positions) {
    if (positions == 0 || reference.cycles.size() < positions || candidate.cycles.size() < positions) return {};
    double sum = 0, variance = 0;
    for (std::uint32_t p = 0; p < positions; ++p) {
        const auto before = loads_at(reference, p, positions), after = loads_at(candidate, p, positions);
        sum += median(after) - median(before);
        variance += std::pow(median_standard_error(before), 2) + std::pow(median_standard_error(after), 2);
    }
    return {.cycles = sum / positions, .standard_error = std::sqrt(variance) / positions};
}

CountSearch longest_fast_ring(const std::function<SweepPoint(std::uint32_t)>& measure,
                              std::uint32_t reference_elements, std::uint32_t max_elements, double threshold_cycles,
                              const Rise& rise_of) {
    if (reference_elements == 0 || max_elements <= reference_elements)
        throw std::invalid_argument("ring search needs 0 < reference < max elements");
    CountSearch search;
    const SweepPoint reference = measure(reference_elements);
    search.trace.points.push_back(reference);
    double rise = 0;
    const auto slow = [&](std::uint32_t n) {
        auto point = measure(n);
        rise = rise_of(reference, point);
        search.trace.points.push_back(std::move(point));
        return rise > threshold_cycles;
    };
    std::uint32_t lo = reference_elements, hi = 0;
    for (std::uint32_t n = std::min(2 * lo, max_elements);; n = std::min(2 * n, max_elements)) {
        if (slow(n)) {
            hi = n;
            search.rise_cycles = rise;
            break;
        }
        lo = n;
        if (n == max_elements) break;
    }
    if (hi == 0) {
        search.last_fast = lo;
        return search;
    }
    while (hi - lo > 1) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (slow(mid)) {
            hi = mid;
            search.rise_cycles = rise;
        } else {
            lo = mid;
        }
    }
    search.found = true;
    search.last_fast = lo;
    search.first_slow = hi;
    return search;
}

}  // namespace gpu_topology::analysis
