// explore_trust.cu: a standalone, run-once experiment on a Hopper GPU (H100 / H200) that answers
// open questions behind the probe's numbers. Not part of the build; compile it by hand:
//
//   nvcc -std=c++17 -O2 -arch=sm_90 -lineinfo bench/explore_trust.cu -o /tmp/explore_trust -ldl
//   /tmp/explore_trust --out DIR [--only carveout,shape,overhead,bandwidth,nvml] [--load SECONDS]
//
// Sections (all but "load" run by default):
//   carveout  effective L1 capacity against the requested shared-memory carveout, with the carveout
//             set before every launch of one kernel ("same") and once on a fresh kernel ("fresh")
//   shape     effective L1 capacity against the launch shape (block size, grid size, dynamic shared)
//   overhead  the fine-grained chase's timer overhead, cold and warm, and the SM clock
//   bandwidth DRAM/L2 read bandwidth variants, a plain float4 sum, L1 and shared-memory bandwidth
//   nvml      what NVML reports (device, utilisation, running processes), before and with our context
//   load      (only with --load SECONDS) a read/write load generator to disturb another process
//
// stdout: one "## <section>" line per section followed by plain tables. --out DIR: one CSV per
// section (sub-tables merged, told apart by the "table" column). stderr: progress with timings.
//
// The pointer chase copies the technique of probe/kernels/pchase.cu: clock64 around each dependent
// load, and a store of the loaded value to a shared volatile slot before the second clock read, so
// the second read cannot issue before the load has returned.

#include "explore_common.cuh"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// ------------------------------------------------------------------------------------------------
// Sample statistics
// ------------------------------------------------------------------------------------------------

struct SampleStats {
    unsigned min = 0, p05 = 0, p50 = 0, p90 = 0, p95 = 0, max = 0, mode = 0;
};

// Nearest-rank percentiles of a sorted copy; the mode's ties go to the smaller value.
static SampleStats summarize(std::vector<unsigned> v) {
    SampleStats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const auto at = [&](double p) { return v[static_cast<std::size_t>(p * (v.size() - 1) + 0.5)]; };
    s.min = v.front();
    s.p05 = at(0.05);
    s.p50 = at(0.5);
    s.p90 = at(0.9);
    s.p95 = at(0.95);
    s.max = v.back();
    std::size_t best_run = 0;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j < v.size() && v[j] == v[i]) ++j;
        if (j - i > best_run) {
            best_run = j - i;
            s.mode = v[i];
        }
        i = j;
    }
    return s;
}



struct Gpu {
    int device = 0;
    cudaDeviceProp prop{};
    int sms = 0;
    std::size_t l2_bytes = 0;
    int shared_optin_per_block = 0;  // dynamic + static shared one block may opt in to
    std::string uuid;
};

static void spin_all_sms(const Gpu& gpu, double milliseconds, unsigned long long* sink) {
    spin_kernel<<<gpu.sms * 2, 128>>>(static_cast<unsigned long long>(milliseconds * 1e6), sink);
    CHECK_LAUNCH();
}

// ------------------------------------------------------------------------------------------------
// The pointer chase (sections carveout and shape)
// ------------------------------------------------------------------------------------------------

constexpr unsigned kRingStrideBytes = 128;  // one element per L1 line
constexpr unsigned kMinFootprintKiB = 4;
constexpr unsigned kMaxFootprintKiB = 272;
constexpr unsigned kFootprintStepKiB = 2;
constexpr unsigned kReferenceFootprintKiB = 16;  // all hits in every configuration measured so far
constexpr unsigned kMissMarginCycles = 40;       // a load this much slower than the hit median missed
constexpr double kHitShareLimit = 0.05;          // capacity: largest footprint with < 5 % misses
constexpr double kThrashShare = 0.5;             // stop a scan after kThrashRun footprints above this
constexpr int kThrashRun = 3;
constexpr unsigned long long kSpinTimeoutNs = 2'000'000'000ull;  // spinning blocks give up after 2 s
constexpr unsigned kSpinSleepNs = 20'000;  // polls per spinning block: rare enough not to load L2

struct ChaseArgs {
    unsigned long long start;  // address of the ring's first element
    unsigned elements;
    unsigned* samples;          // one per element of the timed pass
    unsigned long long* stats;  // [0] cycles, [1] ns of the timed pass, [2] SM id, [3] sink
    unsigned* flags;            // [0] done, [1] spin timeouts, [2 + sm] spinning blocks seen per SM
};

__device__ __forceinline__ unsigned long long load_ca(unsigned long long cursor) {
    unsigned long long next;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(cursor) : "memory");
    return next;
}

// Lane 0 of block 0: one untimed pass to fill L1, then one timed pass of every element.
__device__ __forceinline__ unsigned long long chase_ring(const ChaseArgs& a, volatile unsigned* dependency) {
    unsigned long long cursor = a.start;
    for (unsigned i = 0; i < a.elements; ++i) cursor = load_ca(cursor);
    const long long cycles_begin = sm_clock();
    const unsigned long long ns_begin = global_ns();
    for (unsigned i = 0; i < a.elements; ++i) {
        const long long before = sm_clock();
        cursor = load_ca(cursor);
        *dependency = static_cast<unsigned>(cursor);  // waits for the load before `after` is read
        const long long after = sm_clock();
        __stcg(a.samples + i, static_cast<unsigned>(after - before));  // .cg: the store skips L1
    }
    a.stats[0] = static_cast<unsigned long long>(sm_clock() - cycles_begin);
    a.stats[1] = global_ns() - ns_begin;
    a.stats[2] = sm_id();
    return cursor;
}

// Every block but the chasing one waits (resident) until the chase is done, or 2 s at most so that
// nothing can hang. It counts itself on its SM if it arrived before the chase ended.
__device__ __forceinline__ void spin_until_done(const ChaseArgs& a) {
    volatile unsigned* done = a.flags;
    if (*done != 0) return;
    atomicAdd(a.flags + 2 + sm_id(), 1u);
    const unsigned long long begin = global_ns();
    while (*done == 0) {
        if (global_ns() - begin > kSpinTimeoutNs) {
            atomicAdd(a.flags + 1, 1u);
            return;
        }
        __nanosleep(kSpinSleepNs);
    }
}

__device__ __forceinline__ void chase_body(const ChaseArgs& a, volatile unsigned* dependency, unsigned salt) {
    unsigned long long sink = 0;
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) {
            sink = chase_ring(a, dependency);
            __threadfence();
            atomicExch(a.flags, 1u);  // releases the spinning blocks
        } else {
            spin_until_done(a);
        }
    }
    __syncthreads();  // the block's other warps stay resident until the chase is over
    // `salt` makes every fresh instantiation a distinct function body.
    if (sink == kImpossible) a.stats[3] = sink + *dependency + salt;
}

// Mode "same": one function whose carveout is set before each launch.
__global__ void chase_same_kernel(ChaseArgs a) {
    __shared__ volatile unsigned dependency_slot;
    chase_body(a, &dependency_slot, 0);
}

// Mode "fresh": one instantiation per configuration, its carveout set once before its first launch.
template <int Slot>
__global__ void chase_fresh_kernel(ChaseArgs a) {
    __shared__ volatile unsigned dependency_slot;
    chase_body(a, &dependency_slot, Slot + 1);
}

using ChaseFn = void (*)(ChaseArgs);

constexpr int kFreshSlots = 64;  // carveout uses 30, shape 18

template <int... Slots>
std::array<ChaseFn, sizeof...(Slots)> make_fresh_table(std::integer_sequence<int, Slots...>) {
    return {{&chase_fresh_kernel<Slots>...}};
}

