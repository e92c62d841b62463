// The CUDA implementation of kernels::Engine: the pointer-chase program
// kernel, the ring linker, the streaming kernel and the resources they use.
#include "cuda_check.hpp"
#include "cuda_engine.hpp"
#include "cuda_event.hpp"
#include "device_buffer.hpp"
#include "device_clocks.cuh"
#include "read_kernels.hpp"
#include "shared_kernels.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace gpu_topology::kernels {
namespace {

// 64 KiB: the most __constant__ data one module may hold. Constant rings live here.
constexpr std::size_t kConstantWords = 65536 / sizeof(unsigned long long);
__constant__ unsigned long long constant_ring[kConstantWords];

// One dependent load per path. `asm volatile` keeps the compiler from merging,
// hoisting or re-caching loads; the PTX instruction selects the path. The
// texture fetch is an intrinsic, kept by the dependency chain.
template <LoadPath P>
__device__ __forceinline__ unsigned long long load_next(unsigned long long cursor, cudaTextureObject_t texture) {
    unsigned long long next = cursor;
    if constexpr (P == LoadPath::l1) {
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    } else if constexpr (P == LoadPath::l2) {
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    } else if constexpr (P == LoadPath::readonly) {
        asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    } else if constexpr (P == LoadPath::texture) {
        next = tex1Dfetch<uint2>(texture, static_cast<int>(cursor)).x;
    } else if constexpr (P == LoadPath::constant) {
        asm volatile("ld.const.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    } else if constexpr (P == LoadPath::shared) {
        unsigned word;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(word) : "r"(static_cast<unsigned>(cursor)) : "memory");
        next = word;
    }
    return next;
}

// Calls f(std::integral_constant<LoadPath, path>{}) so each path gets its own
// compiled loop: the path is decided once per phase, never inside the loop.
template <typename F>
__device__ __forceinline__ unsigned long long with_path(LoadPath path, F&& f) {
    switch (path) {
        case LoadPath::l1: return f(std::integral_constant<LoadPath, LoadPath::l1>{});
        case LoadPath::l2: return f(std::integral_constant<LoadPath, LoadPath::l2>{});
        case LoadPath::readonly: return f(std::integral_constant<LoadPath, LoadPath::readonly>{});
        case LoadPath::texture: return f(std::integral_constant<LoadPath, LoadPath::texture>{});
        case LoadPath::constant: return f(std::integral_constant<LoadPath, LoadPath::constant>{});
        case LoadPath::shared: return f(std::integral_constant<LoadPath, LoadPath::shared>{});
        case LoadPath::none: break;
    }
    return f(std::integral_constant<LoadPath, LoadPath::none>{});
}

// One step of a program: lane 0 of warp `warp` walks `untimed_steps` loads,
// then times `timed_steps` more. Phases run one after another. A phase with
// `fill_elements` first has every thread of the block load cursors
// start, start + fill_step, ... (a sequential ring in address order), `fill_passes` times,
// each lane taking `fill_group` neighbours in turn (see kFillGroupBytes).
struct Phase {
    unsigned long long start = 0;  // first cursor (ignored for shared: the ring's base)
    unsigned long long untimed_steps = 0;
    unsigned timed_steps = 0;
    unsigned warp = 0;
    LoadPath path = LoadPath::none;
    unsigned fill_elements = 0;
    unsigned fill_passes = 0;
    unsigned long long fill_step = 0;
    unsigned fill_group = 1;
};

// Threads per block when a phase fills: enough loads in flight to stream a
// ring through one SM's memory pipeline (warps beyond this add little).
constexpr unsigned kFillThreads = 512;
// Lanes of a warp that load the same line make one request, where the chase
// makes one per element. So each lane loads the elements of its own
// kFillGroupBytes block (at least a line) one by one: the fill makes the same
// requests per line as the chase, and blocks still go in address order.
// (Measured on the H200: it did not change the L2 spans; the timed window did.)
constexpr unsigned kFillGroupBytes = 256;

constexpr int kMaxPhases = 3;

struct ProgramArgs {
    Phase phases[kMaxPhases];
    int phase_count;
    unsigned shared_elements;  // > 0: build a ring in dynamic shared memory first
    unsigned shared_stride_bytes;
    cudaTextureObject_t texture;
    unsigned record_every;
    unsigned max_samples;
    unsigned* samples;
    unsigned long long* stats;  // [0] cycles, [1] ns, [2] the plain kernel's dependency store, [3] sink
};

// A timed load's sample, stored without taking an L1 line: st.global.cg still
// allocated its lines in L1 on the H200, and the 4 KiB of 1024 samples pushed
// the chased ring out of L1 about 4 KiB before a chase without stores
// (bench/l1_miss_sources.cu, docs/records/l1-per-launch.md).
// The eviction-priority qualifier needs sm_70 (and PTX ISA 7.4); older GPUs
// keep the .cg store, the closest they have.
__device__ __forceinline__ void store_sample(unsigned* address, unsigned value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("st.global.L1::no_allocate.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
#else
    __stcg(address, value);
#endif
}

// Fine-grained pointer chase (Mei & Chu): each load is bracketed by two clock
// reads, and a store of the loaded value to shared memory sits before the
// second read, so the second read cannot issue before the load returned.
template <LoadPath P>
__device__ __forceinline__ unsigned long long timed_walk(unsigned long long cursor, unsigned steps,
                                                         const ProgramArgs& args, volatile unsigned* dependency) {
    unsigned recorded = 0;
    unsigned countdown = 0;
    const long long cycles_begin = sm_clock();
    const unsigned long long ns_begin = global_ns();
    for (unsigned i = 0; i < steps; ++i) {
        const long long before = sm_clock();
        cursor = load_next<P>(cursor, args.texture);
        *dependency = static_cast<unsigned>(cursor);
        const long long after = sm_clock();
        if (countdown == 0) {
            if (recorded < args.max_samples) store_sample(args.samples + recorded++, static_cast<unsigned>(after - before));
            countdown = args.record_every;
        }
        --countdown;
    }
    const long long cycles_end = sm_clock();
    const unsigned long long ns_end = global_ns();
    args.stats[0] = static_cast<unsigned long long>(cycles_end - cycles_begin);
    args.stats[1] = ns_end - ns_begin;
    return cursor;
}

// The program, run by every thread of the one block. `dependency` is where the
// timed walk stores each loaded value before its second clock read.
__device__ __forceinline__ void run_program(const ProgramArgs& args, unsigned* shared_ring,
                                            volatile unsigned* dependency) {
    unsigned shared_base = 0;
    if (args.shared_elements > 0) {
        shared_base = static_cast<unsigned>(__cvta_generic_to_shared(shared_ring));
        const unsigned words = args.shared_stride_bytes / sizeof(unsigned);
        for (unsigned i = threadIdx.x; i < args.shared_elements; i += blockDim.x)
            shared_ring[i * words] = shared_base + ((i + 1) % args.shared_elements) * args.shared_stride_bytes;
        __syncthreads();
    }

    unsigned long long sink = 0;
    for (int p = 0; p < args.phase_count; ++p) {
        const Phase phase = args.phases[p];
        if (phase.fill_elements > 0) {
            sink += with_path(phase.path, [&](auto path) {
                constexpr LoadPath P = decltype(path)::value;
                unsigned long long loaded = 0;
                const unsigned group = phase.fill_group;
                for (unsigned pass = 0; pass < phase.fill_passes; ++pass) {
                    for (unsigned first = threadIdx.x * group; first < phase.fill_elements; first += blockDim.x * group)
                        for (unsigned i = first; i < min(first + group, phase.fill_elements); ++i)
                            loaded += load_next<P>(phase.start + i * phase.fill_step, args.texture);
                    __syncthreads();  // a pass ends before the next one (or the timed walk) begins
                }
                return loaded;
            });
        }
        if (threadIdx.x == phase.warp * 32) {
            const unsigned long long start = phase.path == LoadPath::shared ? shared_base : phase.start;
            sink += with_path(phase.path, [&](auto path) {
                constexpr LoadPath P = decltype(path)::value;
                unsigned long long cursor = start;
                for (unsigned long long i = 0; i < phase.untimed_steps; ++i) cursor = load_next<P>(cursor, args.texture);
                if (phase.timed_steps > 0) cursor = timed_walk<P>(cursor, phase.timed_steps, args, dependency);
                return cursor;
            });
        }
        __syncthreads();
    }
    if (sink == 0x5a5a5a5a5a5a5a5aull) args.stats[3] = sink + *dependency;  // keeps every chain observable
}

// The probe's own chase kernel (ChaseKernel::probe): its timer's dependency is
// 4 bytes of static shared memory.
//
// Each carveout is passed per launch (cudaLaunchAttributePreferredSharedMemoryCarveout):
// the driver applied a function attribute changed after the function's first
// launch only partly (on the H200 every non-zero preference then gave the
// max-shared split), while the launch attribute gave the same L1 as a fresh
// function per carveout, in any order (bench/user_kernels.cu --explore,
// docs/l1-effective-capacity.md). Launches left to the driver's choice use
// instances that never get the attribute; the dynamic shared-memory limit of
// an instance is set once, before its first launch. One instance per slot.
template <int Slot>
__global__ void probe_chase_kernel(ProgramArgs args) {
    extern __shared__ unsigned shared_ring[];
    __shared__ volatile unsigned dependency_slot;
    run_program(args, shared_ring, &dependency_slot);
}

// The plain chase kernel (ChaseKernel::plain): no static shared memory, so the
// driver sees only what its launch declares; the timer's dependency store goes
// to global memory (stats[2]), which also waits for the load.
template <int Slot>
__global__ void plain_chase_kernel(ProgramArgs args) {
    extern __shared__ unsigned shared_ring[];
    run_program(args, shared_ring, reinterpret_cast<volatile unsigned*>(args.stats + 2));
}

__global__ void link_kernel(unsigned char* region, unsigned elements, unsigned stride_bytes, const unsigned* order,
                            unsigned long long first_value, unsigned long long value_step) {
    const unsigned step = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += step) {
        const unsigned from = order ? order[i] : i;
        const unsigned to = order ? order[(i + 1) % elements] : (i + 1) % elements;
        *reinterpret_cast<unsigned long long*>(region + static_cast<size_t>(from) * stride_bytes) =
            first_value + to * value_step;
    }
}

// The .const state-space address of constant_ring[0], which constant rings store.
__global__ void constant_base_kernel(unsigned long long* out) {
    unsigned long long address;
    asm("cvta.to.const.u64 %0, %1;" : "=l"(address) : "l"(reinterpret_cast<unsigned long long>(constant_ring)));
    *out = address;
}

__global__ void spin_kernel(unsigned long long duration_ns, unsigned long long* sink) {
    const unsigned long long end = global_ns() + duration_ns;
    unsigned long long spins = 0;
    while (global_ns() < end) ++spins;
    if (spins == 0) *sink = spins;
}

class TextureObject {
public:
    TextureObject() = default;
    TextureObject(void* data, std::size_t texels) {
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypeLinear;
        resource.res.linear.devPtr = data;
        resource.res.linear.desc = cudaCreateChannelDesc<uint2>();
        resource.res.linear.sizeInBytes = texels * sizeof(uint2);
        cudaTextureDesc texture{};
        texture.readMode = cudaReadModeElementType;
        check(cudaCreateTextureObject(&handle_, &resource, &texture, nullptr), "cudaCreateTextureObject");
        texels_ = texels;
    }
    TextureObject(TextureObject&& other) noexcept { *this = std::move(other); }
    TextureObject& operator=(TextureObject&& other) noexcept {
        std::swap(handle_, other.handle_);
        std::swap(texels_, other.texels_);
        return *this;
    }
    ~TextureObject() {
        if (handle_) cudaDestroyTextureObject(handle_);  // cannot throw from a destructor
    }
    cudaTextureObject_t get() const { return handle_; }
    std::size_t texels() const { return texels_; }

private:
    cudaTextureObject_t handle_ = 0;
    std::size_t texels_ = 0;
};

// The chase kernel's instances (see probe_chase_kernel): for each kernel, one
// left to the driver's choice and one launched with a carveout, each with and
// without dynamic shared memory (kernel_for). The last instance of each family
// is never launched: the occupancy calculator reads its attributes, which
// change per question (it knows no launch attributes).
using ProgramKernel = void (*)(ProgramArgs);
template <int Slot>
struct ProbeChase {
    static constexpr ProgramKernel kernel = &probe_chase_kernel<Slot>;
};
template <int Slot>
struct PlainChase {
    static constexpr ProgramKernel kernel = &plain_chase_kernel<Slot>;
};
template <template <int> class Kernel, int... Slots>
constexpr std::array<ProgramKernel, sizeof...(Slots)> instances(std::integer_sequence<int, Slots...>) {
    return {Kernel<Slots>::kernel...};
}
constexpr auto kProbeKernels = instances<ProbeChase>(std::make_integer_sequence<int, 5>{});
constexpr auto kPlainKernels = instances<PlainChase>(std::make_integer_sequence<int, 5>{});

void check_ring_fits(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                     std::size_t capacity) {
    if (elements < 1 || stride < 8 || stride % 8 != 0)
        throw std::invalid_argument("ring needs >= 1 element and a stride that is a multiple of 8 bytes");
    if (offset % 8 != 0 || offset + std::size_t(elements) * stride > capacity)
        throw std::invalid_argument(std::string(to_string(path)) + " ring of " + std::to_string(elements) + " x " +
                                    std::to_string(stride) + " B at offset " + std::to_string(offset) +
                                    " exceeds the " + std::to_string(capacity) + " B this path can hold");
}

void check_encoding(LoadPath path, const Ring& ring) {
    if (path != LoadPath::none && encoding_of(path) != ring.encoding)
        throw std::invalid_argument("a ring linked for another load path cannot be chased through " +
                                    std::string(to_string(path)));
}

// Selects the device before anything is allocated on it: every resource of
// the engine below lives on that device.
int select(int device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    return device;
}

// The engine's ring buffer: on `device` itself, or on `memory_device` (a peer
// that `device` reaches through peer access), so that the same chases and
// reads measure a link. Leaves `device` current.
DeviceBuffer<unsigned char> ring_buffer(int device, int memory_device, std::size_t bytes) {
    if (memory_device < 0 || memory_device == device) return DeviceBuffer<unsigned char>(bytes);
    enable_peer_access(device, memory_device);
    check(cudaSetDevice(memory_device), "cudaSetDevice(memory device)");
    DeviceBuffer<unsigned char> buffer(bytes);
    check(cudaSetDevice(device), "cudaSetDevice");
    return buffer;
}

class CudaEngine final : public Engine {
public:
    CudaEngine(int device, std::size_t buffer_bytes, int memory_device);

