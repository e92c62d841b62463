#pragma once
// What every engine refuses of a ring, in the same words: the CUDA engine and
// the simulated one (probe/simulate/engine.cpp) link and chase rings alike.
#include "kernels/engine.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpu_topology::kernels {

// A ring of `elements` x `stride` bytes at `offset` inside the `capacity` bytes a path holds.
inline void check_ring_fits(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                            std::size_t capacity) {
    if (elements < 1 || stride < 8 || stride % 8 != 0)
        throw std::invalid_argument("ring needs >= 1 element and a stride that is a multiple of 8 bytes");
    if (offset % 8 != 0 || offset + std::size_t(elements) * stride > capacity)
        throw std::invalid_argument(std::string(to_string(path)) + " ring of " + std::to_string(elements) + " x " +
                                    std::to_string(stride) + " B at offset " + std::to_string(offset) +
                                    " exceeds the " + std::to_string(capacity) + " B this path can hold");
}

// A ring is chased through the path it was linked for (its pointers are that path's encoding).
inline void check_encoding(LoadPath path, const Ring& ring) {
    if (path != LoadPath::none && encoding_of(path) != ring.encoding)
        throw std::invalid_argument("a ring linked for another load path cannot be chased through " +
                                    std::string(to_string(path)));
}

}  // namespace gpu_topology::kernels
