// gpu_topology/gemm.hpp: the tiled-SGEMM helper (gpu_topology/gemm_model.hpp) on the machine of
// the generated gpu_topology.hpp, which it includes, with the carveouts it measured
// (gpu_topology/carveout.hpp). The entry points read the facts, so they live in the profile's
// namespace, like the facts. C++17, host and device code.
#ifndef GPU_TOPOLOGY_GEMM_HPP
#define GPU_TOPOLOGY_GEMM_HPP

#include <gpu_topology.hpp>

#ifndef GPU_TOPOLOGY_PROFILE_NS
#error "gpu_topology/gemm.hpp: the <gpu_topology.hpp> found first is not a header this GPUTopology renders (it names no profile namespace): render it again (configure again) or put the generated header's directory first on the include path"
#endif

#include <gpu_topology/carveout.hpp>
#include <gpu_topology/gemm_model.hpp>

#include <cstdint>

namespace gpu_topology {

// What a compute capability's SM does per clock that no probe stage measures: FP32 fused
// multiply-adds (the CUDA C++ Programming Guide's table of arithmetic instruction throughput:
// 64 on cc 6.0, 7.x and 8.0, 128 on the others from 5.0 to 12.x), warp instructions issued (one
// per scheduler, 4 from cc 5.0) and registers given to a warp at a time (256 from cc 5.0). 0 for
// an architecture the table does not hold: the model then leaves that term out.
struct sm_architecture {
    std::uint32_t fma_per_clock, issue_per_clock, register_unit;
};
GPU_TOPOLOGY_HD constexpr sm_architecture sm_architecture_of(std::uint32_t cc_major, std::uint32_t cc_minor) {
    if (cc_major < 5 || cc_major > 12) return {0, 0, 0};
    const bool half_rate = (cc_major == 6 && cc_minor == 0) || cc_major == 7 || (cc_major == 8 && cc_minor == 0);
    return {half_rate ? 64u : 128u, 4, 256};
}

namespace detail {
// Whether a profile shows its L2 to be one uniform part: the near part an SM reuses at near latency
// holds at least 7/8 of it. The profiles of architectures/: 98-100 % where L2 has no far part (V100,
// T4, L40S, RTX 5090 as described), 48-50 % where it has (A100, H100, B200).
template <typename L2Facts>
GPU_TOPOLOGY_HD constexpr bool l2_shown_uniform(const L2Facts& facts) {
    if constexpr (decltype(facts.near_size_bytes)::is_known && decltype(facts.size_bytes)::is_known)
        return 8 * std::uint64_t(facts.near_size_bytes) >= 7 * std::uint64_t(facts.size_bytes);
    else
        return false;
}
}  // namespace detail

inline namespace GPU_TOPOLOGY_PROFILE_NS {

// The latency of a load that L2 serves, as the model counts it: the far part's (an SGEMM's panels lie
// in every slice, most of them across the chip), or, where the profile leaves it unmeasured and shows
// L2 uniform (no second plateau inside it), the one L2 latency. A far latency unmeasured for another
// reason (a skipped stage, a failed cross-check) does not compile: near latency would be half of it.
template <typename Dependent = void>
GPU_TOPOLOGY_HD constexpr std::uint32_t l2_latency_for_gemm() {
    if constexpr (decltype(detail::when_used<Dependent>(l2).far_latency_cycles)::is_known) {
        return detail::when_used<Dependent>(l2).far_latency_cycles;
    } else {
        static_assert(detail::l2_shown_uniform(detail::when_used<Dependent>(l2)),
                      "gpu_topology/gemm.hpp: this profile leaves the far L2 latency unmeasured (GPU_TOPOLOGY_L2_FAR_"
                      "LATENCY_CYCLES_UNMEASURED says why) and does not show its L2 uniform: measure again, or build "
                      "the gemm_machine yourself");
        return detail::when_used<Dependent>(l2).near_latency_cycles;
    }
}

// The machine gpu_topology.hpp describes (it must know every fact used here; the L2 latency as
// l2_latency_for_gemm() takes it).
template <typename Dependent = void>
GPU_TOPOLOGY_HD constexpr gemm_machine this_gpu_gemm() {
    const auto& dev = detail::when_used<Dependent>(device);
    const auto& per_sm = detail::when_used<Dependent>(sm);
    const auto& memory = detail::when_used<Dependent>(shared);
    const auto& cache2 = detail::when_used<Dependent>(l2);
    const sm_architecture arch = sm_architecture_of(dev.cc_major, dev.cc_minor);
    return {dev.sm_count,
            double(dev.sm_clock_max_khz) * 1e3,
            arch.fma_per_clock,
            arch.issue_per_clock,
            memory.bandwidth_bytes_per_s,
            cache2.bandwidth_bytes_per_s,
            detail::when_used<Dependent>(dram).bandwidth_bytes_per_s,
            cache2.size_bytes,
            l2_latency_for_gemm<Dependent>(),
            per_sm.registers,
            arch.register_unit,
            memory.banks,
            memory.bank_bytes,
            32,
            detail::when_used<Dependent>(l1_launches),
            l1_launch_count,
            this_gpu_shared_limits<Dependent>()};
}

// The space on this GPU's banks (the padding that makes the A slice's stores conflict least) and
// registers (no tile that spills).
template <typename Dependent = void>
GPU_TOPOLOGY_HD constexpr sgemm_space sgemm_space_here() {
    const auto& memory = detail::when_used<Dependent>(shared);
    return sgemm_space_on(memory.banks, memory.bank_bytes, detail::when_used<Dependent>(sm).registers);
}

// The model's configuration for an m x n x k product on this GPU (reads_c: beta != 0), and the short
// list to time; `registers` a thread's registers per configuration where the program knows them.
template <typename Registers = sgemm_estimated_registers>
GPU_TOPOLOGY_HD constexpr sgemm_config choose_sgemm(const gemm_extent& e, bool reads_c = false, Registers registers = {}) {
    return ::gpu_topology::choose_sgemm(e, reads_c, sgemm_space_here<Registers>(), this_gpu_gemm<Registers>(), registers);
}
template <typename Registers = sgemm_estimated_registers>
GPU_TOPOLOGY_HD constexpr sgemm_shortlist sgemm_tuning_list(const gemm_extent& e, bool reads_c = false,
                                                           Registers registers = {}) {
    return ::gpu_topology::sgemm_tuning_list(e, reads_c, sgemm_space_here<Registers>(), this_gpu_gemm<Registers>(),
                                             registers);
}

}  // namespace GPU_TOPOLOGY_PROFILE_NS
}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_GEMM_HPP
