// Stages against a GPU made of rules (simulated_engine.hpp): the L1 table per
// kind of kernel, the TLB's stride and count, and re-read bandwidths timed at P
// and 2P passes. The recorded GPU runs (replay_test.cpp) check that the stages
// reproduce what a GPU said; these check that they find what the rules say,
// including rules no GPU has shown yet.
#include "stages/probe_context.hpp"
#include "stages/results.hpp"
#include "model/l1_at_launch.hpp"
#include "simulated_engine.hpp"

#include <gtest/gtest.h>

namespace {
using namespace gpu_topology;
using stages::KiB;
using stages::MiB;
using kernels::ChaseKernel;

kernels::DeviceFacts hopper_facts() {
    kernels::DeviceFacts f;
    f.name = "simulated";
    f.uuid = "GPU-simulated";
    f.cc_major = 9;
    f.sm_count = 132;
    f.l2_bytes = 50 * MiB;
    f.global_bytes = std::uint64_t(80) << 30;
    f.shared_per_sm_bytes = 228 * KiB;
    f.shared_per_block_optin_bytes = 227 * KiB;
    return f;
}

struct Probe {
    simulated::SimulatedEngine engine;
    kernels::DeviceFacts facts = hopper_facts();
    stages::ProbeOptions options;
    stages::Progress progress{false};
    model::Topology topology;
    stages::SweepRunner runner{engine, std::nullopt};
    stages::ProbeContext ctx{engine,   runner,   facts, options, progress, topology,
                                 stages::BufferLayout(facts.l2_bytes, facts.global_bytes), {}, {}};
    double value(std::string_view name) const { return topology.value(model::find(name)).value_or(-1); }
    const model::Result& result(std::string_view name) const { return *topology.get(model::find(name)); }
    // Runs `stage_function` as the runner does: as the stage `stage`, which may set only its own quantities.
    void run(std::string_view stage, void (*stage_function)(stages::ProbeContext&)) {
        ctx.stage = std::string(stage);
        stage_function(ctx);
    }
};

// Hopper-like rules, not monotone in the declared shared memory: the probe's
// kernel (16 B) gets little L1 from 10 %, a kernel with 8 KiB much more.
std::uint64_t rule(ChaseKernel kernel, std::uint32_t dynamic, int carveout, std::uint32_t threads) {
    if (kernel == ChaseKernel::probe) {
        if (carveout < 0) return (threads >= 1024 ? 241 : threads >= 256 ? 217 : 185) * KiB;
        return (carveout == 0 ? 241 : carveout < 3 ? 217 : carveout < 5 ? 185 : carveout < 10 ? 117 : 16) * KiB;
    }
    if (dynamic == 0) {
        if (carveout < 10) return (threads >= 1024 ? 241 : 217) * KiB;
        return (carveout < 25 ? 217 : carveout < 50 ? 185 : carveout < 75 ? 117 : carveout < 100 ? 50 : 16) * KiB;
    }
    if (carveout < 0) return (threads >= 1024 ? 149 : 16) * KiB;
    const std::uint64_t left = dynamic >= 96 * KiB ? 149 : dynamic >= 32 * KiB ? 185 : 233;
    return std::min<std::uint64_t>(left, carveout < 10 ? 256 : carveout < 25 ? 217 : carveout < 50 ? 185 : 16) * KiB;
}

TEST(StageL1Carveouts, EveryKernelKindGetsItsOwnRows) {
    Probe p;
    p.engine.l1_bytes = rule;
    p.run("l1 size", stages::run_l1_size);
    p.run("l1 carveouts", stages::run_l1_carveouts);
    const auto& rows = p.topology.carveouts;
    // The probe's kernel at 11 carveouts and none at 8, in three shapes; three tiling kernels at 7, in two.
    ASSERT_EQ(rows.size(), 33u + 24u + 42u);
    for (const auto& row : rows) {
        ASSERT_TRUE(row.size_bytes) << row.why_unmeasured;
        const bool probe = row.kernel_shared == model::KernelShared::fixed;
        const std::uint32_t dynamic = probe ? 0 : row.shared_bytes_per_block;
        EXPECT_EQ(*row.size_bytes, rule(probe ? ChaseKernel::probe : ChaseKernel::plain, dynamic,
                                        row.carveout_percent, row.threads_per_block))
            << model::to_string(row.kernel_shared) << " " << row.shared_bytes_per_block << " B, carveout "
            << row.carveout_percent << ", " << row.threads_per_block << " threads";
        EXPECT_EQ(row.shared_bytes_per_block, probe ? 16u : dynamic);
        EXPECT_EQ(row.kernel_shared == model::KernelShared::none, !probe && dynamic == 0);
    }
    // The header's bound answers for a kernel only from its own rows.
    EXPECT_EQ(model::l1_bounds(rows, 10, 256, 0).lower, 217 * KiB);
    EXPECT_EQ(model::l1_bounds(rows, 10, 256, 16).lower, 16 * KiB);
    EXPECT_EQ(model::l1_bounds(rows, 10, 256, 8 * KiB).lower, 217 * KiB);
    EXPECT_FALSE(model::l1_bounds(rows, 10, 32, 8 * KiB).lower);  // a 32-thread tiling kernel was not measured
    EXPECT_FALSE(model::l1_bounds(rows, 10, 256, 4 * KiB).lower);  // no kernel of 4 KiB was measured
    EXPECT_EQ(p.value("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES"), 16.0 * KiB);
}

TEST(StageL1Carveouts, HintsSaveChasesButNotAnswers) {
    Probe hinted;
    hinted.engine.l1_bytes = rule;
    hinted.run("l1 size", stages::run_l1_size);
    const auto before = hinted.engine.chases;
    hinted.run("l1 carveouts", stages::run_l1_carveouts);
    const auto with_hints = hinted.engine.chases - before;
    // A full doubling and bisection to 1 KiB takes about 15 chases a launch, a hint that holds 2
    // (the all-hit footprint is measured once per kernel).
    EXPECT_LT(with_hints, 99u * 4) << "the hints did not make the table cheaper";
}

TEST(SizeSearch, NearHintsFindWhatAFullSearchFinds) {
    const auto measure_with = [](std::uint64_t capacity) {
        return [capacity](std::uint64_t bytes) {
            return analysis::SweepPoint{bytes, std::vector<double>(256, bytes <= capacity ? 32.0 : 280.0)};
        };
    };
    analysis::CapacitySearchOptions o{.reference_bytes = 4 * KiB, .step_bytes = KiB, .max_bytes = 1024 * KiB};
    const std::vector<std::vector<std::uint64_t>> hint_lists{
        {}, {8 * KiB}, {149 * KiB}, {217 * KiB}, {240 * KiB}, {241 * KiB}, {900 * KiB},
        {241 * KiB, 217 * KiB}, {20 * KiB, 600 * KiB, 149 * KiB}, {217 * KiB, 217 * KiB, 2 * KiB}};
    const analysis::SweepPoint reference{4 * KiB, std::vector<double>(256, 32.0)};
    for (const std::uint64_t capacity : {20 * KiB, 149 * KiB, 217 * KiB, 241 * KiB, 600 * KiB}) {
        const auto full = analysis::find_capacity(measure_with(capacity), o);
        for (const auto& hints : hint_lists)
            for (const auto* shared : {static_cast<const analysis::SweepPoint*>(nullptr), &reference}) {
                const auto near = analysis::find_capacity_near(measure_with(capacity), o, hints, shared);
                EXPECT_EQ(near.capacity_bytes, full.capacity_bytes) << capacity << " with " << hints.size() << " hints";
                EXPECT_EQ(near.found, full.found);
                EXPECT_EQ(near.first_miss_bytes, full.first_miss_bytes);
            }
    }
    // A hint that holds costs two footprints (and the reference unless it is given).
    std::size_t measured = 0;
    const auto counting = [&](std::uint64_t bytes) {
        ++measured;
        return measure_with(217 * KiB)(bytes);
    };
    analysis::find_capacity_near(counting, o, {241 * KiB, 217 * KiB}, &reference);
    EXPECT_EQ(measured, 3u);  // 241 KiB misses, then 217 KiB fits and 218 KiB misses
    // Nothing missed up to the bound: not found, like the full search.
    const auto none = analysis::find_capacity_near(measure_with(4096 * KiB), o, {241 * KiB});
    EXPECT_FALSE(none.found);
    EXPECT_EQ(none.capacity_bytes, 1024 * KiB);
}

TEST(StageTlb, StrideAndCountFindsEntriesCoverageAndPenalty) {
    Probe p;
    p.run("tlb", stages::run_tlb);
    EXPECT_EQ(p.value("TLB_ENTRIES"), 15);
    EXPECT_EQ(p.value("TLB_COVERAGE_BYTES"), 16.0 * MiB);
    EXPECT_EQ(p.value("TLB_REACH_BYTES"), 15 * 16.0 * MiB);
    EXPECT_EQ(p.value("TLB_MISS_PENALTY_CYCLES"), 10);
    ASSERT_EQ(p.topology.cross_checks.size(), 1u);
    EXPECT_TRUE(p.topology.cross_checks[0].passed()) << p.topology.cross_checks[0].measured;
    EXPECT_TRUE(std::get<model::Estimate>(p.result("TLB_ENTRIES")).doubt.empty());
}

TEST(StageTlb, OtherEntriesAndCoverage) {
    Probe p;
    p.engine.tlb_entries = 8;
    p.engine.tlb_coverage = 32 * MiB;
    p.engine.tlb_miss_cycles = 14;
    p.run("tlb", stages::run_tlb);
    EXPECT_EQ(p.value("TLB_ENTRIES"), 8);
    EXPECT_EQ(p.value("TLB_COVERAGE_BYTES"), 32.0 * MiB);
    EXPECT_EQ(p.value("TLB_REACH_BYTES"), 8 * 32.0 * MiB);
    EXPECT_EQ(p.value("TLB_MISS_PENALTY_CYCLES"), 14);
}

TEST(StageTlb, MoreEntriesThanTheSpanHoldsLeavesThemUnmeasured) {
    Probe p;
    p.engine.tlb_entries = 64;  // a ring 64 MiB apart fits 24 elements in the 1.5 GiB span
    p.run("tlb", stages::run_tlb);
    const auto* why = std::get_if<model::Unmeasured>(&p.result("TLB_ENTRIES"));
    ASSERT_TRUE(why);
    EXPECT_NE(why->reason.find("no element of a ring 64 MiB apart slowed"), std::string::npos) << why->reason;
}

TEST(StageTlb, NoMissesAtNarrowStridesLeavesTheReachUnmeasured) {
    Probe p;
    p.engine.tlb_blind_below = 16 * MiB;  // rings 8 MiB apart never slow (what one H100 report claimed)
    p.run("tlb", stages::run_tlb);
    EXPECT_EQ(p.value("TLB_ENTRIES"), 15);
    const auto* why = std::get_if<model::Unmeasured>(&p.result("TLB_REACH_BYTES"));
    ASSERT_TRUE(why);
    EXPECT_NE(why->reason.find("slowed at no length up to 160 elements"), std::string::npos) << why->reason;
    EXPECT_TRUE(std::holds_alternative<model::Unmeasured>(p.result("TLB_COVERAGE_BYTES")));
}

TEST(StageBandwidths, RereadsCountWithoutTheirFirstPass) {
    Probe p;
    p.run("bandwidths", stages::run_bandwidths);
    // The first pass of an L1 re-read comes from L2 at a quarter of the rate: timed once it would cost ~3 %.
    EXPECT_NEAR(p.value("L1_BANDWIDTH_BYTES_PER_S"), 32e12, 32e12 * 1e-6);
    EXPECT_NEAR(p.value("SHARED_BANDWIDTH_BYTES_PER_S"), 33e12, 33e12 * 1e-6);
    EXPECT_NEAR(p.value("DRAM_BANDWIDTH_BYTES_PER_S"), 3e12, 3e12 * 1e-6);
}

}  // namespace

