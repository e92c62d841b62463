// The analysis replayed on sweeps recorded on an NVIDIA H200 (tests/data/,
// subsampled from `gpu-topology-probe explore --raw`, 2026-11-22; the command is
// retired, its last version: git show 6cad12de3b:probe/benchmarks/explore.cpp).
#include "analysis/granularity.hpp"
#include "analysis/hierarchy.hpp"
#include "analysis/sharing.hpp"
#include "analysis/size_search.hpp"
#include "stages/probe_context.hpp"
#include "sweep_io/sweep_csv.hpp"
#include "util/units.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {
using namespace gpu_topology;
using util::KiB;
using util::MiB;
constexpr std::uint64_t kH200L2 = 62914560;  // what the API reports

analysis::Sweep load(const char* name) {
    return stages::read_sweep_csv(std::filesystem::path(GPU_TOPOLOGY_TEST_DATA) / name);
}

// The capacity search itself (analysis::find_capacity, as the probe runs it) on a
// dense recorded sweep of even spacing: every footprint it asks for is a multiple
// of that spacing, answered by the point recorded there; the reference is the first
// point at or above `reference_bytes`.
analysis::CapacityEstimate search_recorded(const analysis::Sweep& s, std::uint64_t reference_bytes = 0) {
    const auto& points = s.points;
    analysis::CapacitySearchOptions options;
    options.reference_bytes = std::max(reference_bytes, points.front().footprint_bytes);
    options.step_bytes = points[1].footprint_bytes - points[0].footprint_bytes;
    options.max_bytes = points.back().footprint_bytes;
    const auto measure = [&](std::uint64_t bytes) {
        const auto at = std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.footprint_bytes == bytes; });
        if (at == points.end())
            throw std::logic_error("the search asked for " + std::to_string(bytes) + " B, which " + s.name +
                                   " did not record");
        return *at;
    };
    return analysis::find_capacity(measure, options);
}

// Where the search cannot run on a recording, the same reading of it in footprint
// order: the last footprint that fits before the first that does not, against the
// first point at or above `reference_bytes`. For a search's own trace (the footprints
// it measured, recorded by the probe) that is what the search found; for a sweep
// whose footprints are no multiples of its spacing it is the search's answer at the
// sweep's resolution.
std::uint64_t last_fitting_in_order(const analysis::Sweep& s, std::uint64_t reference_bytes = 0) {
    const analysis::CapacitySearchOptions options;
    const analysis::SweepPoint* reference = nullptr;
    std::uint64_t last = 0;
    for (const auto& p : s.points) {
        if (p.footprint_bytes < reference_bytes) continue;
        if (!reference) reference = &p;
        if (!analysis::fits(p, *reference, options)) break;
        last = p.footprint_bytes;
    }
    return last;
}

analysis::EvictionDecision replay_eviction(const std::string& name) {
    return analysis::decide_eviction(load((name + "_alone.csv").c_str()).points.front().cycles,
                                     load((name + "_disturbed.csv").c_str()).points.front().cycles);
}

TEST(RecordedH200, OneCurveYieldsEveryLevel) {
    const auto h = analysis::interpret_hierarchy(load("h200_hierarchy_l1path.csv"), kH200L2, true);
    ASSERT_TRUE(h.l1 && h.l2_near && h.l2_far && h.dram);
    EXPECT_NEAR(h.l1->latency.p50, 27, 2);
    EXPECT_GE(h.l1->last_bytes, 150 * KiB);  // default carveout: about 184 KiB
    EXPECT_LE(h.l1->last_bytes, 200 * KiB);
    EXPECT_NEAR(h.l2_near->latency.p50, 285, 15);
    EXPECT_GT(h.l2_near->last_bytes, 24 * MiB);
    EXPECT_LT(h.l2_near->last_bytes, 31 * MiB);
    EXPECT_GT(h.l2_far->latency.p50, h.l2_near->latency.p50 * 1.4);
    EXPECT_GT(h.dram->latency.p50, h.l2_far->latency.p50);
    EXPECT_GE(h.dram->first_bytes, kH200L2);
}

TEST(RecordedH200, L1CapacityAtMaxL1Carveout) {
    const auto found = search_recorded(load("h200_l1_carveout0.csv"));
    ASSERT_TRUE(found.found);
    EXPECT_GE(found.capacity_bytes, 236 * KiB);
    EXPECT_LE(found.capacity_bytes, 244 * KiB);
    EXPECT_GT(found.confidence, 0.99);
}