    std::size_t buffer_bytes() const override { return buffer_.bytes(); }
    std::size_t ring_capacity(LoadPath path) const override;
    Ring link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes) override;
    Ring link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                     std::uint64_t seed) override;
    ChaseResult chase(const ChaseRequest& request) override;
    ChaseResult chase_after(const ChaseRequest& victim, const Disturbance& other) override;
    void stream_l2(std::size_t offset, std::size_t bytes) override;
    double time_read(const ReadRequest& request) override;
    double time_reference_work() override;
    LaunchShape launch_shape(const KernelLaunch& launch) override;
    void warm_up(double milliseconds) override;
    SharedAccessTiming time_shared_access(const SharedAccess& access) override {
        return launch_shared_access(access, stats_.get());
    }
    std::uint32_t max_cluster_blocks() override { return query_max_cluster_blocks(device_); }
    ChaseResult chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) override;
    ClusterRead time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) override {
        return launch_cluster_read(cluster_blocks, remote, passes, stats_.get());
    }

private:
    // Launches the program as `request` says (kernel, carveout, block size; its
    // timed steps and samples); records `max_samples` of the timed loads, evenly spaced.
    ChaseResult run(ProgramArgs args, const ChaseRequest& request);
    // The instance of `kernel` that launches at `carveout_percent` with
    // `dynamic_shared` bytes; its attributes are set once, before its first launch.
    ProgramKernel kernel_for(ChaseKernel kernel, int carveout_percent, std::size_t dynamic_shared);
    // Links a ring for `path`, in address order when `order` is empty, else in that order.
    Ring link(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
              const std::vector<unsigned>& order);
    // The cursor value of a ring's first element, in the ring's encoding.
    unsigned long long start_of(const Ring& ring) const;

    int device_;
    int sm_count_ = 0;
    std::size_t shared_optin_bytes_ = 0;  // dynamic shared memory one block of the probe's kernel may opt in to
    std::uint32_t probe_static_shared_ = 0;  // static shared memory of the probe's kernel
    DeviceBuffer<unsigned char> buffer_;
    DeviceBuffer<unsigned> samples_;
    DeviceBuffer<unsigned long long> stats_;
    DeviceBuffer<unsigned> order_;  // random ring permutation, grown on demand
    TextureObject texture_;         // over the buffer, as 8-byte texels
    unsigned long long constant_base_ = 0;
    // What each instance in use launches: (left to the driver, dynamic shared limit).
    std::vector<std::pair<bool, std::size_t>> probe_slots_, plain_slots_;
};