// Hands out a kernel never launched or configured before in this process.
static ChaseFn take_fresh_kernel() {
    static const auto table = make_fresh_table(std::make_integer_sequence<int, kFreshSlots>{});
    static int next = 0;
    if (next >= kFreshSlots) {
        std::fprintf(stderr, "out of fresh chase kernels (%d)\n", kFreshSlots);
        std::exit(1);
    }
    return table[next++];
}

__global__ void link_ring_kernel(unsigned char* base, unsigned elements, unsigned stride_bytes) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += gridDim.x * blockDim.x)
        *reinterpret_cast<unsigned long long*>(base + std::size_t(i) * stride_bytes) =
            reinterpret_cast<unsigned long long>(base + std::size_t((i + 1) % elements) * stride_bytes);
}

// Every footprint's ring, linked once in its own 64 KiB-aligned slice of one buffer.
struct ChaseBench {
    const Gpu& gpu;
    std::vector<unsigned> footprints_kib;
    std::vector<std::size_t> offsets;
    DeviceArray<unsigned char> rings;
    DeviceArray<unsigned> samples;
    DeviceArray<unsigned long long> stats;
    DeviceArray<unsigned> flags;

    explicit ChaseBench(const Gpu& g) : gpu(g) {
        std::size_t bytes = 0;
        for (unsigned kib = kMinFootprintKiB; kib <= kMaxFootprintKiB; kib += kFootprintStepKiB) {
            footprints_kib.push_back(kib);
            offsets.push_back(bytes);
            bytes += (std::size_t(kib) * 1024 + 65535) / 65536 * 65536;
        }
        rings = device_alloc<unsigned char>(bytes);
        CHECK(cudaMemset(rings.get(), 0, bytes));
        for (std::size_t i = 0; i < footprints_kib.size(); ++i) {
            link_ring_kernel<<<32, 256>>>(rings.get() + offsets[i], elements(i), kRingStrideBytes);
            CHECK_LAUNCH();
        }
        samples = device_alloc<unsigned>(elements(footprints_kib.size() - 1));
        stats = device_alloc<unsigned long long>(4);
        flags = device_alloc<unsigned>(2 + gpu.sms);
    }
    unsigned elements(std::size_t ring) const { return footprints_kib[ring] * 1024 / kRingStrideBytes; }
    std::size_t ring_of(unsigned kib) const {
        return std::find(footprints_kib.begin(), footprints_kib.end(), kib) - footprints_kib.begin();
    }
};

struct ChaseConfig {
    ChaseFn fn = nullptr;
    unsigned block = 32;
    unsigned grid = 1;
    std::size_t dynamic_shared = 0;
    std::optional<int> carveout_every_launch;  // mode "same": set before each launch
};

struct ChaseRun {
    std::vector<unsigned> cycles;
    unsigned sm = 0;
    unsigned coresident = 0;  // spinning blocks seen on the chasing block's SM
    unsigned timeouts = 0;
};

static ChaseRun chase_once(ChaseBench& b, const ChaseConfig& c, std::size_t ring) {
    if (c.carveout_every_launch)
        CHECK(cudaFuncSetAttribute(c.fn, cudaFuncAttributePreferredSharedMemoryCarveout, *c.carveout_every_launch));
    CHECK(cudaMemset(b.flags.get(), 0, (2 + b.gpu.sms) * sizeof(unsigned)));
    const ChaseArgs args{reinterpret_cast<unsigned long long>(b.rings.get() + b.offsets[ring]), b.elements(ring),
                         b.samples.get(), b.stats.get(), b.flags.get()};
    c.fn<<<c.grid, c.block, c.dynamic_shared>>>(args);
    CHECK_LAUNCH();

    ChaseRun run;
    run.cycles.resize(args.elements);
    CHECK(cudaMemcpy(run.cycles.data(), b.samples.get(), args.elements * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned long long stats[4];
    CHECK(cudaMemcpy(stats, b.stats.get(), sizeof(stats), cudaMemcpyDeviceToHost));
    std::vector<unsigned> flags(2 + b.gpu.sms);
    CHECK(cudaMemcpy(flags.data(), b.flags.get(), flags.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    run.sm = static_cast<unsigned>(stats[2]);
    run.timeouts = flags[1];
    run.coresident = run.sm < static_cast<unsigned>(b.gpu.sms) ? flags[2 + run.sm] : 0;
    return run;
}

struct CurvePoint {
    unsigned footprint_kib;
    double miss_share;
    SampleStats cycles;
    unsigned coresident;
};

struct Capacity {
    unsigned hit_median = 0;
    int capacity_kib = -1;  // -1: no footprint stayed under the miss limit
    std::vector<CurvePoint> curve;
    unsigned sm = 0;
    unsigned coresident_min = ~0u, coresident_max = 0, timeouts = 0;
};

// The hit reference comes from the 16 KiB ring of the same configuration; then footprints grow
// until three in a row miss more than half their loads.
static Capacity measure_capacity(ChaseBench& b, const ChaseConfig& c) {
    Capacity cap;
    const ChaseRun reference = chase_once(b, c, b.ring_of(kReferenceFootprintKiB));
    cap.hit_median = summarize(reference.cycles).p50;
    const unsigned threshold = cap.hit_median + kMissMarginCycles;
    int thrashing = 0;
    for (std::size_t ring = 0; ring < b.footprints_kib.size() && thrashing < kThrashRun; ++ring) {
        const ChaseRun run = chase_once(b, c, ring);
        const auto misses = std::count_if(run.cycles.begin(), run.cycles.end(), [&](unsigned x) { return x > threshold; });
        const double share = double(misses) / run.cycles.size();
        cap.curve.push_back({b.footprints_kib[ring], share, summarize(run.cycles), run.coresident});
        if (share < kHitShareLimit) cap.capacity_kib = static_cast<int>(b.footprints_kib[ring]);
        thrashing = share > kThrashShare ? thrashing + 1 : 0;
        cap.sm = run.sm;
        cap.coresident_min = std::min(cap.coresident_min, run.coresident);
        cap.coresident_max = std::max(cap.coresident_max, run.coresident);
        cap.timeouts += run.timeouts;
        if (run.timeouts > 0) break;  // spinning blocks gave up: later launches would not be comparable
    }
    if (cap.coresident_min == ~0u) cap.coresident_min = 0;
    return cap;
}

// What the runtime says about a chase kernel. The available-dynamic-shared query is capped by the
// kernel's MaxDynamicSharedMemorySize, so it is asked twice: with the limit as it is, and with the
// limit raised to the opt-in maximum (then restored, so later launches see the attribute unchanged).
struct KernelQuery {
    std::size_t available_dynamic_shared = 0;
    std::size_t available_dynamic_shared_optin = 0;
    int preferred_carveout = 0;
    int max_dynamic_shared = 0;
};

static KernelQuery query_kernel(const Gpu& gpu, ChaseFn fn, int block) {
    KernelQuery q;
    cudaFuncAttributes attributes{};
    CHECK(cudaFuncGetAttributes(&attributes, fn));
    q.preferred_carveout = attributes.preferredShmemCarveout;
    q.max_dynamic_shared = attributes.maxDynamicSharedSizeBytes;
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&q.available_dynamic_shared, fn, 1, block));
    const int optin = gpu.shared_optin_per_block - static_cast<int>(attributes.sharedSizeBytes);
    CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&q.available_dynamic_shared_optin, fn, 1, block));
    CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, attributes.maxDynamicSharedSizeBytes));
    return q;
}

