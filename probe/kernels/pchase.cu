// The device side of the CUDA engine: the pointer-chase program kernel and its
// instances, the ring linker, the constant array and the spin kernel, with the
// launchers chase_program.hpp declares. The engine itself (cuda_engine.cpp) is
// host code.
#include "chase_program.hpp"
#include "cuda_check.hpp"
#include "device_clocks.cuh"

#include <array>
#include <type_traits>
#include <utility>

namespace gpu_topology::kernels {
namespace {

// 64 KiB: the most __constant__ data one module may hold. Constant rings live here.
__constant__ unsigned long long constant_ring[kConstantRingBytes / sizeof(unsigned long long)];

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
// A toolkit without the launch attribute (chase_program.hpp) gets a fresh
// instance per carveout instead, its function attribute set before its first launch.
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

// The chase kernel's instances (see probe_chase_kernel and kChaseKernelInstances):
// the engine's kernel_for hands them out per launch configuration; the last one
// is the one the occupancy calculator reads.
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
constexpr auto kProbeKernels = instances<ProbeChase>(std::make_integer_sequence<int, kChaseKernelInstances>{});
constexpr auto kPlainKernels = instances<PlainChase>(std::make_integer_sequence<int, kChaseKernelInstances>{});

}  // namespace

const void* chase_kernel(ChaseKernel kernel, int slot) {
    const auto& family = kernel == ChaseKernel::plain ? kPlainKernels : kProbeKernels;
    return reinterpret_cast<const void*>(family.at(static_cast<std::size_t>(slot)));
}

int chase_kernel_instances() { return kChaseKernelInstances; }

const void* constant_ring_symbol() { return reinterpret_cast<const void*>(&constant_ring); }

unsigned long long constant_ring_base(unsigned long long* scratch) {
    constant_base_kernel<<<1, 1>>>(scratch);
    check_launch("constant_base_kernel");
    unsigned long long base = 0;
    check(cudaMemcpy(&base, scratch, sizeof base, cudaMemcpyDeviceToHost), "cudaMemcpy(constant base)");
    return base;
}

void launch_link(unsigned char* region, unsigned elements, unsigned stride_bytes, const unsigned* order,
                 unsigned long long first_value, unsigned long long value_step, int sm_count) {
    link_kernel<<<sm_count * 4, 256>>>(region, elements, stride_bytes, order, first_value, value_step);
    check_launch("link_kernel");
}

void launch_spin(int sm_count, unsigned long long duration_ns, unsigned long long* sink) {
    spin_kernel<<<sm_count, 32>>>(duration_ns, sink);
    check_launch("spin_kernel");
}

}  // namespace gpu_topology::kernels
