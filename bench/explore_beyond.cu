// explore_beyond.cu: a standalone, run-once experiment on a Hopper GPU (H100 / H200) that tries out
// how to measure four quantities quickly and robustly before they become probe stages. Not part of
// the build; compile it by hand:
//
//   nvcc -std=c++17 -O2 -arch=sm_90 -lineinfo bench/explore_beyond.cu -o /tmp/explore_beyond
//   /tmp/explore_beyond --out DIR [--only tlb,banks,l1sets,dsmem]
//
// Sections (all run by default):
//   tlb     TLB reach and page size of cudaMalloc memory: page-stride pointer chases (ld.global.cg)
//           at strides 64 KiB .. 1 GiB over a buffer of up to 64 GiB; latency steps against N and the
//           footprint, with the lines hitting L2 ("l2hit", in address order and "l2hit_random" in a
//           random order) and, for three strides, missing it with the ring's pages warm ("l2miss":
//           discard.global.L2 after each load)
//   banks   shared-memory bank count and width and the cost of an n-way conflict: one warp
//           (latency) and one block of 32 warps (throughput) reading with a stride of k elements of
//           4, 8 and 16 bytes; a 32x32 float tile read column-wise with pitch 32, 33 and swizzled
//   l1sets  L1 organisation: rings of M lines at power-of-two strides (ld.global.ca, carveout 0);
//           the largest all-hit M per stride tells plain-indexed sets from a hashed index, and a
//           ring just past the capacity tells LRU from other replacement
//   dsmem   distributed shared memory (cc >= 9.0): local against remote latency inside a thread
//           block cluster, and remote read bandwidth per cluster size (2, 4, 8, 16)
//
// stdout: one "## <section>" line per section followed by plain tables; each section ends with a
// "conclusion" table (the best estimate and its evidence). --out DIR: one CSV per section (sub-tables
// merged, told apart by the "table" column). stderr: progress with timings.
//
// The pointer chases copy the technique of probe/kernels/pchase.cu: clock64 around each dependent
// load, and a store of the loaded value to a shared volatile slot before the second clock read, so
// the second read cannot issue before the load has returned.

#include "explore_common.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cg = cooperative_groups;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;
constexpr std::size_t kGiB = 1024 * kMiB;

// 65536 -> "64 KiB", 3221225472 -> "3 GiB", 1.5 MiB -> "1.50 MiB".
static std::string bytes_text(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    char text[64];
    if (bytes == std::floor(bytes)) std::snprintf(text, sizeof(text), "%.0f %s", bytes, units[u]);
    else std::snprintf(text, sizeof(text), "%.2f %s", bytes, units[u]);
    return text;
}

static const std::vector<std::string> kConclusionColumns = {"quantity", "estimate", "evidence"};

// ------------------------------------------------------------------------------------------------
// Sample statistics
// ------------------------------------------------------------------------------------------------

struct SampleStats {
    unsigned min = 0, p10 = 0, p50 = 0, p90 = 0, max = 0;
    double mean = 0;
};

// Nearest-rank percentiles of a sorted copy.
static SampleStats summarize(std::vector<unsigned> v) {
    SampleStats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const auto at = [&](double p) { return v[static_cast<std::size_t>(p * (v.size() - 1) + 0.5)]; };
    s.min = v.front();
    s.p10 = at(0.1);
    s.p50 = at(0.5);
    s.p90 = at(0.9);
    s.max = v.back();
    double sum = 0;
    for (unsigned x : v) sum += x;
    s.mean = sum / v.size();
    return s;
}

// The power of two nearest to x on a log scale.
static double nearest_power_of_two(double x) { return x > 0 ? std::exp2(std::round(std::log2(x))) : 0; }

// kImpossible (explore_common.cuh) for 32-bit folds.
constexpr unsigned kImpossible32 = 0x5a5a5a5au;


// Each block times `duration_ns` of clock64 against %globaltimer: the SM clock under that load.
__global__ void clock_kernel(unsigned long long duration_ns, unsigned long long* per_block) {
    if (threadIdx.x != 0) return;
    const long long c0 = sm_clock();
    const unsigned long long t0 = global_ns();
    unsigned long long t1 = t0;
    while (t1 - t0 < duration_ns) t1 = global_ns();
    per_block[2 * blockIdx.x] = static_cast<unsigned long long>(sm_clock() - c0);
    per_block[2 * blockIdx.x + 1] = t1 - t0;
}

struct Gpu {
    int device = 0;
    cudaDeviceProp prop{};
    int sms = 0;
    std::size_t l2_bytes = 0;
    int shared_optin_per_block = 0;
};

static void spin_all_sms(const Gpu& gpu, double milliseconds) {
    auto sink = device_alloc<unsigned long long>(1);
    spin_kernel<<<gpu.sms * 2, 128>>>(static_cast<unsigned long long>(milliseconds * 1e6), sink.get());
    CHECK_LAUNCH();
}

// Median GHz over one block per SM (2 x SMs blocks so every SM gets one).
static double measure_clock_ghz(const Gpu& gpu, double milliseconds) {
    const unsigned blocks = gpu.sms * 2;
    auto per_block = device_alloc<unsigned long long>(2 * blocks);
    clock_kernel<<<blocks, 32>>>(static_cast<unsigned long long>(milliseconds * 1e6), per_block.get());
    CHECK_LAUNCH();
    std::vector<unsigned long long> host(2 * blocks);
    CHECK(cudaMemcpy(host.data(), per_block.get(), host.size() * sizeof(host[0]), cudaMemcpyDeviceToHost));
    std::vector<double> ghz;
    for (unsigned b = 0; b < blocks; ++b)
        if (host[2 * b + 1] > 0) ghz.push_back(double(host[2 * b]) / double(host[2 * b + 1]));
    return median_of(ghz);
}

struct Timing {
    double median_ms = 0, min_ms = 0;
};

// One warm-up launch, then the median of five launches timed with events. `launch` returns the
// launch call's own error code (cluster launches are refused there, not at cudaGetLastError).
template <typename Launch>
Timing time_launches(Launch&& launch) {
    constexpr int kRuns = 5;
    CHECK(launch());
    CHECK_LAUNCH();
    Event begin = make_event(), end = make_event();
    std::vector<double> ms;
    for (int r = 0; r < kRuns; ++r) {
        CHECK(cudaEventRecord(begin.get()));
        CHECK(launch());
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(end.get()));
        CHECK(cudaDeviceSynchronize());
        float elapsed = 0;
        CHECK(cudaEventElapsedTime(&elapsed, begin.get(), end.get()));
        ms.push_back(elapsed);
    }
    return {median_of(ms), *std::min_element(ms.begin(), ms.end())};
}

// Links `elements` 8-byte pointers placed `stride` bytes apart into a ring (i -> i + 1, the last
// back to the first). With skew_slots > 1, element i sits (i * 7 % skew_slots) lines into its
// stride slot, so that elements a power of two apart do not all fall into the same L2 set.
__device__ __forceinline__ unsigned char* ring_element(unsigned char* base, unsigned long long i,
                                                       unsigned long long stride, unsigned skew_slots) {
    return base + i * stride + (skew_slots > 1 ? (i * 7 % skew_slots) * 128 : 0);
}

// With `order`, the chase visits slots order[0], order[1], ... instead of 0, 1, ...
__global__ void link_kernel(unsigned char* base, unsigned elements, unsigned long long stride, unsigned skew_slots,
                            const unsigned* order) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += gridDim.x * blockDim.x) {
        const unsigned from = order ? order[i] : i;
        const unsigned to = order ? order[(i + 1) % elements] : (i + 1) % elements;
        *reinterpret_cast<unsigned long long*>(ring_element(base, from, stride, skew_slots)) =
            reinterpret_cast<unsigned long long>(ring_element(base, to, stride, skew_slots));
    }
}

static void link_ring(unsigned char* base, unsigned elements, unsigned long long stride, unsigned skew_slots,
                      const unsigned* order = nullptr) {
    link_kernel<<<std::min(1024u, (elements + 255) / 256), 256>>>(base, elements, stride, skew_slots, order);
    CHECK_LAUNCH();
}

__device__ __forceinline__ unsigned long long load_cg(unsigned long long cursor) {
    unsigned long long next;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    return next;
}

__device__ __forceinline__ unsigned long long load_ca(unsigned long long cursor) {
    unsigned long long next;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    return next;
}

// Shared between sections: the first TLB level's reach, if section tlb found one (l1sets cites it).
static std::optional<double> g_first_tlb_reach_bytes;

// ---------------------------------- Section A: tlb ---------------------------------------------

constexpr std::size_t kTlbWantBytes = 64 * kGiB;  // at most 80 % of free memory, halved until cudaMalloc succeeds
constexpr std::size_t kTlbMinBytes = 256 * kMiB;
constexpr unsigned kTlbStartN = 4;
constexpr unsigned kTlbMinSamples = 512;    // small rings are chased several times round
constexpr unsigned kTlbSkewSlotsMax = 512;  // line offsets within a stride slot: 64 KiB of them
constexpr double kStepRatio = 1.08;         // a step: the median rises by 8 % + 15 cycles or more
constexpr double kStepCycles = 15;
// The brief's strides, and two larger ones that tell an entry count (a step at the same N at every
// large stride) from a reach (a step at the same footprint).
const std::vector<unsigned long long> kTlbStrides = {64 * kKiB, 512 * kKiB, 2 * kMiB, 32 * kMiB, 256 * kMiB, 1 * kGiB};
const std::vector<unsigned long long> kTlbMissStrides = {64 * kKiB, 2 * kMiB, 32 * kMiB};
const std::vector<unsigned long long> kTlbRandomStrides = {64 * kKiB, 2 * kMiB};
constexpr double kShiftRatio = 1.0;  // a shift: p10 rises by 6 cycles or more (a small uniform step;
constexpr double kShiftCycles = 6;   // p10 stays within +-2 cycles on a plateau on the H200)

// l2hit: the timed loads hit L2 (translation only), elements in address order. l2hit_random: the
// same elements in a random cyclic order, so that consecutive loads fall on random pages (in address
// order, a stride below a translation entry's coverage misses only once per entry). l2miss: every
// timed load misses L2 and goes to DRAM while the ring's pages stay warm in the TLBs: the ring is
// written back to DRAM first (a 4 x L2 stream), walked once (TLB warm), then each line is discarded
// from L2 (discard.global.L2, same pages) and discarded again right after each timed load.
enum class TlbVariant { l2hit, l2hit_random, l2miss };
static const char* to_string(TlbVariant v) {
    return v == TlbVariant::l2hit ? "l2hit" : v == TlbVariant::l2hit_random ? "l2hit_random" : "l2miss";
}

struct TlbChaseArgs {
    unsigned long long start;
    unsigned long long lo, hi;  // every pointer must lie in [lo, hi): a stale line stops the chase
    unsigned elements;
    unsigned timed_steps;
    unsigned discard;           // 1: the l2miss variant
    unsigned short* samples;    // timed_steps entries (cycles, saturated at 65535)
    unsigned long long* stats;  // [0] cycles, [1] ns of the timed pass, [2] SM id, [3] sink, [4] error bits
};

__device__ __forceinline__ void discard_l2(unsigned long long line) {
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(line) : "memory");
}

