#pragma once
// The caches an SM reaches through load paths of its own: L1 data, texture,
// read-only (one row each in kUnifiedL1Paths) and the constant L1 / L1.5 pair
// behind ld.const. Every member is measured by the same questions (size, line,
// fetch granularity, hit and miss latency, instances per SM), and every pair by
// the same eviction test for shared storage. A new cache is a new row.
#include "entries.hpp"
#include "progress.hpp"
#include "questions.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_topology::benchmarks {

struct CacheRow {
    std::string_view key;    // caches.<key> in the profile
    std::string_view label;  // in progress lines
    kernels::LoadPath path;
};

inline constexpr std::array kUnifiedL1Paths{
    CacheRow{"l1", "L1 data", kernels::LoadPath::l1},
    CacheRow{"texture", "texture", kernels::LoadPath::texture},
    CacheRow{"readonly", "read-only", kernels::LoadPath::readonly},
};

// Everything measured about one cache. Sizes are effective capacities at
// `carveout_percent`; `size_is_lower_bound` when the path cannot hold a ring
// large enough to overflow the cache.
struct CacheResult {
    std::string key;
    kernels::LoadPath path = kernels::LoadPath::l1;
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

    std::uint64_t size_bytes() const { return size.capacity_bytes; }
};

struct FamilyPlan {
    std::uint64_t max_l1_bytes;       // search bound for the unified L1 paths
    std::size_t fresh_offset;         // buffer region no L1 has seen (first touches)
    std::uint64_t miss_bytes;         // ring that misses L1 but hits near L2
    int carveout_percent = 0;         // max L1, where the unified caches are largest
};

// How a unified-L1 path is sized: stride 128 B, from a 4 KiB all-hit ring, to 1 KiB.
CapacityQuestion unified_l1_size_question(kernels::LoadPath path, int carveout_percent, Order order, std::string name,
                                          std::uint64_t max_bytes);

// Size, line, fetch granularity, hit/miss latency and instances per SM of one
// unified-L1 path.
CacheResult measure_unified_l1_path(SweepRunner& runner, const CacheRow& row, const FamilyPlan& plan,
                                    Progress& progress, const std::optional<analysis::CapacityEstimate>& known_size);

// Constant L1 and L1.5 (one path, two levels; the L1.5 size is a lower bound
// when it exceeds the 64 KiB a module may declare).
std::array<CacheResult, 2> measure_constant_caches(SweepRunner& runner, Progress& progress);

// The eviction test between two caches: a victim ring of half the smaller
// cache, disturbed by a ring the size of the other cache.
struct SharingResult {
    std::string a, b;  // cache keys; the profile key is sharing.<a>_<b>
    analysis::EvictionDecision decision;
};
std::vector<SharingResult> measure_sharing(SweepRunner& runner, const std::vector<const CacheResult*>& caches,
                                           int carveout_percent, Progress& progress);

// caches.<key> entry, with `shared_with` from the sharing results (none: not tested).
Json cache_entry(const CacheResult& cache, const std::vector<SharingResult>* sharing, double clock_khz,
                 bool cross_checked);

}  // namespace gpu_topology::benchmarks