CudaEngine::CudaEngine(int device, std::size_t buffer_bytes, int memory_device)
    : device_(select(device)), buffer_(ring_buffer(device, memory_device, buffer_bytes)), stats_(4) {
    check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_),
          "cudaDeviceGetAttribute(MultiProcessorCount)");
    int optin = 0;
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_),
          "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)");
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, kProbeKernels[0]), "cudaFuncGetAttributes(probe_chase_kernel)");
    probe_static_shared_ = static_cast<std::uint32_t>(attributes.sharedSizeBytes);
    // Dynamic shared memory may use what the opt-in limit leaves beside the kernel's static shared memory.
    shared_optin_bytes_ = static_cast<std::size_t>(optin) - attributes.sharedSizeBytes;
    check(cudaMemset(buffer_.get(), 0, buffer_bytes), "cudaMemset(ring buffer)");

    int max_texels = 0;
    check(cudaDeviceGetAttribute(&max_texels, cudaDevAttrMaxTexture1DLinearWidth, device_),
          "cudaDeviceGetAttribute(MaxTexture1DLinearWidth)");
    // A peer's memory is read through global loads only: texture rings stay on local buffers.
    if (memory_device < 0 || memory_device == device)
        texture_ = TextureObject(buffer_.get(), std::min<std::size_t>(buffer_bytes / 8, std::size_t(max_texels)));

    constant_base_kernel<<<1, 1>>>(stats_.get());
    check_launch("constant_base_kernel");
    check(cudaMemcpy(&constant_base_, stats_.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost),
          "cudaMemcpy(constant base)");
}

