// The CUDA implementation of kernels::Engine: host code that links rings,
// fills in the chase program (chase_program.hpp, its kernels in pchase.cu) and
// launches it, and the other kernels' launchers, through the runtime's C API.
#include "chase_program.hpp"
#include "cuda_check.hpp"
#include "cuda_engine.hpp"
#include "cuda_event.hpp"
#include "device_buffer.hpp"
#include "read_kernels.hpp"
#include "ring_checks.hpp"
#include "shared_kernels.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpu_topology::kernels {
namespace {

class TextureObject {
public:
    TextureObject() = default;
    TextureObject(void* data, std::size_t texels) {
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypeLinear;
        resource.res.linear.devPtr = data;
        resource.res.linear.desc = cudaCreateChannelDesc(32, 32, 0, 0, cudaChannelFormatKindUnsigned);  // 8-byte texels
        resource.res.linear.sizeInBytes = texels * 8;
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
    const void* kernel_for(ChaseKernel kernel, int carveout_percent, std::size_t dynamic_shared);
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
    // What each instance in use launches: (-1 left to the driver, else its carveout or, with a carveout
    // per launch, 0 for any; dynamic shared limit).
    std::vector<std::pair<int, std::size_t>> probe_slots_, plain_slots_;
};

CudaEngine::CudaEngine(int device, std::size_t buffer_bytes, int memory_device)
    : device_(select(device)), buffer_(ring_buffer(device, memory_device, buffer_bytes)), stats_(4) {
    if (chase_kernel_instances() != kChaseKernelInstances)
        throw std::logic_error("the chase kernels were compiled with " + std::to_string(chase_kernel_instances()) +
                               " instances and the engine with " + std::to_string(kChaseKernelInstances) +
                               ": GPU_TOPOLOGY_CARVEOUT_PER_INSTANCE must reach nvcc and the C++ compiler alike");
    check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_),
          "cudaDeviceGetAttribute(MultiProcessorCount)");
    int optin = 0;
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_),
          "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)");
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, chase_kernel(ChaseKernel::probe, 0)),
          "cudaFuncGetAttributes(probe_chase_kernel)");
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

    constant_base_ = constant_ring_base(stats_.get());
}

std::size_t CudaEngine::ring_capacity(LoadPath path) const {
    switch (encoding_of(path)) {
        case RingEncoding::global_address: return buffer_.bytes();
        case RingEncoding::texel_index: return texture_.texels() * 8;
        case RingEncoding::constant_address: return kConstantRingBytes;
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
        check(cudaMemcpyToSymbol(constant_ring_symbol(), words.data(), words.size() * 8, offset, cudaMemcpyHostToDevice),
              "cudaMemcpyToSymbol(ring)");
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
    launch_link(buffer_.get() + offset, elements, stride_bytes, device_order, first_value, value_step, sm_count_);
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

const void* CudaEngine::kernel_for(ChaseKernel kernel, int carveout_percent, std::size_t dynamic_shared) {
    const bool plain = kernel == ChaseKernel::plain;
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
    // With a carveout per launch, one instance serves every carveout (the key's 0).
    const std::pair<int, std::size_t> key{carveout_percent < 0 ? -1 : kCarveoutPerLaunch ? 0 : carveout_percent, limit};
    for (std::size_t slot = 0; slot < slots.size(); ++slot)
        if (slots[slot] == key) return chase_kernel(kernel, static_cast<int>(slot));
    if (slots.size() + 1 == kChaseKernelInstances)  // the last instance answers the occupancy calculator
        throw std::logic_error("more launch configurations of the " + std::string(to_string(kernel)) +
                               " chase kernel than instances (" + std::to_string(kChaseKernelInstances - 1) + ")");
    const void* instance = chase_kernel(kernel, static_cast<int>(slots.size()));
    if (limit > 0)
        check(cudaFuncSetAttribute(instance, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)),
              "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    if (!kCarveoutPerLaunch && carveout_percent >= 0)
        check(cudaFuncSetAttribute(instance, cudaFuncAttributePreferredSharedMemoryCarveout, carveout_percent),
              "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
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
#if GPU_TOPOLOGY_CARVEOUT_PER_LAUNCH
    cudaLaunchAttribute carveout{};
    if (request.carveout_percent >= 0) {
        carveout.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        carveout.val.sharedMemCarveout = static_cast<unsigned>(request.carveout_percent);
        config.attrs = &carveout;
        config.numAttrs = 1;
    }
#endif
    const void* kernel = kernel_for(request.kernel, request.carveout_percent, dynamic_shared);
    void* parameters[] = {&args};
    check(cudaLaunchKernelExC(&config, kernel, parameters), "cudaLaunchKernelExC(chase kernel)");
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
    const void* asked = chase_kernel(launch.kernel, kChaseKernelInstances - 1);
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
    launch_spin(sm_count_, static_cast<unsigned long long>(milliseconds * 1e6), stats_.get());
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
