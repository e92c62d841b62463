// Stages: L1 capacity at the max-L1 and default carveouts, the L1 data path's
// other questions, and L1 per requested carveout and launch shape.
#include "probe_context.hpp"

namespace gpu_topology::benchmarks {

using kernels::LoadPath;
using model::id;

namespace {

const CacheRow& l1_row() { return kUnifiedL1Paths[0]; }

// Carveouts the quick level sizes L1 at: max L1 and the driver's choice.
constexpr int kQuickCarveouts[] = {0, -1};
// The full table. On Hopper the split moves in steps at small preferences
// (docs/l1-effective-capacity.md): dense below 10 %, then to the max-shared end.
constexpr int kCarveouts[] = {1, 3, 4, 5, 7, 10, 25, 50, 100};
// Launch shapes: 32 threads (an SM may hold the most blocks, each with its
// reserved shared memory), 256 and 1024 (two blocks of 1024 fill an SM).
constexpr std::uint32_t kShapes[] = {32, 256, 1024};
// The shape the quick level and the other stages chase with: one warp.
constexpr std::uint32_t kChaseThreads = 32;

analysis::CapacityEstimate size_l1(ProbeContext& ctx, int carveout, std::uint32_t threads = 0) {
    if (threads == kChaseThreads) threads = 0;  // the runner's own shape: one warp
    const std::string name = "l1_size_carveout" + carveout_name(carveout) +
                             (threads ? "_threads" + std::to_string(threads) : std::string{});
    ctx.progress.step("L1 size, carveout " + carveout_name(carveout) + (carveout >= 0 ? "%" : "") +
                      (threads ? ", " + std::to_string(threads) + "-thread blocks" : std::string{}));
    const auto estimate = measure_capacity(
        ctx.runner, unified_l1_size_question(LoadPath::l1, carveout, Order::sequential, name, ctx.l1_search_bound(), threads));
    ctx.progress.done(estimate.found ? bytes_text(estimate.capacity_bytes) : "not found");
    return estimate;
}

void add_row(ProbeContext& ctx, int carveout, std::uint32_t threads, const analysis::CapacityEstimate& e) {
    const auto shape = ctx.engine.launch_shape(threads, carveout);
    model::CarveoutRow row{.carveout_percent = carveout, .threads_per_block = threads,
                           .resident_blocks = shape.resident_blocks};
    if (e.found) row.size_bytes = e.capacity_bytes;
    else row.why_unmeasured = "no capacity limit found up to the search bound";
    ctx.topology.carveouts.push_back(std::move(row));
}

std::string method_at(int carveout) {
    return kSizeMethod + ", ld.global.ca, " +
           (carveout < 0 ? std::string("carveout left to the driver") : "carveout " + std::to_string(carveout) + "%");
}

}  // namespace

void run_l1_size(ProbeContext& ctx) {
    for (int carveout : kQuickCarveouts) ctx.scratch.l1_at[carveout] = size_l1(ctx, carveout);
    ctx.set(l1_row().quantities.size, size_result(ctx.scratch.l1_at[0], method_at(0)));
    ctx.set(id("L1_SIZE_DEFAULT_CARVEOUT_BYTES"), size_result(ctx.scratch.l1_at[-1], method_at(-1)));
    if (ctx.scratch.curve && ctx.scratch.curve->l1 && ctx.scratch.l1_at[-1].found) {
        const double searched = double(ctx.scratch.l1_at[-1].capacity_bytes);
        ctx.check({.name = "l1: hierarchy curve knee agrees with the default-carveout search",
                   .expected = searched, .measured = double(ctx.scratch.curve->l1->last_bytes),
                   .tolerance = 0.2 * searched,
                   .detail = "independent sweep at 4 points per doubling; tolerance one curve step",
                   .concerns = {id("L1_SIZE_DEFAULT_CARVEOUT_BYTES")}});
    }
}

void run_l1_path(ProbeContext& ctx) {
    const FamilyPlan plan{.max_l1_bytes = ctx.l1_search_bound(), .fresh_offset = ctx.layout.fresh_offset,
                          .miss_bytes = 4 * MiB, .carveout_percent = 0};
    const auto known = ctx.scratch.l1_at.count(0) ? std::optional(ctx.scratch.l1_at[0]) : std::nullopt;
    auto cache = measure_unified_l1_path(ctx.runner, l1_row(), plan, ctx.progress, known);
    for (auto& [q, result] : cache_results(cache, ctx.scratch.timer_uncertainty))
        if (q != l1_row().quantities.size) ctx.set(q, std::move(result));  // the size came from "l1 size"
    if (known && known->found)
        for (const auto& span : cache.line.spans)
            if (span.stride_bytes == 64)
                ctx.check({.name = "l1: stride 64 B agrees with stride 128 B", .expected = double(known->capacity_bytes),
                           .measured = double(span.span_bytes),
                           .tolerance = std::max(0.02 * double(known->capacity_bytes), 4.0 * KiB),
                           .detail = "same carveout, every second sector of each line touched",
                           .concerns = {l1_row().quantities.size}});
    check_fetches_served_by(ctx, cache);
    ctx.scratch.unified.clear();
    ctx.scratch.unified.push_back(std::move(cache));
}

void run_l1_carveouts(ProbeContext& ctx) {
    ctx.topology.carveouts.clear();
    for (int carveout : kQuickCarveouts)
        for (std::uint32_t threads : kShapes)
            add_row(ctx, carveout, threads,
                    threads == kChaseThreads ? ctx.scratch.l1_at[carveout] : size_l1(ctx, carveout, threads));
    for (int carveout : kCarveouts)
        for (std::uint32_t threads : kShapes) {
            const auto estimate = size_l1(ctx, carveout, threads);
            if (threads == kChaseThreads) ctx.scratch.l1_at[carveout] = estimate;
            add_row(ctx, carveout, threads, estimate);
        }
    ctx.set(id("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES"), size_result(ctx.scratch.l1_at[100], method_at(100)));

    const auto& max_l1 = ctx.scratch.l1_at[0];
    const auto& max_shared = ctx.scratch.l1_at[100];
    if (max_l1.found && max_shared.found) {
        const double api_shared = double(ctx.facts.shared_per_sm_bytes);
        ctx.check({.name = "l1: max-L1 minus max-shared carveout = API shared memory per SM", .expected = api_shared,
                   .measured = double(max_l1.capacity_bytes) - double(max_shared.capacity_bytes),
                   .tolerance = 0.08 * api_shared,
                   .detail = "moving the carveout from 0% to 100% must shrink L1 by the shared memory it gives away "
                             "(less the smallest shared configuration)",
                   .concerns = {l1_row().quantities.size, id("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES")}});
    }
}

}  // namespace gpu_topology::benchmarks
