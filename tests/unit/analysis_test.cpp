// The analysis on synthetic series whose answer is known.
#include "analysis/banks.hpp"
#include "analysis/translation.hpp"
#include "analysis/change_point.hpp"
#include "analysis/granularity.hpp"
#include "analysis/hierarchy.hpp"
#include "analysis/ks_test.hpp"
#include "analysis/sharing.hpp"
#include "analysis/statistics.hpp"
#include "analysis/size_search.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace {
using namespace gpu_topology::analysis;

// Latencies of a cache of `capacity` bytes: hits at `hit`, and a share of
// misses at `miss` growing linearly over `ramp` bytes past the capacity.
SweepPoint synthetic(std::uint64_t footprint, std::uint64_t capacity, double hit, double miss, std::uint64_t ramp,
                     std::mt19937& rng, int samples = 512) {
    const double share = footprint <= capacity ? 0.0 : std::min(1.0, double(footprint - capacity) / double(ramp));
    std::bernoulli_distribution is_miss(share);
    std::normal_distribution<double> jitter(0.0, 1.5);
    SweepPoint p{footprint, {}};
    for (int i = 0; i < samples; ++i) p.cycles.push_back((is_miss(rng) ? miss : hit) + jitter(rng));
    return p;
}

TEST(KsSlower, DriftInsideTheIndifferenceZoneIsNoChange) {
    std::vector<double> reference(400, 27.0), candidate(300, 27.0);
    candidate.insert(candidate.end(), 100, 40.0);  // an L1 hit at 40 cycles is still a hit
    EXPECT_LT(ks_slower(reference, candidate, 16).statistic, 0.01);
    candidate.insert(candidate.end(), 100, 280.0);  // misses are a change
    EXPECT_NEAR(ks_slower(reference, candidate, 16).statistic, 0.2, 1e-9);
}

TEST(KsSlower, FasterCandidateIsNoChange) {
    std::vector<double> reference(100, 280.0), candidate(100, 27.0);
    EXPECT_DOUBLE_EQ(ks_slower(reference, candidate, 16).statistic, 0.0);
}

TEST(SingleChangePoint, FindsTheStep) {
    const std::vector<double> series{1, 1, 1, 1, 1, 9, 9, 9};
    const auto split = single_change_point(series);
    ASSERT_TRUE(split);
    EXPECT_EQ(split->index, 5u);
}

TEST(DetectChangePoints, ThreeLevelsInOneNoisyCurve) {
    std::mt19937 rng(1);
    Sweep s;
    for (std::uint64_t kib = 16; kib <= 65536; kib *= 2) {
        const double latency = kib <= 128 ? 30 : kib <= 4096 ? 280 : 650;
        s.points.push_back(synthetic(kib * 1024, ~0ull, latency, latency, 1, rng));
    }
    const auto found = detect_change_points(s);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].last_before_bytes, 128u * 1024);
    EXPECT_EQ(found[1].last_before_bytes, 4096u * 1024);
}

TEST(DetectChangePoints, FlatNoisyCurveHasNone) {
    std::mt19937 rng(2);
    Sweep s;
    for (int i = 1; i <= 20; ++i) s.points.push_back(synthetic(i * 1024, ~0ull, 280, 280, 1, rng));
    EXPECT_TRUE(detect_change_points(s).empty());
}

TEST(FindCapacity, DoublingAndBisectionLandWithinOneStep) {
    std::mt19937 rng(3);
    constexpr std::uint64_t capacity = 241 * 1024;
    CapacitySearchOptions options{.reference_bytes = 4096, .step_bytes = 1024, .max_bytes = 4 << 20};
    const auto e = find_capacity(
        [&](std::uint64_t f) { return synthetic(f, capacity, 27, 280, 40 * 1024, rng, 1024); }, options);
    ASSERT_TRUE(e.found);
    // < 5% misses still fits: the ramp adds up to 5% of 40 KiB = 2 KiB.
    EXPECT_GE(e.capacity_bytes, capacity - 1024);
    EXPECT_LE(e.capacity_bytes, capacity + 3 * 1024);
    EXPECT_EQ(e.first_miss_bytes, e.capacity_bytes + 1024);
    EXPECT_GT(e.confidence, 0.99);
}

