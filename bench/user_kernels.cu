// user_kernels.cu: what plain kernels that are not the probe's see, to check the probe's facts
// side by side in one run (issue 18). Standalone, not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 bench/user_kernels.cu -o /tmp/user_kernels
//   /tmp/user_kernels [--out DIR] [--explore] [--sections l1,bandwidth,tlb,l2] [--ring random|sequential] [--ring-offset-mib N]
//
// l1         The L1 a one-thread chase gets (random ring, 128 B apart, ld.global.ca; --ring
//            sequential: each line points to the next, as the probe's rings and most tiles walk;
//            --ring-offset-mib N: the rings start N MiB into a larger allocation), per kind of
//            kernel, carveout and block size: the largest footprint whose cycles per load (median
//            of 5 launches) stay within 10 % of an all-hit ring (bisection to 1 KiB), at every
//            carveout the probe's table has (docs/l1-effective-capacity.md). Kinds: no shared memory, 4 B of
//            static shared memory (one word, as the probe's chase kernel declares; the runtime
//            reports that kernel's as 16 B, the size its L1 rows name), and S bytes of dynamic shared
//            memory per block (S = 0, 8, 32, 96 KiB). Every (kind, carveout, S) has a kernel
//            instance of its own whose attributes are set once, before its first launch.
//            --explore adds: 256 B static, 256 B dynamic, one instance whose carveout changes per
//            launch (cudaLaunchAttributePreferredSharedMemoryCarveout), and one instance per
//            carveout launched with changing dynamic sizes.
// bandwidth  Every block re-reads a private buffer with 16-byte loads (L1), or shared memory
//            conflict-free with 16-byte loads; 256-1024 threads, 1-2 blocks per SM, 16-64 KiB a
//            block. Rate = bytes of P passes / (time of 2P passes - time of P passes): launch
//            overhead and the first (missing) pass cancel. Also bytes per cycle per SM, at the SM
//            clock read in the kernel.
// l2         (not in the default sections) L2 as a streaming kernel gets it: every thread of 2
//            blocks of 1024 per SM walks an L2-resident buffer grid-stride with 16-byte ld.global.cg
//            (L1 bypassed), reading only, or reading one buffer and writing another (st.global.cg),
//            the traffic of a stencil that reads and writes through L2. Differential timing as in
//            bandwidth; the rate counts the bytes read and written.
// tlb        Mei & Chu's stride-and-count chase (ld.global.cg, every line an L2 hit once warm): a
//            ring of N elements S bytes apart; the median latency of its first 4 elements against
//            a ring of those 4 alone, per position. S = 2 .. 64 MiB, N = 4 .. 160, three times.
//
// Tables go to stdout, one CSV per section to --out DIR.
#include "explore_common.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;

