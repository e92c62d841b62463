#pragma once
// The driver's split of an SM's unified storage between L1 and shared memory
// for one launch, and the occupancy calculator's answer for it, both from a
// description's rule (architecture.hpp: SplitRule). The two differ on
// purpose: the occupancy API rounds the carveout as the Programming Guide
// says, the driver's actual choice follows the kernel's kind
// (docs/l1-effective-capacity.md).
#include "architecture.hpp"

#include <cstdint>

namespace gpu_topology::simulate {

// Static shared memory of the probe's own chase kernel (its timer's dependency
// store; cudaFuncGetAttributes reports 16 bytes on every cc the probe builds for).
inline constexpr std::uint32_t kProbeStaticSharedBytes = 16;

struct KernelShape {
    kernels::ChaseKernel kernel = kernels::ChaseKernel::probe;
    std::uint32_t dynamic_shared_bytes = 0;
    std::uint32_t threads = 32;
    int carveout_percent = -1;
    std::uint32_t declared_bytes() const {
        return (kernel == kernels::ChaseKernel::probe ? kProbeStaticSharedBytes : 0) + dynamic_shared_bytes;
    }
};

// Shared memory the driver gives the SM for this launch (one of the supported sizes).
std::uint64_t shared_split(const Architecture& arch, const KernelShape& shape);
// The L1 data capacity that leaves.
std::uint64_t l1_bytes(const Architecture& arch, const KernelShape& shape);
// What one SM reads from its unified storage a cycle: described, or one row of its shared-memory
// banks. Every level behind L1 reaches an SM through it (the engine's read rates, the expectations).
double l1_read_bytes_per_cycle(const Architecture& arch);
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for the launch (at its carveout).
std::uint32_t resident_blocks(const Architecture& arch, const KernelShape& shape);

}  // namespace gpu_topology::simulate
