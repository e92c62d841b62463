#pragma once
// Shared-memory kernels beyond the chase: one warp's access pattern timed for
// latency and for issue rate (bank conflicts), and the distributed shared
// memory of thread block clusters (cc >= 9.0). Launchers check their launch.
#include "engine.hpp"

namespace gpu_topology::kernels {

SharedAccessTiming launch_shared_access(const SharedAccess& access, unsigned long long* scratch);

// 0 when the device or this build has no clusters (cc < 9.0, or no sm_90 code in the binary).
std::uint32_t query_max_cluster_blocks(int device);
// `samples` must hold kClusterChaseSamples; `scratch` 4 words.
ChaseResult launch_cluster_chase(std::uint32_t cluster_blocks, std::uint32_t reader, unsigned* samples,
                                 unsigned long long* scratch);
ClusterRead launch_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes,
                                unsigned long long* scratch);

}  // namespace gpu_topology::kernels
