#pragma once
// One driver per question, reused for every cache: how big (capacity), what
// line (spans at several strides), what fetch granularity (first touch), how
// slow (latency). Each takes the load path as a parameter.
#include "../analysis/granularity.hpp"
#include "../analysis/size_search.hpp"
#include "../analysis/statistics.hpp"
#include "sweep_runner.hpp"

#include <optional>
#include <vector>

namespace gpu_topology::benchmarks {

struct CapacityQuestion {
    SweepSpec spec;                   // path, stride, order, carveout
    std::uint64_t reference_bytes;    // surely resident
    std::uint64_t step_bytes;         // resolution
    std::uint64_t max_bytes;
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
// region sits in the level behind the one measured: in L2 (not L1) for the L1
// path; only in DRAM for the L2 path, after L2 is flushed by streaming
// `flush_bytes` at `flush_offset` (linking the ring wrote it into L2).
GranularityAnswer measure_fetch_granularity(SweepRunner& runner, kernels::LoadPath path, std::size_t offset,
                                            const std::string& name, std::size_t flush_offset = 0,
                                            std::size_t flush_bytes = 0);

struct LatencyAnswer {
    analysis::LatencySummary summary;
    std::uint64_t footprint_bytes = 0;
};
LatencyAnswer measure_latency(SweepRunner& runner, SweepSpec spec, std::uint64_t footprint_bytes);

}  // namespace gpu_topology::benchmarks
