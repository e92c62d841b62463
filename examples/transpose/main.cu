// Tiled transpose through shared memory: a block reads a 32x32 tile row by row
// (coalesced), then writes it column by column. With 32 floats a row on 32
// banks of 4 bytes, a column of the tile lies in one bank: a 32-way conflict.
// The pitch gpu_topology::conflict_free_pitch derives from the measured bank
// geometry removes it. Prints the time of both.
//   transpose [--check] [--n N]
#include <gpu_topology.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr unsigned kTile = 32, kRows = 8;  // a 32x8 block moves a 32x32 tile
constexpr unsigned kPaddedPitch = gpu_topology::conflict_free_pitch<float>(kTile, gpu_topology::shared);

void check(cudaError_t result, const char* what) {
    if (result == cudaSuccess) return;
    std::fprintf(stderr, "transpose: %s failed: %s\n", what, cudaGetErrorString(result));
    std::exit(1);
}
void check_launch(const char* kernel) {
    check(cudaGetLastError(), kernel);
    check(cudaDeviceSynchronize(), kernel);
}

template <unsigned Pitch>
__global__ void transpose(const float* in, float* out, unsigned n) {
    __shared__ float tile[kTile * Pitch];
    const unsigned x = blockIdx.x * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows)
        tile[r * Pitch + threadIdx.x] = in[std::size_t(blockIdx.y * kTile + r) * n + x];
    __syncthreads();
    const unsigned tx = blockIdx.y * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows)
        out[std::size_t(blockIdx.x * kTile + r) * n + tx] = tile[threadIdx.x * Pitch + r];
}

template <unsigned Pitch>
float median_ms(const float* in, float* out, unsigned n, int repeats) {
    const dim3 grid(n / kTile, n / kTile), block(kTile, kRows);
    transpose<Pitch><<<grid, block>>>(in, out, n);  // untimed: clocks up, caches warm
    check_launch("transpose (warm-up)");
    cudaEvent_t begin, end;
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    std::vector<float> times;
    for (int i = 0; i < repeats; ++i) {
        check(cudaEventRecord(begin), "cudaEventRecord");
        transpose<Pitch><<<grid, block>>>(in, out, n);
        check(cudaGetLastError(), "transpose");
        check(cudaEventRecord(end), "cudaEventRecord");
        check(cudaEventSynchronize(end), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
        times.push_back(ms);
    }
    check(cudaEventDestroy(begin), "cudaEventDestroy");
    check(cudaEventDestroy(end), "cudaEventDestroy");
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

template <unsigned Pitch>
bool transposes(const std::vector<float>& host, const float* in, float* out, unsigned n) {
    check(cudaMemset(out, 0, std::size_t(n) * n * sizeof(float)), "cudaMemset");
    transpose<Pitch><<<dim3(n / kTile, n / kTile), dim3(kTile, kRows)>>>(in, out, n);
    check_launch("transpose");
    std::vector<float> result(host.size());
    check(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (unsigned r = 0; r < n; ++r)
        for (unsigned c = 0; c < n; ++c)
            if (result[std::size_t(c) * n + r] != host[std::size_t(r) * n + c]) {
                std::fprintf(stderr, "pitch %u: out[%u][%u] = %g, expected %g\n", Pitch, c, r,
                             result[std::size_t(c) * n + r], host[std::size_t(r) * n + c]);
                return false;
            }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    unsigned n = 8192;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) check_only = true;
        else if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else {
            std::fprintf(stderr, "usage: transpose [--check] [--n N (a multiple of 32)]\n");
            return 2;
        }
    }
    if (n == 0 || n % kTile != 0) {
        std::fprintf(stderr, "transpose: --n %u is not a positive multiple of %u\n", n, kTile);
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "transpose: no CUDA device; skipped\n");
        return 77;
    }
    const auto match = gpu_topology::check_running_gpu();
    std::printf("%s\n", match.explanation);
    std::printf("banks %u x %u B; column read of a 32-float tile: pitch 32 -> %u-way, pitch %u -> %u-way\n",
                unsigned(gpu_topology::shared.banks), unsigned(gpu_topology::shared.bank_bytes),
                gpu_topology::column_conflict_ways<float>(32, gpu_topology::shared), kPaddedPitch,
                gpu_topology::column_conflict_ways<float>(kPaddedPitch, gpu_topology::shared));
    if (check_only) n = 1024;
    const std::size_t bytes = std::size_t(n) * n * sizeof(float);
    std::vector<float> host(std::size_t(n) * n);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i % 9973) * 0.5f;
    float *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, bytes), "cudaMalloc");
    check(cudaMalloc(&out, bytes), "cudaMalloc");
    check(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    int status = 0;
    if (check_only) {
        const bool ok = transposes<kTile>(host, in, out, n) && transposes<kPaddedPitch>(host, in, out, n);
        std::printf("%s\n", ok ? "both pitches transpose correctly" : "a pitch transposes WRONG");
        status = ok ? 0 : 1;
    } else {
        const float plain = median_ms<kTile>(in, out, n, 21), padded = median_ms<kPaddedPitch>(in, out, n, 21);
        const auto gbs = [&](float ms) { return 2.0 * double(bytes) / (ms * 1e-3) / 1e9; };
        std::printf("n,pitch,median_ms,GB_per_s\n%u,%u,%.4f,%.1f\n%u,%u,%.4f,%.1f\n", n, kTile, plain, gbs(plain), n,
                    kPaddedPitch, padded, gbs(padded));
        std::printf("padded / unpadded speed: %.2fx (median of 21 runs each)\n", plain / padded);
    }
    check(cudaFree(in), "cudaFree");
    check(cudaFree(out), "cudaFree");
    return status;
}
