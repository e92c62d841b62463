#pragma once
// The L1 a kernel can count on, from the table of measured launches
// (Topology::carveouts, caches.l1.carveouts in a profile). The header's
// gpu_topology::l1_bytes_at() computes the same lower bound in constexpr.
//
// Only rows of kernels that declare the same shared memory per block answer:
// the split does not follow the declared bytes monotonically (on Hopper a kernel
// with 4 B gets 16 KiB at a 10 % carveout, one with 8 KiB 217 KiB), so no other
// kernel bounds it. Among those, L1 never grows when the kernel asks for more
// shared memory (a larger carveout) or lets an SM hold more blocks (smaller
// blocks), as every table measured so far shows: every launch at least as
// demanding bounds the L1 from below, every launch no more demanding from above.
// The default carveout (-1) is its own column: the driver chooses by the shape.
#include "topology.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace gpu_topology::model {

inline constexpr std::uint32_t kWarpThreads = 32;

struct L1Bounds {
    std::optional<std::uint64_t> lower, upper;
};

L1Bounds l1_bounds(const std::vector<CarveoutRow>& rows, int carveout_percent, std::uint32_t threads_per_block,
                   std::uint32_t shared_bytes_per_block);

}  // namespace gpu_topology::model