__device__ __forceinline__ unsigned long long load_ca(unsigned long long address) {
    unsigned long long v;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long load_cg(unsigned long long address) {
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
}

// ------------------------------------------------------------------------------------------------
// l1: the chase, per kind of kernel
// ------------------------------------------------------------------------------------------------

// Thread 0 walks `warm` loads untimed, then `timed` loads; out[0] = cycles of the timed loads.
__device__ __forceinline__ void chase_on_thread0(unsigned long long start, unsigned warm, unsigned timed,
                                                 unsigned long long* out) {
    if (threadIdx.x != 0) return;
    unsigned long long p = start;
    for (unsigned i = 0; i < warm; ++i) p = load_ca(p);
    const long long t0 = sm_clock();
    for (unsigned i = 0; i < timed; ++i) p = load_ca(p);
    const long long t1 = sm_clock();
    out[0] = static_cast<unsigned long long>(t1 - t0);
    if (p == kImpossible) out[1] = p;
}

// StaticWords = 0: the kernel declares no static shared memory (its dynamic array is what the
// launch gives it, possibly 0 B). > 0: that many 4-byte words of static shared memory, used.
template <int Slot, int StaticWords>
__global__ void chase_kernel(unsigned long long start, unsigned warm, unsigned timed, unsigned dynamic_words,
                             unsigned long long* out) {
    if constexpr (StaticWords > 0) {
        __shared__ unsigned declared[StaticWords];
        declared[threadIdx.x % StaticWords] = threadIdx.x;
        __syncthreads();
        if (declared[(threadIdx.x + 1) % StaticWords] == 0xdeadbeefu) out[2] = 1;
    } else {
        extern __shared__ unsigned dynamic_shared[];
        if (dynamic_words > 0) {
            dynamic_shared[threadIdx.x % dynamic_words] = threadIdx.x;
            __syncthreads();
            if (dynamic_shared[(threadIdx.x + 1) % dynamic_words] == 0xdeadbeefu) out[2] = 1;
        }
    }
    chase_on_thread0(start, warm, timed, out);
}

using ChaseFn = void (*)(unsigned long long, unsigned, unsigned, unsigned, unsigned long long*);

template <int StaticWords, int... Slots>
std::vector<ChaseFn> instances(std::integer_sequence<int, Slots...>) {
    return {&chase_kernel<Slots, StaticWords>...};
}

// Fresh instances, handed out once each: a kernel's carveout attribute is set once, before its
// first launch (the driver applies a changed preference to an already launched function only partly).
struct InstancePool {
    std::vector<ChaseFn> free;
    ChaseFn take() {
        if (free.empty()) {
            std::fprintf(stderr, "out of kernel instances\n");
            std::exit(1);
        }
        const ChaseFn f = free.back();
        free.pop_back();
        return f;
    }
};

struct Kind {
    std::string name;       // none, static, dynamic
    unsigned shared_bytes;  // static: declared; dynamic: launched with
    InstancePool* pool;
};

std::size_t g_ring_offset_bytes = 0;  // --ring-offset-mib: where in a larger allocation the rings lie

struct RingBuffer {
    DeviceArray<unsigned long long> data;
    std::size_t bytes;
    unsigned long long base() const { return reinterpret_cast<unsigned long long>(data.get()) + g_ring_offset_bytes; }
};

bool g_sequential_ring = false;  // --ring sequential

// Links a cyclic ring of footprint `bytes`, 128 B apart, from the buffer's start, in a random
// order (or in address order with --ring sequential); returns its start.
unsigned long long link_random(RingBuffer& buffer, std::size_t bytes, unsigned seed) {
    constexpr std::size_t stride = 128;
    const std::size_t n = bytes / stride;
    std::vector<unsigned> order(n);
    std::iota(order.begin(), order.end(), 0u);
    if (!g_sequential_ring) std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    std::vector<unsigned long long> host(bytes / 8, 0);
    for (std::size_t i = 0; i < n; ++i)
        host[order[i] * stride / 8] = buffer.base() + order[(i + 1) % n] * stride;
    CHECK(cudaMemcpy(reinterpret_cast<void*>(buffer.base()), host.data(), bytes, cudaMemcpyHostToDevice));
    return buffer.base() + order[0] * stride;
}

struct Launch {
    ChaseFn fn;
    unsigned threads;
    unsigned dynamic_bytes;
    int launch_carveout = -2;  // >= 0: cudaLaunchAttributePreferredSharedMemoryCarveout on this launch
};

// Median over kLaunchesPerFootprint launches: one launch now and then runs slow (a third slower on an all-hit
// ring of the H200, bench/l1_miss_sources.cu), and one slow launch sent the bisection below the
// split's end (46 or 50 KiB at the 75 % split, where 5 launches a footprint read 53 in every setting).
constexpr int kLaunchesPerFootprint = 5;

double cycles_per_load(const Launch& l, RingBuffer& buffer, std::size_t bytes, DeviceArray<unsigned long long>& out) {
    const unsigned n = static_cast<unsigned>(bytes / 128);
    const unsigned long long start = link_random(buffer, bytes, 12345u + n);
    const unsigned warm = 2 * n, timed = std::max(2 * n, 1024u);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1);
    config.blockDim = dim3(l.threads);
    config.dynamicSmemBytes = l.dynamic_bytes;
    cudaLaunchAttribute attribute{};
    if (l.launch_carveout >= 0) {
        attribute.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        attribute.val.sharedMemCarveout = static_cast<unsigned>(l.launch_carveout);
        config.attrs = &attribute;
        config.numAttrs = 1;
    }
    std::vector<double> per_load;
    for (int launch = 0; launch < kLaunchesPerFootprint; ++launch) {
        CHECK(cudaLaunchKernelEx(&config, l.fn, start, warm, timed, l.dynamic_bytes / 4, out.get()));
        CHECK_LAUNCH();
        unsigned long long cycles = 0;
        CHECK(cudaMemcpy(&cycles, out.get(), sizeof cycles, cudaMemcpyDeviceToHost));
        per_load.push_back(double(cycles) / timed);
    }
    return median_of(per_load);
}

