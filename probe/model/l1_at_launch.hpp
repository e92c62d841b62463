#pragma once
// The L1 a kernel can count on, from the table of measured launches
// (Topology::carveouts, caches.l1.carveouts in a profile). The header's
// gpu_topology::l1_bytes_at() computes the same lower bound in constexpr.
//
// L1 never grows when a kernel asks for more shared memory (a larger carveout)
// or lets an SM hold more blocks (smaller blocks: the driver reserves shared
// memory for each), so every measured launch at least as demanding bounds the
// L1 from below, and every launch no more demanding bounds it from above. The
// default carveout (-1) is its own column: the driver chooses by the shape.
#include "topology.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace gpu_topology::model {

inline constexpr std::uint32_t kWarpThreads = 32;

struct L1Bounds {
    std::optional<std::uint64_t> lower, upper;
};

L1Bounds l1_bounds(const std::vector<CarveoutRow>& rows, int carveout_percent, std::uint32_t threads_per_block);

}  // namespace gpu_topology::model
