// resident_blocks.cu: how many blocks of a kernel with dynamic shared memory an SM holds at once at a
// carveout, counted on the GPU, beside the occupancy API's answer: what carveout_options_for
// (include/gpu_topology/carveout_model.hpp) must never exceed. Every block records its SM and the
// %globaltimer window it spins in; the most windows of one SM open at once is the count.
// Standalone, not part of the build:
//
//   nvcc -std=c++17 -O2 -arch=sm_90 bench/resident_blocks.cu -o /tmp/resident_blocks
//   /tmp/resident_blocks [THREADS:SHARED_BYTES:CARVEOUT ...]   (carveout -1: the driver's)
//
// Without arguments: the launches CarveoutOptions.OddSizesGetTheOccupancyApisBlocks and
// StencilSharedMemory.BetweenMeasuredSizesTheBlocksAreTheOccupancyApis hold the header to, and a few more.
#include "explore_common.cuh"

#include <cstdio>
#include <string>
#include <vector>

namespace {
struct Launch {
    int threads, shared_bytes, carveout;
};

__global__ void spin(unsigned long long* windows, unsigned long long ns) {
    extern __shared__ unsigned char staged[];
    unsigned smid;
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    __syncthreads();
    const unsigned long long start = global_ns();
    while (global_ns() - start < ns) {
    }
    staged[threadIdx.x] = 1;  // the shared memory is the kernel's own, used
    __syncthreads();
    if (threadIdx.x == 0) {
        windows[3 * blockIdx.x] = smid;
        windows[3 * blockIdx.x + 1] = start;
        windows[3 * blockIdx.x + 2] = global_ns();
    }
}

int observed(const Launch& l, int sms) {
    const int blocks = sms * 32;
    auto windows = device_alloc<unsigned long long>(3 * std::size_t(blocks));
    spin<<<blocks, l.threads, l.shared_bytes>>>(windows.get(), 20000);
    CHECK_LAUNCH();
    std::vector<unsigned long long> w(3 * std::size_t(blocks));
    CHECK(cudaMemcpy(w.data(), windows.get(), sizeof(unsigned long long) * w.size(), cudaMemcpyDeviceToHost));
    int most = 0;
    for (int i = 0; i < blocks; ++i) {  // the blocks of i's SM running when i started
        int open = 0;
        for (int j = 0; j < blocks; ++j)
            open += w[3 * j] == w[3 * i] && w[3 * j + 1] <= w[3 * i + 1] && w[3 * j + 2] > w[3 * i + 1];
        most = std::max(most, open);
    }
    return most;
}
}  // namespace

int main(int argc, char** argv) {
    std::vector<Launch> launches;
    for (int i = 1; i < argc; ++i) {
        Launch l{};
        if (std::sscanf(argv[i], "%d:%d:%d", &l.threads, &l.shared_bytes, &l.carveout) != 3 || l.threads < 1 ||
            l.threads > 1024 || l.shared_bytes < 0 || l.carveout < -1 || l.carveout > 100) {
            std::fprintf(stderr, "resident_blocks: a launch is THREADS:SHARED_BYTES:CARVEOUT, not '%s'\n", argv[i]);
            return 2;
        }
        launches.push_back(l);
    }
    if (launches.empty())
        launches = {{128, 8324, 25},  {128, 8580, 50},   {128, 32388, 75}, {256, 65800, 75},  {256, 39100, 75},
                    {512, 49152, 75}, {512, 49152, 50},  {512, 49152, 100}, {256, 20000, 25}, {256, 20000, 50},
                    {256, 39100, -1}, {512, 49152, -1}, {128, 65536, 100}};
    cudaDeviceProp p{};
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("%s, cc %d.%d, %d SMs, %zu B reserved a block\n", p.name, p.major, p.minor, p.multiProcessorCount,
                p.reservedSharedMemPerBlock);
    CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.sharedMemPerBlockOptin)));
    for (const auto& l : launches) {
        CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributePreferredSharedMemoryCarveout, l.carveout));
        int api = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, spin, l.threads, l.shared_bytes));
        std::printf("threads %4d, shared %6d B, carveout %4d: occupancy API %2d blocks, at once on an SM %2d\n",
                    l.threads, l.shared_bytes, l.carveout, api, observed(l, p.multiProcessorCount));
    }
}
