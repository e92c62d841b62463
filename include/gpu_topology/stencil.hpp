// gpu_topology/stencil.hpp: the star-stencil model (gpu_topology/stencil_model.hpp)
// on the machine of the generated gpu_topology.hpp, which it includes, with the
// carveouts it measured (gpu_topology/carveout.hpp). Facts and
// models apart: the model is the same for every GPU; the header says which GPU it
// reasons about. this_gpu() and the entry points that default to it read the
// facts, so they live in the profile's namespace, like the facts. C++17, host and
// device code.
#ifndef GPU_TOPOLOGY_STENCIL_HPP
#define GPU_TOPOLOGY_STENCIL_HPP

#include <gpu_topology.hpp>

#ifndef GPU_TOPOLOGY_PROFILE_NS
#error "gpu_topology/stencil.hpp: the <gpu_topology.hpp> found first is not a header this GPUTopology renders (it names no profile namespace): render it again (configure again) or put the generated header's directory first on the include path"
#endif

#include <gpu_topology/carveout.hpp>
#include <gpu_topology/stencil_model.hpp>

#include <cstdint>

namespace gpu_topology {
inline namespace GPU_TOPOLOGY_PROFILE_NS {

// The machine gpu_topology.hpp describes. It must know every fact used here but the L1 line: where
// the profile leaves that unmeasured, for whatever reason (the probe cannot tell it from the span of a
// modulo-indexed L1 of few sets, as V100, T4 and A100 are described), a block's rows are whole L2
// lines: 128 B, as L1's on every NVIDIA GPU since Fermi (docs/architecture.md: the probe's ring
// spacing), a fact of the architecture rather than of the measurement that failed.
template <typename Dependent = void>
GPU_TOPOLOGY_HD constexpr stencil_machine this_gpu() {
    const auto& cache1 = detail::when_used<Dependent>(l1);
    const auto& cache2 = detail::when_used<Dependent>(l2);
    return {cache1.size_bytes,
            cache1.bandwidth_bytes_per_s,
            cache1.line_bytes.value_or(cache2.line_bytes),
            cache1.sector_bytes,
            cache2.size_bytes,
            cache2.bandwidth_bytes_per_s,
            detail::when_used<Dependent>(dram).bandwidth_bytes_per_s,
            detail::when_used<Dependent>(device).sm_count,
            detail::when_used<Dependent>(sm).max_threads,
            32,
            detail::when_used<Dependent>(sm).max_threads};
}

// The model's entry points on this_gpu(); pass a stencil_machine for another
// (the overloads in gpu_topology/stencil_model.hpp).
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_traffic star_stencil_traffic(const stencil_block& b, const grid_extent& g,
                                                               std::uint32_t radius) {
    return ::gpu_topology::star_stencil_traffic<T>(b, g, radius, this_gpu<T>());
}
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_block choose_star_stencil_block(const grid_extent& g, std::uint32_t radius,
                                                                  std::uint32_t threads_per_block = 1024) {
    return ::gpu_topology::choose_star_stencil_block<T>(g, radius, threads_per_block, this_gpu<T>());
}
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_shortlist star_stencil_shortlist(const grid_extent& g, std::uint32_t radius,
                                                                   std::uint32_t threads_per_block = 1024) {
    return ::gpu_topology::star_stencil_shortlist<T>(g, radius, threads_per_block, this_gpu<T>());
}
// A kernel declaring `shared_bytes_per_block` of shared memory (static and dynamic together): the
// carveout and the block together, from the launches gpu_topology.hpp measured (carveout_options_for).
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_launch choose_star_stencil_launch(const grid_extent& g, std::uint32_t radius,
                                                                    std::uint32_t threads_per_block,
                                                                    std::uint32_t shared_bytes_per_block) {
    return ::gpu_topology::choose_star_stencil_launch<T>(
        g, radius, threads_per_block, carveout_options_for<T>(threads_per_block, shared_bytes_per_block), this_gpu<T>());
}
template <typename T>
GPU_TOPOLOGY_HD constexpr stencil_launch_list star_stencil_launch_shortlist(const grid_extent& g, std::uint32_t radius,
                                                                           std::uint32_t threads_per_block,
                                                                           std::uint32_t shared_bytes_per_block) {
    return ::gpu_topology::star_stencil_launch_shortlist<T>(
        g, radius, threads_per_block, carveout_options_for<T>(threads_per_block, shared_bytes_per_block), this_gpu<T>());
}

}  // namespace GPU_TOPOLOGY_PROFILE_NS
}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_STENCIL_HPP
