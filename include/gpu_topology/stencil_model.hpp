// gpu_topology/stencil_model.hpp: a performance model for star stencils. It
// reads no facts: every entry point takes the machine (stencil_machine) it
// reasons about, so the model is the same for every GPU, lives in plain
// namespace gpu_topology and needs no generated header (a dispatcher over
// kernels built for several GPUs may include it alone). gpu_topology/stencil.hpp
// adds the entry points that take the machine of a generated gpu_topology.hpp.
// C++17, host and device code.
#ifndef GPU_TOPOLOGY_STENCIL_MODEL_HPP
#define GPU_TOPOLOGY_STENCIL_MODEL_HPP

#include <gpu_topology/carveout_model.hpp>
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
// partial tiles at the grid's edges count. Fewer resident threads than the SM
// holds hide less latency, and tiles that overrun L1 lose reuse to L2. Fitted
// and checked on measured searches over every block shape (kStencil* below).

// The machine facts the model uses; this_gpu() (gpu_topology/stencil.hpp) builds
// those of a generated header, at_option() those of one carveout. Tests and
// what-if studies build their own.
struct stencil_machine {
    // L1 per SM: this_gpu() gives l1.size_bytes, a kernel without shared memory at carveout 0.
    // A kernel with its own shared memory gets what its carveout leaves: at_option().
    std::uint64_t l1_bytes;
    std::uint64_t l1_bandwidth;     // bytes/s, every SM: what L1 delivers to the loads
    std::uint32_t l1_line_bytes;    // a block's x extent covers whole lines
    std::uint32_t l1_sector_bytes;  // unit of L2 -> L1 transfers
    // L2 that keeps layers for reuse by every SM: all of it. (l2_near is what one SM reuses
    // at near latency; on the H200 a 512^3 grid's 4-deep tiles run as if their layers stay,
    // which only the whole L2 can hold.)
    std::uint64_t l2_bytes;
    std::uint64_t l2_bandwidth;     // bytes/s, every SM
    std::uint64_t dram_bandwidth;   // bytes/s, every SM
    std::uint32_t sm_count;
    std::uint32_t threads_per_sm;   // resident threads per SM: the block's resident blocks times its threads
    std::uint32_t warp_size = 32;   // CUDA's: the lanes that load together
    std::uint32_t max_threads_per_sm = 0;  // the most an SM holds (sm.max_threads); 0: threads_per_sm
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

// The common default block: 32 wide (or all of a smaller block), one deep, (32, T/32, 1);
// {0, 0, 0} for a block size that has none (not a multiple of 32 above 32 threads).
GPU_TOPOLOGY_HD constexpr stencil_block default_stencil_block(std::uint32_t threads_per_block) {
    const std::uint32_t x = threads_per_block < 32 ? threads_per_block : 32;
    return x != 0 && threads_per_block % x == 0 ? stencil_block{x, threads_per_block / x, 1} : stencil_block{0, 0, 0};
}

struct stencil_traffic {
    // Per point of the grid, over all its tiles, the partial ones at the edges as they are:
    double l1_bytes_per_update;    // L1 sectors the loads and stores touch, as lines' bytes (see below)
    double l2_bytes_per_update;    // L2 -> L1 loads and L1 -> L2 stores, and the reuse L1 loses (l1_reuse_lost)
    double dram_bytes_per_update;  // compulsory load + store, plus halos reloaded as a layer condition fails
    double tail_factor;            // threads of whole tiles over grid points (partial tiles at the edges)
    double busy_seconds_per_update;  // the levels' times at their measured bandwidths, combined
    double occupancy_factor;       // what fewer resident threads than the SM holds add (kStencilLatencyShare)
    double seconds_per_update;     // that, the idle threads of partial tiles at their share
                                   // (kStencilIdleThreadShare, kStencilIdleRisePerLoad) and the occupancy factor
    double l1_reuse_lost;          // share of the loads L1 would serve that go to L2 (kStencilL1Overcommit)
    bool layer_condition_y;        // what lies between a tile and its y neighbour's reuse fits the share of
                                   // L2 that keeps it whole (kStencilLayerShareOfL2; past it the reloads ramp)
    bool layer_condition_z;        // the same for the z neighbour's layers
    bool tile_fits_l1;             // every resident block's tile and halo fit L1 together
};

// The model's parameters, fitted on recorded searches of every block shape on an H100 and an
// H200, blocks of 64 to 1024 threads without shared memory (tests/data/stencil_searches.csv),
// and checked on grids drawn after each change. The figures below are bench/stencil_fit.py
// --sweep on the fitted searches, each search's worst pick with one measured bandwidth at a time
// moved by 3 %: every parameter sits at its best value. Each is a behaviour of the memory system,
// not a fact a probe measures:
//  - A row of a tile (its x extent and halo) is one run of addresses; each run costs
//    L2 and DRAM as much as this many more bytes would (requests, DRAM pages): narrow
//    tiles move few bytes per run. The same for every row: a cheaper run for rows narrower
//    than a warp picks 16-wide tiles on wide grids for blocks of 128 and 256 threads, 0.85-0.92
//    of the best, and Nsight puts 16-wide tiles' L2 cost per byte above wider ones', not below.
//    192 leaves 15 picks below 0.95, 160 17, 224 19, 128 25, 256 27.
inline constexpr double kStencilL2BytesPerRun = 192;
inline constexpr double kStencilDramBytesPerRun = 64;
//  - A tile's halo rows a plane away (above and below it in z) cost L2 this share of what its
//    halo rows beside it in y cost. Measured, not explained: with both layer conditions met, a
//    tile deeper in y than in z runs about 10 % faster than the same tile turned over (ty and tz
//    swapped) in nearly every search on both cards, where the bytes it moves are the same. 0.75
//    leaves 15 picks below 0.95, 0.625 18, 0.875 22, 0.5 24, 1 62 (worst 0.817). On narrow, tall
//    grids the z halo seems cheaper still (the model's misses).
inline constexpr double kStencilZHaloRowShare = 0.75;
//  - L2 keeps a layer for reuse while everything in between takes at most this share of it.
inline constexpr double kStencilLayerShareOfL2 = 0.9;
//  - Past that share a layer is not lost at once: the share of its halo rows reloaded from DRAM
//    grows with what lies in between over the next this much of L2 (a partial layer condition).
//    With a hard edge a tile near it is priced a whole halo apart from its neighbours, and a 3 %
//    change in a measured bandwidth flips the pick from 0.955 to 0.828 of the best (967x328x116
//    on an H100); every ramp from 0.1 to 0.3 leaves 14-15 picks below 0.95, worst 0.926.
inline constexpr double kStencilLayerRampOfL2 = 0.2;
//  - Threads of a partial tile at the grid's edge that have no point return at once and move no
//    bytes, yet their block holds its place on the SM until its last warp ends: an idle thread
//    costs this share of a working one's time. Charged in full (1), the model prefers tiles that
//    cover a grid's edge tightly over tiles that move fewer bytes (207x90x448: 32x4x16 where
//    32x16x4 runs 8 % faster, on both cards). 0.5 leaves 15 picks below 0.95, 0.7 19, 0.4 20,
//    0.25-0.3 21-22, 0.2 31, 1 41 (worst 0.850) and 0, bytes only, 89 (0.844).
inline constexpr double kStencilIdleThreadShare = 0.5;
//  - The levels overlap, but not perfectly: their times combine as a 4-norm, between
//    the roofline's maximum (infinity) and the sum (1).
inline constexpr int kStencilLevelOverlapNorm = 4;
//  - Resident threads hide latency: with n resident threads of the N an SM holds, a kernel takes
//    (1 - share + share N / n) of its time at N. Every shape of a 1024-thread block with 32 or
//    96 KiB of shared memory at carveout 0 (one resident block, 1024 threads) ran 33-36 % slower
//    than without (two, 2048), the fastest shape 0.64-0.71 of the fastest without, on 6 grids per
//    card (tests/data/stencil_shared_searches.csv): 0.48 puts it at 0.658-0.677 (with the
//    low-occupancy shares below; 0.676 without them). It puts a 256-thread block alone on its SM at
//    0.34 of the rate of a 1024-thread one alone (1/4.36 against 1/1.48); an H200 ran them at 30 and
//    83 GLup/s (0.36), each with 8 KiB of shared memory per block.
inline constexpr double kStencilLatencyShare = 0.48;
//  - L1 keeps a block's tile and halo for its threads' reuse (a row is read by the threads r
//    rows around it), and the resident blocks' tiles may overrun L1 by this factor before reuse
//    is lost: the tile and halo of every resident block are not all live at once (a block's warps
//    run apart and finish apart, and a row's readers r rows around it read it within a short
//    time of each other), so L1 serves the reuse of a footprint a few times its size. Past it, a
//    cache holding that much of a footprint F serves that share of its reuse: the rest of the
//    loads L1 would serve (its sectors, less what L2 serves anyway) go to L2. Fitted on searches of
//    every block at every carveout with 8, 32 and 96 KiB of shared memory per block, 256 and 1024
//    threads, 8 grids each on an H100 (bench/stencil_fit.py --shared): two resident 1024-thread
//    blocks of 64x8x4 tiles (2.4 times the 54 KiB L1 the driver leaves a 96 KiB kernel) ran
//    fastest there, 20 % faster than tiles that fit, and 21 KiB of L1 (carveout 100) cost every
//    shape 5-35 %. Every factor from 2.75 to 4.5 gives the same picks (worst 0.907 of the best, the
//    short list 0.980); 2.5 or less keeps the 96 KiB kernels' unfolded tiles (0.798 at 1.5), 5 or
//    more takes the 21 KiB carveouts (0.62). Without shared memory (the recorded searches, up to
//    1.48 times L1) every factor from 1.5 to 4 gives the same picks.
inline constexpr double kStencilL1Overcommit = 3.5;
//  - With few resident threads (blocks with much shared memory: two 256-thread blocks an SM at 96
//    KiB) a launch waits on latency more than on bytes, and two of the shares above move with the
//    latency load N / n - 1 (0 at a full SM, 3 at a quarter of it): the z halo's share drops by
//    kStencilZHaloDropPerLoad for each unit of it (to no less than 0) and the idle threads' share
//    rises by kStencilIdleRisePerLoad (to at most 1): a resident block's place costs its time
//    whether its threads work or not. Fitted on the searches of seed 20261231 (bench/stencil_fit.py
//    --shared, 8 grids of each of 6 kinds per card; the 96 KiB, 256-thread part, where they matter
//    most, is tests/data/stencil_low_occupancy_searches.csv): there 32x4x2 blocks (z 2) ran at
//    0.88-0.98 of 64x4x1, 32x8x1 or 16x16x1 where the model ranked them first, and the short list
//    held none of those on 2 grids per card. 0.1 and 0.15 take the picks below 0.95, of all 48 grids,
//    from 5 to 3 (H100) and 6 to 3 (H200), the worst from 0.892 to 0.930 and 0.881 to 0.932, the
//    list's worst from 0.930 to 0.978 and 0.932 to 0.985; a drop of 0.2 or more takes some picks down
//    to 0.83 (the z halo then costs next to nothing), a rise of 0.05 leaves the list at 0.95. On four
//    H100 searches drawn after (seeds 20261241-20261271, one-pass rates) picks below 0.95 went 11 -> 8,
//    7 -> 6, 7 -> 7 and 4 -> 3 of 48. At a full SM (every search without shared memory) neither moves.
inline constexpr double kStencilZHaloDropPerLoad = 0.1;
inline constexpr double kStencilIdleRisePerLoad = 0.15;
//  - The shares move with the latency load up to this one and no further: the searches they were
//    fitted on had at least a quarter of an SM's threads resident (load 3). Moving further, with
//    128-thread blocks and 64 KiB of shared memory (3 resident, load 4.3), took the worst pick on an
//    H200 (4 grids, seed 20261291, one-pass rates) from 0.937 without the shares to 0.920; with the
//    limit it is 0.998. Over every shared-memory search recorded the picks below 0.95 go from 35 to 33
//    of 396 with it.
inline constexpr double kStencilShareLoadLimit = 3;

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
GPU_TOPOLOGY_HD constexpr double clamp_share(double share) { return share < 0 ? 0.0 : share > 1 ? 1.0 : share; }
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
    // The whole tile and its halo as L1 holds them, for one block: the y and z face rows too
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
    // The share of L1's reuse lost where the resident blocks' tiles overrun it (kStencilL1Overcommit).
    const double footprint = double(per_sm * loaded), l1_room = kStencilL1Overcommit * double(m.l1_bytes);
    t.l1_reuse_lost = footprint > l1_room ? 1 - l1_room / footprint : 0.0;
    const double l2_size = double(m.l2_bytes);  // not `l2`: that is the header's L2 fact
    // Occupancy: the block's resident threads against the most the SM holds, and the latency load
    // of fewer (kStencilZHaloDropPerLoad, kStencilIdleRisePerLoad, up to kStencilShareLoadLimit).
    const double resident = double(per_sm * b.threads());
    const double most = double(m.max_threads_per_sm != 0 ? m.max_threads_per_sm : m.threads_per_sm);
    const double load = resident > 0 && resident < most ? most / resident - 1 : 0.0;
    const double share_load = load < kStencilShareLoadLimit ? load : kStencilShareLoadLimit;
    const double z_halo_share = detail::clamp_share(kStencilZHaloRowShare - kStencilZHaloDropPerLoad * share_load);
    const double idle_share = detail::clamp_share(kStencilIdleThreadShare + kStencilIdleRisePerLoad * share_load);
    const double reloaded_y = detail::reloaded_share(double(between_y), layer_room, l2_size);
    const double reloaded_z = detail::reloaded_share(double(between_z), layer_room, l2_size);
    // L1: each point loads its 6r + 1 inputs (a thread folding f points along an
    // axis loads f + 2r along it, shared) and stores one; a warp's access touches
    // the sectors its lanes' row segments span, at an offset the halo leaves unaligned,
    // and costs them as lines at a full warp's ratio of lines to sectors: a warp
    // over two 16-wide rows costs 9.5 / 8.75 of a 32-wide row's, 8.6 % more (Nsight counts
    // 6 % more L1 sectors per update for 16-wide tiles than for wider ones, where their lines
    // are 32 % more). Without a sector size, lines.
    const std::uint64_t fold = b.fold_y > b.fold_z ? b.fold_y : b.fold_z;
    const double loads = fold <= 1 ? double(6 * r + 1) : double(4 * r * fold + fold + 2 * r) / double(fold);
    const double line = double(m.l1_line_bytes);
    const double unit = sector > 0 ? double(sector) : line;
    const auto spanned = [&](std::uint64_t lanes, double bytes) {  // units of `bytes` that adjacent lanes span
        return (double(lanes * s) + bytes - double(s)) / bytes;
    };
    const double lines_per_unit = spanned(m.warp_size, line) / spanned(m.warp_size, unit);
    const auto row_units = [&](std::uint64_t wide) {  // the units a tile row's warp segments touch, `wide` lanes working
        if (tx < m.warp_size) return spanned(wide, unit);
        const std::uint64_t whole = wide / m.warp_size, rest = wide % m.warp_size;
        return double(whole) * spanned(m.warp_size, unit) + (rest ? spanned(rest, unit) : 0.0);
    };
    // Each level's bytes over the grid's tiles, and the same with each run of addresses at its cost
    // (kStencilL2BytesPerRun and kin): the times' numerators.
    double l1_bytes = 0, l2_bytes = 0, dram_bytes = 0, l2_with_runs = 0, dram_with_runs = 0, reused = 0;
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
                // (kStencilZHaloRowShare, less kStencilZHaloDropPerLoad at few resident threads), and the stores.
                const double l2_loads = double(wy * wz) * run +
                                        double(2 * r) * face_row * (double(wz) + z_halo_share * double(wy));
                const double l2_tile = l2_loads + points * double(s);
                // DRAM: compulsory load and store, plus halos reloaded as a layer condition fails.
                const double dram_tile = 2 * points * double(s) + reloaded_y * double(2 * r * wx * wz * s) +
                                         reloaded_z * double(2 * r * wx * wy * s);
                l1_bytes += tiles * (loads + 1) * double(wy * wz) * (row_units(wx) * lines_per_unit) * line;
                // What L1 serves of the loads (their sectors) beyond what L2 brings it: the reuse an
                // overrun L1 loses.
                const double served = loads * double(wy * wz) * row_units(wx) * unit - l2_loads;
                reused += tiles * (served > 0 ? served : 0.0);
                l2_bytes += tiles * l2_tile;
                dram_bytes += tiles * dram_tile;
                l2_with_runs += tiles * l2_tile * (1 + kStencilL2BytesPerRun / run);
                dram_with_runs += tiles * dram_tile * (1 + kStencilDramBytesPerRun / run);
            }
    const double lost = t.l1_reuse_lost * reused;
    const double points = double(g.x) * double(g.y) * double(g.z);
    t.l1_bytes_per_update = l1_bytes / points;
    t.l2_bytes_per_update = (l2_bytes + lost) / points;
    t.dram_bytes_per_update = dram_bytes / points;
    t.tail_factor = double(row_x) * double(row_y) * double(row_z) / points;
    // The levels' times. Without measured bandwidths every level counts alike.
    const bool rates = m.l1_bandwidth != 0 && m.l2_bandwidth != 0 && m.dram_bandwidth != 0;
    const double l1_seconds = t.l1_bytes_per_update / (rates ? double(m.l1_bandwidth) : 1.0);
    const double l2_seconds = (l2_with_runs + lost) / points / (rates ? double(m.l2_bandwidth) : 1.0);
    const double dram_seconds = dram_with_runs / points / (rates ? double(m.dram_bandwidth) : 1.0);
    t.busy_seconds_per_update = detail::four_norm(l1_seconds, l2_seconds, dram_seconds);
    const double idle_threads_per_update = t.tail_factor - 1;
    t.occupancy_factor = 1 + kStencilLatencyShare * load;
    t.seconds_per_update = (1 + idle_share * idle_threads_per_update) * t.busy_seconds_per_update * t.occupancy_factor;
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
// (Each member initialised: nvcc's front end takes an array of them, `candidate list[n]{}`, in a
// constant expression only then.)
struct stencil_candidate {
    stencil_block block{};
    bool whole_lines = false;  // its rows are whole L1 lines (the chooser's one rule)
    double time = 0;           // star_stencil_traffic(...).seconds_per_update
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
// The block chooser's rule (choose_star_stencil_block), offered the candidates in for_each_stencil_block's
// order: the best ranked, the first found of a tie, but of two blocks of one tile and time the one that
// folds along the preferred axis.
struct chooser_pick {
    bool fold_y_preferred;  // an xy plane of the grid with its halo fits L1 (choose_star_stencil_block)
    stencil_candidate best{};
    bool found = false;
    GPU_TOPOLOGY_HD constexpr void offer(const stencil_candidate& c) {
        const bool folds_preferred_axis = fold_y_preferred ? c.block.fold_y > 1 : c.block.fold_z > 1;
        const bool tie_won = found && c.whole_lines == best.whole_lines && c.time == best.time &&
                             same_tile(c.block, best.block) && folds_preferred_axis;
        if (!found || ranks_ahead(c, best) || tie_won) best = c;
        found = true;
    }
    GPU_TOPOLOGY_HD constexpr stencil_block block(std::uint32_t threads_per_block) const {
        return found ? best.block : stencil_block{threads_per_block, 1, 1};
    }
};
template <typename T>
GPU_TOPOLOGY_HD constexpr bool plane_fits_l1(const grid_extent& g, std::uint32_t radius, const stencil_machine& m) {
    return (g.x + 2 * radius) * (g.y + 2 * radius) * sizeof(T) <= m.l1_bytes;
}
}  // namespace detail

