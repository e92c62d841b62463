// The constants and helpers in device code.
#include "header_asserts.hpp"

#include <cstring>

__global__ void uses_constants(unsigned long long* out) {
    __shared__ float tile[gt::square_tile_edge<float>(16 * 1024)][gt::square_tile_edge<float>(16 * 1024)];
    tile[threadIdx.x][0] = 1.0f;
    out[0] = gt::l1.size_bytes + gt::elements_in<float>(gt::l2_near) + gt::l2_far_latency_cycles + tile[0][0];
}

int main(int argc, char** argv) {
    // Compiling this file is the test; launching needs a GPU, which CI lacks.
    if (argc > 1 && std::strcmp(argv[1], "--compile-only") == 0) return 0;
    unsigned long long* out = nullptr;
    if (cudaMalloc(&out, sizeof *out) != cudaSuccess) return 1;
    uses_constants<<<1, 32>>>(out);
    const bool ok = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    cudaFree(out);
    return ok ? 0 : 1;
}
