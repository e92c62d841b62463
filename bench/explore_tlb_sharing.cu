// explore_tlb_sharing.cu: which SMs share the first TLB level (issue 13)? A standalone experiment,
// not part of the build:
//
//   nvcc -std=c++17 -O2 -arch=sm_90 bench/explore_tlb_sharing.cu -o /tmp/tlb_sharing && /tmp/tlb_sharing
//
// One thread on a victim SM chases a ring of 8 elements 32 MiB apart (8 TLB entries at a coverage of
// 16 or 32 MiB; every line an L2 hit once warm). In each round it warms the ring, waits while one
// thread on a disturber SM chases 64 other elements 32 MiB apart (more entries than the first level
// holds: 15 on the H200), then times one pass of its ring (ld.global.cg, clock64 around each
// dependent load). If the disturber shares the victim's first-level TLB, that pass misses it and
// each load takes the first-level miss penalty longer (about 8 cycles on the H200); if not, the
// pass costs what it costs without a disturber. Disturbers: none, the same SM, SM 1, SM 2, SM 16 and
// the last SM, with the victim on SM 0. Prints median and 90th percentile of the victim's timed
// loads per placement, 5 launches of 32 rounds each.
//
// Then the entries, on one SM: in one block, warp 0 warms 4 elements, warp 1 chases D others
// (D = 0 .. 40), warp 0 times one pass; the victim slows once 4 + D exceeds what the level holds.
#include "explore_common.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr std::size_t kStride = 32ull << 20;  // one element per 32 MiB: its own TLB entry
constexpr unsigned kVictimElements = 8, kDisturberElements = 64, kRounds = 32;
constexpr long long kSpinLimit = 50'000'000;  // a partner that never arrives ends the launch, flagged

__device__ unsigned long long load_cg(unsigned long long address) {
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
}
__device__ unsigned long long chase(unsigned long long cursor, unsigned steps) {
    for (unsigned i = 0; i < steps; ++i) cursor = load_cg(cursor);
    return cursor;
}
// Waits until *flag reaches `value`; false when the partner never got there.
__device__ bool wait_for(volatile int* flag, int value) {
    for (long long spins = 0; *flag < value; ++spins)
        if (spins > kSpinLimit) return false;
    return true;
}

// flags: [0] victim elected, [1] disturber elected, [2] rounds the victim has warmed,
// [3] rounds the disturber has finished, [4] a wait timed out.
__global__ void experiment(unsigned long long victim_ring, unsigned long long disturber_ring, int victim_sm,
                           int disturber_sm, int* flags, unsigned* samples, unsigned long long* sink) {
    if (threadIdx.x != 0) return;
    const int sm = static_cast<int>(sm_id());
    volatile int* shared_flags = flags;
    __shared__ volatile unsigned long long slot;
    if (sm == victim_sm && atomicCAS(&flags[0], 0, 1) == 0) {
        unsigned long long cursor = victim_ring;
        for (unsigned round = 0; round < kRounds; ++round) {
            cursor = chase(cursor, 2 * kVictimElements);  // warm: lines in L2, entries in the TLB
            __threadfence();
            shared_flags[2] = round + 1;
            if (disturber_sm >= 0 && !wait_for(&shared_flags[3], round + 1)) {
                flags[4] = 1;
                return;
            }
            for (unsigned i = 0; i < kVictimElements; ++i) {
                const long long begin = sm_clock();
                cursor = load_cg(cursor);
                slot = cursor;  // the second clock read waits for the load
                samples[round * kVictimElements + i] = static_cast<unsigned>(sm_clock() - begin);
            }
        }
        *sink = cursor + slot;
    } else if (disturber_sm >= 0 && sm == disturber_sm && atomicCAS(&flags[1], 0, 1) == 0) {
        unsigned long long cursor = disturber_ring;
        for (unsigned round = 0; round < kRounds; ++round) {
            if (!wait_for(&shared_flags[2], round + 1)) {
                flags[4] = 1;
                return;
            }
            cursor = chase(cursor, kDisturberElements);
            __threadfence();
            shared_flags[3] = round + 1;
        }
        sink[1] = cursor;
    }
}

// One block: warp 0 warms a ring of `victim_elements`, warp 1 chases `disturber_elements` others,
// warp 0 times one pass of its ring; `rounds` times. The same SM by construction: how many
// disturbing entries the first level takes before the victim's own are gone.
__global__ void entries_kernel(unsigned long long victim_ring, unsigned victim_elements,
                               unsigned long long disturber_ring, unsigned disturber_elements, unsigned rounds,
                               unsigned* samples, unsigned long long* sink) {
    __shared__ volatile unsigned long long slot;
    unsigned long long victim = victim_ring, other = disturber_ring;
    for (unsigned round = 0; round < rounds; ++round) {
        if (threadIdx.x == 0) victim = chase(victim, 2 * victim_elements);
        __syncthreads();
        if (threadIdx.x == 32) other = chase(other, disturber_elements);
        __syncthreads();
        if (threadIdx.x == 0)
            for (unsigned i = 0; i < victim_elements; ++i) {
                const long long begin = sm_clock();
                victim = load_cg(victim);
                slot = victim;
                samples[round * victim_elements + i] = static_cast<unsigned>(sm_clock() - begin);
            }
        __syncthreads();
    }
    if (threadIdx.x == 0) sink[0] = victim + slot;
    if (threadIdx.x == 32) sink[1] = other;
}

