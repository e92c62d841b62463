// The stencil block chooser of gpu_topology_stencil.hpp, on the CPU. Built twice:
// against the header of the stored H200 profile (L2_SHARE 1) and against one
// rendered from that profile with a quarter of its L2 (L2_SHARE 4). The header's
// own machine (this_gpu()) is compared with the other profile's, rebuilt from it,
// so each build shows that the choice follows the constants it was rendered from.
#include <gpu_topology_stencil.hpp>

#include <gtest/gtest.h>

namespace {
namespace gt = gpu_topology;
constexpr std::uint32_t kRadius = 4;

constexpr gt::stencil_machine with_l2(std::uint64_t l2_bytes) {
    gt::stencil_machine m = gt::this_gpu();
    m.l2_bytes = l2_bytes;
    return m;
}
// The H200's machine and the quarter-L2 one, whichever this header is.
constexpr gt::stencil_machine kFull = with_l2(gt::this_gpu().l2_bytes * L2_SHARE);
constexpr gt::stencil_machine kQuarter = with_l2(kFull.l2_bytes / 4);

constexpr gt::grid_extent kCube256{256, 256, 256};
constexpr gt::grid_extent kWide{1024, 1024, 128};

// The rules the chooser promises, and no candidate that meets them is faster by the model.
void expect_sensible(const gt::grid_extent& g, const gt::stencil_machine& m) {
    const auto b = gt::choose_star_stencil_block<double>(g, kRadius, 1024, m);
    const auto t = gt::star_stencil_traffic<double>(b, g, kRadius, m);
    EXPECT_EQ(b.threads(), 1024u);
    EXPECT_LE(b.z, 64u);
    EXPECT_GE(b.x * sizeof(double), m.l1_line_bytes) << "rows cover whole L1 lines";
    EXPECT_GE(b.x, m.warp_size) << "a warp loads one contiguous row";
    EXPECT_TRUE(b.tile_x() <= g.x && b.tile_y() <= g.y && b.tile_z() <= g.z);
    EXPECT_TRUE(t.tile_fits_l1);
    EXPECT_GE(t.dram_bytes_per_update, 16.0) << "at least one load and one store of 8 B";
    for (std::uint32_t x = 32; x <= 1024; x *= 2)
        for (std::uint32_t y = 1; x * y <= 1024; y *= 2) {
            const std::uint32_t z = 1024 / (x * y);
            if (z > 64) continue;
            for (const gt::stencil_block other : {gt::stencil_block{x, y, z}, gt::stencil_block{x, y, z, 2, 1},
                                                  gt::stencil_block{x, y, z, 1, 2}}) {
                const auto o = gt::star_stencil_traffic<double>(other, g, kRadius, m);
                if (other.tile_x() <= g.x && other.tile_y() <= g.y && other.tile_z() <= g.z && o.tile_fits_l1)
                    EXPECT_GE(o.seconds_per_update, t.seconds_per_update);
            }
        }
}

// this_gpu() holds the profile's values, as CMake's own JSON parser read them
// from the profile the header was rendered from (PROFILE_*, tests/header/CMakeLists.txt).
TEST(StencilChooser, TheMachineIsTheProfiles) {
    const auto m = gt::this_gpu();
    EXPECT_EQ(m.l1_bytes, PROFILE_L1_SIZE_BYTES);
    EXPECT_EQ(m.l1_line_bytes, PROFILE_L1_LINE_BYTES);
    EXPECT_EQ(m.l1_sector_bytes, PROFILE_L1_SECTOR_BYTES);
    EXPECT_EQ(m.l2_bytes, PROFILE_L2_SIZE_BYTES / L2_SHARE);
    EXPECT_EQ(m.l2_bandwidth, PROFILE_L2_BANDWIDTH_BYTES_PER_S);
    EXPECT_EQ(m.dram_bandwidth, PROFILE_DRAM_BANDWIDTH_BYTES_PER_S);
    EXPECT_EQ(m.sm_count, PROFILE_SM_COUNT);
    EXPECT_EQ(m.threads_per_sm, PROFILE_MAX_THREADS_PER_SM);
    EXPECT_EQ(gt::resident_blocks_per_wave(1024), PROFILE_SM_COUNT * (PROFILE_MAX_THREADS_PER_SM / 1024));
}

TEST(StencilChooser, ChoicesAreSensible) {
    for (const auto& g : {kCube256, kWide, gt::grid_extent{512, 512, 512}}) {
        expect_sensible(g, kFull);
        expect_sensible(g, kQuarter);
    }
}

// A 256^3 grid's planes of tiles fit the H200's L2: the chosen tile reuses
// its z neighbours' layers. With a quarter of the L2 they do not fit for that
// tile, and the chooser picks another.
TEST(StencilChooser, FollowsTheL2Size) {
    const auto full = gt::choose_star_stencil_block<double>(kCube256, kRadius, 1024, kFull);
    const auto quarter = gt::choose_star_stencil_block<double>(kCube256, kRadius, 1024, kQuarter);
    EXPECT_TRUE(gt::star_stencil_traffic<double>(full, kCube256, kRadius, kFull).layer_condition_z);
    EXPECT_FALSE(gt::star_stencil_traffic<double>(full, kCube256, kRadius, kQuarter).layer_condition_z);
    EXPECT_FALSE(full == quarter);
    // This header's own choice is the one for its profile.
    const auto own = gt::choose_star_stencil_block<double>(kCube256, kRadius);
    EXPECT_TRUE(own == (L2_SHARE == 1 ? full : quarter));
}

// A 1024 x 1024 cross-section is too wide for any tile's layer condition in z:
// the chooser then goes deeper in z, where fewer halo layers are reloaded.
TEST(StencilChooser, WideGridsTradeTheZHaloForDepth) {
    const auto wide = gt::choose_star_stencil_block<double>(kWide, kRadius, 1024, kFull);
    const auto cube = gt::choose_star_stencil_block<double>(kCube256, kRadius, 1024, kFull);
    EXPECT_FALSE(gt::star_stencil_traffic<double>(wide, kWide, kRadius, kFull).layer_condition_z);
    EXPECT_GE(wide.tile_z(), cube.tile_z());
}

}  // namespace
