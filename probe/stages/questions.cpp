#include "questions.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace gpu_topology::stages {

analysis::CapacityEstimate measure_capacity(SweepRunner& runner, const CapacityQuestion& q) {
    analysis::CapacitySearchOptions options;
    options.reference_bytes = q.reference_bytes;
    options.step_bytes = q.step_bytes;
    options.max_bytes = q.max_bytes;
    SweepSpec spec = q.spec;
    spec.whole_pass = true;  // every line's fate decides whether a footprint fits
    const auto measure = [&](std::uint64_t footprint) { return runner.measure(spec, footprint); };
    auto estimate = q.hints.empty() && !q.reference
                        ? analysis::find_capacity(measure, options)
                        : analysis::find_capacity_near(measure, options, q.hints, q.reference ? &*q.reference : nullptr);
    estimate.trace.name = q.spec.name;
    estimate.trace.meta["path"] = std::string(kernels::to_string(q.spec.path));
    estimate.trace.meta["stride_bytes"] = std::to_string(q.spec.stride_bytes);
    estimate.trace.meta["order"] = std::string(to_string(q.spec.order));
    estimate.trace.meta["carveout_percent"] = std::to_string(q.spec.carveout_percent);
    estimate.trace.meta["overhead_cycles"] = std::to_string(runner.overhead().cycles);
    if (q.spec.threads_per_block) estimate.trace.meta["threads_per_block"] = std::to_string(q.spec.threads_per_block);
    if (q.spec.kernel != kernels::ChaseKernel::probe) {
        estimate.trace.meta["kernel"] = std::string(kernels::to_string(q.spec.kernel));
        estimate.trace.meta["dynamic_shared_bytes"] = std::to_string(q.spec.dynamic_shared_bytes);
    }
    if (q.spec.offset) estimate.trace.meta["offset_bytes"] = std::to_string(q.spec.offset);
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
        q.max_bytes = std::min<std::uint64_t>(static_cast<std::uint64_t>(double(base.max_bytes) * scale),
                                              runner.engine().ring_capacity(base.spec.path));
        q.step_bytes = std::max<std::uint64_t>(stride, static_cast<std::uint64_t>(double(base.step_bytes) * scale) / stride * stride);
        q.reference_bytes = std::max<std::uint64_t>(base.reference_bytes, stride * 16);
        if (q.max_bytes <= q.reference_bytes) continue;  // the path cannot hold a ring that long
        // Where the span would be for each line, from the span already known: the search
        // confirms one with two footprints, or narrows its bracket with each.
        if (known) q.hints = analysis::spans_if_line(*known, stride);
        const auto estimate = measure_capacity(runner, q);
        if (estimate.found) answer.spans.push_back({stride, estimate.capacity_bytes});
    }
    answer.line = analysis::line_from_spans(answer.spans);
    return answer;
}

BandwidthAnswer measure_read_bandwidth(kernels::Engine& engine, const kernels::ReadRequest& request,
                                       std::uint32_t sm_count, unsigned repeats) {
    engine.time_read(request);
    const double bytes = double(kernels::bytes_read(request, sm_count));
    const bool rereads = request.pattern == kernels::ReadPattern::block_private ||
                         request.pattern == kernels::ReadPattern::shared;
    auto twice = request;
    twice.passes *= 2;
    std::vector<double> rates;
    for (unsigned i = 0; i < repeats; ++i) {
        const double once = engine.time_read(request);
        if (!rereads) {
            rates.push_back(bytes / once);
            continue;
        }
        const double extra = engine.time_read(twice) - once;
        if (extra > 0) rates.push_back(bytes / extra);
    }
    // Twice the passes never taking longer than once gives no rate (bandwidth_result: unmeasured).
    const double median = rates.empty() ? 0.0 : analysis::median(rates);
    return {std::move(rates), median, request};
}

namespace {

std::map<std::string, std::string> cold_meta(kernels::LoadPath path, std::uint32_t stride_bytes) {
    return {{"path", std::string(kernels::to_string(path))},
            {"stride_bytes", std::to_string(stride_bytes)},
            {"order", "sequential"},
            {"warm_passes", "0"}};
}

}  // namespace

