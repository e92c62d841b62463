// Stage: the first TLB level of cudaMalloc memory, by disturbing and timing
// again (ld.global.cg; every line stays in L2, so a load that slows is a
// translation miss). Warp 0 warms a victim ring of 4 elements 64 MiB apart,
// warp 1 of the same block (the level is private to an SM:
// bench/explore_tlb_sharing.cu) chases a disturbing ring of D elements, and
// warp 0 times one pass of its ring. The victim is the same ring at every D,
// so which L2 slices its elements fall in, which moves the latency of rings of
// different lengths by as much as a miss costs (the H100), cancels. Its loads
// slow once the two rings need more entries than the level holds: the entries
// are 4 + the largest D that leaves them fast. At a disturbing stride below
// what one entry maps, neighbours share entries and it takes more elements:
// what an entry maps lies between the widest stride that needs more and the
// narrowest that needs the same. docs/measurements/2026-11-22-beyond.md.
#include "../analysis/translation.hpp"
#include "../profile/json.hpp"
#include "probe_context.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gpu_topology::benchmarks {

using model::id;

namespace {

constexpr std::uint32_t kVictimElements = 4;
constexpr std::uint64_t kVictimStride = 64 * MiB;
// A first-level miss adds about 10 cycles (both Hopper cards); the medians of
// the undisturbed victim's loads moved by at most 1.
constexpr double kSlowerCycles = 5;
constexpr std::uint32_t kLaunches = 32;  // victim loads pooled per D: 128
constexpr std::uint32_t kMaxDisturbing = 64;

// The victim's timed first pass after a disturbing ring of `elements` at `stride`, pooled over launches.
analysis::SweepPoint after_disturbance(ProbeContext& ctx, const kernels::Ring& victim, std::uint64_t stride,
                                       std::uint32_t elements) {
    auto& engine = ctx.engine;
    const auto ring = engine.link_sequential(kernels::LoadPath::l2, std::size_t(kVictimElements) * kVictimStride,
                                             elements, static_cast<std::uint32_t>(stride));
    const kernels::ChaseRequest request{.path = kernels::LoadPath::l2, .ring = victim, .warm_passes = 2,
                                        .timed_steps = kVictimElements, .max_samples = kVictimElements};
    const kernels::Disturbance disturbance{.path = kernels::LoadPath::l2, .ring = ring, .passes = 1, .warp = 1};
    analysis::SweepPoint pooled{.footprint_bytes = std::uint64_t(elements) * stride};
    for (std::uint32_t i = 0; i < kLaunches; ++i) {
        const auto point = ctx.runner.point_from(engine.chase_after(request, disturbance), pooled.footprint_bytes);
        pooled.cycles.insert(pooled.cycles.end(), point.cycles.begin(), point.cycles.end());
    }
    return pooled;
}

analysis::CountSearch search(ProbeContext& ctx, const kernels::Ring& victim, std::uint64_t stride) {
    const std::uint64_t room = ctx.layout.tlb_span_bytes - std::uint64_t(kVictimElements) * kVictimStride;
    const auto most = static_cast<std::uint32_t>(std::min<std::uint64_t>(room / stride, kMaxDisturbing));
    auto answer = analysis::longest_fast_ring(
        [&](std::uint32_t n) { return after_disturbance(ctx, victim, stride, n); }, 1, most, kSlowerCycles,
        analysis::positionwise_rise(kVictimElements));
    answer.trace.name = "tlb_disturbed_stride" + std::to_string(stride / MiB) + "m";
    answer.trace.meta["path"] = "l2";
    answer.trace.meta["victim_elements"] = std::to_string(kVictimElements);
    answer.trace.meta["victim_stride_bytes"] = std::to_string(kVictimStride);
    answer.trace.meta["stride_bytes"] = std::to_string(stride);
    answer.trace.meta["last_fast_elements"] = std::to_string(answer.last_fast);
    ctx.runner.record(answer.trace);
    return answer;
}

}  // namespace

