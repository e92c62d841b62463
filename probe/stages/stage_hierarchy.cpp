// Stages: the clock and timer, the latencies of shared memory and near L2 with
// the L2 fetch granularity, and one latency curve through every level.
#include "util/json.hpp"
#include "probe_context.hpp"

#include <cmath>

namespace gpu_topology::stages {

using kernels::LoadPath;
using model::id;

std::string carveout_name(int percent) { return percent < 0 ? "default" : std::to_string(percent); }

void run_warm_up(ProbeContext& ctx) {
    ctx.progress.step("warming up the SM clock");
    ctx.engine.warm_up(250);
    const auto& overhead = ctx.runner.calibrate_overhead();
    ctx.scratch.timer_uncertainty = overhead.uncertainty();
    ctx.progress.done("timer overhead " + util::format_number(std::round(overhead.cycles * 10) / 10) +
                      " cycles (launches " + util::format_number(overhead.across_launches.p05) + ".." +
                      util::format_number(overhead.across_launches.p95) + ")");
}

void run_latencies(ProbeContext& ctx) {
    const auto l2 = ctx.l2_bytes();
    ctx.progress.step("L2 fetch granularity from DRAM");
    const auto fetch = measure_fetch_granularity(ctx.runner, LoadPath::l2, ctx.layout.fresh_offset + 16 * MiB,
                                                 "l2_first_touch", ctx.layout.evict_offset, 2 * l2);
    ctx.set(id("L2_DRAM_FETCH_BYTES"),
            granularity_result(fetch.granularity,
                               "first touch every 8 B after evicting L2: distance between DRAM fetches"));
    ctx.scratch.l2_fetch = fetch.granularity;
    ctx.progress.done(fetch.granularity ? std::to_string(fetch.granularity->bytes) + " B" : "not found");

    ctx.progress.step("shared memory latency");
    const auto shared = measure_latency(ctx.runner,
                                        {.name = "shared_latency", .path = LoadPath::shared, .stride_bytes = 64,
                                         .samples = 2048, .min_timed_steps = 4096},
                                        16 * KiB);
    ctx.set(id("SHARED_LATENCY_CYCLES"),
            latency_result(shared.summary, shared.samples, shared.footprint_bytes, ctx.scratch.timer_uncertainty,
                           "ld.shared pointer chase, 16 KiB ring, timer overhead subtracted"));
    ctx.progress.done(cycles(shared.summary));

    ctx.progress.step("L2 near hit latency");
    const std::uint64_t ring = near_l2_ring_bytes(ctx.facts);
    ctx.scratch.l2_latency = measure_latency(ctx.runner,
                                             {.name = "l2_near_latency", .path = LoadPath::l2, .stride_bytes = 128,
                                              .samples = 2048, .min_timed_steps = 4096},
                                             ring);
    const auto& near = *ctx.scratch.l2_latency;
    const std::string ring_text = ring % MiB == 0 ? std::to_string(ring / MiB) + " MiB" : bytes_text(ring);
    ctx.set(id("L2_NEAR_LATENCY_CYCLES"),
            latency_result(near.summary, near.samples, near.footprint_bytes, ctx.scratch.timer_uncertainty,
                           "ld.global.cg pointer chase, " + ring_text + " ring, timer overhead subtracted"));
    ctx.progress.done(cycles(near.summary));
}

namespace {

// A plateau's latency; `faster_level_cycles`: the level before it, whose hits a
// ring the slower level cannot hold may still find (analysis::without_faster_level).
model::Result plateau_latency(const std::optional<analysis::Plateau>& plateau, const analysis::Sweep& curve,
                              double timer_uncertainty, const std::string& method, const std::string& missing,
                              double faster_level_cycles) {
    if (!plateau) return model::unmeasured(missing);
    std::vector<analysis::SweepPoint> points;
    std::vector<double> samples;
    for (const auto& p : curve.points)
        if (p.footprint_bytes >= plateau->first_bytes && p.footprint_bytes <= plateau->last_bytes) {
            points.push_back(p);
            samples.insert(samples.end(), p.cycles.begin(), p.cycles.end());
        }
    const auto kept = analysis::without_faster_level(points, faster_level_cycles);
    auto result = kept.size() == samples.size()
                      ? latency_result(plateau->latency, samples, plateau->last_bytes, timer_uncertainty, method)
                      : latency_result(analysis::summarize(kept), kept, plateau->last_bytes, timer_uncertainty,
                                       method + "; the loads of the level before it (" +
                                           std::to_string(samples.size() - kept.size()) + " of " +
                                           std::to_string(samples.size()) + ") left out");
    // A plateau still rising as its ring grows blends in hits of a faster level that evicts at
    // random. Judged on all its loads, even where a faster class was left out: where the classes
    // overlap (DRAM's spread reaching down to L2's hits), leaving one out cannot part them.
    if (!plateau->flat())
        std::get<model::LatencyEstimate>(result).doubt =
            "its points' medians run from " + util::format_number(plateau->lowest_p50) + " to " +
            util::format_number(plateau->highest_p50) +
            " cycles: hits of a faster level that thin out as the ring grows, not a level of its own";
    return result;
}

}  // namespace

// How much a curve's last doubling may rise and still be a plateau (half a latency's tolerance).
constexpr double kStillRising = 0.025;

void run_hierarchy_curve(ProbeContext& ctx) {
    const auto l2 = ctx.l2_bytes();
    ctx.progress.step("latency curve 8 KiB .. 2.5 x L2 (L1 path)");
    const SweepSpec spec{.name = "hierarchy", .path = LoadPath::l1, .stride_bytes = 128, .samples = 512};
    auto curve = ctx.runner.run(spec, geometric(8 * KiB, 5 * l2 / 2, 4, 128));
    // A curve still rising over its last doubling has not reached DRAM: an L2 that evicts at
    // random keeps hitting well past its size, and where its hits and DRAM's loads overlap no
    // class rule parts them. Such a curve goes on a doubling, to 4.2-5 x L2, short of the regions
    // first touches need fresh (the Hopper cards' last doubling: -2 % and 0 %; the drawn L2s that
    // rose levelled by 3.4-4.75 x L2).
    const auto& measured = curve.points;
    const auto last = measured.back().footprint_bytes;
    std::size_t untouched = ctx.layout.fresh_offset;  // below every region a first touch needs fresh
    for (std::size_t i = 1; i < kUnifiedL1Paths.size(); ++i) untouched = std::min(untouched, ctx.unified_first_touch_offset(i));
    const bool extended = measured.size() > 4 && 2 * last <= untouched &&
                          analysis::median(measured.back().cycles) >
                              (1 + kStillRising) * analysis::median(measured[measured.size() - 5].cycles);
    if (extended) {
        for (const auto footprint : geometric(last, 2 * last, 4, 128))
            if (footprint > last) curve.points.push_back(ctx.runner.measure(spec, footprint));
        ctx.runner.record(curve);
    }
    const auto levels = analysis::interpret_hierarchy(curve, l2, true);
    ctx.scratch.curve = levels;
    model::LatencyCurve kept{.path = "l1"};
    for (const auto& p : curve.points)
        kept.points.push_back({p.footprint_bytes, analysis::summarize(p.cycles).p50});
    for (const auto& cp : levels.change_points) kept.change_points.emplace_back(cp.last_before_bytes, cp.first_after_bytes);
    ctx.topology.curve = std::move(kept);
    ctx.progress.done(std::to_string(levels.change_points.size()) + " change points in " +
                      std::to_string(curve.points.size()) + " footprints");
    if (extended)
        ctx.progress.note("  still rising at 2.5 x L2: measured on to " + bytes_text(curve.points.back().footprint_bytes));
    for (const auto& cp : levels.change_points)
        ctx.progress.note("  level change between " + bytes_text(cp.last_before_bytes) + " and " + bytes_text(cp.first_after_bytes) +
                          " (KS D " + util::format_number(std::round(cp.test.statistic * 100) / 100) + ")");

    const double u = ctx.scratch.timer_uncertainty;
    const double near_cycles = ctx.scratch.l2_latency ? ctx.scratch.l2_latency->summary.p50 : 0;
    const bool far_from_l2_size = levels.l2_far && double(levels.l2_far->first_bytes) > 0.9 * double(l2);
    const auto far = plateau_latency(levels.l2_far, curve, u,
                                     far_from_l2_size ? "plateau of the hierarchy curve after the near-L2 plateau, from the "
                                                        "API's L2 size on, a slower plateau after it"
                                                      : "plateau of the hierarchy curve after the near-L2 plateau, inside "
                                                        "the API's L2 size",
                                     "the latency curve shows no second plateau inside L2", near_cycles);
    ctx.set(id("L2_FAR_LATENCY_CYCLES"), far);
    const auto* far_latency = std::get_if<model::LatencyEstimate>(&far);
    const auto dram = plateau_latency(levels.dram, curve, u, "plateau of the hierarchy curve beyond the API's L2 size",
                                      "the latency curve shows no plateau beyond L2",
                                      far_latency ? far_latency->p50 : near_cycles);
    ctx.set(id("DRAM_LATENCY_CYCLES"), dram);
    // The L2 first touch must have gone to DRAM: its fetches as slow as the DRAM plateau.
    if (levels.dram && ctx.scratch.l2_fetch)
        ctx.cross_check({.name = "l2: first-touch fetches are served by DRAM", .expected = levels.dram->latency.p50,
                   .measured = ctx.scratch.l2_fetch->slow_p50, .tolerance = 0.25 * levels.dram->latency.p50,
                   .detail = "median latency of the fetches of the first-touch pass after evicting L2 against the "
                             "DRAM plateau; faster means the eviction left the region in L2",
                   .concerns = {id("L2_DRAM_FETCH_BYTES")}});
    if (const auto* near = ctx.topology.get(id("L2_NEAR_LATENCY_CYCLES")))
        ctx.set(id("L2_MISS_PENALTY_CYCLES"),
                penalty_result(*near, dram, "DRAM plateau of the hierarchy curve minus near-L2 hit latency, medians"));
}

}  // namespace gpu_topology::stages
