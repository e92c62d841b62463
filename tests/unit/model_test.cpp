// The typed model: results, cross-checks, relations, the L1 per launch, and
// the one serializer, whose output must always validate.
#include "model/agreement.hpp"
#include "model/l1_at_launch.hpp"
#include "model/serialize.hpp"
#include "model/topology.hpp"
#include "profile/profile.hpp"

#include <gtest/gtest.h>

namespace {
using namespace gpu_topology;
using model::id;

model::Topology with_identity() {
    model::Topology t;
    t.device = {0, "Test GPU", "GPU-00000000-0000-0000-0000-000000000000"};
    t.probe.version = "1.0.0";
    for (const auto& [name, value] : std::vector<std::pair<std::string_view, double>>{
             {"SM_COUNT", 132}, {"CC_MAJOR", 9}, {"CC_MINOR", 0}, {"L2_SIZE_BYTES", 62914560.0},
             {"DRAM_SIZE_BYTES", 150109880320.0}})
        t.set(model::find(name), model::api_value(value));
    return t;
}

TEST(Topology, AbsentQuantitiesSerializeAsUnmeasuredAndValidate) {
    auto t = with_identity();
    t.set(id("L1_SIZE_BYTES"), model::Estimate{.value = 248832, .method = "test", .confidence = 0.99});
    const auto json = model::to_json(t);
    EXPECT_TRUE(profile::validate(json).empty()) << profile::validate(json).front();
    const auto l1 = profile::read_quantity(json, "L1_SIZE_BYTES");
    EXPECT_EQ(l1.value, 248832);
    const auto line = profile::read_quantity(json, "L1_LINE_BYTES");
    EXPECT_FALSE(line.value);
    EXPECT_EQ(line.reason, "not measured by this probe run");
}

// A measured value no supported GPU has becomes unmeasured, with its number; the API's word stands.
TEST(Topology, MeasuredValuesOutsideTheirRuleBecomeUnmeasured) {
    auto t = with_identity();
    t.set(id("SHARED_BANKS"), model::Estimate{.value = 128});
    t.set(id("L2_LINE_BYTES"), model::Estimate{.value = 96});
    t.set(id("L1_LATENCY_CYCLES"), model::LatencyEstimate{.p50 = 25000});
    t.set(id("L1_LINE_BYTES"), model::Estimate{.value = 128, .method = "test"});
    t.enforce_relations();
    for (const char* name : {"SHARED_BANKS", "L2_LINE_BYTES", "L1_LATENCY_CYCLES"}) {
        const auto* u = std::get_if<model::Unmeasured>(t.get(model::find(name)));
        ASSERT_TRUE(u) << name;
        EXPECT_NE(u->reason.find("no GPU CUDA supports has that"), std::string::npos) << u->reason;
    }
    EXPECT_EQ(t.value(id("L1_LINE_BYTES")), 128);
    EXPECT_EQ(t.value(id("L2_SIZE_BYTES")), 62914560.0);
    const auto errors = profile::validate(model::to_json(t));
    EXPECT_TRUE(errors.empty()) << errors.front();
}

// Rounded values are written as their decimals: 3.32, not 332 * 0.01 = 3.3200000000000003.
TEST(Topology, RoundedValuesAreWrittenAsDecimals) {
    auto t = with_identity();
    t.probe.duration_s = 3.3249;
    t.probe.stages.push_back({"warm-up", 0.2540004, 1});
    const std::string text = model::to_json(t).dump(-1);
    EXPECT_NE(text.find("\"duration_s\":3.32,"), std::string::npos) << text.substr(0, 400);
    EXPECT_NE(text.find("\"seconds\":0.254}"), std::string::npos);
}

TEST(Topology, DoubtLowersConfidenceAndIsSerialized) {
    auto t = with_identity();
    t.set(id("L1_SIZE_BYTES"), model::Estimate{.value = 248832, .method = "test", .confidence = 0.8});
    t.doubt(id("L1_SIZE_BYTES"), "busy", 0.25);
    t.doubt(id("L2_SIZE_BYTES"), "an API value is never doubted");
    const auto json = model::to_json(t);
    const auto l1 = profile::read_quantity(json, "L1_SIZE_BYTES");
    EXPECT_EQ(l1.doubt, "busy");
    EXPECT_DOUBLE_EQ(l1.confidence, 0.2);
    EXPECT_TRUE(profile::read_quantity(json, "L2_SIZE_BYTES").doubt.empty());
}

TEST(CrossCheck, AgreementFallsOnlyBeyondTheTolerance) {
    const model::CrossCheck inside{.name = "c", .expected = 100, .measured = 104, .tolerance = 5};
    const model::CrossCheck three{.name = "c", .expected = 100, .measured = 115, .tolerance = 5};
    EXPECT_TRUE(inside.passed());
    EXPECT_DOUBLE_EQ(inside.agreement(), 1.0);
    EXPECT_FALSE(three.passed());
    EXPECT_DOUBLE_EQ(three.agreement(), 0.5);
}

// Runs of one card agree within 5 % on a latency or a penalty; cards of one model within 12 %; a
// size, a bandwidth or a count is held to one rule on every card.
TEST(Agreement, CardsOfOneModelHaveRoomOnlyInCycles) {
    const auto& latency = model::kQuantities[id("L2_NEAR_LATENCY_CYCLES")];
    EXPECT_DOUBLE_EQ(model::agreement_tolerance(latency, 270, model::Cards::same), 13.5);
    EXPECT_DOUBLE_EQ(model::agreement_tolerance(latency, 270, model::Cards::other_of_model), 32.4);
    const auto& penalty = model::kQuantities[id("L1_MISS_PENALTY_CYCLES")];
    EXPECT_DOUBLE_EQ(model::agreement_tolerance(penalty, 237, model::Cards::same), 11.85);
    EXPECT_DOUBLE_EQ(model::agreement_tolerance(penalty, 237, model::Cards::other_of_model), 28.44);
    for (const char* name : {"L2_NEAR_SIZE_BYTES", "L2_BANDWIDTH_BYTES_PER_S", "L1_LINE_BYTES", "TLB_ENTRIES"}) {
        const auto& q = model::kQuantities[model::find(name)];
        EXPECT_EQ(model::agreement_tolerance(q, 1e6, model::Cards::other_of_model), model::agreement_tolerance(q, 1e6))
            << name;
    }
}

TEST(Topology, FailedCrossCheckWithdrawsTheWord) {
    auto t = with_identity();
    t.set(id("L1_SIZE_BYTES"), model::Estimate{.value = 248832, .method = "test", .confidence = 1});
    t.set(id("L1_LINE_BYTES"), model::Estimate{.value = 128, .method = "test", .confidence = 1});
    t.cross_checks.push_back({.name = "l1: random order", .expected = 248832, .measured = 200000, .tolerance = 4096,
                        .concerns = {id("L1_SIZE_BYTES")}});
    t.cross_checks.push_back({.name = "l1: passes", .expected = 128, .measured = 128, .tolerance = 0,
                        .concerns = {id("L1_LINE_BYTES")}});
    t.apply_cross_checks();
    const auto* size = std::get_if<model::Estimate>(t.get(id("L1_SIZE_BYTES")));
    ASSERT_TRUE(size);
    EXPECT_NE(size->doubt.find("cross-check failed: l1: random order"), std::string::npos);
    EXPECT_LT(size->confidence, 0.2);
    EXPECT_TRUE(std::get<model::Estimate>(*t.get(id("L1_LINE_BYTES"))).doubt.empty());
}

// A measured SM clock a little above the API's maximum is the estimate's error
// (an H100 GPU-test probe read 1994.75 against 1980 MHz); far above, a contradiction.
TEST(Topology, AnEstimateMayExceedItsBoundByItsError) {
    for (const auto& [measured_khz, kept] : {std::pair{1994750.0, true}, std::pair{2030000.0, false}}) {
        auto t = with_identity();
        t.set(id("SM_CLOCK_MAX_KHZ"), model::api_value(1980000));
        t.set(id("SM_CLOCK_KHZ"), model::Estimate{.value = measured_khz, .method = "test", .confidence = 1});
        t.enforce_relations();
        EXPECT_EQ(t.value(id("SM_CLOCK_KHZ")).has_value(), kept) << measured_khz;
        EXPECT_TRUE(profile::validate(model::to_json(t)).empty()) << measured_khz;
    }
}

TEST(Topology, AContradictionIsNotAFact) {
    auto t = with_identity();
    // Within its own rule, but beyond L2.
    t.set(id("L2_NEAR_SIZE_BYTES"), model::Estimate{.value = 100e6, .method = "test", .confidence = 1});
    t.enforce_relations();
    const auto* near = std::get_if<model::Unmeasured>(t.get(id("L2_NEAR_SIZE_BYTES")));
    ASSERT_TRUE(near);
    EXPECT_NE(near->reason.find("L2_NEAR_SIZE_BYTES = 100000000 and L2_SIZE_BYTES = 62914560 contradict"),
              std::string::npos);
    EXPECT_TRUE(std::holds_alternative<model::Estimate>(*t.get(id("L2_SIZE_BYTES"))));  // the API's word stands
    EXPECT_TRUE(profile::validate(model::to_json(t)).empty());
}

// A small table like the H200's: L1 shrinks as the carveout grows and as blocks shrink.
std::vector<model::CarveoutRow> table() {
    std::vector<model::CarveoutRow> rows;
    const auto row = [&](int c, std::uint32_t t, std::uint64_t kib) {
        rows.push_back({.carveout_percent = c, .threads_per_block = t, .shared_bytes_per_block = 16,
                        .resident_blocks = 0, .size_bytes = kib << 10});
    };
    row(0, 32, 243), row(0, 1024, 243), row(4, 32, 150), row(4, 1024, 160), row(10, 32, 19), row(10, 1024, 19);
    row(-1, 32, 185), row(-1, 256, 212), row(-1, 1024, 226);
    rows.push_back({.carveout_percent = 50, .threads_per_block = 32, .shared_bytes_per_block = 16,
                    .why_unmeasured = "skipped"});
    // A kernel without shared memory: more L1 at 10 % than the one above, less at 0 %.
    rows.push_back({.carveout_percent = 0, .threads_per_block = 256, .kernel_shared = model::KernelShared::none,
                    .shared_bytes_per_block = 0, .size_bytes = 217u << 10});
    rows.push_back({.carveout_percent = 10, .threads_per_block = 256, .kernel_shared = model::KernelShared::none,
                    .shared_bytes_per_block = 0, .size_bytes = 217u << 10});
    return rows;
}

TEST(L1AtLaunch, MeasuredLaunchesBoundTheOthers) {
    const auto rows = table();
    const auto exact = model::l1_bounds(rows, 4, 1024, 16);
    EXPECT_EQ(exact.lower, 160u << 10);
    EXPECT_EQ(exact.upper, 160u << 10);
    const auto between = model::l1_bounds(rows, 2, 512, 16);  // harsher: (4, 32), (10, 32); milder: (0, 1024)
    EXPECT_EQ(between.lower, 150u << 10);
    EXPECT_EQ(between.upper, 243u << 10);
    const auto beyond = model::l1_bounds(rows, 100, 32, 16);  // nothing as demanding was measured
    EXPECT_FALSE(beyond.lower);
    EXPECT_EQ(beyond.upper, 19u << 10);
}

TEST(L1AtLaunch, OnlyRowsOfTheSameSharedMemoryAnswer) {
    const auto rows = table();
    EXPECT_EQ(model::l1_bounds(rows, 10, 256, 0).lower, 217u << 10);  // not the 19 KiB of the 16-byte kernel
    EXPECT_EQ(model::l1_bounds(rows, 10, 256, 16).lower, 19u << 10);
    EXPECT_EQ(model::l1_bounds(rows, 0, 256, 0).upper, 217u << 10);   // not the 243 KiB of the 16-byte kernel
    const auto unmeasured_kind = model::l1_bounds(rows, 10, 256, 8192);
    EXPECT_FALSE(unmeasured_kind.lower);
    EXPECT_FALSE(unmeasured_kind.upper);
}

TEST(L1AtLaunch, TheDefaultCarveoutIsItsOwnColumn) {
    const auto rows = table();
    EXPECT_EQ(model::l1_bounds(rows, -1, 512, 16).lower, 212u << 10);
    EXPECT_EQ(model::l1_bounds(rows, -1, 512, 16).upper, 226u << 10);
    EXPECT_EQ(model::l1_bounds(rows, -1, 1, 16).lower, 185u << 10);  // a block takes at least a warp
}

}  // namespace
