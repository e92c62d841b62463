// Shared-memory bank conflicts, and distributed shared memory across the
// blocks of a cluster. The chase here follows pchase.cu's timing: a clock read
// on each side of the load, and a store of the loaded value between them.
#include "cuda_check.hpp"
#include "cuda_event.hpp"
#include "device_clocks.cuh"
#include "shared_kernels.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpu_topology::kernels {
namespace {

constexpr unsigned kSharedWords = kSharedAccessBytes / 4;
constexpr unsigned kLatencyIterations = 512;
constexpr unsigned kIssueIterations = 128;
constexpr int kIssueChains = 4;
constexpr unsigned kIssueWarps = 32;

struct LaneOffsets {
    unsigned bytes[32];
};

// A load of W bytes whose first word (its own address) is the next address;
// `zero` (0 at run time, unknown to the compiler) keeps every word live.
template <int W>
__device__ __forceinline__ unsigned shared_next(unsigned address, unsigned zero) {
    if constexpr (W == 4) {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
        return v & ~zero;
    } else if constexpr (W == 8) {
        unsigned v0, v1;
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(address) : "memory");
        return v0 | (v1 & zero);
    } else {
        unsigned v0, v1, v2, v3;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                     : "r"(address)
                     : "memory");
        return v0 | ((v1 | v2 | v3) & zero);
    }
}

// out[0]: thread 0's cycles for the loop; out[1]: the block's, barrier to barrier.
template <int W, int Chains>
__global__ void __launch_bounds__(1024) bank_kernel(LaneOffsets offsets, unsigned iterations, unsigned zero,
                                                    unsigned long long* out) {
    __shared__ __align__(16) unsigned words[kSharedWords];
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(words));
    for (unsigned i = threadIdx.x; i < kSharedWords; i += blockDim.x) words[i] = base + 4 * i;
    unsigned address[Chains];
#pragma unroll
    for (int c = 0; c < Chains; ++c) address[c] = base + offsets.bytes[threadIdx.x % 32];
    __syncthreads();
    const long long begin = sm_clock();
#pragma unroll 4
    for (unsigned it = 0; it < iterations; ++it)
#pragma unroll
        for (int c = 0; c < Chains; ++c) address[c] = shared_next<W>(address[c], zero);
    const long long end = sm_clock();
    __syncthreads();
    const long long all = sm_clock();
    if (threadIdx.x == 0) {
        out[0] = static_cast<unsigned long long>(end - begin);
        out[1] = static_cast<unsigned long long>(all - begin);
    }
    unsigned fold = 0;
#pragma unroll
    for (int c = 0; c < Chains; ++c) fold ^= address[c];
    if (fold == kNever) out[3] = fold;
}

template <int W>
SharedAccessTiming time_bank_pattern(const LaneOffsets& offsets, unsigned long long* scratch) {
    unsigned long long cycles[2] = {};
    SharedAccessTiming timing;
    bank_kernel<W, 1><<<1, 32>>>(offsets, kLatencyIterations, 0u, scratch);
    check_launch("bank_kernel (latency)");
    check(cudaMemcpy(cycles, scratch, sizeof cycles, cudaMemcpyDeviceToHost), "cudaMemcpy(bank cycles)");
    timing.latency_cycles = double(cycles[0]) / kLatencyIterations;
    bank_kernel<W, kIssueChains><<<1, 32 * kIssueWarps>>>(offsets, kIssueIterations, 0u, scratch);
    check_launch("bank_kernel (issue)");
    check(cudaMemcpy(cycles, scratch, sizeof cycles, cudaMemcpyDeviceToHost), "cudaMemcpy(bank cycles)");
    timing.issue_cycles = double(cycles[1]) / (double(kIssueWarps) * kIssueIterations * kIssueChains);
    return timing;
}

// ---- distributed shared memory ---------------------------------------------------

constexpr unsigned kRingStride = 64;
constexpr unsigned kRingBytes = 4096;
// [[maybe_unused]]: the cluster kernels compile to nothing below sm_90.
[[maybe_unused]] constexpr unsigned kRingElements = kRingBytes / kRingStride;
// More than half of an SM's shared memory per block, so the blocks of a
// cluster sit on different SMs and every remote load crosses the SM-to-SM network.
constexpr std::size_t kClusterDynamicBytes = 120 * 1024;
constexpr unsigned kReadThreads = 1024;
constexpr unsigned kReadVectors = 4096;  // 64 KiB of each block's shared memory read per pass

// The cluster, without cooperative_groups (the same intrinsics it wraps, and a
// far lighter header to compile): every block of it waits here for every other.
[[maybe_unused]] __device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
#endif
}