// Links `count` elements `kStride` apart from byte `offset` of `buffer` into a ring; returns its start.
unsigned long long link_ring(unsigned char* buffer, std::size_t offset, unsigned count) {
    const auto base = reinterpret_cast<unsigned long long>(buffer) + offset;
    for (unsigned i = 0; i < count; ++i) {
        const unsigned long long next = base + ((i + 1) % count) * kStride;
        CHECK(cudaMemcpy(buffer + offset + i * kStride, &next, sizeof next, cudaMemcpyHostToDevice));
    }
    return base;
}

}  // namespace

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const std::size_t bytes = (kDisturberElements + kVictimElements + 1) * kStride;
    unsigned char* buffer = nullptr;
    CHECK(cudaMalloc(&buffer, bytes));
    const auto disturber_ring = link_ring(buffer, 0, kDisturberElements);
    const auto victim_ring = link_ring(buffer, kDisturberElements * kStride + 4096, kVictimElements);
    int* flags = nullptr;
    unsigned* samples = nullptr;
    unsigned long long* sink = nullptr;
    CHECK(cudaMalloc(&flags, 5 * sizeof(int)));
    CHECK(cudaMalloc(&samples, kRounds * kVictimElements * sizeof(unsigned)));
    CHECK(cudaMalloc(&sink, 2 * sizeof(unsigned long long)));

    std::printf("placement,disturber_sm,launches_ok,median_cycles,p90_cycles,samples\n");
    const int placements[][2] = {{-1, -1}, {0, 0}, {1, 1}, {2, 2}, {16, 16}, {sms - 1, sms - 1}};
    const char* names[] = {"none", "same SM", "SM 1", "SM 2", "SM 16", "last SM"};
    for (int p = 0; p < 6; ++p) {
        std::vector<unsigned> all;
        int ok = 0;
        for (int launch = 0; launch < 5; ++launch) {
            CHECK(cudaMemset(flags, 0, 5 * sizeof(int)));
            // Many one-warp blocks, so every SM (SM 0 twice) gets some; only the elected two work.
            experiment<<<8 * sms, 32>>>(victim_ring, disturber_ring, 0, placements[p][0], flags, samples, sink);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            int host_flags[5];
            CHECK(cudaMemcpy(host_flags, flags, sizeof host_flags, cudaMemcpyDeviceToHost));
            if (host_flags[4] || !host_flags[0] || (placements[p][0] >= 0 && !host_flags[1])) continue;
            std::vector<unsigned> s(kRounds * kVictimElements);
            CHECK(cudaMemcpy(s.data(), samples, s.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
            all.insert(all.end(), s.begin(), s.end());
            ++ok;
        }
        if (all.empty()) {
            std::printf("%s,%d,0,,,0\n", names[p], placements[p][0]);
            continue;
        }
        std::sort(all.begin(), all.end());
        std::printf("%s,%d,%d,%u,%u,%zu\n", names[p], placements[p][0], ok, all[all.size() / 2],
                    all[all.size() * 9 / 10], all.size());
    }

    // Entries: the victim's 4 elements against disturbers of 0 .. 40 elements, all 32 MiB apart.
    std::printf("\ndisturber_elements,median_cycles,p90_cycles,samples\n");
    constexpr unsigned kVictim = 4, kEntryRounds = 64;
    const auto victim4 = link_ring(buffer, kDisturberElements * kStride + 4096, kVictim);
    unsigned* entry_samples = nullptr;
    CHECK(cudaMalloc(&entry_samples, kEntryRounds * kVictim * sizeof(unsigned)));
    for (unsigned d = 0; d <= 40; d += (d < 24 ? 1 : 4)) {
        const auto disturber = d == 0 ? disturber_ring : link_ring(buffer, 0, d);
        entries_kernel<<<1, 64>>>(victim4, kVictim, disturber, d, kEntryRounds, entry_samples, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned> s(kEntryRounds * kVictim);
        CHECK(cudaMemcpy(s.data(), entry_samples, s.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        std::sort(s.begin(), s.end());
        std::printf("%u,%u,%u,%zu\n", d, s[s.size() / 2], s[s.size() * 9 / 10], s.size());
    }
    cudaFree(entry_samples);
    cudaFree(sink);
    cudaFree(samples);
    cudaFree(flags);
    cudaFree(buffer);
    return 0;
}