std::size_t CudaEngine::ring_capacity(LoadPath path) const {
    switch (encoding_of(path)) {
        case RingEncoding::global_address: return buffer_.bytes();
        case RingEncoding::texel_index: return texture_.texels() * 8;
        case RingEncoding::constant_address: return sizeof(constant_ring);
        case RingEncoding::shared_address: return shared_optin_bytes_;
        case RingEncoding::none: return 0;
    }
    return 0;
}

unsigned long long CudaEngine::start_of(const Ring& ring) const {
    switch (ring.encoding) {
        case RingEncoding::constant_address: return constant_base_ + ring.first_byte;
        case RingEncoding::texel_index: return ring.first_byte / 8;
        case RingEncoding::global_address: return reinterpret_cast<unsigned long long>(buffer_.get() + ring.first_byte);
        case RingEncoding::shared_address:  // the kernel starts at its shared ring's base
        case RingEncoding::none: break;
    }
    return 0;
}

Ring CudaEngine::link(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                      const std::vector<unsigned>& order) {
    const RingEncoding encoding = encoding_of(path);
    const auto position = [&](std::uint32_t i) -> std::size_t { return order.empty() ? i : order[i]; };
    const Ring ring{encoding, offset, offset + position(0) * stride_bytes, elements, stride_bytes, order.empty()};

    if (encoding == RingEncoding::constant_address) {
        // Constant memory is written from the host; 64 KiB at most.
        std::vector<unsigned long long> words(ring.footprint_bytes() / 8, 0);
        for (std::uint32_t i = 0; i < elements; ++i)
            words[position(i) * stride_bytes / 8] = constant_base_ + offset + position((i + 1) % elements) * stride_bytes;
        check(cudaMemcpyToSymbol(constant_ring, words.data(), words.size() * 8, offset), "cudaMemcpyToSymbol(ring)");
        return ring;
    }

    const unsigned* device_order = nullptr;
    if (!order.empty()) {
        if (order_.size() < elements) order_ = DeviceBuffer<unsigned>(elements);
        check(cudaMemcpy(order_.get(), order.data(), elements * sizeof(unsigned), cudaMemcpyHostToDevice),
              "cudaMemcpy(ring order)");
        device_order = order_.get();
    }
    const bool texels = encoding == RingEncoding::texel_index;
    const unsigned long long first_value =
        texels ? offset / 8 : reinterpret_cast<unsigned long long>(buffer_.get() + offset);
    const unsigned long long value_step = texels ? stride_bytes / 8 : stride_bytes;
    link_kernel<<<sm_count_ * 4, 256>>>(buffer_.get() + offset, elements, stride_bytes, device_order, first_value,
                                        value_step);
    check_launch("link_kernel");
    return ring;
}

