#pragma once
// The whole probe: every question of the profile, in an order that keeps the
// caches honest (first-touch tests before anything pollutes L1), with progress,
// cross-checks and per-stage timings. Returns a profile in schema gpu-topology/1.
#include "../profile/json.hpp"
#include "device_facts.hpp"
#include "progress.hpp"
#include "sweep_runner.hpp"

#include <filesystem>
#include <optional>

namespace gpu_topology::benchmarks {

// quick: L1, L2 and DRAM sizes, lines and latencies (what tiling needs first).
// full:  quick, then every carveout, texture, read-only, constant caches, sharing
//        and the random-order cross-checks.
enum class Level { quick, full };

struct ProbeOptions {
    std::optional<std::filesystem::path> raw_dir;  // write every sweep as CSV here
    Level level = Level::full;
    // Seconds after which no further stage starts (a started stage finishes); the
    // profile lists what was skipped and marks its quantities unmeasured.
    std::optional<double> budget_seconds;
    Pace pace = Pace::fast;
};

std::string_view to_string(Level level);
std::optional<Level> level_from_string(std::string_view text);

profile::Json measure_topology(const DeviceFacts& facts, const ProbeOptions& options, Progress& progress);

}  // namespace gpu_topology::benchmarks
