#pragma once
// What the stages of one probe share: the engine and runner, the device's API
// facts, the topology being filled, how the engine's buffer is laid out, and
// the intermediate answers that later stages and cross-checks build on.
#include "analysis/hierarchy.hpp"
#include "cache_family.hpp"
#include "stages.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <string>
#include <vector>

namespace gpu_topology::stages {

// Answers a stage hands to later stages and to the cross-checks. A stage reads
// another's answer with required(): its needs (a quantity the other stage sets
// together with the answer) keep it from running without one, and a missing
// answer is a probe bug that names itself instead of reading an empty value.
struct Scratch {
    double timer_uncertainty = 0;
    std::optional<analysis::Hierarchy> curve;
    std::map<int, analysis::CapacityEstimate> l1_at;  // by carveout, default launch shape
    std::vector<CacheResult> unified;                 // l1 first, then texture, read-only
    std::vector<CacheResult> constant;                // constant L1, L1.5
    std::optional<LatencyAnswer> l2_latency;
    std::optional<analysis::Granularity> l2_fetch;    // first touch after evicting L2
    std::optional<analysis::CapacityEstimate> l2_near;
    std::optional<LineAnswer> l2_line;
    // The stride L1 rings are sized at: 128 B, or the L1 line once measured smaller
    // (a ring 128 B apart leaves lines of 64 B half empty: it would fit twice L1).
    std::uint32_t l1_size_stride = kUnifiedRingStride;

    template <typename T>
    static const T& required(const std::optional<T>& answer, std::string_view what) {
        if (!answer) throw std::logic_error("a probe stage ran without " + std::string(what) + " (a probe bug)");
        return *answer;
    }
    const analysis::CapacityEstimate& l1_at_carveout(int carveout) const {
        const auto at = l1_at.find(carveout);
        if (at == l1_at.end())
            throw std::logic_error("a probe stage ran without the L1 size at carveout " + std::to_string(carveout) +
                                   " (a probe bug)");
        return at->second;
    }
};

// The largest footprint an L1 search tries: four times L1 + shared.
inline std::uint64_t l1_search_bound(const DeviceFacts& facts) {
    return 4 * (static_cast<std::uint64_t>(facts.shared_per_sm_bytes) + 64 * KiB);
}

// A ring that stays in near L2: 4 MiB, or a quarter of a smaller L2 (an L2 of
// two partitions keeps half of itself near; a quarter leaves room for the spread
// of a hashed index). The L1 paths' miss rings are also at least twice what
// their L1 holds (cache_family.cpp).
inline std::uint64_t near_l2_ring_bytes(const DeviceFacts& facts) {
    return std::min<std::uint64_t>(4 * MiB, static_cast<std::uint64_t>(facts.l2_bytes) / 4 / KiB * KiB);
}

struct ProbeContext {
    kernels::Engine& engine;
    SweepRunner& runner;
    const DeviceFacts& facts;
    const ProbeOptions& options;
    Progress& progress;
    model::Topology& topology;
    BufferLayout layout;
    Scratch scratch;
    std::string stage;  // the stage running now

    std::uint64_t l2_bytes() const { return static_cast<std::uint64_t>(facts.l2_bytes); }
    std::uint64_t l1_search_bound() const { return stages::l1_search_bound(facts); }
    // Where the first touches of unified path `i` (kUnifiedL1Paths[i], i >= 1) begin: near the
    // buffer's top, below the path's reach (a texture of 2^27 texels of 8 B reaches 1 GiB, less
    // than a buffer of 1.5 GiB), a MiB apart. Rings through L1 stay below every one of them.
    std::size_t unified_first_touch_offset(std::size_t i) const {
        const std::size_t below_top = layout.buffer_bytes - layout.fresh_offset;
        const std::size_t top = std::min<std::size_t>(layout.buffer_bytes, runner.engine().ring_capacity(kUnifiedL1Paths[i].path));
        return std::max(top, below_top) - below_top + i * MiB;
    }
    // Sets a quantity of the running stage. Another stage's quantity is a probe bug:
    // the list (model/quantities.hpp) says which stage answers for each, and the
    // runner marks what a skipped or failed stage would have set by that.
    void set(model::QuantityId id, model::Result result) {
        const auto& q = model::kQuantities[id];
        if (q.stage != stage)
            throw std::logic_error("stage '" + stage + "' set " + std::string(q.name) + ", which the list gives to stage '" +
                                   std::string(q.stage) + "' (a probe bug)");
        topology.set(id, std::move(result));
    }
    // Adds a cross-check, tagged with the running stage (a repeated stage replaces its checks).
    void cross_check(model::CrossCheck c);
    double clock_khz() const { return runner.measured_clock_khz(); }
};

// The stages (stage_*.cpp, cache_family.cpp).
void run_warm_up(ProbeContext&);
void run_latencies(ProbeContext&);
void run_hierarchy_curve(ProbeContext&);
void run_l1_size(ProbeContext&);
void run_l1_path(ProbeContext&);
void run_l2_size(ProbeContext&);
void run_l2_line(ProbeContext&);
void run_bandwidths(ProbeContext&);
void run_l1_carveouts(ProbeContext&);
void run_texture_readonly(ProbeContext&);
void run_constant_caches(ProbeContext&);
void run_sharing(ProbeContext&);
void run_random_order(ProbeContext&);
void run_shared_banks(ProbeContext&);
void run_dsmem(ProbeContext&);
void run_tlb(ProbeContext&);

// A first touch must be served by the level behind the cache: its fetches as
// slow as a miss of the path (the same level), not slower (something evicted
// the region: another process on the GPU). A cross-check on the fetch granularity.
void cross_check_fetches_served_by(ProbeContext& ctx, const CacheResult& cache);

// The L2 near-capacity question, and the tolerance of checks against its answer.
CapacityQuestion l2_question(const ProbeContext& ctx, Order order, const char* name);
// Two search steps (`step_bytes`: l2_step_bytes), or 3 % of the capacity.
std::uint64_t l2_step_bytes(const ProbeContext& ctx);
double l2_tolerance(const analysis::CapacityEstimate& near, std::uint64_t step_bytes = 256 * KiB);

// "default" or the percentage.
std::string carveout_name(int percent);

}  // namespace gpu_topology::stages