Ring CudaEngine::link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes) {
    check_ring_fits(path, offset, elements, stride_bytes, ring_capacity(path));
    const RingEncoding encoding = encoding_of(path);
    if (encoding == RingEncoding::shared_address || encoding == RingEncoding::none)
        return Ring{encoding, 0, 0, elements, stride_bytes};  // the kernel builds it
    return link(path, offset, elements, stride_bytes, {});
}

Ring CudaEngine::link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride_bytes,
                             std::uint64_t seed) {
    check_ring_fits(path, offset, elements, stride_bytes, ring_capacity(path));
    const RingEncoding encoding = encoding_of(path);
    if (encoding == RingEncoding::shared_address || encoding == RingEncoding::none)
        throw std::invalid_argument(std::string(to_string(path)) + " rings are sequential only");
    std::vector<unsigned> order(elements);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    return link(path, offset, elements, stride_bytes, order);
}

ProgramKernel CudaEngine::kernel_for(ChaseKernel kernel, int carveout_percent, std::size_t dynamic_shared) {
    const bool plain = kernel == ChaseKernel::plain;
    const auto& family = plain ? kPlainKernels : kProbeKernels;
    auto& slots = plain ? plain_slots_ : probe_slots_;
    // Launches without dynamic shared memory keep instances whose limit is left
    // alone; the others vary their size on instances whose limit is the most a
    // block may opt in to (a limit of 100 KiB did not change the split of launches
    // with less: bench/user_kernels.cu --explore).
    const std::size_t optin = plain ? shared_optin_bytes_ + probe_static_shared_ : shared_optin_bytes_;
    if (dynamic_shared > optin)
        throw std::invalid_argument(std::to_string(dynamic_shared) + " B of dynamic shared memory exceed the " +
                                    std::to_string(optin) + " B a block may opt in to");
    const std::size_t limit = dynamic_shared == 0 ? 0 : optin;
    const std::pair<bool, std::size_t> key{carveout_percent < 0, limit};
    for (std::size_t slot = 0; slot < slots.size(); ++slot)
        if (slots[slot] == key) return family[slot];
    if (slots.size() + 1 == family.size())  // the last instance answers the occupancy calculator
        throw std::logic_error("more launch configurations of the " + std::string(to_string(kernel)) +
                               " chase kernel than instances (" + std::to_string(family.size() - 1) + ")");
    const ProgramKernel instance = family[slots.size()];
    if (limit > 0)
        check(cudaFuncSetAttribute(instance, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)),
              "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    slots.push_back(key);
    return instance;
}

