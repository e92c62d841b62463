// The strict-warning compile with nvcc, host and device code. The stencil model
// by its former path, which still works.
#include <gpu_topology.hpp>
#include <gpu_topology/gemm.hpp>
#include <gpu_topology_stencil.hpp>

namespace gt = gpu_topology;

__global__ void uses(unsigned long long* out, int carveout, unsigned threads) {
    out[0] = gt::l1_launch_count ? gt::l1_bytes_at(carveout, threads, 0) : 0;
    out[1] = gt::resident_blocks_per_wave(threads);
    out[2] = gt::l1.size_bytes.value_or(0u);
    out[3] = gt::square_tile_edge<float>(out[2] / 2);
    // A kernel with shared memory of its own: the carveouts the header measured, the launch chooser, the SGEMM helper.
    out[4] = gt::carveout_options_for(threads, 8192).count;
    out[5] = gt::choose_star_stencil_launch<double>({256, 256, 256}, 4, threads, 8192).option.resident_blocks;
    out[6] = gt::sgemm_resident_blocks({128, 128, 8, 8, 8, 4}, gt::carveout_options_for(256, 8320).options[0],
                                       gt::this_gpu_gemm());
}

// A renamed quantity's old member in device code, taken by reference like any
// fact (its deprecation warning silenced: this compile makes warnings errors).
template <typename Fact>
__device__ unsigned long long by_reference(const Fact& fact) {
    return fact.value_or(0u);
}
#pragma nv_diag_suppress 1444
__global__ void uses_old_names(unsigned long long* out) { out[0] = by_reference(gt::l2.sector_bytes); }
#pragma nv_diag_default 1444

int main() {
    const auto check = gt::check_running_gpu(0);
    return check.explanation[0] == '\0' ? 1 : 0;
}