// Lane 0: one untimed pass (and for l2miss a discarding pass), then the timed loads. The samples go
// to shared memory during the chase (a global store would use a TLB entry of its own) and to
// global memory after it. Error bits: 1 a pointer outside the buffer, 2 a pass did not close the ring.
__global__ void tlb_chase_kernel(TlbChaseArgs a) {
    extern __shared__ unsigned short tlb_samples[];
    __shared__ volatile unsigned dependency_slot;
    unsigned timed_done = 0;
    if (threadIdx.x == 0) {
        unsigned error = 0;
        unsigned long long cursor = a.start;
        for (unsigned i = 0; i < a.elements && !error; ++i) {
            cursor = load_cg(cursor);
            if (cursor < a.lo || cursor >= a.hi) error |= 1;
        }
        if (!error && cursor != a.start) error |= 2;
        if (a.discard)
            for (unsigned i = 0; i < a.elements && !error; ++i) {
                const unsigned long long next = load_cg(cursor);
                discard_l2(cursor);
                cursor = next;
            }
        const long long cycles_begin = sm_clock();
        const unsigned long long ns_begin = global_ns();
        for (; timed_done < a.timed_steps && !error; ++timed_done) {
            const long long before = sm_clock();
            const unsigned long long next = load_cg(cursor);
            dependency_slot = static_cast<unsigned>(next);  // waits for the load before `after` is read
            const long long after = sm_clock();
            const long long cycles = after - before;
            tlb_samples[timed_done] = static_cast<unsigned short>(cycles < 65535 ? cycles : 65535);
            if (a.discard) discard_l2(cursor);
            if (next < a.lo || next >= a.hi) error |= 1;
            cursor = next;
        }
        a.stats[0] = static_cast<unsigned long long>(sm_clock() - cycles_begin);
        a.stats[1] = global_ns() - ns_begin;
        a.stats[2] = sm_id();
        if (!error && a.timed_steps % a.elements == 0 && cursor != a.start) error |= 2;
        a.stats[4] = error;
        if (cursor == kImpossible) a.stats[3] = cursor + dependency_slot;
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < a.timed_steps; i += blockDim.x) a.samples[i] = tlb_samples[i];
}

// Streams `bytes` through L2 from every SM: evicts (and so writes back) whatever L2 held.
__global__ void flush_l2_kernel(const uint4* data, std::size_t count, unsigned long long* sink) {
    unsigned long long acc = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        uint4 v;
        asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(data + i));
        acc += v.x ^ v.w;
    }
    if (acc == kImpossible) *sink = acc;
}

struct TlbPoint {
    TlbVariant variant = TlbVariant::l2hit;
    unsigned long long stride = 0;
    unsigned n = 0;
    SampleStats cycles;
    double ghz = 0;
    unsigned error = 0;
    std::string phase;
};

struct TlbBench {
    const Gpu* gpu = nullptr;
    DeviceArray<unsigned char> buffer;
    std::size_t bytes = 0;
    unsigned max_n = 0;  // elements: N x 128 B stays at 1/8 of L2 or less
    DeviceArray<uint4> flush;
    std::size_t flush_bytes = 0;
    DeviceArray<unsigned short> samples;
    DeviceArray<unsigned long long> stats;
    DeviceArray<unsigned> order;  // max_n slots
    std::vector<unsigned short> host;
};

