#pragma once
#include <string_view>

namespace gpu_topology {
// Bumped whenever a change can alter measured values: it is part of the
// configure-time cache key, so a new probe re-measures.
inline constexpr std::string_view kProbeVersion = "1.3.1";
}  // namespace gpu_topology
