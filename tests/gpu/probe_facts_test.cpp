// The probe end to end on the GPU, checked against what the API reports and
// against facts that hold for the architecture. Exits 77 (CTest: skipped)
// when no usable GPU is present.
#include "stages/cache_family.hpp"
#include "nvml/nvml_monitor.hpp"
#include "stages/probe_context.hpp"
#include "stages/stages.hpp"
#include "kernels/cuda_engine.hpp"
#include "model/l1_at_launch.hpp"
#include "model/serialize.hpp"
#include "profile/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace {

using namespace gpu_topology;

kernels::DeviceFacts g_facts;
model::Topology g_topology;
util::Json g_profile;

double value(const char* name) {
    const auto v = profile::read_quantity(g_profile, name);
    if (!v.value) ADD_FAILURE() << name << " not measured: " << v.reason;
    return v.value.value_or(-1);
}

bool power_of_two(double v) {
    const auto n = static_cast<unsigned long long>(v);
    return n > 0 && (n & (n - 1)) == 0 && double(n) == v;
}

TEST(ProbeOnGpu, ProfileIsValidAndDescribesThisDevice) {
    EXPECT_TRUE(profile::validate(g_profile).empty());
    EXPECT_EQ(g_profile.at_path("device.name")->as_string(), g_facts.name);
    EXPECT_EQ(g_profile.at_path("device.uuid")->as_string(), g_facts.uuid);
    EXPECT_EQ(g_profile.at_path("source")->as_string(), "measured");
}

TEST(ProbeOnGpu, EveryCrossCheckPasses) {
    for (const auto& check : g_profile.at_path("cross_checks")->as_array())
        EXPECT_TRUE(check.find("passed")->as_bool()) << check.dump(-1);
}

TEST(ProbeOnGpu, SizesAgreeWithTheApi) {
    const double l1 = value("L1_SIZE_BYTES"), l1_shared = value("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES");
    const double l1_default = value("L1_SIZE_DEFAULT_CARVEOUT_BYTES");
    EXPECT_GT(l1, l1_shared);
    EXPECT_GE(l1, l1_default);
    EXPECT_GE(l1_default, l1_shared);
    // Shared memory and L1 share one array: what the max-L1 carveout gains is at most the shared memory per SM.
    EXPECT_LE(l1 - l1_shared, double(g_facts.shared_per_sm_bytes) * 1.02);
    const double near = value("L2_NEAR_SIZE_BYTES");
    EXPECT_LE(near, double(g_facts.l2_bytes));
    EXPECT_GE(near, double(g_facts.l2_bytes) / 4);
}

TEST(ProbeOnGpu, LinesAndSectorsArePowersOfTwo) {
    for (const char* name : {"L1_LINE_BYTES", "L1_SECTOR_BYTES", "L2_LINE_BYTES", "L2_DRAM_FETCH_BYTES"})
        EXPECT_TRUE(power_of_two(value(name))) << name << " = " << value(name);
    EXPECT_LE(value("L1_SECTOR_BYTES"), value("L1_LINE_BYTES"));
    EXPECT_LE(value("L2_DRAM_FETCH_BYTES"), value("L2_LINE_BYTES"));
}

TEST(ProbeOnGpu, LatenciesIncreaseDownTheHierarchy) {
    EXPECT_LT(value("SHARED_LATENCY_CYCLES"), value("L1_LATENCY_CYCLES") * 1.5);
    EXPECT_LT(value("L1_LATENCY_CYCLES"), value("L2_NEAR_LATENCY_CYCLES"));
    EXPECT_LT(value("L2_NEAR_LATENCY_CYCLES"), value("DRAM_LATENCY_CYCLES"));
    const auto far = profile::read_quantity(g_profile, "L2_FAR_LATENCY_CYCLES");
    if (far.value) {
        EXPECT_GT(*far.value, value("L2_NEAR_LATENCY_CYCLES"));
        EXPECT_LT(*far.value, value("DRAM_LATENCY_CYCLES"));
    }
}

