// Stages: the texture and read-only paths, the constant caches, which caches
// share storage, and the random-order cross-checks.
#include "probe_context.hpp"

#include <algorithm>

namespace gpu_topology::stages {

using kernels::LoadPath;
using model::id;

namespace {

void store(ProbeContext& ctx, const CacheResult& cache) {
    for (auto& [q, result] : cache_results(cache, ctx.scratch.timer_uncertainty)) ctx.set(q, std::move(result));
}

}  // namespace

void cross_check_fetches_served_by(ProbeContext& ctx, const CacheResult& cache) {
    if (!cache.sector || !cache.miss) return;
    const double miss = cache.miss->summary.p50;
    ctx.cross_check({.name = std::string(cache.key()) + ": first-touch fetches are served by " + cache.miss_level,
               .expected = miss, .measured = cache.sector->slow_p50, .tolerance = 0.35 * miss,
               .detail = "median latency of the fetches of the first-touch pass against the path's miss latency; "
                         "slower means the region left L2 before it was touched, faster that the miss ring "
                         "reached past " + cache.miss_level,
               .concerns = {cache.row->quantities.sector, cache.row->quantities.miss_latency,
                            cache.row->quantities.miss_penalty}});
}

void run_texture_readonly(ProbeContext& ctx) {
    std::erase_if(ctx.scratch.unified, [](const CacheResult& c) { return c.row != &kUnifiedL1Paths[0]; });
    for (std::size_t i = 1; i < kUnifiedL1Paths.size(); ++i) {
        // Nothing chased that far through L1 before: L1 rings stay below it, the others bypass L1.
        const FamilyPlan plan{.max_l1_bytes = ctx.l1_search_bound(), .fresh_offset = ctx.unified_first_touch_offset(i),
                              .miss_bytes = near_l2_ring_bytes(ctx.facts), .carveout_percent = 0};
        auto cache = measure_unified_l1_path(ctx.runner, kUnifiedL1Paths[i], plan, ctx.progress, std::nullopt);
        store(ctx, cache);
        cross_check_fetches_served_by(ctx, cache);
        const auto* l1_size = ctx.scratch.l1_at.count(0) ? &ctx.scratch.l1_at[0] : nullptr;
        if (l1_size && l1_size->found && cache.size.found) {
            const double expected = double(l1_size->capacity_bytes);
            ctx.cross_check({.name = std::string(cache.key()) + ": capacity agrees with L1 data at the same carveout",
                       .expected = expected, .measured = double(cache.size_bytes()),
                       .tolerance = std::max(0.02 * expected, 2.0 * KiB),
                       .detail = "one unified L1 storage serves ld.global.ca, tex1Dfetch and ld.global.nc",
                       .concerns = {cache.row->quantities.size}});
        }
        ctx.scratch.unified.push_back(std::move(cache));
    }
}

void run_constant_caches(ProbeContext& ctx) {
    auto caches = measure_constant_caches(ctx.runner, ctx.progress);
    ctx.scratch.constant.clear();
    for (auto& cache : caches) {
        store(ctx, cache);
        ctx.scratch.constant.push_back(std::move(cache));
    }
}

void run_sharing(ProbeContext& ctx) {
    std::vector<const CacheResult*> caches;
    for (const auto& c : ctx.scratch.unified) caches.push_back(&c);
    if (!ctx.scratch.constant.empty()) caches.push_back(&ctx.scratch.constant.front());
    const std::string method =
        "eviction test in one block on one SM: warm half of the smaller cache once through its path, chase 1.5 times "
        "the larger cache twice through the other path, time the first again";
    for (const auto& s : measure_sharing(ctx.runner, caches, 0, ctx.progress)) {
        const std::string pair = std::string(s.a) + "_" + std::string(s.b);
        for (const auto& q : model::kQuantities)
            if (q.object() == "sharing" && q.member() == pair) ctx.set(model::find(q.name), sharing_result(s.decision, method));
    }
}

void run_random_order(ProbeContext& ctx) {
    const auto& l1 = ctx.scratch.l1_at_carveout(0);
    ctx.progress.step("L1 size, carveout 0%, random order");
    // Each random-order search starts at the sequential capacity (find_capacity_near): two
    // footprints when the orders agree, a bracket narrowed from there when they do not.
    auto l1_question = unified_l1_size_question(LoadPath::l1, 0, Order::random, "l1_size_carveout0_random",
                                                ctx.l1_search_bound(), 0, ctx.scratch.l1_size_stride);
    if (l1.found) l1_question.hints = {l1.capacity_bytes};
    const auto l1_random = measure_capacity(ctx.runner, l1_question);
    ctx.progress.done(bytes_text(l1_random.capacity_bytes));
    ctx.cross_check({.name = "l1: random order agrees with sequential", .expected = double(l1.capacity_bytes),
               .measured = double(l1_random.capacity_bytes),
               .tolerance = std::max(0.02 * double(l1.capacity_bytes), 2.0 * KiB),
               .detail = "same carveout, ring visited in random order", .concerns = {kUnifiedL1Paths[0].quantities.size}});

    const auto& near = Scratch::required(ctx.scratch.l2_near, "the near L2 capacity of stage 'l2 size'");
    ctx.progress.step("L2 near capacity, random order");
    auto l2_random_question = l2_question(ctx, Order::random, "l2_near_size_random");
    if (near.found) l2_random_question.hints = {near.capacity_bytes};
    const auto l2_random = measure_capacity(ctx.runner, l2_random_question);
    ctx.progress.done(bytes_text(l2_random.capacity_bytes));
    ctx.cross_check({.name = "l2: random order agrees with sequential", .expected = double(near.capacity_bytes),
               .measured = double(l2_random.capacity_bytes), .tolerance = l2_tolerance(near, l2_step_bytes(ctx)),
               .detail = "ring visited in random order", .concerns = {id("L2_NEAR_SIZE_BYTES")}});
}

}  // namespace gpu_topology::stages
