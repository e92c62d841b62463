#include "l1_at_launch.hpp"

#include <algorithm>

namespace gpu_topology::model {

L1Bounds l1_bounds(const std::vector<CarveoutRow>& rows, int carveout, std::uint32_t threads,
                   std::uint32_t shared_bytes) {
    threads = std::max(threads, kWarpThreads);  // a block takes at least one warp: smaller ones behave alike
    L1Bounds bounds;
    for (const auto& row : rows) {
        if (!row.size_bytes || row.shared_bytes_per_block != shared_bytes ||
            (row.carveout_percent < 0) != (carveout < 0))
            continue;
        const std::uint64_t size = *row.size_bytes;
        const bool at_least_as_demanding = row.carveout_percent >= carveout && row.threads_per_block <= threads;
        const bool no_more_demanding = row.carveout_percent <= carveout && row.threads_per_block >= threads;
        if (at_least_as_demanding) bounds.lower = std::max(bounds.lower.value_or(0), size);
        if (no_more_demanding) bounds.upper = std::min(bounds.upper.value_or(size), size);
    }
    return bounds;
}

}  // namespace gpu_topology::model
