// Architecture descriptions are input from anyone: every error names the
// file, the field and the value, and nothing half-read is used.
#include "simulate/architecture.hpp"
#include "simulate/split.hpp"

#include "architecture_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

namespace {
using namespace gpu_topology;
namespace fs = std::filesystem;
using test::architectures;

std::string h100_text() {
    std::ifstream in(architectures() / "nvidia-h100.json");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `text` (by default the H100 description) with `from` replaced by `to` (which must occur once).
std::string edited(const std::string& from, const std::string& to, std::string text = h100_text()) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs more than once";
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The error a description raises; "" when it is accepted.
std::string error_of(const std::string& text) {
    try {
        simulate::parse_architecture(text, "hostile.json");
    } catch (const simulate::DescriptionError& e) {
        return e.what();
    }
    return {};
}

void expect_error(const std::string& text, const std::vector<std::string>& parts) {
    const auto error = error_of(text);
    ASSERT_FALSE(error.empty()) << "accepted";
    EXPECT_NE(error.find("hostile.json"), std::string::npos) << error;
    for (const auto& p : parts) EXPECT_NE(error.find(p), std::string::npos) << "no '" << p << "' in:\n" << error;
}

TEST(SimulateDescription, TheH100DescriptionIsAccepted) {
    const auto arch = simulate::load_architecture(architectures() / "nvidia-h100.json");
    EXPECT_EQ(arch.facts.sm_count, 132);
    EXPECT_EQ(arch.l2.near_bytes, 26000000u);
    EXPECT_TRUE(arch.cluster);
    EXPECT_EQ(arch.citations.at("l2.near_latency_cycles").cite.substr(0, 10), "rrze-gh200");
}

TEST(SimulateDescription, ErrorsNameTheFieldAndTheValue) {
    expect_error(edited(R"("sm_count": {"value": 132,)", R"("sm_count": {"value": -3,)"),
                 {"device.sm_count", "-3", "whole number in [1, 1024]"});
    expect_error(edited(R"("line_bytes": {"value": 128, "cite": "mt4g: memory.l2.lineSize"})",
                        R"("line_bytes": {"value": 96, "cite": "mt4g: memory.l2.lineSize"})"),
                 {"l2.line_bytes", "96", "power of two"});
    expect_error(edited(R"("index": {"value": "hashed", "cite": "accel-sim: dl2)", R"("index": {"value": "xor", "cite": "accel-sim: dl2)"),
                 {"l2.index", "\"xor\"", "one of"});
    expect_error(edited(R"("banks": {"value": 32,)", R"("bankz": {"value": 32,)"), {"shared.bankz", "unknown field", "shared.banks: missing"});
}

TEST(SimulateDescription, EveryNumberIsCitedToADeclaredSource) {
    expect_error(edited(R"("sm_count": {"value": 132, "cite": "mt4g: compute.multiProcessorCount"})", R"("sm_count": 132)"),
                 {"device.sm_count", "expected {\"value\""});
    expect_error(edited(R"("cite": "mt4g: compute.multiProcessorCount")", R"("cite": "wikipedia: somewhere")"),
                 {"device.sm_count.cite", "names no entry of \"sources\""});
    expect_error(edited(R"("cite": "mt4g: compute.multiProcessorCount")", R"("cite": "")"), {"device.sm_count.cite"});
}

TEST(SimulateDescription, WhatNoGpuDoesIsRefused) {
    expect_error(edited(R"("near_bytes": {"value": 26000000,)", R"("near_bytes": {"value": 99000000,)"),
                 {"l2.near_bytes", "larger than device.l2_bytes"});
    expect_error(edited(R"("far_latency_cycles": {"value": 500,)", R"("far_latency_cycles": {"value": 200,)"),
                 {"l2.far_latency_cycles", "must exceed the near latency"});
    expect_error(edited(R"("latency_cycles": {"value": 695,)", R"("latency_cycles": {"value": 100,)"),
                 {"dram.latency_cycles", "must exceed the L2 latencies"});
    expect_error(edited(R"("value": [0, 8192, 16384, 32768, 65536, 102400, 135168, 167936, 200704, 233472])",
                        R"("value": [0, 8192, 16384, 8192, 233472])"),
                 {"supported_shared_bytes", "ascend"});
    // A modulo index takes address bits: six sets it cannot address.
    expect_error(edited(R"("sets": {"value": 4, "cite": "accel-sim: dl1 S:4:128:64, four sets whose ways grow with the L1 part of the split"},
    "index": {"value": "hashed",)",
                        R"("sets": {"value": 6, "cite": "accel-sim: dl1 S:4:128:64, four sets whose ways grow with the L1 part of the split"},
    "index": {"value": "modulo",)"),
                 {"unified_l1.sets", "power of two", "6"});
    // Clusters belong to compute capability 9.0 and newer.
    expect_error(edited(R"("cc_major": {"value": 9,)", R"("cc_major": {"value": 8,)"), {"cluster", "9.0"});
    // A constant L1.5 a few percent slower than the L1 (29 cycles) would be sized as the L1.
    expect_error(edited(R"("hit_latency_cycles": {"value": 99,)", R"("hit_latency_cycles": {"value": 40,)"),
                 {"constant.l15.hit_latency_cycles", "1.4 times", "29 cycles"});
    EXPECT_EQ(error_of(edited(R"("hit_latency_cycles": {"value": 99,)", R"("hit_latency_cycles": {"value": 41,)")), "");
}

// What a description says of the device is what a profile may hold (model/quantities.hpp): a value
// beyond it is refused here, naming the field, not by the profile's check after the whole probe.
TEST(SimulateDescription, DeviceFactsAreWhatAProfileMayHold) {
    expect_error(edited(R"("max_threads_per_sm": {"value": 2048,)", R"("max_threads_per_sm": {"value": 8192,)"),
                 {"device.max_threads_per_sm", "8192", "[512, 4096]"});
    expect_error(edited(R"("constant_bytes": {"value": 65536,)", R"("constant_bytes": {"value": 16384,)"),
                 {"device.constant_bytes", "16384"});
    expect_error(edited(R"("l2_bytes": {"value": 52428800,)", R"("l2_bytes": {"value": 1073741824,)"),
                 {"device.l2_bytes", "1073741824"});
    expect_error(edited(R"("texture_1d_linear_max_texels": {"value": 268435456,)", R"("texture_1d_linear_max_texels": {"value": 1024,)"),
                 {"device.texture_1d_linear_max_texels", "1024"});
}

// Fields the probe's run would otherwise read wrongly or slowly, refused by name.
TEST(SimulateDescription, WhatTheSimulatorCannotPlayIsRefused) {
    // A split no SM supports, in a cited exception.
    expect_error(edited(R"("shared_bytes": {"value": 135168,)", R"("shared_bytes": {"value": 300000,)"),
                 {"unified_l1.split.exceptions", "shared_bytes", "not a split the SM supports"});
    // A second TLB level that reaches no further than the first.
    auto text = h100_text();
    const auto level = text.find(R"(    {
      "entries": {"value": 15,)");
    ASSERT_NE(level, std::string::npos);
    const auto end = text.find("\n    }", level) + 6;
    text.insert(end, ",\n" + text.substr(level, end - level));
    expect_error(text, {"tlb[1]", "reaches no further"});
    // Random replacement in a fully associative L2: every load played one by one.
    expect_error(edited(R"("ways": {"value": 40,)", R"("ways": {"value": 0,)",
                        edited(R"x("replacement": {"value": "lru", "cite": "accel-sim: dl2 replacement L (LRU)"})x",
                               R"x("replacement": {"value": "random", "cite": "accel-sim: dl2 replacement L (LRU)"})x")),
                 {"l2.replacement", "random replacement", "ways a set"});
    // Allowances name quantities of a profile and allow something; notes are texts.
    expect_error(edited(R"("L2_DRAM_FETCH_BYTES": {"at_least")", R"("L2_DRAM_FETCH_BYTEZ": {"at_least")"),
                 {"allowances.L2_DRAM_FETCH_BYTEZ", "no quantity"});
    expect_error(edited(R"(  "notes": [
)", R"(  "notes": [
    null,
)"),
                 {"notes[0]", "expected text"});
    // A constant line the probe is not checked on; device memory that cannot hold the probe's buffer.
    expect_error(edited(R"("line_bytes": {"value": 64, "cite": "mt4g: memory.constant.l1.lineSize"})",
                        R"("line_bytes": {"value": 8, "cite": "mt4g: memory.constant.l1.lineSize"})"),
                 {"constant.l1.line_bytes", "32 to 128 B, got 8"});
    expect_error(edited(R"("global_bytes": {"value": 85176483840,)", R"("global_bytes": {"value": 536870912,)",
                        edited(R"("l2_bytes": {"value": 52428800,)", R"("l2_bytes": {"value": 268435456,)")),
                 {"device.global_bytes", "smaller than the probe's buffer"});
    // Shapes of L1 the probe is not checked on, and noise beyond what its statistics are checked with.
    expect_error(edited(R"("sets": {"value": 4, "cite": "accel-sim: dl1 S:4:128:64, four sets whose ways grow with the L1 part of the split"})",
                        R"("sets": {"value": 64, "cite": "accel-sim: dl1 S:4:128:64, four sets whose ways grow with the L1 part of the split"})"),
                 {"unified_l1.sets", "at most 16, got 64"});
    expect_error(edited(R"("cluster": {)", R"("noise": {"jitter_cycles": {"value": 20, "cite": "mt4g: x"}},
  "cluster": {)"),
                 {"noise.jitter_cycles", "20"});
    // Outliers beyond what a profile's latencies may hold.
    expect_error(edited(R"("cluster": {)", R"("noise": {"outlier_cycles": {"value": 100000, "cite": "mt4g: x"}},
  "cluster": {)"),
                 {"noise.outlier_cycles", "100000"});
}

TEST(SimulateDescription, MalformedFilesAreRefusedWithTheirPlace) {
    expect_error("{\"schema\": ", {"hostile.json:1"});
    expect_error("[1, 2]", {"expected an object"});
    expect_error(R"({"schema": "gpu-topology-arch/9"})", {"schema", "gpu-topology-arch/1"});
    // Nesting beyond the JSON reader's bound.
    expect_error(std::string(200, '[') + std::string(200, ']'), {"nesting"});
}

TEST(SimulateDescription, OversizedFilesAreNotRead) {
    const auto dir = fs::temp_directory_path() / "gpu_topology_simulate_description_test";
    fs::create_directories(dir);
    const auto big = dir / "huge.json";
    {
        std::ofstream out(big);
        out << "{\"notes\": [\"" << std::string(simulate::kMaxDescriptionBytes, 'x') << "\"]}";
    }
    try {
        simulate::load_architecture(big);
        FAIL() << "a file beyond the bound was read";
    } catch (const simulate::DescriptionError& e) {
        EXPECT_NE(std::string(e.what()).find("huge.json"), std::string::npos) << e.what();
    }
    EXPECT_THROW(simulate::load_architecture(dir), simulate::DescriptionError);  // a directory
    fs::remove_all(dir);
}

// The H100 split rule reproduces the independent chase it cites (docs/l1-effective-capacity.md, KiB of L1).
TEST(SimulateDescription, TheH100SplitRuleGivesTheCitedTable) {
    const auto arch = simulate::load_architecture(architectures() / "nvidia-h100.json");
    using kernels::ChaseKernel;
    const auto l1 = [&](ChaseKernel k, std::uint32_t dynamic, std::uint32_t threads, int carveout) {
        return simulate::l1_bytes(arch, {k, dynamic, threads, carveout}) / 1024;
    };
    EXPECT_EQ(l1(ChaseKernel::plain, 0, 32, 0), 217u);
    EXPECT_EQ(l1(ChaseKernel::plain, 0, 1024, 0), 241u);
    EXPECT_EQ(l1(ChaseKernel::plain, 0, 1024, 25), 185u);
    EXPECT_EQ(l1(ChaseKernel::plain, 0, 256, 100), 21u);  // the table's 16-18 KiB (the chase's criterion reads lower)
    EXPECT_EQ(l1(ChaseKernel::probe, 0, 32, 3), 185u);
    EXPECT_EQ(l1(ChaseKernel::probe, 0, 32, 10), 21u);
    EXPECT_EQ(l1(ChaseKernel::probe, 0, 32, -1), 185u);
    EXPECT_EQ(l1(ChaseKernel::plain, 8192, 32, -1), 21u);
    EXPECT_EQ(l1(ChaseKernel::plain, 8192, 256, -1), 117u);  // the exception
    EXPECT_EQ(l1(ChaseKernel::plain, 32768, 1024, -1), 149u);
    EXPECT_EQ(l1(ChaseKernel::plain, 98304, 256, 10), 149u);
    // The occupancy API reads the carveout as documented, not as the driver splits.
    EXPECT_EQ(simulate::resident_blocks(arch, {ChaseKernel::probe, 0, 32, 4}), 14u);
    EXPECT_EQ(simulate::resident_blocks(arch, {ChaseKernel::plain, 32768, 256, 75}), 5u);
}

}  // namespace