TEST(ProbeOnGpu, ClockWasMeasuredNearItsMaximum) {
    const double measured = value("SM_CLOCK_KHZ");
    EXPECT_GT(measured, 0.5 * double(g_facts.sm_clock_max_khz));
    EXPECT_LT(measured, 1.02 * double(g_facts.sm_clock_max_khz));
}

// Published facts of Hopper (cc 9.0): 256 KB of L1 + shared per SM, 128-byte
// lines, 32-byte L1 sectors, an L2 split into two partitions.
TEST(ProbeOnGpu, HopperArchitecturalFacts) {
    if (g_facts.cc_major != 9) GTEST_SKIP() << "not a Hopper GPU";
    EXPECT_LE(value("L1_SIZE_BYTES"), 256.0 * 1024);
    EXPECT_GE(value("L1_SIZE_BYTES"), 200.0 * 1024);
    EXPECT_EQ(value("L1_LINE_BYTES"), 128);
    EXPECT_EQ(value("L1_SECTOR_BYTES"), 32);
    EXPECT_EQ(value("L2_LINE_BYTES"), 128);
    EXPECT_GE(value("L2_DRAM_FETCH_BYTES"), 32);  // DRAM fills L2 in sectors of 32 B or more
    EXPECT_LT(value("L2_NEAR_SIZE_BYTES"), 0.6 * double(g_facts.l2_bytes));  // one partition, not both
    EXPECT_GT(value("L2_NEAR_SIZE_BYTES"), 0.4 * double(g_facts.l2_bytes));
}

// One unified L1 storage serves ld.global.ca, tex1Dfetch and ld.global.nc on
// every GPU since Volta (cc 7.0): same capacity, line and sharing.
TEST(ProbeOnGpu, TextureAndReadOnlyAreTheUnifiedL1) {
    if (g_facts.cc_major < 7) GTEST_SKIP() << "before Volta the texture cache is separate";
    const double l1 = value("L1_SIZE_BYTES");
    for (const char* name : {"TEXTURE_SIZE_BYTES", "READONLY_SIZE_BYTES"})
        EXPECT_NEAR(value(name), l1, std::max(0.03 * l1, 4096.0)) << name;
    EXPECT_EQ(value("TEXTURE_SECTOR_BYTES"), value("L1_SECTOR_BYTES"));
    EXPECT_EQ(value("READONLY_SECTOR_BYTES"), value("L1_SECTOR_BYTES"));
    EXPECT_EQ(value("READONLY_LINE_BYTES"), value("L1_LINE_BYTES"));
    // The texture path indexes its sets by address bits: its line may be unmeasurable, never different.
    if (const auto line = profile::read_quantity(g_profile, "TEXTURE_LINE_BYTES"); line.value)
        EXPECT_EQ(*line.value, value("L1_LINE_BYTES"));
    for (const char* name : {"L1_TEXTURE_SAME_STORAGE", "L1_READONLY_SAME_STORAGE", "TEXTURE_READONLY_SAME_STORAGE"})
        EXPECT_EQ(value(name), 1) << name;
    for (const char* name : {"L1_PER_SM", "TEXTURE_PER_SM", "READONLY_PER_SM"}) EXPECT_EQ(value(name), 1) << name;
}

TEST(ProbeOnGpu, MissPenaltiesArePositive) {
    for (const char* name : {"L1_MISS_PENALTY_CYCLES", "TEXTURE_MISS_PENALTY_CYCLES", "READONLY_MISS_PENALTY_CYCLES",
                             "CONSTANT_L1_MISS_PENALTY_CYCLES", "CONSTANT_L15_MISS_PENALTY_CYCLES",
                             "L2_MISS_PENALTY_CYCLES"})
        EXPECT_GT(value(name), 0) << name;
    // A texture or read-only miss is served by the same L2 as an L1 miss.
    EXPECT_NEAR(value("TEXTURE_MISS_PENALTY_CYCLES") + value("TEXTURE_LATENCY_CYCLES"),
                value("L1_MISS_PENALTY_CYCLES") + value("L1_LATENCY_CYCLES"), 0.25 * value("L2_NEAR_LATENCY_CYCLES"));
}

