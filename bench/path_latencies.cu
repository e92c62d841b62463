// path_latencies.cu: each load path's latency as a plain kernel of our own sees it, to check the
// probe's latencies side by side in one run. The probe times every load on its own (a clock read
// on each side, a dependent store between, the timer's overhead subtracted); here a chain of
// dependent loads is timed as a whole (one clock read before the first load, one after the last,
// cycles over loads: the method of Saavedra's and Wong et al.'s chases, and gpu-benches'
// gpu-latency), so nothing is subtracted and no store sits in the chain. The loads themselves are
// the probe's on purpose (the same PTX instruction per path, probe/kernels/pchase.cu): what is
// checked is the timing and the footprints, not which instruction a path takes (a plain C++ load
// compiles to another variant of LDG than ld.global.ca's). Standalone, not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 bench/path_latencies.cu -o /tmp/path_latencies
//   /tmp/path_latencies [--out DIR] [--runs N]
//   python3 bench/compare_path_latencies.py PROFILE.json DIR/latency.csv
//
// One thread chases a ring of elements 64 B apart, each holding the address (texture: the texel
// index) of the next, after two untimed passes, 4096 loads timed; the footprints are those the
// probe's rows name:
//   l1, readonly, texture   16 KiB (hits), 4 MiB (misses: sequential rings longer than the L1
//                           evict every line before its next use, and fit the near L2)
//   l2                      4 MiB, ld.global.cg
//   constant L1, L1.5       768 B and 6 KiB of __constant__ data (ld.const)
//   constant first touch    16 loads 512 B apart over __constant__ data the host has just copied,
//                           once each, as the probe's 16 first touches (its median; here their mean)
//   shared                  16 KiB of dynamic shared memory (ld.shared)
//   dsmem                   block 1 of a two-block cluster chases 4 KiB of block 0's shared
//                           memory (ld.shared::cluster; sm_90 and later)
// Each row: median, least and most cycles per load over --runs launches (default 9). A row that
// answers no quantity of the probe's (the constant chains through the uniform datapath) says "-".
#include "explore_common.cuh"

#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;
constexpr unsigned kElementBytes = 64;
constexpr unsigned kConstantBytes = 64 * KiB;  // the most __constant__ data one module may declare
constexpr unsigned kTimedLoads = 4096;
constexpr unsigned kWarmPasses = 2;

__constant__ unsigned long long constant_data[kConstantBytes / sizeof(unsigned long long)];

enum class Path { l1, l2, readonly, texture, constant, shared, dsmem };

template <Path P>
__device__ __forceinline__ unsigned long long next_of(unsigned long long at, cudaTextureObject_t texture) {
    unsigned long long next;
    if constexpr (P == Path::l1) {
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(at) : "memory");
    } else if constexpr (P == Path::l2) {
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(at) : "memory");
    } else if constexpr (P == Path::readonly) {
        asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(next) : "l"(at) : "memory");
    } else if constexpr (P == Path::texture) {
        next = tex1Dfetch<uint2>(texture, static_cast<int>(at)).x;
    } else if constexpr (P == Path::constant) {
        asm volatile("ld.const.u64 %0, [%1];" : "=l"(next) : "l"(at) : "memory");
    } else if constexpr (P == Path::shared) {
        unsigned word;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(word) : "r"(static_cast<unsigned>(at)) : "memory");
        next = word;
    } else {
        unsigned word;
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(word) : "r"(static_cast<unsigned>(at)) : "memory");
        next = word;
    }
    return next;
}

struct ChainArgs {
    unsigned long long start;  // first element: an address (texture: a texel index)
    unsigned elements;         // of the ring
    unsigned warm;             // untimed loads before the timed ones
    unsigned timed;
    cudaTextureObject_t texture;
    unsigned long long* out;   // [0] cycles of the timed loads, [1] the last element (keeps the chain)
};

