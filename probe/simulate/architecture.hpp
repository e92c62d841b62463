#pragma once
// An architecture description: a GPU's memory hierarchy as published, for the
// simulated engine (engine.hpp). One JSON file per GPU (architectures/<card>.json;
// the schema is docs/simulated-architectures.md). Every number in it is a
// cited leaf, {"value": ..., "cite": "<source key>[: where]"}, the key naming
// an entry of the file's "sources".
//
// Descriptions come from anyone, so the reader treats them like any hostile
// input: a bounded file, no unknown field, every value in a stated range and
// physically consistent (a line no larger than its cache, near L2 no larger
// than L2, ...); errors name the file, the field and the value.
#include "kernels/device_facts.hpp"
#include "kernels/engine.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_topology::simulate {

// A described constant L1.5 is at least this many times as slow as the constant L1 (the cards
// described: 1.46-6): closer, the capacity search takes the two for one level.
inline constexpr double kLeastL15OverConstantL1 = 1.4;

inline constexpr std::string_view kArchitectureSchema = "gpu-topology-arch/1";
// A description is a few kilobytes; the bound keeps a hostile one from costing memory.
inline constexpr std::uintmax_t kMaxDescriptionBytes = 1 << 20;

class DescriptionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// How a cache picks the set of a line: the line number modulo the sets, or the
// same rotated per aligned block of `sets` lines by a hash of the block (an
// address-bit hash: consecutive lines still spread evenly, strided ones do not
// pile up in a few sets).
enum class SetIndex : std::uint8_t { modulo, hashed };
// Which line of a full set a miss replaces.
enum class Replacement : std::uint8_t { lru, random };

struct CacheGeometry {
    std::uint64_t bytes = 0;        // data capacity
    std::uint32_t line_bytes = 128;  // tag granularity: capacity counts in lines
    std::uint32_t fill_bytes = 32;   // what a miss brings from the level behind (sector)
    // Either the ways (sets follow from the capacity) or, for a cache whose
    // capacity moves with a split, the sets (ways follow); neither: fully associative.
    std::uint32_t ways = 0;
    std::uint32_t sets = 0;
    SetIndex index = SetIndex::hashed;
    Replacement replacement = Replacement::lru;
};

// A latency distribution: its median, the width from the 5th to the 95th
// percentile, and, for L2, how that width splits between the place of a line
// (which slice holds it: the same for every load of it) and each load.
struct Latency {
    double cycles = 0;
    double spread_cycles = 0;
};

// The driver's choice of a split for one kind of kernel (docs/l1-effective-capacity.md).
struct ThreadStep {
    std::uint32_t threads_at_most = 0;
    std::uint64_t bytes = 0;
};
enum class DefaultSplit : std::uint8_t {
    occupancy,   // as much shared memory as the blocks the block size allows need (Programming Guide)
    least,       // as carveout 0: only what the launch needs
    by_threads,  // a table by block size
};
struct KindRule {
    double percent_of_bytes = 0;              // what a carveout of 100 % asks for
    std::vector<ThreadStep> least_by_threads;  // the smallest split a block size gets, whatever the carveout
    DefaultSplit default_split = DefaultSplit::occupancy;
    std::vector<ThreadStep> default_by_threads;
};
struct SplitException {
    kernels::ChaseKernel kernel = kernels::ChaseKernel::plain;
    std::uint32_t declared_bytes = 0;
    std::uint32_t threads = 0;
    int carveout_percent = -1;
    std::uint64_t shared_bytes = 0;
};
struct SplitRule {
    std::vector<std::uint64_t> supported_shared_bytes;  // ascending
    std::uint32_t allocation_unit_bytes = 128;          // the occupancy calculator's per-block rounding
    KindRule none, fixed, dynamic;                      // plain kernel without / probe kernel / with dynamic shared memory
    std::vector<SplitException> exceptions;
};

// A load path into the unified L1 storage.
struct UnifiedPath {
    bool described = true;  // false: no source; it answers as the L1 path does
    double hit_cycles = 0;
    double miss_extra_cycles = 0;  // added to the latency of the level behind L1 that serves a miss
    std::uint32_t line_bytes = 0;  // its tag granularity in the shared storage
    SetIndex index = SetIndex::hashed;
};

struct UnifiedL1 {
    std::uint64_t bytes = 0;          // L1 + shared memory of one SM
    std::uint64_t unusable_bytes = 0;  // of the L1 part, never holding a chased line
    CacheGeometry geometry;            // bytes: set per launch; line, fill, ways, index, replacement
    double spread_cycles = 0;
    double bandwidth_bytes_per_cycle = 0;  // per SM (0: not described: one row of the shared-memory banks a cycle)
    std::uint32_t instances_per_sm = 1;
    UnifiedPath l1, readonly, texture;
    SplitRule split;
};

