// Stages: the L2 an SM reuses at near latency, the L2 line, and the read
// bandwidths of every level.
#include "util/json.hpp"
#include "probe_context.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace gpu_topology::stages {

using kernels::LoadPath;
using model::id;

// Resolution 256 KiB, or a 64th of a smaller L2; the all-hit reference 2 MiB, or an eighth.
std::uint64_t l2_step_bytes(const ProbeContext& ctx) {
    return std::min<std::uint64_t>(256 * KiB, std::bit_floor(std::max<std::uint64_t>(ctx.l2_bytes() / 64, KiB)));
}

CapacityQuestion l2_question(const ProbeContext& ctx, Order order, const char* name) {
    const std::uint64_t step = l2_step_bytes(ctx);
    const std::uint64_t reference = std::max(step, std::min<std::uint64_t>(2 * MiB, std::bit_floor(ctx.l2_bytes() / 8)));
    return CapacityQuestion{{.name = name, .path = LoadPath::l2, .stride_bytes = 128, .order = order, .samples = 1024},
                            reference, step, 3 * ctx.l2_bytes() / 2};
}

double l2_tolerance(const analysis::CapacityEstimate& near, std::uint64_t step_bytes) {
    return std::max(0.03 * double(near.capacity_bytes), 2.0 * double(step_bytes));
}

// Where the hierarchy curve saw the near L2 end: its plateau's last footprint
// and the first footprint after the change point that ends it. Hints for the
// capacity search (find_capacity_near): it brackets the capacity between them
// and bisects a quarter of an octave (the curve has 4 points a doubling), not
// the whole way up from the reference.
std::vector<std::uint64_t> curve_hints(const ProbeContext& ctx) {
    if (!ctx.scratch.curve || !ctx.scratch.curve->l2_near) return {};
    const auto last = ctx.scratch.curve->l2_near->last_bytes;
    std::vector<std::uint64_t> hints{last};
    for (const auto& change : ctx.scratch.curve->change_points)
        if (change.last_before_bytes == last) hints.push_back(change.first_after_bytes);
    return hints;
}

// The L2 near capacity, searched with the ring at two places in the buffer:
// which lines stay depends on where the ring lies (the H200 showed 27.25 and
// 29.25 MiB for two placements), so the smaller is the capacity to count on.
// The quick level searches the first placement only (a third of a second
// less), and its method says so.
void run_l2_size(ProbeContext& ctx) {
    const std::size_t second = (ctx.layout.buffer_bytes - 32 * MiB - 3 * ctx.l2_bytes() / 2) / (2 * MiB) * (2 * MiB);
    std::vector<std::size_t> offsets{0};
    if (ctx.options.level == Level::full) offsets.push_back(second);
    std::vector<analysis::CapacityEstimate> found;
    for (const std::size_t offset : offsets) {
        ctx.progress.step("L2 near capacity, ring at " + bytes_text(offset));
        auto question = l2_question(ctx, Order::sequential, offset ? "l2_near_size_placement2" : "l2_near_size");
        question.spec.offset = offset;
        // The second placement starts at the first's capacity: two footprints confirm it,
        // and a placement that holds less or more is still found (each hint narrows the bracket).
        question.hints = curve_hints(ctx);
        if (!found.empty() && found.front().found)
            question.hints.insert(question.hints.begin(), found.front().capacity_bytes);
        found.push_back(measure_capacity(ctx.runner, question));
        ctx.progress.done(bytes_text(found.back().capacity_bytes));
    }
    // Spans and cross-checks compare with the first placement, whose ring they share.
    ctx.scratch.l2_near = found[0];
    const auto& near = *ctx.scratch.l2_near;
    const auto& smaller = *std::min_element(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return !a.found ? false : !b.found ? true : a.capacity_bytes < b.capacity_bytes;
    });
    auto result = size_result(smaller, kSizeMethod + (found.size() == 2
                                                          ? ", ld.global.cg; the smaller of two ring placements"
                                                          : ", ld.global.cg; one ring placement (quick level)"));
    // One placement may hold more than another (the H200: 29.25 against 27.25 MiB, beyond the 4 % a
    // re-measured size may differ): the quick level's value is not the capacity to count on.
    if (auto* e = std::get_if<model::Estimate>(&result); e && found.size() == 1)
        e->doubt = "one ring placement (quick level); another placement can hold less: the full level takes the "
                   "smaller of two";
    if (auto* e = std::get_if<model::Estimate>(&result); e && found.size() == 2) {
        e->details.emplace_back("placement_1_bytes", double(found[0].capacity_bytes));
        e->details.emplace_back("placement_2_bytes", double(found[1].capacity_bytes));
        e->details.emplace_back("placement_2_offset_bytes", double(second));
    }
    ctx.set(id("L2_NEAR_SIZE_BYTES"), std::move(result));
    if (ctx.scratch.curve && ctx.scratch.curve->l2_near && near.found)
        ctx.cross_check({.name = "l2: hierarchy curve near plateau agrees with the near-capacity search",
                   .expected = double(near.capacity_bytes),
                   .measured = double(ctx.scratch.curve->l2_near->last_bytes),
                   .tolerance = 0.2 * double(near.capacity_bytes), .detail = "tolerance one curve step",
                   .concerns = {id("L2_NEAR_SIZE_BYTES")}});
}

