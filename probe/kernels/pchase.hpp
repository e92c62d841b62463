#pragma once
// The one pointer-chase engine. Every latency, size, line, sharing and count
// benchmark is a sequence of `link_*` + `chase`/`chase_after` calls with a
// different LoadPath, ring shape and warm-up; the engine measures, it never
// decides (that is probe/analysis).
//
// The header is free of CUDA types so benchmarks and tests include it without
// the CUDA headers.
#include "load_path.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gpu_topology::kernels {

// A cyclic chain of 8-byte elements: element k sits at
// `offset + position(k) * stride_bytes` of the engine's buffer (global and
// texture rings) or of its __constant__ array (constant rings).
struct Ring {
    RingEncoding encoding = RingEncoding::global_address;
    std::size_t offset = 0;        // byte offset of the region the ring occupies
    std::size_t first_byte = 0;    // byte offset of the element the chase starts at
    std::uint32_t elements = 0;
    std::uint32_t stride_bytes = 0;
    bool address_order = true;     // element k+1 follows element k in memory (link_sequential)
    std::size_t footprint_bytes() const { return std::size_t(elements) * stride_bytes; }
};

// How the untimed warm passes before the timed chase are made.
enum class Warming {
    chase,  // lane 0 walks the ring: one dependent load at a time (any ring, any order)
    fill,   // every thread of the block loads the ring's elements in address order, many loads in
            // flight: the same lines in the same order as `chase` for a sequential ring, in a
            // fraction of the time (global and texture rings in address order only)
};

// Whether Warming::fill can warm `ring`: global or texture, linked in address order.
inline bool fillable(const Ring& ring) {
    return ring.address_order &&
           (ring.encoding == RingEncoding::global_address || ring.encoding == RingEncoding::texel_index);
}

struct ChaseRequest {
    LoadPath path = LoadPath::l1;
    Ring ring;                        // must be linked for `path` (see encoding_of)
    std::uint32_t warm_passes = 1;    // untimed full traversals first (0: the timed pass is cold)
    Warming warming = Warming::chase;
    std::uint32_t timed_steps = 0;    // dependent loads timed one by one
    std::uint32_t max_samples = 2048; // evenly spaced subset of timed loads that is recorded
    int carveout_percent = -1;        // cudaFuncAttributePreferredSharedMemoryCarveout; -1 = driver's choice
};

// Traffic another thread of the same block sends between warming a ring and
// timing it: `passes` untimed traversals of `ring` through `path`, issued by
// lane 0 of warp `warp` (warp 0 chases the timed ring).
struct Disturbance {
    LoadPath path = LoadPath::l1;
    Ring ring;
    std::uint32_t passes = 2;
    std::uint32_t warp = 0;
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
    // Bytes a ring for `path` may span from offset 0: the buffer, the texture's
    // width, the __constant__ array (one module's 64 KiB limit), or the shared
    // memory a block may opt in to.
    std::size_t ring_capacity(LoadPath path) const;

    // Links `elements` 8-byte elements `stride_bytes` apart from `offset`, in
    // address order, encoded for `path`. Shared rings need no linking: the
    // kernel builds them (the returned Ring just carries the shape).
    Ring link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes);
    // Same footprint, visited in a random cyclic order (defeats prefetching and
    // stride-aligned set conflicts). Global, texture and constant rings only.
    Ring link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                     std::uint64_t seed);

    ChaseResult chase(const ChaseRequest& request);
    // Warms `victim`, lets `other` run, then times `victim`: all in one launch
    // on one SM, so the victim's lines meet the other traffic in the same caches.
    ChaseResult chase_after(const ChaseRequest& victim, const Disturbance& other);

    // Reads `bytes` from `offset` with many threads through L2 only (ld.global.cg):
    // afterwards the region sits in L2 but in no L1, and when it is larger than
    // L2 it has evicted whatever L2 held before.
    void stream_l2(std::size_t offset, std::size_t bytes);
    // Seconds (CUDA events) that every SM, many threads each, takes to read
    // `bytes` from `offset` `passes` times through L2 (ld.global.cg): read
    // bandwidth of L2 when the region fits it, of DRAM when it is far larger.
    double time_stream(std::size_t offset, std::size_t bytes, unsigned passes);

    // What the runtime says a one-block launch of the chase kernel may use as
    // dynamic shared memory with `carveout_percent` preferred
    // (cudaOccupancyAvailableDynamicSMemPerBlock): the API's view of a carveout.
    std::size_t available_dynamic_shared(int carveout_percent);

    // Keeps every SM busy for `milliseconds` so the clock leaves its idle state.
    void warm_up(double milliseconds);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpu_topology::kernels
