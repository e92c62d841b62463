// gpu_topology/fact_helpers.hpp: the helpers that read the facts of one GPU.
// A generated gpu_topology.hpp includes it after its facts; it opens the
// profile's namespace (gpu_topology::GPU_TOPOLOGY_PROFILE_NS, inline), so each
// profile gets its own copy of every helper and two profiles linked into one
// program never share one. C++17, host and device code.
#ifndef GPU_TOPOLOGY_FACT_HELPERS_HPP
#define GPU_TOPOLOGY_FACT_HELPERS_HPP

#ifndef GPU_TOPOLOGY_PROFILE_NS
#error "gpu_topology/fact_helpers.hpp reads the facts of one GPU: include <gpu_topology.hpp>, the header gpu_topology_generate() writes, instead"
#endif

#include <gpu_topology/types.hpp>

#include <cstddef>
#include <cstdint>

namespace gpu_topology {

// Not constexpr on purpose: l1_bytes_at() calls it when no measured launch matches, so a
// constant expression (a tile size) cannot come from that 0 and does not compile.
GPU_TOPOLOGY_HD inline void l1_bytes_at_no_launch_of_this_kind_was_measured() {}

inline namespace GPU_TOPOLOGY_PROFILE_NS {

// The L1 (bytes) a kernel that declares `shared_bytes_per_block` bytes of shared memory
// (static and dynamic together; 0: none) can count on at `carveout_percent` (-1: left to
// the driver) with blocks of `threads_per_block` threads: the largest size measured for a
// launch of a kernel declaring the same shared memory that is at least as demanding (a
// carveout at least as large, blocks no larger, so no more L1). 0 when no such launch was
// measured (l1_launches), which no constant expression accepts: the driver's split does not
// follow the declared bytes monotonically, so no other kernel's rows answer.
// docs/l1-effective-capacity.md explains.
GPU_TOPOLOGY_HD constexpr std::uint64_t l1_bytes_at(int carveout_percent, std::uint32_t threads_per_block,
                                                   std::uint32_t shared_bytes_per_block) {
    const std::uint32_t threads = threads_per_block < 32 ? 32 : threads_per_block;  // a block takes a warp
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i != l1_launch_count; ++i) {  // not <: a count of 0 would warn (nvcc #186)
        const l1_at_launch& row = l1_launches[i];
        if (row.shared_bytes_per_block != shared_bytes_per_block) continue;
        if ((row.carveout_percent < 0) != (carveout_percent < 0)) continue;
        if (row.carveout_percent >= carveout_percent && row.threads_per_block <= threads && row.size_bytes > bytes)
            bytes = row.size_bytes;
    }
    if (bytes == 0) l1_bytes_at_no_launch_of_this_kind_was_measured();
    return bytes;
}

// Blocks of `threads_per_block` threads resident on the whole GPU at once (a
// wave) when threads are what limits residency (registers and shared memory
// permitting): SMs x blocks per SM.
GPU_TOPOLOGY_HD constexpr std::uint64_t resident_blocks_per_wave(std::uint32_t threads_per_block,
                                                                 std::uint32_t sms = device.sm_count,
                                                                 std::uint32_t threads_per_sm = sm.max_threads) {
    return threads_per_block == 0 ? 0 : std::uint64_t{sms} * (threads_per_sm / threads_per_block);
}

namespace node {
// The link from device `from` to device `to`; nullptr when the profile has none.
constexpr const peer_link* find_link(int from, int to) {
    for (std::size_t i = 0; i != link_count; ++i)  // not <: a count of 0 would warn (nvcc #186)
        if (links[i].from == from && links[i].to == to) return &links[i];
    return nullptr;
}
}  // namespace node

}  // namespace GPU_TOPOLOGY_PROFILE_NS
}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_FACT_HELPERS_HPP
