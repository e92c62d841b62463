#pragma once
// The shared-memory-tiled SGEMM a user writes: C = alpha A B + beta C, row-major floats, any sizes.
// Each block computes a BM x BN tile of C. Per step it stages a BK-deep slice of A (transposed:
// As[k][m], rows padded by PAD floats, so that a thread's TM values of a column are one float4 read)
// and of B (Bs[k][n]) in dynamic shared memory, then each thread accumulates a TM x TN tile of C in
// registers. The tiles come from gpu_topology.hpp (gpu_topology::choose_sgemm and its space);
// `Slot` makes instances that differ only in how they are launched (launch.cuh).
#include <gpu_topology/gemm_model.hpp>

#include <cstddef>
#include <cstdint>

template <std::uint32_t BM, std::uint32_t BN, std::uint32_t BK, std::uint32_t TM, std::uint32_t TN, std::uint32_t PAD>
struct SgemmTile {
    static constexpr gpu_topology::sgemm_tile tile{BM, BN, BK, TM, TN, PAD};
    static constexpr std::uint32_t threads = tile.threads();
    static constexpr std::uint32_t pitch = tile.pitch_a();
    static_assert(TM % 4 == 0 && TN % 4 == 0 && pitch % 4 == 0 && BN % 4 == 0, "operands are read as float4");
    static_assert((BM * BK) % threads == 0 && (BK * BN) % threads == 0, "every thread stages as many elements");
};

template <std::uint32_t BM, std::uint32_t BN, std::uint32_t BK, std::uint32_t TM, std::uint32_t TN, std::uint32_t PAD,
          int Slot>
__global__ void __launch_bounds__(SgemmTile<BM, BN, BK, TM, TN, PAD>::threads,
                                  gpu_topology::sgemm_min_blocks(SgemmTile<BM, BN, BK, TM, TN, PAD>::tile))
    sgemm_tiled(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
                float* __restrict__ C) {
    using Tile = SgemmTile<BM, BN, BK, TM, TN, PAD>;
    constexpr int kThreads = int(Tile::threads), kPitch = int(Tile::pitch);
    extern __shared__ float4 staged[];  // float4: the slices' reads are 16-byte aligned
    float* As = reinterpret_cast<float*>(staged);
    float* Bs = As + BK * kPitch;
    const int tid = int(threadIdx.x);
    const int tx = tid % int(BN / TN), ty = tid / int(BN / TN);
    const int m0 = int(blockIdx.y) * int(BM), n0 = int(blockIdx.x) * int(BN);
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += int(BK)) {
        // Consecutive threads read consecutive k of a row of A and consecutive n of a row of B (coalesced);
        // elements outside the matrices are zeros.
#pragma unroll
        for (int i = 0; i < int(BM * BK) / kThreads; ++i) {
            const int e = tid + i * kThreads, row = e / int(BK), col = e % int(BK);
            const int gm = m0 + row, gk = k0 + col;
            As[col * kPitch + row] = gm < M && gk < K ? A[std::size_t(gm) * K + gk] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < int(BK * BN) / kThreads; ++i) {
            const int e = tid + i * kThreads, row = e / int(BN), col = e % int(BN);
            const int gk = k0 + row, gn = n0 + col;
            Bs[row * int(BN) + col] = gk < K && gn < N ? B[std::size_t(gk) * N + gn] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < int(BK); ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < int(TM); i += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&As[k * kPitch + ty * int(TM) + i]);
                a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < int(TN); j += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&Bs[k * int(BN) + tx * int(TN) + j]);
                b[j] = v.x, b[j + 1] = v.y, b[j + 2] = v.z, b[j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < int(TM); ++i)
#pragma unroll
                for (int j = 0; j < int(TN); ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < int(TM); ++i)
#pragma unroll
        for (int j = 0; j < int(TN); ++j) {
            const int gm = m0 + ty * int(TM) + i, gn = n0 + tx * int(TN) + j;
            if (gm < M && gn < N) {
                float& c = C[std::size_t(gm) * N + gn];
                c = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c;
            }
        }
}