static TlbPoint tlb_chase(TlbBench& b, TlbVariant variant, unsigned long long stride, unsigned n,
                          const std::string& phase) {
    const unsigned skew = stride >= 256 ? static_cast<unsigned>(std::min<unsigned long long>(stride / 128, kTlbSkewSlotsMax)) : 1;
    unsigned first_slot = 0;
    if (variant == TlbVariant::l2hit_random) {
        std::vector<unsigned> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin(), order.end(), std::mt19937(12345u + n));
        CHECK(cudaMemcpy(b.order.get(), order.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        link_ring(b.buffer.get(), n, stride, skew, b.order.get());
        first_slot = order[0];
    } else {
        link_ring(b.buffer.get(), n, stride, skew);
    }
    const bool miss = variant == TlbVariant::l2miss;
    if (miss) {
        flush_l2_kernel<<<b.gpu->sms * 4, 512>>>(b.flush.get(), b.flush_bytes / 16, b.stats.get() + 3);
        CHECK_LAUNCH();
    }
    const unsigned passes = (kTlbMinSamples + n - 1) / n;
    const unsigned timed = n * passes;
    const auto base = reinterpret_cast<unsigned long long>(b.buffer.get());
    const unsigned long long start =
        base + first_slot * stride + (skew > 1 ? (std::uint64_t(first_slot) * 7 % skew) * 128 : 0);
    const TlbChaseArgs args{start, base, base + b.bytes, n, timed, miss ? 1u : 0u, b.samples.get(), b.stats.get()};
    CHECK(cudaMemset(b.stats.get(), 0, 5 * sizeof(unsigned long long)));
    tlb_chase_kernel<<<1, 32, timed * sizeof(unsigned short)>>>(args);
    CHECK_LAUNCH();
    unsigned long long stats[5];
    CHECK(cudaMemcpy(stats, b.stats.get(), sizeof(stats), cudaMemcpyDeviceToHost));
    b.host.resize(timed);
    CHECK(cudaMemcpy(b.host.data(), b.samples.get(), timed * sizeof(unsigned short), cudaMemcpyDeviceToHost));
    TlbPoint p;
    p.variant = variant;
    p.stride = stride;
    p.n = n;
    p.error = static_cast<unsigned>(stats[4]);
    p.cycles = summarize(std::vector<unsigned>(b.host.begin(), b.host.end()));
    p.ghz = stats[1] ? double(stats[0]) / double(stats[1]) : 0;
    p.phase = phase;
    if (p.error) progress("tlb: %s stride %llu N %u: chase error %u (stale or broken ring)", to_string(variant), stride, n, p.error);
    return p;
}

// Doubling N from kTlbStartN; where the median jumps between two doublings, 7 points in between.
static std::vector<TlbPoint> tlb_sweep(TlbBench& b, TlbVariant variant, unsigned long long stride) {
    const unsigned long long n_limit = std::min<unsigned long long>(b.max_n, b.bytes / stride);
    std::map<unsigned, TlbPoint> by_n;
    std::vector<unsigned> coarse;
    for (unsigned long long n = kTlbStartN; n <= n_limit; n *= 2) coarse.push_back(static_cast<unsigned>(n));
    for (unsigned n : coarse) by_n.emplace(n, tlb_chase(b, variant, stride, n, "coarse"));
    for (std::size_t j = 0; j + 1 < coarse.size(); ++j) {
        const unsigned lo = coarse[j], hi = coarse[j + 1];
        const SampleStats &a = by_n[lo].cycles, &c = by_n[hi].cycles;
        const bool stepped = c.p50 > a.p50 * kStepRatio + kStepCycles && c.mean > a.mean * kStepRatio + kStepCycles;
        const bool shifted = c.p10 > a.p10 * kShiftRatio + kShiftCycles;
        if (!stepped && !shifted) continue;
        const unsigned step = std::max(1u, (hi - lo) / 8);
        for (unsigned n = lo + step; n < hi; n += step)
            if (!by_n.count(n)) by_n.emplace(n, tlb_chase(b, variant, stride, n, "refine"));
    }
    std::vector<TlbPoint> points;
    for (auto& [n, p] : by_n)
        if (!p.error) points.push_back(std::move(p));
    return points;
}

struct TlbStep {
    unsigned n_low = 0;      // last N before the step
    unsigned n_high = 0;     // first N above the step threshold
    unsigned n_settled = 0;  // N where the rise stops
    double before = 0, after = 0;  // the first metric (median for steps, p10 for shifts)
};

// One metric a change must show: the point and its successor above level x ratio + add.
struct ChangeMetric {
    double (*get)(const TlbPoint&);
    double ratio, add;
};

static double metric_p50(const TlbPoint& p) { return p.cycles.p50; }
static double metric_mean(const TlbPoint& p) { return p.cycles.mean; }
static double metric_p10(const TlbPoint& p) { return p.cycles.p10; }

// Changes in the curve (points sorted by N). The level of each metric is the median over the
// current plateau's points, so one low point (DRAM latencies are bimodal) does not drag it down.
// A change needs every metric above its limit at a point and at its successor; the rise goes on
// while the first metric keeps climbing by more than half the threshold.
static std::vector<TlbStep> find_changes(const std::vector<TlbPoint>& pts, const std::vector<ChangeMetric>& metrics) {
    std::vector<TlbStep> steps;
    if (pts.size() < 2) return steps;
    std::size_t plateau_begin = 0;
    std::size_t j = 1;
    const auto level = [&](const ChangeMetric& m, std::size_t end) {
        std::vector<double> v;
        for (std::size_t i = plateau_begin; i < end; ++i) v.push_back(m.get(pts[i]));
        return median_of(v);
    };
    while (j < pts.size()) {
        bool above = true;
        for (const auto& m : metrics) {
            const double limit = level(m, j) * m.ratio + m.add;
            if (!(m.get(pts[j]) > limit && (j + 1 == pts.size() || m.get(pts[j + 1]) > limit))) above = false;
        }
        if (!above) {
            ++j;
            continue;
        }
        const ChangeMetric& m0 = metrics.front();
        std::size_t k = j;
        while (k + 1 < pts.size() && m0.get(pts[k + 1]) > m0.get(pts[k]) * (1 + (m0.ratio - 1) / 2) + m0.add / 2) ++k;
        steps.push_back({pts[j - 1].n, pts[j].n, pts[k].n, level(m0, j), m0.get(pts[k])});
        plateau_begin = k;
        j = k + 1;
    }
    return steps;
}

static std::vector<TlbStep> find_steps(const std::vector<TlbPoint>& pts) {
    return find_changes(pts, {{metric_p50, kStepRatio, kStepCycles}, {metric_mean, kStepRatio, kStepCycles}});
}

static std::vector<TlbStep> find_shifts(const std::vector<TlbPoint>& pts) {
    return find_changes(pts, {{metric_p10, kShiftRatio, kShiftCycles}});
}

// The footprint where the mean has risen half way from the small-N level (median of the first half
// of the points) to the last point: for a random cyclic order, about the reach. Needs a rise of >= 5.
static std::optional<double> halfway_footprint(const std::vector<TlbPoint>& pts, double* rise) {
    *rise = 0;
    if (pts.size() < 4) return std::nullopt;
    std::vector<double> head;
    for (std::size_t i = 0; i < pts.size() / 2; ++i) head.push_back(pts[i].cycles.mean);
    const double base = median_of(head), top = pts.back().cycles.mean;
    *rise = top - base;
    if (top - base < 5) return std::nullopt;
    const double half = base + 0.5 * (top - base);
    std::optional<double> crossing;  // the last upward crossing, interpolated in log2 footprint
    for (std::size_t j = 1; j < pts.size(); ++j) {
        const double m0 = pts[j - 1].cycles.mean, m1 = pts[j].cycles.mean;
        if (m0 < half && m1 >= half) {
            const double f0 = std::log2(double(pts[j - 1].stride) * pts[j - 1].n);
            const double f1 = std::log2(double(pts[j].stride) * pts[j].n);
            crossing = std::exp2(f0 + (half - m0) / (m1 - m0) * (f1 - f0));
        }
    }
    return crossing;
}

struct TlbFindings {
    std::optional<unsigned> shared_shift_n;  // a p10 shift after the same N at >= 2 strides
    double shift_rise = 0;
    std::optional<double> halfway_reach;  // median over strides of halfway_footprint
};

// Steps, page-size estimate and conclusions of one variant.
static TlbFindings tlb_conclude(TlbVariant variant, const std::map<unsigned long long, std::vector<TlbPoint>>& sweeps,
                         Table& sweep_table, Table& step_table, Table& shift_table, Table& page_table, Table& concl) {
    const std::string v = to_string(variant);
    std::map<unsigned long long, std::vector<TlbStep>> steps, shifts;
    for (const auto& entry : sweeps) {
        const unsigned long long stride = entry.first;
        const std::vector<TlbPoint>& pts = entry.second;  // not a structured binding: a lambda captures it
        steps[stride] = find_steps(pts);
        shifts[stride] = find_shifts(pts);
        // The largest rise between neighbouring points, whether or not it passed as a step.
        double rise = 0;
        unsigned at_lo = 0, at_hi = 0;
        for (std::size_t j = 0; j + 1 < pts.size(); ++j)
            if (double(pts[j + 1].cycles.p50) - pts[j].cycles.p50 > rise) {
                rise = double(pts[j + 1].cycles.p50) - pts[j].cycles.p50;
                at_lo = pts[j].n;
                at_hi = pts[j + 1].n;
            }
        const auto first_last = [&](double (*get)(const TlbPoint&)) {
            return pts.empty() ? std::string("-") : fixed(get(pts.front()), 0) + " / " + fixed(get(pts.back()), 0);
        };
        sweep_table.add({v, bytes_text(double(stride)), std::to_string(pts.size()),
                         pts.empty() ? "-" : std::to_string(pts.front().n) + ".." + std::to_string(pts.back().n),
                         pts.empty() ? "-" : bytes_text(double(stride) * pts.back().n), first_last(metric_p50),
                         first_last(metric_mean), first_last(metric_p10), fixed(rise, 0),
                         rise > 0 ? std::to_string(at_lo) + "->" + std::to_string(at_hi) : "-",
                         std::to_string(steps[stride].size()), std::to_string(shifts[stride].size())});
    }

    // Shifts: small uniform rises of p10 (every load a little slower). The same N at several strides
    // means an entry count; the same footprint means a reach.
    std::map<unsigned, std::vector<unsigned long long>> by_n;  // n_low -> strides
    for (const auto& [stride, list] : shifts)
        for (const TlbStep& st : list) {
            by_n[st.n_low].push_back(stride);
            shift_table.add({v, bytes_text(double(stride)), std::to_string(st.n_low), std::to_string(st.n_high),
                             bytes_text(double(stride) * st.n_low), bytes_text(double(stride) * st.n_high),
                             fixed(st.before, 0), fixed(st.after, 0), fixed(st.after - st.before, 0)});
        }
    TlbFindings findings;
    for (const auto& [n, strides] : by_n) {
        std::string list;
        for (unsigned long long stride : strides)
            list += (list.empty() ? "" : ", ") + bytes_text(double(stride)) + " (" + bytes_text(double(stride) * n) + ")";
        std::vector<double> rises;
        for (unsigned long long stride : strides)
            for (const TlbStep& st : shifts.at(stride))
                if (st.n_low == n) rises.push_back(st.after - st.before);
        concl.add({v + " p10 shift after N = " + std::to_string(n),
                   "+" + fixed(median_of(rises), 0) + " cycles at " + std::to_string(strides.size()) + " stride(s)",
                   strides.size() >= 2
                       ? "same N at strides " + list + ": an entry count of " + std::to_string(n) +
                             ", each entry covering >= " + bytes_text(double(strides.front())) +
                             " (smaller strides in address order reuse an entry and hide it)"
                       : "one stride only: " + list});
        if (strides.size() >= 2 && !findings.shared_shift_n) {
            findings.shared_shift_n = n;
            findings.shift_rise = median_of(rises);
        }
    }
    if (variant == TlbVariant::l2hit_random) {
        std::vector<double> reaches;
        std::string list;
        for (const auto& [stride, pts] : sweeps) {
            double rise = 0;
            const auto reach = halfway_footprint(pts, &rise);
            list += (list.empty() ? "" : "; ") + bytes_text(double(stride)) + ": mean +" + fixed(rise, 1) + ", half way at " +
                    (reach ? bytes_text(*reach) : std::string("-"));
            if (reach) reaches.push_back(*reach);
        }
        if (!reaches.empty()) findings.halfway_reach = median_of(reaches);
        concl.add({v + " reach (mean half way)", reaches.empty() ? "none" : bytes_text(median_of(reaches)),
                   "footprint where the mean is half way from the small-N level to the largest N (random order: "
                   "about the reach of the level that misses): " + list});
    }

    // Page size: with stride S <= page P the step sits at a fixed footprint (the reach, P x entries);
    // with S >= P at a fixed N (the entries). P = reach (smallest stride) / entries (largest stride).
    std::size_t levels = 0;
    for (const auto& [stride, list] : steps) levels = std::max(levels, list.size());
    std::vector<double> page_estimates;
    for (std::size_t level = 0; level < levels; ++level) {
        std::vector<std::pair<unsigned long long, TlbStep>> at;  // (stride, step) with this level, by stride
        for (const auto& [stride, list] : steps)
            if (list.size() > level) at.push_back({stride, list[level]});
        std::string per_stride;
        for (const auto& [stride, st] : at)
            per_stride += (per_stride.empty() ? "" : "; ") + bytes_text(double(stride)) + ": N " +
                          std::to_string(st.n_low) + ".." + std::to_string(st.n_high) + " (" +
                          bytes_text(double(stride) * st.n_low) + "), " + fixed(st.before, 0) + " -> " +
                          fixed(st.after, 0);
        const auto& [s_small, st_small] = at.front();
        const auto& [s_large, st_large] = at.back();
        const double reach = double(s_small) * st_small.n_low;
        std::vector<double> penalties;
        for (const auto& [stride, st] : at) penalties.push_back(st.after - st.before);
        const std::string name = v + " level " + std::to_string(level + 1);
        concl.add({name + " reach", bytes_text(reach) + " .. " + bytes_text(double(s_small) * st_small.n_high),
                   "footprint at the smallest stride with this step (" + bytes_text(double(s_small)) +
                       ", assumed <= page); per stride " + per_stride});
        concl.add({name + " penalty", fixed(median_of(penalties), 0) + " cycles",
                   "median over strides of median_after - median_before"});
        if (at.size() >= 2) {
            const double page = reach / st_large.n_low;
            const double pow2 = nearest_power_of_two(page);
            const bool consistent = pow2 >= double(s_small) && pow2 <= double(s_large);
            page_estimates.push_back(pow2);
            page_table.add({v, std::to_string(level + 1), bytes_text(double(s_small)), bytes_text(reach),
                            bytes_text(double(s_large)), std::to_string(st_large.n_low), bytes_text(page),
                            bytes_text(pow2), consistent ? "yes" : "no (page outside the stride range)"});
            concl.add({name + " entries", std::to_string(st_large.n_low) + " .. " + std::to_string(st_large.n_high - 1),
                       "N at the step at the largest stride (" + bytes_text(double(s_large)) +
                           ", assumed >= page); reach / page = " + fixed(reach / pow2, 0)});
        }
        if (level == 0 && !g_first_tlb_reach_bytes) g_first_tlb_reach_bytes = reach;
    }
    const double page_estimate = page_estimates.empty() ? 0 : median_of(page_estimates);
    for (const auto& [stride, list] : steps)
        for (std::size_t i = 0; i < list.size(); ++i) {
            const TlbStep& st = list[i];
            // Pages the last all-fast ring touched: N x S / P when S <= P, else one per element.
            const double entries = page_estimate <= 0 ? 0
                                   : double(stride) <= page_estimate ? double(st.n_low) * stride / page_estimate
                                                                     : double(st.n_low);
            step_table.add({v, bytes_text(double(stride)), std::to_string(i + 1), std::to_string(st.n_low),
                            std::to_string(st.n_high), std::to_string(st.n_settled),
                            bytes_text(double(stride) * st.n_low), bytes_text(double(stride) * st.n_high),
                            fixed(st.before, 0), fixed(st.after, 0), fixed(st.after - st.before, 0),
                            page_estimate > 0 ? fixed(entries, 0) : "-"});
        }
    if (levels == 0) {
        std::string largest;
        for (const auto& [stride, list] : sweeps)
            if (!list.empty())
                largest += (largest.empty() ? "" : "; ") + bytes_text(double(stride)) + " up to " +
                           bytes_text(double(stride) * list.back().n);
        concl.add({v + " steps", "none found",
                   "no median step of 8 % + 15 cycles at any stride (" + largest +
                       "); the largest rises are in table sweeps"});
    }
    if (!page_estimates.empty())
        concl.add({v + " page size", bytes_text(page_estimate),
                   "reach at the smallest stride / entries at the largest, per level (table page_size); a power "
                   "of two between the strides means the two strides bracket the page"});
    return findings;
}

static void section_tlb(const Gpu& gpu, const std::string& out_dir) {
    Section s{"tlb"};
    TlbBench b;
    b.gpu = &gpu;
    std::size_t free_bytes = 0, total_bytes = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // The L2 flush buffer first (4 x L2), then the largest power of two the rest allows.
    b.flush_bytes = (4 * gpu.l2_bytes + 65535) / 65536 * 65536;
    b.flush = device_alloc<uint4>(b.flush_bytes / 16);
    CHECK(cudaMemset(b.flush.get(), 0, b.flush_bytes));
    std::size_t want = kTlbWantBytes;
    while (want > kTlbMinBytes && want > free_bytes * 8 / 10) want /= 2;
    for (std::size_t bytes = want; bytes >= kTlbMinBytes; bytes /= 2) {
        void* p = nullptr;
        const cudaError_t r = cudaMalloc(&p, bytes);
        if (r == cudaSuccess) {
            b.buffer.reset(static_cast<unsigned char*>(p));
            b.bytes = bytes;
            break;
        }
        (void)cudaGetLastError();  // an allocation failure is not sticky; clear it and halve
        progress("tlb: cudaMalloc(%s) failed (%s), halving", bytes_text(double(bytes)).c_str(), cudaGetErrorName(r));
    }
    if (!b.buffer) {
        std::fprintf(stderr, "tlb: could not allocate even %s\n", bytes_text(double(kTlbMinBytes)).c_str());
        std::exit(1);
    }
    unsigned max_n = 1024;
    while (std::size_t(max_n) * 2 * 128 * 8 <= gpu.l2_bytes && max_n < 32768) max_n *= 2;
    b.max_n = max_n;
    const unsigned max_timed = std::max(max_n, 2 * kTlbMinSamples);
    b.samples = device_alloc<unsigned short>(max_timed);
    b.stats = device_alloc<unsigned long long>(5);
    b.order = device_alloc<unsigned>(max_n);
    CHECK(cudaFuncSetAttribute(tlb_chase_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(max_timed * sizeof(unsigned short))));
    progress("tlb: buffer %s (free %s of %s), N up to %u", bytes_text(double(b.bytes)).c_str(),
             bytes_text(double(free_bytes)).c_str(), bytes_text(double(total_bytes)).c_str(), max_n);

    Table& setup = s.table("setup", {"item", "value"});
    setup.add({"buffer_bytes", std::to_string(b.bytes) + " (" + bytes_text(double(b.bytes)) + ")"});
    setup.add({"free_before_bytes", std::to_string(free_bytes)});
    setup.add({"max_n (N x 128 B <= L2/8)", std::to_string(max_n)});
    setup.add({"load", "ld.global.cg.u64, one thread, one untimed pass then every element timed (>= 512 samples)"});
    setup.add({"l2miss", "ring written back by a " + bytes_text(double(b.flush_bytes)) +
                             " stream, walked once, then each line discard.global.L2'd (also after each timed load)"});

    Table& points_table = s.table("points", {"variant", "stride", "n", "footprint", "footprint_bytes", "phase",
                                             "median", "p90", "p10", "min", "mean", "max", "clock_ghz"});
    points_table.print = false;  // long; table sweeps and steps summarise it
    const auto add_point = [&](const TlbPoint& p) {
        points_table.add({to_string(p.variant), bytes_text(double(p.stride)), std::to_string(p.n),
                          bytes_text(double(p.stride) * p.n), std::to_string(p.stride * p.n), p.phase,
                          std::to_string(p.cycles.p50), std::to_string(p.cycles.p90), std::to_string(p.cycles.p10),
                          std::to_string(p.cycles.min), fixed(p.cycles.mean, 1), std::to_string(p.cycles.max),
                          fixed(p.ghz, 3)});
    };
    // A compact view of the curves for the log: median per (variant, stride) at each doubling of N.
    Table& grid = s.table("median_by_n", {"variant", "stride"});
    grid.csv = false;

    // Control: the same number of lines packed 128 B apart (a few pages): the L2 hit latency of
    // that many lines without TLB pressure.
    std::vector<TlbPoint> control;
    for (unsigned n : {64u, max_n}) control.push_back(tlb_chase(b, TlbVariant::l2hit, 128, n, "control"));
    for (const auto& p : control) add_point(p);

    std::map<TlbVariant, std::map<unsigned long long, std::vector<TlbPoint>>> sweeps;
    for (TlbVariant variant : {TlbVariant::l2hit, TlbVariant::l2hit_random, TlbVariant::l2miss}) {
        const auto& strides = variant == TlbVariant::l2hit          ? kTlbStrides
                              : variant == TlbVariant::l2hit_random ? kTlbRandomStrides
                                                                    : kTlbMissStrides;
        for (unsigned long long stride : strides) {
            if (stride * kTlbStartN > b.bytes) continue;
            const double begin = seconds_since_start();
            auto& pts = sweeps[variant][stride];
            pts = tlb_sweep(b, variant, stride);
            for (const auto& p : pts) add_point(p);
            progress("tlb: %s stride %s: %zu chases in %.2f s", to_string(variant), bytes_text(double(stride)).c_str(),
                     pts.size(), seconds_since_start() - begin);
        }
    }
    for (unsigned long long n = kTlbStartN; n <= max_n; n *= 2) grid.columns.push_back("N" + std::to_string(n));
    for (const auto& [variant, by_stride] : sweeps)
        for (const auto& [stride, pts] : by_stride) {
            std::vector<std::string> row = {to_string(variant), bytes_text(double(stride))};
            for (unsigned long long n = kTlbStartN; n <= max_n; n *= 2) {
                const auto it = std::find_if(pts.begin(), pts.end(), [&](const TlbPoint& p) { return p.n == n; });
                row.push_back(it == pts.end() ? "" : std::to_string(it->cycles.p50));
            }
            grid.add(row);
        }

    Table& sweep_table = s.table("sweeps", {"variant", "stride", "points", "n_range", "max_footprint",
                                            "median_first/last", "mean_first/last", "p10_first/last",
                                            "largest_median_rise", "rise_at_n", "steps", "shifts"});
    Table& step_table = s.table("steps", {"variant", "stride", "level", "n_low", "n_high", "n_settled",
                                          "footprint_low", "footprint_high", "median_before", "median_after",
                                          "penalty_cycles", "entries_at_page"});
    Table& shift_table = s.table("shifts", {"variant", "stride", "n_low", "n_high", "footprint_low", "footprint_high",
                                            "p10_before", "p10_after", "p10_rise"});
    Table& page_table = s.table("page_size", {"variant", "level", "small_stride", "reach_low", "large_stride",
                                              "entries_low", "page_estimate", "page_pow2", "consistent"});
    Table& concl = s.table("conclusion", kConclusionColumns);
    concl.add({"buffer", bytes_text(double(b.bytes)),
               "cudaMalloc of the largest power of two <= 80 % of free memory, at most 64 GiB"});
    {
        const double small = control[0].cycles.p50, large = control[1].cycles.p50;
        concl.add({"L2 lines control", fixed(large, 0) + " vs " + fixed(small, 0) + " cycles",
                   std::to_string(max_n) + " vs 64 lines packed 128 B apart: " +
                       (large <= small * kStepRatio + kStepCycles ? "equal, so up to " + std::to_string(max_n) +
                                                                        " lines stay in L2 and l2hit steps are TLB"
                                                                  : "NOT equal: the line count itself costs; treat "
                                                                    "l2hit steps at large N with care")});
    }
    std::map<TlbVariant, TlbFindings> findings;
    for (const auto& [variant, by_stride] : sweeps)
        findings[variant] = tlb_conclude(variant, by_stride, sweep_table, step_table, shift_table, page_table, concl);
    // The small first level: entries from the address-order shift at large strides, reach from the
    // random order; their ratio is what one entry covers (a page, or a group of pages).
    const TlbFindings& ordered = findings[TlbVariant::l2hit];
    const TlbFindings& random = findings[TlbVariant::l2hit_random];
    if (ordered.shared_shift_n && random.halfway_reach) {
        const double entries = *ordered.shared_shift_n;
        const double coverage = *random.halfway_reach / entries;
        g_first_tlb_reach_bytes = *random.halfway_reach;
        concl.add({"first level: entries x coverage",
                   fixed(entries, 0) + " x " + bytes_text(nearest_power_of_two(coverage)) + " = " +
                       bytes_text(entries * nearest_power_of_two(coverage)) + ", +" + fixed(ordered.shift_rise, 0) +
                       " cycles per miss",
                   "entries: l2hit p10 shift after N = " + fixed(entries, 0) + " at every large stride; reach: "
                   "l2hit_random mean half way at " + bytes_text(*random.halfway_reach) + "; coverage per entry " +
                       bytes_text(coverage) + " (nearest power of two shown)"});
    }
    concl.add({"method", "-",
               "steps: median AND mean up 8 % + 15 cycles (level: median over the plateau); shifts: p10 up 6 "
               "cycles, at the point and its successor. In address order a stride below an entry's coverage misses once per entry, invisible to "
               "median and p10; l2hit_random misses on a fraction 1 - reach/footprint of loads (median moves at "
               "about 2 x reach, p10 at about 10 x reach)"});
    concl.add({"l2miss caveat", "-",
               "DRAM row-buffer locality can also change with N; a TLB step sits at one footprint (stride <= page) "
               "or one N (stride >= page), a DRAM effect at one N for every stride"});
    emit_section(s, out_dir);
}

// ---------------------------------- Section B: banks -------------------------------------------

constexpr unsigned kBankWords = 8192;  // 32 KiB of shared memory: room for 31 x 64 x 16 B + 16 B
constexpr unsigned kBankLatencyIterations = 1024;
constexpr unsigned kBankThroughputIterations = 256;
constexpr int kBankChains = 4;  // independent chains per thread in the throughput run
constexpr unsigned kBankWarps = 32;

struct LaneOffsets {
    unsigned bytes[32];
};

// Every word of the array holds its own shared address, so a load returns the address it read and
// the chain stays on the same address. `zero` is 0 at run time, unknown to the compiler: it keeps
// every word of an 8- or 16-byte load live at the cost of one logic op in the chain.
template <int W>
__device__ __forceinline__ unsigned lds_next(unsigned address, unsigned zero) {
    if constexpr (W == 4) {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
        return v & ~zero;
    } else if constexpr (W == 8) {
        unsigned v0, v1;
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(address) : "memory");
        return v0 | (v1 & zero);
    } else {
        unsigned v0, v1, v2, v3;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                     : "r"(address)
                     : "memory");
        return v0 | ((v1 | v2 | v3) & zero);
    }
}

