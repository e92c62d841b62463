#pragma once
// The range-4, 25-point star stencil (Ernst et al.) on doubles:
//   out(x,y,z) = c0 in(x,y,z) + sum_{r=1..4} c_r [in(x±r,y,z) + in(x,y±r,z) + in(x,y,z±r)]
// Arrays hold the grid plus a halo of kRadius points on every side, x fastest.
#include <cstddef>
#include <cstdint>

inline constexpr int kRadius = 4;

struct Coefficients {
    double c[kRadius + 1];
};

struct Grid {
    int nx, ny, nz;  // points updated
    __host__ __device__ std::size_t stride_y() const { return std::size_t(nx) + 2 * kRadius; }
    __host__ __device__ std::size_t stride_z() const { return stride_y() * (std::size_t(ny) + 2 * kRadius); }
    __host__ __device__ std::size_t points_with_halo() const { return stride_z() * (std::size_t(nz) + 2 * kRadius); }
    __host__ __device__ std::size_t index(int x, int y, int z) const {
        return (std::size_t(z) + kRadius) * stride_z() + (std::size_t(y) + kRadius) * stride_y() + std::size_t(x) + kRadius;
    }
    std::uint64_t updates() const { return std::uint64_t(nx) * ny * nz; }
};

// One thread updates `Fold` consecutive points along y (FoldZ false) or z
// (FoldZ true). The column along the folded axis is streamed once, each value
// added to every point within the radius, so folding saves loads without
// holding the column in registers: two blocks of 1024 threads per SM leave at
// most 32 registers a thread. `Slot` makes instances of one kernel that differ
// only in how they are launched (examples/stencil3d/launch.cuh): the driver
// keeps a function's carveout, so a launch left to the driver's default uses an
// instance that never gets one.
template <int Fold, bool FoldZ, int Slot>
__global__ void __launch_bounds__(1024, 2)
    star25(const double* __restrict__ in, double* __restrict__ out, Grid g, Coefficients k) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (FoldZ) z *= Fold; else y *= Fold;
    if (x >= g.nx || y >= g.ny || z >= g.nz) return;  // grid extents are multiples of Fold

    const std::ptrdiff_t folded = FoldZ ? g.stride_z() : g.stride_y();  // stride along the folded axis
    const std::ptrdiff_t other = FoldZ ? g.stride_y() : g.stride_z();
    const std::size_t base = g.index(x, y, z);
    double sum[Fold];
#pragma unroll
    for (int f = 0; f < Fold; ++f) sum[f] = 0;
#pragma unroll
    for (int i = -kRadius; i < Fold + kRadius; ++i) {
        const double v = in[base + i * folded];
#pragma unroll
        for (int f = 0; f < Fold; ++f) {
            const int d = i - f < 0 ? f - i : i - f;
            if (d <= kRadius) sum[f] += k.c[d] * v;
        }
    }
#pragma unroll
    for (int f = 0; f < Fold; ++f) {
        const std::size_t p = base + f * folded;
#pragma unroll
        for (int r = 1; r <= kRadius; ++r)
            sum[f] += k.c[r] * ((in[p - r] + in[p + r]) + (in[p - r * other] + in[p + r * other]));
        out[p] = sum[f];
    }
}

// The plain reference: one point per thread, every neighbour loaded, sums in x, y, z order.
__global__ void star25_reference(const double* __restrict__ in, double* __restrict__ out, Grid g, Coefficients k) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= g.nx || y >= g.ny || z >= g.nz) return;
    const std::size_t p = g.index(x, y, z);
    double sum = k.c[0] * in[p];
    for (int r = 1; r <= kRadius; ++r)
        sum += k.c[r] * ((in[p - r] + in[p + r]) + (in[p - r * g.stride_y()] + in[p + r * g.stride_y()]) +
                         (in[p - r * g.stride_z()] + in[p + r * g.stride_z()]));
    out[p] = sum;
}

// Reproducible pseudo-random input in [-1, 1), the same on host and device.
__host__ __device__ inline double random_value(std::uint64_t i) {
    i += 0x9e3779b97f4a7c15ull;
    i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
    i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
    i ^= i >> 31;
    return double(i >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}