// The constant path: a small L1 in front of a larger L1.5, both in front of L2,
// and neither in the unified L1 storage.
TEST(ProbeOnGpu, ConstantCachesFormTheirOwnHierarchy) {
    const double c1 = value("CONSTANT_L1_SIZE_BYTES");
    EXPECT_GE(c1, 256);
    EXPECT_LT(c1, double(g_facts.constant_bytes));
    EXPECT_GT(value("CONSTANT_L15_SIZE_BYTES"), c1);
    EXPECT_TRUE(power_of_two(value("CONSTANT_L1_SECTOR_BYTES")));
    EXPECT_TRUE(power_of_two(value("CONSTANT_L15_SECTOR_BYTES")));
    EXPECT_LE(value("CONSTANT_L1_SECTOR_BYTES"), value("CONSTANT_L15_SECTOR_BYTES"));
    EXPECT_LT(value("CONSTANT_L1_LATENCY_CYCLES"), value("CONSTANT_L15_LATENCY_CYCLES"));
    // An L1.5 miss goes to L2.
    EXPECT_GT(value("CONSTANT_L15_LATENCY_CYCLES") + value("CONSTANT_L15_MISS_PENALTY_CYCLES"),
              0.8 * value("L2_NEAR_LATENCY_CYCLES"));
    const auto l15 = profile::read_quantity(g_profile, "CONSTANT_L15_SIZE_BYTES");
    if (l15.lower_bound) EXPECT_FALSE(l15.reason.empty());
    if (g_facts.cc_major >= 7)
        for (const char* name : {"L1_CONSTANT_L1_SAME_STORAGE", "TEXTURE_CONSTANT_L1_SAME_STORAGE",
                                 "READONLY_CONSTANT_L1_SAME_STORAGE"})
            EXPECT_EQ(value(name), 0) << name;
}

// For one kernel, giving shared memory more of the array, or an SM more blocks, never leaves L1 more room.
TEST(ProbeOnGpu, L1ShrinksAsTheCarveoutGrows) {
    for (const auto& a : g_topology.carveouts)
        for (const auto& b : g_topology.carveouts) {
            if (!a.size_bytes || !b.size_bytes || a.carveout_percent < 0 || b.carveout_percent < 0) continue;
            if (a.shared_bytes_per_block != b.shared_bytes_per_block) continue;
            if (a.carveout_percent <= b.carveout_percent && a.threads_per_block >= b.threads_per_block)
                EXPECT_LE(double(*b.size_bytes), double(*a.size_bytes) + 4096)
                    << "carveout " << b.carveout_percent << "% with " << b.threads_per_block << " threads against "
                    << a.carveout_percent << "% with " << a.threads_per_block;
        }
}