void run_tlb(ProbeContext& ctx) {
    constexpr std::uint64_t kStrides[] = {64 * MiB, 32 * MiB, 16 * MiB, 8 * MiB};
    ctx.progress.step("TLB: 4 elements 64 MiB apart, disturbed at strides 64, 32, 16 and 8 MiB");
    const auto unmeasured_all = [&](const std::string& why) {
        for (const char* q : {"TLB_ENTRIES", "TLB_COVERAGE_BYTES", "TLB_REACH_BYTES", "TLB_MISS_PENALTY_CYCLES"})
            ctx.set(model::find(q), model::unmeasured(why));
        ctx.progress.done("not found");
    };
    if (ctx.layout.tlb_span_bytes < std::uint64_t(kVictimElements) * kVictimStride + 8 * kStrides[0])
        return unmeasured_all("the device memory leaves no room for a victim of 4 and a disturbing ring of 8 elements "
                              "64 MiB apart");
    const auto victim = ctx.engine.link_sequential(kernels::LoadPath::l2, 0, kVictimElements,
                                                   static_cast<std::uint32_t>(kVictimStride));
    // Widest first; stop once a stride needs more elements than the widest (neighbours share entries).
    std::map<std::uint64_t, analysis::CountSearch, std::greater<>> at;
    for (const auto stride : kStrides) {
        at[stride] = search(ctx, victim, stride);
        if (!at[stride].found || at[stride].last_fast > at[kStrides[0]].last_fast + 1) break;
    }
    const auto& widest = at[kStrides[0]];
    if (!widest.found)
        return unmeasured_all("no load of the victim (median of each) slowed by more than 5 cycles with up to " +
                              std::to_string(widest.last_fast) + " disturbing elements 64 MiB apart");
    const auto entries = kVictimElements + widest.last_fast;
    const std::string note = "; the chase also writes its samples to one more page";
    // How far the rise cleared the threshold: a rise near it may be noise.
    const double margin = std::clamp((widest.rise_cycles - kSlowerCycles) / kSlowerCycles, 0.0, 1.0);
    ctx.set(id("TLB_ENTRIES"),
            model::Estimate{.value = double(entries),
                            .method = "a victim ring of 4 elements 64 MiB apart (L2 hits), timed after a disturbing "
                                      "ring of D elements 64 MiB apart on the same SM: 4 + the largest D before one of "
                                      "its loads (median of 32 launches) slows by more than 5 cycles, doubling + "
                                      "bisection" + note,
                            .confidence = margin,
                            .details = {{"disturbing_elements", double(widest.last_fast)},
                                        {"rise_cycles", widest.rise_cycles}}});
    ctx.set(id("TLB_MISS_PENALTY_CYCLES"),
            model::Estimate{.value = std::round(widest.rise_cycles),
                            .method = "rise of the slowest-rising victim load (median of 32 launches) one "
                                      "disturbing element past the entries",
                            .confidence = margin});
    // What an entry maps: the narrowest stride that still needs as few elements as 64 MiB does,
    // bracketed by the next narrower one needing more.
    std::uint64_t same = kStrides[0], more = 0;
    for (const auto& [stride, answer] : at) {
        if (answer.found && answer.last_fast <= widest.last_fast + 1) same = stride;
        else if (more == 0) more = stride;
    }
    std::string counts;
    for (const auto& [stride, answer] : at)
        counts += (counts.empty() ? "" : ", ") + bytes_text(stride) + ": " +
                  (answer.found ? "fast up to " + std::to_string(answer.last_fast) : "never slower");
    if (more == 0 || same != 2 * more) {
        const auto why = model::unmeasured(
            more == 0 ? "every stride down to 8 MiB needed as few disturbing elements as 64 MiB (" + counts +
                            "): an entry maps at most 8 MiB, below what these strides resolve"
                      : "the strides do not bracket one power of two (" + counts + ")");
        ctx.set(id("TLB_COVERAGE_BYTES"), why);
        ctx.set(id("TLB_REACH_BYTES"), why);
        ctx.progress.done(std::to_string(entries) + " entries, +" +
                          profile::format_number(std::round(widest.rise_cycles)) + " cycles a miss");
        return;
    }
    const std::string method = "disturbing rings " + bytes_text(same) + " apart needed as few elements as 64 MiB "
                               "apart, " + bytes_text(more) + " apart more (neighbours shared entries): " + counts;
    ctx.set(id("TLB_COVERAGE_BYTES"), model::Estimate{.value = double(same), .method = method, .confidence = margin});
    ctx.set(id("TLB_REACH_BYTES"), model::Estimate{.value = double(same) * entries, .source = model::Source::derived,
                                                   .method = "entries x coverage", .confidence = margin});
    ctx.progress.done(std::to_string(entries) + " entries x " + bytes_text(same) + ", +" +
                      profile::format_number(std::round(widest.rise_cycles)) + " cycles a miss");
}

}  // namespace gpu_topology::benchmarks
