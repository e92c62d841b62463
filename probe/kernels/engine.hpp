#pragma once
// The one pointer-chase engine, as an interface. Every latency, size, line,
// sharing and count benchmark is a sequence of `link_*` + `chase`/`chase_after`
// calls with a different LoadPath, ring shape, warm-up and launch; bandwidths,
// shared-memory banks and clusters have their own timed kernels (`time_read`,
// `time_shared_access`, `time_cluster_read`). The engine measures, it never
// decides (probe/analysis decides).
//
// Free of CUDA types: the stages and the tests use it without the CUDA
// headers. Implementations: the CUDA engine (cuda_engine.hpp, kernels in
// pchase.cu), and the recording and replaying engines of
// probe/replay/recorded_engine.hpp, which let every stage run on the CPU
// against sweeps recorded on a GPU.
#include "load_path.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
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
enum class Warming : std::uint8_t {
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

// The kernel a chase runs in, as the driver sees it when it splits an SM's
// memory between L1 and shared memory: the split follows the shared memory a
// block declares (static and dynamic together), the block size and the
// carveout preference, and not monotonically in any of them
// (docs/l1-effective-capacity.md).
enum class ChaseKernel : std::uint8_t {
    probe,  // the probe's own: a few bytes of static shared memory (its timer's dependency store)
    plain,  // no static shared memory; its launch declares `dynamic_shared_bytes` (0: none at all)
};
constexpr std::string_view to_string(ChaseKernel kernel) { return kernel == ChaseKernel::probe ? "probe" : "plain"; }

struct ChaseRequest {
    LoadPath path = LoadPath::l1;
    Ring ring;                        // must be linked for `path` (see encoding_of)
    std::uint32_t warm_passes = 1;    // untimed full traversals first (0: the timed pass is cold)
    Warming warming = Warming::chase;
    std::uint32_t timed_steps = 0;    // dependent loads timed one by one
    std::uint32_t max_samples = 2048; // evenly spaced subset of timed loads that is recorded
    int carveout_percent = -1;        // cudaFuncAttributePreferredSharedMemoryCarveout; -1 = driver's choice
    // The launch shape: threads in the one block that chases (0: as few as the
    // phases need). The driver sizes L1 by what the shape lets an SM hold.
    std::uint32_t threads_per_block = 0;
    ChaseKernel kernel = ChaseKernel::probe;
    // Plain kernel only: dynamic shared memory the launch declares per block
    // (the chase does not touch it: it is there for the driver to see).
    std::uint32_t dynamic_shared_bytes = 0;
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
};

// A launch of the chase kernel, as the driver sizes it.
struct KernelLaunch {
    std::uint32_t threads_per_block = 32;
    int carveout_percent = -1;
    ChaseKernel kernel = ChaseKernel::probe;
    std::uint32_t dynamic_shared_bytes = 0;  // plain kernel only
};
// What a launch lets an SM hold, by the runtime's occupancy calculator, and
// the shared memory one block of it declares (static + dynamic).
struct LaunchShape {
    std::uint32_t threads_per_block = 0;
    std::uint32_t resident_blocks = 0;
    std::uint32_t shared_bytes_per_block = 0;
};

// How a bandwidth kernel reads. Every pattern uses 16-byte loads, four in
// flight per thread, consecutive across a warp.
enum class ReadPattern : std::uint8_t {
    streaming,      // grid-stride over a region, `passes` times (DRAM: a region far larger than L2)
    rotating,       // the region in one chunk per block; in pass p block b reads chunk (b + p) mod blocks,
                    // which another SM read last: no L1 hit, every load served by L2
    block_private,  // block b re-reads its own `bytes` at offset b * bytes: L1 hits after the first pass
    shared,         // block fills `bytes` of shared memory, then re-reads it (ld.shared.v4)
};
enum class CacheOp : std::uint8_t { cg, ca };  // ld.global.cg (L2 only) or ld.global.ca (L1 and L2)

struct ReadRequest {
    ReadPattern pattern = ReadPattern::streaming;
    CacheOp op = CacheOp::cg;
    std::size_t offset = 0;  // buffer offset of the region
    std::size_t bytes = 0;   // the region (streaming, rotating) or each block's share (block_private, shared)
    std::uint32_t passes = 1;
    std::uint32_t threads = 1024;
    std::uint32_t blocks_per_sm = 2;
};
// Bytes a request reads in all, with `sm_count` SMs: the region (a rotating
// region in whole 16-byte pieces per block), or every block's share, times the passes.
inline std::uint64_t bytes_read(const ReadRequest& r, std::uint32_t sm_count) {
    const std::uint64_t blocks = std::uint64_t(sm_count) * r.blocks_per_sm;
    switch (r.pattern) {
        case ReadPattern::streaming: return std::uint64_t(r.bytes) / 16 * 16 * r.passes;
        case ReadPattern::rotating: return std::uint64_t(r.bytes) / blocks / 16 * 16 * blocks * r.passes;
        case ReadPattern::block_private:
        case ReadPattern::shared: return std::uint64_t(r.bytes) / 16 * 16 * blocks * r.passes;
    }
    return 0;
}

// One warp's shared-memory load: lane i reads `width_bytes` at byte `lane_bytes[i]`
// of a kSharedAccessBytes array whose every 4-byte word holds its own address,
// so a chain of such loads stays on the same addresses.
inline constexpr std::uint32_t kSharedAccessBytes = 32 * 1024;
struct SharedAccess {
    std::array<std::uint32_t, 32> lane_bytes{};  // multiples of width_bytes, below kSharedAccessBytes
    std::uint32_t width_bytes = 4;               // 4, 8 or 16
};
struct SharedAccessTiming {
    double latency_cycles = 0;  // per access of one warp, each waiting for the one before (raw clock)
    double issue_cycles = 0;    // per warp-wide access, 32 warps x 4 independent chains in flight
};

// Distributed shared memory: a read of the shared memory of the blocks of a cluster.
inline constexpr std::uint32_t kClusterChaseSamples = 512;
struct ClusterRead {
    double seconds = 0;       // CUDA events
    std::uint64_t bytes = 0;  // read by all blocks together
    std::uint32_t clusters = 0;  // clusters launched: as many as fit at once (0: none fits, nothing ran)
};

class Engine {
public:
    virtual ~Engine() = default;