TEST(FindCapacity, NoLimitBelowTheBoundIsReportedAsNotFound) {
    std::mt19937 rng(4);
    CapacitySearchOptions options{.reference_bytes = 4096, .step_bytes = 1024, .max_bytes = 64 * 1024};
    const auto e = find_capacity([&](std::uint64_t f) { return synthetic(f, 1 << 30, 27, 280, 1, rng); }, options);
    EXPECT_FALSE(e.found);
}

TEST(FetchGranularity, PeriodOfTheSlowAccesses) {
    std::vector<double> first_touch;
    for (int i = 0; i < 256; ++i) first_touch.push_back(i % 4 == 0 ? 290 : i % 4 == 1 ? 40 : 27);
    const auto g = fetch_granularity(first_touch, 8);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->bytes, 32u);
    EXPECT_DOUBLE_EQ(g->confidence, 1.0);
}

// A handful of loads delayed by thousands of cycles (draw 25361 of the property test: four among
// 1024 first touches every 8 B) are a class of their own, but their gaps agree on nothing: the
// fetches below them are the answer, not the gap between two delayed loads.
TEST(FetchGranularity, DelayedLoadsAreNotTheFetches) {
    std::vector<double> first_touch;
    for (int i = 0; i < 1024; ++i) first_touch.push_back(i % 32 == 0 ? 690 : 390 + i % 5);
    for (const auto& [at, cycles] : {std::pair{263, 1717.0}, {268, 2440.0}, {700, 2793.0}, {925, 3050.0}})
        first_touch[at] = cycles;
    const auto g = fetch_granularity(first_touch, 8);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->bytes, 256u);
    EXPECT_GT(g->confidence, 0.75);  // 28 of the 35 gaps: the delayed loads split three of them
    // Three: two gaps, at most half of them alike.
    first_touch[925] = 391;
    const auto three = fetch_granularity(first_touch, 8);
    ASSERT_TRUE(three);
    EXPECT_EQ(three->bytes, 256u);
}

// The L2 line search starts at the fetch granularity where it is finer than 64 B, and only where it
// could be a line's: a granularity of 40 B (the gap between delayed loads, draw 25361) or under 32 B
// leaves the search at 64 B.
TEST(LineSearchStrides, StartAtAFetchThatCouldBeALine) {
    using Strides = std::vector<std::uint32_t>;
    EXPECT_EQ(line_search_strides(std::nullopt, 64, 256), (Strides{64, 128, 256}));
    EXPECT_EQ(line_search_strides(Granularity{.bytes = 32}, 64, 256), (Strides{32, 64, 128, 256}));
    EXPECT_EQ(line_search_strides(Granularity{.bytes = 128}, 64, 256), (Strides{64, 128, 256}));
    EXPECT_EQ(line_search_strides(Granularity{.bytes = 40}, 64, 256), (Strides{64, 128, 256}));
    EXPECT_EQ(line_search_strides(Granularity{.bytes = 16}, 64, 256), (Strides{64, 128, 256}));
    EXPECT_EQ(line_search_strides(Granularity{.bytes = 96}, 64, 256), (Strides{64, 128, 256}));
    EXPECT_THROW(line_search_strides(std::nullopt, 0, 256), std::invalid_argument);
    EXPECT_THROW(line_search_strides(std::nullopt, 512, 256), std::invalid_argument);
}

// Forty slow loads whose gaps agree on nothing (fetches blurred by noise, say) above a regular
// level every 128 B: too many to be delayed loads, so they stay the slow class and their answer
// stays doubted; the regular level below is not taken for the fetches and vouched for.
TEST(FetchGranularity, ManyIrregularSlowLoadsAreNotLeftOut) {
    std::vector<double> first_touch;
    for (int i = 0; i < 1024; ++i) first_touch.push_back(i % 16 == 0 ? 450 : 300 + i % 3);
    for (int i = 0; i < 40; ++i) first_touch[(i * 389 + 7) % 1024] = 700;  // 40 places, gaps 17-40 elements
    const auto g = fetch_granularity(first_touch, 8);
    ASSERT_TRUE(g);
    EXPECT_GT(g->slow_p50, 600);
    EXPECT_LT(g->confidence, 0.75);  // not vouched for (stages::granularity_result)
}

TEST(FetchGranularity, NoStructureNoAnswer) {
    const std::vector<double> flat(64, 27.0);
    EXPECT_FALSE(fetch_granularity(flat, 8));
}