// The largest footprint (1 KiB steps) whose cycles per load stay within 10 % of an 8 KiB ring's.
struct L1Answer {
    std::size_t bytes = 0;
    double hit_cycles = 0, miss_cycles = 0;
};
L1Answer l1_of(const Launch& l, RingBuffer& buffer, DeviceArray<unsigned long long>& out) {
    L1Answer a;
    a.hit_cycles = cycles_per_load(l, buffer, 8 * KiB, out);
    const auto hits = [&](std::size_t bytes) { return cycles_per_load(l, buffer, bytes, out) <= 1.10 * a.hit_cycles; };
    std::size_t lo = 8 * KiB, hi = 320 * KiB;
    a.miss_cycles = cycles_per_load(l, buffer, hi, out);
    if (a.miss_cycles <= 1.10 * a.hit_cycles) return {hi, a.hit_cycles, a.miss_cycles};  // no limit seen
    while (hi - lo > KiB) {
        const std::size_t mid = (lo + hi) / 2 / KiB * KiB;
        (hits(mid) ? lo : hi) = mid;
    }
    a.bytes = lo;
    return a;
}

int occupancy(ChaseFn fn, unsigned threads, unsigned dynamic_bytes) {
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, static_cast<int>(threads), dynamic_bytes));
    return blocks;
}

void prepare(ChaseFn fn, int carveout, unsigned max_dynamic_bytes) {
    if (carveout >= 0) CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    if (max_dynamic_bytes > 48 * KiB)
        CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(max_dynamic_bytes)));
}

std::string carveout_text(int c) { return c < 0 ? "driver" : std::to_string(c); }

void l1_section(const std::string& out_dir, bool explore) {
    Section section("l1_kinds");
    RingBuffer buffer{device_alloc<unsigned long long>((512 * KiB + g_ring_offset_bytes) / 8), 512 * KiB};
    auto out = device_alloc<unsigned long long>(4);
    InstancePool none{instances<0>(std::make_integer_sequence<int, 96>{})};
    InstancePool static4{instances<1>(std::make_integer_sequence<int, 16>{})};
    InstancePool static256{instances<64>(std::make_integer_sequence<int, 16>{})};

    // Every carveout the probe's table has, for any kind of kernel.
    const std::vector<int> carveouts{-1, 0, 1, 3, 4, 5, 7, 10, 25, 50, 75, 100};
    const std::vector<unsigned> shapes{32, 256, 1024};
    std::vector<Kind> kinds{{"none", 0, &none}, {"static", 4, &static4}, {"dynamic", 8 * KiB, &none},
                            {"dynamic", 32 * KiB, &none}, {"dynamic", 96 * KiB, &none}};
    if (explore) {
        kinds.push_back({"static", 256, &static256});
        kinds.push_back({"dynamic", 0, &none});
        kinds.push_back({"dynamic", 256, &none});
    }
    auto& table = section.table("l1 per kind of kernel, carveout and block size (one instance per kind and carveout)",
                                {"kind", "shared_bytes", "carveout", "threads", "resident_blocks", "l1_kib",
                                 "hit_cycles", "miss_cycles"});
    for (const auto& kind : kinds) {
        progress("l1: %s %u B", kind.name.c_str(), kind.shared_bytes);
        for (int carveout : carveouts) {
            const ChaseFn fn = kind.pool->take();
            const unsigned dynamic = kind.name == "dynamic" ? kind.shared_bytes : 0;
            prepare(fn, carveout, dynamic);
            for (unsigned threads : shapes) {
                const Launch launch{fn, threads, dynamic};
                const auto a = l1_of(launch, buffer, out);
                table.add({kind.name, std::to_string(kind.shared_bytes), carveout_text(carveout),
                           std::to_string(threads), std::to_string(occupancy(fn, threads, dynamic)),
                           fixed(double(a.bytes) / KiB, 0), fixed(a.hit_cycles, 1), fixed(a.miss_cycles, 1)});
            }
        }
    }
    if (explore) {
        // One instance, the carveout given per launch, in a scrambled order.
        auto& per_launch = section.table("one instance per kind, carveout per launch (launch attribute), 256 threads",
                                         {"kind", "shared_bytes", "carveout", "threads", "resident_blocks", "l1_kib",
                                          "hit_cycles", "miss_cycles"});
        for (const auto& kind : {Kind{"none", 0, &none}, Kind{"static", 4, &static4}}) {
            const ChaseFn fn = kind.pool->take();
            for (int carveout : {0, 100, 3, 50, 1, 25, 10, 5, 0, 10}) {
                const auto a = l1_of({fn, 256, 0, carveout}, buffer, out);
                per_launch.add({kind.name, std::to_string(kind.shared_bytes), std::to_string(carveout), "256", "-",
                                fixed(double(a.bytes) / KiB, 0), fixed(a.hit_cycles, 1), fixed(a.miss_cycles, 1)});
            }
        }
        // One instance per carveout, launched with changing dynamic sizes.
        auto& reused = section.table("one instance per carveout, dynamic size changing per launch, 256 threads",
                                     {"kind", "shared_bytes", "carveout", "threads", "resident_blocks", "l1_kib",
                                      "hit_cycles", "miss_cycles"});
        for (int carveout : {-1, 0, 10, 50}) {
            const ChaseFn fn = none.take();
            prepare(fn, carveout, 100 * KiB);
            for (std::size_t dynamic : {96 * KiB, std::size_t{0}, 32 * KiB, 8 * KiB, std::size_t{0}, std::size_t{256}}) {
                const auto a = l1_of({fn, 256, static_cast<unsigned>(dynamic)}, buffer, out);
                reused.add({"dynamic", std::to_string(dynamic), carveout_text(carveout), "256",
                            std::to_string(occupancy(fn, 256, dynamic)), fixed(double(a.bytes) / KiB, 0),
                            fixed(a.hit_cycles, 1), fixed(a.miss_cycles, 1)});
            }
        }
    }
    emit_section(section, out_dir);
}