// The block of `threads_per_block` threads (powers of two, at most 64 in z)
// and the folding (none, 2 in y, 2 in z) with the least time per update by
// star_stencil_traffic, among blocks whose rows are whole L1 lines (x of at
// least 16 doubles: a warp loads one 32-wide row or two 16-wide ones; the rule
// is dropped when no block meets it). The tiles of the resident blocks need not
// fit L1 together: blocks of 64 threads (32 resident) run 32x2x2 tiles fastest,
// which do not; tile_fits_l1 says, and past kStencilL1Overcommit the model
// charges the reuse lost. A tile may be larger than the grid: its idle threads
// are in the time (tail_factor, at kStencilIdleThreadShare, more at few resident
// threads: kStencilIdleRisePerLoad), and a 64-wide tile
// over 50 points idles no more lanes than two 32-wide ones.
// Blocks of one tile that fold along y and along z have the same time (the
// model moves the same bytes for both); between them the chooser folds along y
// when an xy plane of the grid, with its halo, fits L1, and along z otherwise.
// Measured, with a guess for why: on grids whose planes fit L1 folding along y
// runs up to 8 % faster (a plane a z neighbour away may still be in L1), on
// larger planes up to 18 % slower. Other ties keep the first found: x largest,
// then y.
// The model alone misses 0.95 of the best shape on about 1 grid in 12 it was
// not fitted on; star_stencil_shortlist() gives a short list to time instead.
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_block choose_star_stencil_block(const grid_extent& g, std::uint32_t radius,
                                                                  std::uint32_t threads_per_block,
                                                                  const stencil_machine& m) {
    detail::chooser_pick pick{detail::plane_fits_l1<T>(g, radius, m)};
    detail::for_each_stencil_block(threads_per_block,
                                   [&](const stencil_block& b) { pick.offer(detail::candidate_of<T>(b, g, radius, m)); });
    return pick.block(threads_per_block);
}

