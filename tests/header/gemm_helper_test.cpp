// The tiled-SGEMM helper of gpu_topology/gemm.hpp on the CPU, against the header of the stored H200
// profile: its space compiles into the example's kernel (the same conditions the kernel asserts), its
// padding removes the bank conflicts it counts, and its choices keep the rules it states. What it picks
// on the searches its constants were fitted on: gemm_searches_test.cpp.
#include <gpu_topology/gemm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {
namespace gt = gpu_topology;

const gt::gemm_machine kMachine = gt::this_gpu_gemm();
const gt::sgemm_space kSpace = gt::sgemm_space_here();

std::string name(const gt::sgemm_tile& t) {
    return std::to_string(t.block_m) + "x" + std::to_string(t.block_n) + "x" + std::to_string(t.block_k) + "/" +
           std::to_string(t.thread_m) + "x" + std::to_string(t.thread_n) + "/pad" + std::to_string(t.pad_a);
}
std::string name(const gt::gemm_extent& e) {
    return std::to_string(e.m) + "x" + std::to_string(e.n) + "x" + std::to_string(e.k);
}
// Products of the kinds the check draws (bench/gemm_shapes.py): square, tall and skinny, odd, one side small.
constexpr gt::gemm_extent kProducts[] = {{4096, 4096, 4096}, {2048, 2048, 2048}, {1999, 3001, 1023}, {16384, 128, 4096},
                                         {256, 256, 16384},  {8192, 8192, 128},  {4096, 200, 4096},  {777, 1531, 2501},
                                         {512, 512, 512},    {65536, 64, 1024},  {97, 4099, 3001}};

// The machine is the profile's, with the architecture's per-clock rates for cc 9.0.
TEST(SgemmHelper, TheMachineIsTheProfiles) {
    EXPECT_EQ(kMachine.sm_count, std::uint32_t(gt::device.sm_count));
    EXPECT_DOUBLE_EQ(kMachine.sm_clock_hz, double(gt::device.sm_clock_max_khz) * 1e3);
    EXPECT_EQ(kMachine.banks, std::uint32_t(gt::shared.banks));
    EXPECT_EQ(kMachine.bank_bytes, std::uint32_t(gt::shared.bank_bytes));
    EXPECT_EQ(kMachine.registers_per_sm, std::uint32_t(gt::sm.registers));
    EXPECT_EQ(kMachine.row_count, gt::l1_launch_count);
    EXPECT_EQ(kMachine.fma_per_sm_clock, 128u);
    EXPECT_EQ(kMachine.issue_per_sm_clock, 4u);
    EXPECT_EQ(gt::sm_architecture_of(8, 0).fma_per_clock, 64u);
    EXPECT_EQ(gt::sm_architecture_of(7, 5).fma_per_clock, 64u);
    EXPECT_EQ(gt::sm_architecture_of(8, 6).fma_per_clock, 128u);
    EXPECT_EQ(gt::sm_architecture_of(3, 5).fma_per_clock, 0u) << "no rate for an architecture the table lacks";
}

// Every configuration builds the example's kernel: float4 operand reads, every thread staging as many
// elements, a block no larger than 1024 threads, shared memory a block may take.
TEST(SgemmHelper, TheSpaceBuilds) {
    EXPECT_EQ(kSpace.count, 22u) << "32 banks of 4 bytes: every depth has a padded layout; 7 tiles spill";
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> seen;
    for (std::uint32_t i = 0; i < kSpace.count; ++i) {
        const auto& t = kSpace.tiles[i];
        EXPECT_TRUE(seen.insert({t.block_m, t.block_n, t.block_k, t.thread_m, t.thread_n, t.pad_a}).second) << name(t);
        EXPECT_GE(t.threads(), 64u) << name(t);
        EXPECT_LE(t.threads(), 1024u) << name(t);
        EXPECT_EQ(t.thread_m % 4, 0u) << name(t);
        EXPECT_EQ(t.thread_n % 4, 0u) << name(t);
        EXPECT_EQ(t.pitch_a() % 4, 0u) << name(t);
        EXPECT_EQ(t.block_m * t.block_k % t.threads(), 0u) << name(t);
        EXPECT_EQ(t.block_k * t.block_n % t.threads(), 0u) << name(t);
        EXPECT_LE(t.shared_bytes(), std::uint64_t(gt::shared.per_block_optin_bytes)) << name(t);
        EXPECT_GE(gt::carveout_options_for(t.threads(), t.shared_bytes()).count, 1u) << name(t);
        EXPECT_FALSE(gt::sgemm_spills(t, kMachine.registers_per_sm)) << name(t);
    }
}