// ------------------------------------------------------------------------------------------------
// bandwidth: plain L1 and shared-memory readers
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ uint4 load_ca_v4(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
__device__ __forceinline__ uint4 load_shared_v4(unsigned address) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(address));
    return v;
}

// Block 0's thread 0 writes its SM clock and global time at start and end: the clock the run ran at.
__device__ __forceinline__ void stamp(unsigned long long* clocks, int which) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        clocks[2 * which] = static_cast<unsigned long long>(sm_clock());
        clocks[2 * which + 1] = global_ns();
    }
}

// Every block re-reads its own `pieces` 16-byte pieces, `passes` times, Unroll loads in flight a thread.
template <int Unroll>
__global__ void l1_reader(const uint4* data, unsigned pieces, unsigned passes, unsigned long long* clocks) {
    stamp(clocks, 0);
    const uint4* mine = data + size_t(blockIdx.x) * pieces;
    unsigned acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass) {
        for (unsigned i = threadIdx.x; i < pieces; i += Unroll * blockDim.x) {
            uint4 v[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) v[u] = load_ca_v4(mine + i + u * blockDim.x);
#pragma unroll
            for (int u = 0; u < Unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
        }
    }
    stamp(clocks, 1);
    if (acc == 0x5a5a5a5au) clocks[4] = acc;
}

template <int Unroll>
__global__ void shared_reader(unsigned pieces, unsigned passes, unsigned long long* clocks) {
    extern __shared__ uint4 tile[];
    for (unsigned i = threadIdx.x; i < pieces; i += blockDim.x) tile[i] = make_uint4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    stamp(clocks, 0);
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile));
    unsigned acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass) {
        for (unsigned i = threadIdx.x; i < pieces; i += Unroll * blockDim.x) {
            uint4 v[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) v[u] = load_shared_v4(base + (i + u * blockDim.x) * 16);
#pragma unroll
            for (int u = 0; u < Unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
        }
    }
    stamp(clocks, 1);
    if (acc == 0x5a5a5a5au) clocks[4] = acc;
}

struct Rate {
    double bytes_per_s = 0, clock_hz = 0;
};