// ---- A short list to time, where the model's pick is not enough ---------------
// The model ranks shapes a few % apart where the measured best is a few % from
// its pick: over the recorded searches its pick is below 0.95 of the best on about
// one in twenty (0.878 at worst on a grid it was not fitted on), while the list below
// holds a shape at 0.962 of the best or better on every one (one-pass rates,
// bench/stencil_fit.py --shortlist). So a kernel that can afford a few timed launches
// times this list on its own grid and keeps the fastest (examples/stencil3d --tune
// does; Triton's autotuner prunes its configurations with a performance model the
// same way). Timed so on 94 grids per card drawn after each change, 64 to 1024
// threads a block: 0.964 of the best at worst, never below 0.95.
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
    // One pass of the model over the blocks (a constant expression's cost is its evaluations): the
    // chooser's pick, and the kStencilShortlistTiles best-ranked tiles, best first, each by its best
    // block (the first found of a tie, as ties between tiles keep the first found). A tile that
    // falls out of the best loses to tiles that rank ahead of, or alike with and found before, all
    // its blocks seen so far; its later blocks come back only by ranking ahead of the last kept.
    detail::chooser_pick pick{detail::plane_fits_l1<T>(g, radius, m)};
    detail::stencil_candidate best[kStencilShortlistTiles]{};
    std::uint32_t tiles = 0;
    detail::for_each_stencil_block(threads_per_block, [&](const stencil_block& b) {
        const auto c = detail::candidate_of<T>(b, g, radius, m);
        pick.offer(c);
        std::uint32_t at = tiles;  // c's tile among the best, or none
        for (std::uint32_t i = 0; i < tiles; ++i)
            if (detail::same_tile(best[i].block, b)) at = i;
        if (at < tiles) {
            if (!detail::ranks_ahead(c, best[at])) return;
            for (std::uint32_t i = at; i + 1 < tiles; ++i) best[i] = best[i + 1];
            --tiles;
        } else if (tiles == kStencilShortlistTiles) {
            if (!detail::ranks_ahead(c, best[tiles - 1])) return;
            --tiles;
        }
        std::uint32_t place = tiles;  // after every tile it does not rank ahead of
        for (; place > 0 && detail::ranks_ahead(c, best[place - 1]); --place) best[place] = best[place - 1];
        best[place] = c;
        ++tiles;
    });
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
    // The chooser's pick is a block of the best tile (the first found of the best rank, or of its tile).
    add_tile_of(pick.block(threads_per_block));
    for (std::uint32_t i = 1; i < tiles; ++i) add_tile_of(best[i].block);
    // The default, where the block size has one: 32 wide (or all of a smaller block), one deep.
    if (const stencil_block common = default_stencil_block(threads_per_block); common.threads() != 0) add(common);
    return list;
}

