// Other work on the GPU, for the busy-GPU test: reads and writes a 1 GiB
// buffer with every SM for SECONDS, in launches of about 50 ms.
//   load_generator SECONDS
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

bool ok(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return true;
    std::fprintf(stderr, "load_generator: %s failed: %s\n", what, cudaGetErrorString(status));
    return false;
}

__global__ void churn(uint4* data, size_t pieces, unsigned passes) {
    const size_t step = size_t(gridDim.x) * blockDim.x;
    for (unsigned pass = 0; pass < passes; ++pass)
        for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pieces; i += step) {
            uint4 v = data[i];
            v.x += 1;
            data[i] = v;
        }
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
    int sms = 0;
    if (!ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute")) return 77;
    constexpr size_t kBytes = size_t(1) << 30;
    uint4* data = nullptr;
    if (!ok(cudaMalloc(&data, kBytes), "cudaMalloc")) return 1;
    const auto start = std::chrono::steady_clock::now();
    unsigned launches = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        churn<<<sms * 4, 512>>>(data, kBytes / sizeof(uint4), 16);
        if (!ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "churn")) return 1;
        ++launches;
    }
    std::printf("load_generator: %u launches in %.1f s\n", launches, seconds);
    return ok(cudaFree(data), "cudaFree") ? 0 : 1;
}