static std::string capacity_text(int kib) { return kib < 0 ? std::string("none") : std::to_string(kib); }

static void add_curve(Table& t, const std::string& label, const std::string& mode, int carveout, const Capacity& cap) {
    for (const auto& p : cap.curve)
        t.add({label, mode, std::to_string(carveout), std::to_string(p.footprint_kib), fixed(p.miss_share, 4),
               std::to_string(p.cycles.p50), std::to_string(p.cycles.p90), std::to_string(p.cycles.max),
               std::to_string(p.coresident)});
}

static const std::vector<std::string> kCurveColumns = {"config",        "mode",          "carveout",
                                                       "footprint_kib", "miss_share",    "median_cycles",
                                                       "p90_cycles",    "max_cycles",    "coresident"};

// ---------------------------------- Section A: carveout ----------------------------------------

static void section_carveout(const Gpu& gpu, ChaseBench& bench, const std::string& out_dir) {
    const std::vector<int> carveouts = {-1, 0,  1,  3,  4,  5,  7,  8,  10, 13, 14, 15, 25, 28, 29,
                                        30, 43, 44, 45, 50, 57, 58, 60, 71, 72, 75, 85, 86, 90, 100};
    Section s{"carveout"};
    Table& summary = s.table("summary", {"mode", "order", "carveout", "hit_median_cycles", "capacity_kib",
                                         "footprints_scanned", "avail_dyn_smem", "avail_dyn_smem_optin",
                                         "attr_preferred_carveout", "attr_max_dyn_smem", "sm"});
    summary.print = false;  // the side-by-side view below shows the same rows
    Table curve = Table{"curve", kCurveColumns, {}};
    curve.print = false;

    struct Result {
        Capacity cap;
        KernelQuery query;
    };
    const auto record = [&](const std::string& mode, int order, int carveout, const Result& r) {
        summary.add({mode, std::to_string(order), std::to_string(carveout), std::to_string(r.cap.hit_median),
                     capacity_text(r.cap.capacity_kib), std::to_string(r.cap.curve.size()),
                     std::to_string(r.query.available_dynamic_shared),
                     std::to_string(r.query.available_dynamic_shared_optin),
                     std::to_string(r.query.preferred_carveout), std::to_string(r.query.max_dynamic_shared),
                     std::to_string(r.cap.sm)});
        add_curve(curve, mode + "#" + std::to_string(order), mode, carveout, r.cap);
        progress("carveout %-5s #%-2d c=%4d: L1 %s KiB (hit median %u, %zu footprints)", mode.c_str(), order,
                 carveout, capacity_text(r.cap.capacity_kib).c_str(), r.cap.hit_median, r.cap.curve.size());
    };

    // Mode "same": one function, the carveout set before every launch; carveout 0 again at the end.
    std::vector<int> same_order = carveouts;
    same_order.push_back(0);
    std::vector<Result> same;
    for (std::size_t i = 0; i < same_order.size(); ++i) {
        ChaseConfig c;
        c.fn = chase_same_kernel;
        c.carveout_every_launch = same_order[i];
        Result r{measure_capacity(bench, c), query_kernel(gpu, c.fn, 32)};
        record("same", static_cast<int>(i), same_order[i], r);
        same.push_back(std::move(r));
    }

    // Mode "fresh": a new function per carveout, configured once before its first launch.
    std::vector<Result> fresh;
    for (std::size_t i = 0; i < carveouts.size(); ++i) {
        ChaseConfig c;
        c.fn = take_fresh_kernel();
        CHECK(cudaFuncSetAttribute(c.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveouts[i]));
        Result r{measure_capacity(bench, c), query_kernel(gpu, c.fn, 32)};
        record("fresh", static_cast<int>(i), carveouts[i], r);
        fresh.push_back(std::move(r));
    }

    Table side{"side_by_side",
               {"carveout", "same_L1_kib", "fresh_L1_kib", "same_hit", "fresh_hit", "same_avail_dyn",
                "fresh_avail_dyn", "same_avail_dyn_optin", "fresh_avail_dyn_optin", "same_attr_carveout",
                "fresh_attr_carveout"},
               {}};
    side.csv = false;
    for (std::size_t i = 0; i < same_order.size(); ++i) {
        const Result& a = same[i];
        const bool again = i >= carveouts.size();
        const Result* f = again ? nullptr : &fresh[i];
        const auto fr = [&](auto get) { return f ? get(*f) : std::string("-"); };
        side.add({std::to_string(same_order[i]) + (again ? " (again)" : ""), capacity_text(a.cap.capacity_kib),
                  fr([](const Result& r) { return capacity_text(r.cap.capacity_kib); }),
                  std::to_string(a.cap.hit_median), fr([](const Result& r) { return std::to_string(r.cap.hit_median); }),
                  std::to_string(a.query.available_dynamic_shared),
                  fr([](const Result& r) { return std::to_string(r.query.available_dynamic_shared); }),
                  std::to_string(a.query.available_dynamic_shared_optin),
                  fr([](const Result& r) { return std::to_string(r.query.available_dynamic_shared_optin); }),
                  std::to_string(a.query.preferred_carveout),
                  fr([](const Result& r) { return std::to_string(r.query.preferred_carveout); })});
    }
    s.tables.push_back(std::move(side));
    s.tables.push_back(std::move(curve));
    emit_section(s, out_dir);
}

// ---------------------------------- Section B: shape -------------------------------------------

static void section_shape(const Gpu& gpu, ChaseBench& bench, const std::string& out_dir) {
    Section s{"shape"};
    Table& summary = s.table("summary", {"config", "block", "grid", "carveout", "dyn_smem", "occupancy_blocks_per_sm",
                                         "hit_median_cycles", "capacity_kib", "footprints_scanned", "coresident_min",
                                         "coresident_max", "spin_timeouts", "attr_preferred_carveout", "sm"});
    Table curve = Table{"curve", kCurveColumns, {}};
    curve.print = false;

    const auto measure = [&](const std::string& label, unsigned block, unsigned grid, int carveout,
                             std::size_t dynamic_shared) {
        ChaseConfig c;
        c.fn = take_fresh_kernel();
        c.block = block;
        c.grid = grid;
        c.dynamic_shared = dynamic_shared;
        CHECK(cudaFuncSetAttribute(c.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
        int occupancy = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, c.fn, static_cast<int>(block), dynamic_shared));
        const Capacity cap = measure_capacity(bench, c);
        cudaFuncAttributes attributes{};
        CHECK(cudaFuncGetAttributes(&attributes, c.fn));
        summary.add({label, std::to_string(block), std::to_string(grid), std::to_string(carveout),
                     std::to_string(dynamic_shared), std::to_string(occupancy), std::to_string(cap.hit_median),
                     capacity_text(cap.capacity_kib), std::to_string(cap.curve.size()),
                     std::to_string(cap.coresident_min), std::to_string(cap.coresident_max),
                     std::to_string(cap.timeouts), std::to_string(attributes.preferredShmemCarveout),
                     std::to_string(cap.sm)});
        add_curve(curve, label, "fresh", carveout, cap);
        progress("shape %-22s: L1 %s KiB (occupancy %d, coresident %u..%u, timeouts %u)", label.c_str(),
                 capacity_text(cap.capacity_kib).c_str(), occupancy, cap.coresident_min, cap.coresident_max,
                 cap.timeouts);
    };

    for (int carveout : {0, -1})
        for (unsigned block : {32u, 64u, 128u, 256u, 512u, 1024u})
            measure("block" + std::to_string(block) + "_c" + std::to_string(carveout), block, 1, carveout, 0);
    // Only block 0 chases; the others stay resident (spinning) while it does.
    for (unsigned k : {1u, 2u, 8u, 16u, 32u})
        measure("grid" + std::to_string(k) + "xSM_c0", 32, k * gpu.sms, 0, 0);
    measure("dyn4KiB_c0", 32, 1, 0, 4096);

    s.tables.push_back(std::move(curve));
    emit_section(s, out_dir);
}

