#include "cuda_check.hpp"
#include "device_clocks.cuh"
#include "read_kernels.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace gpu_topology::kernels {
namespace {

constexpr unsigned kUnroll = 4;  // independent loads in flight per thread

// One 16-byte load through the global path `Op`, or from shared memory (Shared).
struct Shared {};
template <typename Op>
__device__ __forceinline__ uint4 load16(const uint4* p) {
    uint4 v;
    if constexpr (std::is_same_v<Op, Shared>) {
        const auto address = static_cast<unsigned>(__cvta_generic_to_shared(p));
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(address));
    } else if constexpr (Op::value == CacheOp::cg) {
        asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    } else {
        asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    }
    return v;
}
template <CacheOp Op>
using Global = std::integral_constant<CacheOp, Op>;

// Every loaded word reaches the fold, and the fold a store that could happen
// (a 32-bit value against a 32-bit sentinel): otherwise ptxas drops loads whose
// values are never used (asm volatile does not survive into PTX). Three XORs a
// load keep the arithmetic far below the load rate.
__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Each block's start and end on the GPU's global timer: stamps[0] the earliest
// start, stamps[1] the latest end (reset before each launch). Their difference is
// the read without the launch: a host that was slow to issue the kernel after
// the timer started (an H100 probe measured 20 % lower bandwidths while a
// compiler ran beside it: docs/records/bandwidth.md) no longer counts.
__device__ __forceinline__ void stamp_start(unsigned long long* stamps) {
    if (threadIdx.x == 0) atomicMin(stamps, global_ns());
}
__device__ __forceinline__ void stamp_end(unsigned long long* stamps) {
    __syncthreads();  // every thread's loads are folded into its result by now
    if (threadIdx.x == 0) atomicMax(stamps + 1, global_ns());
}

// Reads pieces [0, count) of `data` with the block's threads, kUnroll loads in flight each.
// 32-bit indices (a block's span is far below 2^32 pieces): an L1-bound loop has no
// issue slots to spare for 64-bit index arithmetic.
template <typename Op>
__device__ __forceinline__ unsigned read_span(const uint4* data, unsigned count) {
    unsigned acc = 0;
    const unsigned step = blockDim.x;
    unsigned i = threadIdx.x;
    for (; i + (kUnroll - 1) * step < count; i += kUnroll * step) {
        uint4 v[kUnroll];
#pragma unroll
        for (unsigned u = 0; u < kUnroll; ++u) v[u] = load16<Op>(data + i + u * step);
#pragma unroll
        for (unsigned u = 0; u < kUnroll; ++u) acc ^= fold(v[u]);
    }
    for (; i < count; i += step) acc ^= fold(load16<Op>(data + i));
    return acc;
}

template <CacheOp Op>
__global__ void streaming_kernel(const uint4* data, size_t pieces, unsigned passes, unsigned long long* sink) {
    stamp_start(sink);
    unsigned acc = 0;
    const size_t step = size_t(gridDim.x) * blockDim.x;
    for (unsigned pass = 0; pass < passes; ++pass)
        for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pieces; i += step)
            acc ^= fold(load16<Global<Op>>(data + i));
    stamp_end(sink);
    if (acc == kNever) sink[3] = acc;
}

template <CacheOp Op>
__global__ void rotating_kernel(const uint4* data, size_t chunk_pieces, unsigned passes, unsigned long long* sink) {
    stamp_start(sink);
    unsigned acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass) {
        const size_t chunk = (blockIdx.x + pass) % gridDim.x;  // read last pass by the previous block, on another SM
        acc ^= read_span<Global<Op>>(data + chunk * chunk_pieces, static_cast<unsigned>(chunk_pieces));
    }
    stamp_end(sink);
    if (acc == kNever) sink[3] = acc;
}

template <CacheOp Op>
__global__ void block_private_kernel(const uint4* data, size_t pieces, unsigned passes, unsigned long long* sink) {
    stamp_start(sink);
    unsigned acc = 0;
    const uint4* mine = data + blockIdx.x * pieces;
    for (unsigned pass = 0; pass < passes; ++pass) acc ^= read_span<Global<Op>>(mine, static_cast<unsigned>(pieces));
    stamp_end(sink);
    if (acc == kNever) sink[3] = acc;
}

__global__ void shared_kernel(size_t pieces, unsigned passes, unsigned long long* sink) {
    extern __shared__ uint4 tile[];
    for (size_t i = threadIdx.x; i < pieces; i += blockDim.x) tile[i] = make_uint4(unsigned(i), 1u, 2u, 3u);
    __syncthreads();
    stamp_start(sink);  // the fill is not part of the read
    unsigned acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass) acc ^= read_span<Shared>(tile, static_cast<unsigned>(pieces));
    stamp_end(sink);
    if (acc == kNever) sink[3] = acc;
}