// ---- Kernels with shared memory of their own: the carveout and the block together ----
// A kernel that stages tiles in shared memory chooses how the SM's storage is split: the
// carveout sets how many of its blocks an SM holds and how much L1 is left (carveout_options).
// One fewer resident block costs every shape alike (kStencilLatencyShare); L1 left too small
// for the resident tiles costs reuse (kStencilL1Overcommit). The launch chooser weighs the
// two over every option and every block, and its short list times options of different
// occupancy side by side.

// A launch: the carveout option and the block.
struct stencil_launch {
    carveout_option option;
    stencil_block block;
    GPU_TOPOLOGY_HD constexpr bool operator==(const stencil_launch& o) const {
        return option.carveout_percent == o.option.carveout_percent && option.same_split(o.option) && block == o.block;
    }
};

// The machine at one option: its L1, and its resident blocks of `threads_per_block` threads
// against the most threads the SM holds (m.threads_per_sm, unless m says so otherwise).
GPU_TOPOLOGY_HD constexpr stencil_machine at_option(stencil_machine m, const carveout_option& o,
                                                   std::uint32_t threads_per_block) {
    if (m.max_threads_per_sm == 0) m.max_threads_per_sm = m.threads_per_sm;
    m.l1_bytes = o.l1_bytes;
    m.threads_per_sm = o.resident_blocks * threads_per_block;
    return m;
}