// ---------------------------------- Section C: overhead ----------------------------------------

// The chase loop of pchase.cu with LoadPath::none: clock, a store of a register to the shared
// volatile slot, clock. Measures what every timed load carries on top of its latency.
__global__ void overhead_kernel(unsigned* samples, unsigned iterations, unsigned long long* stats) {
    __shared__ volatile unsigned dependency_slot;
    if (threadIdx.x != 0) return;
    const unsigned long long cursor = reinterpret_cast<unsigned long long>(samples);  // any register value
    const long long cycles_begin = sm_clock();
    const unsigned long long ns_begin = global_ns();
    for (unsigned i = 0; i < iterations; ++i) {
        const long long before = sm_clock();
        dependency_slot = static_cast<unsigned>(cursor);
        const long long after = sm_clock();
        __stcg(samples + i, static_cast<unsigned>(after - before));
    }
    stats[0] = static_cast<unsigned long long>(sm_clock() - cycles_begin);
    stats[1] = global_ns() - ns_begin;
    stats[2] = sm_id();
}

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

static void section_overhead(const Gpu& gpu, const std::string& out_dir) {
    constexpr unsigned kIterations = 4096;
    constexpr int kColdRuns = 10, kWarmRuns = 20;
    Section s{"overhead"};
    Table& runs = s.table("runs", {"run", "phase", "median", "min", "p05", "p95", "mode", "max", "loop_cycles",
                                   "loop_ns", "cycles_per_ns", "sm"});
    auto samples = device_alloc<unsigned>(kIterations);
    auto stats = device_alloc<unsigned long long>(4);

    const auto one_run = [&](int run, const char* phase) {
        overhead_kernel<<<1, 32>>>(samples.get(), kIterations, stats.get());
        CHECK_LAUNCH();
        std::vector<unsigned> cycles(kIterations);
        CHECK(cudaMemcpy(cycles.data(), samples.get(), kIterations * sizeof(unsigned), cudaMemcpyDeviceToHost));
        unsigned long long st[4];
        CHECK(cudaMemcpy(st, stats.get(), sizeof(st), cudaMemcpyDeviceToHost));
        const SampleStats x = summarize(cycles);
        runs.add({std::to_string(run), phase, std::to_string(x.p50), std::to_string(x.min), std::to_string(x.p05),
                  std::to_string(x.p95), std::to_string(x.mode), std::to_string(x.max), std::to_string(st[0]),
                  std::to_string(st[1]), st[1] ? fixed(double(st[0]) / double(st[1]), 4) : "-",
                  std::to_string(st[2])});
    };

    for (int r = 0; r < kColdRuns; ++r) one_run(r, "cold");
    progress("overhead: %d cold runs done; spinning 250 ms on all SMs", kColdRuns);
    spin_all_sms(gpu, 250, stats.get() + 3);
    for (int r = 0; r < kWarmRuns; ++r) one_run(kColdRuns + r, "warm");

    Table& clock = s.table("clock", {"measurement", "cycles_per_ns"});
    clock.add({"20 ms clock64 vs globaltimer, all SMs, after the runs", fixed(measure_clock_ghz(gpu, 20), 4)});
    progress("overhead: done");
    emit_section(s, out_dir);
}

// ---------------------------------- Section D: bandwidth ---------------------------------------

enum class CacheOp : int { cg, ca, nc };

static const char* to_string(CacheOp op) { return op == CacheOp::cg ? "cg" : op == CacheOp::ca ? "ca" : "nc"; }

// One load of W bytes through the cache operator, folded to 64 bits. asm volatile keeps every load.
#define EXPLORE_LOAD_32(OP) asm volatile("ld.global." OP ".u32 %0, [%1];" : "=r"(x) : "l"(p))
#define EXPLORE_LOAD_64(OP) asm volatile("ld.global." OP ".u64 %0, [%1];" : "=l"(x) : "l"(p))
#define EXPLORE_LOAD_128(OP)                                                    \
    asm volatile("ld.global." OP ".v4.u32 {%0, %1, %2, %3}, [%4];"                \
                 : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)                        \
                 : "l"(p))

template <int W, CacheOp Op>
__device__ __forceinline__ unsigned long long load_fold(const unsigned char* p) {
    if constexpr (W == 4) {
        unsigned x;
        if constexpr (Op == CacheOp::cg) EXPLORE_LOAD_32("cg");
        else if constexpr (Op == CacheOp::ca) EXPLORE_LOAD_32("ca");
        else EXPLORE_LOAD_32("nc");
        return x;
    } else if constexpr (W == 8) {
        unsigned long long x;
        if constexpr (Op == CacheOp::cg) EXPLORE_LOAD_64("cg");
        else if constexpr (Op == CacheOp::ca) EXPLORE_LOAD_64("ca");
        else EXPLORE_LOAD_64("nc");
        return x;
    } else {
        unsigned x0, x1, x2, x3;
        if constexpr (Op == CacheOp::cg) EXPLORE_LOAD_128("cg");
        else if constexpr (Op == CacheOp::ca) EXPLORE_LOAD_128("ca");
        else EXPLORE_LOAD_128("nc");
        return (x0 ^ x1) + (x2 ^ x3);
    }
}

// Grid-stride read of `bytes`, `passes` times; U independent loads in flight per thread per step.
template <int W, CacheOp Op, int U>
__global__ void __launch_bounds__(1024) read_kernel(const unsigned char* data, std::size_t bytes, unsigned passes,
                                                    unsigned long long* sink) {
    const std::size_t step = std::size_t(gridDim.x) * blockDim.x * W;
    const unsigned char* first = data + (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * W;
    const unsigned char* end = data + bytes;
    unsigned long long acc = 0;
    for (unsigned pass = 0; pass < passes; ++pass) {
        const unsigned char* p = first;
        for (; p + (U - 1) * step < end; p += U * step) {
            unsigned long long v[U];
#pragma unroll
            for (int u = 0; u < U; ++u) v[u] = load_fold<W, Op>(p + u * step);
#pragma unroll
            for (int u = 0; u < U; ++u) acc += v[u];
        }
        for (; p < end; p += step) acc += load_fold<W, Op>(p);
    }
    if (acc == kImpossible) *sink = acc;
}

using ReadFn = void (*)(const unsigned char*, std::size_t, unsigned, unsigned long long*);

template <int W, CacheOp Op>
ReadFn read_fn_unroll(int unroll) {
    switch (unroll) {
        case 1: return read_kernel<W, Op, 1>;
        case 4: return read_kernel<W, Op, 4>;
        case 8: return read_kernel<W, Op, 8>;
    }
    return nullptr;
}

template <int W>
ReadFn read_fn_op(CacheOp op, int unroll) {
    switch (op) {
        case CacheOp::cg: return read_fn_unroll<W, CacheOp::cg>(unroll);
        case CacheOp::ca: return read_fn_unroll<W, CacheOp::ca>(unroll);
        case CacheOp::nc: return read_fn_unroll<W, CacheOp::nc>(unroll);
    }
    return nullptr;
}

static ReadFn read_fn(int width, CacheOp op, int unroll) {
    ReadFn fn = width == 4 ? read_fn_op<4>(op, unroll)
              : width == 8 ? read_fn_op<8>(op, unroll)
              : width == 16 ? read_fn_op<16>(op, unroll)
                            : nullptr;
    if (!fn) {
        std::fprintf(stderr, "no read kernel for width %d unroll %d\n", width, unroll);
        std::exit(1);
    }
    return fn;
}

// A "simple" sum: float4 loads, a per-thread sum, one atomicAdd per warp (not per thread: 135 k
// same-address atomics would cost a noticeable part of a 0.5 ms run).
__global__ void plain_sum_kernel(const float4* data, std::size_t count, unsigned passes, float* result) {
    float sum = 0.f;
    for (unsigned pass = 0; pass < passes; ++pass)
        for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
             i += std::size_t(gridDim.x) * blockDim.x) {
            const float4 v = data[i];
            sum += (v.x + v.y) + (v.z + v.w);
        }
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(result, sum);
}