TEST(LineFromSpans, SpanGrowsPastTheLine) {
    const auto line = line_from_spans({{32, 240}, {64, 240}, {128, 241}, {256, 480}, {512, 960}});
    ASSERT_TRUE(line);
    EXPECT_EQ(line->line_bytes, 128u);
    EXPECT_GT(line->confidence, 0.95);
}

TEST(LineFromSpans, NeverGrowingGivesNoLine) {
    EXPECT_FALSE(line_from_spans({{32, 240}, {64, 240}, {128, 240}}));
}

// A constant L1 of eight 128 B lines (draw 85377 of the property test): at a stride of 128 B the
// ring's reference already overflows it, and the search finds the 16 KiB L1.5 behind it. A span
// that grows 16 times when the stride doubles is another level's, not a line boundary.
TEST(LineFromSpans, AGrowthFarBeyondTwiceIsAnotherLevel) {
    EXPECT_FALSE(line_from_spans({{16, 1024}, {32, 1024}, {64, 1024}, {128, 16384}, {256, 16384}}));
    const auto doubled = line_from_spans({{16, 1024}, {32, 1024}, {64, 1024}, {128, 2048}});
    ASSERT_TRUE(doubled);
    EXPECT_EQ(doubled->line_bytes, 64u);
}

TEST(SpansIfLine, TheKnownStrideAsLineComesFirst) {
    // 48 MiB at 128 B: a 128 B line doubles the span at 256 B; a line of 256 B or more keeps it.
    EXPECT_EQ(spans_if_line({128, 48 << 20}, 256), (std::vector<std::uint64_t>{96u << 20, 48u << 20}));
    // Below the known stride: the same span for a line of 128 B or more, half for a 64 B line.
    EXPECT_EQ(spans_if_line({128, 48 << 20}, 64), (std::vector<std::uint64_t>{48u << 20, 24u << 20}));
    EXPECT_EQ(spans_if_line({128, 48 << 20}, 32),
              (std::vector<std::uint64_t>{48u << 20, 24u << 20, 12u << 20}));
}

TEST(SpansIfLine, EveryLineFrom16BytesTo1KiBIsACandidate) {
    // Known at 32 B, asked at 1 KiB: the span grows 32-fold for a 32 B line, not at all for 1 KiB.
    const auto spans = spans_if_line({32, 1000}, 1024);
    EXPECT_EQ(spans.front(), 32000u);
    EXPECT_EQ(spans.back(), 1000u);
    EXPECT_EQ(spans.size(), 6u);  // lines 32..1024; 16 B gives the 32 B line's span again
}

// --- sharing and instances ------------------------------------------------------

TEST(Sharing, EvictionNeedsAClearShareOfSlowerLoads) {
    const std::vector<double> hits(400, 32.0);
    std::vector<double> half_missed(400, 32.0);
    for (std::size_t i = 0; i < half_missed.size(); i += 2) half_missed[i] = 280;
    std::vector<double> few_missed(400, 32.0);
    for (std::size_t i = 0; i < 12; ++i) few_missed[i * 30] = 280;  // 3%: below the minimum effect
    EXPECT_TRUE(decide_eviction(hits, half_missed).evicted);
    EXPECT_FALSE(decide_eviction(hits, few_missed).evicted);
    EXPECT_FALSE(decide_eviction(hits, hits).evicted);
    std::vector<double> slightly_slower(400, 36.0);  // inside the indifference zone
    EXPECT_FALSE(decide_eviction(hits, slightly_slower).evicted);
}

TEST(Sharing, InstancesPerSmFromTheEvictingWarps) {
    EXPECT_EQ(instances_per_sm({true, true, true}, 4), 1u);
    EXPECT_EQ(instances_per_sm({false, false, false}, 4), 4u);
    EXPECT_EQ(instances_per_sm({false, true, false}, 4), 2u);
    EXPECT_FALSE(instances_per_sm({true, true, false}, 4));  // three of four share: no equal split
    EXPECT_THROW(instances_per_sm({true}, 4), std::invalid_argument);
}