ChaseResult CudaEngine::run(ProgramArgs args, const ChaseRequest& request) {
    const std::uint32_t samples_wanted = std::min(request.max_samples, request.timed_steps);
    if (samples_.size() < samples_wanted) samples_ = DeviceBuffer<unsigned>(samples_wanted);
    args.record_every = samples_wanted == 0 ? 1 : std::max(1u, request.timed_steps / samples_wanted);
    args.texture = texture_.get();
    args.max_samples = samples_wanted;
    args.samples = samples_.get();
    args.stats = stats_.get();

    unsigned warps = 1;
    for (int p = 0; p < args.phase_count; ++p) {
        warps = std::max(warps, args.phases[p].warp + 1);
        if (args.phases[p].fill_elements > 0) warps = std::max(warps, kFillThreads / 32);
    }
    const unsigned threads = std::max(32 * warps, request.threads_per_block);
    const std::size_t ring_shared = std::size_t(args.shared_elements) * args.shared_stride_bytes;
    if (request.kernel == ChaseKernel::plain && ring_shared > 0)
        throw std::invalid_argument("the plain chase kernel chases no shared-memory rings");
    const std::size_t dynamic_shared = request.kernel == ChaseKernel::plain ? request.dynamic_shared_bytes : ring_shared;
    if (request.kernel == ChaseKernel::probe && request.dynamic_shared_bytes != 0)
        throw std::invalid_argument("only the plain chase kernel declares dynamic shared memory of its own");

    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = dynamic_shared;
    cudaLaunchAttribute carveout{};
    if (request.carveout_percent >= 0) {
        carveout.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        carveout.val.sharedMemCarveout = static_cast<unsigned>(request.carveout_percent);
        config.attrs = &carveout;
        config.numAttrs = 1;
    }
    const ProgramKernel kernel = kernel_for(request.kernel, request.carveout_percent, dynamic_shared);
    check(cudaLaunchKernelEx(&config, kernel, args), "cudaLaunchKernelEx(chase kernel)");
    check_launch("chase kernel");

    ChaseResult result;
    result.cycles.resize(samples_wanted);
    check(cudaMemcpy(result.cycles.data(), samples_.get(), samples_wanted * sizeof(unsigned), cudaMemcpyDeviceToHost),
          "cudaMemcpy(samples)");
    unsigned long long host_stats[4] = {};
    check(cudaMemcpy(host_stats, stats_.get(), sizeof(host_stats), cudaMemcpyDeviceToHost), "cudaMemcpy(stats)");
    result.timed_cycles = host_stats[0];
    result.timed_ns = host_stats[1];
    return result;
}

