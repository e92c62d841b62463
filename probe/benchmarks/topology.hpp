#pragma once
// The whole probe: every question of the profile, in an order that keeps the
// caches honest (first-touch tests before anything pollutes L1), with progress,
// cross-checks and per-stage timings. Returns a profile in schema gpu-topology/1.
#include "../profile/json.hpp"
#include "device_facts.hpp"
#include "progress.hpp"

#include <filesystem>
#include <optional>

namespace gpu_topology::benchmarks {

struct ProbeOptions {
    std::optional<std::filesystem::path> raw_dir;  // write every sweep as CSV here
};

profile::Json measure_topology(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress);

}  // namespace gpu_topology::benchmarks