__device__ __forceinline__ unsigned long long load_ca_v4(const uint4* p) {
    unsigned x0, x1, x2, x3;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3) : "l"(p));
    return (x0 ^ x1) + (x2 ^ x3);
}

__device__ __forceinline__ unsigned long long load_shared_v4(unsigned address) {
    unsigned x0, x1, x2, x3;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(address));
    return (x0 ^ x1) + (x2 ^ x3);
}

// Per block: [0] cycles, [1] start ns, [2] end ns, [3] SM id of the timed loop.
__device__ __forceinline__ void record_block(unsigned long long* block_stats, long long c0, unsigned long long t0) {
    const long long c1 = sm_clock();
    const unsigned long long t1 = global_ns();
    unsigned long long* out = block_stats + 4 * blockIdx.x;
    out[0] = static_cast<unsigned long long>(c1 - c0);
    out[1] = t0;
    out[2] = t1;
    out[3] = sm_id();
}

// Each block re-reads its own region (a power of two of 16-byte vectors, a multiple of the block
// size): one untimed pass brings it into L1, then `passes` timed passes. Regions of different
// blocks are disjoint, so no two blocks share a line.
__global__ void __launch_bounds__(1024, 2) l1_read_kernel(const uint4* data, unsigned region_vecs, unsigned passes,
                                                          unsigned long long* block_stats, unsigned long long* sink) {
    const uint4* base = data + std::size_t(blockIdx.x) * region_vecs;
    unsigned long long acc = 0;
    for (unsigned i = threadIdx.x; i < region_vecs; i += blockDim.x) acc += load_ca_v4(base + i);
    __syncthreads();
    const long long c0 = sm_clock();
    const unsigned long long t0 = global_ns();
    const unsigned steps = passes * (region_vecs / blockDim.x);
    const unsigned mask = region_vecs - 1;
#pragma unroll 4
    for (unsigned k = 0; k < steps; ++k) acc += load_ca_v4(base + ((threadIdx.x + k * blockDim.x) & mask));
    __syncthreads();
    if (threadIdx.x == 0) record_block(block_stats, c0, t0);
    if (acc == kImpossible) *sink = acc;
}

constexpr unsigned kSharedBenchVecs = 32 * 1024 / 16;  // 32 KiB of shared memory per block

// Each block fills 32 KiB of shared memory and reads it `passes` times; consecutive lanes read
// consecutive 16 B, so a warp's load is four conflict-free 128 B wavefronts.
__global__ void __launch_bounds__(1024, 2) shared_read_kernel(unsigned passes, unsigned long long* block_stats,
                                                              unsigned long long* sink) {
    __shared__ uint4 buffer[kSharedBenchVecs];
    for (unsigned i = threadIdx.x; i < kSharedBenchVecs; i += blockDim.x) buffer[i] = make_uint4(i, i * 3, i * 5, i * 7);
    __syncthreads();
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buffer));
    unsigned long long acc = 0;
    const long long c0 = sm_clock();
    const unsigned long long t0 = global_ns();
    const unsigned steps = passes * (kSharedBenchVecs / blockDim.x);
#pragma unroll 4
    for (unsigned k = 0; k < steps; ++k)
        acc += load_shared_v4(base + ((threadIdx.x + k * blockDim.x) % kSharedBenchVecs) * 16);
    __syncthreads();
    if (threadIdx.x == 0) record_block(block_stats, c0, t0);
    if (acc == kImpossible) *sink = acc;
}

struct Timing {
    double median_ms = 0, min_ms = 0;
};

// One warm-up launch, then the median of five launches timed with events.
template <typename Launch>
Timing time_launches(Launch&& launch) {
    constexpr int kRuns = 5;
    launch();
    CHECK_LAUNCH();
    Event begin = make_event(), end = make_event();
    std::vector<double> ms;
    for (int r = 0; r < kRuns; ++r) {
        CHECK(cudaEventRecord(begin.get()));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(end.get()));
        CHECK(cudaDeviceSynchronize());
        float elapsed = 0;
        CHECK(cudaEventElapsedTime(&elapsed, begin.get(), end.get()));
        ms.push_back(elapsed);
    }
    return {median_of(ms), *std::min_element(ms.begin(), ms.end())};
}

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kGiB = 1024 * kMiB;
constexpr std::size_t kStreamBytesPerRun = 2 * kGiB;

static unsigned passes_for(std::size_t region) {
    return static_cast<unsigned>((kStreamBytesPerRun + region - 1) / region);
}

struct StreamVariant {
    std::size_t region;
    int width = 16;
    CacheOp op = CacheOp::cg;
    int unroll = 4;
    int threads = 512;
    int blocks_per_sm = 4;

    std::string key() const {
        std::ostringstream k;
        k << region << '/' << width << '/' << to_string(op) << '/' << unroll << '/' << threads << '/' << blocks_per_sm;
        return k.str();
    }
    std::string label() const {
        std::ostringstream k;
        k << width << "B." << to_string(op) << " u" << unroll << " t" << threads << " b" << blocks_per_sm;
        return k.str();
    }
};

struct BlockTiming {
    double aggregate_tbps = 0;  // bytes over (last end - first start) of the timed loops
    double clock_ghz = 0;       // median over blocks of cycles / ns
    unsigned max_blocks_on_one_sm = 0;
};

static BlockTiming summarize_blocks(const std::vector<unsigned long long>& st, unsigned blocks, double bytes) {
    BlockTiming b;
    unsigned long long first = ~0ull, last = 0;
    std::vector<double> ghz;
    std::map<unsigned long long, unsigned> per_sm;
    for (unsigned i = 0; i < blocks; ++i) {
        const unsigned long long* x = &st[4 * i];
        first = std::min(first, x[1]);
        last = std::max(last, x[2]);
        if (x[2] > x[1]) ghz.push_back(double(x[0]) / double(x[2] - x[1]));
        b.max_blocks_on_one_sm = std::max(b.max_blocks_on_one_sm, ++per_sm[x[3]]);
    }
    b.aggregate_tbps = last > first ? bytes / double(last - first) / 1e3 : 0;
    b.clock_ghz = median_of(ghz);
    return b;
}