TEST(Granularity, SpanIndependentOfStride) {
    using S = StrideSpan;
    EXPECT_TRUE(span_independent_of_stride({S{32, 240000}, S{128, 242000}, S{512, 236000}}));
    EXPECT_FALSE(span_independent_of_stride({S{32, 240000}, S{128, 242000}, S{512, 960000}}));
    EXPECT_FALSE(span_independent_of_stride({S{32, 240000}, S{64, 240000}}));  // strides too close to tell
}

}  // namespace

// --- shared-memory banks ------------------------------------------------------------

namespace banks = gpu_topology::analysis;

// What a bank model predicts: 1 issue cycle and 30 latency cycles per access, plus a cost per extra way.
struct BankModel {
    std::uint32_t banks, width;
    double issue_per_way, latency_per_way;
    std::vector<banks::StridedAccessTiming> strided() const {
        std::vector<banks::StridedAccessTiming> t;
        for (std::uint32_t stride = 4; stride <= 1024; stride *= 2) {
            const double ways = banks::conflict_ways(stride, banks, width);
            t.push_back({stride, 30 + latency_per_way * (ways - 1), 1 + issue_per_way * (ways - 1)});
        }
        return t;
    }
    std::vector<banks::WidthProbe> probes(std::uint32_t row) const {
        std::vector<banks::WidthProbe> p;
        for (std::uint32_t candidate : {8u, 16u})
            p.push_back({candidate, 1 + issue_per_way * (banks::conflict_ways(banks::width_probe_offsets(row, candidate),
                                                                              banks, width) - 1)});
        return p;
    }
};

TEST(Banks, ConflictWaysOfStridedWords) {
    EXPECT_EQ(banks::conflict_ways(4, 32, 4), 1u);
    EXPECT_EQ(banks::conflict_ways(8, 32, 4), 2u);
    EXPECT_EQ(banks::conflict_ways(128, 32, 4), 32u);
    EXPECT_EQ(banks::conflict_ways(132, 32, 4), 1u);  // a pitch of 33 words
    EXPECT_EQ(banks::conflict_ways(4, 16, 8), 1u);    // two lanes share a word
    EXPECT_EQ(banks::conflict_ways(8, 16, 8), 2u);    // the same ways as 32 x 4 B at every stride
}

TEST(Banks, GeometryOfHopperLikeBanks) {
    const BankModel model{32, 4, 1.0, 2.05};
    const auto row = banks::bank_row_bytes(model.strided());
    ASSERT_TRUE(row);
    EXPECT_EQ(*row, 128u);
    const auto g = banks::bank_geometry(model.strided(), model.probes(*row));
    ASSERT_TRUE(g);
    EXPECT_EQ(g->banks, 32u);
    EXPECT_EQ(g->bank_bytes, 4u);
    EXPECT_NEAR(g->issue_per_way, 1.0, 1e-9);
    EXPECT_NEAR(g->latency_per_way, 2.05, 1e-9);
    EXPECT_GT(g->confidence, 0.99);
}

TEST(Banks, WidthProbesTellWiderFewerBanksApart) {
    for (const BankModel model : {BankModel{16, 8, 2.0, 4.0}, BankModel{8, 16, 1.0, 2.0}, BankModel{64, 4, 1.0, 2.0}}) {
        const auto row = banks::bank_row_bytes(model.strided());
        ASSERT_TRUE(row);
        const auto g = banks::bank_geometry(model.strided(), model.probes(*row));
        ASSERT_TRUE(g);
        EXPECT_EQ(g->banks, model.banks);
        EXPECT_EQ(g->bank_bytes, model.width);
    }
}

TEST(Banks, NoGeometryWithoutGrowthOrSaturation) {
    EXPECT_FALSE(banks::bank_geometry(BankModel{32, 4, 0.0, 0.0}.strided(), {}));
    auto growing = BankModel{32, 4, 1.0, 2.0}.strided();
    growing.resize(6);  // strides 4..128: still doubling at the last
    EXPECT_FALSE(banks::bank_geometry(growing, {}));
    auto gap = BankModel{32, 4, 1.0, 2.0}.strided();
    gap.erase(gap.begin() + 2);  // not consecutive powers of two
    EXPECT_FALSE(banks::bank_geometry(gap, {}));
}

// --- translation: the longest ring whose fast loads do not slow --------------------

