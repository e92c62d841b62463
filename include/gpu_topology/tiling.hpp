// gpu_topology/tiling.hpp: tiling helpers that read no facts: they take a byte
// count, or a level (gpu_topology::l1, l2, shared, ... or any object with the
// same members), so they are the same for every GPU and live in plain
// namespace gpu_topology. C++17, host and device code.
#ifndef GPU_TOPOLOGY_TILING_HPP
#define GPU_TOPOLOGY_TILING_HPP

#include <gpu_topology/types.hpp>

#include <cstdint>

namespace gpu_topology {

// Elements of T that fit in `bytes`.
template <typename T>
GPU_TOPOLOGY_HD constexpr std::uint64_t elements_in(std::uint64_t bytes) {
    return bytes / sizeof(T);
}
// Elements of T that fit in a level (l1, l2, ...).
template <typename T, typename Level, typename = decltype(Level::size_bytes)>
GPU_TOPOLOGY_HD constexpr std::uint64_t elements_in(const Level& level) {
    return std::uint64_t{level.size_bytes} / sizeof(T);
}

// Largest r with r^degree <= n.
GPU_TOPOLOGY_HD constexpr std::uint64_t integer_root(std::uint64_t n, unsigned degree) {
    const std::uint64_t limit = degree == 2 ? 4294967296ull : 2097152ull;  // roots whose power fits 64 bits
    std::uint64_t lo = 0, hi = 1;
    const auto power = [degree](std::uint64_t base) {
        std::uint64_t p = 1;
        for (unsigned i = 0; i < degree; ++i) p *= base;
        return p;
    };
    while (hi < limit && power(hi) <= n) hi *= 2;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (power(mid) <= n ? lo : hi) = mid;
    }
    return lo;
}

// Largest e with e*e elements of T in `bytes` (a square tile).
template <typename T>
GPU_TOPOLOGY_HD constexpr std::uint64_t square_tile_edge(std::uint64_t bytes) {
    return integer_root(bytes / sizeof(T), 2);
}
// Largest e with e*e*e elements of T in `bytes` (a cubic tile).
template <typename T>
GPU_TOPOLOGY_HD constexpr std::uint64_t cubic_tile_edge(std::uint64_t bytes) {
    return integer_root(bytes / sizeof(T), 3);
}
// Rounds a byte count down to whole lines of a level.
template <typename Level>
GPU_TOPOLOGY_HD constexpr std::uint64_t whole_lines(std::uint64_t bytes, const Level& level) {
    const std::uint64_t line = level.line_bytes;
    return bytes / line * line;
}
// Layer condition: do `layers` layers of `layer_bytes` each stay resident in `level`?
template <typename Level>
GPU_TOPOLOGY_HD constexpr bool layers_fit(std::uint64_t layers, std::uint64_t layer_bytes, const Level& level) {
    return layers * layer_bytes <= std::uint64_t{level.size_bytes};
}
// Bytes that `count` elements of T take.
template <typename T>
GPU_TOPOLOGY_HD constexpr std::uint64_t bytes_of(std::uint64_t count) {
    return count * sizeof(T);
}
// Bank conflict ways when the 32 lanes of a warp read one column of a
// shared-memory tile whose rows are `pitch` elements of T apart (lane r reads
// row r): the most distinct bank words any one bank must deliver (lanes
// reading the same word share it).
template <typename T, typename Shared>
GPU_TOPOLOGY_HD constexpr std::uint32_t column_conflict_ways(std::uint32_t pitch, const Shared& s) {
    static_assert(sizeof(T) <= 64, "elements of at most 16 four-byte bank words");
    const std::uint64_t banks = s.banks, width = s.bank_bytes;
    std::uint64_t words[32 * 16] = {};  // every word the column touches (an element spans at most 16 words here)
    std::uint32_t count = 0, most = 0;
    for (std::uint64_t lane = 0; lane < 32; ++lane) {
        const std::uint64_t first = lane * pitch * sizeof(T) / width;
        const std::uint64_t last = (lane * pitch * sizeof(T) + sizeof(T) - 1) / width;
        for (std::uint64_t word = first; word <= last && count < 32 * 16; ++word) {
            bool seen = false;
            for (std::uint32_t i = 0; i < count; ++i) seen = seen || words[i] == word;
            if (seen) continue;
            words[count++] = word;
            std::uint32_t in_bank = 0;
            for (std::uint32_t i = 0; i < count; ++i) in_bank += words[i] % banks == word % banks;
            most = in_bank > most ? in_bank : most;
        }
    }
    return most;
}
// The row pitch (elements of T, at least `columns`) of a shared-memory tile
// whose columns a warp reads with the fewest conflict ways: e.g. 33 floats for
// a 32-float row on 32 banks of 4 bytes. Pass gpu_topology::shared; an
// unmeasured bank geometry does not compile.
template <typename T, typename Shared>
GPU_TOPOLOGY_HD constexpr std::uint32_t conflict_free_pitch(std::uint32_t columns, const Shared& s) {
    const std::uint32_t banks = s.banks;
    std::uint32_t best = columns, fewest = column_conflict_ways<T>(columns, s);
    for (std::uint32_t pitch = columns + 1; pitch <= columns + banks && fewest > 1; ++pitch) {
        const std::uint32_t ways = column_conflict_ways<T>(pitch, s);
        if (ways < fewest) best = pitch, fewest = ways;
    }
    return best;
}

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_TILING_HPP
