// The strict-warning compile with nvcc, host and device code. The stencil model
// by its former path, which still works.
#include <gpu_topology.hpp>
#include <gpu_topology_stencil.hpp>

namespace gt = gpu_topology;

__global__ void uses(unsigned long long* out, int carveout, unsigned threads) {
    out[0] = gt::l1_launch_count ? gt::l1_bytes_at(carveout, threads, 0) : 0;
    out[1] = gt::resident_blocks_per_wave(threads);
    out[2] = gt::l1.size_bytes.value_or(0u);
    out[3] = gt::square_tile_edge<float>(out[2] / 2);
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