// A ring of n elements: loads at 263 or 300 cycles (near and far slices), each
// `penalty` slower once n exceeds `entries` (every load misses).
gpu_topology::analysis::SweepPoint tlb_ring(std::uint32_t n, std::uint32_t entries, double penalty) {
    gpu_topology::analysis::SweepPoint p{n, {}};
    for (std::uint32_t i = 0; i < 1024; ++i)
        p.cycles.push_back((i % n % 2 ? 300.0 : 263.0) + (n > entries ? penalty : 0.0));
    return p;
}

TEST(Translation, LongestFastRingIsTheEntries) {
    for (std::uint32_t entries : {15u, 16u, 33u}) {
        const auto search = gpu_topology::analysis::longest_fast_ring(
            [&](std::uint32_t n) { return tlb_ring(n, entries, 11); }, 4, 96, 5);
        EXPECT_TRUE(search.found);
        EXPECT_EQ(search.last_fast, entries);
        EXPECT_EQ(search.first_slow, entries + 1);
        EXPECT_DOUBLE_EQ(search.rise_cycles, 11);
    }
}

// A victim of 4 entries after a disturbing ring of d: with LRU replacement in a
// level of `entries`, the first 4 + d - entries of the victim's loads miss
// (the oldest entries go first); its elements alternate near and far L2 slices.
gpu_topology::analysis::SweepPoint disturbed_victim(std::uint32_t d, std::uint32_t entries, double penalty) {
    gpu_topology::analysis::SweepPoint p{d, {}};
    const std::uint32_t evicted = 4 + d > entries ? std::min<std::uint32_t>(4, 4 + d - entries) : 0;
    for (std::uint32_t launch = 0; launch < 32; ++launch)
        for (std::uint32_t i = 0; i < 4; ++i)
            p.cycles.push_back((i % 2 ? 300.0 : 263.0) + (i < evicted ? penalty : 0.0) + (launch % 3));
    return p;
}

TEST(Translation, ADisturbedVictimShowsItsFirstMissPositionByPosition) {
    const auto search = gpu_topology::analysis::longest_fast_ring(
        [](std::uint32_t d) { return disturbed_victim(d, 15, 10); }, 1, 64, 5,
        gpu_topology::analysis::positionwise_rise(4));
    ASSERT_TRUE(search.found);
    EXPECT_EQ(4 + search.last_fast, 15u);  // the level's entries
    EXPECT_DOUBLE_EQ(search.rise_cycles, 10);
    // A percentile of all loads sees the first miss late, or never: a near slice's miss stays under
    // the far slices' loads, and the fast loads wait for every entry to go.
    const auto fastest = gpu_topology::analysis::longest_fast_ring(
        [](std::uint32_t d) { return disturbed_victim(d, 15, 10); }, 1, 64, 5);
    EXPECT_GT(4 + fastest.last_fast, 15u);
}

TEST(Translation, APenaltyUnderTheThresholdIsNotFound) {
    const auto search = gpu_topology::analysis::longest_fast_ring(
        [](std::uint32_t n) { return tlb_ring(n, 16, 3); }, 4, 24, 5);
    EXPECT_FALSE(search.found);
    EXPECT_EQ(search.last_fast, 24u);
    EXPECT_THROW(gpu_topology::analysis::longest_fast_ring([](std::uint32_t n) { return tlb_ring(n, 16, 3); }, 4, 4, 5),
                 std::invalid_argument);
}

namespace {

// Four elements timed `passes` times (loads in ring order), each element `rise` cycles slower than
// its reference, every load jittered uniformly over `width` cycles.
SweepPoint jittered_positions(std::uint32_t passes, double rise, double width, std::mt19937& random) {
    std::uniform_real_distribution<double> jitter(-width / 2, width / 2);
    SweepPoint point;
    for (std::uint32_t pass = 0; pass < passes; ++pass)
        for (int p = 0; p < 4; ++p) point.cycles.push_back(280 + 10 * p + rise + jitter(random));
    return point;
}

}  // namespace

