#pragma once
// The chase program (pchase.cu) as the host engine (cuda_engine.cpp) sees it:
// the arguments of one launch, and the kernels and their launchers, named
// through the runtime's C API. The device code stays in pchase.cu, compiled by
// nvcc; the engine is host code, compiled by the C++ compiler.
#include "engine.hpp"
#include "load_path.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpu_topology::kernels {

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
inline constexpr unsigned kFillThreads = 512;
// Lanes of a warp that load the same line make one request, where the chase
// makes one per element. So each lane loads the elements of its own
// kFillGroupBytes block (at least a line) one by one: the fill makes the same
// requests per line as the chase, and blocks still go in address order.
// (Measured on the H200: it did not change the L2 spans; the timed window did.)
inline constexpr unsigned kFillGroupBytes = 256;

inline constexpr int kMaxPhases = 3;

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

// Whether a launch carries its own carveout (cudaLaunchAttributePreferredSharedMemoryCarveout):
// CUDA 12.6's headers have it, 12.4's do not. Without it, each carveout gets an instance of
// its own whose function attribute is set once, before its first launch, which gives the
// split the launch attribute gives (pchase.cu says why). GPU_TOPOLOGY_CARVEOUT_PER_INSTANCE
// builds that way with any toolkit, to check it against the launch attribute.
// A macro, not only the constant: without the launch attribute its name must not be compiled.
#if CUDART_VERSION >= 12060 && !defined(GPU_TOPOLOGY_CARVEOUT_PER_INSTANCE)
#define GPU_TOPOLOGY_CARVEOUT_PER_LAUNCH 1
#else
#define GPU_TOPOLOGY_CARVEOUT_PER_LAUNCH 0
#endif
inline constexpr bool kCarveoutPerLaunch = GPU_TOPOLOGY_CARVEOUT_PER_LAUNCH == 1;
// Instances of each chase kernel (ChaseKernel::probe, ::plain): the driver
// keeps a function's attributes, so each launch configuration gets its own
// instance (pchase.cu says why), one per (carveout, dynamic shared-memory limit):
// with a carveout per launch, "the driver's" and "any", with and without dynamic
// shared memory (4); else one per carveout and limit: the probe's kernel at 11
// carveouts and once with shared rings (12), the plain one at 8 carveouts with and 7
// without dynamic shared memory (15; stage_l1.cpp's table). The last one is never
// launched: the occupancy calculator reads its attributes, which change per question.
// 24 instances take pchase.cu's compile from 7 to 12 s of the probe's build on an H100 machine.
inline constexpr int kChaseKernelInstances = kCarveoutPerLaunch ? 5 : 24;
// Instance `slot` of `kernel`, for cudaLaunchKernelExC and cudaFuncSetAttribute.
const void* chase_kernel(ChaseKernel kernel, int slot);
// The instances pchase.cu was compiled with: the engine checks them against its own count, so
// GPU_TOPOLOGY_CARVEOUT_PER_INSTANCE given to one compiler only fails at once, not at slot 5.
int chase_kernel_instances();

// The engine's __constant__ array, where constant rings live (64 KiB: one module's limit).
inline constexpr std::size_t kConstantRingBytes = 65536;
const void* constant_ring_symbol();
// The .const state-space address of the array's first byte, which constant rings store
// (`scratch`: one word of device memory).
unsigned long long constant_ring_base(unsigned long long* scratch);

// Links `elements` 8-byte elements `stride_bytes` apart from `region`, element
// order[i] pointing at order[i + 1] (address order when `order` is null); each
// holds first_value + (its successor's position) * value_step. Checked, synchronised.
void launch_link(unsigned char* region, unsigned elements, unsigned stride_bytes, const unsigned* order,
                 unsigned long long first_value, unsigned long long value_step, int sm_count);

// Keeps `sm_count` SMs busy for `duration_ns` (`sink`: one word of device memory). Checked, synchronised.
void launch_spin(int sm_count, unsigned long long duration_ns, unsigned long long* sink);

}  // namespace gpu_topology::kernels
