#include "cache_family.hpp"

#include "util/units.hpp"

#include <algorithm>

namespace gpu_topology::stages {
namespace {

using kernels::LoadPath;
using util::KiB;
using util::MiB;
constexpr std::uint32_t kSubPartitions = 4;  // Volta and later: four per SM

std::uint64_t round_up(std::uint64_t bytes, std::uint64_t unit) { return (bytes + unit - 1) / unit * unit; }

bool same_space(LoadPath a, LoadPath b) {
    // Global and texture rings both live in the engine's buffer; constant rings in the constant array.
    return (a == LoadPath::constant) == (b == LoadPath::constant);
}

// Size and latency rings step by the line: 128 B on the unified L1, 64 B on the constant path.
constexpr std::uint32_t kConstantStride = 64;
constexpr std::uint32_t ring_stride(LoadPath path) { return path == LoadPath::constant ? kConstantStride : 128; }

const std::string kInstanceMethod =
    "eviction test: warp 0 warms half the cache once, a warp on each other sub-partition (warps 1..3) chases 1.5 "
    "caches' worth twice, warp 0 is timed again; evicting warps share warp 0's instance";

// The eviction test's two rings: the victim is half of its cache, warmed once;
// the other traffic is one and a half times its cache, chased twice, so it
// overflows that cache whatever the replacement policy.
constexpr double kVictimShare = 0.5, kOtherShare = 1.5;

std::uint32_t stride_of(const CacheResult& cache) { return cache.ring_stride ? cache.ring_stride : ring_stride(cache.path()); }
std::uint64_t capacity_of(const CacheResult& cache) { return cache.ring_capacity ? cache.ring_capacity : cache.size_bytes(); }

RingUse victim_ring(const CacheResult& cache) {
    return {.path = cache.path(),
            .footprint_bytes = std::max<std::uint64_t>(std::uint64_t(kVictimShare * double(capacity_of(cache))),
                                                       stride_of(cache)),
            .stride_bytes = stride_of(cache),
            .passes = 1};
}

RingUse other_ring(const CacheResult& cache, const RingUse& victim, std::uint32_t warp) {
    const std::size_t offset = same_space(victim.path, cache.path()) ? round_up(victim.footprint_bytes, 4 * KiB) : 0;
    return {.path = cache.path(),
            .footprint_bytes = std::uint64_t(kOtherShare * double(capacity_of(cache))),
            .stride_bytes = stride_of(cache),
            .offset = offset,
            .warp = warp,
            .passes = 2};
}

// Rings wider than the lines: eviction rings step by the dense stride, over the span at it.
void ring_at_line(CacheResult& cache) {
    const std::uint32_t dense = dense_stride(cache.line, ring_stride(cache.path()));
    if (dense >= ring_stride(cache.path())) return;
    for (const auto& span : cache.line.spans)
        if (span.stride_bytes == dense) {
            cache.ring_stride = dense;
            cache.ring_capacity = span.span_bytes;
        }
}

// A ring that misses the cache and hits near L2: the plan's near ring, and at least twice
// what a ring of the latency chases' 128 B stride fits of the cache (a cache that evicts at
// random keeps about a fifth of such a ring; a line under 128 B lets the ring fit more than
// the cache's bytes). Unsized, at least the L1 search bound. Where near L2 ends before twice
// the cache, far L2 serves such a ring; the first-touch check then withdraws the miss latency
// (cross_check_fetches_served_by). Ending the ring where the hierarchy curve last saw near L2
// was tried: behind a cache that evicts at random the curve's near plateau can be a blend of
// its hits (draw 49042), and the ring then hit the cache.
std::uint64_t miss_ring_bytes(const CacheResult& cache, const FamilyPlan& plan) {
    if (!cache.size.found) return std::max(plan.miss_bytes, plan.max_l1_bytes);
    std::uint64_t held = cache.size_bytes();
    for (const auto& span : cache.line.spans)
        if (span.stride_bytes == 128) held = std::max(held, span.span_bytes);
    return std::max(plan.miss_bytes, (2 * held + KiB - 1) / KiB * KiB);
}

bool fits_path(SweepRunner& runner, const RingUse& use) {
    return use.offset + use.footprint_bytes <= runner.engine().ring_capacity(use.path);
}

// Warps 1..3 each disturb warp 0 through the same path; how many instances does the SM have?
void measure_instances(SweepRunner& runner, CacheResult& cache) {
    if (!cache.size.found) return;
    const RingUse victim = victim_ring(cache);
    std::vector<bool> evicted;
    for (std::uint32_t warp = 1; warp < kSubPartitions; ++warp) {
        const RingUse other = other_ring(cache, victim, warp);
        if (!fits_path(runner, other)) return;
        const auto answer =
            measure_eviction(runner, victim, other, cache.carveout_percent, std::string(cache.key()) + "_instances_warp" + std::to_string(warp));
        cache.instance_tests.push_back(answer.decision);
        evicted.push_back(answer.decision.evicted);
    }
    cache.per_sm = analysis::instances_per_sm(evicted, kSubPartitions);
}

std::string instances_text(const CacheResult& cache) {
    if (cache.instance_tests.empty()) return "not tested";
    return cache.per_sm ? std::to_string(*cache.per_sm) + " per SM" : "inconsistent";
}

}  // namespace

std::uint32_t dense_stride(const LineAnswer& answer, std::uint32_t ring_stride) {
    const auto& spans = answer.spans;
    const auto at_ring = std::find_if(spans.begin(), spans.end(), [&](const auto& s) { return s.stride_bytes == ring_stride; });
    std::optional<analysis::StrideSpan> least;
    for (const auto& s : spans)
        if (s.stride_bytes < ring_stride && (!least || s.span_bytes < least->span_bytes)) least = s;
    if (at_ring == spans.end() || !least) return ring_stride;
    const auto within = [&](std::uint64_t span) {
        return double(span) <= double(least->span_bytes) + std::max(0.02 * double(least->span_bytes), 4.0 * KiB);
    };
    if (within(at_ring->span_bytes)) return ring_stride;
    if (answer.line) return std::min(answer.line->line_bytes, ring_stride);
    std::uint32_t widest = least->stride_bytes;
    for (const auto& s : spans)
        if (s.stride_bytes < ring_stride && within(s.span_bytes)) widest = std::max(widest, s.stride_bytes);
    return widest;
}

CapacityQuestion unified_l1_size_question(LoadPath path, int carveout_percent, Order order, std::string name,
                                          std::uint64_t max_bytes, std::uint32_t threads_per_block,
                                          std::uint32_t stride_bytes) {
    return {{.name = std::move(name), .path = path, .stride_bytes = stride_bytes, .order = order,
             .carveout_percent = carveout_percent, .samples = 1024, .threads_per_block = threads_per_block},
            4 * KiB, 1 * KiB, max_bytes};
}

CacheResult measure_unified_l1_path(SweepRunner& runner, const CacheRow& row, const FamilyPlan& plan,
                                    Progress& progress, const std::optional<analysis::CapacityEstimate>& known_size) {
    CacheResult cache;
    cache.row = &row;
    cache.carveout_percent = plan.carveout_percent;
    const std::string label(row.label);
    const std::string key(row.key);
    const std::string path_name(kernels::to_string(row.path));

    const CapacityQuestion question =
        unified_l1_size_question(row.path, plan.carveout_percent, Order::sequential,
                                 key + "_size_carveout" + std::to_string(plan.carveout_percent), plan.max_l1_bytes);
    progress.step(label + " size, carveout " + std::to_string(plan.carveout_percent) + "%");
    cache.size = known_size ? *known_size : measure_capacity(runner, question);
    cache.size_method = kSizeMethod + ", " + path_name + ", stride 128 B, carveout " +
                        std::to_string(plan.carveout_percent) + "%";
    progress.done(cache.size.found ? bytes_text(cache.size_bytes()) : "not found");

    progress.step(label + " line (capacity span per stride)");
    CapacityQuestion span_question = question;
    span_question.spec.name = key + "_span";
    cache.line = measure_line(runner, span_question, {32, 64, 128, 256, 512},
                              analysis::StrideSpan{128, cache.size_bytes()});
    progress.done(cache.line.line ? std::to_string(cache.line.line->line_bytes) + " B" : "not found");
    // Lines under the size rings' stride leave each line partly empty: such a ring fits more
    // than the cache holds. A path that sizes itself here sizes again at the dense stride.
    const std::uint32_t dense = dense_stride(cache.line);
    if (!known_size && dense < kUnifiedRingStride && cache.size.found) {
        const bool at_line = cache.line.line && cache.line.line->line_bytes == dense;
        progress.step(label + " size at " + std::to_string(dense) + " B" + (at_line ? ", its line" : ""));
        cache.size = measure_capacity(runner, unified_l1_size_question(row.path, plan.carveout_percent, Order::sequential,
                                                                       key + "_size_stride" + std::to_string(dense),
                                                                       plan.max_l1_bytes, 0, dense));
        cache.size_method = kSizeMethod + ", " + path_name + ", stride " + std::to_string(dense) + " B (" +
                            (at_line ? "its line" : "the widest stride that spans no more than narrower ones") +
                            "), carveout " + std::to_string(plan.carveout_percent) + "%";
        progress.done(cache.size.found ? bytes_text(cache.size_bytes()) : "not found");
    }
    ring_at_line(cache);

    progress.step(label + " fetch granularity (first touch)");
    cache.sector = measure_fetch_granularity(runner, row.path, plan.fresh_offset, key + "_first_touch").granularity;
    cache.sector_method = "first touch every 8 B of data resident in L2: distance between misses";
    progress.done(cache.sector ? std::to_string(cache.sector->bytes) + " B" : "not found");

    progress.step(label + " hit and miss latency");
    const SweepSpec latency{.name = key + "_latency",
                            .path = row.path,
                            .stride_bytes = 128,
                            .carveout_percent = plan.carveout_percent,
                            .samples = 2048,
                            .min_timed_steps = 4096};
    cache.hit = measure_latency(runner, latency, 16 * KiB);
    SweepSpec miss = latency;
    miss.name = key + "_miss_latency";
    cache.miss = measure_latency(runner, miss, miss_ring_bytes(cache, plan));
    cache.miss_level = "near L2";
    progress.done(cycles(cache.hit.summary) + ", miss " + cycles(cache.miss->summary));

    progress.step(label + " instances per SM");
    measure_instances(runner, cache);
    progress.done(instances_text(cache));
    return cache;
}

std::array<CacheResult, 2> measure_constant_caches(SweepRunner& runner, Progress& progress) {
    const std::uint64_t capacity = runner.engine().ring_capacity(LoadPath::constant);
    CacheResult l1, l15;
    l1.row = &kConstantL1;
    l15.row = &kConstantL15;

    // First touches before any ring has brought this part of the array near the SM.
    progress.step("constant L1.5 fetch granularity (first touch)");
    const auto first_touch = measure_fetch_granularity(runner, LoadPath::constant, capacity - 8 * KiB, "constant_first_touch");
    l15.sector = first_touch.granularity;
    l15.sector_method = "first touch every 8 B of constant data the constant caches have not seen: distance between "
                        "fetches from L2";
    progress.done(l15.sector ? std::to_string(l15.sector->bytes) + " B" : "not found");
    progress.step("constant L1.5 miss latency (first touch)");
    const auto cold = measure_cold_latency(runner, LoadPath::constant, capacity - 16 * KiB, 16, 512, "constant_cold");
    progress.done(cycles(cold.summary));

    const CapacityQuestion l1_question{
        {.name = "constant_l1_size", .path = LoadPath::constant, .stride_bytes = kConstantStride, .samples = 1024}, 256,
        kConstantStride, capacity / 2};
    progress.step("constant L1 size");
    l1.size = measure_capacity(runner, l1_question);
    l1.size_method = kSizeMethod + ", ld.const, stride 64 B";
    progress.done(l1.size.found ? bytes_text(l1.size_bytes()) : "not found");

    progress.step("constant L1 line (capacity span per stride)");
    CapacityQuestion span_question = l1_question;
    span_question.spec.name = "constant_l1_span";
    l1.line = measure_line(runner, span_question, {16, 32, 64, 128, 256}, analysis::StrideSpan{kConstantStride, l1.size_bytes()});
    progress.done(l1.line.line ? std::to_string(l1.line.line->line_bytes) + " B" : "not found");
    // A line under the ring's 64 B leaves each line partly empty: size again at the line.
    if (l1.line.line && l1.line.line->line_bytes < kConstantStride && l1.size.found) {
        const std::uint32_t line = l1.line.line->line_bytes;
        progress.step("constant L1 size at its " + std::to_string(line) + " B line");
        CapacityQuestion at_line = l1_question;
        at_line.spec.name = "constant_l1_size_stride" + std::to_string(line);
        at_line.spec.stride_bytes = line;
        at_line.step_bytes = line;
        l1.size = measure_capacity(runner, at_line);
        l1.size_method = kSizeMethod + ", ld.const, stride " + std::to_string(line) + " B (its line)";
        progress.done(l1.size.found ? bytes_text(l1.size_bytes()) : "not found");
        l1.ring_stride = line;
        l1.ring_capacity = l1.size_bytes();
    }

    // Loads that miss constant L1 and hit L1.5: sequential, every 8 B, over four L1 capacities.
    const std::uint64_t beyond_l1 = std::clamp<std::uint64_t>(round_up(4 * l1.size_bytes(), KiB), 4 * KiB, capacity / 2);
    progress.step("constant L1 fetch granularity (refill from L1.5)");
    const auto refill = runner.run({.name = "constant_l1_refill", .path = LoadPath::constant, .stride_bytes = 8,
                                    .samples = static_cast<std::uint32_t>(beyond_l1 / 8)},
                                   {beyond_l1});
    l1.sector = analysis::fetch_granularity(refill.points.front().cycles, 8);
    l1.sector_method = "sequential pass every 8 B over four constant-L1 capacities held in L1.5: distance between "
                       "constant-L1 misses";
    progress.done(l1.sector ? std::to_string(l1.sector->bytes) + " B" : "not found");

    progress.step("constant L1 and L1.5 hit latency");
    const SweepSpec latency{.name = "constant_l1_latency", .path = LoadPath::constant, .stride_bytes = kConstantStride,
                            .samples = 2048, .min_timed_steps = 4096};
    l1.hit = measure_latency(runner, latency,
                             std::clamp<std::uint64_t>(l1.size_bytes() / 2 / kConstantStride * kConstantStride,
                                                       kConstantStride, 1 * KiB));
    SweepSpec l15_latency = latency;
    l15_latency.name = "constant_l15_latency";
    l15.hit = measure_latency(runner, l15_latency, beyond_l1);
    l1.miss = l15.hit;
    l1.miss_level = "constant L1.5";
    l15.miss = cold;
    l15.miss_level = "L2 (first touch of data the host copied)";
    // A first touch shows three levels: constant L1 hits, L1.5 hits (an L1 line
    // fetched), L2 fetches. Two classes alone may split off the L1.5 hits with
    // the fetches (when the L1.5 is far slower than the L1): the fetches from
    // L2 are the loads slower than halfway from an L1.5 hit to a first touch.
    if (!first_touch.sweep.points.empty() && cold.summary.p50 > l15.hit.summary.p50)
        l15.sector = analysis::fetch_granularity(first_touch.sweep.points.front().cycles, 8,
                                                 (l15.hit.summary.p50 + cold.summary.p50) / 2);
    progress.done(cycles(l1.hit.summary) + "; L1.5 " + cycles(l15.hit.summary));

    progress.step("constant L1.5 size");
    const CapacityQuestion l15_question{
        {.name = "constant_l15_size", .path = LoadPath::constant, .stride_bytes = kConstantStride, .samples = 1024},
        beyond_l1,
        512, capacity};
    l15.size = measure_capacity(runner, l15_question);
    l15.size_is_lower_bound = !l15.size.found;
    l15.size_method = kSizeMethod + ", ld.const, stride 64 B, beyond the constant L1";
    progress.done(l15.size.found ? bytes_text(l15.size_bytes()) : "at least " + bytes_text(l15.size_bytes()) + " (64 KiB limit)");

    progress.step("constant L1 instances per SM");
    measure_instances(runner, l1);
    progress.done(instances_text(l1));
    if (l15.size.found) {
        progress.step("constant L1.5 instances per SM");
        measure_instances(runner, l15);
        progress.done(instances_text(l15));
    }
    return {std::move(l1), std::move(l15)};
}

std::vector<SharingResult> measure_sharing(SweepRunner& runner, const std::vector<const CacheResult*>& caches,
                                           int carveout_percent, Progress& progress) {
    std::vector<SharingResult> results;
    for (std::size_t i = 0; i < caches.size(); ++i) {
        for (std::size_t j = i + 1; j < caches.size(); ++j) {
            const CacheResult& a = *caches[i];
            const CacheResult& b = *caches[j];
            if (!a.size.found || !b.size.found) continue;
            // Victim: half the smaller cache; the other traffic overflows the larger one.
            const bool a_is_victim = a.size_bytes() <= b.size_bytes();
            const RingUse victim = victim_ring(a_is_victim ? a : b);
            const RingUse other = other_ring(a_is_victim ? b : a, victim, 0);
            if (!fits_path(runner, other)) continue;
            const std::string a_key(a.key()), b_key(b.key());
            progress.step("shared storage: " + a_key + " / " + b_key);
            const auto answer = measure_eviction(runner, victim, other, carveout_percent, "sharing_" + a_key + "_" + b_key);
            results.push_back({a.key(), b.key(), answer.decision});
            progress.done(answer.decision.evicted ? "same storage" : "separate");
        }
    }
    return results;
}

std::vector<std::pair<model::QuantityId, model::Result>> cache_results(const CacheResult& cache,
                                                                       double timer_uncertainty) {
    const CacheQuantities& q = cache.row->quantities;
    const std::string path(kernels::to_string(cache.path()));
    std::vector<std::pair<model::QuantityId, model::Result>> out;
    if (cache.size_is_lower_bound) {
        model::Estimate bound{.value = double(cache.size_bytes()), .method = cache.size_method, .lower_bound = true,
                              .bound_reason = "every footprint the path can hold fit: the " + bytes_text(cache.size_bytes()) +
                                              " of __constant__ data one module may declare"};
        bound.confidence = 1;
        out.emplace_back(q.size, bound);
    } else {
        out.emplace_back(q.size, size_result(cache.size, cache.size_method));
    }
    if (q.line != kNoQuantity)
        out.emplace_back(q.line, line_result(cache.line.line, cache.line.spans,
                                             "capacity span at several strides: largest stride whose span equals the "
                                             "smallest stride's"));
    out.emplace_back(q.sector, granularity_result(cache.sector, cache.sector_method));
    const auto hit = latency_result(cache.hit.summary, cache.hit.samples, cache.hit.footprint_bytes, timer_uncertainty,
                                    path + " pointer chase inside the cache, timer overhead subtracted");
    out.emplace_back(q.latency, hit);
    if (cache.miss) {
        const auto miss = latency_result(cache.miss->summary, cache.miss->samples, cache.miss->footprint_bytes,
                                         timer_uncertainty, path + " pointer chase served by " + cache.miss_level);
        if (q.miss_latency != kNoQuantity) out.emplace_back(q.miss_latency, miss);
        out.emplace_back(q.miss_penalty,
                         penalty_result(hit, miss, "miss latency (" + cache.miss_level + ") minus hit latency, medians"));
    } else {
        out.emplace_back(q.miss_penalty, model::unmeasured("no miss ring for this level"));
    }
    if (q.per_sm != kNoQuantity) out.emplace_back(q.per_sm, per_sm_result(cache.per_sm, cache.instance_tests, kInstanceMethod));
    return out;
}

}  // namespace gpu_topology::stages