template <typename Launcher>
Rate differential_rate(Launcher launch, double bytes_per_pass, unsigned passes, unsigned long long* clocks) {
    Event begin = make_event(), end = make_event();
    const auto time = [&](unsigned p) {
        std::vector<double> ms;
        for (int r = 0; r < 5; ++r) {
            CHECK(cudaEventRecord(begin.get()));
            launch(p);
            CHECK(cudaEventRecord(end.get()));
            CHECK(cudaEventSynchronize(end.get()));
            CHECK_LAUNCH();
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, begin.get(), end.get()));
            ms.push_back(t);
        }
        return median_of(ms) * 1e-3;
    };
    launch(passes);  // warm
    CHECK_LAUNCH();
    const double one = time(passes), two = time(2 * passes);
    unsigned long long c[4];
    CHECK(cudaMemcpy(c, clocks, sizeof c, cudaMemcpyDeviceToHost));
    Rate r;
    r.bytes_per_s = bytes_per_pass * passes / (two - one);
    r.clock_hz = double(c[2] - c[0]) / (double(c[3] - c[1]) * 1e-9);
    return r;
}

void bandwidth_section(const std::string& out_dir, int sms) {
    Section section("bandwidth");
    auto clocks = device_alloc<unsigned long long>(8);
    auto& table = section.table("plain kernels, differential timing (2P - P passes), median of 5",
                                {"level", "threads", "blocks_per_sm", "kib_per_block", "unroll", "tb_per_s",
                                 "clock_mhz", "bytes_per_cycle_per_sm"});
    const std::size_t most = 64 * KiB;
    auto data = device_alloc<uint4>(std::size_t(sms) * 2 * most / 16);
    CHECK(cudaMemset(data.get(), 1, std::size_t(sms) * 2 * most));
    for (const char* level : {"l1", "shared"}) {
        progress("bandwidth: %s", level);
        for (unsigned threads : {256u, 512u, 1024u})
            for (unsigned per_sm : {1u, 2u})
                for (std::size_t bytes : {16 * KiB, 32 * KiB, 64 * KiB})
                    for (int unroll : {4, 8}) {
                        const unsigned blocks = unsigned(sms) * per_sm;
                        const unsigned pieces = static_cast<unsigned>(bytes / 16);
                        if (pieces % (unsigned(unroll) * threads) != 0) continue;
                        const double per_pass = double(bytes) * blocks;
                        // About 8 GiB per P passes: a few hundred microseconds at these rates.
                        const unsigned passes = static_cast<unsigned>(std::max(1.0, 8.0 * (1 << 30) / per_pass));
                        const bool l1 = std::string(level) == "l1";
                        if (!l1) {
                            for (auto* f : {&shared_reader<4>, &shared_reader<8>})
                                CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(most)));
                        }
                        const auto launch = [&](unsigned p) {
                            if (l1 && unroll == 4) l1_reader<4><<<blocks, threads>>>(data.get(), pieces, p, clocks.get());
                            if (l1 && unroll == 8) l1_reader<8><<<blocks, threads>>>(data.get(), pieces, p, clocks.get());
                            if (!l1 && unroll == 4) shared_reader<4><<<blocks, threads, bytes>>>(pieces, p, clocks.get());
                            if (!l1 && unroll == 8) shared_reader<8><<<blocks, threads, bytes>>>(pieces, p, clocks.get());
                            CHECK(cudaGetLastError());
                        };
                        const Rate r = differential_rate(launch, per_pass, passes, clocks.get());
                        table.add({level, std::to_string(threads), std::to_string(per_sm), std::to_string(bytes / KiB),
                                   std::to_string(unroll), fixed(r.bytes_per_s / 1e12, 2), fixed(r.clock_hz / 1e6, 0),
                                   fixed(r.bytes_per_s / sms / r.clock_hz, 1)});
                    }
    }
    emit_section(section, out_dir);
}

