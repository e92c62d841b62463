#pragma once
// Launching the stencil as the header's launch chooser says: a block shape and folding, and a
// carveout (gpu_topology::stencil_launch). The carveout goes with each launch
// (cudaLaunchAttributePreferredSharedMemoryCarveout): a function attribute changed after the
// function's first launch is applied only in part by the driver (docs/l1-effective-capacity.md,
// "One function, any carveout"). A launch left to the driver's default uses instances that are
// never given a carveout, and the occupancy API, which reads function attributes only, asks
// instances that are never launched.
#include "cuda_support.cuh"

#if CUDART_VERSION < 12060
#error "examples/stencil3d gives each launch its carveout (cudaLaunchAttributePreferredSharedMemoryCarveout): CUDA 12.6 or later"
#endif
#include "stencil.cuh"

#include <gpu_topology/stencil.hpp>

#include <stdexcept>
#include <string>

namespace stencil_launch_detail {

enum Slot { kLeftToDriver = 0, kCarveoutPerLaunch = 1, kAskedOnly = 2 };
using Kernel = void (*)(const double*, double*, Grid, Coefficients);

// The instance of one slot for a block's folding: unfolded, 2 along y, 2 along z.
template <int Slot>
Kernel instance(const gpu_topology::stencil_block& b) {
    if (b.fold_z == 2 && b.fold_y == 1) return star25<2, true, Slot>;
    if (b.fold_y == 2 && b.fold_z == 1) return star25<2, false, Slot>;
    if (b.fold_y == 1 && b.fold_z == 1) return star25<1, false, Slot>;
    throw std::invalid_argument("a folding of " + std::to_string(b.fold_y) + " in y and " + std::to_string(b.fold_z) +
                                " in z is not built");
}

}  // namespace stencil_launch_detail

// Every instance may take `shared_bytes` of dynamic shared memory per block (set before any launch).
inline void allow_dynamic_shared(std::uint32_t shared_bytes) {
    using namespace stencil_launch_detail;
    for (const gpu_topology::stencil_block folding : {gpu_topology::stencil_block{1, 1, 1, 1, 1},
                                                      gpu_topology::stencil_block{1, 1, 1, 2, 1},
                                                      gpu_topology::stencil_block{1, 1, 1, 1, 2}})
        for (const Kernel k : {instance<kLeftToDriver>(folding), instance<kCarveoutPerLaunch>(folding),
                               instance<kAskedOnly>(folding)})
            check(cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(shared_bytes)),
                  "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}

// Grid of blocks for a block shape on the grid's points.
inline dim3 blocks_for(const gpu_topology::stencil_block& b, const Grid& g) {
    return dim3(unsigned((g.nx + b.tile_x() - 1) / b.tile_x()), unsigned((g.ny + b.tile_y() - 1) / b.tile_y()),
                unsigned((g.nz + b.tile_z() - 1) / b.tile_z()));
}

// One launch, its carveout included; the last error is checked.
inline void launch(const gpu_topology::stencil_launch& l, const double* in, double* out, const Grid& g,
                   const Coefficients& k, std::uint32_t shared_bytes) {
    using namespace stencil_launch_detail;
    cudaLaunchConfig_t config{};
    config.gridDim = blocks_for(l.block, g);
    config.blockDim = dim3(l.block.x, l.block.y, l.block.z);
    config.dynamicSmemBytes = shared_bytes;
    cudaLaunchAttribute carveout{};
    Kernel kernel = instance<kLeftToDriver>(l.block);
    if (!l.option.left_to_driver()) {
        carveout.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        carveout.val.sharedMemCarveout = static_cast<unsigned>(l.option.carveout_percent);
        config.attrs = &carveout;
        config.numAttrs = 1;
        kernel = instance<kCarveoutPerLaunch>(l.block);
    }
    check(cudaLaunchKernelEx(&config, kernel, in, out, g, k), "cudaLaunchKernelEx(star25)");
    check(cudaGetLastError(), "star25");
}

// Resident blocks of `threads` threads with `shared_bytes` each that the occupancy API reports at
// the option's carveout (the driver's split for the default), to set beside the header's rows.
inline int api_resident_blocks(const gpu_topology::carveout_option& o, std::uint32_t threads, std::uint32_t shared_bytes) {
    using namespace stencil_launch_detail;
    const Kernel asked = instance<kAskedOnly>({1, 1, 1, 1, 2});
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(asked), cudaFuncAttributePreferredSharedMemoryCarveout,
                               o.carveout_percent),
          "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, asked, int(threads), shared_bytes),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return blocks;
}
