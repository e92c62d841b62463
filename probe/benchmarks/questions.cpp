#include "questions.hpp"

#include <stdexcept>

namespace gpu_topology::benchmarks {

analysis::CapacityEstimate measure_capacity(SweepRunner& runner, const CapacityQuestion& q) {
    analysis::CapacitySearchOptions options;
    options.reference_bytes = q.reference_bytes;
    options.step_bytes = q.step_bytes;
    options.max_bytes = q.max_bytes;
    auto estimate = analysis::find_capacity(
        [&](std::uint64_t footprint) { return runner.measure(q.spec, footprint); }, options);
    estimate.trace.name = q.spec.name;
    estimate.trace.meta["path"] = std::string(kernels::to_string(q.spec.path));
    estimate.trace.meta["stride_bytes"] = std::to_string(q.spec.stride_bytes);
    estimate.trace.meta["order"] = q.spec.order == Order::random ? "random" : "sequential";
    estimate.trace.meta["carveout_percent"] = std::to_string(q.spec.carveout_percent);
    estimate.trace.meta["overhead_cycles"] = std::to_string(runner.overhead_cycles());
    estimate.trace.meta["capacity_bytes"] = std::to_string(estimate.capacity_bytes);
    runner.record(estimate.trace);
    return estimate;
}

LineAnswer measure_line(SweepRunner& runner, const CapacityQuestion& base, const std::vector<std::uint32_t>& strides,
                        const std::optional<analysis::StrideSpan>& known) {
    LineAnswer answer;
    for (auto stride : strides) {
        if (known && known->stride_bytes == stride) {
            answer.spans.push_back(*known);
            continue;
        }
        CapacityQuestion q = base;
        q.spec.stride_bytes = stride;
        q.spec.name = base.spec.name + "_stride" + std::to_string(stride);
        // The span grows with stride/line beyond the line: search far enough, in proportional steps.
        const double scale = std::max(1.0, double(stride) / base.spec.stride_bytes);
        q.max_bytes = static_cast<std::uint64_t>(double(base.max_bytes) * scale);
        q.step_bytes = std::max<std::uint64_t>(stride, static_cast<std::uint64_t>(double(base.step_bytes) * scale) / stride * stride);
        q.reference_bytes = std::max<std::uint64_t>(base.reference_bytes, stride * 16);
        const auto estimate = measure_capacity(runner, q);
        if (estimate.found) answer.spans.push_back({stride, estimate.capacity_bytes});
    }
    answer.line = analysis::line_from_spans(answer.spans);
    return answer;
}

GranularityAnswer measure_fetch_granularity(SweepRunner& runner, kernels::LoadPath path, std::size_t offset,
                                            const std::string& name, std::size_t flush_offset,
                                            std::size_t flush_bytes) {
    auto& engine = runner.engine();
    constexpr std::uint32_t kElements = 1024;  // 8 KiB touched once, 8 bytes apart
    const auto ring = engine.link_sequential(offset, kElements, 8);
    if (path == kernels::LoadPath::l1) {
        // Put the region in L2 without touching L1 (the L2 path does not allocate in L1).
        engine.chase({.path = kernels::LoadPath::l2, .ring = ring, .warm_passes = 1, .timed_steps = 0});
    } else if (path == kernels::LoadPath::l2) {
        if (flush_bytes == 0) throw std::invalid_argument("L2 fetch granularity needs a flush region");
        engine.flush_l2(flush_offset, flush_bytes);
    }
    kernels::ChaseRequest cold{.path = path, .ring = ring, .warm_passes = 0, .timed_steps = kElements,
                               .max_samples = kElements};
    const auto result = engine.chase(cold);
    GranularityAnswer answer;
    answer.sweep.name = name;
    answer.sweep.meta = {{"path", std::string(kernels::to_string(path))}, {"stride_bytes", "8"}, {"order", "sequential"},
                         {"warm_passes", "0"}, {"overhead_cycles", std::to_string(runner.overhead_cycles())}};
    analysis::SweepPoint point{.footprint_bytes = std::uint64_t(kElements) * 8};
    for (auto c : result.cycles) point.cycles.push_back(double(c) - runner.overhead_cycles());
    answer.granularity = analysis::fetch_granularity(point.cycles, 8);
    answer.sweep.points.push_back(std::move(point));
    runner.record(answer.sweep);
    return answer;
}

LatencyAnswer measure_latency(SweepRunner& runner, SweepSpec spec, std::uint64_t footprint_bytes) {
    const auto sweep = runner.run(spec, {footprint_bytes});
    return {analysis::summarize(sweep.points.front().cycles), sweep.points.front().footprint_bytes};
}

}  // namespace gpu_topology::benchmarks
