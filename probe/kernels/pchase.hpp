#pragma once
// The one pointer-chase engine. Every latency, size and line benchmark is a
// sequence of `link_*` + `chase` calls with a different LoadPath, ring shape and
// warm-up; the engine measures, it never decides (that is probe/analysis).
//
// The header is free of CUDA types so benchmarks and tests include it without
// the CUDA headers.
#include "load_path.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gpu_topology::kernels {

// A cyclic chain of 8-byte pointers inside the engine's buffer: element k sits
// at `offset + position(k) * stride_bytes`.
struct Ring {
    std::size_t offset = 0;        // byte offset of the buffer region the ring occupies
    std::size_t first_byte = 0;    // byte offset of the element the chase starts at
    std::uint32_t elements = 0;
    std::uint32_t stride_bytes = 0;
    std::size_t footprint_bytes() const { return std::size_t(elements) * stride_bytes; }
};

struct ChaseRequest {
    LoadPath path = LoadPath::l1;
    Ring ring;                        // for LoadPath::shared only elements/stride matter
    std::uint32_t warm_passes = 1;    // untimed full traversals first (0: the timed pass is cold)
    std::uint32_t timed_steps = 0;    // dependent loads timed one by one
    std::uint32_t max_samples = 2048; // evenly spaced subset of timed loads that is recorded
    int carveout_percent = -1;        // cudaFuncAttributePreferredSharedMemoryCarveout; -1 = driver's choice
};

struct ChaseResult {
    std::vector<std::uint32_t> cycles;  // per recorded load, raw (timer overhead included)
    std::uint64_t timed_cycles = 0;     // SM clock cycles spent in the timed loop
    std::uint64_t timed_ns = 0;         // %globaltimer nanoseconds for the same loop
    std::uint32_t sm_id = 0;            // SM that ran the chase
};

class ChaseEngine {
public:
    // Owns one device buffer of `buffer_bytes` reused for every ring and the L2 flush.
    ChaseEngine(int device, std::size_t buffer_bytes);
    ~ChaseEngine();
    ChaseEngine(const ChaseEngine&) = delete;
    ChaseEngine& operator=(const ChaseEngine&) = delete;

    std::size_t buffer_bytes() const;

    // Links `elements` pointers `stride_bytes` apart starting at `offset`, in address order.
    Ring link_sequential(std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes);
    // Same footprint, visited in a random cyclic order (defeats prefetching and
    // stride-aligned set conflicts).
    Ring link_random(std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                     std::uint64_t seed);

    ChaseResult chase(const ChaseRequest& request);

    // Streams `bytes` starting at `offset` through L2 with many threads, evicting
    // whatever L2 held before.
    void flush_l2(std::size_t offset, std::size_t bytes);

    // Keeps every SM busy for `milliseconds` so the clock leaves its idle state.
    void warm_up(double milliseconds);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpu_topology::kernels
