#pragma once
// The chase program's device code: the loads of each path, the timed walk and the
// program every chase kernel runs. Two modules instantiate it (nvcc compiles them at
// once: each has half of the kernel instances to optimise): pchase.cu, the probe's
// kernel (ChaseKernel::probe), and plain_chase.cu, the plain kernel. Each module has
// its own copy of everything here, the __constant__ array included.
#include "chase_program.hpp"
#include "device_clocks.cuh"

#include <array>
#include <type_traits>
#include <utility>

namespace gpu_topology::kernels {
namespace {

// 64 KiB: the most __constant__ data one module may hold. Constant rings live in
// pchase.cu's (constant_ring_symbol); plain_chase.cu's stays unwritten, so the engine
// runs constant programs in the probe's kernel only.
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

// A kernel's instances, one per slot (kChaseKernelInstances): the driver keeps a
// function's attributes, so each launch configuration gets its own (pchase.cu says why).
using ProgramKernel = void (*)(ProgramArgs);
template <template <int> class Kernel, int... Slots>
constexpr std::array<ProgramKernel, sizeof...(Slots)> instances(std::integer_sequence<int, Slots...>) {
    return {Kernel<Slots>::kernel...};
}

}  // namespace
}  // namespace gpu_topology::kernels
