// The device side of the CUDA engine: the probe's chase kernel and its instances
// (the program itself: chase_device.cuh; the plain kernel: plain_chase.cu), the ring
// linker, the constant array's address and the spin kernel, with the launchers
// chase_program.hpp declares. The engine itself (cuda_engine.cpp) is host code.
#include "chase_device.cuh"
#include "cuda_check.hpp"

namespace gpu_topology::kernels {
namespace {

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

// The probe kernel's instances: for each kernel, one left to the driver's choice and
// one launched with a carveout, each with and without dynamic shared memory (the
// engine's kernel_for), and the one the occupancy calculator reads.
template <int Slot>
struct ProbeChase {
    static constexpr ProgramKernel kernel = &probe_chase_kernel<Slot>;
};
constexpr auto kProbeKernels = instances<ProbeChase>(std::make_integer_sequence<int, kChaseKernelInstances>{});

}  // namespace

const void* chase_kernel(ChaseKernel kernel, int slot) {
    if (kernel == ChaseKernel::plain) return plain_chase_instance(slot);
    return reinterpret_cast<const void*>(kProbeKernels.at(static_cast<std::size_t>(slot)));
}

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