void run_l2_line(ProbeContext& ctx) {
    const auto& near = Scratch::required(ctx.scratch.l2_near, "the near L2 capacity of stage 'l2 size'");
    ctx.progress.step("L2 line (capacity span per stride)");
    // From the DRAM fetch granularity, at most 64 B, to 256 B.
    const std::vector<std::uint32_t> strides = analysis::line_search_strides(ctx.scratch.l2_fetch, 64, 256);
    const std::uint32_t first = strides.front();
    ctx.scratch.l2_line = measure_line(ctx.runner, l2_question(ctx, Order::sequential, "l2_span"), strides,
                                       analysis::StrideSpan{128, near.capacity_bytes});
    const auto& line = *ctx.scratch.l2_line;
    ctx.set(id("L2_LINE_BYTES"), line_result(line.line, line.spans,
                                             "near-capacity span at strides " + std::to_string(first) + "..256 B"));
    ctx.progress.done(line.line ? std::to_string(line.line->line_bytes) + " B" : "not found");
    for (const auto& span : line.spans)
        if (span.stride_bytes == 64)
            ctx.cross_check({.name = "l2: stride 64 B agrees with stride 128 B", .expected = double(near.capacity_bytes),
                       .measured = double(span.span_bytes), .tolerance = l2_tolerance(near, l2_step_bytes(ctx)),
                       .detail = "two sectors of each line touched", .concerns = {id("L2_NEAR_SIZE_BYTES")}});
}

namespace {

using kernels::CacheOp;
using kernels::ReadPattern;
using kernels::ReadRequest;

// Passes that make a run read about `total` bytes (2 GiB: a quarter of a
// millisecond from L2, long enough for the GPU's timer to resolve well).
std::uint32_t passes_for(std::uint64_t bytes_per_pass, std::uint64_t total = 2048 * MiB) {
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (total + bytes_per_pass - 1) / bytes_per_pass));
}

std::string describe(const ReadRequest& r) {
    const char* pattern = r.pattern == ReadPattern::rotating        ? "rotating chunks"
                          : r.pattern == ReadPattern::streaming     ? "grid-stride stream"
                          : r.pattern == ReadPattern::block_private ? "block-private re-read"
                                                                    : "ld.shared.v4 re-read";
    const bool global = r.pattern != ReadPattern::shared;
    return std::string(pattern) + ", " + bytes_text(r.bytes) + (r.pattern == ReadPattern::block_private || !global ? " per block" : "") +
           (global ? (r.op == CacheOp::cg ? ", 16 B ld.global.cg" : ", 16 B ld.global.ca") : "") + ", " +
           std::to_string(r.threads) + " threads x " + std::to_string(r.blocks_per_sm) + " blocks per SM, " +
           std::to_string(r.passes) + " passes";
}

// The best of `variants`: its result, and every variant's median beside it.
model::Result best_of(ProbeContext& ctx, const std::vector<ReadRequest>& variants, const char* level,
                      const std::string& what) {
    const auto sms = static_cast<std::uint32_t>(ctx.facts.sm_count);
    ctx.progress.step(std::string(level) + " read bandwidth (" + std::to_string(variants.size()) + " variants)");
    std::optional<BandwidthAnswer> best;
    std::vector<std::pair<std::string, double>> tried;
    for (const auto& request : variants) {
        auto answer = measure_read_bandwidth(ctx.engine, request, sms);
        tried.emplace_back("variant_" + std::to_string(tried.size() + 1) + "_bytes_per_s", std::round(answer.median));
        if (!best || answer.median > best->median) best = std::move(answer);
    }
    ctx.progress.done(util::format_number(std::round(best->median / 1e10) / 100) + " TB/s");
    const bool differential = best->request.pattern == ReadPattern::block_private ||
                              best->request.pattern == ReadPattern::shared;
    auto result = bandwidth_result(best->bytes_per_s, "every SM; best of " + std::to_string(variants.size()) +
                                                          " access patterns (" + what + "): " + describe(best->request) +
                                                          (differential ? " and twice as many (the extra passes' bytes "
                                                                          "over their time)" : "") +
                                                          ", timed on the GPU's global timer; median of " +
                                                          std::to_string(best->bytes_per_s.size()) + " runs");
    if (auto* e = std::get_if<model::Estimate>(&result)) {
        e->details = std::move(tried);
        e->details.emplace_back("per_sm_bytes_per_s", std::round(best->median / sms));
        if (const double hz = ctx.clock_khz() * 1e3; hz > 0)
            e->details.emplace_back("bytes_per_cycle_per_sm", std::round(best->median / sms / hz * 100) / 100);
    }
    return result;
}

}  // namespace

