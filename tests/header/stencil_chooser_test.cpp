// The stencil block chooser of gpu_topology/stencil.hpp, on the CPU. Built twice:
// against the header of the stored H200 profile (L2_SHARE 1) and against one
// rendered from that profile with a quarter of its L2 (L2_SHARE 4). The header's
// own machine (this_gpu()) is compared with the profile's, and the chooser's
// picks with searches over every block shape measured on GPUs
// (tests/data/stencil_searches.csv).
#include <gpu_topology/stencil.hpp>

#include <gtest/gtest.h>

#include "csv_cells.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
// The H100's, from its stored profile.
constexpr gt::stencil_machine kH100{PROFILE_H100_L1_SIZE_BYTES,          PROFILE_H100_L1_BANDWIDTH_BYTES_PER_S,
                                    PROFILE_H100_L1_LINE_BYTES,          PROFILE_H100_L1_SECTOR_BYTES,
                                    PROFILE_H100_L2_SIZE_BYTES,          PROFILE_H100_L2_BANDWIDTH_BYTES_PER_S,
                                    PROFILE_H100_DRAM_BANDWIDTH_BYTES_PER_S, PROFILE_H100_SM_COUNT,
                                    PROFILE_H100_MAX_THREADS_PER_SM};

constexpr gt::grid_extent kCube256{256, 256, 256};
constexpr gt::grid_extent kWide{1024, 1024, 128};

// A grid written XxYxZ (the searches' files); false for anything else.
bool read_grid(const std::string& text, gt::grid_extent& g) {
    unsigned long long x = 0, y = 0, z = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%llux%llux%llu%c", &x, &y, &z, &tail) != 3) return false;
    g = {x, y, z};
    return true;
}

// this_gpu() holds the profile's values, as CMake's own JSON parser read them
// from the profile the header was rendered from (PROFILE_*, tests/header/CMakeLists.txt).
TEST(StencilChooser, TheMachineIsTheProfiles) {
    const auto m = gt::this_gpu();
    EXPECT_EQ(m.l1_bytes, PROFILE_L1_SIZE_BYTES);
    EXPECT_EQ(m.l1_bandwidth, PROFILE_L1_BANDWIDTH_BYTES_PER_S);
    EXPECT_EQ(m.l1_line_bytes, PROFILE_L1_LINE_BYTES);
    EXPECT_EQ(m.l1_sector_bytes, PROFILE_L1_SECTOR_BYTES);
    EXPECT_EQ(m.l2_bytes, PROFILE_L2_SIZE_BYTES / L2_SHARE);
    EXPECT_EQ(m.l2_bandwidth, PROFILE_L2_BANDWIDTH_BYTES_PER_S);
    EXPECT_EQ(m.dram_bandwidth, PROFILE_DRAM_BANDWIDTH_BYTES_PER_S);
    EXPECT_EQ(m.sm_count, PROFILE_SM_COUNT);
    EXPECT_EQ(m.threads_per_sm, PROFILE_MAX_THREADS_PER_SM);
    EXPECT_EQ(gt::resident_blocks_per_wave(1024), PROFILE_SM_COUNT * (PROFILE_MAX_THREADS_PER_SM / 1024));
}

// The rules the chooser promises.
TEST(StencilChooser, ChoicesMeetTheRules) {
    for (const auto& g : {kCube256, kWide, gt::grid_extent{512, 512, 512}, gt::grid_extent{381, 242, 424}})
        for (const auto& m : {kFull, kQuarter}) {
            const auto b = gt::choose_star_stencil_block<double>(g, kRadius, 1024, m);
            const auto t = gt::star_stencil_traffic<double>(b, g, kRadius, m);
            EXPECT_EQ(b.threads(), 1024u);
            EXPECT_LE(b.z, 64u);
            EXPECT_GE(b.x * sizeof(double), m.l1_line_bytes) << "rows cover whole L1 lines";
            EXPECT_GE(t.dram_bytes_per_update, 16.0) << "at least one load and one store of 8 B";
            EXPECT_GE(t.tail_factor, 1.0);
        }
}

// A folded thread loads the shared part of its column once: fewer L1 lines per update.
TEST(StencilChooser, FoldingSavesL1Lines) {
    const auto plain = gt::star_stencil_traffic<double>({64, 8, 2}, kCube256, kRadius, kFull);
    const auto folded = gt::star_stencil_traffic<double>({64, 8, 2, 1, 2}, kCube256, kRadius, kFull);
    EXPECT_LT(folded.l1_bytes_per_update, plain.l1_bytes_per_update);
    // 25 loads + 1 store; folded by 2: 21 + 1. A warp's 256 B touch 2 lines, 2 + 120/128 at an unaligned offset.
    EXPECT_NEAR(plain.l1_bytes_per_update, 26 * (2 + 120.0 / 128) * 128 / 32, 1e-9);
    EXPECT_NEAR(folded.l1_bytes_per_update, 22 * (2 + 120.0 / 128) * 128 / 32, 1e-9);
}

// Partial tiles at the grid's edges idle their threads: 160 points in x take two 128-wide tiles.
TEST(StencilChooser, PartialTilesCount) {
    const gt::grid_extent g{160, 160, 1600};
    EXPECT_DOUBLE_EQ(gt::star_stencil_traffic<double>({128, 8, 1}, g, kRadius, kFull).tail_factor, 256.0 / 160);
    EXPECT_DOUBLE_EQ(gt::star_stencil_traffic<double>({32, 8, 4}, g, kRadius, kFull).tail_factor, 1.0);
}

// A warp over two 16-wide rows touches more sectors than over one 32-wide row,
// not more lines' worth: 2 x (128 + 24) / 32 = 9.5 sectors against (256 + 24) / 32
// = 8.75, at a halo's offset: the model charges 8.6 % more, Nsight counted 6 % more
// per update (runs 60 and 62).
TEST(StencilChooser, NarrowTilesCostTheirSectors) {
    const auto narrow = gt::star_stencil_traffic<double>({16, 16, 4, 1, 2}, kCube256, kRadius, kFull);
    const auto wide = gt::star_stencil_traffic<double>({32, 8, 4, 1, 2}, kCube256, kRadius, kFull);
    EXPECT_NEAR(narrow.l1_bytes_per_update / wide.l1_bytes_per_update, 9.5 / 8.75, 1e-12);
}

// On a grid 42 points wide a tile of 32 or more columns idles a third of its
// lanes; two 16-wide tiles idle 6 of 48. The chooser takes the narrow tile there
// (H200 and H100 alike ran 16x8x8 fastest, runs 65-66), and keeps wide tiles on
// wide grids.
TEST(StencilChooser, NarrowGridsTakeNarrowTiles) {
    EXPECT_EQ(gt::choose_star_stencil_block<double>({42, 256, 1460}, kRadius, 1024, kFull).x, 16u);
    EXPECT_GE(gt::choose_star_stencil_block<double>({512, 512, 512}, kRadius, 1024, kFull).x, 32u);
}

// The chooser's fold-axis rule (fold along y when an xy plane fits L1) breaks
// ties between one tile folded along y and along z: the model must give the two
// exactly the same time. If it ever tells them apart, the rule needs a new look.
TEST(StencilChooser, FoldAxesTie) {
    for (const auto& g : {kCube256, kWide, gt::grid_extent{207, 90, 448}, gt::grid_extent{41, 862, 1020}})
        for (const auto& [x, y, z] : {std::array<std::uint32_t, 3>{32, 8, 4}, {64, 4, 4}, {128, 2, 4}, {32, 16, 2}}) {
            const auto along_y = gt::star_stencil_traffic<double>({x, y / 2, z * 2, 2, 1}, g, kRadius, kFull);
            const auto along_z = gt::star_stencil_traffic<double>({x, y, z, 1, 2}, g, kRadius, kFull);
            EXPECT_EQ(along_y.seconds_per_update, along_z.seconds_per_update) << x << "x" << y << "x" << 2 * z;
        }
}

