#include "sharing.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpu_topology::analysis {

EvictionDecision decide_eviction(std::span<const double> alone, std::span<const double> disturbed,
                                 const EvictionOptions& options) {
    if (alone.empty() || disturbed.empty()) throw std::invalid_argument("eviction test needs two non-empty samples");
    EvictionDecision decision;
    decision.test = ks_slower(alone, disturbed, options.tolerance.shift_for(alone));
    decision.alone_p50 = median(alone);
    decision.disturbed_p50 = median(disturbed);
    decision.evicted = decision.test.p_value < options.alpha && decision.test.statistic >= options.min_effect;
    decision.confidence = decision.evicted ? 1.0 - decision.test.p_value : 1.0 - decision.test.statistic;
    return decision;
}

std::optional<std::uint32_t> instances_per_sm(const std::vector<bool>& evicted_by_other_warps,
                                              std::uint32_t sub_partitions) {
    if (sub_partitions == 0 || evicted_by_other_warps.size() + 1 != sub_partitions)
        throw std::invalid_argument("one decision per other sub-partition is needed");
    const auto sharing = 1 + std::uint32_t(std::count(evicted_by_other_warps.begin(), evicted_by_other_warps.end(), true));
    if (sub_partitions % sharing != 0) return std::nullopt;
    return sub_partitions / sharing;
}

}  // namespace gpu_topology::analysis
