// Stage: the first TLB level of cudaMalloc memory, by Mei & Chu's stride and
// count. One thread chases a ring of N elements S bytes apart (ld.global.cg:
// every line stays in L2, so a load that slows is a translation miss), two
// passes to warm it, then 32 passes timed load by load; the median latency of
// each of its first 4 elements is compared with a ring of those 4 alone. With S
// at least what one entry maps, every element needs an entry of its own: the
// loads slow once N exceeds the entries. With S smaller, neighbours share an
// entry and it takes proportionally more elements. So the widest stride counts
// the entries, the narrowest stride that still counts as many is what an entry
// maps, and the next narrower one must count twice as many (a cross-check).
//
// Each element is compared with itself, so which L2 slice it lies in (which
// moves a ring's latency by as much as a miss costs on the H100) cancels. The
// count is measured twice, the second ring shifted by half a stride onto other
// pages. An earlier method (a victim ring timed after a disturbing ring on
// another warp) flipped between 11 and 15 entries on an H100; this one counted
// 15 at every stride from 16 to 64 MiB in every repeat on both cards
// (bench/user_kernels.cu, docs/records/tlb.md).
#include "analysis/translation.hpp"
#include "util/json.hpp"
#include "probe_context.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gpu_topology::stages {

using model::id;

namespace {

constexpr std::uint32_t kPositions = 4;  // the elements each ring is compared at
constexpr std::uint32_t kTimedPasses = 32;
// The penalty's standard error it aims for, a third of its tolerance (model/agreement.hpp): where
// L2 latencies vary load by load, the two rings of the penalty are timed again with up to 16
// times the passes, and a penalty still less precise than half its tolerance is not vouched for.
// Both Hopper cards' loads give 0.5-0.6 cycles with 32 passes.
constexpr double kPenaltyPrecisionCycles = 1.0;
constexpr double kLeastPenaltyPrecisionCycles = 1.5;
constexpr std::uint32_t kMostPenaltyPasses = 16 * kTimedPasses;
// A first-level miss added 9-16 cycles to an element's median (both Hopper
// cards); elements that hit moved by at most 4.
constexpr double kSlowerCycles = 6;
constexpr std::uint32_t kMaxElements = 160;
constexpr std::uint64_t kStrides[] = {64 * MiB, 32 * MiB, 16 * MiB, 8 * MiB, 4 * MiB};

// The first kPositions elements of every timed pass of a ring of `elements`, `stride` apart from `offset`.
analysis::SweepPoint first_elements(ProbeContext& ctx, std::size_t offset, std::uint64_t stride, std::uint32_t elements,
                                    std::uint32_t passes = kTimedPasses) {
    const auto ring = ctx.engine.link_sequential(kernels::LoadPath::l2, offset, elements, static_cast<std::uint32_t>(stride));
    const std::uint32_t steps = passes * elements;
    const auto all = ctx.runner.point_from(
        ctx.engine.chase({.path = kernels::LoadPath::l2, .ring = ring, .warm_passes = 2, .timed_steps = steps,
                          .max_samples = steps}),
        std::uint64_t(elements) * stride);
    analysis::SweepPoint point{.footprint_bytes = all.footprint_bytes};
    for (std::uint32_t pass = 0; pass < passes; ++pass)
        for (std::uint32_t p = 0; p < kPositions && p < elements; ++p)
            point.cycles.push_back(all.cycles.at(std::size_t(pass) * elements + p));
    return point;
}

struct Count {
    analysis::CountSearch search;
    analysis::MeanRise penalty;  // the mean rise of the first elements at the first slow ring
    std::uint32_t penalty_passes = kTimedPasses;
};

Count count(ProbeContext& ctx, std::uint64_t stride, std::size_t offset, const std::string& name) {
    const auto most = static_cast<std::uint32_t>(
        std::min<std::uint64_t>((ctx.layout.tlb_span_bytes - offset) / stride, kMaxElements));
    Count c;
    c.search = analysis::longest_fast_ring([&](std::uint32_t n) { return first_elements(ctx, offset, stride, n); },
                                           kPositions, most, kSlowerCycles, analysis::positionwise_rise(kPositions));
    auto& trace = c.search.trace;
    if (c.search.found) {
        const auto slow = std::find_if(trace.points.begin(), trace.points.end(), [&](const auto& p) {
            return p.footprint_bytes == std::uint64_t(c.search.first_slow) * stride;
        });
        if (slow != trace.points.end())
            c.penalty = analysis::mean_positionwise_rise(trace.points.front(), *slow, kPositions);
    }
    trace.name = name;
    trace.meta["path"] = "l2";
    trace.meta["stride_bytes"] = std::to_string(stride);
    trace.meta["offset_bytes"] = std::to_string(offset);
    trace.meta["positions"] = std::to_string(kPositions);
    trace.meta["last_fast_elements"] = std::to_string(c.search.last_fast);
    ctx.runner.record(trace);
    return c;
}

// Where one pass's loads vary too much for the penalty's precision, its two rings timed again with
// more passes (standard errors shrink with the square root of the passes).
void refine_penalty(ProbeContext& ctx, Count& c, std::uint64_t stride) {
    if (c.penalty.standard_error <= kPenaltyPrecisionCycles) return;
    const double more = std::pow(c.penalty.standard_error / kPenaltyPrecisionCycles, 2);
    c.penalty_passes = static_cast<std::uint32_t>(std::min<double>(kMostPenaltyPasses, std::ceil(kTimedPasses * more)));
    c.penalty = analysis::mean_positionwise_rise(first_elements(ctx, 0, stride, kPositions, c.penalty_passes),
                                                 first_elements(ctx, 0, stride, c.search.first_slow, c.penalty_passes),
                                                 kPositions);
}

std::string counts_text(const std::map<std::uint64_t, Count, std::greater<>>& at) {
    std::string text;
    for (const auto& [stride, c] : at)
        text += (text.empty() ? "" : ", ") + bytes_text(stride) + ": " +
                (c.search.found ? std::to_string(c.search.last_fast) + " fast, " +
                                      std::to_string(c.search.first_slow) + " slow"
                                : "none slow up to " + std::to_string(c.search.last_fast));
    return text;
}

}  // namespace