// Idle threads move no bytes but hold their block's place: they take
// kStencilIdleThreadShare of a thread's time each, on top of what the levels take.
TEST(StencilChooser, IdleThreadsCostTheirShare) {
    const auto edge = gt::star_stencil_traffic<double>({128, 8, 1}, {160, 160, 1600}, kRadius, kFull);
    const auto whole = gt::star_stencil_traffic<double>({128, 8, 1}, {256, 160, 1600}, kRadius, kFull);
    EXPECT_DOUBLE_EQ(whole.seconds_per_update, whole.busy_seconds_per_update);
    EXPECT_NEAR(edge.seconds_per_update / edge.busy_seconds_per_update,
                1 + gt::kStencilIdleThreadShare * (256.0 / 160 - 1), 1e-12);
}

// A partial tile at the grid's edge moves its own points' bytes: over 160 points
// in x, 128-wide tiles move per row what a 128-wide tile over 128 points and a
// 32-wide one over 32 move, in L1 and L2 alike.
TEST(StencilChooser, EdgeTilesMoveTheirOwnBytes) {
    const auto edge = gt::star_stencil_traffic<double>({128, 8, 1}, {160, 160, 1600}, kRadius, kFull);
    const auto wide = gt::star_stencil_traffic<double>({128, 8, 1}, {128, 160, 1600}, kRadius, kFull);
    const auto rest = gt::star_stencil_traffic<double>({32, 8, 1}, {32, 160, 1600}, kRadius, kFull);
    EXPECT_NEAR(edge.l2_bytes_per_update * 160, wide.l2_bytes_per_update * 128 + rest.l2_bytes_per_update * 32, 1e-9);
    EXPECT_NEAR(edge.l1_bytes_per_update * 160, wide.l1_bytes_per_update * 128 + rest.l1_bytes_per_update * 32, 1e-9);
    EXPECT_GT(edge.l2_bytes_per_update, wide.l2_bytes_per_update) << "the narrow edge tile's halo weighs more";
}

// Over 43 points a 64-wide tile's second warp has 11 working lanes: it touches
// (11 x 8 + 24) / 32 = 3.5 sectors at a halo's offset, against 8.75 for a full
// warp, each costed as lines at a full warp's ratio (2 + 120 / 128 lines to 8.75
// sectors). 22 accesses a point (folded twice in z).
TEST(StencilChooser, PartialWarpsCostTheirLanesSectors) {
    const auto t = gt::star_stencil_traffic<double>({64, 16, 1, 1, 2}, {43, 1896, 454}, kRadius, kFull);
    EXPECT_NEAR(t.l1_bytes_per_update, 22 * (8.75 + 3.5) * (2 + 120.0 / 128) / 8.75 * 128 / 43, 1e-9);
}

// A tile wider than the grid idles no more lanes than narrower tiles that cover
// it: over 50 points, one 64-wide tile and two 32-wide ones both span 64. The
// chooser weighs them by time, not by whether the tile fits inside the grid.
TEST(StencilChooser, TilesWiderThanTheGridPayOnlyTheirIdleLanes) {
    const gt::grid_extent narrow{50, 792, 280};
    const auto wide = gt::star_stencil_traffic<double>({64, 8, 2, 1, 2}, narrow, kRadius, kFull);
    const auto halves = gt::star_stencil_traffic<double>({32, 8, 4, 1, 2}, narrow, kRadius, kFull);
    EXPECT_DOUBLE_EQ(wide.tail_factor, halves.tail_factor);
    const auto b = gt::choose_star_stencil_block<double>(narrow, kRadius, 1024, kFull);
    const auto chosen = gt::star_stencil_traffic<double>(b, narrow, kRadius, kFull);
    EXPECT_LE(chosen.seconds_per_update, wide.seconds_per_update);
    EXPECT_LE(chosen.seconds_per_update, halves.seconds_per_update);
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

// One measured search: every block shape's GLup/s on one grid of one card, and
// the confirmed GLup/s of the chosen and the fastest shapes, where they were timed again.
struct Search {
    std::string card, run, set, grid;
    gt::grid_extent extent{};
    std::uint32_t threads = 0;                // per block, of every shape searched (stencil3d --threads)
    std::map<std::string, double> glups;      // by "x_y_z_foldy_foldz"
    std::map<std::string, double> confirmed;  // the same, for the confirmed shapes only
};

std::vector<Search> recorded_searches() {
    std::ifstream in(STENCIL_SEARCHES);
    std::vector<std::string> shapes;
    std::vector<Search> searches;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto c = csv_cells(line);
        if (c.at(0) == "shapes") {
            shapes.assign(c.begin() + 4, c.end());
            continue;
        }
        if (c.at(0) == "confirmed") {  // confirmed,card,run,grid,...: belongs to the search before it
            if (searches.empty() || searches.back().card != c.at(1) || searches.back().run != c.at(2) ||
                searches.back().grid != c.at(3))
                ADD_FAILURE() << "a confirmed line without its search: " << c.at(3);
            else
                for (std::size_t i = 0; i + 4 < c.size() && i < shapes.size(); ++i)
                    if (!c[i + 4].empty()) searches.back().confirmed[shapes[i]] = std::stod(c[i + 4]);
            continue;
        }
        Search s{c.at(0), c.at(1), c.at(2), c.at(3)};
        if (!shapes.empty()) {
            unsigned x = 0, y = 0, z = 0;
            if (std::sscanf(shapes.front().c_str(), "%u_%u_%u", &x, &y, &z) == 3) s.threads = x * y * z;
        }
        if (s.threads == 0) ADD_FAILURE() << "no block size for " << s.grid << " (a shapes line must come first)";
        if (!read_grid(s.grid, s.extent)) ADD_FAILURE() << "a grid that is not XxYxZ: " << s.grid;
        if (c.size() != shapes.size() + 4) ADD_FAILURE() << "a line of " << c.size() << " cells: " << s.grid;
        for (std::size_t i = 0; i + 4 < c.size() && i < shapes.size(); ++i) s.glups[shapes[i]] = std::stod(c[i + 4]);
        searches.push_back(std::move(s));
    }
    return searches;
}

std::string key_of(const gt::stencil_block& b) {
    return std::to_string(b.x) + "_" + std::to_string(b.y) + "_" + std::to_string(b.z) + "_" +
           std::to_string(b.fold_y) + "_" + std::to_string(b.fold_z);
}