[[maybe_unused]] __device__ __forceinline__ unsigned map_to_rank(unsigned shared_address, unsigned rank) {
    unsigned mapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(shared_address), "r"(rank));
    return mapped;
}

template <bool Remote>
__device__ __forceinline__ unsigned cluster_load(unsigned address) {
    unsigned v;
    if constexpr (Remote) asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
    else asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
    return v;
}

// The ring holds the address of its next element (shared::cta for the own
// ring, shared::cluster for the remote one), so the chain has no arithmetic.
template <bool Remote>
__device__ unsigned cluster_walk(unsigned start, unsigned* samples, unsigned long long* stats, volatile unsigned* slot) {
    unsigned address = start;
    for (unsigned i = 0; i < kRingElements; ++i) address = cluster_load<Remote>(address);  // warm
    const long long begin = sm_clock();
    const unsigned long long begin_ns = global_ns();
    for (unsigned i = 0; i < kClusterChaseSamples; ++i) {
        const long long before = sm_clock();
        address = cluster_load<Remote>(address);
        *slot = address;
        const long long after = sm_clock();
        __stcg(samples + i, static_cast<unsigned>(after - before));
    }
    stats[0] = static_cast<unsigned long long>(sm_clock() - begin);
    stats[1] = global_ns() - begin_ns;
    return address;
}

// Every block links two rings in its own shared memory, one of shared::cta
// addresses and one of its shared::cluster addresses; lane 0 of `reader`
// chases block 0's (the first by ld.shared when it is block 0, else the
// second by ld.shared::cluster).
__global__ void __launch_bounds__(32) cluster_chase_kernel(unsigned reader, unsigned* samples,
                                                           unsigned long long* stats) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) unsigned char dynamic_shared[];
    __shared__ volatile unsigned slot;
    const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(dynamic_shared));
    const unsigned rank = __clusterRelativeBlockRank();
    auto* local_ring = reinterpret_cast<unsigned*>(dynamic_shared);
    auto* cluster_ring = reinterpret_cast<unsigned*>(dynamic_shared + kRingBytes);
    for (unsigned i = threadIdx.x; i < kRingElements; i += blockDim.x) {
        const unsigned next = ((i + 1) % kRingElements) * kRingStride;
        local_ring[i * (kRingStride / 4)] = own + next;
        cluster_ring[i * (kRingStride / 4)] = map_to_rank(own + kRingBytes + next, rank);
    }
    cluster_sync();  // every ring exists before anyone reads one
    if (rank == reader && threadIdx.x == 0) {
        const unsigned got = reader == 0 ? cluster_walk<false>(own, samples, stats, &slot)
                                         : cluster_walk<true>(map_to_rank(own + kRingBytes, 0), samples, stats, &slot);
        if (got == kNever) stats[3] = got;
    }
    cluster_sync();  // block 0 stays until the reader is done
#endif
}

template <bool Remote>
__global__ void __launch_bounds__(kReadThreads) cluster_read_kernel(unsigned passes, unsigned long long* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) unsigned char dynamic_shared[];
    auto* buffer = reinterpret_cast<uint4*>(dynamic_shared);
    const unsigned rank = __clusterRelativeBlockRank();
    for (unsigned i = threadIdx.x; i < kReadVectors; i += blockDim.x) buffer[i] = make_uint4(i, rank, 3 * i, 5 * i);
    cluster_sync();
    const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(buffer));
    const unsigned base = Remote ? map_to_rank(own, (rank + 1) % __clusterSizeInBlocks()) : own;
    unsigned fold = 0;
    for (unsigned pass = 0; pass < passes; ++pass) {
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < kReadVectors; i += blockDim.x) {
            unsigned x, y, z, w;
            if constexpr (Remote)
                asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(base + i * 16));
            else
                asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(base + i * 16));
            fold ^= x ^ y ^ z ^ w;
        }
    }
    cluster_sync();  // no block leaves while another still reads its shared memory
    if (fold == kNever) *sink = fold;
#endif
}

// A launch configuration with a cluster dimension; `attribute` must outlive its use.
cudaLaunchConfig_t cluster_config(unsigned grid, unsigned block, unsigned cluster, cudaLaunchAttribute* attribute) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid, 1, 1);
    config.blockDim = dim3(block, 1, 1);
    config.dynamicSmemBytes = kClusterDynamicBytes;
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return config;
}

template <typename Kernel>
void allow_cluster_shapes(Kernel kernel) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kClusterDynamicBytes)),
          "cudaFuncSetAttribute(max dynamic shared)");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
          "cudaFuncSetAttribute(non-portable cluster size)");
}

}  // namespace

