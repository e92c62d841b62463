// The header's facts and helpers at run time in device code: a kernel computes
// with run-time arguments (no constant folding can stand in), and the host
// compares with the same calls on the CPU. Exits 77 (skipped) without a GPU.
#include <gpu_topology.hpp>
#include <gpu_topology/stencil.hpp>

#include <cstdio>

namespace gt = gpu_topology;

namespace {

constexpr int kOutputs = 7;

__host__ __device__ void compute(unsigned long long* out, int carveout, unsigned threads, unsigned long long bytes) {
    out[0] = gt::l1_launch_count ? gt::l1_bytes_at(carveout, threads, 0) : 0;
    out[1] = gt::resident_blocks_per_wave(threads);
    out[2] = gt::square_tile_edge<float>(bytes);
    out[3] = gt::layers_fit(bytes / 1024, 1024, gt::l2);
    out[4] = gt::elements_in<double>(gt::l1);
    out[5] = gt::choose_star_stencil_block<double>({unsigned(bytes / 1024), 256, 256}, 4, threads).x;
    const auto list = gt::star_stencil_shortlist<double>({unsigned(bytes / 1024), 256, 256}, 4, threads);
    out[6] = list.count * 100000ull + list.blocks[list.count - 1].x * 1000ull + list.blocks[1].x;
}

__global__ void on_device(unsigned long long* out, int carveout, unsigned threads, unsigned long long bytes) {
    compute(out, carveout, threads, bytes);
}

}  // namespace

int main(int argc, char**) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("skipped: no GPU\n");
        return 77;
    }
    const int carveout = argc - 1;  // run-time values the compiler cannot fold
    const unsigned threads = 256u * unsigned(argc);
    const unsigned long long bytes = 65536ull * unsigned(argc);
    unsigned long long* device = nullptr;
    unsigned long long from_device[kOutputs] = {}, from_host[kOutputs] = {};
    if (cudaMalloc(&device, sizeof from_device) != cudaSuccess) return 1;
    on_device<<<1, 1>>>(device, carveout, threads, bytes);
    const bool ran = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess &&
                     cudaMemcpy(from_device, device, sizeof from_device, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(device);
    if (!ran) {
        std::printf("the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    compute(from_host, carveout, threads, bytes);
    int mismatches = 0;
    for (int i = 0; i < kOutputs; ++i) {
        std::printf("%d: device %llu host %llu\n", i, from_device[i], from_host[i]);
        mismatches += from_device[i] != from_host[i];
    }
    return mismatches ? 1 : 0;
}