// The chosen shape against the fastest measured one; where the search confirmed
// its fastest shapes and the chosen one (timed again in turn), against those.
// Fitted grids (and grids seen before the model's last change, among them blocks of
// 64 threads, runs 85-89): 0.867 at worst, 0.985 on average. Held out since (runs
// 79-80 and 83-91, 288 searches): 24 below 0.95, the worst 0.878 (H100) and 0.904
// (H200). The model alone does not reach 0.95 on every grid; the short list does
// (StencilShortlist below). These bars hold what was measured, with room for a
// search's noise: every grid at least 0.85, at most one in five per card held out
// below 0.95.
TEST(StencilChooser, RecordedSearches) {
    if (L2_SHARE != 1) GTEST_SKIP() << "the searches ran on whole L2s";
    const auto searches = recorded_searches();
    ASSERT_GE(searches.size(), 781u);
    for (const char* card : {"h100", "h200"})
        EXPECT_TRUE(std::any_of(searches.begin(), searches.end(),
                                [&](const Search& s) { return s.card == card && s.set == "held_out"; }))
            << card << ": no grid held out";
    const auto best_of = [](const std::map<std::string, double>& rates) {
        double best = 0;
        for (const auto& [shape, rate] : rates) best = std::max(best, rate);
        return best;
    };
    std::map<std::string, std::vector<double>> ratios;  // by set and card
    for (const auto& s : searches) {
        const gt::stencil_machine m = s.card == "h100" ? kH100 : kFull;
        const auto chosen = gt::choose_star_stencil_block<double>(s.extent, kRadius, s.threads, m);
        const auto at = s.glups.find(key_of(chosen));
        ASSERT_NE(at, s.glups.end()) << s.grid << ": the chooser picked a shape the search did not time";
        const double one_pass = at->second / best_of(s.glups);
        const auto confirmed = s.confirmed.find(key_of(chosen));
        const double ratio = confirmed == s.confirmed.end() ? one_pass : confirmed->second / best_of(s.confirmed);
        ratios[s.set + " " + s.card].push_back(ratio);
        const double floor = 0.85;
        EXPECT_GE(ratio, floor) << s.card << " " << s.run << " " << s.grid;
        std::printf("%-8s %s %-14s %4u threads: chosen/best %.3f (one pass %.3f)\n", s.set.c_str(), s.card.c_str(),
                    s.grid.c_str(), s.threads, ratio, one_pass);
    }
    double sum = 0;
    std::size_t fitted = 0;
    for (const auto& [key, values] : ratios) {
        if (key.rfind("fit", 0) == 0) {
            for (double r : values) sum += r;
            fitted += values.size();
        } else {
            EXPECT_GE(values.size(), 12u) << key;
            const auto below = std::count_if(values.begin(), values.end(), [](double r) { return r < 0.95; });
            EXPECT_LE(below * 5, std::ptrdiff_t(values.size())) << key << ": grids held out below 0.95";
        }
    }
    ASSERT_GT(fitted, 0u);
    EXPECT_GE(sum / fitted, 0.98);
}

// The short list: the chooser's pick first, then every block of each listed tile
// (folded along y and along z alike), the common default last; no block twice,
// every block of the asked size.
TEST(StencilShortlist, HoldsThePickItsTilesAndTheDefault) {
    for (const std::uint32_t threads : {1024u, 512u, 256u, 128u, 64u})
        for (const gt::grid_extent g : {kCube256, kWide, gt::grid_extent{43, 2052, 486}, gt::grid_extent{600, 600, 200}}) {
            const auto list = gt::star_stencil_shortlist<double>(g, kRadius, threads, kFull);
            const std::string where = std::to_string(threads) + " threads, " + std::to_string(g.x) + " wide";
            ASSERT_GE(list.count, gt::kStencilShortlistTiles) << where;
            ASSERT_LE(list.count, std::size(list.blocks)) << where;
            EXPECT_EQ(list.blocks[0], gt::choose_star_stencil_block<double>(g, kRadius, threads, kFull)) << where;
            const gt::stencil_block common_default{32, threads / 32, 1};
            EXPECT_EQ(std::count(list.blocks, list.blocks + list.count, common_default), 1) << where;
            std::vector<std::array<std::uint64_t, 3>> tiles;
            for (std::uint32_t i = 0; i < list.count; ++i) {
                const gt::stencil_block& b = list.blocks[i];
                EXPECT_EQ(b.threads(), threads) << where;
                EXPECT_EQ(std::count(list.blocks, list.blocks + list.count, b), 1) << where << ": " << key_of(b);
                tiles.push_back({b.tile_x(), b.tile_y(), b.tile_z()});
                // Its tile's other folding is listed too, where there is one (at most 64 in z).
                if (b.fold_y == 2 && b.z % 2 == 0) {
                    const gt::stencil_block other{b.x, b.y * 2, b.z / 2, 1, 2};
                    EXPECT_EQ(std::count(list.blocks, list.blocks + list.count, other), 1) << where << ": " << key_of(b);
                }
                if (b.fold_z == 2 && b.y % 2 == 0 && b.z * 2 <= 64) {
                    const gt::stencil_block other{b.x, b.y / 2, b.z * 2, 2, 1};
                    EXPECT_EQ(std::count(list.blocks, list.blocks + list.count, other), 1) << where << ": " << key_of(b);
                }
            }
            std::sort(tiles.begin(), tiles.end());
            const auto distinct = std::unique(tiles.begin(), tiles.end()) - tiles.begin();
            EXPECT_GE(distinct, gt::kStencilShortlistTiles) << where;
            EXPECT_LE(distinct, gt::kStencilShortlistTiles + 1) << where << ": the default's tile at most beside them";
        }
}

// The short list is its definition (bench/stencil_fit.py's shortlist()): the chooser's tile, then
// round by round the tile of the best-ranked block not yet listed (the first found of a tie), each
// tile's blocks in the chooser's order after the one that brought it, then the default. The header
// takes the tiles in one pass of the model; this takes them round by round, on grids of every kind
// (flat, narrow, smaller than a block), on both cards' facts and at a small L1 and few threads.
std::vector<gt::stencil_block> shortlist_by_rounds(const gt::grid_extent& g, std::uint32_t threads,
                                                   const gt::stencil_machine& m) {
    std::vector<gt::stencil_block> listed;
    const auto add_tile_of = [&](const gt::stencil_block& first) {
        std::vector<gt::stencil_block> tile{first};
        gt::detail::for_each_stencil_block(threads, [&](const gt::stencil_block& b) {
            if (gt::detail::same_tile(b, first)) tile.push_back(b);
        });
        for (const auto& b : tile)
            if (std::find(listed.begin(), listed.end(), b) == listed.end()) listed.push_back(b);
    };
    add_tile_of(gt::choose_star_stencil_block<double>(g, kRadius, threads, m));
    for (std::uint32_t round = 1; round < gt::kStencilShortlistTiles; ++round) {
        std::optional<gt::detail::stencil_candidate> next;
        gt::detail::for_each_stencil_block(threads, [&](const gt::stencil_block& b) {
            if (std::find(listed.begin(), listed.end(), b) != listed.end()) return;
            const auto c = gt::detail::candidate_of<double>(b, g, kRadius, m);
            if (!next || gt::detail::ranks_ahead(c, *next)) next = c;
        });
        if (!next) break;
        add_tile_of(next->block);
    }
    const gt::stencil_block common = gt::default_stencil_block(threads);
    if (common.threads() != 0 && std::find(listed.begin(), listed.end(), common) == listed.end()) listed.push_back(common);
    return listed;
}
TEST(StencilShortlist, IsTheBestTilesRoundByRound) {
    gt::stencil_machine small = kFull;
    small.l1_bytes = 24 * 1024;
    small.threads_per_sm = 1536;
    int lists = 0;
    for (const auto& m : {kFull, kH100, small})
        for (const std::uint32_t threads : {1024u, 256u, 64u})
            for (std::uint64_t x : {7u, 43u, 96u, 300u, 1201u})
                for (std::uint64_t y : {5u, 130u, 1594u})
                    for (std::uint64_t z : {3u, 60u, 404u}) {
                        const gt::grid_extent g{x, y, z};
                        const auto list = gt::star_stencil_shortlist<double>(g, kRadius, threads, m);
                        const auto expected = shortlist_by_rounds(g, threads, m);
                        ASSERT_EQ(std::vector<gt::stencil_block>(list.blocks, list.blocks + list.count), expected)
                            << threads << " threads, " << x << "x" << y << "x" << z;
                        ++lists;
                    }
    EXPECT_EQ(lists, 3 * 3 * 5 * 3 * 3);
}