// ------------------------------------------------------------------------------------------------
// l2: streaming reads, and reads with writes, through L2
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ uint4 load_cg_v4(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
__device__ __forceinline__ void store_cg_v4(uint4* p, const uint4& v) {
    asm volatile("st.global.cg.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// Every thread walks `pieces` 16-byte pieces grid-stride, 4 loads in flight, `passes` times; `pieces`
// is a multiple of 4 grid strides. Write: each piece read from `in` is stored to `out`.
template <bool Write>
__global__ void l2_stream(const uint4* in, uint4* out, std::size_t pieces, unsigned passes, unsigned long long* clocks) {
    stamp(clocks, 0);
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    unsigned acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass)
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < pieces; i += 4 * stride) {
            uint4 v[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) v[u] = load_cg_v4(in + i + u * stride);
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                if constexpr (Write) store_cg_v4(out + i + u * stride, v[u]);
                else acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
            }
        }
    stamp(clocks, 1);
    if (acc == 0x5a5a5a5au) clocks[4] = acc;
}

void l2_section(const std::string& out_dir, int sms, std::size_t l2_bytes) {
    Section section("l2");
    auto clocks = device_alloc<unsigned long long>(8);
    auto& table = section.table("L2-resident streams, 16-byte .cg loads (and stores), differential timing",
                                {"traffic", "footprint_mib", "tb_per_s", "clock_mhz", "bytes_per_cycle_per_sm"});
    constexpr unsigned threads = 1024, per_sm = 2;
    const unsigned blocks = unsigned(sms) * per_sm;
    const std::size_t chunk = 4 * std::size_t(blocks) * threads;  // pieces of one unrolled grid stride
    // Aimed at footprints (read + written) of a third and two thirds of L2, resident in both partitions,
    // but a buffer is a whole number of chunks (the kernel's unrolled stride needs it), one chunk at
    // least: 16.5 MiB on 132 SMs. With 50 MiB of L2 (H100, H200) what runs is read 16.5 and 33 MiB,
    // read+write 33 MiB (two buffers of one chunk, for either aim). The row prints the footprint that
    // ran, and an aim that rounds to the size already measured is skipped, not reported twice.
    for (const bool write : {false, true}) {
        std::size_t measured = 0;  // pieces of this traffic's previous row
        for (const double share : {1.0 / 3, 2.0 / 3}) {
            const std::size_t footprint = static_cast<std::size_t>(share * double(l2_bytes));
            const std::size_t pieces = std::max<std::size_t>(1, footprint / (write ? 2 : 1) / 16 / chunk) * chunk;
            if (pieces == measured) continue;
            measured = pieces;
            auto in = device_alloc<uint4>(pieces);
            auto out = device_alloc<uint4>(write ? pieces : 1);
            CHECK(cudaMemset(in.get(), 1, pieces * 16));
            const double per_pass = double(pieces) * 16 * (write ? 2 : 1);
            const unsigned passes = static_cast<unsigned>(std::max(1.0, 8.0 * (1 << 30) / per_pass));
            progress("l2: %s, %.1f MiB", write ? "read+write" : "read", per_pass / (1 << 20));
            const auto launch = [&](unsigned p) {
                if (write) l2_stream<true><<<blocks, threads>>>(in.get(), out.get(), pieces, p, clocks.get());
                else l2_stream<false><<<blocks, threads>>>(in.get(), out.get(), pieces, p, clocks.get());
                CHECK(cudaGetLastError());
            };
            const Rate r = differential_rate(launch, per_pass, passes, clocks.get());
            table.add({write ? "read+write" : "read", fixed(per_pass / (1 << 20), 1), fixed(r.bytes_per_s / 1e12, 2),
                       fixed(r.clock_hz / 1e6, 0), fixed(r.bytes_per_s / sms / r.clock_hz, 1)});
        }
    }
    emit_section(section, out_dir);
}

// ------------------------------------------------------------------------------------------------
// tlb: stride-and-count
// ------------------------------------------------------------------------------------------------

// Thread 0 chases a ring of `elements` (sequential, `stride` apart) twice untimed, then times
// `passes` passes load by load (a store of each value to shared memory before the second clock
// read waits for the load); records the first 4 positions of every pass.
__global__ void stride_chase(unsigned long long start, unsigned elements, unsigned passes, unsigned* samples) {
    if (threadIdx.x != 0) return;
    __shared__ volatile unsigned long long dependency;
    unsigned long long p = start;
    for (unsigned i = 0; i < 2 * elements; ++i) p = load_cg(p);
    for (unsigned pass = 0; pass < passes; ++pass)
        for (unsigned i = 0; i < elements; ++i) {
            const long long before = sm_clock();
            p = load_cg(p);
            dependency = p;
            const long long after = sm_clock();
            if (i < 4) samples[pass * 4 + i] = static_cast<unsigned>(after - before);
        }
}

