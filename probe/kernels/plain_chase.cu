// The plain chase kernel and its instances, in a module of their own: nvcc compiles it
// beside pchase.cu, each with half of the chase kernel's instances to optimise. Its
// __constant__ array stays unwritten (chase_device.cuh).
#include "chase_device.cuh"

namespace gpu_topology::kernels {
namespace {

// The plain chase kernel (ChaseKernel::plain): no static shared memory, so the
// driver sees only what its launch declares; the timer's dependency store goes
// to global memory (stats[2]), which also waits for the load.
template <int Slot>
__global__ void plain_chase_kernel(ProgramArgs args) {
    extern __shared__ unsigned shared_ring[];
    run_program(args, shared_ring, reinterpret_cast<volatile unsigned*>(args.stats + 2));
}

template <int Slot>
struct PlainChase {
    static constexpr ProgramKernel kernel = &plain_chase_kernel<Slot>;
};
constexpr auto kPlainKernels = instances<PlainChase>(std::make_integer_sequence<int, kChaseKernelInstances>{});

}  // namespace

const void* plain_chase_instance(int slot) {
    return reinterpret_cast<const void*>(kPlainKernels.at(static_cast<std::size_t>(slot)));
}

}  // namespace gpu_topology::kernels