// out[0]: thread 0's loop cycles (latency with one warp), out[1]: the block's cycles from the first
// barrier to the last (throughput with many warps).
template <int W, int C>
__global__ void __launch_bounds__(1024) bank_kernel(LaneOffsets offsets, unsigned iterations, unsigned zero,
                                                    unsigned long long* out) {
    __shared__ __align__(16) unsigned words[kBankWords];
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(words));
    for (unsigned i = threadIdx.x; i < kBankWords; i += blockDim.x) words[i] = base + 4 * i;
    unsigned address[C];
#pragma unroll
    for (int c = 0; c < C; ++c) address[c] = base + offsets.bytes[threadIdx.x % 32];
    __syncthreads();
    const long long t0 = sm_clock();
#pragma unroll 4
    for (unsigned it = 0; it < iterations; ++it)
#pragma unroll
        for (int c = 0; c < C; ++c) address[c] = lds_next<W>(address[c], zero);
    const long long t1 = sm_clock();
    __syncthreads();
    const long long t2 = sm_clock();
    if (threadIdx.x == 0) {
        out[0] = static_cast<unsigned long long>(t1 - t0);
        out[1] = static_cast<unsigned long long>(t2 - t0);
    }
    unsigned acc = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) acc += address[c];
    if (acc == kImpossible32) out[2] = acc;
}

using BankFn = void (*)(LaneOffsets, unsigned, unsigned, unsigned long long*);

static BankFn bank_fn(unsigned width, bool throughput) {
    switch (width) {
        case 4: return throughput ? bank_kernel<4, kBankChains> : bank_kernel<4, 1>;
        case 8: return throughput ? bank_kernel<8, kBankChains> : bank_kernel<8, 1>;
        case 16: return throughput ? bank_kernel<16, kBankChains> : bank_kernel<16, 1>;
    }
    std::fprintf(stderr, "no bank kernel for width %u\n", width);
    std::exit(1);
}

struct BankPattern {
    std::string group;  // "stride" or "transpose"
    std::string name;
    unsigned width = 4;
    int k = -1;  // stride in elements, -1 for the transpose patterns
    LaneOffsets offsets{};
};

struct BankResult {
    double latency = 0;     // cycles per access, one warp, dependent chain
    double throughput = 0;  // cycles per warp-wide access, 32 warps x 4 chains
};

// Median of three runs each.
static BankResult bank_measure(const BankPattern& p, unsigned long long* out) {
    BankResult r;
    std::vector<double> latency, throughput;
    unsigned long long host[2];
    for (int rep = 0; rep < 3; ++rep) {
        bank_fn(p.width, false)<<<1, 32>>>(p.offsets, kBankLatencyIterations, 0u, out);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost));
        latency.push_back(double(host[0]) / kBankLatencyIterations);
        bank_fn(p.width, true)<<<1, 32 * kBankWarps>>>(p.offsets, kBankThroughputIterations, 0u, out);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost));
        throughput.push_back(double(host[1]) / (double(kBankWarps) * kBankThroughputIterations * kBankChains));
    }
    r.latency = median_of(latency);
    r.throughput = median_of(throughput);
    return r;
}

