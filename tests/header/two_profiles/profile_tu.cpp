// One translation unit of the two-profiles test, compiled once against the
// H100's header and once against the H200's (SEEN_BY names the function), then
// linked into one program. Every fact and helper used here is an object, an
// inline function or a template instantiation that the other translation unit
// uses too, with the same name and arguments: if the two profiles shared a
// definition, the linker would keep one, and one unit would read the other's
// facts at run time while its constants stay its own.
#include "seen.hpp"

#include <gpu_topology/stencil.hpp>

namespace gt = gpu_topology;

Seen SEEN_BY(const Asked& asked) {
    Seen seen{};
    seen.device_name = gt::identity.device_name;
#if defined(__CUDACC__)
    // The facts are __device__ objects, which host code reads only as constants.
    seen.l2_address = nullptr;
    seen.l2_near = {gt::l2.near_size_bytes, gt::l2.near_size_bytes};
#else
    const auto* volatile l2 = &gt::l2;  // a load through the object the linker kept
    seen.l2_address = &gt::l2;
    seen.l2_near = {gt::l2.near_size_bytes, l2->near_size_bytes};
#endif
    constexpr auto l1 = gt::l1_bytes_at(kAsked.carveout_percent, kAsked.threads_per_block, kAsked.shared_bytes_per_block);
    seen.l1_at_launch = {l1, gt::l1_bytes_at(asked.carveout_percent, asked.threads_per_block, asked.shared_bytes_per_block)};
    constexpr auto stencil_l2 = gt::this_gpu().l2_bytes;
    seen.stencil_l2 = {stencil_l2, gt::this_gpu().l2_bytes};
    constexpr auto pick = gt::choose_star_stencil_block<double>(kAsked.grid, kAsked.radius, kAsked.stencil_threads);
    seen.pick = {pick, gt::choose_star_stencil_block<double>(asked.grid, asked.radius, asked.stencil_threads)};
    return seen;
}
