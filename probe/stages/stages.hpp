#pragma once
// The whole probe as a table of stages. Each stage says at which level it runs
// and which quantities it needs measured first; which quantities it yields is
// said by the list (model/quantities.hpp, each quantity's `stage`). The runner
// skips a stage that the level excludes, that the time budget leaves no room
// for, or whose needs are unmeasured, and marks what it would have yielded
// unmeasured with the reason; it repeats a stage the GPU monitor saw disturbed
// (bounded) and marks what is still disturbed as not vouched for.
#include "model/topology.hpp"
#include "kernels/device_facts.hpp"
#include "util/units.hpp"
#include "monitor.hpp"
#include "progress.hpp"
#include "sweep_runner.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace gpu_topology::stages {

using kernels::DeviceFacts;

// quick: L1, L2 and DRAM sizes, lines, latencies and bandwidths (what tiling needs first).
// full:  quick, then the L1 of every kernel kind, carveout and launch shape,
//        texture, read-only, constant caches, sharing, the random-order
//        cross-checks, shared-memory banks, clusters (DSMEM) and the TLB.
//        The table in stages.cpp says which stage is in which level.
enum class Level { quick, full };
std::string_view to_string(Level level);
std::optional<Level> level_from_string(std::string_view text);

struct ProbeOptions {
    std::optional<std::filesystem::path> raw_dir;  // write every sweep as CSV here
    Level level = Level::full;
    // Seconds after which no further stage starts (a started stage finishes); the
    // profile lists what was skipped and marks its quantities unmeasured.
    std::optional<double> budget_seconds;
    Pace pace = Pace::fast;
    unsigned max_attempts = 2;  // a stage the monitor saw disturbed is measured again, at most this often
    // Seconds the reference work took on a quiet GPU of this model (an earlier
    // profile's conditions.reference_work_seconds): lets the reference monitor
    // see work that was already running when the probe started.
    std::optional<double> quiet_reference_seconds;
};

using util::KiB;
using util::MiB;

// The engine's one buffer: rings from offset 0 up to 2.5x L2 (the hierarchy curve up to 5x L2
// where the buffer holds it), a region to evict L2 with, and fresh regions near the top that no
// chase touches before its first touch.
struct BufferLayout {
    std::size_t evict_offset = 64 * MiB;
    // Rings of the TLB stage, from offset 0: 1.5 GiB, or a quarter of a small device's memory.
    std::size_t tlb_span_bytes = 0;
    std::size_t buffer_bytes = 0;
    std::size_t fresh_offset = 0;
    BufferLayout(std::uint64_t l2_bytes, std::uint64_t device_bytes)
        : tlb_span_bytes(std::min<std::uint64_t>(1536 * MiB, device_bytes / 4)),
          buffer_bytes(std::max<std::size_t>(
              evict_offset + std::max<std::size_t>(5 * l2_bytes / 2, 2 * l2_bytes) + 64 * MiB, tlb_span_bytes)),
          fresh_offset(buffer_bytes - 32 * MiB) {}
};

struct ProbeContext;
// A stage's needs: quantities that must be known before it runs, written with
// model::id() so a misspelt name does not compile.
inline constexpr model::QuantityId kNoNeed = model::kQuantities.size();
struct Stage {
    std::string_view name;
    Level level;
    std::array<model::QuantityId, 2> needs = {kNoNeed, kNoNeed};
    void (*run)(ProbeContext&) = nullptr;
};

// The stages, in the order they run: the quick level first, so a time budget
// drops the least needed ones.
extern const std::array<Stage, 16> kStages;

// Measures the device behind `engine`. `monitor` watches for other work on the GPU.
model::Topology measure_topology(kernels::Engine& engine, const DeviceFacts& facts, const ProbeOptions& options,
                                 Progress& progress, Monitor& monitor);

}  // namespace gpu_topology::stages
