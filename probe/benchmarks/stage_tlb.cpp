// Stage: the first TLB level of cudaMalloc memory, by chases whose elements lie
// a large stride apart (ld.global.cg; every line stays in L2, so a load that
// slows is a translation miss). At a stride of at least what one entry maps,
// each element needs an entry of its own: once the ring has more elements
// than the level has entries, every load misses and the fast loads slow
// (analysis/translation.hpp), after the same number of elements at every such
// stride. At a smaller stride neighbours share an entry and only some loads
// miss: the fast loads do not slow. So the entries come from the two widest
// strides, and what an entry maps lies between the narrowest stride that still
// slows and the widest that does not. Found on the H200 by
// bench/explore_beyond.cu (docs/measurements/2026-11-22-beyond.md).
#include "../analysis/translation.hpp"
#include "../profile/json.hpp"
#include "probe_context.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gpu_topology::benchmarks {

using model::id;

namespace {

// A miss adds about 11 cycles on the H200; the 10th percentile of rings that
// do not miss moved by at most 2.
constexpr double kSlowerCycles = 5;
constexpr std::uint32_t kReferenceElements = 4;

analysis::CountSearch search(ProbeContext& ctx, std::uint64_t stride) {
    const SweepSpec spec{.name = "tlb_stride" + std::to_string(stride / MiB) + "m", .path = kernels::LoadPath::l2,
                         .stride_bytes = static_cast<std::uint32_t>(stride), .samples = 1024, .whole_pass = true};
    const auto most = static_cast<std::uint32_t>(std::min<std::uint64_t>(ctx.layout.tlb_span_bytes / stride, 1024));
    auto answer = analysis::longest_fast_ring(
        [&](std::uint32_t n) { return ctx.runner.measure(spec, std::uint64_t(n) * stride); }, kReferenceElements, most,
        kSlowerCycles);
    answer.trace.name = spec.name;
    answer.trace.meta["path"] = "l2";
    answer.trace.meta["stride_bytes"] = std::to_string(stride);
    answer.trace.meta["last_fast_elements"] = std::to_string(answer.last_fast);
    ctx.runner.record(answer.trace);
    return answer;
}

}  // namespace

void run_tlb(ProbeContext& ctx) {
    constexpr std::uint64_t kStrides[] = {64 * MiB, 32 * MiB, 16 * MiB, 8 * MiB};
    ctx.progress.step("TLB: chases at strides 64, 32, 16 and 8 MiB over up to " + bytes_text(ctx.layout.tlb_span_bytes));
    const auto unmeasured_all = [&](const std::string& why) {
        for (const char* q : {"TLB_ENTRIES", "TLB_COVERAGE_BYTES", "TLB_REACH_BYTES", "TLB_MISS_PENALTY_CYCLES"})
            ctx.set(model::find(q), model::unmeasured(why));
        ctx.progress.done("not found");
    };
    if (ctx.layout.tlb_span_bytes / kStrides[0] < 2 * kReferenceElements)
        return unmeasured_all("the device memory leaves no room for rings of 8 elements 64 MiB apart");
    // Widest first; stop at the first stride whose fast loads never slow (neighbours share entries).
    std::map<std::uint64_t, analysis::CountSearch, std::greater<>> at;
    for (const auto stride : kStrides) {
        if (ctx.layout.tlb_span_bytes / stride <= kReferenceElements) continue;
        at[stride] = search(ctx, stride);
        if (!at[stride].found) break;
    }
    const auto& widest = at[64 * MiB];
    if (!widest.found)
        return unmeasured_all("the fastest loads (10th percentile) of rings of up to " +
                              std::to_string(widest.last_fast) +
                              " elements 64 MiB apart never rose more than 5 cycles above a 4-element ring's; which "
                              "L2 slices a short ring's elements fall in moves that percentile by as much (the H100 "
                              "run of docs/measurements/2026-11-22-beyond.md), so a miss penalty of a few cycles can "
                              "hide");
    const auto entries = widest.last_fast;
    const auto it = at.find(32 * MiB);
    if (it == at.end() || !it->second.found || it->second.last_fast != entries)
        return unmeasured_all("rings 64 MiB apart slowed after " + std::to_string(entries) + " elements, 32 MiB apart " +
                              (it == at.end() || !it->second.found ? std::string("never")
                                                                   : "after " + std::to_string(it->second.last_fast)) +
                              ": an entry maps more than 32 MiB, or the slowdown is not a translation miss");
    const std::string note = "; the chase also writes its samples to one more page";
    // How far the smaller rise cleared the threshold: a rise near it may be slice noise.
    const double margin = std::clamp((std::min(widest.rise_cycles, it->second.rise_cycles) - kSlowerCycles) /
                                         kSlowerCycles, 0.0, 1.0);
    ctx.set(id("TLB_ENTRIES"),
            model::Estimate{.value = double(entries),
                            .method = "ring elements 64 and 32 MiB apart (L2 hits) before the 10th-percentile latency "
                                      "rises by more than 5 cycles, doubling + bisection" + note,
                            .confidence = margin,
                            .details = {{"rise_64m_cycles", widest.rise_cycles}, {"rise_32m_cycles", it->second.rise_cycles}}});
    ctx.set(id("TLB_MISS_PENALTY_CYCLES"),
            model::Estimate{.value = std::round(widest.rise_cycles),
                            .method = "rise of the 10th-percentile latency one element past the entries, 64 MiB apart",
                            .confidence = std::clamp(1 - std::abs(widest.rise_cycles - it->second.rise_cycles) /
                                                             std::max(widest.rise_cycles, 1.0), 0.0, 1.0)});
    // What an entry maps: at least the widest stride that never slowed, at most the narrowest that slowed after `entries`.
    std::uint64_t slowed = 32 * MiB, shared = 0;
    for (const auto& [stride, answer] : at) {
        if (answer.found && answer.last_fast == entries) slowed = stride;
        if (!answer.found) shared = stride;
    }
    if (shared == 0 || slowed != 2 * shared) {
        std::string counts;
        for (const auto& [stride, answer] : at)
            counts += (counts.empty() ? "" : ", ") + bytes_text(stride) + ": " +
                      (answer.found ? "slower after " + std::to_string(answer.last_fast) : std::string("never slower"));
        const auto why = model::unmeasured(
            shared == 0 ? "every stride down to 8 MiB slowed after the entries (" + counts +
                              "): an entry maps at most 8 MiB, below what these strides resolve"
                        : "the strides do not bracket one power of two (" + counts + ")");
        ctx.set(id("TLB_COVERAGE_BYTES"), why);
        ctx.set(id("TLB_REACH_BYTES"), why);
        ctx.progress.done(std::to_string(entries) + " entries, +" + profile::format_number(std::round(widest.rise_cycles)) +
                          " cycles a miss");
        return;
    }
    const std::string method = "an entry maps more than " + bytes_text(shared) + " (rings that far apart never slowed: "
                               "neighbours share entries) and at most " + bytes_text(slowed) +
                               " (rings that far apart slowed after the entries); the power of two between";
    ctx.set(id("TLB_COVERAGE_BYTES"), model::Estimate{.value = double(slowed), .method = method, .confidence = margin});
    ctx.set(id("TLB_REACH_BYTES"), model::Estimate{.value = double(slowed) * entries, .source = model::Source::derived,
                                                   .method = "entries x coverage", .confidence = margin});
    ctx.progress.done(std::to_string(entries) + " entries x " + bytes_text(slowed) + ", +" +
                      profile::format_number(std::round(widest.rise_cycles)) + " cycles a miss");
}

}  // namespace gpu_topology::benchmarks