// The model's time of a launch (seconds per update), at its option.
template <typename T>
GPU_TOPOLOGY_HD constexpr double star_stencil_launch_seconds(const stencil_launch& l, const grid_extent& g,
                                                            std::uint32_t radius, const stencil_machine& m) {
    return star_stencil_traffic<T>(l.block, g, radius, at_option(m, l.option, l.block.threads())).seconds_per_update;
}

namespace detail {
struct launch_candidate {  // each member initialised, as stencil_candidate's
    stencil_launch launch{};
    double time = 0;
};
// Ranked ahead: less time; alike, more L1, then the driver's default, then the smaller carveout.
GPU_TOPOLOGY_HD constexpr bool launch_ranks_ahead(const launch_candidate& a, const launch_candidate& b) {
    if (a.time != b.time) return a.time < b.time;
    const carveout_option &x = a.launch.option, &y = b.launch.option;
    if (x.l1_bytes != y.l1_bytes) return x.l1_bytes > y.l1_bytes;
    if (x.left_to_driver() != y.left_to_driver()) return x.left_to_driver();
    return x.carveout_percent < y.carveout_percent;
}
// The chooser's block at one option, and its time.
template <typename T>
GPU_TOPOLOGY_HD constexpr launch_candidate best_at(const grid_extent& g, std::uint32_t radius,
                                                   std::uint32_t threads_per_block, const carveout_option& o,
                                                   const stencil_machine& m) {
    const stencil_machine at = at_option(m, o, threads_per_block);
    const stencil_block b = choose_star_stencil_block<T>(g, radius, threads_per_block, at);
    return {{o, b}, star_stencil_traffic<T>(b, g, radius, at).seconds_per_update};
}
// Where there is no option to weigh (a kernel no row describes and that does not fit an SM),
// the driver's default with the machine as given.
GPU_TOPOLOGY_HD constexpr carveout_option as_given(const stencil_machine& m, std::uint32_t threads_per_block) {
    return {-1, threads_per_block == 0 ? 0 : m.threads_per_sm / threads_per_block, m.l1_bytes, false};
}
}  // namespace detail

