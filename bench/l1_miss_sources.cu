// l1_miss_sources.cu: why the probe's L1 ring misses before an independent chase's (issue 18,
// runs 42-43). Standalone, not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 bench/l1_miss_sources.cu -o /tmp/l1_miss_sources
//   /tmp/l1_miss_sources [--out DIR] [--only-stores | --only-setting]
//
// Part 1 (stores):
// One thread chases a sequential ring (128 B apart, ld.global.ca, as the probe's L1 questions do)
// `warm` passes untimed, then times a window of the next pass: its first min(1024, n) loads, the
// loads the probe records. Then it walks the rest of that pass bare and times the same window of
// the pass after (window 2). Each mode adds to every load of window 1 one thing the probe's timed
// loop does:
//   bare        nothing (the chase of bench/user_kernels.cu)
//   stcg        a st.global.cg of the loaded value to a sample array (the probe stores each sample so)
//   noalloc     the same store as st.global.L1::no_allocate
//   volatile    a volatile global store to one address (the plain chase kernel's timer dependency)
//   probe       two clock reads, the shared dependency store, the st.global.cg sample (probe kernel)
//   plain       two clock reads, the volatile global dependency store, the st.global.cg sample
// Kernel kinds: none (no shared memory) and static (16 B of static shared memory, like the
// probe's; only the `probe` mode uses the array, so in the other modes the compiler drops it and
// the "static" kernels have none, as run 44's table shows). Launches: carveout 0 % with 32
// threads, 75 % with 1024 threads (launch attribute).
// The table: mean cycles per load of each window, median of 3 launches, footprints around the
// split's end, and the all-hit 8 KiB ring's for reference.
// Part 2 (setting): the bare chase with its carveout given once per function (a fresh instance,
// as bench/user_kernels.cu does) or per launch (one instance, as the probe does), rings in address
// and in random order, 1 KiB steps, 5 launches each, every window whole passes of at least 1024
// loads (the 8 KiB reference ring's too: run 45 timed its one 64-load pass, which inflated it by 8 %;
// run 61 repeated it so); and where the chase's rule ends.
#include "explore_common.cuh"

#include <cstring>
#include <iterator>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t KiB = 1024;
constexpr unsigned kWindow = 1024;

enum Mode : int { bare, stcg, noalloc, volatile_store, probe_loop, plain_loop };
const char* const kModeNames[] = {"bare", "stcg", "noalloc", "volatile", "probe", "plain"};

__device__ __forceinline__ unsigned long long load_ca(unsigned long long address) {
    unsigned long long v;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
}