static void section_bandwidth(const Gpu& gpu, const std::string& out_dir) {
    Section s{"bandwidth"};
    const std::size_t l2x4 = 4 * gpu.l2_bytes;
    const std::vector<std::size_t> regions = {4 * kMiB, 8 * kMiB, 16 * kMiB, 24 * kMiB, 32 * kMiB, 48 * kMiB, l2x4};
    const std::size_t buffer_bytes = std::max(*std::max_element(regions.begin(), regions.end()), 64 * kMiB);
    auto data = device_alloc<unsigned char>(buffer_bytes);
    CHECK(cudaMemset(data.get(), 1, buffer_bytes));
    auto sink = device_alloc<unsigned long long>(1);
    const auto mib = [](std::size_t bytes) { return fixed(double(bytes) / kMiB, 1); };

    // (1) baseline on every region, (2) one factor at a time around it on 16 MiB and 4 x L2,
    // (3) a small full product on 16 MiB. Variants already measured are not measured again.
    std::vector<std::pair<std::string, StreamVariant>> plan;
    for (std::size_t r : regions) plan.push_back({"baseline", StreamVariant{r}});
    for (std::size_t r : {16 * kMiB, l2x4}) {
        const StreamVariant base{r};
        for (int w : {4, 8}) { StreamVariant v = base; v.width = w; plan.push_back({"ofat_width", v}); }
        for (CacheOp op : {CacheOp::ca, CacheOp::nc}) { StreamVariant v = base; v.op = op; plan.push_back({"ofat_op", v}); }
        for (int u : {1, 8}) { StreamVariant v = base; v.unroll = u; plan.push_back({"ofat_unroll", v}); }
        for (int t : {256, 1024}) { StreamVariant v = base; v.threads = t; plan.push_back({"ofat_threads", v}); }
        for (int b : {1, 2, 8}) { StreamVariant v = base; v.blocks_per_sm = b; plan.push_back({"ofat_blocks", v}); }
    }
    for (CacheOp op : {CacheOp::cg, CacheOp::ca})
        for (int u : {4, 8})
            for (int b : {2, 4, 8})
                for (int t : {512, 1024}) {
                    StreamVariant v{16 * kMiB};
                    v.op = op;
                    v.unroll = u;
                    v.blocks_per_sm = b;
                    v.threads = t;
                    plan.push_back({"product", v});
                }

    Table& stream = s.table("stream", {"group", "region_mib", "width", "op", "unroll", "threads", "blocks_per_sm",
                                       "grid", "passes", "gib_per_run", "median_ms", "min_ms", "tbps", "gbps_per_sm"});
    std::set<std::string> measured;
    std::map<std::size_t, std::pair<double, std::string>> best;  // region -> (TB/s, variant)
    for (const auto& step : plan) {
        const std::string& group = step.first;
        const StreamVariant& v = step.second;  // a reference, not a structured binding: lambdas capture it
        if (!measured.insert(v.key()).second) continue;
        const ReadFn fn = read_fn(v.width, v.op, v.unroll);
        const unsigned grid = v.blocks_per_sm * gpu.sms;
        const unsigned passes = passes_for(v.region);
        const Timing t = time_launches([&] { fn<<<grid, v.threads>>>(data.get(), v.region, passes, sink.get()); });
        const double bytes = double(v.region) * passes;
        const double tbps = bytes / (t.median_ms * 1e-3) / 1e12;
        stream.add({group, mib(v.region), std::to_string(v.width), to_string(v.op), std::to_string(v.unroll),
                    std::to_string(v.threads), std::to_string(v.blocks_per_sm), std::to_string(grid),
                    std::to_string(passes), fixed(bytes / kGiB, 2), fixed(t.median_ms, 4), fixed(t.min_ms, 4),
                    fixed(tbps, 3), fixed(tbps * 1e3 / gpu.sms, 2)});
        auto& b = best[v.region];
        if (tbps > b.first) b = {tbps, v.label()};
    }
    progress("bandwidth: %zu stream variants done", measured.size());

    Table& best_table = s.table("best", {"region_mib", "best_variant", "tbps"});
    for (const auto& [region, b] : best) best_table.add({mib(region), b.second, fixed(b.first, 3)});

    Table& plain = s.table("plain_sum", {"region_mib", "grid", "threads", "passes", "median_ms", "tbps"});
    auto result = device_alloc<float>(1);
    for (std::size_t r : {16 * kMiB, l2x4}) {
        const unsigned grid = 4 * gpu.sms, passes = passes_for(r);
        CHECK(cudaMemset(data.get(), 0, r));  // floats of 0: the sum stays finite
        const Timing t = time_launches([&] {
            plain_sum_kernel<<<grid, 256>>>(reinterpret_cast<const float4*>(data.get()), r / 16, passes, result.get());
        });
        plain.add({mib(r), std::to_string(grid), "256", std::to_string(passes), fixed(t.median_ms, 4),
                   fixed(double(r) * passes / (t.median_ms * 1e-3) / 1e12, 3)});
    }
    progress("bandwidth: plain sum done");

    // Block-timed kernels: event time covers the launch and the untimed first pass; the in-kernel
    // span (globaltimer) and clock (clock64 / globaltimer per block) cover the timed loop only.
    // Passes are raised above the minimum so a timed loop lasts about a millisecond.
    constexpr double kTargetBytes = 32.0 * kGiB;
    const std::vector<std::string> block_columns = {
        "kind", "region_kib", "threads", "blocks_per_sm", "grid", "passes", "carveout", "occupancy_blocks_per_sm",
        "max_blocks_on_one_sm", "median_ms", "tbps_events", "tbps_in_kernel", "gbps_per_sm", "clock_ghz",
        "bytes_per_cycle_per_sm"};
    Table& l1 = s.table("l1", block_columns);
    Table& shared = s.table("shared", block_columns);
    const auto block_row = [&](Table& t, const char* kind, unsigned region_kib, int threads, int bpsm, unsigned grid,
                               unsigned passes, int carveout, int occupancy, const Timing& timing,
                               double bytes_events, const BlockTiming& b) {
        const double per_sm_gbps = b.aggregate_tbps * 1e3 / gpu.sms;
        t.add({kind, std::to_string(region_kib), std::to_string(threads), std::to_string(bpsm), std::to_string(grid),
               std::to_string(passes), std::to_string(carveout), std::to_string(occupancy),
               std::to_string(b.max_blocks_on_one_sm), fixed(timing.median_ms, 4),
               fixed(bytes_events / (timing.median_ms * 1e-3) / 1e12, 3), fixed(b.aggregate_tbps, 3),
               fixed(per_sm_gbps, 1), fixed(b.clock_ghz, 4), b.clock_ghz > 0 ? fixed(per_sm_gbps / b.clock_ghz, 2) : "-"});
    };

    const unsigned max_blocks = 2 * gpu.sms;
    auto block_stats = device_alloc<unsigned long long>(4 * max_blocks);
    std::vector<unsigned long long> host_stats(4 * max_blocks);
    const auto fetch_blocks = [&](unsigned grid, double bytes) {
        CHECK(cudaMemcpy(host_stats.data(), block_stats.get(), 4 * grid * sizeof(unsigned long long),
                         cudaMemcpyDeviceToHost));
        return summarize_blocks(host_stats, grid, bytes);
    };

    // L1: ask for the largest L1 (carveout 0) so the 128 KiB regions have room.
    constexpr int kL1Carveout = 0;
    CHECK(cudaFuncSetAttribute(l1_read_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, kL1Carveout));
    CHECK(cudaMemset(data.get(), 1, buffer_bytes));
    for (unsigned region_kib : {16u, 64u, 128u})
        for (int bpsm : {1, 2})
            for (int threads : {512, 1024}) {
                const unsigned grid = bpsm * gpu.sms;
                const std::size_t region = std::size_t(region_kib) * 1024;
                const unsigned passes = std::max(64u, static_cast<unsigned>(kTargetBytes / (double(region) * grid)));
                int occupancy = 0;
                CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, l1_read_kernel, threads, 0));
                const Timing t = time_launches([&] {
                    l1_read_kernel<<<grid, threads>>>(reinterpret_cast<const uint4*>(data.get()),
                                                      static_cast<unsigned>(region / 16), passes, block_stats.get(),
                                                      sink.get());
                });
                const double timed_bytes = double(region) * passes * grid;
                block_row(l1, "l1_ca", region_kib, threads, bpsm, grid, passes, kL1Carveout, occupancy, t,
                          double(region) * (passes + 1) * grid, fetch_blocks(grid, timed_bytes));
            }
    progress("bandwidth: L1 done");

    for (int bpsm : {1, 2})
        for (int threads : {512, 1024}) {
            const unsigned grid = bpsm * gpu.sms;
            const std::size_t region = kSharedBenchVecs * 16;
            const unsigned passes = std::max(256u, static_cast<unsigned>(kTargetBytes / (double(region) * grid)));
            int occupancy = 0;
            CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, shared_read_kernel, threads, 0));
            const Timing t =
                time_launches([&] { shared_read_kernel<<<grid, threads>>>(passes, block_stats.get(), sink.get()); });
            const double timed_bytes = double(region) * passes * grid;
            block_row(shared, "shared_v4", 32, threads, bpsm, grid, passes, -1, occupancy, t, timed_bytes,
                      fetch_blocks(grid, timed_bytes));
        }
    progress("bandwidth: shared done");
    emit_section(s, out_dir);
}