ChaseResult CudaEngine::chase(const ChaseRequest& request) {
    check_encoding(request.path, request.ring);

    ProgramArgs args{};
    Phase& phase = args.phases[0];
    phase.path = request.path;
    phase.start = start_of(request.ring);
    if (request.warming == Warming::fill && request.warm_passes > 0) {
        if (!fillable(request.ring))
            throw std::invalid_argument("only global and texture rings linked in address order can be warmed by filling");
        phase.fill_elements = request.ring.elements;
        phase.fill_passes = request.warm_passes;
        phase.fill_step = request.ring.encoding == RingEncoding::texel_index ? request.ring.stride_bytes / 8
                                                                             : request.ring.stride_bytes;
        phase.fill_group = std::max(1u, kFillGroupBytes / request.ring.stride_bytes);
    } else {
        phase.untimed_steps = static_cast<unsigned long long>(request.warm_passes) * request.ring.elements;
    }
    phase.timed_steps = request.timed_steps;
    args.phase_count = 1;
    if (request.path == LoadPath::shared) {
        if (request.ring.stride_bytes % sizeof(unsigned) != 0)
            throw std::invalid_argument("shared ring stride must be a multiple of 4 bytes");
        args.shared_elements = request.ring.elements;
        args.shared_stride_bytes = request.ring.stride_bytes;
    }
    return run(args, request);
}

