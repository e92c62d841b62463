// gpu_topology/carveout.hpp: the launches open to a kernel with shared memory of its own
// (gpu_topology/carveout_model.hpp) on the machine of the generated gpu_topology.hpp, which it
// includes: its measured per-launch rows (l1_launches) and its SM's limits. The entry points
// read the facts, so they live in the profile's namespace, like the facts. C++17, host and
// device code.
#ifndef GPU_TOPOLOGY_CARVEOUT_HPP
#define GPU_TOPOLOGY_CARVEOUT_HPP

#include <gpu_topology.hpp>

#ifndef GPU_TOPOLOGY_PROFILE_NS
#error "gpu_topology/carveout.hpp: the <gpu_topology.hpp> found first is not a header this GPUTopology renders (it names no profile namespace): render it again (configure again) or put the generated header's directory first on the include path"
#endif

#include <gpu_topology/carveout_model.hpp>

#include <cstdint>

namespace gpu_topology {

namespace detail {
// Makes an expression depend on a template parameter, so it is checked only
// when the template is used: a header whose profile lacks a fact a model
// needs still compiles, until the model is called (and then names the fact).
template <typename Dependent, typename T>
GPU_TOPOLOGY_HD constexpr const T& when_used(const T& fact) {
    return fact;
}
}  // namespace detail

inline namespace GPU_TOPOLOGY_PROFILE_NS {

// The SM's limits of gpu_topology.hpp (it must know every fact used here).
template <typename Dependent = void>
GPU_TOPOLOGY_HD constexpr sm_shared_limits this_gpu_shared_limits() {
    const auto& per_sm = detail::when_used<Dependent>(sm);
    const auto& memory = detail::when_used<Dependent>(shared);
    return {per_sm.max_threads, per_sm.max_blocks, memory.size_bytes, memory.reserved_per_block_bytes,
            detail::when_used<Dependent>(l1).size_bytes_max_shared_carveout,
            shared_allocation_unit(detail::when_used<Dependent>(device).cc_major)};
}

// The carveouts open to a kernel declaring `shared_bytes_per_block` of shared memory (static and
// dynamic together) with blocks of `threads_per_block` threads, and what each leaves it: from the
// launches gpu_topology.hpp measured (carveout_options_from says which rows answer for a kernel
// none of them describes exactly).
template <typename Dependent = void>
GPU_TOPOLOGY_HD constexpr carveout_options carveout_options_for(std::uint32_t threads_per_block,
                                                               std::uint32_t shared_bytes_per_block) {
    return carveout_options_from(detail::when_used<Dependent>(l1_launches), l1_launch_count, threads_per_block,
                                 shared_bytes_per_block, this_gpu_shared_limits<Dependent>());
}

}  // namespace GPU_TOPOLOGY_PROFILE_NS
}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_CARVEOUT_HPP
