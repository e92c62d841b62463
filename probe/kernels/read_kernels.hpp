#pragma once
// The kernels that read without chasing: streaming a region through L2 (to
// evict it, or to time DRAM), the bandwidth patterns of ReadRequest, and the
// memory-free reference work, and the stores that time a link to a peer.
// Launchers check their launch.
#include "engine.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpu_topology::kernels {

// Reads `request` with `sm_count` SMs from `buffer` (its `buffer_bytes`) and
// returns the seconds from the first block's start to the last block's end, on
// the GPU's global timer. `stamps` (4 words of device memory) holds the timer
// readings and keeps the loads alive. Throws std::invalid_argument for a region
// outside the buffer.
double launch_read(const ReadRequest& request, const unsigned char* buffer, std::size_t buffer_bytes, int sm_count,
                   unsigned long long* stamps);

// A fixed amount of dependent arithmetic on every SM (a few milliseconds);
// `sink` (4 words) keeps it alive.
void launch_reference_work(int sm_count, unsigned long long* sink);

// 16-byte stores over `bytes` of `data` (a peer's memory) from every SM, on
// `stream`; launch errors are checked, execution errors at the caller's next
// synchronisation (timed by events on that stream).
void launch_store(unsigned char* data, std::size_t bytes, int sm_count, cudaStream_t stream);

}  // namespace gpu_topology::kernels