// The launch, carveout option and block, with the least time by the model: each option's
// chooser block (choose_star_stencil_block on the machine at that option), the options weighed by
// their blocks' times; alike in time, more L1, then the driver's default. On the stored profiles
// this takes the carveout that holds the most threads unless their tiles overrun the L1 it
// leaves (tests/header/stencil_chooser_test.cpp states the rules it keeps).
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_launch choose_star_stencil_launch(const grid_extent& g, std::uint32_t radius,
                                                                    std::uint32_t threads_per_block,
                                                                    const carveout_options& options,
                                                                    const stencil_machine& m) {
    if (options.count == 0)
        return {detail::as_given(m, threads_per_block), choose_star_stencil_block<T>(g, radius, threads_per_block, m)};
    detail::launch_candidate best = detail::best_at<T>(g, radius, threads_per_block, options.options[0], m);
    for (std::uint32_t i = 1; i < options.count; ++i) {
        const auto c = detail::best_at<T>(g, radius, threads_per_block, options.options[i], m);
        if (detail::launch_ranks_ahead(c, best)) best = c;
    }
    return best.launch;
}

//  - The launch short list also times, beside the chosen option's short list, the best launch
//    of the next kStencilShortlistOccupancies - 1 other occupancies (resident threads) the
//    options offer, ranked by time: where the model weighs occupancy against L1 wrongly, the
//    tuning sees both sides. Then the default launch, (32, T/32, 1) left to the driver.
inline constexpr std::uint32_t kStencilShortlistOccupancies = 3;