void run_tlb(ProbeContext& ctx) {
    ctx.progress.step("TLB: stride and count, strides 64 MiB down to 4 MiB");
    const auto unmeasured_all = [&](const std::string& why) {
        for (const char* q : {"TLB_ENTRIES", "TLB_COVERAGE_BYTES", "TLB_REACH_BYTES", "TLB_MISS_PENALTY_CYCLES"})
            ctx.set(model::find(q), model::unmeasured(why));
        ctx.progress.done("not found");
    };
    if (ctx.layout.tlb_span_bytes < 16 * kStrides[0] + kStrides[0] / 2)
        return unmeasured_all("the device memory leaves no room for a ring of 16 elements 64 MiB apart");

    std::map<std::uint64_t, Count, std::greater<>> at;
    for (const auto stride : kStrides) at[stride] = count(ctx, stride, 0, "tlb_count_stride" + std::to_string(stride / MiB) + "m");
    const Count again = count(ctx, kStrides[0], kStrides[0] / 2, "tlb_count_stride64m_shifted");

    auto& widest = at[kStrides[0]];
    if (!widest.search.found)
        return unmeasured_all("no element of a ring 64 MiB apart slowed by more than " +
                              util::format_number(kSlowerCycles) + " cycles up to " +
                              std::to_string(widest.search.last_fast) + " elements");
    refine_penalty(ctx, widest, kStrides[0]);
    // A translation miss slows every element of a ring longer than the entries; a rise at one
    // element while the others stay (a mean rise under the threshold) is the spread of L2 latencies.
    if (widest.penalty.cycles <= kSlowerCycles)
        return unmeasured_all("a ring 64 MiB apart slowed at one of its first 4 elements only (mean rise " +
                              util::format_number(std::round(widest.penalty.cycles * 10) / 10) +
                              " cycles): the spread of L2 latencies, not translation misses, which slow every element");
    const std::uint32_t entries = widest.search.last_fast;
    const std::string counts = counts_text(at);
    // How far the rise cleared the threshold, and whether the shifted ring counted as many.
    const double margin = std::clamp((widest.penalty.cycles - kSlowerCycles) / kSlowerCycles, 0.0, 1.0);
    const bool repeated = again.search.found && again.search.last_fast == entries;
    const double confidence = margin * (repeated ? 1.0 : 0.5);
    const std::string repeat_note = "; the ring shifted by 32 MiB onto other pages counted " +
                                    (again.search.found ? std::to_string(again.search.last_fast) : std::string("none slow"));
    ctx.set(id("TLB_ENTRIES"),
            model::Estimate{.value = double(entries),
                            .method = "a ring of N elements 64 MiB apart chased by one thread (ld.global.cg, L2 hits), "
                                      "32 timed passes: the largest N before the median of one of its first 4 elements "
                                      "rises by more than 6 cycles over a ring of those 4 alone, doubling + bisection" +
                                      repeat_note,
                            .confidence = confidence,
                            .details = {{"shifted_ring_entries", again.search.found ? double(again.search.last_fast) : 0.0},
                                        {"rise_cycles", std::round(widest.search.rise_cycles * 10) / 10}},
                            .doubt = repeated ? std::string()
                                              : "the ring shifted onto other pages counted another number of entries" +
                                                    repeat_note.substr(1)});
    const auto& penalty = widest.penalty;
    const bool precise = penalty.standard_error <= kLeastPenaltyPrecisionCycles;
    const std::string error_text = util::format_number(std::round(penalty.standard_error * 10) / 10);
    ctx.set(id("TLB_MISS_PENALTY_CYCLES"),
            model::Estimate{.value = std::round(penalty.cycles),
                            .method = "mean over the first 4 elements of their median's rise, one element past the "
                                      "entries, 64 MiB apart" +
                                      (widest.penalty_passes == kTimedPasses
                                           ? std::string()
                                           : ", timed again with " + std::to_string(widest.penalty_passes) +
                                                 " passes (standard error " + error_text + " cycles)"),
                            .confidence = margin,
                            .doubt = precise ? std::string()
                                             : "its standard error is " + error_text + " cycles after " +
                                                   std::to_string(widest.penalty_passes) +
                                                   " passes: L2 latencies vary load by load"});

    // What an entry maps: the narrowest stride that counts as few as 64 MiB does.
    std::uint64_t coverage = kStrides[0];
    for (const auto& [stride, c] : at)
        if (c.search.found && c.search.last_fast <= entries + 1) coverage = std::min(coverage, stride);
    const auto finer = at.find(coverage / 2);
    const auto why_not = [&](const std::string& what) {
        const auto why = model::unmeasured(what + " (" + counts + ")");
        ctx.set(id("TLB_COVERAGE_BYTES"), why);
        ctx.set(id("TLB_REACH_BYTES"), why);
        ctx.progress.done(std::to_string(entries) + " entries, +" + util::format_number(std::round(widest.penalty.cycles)) +
                          " cycles a miss");
    };
    if (finer == at.end())
        return why_not("every stride down to " + bytes_text(coverage) + " counted as few elements as 64 MiB: an entry "
                       "maps at most that, below what these strides resolve");
    // Half the stride: two neighbours share each entry, so twice the elements fit.
    const double expected = 2.0 * entries;
    const double measured = finer->second.search.found ? double(finer->second.search.last_fast) : double(kMaxElements);
    ctx.cross_check({.name = "tlb: half the coverage as stride holds twice the entries' elements", .expected = expected,
               .measured = measured, .tolerance = std::max(2.0, 0.15 * expected),
               .detail = bytes_text(coverage / 2) + " apart, two elements to an entry",
               .concerns = {id("TLB_COVERAGE_BYTES"), id("TLB_REACH_BYTES")}});
    if (!finer->second.search.found)
        return why_not("a ring " + bytes_text(coverage / 2) + " apart slowed at no length up to " +
                       std::to_string(finer->second.search.last_fast) + " elements: entries x " + bytes_text(coverage) +
                       " would state a reach that such a ring exceeds without misses");
    const std::string method = "the narrowest stride that counted as few elements as 64 MiB (rings " +
                               bytes_text(coverage / 2) + " apart counted about twice as many): " + counts;
    ctx.set(id("TLB_COVERAGE_BYTES"), model::Estimate{.value = double(coverage), .method = method, .confidence = confidence});
    ctx.set(id("TLB_REACH_BYTES"), model::Estimate{.value = double(coverage) * entries, .source = model::Source::derived,
                                                   .method = "entries x coverage", .confidence = confidence});
    ctx.progress.done(std::to_string(entries) + " entries x " + bytes_text(coverage) + ", +" +
                      util::format_number(std::round(widest.penalty.cycles)) + " cycles a miss");
}

}  // namespace gpu_topology::stages