TEST(RecordedH200, L2NearCapacity) {
    const auto found = search_recorded(load("h200_l2_fine.csv"));
    ASSERT_TRUE(found.found);
    EXPECT_GE(found.capacity_bytes, 27 * MiB);
    EXPECT_LE(found.capacity_bytes, 30 * MiB);
}

TEST(RecordedH200, FetchGranularities) {
    const auto l1 = load("h200_l1_first_touch.csv");
    const auto l2 = load("h200_l2_first_touch.csv");
    const auto g1 = analysis::fetch_granularity(l1.points.front().cycles, 8);
    const auto g2 = analysis::fetch_granularity(l2.points.front().cycles, 8);
    ASSERT_TRUE(g1 && g2);
    EXPECT_EQ(g1->bytes, 32u);  // L1 fills 32-byte sectors
    EXPECT_EQ(g2->bytes, 64u);  // HBM fills L2 two sectors at a time
}

// --- the cache family (second card, GPU-f1d3c6ec, same day) --------------------

TEST(RecordedH200, TextureAndReadOnlyHoldWhatL1Holds) {
    for (const char* name : {"h200_texture_carveout0.csv", "h200_readonly_carveout0.csv"}) {
        const auto found = search_recorded(load(name));
        EXPECT_TRUE(found.found) << name;
        EXPECT_GE(found.capacity_bytes, 236 * KiB) << name;  // L1 data at carveout 0: 241-243 KiB
        EXPECT_LE(found.capacity_bytes, 252 * KiB) << name;
    }
    // At the max-shared carveout the texture path shrinks with L1 (19-20 KiB).
    const auto small = search_recorded(load("h200_texture_carveout100.csv"));
    EXPECT_TRUE(small.found);
    EXPECT_GE(small.capacity_bytes, 16 * KiB);
    EXPECT_LE(small.capacity_bytes, 26 * KiB);
}

TEST(RecordedH200, TextureSpanIsTheSameAtEveryStride) {
    std::vector<analysis::StrideSpan> spans;
    for (std::uint32_t stride : {32u, 64u, 256u, 512u})
        spans.push_back(
            {stride, last_fitting_in_order(load(("h200_texture_span_stride" + std::to_string(stride) + ".csv").c_str()))});
    spans.insert(spans.begin() + 2, {128, search_recorded(load("h200_texture_carveout0.csv")).capacity_bytes});
    EXPECT_TRUE(analysis::span_independent_of_stride(spans));
    EXPECT_FALSE(analysis::line_from_spans(spans));  // so the texture line is reported unmeasured
}

TEST(RecordedH200, ConstantL1AndL15) {
    const auto sweep = load("h200_constant_stride64.csv");
    // Footprints of 256 B + k x 512 B: read in order (the search takes multiples of its step).
    const auto l1 = last_fitting_in_order(sweep);
    EXPECT_GE(l1, 1 * KiB);
    EXPECT_LE(l1, 2 * KiB);
    // Beyond the constant L1 every footprint up to the 64 KiB a module may declare is an L1.5 hit.
    EXPECT_EQ(last_fitting_in_order(sweep, 4 * KiB), sweep.points.back().footprint_bytes);
    EXPECT_GE(sweep.points.back().footprint_bytes, 63 * KiB);
}

TEST(RecordedH200, FetchGranularitiesOfTheOtherPaths) {
    const auto granularity = [](const char* name) {
        const auto g = analysis::fetch_granularity(load(name).points.front().cycles, 8);
        return g ? g->bytes : 0u;
    };
    EXPECT_EQ(granularity("h200_texture_first_touch.csv"), 32u);
    EXPECT_EQ(granularity("h200_readonly_first_touch.csv"), 32u);
    EXPECT_EQ(granularity("h200_constant_first_touch.csv"), 256u);  // L1.5 fills from L2
    EXPECT_EQ(granularity("h200_constant_l1_refill.csv"), 64u);     // constant L1 refills from L1.5
}

TEST(RecordedH200, SharingDecisions) {
    EXPECT_TRUE(replay_eviction("h200_sharing_l1_texture").evicted);        // one unified L1 storage
    EXPECT_FALSE(replay_eviction("h200_sharing_l1_constant_l1").evicted);   // constant L1 is separate
    EXPECT_TRUE(replay_eviction("h200_constant_l1_instances_warp1").evicted);  // one constant L1 per SM
    // Why the victim is warmed once: a victim hit again before the other traffic survives
    // 1.5 capacities of it (the L1 protects reused lines), one warmed once does not.
    EXPECT_TRUE(replay_eviction("h200_eviction_victim_warmed_once").evicted);
    EXPECT_FALSE(replay_eviction("h200_eviction_victim_reused").evicted);
}

}  // namespace

