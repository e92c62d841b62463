// gpu_topology/stencil_model.hpp: a performance model for star stencils. It
// reads no facts: every entry point takes the machine (stencil_machine) it
// reasons about, so the model is the same for every GPU, lives in plain
// namespace gpu_topology and needs no generated header (a dispatcher over
// kernels built for several GPUs may include it alone). gpu_topology/stencil.hpp
// adds the entry points that take the machine of a generated gpu_topology.hpp.
// C++17, host and device code.
#ifndef GPU_TOPOLOGY_STENCIL_MODEL_HPP
#define GPU_TOPOLOGY_STENCIL_MODEL_HPP

#include <gpu_topology/types.hpp>

#include <cstdint>

namespace gpu_topology {

// ---- Star stencils: traffic per level and the layer condition ----------------
// After Ernst et al., "Analytical performance estimation during code generation
// on modern GPUs": a block of threads updates a tile of the grid; the data a
// tile's neighbour in y (or z) will need again stays in L2 only if everything
// touched between the two uses fits (the layer condition). Blocks run in
// blockIdx order, x fastest, one wave at a time. Each level's bytes per update
// at its measured bandwidth give its time: L1 (the lines a warp's accesses
// touch), L2 and DRAM, with a cost per row of a tile, and threads left idle by
// partial tiles at the grid's edges count. Fitted and checked on measured
// searches over every block shape (kStencil* below).

// The machine facts the model uses; this_gpu() (gpu_topology/stencil.hpp) builds
// those of a generated header. Tests and what-if studies build their own.
struct stencil_machine {
    // L1 per SM. this_gpu(): l1.size_bytes, a kernel at carveout 0 without shared memory. A kernel
    // with its own shared memory gets less: l1_bytes_at(0, threads, its shared bytes), and the
    // driver may then hold fewer blocks per SM (at carveout 0 one, l1_launches[].resident_blocks;
    // cudaOccupancyMaxActiveBlocksPerMultiprocessor): set threads_per_sm to match. The model has no
    // term for lost occupancy: with 32 or 96 KiB per 1024-thread block every shape ran 33-36 % slower,
    // and the chooser's picks reached 0.925-0.972 of the best, 6 of 12 grids below 0.95 on each card
    // (runs 81-82, docs/measurements/2026-11-23-stencil.md).
    std::uint64_t l1_bytes;
    std::uint64_t l1_bandwidth;     // bytes/s, every SM: what L1 delivers to the loads
    std::uint32_t l1_line_bytes;    // a block's x extent covers whole lines
    std::uint32_t l1_sector_bytes;  // unit of L2 -> L1 transfers
    // L2 that keeps layers for reuse by every SM: all of it. (l2_near is what one
    // SM reuses at near latency; on the H200 a 512^3 grid's 4-deep tiles ran as
    // if their layers stayed, which only the whole L2 can hold:
    // docs/measurements/2026-11-22-h200-stencil3d.md.)
    std::uint64_t l2_bytes;
    std::uint64_t l2_bandwidth;     // bytes/s, every SM
    std::uint64_t dram_bandwidth;   // bytes/s, every SM
    std::uint32_t sm_count;
    std::uint32_t threads_per_sm;
    std::uint32_t warp_size = 32;   // CUDA's: the lanes that load together
};
struct grid_extent {
    std::uint64_t x, y, z;  // points updated (the halo of `radius` around them is extra)
};

// Threads per block in x, y, z, and points each thread updates along y or z
// (thread folding: one of fold_y, fold_z may exceed 1).
struct stencil_block {
    std::uint32_t x, y, z;
    std::uint32_t fold_y = 1, fold_z = 1;
    GPU_TOPOLOGY_HD constexpr std::uint32_t threads() const { return x * y * z; }
    GPU_TOPOLOGY_HD constexpr std::uint64_t tile_x() const { return x; }
    GPU_TOPOLOGY_HD constexpr std::uint64_t tile_y() const { return std::uint64_t(y) * fold_y; }
    GPU_TOPOLOGY_HD constexpr std::uint64_t tile_z() const { return std::uint64_t(z) * fold_z; }
    GPU_TOPOLOGY_HD constexpr bool operator==(const stencil_block& o) const {
        return x == o.x && y == o.y && z == o.z && fold_y == o.fold_y && fold_z == o.fold_z;
    }
};

struct stencil_traffic {
    // Per point of the grid, over all its tiles, the partial ones at the edges as they are:
    double l1_bytes_per_update;    // L1 sectors the loads and stores touch, as lines' bytes (see below)
    double l2_bytes_per_update;    // L2 -> L1 loads and L1 -> L2 stores
    double dram_bytes_per_update;  // compulsory load + store, plus halos reloaded as a layer condition fails
    double tail_factor;            // threads of whole tiles over grid points (partial tiles at the edges)
    double busy_seconds_per_update;  // the levels' times at their measured bandwidths, combined
    double seconds_per_update;     // that, and the idle threads of partial tiles at their share
                                   // (kStencilIdleThreadShare)
    bool layer_condition_y;        // what lies between a tile and its y neighbour's reuse fits the share of
                                   // L2 that keeps it whole (kStencilLayerShareOfL2; past it the reloads ramp)
    bool layer_condition_z;        // the same for the z neighbour's layers
    bool tile_fits_l1;             // every resident block's tile and halo fit L1 together
};

// The model's parameters, fitted on recorded searches of every block shape on
// an H100 and an H200 (451 searches over 221 grids when they were last changed, blocks of
// 1024 threads and, since runs 77-78, of 512, 256 and 128; 493 now, with blocks of 64 threads:
// tests/data/stencil_searches.csv, docs/measurements/2026-11-23-stencil.md) and checked on
// grids drawn after each change.
// After the last change to them (aa11a7e), 288 searches held out (runs 79-80 and 83-91,
// 64 to 1024 threads): 24 picks below 0.95 of the best, the worst 0.878 (H100, 70x354x878)
// and 0.904 (H200); the misses are narrow grids over 1000 tall and a tile's y/z depth.
// star_stencil_shortlist() below covers them. The figures below are bench/stencil_fit.py
// --sweep on the 451 searches fitted then, each search's worst pick with one measured
// bandwidth at a time moved by 3 %; with every parameter as it is, 15 picks were below 0.95
// of the best, the worst 0.926. Swept again on the 493 fitted now (2026-11-27, with blocks
// of 64 threads), every parameter is still at its best value (22 below, the worst 0.867).
// Each is a behaviour of the memory system, not a fact a probe measures:
//  - A row of a tile (its x extent and halo) is one run of addresses; each run costs
//    L2 and DRAM as much as this many more bytes would (requests, DRAM pages): narrow
//    tiles move few bytes per run. The same for every row: a cheaper run for rows narrower
//    than a warp (128 B, 2026-11-24) picked 16-wide tiles on wide grids for blocks of 128
//    and 256 threads, 0.85-0.92 of the best (runs 77-78); Nsight puts 16-wide tiles' L2
//    cost per byte above wider ones' (runs 60, 75-76), not below. 192 leaves 15 picks below
//    0.95, 160 17, 224 19, 128 25, 256 27.
inline constexpr double kStencilL2BytesPerRun = 192;
inline constexpr double kStencilDramBytesPerRun = 64;
//  - A tile's halo rows a plane away (above and below it in z) cost L2 this share of what its
//    halo rows beside it in y cost. Measured, not explained: with both layer conditions met, a
//    tile deeper in y than in z ran about 10 % faster than the same tile turned over (ty and tz
//    swapped) in nearly every search on both cards, where the bytes it moves are the same. 0.75
//    leaves 15 picks below 0.95, 0.625 18, 0.875 22, 0.5 24, 1 62 (worst 0.817). On narrow, tall
//    grids the z halo seems cheaper still (the misses above; docs/measurements/2026-11-23-stencil.md).
inline constexpr double kStencilZHaloRowShare = 0.75;
//  - L2 keeps a layer for reuse while everything in between takes at most this share of it.
inline constexpr double kStencilLayerShareOfL2 = 0.9;
//  - Past that share a layer is not lost at once: the share of its halo rows reloaded from DRAM
//    grows with what lies in between over the next this much of L2 (a partial layer condition).
//    With a hard edge a tile near it was priced a whole halo apart from its neighbours, and a 3 %
//    change in a measured bandwidth flipped the pick from 0.955 to 0.828 of the best (967x328x116
//    on an H100, run 51); every ramp from 0.1 to 0.3 leaves 14-15 picks below 0.95, worst 0.926.
inline constexpr double kStencilLayerRampOfL2 = 0.2;
//  - Threads of a partial tile at the grid's edge that have no point return at once and move no
//    bytes, yet their block holds its place on the SM until its last warp ends: an idle thread
//    costs this share of a working one's time. Charged in full (1), the model preferred tiles that
//    cover a grid's edge tightly over tiles that move fewer bytes, and missed 0.95 of the best on
//    one held-out grid per card (207x90x448: 32x4x16 where 32x16x4 ran 8 % faster, runs 52-53).
//    0.5 leaves 15 picks below 0.95, 0.7 19, 0.4 20, 0.25-0.3 21-22, 0.2 31, 1 41 (worst 0.850)
//    and 0, bytes only, 89 (0.844). At 0.3 with a cheaper run for narrow rows (until aa11a7e)
//    16-wide tiles won on grids 65-79 wide through the discount; now through their few idle lanes.
inline constexpr double kStencilIdleThreadShare = 0.5;
//  - The levels overlap, but not perfectly: their times combine as a 4-norm, between
//    the roofline's maximum (infinity) and the sum (1).
inline constexpr int kStencilLevelOverlapNorm = 4;

namespace detail {
GPU_TOPOLOGY_HD constexpr std::uint64_t round_up(std::uint64_t bytes, std::uint64_t unit) {
    return unit == 0 ? bytes : (bytes + unit - 1) / unit * unit;
}
GPU_TOPOLOGY_HD constexpr std::uint64_t round_up_count(std::uint64_t n, std::uint64_t unit) {
    return unit == 0 ? n : (n + unit - 1) / unit * unit;
}
// The tiles along one axis of n points: `count` of `extent` points each, the whole ones and then the
// partial one at the far edge (a part of count 0 or extent 0 is absent).
struct axis_part {
    std::uint64_t extent, count;
};
struct axis_tiles {
    axis_part parts[2];
};
GPU_TOPOLOGY_HD constexpr axis_tiles split_axis(std::uint64_t n, std::uint64_t tile) {
    if (tile == 0) return {{{n, 0}, {0, 0}}};
    return {{{tile, n / tile}, {n % tile, 1}}};
}
// The share of a layer's halo rows reloaded from DRAM when `between` bytes lie between two uses
// and `room` bytes of L2 keep a layer whole (kStencilLayerRampOfL2).
GPU_TOPOLOGY_HD constexpr double reloaded_share(double between, double room, double l2_bytes) {
    if (!(l2_bytes > 0)) return between <= room ? 0.0 : 1.0;
    const double over = (between - room) / (kStencilLayerRampOfL2 * l2_bytes);
    return over <= 0 ? 0.0 : over >= 1 ? 1.0 : over;
}
// Square root by Newton's method, for values near 1 (constexpr; no <cmath>).
GPU_TOPOLOGY_HD constexpr double sqrt_near_one(double v) {
    double x = v > 1 ? v : 1;
    for (int i = 0; i < 64; ++i) {
        const double next = 0.5 * (x + v / x);
        if (next >= x) break;
        x = next;
    }
    return x;
}
// (a^4 + b^4 + c^4)^(1/4), scaled by the largest so the root is of a number in [1, 3].
GPU_TOPOLOGY_HD constexpr double four_norm(double a, double b, double c) {
    const double m = a > b ? (a > c ? a : c) : (b > c ? b : c);
    if (!(m > 0)) return 0;
    const double x = a / m, y = b / m, z = c / m;
    return m * sqrt_near_one(sqrt_near_one(x * x * x * x + y * y * y * y + z * z * z * z));
}
}  // namespace detail

// Traffic of a radius-`radius` star stencil on T (one input, one output array) per updated point.
// The tiles at the grid's far edges hold fewer points than the others: each level's bytes are the
// sum over the tiles as they lie on the grid (whole ones and the partial ones at each edge), so a
// partial tile moves its own points' rows and halos, and its warps the sectors of their working lanes.
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_traffic star_stencil_traffic(const stencil_block& b, const grid_extent& g,
                                                               std::uint32_t radius,
                                                               const stencil_machine& m) {
    static_assert(kStencilLevelOverlapNorm == 4, "four_norm() combines the levels");
    const std::uint64_t s = sizeof(T), r = radius;
    const std::uint64_t tx = b.tile_x(), ty = b.tile_y(), tz = b.tile_z(), cells = tx * ty * tz;
    const std::uint64_t sector = m.l1_sector_bytes;
    // A row of a tile, `wide` points, as L1 holds it: widened by the x halo, in whole sectors.
    const auto core_row = [&](std::uint64_t wide) {
        return 2 * detail::round_up(r * s, sector) + detail::round_up(wide * s, sector);
    };
    // Whether the whole tile and its halo fit L1, for every resident block: the y and z face rows too
    // (a star has no edges).
    const std::uint64_t loaded = ty * tz * core_row(tx) + 2 * r * (ty + tz) * detail::round_up(tx * s, sector);
    const std::uint64_t per_sm = b.threads() == 0 ? 0 : m.threads_per_sm / b.threads();
    const std::uint64_t wave = std::uint64_t(m.sm_count) * (per_sm == 0 ? 1 : per_sm);
    // Bytes in L2 between a tile and its neighbour's use of the same data: the
    // tiles in between (a row of tiles for y, a plane for z) plus what is in
    // flight: two waves, as the next wave starts while the last blocks of one finish.
    const std::uint64_t in_flight = 2 * wave * 2 * cells * s;
    const std::uint64_t row_x = detail::round_up_count(g.x, tx), row_y = detail::round_up_count(g.y, ty);
    const std::uint64_t row_z = detail::round_up_count(g.z, tz);
    const std::uint64_t between_y = row_x * tz * (2 * ty + 2 * r) * s + in_flight;
    const std::uint64_t between_z = row_x * row_y * (2 * tz + 2 * r) * s + in_flight;
    const double layer_room = kStencilLayerShareOfL2 * double(m.l2_bytes);
    stencil_traffic t{};
    t.layer_condition_y = double(between_y) <= layer_room;
    t.layer_condition_z = double(between_z) <= layer_room;
    t.tile_fits_l1 = per_sm * loaded <= m.l1_bytes;
    const double l2_size = double(m.l2_bytes);  // not `l2`: that is the header's L2 fact
    const double reloaded_y = detail::reloaded_share(double(between_y), layer_room, l2_size);
    const double reloaded_z = detail::reloaded_share(double(between_z), layer_room, l2_size);
    // L1: each point loads its 6r + 1 inputs (a thread folding f points along an
    // axis loads f + 2r along it, shared) and stores one; a warp's access touches
    // the sectors its lanes' row segments span, at an offset the halo leaves unaligned,
    // and costs them as lines at a full warp's ratio of lines to sectors: a warp
    // over two 16-wide rows costs 9.5 / 8.75 of a 32-wide row's, 8.6 % more (Nsight counted
    // 6 % more L1 sectors per update for 16-wide tiles than for wider ones, runs 60 and 62,
    // where their lines are 32 % more). Without a sector size, lines.
    const std::uint64_t fold = b.fold_y > b.fold_z ? b.fold_y : b.fold_z;
    const double loads = fold <= 1 ? double(6 * r + 1) : double(4 * r * fold + fold + 2 * r) / double(fold);
    const double line = double(m.l1_line_bytes);
    const double unit = sector > 0 ? double(sector) : line;
    const auto spanned = [&](std::uint64_t lanes, double bytes) {  // units of `bytes` that adjacent lanes span
        return (double(lanes * s) + bytes - double(s)) / bytes;
    };
    const double lines_per_unit = spanned(m.warp_size, line) / spanned(m.warp_size, unit);
    const auto row_lines = [&](std::uint64_t wide) {  // a tile row's warp segments, `wide` lanes working
        if (tx < m.warp_size) return spanned(wide, unit) * lines_per_unit;
        const std::uint64_t whole = wide / m.warp_size, rest = wide % m.warp_size;
        return (double(whole) * spanned(m.warp_size, unit) + (rest ? spanned(rest, unit) : 0.0)) * lines_per_unit;
    };
    // Each level's bytes over the grid's tiles, and the same with each run of addresses at its cost
    // (kStencilL2BytesPerRun and kin): the times' numerators.
    double l1_bytes = 0, l2_bytes = 0, dram_bytes = 0, l2_with_runs = 0, dram_with_runs = 0;
    const detail::axis_tiles along_x = detail::split_axis(g.x, tx), along_y = detail::split_axis(g.y, ty),
                             along_z = detail::split_axis(g.z, tz);
    for (const detail::axis_part& px : along_x.parts)
        for (const detail::axis_part& py : along_y.parts)
            for (const detail::axis_part& pz : along_z.parts) {
                const std::uint64_t wx = px.extent, wy = py.extent, wz = pz.extent;
                const double tiles = double(px.count * py.count * pz.count), points = double(wx * wy * wz);
                if (!(tiles > 0) || !(points > 0)) continue;
                const double run = double(core_row(wx)), face_row = double(detail::round_up(wx * s, sector));
                // What L2 serves: the rows and their halos, the z halo's rows at their share
                // (kStencilZHaloRowShare), and the stores.
                const double l2_tile = double(wy * wz) * run +
                                       double(2 * r) * face_row * (double(wz) + kStencilZHaloRowShare * double(wy)) +
                                       points * double(s);
                // DRAM: compulsory load and store, plus halos reloaded as a layer condition fails.
                const double dram_tile = 2 * points * double(s) + reloaded_y * double(2 * r * wx * wz * s) +
                                         reloaded_z * double(2 * r * wx * wy * s);
                l1_bytes += tiles * (loads + 1) * double(wy * wz) * row_lines(wx) * line;
                l2_bytes += tiles * l2_tile;
                dram_bytes += tiles * dram_tile;
                l2_with_runs += tiles * l2_tile * (1 + kStencilL2BytesPerRun / run);
                dram_with_runs += tiles * dram_tile * (1 + kStencilDramBytesPerRun / run);
            }
    const double points = double(g.x) * double(g.y) * double(g.z);
    t.l1_bytes_per_update = l1_bytes / points;
    t.l2_bytes_per_update = l2_bytes / points;
    t.dram_bytes_per_update = dram_bytes / points;
    t.tail_factor = double(row_x) * double(row_y) * double(row_z) / points;
    // The levels' times. Without measured bandwidths every level counts alike.
    const bool rates = m.l1_bandwidth != 0 && m.l2_bandwidth != 0 && m.dram_bandwidth != 0;
    const double l1_seconds = t.l1_bytes_per_update / (rates ? double(m.l1_bandwidth) : 1.0);
    const double l2_seconds = l2_with_runs / points / (rates ? double(m.l2_bandwidth) : 1.0);
    const double dram_seconds = dram_with_runs / points / (rates ? double(m.dram_bandwidth) : 1.0);
    t.busy_seconds_per_update = detail::four_norm(l1_seconds, l2_seconds, dram_seconds);
    const double idle_threads_per_update = t.tail_factor - 1;
    t.seconds_per_update = (1 + kStencilIdleThreadShare * idle_threads_per_update) * t.busy_seconds_per_update;
    return t;
}

namespace detail {
// Every block of `threads_per_block` threads the choosers consider, in the order they try them (x
// largest first, then y): x * y * z threads, at most 64 in z, unfolded and folded 2 in y or 2 in z.
// A visitor rather than an array of them, so that device code calling the choosers keeps a small stack.
template <typename Visit>
GPU_TOPOLOGY_HD constexpr void for_each_stencil_block(std::uint32_t threads_per_block, Visit&& visit) {
    constexpr std::uint32_t folds[3][2] = {{1, 1}, {2, 1}, {1, 2}};
    for (std::uint32_t x = threads_per_block; x >= 1; x /= 2) {
        for (std::uint32_t y = threads_per_block / x; y >= 1; y /= 2) {
            const std::uint32_t z = threads_per_block / (x * y);
            if (x * y * z != threads_per_block || z > 64) continue;
            for (const auto& f : folds) visit(stencil_block{x, y, z, f[0], f[1]});
        }
    }
}
struct stencil_candidate {
    stencil_block block;
    bool whole_lines;  // its rows are whole L1 lines (the chooser's one rule)
    double time;       // star_stencil_traffic(...).seconds_per_update
};
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_candidate candidate_of(const stencil_block& b, const grid_extent& g,
                                                        std::uint32_t radius, const stencil_machine& m) {
    return {b, b.x * sizeof(T) >= m.l1_line_bytes, star_stencil_traffic<T>(b, g, radius, m).seconds_per_update};
}
GPU_TOPOLOGY_HD constexpr bool same_tile(const stencil_block& a, const stencil_block& b) {
    return a.tile_x() == b.tile_x() && a.tile_y() == b.tile_y() && a.tile_z() == b.tile_z();
}
// Ranked ahead: its rows are whole lines where the other's are not, or, alike in that, it takes less time.
GPU_TOPOLOGY_HD constexpr bool ranks_ahead(const stencil_candidate& a, const stencil_candidate& b) {
    return (a.whole_lines && !b.whole_lines) || (a.whole_lines == b.whole_lines && a.time < b.time);
}
}  // namespace detail

// The block of `threads_per_block` threads (powers of two, at most 64 in z)
// and the folding (none, 2 in y, 2 in z) with the least time per update by
// star_stencil_traffic, among blocks whose rows are whole L1 lines (x of at
// least 16 doubles: a warp loads one 32-wide row or two 16-wide ones; the rule
// is dropped when no block meets it). Until 2026-11-27 the tiles of every
// resident block also had to fit L1 together: over the 781 recorded searches that
// rule decides a pick only for blocks of 64 threads (32 resident, whose 32x2x2
// tiles break it), 25 of 50, and takes that block size from 10 picks below 0.95
// of the best to 20 (runs 85-91); tile_fits_l1 still says. A tile may
// be larger than the grid: its idle threads are in the time (tail_factor, at
// kStencilIdleThreadShare), and a 64-wide tile over 50 points idles no more
// lanes than two 32-wide ones.
// Blocks of one tile that fold along y and along z have the same time (the
// model moves the same bytes for both); between them the chooser folds along y
// when an xy plane of the grid, with its halo, fits L1, and along z otherwise.
// Measured, with a guess for why: on grids whose planes fit L1 folding along y
// ran up to 8 % faster (a plane a z neighbour away may still be in L1), on
// larger planes up to 18 % slower; on the 134 searches recorded then the rule
// took the fitted grids below 0.95 from 3 to 2 per card. Other
// ties keep the first found: x largest, then y.
// The model alone misses 0.95 of the best shape on about 1 grid in 12 it was
// not fitted on; star_stencil_shortlist() gives a short list to time instead.
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_block choose_star_stencil_block(const grid_extent& g, std::uint32_t radius,
                                                                  std::uint32_t threads_per_block,
                                                                  const stencil_machine& m) {
    const bool plane_fits_l1 = (g.x + 2 * radius) * (g.y + 2 * radius) * sizeof(T) <= m.l1_bytes;
    detail::stencil_candidate best{};
    bool found = false;
    detail::for_each_stencil_block(threads_per_block, [&](const stencil_block& b) {
        const auto c = detail::candidate_of<T>(b, g, radius, m);
        const bool folds_preferred_axis = plane_fits_l1 ? b.fold_y > 1 : b.fold_z > 1;
        const bool tie_won = found && c.whole_lines == best.whole_lines && c.time == best.time &&
                             detail::same_tile(b, best.block) && folds_preferred_axis;
        if (!found || detail::ranks_ahead(c, best) || tie_won) best = c;
        found = true;
    });
    return found ? best.block : stencil_block{threads_per_block, 1, 1};
}

// ---- A short list to time, where the model's pick is not enough ---------------
// The model ranks shapes a few % apart where the measured best is a few % from
// its pick: over the 781 recorded searches its pick is below 0.95 of the best on 45,
// 24 of the 288 held out (worst 0.878), while the list below holds a shape at 0.962 of
// the best or better on every one (one-pass rates, bench/stencil_fit.py --shortlist).
// So a kernel that can afford a few timed launches times this list on its own grid and
// keeps the fastest (examples/stencil3d --tune does, in under 0.4 s; Triton's autotuner
// prunes its configurations with a performance model the same way). Timed so on grids
// drawn after each change, 64 to 1024 threads a block, 94 per card: 0.964 of the best
// at worst, never below 0.95 (runs 83-91, docs/measurements/2026-11-23-stencil.md). Not so
// for a kernel with its own shared memory (one resident block): 0.933 on 1 of 6 grids (run
// 93, H100), where thin-z tiles the model does not rank won (stencil_machine says why).
//  - The list holds the model's kStencilShortlistTiles best tiles, the chooser's pick first,
//    each as every block that makes it (folded along y and along z: the model cannot tell
//    those apart), then the common default (32 wide, one deep: (32, 32, 1) at 1024 threads),
//    so that the fastest of the list is never slower than that default. 4 tiles leave every
//    recorded search at 0.962 of its best or better (7-9 shapes), as 5 do; 3 tiles 0.949,
//    2 tiles 0.922.
inline constexpr std::uint32_t kStencilShortlistTiles = 4;

// A tile is made by one block (unfolded: the tile holds the block's threads' cells) or by two (folded:
// twice the cells, 2 in y or 2 in z), so the list holds at most 2 blocks a tile and the default.
struct stencil_shortlist {
    static constexpr std::uint32_t capacity = 2 * kStencilShortlistTiles + 1;
    stencil_block blocks[capacity];  // the chooser's pick first
    std::uint32_t count;
};

template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_shortlist star_stencil_shortlist(const grid_extent& g, std::uint32_t radius,
                                                                   std::uint32_t threads_per_block,
                                                                   const stencil_machine& m) {
    stencil_shortlist list{};
    if (threads_per_block == 0) return list;
    const auto listed = [&](const stencil_block& b) {
        for (std::uint32_t i = 0; i < list.count; ++i)
            if (list.blocks[i] == b) return true;
        return false;
    };
    const auto add = [&](const stencil_block& b) {
        if (!listed(b) && list.count < stencil_shortlist::capacity) list.blocks[list.count++] = b;
    };
    const auto add_tile_of = [&](const stencil_block& first) {  // first, then the other block of its tile
        add(first);
        detail::for_each_stencil_block(threads_per_block, [&](const stencil_block& b) {
            if (detail::same_tile(b, first)) add(b);
        });
    };
    add_tile_of(choose_star_stencil_block<T>(g, radius, threads_per_block, m));
    for (std::uint32_t tiles = 1; tiles < kStencilShortlistTiles; ++tiles) {
        // The best-ranked block whose tile is not listed yet (a listed tile's blocks are all listed).
        detail::stencil_candidate next{};
        bool found = false;
        detail::for_each_stencil_block(threads_per_block, [&](const stencil_block& b) {
            if (listed(b)) return;
            const auto c = detail::candidate_of<T>(b, g, radius, m);
            if (!found || detail::ranks_ahead(c, next)) next = c;
            found = true;
        });
        if (!found) break;
        add_tile_of(next.block);
    }
    // The default, where the block size has one: 32 wide (or all of a smaller block), one deep.
    const std::uint32_t default_x = threads_per_block < 32 ? threads_per_block : 32;
    if (threads_per_block % default_x == 0) add({default_x, threads_per_block / default_x, 1});
    return list;
}

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_STENCIL_MODEL_HPP
