#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "pchase.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace gpu_topology::kernels {
namespace {

__device__ __forceinline__ long long sm_clock() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ unsigned sm_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

// One dependent load per path. `asm volatile` keeps the compiler from merging,
// hoisting or re-caching loads; the PTX cache operator selects the path.
template <LoadPath P>
__device__ __forceinline__ unsigned long long load_next(unsigned long long cursor);

template <>
__device__ __forceinline__ unsigned long long load_next<LoadPath::none>(unsigned long long cursor) {
    return cursor;
}
template <>
__device__ __forceinline__ unsigned long long load_next<LoadPath::l1>(unsigned long long cursor) {
    unsigned long long next;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    return next;
}
template <>
__device__ __forceinline__ unsigned long long load_next<LoadPath::l2>(unsigned long long cursor) {
    unsigned long long next;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    return next;
}
template <>
__device__ __forceinline__ unsigned long long load_next<LoadPath::shared>(unsigned long long cursor) {
    unsigned next;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(next) : "r"(static_cast<unsigned>(cursor)) : "memory");
    return next;
}

struct ChaseArgs {
    unsigned long long start;  // address of the first element (global) — unused for shared
    unsigned elements;
    unsigned stride_bytes;
    unsigned long long warm_steps;
    unsigned timed_steps;
    unsigned record_every;
    unsigned max_samples;
    unsigned* samples;
    unsigned long long* stats;  // [0] cycles, [1] ns, [2] SM id, [3] sink
};

// Fine-grained pointer chase (Mei & Chu): each load is bracketed by two clock
// reads, and a store of the loaded value to shared memory sits before the
// second read, so the second read cannot issue before the load returned.
template <LoadPath P>
__global__ void chase_kernel(ChaseArgs args) {
    extern __shared__ unsigned shared_ring[];
    __shared__ volatile unsigned dependency_slot;

    unsigned long long cursor = args.start;
    if constexpr (P == LoadPath::shared) {
        const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(shared_ring));
        const unsigned words = args.stride_bytes / sizeof(unsigned);
        for (unsigned i = threadIdx.x; i < args.elements; i += blockDim.x)
            shared_ring[i * words] = base + ((i + 1) % args.elements) * args.stride_bytes;
        __syncthreads();
        cursor = base;
    }
    if (threadIdx.x != 0) return;

    for (unsigned long long i = 0; i < args.warm_steps; ++i) cursor = load_next<P>(cursor);

    unsigned recorded = 0;
    unsigned countdown = 0;
    const long long cycles_begin = sm_clock();
    const unsigned long long ns_begin = global_ns();
    for (unsigned i = 0; i < args.timed_steps; ++i) {
        const long long before = sm_clock();
        cursor = load_next<P>(cursor);
        dependency_slot = static_cast<unsigned>(cursor);
        const long long after = sm_clock();
        if (countdown == 0) {
            if (recorded < args.max_samples)
                __stcg(args.samples + recorded++, static_cast<unsigned>(after - before));
            countdown = args.record_every;
        }
        --countdown;
    }
    const long long cycles_end = sm_clock();
    const unsigned long long ns_end = global_ns();
    args.stats[0] = static_cast<unsigned long long>(cycles_end - cycles_begin);
    args.stats[1] = ns_end - ns_begin;
    args.stats[2] = sm_id();
    args.stats[3] = cursor + dependency_slot;  // keeps the chain observable
}

__global__ void link_kernel(unsigned char* region, unsigned elements, unsigned stride_bytes,
                            const unsigned* order) {
    const unsigned step = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += step) {
        const unsigned from = order ? order[i] : i;
        const unsigned to = order ? order[(i + 1) % elements] : (i + 1) % elements;
        *reinterpret_cast<unsigned long long*>(region + static_cast<size_t>(from) * stride_bytes) =
            reinterpret_cast<unsigned long long>(region + static_cast<size_t>(to) * stride_bytes);
    }
}

__global__ void flush_kernel(const unsigned long long* data, size_t words, unsigned long long* sink) {
    unsigned long long sum = 0;
    const size_t step = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step)
        sum += __ldcg(data + i);
    if (sum == 0x5a5a5a5a5a5a5a5aull) *sink = sum;  // practically never: defeats dead-code removal
}

__global__ void spin_kernel(unsigned long long duration_ns, unsigned long long* sink) {
    const unsigned long long end = global_ns() + duration_ns;
    unsigned long long spins = 0;
    while (global_ns() < end) ++spins;
    if (spins == 0) *sink = spins;
}