// Read bandwidths, every SM at once, each the best of a few access patterns.
// L2: rotating chunks, so no load can hit L1, over a region that fits the near
// partition and one that spans both; DRAM: a stream over four L2 sizes; L1: each
// block re-reads its own 32-64 KiB; shared memory: each block re-reads 32-64 KiB of its
// own (both timed at P and 2P passes: questions.hpp).
void run_bandwidths(ProbeContext& ctx) {
    const auto l2 = ctx.l2_bytes();
    const auto* near = ctx.scratch.l2_near && ctx.scratch.l2_near->found ? &*ctx.scratch.l2_near : nullptr;
    const std::uint64_t blocks = std::uint64_t(ctx.facts.sm_count);
    std::vector<ReadRequest> l2_variants;
    // Regions in whole MiB, or in 64 KiB where L2 holds less than a few MiB.
    const auto whole = [](std::uint64_t bytes) {
        return bytes >= MiB ? bytes / MiB * MiB : std::max<std::uint64_t>(64 * KiB, bytes / (64 * KiB) * (64 * KiB));
    };
    for (const std::uint64_t region : {whole(near ? near->capacity_bytes / 2 : l2 / 4), whole(3 * l2 / 4)})
        for (const CacheOp op : {CacheOp::cg, CacheOp::ca})
            for (const auto [threads, per_sm] : {std::pair{1024u, 2u}, std::pair{1024u, 4u}, std::pair{512u, 8u}})
                l2_variants.push_back({.pattern = ReadPattern::rotating, .op = op, .bytes = region,
                                       .passes = passes_for(region), .threads = threads, .blocks_per_sm = per_sm});
    ctx.set(id("L2_BANDWIDTH_BYTES_PER_S"),
            best_of(ctx, l2_variants, "L2", "regions that fit the near partition and span both"));

    const std::uint64_t dram_region = whole(std::min<std::uint64_t>(4 * l2, ctx.layout.fresh_offset));
    std::vector<ReadRequest> dram_variants;
    for (const std::uint32_t per_sm : {4u, 8u})
        dram_variants.push_back({.pattern = ReadPattern::streaming, .op = CacheOp::cg, .bytes = dram_region,
                                 .passes = passes_for(dram_region), .threads = 512, .blocks_per_sm = per_sm});
    ctx.set(id("DRAM_BANDWIDTH_BYTES_PER_S"), best_of(ctx, dram_variants, "DRAM", "four L2 sizes, from DRAM"));

    // Each block re-reads its own share, 1-2 blocks of 256-1024 threads an SM, four
    // 16-byte loads in flight a thread; the blocks' shares fill at most 60 % of the
    // L1 the probe's kernel got at 0 % (of the shared memory per SM), so every line
    // is re-read from L1: 64 or 32 KiB, halved for a smaller L1. 8 GiB a run: a
    // quarter of a millisecond at these rates.
    // (The best plain L1 kernel on the H100: 1024 threads, one block an SM; docs/records/bandwidth.md.)
    // An L1 whose lines are narrower than the size rings' stride held only stride/line of what
    // they read (the carveout table sizes it again at the dense stride, after this stage): the
    // room shrinks by as much, or the re-reads spill to L2 and read its rate (draw 42083: 64 B
    // lines, an L1 of 71 KiB read as 142 KiB, the L1 bandwidth as L2's).
    const auto& l1 = ctx.scratch.l1_at.count(0) ? ctx.scratch.l1_at.at(0) : analysis::CapacityEstimate{};
    const std::uint64_t l1_room = l1.found ? l1.capacity_bytes * ctx.scratch.l1_size_stride / kUnifiedRingStride
                                           : std::uint64_t(ctx.facts.shared_per_sm_bytes);
    const auto rereads = [&](ReadPattern pattern, CacheOp op, std::uint64_t room) {
        std::vector<ReadRequest> variants;
        struct Shape {
            std::uint32_t threads, blocks_per_sm;
            std::uint64_t share;
        };
        for (Shape s : {Shape{1024, 1, 64 * KiB}, Shape{1024, 2, 64 * KiB}, Shape{512, 2, 64 * KiB},
                        Shape{256, 2, 32 * KiB}}) {
            while (s.share > 4 * KiB && 10 * s.share * s.blocks_per_sm > 6 * room) s.share /= 2;
            variants.push_back({.pattern = pattern, .op = op, .bytes = s.share,
                                .passes = passes_for(s.share * s.blocks_per_sm * blocks, 8192 * MiB),
                                .threads = s.threads, .blocks_per_sm = s.blocks_per_sm});
        }
        return variants;
    };
    ctx.set(id("L1_BANDWIDTH_BYTES_PER_S"), best_of(ctx, rereads(ReadPattern::block_private, CacheOp::ca, l1_room), "L1",
                                                    "hits after the first pass"));
    ctx.set(id("SHARED_BANDWIDTH_BYTES_PER_S"),
            best_of(ctx, rereads(ReadPattern::shared, CacheOp::ca, std::uint64_t(ctx.facts.shared_per_sm_bytes)),
                    "shared memory", "conflict-free"));
}

}  // namespace gpu_topology::stages
