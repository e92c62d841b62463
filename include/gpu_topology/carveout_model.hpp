// gpu_topology/carveout_model.hpp: the launches open to a kernel that declares shared memory
// of its own. Each is a carveout the kernel asks for and what every SM then holds: resident
// blocks and L1. They come from the per-launch rows a profile measured (l1_at_launch:
// gpu_topology::l1_launches) and the SM's limits. It reads no facts: every entry point takes
// the rows and limits, so it lives in plain namespace gpu_topology;
// gpu_topology/carveout.hpp passes those of a generated gpu_topology.hpp. C++17, host and
// device code.
#ifndef GPU_TOPOLOGY_CARVEOUT_MODEL_HPP
#define GPU_TOPOLOGY_CARVEOUT_MODEL_HPP

#include <gpu_topology/types.hpp>

#include <cstddef>
#include <cstdint>

namespace gpu_topology {

// What the occupancy arithmetic needs of an SM (the facts sm.*, shared.*, l1.size_bytes_max_shared_carveout).
struct sm_shared_limits {
    std::uint32_t max_threads;         // threads per SM
    std::uint32_t max_blocks;          // resident blocks per SM
    std::uint64_t shared_bytes;        // the most shared memory an SM holds (the max-shared split)
    std::uint32_t reserved_per_block;  // shared memory the driver keeps for each resident block
    std::uint64_t least_l1_bytes;      // the L1 of the max-shared split: the least any launch gets
    std::uint32_t allocation_unit = 0;  // a block's shared memory and reservation are rounded up to this (0: not)
};

// The unit the occupancy calculator rounds a block's shared memory and reservation up to, by compute
// capability (cuda_occupancy.h, cudaOccSMemAllocationGranularity: 256 bytes up to 7.x, 128 from 8.0).
// Without it a kernel of 39100 B in 256-thread blocks on Hopper counts 5 blocks in carveout 75's 196 KiB
// split (5 x 40124 B) where the API gives 4 (5 x 40192 B is more).
GPU_TOPOLOGY_HD constexpr std::uint32_t shared_allocation_unit(std::uint32_t cc_major) {
    return cc_major >= 8 ? 128 : 256;
}

// One launch: the carveout asked for, and what each SM then holds for blocks of the kernel's size
// and shared memory.
struct carveout_option {
    int carveout_percent;           // cudaLaunchAttributePreferredSharedMemoryCarveout; -1: left to the driver
    std::uint32_t resident_blocks;  // blocks per SM as shared memory, threads and the block limit allow (not registers)
    std::uint64_t l1_bytes;         // L1 per SM
    bool measured;                  // a row of exactly this block size and shared size; otherwise lower bounds (below)
    GPU_TOPOLOGY_HD constexpr bool left_to_driver() const { return carveout_percent < 0; }
    // The same split of the SM: the same blocks and the same L1.
    GPU_TOPOLOGY_HD constexpr bool same_split(const carveout_option& o) const {
        return resident_blocks == o.resident_blocks && l1_bytes == o.l1_bytes;
    }
};

// The distinct splits open to a kernel: the driver's default first, then the carveouts in
// increasing order. Carveouts that give the same split are one option (the driver's, else the
// smallest carveout).
struct carveout_options {
    static constexpr std::uint32_t capacity = 16;
    carveout_option options[capacity];
    std::uint32_t count;
    // The driver's default (every list built here has it, unless the kernel cannot launch at all).
    GPU_TOPOLOGY_HD constexpr const carveout_option* left_to_driver() const {
        for (std::uint32_t i = 0; i < count; ++i)
            if (options[i].left_to_driver()) return &options[i];
        return nullptr;
    }
    // The option of carveout_percent (-1: the driver's), or the option that has its split; nullptr if none.
    GPU_TOPOLOGY_HD constexpr const carveout_option* find(int carveout_percent) const {
        for (std::uint32_t i = 0; i < count; ++i)
            if (options[i].carveout_percent == carveout_percent) return &options[i];
        return nullptr;
    }
};

namespace detail {
GPU_TOPOLOGY_HD constexpr std::uint32_t smaller(std::uint64_t a, std::uint64_t b) {
    return static_cast<std::uint32_t>(a < b ? a : b);
}
// What one block of a kernel declaring `shared_bytes` takes of its SM's shared memory.
GPU_TOPOLOGY_HD constexpr std::uint64_t shared_per_block(std::uint64_t shared_bytes, const sm_shared_limits& limits) {
    const std::uint64_t bytes = shared_bytes + limits.reserved_per_block, unit = limits.allocation_unit;
    return unit == 0 ? bytes : (bytes + unit - 1) / unit * unit;
}
// Blocks the SM's threads, block limit and shared memory leave room for: what the driver's
// default split holds (it makes room for the most blocks: every measured default row agrees).
GPU_TOPOLOGY_HD constexpr std::uint32_t most_resident_blocks(std::uint32_t threads, std::uint32_t shared_bytes,
                                                            const sm_shared_limits& limits) {
    if (threads == 0 || threads > limits.max_threads) return 0;
    const std::uint64_t per_block = shared_per_block(shared_bytes, limits);
    const std::uint64_t by_shared = per_block == 0 ? limits.max_blocks : limits.shared_bytes / per_block;
    return smaller(smaller(limits.max_threads / threads, limits.max_blocks), by_shared);
}

// The shared-memory splits an SM offers are whole multiples of this on every architecture from Volta
// on (the CUDA Programming Guide's tables, cuda_occupancy.h's cudaOccAlignUpShmemSizeVoltaPlus): 0, 8,
// 16, 32, 64 and 96 KB on 7.0; 32 and 64 on 7.5; 0, 8, 16, 32, 64, 100, 132 and 164 on 8.0 and 8.7;
// 0, 8, 16, 32, 64 and 100 on 8.6, 8.9 and 12.x; those of 8.0 and 196 and 228 on 9.0 and 10.x.
inline constexpr std::uint64_t kSharedSplitStepBytes = 4096;

// Blocks of `shared_bytes` each that the split of `of`'s carveout holds, by what is known of that
// split: a lower bound. The split is at least the carveout's share of the SM's shared memory, in whole
// kSharedSplitStepBytes (for kernels above the block limit's share a carveout's split is its share
// rounded up to a size the architecture offers: carveout_options_from); on an H100 at carveout 100,
// 4 blocks of 56000 B where the 96 KiB rows and the pin below said 3 (the occupancy API and
// bench/resident_blocks.cu: 4). And the rows may pin it. A split grows with the shared memory a
// kernel declares (the carveout's size, or the least size that holds one block), so two kernels that got the same L1 at a carveout got the
// same split, and every kernel declaring between them gets it too: a row of a smaller kernel with
// `of`'s L1 pins it. The split holds what each such row's blocks take (shared_per_block), and it is a
// whole number of kSharedSplitStepBytes: the least such size is taken, so the blocks are a lower bound
// (exact where no larger size fits the rows either; a split that one more block of a row would fill,
// where shared memory and not threads or the block limit stopped it, marks rows that contradict the
// step, and then what they hold is taken). On an H200 at carveout 75: 2 blocks of 96 KiB and their 1
// KiB reservations take 194 KiB, so the split is 196 KiB (6 blocks of 32 KiB would need 198), and it
// holds 4 blocks of 48 KiB where the 96 KiB rows alone said 2. The rows' L1 is measured under the
// driver's split and their blocks are the occupancy API's: for kernels of dynamic shared memory at a
// carveout the two agree on every row the probe measured (rule_from keeps the kernels of a few bytes,
// where the driver's split follows the block size, out).
GPU_TOPOLOGY_HD constexpr std::uint32_t blocks_in_known_split(const l1_at_launch* rows, std::size_t row_count,
                                                               const l1_at_launch& of, std::uint32_t shared_bytes,
                                                               const sm_shared_limits& limits, std::uint64_t rule_from) {
    std::uint64_t held = 0, short_of = limits.shared_bytes + 1;
    bool smaller_kernel = false;
    for (std::size_t i = 0; i != row_count; ++i) {
        const l1_at_launch& row = rows[i];
        const std::uint64_t per_block = shared_per_block(row.shared_bytes_per_block, limits);
        if (row.carveout_percent != of.carveout_percent || row.size_bytes != of.size_bytes || per_block <= rule_from ||
            row.threads_per_block == 0)
            continue;
        smaller_kernel = smaller_kernel || row.shared_bytes_per_block < shared_bytes;
        const std::uint64_t blocks = row.resident_blocks;
        if (blocks * per_block > held) held = blocks * per_block;
        const std::uint32_t room = smaller(limits.max_threads / row.threads_per_block, limits.max_blocks);
        if (blocks < room && (blocks + 1) * per_block < short_of) short_of = (blocks + 1) * per_block;
    }
    const std::uint64_t each = shared_per_block(shared_bytes, limits);
    if (each == 0) return 0;
    const auto whole_steps = [](std::uint64_t bytes) {
        return (bytes + kSharedSplitStepBytes - 1) / kSharedSplitStepBytes * kSharedSplitStepBytes;
    };
    const std::uint64_t share = of.carveout_percent > 0 ? std::uint64_t(of.carveout_percent) * limits.shared_bytes / 100 : 0;
    std::uint64_t split = whole_steps(share) < limits.shared_bytes ? whole_steps(share) : limits.shared_bytes;
    if (smaller_kernel) {
        const std::uint64_t least = whole_steps(held);
        const std::uint64_t pinned = least < short_of ? least : held;  // rows that leave no whole size: what they hold
        if (pinned > split) split = pinned;
    }
    return smaller(split / each, limits.max_blocks);
}
}  // namespace detail

// The options of a kernel declaring `shared_bytes` of shared memory per block (static and dynamic
// together) with blocks of `threads` threads, from the measured rows `rows[0..count)`:
//  - Rows of exactly this shared size and block size answer as measured.
//  - Another block size: the rows of the largest measured block size below it, with the blocks
//    the threads allow (exact: a carveout's split did not follow the block size in any measured
//    row of a kernel with shared memory, and the blocks that shared memory allows do not depend
//    on the threads); failing that, the smallest above it (its blocks are then a lower bound).
//  - A shared size between two measured ones, above `limits.shared_bytes / limits.max_blocks -
//    limits.reserved_per_block` (6 KiB on Hopper): the rows of the next measured size above it, whose
//    blocks and L1 are lower bounds. Above that size a carveout's split is the carveout rounded up
//    to a size the architecture supports and at least the block's shared memory and reservation
//    (the measured 8, 32 and 96 KiB rows all follow it), so a smaller declaration can only get
//    more, and at least the blocks the carveout's share holds; where a smaller measured size got the
//    same L1 at that carveout, the split is pinned, and the blocks are those it holds
//    (detail::blocks_in_known_split). Below that size, where
//    the block limit rather than the shared memory bounds the blocks, the split follows no such
//    rule (256 B got less L1 than 8 KiB at some carveouts:
//    docs/l1-effective-capacity.md) and no other size's rows answer.
//  - The driver's default, where no row of exactly this kernel measured it: the most blocks the
//    SM's limits allow (every measured default row holds exactly that many), with the most L1 of
//    the carveouts that hold as many (a lower bound: the driver takes the smallest split that
//    holds them), or the max-shared split's L1.
//  - No rows answer: the driver's default alone, as above with the least L1.
// A kernel whose one block does not fit an SM gets no option (count 0).
GPU_TOPOLOGY_HD constexpr carveout_options carveout_options_from(const l1_at_launch* rows, std::size_t row_count,
                                                                std::uint32_t threads, std::uint32_t shared_bytes,
                                                                const sm_shared_limits& limits) {
    carveout_options out{};
    const std::uint32_t most = detail::most_resident_blocks(threads, shared_bytes, limits);
    if (most == 0) return out;
    // The shared size whose rows answer.
    constexpr std::uint32_t none = 0xffffffffu;
    std::uint32_t size = none;
    const std::uint64_t rule_from = limits.max_blocks == 0 ? 0 : limits.shared_bytes / limits.max_blocks;
    const bool rule_holds = detail::shared_per_block(shared_bytes, limits) > rule_from;
    for (std::size_t i = 0; i != row_count; ++i) {  // not <: a count of 0 would warn (nvcc #186)
        const std::uint32_t s = rows[i].shared_bytes_per_block;
        if (s == shared_bytes) size = s;
        if (size != shared_bytes && s > shared_bytes && rule_holds && (size == none || s < size)) size = s;
    }
    // The block size whose rows answer: the largest measured one at most `threads`, else the smallest above.
    std::uint32_t below = 0, above = none;
    for (std::size_t i = 0; i != row_count; ++i) {
        if (rows[i].shared_bytes_per_block != size) continue;
        const std::uint32_t t = rows[i].threads_per_block;
        if (t <= threads && t > below) below = t;
        if (t > threads && t < above) above = t;
    }
    const std::uint32_t block_size = below != 0 ? below : above;
    const bool exact = size == shared_bytes && block_size == threads;
    const auto add = [&](const carveout_option& o) {
        for (std::uint32_t i = 0; i < out.count; ++i)
            if (out.options[i].same_split(o)) {
                // One option per split: the driver's, else the smallest carveout.
                carveout_option& kept = out.options[i];
                if (!kept.left_to_driver() && (o.left_to_driver() || o.carveout_percent < kept.carveout_percent))
                    kept = o;
                return;
            }
        if (out.count < carveout_options::capacity) out.options[out.count++] = o;
    };
    bool default_measured = false;
    if (size != none && block_size != none) {
        for (std::size_t i = 0; i != row_count; ++i) {
            const l1_at_launch& row = rows[i];
            if (row.shared_bytes_per_block != size || row.threads_per_block != block_size) continue;
            if (row.carveout_percent < 0 && !exact) continue;  // the driver's split of another kernel
            std::uint32_t blocks = below != 0 ? detail::smaller(row.resident_blocks, most) : row.resident_blocks;
            if (size != shared_bytes && row.carveout_percent >= 0) {
                const std::uint32_t pinned = detail::smaller(
                    detail::blocks_in_known_split(rows, row_count, row, shared_bytes, limits, rule_from), most);
                if (pinned > blocks) blocks = pinned;
            }
            add({row.carveout_percent < 0 ? -1 : row.carveout_percent, blocks, row.size_bytes, exact});
            default_measured = default_measured || row.carveout_percent < 0;
        }
    }
    if (!default_measured) {
        std::uint64_t most_l1 = 0;
        for (std::uint32_t i = 0; i < out.count; ++i)
            if (out.options[i].resident_blocks >= most && out.options[i].l1_bytes > most_l1) most_l1 = out.options[i].l1_bytes;
        add({-1, most, most_l1 != 0 ? most_l1 : limits.least_l1_bytes, false});
    }
    // The driver's default first, then the carveouts in increasing order.
    for (std::uint32_t i = 1; i < out.count; ++i)
        for (std::uint32_t j = i; j > 0; --j) {
            const carveout_option& a = out.options[j - 1];
            const carveout_option& b = out.options[j];
            const bool b_first = b.left_to_driver() || (!a.left_to_driver() && b.carveout_percent < a.carveout_percent);
            if (!b_first) break;
            const carveout_option t = out.options[j - 1];
            out.options[j - 1] = out.options[j];
            out.options[j] = t;
        }
    return out;
}

// Of two options, one that holds no more blocks and no more L1 than the other (and differs) is
// dominated: a kernel that reads through L1 has no reason to take it.
GPU_TOPOLOGY_HD constexpr bool dominated(const carveout_option& a, const carveout_option& b) {
    return a.resident_blocks <= b.resident_blocks && a.l1_bytes <= b.l1_bytes && !a.same_split(b);
}

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_CARVEOUT_MODEL_HPP