// The spill rule against what nvcc 13 compiled for sm_90 (-Xptxas -v): 8x8 thread tiles staging 24 or
// more elements a thread spill under the 128-register budget; 128x128x16 takes 128 without a spill.
TEST(SgemmHelper, TilesThatSpillAreLeftOut) {
    for (const gt::sgemm_tile t : {gt::sgemm_tile{128, 128, 32, 8, 8, 0}, {128, 64, 16, 8, 8, 0}, {64, 128, 16, 8, 8, 0},
                                   {64, 64, 16, 8, 8, 0}, {64, 64, 32, 8, 8, 0}})
        EXPECT_TRUE(gt::sgemm_spills(t, 65536)) << name(t);
    for (const gt::sgemm_tile t : {gt::sgemm_tile{128, 128, 16, 8, 8, 0}, {128, 128, 8, 8, 8, 0}, {64, 64, 8, 8, 8, 0},
                                   {32, 32, 32, 4, 4, 0}, {64, 64, 32, 4, 4, 0}})
        EXPECT_FALSE(gt::sgemm_spills(t, 65536)) << name(t);
    EXPECT_EQ(gt::sgemm_registers_wanted({128, 128, 16, 8, 8, 0}), 128u);
    EXPECT_EQ(gt::sgemm_register_budget({128, 128, 16, 8, 8, 0}, 65536), 128u);
    EXPECT_FALSE(gt::sgemm_spills({128, 128, 32, 8, 8, 0}, 131072)) << "twice the registers: the budget doubles";
}

// Wavefront counting: a warp's consecutive floats take one; one word shared by every lane one; a
// column 32 floats apart 32; float4 reads are served a quarter-warp at a time.
TEST(SgemmHelper, WavefrontsCountBankConflicts) {
    const auto count = [](std::uint32_t bytes, auto address) { return gt::detail::wavefronts(bytes, 32, 4, 32, address); };
    EXPECT_EQ(count(4, [](std::uint32_t lane) { return std::uint64_t(lane) * 4; }), 1u);
    EXPECT_EQ(count(4, [](std::uint32_t) { return std::uint64_t(64); }), 1u);
    EXPECT_EQ(count(4, [](std::uint32_t lane) { return std::uint64_t(lane) * 128; }), 32u);
    EXPECT_EQ(count(16, [](std::uint32_t lane) { return std::uint64_t(lane) * 16; }), 4u);
    EXPECT_EQ(count(16, [](std::uint32_t lane) { return std::uint64_t(lane) * 32; }), 8u) << "8 float4 32 B apart: 2 ways";
}

// The A slice's padding: 8-deep slices store conflict-free padded by 4 floats (8 ways unpadded); no
// padding ever adds wavefronts, and every pad keeps the float4 reads aligned.
TEST(SgemmHelper, PaddingRemovesTheConflictsItCounts) {
    EXPECT_EQ(gt::detail::a_store_wavefronts(128, 8, 32, 4, 32), 8u);
    EXPECT_EQ(gt::sgemm_pad_a(128, 8, 32, 4), 4u);
    EXPECT_EQ(gt::detail::a_store_wavefronts(132, 8, 32, 4, 32), 1u);
    for (const std::uint32_t m : {32u, 64u, 128u})
        for (const std::uint32_t k : {8u, 16u, 32u}) {
            const std::uint32_t pad = gt::sgemm_pad_a(m, k, 32, 4);
            EXPECT_EQ(pad % 4, 0u);
            EXPECT_LE(gt::detail::a_store_wavefronts(m + pad, k, 32, 4, 32), gt::detail::a_store_wavefronts(m, k, 32, 4, 32));
        }
    static_assert(gt::sgemm_pad_a(128, 8, 32, 4) == 4, "in constant expressions");
}