template <LoadPath P>
void launch_chase(const ChaseArgs& args, int carveout_percent, size_t dynamic_shared) {
    check(cudaFuncSetAttribute(chase_kernel<P>, cudaFuncAttributePreferredSharedMemoryCarveout,
                               carveout_percent),
          "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
    if (dynamic_shared > 48 * 1024)
        check(cudaFuncSetAttribute(chase_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(dynamic_shared)),
              "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    chase_kernel<P><<<1, 32, dynamic_shared>>>(args);
    check_launch("chase_kernel");
}

}  // namespace

struct ChaseEngine::Impl {
    int device = 0;
    int sm_count = 0;
    DeviceBuffer<unsigned char> buffer;
    DeviceBuffer<unsigned> samples;
    DeviceBuffer<unsigned long long> stats{4};
    DeviceBuffer<unsigned> order;  // random ring permutation, grown on demand
};

ChaseEngine::ChaseEngine(int device, std::size_t buffer_bytes) : impl_(std::make_unique<Impl>()) {
    check(cudaSetDevice(device), "cudaSetDevice");
    impl_->device = device;
    check(cudaDeviceGetAttribute(&impl_->sm_count, cudaDevAttrMultiProcessorCount, device),
          "cudaDeviceGetAttribute(MultiProcessorCount)");
    impl_->buffer = DeviceBuffer<unsigned char>(buffer_bytes);
    check(cudaMemset(impl_->buffer.get(), 0, buffer_bytes), "cudaMemset(ring buffer)");
}

ChaseEngine::~ChaseEngine() = default;

std::size_t ChaseEngine::buffer_bytes() const { return impl_->buffer.bytes(); }

static void check_ring_fits(std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                            std::size_t capacity) {
    if (elements < 1 || stride < 8 || stride % 8 != 0)
        throw std::invalid_argument("ring needs >= 1 element and a stride that is a multiple of 8 bytes");
    if (offset % 8 != 0 || offset + std::size_t(elements) * stride > capacity)
        throw std::invalid_argument("ring of " + std::to_string(elements) + " x " + std::to_string(stride) +
                                    " B at offset " + std::to_string(offset) + " exceeds the " +
                                    std::to_string(capacity) + " B buffer");
}

Ring ChaseEngine::link_sequential(std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes) {
    check_ring_fits(offset, elements, stride_bytes, impl_->buffer.bytes());
    link_kernel<<<impl_->sm_count * 4, 256>>>(impl_->buffer.get() + offset, elements, stride_bytes, nullptr);
    check_launch("link_kernel");
    return Ring{offset, offset, elements, stride_bytes};
}

Ring ChaseEngine::link_random(std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                              std::uint64_t seed) {
    check_ring_fits(offset, elements, stride_bytes, impl_->buffer.bytes());
    std::vector<unsigned> order(elements);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    if (impl_->order.size() < elements) impl_->order = DeviceBuffer<unsigned>(elements);
    check(cudaMemcpy(impl_->order.get(), order.data(), elements * sizeof(unsigned), cudaMemcpyHostToDevice),
          "cudaMemcpy(ring order)");
    link_kernel<<<impl_->sm_count * 4, 256>>>(impl_->buffer.get() + offset, elements, stride_bytes,
                                              impl_->order.get());
    check_launch("link_kernel");
    return Ring{offset, offset + std::size_t(order[0]) * stride_bytes, elements, stride_bytes};
}

ChaseResult ChaseEngine::chase(const ChaseRequest& request) {
    const std::uint32_t samples_wanted = std::min(request.max_samples, request.timed_steps);
    if (impl_->samples.size() < samples_wanted) impl_->samples = DeviceBuffer<unsigned>(samples_wanted);

    ChaseArgs args{};
    args.start = reinterpret_cast<unsigned long long>(impl_->buffer.get() + request.ring.first_byte);
    args.elements = request.ring.elements;
    args.stride_bytes = request.ring.stride_bytes;
    args.warm_steps = static_cast<unsigned long long>(request.warm_passes) * request.ring.elements;
    args.timed_steps = request.timed_steps;
    args.record_every = samples_wanted == 0 ? 1 : std::max(1u, request.timed_steps / samples_wanted);
    args.max_samples = samples_wanted;
    args.samples = impl_->samples.get();
    args.stats = impl_->stats.get();

    switch (request.path) {
        case LoadPath::none: launch_chase<LoadPath::none>(args, request.carveout_percent, 0); break;
        case LoadPath::l1: launch_chase<LoadPath::l1>(args, request.carveout_percent, 0); break;
        case LoadPath::l2: launch_chase<LoadPath::l2>(args, request.carveout_percent, 0); break;
        case LoadPath::shared: {
            if (request.ring.stride_bytes % sizeof(unsigned) != 0)
                throw std::invalid_argument("shared ring stride must be a multiple of 4 bytes");
            launch_chase<LoadPath::shared>(args, request.carveout_percent,
                                           std::size_t(request.ring.elements) * request.ring.stride_bytes);
            break;
        }
    }

    ChaseResult result;
    result.cycles.resize(samples_wanted);
    check(cudaMemcpy(result.cycles.data(), impl_->samples.get(), samples_wanted * sizeof(unsigned),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy(samples)");
    unsigned long long stats[4] = {};
    check(cudaMemcpy(stats, impl_->stats.get(), sizeof(stats), cudaMemcpyDeviceToHost), "cudaMemcpy(stats)");
    result.timed_cycles = stats[0];
    result.timed_ns = stats[1];
    result.sm_id = static_cast<std::uint32_t>(stats[2]);
    return result;
}

void ChaseEngine::flush_l2(std::size_t offset, std::size_t bytes) {
    if (offset + bytes > impl_->buffer.bytes()) throw std::invalid_argument("flush region exceeds the buffer");
    flush_kernel<<<impl_->sm_count * 8, 512>>>(
        reinterpret_cast<const unsigned long long*>(impl_->buffer.get() + offset), bytes / 8, impl_->stats.get());
    check_launch("flush_kernel");
}

void ChaseEngine::warm_up(double milliseconds) {
    spin_kernel<<<impl_->sm_count, 32>>>(static_cast<unsigned long long>(milliseconds * 1e6), impl_->stats.get());
    check_launch("spin_kernel");
}

}  // namespace gpu_topology::kernels