// ---------------------------------- Section E: nvml --------------------------------------------

// The few NVML declarations needed; no nvml.h, no link-time dependency (dlopen).
namespace nvml {
using Return = int;  // nvmlReturn_t
using Device = void*;  // nvmlDevice_t
constexpr Return kSuccess = 0;
constexpr Return kInsufficientSize = 7;
constexpr int kClockSm = 1;  // NVML_CLOCK_SM
struct Utilization {
    unsigned gpu;
    unsigned memory;
};
// The widest layout any of the three calls may write (v3 as the brief gives it, with the
// confidential-computing field). Entries are decoded with the stride of the call that filled them.
struct ProcessInfoWide {
    unsigned pid;
    unsigned long long usedGpuMemory;
    unsigned gpuInstanceId;
    unsigned computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
};
struct ProcessInfoV2 {
    unsigned pid;
    unsigned long long usedGpuMemory;
    unsigned gpuInstanceId;
    unsigned computeInstanceId;
};
struct ProcessInfoV1 {
    unsigned pid;
    unsigned long long usedGpuMemory;
};
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using GetCountFn = Return (*)(unsigned*);
using GetHandleFn = Return (*)(unsigned, Device*);
using GetUuidFn = Return (*)(Device, char*, unsigned);
using GetUtilizationFn = Return (*)(Device, Utilization*);
using GetProcessesFn = Return (*)(Device, unsigned*, void*);
using GetClockFn = Return (*)(Device, int, unsigned*);
}  // namespace nvml

struct DlClose {
    void operator()(void* handle) const noexcept { dlclose(handle); }
};

static std::string cuda_uuid_text(const cudaUUID_t& u) {
    char text[64];
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    std::snprintf(text, sizeof(text), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return text;
}

// Queries NVML and adds (phase, item, value) rows. `cuda_uuid` is empty before our context exists.
static void nvml_probe(Table& t, const std::string& phase, const std::string& cuda_uuid) {
    const auto row = [&](const std::string& item, const std::string& value) { t.add({phase, item, value}); };
    row("own_pid", std::to_string(getpid()));
    if (!cuda_uuid.empty()) row("cuda_uuid", cuda_uuid);
    std::unique_ptr<void, DlClose> lib(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL));
    if (!lib) {
        const char* why = dlerror();
        row("dlopen", std::string("failed: ") + (why ? why : "?"));
        return;
    }
    row("dlopen", "ok");
    const auto sym = [&](const char* name) { return dlsym(lib.get(), name); };
    const auto error_string = reinterpret_cast<nvml::ErrorStringFn>(sym("nvmlErrorString"));
    const auto describe = [&](nvml::Return r) {
        return std::to_string(r) + (error_string ? std::string(" ") + error_string(r) : std::string());
    };
    const auto init = reinterpret_cast<nvml::InitFn>(sym("nvmlInit_v2"));
    const auto shutdown = reinterpret_cast<nvml::ShutdownFn>(sym("nvmlShutdown"));
    if (!init || !shutdown) {
        row("symbols", "nvmlInit_v2 or nvmlShutdown missing");
        return;
    }
    nvml::Return r = init();
    row("nvmlInit_v2", describe(r));
    if (r != nvml::kSuccess) return;

    unsigned count = 0;
    if (auto get_count = reinterpret_cast<nvml::GetCountFn>(sym("nvmlDeviceGetCount_v2"))) {
        r = get_count(&count);
        row("nvmlDeviceGetCount_v2", r == nvml::kSuccess ? std::to_string(count) : describe(r));
    }
    nvml::Device device = nullptr;
    const auto get_handle = reinterpret_cast<nvml::GetHandleFn>(sym("nvmlDeviceGetHandleByIndex_v2"));
    r = get_handle ? get_handle(0, &device) : -1;
    row("nvmlDeviceGetHandleByIndex_v2(0)", r == nvml::kSuccess ? std::string("ok") : describe(r));
    if (r == nvml::kSuccess) {
        if (auto get_uuid = reinterpret_cast<nvml::GetUuidFn>(sym("nvmlDeviceGetUUID"))) {
            char uuid[128] = {};
            r = get_uuid(device, uuid, sizeof(uuid));
            row("uuid", r == nvml::kSuccess ? std::string(uuid) : describe(r));
            if (r == nvml::kSuccess && !cuda_uuid.empty()) row("uuid_matches_cuda_device", uuid == cuda_uuid ? "yes" : "no");
        }
        if (auto get_util = reinterpret_cast<nvml::GetUtilizationFn>(sym("nvmlDeviceGetUtilizationRates"))) {
            nvml::Utilization u{};
            r = get_util(device, &u);
            row("utilization_gpu_pct", r == nvml::kSuccess ? std::to_string(u.gpu) : describe(r));
            row("utilization_memory_pct", r == nvml::kSuccess ? std::to_string(u.memory) : describe(r));
        }
        if (auto get_clock = reinterpret_cast<nvml::GetClockFn>(sym("nvmlDeviceGetClockInfo"))) {
            unsigned mhz = 0;
            r = get_clock(device, nvml::kClockSm, &mhz);
            row("clock_sm_mhz", r == nvml::kSuccess ? std::to_string(mhz) : describe(r));
        }
        // Running compute processes: the newest entry point the library has.
        const std::pair<const char*, std::size_t> apis[] = {
            {"nvmlDeviceGetComputeRunningProcesses_v3", sizeof(nvml::ProcessInfoWide)},
            {"nvmlDeviceGetComputeRunningProcesses_v2", sizeof(nvml::ProcessInfoV2)},
            {"nvmlDeviceGetComputeRunningProcesses", sizeof(nvml::ProcessInfoV1)}};
        for (const auto& [name, stride] : apis) {
            const auto get_processes = reinterpret_cast<nvml::GetProcessesFn>(sym(name));
            if (!get_processes) continue;
            constexpr unsigned kCapacity = 64;
            std::vector<nvml::ProcessInfoWide> buffer(kCapacity);  // widest entries: no call can overrun it
            unsigned n = kCapacity;
            r = get_processes(device, &n, buffer.data());
            row("processes_api", name);
            row("processes_return", describe(r));
            if (r == nvml::kInsufficientSize) row("process_count", std::to_string(n) + " (more than " + std::to_string(kCapacity) + ")");
            if (r != nvml::kSuccess) break;
            row("process_count", std::to_string(n));
            // The _v3 layout is uncertain (nvml.h has shipped it with and without the 8-byte
            // usedGpuCcProtectedMemory field), so pids are decoded with both strides when it matters.
            const auto pids_at = [&](std::size_t entry_bytes) {
                std::string list;
                const auto* bytes = reinterpret_cast<const unsigned char*>(buffer.data());
                for (unsigned i = 0; i < std::min(n, kCapacity); ++i) {
                    unsigned pid;
                    std::memcpy(&pid, bytes + i * entry_bytes, sizeof(pid));
                    list += (list.empty() ? "" : " ") + std::to_string(pid);
                }
                return list;
            };
            row("pids", pids_at(stride));
            if (stride == sizeof(nvml::ProcessInfoWide) && n > 1)
                row("pids_if_v3_is_v2_sized", pids_at(sizeof(nvml::ProcessInfoV2)));
            const std::string own = std::to_string(getpid());
            const std::string listed = " " + pids_at(stride) + " ";
            row("own_pid_listed", listed.find(" " + own + " ") != std::string::npos ? "yes" : "no");
            break;
        }
    }
    row("nvmlShutdown", describe(shutdown()));
}