__global__ void link_sequential(unsigned char* base, unsigned elements, unsigned long long stride) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += gridDim.x * blockDim.x)
        *reinterpret_cast<unsigned long long*>(base + i * stride) =
            reinterpret_cast<unsigned long long>(base + ((i + 1) % elements) * stride);
}

void tlb_section(const std::string& out_dir) {
    Section section("tlb");
    auto& table = section.table("stride-and-count: first 4 loads of an N-element ring against a 4-element ring",
                                {"repeat", "stride_mib", "elements", "median_0", "median_1", "median_2", "median_3",
                                 "rise_max", "rise_mean"});
    std::size_t free_bytes = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    const std::size_t span = std::min<std::size_t>(free_bytes / 2, 11 * 1024 * MiB);
    constexpr unsigned kPasses = 64;
    auto samples = device_alloc<unsigned>(kPasses * 4);
    for (int repeat = 0; repeat < 3; ++repeat) {
        auto buffer = device_alloc<unsigned char>(span);  // freshly mapped each time
        for (std::size_t stride : {2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB}) {
            progress("tlb: repeat %d, stride %zu MiB", repeat, stride / MiB);
            std::vector<double> alone;
            for (unsigned n : {4u, 8u, 12u, 13u, 14u, 15u, 16u, 17u, 18u, 19u, 20u, 24u, 32u, 48u, 64u, 96u, 128u, 160u}) {
                if (std::size_t(n) * stride > span) break;
                link_sequential<<<64, 256>>>(buffer.get(), n, stride);
                CHECK_LAUNCH();
                stride_chase<<<1, 32>>>(reinterpret_cast<unsigned long long>(buffer.get()), n, kPasses, samples.get());
                CHECK_LAUNCH();
                std::vector<unsigned> host(kPasses * 4);
                CHECK(cudaMemcpy(host.data(), samples.get(), host.size() * 4, cudaMemcpyDeviceToHost));
                std::vector<double> med(4);
                for (int position = 0; position < 4; ++position) {
                    std::vector<double> v;
                    for (unsigned pass = 0; pass < kPasses; ++pass) v.push_back(host[pass * 4 + position]);
                    med[position] = median_of(v);
                }
                if (n == 4) alone = med;
                double rise_max = -1e9, rise_sum = 0;
                for (int position = 0; position < 4; ++position) {
                    rise_max = std::max(rise_max, med[position] - alone[position]);
                    rise_sum += med[position] - alone[position];
                }
                table.add({std::to_string(repeat), std::to_string(stride / MiB), std::to_string(n), fixed(med[0], 0),
                           fixed(med[1], 0), fixed(med[2], 0), fixed(med[3], 0), fixed(rise_max, 1),
                           fixed(rise_sum / 4, 1)});
            }
        }
    }
    emit_section(section, out_dir);
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_dir, sections = "l1,bandwidth,tlb";  // l2 on request
    bool explore = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
        else if (a == "--sections" && i + 1 < argc) sections = argv[++i];
        else if (a == "--explore") explore = true;
        else if (a == "--ring-offset-mib" && i + 1 < argc)
            g_ring_offset_bytes = std::stoul(argv[++i]) * 1024 * KiB;
        else if (a == "--ring" && i + 1 < argc && (argv[i + 1] == std::string("random") || argv[i + 1] == std::string("sequential")))
            g_sequential_ring = argv[++i] == std::string("sequential");
        else {
            std::fprintf(stderr, "usage: user_kernels [--out DIR] [--explore] [--sections l1,bandwidth,tlb,l2] [--ring random|sequential] [--ring-offset-mib N]\n");
            return 2;
        }
    }
    const cudaDeviceProp prop = open_device("user_kernels");
    if (sections.find("l1") != std::string::npos) l1_section(out_dir, explore);
    if (sections.find("bandwidth") != std::string::npos) bandwidth_section(out_dir, prop.multiProcessorCount);
    if (sections.find("tlb") != std::string::npos) tlb_section(out_dir);
    if (sections.find("l2") != std::string::npos) l2_section(out_dir, prop.multiProcessorCount, std::size_t(prop.l2CacheSize));
    progress("done");
    return 0;
}