__device__ __forceinline__ void store_no_allocate(unsigned* address, unsigned value) {
    asm volatile("st.global.L1::no_allocate.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

struct Args {
    unsigned long long start;
    unsigned elements;
    unsigned warm_passes;
    unsigned window;             // loads timed per window: part 1 the probe's (one pass, at most
                                 // kWindow), part 2 whole passes, at least kWindow (the reference too)
    unsigned* samples;           // kWindow
    unsigned long long* out;     // [0] window 1 cycles, [1] window 2 cycles, [2] dependency, [3] sink
};

template <int M>
__device__ void walk(const Args& a, volatile unsigned* shared_dependency) {
    unsigned long long p = a.start;
    for (unsigned long long i = 0; i < 1ull * a.warm_passes * a.elements; ++i) p = load_ca(p);
    const unsigned window = a.window;
    volatile unsigned* global_dependency = reinterpret_cast<volatile unsigned*>(a.out + 2);

    const long long t0 = sm_clock();
    for (unsigned i = 0; i < window; ++i) {
        if constexpr (M == probe_loop || M == plain_loop) {
            const long long before = sm_clock();
            p = load_ca(p);
            if constexpr (M == probe_loop) *shared_dependency = static_cast<unsigned>(p);
            else *global_dependency = static_cast<unsigned>(p);
            const long long after = sm_clock();
            __stcg(a.samples + i, static_cast<unsigned>(after - before));
        } else {
            p = load_ca(p);
            if constexpr (M == stcg) __stcg(a.samples + i, static_cast<unsigned>(p));
            if constexpr (M == noalloc) store_no_allocate(a.samples + i, static_cast<unsigned>(p));
            if constexpr (M == volatile_store) *global_dependency = static_cast<unsigned>(p);
        }
    }
    *global_dependency = static_cast<unsigned>(p);  // the window ends when its last load returned
    const long long t1 = sm_clock();
    for (unsigned i = window; i < a.elements; ++i) p = load_ca(p);

    const long long t2 = sm_clock();
    for (unsigned i = 0; i < window; ++i) p = load_ca(p);
    *global_dependency = static_cast<unsigned>(p);
    const long long t3 = sm_clock();
    a.out[0] = static_cast<unsigned long long>(t1 - t0);
    a.out[1] = static_cast<unsigned long long>(t3 - t2);
    if (p == 1) a.out[3] = p;
}

template <int M>
__global__ void kernel_none(Args a) {
    if (threadIdx.x == 0) walk<M>(a, nullptr);
}

// Part 2: instances of the bare chase, each given its carveout once (function attribute) or
// per launch (launch attribute).
template <int Slot>
__global__ void bare_instance(Args a) {
    if (threadIdx.x == 0) walk<bare>(a, nullptr);
}
template <int... Slots>
std::vector<void (*)(Args)> bare_instances(std::integer_sequence<int, Slots...>) {
    return {&bare_instance<Slots>...};
}

template <int M>
__global__ void kernel_static(Args a) {
    __shared__ volatile unsigned dependency[4];
    if (threadIdx.x == 0) walk<M>(a, dependency);
}

using KernelFn = void (*)(Args);

const KernelFn kNone[] = {kernel_none<bare>, kernel_none<stcg>, kernel_none<noalloc>,
                          kernel_none<volatile_store>, nullptr, kernel_none<plain_loop>};
const KernelFn kStatic[] = {kernel_static<bare>, kernel_static<stcg>, kernel_static<noalloc>,
                            kernel_static<volatile_store>, kernel_static<probe_loop>, nullptr};

// Whether fn stores one sample per timed load of window 1 (into Args::samples, kWindow long).
bool stores_samples(KernelFn fn) {
    for (const int mode : {stcg, noalloc, probe_loop, plain_loop})
        if (fn == kNone[mode] || fn == kStatic[mode]) return true;
    return false;
}

struct Ring {
    DeviceArray<unsigned long long> data;
    std::size_t capacity;  // bytes
};

// A ring of bytes / 128 elements 128 B apart, in address order (or a random one); returns its start.
unsigned long long link_ring(Ring& ring, std::size_t bytes, bool random) {
    if (bytes > ring.capacity) throw std::invalid_argument("a ring larger than its buffer");
    const std::size_t n = bytes / 128;
    std::vector<unsigned> order(n);
    std::iota(order.begin(), order.end(), 0u);
    if (random) std::shuffle(order.begin(), order.end(), std::mt19937(1234u + unsigned(n)));
    std::vector<unsigned long long> host(bytes / 8, 0);
    const auto base = reinterpret_cast<unsigned long long>(ring.data.get());
    for (std::size_t i = 0; i < n; ++i) host[order[i] * 16] = base + order[(i + 1) % n] * 128;
    CHECK(cudaMemcpy(ring.data.get(), host.data(), bytes, cudaMemcpyHostToDevice));
    return base + order[0] * 128;
}

struct Windows {
    double first = 0, second = 0;
};

struct Timing {
    Windows median, worst;
};

// How a window is laid out: part 1 times the probe's window (the first kWindow loads of a pass, or
// the pass); part 2 whole passes of at least kWindow loads, so that the fixed cost of closing a window
// weighs alike on the 8 KiB reference ring (64 loads a pass) and on the rings it is compared with.
enum class Window { probe, whole_passes };

// `launch_carveout` >= 0: given per launch (cudaLaunchAttributePreferredSharedMemoryCarveout);
// < 0: none given (the function's attribute, if set, applies).
Timing time_windows(KernelFn fn, int launch_carveout, unsigned threads, unsigned warm, Ring& ring, std::size_t bytes,
                    DeviceArray<unsigned>& samples, DeviceArray<unsigned long long>& out, int launches = 3,
                    Window layout = Window::probe, bool random = false) {
    const auto elements = static_cast<unsigned>(bytes / 128);
    const unsigned window = layout == Window::probe ? std::min(elements, kWindow)
                                                    : (kWindow + elements - 1) / elements * elements;
    // Whole-pass windows run past kWindow (1600 loads at 200 KiB); only kernels that store no
    // samples may time them, or the stores would run off the end of the device array.
    if (stores_samples(fn) && window > kWindow) {
        std::fprintf(stderr, "l1_miss_sources: a window of %u loads (%zu B ring) stores %u samples, more than kWindow = %u\n",
                     window, bytes, window, kWindow);
        std::exit(1);
    }
    const Args args{link_ring(ring, bytes, random), elements, warm, window, samples.get(), out.get()};
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1);
    config.blockDim = dim3(threads);
    cudaLaunchAttribute attribute{};
    if (launch_carveout >= 0) {
        attribute.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
        attribute.val.sharedMemCarveout = static_cast<unsigned>(launch_carveout);
        config.attrs = &attribute;
        config.numAttrs = 1;
    }
    std::vector<double> first, second;
    for (int rep = 0; rep < launches; ++rep) {
        CHECK(cudaLaunchKernelEx(&config, fn, args));
        CHECK_LAUNCH();
        unsigned long long host[2];
        CHECK(cudaMemcpy(host, out.get(), sizeof host, cudaMemcpyDeviceToHost));
        first.push_back(double(host[0]) / window);
        second.push_back(double(host[1]) / window);
    }
    return {{median_of(first), median_of(second)},
            {*std::max_element(first.begin(), first.end()), *std::max_element(second.begin(), second.end())}};
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_dir;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];

    Ring ring{device_alloc<unsigned long long>(320 * KiB / 8), 320 * KiB};
    bool stores = true, setting = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--only-stores")) setting = false;
        if (!std::strcmp(argv[i], "--only-setting")) stores = false;
    }
    auto samples = device_alloc<unsigned>(kWindow);
    auto out = device_alloc<unsigned long long>(4);
    CHECK(cudaMemset(out.get(), 0, 4 * sizeof(unsigned long long)));

    struct Split {
        int carveout;
        unsigned threads;
        std::vector<std::size_t> kib;
    };
    std::vector<std::size_t> wide, narrow;
    for (std::size_t k = 200; k <= 256; k += 4) wide.push_back(k);
    for (std::size_t k = 38; k <= 62; k += 2) narrow.push_back(k);
    const Split splits[] = {{0, 32, wide}, {75, 1024, narrow}};
    constexpr int kOrders = 2;  // part 2's rings: sequential, random

    Section section("l1_miss_sources");
    Table& all = section.table("window cycles", {"kind", "mode", "carveout", "threads", "warm_passes",
                                                  "footprint_kib", "window1_cycles", "window2_cycles"});
    all.print = false;
    // Warm the SM clock before anything is timed.
    for (int i = 0; i < 20; ++i) time_windows(kNone[bare], 0, 32, 2, ring, 64 * KiB, samples, out);
    for (const auto& split : splits)
        for (int kind = 0; kind < 2 && stores; ++kind) {
            const char* kind_name = kind ? "static" : "none";
            std::vector<std::size_t> sizes{8};
            sizes.insert(sizes.end(), split.kib.begin(), split.kib.end());
            // Printed: one row per footprint, "window 1 / window 2" per mode and warm passes.
            std::vector<std::string> columns{"footprint_kib"};
            std::vector<std::vector<std::string>> cells(sizes.size());
            for (std::size_t s = 0; s < sizes.size(); ++s) cells[s].push_back(std::to_string(sizes[s]));
            for (int mode = 0; mode < 6; ++mode) {
                const KernelFn fn = (kind == 0 ? kNone : kStatic)[mode];
                if (!fn) continue;
                for (unsigned warm : {1u, 2u}) {
                    progress("carveout %d, %s, %s, warm %u", split.carveout, kind_name, kModeNames[mode], warm);
                    columns.push_back(std::string(kModeNames[mode]) + "/w" + std::to_string(warm));
                    for (std::size_t s = 0; s < sizes.size(); ++s) {
                        const auto w = time_windows(fn, split.carveout, split.threads, warm, ring, sizes[s] * KiB, samples,
                                                    out).median;
                        all.add({kind_name, kModeNames[mode], std::to_string(split.carveout),
                                 std::to_string(split.threads), std::to_string(warm), std::to_string(sizes[s]),
                                 fixed(w.first, 2), fixed(w.second, 2)});
                        cells[s].push_back(fixed(w.first, 1) + "/" + fixed(w.second, 1));
                    }
                }
            }
            Table& pivot = section.table("carveout " + std::to_string(split.carveout) + " %, " +
                                             std::to_string(split.threads) + " threads, kind " + kind_name,
                                         columns);
            pivot.csv = false;
            for (auto& row : cells) pivot.add(std::move(row));
        }

    // Part 2: the bare chase (2 warm passes, windows of whole passes, at least 1024 loads), carveout
    // set per function on a fresh instance or per launch on one shared instance, rings in address and
    // in random order, 5 launches a footprint (median and slowest); and each column's answer by the
    // chase's rule (bench/user_kernels.cu: mean within 10 % of the 8 KiB ring's). Instances: one per
    // split and order for the function attribute, and the shared one.
    constexpr int kInstances = int(std::size(splits)) * kOrders + 1;
    auto fresh = bare_instances(std::make_integer_sequence<int, kInstances>{});
    const KernelFn shared_instance = fresh.back();
    fresh.pop_back();
    Table& curves = section.table("carveout setting", {"setting", "order", "carveout", "threads", "footprint_kib",
                                                       "median_cycles", "slowest_cycles"});
    curves.print = false;
    Table& answers = section.table("answers by the chase's rule (mean within 10 % of the 8 KiB ring's)",
                                   {"setting", "order", "carveout", "threads", "hit_cycles", "last_fitting_kib",
                                    "first_missing_kib"});
    for (const auto& split : splits) {
        if (!setting) break;
        std::vector<std::size_t> sizes;
        const std::size_t from = split.kib.front(), to = split.kib.back();
        for (std::size_t k = from; k <= to; ++k) sizes.push_back(k);
        for (int random = 0; random < kOrders; ++random)
            for (int per_launch = 0; per_launch < 2; ++per_launch) {
                KernelFn fn = shared_instance;
                if (!per_launch) {
                    fn = fresh.back();
                    fresh.pop_back();
                    CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, split.carveout));
                }
                const int launch_carveout = per_launch ? split.carveout : -1;
                const std::string setting_name = per_launch ? "launch attribute" : "function attribute";
                const std::string order = random ? "random" : "sequential";
                progress("carveout %d, %s, %s", split.carveout, setting_name.c_str(), order.c_str());
                const double hit = time_windows(fn, launch_carveout, split.threads, 2, ring, 8 * KiB, samples, out, 5,
                                                Window::whole_passes, random)
                                       .median.first;
                std::size_t last_fitting = 0, first_missing = 0;
                for (std::size_t k : sizes) {
                    const auto t = time_windows(fn, launch_carveout, split.threads, 2, ring, k * KiB, samples, out, 5,
                                                Window::whole_passes, random);
                    curves.add({setting_name, order, std::to_string(split.carveout), std::to_string(split.threads),
                                std::to_string(k), fixed(t.median.first, 2), fixed(t.worst.first, 2)});
                    if (t.median.first <= 1.10 * hit) {
                        if (!first_missing) last_fitting = k;
                    } else if (!first_missing) {
                        first_missing = k;
                    }
                }
                answers.add({setting_name, order, std::to_string(split.carveout), std::to_string(split.threads),
                             fixed(hit, 1), std::to_string(last_fitting), std::to_string(first_missing)});
            }
    }
    emit_section(section, out_dir);
    return 0;
}