TEST(Translation, AMeanRiseSaysHowFarItsMediansMayBeOff) {
    // Steady loads: every median exact.
    SweepPoint steady, slower;
    for (int pass = 0; pass < 32; ++pass)
        for (int p = 0; p < 4; ++p) {
            steady.cycles.push_back(280 + p);
            slower.cycles.push_back(315 + p);
        }
    const auto exact = mean_positionwise_rise(steady, slower, 4);
    EXPECT_DOUBLE_EQ(exact.cycles, 35);
    EXPECT_DOUBLE_EQ(exact.standard_error, 0);
    // Loads jittered over 39 cycles (a drawn GPU's L2): a mean of medians of 32 passes is off by
    // 2.4 cycles (one standard error: width / 2 / sqrt(32) per median, over 8 medians, / 4); the
    // estimate is within 15 % of it, and the rises of 400 such pairs spread as it says.
    std::mt19937 random(7123);
    std::vector<double> rises;
    double errors = 0;
    for (int run = 0; run < 400; ++run) {
        const auto r = mean_positionwise_rise(jittered_positions(32, 0, 39, random), jittered_positions(32, 35, 39, random), 4);
        rises.push_back(r.cycles);
        errors += r.standard_error;
    }
    const double truth = 39.0 / 2 / std::sqrt(32.0) * std::sqrt(8.0) / 4;
    EXPECT_NEAR(errors / 400, truth, 0.15 * truth);
    double spread = 0;
    for (double r : rises) spread += (r - 35) * (r - 35);
    EXPECT_NEAR(std::sqrt(spread / 400), truth, 0.15 * truth);
    EXPECT_THROW(median_standard_error(std::vector<double>{}), std::invalid_argument);
}

// --- the hierarchy curve's plateaus ------------------------------------------------

namespace {

// A curve through the L1 path, 4 points per doubling from 8 KiB to 2.5 x an L2 of 64 MiB: L1
// hits up to 512 KiB, then `level(footprint)` per point, each load jittered by up to 4 cycles.
Sweep curve_of(const std::function<double(double mib)>& level) {
    std::mt19937 random(9091);
    std::uniform_real_distribution<double> jitter(-2, 2);
    Sweep curve;
    for (double f = 8 * 1024; f <= 2.5 * 64 * 1048576; f *= std::pow(2.0, 0.25)) {
        SweepPoint p{.footprint_bytes = std::uint64_t(f) / 128 * 128};
        const double mib = f / 1048576;
        for (int i = 0; i < 256; ++i) p.cycles.push_back((mib <= 0.5 ? 24 : level(mib)) + jitter(random));
        curve.points.push_back(std::move(p));
    }
    return curve;
}

}  // namespace

TEST(Hierarchy, PlateausFromTheL2SizeOnAreLevelsNotBlends) {
    constexpr std::uint64_t l2 = 64ull << 20;
    // A far part that evicts at random: near hits run to 54 MiB, far ones from 64 to 108 MiB.
    const auto h = interpret_hierarchy(curve_of([](double mib) { return mib < 60 ? 383 : mib < 110 ? 666 : 951; }), l2, true);
    ASSERT_TRUE(h.l2_near && h.l2_far && h.dram);
    EXPECT_NEAR(h.l2_far->latency.p50, 666, 3);
    EXPECT_NEAR(h.dram->latency.p50, 951, 3);
    // The same segment last: it is DRAM, and L2 has no far part.
    const auto last = interpret_hierarchy(curve_of([](double mib) { return mib < 60 ? 383 : 666; }), l2, true);
    ASSERT_TRUE(last.l2_near && last.dram);
    EXPECT_FALSE(last.l2_far);
    EXPECT_NEAR(last.dram->latency.p50, 666, 3);
    // A segment from the L2 size on that rises as its ring grows is a blend, not a level.
    const auto rising = interpret_hierarchy(
        curve_of([](double mib) { return mib < 60 ? 383 : mib < 110 ? 500 + 3 * mib : 951; }), l2, true);
    EXPECT_FALSE(rising.l2_far);
    ASSERT_TRUE(rising.dram);
    // A uniform L2's level piece just past its size (a step of 1.2 over near L2, not a far part's).
    const auto uniform = interpret_hierarchy(
        curve_of([](double mib) { return mib < 60 ? 383 : mib < 110 ? 460 : 951; }), l2, true);
    EXPECT_FALSE(uniform.l2_far);
    // DRAM reached through an L2 that evicts at random: past the L2 size the curve rises from 700
    // to 951 cycles, in steps too small for a level of their own, then levels; the plateau is its
    // flat end.
    const auto reached = interpret_hierarchy(
        curve_of([](double mib) { return mib < 60 ? 383 : mib < 100 ? 700 + 251 * (mib - 60) / 40 : 951; }), l2, true);
    ASSERT_TRUE(reached.dram);
    EXPECT_NEAR(reached.dram->latency.p50, 951, 3);
    EXPECT_TRUE(reached.dram->flat());
    // A rise within 10 % of the level (850 to 951) stays in the plateau, which is then not flat:
    // the stage does not vouch for its latency.
    const auto gentle = interpret_hierarchy(
        curve_of([](double mib) { return mib < 60 ? 383 : mib < 100 ? 850 + 101 * (mib - 60) / 40 : 951; }), l2, true);
    ASSERT_TRUE(gentle.dram);
    EXPECT_FALSE(gentle.dram->flat());
    // One slow point at the curve's end (a disturbed launch) stays an edge of the plateau, not half of it.
    const auto disturbed = interpret_hierarchy(
        curve_of([](double mib) { return mib < 60 ? 383 : mib < 150 ? 690 : 760; }), l2, true);
    ASSERT_TRUE(disturbed.dram);
    EXPECT_NEAR(disturbed.dram->latency.p50, 690, 3);
}