TEST(StageContract, AStageSetsOnlyItsOwnQuantities) {
    Probe p;
    p.ctx.stage = "tlb";
    EXPECT_NO_THROW(p.ctx.set(model::find("TLB_MISS_PENALTY_CYCLES"), model::Unmeasured{"test"}));
    try {
        p.ctx.set(model::find("L1_SIZE_BYTES"), model::Unmeasured{"test"});
        FAIL() << "the tlb stage set the L1 size";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("stage 'tlb' set L1_SIZE_BYTES, which the list gives to stage 'l1 size'"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(p.topology.get(model::find("L1_SIZE_BYTES")));
}

// A fetch granularity is vouched for only where the gaps between first-touch misses agree: noise
// that lifts hits over the threshold makes short gaps the most common ones (0.44 of them on a T4
// description with 20 cycles of jitter, 8 B where the sector is 64 B).
TEST(StageResults, AFetchGranularityOfIrregularGapsIsNotVouchedFor) {
    const auto doubt_of = [](double confidence) {
        const auto result = stages::granularity_result(analysis::Granularity{.bytes = 8, .confidence = confidence}, "test");
        return std::get<model::Estimate>(result).doubt;
    };
    EXPECT_EQ(doubt_of(0.99), "");
    EXPECT_EQ(doubt_of(0.75), "");
    EXPECT_NE(doubt_of(0.44).find("44 % of the gaps"), std::string::npos) << doubt_of(0.44);
}

// A line is vouched for only where the span at twice it grew about twice: more than three times (a
// confidence under a half) is not a clean boundary, as where a ring's reference overflowed a cache of
// few lines and the next level answered (draw 85377).
TEST(StageResults, ALineOfAnUncleanBoundaryIsNotVouchedFor) {
    const auto doubt_of = [](double confidence) {
        const auto result = stages::line_result(analysis::LineEstimate{.line_bytes = 64, .confidence = confidence},
                                                {{64, 1024}, {128, 3584}}, "test");
        return std::get<model::Estimate>(result).doubt;
    };
    EXPECT_EQ(doubt_of(1.0), "");
    EXPECT_EQ(doubt_of(0.78), "");
    EXPECT_NE(doubt_of(0.25).find("confidence 25 %"), std::string::npos) << doubt_of(0.25);
}

TEST(StageLines, RingsSizeCachesAtAStrideThatFillsEveryLine) {
    using analysis::StrideSpan;
    const auto dense = [](std::vector<StrideSpan> spans, std::optional<std::uint32_t> line = {}) {
        stages::LineAnswer answer{.spans = std::move(spans)};
        if (line) answer.line = analysis::LineEstimate{.line_bytes = *line, .confidence = 1};
        return stages::dense_stride(answer);
    };
    // A 128 B line (Hopper): rings up to 128 B apart span alike.
    EXPECT_EQ(dense({{32, 240 * KiB}, {64, 239 * KiB}, {128, 240 * KiB}, {256, 480 * KiB}}, 128), 128u);
    // A 64 B line found from the spans.
    EXPECT_EQ(dense({{32, 200 * KiB}, {64, 200 * KiB}, {128, 400 * KiB}, {256, 800 * KiB}}, 64), 64u);
    // A 64 B line behind a hashed index (draw 7032): spans grow unevenly, no line is found, and
    // rings 128 B apart fit 1.48 times the cache.
    EXPECT_EQ(dense({{32, 221184}, {64, 220160}, {128, 325632}, {256, 718848}, {512, 1212416}}), 64u);
    // A measured line wins over the spans' fallback: 64 B, though 32 B spans 5 % less; 128 B, though
    // narrower strides span less.
    EXPECT_EQ(dense({{32, 190 * KiB}, {64, 200 * KiB}, {128, 400 * KiB}}, 64), 64u);
    EXPECT_EQ(dense({{32, 190 * KiB}, {64, 200 * KiB}, {128, 240 * KiB}}, 128), 128u);
    // Within 2 % (at least 4 KiB) counts as alike; no narrower span, nothing to compare.
    EXPECT_EQ(dense({{32, 200 * KiB}, {64, 200 * KiB}, {128, 203 * KiB}}), 128u);
    EXPECT_EQ(dense({{128, 200 * KiB}, {256, 400 * KiB}}), 128u);
}