// The lane's index: 0 for the thread that chases, but a value the compiler cannot prove the same in
// every thread. Added to the start, it keeps the per-thread loads the probe's chase compiles to:
// a chain of addresses the compiler sees as uniform goes to the uniform datapath instead (ULDC for
// constants, about 60 cycles a load against LDC's 29 on an H100), a row of its own below.
__device__ __forceinline__ unsigned lane() {
    unsigned id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

template <Path P, bool Uniform = false>
__device__ __forceinline__ void chain(unsigned long long at, const ChainArgs& a) {
    if constexpr (!Uniform) at += lane();
    for (unsigned i = 0; i < a.warm; ++i) at = next_of<P>(at, a.texture);
    const long long begin = sm_clock();
#pragma unroll 16
    for (unsigned i = 0; i < a.timed; ++i) at = next_of<P>(at, a.texture);
    const long long end = sm_clock();
    a.out[0] = static_cast<unsigned long long>(end - begin);
    a.out[1] = at;  // always stored: a test against an impossible value is dropped where the
                    // compiler sees a 32-bit result (shared addresses) can never equal it, and the chain with it
}

template <Path P, bool Uniform = false>
__global__ void chain_kernel(ChainArgs a) {
    if (threadIdx.x == 0) chain<P, Uniform>(a.start, a);
}

// The ring in this block's dynamic shared memory, linked by the block, chased by thread 0.
__global__ void shared_chain_kernel(ChainArgs a) {
    extern __shared__ unsigned ring[];
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(ring));
    const unsigned words = kElementBytes / sizeof(unsigned);
    for (unsigned i = threadIdx.x; i < a.elements; i += blockDim.x)
        ring[i * words] = base + ((i + 1) % a.elements) * kElementBytes;
    __syncthreads();
    if (threadIdx.x == 0) chain<Path::shared>(base, a);
}

// Block 0 of the cluster links a ring in its shared memory; block 1 chases it through the
// cluster window. Both wait at the end, so block 0's memory outlives the chase.
__global__ void dsmem_chain_kernel(ChainArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned ring[];
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(ring));
    unsigned in_block0;  // the cluster-window address of the same offset in block 0
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(in_block0) : "r"(local));
    const unsigned words = kElementBytes / sizeof(unsigned);
    if (rank == 0)
        for (unsigned i = threadIdx.x; i < a.elements; i += blockDim.x)
            ring[i * words] = in_block0 + ((i + 1) % a.elements) * kElementBytes;
    asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
    if (rank == 1 && threadIdx.x == 0) chain<Path::dsmem>(in_block0, a);
    asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
#else
    if (threadIdx.x == 0) a.out[0] = 0;  // no clusters before sm_90: reported as not measured
#endif
}

__global__ void constant_base_kernel(unsigned long long* out) {
    unsigned long long address;
    asm("cvta.to.const.u64 %0, %1;" : "=l"(address) : "l"(reinterpret_cast<unsigned long long>(constant_data)));
    *out = address;
}

struct Row {
    std::string what;
    std::string quantity;  // the profile's quantity the row checks (docs/quantities.md)
    std::size_t footprint;
    std::vector<double> cycles_per_load;
};

struct Runner {
    unsigned runs;
    DeviceArray<unsigned long long> out = device_alloc<unsigned long long>(2);

    // One launch per run; `before_each` prepares what a run needs (a fresh constant copy).
    template <typename Launch, typename Before>
    std::vector<double> time(unsigned timed, Launch launch, Before before_each) {
        std::vector<double> per_load;
        for (unsigned r = 0; r < runs; ++r) {
            before_each();
            launch();
            CHECK_LAUNCH();
            unsigned long long cycles = 0;
            CHECK(cudaMemcpy(&cycles, out.get(), sizeof(cycles), cudaMemcpyDeviceToHost));
            per_load.push_back(double(cycles) / timed);
        }
        return per_load;
    }
    template <typename Launch>
    std::vector<double> time(unsigned timed, Launch launch) {
        return time(timed, launch, [] {});
    }
};

ChainArgs args_for(unsigned long long start, unsigned elements, unsigned long long* out, bool first_touch = false) {
    ChainArgs a{};
    a.start = start;
    a.elements = elements;
    a.warm = first_touch ? 0 : kWarmPasses * elements;
    a.timed = first_touch ? elements : kTimedLoads;
    a.out = out;
    return a;
}