// Block sizes the choosers do not expect: none (an empty list), fewer than 32 threads (the default is
// the whole block in x) and counts that are not powers of two (no default of another size).
TEST(StencilShortlist, OddBlockSizes) {
    EXPECT_EQ(gt::star_stencil_shortlist<double>(kCube256, kRadius, 0, kFull).count, 0u);
    const auto sixteen = gt::star_stencil_shortlist<double>(kCube256, kRadius, 16, kFull);
    EXPECT_EQ(std::count(sixteen.blocks, sixteen.blocks + sixteen.count, gt::stencil_block{16, 1, 1}), 1);
    for (const std::uint32_t threads : {16u, 33u, 96u, 100u, 1000u}) {
        const auto list = gt::star_stencil_shortlist<double>(kCube256, kRadius, threads, kFull);
        ASSERT_GE(list.count, 1u) << threads;
        for (std::uint32_t i = 0; i < list.count; ++i) EXPECT_EQ(list.blocks[i].threads(), threads) << key_of(list.blocks[i]);
    }
}

// Blocks of 64 threads, 32 resident per SM: 32x2x2 tiles do not all fit L1 together, yet ran fastest
// on 5 of 6 grids per card (runs 85-87); the chooser no longer demands that tiles fit, and its
// times pick them. With blocks of 1024 threads the times alone keep to tiles that fit.
TEST(StencilChooser, SmallBlocksNeedNotFitL1) {
    constexpr gt::grid_extent g{1193, 280, 70};
    const auto chosen = gt::choose_star_stencil_block<double>(g, kRadius, 64, kH100);
    EXPECT_TRUE(chosen.tile_x() == 32 && chosen.tile_y() == 2 && chosen.tile_z() == 2) << key_of(chosen);
    EXPECT_FALSE(gt::star_stencil_traffic<double>(chosen, g, kRadius, kH100).tile_fits_l1);
    for (const auto& grid : {g, kCube256, kWide, gt::grid_extent{381, 242, 424}}) {
        const auto large = gt::choose_star_stencil_block<double>(grid, kRadius, 1024, kH100);
        EXPECT_TRUE(gt::star_stencil_traffic<double>(large, grid, kRadius, kH100).tile_fits_l1) << key_of(large);
    }
}

// Timing the short list on the recorded searches: its fastest shape (one-pass rates, which every
// shape has) against the fastest of all. 0.962 at worst over the 781 searches of both cards, fitted
// and held out alike, blocks of 64 to 1024 threads (bench/stencil_fit.py --shortlist).
TEST(StencilShortlist, RecordedSearches) {
    if (L2_SHARE != 1) GTEST_SKIP() << "the searches ran on whole L2s";
    const auto searches = recorded_searches();
    ASSERT_GE(searches.size(), 781u);
    double worst = 1;
    for (const auto& s : searches) {
        const gt::stencil_machine m = s.card == "h100" ? kH100 : kFull;
        const auto list = gt::star_stencil_shortlist<double>(s.extent, kRadius, s.threads, m);
        double fastest = 0, best = 0;
        for (std::uint32_t i = 0; i < list.count; ++i) {
            const auto at = s.glups.find(key_of(list.blocks[i]));
            ASSERT_NE(at, s.glups.end()) << s.grid << ": a listed shape the search did not time";
            fastest = std::max(fastest, at->second);
        }
        for (const auto& [shape, rate] : s.glups) best = std::max(best, rate);
        EXPECT_GE(fastest / best, 0.95) << s.card << " " << s.run << " " << s.grid << " " << s.threads << " threads";
        worst = std::min(worst, fastest / best);
    }
    std::printf("the short list's fastest against the best: %.3f at worst over %zu searches\n", worst, searches.size());
}

}  // namespace

// ---- Kernels with shared memory of their own: carveout and block together ----------