// Wavefronts a bank model predicts for one warp-wide access: the most distinct bank-words any bank
// must deliver (lanes reading the same word share it).
static unsigned model_ways(const LaneOffsets& o, unsigned width, unsigned banks, unsigned bank_bytes) {
    std::map<unsigned, std::set<unsigned>> per_bank;
    const unsigned step = std::min(width, bank_bytes);
    for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned byte = o.bytes[lane]; byte < o.bytes[lane] + width; byte += step) {
            const unsigned word = byte / bank_bytes;
            per_bank[word % banks].insert(word);
        }
    std::size_t most = 0;
    for (const auto& [bank, words] : per_bank) most = std::max(most, words.size());
    return static_cast<unsigned>(most);
}

struct Fit {
    double intercept = 0, slope = 0, r2 = 0;
};

static Fit linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
    Fit f;
    const double n = double(x.size());
    if (x.size() < 2) return f;
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx == 0 || syy == 0) return f;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    double res = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = y[i] - (f.intercept + f.slope * x[i]);
        res += e * e;
    }
    f.r2 = 1 - res / syy;
    return f;
}

static void section_banks(const Gpu& gpu, const std::string& out_dir) {
    (void)gpu;
    Section s{"banks"};
    std::vector<BankPattern> patterns;
    const std::vector<int> ks = {1, 2, 3, 4, 6, 8, 16, 32, 64};
    for (unsigned width : {4u, 8u, 16u})
        for (int k : ks) {
            BankPattern p{"stride", "k" + std::to_string(k), width, k, {}};
            for (unsigned lane = 0; lane < 32; ++lane) p.offsets.bytes[lane] = lane * unsigned(k) * width;
            patterns.push_back(p);
        }
    // A 32 x 32 float tile, column 5 read by a warp (lane = row): pitch 32, pitch 33, and pitch 32
    // with the column XOR-swizzled by the row; row-wise for reference.
    const auto tile = [&](const std::string& name, auto word_of_lane) {
        BankPattern p{"transpose", name, 4, -1, {}};
        for (unsigned lane = 0; lane < 32; ++lane) p.offsets.bytes[lane] = 4 * word_of_lane(lane);
        patterns.push_back(p);
    };
    constexpr unsigned kColumn = 5;
    tile("row_read", [](unsigned lane) { return kColumn * 32 + lane; });
    tile("column_pitch32", [](unsigned lane) { return lane * 32 + kColumn; });
    tile("column_pitch33", [](unsigned lane) { return lane * 33 + kColumn; });
    tile("column_pitch32_xor", [](unsigned lane) { return lane * 32 + (kColumn ^ lane); });

    auto out = device_alloc<unsigned long long>(3);
    std::vector<BankResult> results;
    for (const auto& p : patterns) results.push_back(bank_measure(p, out.get()));
    progress("banks: %zu patterns measured", patterns.size());

    // Candidate bank models: which predicts the throughput best (linear in the predicted ways)?
    struct Model {
        unsigned banks, bank_bytes;
        Fit throughput, latency;
    };
    std::vector<Model> models;
    for (unsigned banks : {16u, 32u, 64u})
        for (unsigned bank_bytes : {4u, 8u}) {
            std::vector<double> x, yt, yl;
            for (std::size_t i = 0; i < patterns.size(); ++i) {
                x.push_back(model_ways(patterns[i].offsets, patterns[i].width, banks, bank_bytes));
                yt.push_back(results[i].throughput);
                yl.push_back(results[i].latency);
            }
            models.push_back({banks, bank_bytes, linear_fit(x, yt), linear_fit(x, yl)});
        }
    std::vector<Model> ranked = models;
    std::sort(ranked.begin(), ranked.end(), [](const Model& a, const Model& b) { return a.throughput.r2 > b.throughput.r2; });
    const Model best = ranked[0];

    Table& access = s.table("access", {"group", "pattern", "width", "k", "ways_32x4B", "ways_best_model",
                                       "latency_cycles", "throughput_cycles", "bytes_per_cycle"});
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        const BankPattern& p = patterns[i];
        const BankResult& r = results[i];
        access.add({p.group, p.name, std::to_string(p.width), p.k < 0 ? "-" : std::to_string(p.k),
                    std::to_string(model_ways(p.offsets, p.width, 32, 4)),
                    std::to_string(model_ways(p.offsets, p.width, best.banks, best.bank_bytes)), fixed(r.latency, 2),
                    fixed(r.throughput, 3), fixed(32.0 * p.width / r.throughput, 1)});
    }
    Table& model_table = s.table("models", {"banks", "bank_bytes", "r2_throughput", "cycles_per_way_throughput",
                                            "intercept_throughput", "r2_latency", "cycles_per_way_latency",
                                            "intercept_latency"});
    for (const auto& m : models)
        model_table.add({std::to_string(m.banks), std::to_string(m.bank_bytes), fixed(m.throughput.r2, 4),
                         fixed(m.throughput.slope, 3), fixed(m.throughput.intercept, 3), fixed(m.latency.r2, 4),
                         fixed(m.latency.slope, 3), fixed(m.latency.intercept, 2)});

    const auto find = [&](const std::string& group, unsigned width, const std::string& name) -> const BankResult& {
        for (std::size_t i = 0; i < patterns.size(); ++i)
            if (patterns[i].group == group && patterns[i].width == width && patterns[i].name == name) return results[i];
        std::fprintf(stderr, "banks: no pattern %s/%u/%s\n", group.c_str(), width, name.c_str());
        std::exit(1);
    };
    const auto thr = [&](unsigned width, int k) { return find("stride", width, "k" + std::to_string(k)).throughput; };

    Table& concl = s.table("conclusion", kConclusionColumns);
    concl.add({"conflict-free latency", fixed(find("stride", 4, "k1").latency, 1) + " cycles",
               "one warp, 4-byte loads, lane i reads word i, dependent chain (includes one logic op per load)"});
    // Bank count: the smallest power-of-two k where the 4-byte throughput cost stops growing.
    int bank_count = -1;
    std::string curve;
    for (int k = 1; k <= 64; k *= 2) curve += (curve.empty() ? "" : ", ") + std::string("k") + std::to_string(k) + " " + fixed(thr(4, k), 2);
    for (int k = 2; k <= 32; k *= 2)
        if (thr(4, 2 * k) < thr(4, k) * 1.15 && thr(4, k) > 1.5 * thr(4, k / 2)) {
            bank_count = k;
            break;
        }
    concl.add({"bank count", bank_count > 0 ? std::to_string(bank_count) : "unclear",
               "smallest power-of-two stride k (4-byte words) where the cycles per warp access stop growing: " + curve});
    const double ratio2 = thr(4, 2) / thr(4, 1);
    concl.add({"bank width", std::to_string(best.bank_bytes) + " bytes",
               "from the best model below; 4-byte loads at stride 2 words cost " + fixed(ratio2, 2) +
                   "x stride 1 (4-byte banks: 2-way conflict, 2x; 8-byte banks: none, 1x; " +
                   (ratio2 > 1.5 ? "agrees with 4-byte banks)" : "suggests 8-byte banks or an issue limit)")});
    concl.add({"best bank model", std::to_string(best.banks) + " banks x " + std::to_string(best.bank_bytes) + " B",
               "largest R^2 (" + fixed(best.throughput.r2, 4) + ") of throughput against predicted ways over all " +
                   std::to_string(patterns.size()) + " patterns (table models); next " +
                   std::to_string(ranked[1].banks) + " x " + std::to_string(ranked[1].bank_bytes) + " B (" +
                   fixed(ranked[1].throughput.r2, 4) + "), told apart by odd strides (k3, pitch 33)"});
    concl.add({"n-way conflict cost (throughput)", fixed(best.throughput.slope, 2) + " cycles per extra way",
               "slope of cycles per warp access against ways, 32 warps x 4 chains, best model"});
    concl.add({"n-way conflict cost (latency)", fixed(best.latency.slope, 2) + " cycles per extra way",
               "slope of one warp's dependent-load latency against ways (R^2 " + fixed(best.latency.r2, 3) + ")"});
    for (unsigned width : {8u, 16u}) {
        int first = -1;
        for (int k : ks)
            if (thr(width, k) > 1.3 * thr(width, 1)) {
                first = k;
                break;
            }
        concl.add({std::to_string(width) + "-byte conflicts start at",
                   first > 0 ? "k = " + std::to_string(first) : "never (k <= 64)",
                   "first stride (in " + std::to_string(width) + "-byte elements) costing > 1.3x stride 1 (" +
                       fixed(thr(width, 1), 2) + " cycles; " + std::to_string(width / 4) +
                       " wavefronts of 128 B are the data volume, not a conflict)"});
    }
    const BankResult& p32 = find("transpose", 4, "column_pitch32");
    const BankResult& p33 = find("transpose", 4, "column_pitch33");
    const BankResult& pxor = find("transpose", 4, "column_pitch32_xor");
    concl.add({"transpose pitch 32 vs 33", fixed(p32.throughput, 2) + " vs " + fixed(p33.throughput, 2) + " cycles",
               "column read of a 32x32 float tile per warp access (throughput); latency " + fixed(p32.latency, 1) +
                   " vs " + fixed(p33.latency, 1) + "; XOR swizzle " + fixed(pxor.throughput, 2) + " / " +
                   fixed(pxor.latency, 1)});
    emit_section(s, out_dir);
}

// ---------------------------------- Section C: l1sets ------------------------------------------

constexpr std::size_t kL1BufferBytes = 256 * kMiB;
constexpr unsigned kL1MaxLines = 4096;
constexpr unsigned kL1ReferenceStride = 128, kL1ReferenceLines = 128;  // 16 KiB: all hits
constexpr unsigned kL1MissMargin = 40;
constexpr unsigned kL1MinSamples = 256;
const std::vector<unsigned> kL1Strides = {128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};

struct L1ChaseArgs {
    unsigned long long start;
    unsigned warm_steps;
    unsigned timed_steps;
    unsigned* samples;
    unsigned long long* stats;  // [0] SM id, [1] sink
};

// Lane 0: warm_steps untimed loads, then timed_steps timed ones; samples stored with .cg (no L1).
// Only section l1sets launches this kernel: its carveout is set once, before its first launch.
__global__ void l1_chase_kernel(L1ChaseArgs a) {
    __shared__ volatile unsigned dependency_slot;
    if (threadIdx.x != 0) return;
    unsigned long long cursor = a.start;
    for (unsigned i = 0; i < a.warm_steps; ++i) cursor = load_ca(cursor);
    for (unsigned i = 0; i < a.timed_steps; ++i) {
        const long long before = sm_clock();
        cursor = load_ca(cursor);
        dependency_slot = static_cast<unsigned>(cursor);
        const long long after = sm_clock();
        __stcg(a.samples + i, static_cast<unsigned>(after - before));
    }
    a.stats[0] = sm_id();
    if (cursor == kImpossible) a.stats[1] = cursor + dependency_slot;
}

struct L1Point {
    unsigned stride = 0, m = 0;
    unsigned misses = 0, samples = 0;
    SampleStats cycles;
    std::string phase;
    double miss_share() const { return samples ? double(misses) / samples : 0; }
    bool all_hit() const { return misses * 100 <= samples; }  // <= 1 % slow loads
};

