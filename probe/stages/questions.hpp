#pragma once
// One driver per question, reused for every cache: how big (capacity), what
// line (spans at several strides), what fetch granularity (first touch), how
// slow (latency). Each takes the load path as a parameter.
#include "analysis/granularity.hpp"
#include "analysis/sharing.hpp"
#include "analysis/size_search.hpp"
#include "analysis/statistics.hpp"
#include "sweep_runner.hpp"

#include <optional>
#include <vector>

namespace gpu_topology::stages {

struct CapacityQuestion {
    SweepSpec spec;                   // path, stride, order, carveout
    std::uint64_t reference_bytes;    // surely resident
    std::uint64_t step_bytes;         // resolution
    std::uint64_t max_bytes;
    // Capacities of similar launches, tried first, and an all-hit footprint of the
    // same kernel measured before (analysis::find_capacity_near).
    std::vector<std::uint64_t> hints = {};
    std::optional<analysis::SweepPoint> reference = {};
};
analysis::CapacityEstimate measure_capacity(SweepRunner& runner, const CapacityQuestion& question);

struct LineAnswer {
    std::vector<analysis::StrideSpan> spans;
    std::optional<analysis::LineEstimate> line;
};
// Capacity spans at each stride; the base question's stride is one of them.
LineAnswer measure_line(SweepRunner& runner, const CapacityQuestion& base, const std::vector<std::uint32_t>& strides,
                        const std::optional<analysis::StrideSpan>& known);

struct GranularityAnswer {
    std::optional<analysis::Granularity> granularity;
    analysis::Sweep sweep;
};
// First touch, every 8 bytes, of a region at `offset` through `path`, once the
// region sits in the level behind the one measured: in L2 (not L1) for the
// L1, read-only and texture paths; only in DRAM for the L2 path, after L2 is
// evicted by streaming `evict_bytes` at `evict_offset`; wherever the host copy
// left it for the constant path (the constant caches have not seen it).
GranularityAnswer measure_fetch_granularity(SweepRunner& runner, kernels::LoadPath path, std::size_t offset,
                                            const std::string& name, std::size_t evict_offset = 0,
                                            std::size_t evict_bytes = 0);

// The latency of one ring, and its samples (for the result's confidence).
struct LatencyAnswer {
    analysis::LatencySummary summary;
    std::vector<double> samples;
    std::uint64_t footprint_bytes = 0;
};
LatencyAnswer measure_latency(SweepRunner& runner, SweepSpec spec, std::uint64_t footprint_bytes);

// Read bandwidth of every SM together: `request` timed `repeats` times after
// one untimed run (which brings a region that fits L2 into it, and the clocks up).
// Re-reads of what each block holds close by (block_private, shared) are
// timed at `passes` and at twice as many, and the rate is the extra passes'
// bytes over the extra time: the first pass, which fills L1 from L2, and the
// ramp of blocks cancel. Plain kernels measured that way reached about 126 of
// the 128 bytes an SM's L1 or shared memory can deliver per cycle
// (bench/user_kernels.cu, docs/records/bandwidth.md).
struct BandwidthAnswer {
    std::vector<double> bytes_per_s;  // one per repeat
    double median = 0;
    kernels::ReadRequest request;
};
BandwidthAnswer measure_read_bandwidth(kernels::Engine& engine, const kernels::ReadRequest& request,
                                       std::uint32_t sm_count, unsigned repeats = 5);

// One cold pass over a fresh ring whose stride exceeds the line: every load
// misses the level in front of `path` (a first touch).
LatencyAnswer measure_cold_latency(SweepRunner& runner, kernels::LoadPath path, std::size_t offset,
                                   std::uint32_t elements, std::uint32_t stride_bytes, const std::string& name);

// One side of an eviction experiment: a ring of `footprint_bytes` at `offset`
// (in the space of its path: the buffer, or the constant array) chased
// `passes` times through `path` by warp `warp` (the victim: warm-up passes).
struct RingUse {
    kernels::LoadPath path = kernels::LoadPath::l1;
    std::uint64_t footprint_bytes = 0;
    std::uint32_t stride_bytes = 128;
    std::size_t offset = 0;
    std::uint32_t warp = 0;
    std::uint32_t passes = 1;
};
struct EvictionAnswer {
    analysis::EvictionDecision decision;
    analysis::Sweep alone;      // the victim timed with the other traffic idle (<name>_alone)
    analysis::Sweep disturbed;  // the victim timed after the other traffic (<name>_disturbed)
};
// Warms `victim`, runs `other`, times `victim` again; compares with the same
// program when `other` stays idle. Both at `carveout_percent`. Small victims
// are repeated until each side has at least 512 timed loads.
//
// Warm the victim once and let the other traffic overflow the cache: Hopper's
// L1 keeps lines that were hit again against a stream of new ones (a victim
// warmed twice survived 1.5x its capacity of other traffic), so a victim that
// was reused would make every cache look private.
EvictionAnswer measure_eviction(SweepRunner& runner, const RingUse& victim, const RingUse& other,
                                int carveout_percent, const std::string& name);

}  // namespace gpu_topology::stages