// Dependent integer arithmetic: no memory traffic, so only another context on the SMs can slow it.
__global__ void reference_kernel(unsigned iterations, unsigned long long* sink) {
    unsigned x = threadIdx.x + 1, y = blockIdx.x + 3;
    for (unsigned i = 0; i < iterations; ++i) {
        x = x * 1664525u + y;
        y ^= x >> 7;
    }
    if (x == 0x5a5a5a5au && y == 0) sink[3] = x;
}

// Grid-stride 16-byte stores: every SM of the launching device writes `data` (a peer's memory).
__global__ void store_kernel(uint4* data, size_t pieces, unsigned value) {
    const size_t step = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pieces; i += step)
        data[i] = make_uint4(value, unsigned(i), value, unsigned(i >> 32));
}

void check_region(const ReadRequest& r, std::size_t span, std::size_t buffer_bytes) {
    if (r.offset % 16 != 0 || r.offset + span > buffer_bytes)
        throw std::invalid_argument("read of " + std::to_string(span) + " B at offset " + std::to_string(r.offset) +
                                    " is misaligned or exceeds the " + std::to_string(buffer_bytes) + " B buffer");
}

template <CacheOp Op>
void launch_with(const ReadRequest& r, const unsigned char* buffer, std::size_t buffer_bytes, int sm_count,
                 unsigned long long* sink) {
    const unsigned blocks = static_cast<unsigned>(sm_count) * r.blocks_per_sm;
    const auto* data = reinterpret_cast<const uint4*>(buffer + r.offset);
    switch (r.pattern) {
        case ReadPattern::streaming:
            check_region(r, r.bytes, buffer_bytes);
            streaming_kernel<Op><<<blocks, r.threads>>>(data, r.bytes / 16, r.passes, sink);
            break;
        case ReadPattern::rotating:
            check_region(r, r.bytes, buffer_bytes);
            rotating_kernel<Op><<<blocks, r.threads>>>(data, r.bytes / blocks / 16, r.passes, sink);
            break;
        case ReadPattern::block_private:
            check_region(r, std::size_t(blocks) * r.bytes, buffer_bytes);
            block_private_kernel<Op><<<blocks, r.threads>>>(data, r.bytes / 16, r.passes, sink);
            break;
        case ReadPattern::shared:
            check(cudaFuncSetAttribute(shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(r.bytes / 16 * 16)),
                  "cudaFuncSetAttribute(shared_kernel)");
            shared_kernel<<<blocks, r.threads, r.bytes / 16 * 16>>>(r.bytes / 16, r.passes, sink);
            break;
    }
    check_launch("read kernel");
}

}  // namespace

double launch_read(const ReadRequest& r, const unsigned char* buffer, std::size_t buffer_bytes, int sm_count,
                   unsigned long long* stamps) {
    const unsigned long long reset[2] = {~0ull, 0ull};
    check(cudaMemcpy(stamps, reset, sizeof reset, cudaMemcpyHostToDevice), "cudaMemcpy(read stamps)");
    if (r.op == CacheOp::cg) launch_with<CacheOp::cg>(r, buffer, buffer_bytes, sm_count, stamps);
    else launch_with<CacheOp::ca>(r, buffer, buffer_bytes, sm_count, stamps);
    unsigned long long stamped[2] = {};
    check(cudaMemcpy(stamped, stamps, sizeof stamped, cudaMemcpyDeviceToHost), "cudaMemcpy(read stamps)");
    if (stamped[1] <= stamped[0]) throw std::runtime_error("a read kernel's global timer did not advance");
    return double(stamped[1] - stamped[0]) * 1e-9;
}

void launch_store(unsigned char* data, std::size_t bytes, int sm_count, cudaStream_t stream) {
    store_kernel<<<sm_count * 2, 1024, 0, stream>>>(reinterpret_cast<uint4*>(data), bytes / 16, 7u);
    // Launch errors now; execution errors at the caller's checked synchronisation (a
    // device-wide synchronize here would add its own latency to every timed repeat).
    check(cudaGetLastError(), "launch of store_kernel");
}

void launch_reference_work(int sm_count, unsigned long long* sink) {
    reference_kernel<<<sm_count * 4, 256>>>(1u << 16, sink);
    check_launch("reference_kernel");
}

}  // namespace gpu_topology::kernels