struct L1Bench {
    DeviceArray<unsigned char> buffer;
    DeviceArray<unsigned> samples;
    DeviceArray<unsigned long long> stats;
    unsigned threshold = ~0u;
};

static L1Point l1_chase(L1Bench& b, unsigned stride, unsigned m, const std::string& phase) {
    link_ring(b.buffer.get(), m, stride, 1);
    const unsigned timed = std::max(2 * m, kL1MinSamples);
    l1_chase_kernel<<<1, 32>>>({reinterpret_cast<unsigned long long>(b.buffer.get()), 2 * m, timed, b.samples.get(),
                               b.stats.get()});
    CHECK_LAUNCH();
    std::vector<unsigned> cycles(timed);
    CHECK(cudaMemcpy(cycles.data(), b.samples.get(), timed * sizeof(unsigned), cudaMemcpyDeviceToHost));
    L1Point p;
    p.stride = stride;
    p.m = m;
    p.samples = timed;
    p.misses = static_cast<unsigned>(
        std::count_if(cycles.begin(), cycles.end(), [&](unsigned x) { return x > b.threshold; }));
    p.cycles = summarize(std::move(cycles));
    p.phase = phase;
    return p;
}

// 1..8, then steps of about 1.25x.
static std::vector<unsigned> grow_sequence(unsigned cap) {
    std::vector<unsigned> seq;
    for (unsigned m = 1; m <= cap;) {
        seq.push_back(m);
        m = m < 8 ? m + 1 : std::max(m + 1, static_cast<unsigned>(std::lround(m * 1.25)));
    }
    return seq;
}

struct L1Stride {
    unsigned stride = 0;
    unsigned m_max = 0;        // largest all-hit M
    bool capped = false;       // no failure up to the cap
    std::map<unsigned, L1Point> points;
};

static L1Stride l1_scan(L1Bench& b, unsigned stride) {
    L1Stride r;
    r.stride = stride;
    const unsigned cap = static_cast<unsigned>(std::min<std::size_t>(kL1MaxLines, kL1BufferBytes / stride));
    const auto measure = [&](unsigned m, const char* phase) -> const L1Point& {
        auto it = r.points.find(m);
        if (it == r.points.end()) it = r.points.emplace(m, l1_chase(b, stride, m, phase)).first;
        return it->second;
    };
    unsigned last_pass = 0, first_fail = 0;
    for (unsigned m : grow_sequence(cap)) {
        if (!measure(m, "grow").all_hit()) {
            first_fail = m;
            break;
        }
        last_pass = m;
    }
    if (first_fail == 0) {
        r.m_max = last_pass;
        r.capped = true;
        return r;
    }
    unsigned lo = last_pass, hi = first_fail;
    while (hi - lo > 1) {
        const unsigned mid = lo + (hi - lo) / 2;
        if (measure(mid, "bisect").all_hit()) lo = mid;
        else hi = mid;
    }
    r.m_max = lo;
    // Past the capacity: how fast do misses grow? (LRU: every load of a ring one line too long misses.)
    for (double f : {1.1, 1.25, 1.5, 2.0}) {
        const unsigned m = std::max(lo + 1, static_cast<unsigned>(std::lround(lo * f)));
        if (m <= cap) measure(m, "beyond");
    }
    for (unsigned m : {lo + 1, lo + 2})
        if (m <= cap) measure(m, "beyond");
    return r;
}

static void section_l1sets(const Gpu& gpu, const std::string& out_dir) {
    (void)gpu;
    Section s{"l1sets"};
    // Carveout 0 (largest L1), set once before the kernel's first launch (see docs/l1-effective-capacity.md).
    CHECK(cudaFuncSetAttribute(l1_chase_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    L1Bench b;
    b.buffer = device_alloc<unsigned char>(kL1BufferBytes);
    CHECK(cudaMemset(b.buffer.get(), 0, kL1BufferBytes));
    b.samples = device_alloc<unsigned>(std::max(2 * kL1MaxLines, kL1MinSamples));
    b.stats = device_alloc<unsigned long long>(2);

    const L1Point reference = l1_chase(b, kL1ReferenceStride, kL1ReferenceLines, "reference");
    b.threshold = reference.cycles.p50 + kL1MissMargin;
    progress("l1sets: hit median %u cycles, miss threshold %u", reference.cycles.p50, b.threshold);

    std::vector<L1Stride> scans;
    for (unsigned stride : kL1Strides) {
        scans.push_back(l1_scan(b, stride));
        progress("l1sets: stride %6u: largest all-hit M %u%s (%zu chases)", stride, scans.back().m_max,
                 scans.back().capped ? " (cap)" : "", scans.back().points.size());
    }

    Table& curve = s.table("curve", {"stride", "m", "footprint_bytes", "phase", "miss_share", "median", "p90",
                                     "max"});
    curve.print = false;
    curve.add({std::to_string(kL1ReferenceStride), std::to_string(kL1ReferenceLines),
               std::to_string(kL1ReferenceStride * kL1ReferenceLines), "reference", fixed(reference.miss_share(), 4),
               std::to_string(reference.cycles.p50), std::to_string(reference.cycles.p90),
               std::to_string(reference.cycles.max)});
    for (const auto& sc : scans)
        for (const auto& [m, p] : sc.points)
            curve.add({std::to_string(sc.stride), std::to_string(m), std::to_string(std::size_t(sc.stride) * m), p.phase,
                       fixed(p.miss_share(), 4), std::to_string(p.cycles.p50), std::to_string(p.cycles.p90),
                       std::to_string(p.cycles.max)});

    // Inference. full = the all-hit lines at 128 B. Plain set index (line address mod sets): from
    // stride 256 on, each doubling halves the sets a ring can use, so M_max = max(ways, full x 128 / S).
    const double full = scans.front().m_max;
    const auto ratio = [&](const L1Stride& sc) { return full > 0 ? sc.m_max / full : 0; };
    std::optional<std::size_t> drop;  // first stride whose capacity falls under 75 % of full
    for (std::size_t i = 0; i < scans.size(); ++i)
        if (ratio(scans[i]) < 0.75) {
            drop = i;
            break;
        }
    unsigned ways = 0, sets = 0;
    std::optional<std::size_t> plateau;
    if (drop) {
        unsigned lowest = ~0u;
        for (std::size_t i = *drop; i < scans.size(); ++i) lowest = std::min(lowest, scans[i].m_max);
        for (std::size_t i = *drop; i < scans.size(); ++i)
            if (scans[i].m_max <= lowest * 1.1 + 0.5) {
                plateau = i;
                break;
            }
        ways = lowest;
        sets = ways ? static_cast<unsigned>(std::lround(full / ways)) : 0;
    }

    Table& summary = s.table("summary", {"stride", "largest_all_hit_m", "footprint", "share_of_full", "plain_index_pred",
                                         "miss_share_at_m+1", "miss_share_at_2m", "median_at_m+1"});
    Table& concl = s.table("conclusion", kConclusionColumns);
    const auto share_at = [](const L1Stride& sc, unsigned m) -> std::string {
        const auto it = sc.points.find(m);
        return it == sc.points.end() ? "-" : fixed(it->second.miss_share(), 3);
    };
    for (const auto& sc : scans) {
        const double pred = ways ? std::max<double>(ways, full * 128.0 / sc.stride) : 0;
        const auto next = sc.points.find(sc.m_max + 1);
        summary.add({std::to_string(sc.stride), std::to_string(sc.m_max) + (sc.capped ? "+" : ""),
                     bytes_text(double(sc.stride) * sc.m_max), fixed(ratio(sc), 3), ways ? fixed(pred, 0) : "-",
                     share_at(sc, sc.m_max + 1), share_at(sc, 2 * sc.m_max),
                     next == sc.points.end() ? "-" : std::to_string(next->second.cycles.p50)});
    }

    concl.add({"hit latency / threshold", std::to_string(reference.cycles.p50) + " / " + std::to_string(b.threshold) +
                                              " cycles",
               "16 KiB ring at 128 B, carveout 0; a load slower than the threshold is a miss; all-hit = <= 1 % misses"});
    concl.add({"capacity (128 B stride)", std::to_string(scans.front().m_max) + " lines = " +
                                              bytes_text(128.0 * scans.front().m_max),
               "largest all-hit ring at 128 B stride"});
    std::string per_stride;
    for (const auto& sc : scans)
        per_stride += (per_stride.empty() ? "" : ", ") + std::to_string(sc.stride) + ":" + std::to_string(sc.m_max);
    if (!drop) {
        concl.add({"set index", "hashed (or highly associative)",
                   "no power-of-two stride up to 64 KiB shrinks the all-hit ring below 75 % of full (stride:M " +
                       per_stride + "); ways cannot be read from plain strides"});
    } else {
        // Plain indexing predicts M_max(S) ~ full x 128 / S between 256 and the plateau.
        bool plain = true;
        for (std::size_t i = 1; i < scans.size() && (!plateau || i <= *plateau); ++i) {
            const double pred = std::max<double>(ways, full * 128.0 / scans[i].stride);
            if (std::abs(scans[i].m_max - pred) > 0.25 * pred + 1) plain = false;
        }
        concl.add({"set index", plain ? "plain (line address mod sets)" : "partly hashed or irregular",
                   "all-hit ring falls under 75 % of full from stride " + std::to_string(scans[*drop].stride) +
                       (plain ? "; halves with each doubling as plain indexing predicts"
                              : "; does not follow full x 128 / stride") +
                       " (stride:M " + per_stride + ")"});
        concl.add({"ways", std::to_string(ways),
                   "plateau of the all-hit ring at large strides (from stride " +
                       std::to_string(plateau ? scans[*plateau].stride : 0) + ")"});
        concl.add({"sets", std::to_string(sets) + " (of 128 B lines)",
                   "capacity " + fixed(full, 0) + " lines / " + std::to_string(ways) + " ways"});
    }
    // Replacement: a ring one line past the capacity, accessed cyclically; LRU misses on every load.
    const L1Stride& probe = plateau ? scans[*plateau] : scans.front();
    const auto beyond = probe.points.find(probe.m_max + 1);
    if (beyond != probe.points.end()) {
        const double share = beyond->second.miss_share();
        const std::string verdict = share >= 0.9 ? "LRU-like" : share <= 0.6 ? "not LRU" : "between (pseudo-LRU?)";
        concl.add({"replacement", verdict,
                   "ring of " + std::to_string(probe.m_max + 1) + " lines at stride " + std::to_string(probe.stride) +
                       (plateau ? " (one set)" : " (whole cache)") + ": miss share " + fixed(share, 3) +
                       " (LRU would miss every load: 1.0); at 1.1x " +
                       share_at(probe, std::max(probe.m_max + 1, unsigned(std::lround(probe.m_max * 1.1)))) +
                       ", 1.25x " +
                       share_at(probe, std::max(probe.m_max + 1, unsigned(std::lround(probe.m_max * 1.25)))) +
                       ", 2x " + share_at(probe, 2 * probe.m_max)});
    }
    if (g_first_tlb_reach_bytes) {
        const L1Stride& last = scans.back();
        const double footprint = double(last.stride) * last.m_max;
        concl.add({"TLB caveat", footprint > *g_first_tlb_reach_bytes ? "check" : "none",
                   "largest stride's all-hit footprint " + bytes_text(footprint) + " vs first TLB level reach " +
                       bytes_text(*g_first_tlb_reach_bytes) +
                       " (if L1 hits needed translation, rings past that reach would look like misses)"});
    }
    emit_section(s, out_dir);
}

// ---------------------------------- Section D: dsmem -------------------------------------------

constexpr unsigned kDsmRingStride = 64;
constexpr unsigned kDsmRingElements = 4096 / kDsmRingStride;  // a 4 KiB ring
constexpr unsigned kDsmTimed = 256;                           // 4 rounds of the ring
constexpr unsigned kDsmVariants = 3;  // 0 ld.shared (own only), 1 generic ld, 2 ld.shared::cluster
constexpr unsigned kDsmMaxCluster = 16;
// More than half of the 228 KiB an SM has: one block per SM, so ranks of a cluster sit on different SMs.
constexpr std::size_t kDsmDynamicBytes = 120 * kKiB;
constexpr unsigned kDsmBwVecs = 4096;  // 64 KiB read per pass
constexpr unsigned kDsmBwThreads = 1024;
constexpr unsigned kDsmBwPasses = 2048;
const char* const kDsmVariantNames[kDsmVariants] = {"ld.shared", "generic", "shared::cluster"};

__device__ __forceinline__ unsigned mapa_cluster(unsigned shared_cta_address, unsigned rank) {
    unsigned d;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(shared_cta_address), "r"(rank));
    return d;
}

// V 0: ld.shared at a shared::cta address; 1: generic ld; 2: ld.shared::cluster at a mapa address.
template <int V>
__device__ __forceinline__ unsigned dsm_load(unsigned long long generic_base, unsigned window_base, unsigned offset) {
    unsigned v;
    if constexpr (V == 0) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(window_base + offset) : "memory");
    else if constexpr (V == 1) asm volatile("ld.u32 %0, [%1];" : "=r"(v) : "l"(generic_base + offset) : "memory");
    else asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(window_base + offset) : "memory");
    return v;
}