// Global rings: element i holds the address of element i + 1, 64 B apart; the texture's holds
// texel indices (8-byte texels).
void link_global(std::vector<unsigned long long>& host, unsigned long long base, unsigned elements, bool texels) {
    const unsigned step = kElementBytes / sizeof(unsigned long long);
    for (unsigned i = 0; i < elements; ++i) {
        const unsigned long long next = (i + 1) % elements;
        host[i * step] = texels ? next * step : base + next * kElementBytes;
    }
}

std::vector<Row> measure(unsigned runs, const cudaDeviceProp& prop) {
    Runner runner{runs};
    unsigned long long* out = runner.out.get();
    std::vector<Row> rows;

    // Global paths.
    const std::size_t global_bytes = 4 * MiB;
    auto buffer = device_alloc<unsigned long long>(global_bytes / sizeof(unsigned long long));
    const auto base = reinterpret_cast<unsigned long long>(buffer.get());
    std::vector<unsigned long long> host(global_bytes / sizeof(unsigned long long));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = buffer.get();
    resource.res.linear.desc = cudaCreateChannelDesc<uint2>();
    resource.res.linear.sizeInBytes = global_bytes;
    cudaTextureDesc texture_desc{};
    texture_desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t texture = 0;
    CHECK(cudaCreateTextureObject(&texture, &resource, &texture_desc, nullptr));

    struct GlobalCase {
        const char* what;
        const char* quantity;
        Path path;
        std::size_t footprint;
    };
    const GlobalCase global_cases[] = {
        {"ld.global.ca, hits", "L1_LATENCY_CYCLES", Path::l1, 16 * KiB},
        {"ld.global.ca, L1 misses", "L1_MISS_LATENCY_CYCLES", Path::l1, 4 * MiB},
        {"ld.global.cg", "L2_NEAR_LATENCY_CYCLES", Path::l2, 4 * MiB},
        {"ld.global.nc, hits", "READONLY_LATENCY_CYCLES", Path::readonly, 16 * KiB},
        {"ld.global.nc, misses", "READONLY_MISS_LATENCY_CYCLES", Path::readonly, 4 * MiB},
        {"tex1Dfetch, hits", "TEXTURE_LATENCY_CYCLES", Path::texture, 16 * KiB},
        {"tex1Dfetch, misses", "TEXTURE_MISS_LATENCY_CYCLES", Path::texture, 4 * MiB},
    };
    for (const auto& c : global_cases) {
        const unsigned elements = static_cast<unsigned>(c.footprint / kElementBytes);
        const bool texels = c.path == Path::texture;
        link_global(host, base, elements, texels);
        CHECK(cudaMemcpy(buffer.get(), host.data(), c.footprint, cudaMemcpyHostToDevice));
        ChainArgs a = args_for(texels ? 0 : base, elements, out);
        a.texture = texture;
        const auto launch = [&] {
            switch (c.path) {
                case Path::l1: chain_kernel<Path::l1><<<1, 32>>>(a); break;
                case Path::l2: chain_kernel<Path::l2><<<1, 32>>>(a); break;
                case Path::readonly: chain_kernel<Path::readonly><<<1, 32>>>(a); break;
                default: chain_kernel<Path::texture><<<1, 32>>>(a); break;
            }
        };
        rows.push_back({c.what, c.quantity, c.footprint, runner.time(a.timed, launch)});
        progress("%s, %zu KiB", c.what, c.footprint / KiB);
    }
    CHECK(cudaDestroyTextureObject(texture));

    // Constant rings, chased through .const addresses.
    auto constant_base_out = device_alloc<unsigned long long>(1);
    constant_base_kernel<<<1, 1>>>(constant_base_out.get());
    CHECK_LAUNCH();
    unsigned long long constant_base = 0;
    CHECK(cudaMemcpy(&constant_base, constant_base_out.get(), sizeof(constant_base), cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> constant_host(kConstantBytes / sizeof(unsigned long long));
    for (const auto& [what, quantity, footprint] :
         {std::tuple{"ld.const, constant L1 hits", "CONSTANT_L1_LATENCY_CYCLES", std::size_t(768)},
          std::tuple{"ld.const, constant L1.5 hits", "CONSTANT_L15_LATENCY_CYCLES", std::size_t(6 * KiB)}}) {
        const unsigned elements = static_cast<unsigned>(footprint / kElementBytes);
        link_global(constant_host, constant_base, elements, false);
        CHECK(cudaMemcpyToSymbol(constant_data, constant_host.data(), footprint));
        const ChainArgs a = args_for(constant_base, elements, out);
        rows.push_back({what, quantity, footprint,
                        runner.time(a.timed, [&] { chain_kernel<Path::constant><<<1, 32>>>(a); })});
        rows.push_back({std::string(what) + ", uniform addresses (the uniform datapath)", "-", footprint,
                        runner.time(a.timed, [&] { chain_kernel<Path::constant, true><<<1, 32>>>(a); })});
        progress("%s, %zu B", what, footprint);
    }
    // First touches: 16 loads 512 B apart (more than any constant line) from 48 KiB on, where no
    // ring above reached, copied again before each run.
    {
        const unsigned stride = 512, first = 48 * KiB, elements = 16;
        for (unsigned i = 0; i < elements; ++i)
            constant_host[(first + i * stride) / sizeof(unsigned long long)] =
                constant_base + first + ((i + 1) % elements) * stride;
        const ChainArgs a = args_for(constant_base + first, elements, out, true);
        const auto copy = [&] {
            CHECK(cudaMemcpyToSymbol(constant_data, constant_host.data() + first / sizeof(unsigned long long),
                                     kConstantBytes - first, first));
        };
        rows.push_back({"ld.const, first touches of copied data", "CONSTANT_L15_MISS_LATENCY_CYCLES",
                        std::size_t(elements) * stride,
                        runner.time(a.timed, [&] { chain_kernel<Path::constant><<<1, 32>>>(a); }, copy)});
        progress("constant first touches, %u of them, %u B apart", elements, stride);
    }

    // Shared memory.
    {
        const std::size_t footprint = 16 * KiB;
        const ChainArgs a = args_for(0, static_cast<unsigned>(footprint / kElementBytes), out);
        rows.push_back({"ld.shared", "SHARED_LATENCY_CYCLES", footprint,
                        runner.time(a.timed, [&] { shared_chain_kernel<<<1, 32, footprint>>>(a); })});
        progress("shared, %zu KiB", footprint / KiB);
    }

    // Distributed shared memory.
    if (prop.major >= 9) {
        const std::size_t footprint = 4 * KiB;
        const ChainArgs a = args_for(0, static_cast<unsigned>(footprint / kElementBytes), out);
        cudaLaunchConfig_t config{};
        config.gridDim = dim3(2);
        config.blockDim = dim3(32);
        config.dynamicSmemBytes = footprint;
        cudaLaunchAttribute cluster{};
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = 2;
        cluster.val.clusterDim.y = 1;
        cluster.val.clusterDim.z = 1;
        config.attrs = &cluster;
        config.numAttrs = 1;
        rows.push_back({"ld.shared::cluster, the other block's memory", "DSMEM_LATENCY_CYCLES", footprint,
                        runner.time(a.timed, [&] { CHECK(cudaLaunchKernelEx(&config, dsmem_chain_kernel, a)); })});
        progress("dsmem, %zu KiB", footprint / KiB);
    } else {
        progress("dsmem: no clusters before cc 9.0, not measured");
    }
    return rows;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_dir;
    unsigned runs = 9;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
        else if (a == "--runs" && i + 1 < argc) runs = static_cast<unsigned>(std::stoul(argv[++i]));
        else {
            std::fprintf(stderr, "usage: path_latencies [--out DIR] [--runs N]\n");
            return 2;
        }
    }
    if (runs == 0) {
        std::fprintf(stderr, "path_latencies: --runs must be at least 1\n");
        return 2;
    }
    const cudaDeviceProp prop = open_device("path_latencies");

    Section section("latency");
    Table& table = section.table("latency", {"quantity", "footprint_bytes", "runs", "median", "least", "most", "what"});
    for (const Row& row : measure(runs, prop)) {
        const auto [least, most] = std::minmax_element(row.cycles_per_load.begin(), row.cycles_per_load.end());
        table.add({row.quantity, std::to_string(row.footprint), std::to_string(row.cycles_per_load.size()),
                   fixed(median_of(row.cycles_per_load), 1), fixed(*least, 1), fixed(*most, 1), row.what});
    }
    emit_section(section, out_dir);
    progress("done");
    return 0;
}
