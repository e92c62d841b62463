// gpu_topology/gemm_model.hpp: the tiling constants of a shared-memory-tiled SGEMM, C = alpha A B
// + beta C in row-major floats, the kind a user writes (examples/gemm): each block computes a
// block_m x block_n tile of C, staging block_k-deep slices of A (transposed, its rows padded) and B
// in shared memory; each thread accumulates a thread_m x thread_n tile in registers. A model ranks
// every configuration of a stated space, with the carveout, and a short list covers what it
// cannot tell apart. It reads no facts: every entry point takes the machine (gemm_machine);
// gpu_topology/gemm.hpp builds that of a generated gpu_topology.hpp. C++17, host and device code.
#ifndef GPU_TOPOLOGY_GEMM_MODEL_HPP
#define GPU_TOPOLOGY_GEMM_MODEL_HPP

#include <gpu_topology/carveout_model.hpp>
#include <gpu_topology/types.hpp>

#include <cstddef>
#include <cstdint>

namespace gpu_topology {

// One configuration's tiles. The block has (block_m / thread_m) x (block_n / thread_n) threads and
// declares (block_k (block_m + pad_a) + block_k block_n) floats of shared memory.
struct sgemm_tile {
    std::uint32_t block_m, block_n, block_k;  // the block's tile of C, and the depth of the A and B slices it stages
    std::uint32_t thread_m, thread_n;         // each thread's tile of C, in registers
    std::uint32_t pad_a;                      // floats after each row of the staged (transposed) A slice
    GPU_TOPOLOGY_HD constexpr std::uint32_t threads() const {
        return thread_m == 0 || thread_n == 0 ? 0 : (block_m / thread_m) * (block_n / thread_n);
    }
    GPU_TOPOLOGY_HD constexpr std::uint32_t pitch_a() const { return block_m + pad_a; }
    GPU_TOPOLOGY_HD constexpr std::uint32_t shared_bytes() const {
        return (block_k * pitch_a() + block_k * block_n) * std::uint32_t(sizeof(float));
    }
    GPU_TOPOLOGY_HD constexpr bool operator==(const sgemm_tile& o) const {
        return block_m == o.block_m && block_n == o.block_n && block_k == o.block_k && thread_m == o.thread_m &&
               thread_n == o.thread_n && pad_a == o.pad_a;
    }
};

// A configuration: the tiles and the carveout.
struct sgemm_config {
    sgemm_tile tile;
    carveout_option option;
    GPU_TOPOLOGY_HD constexpr bool operator==(const sgemm_config& o) const {
        return tile == o.tile && option.carveout_percent == o.option.carveout_percent && option.same_split(o.option);
    }
};

struct gemm_extent {
    std::uint64_t m, n, k;  // C is m x n, A m x k, B k x n
};

// The machine facts the model uses; this_gpu_gemm() (gpu_topology/gemm.hpp) builds those of a
// generated header.
struct gemm_machine {
    std::uint32_t sm_count;
    double sm_clock_hz;
    std::uint32_t fma_per_sm_clock;     // FP32 fused multiply-adds an SM retires per clock (its architecture's)
    std::uint32_t issue_per_sm_clock;   // warp instructions an SM issues per clock (its schedulers)
    std::uint64_t shared_bandwidth;     // bytes/s, every SM
    std::uint64_t l2_bandwidth;         // bytes/s, every SM
    std::uint64_t dram_bandwidth;       // bytes/s
    std::uint64_t l2_bytes;
    std::uint32_t l2_latency_cycles;    // a load that L2 serves
    std::uint32_t registers_per_sm;
    std::uint32_t register_unit;        // registers a warp is given at a time
    std::uint32_t banks, bank_bytes;    // shared memory banks
    std::uint32_t warp_size;
    // The carveouts: the measured per-launch rows and the SM's limits (carveout_options_from).
    const l1_at_launch* rows;
    std::size_t row_count;
    sm_shared_limits limits;
};

// ---- The space -------------------------------------------------------------------
// Block tiles with their thread tiles: 8x8 thread tiles (64 accumulators) in blocks of 64 to 256
// threads, and 4x4 ones for grids too small to fill the SMs with large blocks.
struct sgemm_block_shape {
    std::uint32_t block_m, block_n, thread_m, thread_n;
};
inline constexpr sgemm_block_shape kSgemmBlockShapes[] = {{128, 128, 8, 8}, {128, 64, 8, 8}, {64, 128, 8, 8},
                                                           {64, 64, 8, 8},   {64, 64, 4, 4},  {32, 32, 4, 4}};
inline constexpr std::uint32_t kSgemmBlockK[] = {8, 16, 32};
// Each shape and depth unpadded and padded (sgemm_pad_a), where padding changes the layout.
inline constexpr std::uint32_t kSgemmSpaceCapacity =
    2 * std::uint32_t(sizeof(kSgemmBlockShapes) / sizeof(kSgemmBlockShapes[0])) *
    std::uint32_t(sizeof(kSgemmBlockK) / sizeof(kSgemmBlockK[0]));
// The kernel's registers: __launch_bounds__(threads, sgemm_min_blocks(tile)) lets the compiler use at
// most registers_per_sm / kSgemmRegisterThreads of them a thread (128 on a 64 Ki-register SM), so
// that blocks of every size keep this many threads resident by registers.
inline constexpr std::uint32_t kSgemmRegisterThreads = 512;
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_min_blocks(const sgemm_tile& t) {
    return t.threads() == 0 || t.threads() >= kSgemmRegisterThreads ? 1 : kSgemmRegisterThreads / t.threads();
}

namespace detail {
// Shared-memory wavefronts of one warp-wide access in which lane i reads or writes `bytes` (4, 8 or
// 16) at byte address address(i): 16-byte accesses are served a quarter of the warp at a time, 8-byte
// ones half, 4-byte ones whole; within one such phase a bank serves one distinct word per wavefront
// (lanes that touch the same word share it).
template <typename Address>
GPU_TOPOLOGY_HD constexpr std::uint32_t wavefronts(std::uint32_t bytes, std::uint32_t banks, std::uint32_t bank_bytes,
                                                   std::uint32_t warp_size, Address address) {
    if (banks == 0 || bank_bytes == 0 || warp_size == 0) return 1;
    const std::uint32_t lanes = warp_size < 64 ? warp_size : 64;
    const std::uint32_t quarter = lanes / 4 == 0 ? 1 : lanes / 4, half = lanes / 2 == 0 ? 1 : lanes / 2;
    const std::uint32_t phase = bytes >= 16 ? quarter : bytes >= 8 ? half : lanes;  // at least a lane
    const std::uint32_t words = bytes < bank_bytes ? 1 : bytes / bank_bytes;
    std::uint32_t total = 0;
    for (std::uint32_t first = 0; first < lanes; first += phase) {
        const std::uint32_t last = first + phase < lanes ? first + phase : lanes;
        // Each lane's first word, once: a lane touches words base .. base + words - 1. (The model
        // counts these for every configuration it ranks; in a constant expression every step costs.)
        std::uint64_t base[64] = {};
        for (std::uint32_t lane = first; lane < last; ++lane) base[lane - first] = address(lane) / bank_bytes;
        std::uint32_t ways[64] = {};  // distinct words per bank in this phase (a profile has at most 64 banks)
        std::uint32_t most = 0;
        for (std::uint32_t lane = first; lane < last; ++lane)
            for (std::uint32_t w = 0; w < words; ++w) {
                const std::uint64_t word = base[lane - first] + w;
                bool seen = false;  // an earlier lane of the phase touches it too
                for (std::uint32_t before = first; before < lane && !seen; ++before)
                    seen = base[before - first] <= word && word < base[before - first] + words;
                if (seen || word % banks >= 64) continue;
                const std::uint32_t n = ++ways[word % banks];
                most = n > most ? n : most;
            }
        total += most;
    }
    return total;
}
// Wavefronts of a warp's store of the A slice: lane i writes element (row i / block_k, column
// i % block_k) of A (consecutive lanes read consecutive k of a row of A, coalesced) to float
// column * pitch + row of the transposed slice.
GPU_TOPOLOGY_HD constexpr std::uint32_t a_store_wavefronts(std::uint32_t pitch, std::uint32_t block_k,
                                                           std::uint32_t banks, std::uint32_t bank_bytes,
                                                           std::uint32_t warp_size) {
    if (block_k == 0) return 1;
    return wavefronts(sizeof(float), banks, bank_bytes, warp_size, [&](std::uint32_t lane) {
        return (std::uint64_t(lane % block_k) * pitch + lane / block_k) * sizeof(float);
    });
}
}  // namespace detail

// The padding of the A slice's rows: the fewest floats, a multiple of 4 (the kernel reads the slice
// as float4), that make its stores conflict the least on these banks. 4 for 8-deep slices on 32
// banks of 4 bytes (conflict-free, against 8 ways unpadded).
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_pad_a(std::uint32_t block_m, std::uint32_t block_k, std::uint32_t banks,
                                                    std::uint32_t bank_bytes, std::uint32_t warp_size = 32) {
    std::uint32_t best = 0, fewest = detail::a_store_wavefronts(block_m, block_k, banks, bank_bytes, warp_size);
    const std::uint32_t span = banks * (bank_bytes == 0 ? 1 : bank_bytes) / std::uint32_t(sizeof(float));
    for (std::uint32_t pad = 4; pad < span && fewest > 1; pad += 4) {
        const std::uint32_t ways = detail::a_store_wavefronts(block_m + pad, block_k, banks, bank_bytes, warp_size);
        if (ways < fewest) best = pad, fewest = ways;
    }
    return best;
}

struct sgemm_space {
    sgemm_tile tiles[kSgemmSpaceCapacity];
    std::uint32_t count;
};

// Registers a thread of the kernel wants: its accumulators, its operands, the slice elements it stages
// (the compiler issues a step's global loads before their shared stores, each into its own register)
// and kSgemmRegistersBeyondTile; and the launch bounds' budget (255 at most). With 64 Ki registers an
// SM the budget is 128: compiled for sm_90 (nvcc -Xptxas -v), every tile wanting more spills
// (8x8 thread tiles staging 24 or more elements: 56 to 412 bytes), and none wanting at most 128 does
// (128x128x16 8x8, 128 wanted, takes 128 without a spill).
inline constexpr std::uint32_t kSgemmRegistersBeyondTile = 32;
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_staged_per_thread(const sgemm_tile& t) {
    return t.threads() == 0 ? 0 : t.block_k * (t.block_m + t.block_n) / t.threads();
}
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_registers_wanted(const sgemm_tile& t) {
    return t.thread_m * t.thread_n + t.thread_m + t.thread_n + sgemm_staged_per_thread(t) + kSgemmRegistersBeyondTile;
}
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_register_budget(const sgemm_tile& t, std::uint32_t registers_per_sm) {
    const std::uint32_t threads = t.threads() * sgemm_min_blocks(t);
    const std::uint32_t budget = threads == 0 ? 255 : registers_per_sm / threads / 8 * 8;
    return budget < 255 ? budget : 255;
}
// Whether the kernel of these tiles spills registers to local memory under its launch bounds: such a
// kernel runs at 0.2-0.8 of its unspilled rate, and never fastest, so the space leaves it out.
GPU_TOPOLOGY_HD constexpr bool sgemm_spills(const sgemm_tile& t, std::uint32_t registers_per_sm) {
    return sgemm_registers_wanted(t) > sgemm_register_budget(t, registers_per_sm);
}

// Every configuration's tiles, on these banks and SMs of `registers_per_sm` registers: each shape and
// depth unpadded, then padded where that changes the layout; none that spills.
GPU_TOPOLOGY_HD constexpr sgemm_space sgemm_space_on(std::uint32_t banks, std::uint32_t bank_bytes,
                                                     std::uint32_t registers_per_sm) {
    sgemm_space space{};
    for (const sgemm_block_shape& s : kSgemmBlockShapes)
        for (const std::uint32_t k : kSgemmBlockK) {
            const sgemm_tile unpadded{s.block_m, s.block_n, k, s.thread_m, s.thread_n, 0};
            if (sgemm_spills(unpadded, registers_per_sm)) continue;
            space.tiles[space.count++] = unpadded;
            const std::uint32_t pad = sgemm_pad_a(s.block_m, k, banks, bank_bytes);
            if (pad != 0) space.tiles[space.count++] = {s.block_m, s.block_n, k, s.thread_m, s.thread_n, pad};
        }
    return space;
}

// ---- The model ---------------------------------------------------------------------
// Per k-step a block loads its A and B slices (L2 serves them: every row and column of blocks reads
// the same panels), waits at a barrier, then each warp issues its fused multiply-adds and the
// shared-memory loads of its operands. An SM runs its resident blocks' steps side by side: a step
// takes what the SM's busiest resource (instruction issue, FMA pipes, shared memory, its share of L2)
// needs for all of them, and one block's own chain (the L2 load's latency and its barrier, then its
// instructions on the schedulers it has warps for), the two added (an empirical fit, below). The
// busiest SM runs its blocks in rounds of the resident ones; DRAM moves A, B and C at least once (B
// again for each row of blocks where it does not fit L2), and C's stores take the L2 after that. The
// constants are the architecture's and the profile's facts, these counts and three fitted ones (a share,
// the elements a capped trip brings and a run's cost):
//  - Cycles a barrier costs a block, twice a k-step.
inline constexpr std::uint32_t kSgemmBarrierCycles = 24;
//  - Instructions a warp issues per k-step besides its FMAs and operand loads: each slice element it
//    brings costs a global load, a shared store and its bounds test; and the loop.
inline constexpr std::uint32_t kSgemmInstructionsPerElement = 3;
inline constexpr std::uint32_t kSgemmInstructionsPerStep = 8;
//  - Fitted: the share of the L2's read bandwidth that partial-sector stores of C get.
//    Fitted on an H100's searches (bench/gemm_fit.py, with the model of then, a step's larger and no
//    capped trips): where k is small (23 to 147) C's stores take most of the time, at 65-82 G
//    sectors/s, 0.25-0.30 of its 8.6 TB/s; pick and list held for 0.2 to 0.5 on both sets of
//    products. With the model now, on the 86 products below, 0.2 to 0.5 pick alike (0.15 one more,
//    0.7 two fewer).
inline constexpr double kSgemmStoreShare = 0.3;
//  - Fitted: the slice elements a thread loads per L2 round trip in a step of a kernel that has every
//    register its launch bounds allow (the compiler then cannot keep all of a step's slice loads in
//    flight together, we suppose): such a kernel takes one trip per this many of the elements it
//    stages (sgemm_staged_per_thread), at least one. The picks that missed most on an H200's searches
//    were such kernels where each SM had few blocks to run (32x32x32 at 128 registers, 32 elements a
//    thread, on a product 21 rows high; 64x64x8 8x8 at 128, 16 elements, on one of 929 rows); where
//    SMs run many blocks they do well. Only registers the program knows (sgemm_known_registers) show a
//    kernel at its budget: the estimate (sgemm_registers) falls short of the compiler's count for the
//    deeper slices. Fitted with kSgemmL2BytesPerRun on six searches of 86 products (bench/gemm_fit.py
//    --grid): three on H200s, 32 products, and three on H100s, 54: 16 random draws and 6 products of
//    few rows or columns that the model of then missed, then bench/shared_tiling_check.sh's draws of
//    seeds 20261442 and 20261462 (tests/data/<card>_gemm_searches.csv, which also hold two searches
//    drawn after this fit). 2 to 6 pick alike, and from 5 one more list holds the best. The form
//    before, 3 trips for every capped kernel, ranked 32x32x32 (32 elements a thread) above 32x32x16
//    (117 registers) where a product is narrow; a fixed 6 trips picks as well as this (82 of 86 at
//    224 bytes a run) but leaves 64x64x8 8x8 (16 elements), the fastest on some square products, out
//    of the list (84 lists at 0.97 against 85).
inline constexpr double kSgemmCappedElementsPerTrip = 5;
//  - Fitted: each run of consecutive addresses a step's slices load (a row of A's slice, block_k
//    floats; a row of B's, block_n) costs the L2 as much as this many more bytes, as in the stencil
//    model (kStencilL2BytesPerRun): at a k-tile of 8 a 128x64 block tile loads 136 runs a step where
//    64x128 loads 72, for the same bytes, and 64x128 ran up to 1.14 times as fast on every large
//    square product where the model, blind to runs, ranked them alike; and shallow slices of narrow
//    tiles load many runs for their bytes where a product has few rows or columns and a long k.
//    On the 86 products above, with kSgemmCappedElementsPerTrip: the pick at 0.90 of the best or
//    better on 82 at 224 bytes a run, 81 at 256 and 320, 77 at 192 (the value before, with the
//    capped trips of then 73; at 192 no search picks worse than before, at 224 one picks one fewer);
//    the short list at 0.97 or better on 85 either way. 224: the most picks, where products of few
//    rows or columns need more than 192 (40x5807x1155: 32x32x16 at 0.79 where 64x64x32 at carveout
//    25 is best).
inline constexpr double kSgemmL2BytesPerRun = 224;
//  - The L2's sector: the unit a store transaction moves.
inline constexpr std::uint32_t kSgemmSectorBytes = 32;

// Sectors a warp's store of C touches, per float stored: the lanes of one row of threads (C's rows lie
// apart) store a float each, thread_n floats apart.
GPU_TOPOLOGY_HD constexpr double sgemm_store_sectors_per_element(const sgemm_tile& t, std::uint32_t warp_size) {
    const std::uint32_t across = t.thread_n == 0 ? 0 : t.block_n / t.thread_n;
    const std::uint32_t lanes = across < warp_size ? across : warp_size;
    if (lanes == 0) return 1.0;
    const std::uint32_t stride = t.thread_n * std::uint32_t(sizeof(float));
    return double((lanes - 1) * stride / kSgemmSectorBytes + 1) / lanes;
}

// What the model estimates of a configuration.
struct sgemm_estimate {
    std::uint32_t registers;        // a thread's, estimated unless given (at most the launch bounds' budget)
    std::uint32_t resident_blocks;  // per SM: the option's, and what registers allow
    std::uint64_t blocks;           // tiles of C
    double seconds;                 // the whole product
};

// Registers a thread of the kernel takes, estimated: what it wants, within the launch bounds' budget.
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_registers(const sgemm_tile& t, const gemm_machine& m) {
    const std::uint32_t want = sgemm_registers_wanted(t), cap = sgemm_register_budget(t, m.registers_per_sm);
    return want < cap ? want : cap;
}

namespace detail {
GPU_TOPOLOGY_HD constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
GPU_TOPOLOGY_HD constexpr double larger(double a, double b) { return a > b ? a : b; }
}  // namespace detail

// Blocks of these tiles an SM holds at an option: the option's (shared memory, threads, the block
// limit) and what the registers allow (`registers` a thread's, 0: sgemm_registers()).
GPU_TOPOLOGY_HD constexpr std::uint32_t sgemm_resident_blocks(const sgemm_tile& t, const carveout_option& o,
                                                             const gemm_machine& m, std::uint32_t registers = 0) {
    const std::uint32_t threads = t.threads();
    if (threads == 0 || m.warp_size == 0) return 0;
    const std::uint64_t warps = (threads + m.warp_size - 1) / m.warp_size;
    const std::uint64_t unit = m.register_unit == 0 ? 1 : m.register_unit;
    const std::uint64_t per_warp =
        detail::ceil_div(std::uint64_t(registers != 0 ? registers : sgemm_registers(t, m)) * m.warp_size, unit) * unit;
    const std::uint64_t by_registers = per_warp == 0 ? o.resident_blocks : m.registers_per_sm / (per_warp * warps);
    return std::uint32_t(by_registers < o.resident_blocks ? by_registers : o.resident_blocks);
}

// The model's estimate of one configuration on an m x n x k product (beta != 0: C is read too);
// `registers` a thread's registers if known (0: sgemm_registers()).
GPU_TOPOLOGY_HD constexpr sgemm_estimate sgemm_estimate_of(const sgemm_config& c, const gemm_extent& e, bool reads_c,
                                                          const gemm_machine& m, std::uint32_t registers = 0) {
    const sgemm_tile& t = c.tile;
    sgemm_estimate out{registers != 0 ? registers : sgemm_registers(t, m), 0, 0, 0};
    const std::uint32_t threads = t.threads();
    if (threads == 0 || m.sm_count == 0 || m.warp_size == 0 || !(m.sm_clock_hz > 0)) return out;
    const std::uint32_t warps = (threads + m.warp_size - 1) / m.warp_size;
    out.resident_blocks = sgemm_resident_blocks(t, c.option, m, out.registers);
    out.blocks = detail::ceil_div(e.m, t.block_m) * detail::ceil_div(e.n, t.block_n);
    if (out.resident_blocks == 0 || out.blocks == 0) {
        out.seconds = 1e30;  // it does not launch
        return out;
    }
    const double clock = m.sm_clock_hz;
    const double steps = double(detail::ceil_div(e.k, t.block_k));
    // One k-step of one block: its warps' instructions, FMA-pipe cycles, shared-memory wavefronts, L2 bytes.
    const double fma_per_warp = double(t.block_k) * t.thread_m * t.thread_n;
    const double loads_per_warp = double(t.block_k) * double((t.thread_m + 3) / 4 + (t.thread_n + 3) / 4);
    const double elements = double(t.block_k) * (t.block_m + t.block_n);
    const double other_per_warp = kSgemmInstructionsPerElement * elements / threads + kSgemmInstructionsPerStep;
    const double instructions = warps * (fma_per_warp + loads_per_warp + other_per_warp);
    const double fma_cycles = m.fma_per_sm_clock == 0 ? 0.0 : double(t.block_m) * t.block_n * t.block_k / m.fma_per_sm_clock;
    // Shared memory: a warp's operand loads, float4 at a time (lane i is thread (i / across, i % across)
    // of the block, across = block_n / thread_n threads along n: lanes of one row of threads read the
    // same A words); the slices' stores, one float a lane.
    const std::uint32_t across = t.block_n / t.thread_n;
    const auto a_load = [&](std::uint32_t lane) { return std::uint64_t(lane / across) * t.thread_m * sizeof(float); };
    const auto b_load = [&](std::uint32_t lane) { return std::uint64_t(lane % across) * t.thread_n * sizeof(float); };
    const auto b_store = [&](std::uint32_t lane) { return std::uint64_t(lane) * sizeof(float); };
    const double loads_wavefronts =
        double((t.thread_m + 3) / 4) * detail::wavefronts(16, m.banks, m.bank_bytes, m.warp_size, a_load) +
        double((t.thread_n + 3) / 4) * detail::wavefronts(16, m.banks, m.bank_bytes, m.warp_size, b_load);
    // A warp's stores a step: each thread stores block_k block_m / threads floats of A, as many of B.
    const double stores_wavefronts =
        double(t.block_k) * t.block_m / threads *
            detail::a_store_wavefronts(t.pitch_a(), t.block_k, m.banks, m.bank_bytes, m.warp_size) +
        double(t.block_k) * t.block_n / threads * detail::wavefronts(sizeof(float), m.banks, m.bank_bytes, m.warp_size, b_store);
    const double shared_cycles = warps * (t.block_k * loads_wavefronts + stores_wavefronts);
    const double wavefront = double(m.banks) * m.bank_bytes;
    const double shared_per_cycle = m.shared_bandwidth / (double(m.sm_count) * clock);  // bytes per SM per clock
    const double shared_scale = shared_per_cycle > 0 ? wavefront / shared_per_cycle : 1.0;
    // A's slice is block_m runs of block_k floats, B's block_k runs of block_n (kSgemmL2BytesPerRun).
    const double l2_bytes = elements * sizeof(float) + double(t.block_m + t.block_k) * kSgemmL2BytesPerRun;
    const double l2_seconds = m.l2_bandwidth == 0 ? 0.0 : l2_bytes / (double(m.l2_bandwidth) / m.sm_count);
    const double issue = m.issue_per_sm_clock == 0 ? 1.0 : double(m.issue_per_sm_clock);
    const double own_issue = double(warps) < issue ? double(warps) : issue;
    const bool capped = out.registers >= sgemm_register_budget(t, m.registers_per_sm);
    const double trips = capped ? detail::larger(1.0, sgemm_staged_per_thread(t) / kSgemmCappedElementsPerTrip) : 1.0;
    const double chain = trips * m.l2_latency_cycles + 2.0 * kSgemmBarrierCycles +
                         detail::larger(instructions / own_issue, fma_cycles);
    const double block_busy = detail::larger(detail::larger(instructions / issue, fma_cycles),
                                             detail::larger(shared_cycles * shared_scale, l2_seconds * clock));
    const double c_bytes = double(t.block_m) * t.block_n * sizeof(float) * (reads_c ? 2 : 1);
    // A round of r blocks side by side on an SM: each step the SM is busy with r blocks' work and
    // waits on one block's own chain, the two added. An empirical fit: the kernel stages its slices
    // without double buffering, so a block's wait is not hidden by its own work, though other blocks
    // would hide some of it; the searches fit the sum better than the larger of the two (an H200's 16
    // products, bench/gemm_fit.py --grid: 15 picks at 0.90 or better against 12, worst 0.82 against
    // 0.65). Then each block reads (beta != 0) and writes its tile of C.
    const auto round_seconds = [&](double r) {
        const double epilogue = m.l2_bandwidth == 0 ? 0.0 : r * c_bytes / (double(m.l2_bandwidth) / m.sm_count);
        return steps * (r * block_busy + chain) / clock + epilogue;
    };
    // The busiest SM's blocks: full rounds of the resident blocks, then the rest side by side, with
    // the SM's resources shared among fewer (a product of 4 blocks an SM, 3 resident, takes one full
    // round and one of a single block, not two full ones).
    const std::uint64_t per_sm = detail::ceil_div(out.blocks, m.sm_count);
    const std::uint64_t full_rounds = per_sm / out.resident_blocks, rest = per_sm % out.resident_blocks;
    const double sm_seconds = double(full_rounds) * round_seconds(out.resident_blocks) + (rest == 0 ? 0.0 : round_seconds(double(rest)));
    // C's stores (and loads, beta != 0) as the L2 takes them, after the blocks' own share above: each
    // store instruction of a warp is one transaction per 32-byte sector it touches, a lane's thread_n
    // consecutive floats apart from its neighbour's, at kSgemmStoreShare of the L2 read bandwidth.
    const double store_seconds =
        m.l2_bandwidth == 0
            ? 0.0
            : double(e.m) * e.n * (reads_c ? 2 : 1) * sgemm_store_sectors_per_element(t, m.warp_size) * kSgemmSectorBytes /
                  (kSgemmStoreShare * double(m.l2_bandwidth));
    // DRAM: A, C once; B once if it fits half of L2, else once per row of blocks.
    const double b_bytes_total = double(e.k) * e.n * sizeof(float);
    const double b_reads = b_bytes_total <= 0.5 * double(m.l2_bytes) ? 1.0 : double(detail::ceil_div(e.m, t.block_m));
    const double dram_bytes = (double(e.m) * e.k + double(e.m) * e.n * (reads_c ? 2 : 1)) * sizeof(float) +
                              b_reads * b_bytes_total;
    const double dram_seconds = m.dram_bandwidth == 0 ? 0.0 : dram_bytes / double(m.dram_bandwidth);
    out.seconds = detail::larger(sm_seconds, dram_seconds) + store_seconds;
    return out;
}

// The options a configuration's tiles may launch with, and the one the model takes: the most
// resident blocks (with what registers allow); alike, the most L1, then the driver's default, then
// the smaller carveout. SGEMM reads each element of its slices from global memory once per block,
// so L1 serves it little: the carveout is about the blocks it holds.
GPU_TOPOLOGY_HD constexpr carveout_options sgemm_options(const sgemm_tile& t, const gemm_machine& m) {
    return carveout_options_from(m.rows, m.row_count, t.threads(), t.shared_bytes(), m.limits);
}
GPU_TOPOLOGY_HD constexpr carveout_option sgemm_option(const sgemm_tile& t, const gemm_machine& m,
                                                       std::uint32_t registers = 0) {
    const carveout_options options = sgemm_options(t, m);
    carveout_option best{-1, 0, 0, false};
    std::uint32_t best_blocks = 0;
    for (std::uint32_t i = 0; i < options.count; ++i) {
        const carveout_option& o = options.options[i];
        const std::uint32_t blocks = sgemm_resident_blocks(t, o, m, registers);
        const bool ahead = i == 0 || blocks > best_blocks ||
                           (blocks == best_blocks &&
                            (o.l1_bytes > best.l1_bytes ||
                             (o.l1_bytes == best.l1_bytes && (o.left_to_driver() ||
                                                              (!best.left_to_driver() && o.carveout_percent < best.carveout_percent)))));
        if (ahead) best = o, best_blocks = blocks;
    }
    return best;
}

// A kernel's registers per configuration: estimated (sgemm_registers), or as the program knows them
// (cudaFuncGetAttributes), tile by tile.
struct sgemm_estimated_registers {
    GPU_TOPOLOGY_HD constexpr std::uint32_t operator()(const sgemm_tile&) const { return 0; }
};
struct sgemm_known_registers {
    const sgemm_tile* tiles;
    const std::uint32_t* registers;
    std::size_t count;
    GPU_TOPOLOGY_HD constexpr std::uint32_t operator()(const sgemm_tile& t) const {
        for (std::size_t i = 0; i < count; ++i)
            if (tiles[i] == t) return registers[i];
        return 0;  // not known: estimated
    }
};

namespace detail {
GPU_TOPOLOGY_HD constexpr bool same_tile_but_padding(const sgemm_tile& a, const sgemm_tile& b) {
    return a.block_m == b.block_m && a.block_n == b.block_n && a.block_k == b.block_k && a.thread_m == b.thread_m &&
           a.thread_n == b.thread_n;
}
// Whether the model ranks tiles a ahead of b: faster, or as fast and padded more (a padding that the
// model finds no faster still removes conflicts it may not count); otherwise the space's order.
GPU_TOPOLOGY_HD constexpr bool sgemm_ahead(const sgemm_tile& a, double a_seconds, const sgemm_tile& b, double b_seconds) {
    return a_seconds < b_seconds || (a_seconds == b_seconds && same_tile_but_padding(a, b) && a.pad_a > b.pad_a);
}
}  // namespace detail

// The configuration of `space` the model takes for an m x n x k product, with its carveout.
template <typename Registers = sgemm_estimated_registers>
GPU_TOPOLOGY_HD constexpr sgemm_config choose_sgemm(const gemm_extent& e, bool reads_c, const sgemm_space& space,
                                                    const gemm_machine& m, Registers registers = {}) {
    sgemm_config best{};
    double best_seconds = 0;
    for (std::uint32_t i = 0; i < space.count; ++i) {
        const sgemm_tile& t = space.tiles[i];
        const sgemm_config c{t, sgemm_option(t, m, registers(t))};
        const double s = sgemm_estimate_of(c, e, reads_c, m, registers(t)).seconds;
        if (i == 0 || detail::sgemm_ahead(t, s, best.tile, best_seconds)) best = c, best_seconds = s;
    }
    return best;
}

// ---- A short list to time ------------------------------------------------------------
// The model ranks configurations apart from what they run at: on an H100's searches of 24 products
// (bench/gemm_fit.py, the model of then) its pick ran at 0.68-0.97 of the best; on products drawn
// after the last change, 0.82-1.00 (docs/records/shared-tiling.md). A program that can afford a few
// timed launches times this list on its own matrices and keeps the fastest: the model's best
// kSgemmShortlistLength configurations, one of each block tile and depth (its paddings differ only in
// the A slice's layout, whose conflicts the model counts: the list takes the one it ranks first, the
// padded one where they tie), the chooser's pick first. The space without spilling tiles holds 11 block
// tiles and depths: the list leaves out the 3 the model ranks last, and on those searches the best
// configuration was never among them (the list's best at 0.97 of it or better on every product).
inline constexpr std::uint32_t kSgemmShortlistLength = 8;

struct sgemm_shortlist {
    static constexpr std::uint32_t capacity = kSgemmShortlistLength;
    sgemm_config configs[capacity];  // the chooser's pick first
    std::uint32_t count;
};

template <typename Registers = sgemm_estimated_registers>
GPU_TOPOLOGY_HD constexpr sgemm_shortlist sgemm_tuning_list(const gemm_extent& e, bool reads_c, const sgemm_space& space,
                                                           const gemm_machine& m, Registers registers = {}) {
    sgemm_shortlist list{};
    const auto seconds_of = [&](const sgemm_tile& t) {
        return sgemm_estimate_of({t, sgemm_option(t, m, registers(t))}, e, reads_c, m, registers(t)).seconds;
    };
    while (list.count < sgemm_shortlist::capacity) {
        // The best configuration whose block tile and depth are not listed yet.
        bool found = false;
        sgemm_tile next{};
        double next_seconds = 0;
        for (std::uint32_t i = 0; i < space.count; ++i) {
            const sgemm_tile& t = space.tiles[i];
            bool listed = false;
            for (std::uint32_t j = 0; j < list.count; ++j) listed = listed || detail::same_tile_but_padding(list.configs[j].tile, t);
            if (listed) continue;
            const double sec = seconds_of(t);
            if (!found || detail::sgemm_ahead(t, sec, next, next_seconds)) next = t, next_seconds = sec, found = true;
        }
        if (!found) break;
        list.configs[list.count++] = {next, sgemm_option(next, m, registers(next))};
    }
    return list;
}

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_GEMM_MODEL_HPP