// The ring holds byte offsets of the next element; one untimed round, then kDsmTimed timed loads.
template <int V>
__device__ __forceinline__ unsigned dsm_chase(unsigned long long generic_base, unsigned window_base,
                                              unsigned* samples, volatile unsigned* dependency) {
    unsigned offset = 0;
    for (unsigned i = 0; i < kDsmRingElements; ++i) offset = dsm_load<V>(generic_base, window_base, offset);
    for (unsigned i = 0; i < kDsmTimed; ++i) {
        const long long before = sm_clock();
        offset = dsm_load<V>(generic_base, window_base, offset);
        *dependency = offset;  // waits for the load before `after` is read
        const long long after = sm_clock();
        __stcg(samples + i, static_cast<unsigned>(after - before));
    }
    return offset;
}

// Every block builds a ring in its own shared memory. Rank 0 chases its ring three ways; then, one
// rank at a time, every other rank chases rank 0's ring remotely (generic and shared::cluster).
// samples: [rank][variant][kDsmTimed].
__global__ void __launch_bounds__(32) dsmem_latency_kernel(unsigned* samples, unsigned* smids,
                                                           unsigned long long* sink) {
    extern __shared__ __align__(16) unsigned char dsm_dynamic[];
    __shared__ volatile unsigned dependency_slot;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const unsigned size = cluster.num_blocks();
    unsigned* ring = reinterpret_cast<unsigned*>(dsm_dynamic);
    for (unsigned i = threadIdx.x; i < kDsmRingElements; i += blockDim.x)
        ring[i * (kDsmRingStride / 4)] = ((i + 1) % kDsmRingElements) * kDsmRingStride;
    if (threadIdx.x == 0) smids[rank] = sm_id();
    cluster.sync();  // every ring exists before anyone reads it
    const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(ring));
    unsigned acc = 0;
    if (rank == 0 && threadIdx.x == 0) {
        unsigned* out = samples;
        acc += dsm_chase<0>(0, own, out, &dependency_slot);
        acc += dsm_chase<1>(reinterpret_cast<unsigned long long>(ring), 0, out + kDsmTimed, &dependency_slot);
        acc += dsm_chase<2>(0, mapa_cluster(own, 0), out + 2 * kDsmTimed, &dependency_slot);
    }
    cluster.sync();
    for (unsigned r = 1; r < size; ++r) {
        if (rank == r && threadIdx.x == 0) {
            unsigned* out = samples + r * kDsmVariants * kDsmTimed;
            const auto remote = reinterpret_cast<unsigned long long>(cluster.map_shared_rank(ring, 0));
            acc += dsm_chase<1>(remote, 0, out + kDsmTimed, &dependency_slot);
            acc += dsm_chase<2>(0, mapa_cluster(own, 0), out + 2 * kDsmTimed, &dependency_slot);
        }
        cluster.sync();  // one reader at a time; rank 0 stays until the last one is done
    }
    if (acc == kImpossible32) *sink = acc + dependency_slot;
}

// Mode 0: next rank, generic ld; 1: next rank, ld.shared::cluster; 2: own, generic ld through
// map_shared_rank; 3: own, ld.shared.
template <int Mode>
__device__ __forceinline__ unsigned long long dsm_load_v4(unsigned long long generic_base, unsigned window_base,
                                                          unsigned offset) {
    unsigned x0, x1, x2, x3;
    if constexpr (Mode == 0 || Mode == 2)
        asm volatile("ld.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                     : "l"(generic_base + offset));
    else if constexpr (Mode == 1)
        asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                     : "r"(window_base + offset));
    else
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                     : "r"(window_base + offset));
    return (x0 ^ x1) + (x2 ^ x3);
}

template <int Mode>
__global__ void __launch_bounds__(kDsmBwThreads) dsmem_bw_kernel(unsigned passes, unsigned* smids,
                                                                 unsigned long long* sink) {
    extern __shared__ __align__(16) unsigned char dsm_dynamic[];
    uint4* buffer = reinterpret_cast<uint4*>(dsm_dynamic);
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const unsigned size = cluster.num_blocks();
    for (unsigned i = threadIdx.x; i < kDsmBwVecs; i += blockDim.x) buffer[i] = make_uint4(i, rank, 3 * i, 5 * i);
    if (threadIdx.x == 0) smids[blockIdx.x] = sm_id();
    cluster.sync();
    const unsigned target = Mode <= 1 ? (rank + 1) % size : rank;
    const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(buffer));
    const auto generic = reinterpret_cast<unsigned long long>(cluster.map_shared_rank(buffer, target));
    const unsigned window = Mode == 3 ? own : mapa_cluster(own, target);
    unsigned long long acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass) {
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < kDsmBwVecs; i += blockDim.x) acc += dsm_load_v4<Mode>(generic, window, i * 16);
    }
    cluster.sync();  // no block exits while another still reads its shared memory
    if (acc == kImpossible) *sink = acc;
}

using DsmBwFn = void (*)(unsigned, unsigned*, unsigned long long*);
const DsmBwFn kDsmBwKernels[4] = {dsmem_bw_kernel<0>, dsmem_bw_kernel<1>, dsmem_bw_kernel<2>, dsmem_bw_kernel<3>};
const char* const kDsmBwModeNames[4] = {"remote_generic", "remote_shared::cluster", "own_generic", "own_ld.shared"};

// A launch configuration with a cluster dimension; `attribute` must outlive the config's use.
static cudaLaunchConfig_t cluster_config(unsigned grid, unsigned block, std::size_t dynamic_shared, unsigned cluster,
                                         cudaLaunchAttribute* attribute) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid, 1, 1);
    config.blockDim = dim3(block, 1, 1);
    config.dynamicSmemBytes = dynamic_shared;
    config.stream = nullptr;
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return config;
}

template <typename Kernel>
static int max_cluster_size(Kernel kernel, unsigned block, std::size_t dynamic_shared) {
    cudaLaunchAttribute attribute[1];
    const cudaLaunchConfig_t config = cluster_config(kDsmMaxCluster * 8, block, dynamic_shared, 1, attribute);
    int size = 0;
    CHECK(cudaOccupancyMaxPotentialClusterSize(&size, kernel, &config));
    return size;
}

// Clusters of `cluster` blocks that can be resident at once; 0 (and the reason) if the query fails.
template <typename Kernel>
static int max_active_clusters(Kernel kernel, unsigned block, std::size_t dynamic_shared, unsigned cluster,
                               std::string* why) {
    cudaLaunchAttribute attribute[1];
    const cudaLaunchConfig_t config = cluster_config(cluster, block, dynamic_shared, cluster, attribute);
    int count = 0;
    const cudaError_t r = cudaOccupancyMaxActiveClusters(&count, kernel, &config);
    if (r != cudaSuccess) {
        (void)cudaGetLastError();
        if (why) *why = cudaGetErrorName(r);
        return 0;
    }
    return count;
}

