#pragma once
// What every kernel of the engine shares: the two clocks a timed loop reads,
// and the sentinel that keeps loaded values live. Device code only.

namespace gpu_topology::kernels {

// SM clock cycles (clock64); `volatile` and the memory clobber keep it in place.
__device__ __forceinline__ long long sm_clock() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

// Nanoseconds of the GPU's global timer: with sm_clock, the clock a loop ran at.
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// A 32-bit fold of loaded data practically never equals this: a store guarded
// by the comparison keeps the loads without ever happening.
inline constexpr unsigned kNever = 0x5a5a5a5au;

}  // namespace gpu_topology::kernels
