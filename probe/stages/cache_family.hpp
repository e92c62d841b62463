#pragma once
// The caches an SM reaches through load paths of its own: L1 data, texture,
// read-only (one row each in kUnifiedL1Paths) and the constant L1 / L1.5 pair
// behind ld.const. Every member is measured by the same questions (size, line,
// fetch granularity, hit and miss latency, instances per SM), and every pair by
// the same eviction test for shared storage. A new cache on a unified-L1 path
// is a new row here plus its quantities in model/quantities.hpp.
#include "model/quantities.hpp"
#include "progress.hpp"
#include "questions.hpp"
#include "results.hpp"

#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_topology::stages {

inline constexpr model::QuantityId kNoQuantity = std::numeric_limits<model::QuantityId>::max();

// Where a cache's answers go in the list of quantities (kNoQuantity: not asked).
struct CacheQuantities {
    model::QuantityId size, line, sector, latency, miss_latency, miss_penalty, per_sm;
};

struct CacheRow {
    std::string_view key;    // names its sweeps
    std::string_view label;  // in progress lines
    kernels::LoadPath path;
    CacheQuantities quantities;
};

using model::id;
inline constexpr std::array kUnifiedL1Paths{
    CacheRow{"l1", "L1 data", kernels::LoadPath::l1,
             {id("L1_SIZE_BYTES"), id("L1_LINE_BYTES"), id("L1_SECTOR_BYTES"), id("L1_LATENCY_CYCLES"),
              id("L1_MISS_LATENCY_CYCLES"), id("L1_MISS_PENALTY_CYCLES"), id("L1_PER_SM")}},
    CacheRow{"texture", "texture", kernels::LoadPath::texture,
             {id("TEXTURE_SIZE_BYTES"), id("TEXTURE_LINE_BYTES"), id("TEXTURE_SECTOR_BYTES"),
              id("TEXTURE_LATENCY_CYCLES"), id("TEXTURE_MISS_LATENCY_CYCLES"), id("TEXTURE_MISS_PENALTY_CYCLES"),
              id("TEXTURE_PER_SM")}},
    CacheRow{"readonly", "read-only", kernels::LoadPath::readonly,
             {id("READONLY_SIZE_BYTES"), id("READONLY_LINE_BYTES"), id("READONLY_SECTOR_BYTES"),
              id("READONLY_LATENCY_CYCLES"), id("READONLY_MISS_LATENCY_CYCLES"), id("READONLY_MISS_PENALTY_CYCLES"),
              id("READONLY_PER_SM")}},
};
inline constexpr CacheRow kConstantL1{"constant_l1", "constant L1", kernels::LoadPath::constant,
                                      {id("CONSTANT_L1_SIZE_BYTES"), id("CONSTANT_L1_LINE_BYTES"),
                                       id("CONSTANT_L1_SECTOR_BYTES"), id("CONSTANT_L1_LATENCY_CYCLES"), kNoQuantity,
                                       id("CONSTANT_L1_MISS_PENALTY_CYCLES"), id("CONSTANT_L1_PER_SM")}};
inline constexpr CacheRow kConstantL15{"constant_l15", "constant L1.5", kernels::LoadPath::constant,
                                       {id("CONSTANT_L15_SIZE_BYTES"), kNoQuantity, id("CONSTANT_L15_SECTOR_BYTES"),
                                        id("CONSTANT_L15_LATENCY_CYCLES"), id("CONSTANT_L15_MISS_LATENCY_CYCLES"),
                                        id("CONSTANT_L15_MISS_PENALTY_CYCLES"), kNoQuantity}};

// Everything measured about one cache. Sizes are effective capacities at
// `carveout_percent`; `size_is_lower_bound` when the path cannot hold a ring
// large enough to overflow the cache.
struct CacheResult {
    const CacheRow* row = nullptr;
    int carveout_percent = -1;
    analysis::CapacityEstimate size;
    bool size_is_lower_bound = false;
    std::string size_method;
    LineAnswer line;
    std::optional<analysis::Granularity> sector;
    std::string sector_method;
    LatencyAnswer hit;
    std::optional<LatencyAnswer> miss;
    std::string miss_level;  // where a miss is served from
    std::vector<analysis::EvictionDecision> instance_tests;  // warps 1..3 against warp 0
    std::optional<std::uint32_t> per_sm;
    // The stride eviction rings step by, and the capacity at it: the path's ring
    // stride, or its line when that is smaller (then the span at the line).
    std::uint32_t ring_stride = 0;
    std::uint64_t ring_capacity = 0;

    std::string_view key() const { return row->key; }
    kernels::LoadPath path() const { return row->path; }
    std::uint64_t size_bytes() const { return size.capacity_bytes; }
};

struct FamilyPlan {
    std::uint64_t max_l1_bytes;       // search bound for the unified L1 paths
    std::size_t fresh_offset;         // buffer region no L1 has seen (first touches)
    std::uint64_t miss_bytes;         // ring that stays in near L2 (the miss ring is also at least twice L1)
    int carveout_percent = 0;         // max L1, where the unified caches are largest
};

// The stride of unified-L1 size rings: the line of every NVIDIA L1 since Fermi.
inline constexpr std::uint32_t kUnifiedRingStride = 128;

// The widest stride at which rings fill every line they touch, up to `ring_stride`: the ring
// stride, unless a narrower stride spans less (by more than 2 %, at least 4 KiB); then the
// measured line (at most the ring stride), or where the spans show none (a hashed index grows
// them unevenly), the widest narrower stride that spans as little as the one that spans least.
// Wider rings leave part of each line empty and fit more than the cache holds.
std::uint32_t dense_stride(const LineAnswer& line, std::uint32_t ring_stride = kUnifiedRingStride);

// How a unified-L1 path is sized: stride 128 B (or `stride_bytes`), from a 4 KiB all-hit ring, to 1 KiB.
CapacityQuestion unified_l1_size_question(kernels::LoadPath path, int carveout_percent, Order order, std::string name,
                                          std::uint64_t max_bytes, std::uint32_t threads_per_block = 0,
                                          std::uint32_t stride_bytes = kUnifiedRingStride);

// Size, line, fetch granularity, hit/miss latency and instances per SM of one
// unified-L1 path.
CacheResult measure_unified_l1_path(SweepRunner& runner, const CacheRow& row, const FamilyPlan& plan,
                                    Progress& progress, const std::optional<analysis::CapacityEstimate>& known_size);

// Constant L1 and L1.5 (one path, two levels; the L1.5 size is a lower bound
// when it exceeds the 64 KiB a module may declare).
std::array<CacheResult, 2> measure_constant_caches(SweepRunner& runner, Progress& progress);

// The eviction test between two caches: a victim ring of half the smaller
// cache, disturbed by a ring 1.5 times the other cache.
struct SharingResult {
    std::string_view a, b;  // cache keys
    analysis::EvictionDecision decision;
};
std::vector<SharingResult> measure_sharing(SweepRunner& runner, const std::vector<const CacheResult*>& caches,
                                           int carveout_percent, Progress& progress);

// Every quantity of the cache's row, as typed results (hit and miss latencies
// carry the timer's uncertainty).
std::vector<std::pair<model::QuantityId, model::Result>> cache_results(const CacheResult& cache,
                                                                       double timer_uncertainty);

}  // namespace gpu_topology::stages
