// The analysis replayed on sweeps recorded on an NVIDIA H200 (tests/data/,
// subsampled from `gpu-topology-probe explore --raw`, 2026-11-22).
#include "analysis/granularity.hpp"
#include "analysis/hierarchy.hpp"
#include "analysis/size_search.hpp"
#include "profile/sweep_csv.hpp"

#include <gtest/gtest.h>

namespace {
using namespace gpu_topology;
constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;
constexpr std::uint64_t kH200L2 = 62914560;  // what the API reports

analysis::Sweep load(const char* name) {
    return profile::read_sweep_csv(std::filesystem::path(GPU_TOPOLOGY_TEST_DATA) / name);
}

// Replays a dense sweep as the capacity search would see it: the last
// footprint that fits before the first that does not.
std::uint64_t last_fitting(const analysis::Sweep& s) {
    analysis::CapacitySearchOptions options;
    std::uint64_t last = 0;
    for (const auto& p : s.points) {
        if (!analysis::fits(p, s.points.front(), options)) break;
        last = p.footprint_bytes;
    }
    return last;
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
    const auto s = load("h200_l1_carveout0.csv");
    const auto last = last_fitting(s);
    EXPECT_GE(last, 236 * KiB);
    EXPECT_LE(last, 244 * KiB);
}

TEST(RecordedH200, L2NearCapacity) {
    const auto last = last_fitting(load("h200_l2_fine.csv"));
    EXPECT_GE(last, 27 * MiB);
    EXPECT_LE(last, 30 * MiB);
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

}  // namespace
