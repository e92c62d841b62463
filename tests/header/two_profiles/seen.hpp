// What one translation unit of the two-profiles test sees of the facts it was
// compiled against, at compile time (its own, whatever the linker does) and at
// run time (through the definitions the linker kept). Fact-free: main.cpp
// includes no generated header, as a dispatcher over several GPUs' kernels would.
#pragma once

#include <gpu_topology/stencil_model.hpp>

#include <cstdint>

// Arguments main passes at run time, so that nothing here folds them to constants.
struct Asked {
    int carveout_percent;
    std::uint32_t threads_per_block, shared_bytes_per_block;
    gpu_topology::grid_extent grid;
    std::uint32_t radius, stencil_threads;
};
// The arguments the constants were computed with, for main to pass: the stored H100
// and H200 profiles answer them differently (l1_bytes_at 90112 and 91136 B, another
// block for this grid), which is what lets the test tell the two apart.
inline constexpr Asked kAsked{7, 256, 16, {384, 1024, 256}, 4, 64};

template <typename T>
struct Both {
    T at_compile_time, at_run_time;
};
struct Seen {
    const char* device_name;                // gpu_topology::identity
    const void* l2_address;                 // &gpu_topology::l2 (host objects only, else nullptr)
    Both<std::uint64_t> l2_near;            // gpu_topology::l2.near_size_bytes
    Both<std::uint64_t> l1_at_launch;       // gpu_topology::l1_bytes_at(...)
    Both<std::uint64_t> stencil_l2;         // gpu_topology::this_gpu().l2_bytes
    Both<gpu_topology::stencil_block> pick;  // gpu_topology::choose_star_stencil_block<double>(...)
};

Seen seen_by_h100(const Asked& asked);
Seen seen_by_h200(const Asked& asked);