namespace shared_memory {

constexpr std::uint32_t kKiB = 1024;
constexpr std::uint32_t kSizes[] = {8 * kKiB, 32 * kKiB, 96 * kKiB};
constexpr std::uint32_t kThreads[] = {256, 1024};
// Grids of every kind the held-out draws make (bench/stencil_grids.py): wide and narrow, flat and tall.
constexpr gt::grid_extent kGrids[] = {{541, 174, 280}, {51, 1090, 272}, {393, 254, 198}, {96, 2000, 240},
                                      {600, 600, 200}, {1024, 1024, 128}, {1180, 138, 236}, {43, 936, 758},
                                      {207, 90, 448}, {967, 328, 116}};

const gt::sm_shared_limits kLimits = gt::this_gpu_shared_limits();

std::string where(std::uint32_t threads, std::uint32_t shared) {
    return std::to_string(threads) + " threads, " + std::to_string(shared) + " B";
}
bool listed(const gt::carveout_options& options, const gt::carveout_option& o) {
    for (std::uint32_t i = 0; i < options.count; ++i)
        if (options.options[i].carveout_percent == o.carveout_percent && options.options[i].same_split(o)) return true;
    return false;
}
gt::stencil_launch default_launch(const gt::carveout_options& options, std::uint32_t threads) {
    return {*options.left_to_driver(), gt::default_stencil_block(threads)};
}

// The measured row of a launch, if the profile has one.
const gt::l1_at_launch* row_of(int carveout, std::uint32_t threads, std::uint32_t shared) {
    for (std::size_t i = 0; i != gt::l1_launch_count; ++i) {
        const auto& row = gt::l1_launches[i];
        if (row.carveout_percent == carveout && row.threads_per_block == threads && row.shared_bytes_per_block == shared)
            return &row;
    }
    return nullptr;
}

// The option the header counts on for a kernel launched at `carveout`: its options from that carveout's rows
// alone (with every row, a carveout whose split another one's option stands for is listed once; alone, it is its
// own option, or the driver's when they share a split). Empty where no row has that carveout.
std::optional<gt::carveout_option> option_at(int carveout, std::uint32_t threads, std::uint32_t shared) {
    std::vector<gt::l1_at_launch> rows;
    for (std::size_t i = 0; i != gt::l1_launch_count; ++i)
        if (gt::l1_launches[i].carveout_percent == carveout) rows.push_back(gt::l1_launches[i]);
    if (rows.empty()) return std::nullopt;
    const auto options = gt::carveout_options_from(rows.data(), rows.size(), threads, shared, kLimits);
    const auto* at = options.find(carveout);
    if (!at) at = options.left_to_driver();
    if (!at) return std::nullopt;
    return *at;
}

// The rows of the stored profile, read into options: the driver's default first and measured, every
// split distinct, and each consistent with its shared memory: the blocks' shared memory and
// reservation fit the SM's, and the L1 left is no more than the same carveout leaves a kernel
// without shared memory in blocks of 1024 threads (the most it leaves any block size), and at the
// driver's, no more than any launch gets.
TEST(CarveoutOptions, FromTheMeasuredRows) {
    for (const std::uint32_t shared : kSizes)
        for (const std::uint32_t threads : kThreads) {
            const auto options = gt::carveout_options_for(threads, shared);
            ASSERT_GE(options.count, 2u) << where(threads, shared);
            EXPECT_TRUE(options.options[0].left_to_driver()) << where(threads, shared);
            for (std::uint32_t i = 0; i < options.count; ++i) {
                const auto& o = options.options[i];
                const std::string at = where(threads, shared) + ", carveout " + std::to_string(o.carveout_percent);
                EXPECT_TRUE(o.measured) << at;
                EXPECT_GE(o.resident_blocks, 1u) << at;
                EXPECT_LE(o.resident_blocks * threads, kLimits.max_threads) << at;
                EXPECT_LE(std::uint64_t(o.resident_blocks) * (shared + kLimits.reserved_per_block), kLimits.shared_bytes) << at;
                const auto* without = row_of(o.carveout_percent, 1024, 0);
                EXPECT_LE(o.l1_bytes, o.left_to_driver() || !without ? std::uint64_t(gt::l1.size_bytes) : without->size_bytes)
                    << at;
                if (i > 1) EXPECT_LT(options.options[i - 1].carveout_percent, o.carveout_percent) << at;
                for (std::uint32_t j = 0; j < i; ++j) EXPECT_FALSE(options.options[j].same_split(o)) << at;
            }
        }
    // The launch: at carveout 0 a 256-thread block with 8 KiB is alone on its SM; left to the
    // driver, eight are.
    const auto small = gt::carveout_options_for(256, 8 * kKiB);
    ASSERT_NE(small.find(0), nullptr);
    EXPECT_EQ(small.find(0)->resident_blocks, 1u);
    EXPECT_EQ(small.left_to_driver()->resident_blocks, 8u);
}

// Kernels no row describes exactly get the documented bounds.
TEST(CarveoutOptions, UnmeasuredKernelsGetBounds) {
    // 20000 B: the rows of 32 KiB (L1 and blocks at least theirs); the driver's default holds the most blocks
    // the SM allows.
    const auto between = gt::carveout_options_for(256, 20000);
    ASSERT_GE(between.count, 2u);
    EXPECT_EQ(between.left_to_driver()->resident_blocks,
              std::min<std::uint64_t>(kLimits.max_threads / 256,
                                      kLimits.shared_bytes / ((20000 + kLimits.reserved_per_block + 127) / 128 * 128)));
    for (std::uint32_t i = 0; i < between.count; ++i) {
        const auto& o = between.options[i];
        EXPECT_FALSE(o.measured);
        if (o.left_to_driver()) continue;
        const auto* row = row_of(o.carveout_percent, 256, 32 * kKiB);
        ASSERT_NE(row, nullptr) << o.carveout_percent;
        EXPECT_GE(o.resident_blocks, row->resident_blocks) << o.carveout_percent;
        EXPECT_EQ(o.l1_bytes, row->size_bytes);
    }
    // Where the 8 KiB rows left the 32 KiB rows' L1 the split is pinned, and its blocks are those of the
    // split the Programming Guide gives a 228 KiB SM (0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB; the
    // carveout's share of 228 KiB rounded up): 64 KiB at 25 % holds 3 blocks of 20000 B and its reservation,
    // 132 KiB at 50 % 6; the 32 KiB rows alone say 1 and 4.
    if (kLimits.shared_bytes == 228 * kKiB) {
        ASSERT_NE(between.find(25), nullptr);
        EXPECT_EQ(between.find(25)->resident_blocks, 3u);
        ASSERT_NE(between.find(50), nullptr);
        EXPECT_EQ(between.find(50)->resident_blocks, 6u);
    }
    // 512 threads: the 256-thread rows, with the blocks the threads allow.
    const auto mid = gt::carveout_options_for(512, 32 * kKiB);
    for (std::uint32_t i = 0; i < mid.count; ++i) {
        const auto& o = mid.options[i];
        if (o.left_to_driver()) continue;
        const auto* row = row_of(o.carveout_percent, 256, 32 * kKiB);
        ASSERT_NE(row, nullptr) << o.carveout_percent;
        EXPECT_EQ(o.resident_blocks, std::min(row->resident_blocks, kLimits.max_threads / 512));
        EXPECT_EQ(o.l1_bytes, row->size_bytes);
    }
    // Below the rule's range and above the largest measured size: the driver's default alone, the least L1.
    for (const std::uint32_t shared : {4096u, 150000u}) {
        const auto alone = gt::carveout_options_for(1024, shared);
        ASSERT_EQ(alone.count, 1u) << shared;
        EXPECT_TRUE(alone.options[0].left_to_driver());
        EXPECT_EQ(alone.options[0].l1_bytes, kLimits.least_l1_bytes);
        EXPECT_EQ(alone.options[0].resident_blocks, shared == 4096u ? 2u : 1u);
    }
    // A block that does not fit an SM has no launch.
    EXPECT_EQ(gt::carveout_options_for(1024, std::uint32_t(kLimits.shared_bytes)).count, 0u);
    EXPECT_EQ(gt::carveout_options_for(4096, 0).count, 0u);
}

// Kernels of sizes no row describes, some not whole 128 B, against the occupancy API of an H100
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor at each carveout, driver 580.159.04; an H200 has the same
// compute capability, SM and reservation): the calculator rounds a block's shared memory and reservation
// up to 128 B, so 8324 B in carveout 25's 64 KiB split is 6 blocks of 9472 B, not 7 of 9348. The last six,
// launches of user kernels no test had held the header to, were also counted on an H100 by a plain kernel
// (bench/resident_blocks.cu, GPU-1d1c7e04): 56000 B at carveout 100 holds 4, where a split taken from the
// rows alone held 3.
TEST(CarveoutOptions, OddSizesGetTheOccupancyApisBlocks) {
    if (kLimits.shared_bytes != 228 * kKiB || kLimits.reserved_per_block != 1024 || kLimits.allocation_unit != 128)
        GTEST_SKIP() << "the API's answers are a Hopper SM's";
    struct Asked {
        std::uint32_t threads, shared;
        int carveout;
        std::uint32_t api;
    };
    constexpr Asked kAsked[] = {{128, 8324, 25, 6},  {128, 8580, 50, 13},  {128, 32388, 75, 5},
                                {256, 65800, 75, 2}, {256, 39100, 75, 4},  {512, 49152, 75, 4},
                                {256, 20000, 25, 3}, {256, 20000, 50, 6},  {256, 39100, -1, 5},
                                {512, 49152, -1, 4}, {160, 12000, 50, 10}, {384, 24000, 75, 5},
                                {640, 30000, 25, 2}, {768, 70000, 50, 1},  {320, 56000, 75, 3},
                                {320, 56000, 100, 4}};
    for (const auto& a : kAsked) {
        const auto o = option_at(a.carveout, a.threads, a.shared);
        ASSERT_TRUE(o) << where(a.threads, a.shared) << ", carveout " << a.carveout;
        EXPECT_EQ(o->resident_blocks, a.api) << where(a.threads, a.shared) << ", carveout " << a.carveout;
    }
}

// Only kernels whose blocks shared memory bounds pin a split: a kernel of a few bytes may get a larger split than
// its carveout's (the driver's split for such kernels follows the block size), here the 64 KiB that a 32 KiB
// kernel at carveout 10 is raised to. Pinned by it, 10000 B would count 3 blocks (36 KiB: what the 32 KiB
// block takes, in whole 4 KiB) where carveout 10's own 32 KiB split holds 2 (of 11136 B with the reservation).
TEST(CarveoutOptions, KernelsOfAFewBytesPinNoSplit) {
    constexpr gt::l1_at_launch rows[] = {{10, 1024, 0, 2, 187 * kKiB}, {10, 256, 32768, 1, 187 * kKiB},
                                         {-1, 256, 32768, 6, 21 * kKiB}};
    constexpr gt::sm_shared_limits limits{2048, 32, 228 * kKiB, 1024, 21 * kKiB, 128};
    constexpr auto options = gt::carveout_options_from(rows, std::size(rows), 256, 10000, limits);
    static_assert(options.find(10) != nullptr && options.find(10)->resident_blocks <= 2, "more than the split holds");
}

// One option per split (the driver's, else the smallest carveout), the driver's first, then by carveout.
TEST(CarveoutOptions, OneOptionPerSplit) {
    constexpr gt::l1_at_launch rows[] = {{50, 256, 8192, 8, 120 * kKiB}, {-1, 256, 8192, 8, 120 * kKiB},
                                         {10, 256, 8192, 3, 219 * kKiB}, {0, 256, 8192, 1, 235 * kKiB},
                                         {5, 256, 8192, 1, 235 * kKiB},  {0, 256, 0, 8, 219 * kKiB}};
    constexpr gt::sm_shared_limits limits{2048, 32, 228 * kKiB, 1024, 21 * kKiB};
    constexpr auto options = gt::carveout_options_from(rows, std::size(rows), 256, 8192, limits);
    static_assert(options.count == 3, "the driver's split, 10 % and 0 %");
    static_assert(options.options[0].left_to_driver() && options.options[0].resident_blocks == 8, "the driver's first");
    static_assert(options.options[1].carveout_percent == 0 && options.options[2].carveout_percent == 10, "then by carveout");
    static_assert(gt::dominated(gt::carveout_option{75, 8, 54 * kKiB, true}, options.options[0]), "less L1, no more blocks");
    static_assert(!gt::dominated(options.options[1], options.options[0]), "more L1");
}

// The launch chooser on the stored profiles, every size and block size the issue names, on grids of
// every kind, both cards' machines: it picks an option the header lists and a block of the asked size;
// by the model it is never slower than the default launch ((32, T/32, 1) left to the driver); and it
// passes over an option that holds more blocks only for more L1 (never a dominated option).
TEST(StencilLaunch, ChoicesMeetTheRules) {
    for (const std::uint32_t shared : kSizes)
        for (const std::uint32_t threads : kThreads) {
            const auto options = gt::carveout_options_for(threads, shared);
            for (const auto& m : {kFull, kH100})
                for (const auto& g : kGrids) {
                    const auto chosen = gt::choose_star_stencil_launch<double>(g, kRadius, threads, options, m);
                    const std::string at = where(threads, shared) + ", " + std::to_string(g.x) + "x" +
                                           std::to_string(g.y) + "x" + std::to_string(g.z);
                    EXPECT_TRUE(listed(options, chosen.option)) << at;
                    EXPECT_EQ(chosen.block.threads(), threads) << at;
                    EXPECT_LE(chosen.block.z, 64u) << at;
                    const double time = gt::star_stencil_launch_seconds<double>(chosen, g, kRadius, m);
                    EXPECT_LE(time, gt::star_stencil_launch_seconds<double>(default_launch(options, threads), g, kRadius, m))
                        << at;
                    for (std::uint32_t i = 0; i < options.count; ++i)
                        EXPECT_FALSE(gt::dominated(chosen.option, options.options[i]))
                            << at << ": carveout " << options.options[i].carveout_percent << " holds as many blocks and as much L1";
                }
        }
}

// The case: 256 threads with 8 KiB per block. Not carveout 0's one resident block: the model
// puts that launch at under half the rate.
TEST(StencilLaunch, SmallBlocksWithSharedMemoryAreNotLeftAlone) {
    const auto options = gt::carveout_options_for(256, 8 * kKiB);
    for (const auto& g : kGrids) {
        const auto chosen = gt::choose_star_stencil_launch<double>(g, kRadius, 256, options, kFull);
        EXPECT_EQ(chosen.option.resident_blocks, 8u);
        const gt::stencil_launch alone{*options.find(0), chosen.block};
        EXPECT_GT(gt::star_stencil_launch_seconds<double>(alone, g, kRadius, kFull),
                  2 * gt::star_stencil_launch_seconds<double>(chosen, g, kRadius, kFull));
    }
}

// The options the H100's profile gives a kernel with 96 KiB per block in 1024-thread blocks, and one with
// 32 KiB in 256-thread blocks (the driver's first), as bench/shared_tiling_check.sh searched them.
gt::carveout_options h100_options(std::initializer_list<gt::carveout_option> options) {
    gt::carveout_options out{};
    for (const auto& o : options) out.options[out.count++] = o;
    return out;
}
const gt::carveout_options kH100At96KiB1024 = h100_options(
    {{-1, 2, 55296, true}, {0, 1, 154624, true}, {100, 2, 21504, false}});
const gt::carveout_options kH100At32KiB256 = h100_options(
    {{-1, 6, 21504, true}, {0, 1, 191488, true}, {50, 4, 122880, true}, {75, 5, 55296, true}});
// Grids of those searches.
constexpr gt::grid_extent kSearched[] = {{1069, 52, 184}, {47, 2094, 450}, {816, 238, 74}, {56, 1100, 400}, {1039, 112, 204},
                                         {95, 1318, 292}, {227, 348, 290}, {115, 972, 264}};

// Two resident 1024-thread blocks in the 54 KiB of L1 a 96 KiB kernel leaves: tiles folded 2 deep ran
// fastest on every grid searched (64x8x4 tiles, 2.4 times L1 for both blocks, 20 % faster than unfolded
// tiles that fit). The chooser folds there, and keeps the option with the L1 over carveout 100's 21 KiB.
TEST(StencilLaunch, FoldsWhereTwoBlocksOverrunL1) {
    for (const auto& g : kSearched) {
        const auto chosen = gt::choose_star_stencil_launch<double>(g, kRadius, 1024, kH100At96KiB1024, kH100);
        const std::string at = std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z);
        EXPECT_TRUE(chosen.option.left_to_driver()) << at;
        EXPECT_GT(chosen.block.fold_y * chosen.block.fold_z, 1u) << at;
        EXPECT_FALSE(gt::star_stencil_traffic<double>(chosen.block, g, kRadius, gt::at_option(kH100, chosen.option, 1024))
                         .tile_fits_l1)
            << at << ": the test no longer holds tiles that overrun L1";
    }
}