GranularityAnswer measure_fetch_granularity(SweepRunner& runner, kernels::LoadPath path, std::size_t offset,
                                            const std::string& name, std::size_t evict_offset,
                                            std::size_t evict_bytes) {
    using kernels::LoadPath;
    auto& engine = runner.engine();
    constexpr std::uint32_t kElements = 1024;  // 8 KiB touched once, 8 bytes apart
    const auto ring = engine.link_sequential(path, offset, kElements, 8);
    switch (path) {
        case LoadPath::l1:
        case LoadPath::readonly:
        case LoadPath::texture:
            // Into L2 without touching L1 (streaming loads do not allocate there).
            engine.stream_l2(offset, ring.footprint_bytes());
            break;
        case LoadPath::l2:
            if (evict_bytes == 0) throw std::invalid_argument("L2 fetch granularity needs a region to evict L2 with");
            engine.stream_l2(evict_offset, evict_bytes);
            break;
        case LoadPath::constant: break;
        case LoadPath::none:
        case LoadPath::shared: throw std::invalid_argument("no fetch granularity for " + std::string(to_string(path)));
    }
    const auto result =
        engine.chase({.path = path, .ring = ring, .warm_passes = 0, .timed_steps = kElements, .max_samples = kElements});
    GranularityAnswer answer;
    answer.sweep = runner.single_point_sweep(name, cold_meta(path, 8), runner.point_from(result, ring.footprint_bytes()));
    answer.granularity = analysis::fetch_granularity(answer.sweep.points.front().cycles, 8);
    return answer;
}

LatencyAnswer measure_latency(SweepRunner& runner, SweepSpec spec, std::uint64_t footprint_bytes) {
    const auto sweep = runner.run(spec, {footprint_bytes});
    const auto& point = sweep.points.front();
    return {analysis::summarize(point.cycles), point.cycles, point.footprint_bytes};
}

LatencyAnswer measure_cold_latency(SweepRunner& runner, kernels::LoadPath path, std::size_t offset,
                                   std::uint32_t elements, std::uint32_t stride_bytes, const std::string& name) {
    auto& engine = runner.engine();
    const auto ring = engine.link_sequential(path, offset, elements, stride_bytes);
    const auto result =
        engine.chase({.path = path, .ring = ring, .warm_passes = 0, .timed_steps = elements, .max_samples = elements});
    const auto sweep =
        runner.single_point_sweep(name, cold_meta(path, stride_bytes), runner.point_from(result, ring.footprint_bytes()));
    const auto& point = sweep.points.front();
    return {analysis::summarize(point.cycles), point.cycles, ring.footprint_bytes()};
}

EvictionAnswer measure_eviction(SweepRunner& runner, const RingUse& victim, const RingUse& other,
                                int carveout_percent, const std::string& name) {
    auto& engine = runner.engine();
    const auto link = [&](const RingUse& use) {
        const auto elements = std::max<std::uint64_t>(1, use.footprint_bytes / use.stride_bytes);
        return engine.link_sequential(use.path, use.offset, static_cast<std::uint32_t>(elements), use.stride_bytes);
    };
    const auto victim_ring = link(victim);
    const auto other_ring = link(other);
    const kernels::ChaseRequest request{.path = victim.path,
                                        .ring = victim_ring,
                                        .warm_passes = victim.passes,
                                        .timed_steps = victim_ring.elements,
                                        .max_samples = victim_ring.elements,
                                        .carveout_percent = carveout_percent};
    kernels::Disturbance disturbance{.path = other.path, .ring = other_ring, .passes = 0, .warp = other.warp};
    const std::map<std::string, std::string> meta{
        {"path", std::string(kernels::to_string(victim.path))},
        {"victim_passes", std::to_string(victim.passes)},
        {"other_path", std::string(kernels::to_string(other.path))},
        {"other_footprint_bytes", std::to_string(other_ring.footprint_bytes())},
        {"other_passes", std::to_string(other.passes)},
        {"other_warp", std::to_string(other.warp)},
        {"stride_bytes", std::to_string(victim.stride_bytes)},
        {"other_stride_bytes", std::to_string(other.stride_bytes)},
        {"carveout_percent", std::to_string(carveout_percent)}};

    // Each repeat is a fresh launch: the same cold start, the same disturbance.
    const std::uint32_t repeats = std::clamp<std::uint32_t>(512 / victim_ring.elements, 1, 64);
    auto timed = [&](std::uint32_t other_passes) {
        disturbance.passes = other_passes;
        analysis::SweepPoint pooled{.footprint_bytes = victim_ring.footprint_bytes()};
        for (std::uint32_t r = 0; r < repeats; ++r) {
            const auto point = runner.point_from(engine.chase_after(request, disturbance), victim_ring.footprint_bytes());
            pooled.cycles.insert(pooled.cycles.end(), point.cycles.begin(), point.cycles.end());
        }
        return pooled;
    };
    EvictionAnswer answer;
    answer.alone = runner.single_point_sweep(name + "_alone", meta, timed(0));
    answer.disturbed = runner.single_point_sweep(name + "_disturbed", meta, timed(other.passes));
    answer.decision =
        analysis::decide_eviction(answer.alone.points.front().cycles, answer.disturbed.points.front().cycles);
    return answer;
}

}  // namespace gpu_topology::stages