struct stencil_launch_list {
    static constexpr std::uint32_t capacity = stencil_shortlist::capacity + kStencilShortlistOccupancies;
    stencil_launch launches[capacity];  // the chooser's launch first
    std::uint32_t count;
};

// The launches to time for a kernel with shared memory of its own: the chosen option's short
// list (star_stencil_shortlist on the machine at it, the chooser's launch first), the best launch
// of each of the next other occupancies, and the default launch.
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_launch_list star_stencil_launch_shortlist(const grid_extent& g, std::uint32_t radius,
                                                                           std::uint32_t threads_per_block,
                                                                           const carveout_options& options,
                                                                           const stencil_machine& m) {
    stencil_launch_list list{};
    if (threads_per_block == 0) return list;
    const auto add = [&](const stencil_launch& l) {
        for (std::uint32_t i = 0; i < list.count; ++i)
            if (list.launches[i] == l) return;
        if (list.count < stencil_launch_list::capacity) list.launches[list.count++] = l;
    };
    // Each option's chooser block and its time, weighed once: the chosen launch is the best of them
    // (as choose_star_stencil_launch, which weighs them one at a time without keeping them;
    // StencilLaunchShortlist's tests hold the list's first to it), the other occupancies' best
    // launches come from the same. (An array of 16 candidates, under 1 KiB of a device thread's stack.)
    detail::launch_candidate by_option[carveout_options::capacity]{};
    std::uint32_t chosen_index = 0;
    for (std::uint32_t i = 0; i < options.count; ++i) {
        by_option[i] = detail::best_at<T>(g, radius, threads_per_block, options.options[i], m);
        if (i > 0 && detail::launch_ranks_ahead(by_option[i], by_option[chosen_index])) chosen_index = i;
    }
    const stencil_launch chosen =
        options.count != 0 ? by_option[chosen_index].launch
                           : stencil_launch{detail::as_given(m, threads_per_block),
                                            choose_star_stencil_block<T>(g, radius, threads_per_block, m)};
    const stencil_shortlist at_chosen =
        star_stencil_shortlist<T>(g, radius, threads_per_block, at_option(m, chosen.option, threads_per_block));
    for (std::uint32_t i = 0; i < at_chosen.count; ++i) add({chosen.option, at_chosen.blocks[i]});
    // The other occupancies, best first: each round takes the best launch of an occupancy not yet taken.
    std::uint32_t taken[kStencilShortlistOccupancies] = {chosen.option.resident_blocks};
    for (std::uint32_t level = 1; level < kStencilShortlistOccupancies; ++level) {
        std::uint32_t next = options.count;  // none yet
        for (std::uint32_t i = 0; i < options.count; ++i) {
            bool seen = false;
            for (std::uint32_t k = 0; k < level; ++k) seen = seen || taken[k] == options.options[i].resident_blocks;
            if (seen) continue;
            if (next == options.count || detail::launch_ranks_ahead(by_option[i], by_option[next])) next = i;
        }
        if (next == options.count) break;
        taken[level] = by_option[next].launch.option.resident_blocks;
        add(by_option[next].launch);
    }
    const stencil_block common = default_stencil_block(threads_per_block);
    const carveout_option* driver = options.left_to_driver();
    if (common.threads() != 0) add({driver ? *driver : detail::as_given(m, threads_per_block), common});
    return list;
}

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_STENCIL_MODEL_HPP