// l1_bytes_at() (model::l1_bounds) at launches the table was not built from:
// a fresh measurement lies between the bounds the measured launches give. The
// tiling kinds' rows have 256 and 1024 threads, so their held-out launch lies
// between (a smaller block has no lower bound in the table: more of its blocks
// are resident, each with its shared memory).
TEST(ProbeOnGpu, L1AtLaunchBoundsHeldOutLaunches) {
    ASSERT_FALSE(g_topology.carveouts.empty());
    const stages::BufferLayout layout(static_cast<std::uint64_t>(g_facts.l2_bytes), static_cast<std::uint64_t>(g_facts.global_bytes));
    const auto engine = kernels::make_cuda_engine(g_facts.index, layout.buffer_bytes);
    engine->warm_up(100);
    stages::SweepRunner runner(*engine, std::nullopt);
    runner.calibrate_overhead();
    const std::uint64_t bound = stages::l1_search_bound(g_facts);
    std::uint32_t probe_kernel_shared = 0;
    for (const auto& row : g_topology.carveouts)
        if (row.kernel_shared == model::KernelShared::fixed) probe_kernel_shared = row.shared_bytes_per_block;
    struct Launch { int carveout; std::uint32_t threads; kernels::ChaseKernel kernel; std::uint32_t dynamic; };
    using enum kernels::ChaseKernel;
    for (const Launch launch : {Launch{2, 128, probe, 0}, Launch{6, 512, probe, 0}, Launch{20, 64, probe, 0},
                                Launch{-1, 128, probe, 0}, Launch{0, 512, probe, 0}, Launch{20, 512, plain, 0},
                                Launch{40, 512, plain, 32 * 1024}}) {
        auto question = stages::unified_l1_size_question(kernels::LoadPath::l1, launch.carveout,
                                                             stages::Order::sequential, "held_out", bound,
                                                             launch.threads);
        question.spec.kernel = launch.kernel;
        question.spec.dynamic_shared_bytes = launch.dynamic;
        const auto measured = stages::measure_capacity(runner, question);
        ASSERT_TRUE(measured.found);
        const std::uint32_t shared = launch.kernel == probe ? probe_kernel_shared : launch.dynamic;
        const auto bounds = model::l1_bounds(g_topology.carveouts, launch.carveout, launch.threads, shared);
        ASSERT_TRUE(bounds.lower) << "carveout " << launch.carveout << ", " << launch.threads << " threads";
        // One search step (1 KiB) and the fuzz of an effective capacity (runs differ by 2 KiB) either side.
        constexpr double kSlack = 4096;
        EXPECT_GE(double(measured.capacity_bytes) + kSlack, double(*bounds.lower))
            << "carveout " << launch.carveout << ", " << launch.threads << " threads";
        if (bounds.upper)
            EXPECT_LE(double(measured.capacity_bytes), double(*bounds.upper) + kSlack)
                << "carveout " << launch.carveout << ", " << launch.threads << " threads";
        std::printf("held out: carveout %d, %u threads, %u B shared: measured %llu B, table bounds %llu .. %s B\n",
                    launch.carveout, launch.threads, shared, static_cast<unsigned long long>(measured.capacity_bytes),
                    static_cast<unsigned long long>(*bounds.lower),
                    bounds.upper ? std::to_string(*bounds.upper).c_str() : "none");
    }
}

// Bandwidths: DRAM below L2, L2 below L1 and shared memory, all below what the
// SMs could load at one 128-byte wavefront per cycle.
TEST(ProbeOnGpu, BandwidthsAreOrdered) {
    const double clock = value("SM_CLOCK_KHZ") * 1e3, sms = g_facts.sm_count;
    EXPECT_LT(value("DRAM_BANDWIDTH_BYTES_PER_S"), value("L2_BANDWIDTH_BYTES_PER_S"));
    EXPECT_LT(value("L2_BANDWIDTH_BYTES_PER_S"), value("L1_BANDWIDTH_BYTES_PER_S"));
    EXPECT_LE(value("L1_BANDWIDTH_BYTES_PER_S"), 128 * clock * sms * 1.02);
    EXPECT_LE(value("SHARED_BANDWIDTH_BYTES_PER_S"), 128 * clock * sms * 1.02);
    EXPECT_GT(value("SHARED_BANDWIDTH_BYTES_PER_S"), 64 * clock * sms);
}

// Nothing else ran: the monitors saw a quiet GPU, and every value is vouched for.
TEST(ProbeOnGpu, QuietRunVouchesForEverything) {
    EXPECT_TRUE(g_topology.conditions.quiet);
    for (const auto& q : model::kQuantities) {
        const auto v = profile::read_quantity(g_profile, q);
        EXPECT_TRUE(v.doubt.empty()) << q.name << ": " << v.doubt;
    }
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const auto lookup = kernels::find_device(0);
    if (!lookup.found) {
        std::printf("skipped: %s\n", lookup.reason.c_str());
        return 77;
    }
    g_facts = lookup.facts;
    stages::Progress progress(true);
    const stages::BufferLayout layout(static_cast<std::uint64_t>(g_facts.l2_bytes), static_cast<std::uint64_t>(g_facts.global_bytes));
    {
        const auto engine = kernels::make_cuda_engine(g_facts.index, layout.buffer_bytes);
        const auto monitor = stages::make_nvml_monitor(g_facts.uuid);
        g_topology = stages::measure_topology(*engine, g_facts, {}, progress, *monitor);
    }
    g_profile = model::to_json(g_topology);
    return RUN_ALL_TESTS();
}