// 256-thread blocks with 32 KiB: 5 resident blocks with 54 KiB of L1 (carveout 75) ran 5-8 % faster than
// 4 with 120 KiB (carveout 50) on every grid searched, and 6 with 21 KiB (the driver's) 13-26 % slower:
// the chooser takes the occupancy while L1 holds a few times its size, not past that.
TEST(StencilLaunch, OccupancyOverL1UntilL1IsTooSmall) {
    for (const auto& g : kSearched) {
        const auto chosen = gt::choose_star_stencil_launch<double>(g, kRadius, 256, kH100At32KiB256, kH100);
        EXPECT_EQ(chosen.option.carveout_percent, 75) << g.x << "x" << g.y << "x" << g.z;
    }
}

// Without shared memory, 1024-thread blocks: the launch chooser's block is the block chooser's (the
// driver's split is carveout 0's there: two blocks, the most L1), as fitted on the recorded searches.
TEST(StencilLaunch, WithoutSharedMemoryTheBlockChooserDecides) {
    const auto options = gt::carveout_options_for(1024, 0);
    ASSERT_EQ(options.left_to_driver()->l1_bytes, gt::this_gpu().l1_bytes);
    for (const auto& g : kGrids) {
        const auto chosen = gt::choose_star_stencil_launch<double>(g, kRadius, 1024, options, kFull);
        EXPECT_TRUE(chosen.option.left_to_driver());
        EXPECT_EQ(chosen.block, gt::choose_star_stencil_block<double>(g, kRadius, 1024, kFull));
    }
}