    // Bytes of the one device buffer every global and texture ring lives in.
    virtual std::size_t buffer_bytes() const = 0;
    // Bytes a ring for `path` may span from offset 0: the buffer, the texture's
    // width, the __constant__ array (one module's 64 KiB limit), or the shared
    // memory a block may opt in to.
    virtual std::size_t ring_capacity(LoadPath path) const = 0;

    // Links `elements` 8-byte elements `stride_bytes` apart from `offset`, in
    // address order, encoded for `path`. Shared rings need no linking: the
    // kernel builds them (the returned Ring just carries the shape).
    virtual Ring link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements,
                                 std::uint32_t stride_bytes) = 0;
    // Same footprint, visited in a random cyclic order (defeats prefetching and
    // stride-aligned set conflicts). Global, texture and constant rings only.
    virtual Ring link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                             std::uint64_t seed) = 0;

    virtual ChaseResult chase(const ChaseRequest& request) = 0;
    // Warms `victim`, lets `other` run, then times `victim`: all in one launch
    // on one SM, so the victim's lines meet the other traffic in the same caches.
    virtual ChaseResult chase_after(const ChaseRequest& victim, const Disturbance& other) = 0;

    // Reads `bytes` from `offset` with many threads through L2 only (ld.global.cg):
    // afterwards the region sits in L2 but in no L1, and when it is larger than
    // L2 it has evicted whatever L2 held before.
    virtual void stream_l2(std::size_t offset, std::size_t bytes) = 0;
    // Seconds that every SM takes to read what `request` says: from the first
    // block's start to the last block's end, read in the kernel (%globaltimer),
    // so time the host takes to launch it does not count.
    virtual double time_read(const ReadRequest& request) = 0;
    // Seconds (CUDA events) a fixed amount of arithmetic takes on every SM,
    // touching no memory: a reference that slows when another context shares the GPU.
    virtual double time_reference_work() = 0;

    // How many blocks of `launch` an SM holds (cudaOccupancyMaxActiveBlocksPerMultiprocessor
    // at the launch's carveout), and the shared memory each declares.
    virtual LaunchShape launch_shape(const KernelLaunch& launch) = 0;

    // Keeps every SM busy for `milliseconds` so the clock leaves its idle state.
    virtual void warm_up(double milliseconds) = 0;

    // Times one warp's shared-memory access pattern (bank conflicts).
    virtual SharedAccessTiming time_shared_access(const SharedAccess& access) = 0;

    // The most blocks a cluster may have on this device (non-portable sizes
    // allowed); 0 where there are no clusters.
    virtual std::uint32_t max_cluster_blocks() = 0;
    // Lane 0 of block `reader` of one `cluster_blocks` cluster chases a ring in
    // the shared memory of block 0 (reader 0: its own, by ld.shared; otherwise
    // remote, by ld.shared::cluster). kClusterChaseSamples raw samples.
    virtual ChaseResult chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) = 0;
    // Every block of as many clusters as fit at once reads the shared memory of
    // the next block of its cluster (remote) or its own, `passes` times.
    virtual ClusterRead time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) = 0;
};

}  // namespace gpu_topology::kernels
