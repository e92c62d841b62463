#pragma once
// The kernels that read without chasing: streaming a region through L2 (to
// evict it, or to time DRAM), the bandwidth patterns of ReadRequest, and the
// memory-free reference work. Launchers check their launch.
#include "engine.hpp"

#include <cstddef>

namespace gpu_topology::kernels {

// Reads `request` with `sm_count` SMs from `buffer` (its `buffer_bytes`);
// `sink` keeps the loads alive. Throws std::invalid_argument for a region
// outside the buffer.
void launch_read(const ReadRequest& request, const unsigned char* buffer, std::size_t buffer_bytes, int sm_count,
                 unsigned long long* sink);

// A fixed amount of dependent arithmetic on every SM (a few milliseconds).
void launch_reference_work(int sm_count, unsigned long long* sink);

}  // namespace gpu_topology::kernels