// The launch short list: the chooser's launch first; the chosen option's short list; launches of other
// occupancies (as many as the options offer, up to kStencilShortlistOccupancies in all); the default
// launch; no launch twice, every block of the asked size, every option one the header lists.
TEST(StencilLaunchShortlist, HoldsThePickOtherOccupanciesAndTheDefault) {
    for (const std::uint32_t shared : {0u, 8 * kKiB, 32 * kKiB, 96 * kKiB})
        for (const std::uint32_t threads : kThreads) {
            const auto options = gt::carveout_options_for(threads, shared);
            std::vector<std::uint32_t> levels;
            for (std::uint32_t i = 0; i < options.count; ++i) levels.push_back(options.options[i].resident_blocks);
            std::sort(levels.begin(), levels.end());
            const auto offered = std::size_t(std::unique(levels.begin(), levels.end()) - levels.begin());
            for (const auto& g : kGrids) {
                const auto list = gt::star_stencil_launch_shortlist<double>(g, kRadius, threads, options, kFull);
                const std::string at = where(threads, shared) + ", " + std::to_string(g.x) + " wide";
                ASSERT_GE(list.count, gt::kStencilShortlistTiles) << at;
                ASSERT_LE(list.count, gt::stencil_launch_list::capacity) << at;
                EXPECT_EQ(list.launches[0], gt::choose_star_stencil_launch<double>(g, kRadius, threads, options, kFull)) << at;
                EXPECT_EQ(std::count(list.launches, list.launches + list.count, default_launch(options, threads)), 1) << at;
                std::vector<std::uint32_t> held;
                for (std::uint32_t i = 0; i < list.count; ++i) {
                    const auto& l = list.launches[i];
                    EXPECT_EQ(std::count(list.launches, list.launches + list.count, l), 1) << at;
                    EXPECT_EQ(l.block.threads(), threads) << at;
                    EXPECT_TRUE(listed(options, l.option)) << at;
                    held.push_back(l.option.resident_blocks);
                }
                std::sort(held.begin(), held.end());
                const auto distinct = std::size_t(std::unique(held.begin(), held.end()) - held.begin());
                EXPECT_GE(distinct, std::min<std::size_t>(offered, gt::kStencilShortlistOccupancies)) << at;
            }
        }
}

// In constant expressions too (64-thread blocks keep the evaluation within every compiler's step limit).
TEST(StencilLaunch, InConstantExpressions) {
    constexpr gt::grid_extent grid{256, 256, 256};
    constexpr auto options = gt::carveout_options_for(64, 8 * kKiB);
    constexpr auto chosen = gt::choose_star_stencil_launch<double>(grid, kRadius, 64, options, kH100);
    static_assert(chosen.block.threads() == 64 && chosen.option.resident_blocks >= 1, "a launch");
    EXPECT_EQ(chosen, gt::choose_star_stencil_launch<double>(grid, kRadius, 64, options, kH100));
}

// The recorded searches of 1024-thread blocks with 32 or 96 KiB of shared memory at carveout 0 (one
// resident block) beside the same grids without (two): tests/data/stencil_shared_searches.csv.
struct SharedSearch {
    std::string card, run, grid;
    gt::grid_extent extent{};
    std::uint32_t shared = 0;
    int carveout = 0;
    std::map<std::string, double> glups, confirmed;
};

std::vector<SharedSearch> recorded_shared_searches() {
    std::ifstream in(STENCIL_SHARED_SEARCHES);
    std::vector<std::string> shapes;
    std::vector<SharedSearch> searches;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto c = csv_cells(line);
        if (c.at(0) == "shapes") {
            shapes.assign(c.begin() + 6, c.end());
            continue;
        }
        const bool confirmed = c.at(0) == "confirmed";
        if (confirmed && (searches.empty() || searches.back().grid != c.at(3) || searches.back().card != c.at(1))) {
            ADD_FAILURE() << "a confirmed line without its search: " << c.at(3);
            continue;
        }
        if (!confirmed) {
            SharedSearch s{c.at(0), c.at(1), c.at(3)};
            if (!read_grid(s.grid, s.extent)) ADD_FAILURE() << "a grid that is not XxYxZ: " << s.grid;
            s.shared = std::uint32_t(std::stoul(c.at(4)));
            s.carveout = std::stoi(c.at(5));
            searches.push_back(std::move(s));
        }
        auto& rates = confirmed ? searches.back().confirmed : searches.back().glups;
        for (std::size_t i = 0; i + 6 < c.size() && i < shapes.size(); ++i)
            if (!c[i + 6].empty()) rates[shapes[i]] = std::stod(c[i + 6]);
    }
    return searches;
}

double best_of(const std::map<std::string, double>& rates) {
    double best = 0;
    for (const auto& [shape, rate] : rates) best = std::max(best, rate);
    return best;
}
// The model's least time over every block at one option.
double least_time(const gt::grid_extent& g, const gt::carveout_option& o, const gt::stencil_machine& m) {
    const auto at = gt::at_option(m, o, 1024);
    return gt::star_stencil_traffic<double>(gt::choose_star_stencil_block<double>(g, kRadius, 1024, at), g, kRadius, at)
        .seconds_per_update;
}

// kStencilLatencyShare against what it was fitted on: each grid's fastest shape with one resident block
// over its fastest with two, measured (0.64-0.71) and by the model (its best time at each option), within 0.05.
TEST(StencilSharedMemory, OccupancyShareFitsTheRecordedSearches) {
    if (L2_SHARE != 1) GTEST_SKIP() << "the searches ran on whole L2s";
    const auto searches = recorded_shared_searches();
    ASSERT_EQ(searches.size(), 42u);
    int compared = 0;
    for (const auto& s : searches) {
        if (s.shared == 0) continue;
        const auto without = std::find_if(searches.begin(), searches.end(), [&](const SharedSearch& o) {
            return o.shared == 0 && o.card == s.card && o.grid == s.grid;
        });
        if (without == searches.end()) continue;  // run 93's grids have no search without shared memory
        const gt::stencil_machine m = s.card == "h100" ? kH100 : kFull;
        const auto with = gt::carveout_options_for(1024, s.shared), none = gt::carveout_options_for(1024, 0);
        const auto* one = with.find(s.carveout);
        const auto* two = none.left_to_driver();
        ASSERT_NE(one, nullptr);
        ASSERT_EQ(one->resident_blocks, 1u);
        ASSERT_EQ(two->resident_blocks, 2u);
        const double measured = best_of(s.glups) / best_of(without->glups);
        const double model = least_time(s.extent, *two, m) / least_time(s.extent, *one, m);
        EXPECT_NEAR(measured, model, 0.05) << s.card << " " << s.grid << " " << s.shared << " B";
        std::printf("%s %-12s %6u B: one block / two, fastest shapes: measured %.3f, model %.3f\n", s.card.c_str(),
                    s.grid.c_str(), s.shared, measured, model);
        ++compared;
    }
    EXPECT_EQ(compared, 24);
}

// At one resident block the occupancy factor is alike for every shape (the low-occupancy shares move
// the ranking a little): the model's picks reach 0.92 of the best or better on these searches, which is
// where the launch chooser no longer goes when another carveout holds two blocks.
TEST(StencilSharedMemory, PicksAtOneResidentBlock) {
    if (L2_SHARE != 1) GTEST_SKIP() << "the searches ran on whole L2s";
    for (const auto& s : recorded_shared_searches()) {
        if (s.shared == 0) continue;
        const gt::stencil_machine m = s.card == "h100" ? kH100 : kFull;
        const auto options = gt::carveout_options_for(1024, s.shared);
        ASSERT_NE(options.find(s.carveout), nullptr);
        const auto at = gt::at_option(m, *options.find(s.carveout), 1024);
        const auto chosen = key_of(gt::choose_star_stencil_block<double>(s.extent, kRadius, 1024, at));
        const bool confirmed = s.confirmed.count(chosen) != 0;
        const double ratio = confirmed ? s.confirmed.at(chosen) / best_of(s.confirmed) : s.glups.at(chosen) / best_of(s.glups);
        EXPECT_GE(ratio, 0.92) << s.card << " " << s.run << " " << s.grid << " " << s.shared << " B";
    }
}

// The 96 KiB, 256-thread part of the searches kStencilZHaloDropPerLoad and kStencilIdleRisePerLoad were
// fitted on (two blocks an SM at most, 8 grids per card; tests/data/stencil_low_occupancy_searches.csv),
// replayed at the carveout options each search timed. A guard against changes that lose what the fit reached
// (with both at 0, 7 of the 16 picks reach 0.95, 4 fall below 0.92 and 4 short lists miss 0.97), not a
// validation: grids drawn after a change are bench/shared_tiling_check.sh's.
struct LowOccupancySearch {
    std::string card, grid;
    gt::grid_extent extent{};
    gt::carveout_options options{};
    std::map<std::pair<int, std::string>, double> glups;  // by (carveout, block)
};

