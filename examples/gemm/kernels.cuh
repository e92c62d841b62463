#pragma once
// Every configuration of the header's SGEMM space (gpu_topology::sgemm_space_here: block shapes,
// depths, and the padding the measured banks call for) as compiled kernels, and their launch with a
// carveout. Built in parts (kernels_part*.cu), so that the compiler works on them side by side.
//
// The carveout goes with each launch (cudaLaunchAttributePreferredSharedMemoryCarveout): the driver
// applies a function attribute changed after the function's first launch only in part
// (docs/l1-effective-capacity.md). A launch left to the driver's default uses an instance that never
// gets one.
#include "cuda_support.cuh"

#if CUDART_VERSION < 12060
#error "examples/gemm gives each launch its carveout (cudaLaunchAttributePreferredSharedMemoryCarveout): CUDA 12.6 or later"
#endif
#include "sgemm.cuh"

#include <gpu_topology/gemm.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using SgemmKernel = void (*)(int, int, int, float, const float*, const float*, float, float*);

struct SgemmKernels {
    gpu_topology::sgemm_tile tile;
    SgemmKernel left_to_driver;  // launched without a carveout
    SgemmKernel per_launch;      // launched with the carveout as a launch attribute
};

inline constexpr gpu_topology::sgemm_space kSpace = gpu_topology::sgemm_space_here();
inline constexpr std::size_t kParts = 4;

template <std::size_t I>
SgemmKernels kernels_of() {
    constexpr gpu_topology::sgemm_tile t = kSpace.tiles[I];
    return {t, sgemm_tiled<t.block_m, t.block_n, t.block_k, t.thread_m, t.thread_n, t.pad_a, 0>,
            sgemm_tiled<t.block_m, t.block_n, t.block_k, t.thread_m, t.thread_n, t.pad_a, 1>};
}
template <std::size_t Begin, std::size_t... I>
void add_kernels(std::vector<SgemmKernels>& out, std::index_sequence<I...>) {
    (out.push_back(kernels_of<Begin + I>()), ...);
}
// The configurations of part `Part` of kParts.
template <std::size_t Part>
void add_part(std::vector<SgemmKernels>& out) {
    constexpr std::size_t begin = kSpace.count * Part / kParts, end = kSpace.count * (Part + 1) / kParts;
    add_kernels<begin>(out, std::make_index_sequence<end - begin>{});
}
void add_kernels_part0(std::vector<SgemmKernels>& out);
void add_kernels_part1(std::vector<SgemmKernels>& out);
void add_kernels_part2(std::vector<SgemmKernels>& out);
void add_kernels_part3(std::vector<SgemmKernels>& out);

// Every configuration's kernels, in the space's order; each may take its shared memory.
inline std::vector<SgemmKernels> every_kernel() {
    std::vector<SgemmKernels> out;
    add_kernels_part0(out);
    add_kernels_part1(out);
    add_kernels_part2(out);
    add_kernels_part3(out);
    for (const auto& k : out)
        for (const SgemmKernel f : {k.left_to_driver, k.per_launch})
            check(cudaFuncSetAttribute(reinterpret_cast<const void*>(f), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(k.tile.shared_bytes())),
                  "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    return out;
}

// One launch of a configuration on an m x n x k product; the last error is checked.
inline void launch(const SgemmKernels& k, const gpu_topology::carveout_option& option, int m, int n, int kk, float alpha,
                   const float* a, const float* b, float beta, float* c) {
    const gpu_topology::sgemm_tile& t = k.tile;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned((n + int(t.block_n) - 1) / int(t.block_n)), unsigned((m + int(t.block_m) - 1) / int(t.block_m)));
    config.blockDim = dim3(t.threads());
    config.dynamicSmemBytes = t.shared_bytes();
    cudaLaunchAttribute carveout{};
    SgemmKernel kernel = k.left_to_driver;
    if (!option.left_to_driver()) {
        carveout.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        carveout.val.sharedMemCarveout = static_cast<unsigned>(option.carveout_percent);
        config.attrs = &carveout;
        config.numAttrs = 1;
        kernel = k.per_launch;
    }
    check(cudaLaunchKernelEx(&config, kernel, m, n, kk, alpha, a, b, beta, c), "cudaLaunchKernelEx(sgemm_tiled)");
    check(cudaGetLastError(), "sgemm_tiled");
}