static void section_dsmem(const Gpu& gpu, const std::string& out_dir) {
    Section s{"dsmem"};
    if (gpu.prop.major < 9) {
        s.table("conclusion", kConclusionColumns)
            .add({"dsmem", "skipped", "compute capability " + std::to_string(gpu.prop.major) + "." +
                                          std::to_string(gpu.prop.minor) + " < 9.0: no thread block clusters"});
        emit_section(s, out_dir);
        return;
    }

    CHECK(cudaFuncSetAttribute(dsmem_latency_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(kDsmDynamicBytes)));
    for (DsmBwFn fn : kDsmBwKernels)
        CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kDsmDynamicBytes)));
    const int portable_latency = max_cluster_size(dsmem_latency_kernel, 32, kDsmDynamicBytes);
    const int portable_bw = max_cluster_size(kDsmBwKernels[0], kDsmBwThreads, kDsmDynamicBytes);
    CHECK(cudaFuncSetAttribute(dsmem_latency_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (DsmBwFn fn : kDsmBwKernels) CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const int max_latency = max_cluster_size(dsmem_latency_kernel, 32, kDsmDynamicBytes);
    const int max_bw = max_cluster_size(kDsmBwKernels[0], kDsmBwThreads, kDsmDynamicBytes);
    int occupancy_bw = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy_bw, kDsmBwKernels[0], kDsmBwThreads, kDsmDynamicBytes));
    progress("dsmem: max cluster size portable %d/%d, non-portable %d/%d (latency/bandwidth kernel)", portable_latency,
             portable_bw, max_latency, max_bw);

    Table& limits = s.table("cluster_limits", {"kernel", "block", "dyn_smem", "blocks_per_sm", "max_cluster_portable",
                                               "max_cluster_nonportable"});
    limits.add({"latency", "32", std::to_string(kDsmDynamicBytes), "1 (by shared memory)",
                std::to_string(portable_latency), std::to_string(max_latency)});
    limits.add({"bandwidth", std::to_string(kDsmBwThreads), std::to_string(kDsmDynamicBytes),
                std::to_string(occupancy_bw), std::to_string(portable_bw), std::to_string(max_bw)});

    auto samples = device_alloc<unsigned>(kDsmMaxCluster * kDsmVariants * kDsmTimed);
    auto smids = device_alloc<unsigned>(std::max<std::size_t>(kDsmMaxCluster, 4 * gpu.sms));
    auto sink = device_alloc<unsigned long long>(1);
    const std::vector<unsigned> sizes = {2, 4, 8, 16};

    // Latency: one cluster per size.
    Table& latency = s.table("latency", {"cluster", "reader_rank", "reader_sm", "owner_sm", "variant", "median", "p90",
                                         "min", "max"});
    std::map<std::string, std::vector<double>> medians;  // variant key -> medians
    std::map<unsigned, double> remote_by_size;            // cluster size -> median over ranks (generic)
    std::vector<std::string> skipped;
    for (unsigned size : sizes) {
        if (int(size) > max_latency) {
            skipped.push_back("latency cluster " + std::to_string(size) + " > max " + std::to_string(max_latency));
            continue;
        }
        cudaLaunchAttribute attribute[1];
        const cudaLaunchConfig_t config = cluster_config(size, 32, kDsmDynamicBytes, size, attribute);
        CHECK(cudaMemset(samples.get(), 0, kDsmMaxCluster * kDsmVariants * kDsmTimed * sizeof(unsigned)));
        const cudaError_t r = cudaLaunchKernelEx(&config, dsmem_latency_kernel, samples.get(), smids.get(), sink.get());
        if (r != cudaSuccess) {
            (void)cudaGetLastError();
            skipped.push_back("latency cluster " + std::to_string(size) + ": " + cudaGetErrorName(r));
            continue;
        }
        CHECK_LAUNCH();
        std::vector<unsigned> host(kDsmMaxCluster * kDsmVariants * kDsmTimed), sm(kDsmMaxCluster);
        CHECK(cudaMemcpy(host.data(), samples.get(), host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(sm.data(), smids.get(), sm.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        std::vector<double> remote;
        for (unsigned rank = 0; rank < size; ++rank)
            for (unsigned v = 0; v < kDsmVariants; ++v) {
                if (rank > 0 && v == 0) continue;  // ld.shared reaches only the own block
                const auto first = host.begin() + (rank * kDsmVariants + v) * kDsmTimed;
                const SampleStats st = summarize(std::vector<unsigned>(first, first + kDsmTimed));
                const std::string where = rank == 0 ? "local" : "remote";
                latency.add({std::to_string(size), std::to_string(rank), std::to_string(sm[rank]), std::to_string(sm[0]),
                             where + " " + kDsmVariantNames[v], std::to_string(st.p50), std::to_string(st.p90),
                             std::to_string(st.min), std::to_string(st.max)});
                medians[where + " " + kDsmVariantNames[v]].push_back(st.p50);
                if (rank > 0 && v == 1) remote.push_back(st.p50);
            }
        std::set<unsigned> distinct(sm.begin(), sm.begin() + size);
        if (distinct.size() < size)
            skipped.push_back("latency cluster " + std::to_string(size) + ": only " + std::to_string(distinct.size()) +
                              " distinct SMs");
        remote_by_size[size] = median_of(remote);
        progress("dsmem: latency, cluster %u: remote generic median %.0f cycles", size, remote_by_size[size]);
    }

    // Bandwidth: as many clusters as can be resident, each block reading 64 KiB per pass.
    const double ghz = measure_clock_ghz(gpu, 10);
    Table& bandwidth = s.table("bandwidth", {"cluster", "mode", "active_clusters", "grid", "sms_used",
                                             "max_blocks_on_one_sm", "passes", "median_ms", "tbps", "gbps_per_sm",
                                             "bytes_per_cycle_per_sm"});
    struct BwResult {
        double tbps = 0, per_sm = 0, per_cycle = 0;
    };
    std::map<std::pair<unsigned, int>, BwResult> bw;  // (cluster, mode)
    std::vector<unsigned> bw_sizes = {1};
    bw_sizes.insert(bw_sizes.end(), sizes.begin(), sizes.end());
    for (unsigned size : bw_sizes) {
        if (int(size) > max_bw) {
            skipped.push_back("bandwidth cluster " + std::to_string(size) + " > max " + std::to_string(max_bw));
            continue;
        }
        std::string why;
        const int active = max_active_clusters(kDsmBwKernels[0], kDsmBwThreads, kDsmDynamicBytes, size, &why);
        if (active <= 0) {
            skipped.push_back("bandwidth cluster " + std::to_string(size) + ": no active clusters " + why);
            continue;
        }
        const unsigned grid = unsigned(active) * size;
        for (int mode = 0; mode < 4; ++mode) {
            if (size == 1 && mode <= 1) continue;  // no other block to read
            cudaLaunchAttribute attribute[1];
            const cudaLaunchConfig_t config = cluster_config(grid, kDsmBwThreads, kDsmDynamicBytes, size, attribute);
            const DsmBwFn fn = kDsmBwKernels[mode];
            const Timing t = time_launches(
                [&] { return cudaLaunchKernelEx(&config, fn, kDsmBwPasses, smids.get(), sink.get()); });
            std::vector<unsigned> sm(grid);
            CHECK(cudaMemcpy(sm.data(), smids.get(), grid * sizeof(unsigned), cudaMemcpyDeviceToHost));
            std::map<unsigned, unsigned> per_sm;
            unsigned most = 0;
            for (unsigned id : sm) most = std::max(most, ++per_sm[id]);
            const double bytes = double(grid) * kDsmBwVecs * 16 * kDsmBwPasses;
            BwResult r;
            r.tbps = bytes / (t.median_ms * 1e-3) / 1e12;
            r.per_sm = r.tbps * 1e3 / per_sm.size();
            r.per_cycle = ghz > 0 ? r.per_sm / ghz : 0;
            bw[{size, mode}] = r;
            bandwidth.add({std::to_string(size), kDsmBwModeNames[mode], std::to_string(active), std::to_string(grid),
                           std::to_string(per_sm.size()), std::to_string(most), std::to_string(kDsmBwPasses),
                           fixed(t.median_ms, 4), fixed(r.tbps, 3), fixed(r.per_sm, 1), fixed(r.per_cycle, 1)});
        }
        progress("dsmem: bandwidth, cluster %u (%d clusters) done", size, active);
    }

    Table& notes = s.table("notes", {"item", "value"});
    notes.add({"sm_clock_ghz (10 ms, all SMs)", fixed(ghz, 3)});
    for (const auto& why : skipped) notes.add({"skipped", why});

    Table& c = s.table("conclusion", kConclusionColumns);
    c.add({"max cluster size", std::to_string(max_bw) + " (portable " + std::to_string(portable_bw) + ")",
           "cudaOccupancyMaxPotentialClusterSize with 1024 threads and 120 KiB dynamic shared, before and after "
           "cudaFuncAttributeNonPortableClusterSizeAllowed = 1 (latency kernel: " +
               std::to_string(max_latency) + ")"});
    const auto med = [&](const std::string& key) { return medians.count(key) ? median_of(medians[key]) : 0.0; };
    const double local = med("local ld.shared"), remote_generic = med("remote generic"),
                 remote_cluster = med("remote shared::cluster");
    if (local > 0 && remote_generic > 0) {
        std::string by_size;
        for (const auto& [size, m] : remote_by_size)
            by_size += (by_size.empty() ? "" : ", ") + std::to_string(size) + ":" + fixed(m, 0);
        c.add({"latency local vs remote", fixed(local, 0) + " vs " + fixed(remote_generic, 0) + " cycles (" +
                                              fixed(remote_generic / local, 1) + "x)",
               "median per-load cycles (chase incl. timer overhead): local ld.shared " + fixed(local, 0) +
                   ", local generic " + fixed(med("local generic"), 0) + ", local shared::cluster " +
                   fixed(med("local shared::cluster"), 0) + "; remote generic " + fixed(remote_generic, 0) +
                   ", remote shared::cluster " + fixed(remote_cluster, 0) + "; remote generic by cluster size " +
                   by_size});
    }
    for (unsigned size : sizes) {
        const auto g = bw.find({size, 0}), k = bw.find({size, 1}), own = bw.find({size, 3});
        if (g == bw.end() || k == bw.end()) continue;
        const BwResult& best = g->second.tbps >= k->second.tbps ? g->second : k->second;
        c.add({"remote bandwidth, cluster " + std::to_string(size),
               fixed(best.tbps, 2) + " TB/s, " + fixed(best.per_sm, 0) + " GB/s per SM",
               "generic " + fixed(g->second.tbps, 2) + " / shared::cluster " + fixed(k->second.tbps, 2) +
                   " TB/s; " + fixed(best.per_cycle, 1) + " B/cycle/SM" +
                   (own != bw.end() ? "; own shared (ld.shared) " + fixed(own->second.tbps, 2) + " TB/s, " +
                                          fixed(own->second.per_cycle, 1) + " B/cycle/SM"
                                    : std::string())});
    }
    emit_section(s, out_dir);
}

// ------------------------------------------------------------------------------------------------
// main
// ------------------------------------------------------------------------------------------------

static void usage() {
    std::fprintf(stderr, "usage: explore_beyond [--out DIR] [--only tlb,banks,l1sets,dsmem]\n");
}

static Gpu open_gpu() {
    Gpu gpu;
    CHECK(cudaSetDevice(gpu.device));
    CHECK(cudaFree(nullptr));  // creates the context now
    CHECK(cudaGetDeviceProperties(&gpu.prop, gpu.device));
    gpu.sms = gpu.prop.multiProcessorCount;
    gpu.l2_bytes = static_cast<std::size_t>(gpu.prop.l2CacheSize);
    CHECK(cudaDeviceGetAttribute(&gpu.shared_optin_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu.device));
    return gpu;
}

int main(int argc, char** argv) {
    const std::vector<std::string> all = {"tlb", "banks", "l1sets", "dsmem"};
    std::set<std::string> sections;
    std::string out_dir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage();
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--out") {
            out_dir = value();
        } else if (arg == "--only") {
            std::stringstream list(value());
            for (std::string name; std::getline(list, name, ',');) {
                if (std::find(all.begin(), all.end(), name) == all.end()) {
                    std::fprintf(stderr, "unknown section %s\n", name.c_str());
                    return 2;
                }
                sections.insert(name);
            }
        } else {
            usage();
            return arg == "--help" || arg == "-h" ? 0 : 2;
        }
    }
    if (sections.empty()) sections.insert(all.begin(), all.end());
    const auto wants = [&](const char* name) { return sections.count(name) > 0; };
    if (!out_dir.empty()) std::filesystem::create_directories(out_dir);

    const Gpu gpu = open_gpu();
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("# device: %s, cc %d.%d, %d SMs, L2 %zu B, shared/SM %zu B, shared opt-in/block %d B, memory %zu B, "
                "driver API %d, runtime %d\n\n",
                gpu.prop.name, gpu.prop.major, gpu.prop.minor, gpu.sms, gpu.l2_bytes,
                gpu.prop.sharedMemPerMultiprocessor, gpu.shared_optin_per_block, gpu.prop.totalGlobalMem, driver,
                runtime);
    std::fflush(stdout);
    progress("context on %s (%d SMs); spinning 200 ms to raise the clock", gpu.prop.name, gpu.sms);
    spin_all_sms(gpu, 200);

    const auto run = [&](const char* name, auto&& section) {
        if (!wants(name)) return;
        const double begin = seconds_since_start();
        progress("%s: start", name);
        section(gpu, out_dir);
        progress("%s: done in %.1f s", name, seconds_since_start() - begin);
    };
    run("tlb", section_tlb);
    run("banks", section_banks);
    run("l1sets", section_l1sets);
    run("dsmem", section_dsmem);
    progress("done");
    return 0;
}