// ---------------------------------- Section F: load --------------------------------------------

// Streams the buffer with 16-byte loads and stores, pass after pass, until `duration_ns` of the
// block's own %globaltimer have passed. Adds the bytes it moved (read + written) to `bytes_moved`.
__global__ void __launch_bounds__(512) load_kernel(uint4* data, std::size_t count, unsigned long long duration_ns,
                                                   unsigned long long* bytes_moved) {
    const unsigned long long begin = global_ns();
    unsigned touched = 0;
    do {
        for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
             i += std::size_t(gridDim.x) * blockDim.x) {
            uint4 v = data[i];
            v.x += 1;
            data[i] = v;
            ++touched;
        }
    } while (global_ns() - begin < duration_ns);
    const unsigned warp_total = __reduce_add_sync(0xffffffffu, touched);
    if (threadIdx.x % 32 == 0) atomicAdd(bytes_moved, 32ull * warp_total);
}

static void run_load(const Gpu& gpu, double seconds) {
    constexpr std::size_t kBytes = kGiB;
    constexpr unsigned long long kKernelNs = 50'000'000;  // 50 ms per launch
    auto data = device_alloc<uint4>(kBytes / 16);
    CHECK(cudaMemset(data.get(), 0, kBytes));
    auto moved = device_alloc<unsigned long long>(1);
    CHECK(cudaMemset(moved.get(), 0, sizeof(unsigned long long)));
    progress("load: streaming 1 GiB read+write on every SM for %.1f s", seconds);
    const auto begin = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(); };
    unsigned launches = 0;
    while (elapsed() < seconds) {
        load_kernel<<<4 * gpu.sms, 512>>>(data.get(), kBytes / 16, kKernelNs, moved.get());
        CHECK_LAUNCH();
        ++launches;
    }
    const double total = elapsed();
    unsigned long long bytes = 0;
    CHECK(cudaMemcpy(&bytes, moved.get(), sizeof(bytes), cudaMemcpyDeviceToHost));
    std::printf("## load\nlaunches %u, seconds %.3f, bytes moved %.3e, achieved %.1f GB/s (read + write)\n\n",
                launches, total, double(bytes), double(bytes) / total / 1e9);
    std::fflush(stdout);
}

// ------------------------------------------------------------------------------------------------
// main
// ------------------------------------------------------------------------------------------------

static void usage() {
    std::fprintf(stderr,
                 "usage: explore_trust [--out DIR] [--only carveout,shape,overhead,bandwidth,nvml] [--load SECONDS]\n"
                 "  without --only, all sections but load run; --load alone runs only the load generator\n");
}

static Gpu open_gpu() {
    Gpu gpu;
    CHECK(cudaSetDevice(gpu.device));
    CHECK(cudaFree(nullptr));  // creates the context now
    CHECK(cudaGetDeviceProperties(&gpu.prop, gpu.device));
    gpu.sms = gpu.prop.multiProcessorCount;
    gpu.l2_bytes = static_cast<std::size_t>(gpu.prop.l2CacheSize);
    CHECK(cudaDeviceGetAttribute(&gpu.shared_optin_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu.device));
    gpu.uuid = cuda_uuid_text(gpu.prop.uuid);
    return gpu;
}

int main(int argc, char** argv) {
    const std::vector<std::string> all = {"carveout", "shape", "overhead", "bandwidth", "nvml"};
    std::set<std::string> sections;
    bool only_given = false;
    std::string out_dir;
    double load_seconds = 0;
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
            only_given = true;
            std::stringstream list(value());
            for (std::string name; std::getline(list, name, ',');) {
                if (std::find(all.begin(), all.end(), name) == all.end()) {
                    std::fprintf(stderr, "unknown section %s\n", name.c_str());
                    return 2;
                }
                sections.insert(name);
            }
        } else if (arg == "--load") {
            load_seconds = std::atof(value().c_str());
            if (load_seconds <= 0) {
                usage();
                return 2;
            }
        } else {
            usage();
            return arg == "--help" || arg == "-h" ? 0 : 2;
        }
    }
    if (!only_given && load_seconds <= 0) sections.insert(all.begin(), all.end());
    const auto wants = [&](const char* name) { return sections.count(name) > 0; };
    if (!out_dir.empty()) std::filesystem::create_directories(out_dir);

    // NVML before any CUDA call: what it sees while this process has no context.
    Section nvml_section{"nvml"};
    Table& nvml_table = nvml_section.table("nvml", {"phase", "item", "value"});
    if (wants("nvml")) nvml_probe(nvml_table, "before_context", "");

    const Gpu gpu = open_gpu();
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("# device: %s, cc %d.%d, %d SMs, L2 %zu B, shared/SM %zu B, shared opt-in/block %d B, reserved/block "
                "%zu B, %s, driver API %d, runtime %d\n\n",
                gpu.prop.name, gpu.prop.major, gpu.prop.minor, gpu.sms, gpu.l2_bytes, gpu.prop.sharedMemPerMultiprocessor,
                gpu.shared_optin_per_block, gpu.prop.reservedSharedMemPerBlock, gpu.uuid.c_str(), driver, runtime);
    progress("context on %s (%d SMs)", gpu.prop.name, gpu.sms);

    // The overhead section first: its first runs must see the SM clock as the program found it.
    if (wants("overhead")) section_overhead(gpu, out_dir);
    if (wants("carveout") || wants("shape")) {
        ChaseBench bench(gpu);
        if (wants("carveout")) {
            progress("carveout: start");
            section_carveout(gpu, bench, out_dir);
        }
        if (wants("shape")) {
            progress("shape: start");
            section_shape(gpu, bench, out_dir);
        }
    }
    if (wants("bandwidth")) {
        progress("bandwidth: start");
        section_bandwidth(gpu, out_dir);
    }
    if (wants("nvml")) {
        nvml_probe(nvml_table, "with_context", gpu.uuid);
        emit_section(nvml_section, out_dir);
    }
    if (load_seconds > 0) run_load(gpu, load_seconds);
    progress("done");
    return 0;
}