// The chooser: a configuration of the space with an option its tiles have; the model puts it ahead of
// every other configuration and of the common default; it holds as many blocks as any of its tiles'
// options; and small products get tiles that give more blocks than large tiles would.
TEST(SgemmHelper, ChoicesMeetTheRules) {
    const gt::sgemm_tile common{128, 128, 8, 8, 8, 0};
    for (const auto& e : kProducts) {
        const auto chosen = gt::choose_sgemm(e);
        const std::string at = name(e) + ": " + name(chosen.tile);
        EXPECT_TRUE(std::any_of(kSpace.tiles, kSpace.tiles + kSpace.count, [&](const gt::sgemm_tile& t) { return t == chosen.tile; }))
            << at;
        const auto options = gt::sgemm_options(chosen.tile, kMachine);
        ASSERT_NE(options.find(chosen.option.carveout_percent), nullptr) << at;
        const auto estimate = gt::sgemm_estimate_of(chosen, e, false, kMachine);
        EXPECT_GE(estimate.resident_blocks, 1u) << at;
        for (std::uint32_t i = 0; i < options.count; ++i)
            EXPECT_LE(gt::sgemm_resident_blocks(chosen.tile, options.options[i], kMachine), estimate.resident_blocks) << at;
        for (std::uint32_t i = 0; i < kSpace.count; ++i) {
            const gt::sgemm_config other{kSpace.tiles[i], gt::sgemm_option(kSpace.tiles[i], kMachine)};
            EXPECT_LE(estimate.seconds, gt::sgemm_estimate_of(other, e, false, kMachine).seconds) << at << " against " << name(other.tile);
        }
        const gt::sgemm_config the_default{common, *gt::sgemm_options(common, kMachine).left_to_driver()};
        EXPECT_LE(estimate.seconds, gt::sgemm_estimate_of(the_default, e, false, kMachine).seconds) << at;
        EXPECT_GT(estimate.seconds, 2.0 * double(e.m) * e.n * e.k / (2.0 * kMachine.fma_per_sm_clock * kMachine.sm_clock_hz *
                                                                        kMachine.sm_count))
            << at << ": faster than the FMA pipes";
    }
    // 16 blocks of 128 x 128 would leave most of the SMs idle: the chooser takes smaller blocks.
    const auto small = gt::choose_sgemm({512, 512, 8192});
    EXPECT_GT(gt::sgemm_estimate_of(small, {512, 512, 8192}, false, kMachine).blocks, 16u) << name(small.tile);
    // A large square product takes 8 x 8 thread tiles (a quarter of the shared-memory reads per FMA of 4 x 4).
    const auto large = gt::choose_sgemm({4096, 4096, 4096});
    EXPECT_EQ(large.tile.thread_m * large.tile.thread_n, 64u) << name(large.tile);
}

// Known registers change what the model counts on: fewer registers, more resident blocks.
TEST(SgemmHelper, KnownRegistersCount) {
    const gt::sgemm_tile t{128, 128, 8, 8, 8, 4};
    const auto option = *gt::sgemm_options(t, kMachine).left_to_driver();
    const gt::sgemm_tile tiles[] = {t};
    const std::uint32_t few[] = {64}, many[] = {255};
    const gt::sgemm_known_registers known_few{tiles, few, 1}, known_many{tiles, many, 1};
    EXPECT_EQ(known_few(t), 64u);
    EXPECT_EQ(known_few(gt::sgemm_tile{64, 64, 8, 4, 4, 0}), 0u) << "not known: estimated";
    EXPECT_GT(gt::sgemm_resident_blocks(t, option, kMachine, known_few(t)),
              gt::sgemm_resident_blocks(t, option, kMachine, known_many(t)));
    EXPECT_EQ(gt::sgemm_resident_blocks(t, option, kMachine, 255), 1u) << "256 threads of 255 registers: one block";
}