SharedAccessTiming launch_shared_access(const SharedAccess& access, unsigned long long* scratch) {
    if (access.width_bytes != 4 && access.width_bytes != 8 && access.width_bytes != 16)
        throw std::invalid_argument("shared access: width " + std::to_string(access.width_bytes) + " is not 4, 8 or 16");
    LaneOffsets offsets{};
    for (unsigned lane = 0; lane < 32; ++lane) {
        const unsigned byte = access.lane_bytes[lane];
        if (byte % access.width_bytes != 0 || byte > kSharedAccessBytes - access.width_bytes)
            throw std::invalid_argument("shared access: lane " + std::to_string(lane) + " offset " +
                                        std::to_string(byte) + " is not a whole access inside the array");
        offsets.bytes[lane] = byte;
    }
    switch (access.width_bytes) {
        case 4: return time_bank_pattern<4>(offsets, scratch);
        case 8: return time_bank_pattern<8>(offsets, scratch);
        case 16: return time_bank_pattern<16>(offsets, scratch);
    }
    throw std::invalid_argument("shared access: width " + std::to_string(access.width_bytes) + " is not 4, 8 or 16");
}

std::uint32_t query_max_cluster_blocks(int device) {
    int supported = 0, optin = 0;
    check(cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device), "cudaDeviceGetAttribute(cluster launch)");
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute(shared memory per block, opt-in)");
    // The kernels need a block of kClusterDynamicBytes to have an SM to itself.
    if (!supported || std::size_t(optin) < kClusterDynamicBytes) return 0;
    // Code compiled for an older architecture has empty cluster kernels, also
    // when the driver JIT-compiles its PTX for this GPU (binaryVersion 90, ptxVersion older).
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, cluster_chase_kernel), "cudaFuncGetAttributes(cluster_chase_kernel)");
    if (attributes.binaryVersion < 90 || attributes.ptxVersion < 90) return 0;
    allow_cluster_shapes(cluster_chase_kernel);
    cudaLaunchAttribute attribute[1];
    const auto config = cluster_config(32 * 16, 32, 1, attribute);
    int blocks = 0;
    check(cudaOccupancyMaxPotentialClusterSize(&blocks, cluster_chase_kernel, &config),
          "cudaOccupancyMaxPotentialClusterSize");
    return static_cast<std::uint32_t>(blocks);
}

ChaseResult launch_cluster_chase(std::uint32_t cluster_blocks, std::uint32_t reader, unsigned* samples,
                                 unsigned long long* scratch) {
    if (reader >= cluster_blocks) throw std::invalid_argument("cluster chase: reader outside the cluster");
    allow_cluster_shapes(cluster_chase_kernel);
    cudaLaunchAttribute attribute[1];
    const auto config = cluster_config(cluster_blocks, 32, cluster_blocks, attribute);
    check(cudaLaunchKernelEx(&config, cluster_chase_kernel, static_cast<unsigned>(reader), samples, scratch),
          "cudaLaunchKernelEx(cluster_chase_kernel)");
    check_launch("cluster_chase_kernel");
    ChaseResult result;
    result.cycles.resize(kClusterChaseSamples);
    check(cudaMemcpy(result.cycles.data(), samples, kClusterChaseSamples * sizeof(unsigned), cudaMemcpyDeviceToHost),
          "cudaMemcpy(cluster samples)");
    unsigned long long stats[2] = {};
    check(cudaMemcpy(stats, scratch, sizeof stats, cudaMemcpyDeviceToHost), "cudaMemcpy(cluster stats)");
    result.timed_cycles = stats[0];
    result.timed_ns = stats[1];
    return result;
}

ClusterRead launch_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes,
                                unsigned long long* scratch) {
    const auto kernel = remote ? cluster_read_kernel<true> : cluster_read_kernel<false>;
    allow_cluster_shapes(kernel);
    cudaLaunchAttribute attribute[1];
    auto config = cluster_config(cluster_blocks, kReadThreads, cluster_blocks, attribute);
    int clusters = 0;
    check(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config), "cudaOccupancyMaxActiveClusters");
    if (clusters < 1) return ClusterRead{};  // no cluster of this size fits: nothing launched
    config.gridDim = dim3(unsigned(clusters) * cluster_blocks, 1, 1);
    ClusterRead read;
    read.clusters = static_cast<std::uint32_t>(clusters);
    read.bytes = std::uint64_t(clusters) * cluster_blocks * kReadVectors * 16 * passes;
    read.seconds = Event::time([&] {
        check(cudaLaunchKernelEx(&config, kernel, static_cast<unsigned>(passes), scratch),
              "cudaLaunchKernelEx(cluster_read_kernel)");
        check(cudaGetLastError(), "launch of cluster_read_kernel");
    });
    check_launch("cluster_read_kernel");
    return read;
}

}  // namespace gpu_topology::kernels
