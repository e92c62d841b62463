// Stages: L1 capacity at the max-L1 and default carveouts, the L1 data path's
// other questions, and L1 per requested carveout and launch, for kernels that
// declare different shared memory.
#include "probe_context.hpp"

#include <map>

namespace gpu_topology::stages {

using kernels::ChaseKernel;
using kernels::LoadPath;
using model::id;

namespace {

const CacheRow& l1_row() { return kUnifiedL1Paths[0]; }

// Carveouts the quick level sizes L1 at: max L1 and the driver's choice.
constexpr int kQuickCarveouts[] = {0, -1};
// The shape the quick level and the other stages chase with: one warp.
constexpr std::uint32_t kChaseThreads = 32;

// A kernel the carveout table describes, as the driver sees it: the shared
// memory it declares per block (docs/l1-effective-capacity.md).
struct TableKernel {
    ChaseKernel chase;
    std::uint32_t dynamic_shared_bytes;
    // Carveouts it is measured at; the driver's choice (-1) and the quick
    // ones come first for the probe's own.
    std::vector<int> carveouts;
    std::vector<std::uint32_t> shapes;
};
// The probe's own kernel (a few bytes of static shared memory): on Hopper its
// split moves in steps at small preferences, so they are dense below 10 %.
// Then kernels without shared memory, and with 8, 32 and 96 KiB of dynamic
// shared memory, the sizes tiling kernels declare, whose steps lie further up
// (none between 0 and 10 % on the H100: bench/user_kernels.cu, docs/l1-effective-capacity.md).
// Launch shapes, the largest first: 1024 threads (two blocks fill an SM), 256,
// and 32 (an SM may hold the most blocks, each with its reserved shared memory);
// kernels with kilobytes of shared memory are measured in the shapes tiling
// kernels use.
const std::vector<std::uint32_t> kAllShapes{1024, 256, 32};
const std::vector<std::uint32_t> kTilingShapes{1024, 256};
// Only the sizes a block of the device can declare (cc 7.5 opts in to 64 KiB).
std::vector<TableKernel> table_kernels(const DeviceFacts& facts) {
    static const std::vector<TableKernel> kernels{
        {ChaseKernel::probe, 0, {1, 3, 4, 5, 7, 10, 25, 50, 100}, kAllShapes},
        {ChaseKernel::plain, 0, {-1, 0, 5, 10, 25, 50, 75, 100}, kAllShapes},
        {ChaseKernel::plain, 8 * KiB, {-1, 0, 10, 25, 50, 75, 100}, kTilingShapes},
        {ChaseKernel::plain, 32 * KiB, {-1, 0, 10, 25, 50, 75, 100}, kTilingShapes},
        {ChaseKernel::plain, 96 * KiB, {-1, 0, 10, 25, 50, 75, 100}, kTilingShapes},
    };
    std::vector<TableKernel> possible;
    for (const auto& k : kernels)
        if (std::int64_t(k.dynamic_shared_bytes) <= facts.shared_per_block_optin_bytes) possible.push_back(k);
    return possible;
}

struct Launch {
    int carveout = -1;
    std::uint32_t threads = kChaseThreads;
    ChaseKernel kernel = ChaseKernel::probe;
    std::uint32_t dynamic_shared_bytes = 0;
};

std::string describe(const Launch& l) {
    std::string text = "carveout " + carveout_name(l.carveout) + (l.carveout >= 0 ? "%" : "") + ", " +
                       std::to_string(l.threads) + "-thread blocks";
    if (l.kernel == ChaseKernel::plain)
        text += l.dynamic_shared_bytes ? ", " + bytes_text(l.dynamic_shared_bytes) + " dynamic shared memory"
                                       : ", no shared memory";
    return text;
}

// The L1 of one launch; `hints`: capacities of similar launches, tried first;
// `reference`: an all-hit footprint of the same kernel measured before.
analysis::CapacityEstimate size_l1(ProbeContext& ctx, const Launch& l, std::vector<std::uint64_t> hints = {},
                                   const std::optional<analysis::SweepPoint>& reference = {}) {
    const bool own_shape = l.threads == kChaseThreads && l.kernel == ChaseKernel::probe;
    std::string name = "l1_size_carveout" + carveout_name(l.carveout);
    if (!own_shape) name += "_threads" + std::to_string(l.threads);
    if (l.kernel == ChaseKernel::plain) name += "_plain" + std::to_string(l.dynamic_shared_bytes / KiB) + "k";
    if (ctx.scratch.l1_size_stride != kUnifiedRingStride) name += "_stride" + std::to_string(ctx.scratch.l1_size_stride);
    auto question = unified_l1_size_question(LoadPath::l1, l.carveout, Order::sequential, name, ctx.l1_search_bound(),
                                             own_shape ? 0 : l.threads, ctx.scratch.l1_size_stride);
    question.spec.kernel = l.kernel;
    question.spec.dynamic_shared_bytes = l.dynamic_shared_bytes;
    question.hints = std::move(hints);
    question.reference = reference;
    return measure_capacity(ctx.runner, question);
}

void add_row(ProbeContext& ctx, const Launch& l, const analysis::CapacityEstimate& e) {
    const auto shape = ctx.engine.launch_shape(
        {.threads_per_block = l.threads, .carveout_percent = l.carveout, .kernel = l.kernel,
         .dynamic_shared_bytes = l.dynamic_shared_bytes});
    const auto kind = l.kernel == ChaseKernel::probe ? model::KernelShared::fixed
                      : l.dynamic_shared_bytes      ? model::KernelShared::dynamic
                                                    : model::KernelShared::none;
    model::CarveoutRow row{.carveout_percent = l.carveout, .threads_per_block = l.threads, .kernel_shared = kind,
                           .shared_bytes_per_block = shape.shared_bytes_per_block,
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
    for (int carveout : kQuickCarveouts) {
        ctx.progress.step("L1 size, " + describe({.carveout = carveout}));
        ctx.scratch.l1_at[carveout] = size_l1(ctx, {.carveout = carveout});
        const auto& e = ctx.scratch.l1_at[carveout];
        ctx.progress.done(e.found ? bytes_text(e.capacity_bytes) : "not found");
    }
    ctx.set(l1_row().quantities.size, size_result(ctx.scratch.l1_at[0], method_at(0)));
    ctx.set(id("L1_SIZE_DEFAULT_CARVEOUT_BYTES"), size_result(ctx.scratch.l1_at[-1], method_at(-1)));
    if (ctx.scratch.curve && ctx.scratch.curve->l1 && ctx.scratch.l1_at[-1].found) {
        const double searched = double(ctx.scratch.l1_at[-1].capacity_bytes);
        ctx.cross_check({.name = "l1: hierarchy curve knee agrees with the default-carveout search",
                   .expected = searched, .measured = double(ctx.scratch.curve->l1->last_bytes),
                   .tolerance = 0.2 * searched,
                   .detail = "independent sweep at 4 points per doubling; tolerance one curve step",
                   .concerns = {id("L1_SIZE_DEFAULT_CARVEOUT_BYTES")}});
    }
}

void run_l1_path(ProbeContext& ctx) {
    const FamilyPlan plan{.max_l1_bytes = ctx.l1_search_bound(), .fresh_offset = ctx.layout.fresh_offset,
                          .miss_bytes = near_l2_ring_bytes(ctx.facts), .carveout_percent = 0};
    const auto known = ctx.scratch.l1_at.count(0) ? std::optional(ctx.scratch.l1_at[0]) : std::nullopt;
    auto cache = measure_unified_l1_path(ctx.runner, l1_row(), plan, ctx.progress, known);
    for (auto& [q, result] : cache_results(cache, ctx.scratch.timer_uncertainty))
        if (q != l1_row().quantities.size) ctx.set(q, std::move(result));  // the size came from "l1 size"
    if (known && known->found)
        for (const auto& span : cache.line.spans)
            if (span.stride_bytes == 64)
                ctx.cross_check({.name = "l1: stride 64 B agrees with stride 128 B", .expected = double(known->capacity_bytes),
                           .measured = double(span.span_bytes),
                           .tolerance = std::max(0.02 * double(known->capacity_bytes), 4.0 * KiB),
                           .detail = "same carveout, every second sector of each line touched",
                           .concerns = {l1_row().quantities.size, id("L1_SIZE_DEFAULT_CARVEOUT_BYTES")}});
    // Lines under 128 B: the carveout table sizes its rings at the dense stride.
    ctx.scratch.l1_size_stride = dense_stride(cache.line);
    cross_check_fetches_served_by(ctx, cache);
    ctx.scratch.unified.clear();
    ctx.scratch.unified.push_back(std::move(cache));
}

// Every kernel of the table at each of its carveouts and shapes. Most launches
// get the L1 a neighbour got (the split moves in a few steps), so each search
// first tries the capacities of the same kernel at the next larger shape and at
// the previous carveout, and of the kernel before it at the same launch: two
// chases near the capacity when one holds, instead of a whole search. Hints
// only order the search; a launch whose L1 differs is searched in full. The
// all-hit footprint each search compares with is measured once per kernel.
void run_l1_carveouts(ProbeContext& ctx) {
    ctx.topology.carveouts.clear();
    std::size_t rows = 0;
    const auto kernels = table_kernels(ctx.facts);
    for (const auto& k : kernels)
        rows += (k.carveouts.size() + (k.chase == ChaseKernel::probe ? 2 : 0)) * k.shapes.size();
    ctx.progress.step("L1 per carveout and launch: " + std::to_string(rows) + " launches of " +
                      std::to_string(kernels.size()) + " kernels");
    std::map<std::pair<int, std::uint32_t>, std::uint64_t> previous_kernel;  // (carveout, threads) -> capacity
    std::map<ChaseKernel, analysis::SweepPoint> references;
    if (ctx.scratch.l1_at.count(0) && !ctx.scratch.l1_at[0].trace.points.empty())
        references[ChaseKernel::probe] = ctx.scratch.l1_at[0].trace.points.front();
    for (const auto& k : kernels) {
        std::map<std::uint32_t, std::uint64_t> last_at_shape;  // threads -> capacity at the previous carveout (>= 0)
        std::map<std::pair<int, std::uint32_t>, std::uint64_t> this_kernel;
        const auto measure = [&](int carveout) {
            std::optional<std::uint64_t> larger_shape;
            for (std::uint32_t threads : k.shapes) {
                const Launch launch{carveout, threads, k.chase, k.dynamic_shared_bytes};
                // The quick level's sizes serve when they were measured at the stride the table uses.
                const bool known = k.chase == ChaseKernel::probe && threads == kChaseThreads &&
                                   ctx.scratch.l1_at.count(carveout) && ctx.scratch.l1_size_stride == kUnifiedRingStride;
                std::vector<std::uint64_t> hints;
                if (larger_shape) hints.push_back(*larger_shape);
                if (carveout >= 0 && last_at_shape.count(threads)) hints.push_back(last_at_shape[threads]);
                if (const auto other = previous_kernel.find({carveout, threads}); other != previous_kernel.end())
                    hints.push_back(other->second);
                const auto reference = references.count(k.chase) ? std::optional(references[k.chase]) : std::nullopt;
                const auto estimate = known ? ctx.scratch.l1_at[carveout] : size_l1(ctx, launch, hints, reference);
                if (!references.count(k.chase) && !estimate.trace.points.empty())
                    references[k.chase] = estimate.trace.points.front();
                if (k.chase == ChaseKernel::probe && threads == kChaseThreads) ctx.scratch.l1_at[carveout] = estimate;
                add_row(ctx, launch, estimate);
                if (estimate.found) {
                    if (carveout >= 0) last_at_shape[threads] = estimate.capacity_bytes;  // -1 is a column of its own
                    larger_shape = estimate.capacity_bytes;
                    this_kernel[{carveout, threads}] = estimate.capacity_bytes;
                }
            }
        };
        if (k.chase == ChaseKernel::probe)
            for (int carveout : kQuickCarveouts) measure(carveout);
        for (int carveout : k.carveouts) measure(carveout);
        previous_kernel = std::move(this_kernel);
    }
    ctx.progress.done(std::to_string(ctx.topology.carveouts.size()) + " rows");
    ctx.set(id("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES"), size_result(ctx.scratch.l1_at[100], method_at(100)));

    const auto& max_l1 = ctx.scratch.l1_at[0];
    const auto& max_shared = ctx.scratch.l1_at[100];
    if (max_l1.found && max_shared.found) {
        // The probe's kernel keeps the smallest split that holds its few bytes at 0 %: at most
        // half the shared memory on every cc (8 KB of 96 to 228; 32 KB of 64 on cc 7.5). So L1
        // shrinks by between half the API's shared memory and all of it, give or take 8 %.
        const double api_shared = double(ctx.facts.shared_per_sm_bytes);
        ctx.cross_check({.name = "l1: max-L1 minus max-shared carveout = API shared memory per SM, less the max-L1 split",
                   .expected = 0.75 * api_shared,
                   .measured = double(max_l1.capacity_bytes) - double(max_shared.capacity_bytes),
                   .tolerance = 0.33 * api_shared,
                   .detail = "moving the carveout from 0% to 100% must shrink L1 by the shared memory it gives away, "
                             "less the smallest split the probe's kernel keeps at 0% (at most half of it)",
                   .concerns = {l1_row().quantities.size, id("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES")}});
    }
}

}  // namespace gpu_topology::stages