// The short list: the chooser's pick first, kSgemmShortlistLength configurations, no block tile and
// depth twice, each at its helper option, in the model's order, and none left out that the model
// ranks ahead of one listed.
TEST(SgemmHelper, TheShortListTakesTheModelsBestTilesAndDepths) {
    for (const auto& e : kProducts) {
        const auto list = gt::sgemm_tuning_list(e);
        ASSERT_EQ(list.count, gt::kSgemmShortlistLength) << name(e);
        EXPECT_EQ(list.configs[0], gt::choose_sgemm(e)) << name(e);
        const auto seconds = [&](const gt::sgemm_tile& t) {
            return gt::sgemm_estimate_of({t, gt::sgemm_option(t, kMachine)}, e, false, kMachine).seconds;
        };
        for (std::uint32_t i = 0; i < list.count; ++i) {
            const auto& c = list.configs[i];
            EXPECT_EQ(c.option.carveout_percent, gt::sgemm_option(c.tile, kMachine).carveout_percent) << name(e);
            for (std::uint32_t j = 0; j < i; ++j)
                EXPECT_FALSE(gt::detail::same_tile_but_padding(list.configs[j].tile, c.tile)) << name(e) << " " << name(c.tile);
            if (i > 0) {
                EXPECT_LE(seconds(list.configs[i - 1].tile), seconds(c.tile)) << name(e) << " " << name(c.tile);
            }
        }
        const double last = seconds(list.configs[list.count - 1].tile);
        for (std::uint32_t i = 0; i < kSpace.count; ++i) {
            const auto& t = kSpace.tiles[i];
            const bool listed = std::any_of(list.configs, list.configs + list.count,
                                            [&](const gt::sgemm_config& c) { return gt::detail::same_tile_but_padding(c.tile, t); });
            if (!listed) {
                EXPECT_GE(seconds(t), last) << name(e) << ": " << name(t) << " left out";
            }
        }
    }
}

// The last round of an SM's blocks holds fewer than the resident ones and runs them faster: one block
// more than a full round costs less than a second full round.
TEST(SgemmHelper, ATailRoundCostsWhatItHolds) {
    const gt::sgemm_tile t{64, 64, 16, 4, 4, 4};
    const gt::sgemm_config c{t, gt::sgemm_option(t, kMachine)};
    const std::uint32_t resident = gt::sgemm_estimate_of(c, {64, 64, 1024}, false, kMachine).resident_blocks;
    ASSERT_GE(resident, 2u);
    const auto seconds = [&](std::uint64_t per_sm) {
        return gt::sgemm_estimate_of(c, {64 * per_sm * kMachine.sm_count, 64, 4096}, false, kMachine).seconds;
    };
    EXPECT_LT(seconds(resident + 1), 0.9 * seconds(2 * resident));
    EXPECT_GT(seconds(resident + 1), seconds(resident));
}

// C's stores: a warp of 8x8 thread tiles touches a sector per float it stores, one of 4x4 tiles half
// one; where k is small the stores are most of the work, and the chooser takes 4x4 thread tiles.
TEST(SgemmHelper, StoresOfCCountSectors) {
    EXPECT_DOUBLE_EQ(gt::sgemm_store_sectors_per_element({128, 128, 8, 8, 8, 0}, 32), 1.0);
    EXPECT_DOUBLE_EQ(gt::sgemm_store_sectors_per_element({64, 64, 8, 4, 4, 0}, 32), 0.5);
    EXPECT_DOUBLE_EQ(gt::sgemm_store_sectors_per_element({32, 32, 8, 4, 4, 0}, 32), 0.5);
    for (const gt::gemm_extent e : {gt::gemm_extent{1939, 3265, 23}, {4096, 4096, 32}})
        EXPECT_EQ(gt::choose_sgemm(e).tile.thread_n, 4u) << name(e);
}

}  // namespace

namespace {
// In constant expressions too: a kernel's tiles as template arguments, from the header alone.
constexpr auto kChosenAtCompileTime = gt::choose_sgemm({1024, 1024, 1024});
static_assert(kChosenAtCompileTime.tile.threads() >= 64 && kChosenAtCompileTime.tile.pitch_a() % 4 == 0,
              "a configuration of the space, at compile time");
TEST(SgemmHelper, InConstantExpressions) { EXPECT_EQ(kChosenAtCompileTime, gt::choose_sgemm({1024, 1024, 1024})); }
}  // namespace