struct SharedMemory {
    Latency latency;
    bool latency_described = true;  // false: no source; it answers at the L1 hit latency
    std::uint32_t banks = 32, bank_bytes = 4;
    double conflict_latency_cycles = 0, conflict_issue_cycles = 0, issue_cycles = 1;
    double bandwidth_bytes_per_cycle = 0;  // per SM (0: not described)
};

struct ConstantCaches {
    bool described = true;  // false: no source; the defaults below answer, and no verdict is given
    CacheGeometry l1{.bytes = 2048, .line_bytes = 64, .fill_bytes = 64};
    CacheGeometry l15{.bytes = 4 * 65536, .line_bytes = 256, .fill_bytes = 256};
    bool l15_beyond_array = true;  // described only as larger than the 64 KiB a module may declare
    Latency l1_hit, l15_hit;
    double miss_extra_cycles = 0;  // an L1.5 miss, on top of where L2 or DRAM serves it
    std::uint32_t l1_instances_per_sm = 1;
};

struct L2Cache {
    CacheGeometry geometry;              // bytes = the API's L2
    std::uint32_t dram_fetch_bytes = 32;  // what a miss brings from DRAM
    bool dram_fetch_described = true;
    std::uint64_t near_bytes = 0;         // what one SM reuses at near latency (= bytes: uniform)
    Latency near;
    std::optional<Latency> far;           // none: a uniform L2
    double slice_spread_cycles = 0;       // of near.spread, the part fixed per line
    double bandwidth_bytes_per_s = 0;  // 0: not described (the SMs keep in flight what saturates L1 at its latency)
    std::optional<double> far_bandwidth_bytes_per_s;
};

struct Dram {
    Latency latency;
    double bandwidth_bytes_per_s = 0;
};

struct TlbLevel {
    std::uint32_t entries = 0;
    std::uint64_t coverage_bytes = 0;
    std::uint32_t ways = 0;  // 0: fully associative
    double miss_cycles = 0;  // added when this level misses
};

struct Cluster {
    std::uint32_t max_blocks = 0;
    Latency dsmem;                 // a neighbour block's shared memory
    double far_extra_cycles = 0;   // the last block of the largest cluster, beyond the neighbour
    double bandwidth_bytes_per_s = 0;  // every SM reading a neighbour's shared memory, clusters of 2 (0: not described)
    double large_cluster_share = 1;    // of that rate, what clusters of 4 and more reach
};

struct Links {
    std::uint32_t devices = 2;
    std::string transport = "nvlink";
    std::uint32_t nvlinks = 0;
    double sm_read_bytes_per_s = 0, copy_bytes_per_s = 0, sm_write_bytes_per_s = 0;
    double latency_ns = 0;
    bool latency_described = true;  // false: no source; a remote load costs a local DRAM load
};

// What the run adds to the hierarchy: its defaults are stated in
// docs/simulated-architectures.md and a description may override them.
struct Noise {
    double jitter_cycles = 0.6;       // added to every load (standard deviation)
    double outlier_rate = 2e-4;       // share of loads delayed by an interrupt or a refresh
    double outlier_cycles = 2000;
    double clock_drift = 0.005;       // relative amplitude of the SM clock's slow wander
    double busy_sm_share = 0.5;       // --busy: the share of SMs the other workload takes
    double busy_episode_calls = 400;  // --busy: mean engine calls between episodes (and of one)
};

// A number's citation: the key of its source and where in it.
struct Citation {
    std::string cite;
    std::string method;
    std::string note;
};

struct Architecture {
    std::string file;  // where it was read (errors and the profile's source name it)
    std::string name;  // what the runtime would call the device
    std::map<std::string, std::string> sources;
    std::map<std::string, Citation> citations;  // field path -> its citation

    kernels::DeviceFacts facts;  // what cudaGetDeviceProperties reports: all the stages are told
    std::uint64_t texture_max_texels = 1u << 28;
    double sm_clock_khz = 0;  // while the probe runs
    double timer_overhead_cycles = 0;

    UnifiedL1 unified;
    SharedMemory shared;
    ConstantCaches constant;
    L2Cache l2;
    Dram dram;
    std::vector<TlbLevel> tlb;  // first level first
    std::optional<Cluster> cluster;  // from cc 9.0 on; absent there: not described
    std::optional<Links> links;
    Noise noise;

    // Per quantity (kQuantities name): how much a recovered value may differ
    // from the described one because the source measured it another way.
    struct Allowance {
        double relative = 0, at_least = 0;
        std::string why;
    };
    std::map<std::string, Allowance> allowances;
};

// Reads and checks `file`; throws DescriptionError naming the file, the field and the value.
Architecture load_architecture(const std::filesystem::path& file);
// The same from text (`file` names it in errors and in the profile's source).
Architecture parse_architecture(std::string_view text, const std::string& file);

}  // namespace gpu_topology::simulate