std::vector<LowOccupancySearch> low_occupancy_searches() {
    std::ifstream in(STENCIL_LOW_OCCUPANCY_SEARCHES);
    std::vector<LowOccupancySearch> searches;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("card,", 0) == 0) continue;
        const auto c = csv_cells(line);
        if (c.size() != 11) {
            ADD_FAILURE() << "a line of " << c.size() << " cells, not 11: " << line;
            continue;
        }
        if (searches.empty() || searches.back().card != c[0] || searches.back().grid != c[1]) {
            LowOccupancySearch s{c[0], c[1]};
            if (!read_grid(s.grid, s.extent)) ADD_FAILURE() << "a grid that is not XxYxZ: " << line;
            searches.push_back(std::move(s));
        }
        auto& s = searches.back();
        const gt::carveout_option option{std::stoi(c[2]), std::uint32_t(std::stoul(c[3])), std::stoull(c[4]), true};
        if (const auto* known = s.options.find(option.carveout_percent)) {
            if (!known->same_split(option)) ADD_FAILURE() << "one carveout with two splits: " << line;
        } else if (s.options.count < gt::carveout_options::capacity) {
            s.options.options[s.options.count++] = option;
        } else {
            ADD_FAILURE() << "more carveout options than a list holds: " << line;
        }
        const gt::stencil_block b{std::uint32_t(std::stoul(c[5])), std::uint32_t(std::stoul(c[6])),
                                  std::uint32_t(std::stoul(c[7])), std::uint32_t(std::stoul(c[8])),
                                  std::uint32_t(std::stoul(c[9]))};
        s.glups[{option.carveout_percent, key_of(b)}] = std::stod(c[10]);
    }
    return searches;
}

TEST(StencilSharedMemory, LowOccupancyLaunchesOfTheFittedSearches) {
    if (L2_SHARE != 1) GTEST_SKIP() << "the searches ran on whole L2s";
    const auto searches = low_occupancy_searches();
    ASSERT_EQ(searches.size(), 16u) << STENCIL_LOW_OCCUPANCY_SEARCHES;
    int at_095 = 0;
    for (const auto& s : searches) {
        SCOPED_TRACE(s.card + " " + s.grid);
        ASSERT_NE(s.options.left_to_driver(), nullptr) << "the search timed no launch at the driver's carveout";
        const gt::stencil_machine m = s.card == "h100" ? kH100 : kFull;
        double best = 0;
        for (const auto& [launch, rate] : s.glups) best = std::max(best, rate);
        const auto rate_of = [&](const gt::stencil_launch& l) {
            const auto at = s.glups.find({l.option.carveout_percent, key_of(l.block)});
            return at == s.glups.end() ? 0.0 : at->second;
        };
        const auto chosen = gt::choose_star_stencil_launch<double>(s.extent, kRadius, 256, s.options, m);
        const double ratio = rate_of(chosen) / best;
        EXPECT_GE(ratio, 0.92) << key_of(chosen.block) << " at carveout " << chosen.option.carveout_percent;
        at_095 += ratio >= 0.95;
        const auto list = gt::star_stencil_launch_shortlist<double>(s.extent, kRadius, 256, s.options, m);
        double listed = 0;
        for (std::uint32_t i = 0; i < list.count; ++i) listed = std::max(listed, rate_of(list.launches[i]));
        EXPECT_GE(listed / best, 0.97);
    }
    std::printf("low-occupancy searches: %d of %zu picks at 0.95 of the best or better\n", at_095, searches.size());
    EXPECT_GE(at_095, 12);
}

// A kernel of 48 KiB, between two measured sizes, 512 threads: the header's resident blocks at each carveout
// against the occupancy API's on an H200, and the launch chooser on the searches that found them apart
// (tests/data/stencil_between_sizes_searches.csv, 8 grids). With the 96 KiB rows' blocks (2 at carveout 75,
// lower bounds) it took the driver's split for 4 blocks with 21 KiB of L1 and unfolded 16x8x4 blocks, 0.77-0.80
// of the best and below the default launch; that split holds 4 blocks with 54 KiB (carveout 75's).
struct BetweenSizesSearch {
    gt::grid_extent extent{};
    std::map<std::pair<int, std::string>, double> glups;  // by (carveout, block)
};

TEST(StencilSharedMemory, BetweenMeasuredSizesTheBlocksAreTheOccupancyApis) {
    if (L2_SHARE != 1) GTEST_SKIP() << "the searches ran on whole L2s";
    constexpr std::uint32_t kThreads512 = 512, kShared = 48 * kKiB;
    const auto options = gt::carveout_options_for(kThreads512, kShared);
    std::ifstream in(STENCIL_BETWEEN_SIZES_SEARCHES);
    std::map<std::string, BetweenSizesSearch> searches;
    std::map<int, std::uint32_t> api_blocks;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("card,", 0) == 0) continue;
        const auto c = csv_cells(line);
        ASSERT_EQ(c.size(), 10u) << "a line of " << c.size() << " cells, not 10: " << line;
        auto& s = searches[c[1]];
        ASSERT_TRUE(read_grid(c[1], s.extent)) << "a grid that is not XxYxZ: " << line;
        const int carveout = std::stoi(c[2]);
        const auto api = std::uint32_t(std::stoul(c[3]));
        const auto [at, added] = api_blocks.emplace(carveout, api);
        ASSERT_EQ(at->second, api) << "two answers of the occupancy API at one carveout: " << line;
        const gt::stencil_block b{std::uint32_t(std::stoul(c[4])), std::uint32_t(std::stoul(c[5])),
                                  std::uint32_t(std::stoul(c[6])), std::uint32_t(std::stoul(c[7])),
                                  std::uint32_t(std::stoul(c[8]))};
        s.glups[{carveout, key_of(b)}] = std::stod(c[9]);
    }
    ASSERT_EQ(searches.size(), 8u) << STENCIL_BETWEEN_SIZES_SEARCHES;
    // Every carveout the API answered: the header's option there, or the one of its split (listed once), holds as many.
    for (const auto& [carveout, api] : api_blocks) {
        SCOPED_TRACE("carveout " + std::to_string(carveout));
        const auto o = option_at(carveout, kThreads512, kShared);
        ASSERT_TRUE(o);
        EXPECT_EQ(o->resident_blocks, api);
    }
    ASSERT_NE(options.left_to_driver(), nullptr);
    const gt::stencil_launch fallback = default_launch(options, kThreads512);
    for (const auto& [grid, s] : searches) {
        SCOPED_TRACE(grid);
        double best = 0;
        for (const auto& [launch, rate] : s.glups) best = std::max(best, rate);
        const auto& glups = s.glups;  // not captured: Clang before 16 captures no binding
        const auto rate_of = [&](const gt::stencil_launch& l) {
            const auto at = glups.find({l.option.carveout_percent, key_of(l.block)});
            return at == glups.end() ? 0.0 : at->second;
        };
        const auto chosen = gt::choose_star_stencil_launch<double>(s.extent, kRadius, kThreads512, options, kFull);
        EXPECT_GE(rate_of(chosen) / best, 0.95) << key_of(chosen.block) << " at carveout " << chosen.option.carveout_percent;
        EXPECT_GE(rate_of(chosen), rate_of(fallback)) << "below the default launch";
        const auto list = gt::star_stencil_launch_shortlist<double>(s.extent, kRadius, kThreads512, options, kFull);
        double listed = 0;
        for (std::uint32_t i = 0; i < list.count; ++i) listed = std::max(listed, rate_of(list.launches[i]));
        EXPECT_GE(listed / best, 0.97);
    }
}

}  // namespace shared_memory