ChaseResult CudaEngine::chase_after(const ChaseRequest& victim, const Disturbance& other) {
    if (victim.path == LoadPath::shared || other.path == LoadPath::shared)
        throw std::invalid_argument("chase_after works on cached paths, not on shared memory");
    check_encoding(victim.path, victim.ring);
    check_encoding(other.path, other.ring);
    if (other.warp >= 32) throw std::invalid_argument("the disturbing warp must be < 32");

    ProgramArgs args{};
    args.phases[0] = {.start = start_of(victim.ring),
                      .untimed_steps = std::max(1u, victim.warm_passes) * std::uint64_t(victim.ring.elements),
                      .warp = 0,
                      .path = victim.path};
    args.phases[1] = {.start = start_of(other.ring),
                      .untimed_steps = std::uint64_t(other.passes) * other.ring.elements,
                      .warp = other.warp,
                      .path = other.path};
    // Full passes end where they began, so the timed phase starts at the ring's start.
    args.phases[2] = {.start = start_of(victim.ring), .timed_steps = victim.timed_steps, .warp = 0, .path = victim.path};
    args.phase_count = 3;
    return run(args, victim);
}

void CudaEngine::stream_l2(std::size_t offset, std::size_t bytes) {
    launch_read({.pattern = ReadPattern::streaming, .op = CacheOp::cg, .offset = offset, .bytes = bytes, .passes = 1,
                 .threads = 512, .blocks_per_sm = 4},
                buffer_.get(), buffer_.bytes(), sm_count_, stats_.get());
}

double CudaEngine::time_read(const ReadRequest& request) {
    return launch_read(request, buffer_.get(), buffer_.bytes(), sm_count_, stats_.get());
}

double CudaEngine::time_reference_work() {
    return Event::time([&] { launch_reference_work(sm_count_, stats_.get()); });
}

LaunchShape CudaEngine::launch_shape(const KernelLaunch& launch) {
    const bool plain = launch.kernel == ChaseKernel::plain;
    if (!plain && launch.dynamic_shared_bytes != 0)
        throw std::invalid_argument("only the plain chase kernel declares dynamic shared memory of its own");
    // The family's last instance is never launched, so its attributes may change with every question.
    const ProgramKernel asked = (plain ? kPlainKernels : kProbeKernels).back();
    check(cudaFuncSetAttribute(asked, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(launch.dynamic_shared_bytes)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    check(cudaFuncSetAttribute(asked, cudaFuncAttributePreferredSharedMemoryCarveout, launch.carveout_percent),
          "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, asked, static_cast<int>(launch.threads_per_block),
                                                        launch.dynamic_shared_bytes),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return {launch.threads_per_block, static_cast<std::uint32_t>(blocks),
            (plain ? 0 : probe_static_shared_) + launch.dynamic_shared_bytes};
}

void CudaEngine::warm_up(double milliseconds) {
    spin_kernel<<<sm_count_, 32>>>(static_cast<unsigned long long>(milliseconds * 1e6), stats_.get());
    check_launch("spin_kernel");
}

ChaseResult CudaEngine::chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) {
    if (samples_.size() < kClusterChaseSamples) samples_ = DeviceBuffer<unsigned>(kClusterChaseSamples);
    return launch_cluster_chase(cluster_blocks, reader, samples_.get(), stats_.get());
}

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(int device, std::size_t buffer_bytes, int memory_device) {
    return std::make_unique<CudaEngine>(device, buffer_bytes, memory_device);
}

}  // namespace gpu_topology::kernels