// --- the fast pace (issue 4; GPU-a1b87963, same day) ----------------------------
// Sweeps measured the fast way (rings beyond the window filled by the whole block,
// curve points timed over a window) must give what the careful sweeps above give.

// The L2 capacity search (the probe's options) replayed on the points of a recorded trace.
analysis::CapacityEstimate replay_search(const analysis::Sweep& trace) {
    return analysis::find_capacity(
        [&](std::uint64_t footprint) {
            for (const auto& p : trace.points)
                if (p.footprint_bytes == footprint) return p;
            ADD_FAILURE() << "the replayed search asks for " << footprint << " B, which was not measured";
            return trace.points.front();
        },
        {.reference_bytes = 2 * MiB, .step_bytes = 256 * KiB, .max_bytes = 3 * kH200L2 / 2});
}

TEST(RecordedH200Fast, CurveYieldsTheSameLevels) {
    const auto fast_curve = load("h200_fast_hierarchy.csv");
    const auto careful_curve = load("h200_hierarchy_l1path.csv");
    const auto fast = analysis::interpret_hierarchy(fast_curve, kH200L2, true);
    const auto careful = analysis::interpret_hierarchy(careful_curve, kH200L2, true);
    ASSERT_TRUE(fast.l1 && fast.l2_near && fast.l2_far && fast.dram);
    EXPECT_EQ(fast.l1->last_bytes, careful.l1->last_bytes);
    EXPECT_EQ(fast.l2_near->last_bytes, careful.l2_near->last_bytes);
    // Each sweep had its own timer overhead subtracted (2 and 7 cycles): compare the raw latencies.
    const auto raw = [](const analysis::Plateau& p, const analysis::Sweep& s) {
        return p.latency.p50 + std::stod(s.meta.at("overhead_cycles"));
    };
    EXPECT_NEAR(raw(*fast.l1, fast_curve), raw(*careful.l1, careful_curve), 2.0);
    EXPECT_NEAR(fast.l2_near->latency.p50, careful.l2_near->latency.p50, 0.05 * careful.l2_near->latency.p50);
    EXPECT_NEAR(fast.l2_far->latency.p50, careful.l2_far->latency.p50, 0.05 * careful.l2_far->latency.p50);
    EXPECT_NEAR(fast.dram->latency.p50, careful.dram->latency.p50, 0.05 * careful.dram->latency.p50);
}

// The probe's L2 search run against the careful dense sweep (independent data:
// every footprint measured whole, in steps of 1/64 of L2, on another card) lands
// within two of its steps of the capacity the fast search reported.
TEST(RecordedH200Fast, L2SearchOnTheCarefulSweepAgreesWithTheFastOne) {
    const auto careful = load("h200_l2_fine.csv");
    const auto fast_capacity = std::stoull(load("h200_fast_l2_near_size.csv").meta.at("capacity_bytes"));
    const auto distance = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; };
    const auto nearest = [&](std::uint64_t footprint) {
        const auto* best = &careful.points.front();
        for (const auto& p : careful.points)
            if (distance(p.footprint_bytes, footprint) < distance(best->footprint_bytes, footprint)) best = &p;
        return *best;
    };
    const auto estimate = analysis::find_capacity(
        nearest, {.reference_bytes = careful.points.front().footprint_bytes, .step_bytes = 256 * KiB,
                  .max_bytes = 3 * kH200L2 / 2});
    ASSERT_TRUE(estimate.found);
    const double step = double(kH200L2) / 64;
    EXPECT_NEAR(double(estimate.capacity_bytes), double(fast_capacity), 2 * step);
}

// Stride 64 B touches two sectors of each line: the same capacity within the
// cross-check's tolerance (a timed window here once reported 30.5 MiB).
TEST(RecordedH200Fast, L2SpanAtStride64AgreesWithStride128) {
    const auto span64 = replay_search(load("h200_fast_l2_span_stride64.csv"));
    const auto span128 = std::stoull(load("h200_fast_l2_near_size.csv").meta.at("capacity_bytes"));
    analysis::CapacityEstimate near;
    near.capacity_bytes = span128;
    EXPECT_NEAR(double(span64.capacity_bytes), double(span128), stages::l2_tolerance(near));
}