// --- a plateau's own loads and a faster level's ------------------------------------

namespace {
// `fast_share` of `n` loads at 550 cycles, the rest at 720, each with a few cycles of spread.
std::vector<double> two_classes(std::size_t n, double fast_share) {
    std::vector<double> cycles;
    for (std::size_t i = 0; i < n; ++i)
        cycles.push_back((double(i) / n < fast_share ? 550.0 : 720.0) + double(i % 7));
    return cycles;
}
}  // namespace

TEST(WithoutFasterLevel, AFastClassThatHoldsItsShareIsThePlateausOwn) {
    // Loads to DRAM through near and far L2 slices: the same shares on every ring from 54 to 108 MiB.
    const std::vector<SweepPoint> dram{{54 << 20, two_classes(512, 0.44)}, {76 << 20, two_classes(512, 0.45)},
                                       {108 << 20, two_classes(512, 0.44)}};
    EXPECT_EQ(without_faster_level(dram, 508).size(), 3u * 512u);
}

TEST(WithoutFasterLevel, MostLoadsInAClassOfNoKnownLevelAreThePlateausOwn) {
    // A far L2 (729 cycles) that evicts at random, a fifth of its loads gone on to DRAM (1473):
    // the plateau is the far L2's, near L2 (395) is the level before it.
    const auto far_and_misses = [](double far_share) {
        std::vector<double> cycles;
        for (int i = 0; i < 512; ++i) cycles.push_back((i < far_share * 512 ? 729.0 : 1473.0) + i % 5);
        return cycles;
    };
    EXPECT_EQ(without_faster_level(far_and_misses(0.8), 395).size(), 512u);
    // The same classes with the fast one a minority: hits of a level before the plateau's own.
    EXPECT_EQ(without_faster_level(far_and_misses(0.3), 395).size(), 512u - 154u);
    // Over a doubling the shares decide: a majority of far hits that thins out from 80 to 55 % is
    // a faster level's, left out.
    const std::vector<SweepPoint> thinning{{64 << 20, far_and_misses(0.8)}, {128 << 20, far_and_misses(0.55)}};
    for (const double c : without_faster_level(thinning, 395)) EXPECT_GE(c, 1473.0);
}

TEST(WithoutFasterLevel, HitsThatThinOutAsTheRingGrowsAreLeftOut) {
    // Hits of an L2 at 550 cycles that the growing ring keeps less of: only the slower loads stay.
    const std::vector<SweepPoint> plateau{{54 << 20, two_classes(512, 0.44)}, {76 << 20, two_classes(512, 0.32)},
                                          {108 << 20, two_classes(512, 0.22)}};
    const auto kept = without_faster_level(plateau, 520);
    EXPECT_LT(kept.size(), 3u * 512u);
    for (const double c : kept) EXPECT_GE(c, 720.0);
    // Over less than a doubling the shares say nothing: the samples' classes alone decide.
    const std::vector<SweepPoint> short_plateau{{54 << 20, two_classes(512, 0.44)}, {64 << 20, two_classes(512, 0.44)}};
    EXPECT_LT(without_faster_level(short_plateau, 520).size(), 2u * 512u);
}
