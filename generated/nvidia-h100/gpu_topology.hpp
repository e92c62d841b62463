/* gpu_topology.hpp: the memory hierarchy of one GPU, from a profile that
 * gpu-topology-probe measured on it (or a stored profile of another GPU:
 * GPU_TOPOLOGY_PROFILE_IS_STORED says which). Generated; do not edit.
 *
 * Every fact is a gpu_topology::known<T> that converts to T, or, where the
 * probe could not measure it, a gpu_topology::unknown<T, not_measured::NAME>
 * that converts to nothing: code that computes with an unmeasured value does
 * not compile, and the compiler's message names the quantity. Ask for a
 * fallback explicitly with `.value_or(x)`; `#ifdef GPU_TOPOLOGY_<NAME>` tells
 * the preprocessor whether a value is known. C++17, host and device code; the
 * macros alone from C.
 *
 * This file is data: the facts of one profile, in gpu_topology's inline
 * namespace GPU_TOPOLOGY_PROFILE_NS (gpu_topology::l1 names gpu_topology::p_...::l1),
 * so two profiles linked into one program never share a definition. The types
 * and helpers are GPUTopology's static headers, <gpu_topology/...>, the same for
 * every GPU; the helpers that read facts open this namespace too.
 */
#if defined(GPU_TOPOLOGY_HPP) && !defined(GPU_TOPOLOGY_PROFILE_p_f1c811c91fb1fde1)
#error "this translation unit already includes the gpu_topology.hpp of another profile: one translation unit holds the facts of one GPU; compile each GPU's code in a translation unit of its own and link them"
#endif
#ifndef GPU_TOPOLOGY_HPP
#define GPU_TOPOLOGY_HPP
#define GPU_TOPOLOGY_PROFILE_p_f1c811c91fb1fde1 1

#define GPU_TOPOLOGY_SCHEMA "gpu-topology/2"
#define GPU_TOPOLOGY_PROBE_VERSION "1.3.0"
#define GPU_TOPOLOGY_DEVICE_NAME "NVIDIA H100 80GB HBM3"
#define GPU_TOPOLOGY_DEVICE_UUID "GPU-a3176e8a-82bd-592d-dfa7-cecd46ede96b"
#define GPU_TOPOLOGY_PROFILE_SOURCE "stored:nvidia-h100.json"
#define GPU_TOPOLOGY_PROFILE_HASH "fnv1a64:d9b63cc1e1b450f1"
#define GPU_TOPOLOGY_PROFILE_IS_STORED 1
/* The namespace of these facts: p_ and a hash of this header, so a header that
 * differs in anything names another. */
#define GPU_TOPOLOGY_PROFILE_NS p_f1c811c91fb1fde1

/* One macro per known quantity; <NAME>_IS_LOWER_BOUND when only a lower bound is
 * known, <NAME>_UNMEASURED when it is not known at all. */
#define GPU_TOPOLOGY_SM_COUNT 132
#define GPU_TOPOLOGY_CC_MAJOR 9
#define GPU_TOPOLOGY_CC_MINOR 0
#define GPU_TOPOLOGY_SM_CLOCK_MAX_KHZ 1980000
#define GPU_TOPOLOGY_SM_CLOCK_KHZ 1979927
#define GPU_TOPOLOGY_MAX_THREADS_PER_SM 2048
#define GPU_TOPOLOGY_MAX_BLOCKS_PER_SM 32
#define GPU_TOPOLOGY_REGISTERS_PER_SM 65536
#define GPU_TOPOLOGY_L1_SIZE_BYTES 248832
#define GPU_TOPOLOGY_L1_SIZE_DEFAULT_CARVEOUT_BYTES 191488
#define GPU_TOPOLOGY_L1_SIZE_MAX_SHARED_CARVEOUT_BYTES 21504
#define GPU_TOPOLOGY_L1_LINE_BYTES 128
#define GPU_TOPOLOGY_L1_SECTOR_BYTES 32
#define GPU_TOPOLOGY_L1_LATENCY_CYCLES 32
#define GPU_TOPOLOGY_L1_MISS_LATENCY_CYCLES 269
#define GPU_TOPOLOGY_L1_MISS_PENALTY_CYCLES 237
#define GPU_TOPOLOGY_L1_PER_SM 1
#define GPU_TOPOLOGY_L1_SETS_UNMEASURED 1
#define GPU_TOPOLOGY_L1_WAYS_UNMEASURED 1
#define GPU_TOPOLOGY_L1_BANDWIDTH_BYTES_PER_S 32599051801529
#define GPU_TOPOLOGY_TEXTURE_SIZE_BYTES 248832
#define GPU_TOPOLOGY_TEXTURE_LINE_BYTES_UNMEASURED 1
#define GPU_TOPOLOGY_TEXTURE_SECTOR_BYTES 32
#define GPU_TOPOLOGY_TEXTURE_LATENCY_CYCLES 92
#define GPU_TOPOLOGY_TEXTURE_MISS_LATENCY_CYCLES 318
#define GPU_TOPOLOGY_TEXTURE_MISS_PENALTY_CYCLES 227
#define GPU_TOPOLOGY_TEXTURE_PER_SM 1
#define GPU_TOPOLOGY_READONLY_SIZE_BYTES 248832
#define GPU_TOPOLOGY_READONLY_LINE_BYTES 128
#define GPU_TOPOLOGY_READONLY_SECTOR_BYTES 32
#define GPU_TOPOLOGY_READONLY_LATENCY_CYCLES 32
#define GPU_TOPOLOGY_READONLY_MISS_LATENCY_CYCLES 269
#define GPU_TOPOLOGY_READONLY_MISS_PENALTY_CYCLES 237
#define GPU_TOPOLOGY_READONLY_PER_SM 1
#define GPU_TOPOLOGY_CONSTANT_SIZE_BYTES 65536
#define GPU_TOPOLOGY_CONSTANT_L1_SIZE_BYTES 1536
#define GPU_TOPOLOGY_CONSTANT_L1_LINE_BYTES_UNMEASURED 1
#define GPU_TOPOLOGY_CONSTANT_L1_SECTOR_BYTES 64
#define GPU_TOPOLOGY_CONSTANT_L1_LATENCY_CYCLES 28
#define GPU_TOPOLOGY_CONSTANT_L1_MISS_PENALTY_CYCLES 70
#define GPU_TOPOLOGY_CONSTANT_L1_PER_SM 1
#define GPU_TOPOLOGY_CONSTANT_L15_SIZE_BYTES 65536
#define GPU_TOPOLOGY_CONSTANT_L15_SIZE_BYTES_IS_LOWER_BOUND 1
#define GPU_TOPOLOGY_CONSTANT_L15_SECTOR_BYTES 256
#define GPU_TOPOLOGY_CONSTANT_L15_LATENCY_CYCLES 98
#define GPU_TOPOLOGY_CONSTANT_L15_MISS_LATENCY_CYCLES 402
#define GPU_TOPOLOGY_CONSTANT_L15_MISS_PENALTY_CYCLES 304
#define GPU_TOPOLOGY_SHARED_SIZE_PER_SM_BYTES 233472
#define GPU_TOPOLOGY_SHARED_PER_BLOCK_OPTIN_BYTES 232448
#define GPU_TOPOLOGY_SHARED_RESERVED_PER_BLOCK_BYTES 1024
#define GPU_TOPOLOGY_SHARED_LATENCY_CYCLES 23
#define GPU_TOPOLOGY_SHARED_BANKS 32
#define GPU_TOPOLOGY_SHARED_BANK_BYTES 4
#define GPU_TOPOLOGY_SHARED_CONFLICT_LATENCY_CYCLES 2
#define GPU_TOPOLOGY_SHARED_CONFLICT_ISSUE_CYCLES 1
#define GPU_TOPOLOGY_SHARED_BANDWIDTH_BYTES_PER_S 32878255720054
#define GPU_TOPOLOGY_L2_SIZE_BYTES 52428800
#define GPU_TOPOLOGY_L2_PERSISTING_MAX_BYTES 32768000
#define GPU_TOPOLOGY_L2_NEAR_SIZE_BYTES 25165824
#define GPU_TOPOLOGY_L2_LINE_BYTES 128
#define GPU_TOPOLOGY_L2_DRAM_FETCH_BYTES 64
#define GPU_TOPOLOGY_L2_NEAR_LATENCY_CYCLES 270
#define GPU_TOPOLOGY_L2_FAR_LATENCY_CYCLES 496
#define GPU_TOPOLOGY_L2_MISS_PENALTY_CYCLES 417
#define GPU_TOPOLOGY_L2_BANDWIDTH_BYTES_PER_S 8690292954105
#define GPU_TOPOLOGY_DRAM_SIZE_BYTES 85017493504
#define GPU_TOPOLOGY_DRAM_LATENCY_CYCLES 687
#define GPU_TOPOLOGY_DRAM_BANDWIDTH_BYTES_PER_S 3139244034140
#define GPU_TOPOLOGY_CLUSTER_MAX_BLOCKS 16
#define GPU_TOPOLOGY_DSMEM_LATENCY_CYCLES 192
#define GPU_TOPOLOGY_DSMEM_BANDWIDTH_BYTES_PER_S 4023605444751
#define GPU_TOPOLOGY_TLB_ENTRIES 15
#define GPU_TOPOLOGY_TLB_COVERAGE_BYTES 16777216
#define GPU_TOPOLOGY_TLB_REACH_BYTES 251658240
#define GPU_TOPOLOGY_TLB_MISS_PENALTY_CYCLES 10
#define GPU_TOPOLOGY_PAGE_BYTES_UNMEASURED 1
#define GPU_TOPOLOGY_L1_TEXTURE_SAME_STORAGE 1
#define GPU_TOPOLOGY_L1_READONLY_SAME_STORAGE 1
#define GPU_TOPOLOGY_TEXTURE_READONLY_SAME_STORAGE 1
#define GPU_TOPOLOGY_L1_CONSTANT_L1_SAME_STORAGE 0
#define GPU_TOPOLOGY_TEXTURE_CONSTANT_L1_SAME_STORAGE 0
#define GPU_TOPOLOGY_READONLY_CONSTANT_L1_SAME_STORAGE 0
#define GPU_TOPOLOGY_L2_SECTOR_BYTES GPU_TOPOLOGY_L2_DRAM_FETCH_BYTES  // deprecated: renamed in probe 1.2.0 (L2_DRAM_FETCH_BYTES, l2.dram_fetch_bytes): what one DRAM fetch brings, not an L2 sector

#ifdef __cplusplus
#if defined(__has_include)
#if !__has_include(<gpu_topology/version.hpp>)
#error "gpu_topology.hpp needs GPUTopology's static headers <gpu_topology/...>: link the GPUTopology:: target gpu_topology_generate() made, or add the package's include directory (<prefix>/include/GPUTopology) to the include path"
#endif
#endif
#include <gpu_topology/version.hpp>
#if GPU_TOPOLOGY_VERSION_MAJOR != 1 || GPU_TOPOLOGY_VERSION_MINOR < 3
#error "gpu_topology.hpp was rendered by GPUTopology 1.3.1 for its static headers <gpu_topology/...> of version 1.3 or a later 1.x; the include path gives another version (GPU_TOPOLOGY_VERSION_MAJOR, _MINOR): put the include directory of the GPUTopology that rendered it first, or render it again"
#endif
#include <gpu_topology/tiling.hpp>
#include <gpu_topology/types.hpp>

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
/* constexpr __device__ objects: usable in constant expressions and, at run time, in host and device code. */
#define GPU_TOPOLOGY_FACT __device__ constexpr
#else
#define GPU_TOPOLOGY_FACT inline constexpr
#endif

namespace gpu_topology {
inline namespace GPU_TOPOLOGY_PROFILE_NS {

inline constexpr identity_t identity{GPU_TOPOLOGY_DEVICE_NAME, GPU_TOPOLOGY_DEVICE_UUID, 9, 0,
                                     132, GPU_TOPOLOGY_PROFILE_SOURCE, GPU_TOPOLOGY_PROFILE_HASH,
                                     GPU_TOPOLOGY_PROFILE_IS_STORED != 0};

// ---- The facts, one object per level: gpu_topology::<object>.<member> -------
// Why each unknown fact is unknown.
namespace not_measured {
struct L1_SETS {
    static constexpr const char* reason = "no stage measures it: where the set index is hashed, as on the H200 (no power-of-two stride up to 64 KiB made L1 lines conflict before the capacity filled), a stride sweep cannot count sets";
};
struct L1_WAYS {
    static constexpr const char* reason = "no stage measures it: where the set index is hashed no stride fills one set alone, so no ring shows the associativity";
};
struct TEXTURE_LINE_BYTES {
    static constexpr const char* reason = "the capacity span is the same at every stride from 32 to 512 B: sets indexed by address bits, so the line cannot be read from spans (the fetch granularity is measured)";
};
struct CONSTANT_L1_LINE_BYTES {
    static constexpr const char* reason = "capacity span did not grow like a line boundary";
};
struct PAGE_BYTES {
    static constexpr const char* reason = "latencies show what one TLB entry covers, not whether that is one page or several coalesced; the driver does not report its page size";
};
}  // namespace not_measured

struct device_facts {
    known<std::uint32_t> sm_count;  // multiprocessors, SMs
    known<std::uint32_t> cc_major;  // compute capability, major
    known<std::uint32_t> cc_minor;  // compute capability, minor
    known<std::uint32_t> sm_clock_max_khz;  // SM clock, maximum, kHz
    known<std::uint32_t> sm_clock_khz;  // SM clock during the probe, kHz
};
GPU_TOPOLOGY_FACT device_facts device{
    {132u, source::api, false, true},
    {9u, source::api, false, true},
    {0u, source::api, false, true},
    {1980000u, source::api, false, true},
    {1979927u, source::measured, false, true}};

struct sm_facts {
    known<std::uint32_t> max_threads;  // threads per SM, at most, threads
    known<std::uint32_t> max_blocks;  // resident blocks per SM, at most, blocks
    known<std::uint32_t> registers;  // 32-bit registers per SM, registers
};
GPU_TOPOLOGY_FACT sm_facts sm{
    {2048u, source::api, false, true},
    {32u, source::api, false, true},
    {65536u, source::api, false, true}};

struct l1_facts {
    known<std::uint64_t> size_bytes;  // L1 data, max-L1 carveout (the probe's kernel, 32-thread blocks; others: l1_bytes_at), bytes
    known<std::uint64_t> size_bytes_default_carveout;  // L1 data, carveout left to the driver (the probe's kernel, 32-thread blocks), bytes
    known<std::uint64_t> size_bytes_max_shared_carveout;  // L1 data, max-shared carveout (the probe's kernel, 32-thread blocks), bytes
    known<std::uint32_t> line_bytes;  // L1 line, bytes
    known<std::uint32_t> sector_bytes;  // L1 fetch granularity, bytes
    known<std::uint32_t> latency_cycles;  // L1 hit latency, cycles
    known<std::uint32_t> miss_latency_cycles;  // L1 miss served by near L2, cycles
    known<std::uint32_t> miss_penalty_cycles;  // L1 miss penalty (to L2), cycles
    known<std::uint32_t> per_sm;  // L1 instances per SM, instances
    unknown<std::uint32_t, not_measured::L1_SETS> sets;  // L1 sets, sets
    unknown<std::uint32_t, not_measured::L1_WAYS> ways;  // L1 ways, ways
    known<std::uint64_t> bandwidth_bytes_per_s;  // L1 load bandwidth, all SMs, bytes/s
};
GPU_TOPOLOGY_FACT l1_facts l1{
    {248832ull, source::measured, false, true},
    {191488ull, source::measured, false, true},
    {21504ull, source::measured, false, true},
    {128u, source::measured, false, true},
    {32u, source::measured, false, true},
    {32u, source::measured, false, true},
    {269u, source::measured, false, true},
    {237u, source::derived, false, true},
    {1u, source::measured, false, true},
    {},
    {},
    {32599051801529ull, source::measured, false, true}};

struct texture_facts {
    known<std::uint64_t> size_bytes;  // texture, max-L1 carveout, bytes
    unknown<std::uint32_t, not_measured::TEXTURE_LINE_BYTES> line_bytes;  // texture line, bytes
    known<std::uint32_t> sector_bytes;  // texture fetch granularity, bytes
    known<std::uint32_t> latency_cycles;  // texture hit latency, cycles
    known<std::uint32_t> miss_latency_cycles;  // texture miss served by near L2, cycles
    known<std::uint32_t> miss_penalty_cycles;  // texture miss penalty (to L2), cycles
    known<std::uint32_t> per_sm;  // texture instances per SM, instances
};
GPU_TOPOLOGY_FACT texture_facts texture{
    {248832ull, source::measured, false, true},
    {},
    {32u, source::measured, false, true},
    {92u, source::measured, false, true},
    {318u, source::measured, false, true},
    {227u, source::derived, false, true},
    {1u, source::measured, false, true}};

struct readonly_facts {
    known<std::uint64_t> size_bytes;  // read-only, max-L1 carveout, bytes
    known<std::uint32_t> line_bytes;  // read-only line, bytes
    known<std::uint32_t> sector_bytes;  // read-only fetch granularity, bytes
    known<std::uint32_t> latency_cycles;  // read-only hit latency, cycles
    known<std::uint32_t> miss_latency_cycles;  // read-only miss served by near L2, cycles
    known<std::uint32_t> miss_penalty_cycles;  // read-only miss penalty (to L2), cycles
    known<std::uint32_t> per_sm;  // read-only instances per SM, instances
};
GPU_TOPOLOGY_FACT readonly_facts readonly{
    {248832ull, source::measured, false, true},
    {128u, source::measured, false, true},
    {32u, source::measured, false, true},
    {32u, source::measured, false, true},
    {269u, source::measured, false, true},
    {237u, source::derived, false, true},
    {1u, source::measured, false, true}};

struct constant_facts {
    known<std::uint64_t> size_bytes;  // constant memory, bytes
};
GPU_TOPOLOGY_FACT constant_facts constant{
    {65536ull, source::api, false, true}};

struct constant_l1_facts {
    known<std::uint64_t> size_bytes;  // constant L1, bytes
    unknown<std::uint32_t, not_measured::CONSTANT_L1_LINE_BYTES> line_bytes;  // constant L1 line, bytes
    known<std::uint32_t> sector_bytes;  // constant L1 fetch granularity, bytes
    known<std::uint32_t> latency_cycles;  // constant L1 hit latency, cycles
    known<std::uint32_t> miss_penalty_cycles;  // constant L1 miss penalty (to L1.5), cycles
    known<std::uint32_t> per_sm;  // constant L1 instances per SM, instances
};
GPU_TOPOLOGY_FACT constant_l1_facts constant_l1{
    {1536ull, source::measured, false, true},
    {},
    {64u, source::measured, false, true},
    {28u, source::measured, false, true},
    {70u, source::derived, false, true},
    {1u, source::measured, false, true}};

struct constant_l15_facts {
    known<std::uint64_t> size_bytes;  // constant L1.5, bytes
    known<std::uint32_t> sector_bytes;  // constant L1.5 fetch granularity, bytes
    known<std::uint32_t> latency_cycles;  // constant L1.5 hit latency, cycles
    known<std::uint32_t> miss_latency_cycles;  // constant L1.5 miss (first touch) latency, cycles
    known<std::uint32_t> miss_penalty_cycles;  // constant L1.5 miss penalty (to L2), cycles
};
GPU_TOPOLOGY_FACT constant_l15_facts constant_l15{
    {65536ull, source::measured, true, true},
    {256u, source::measured, false, true},
    {98u, source::measured, false, true},
    {402u, source::measured, false, true},
    {304u, source::derived, false, true}};

struct shared_facts {
    known<std::uint64_t> size_bytes;  // shared memory per SM, bytes
    known<std::uint64_t> per_block_optin_bytes;  // shared memory per block (opt-in), bytes
    known<std::uint32_t> reserved_per_block_bytes;  // shared memory the driver reserves per block, bytes
    known<std::uint32_t> latency_cycles;  // shared memory load latency, cycles
    known<std::uint32_t> banks;  // shared memory banks, banks
    known<std::uint32_t> bank_bytes;  // shared memory bank width, bytes
    known<std::uint32_t> conflict_latency_cycles;  // latency added per extra way of a bank conflict, cycles
    known<std::uint32_t> conflict_issue_cycles;  // issue cycles added per extra way of a bank conflict, cycles
    known<std::uint64_t> bandwidth_bytes_per_s;  // shared memory load bandwidth, all SMs, bytes/s
};
GPU_TOPOLOGY_FACT shared_facts shared{
    {233472ull, source::api, false, true},
    {232448ull, source::api, false, true},
    {1024u, source::api, false, true},
    {23u, source::measured, false, true},
    {32u, source::measured, false, true},
    {4u, source::measured, false, true},
    {2u, source::measured, false, true},
    {1u, source::measured, false, true},
    {32878255720054ull, source::measured, false, true}};

struct l2_facts {
    known<std::uint64_t> size_bytes;  // L2 total, bytes
    known<std::uint64_t> persisting_max_bytes;  // L2 set-aside for persisting accesses, at most, bytes
    known<std::uint64_t> near_size_bytes;  // L2 an SM reuses at near latency, bytes
    known<std::uint32_t> line_bytes;  // L2 line, bytes
    known<std::uint32_t> dram_fetch_bytes;  // DRAM fetch per L2 miss, bytes
    [[deprecated("renamed in probe 1.2.0 (L2_DRAM_FETCH_BYTES, l2.dram_fetch_bytes): what one DRAM fetch brings, not an L2 sector")]] known<std::uint32_t> sector_bytes;
    known<std::uint32_t> near_latency_cycles;  // L2 near hit latency, cycles
    known<std::uint32_t> far_latency_cycles;  // L2 far hit latency, cycles
    known<std::uint32_t> miss_penalty_cycles;  // L2 near miss penalty (to DRAM), cycles
    known<std::uint64_t> bandwidth_bytes_per_s;  // L2 read bandwidth, all SMs, bytes/s
};
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
GPU_TOPOLOGY_FACT l2_facts l2{
    {52428800ull, source::api, false, true},
    {32768000ull, source::api, false, true},
    {25165824ull, source::measured, false, true},
    {128u, source::measured, false, true},
    {64u, source::measured, false, true},
    {64u, source::measured, false, true},
    {270u, source::measured, false, true},
    {496u, source::measured, false, true},
    {417u, source::derived, false, true},
    {8690292954105ull, source::measured, false, true}};
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

struct dram_facts {
    known<std::uint64_t> size_bytes;  // device memory, bytes
    known<std::uint32_t> latency_cycles;  // DRAM load latency, cycles
    known<std::uint64_t> bandwidth_bytes_per_s;  // DRAM read bandwidth, all SMs, bytes/s
};
GPU_TOPOLOGY_FACT dram_facts dram{
    {85017493504ull, source::api, false, true},
    {687u, source::measured, false, true},
    {3139244034140ull, source::measured, false, true}};

struct cluster_facts {
    known<std::uint32_t> max_blocks;  // blocks per cluster, at most (non-portable sizes allowed), blocks
    known<std::uint32_t> remote_latency_cycles;  // load latency from another block's shared memory, cycles
    known<std::uint64_t> remote_bandwidth_bytes_per_s;  // remote shared memory read bandwidth, all SMs, bytes/s
};
GPU_TOPOLOGY_FACT cluster_facts cluster{
    {16u, source::api, false, true},
    {192u, source::measured, false, true},
    {4023605444751ull, source::measured, false, true}};

struct tlb_facts {
    known<std::uint32_t> entries;  // first TLB level entries (elements 64 MiB apart before one slows), entries
    known<std::uint64_t> coverage_bytes;  // memory one entry of the first TLB level maps, bytes
    known<std::uint64_t> reach_bytes;  // first TLB level reach (entries x coverage), bytes
    known<std::uint32_t> miss_penalty_cycles;  // latency added by a first-level TLB miss, cycles
    unknown<std::uint64_t, not_measured::PAGE_BYTES> page_bytes;  // page size the driver maps, bytes
};
GPU_TOPOLOGY_FACT tlb_facts tlb{
    {15u, source::measured, false, true},
    {16777216ull, source::measured, false, true},
    {251658240ull, source::derived, false, true},
    {10u, source::measured, false, true},
    {}};

struct sharing_facts {
    known<bool> l1_texture;  // L1 and texture share storage, bool
    known<bool> l1_readonly;  // L1 and read-only share storage, bool
    known<bool> texture_readonly;  // texture and read-only share storage, bool
    known<bool> l1_constant_l1;  // L1 and constant L1 share storage, bool
    known<bool> texture_constant_l1;  // texture and constant L1 share storage, bool
    known<bool> readonly_constant_l1;  // read-only and constant L1 share storage, bool
};
GPU_TOPOLOGY_FACT sharing_facts sharing{
    {true, source::measured, false, true},
    {true, source::measured, false, true},
    {true, source::measured, false, true},
    {false, source::measured, false, true},
    {false, source::measured, false, true},
    {false, source::measured, false, true}};


// ---- L1 per launch: carveout and resident blocks (l1_bytes_at reads them) ----
inline constexpr std::size_t l1_launch_count = 99;
GPU_TOPOLOGY_FACT l1_at_launch l1_launches[] = {
    {0, 1024u, 16u, 2u, 248832ull},  // static
    {0, 256u, 16u, 7u, 248832ull},  // static
    {0, 32u, 16u, 7u, 248832ull},  // static
    {-1, 1024u, 16u, 2u, 248832ull},  // static
    {-1, 256u, 16u, 8u, 224256ull},  // static
    {-1, 32u, 16u, 32u, 191488ull},  // static
    {1, 1024u, 16u, 2u, 224256ull},  // static
    {1, 256u, 16u, 7u, 224256ull},  // static
    {1, 32u, 16u, 7u, 224256ull},  // static
    {3, 1024u, 16u, 2u, 191488ull},  // static
    {3, 256u, 16u, 7u, 191488ull},  // static
    {3, 32u, 16u, 7u, 191488ull},  // static
    {4, 1024u, 16u, 2u, 154624ull},  // static
    {4, 256u, 16u, 8u, 154624ull},  // static
    {4, 32u, 16u, 14u, 154624ull},  // static
    {5, 1024u, 16u, 2u, 121856ull},  // static
    {5, 256u, 16u, 8u, 121856ull},  // static
    {5, 32u, 16u, 14u, 121856ull},  // static
    {7, 1024u, 16u, 2u, 89088ull},  // static
    {7, 256u, 16u, 8u, 89088ull},  // static
    {7, 32u, 16u, 14u, 89088ull},  // static
    {10, 1024u, 16u, 2u, 21504ull},  // static
    {10, 256u, 16u, 8u, 21504ull},  // static
    {10, 32u, 16u, 28u, 21504ull},  // static
    {25, 1024u, 16u, 2u, 21504ull},  // static
    {25, 256u, 16u, 8u, 21504ull},  // static
    {25, 32u, 16u, 32u, 21504ull},  // static
    {50, 1024u, 16u, 2u, 21504ull},  // static
    {50, 256u, 16u, 8u, 21504ull},  // static
    {50, 32u, 16u, 32u, 21504ull},  // static
    {100, 1024u, 16u, 2u, 21504ull},  // static
    {100, 256u, 16u, 8u, 21504ull},  // static
    {100, 32u, 16u, 32u, 21504ull},  // static
    {-1, 1024u, 0u, 2u, 248832ull},  // none
    {-1, 256u, 0u, 8u, 224256ull},  // none
    {-1, 32u, 0u, 32u, 224256ull},  // none
    {0, 1024u, 0u, 2u, 248832ull},  // none
    {0, 256u, 0u, 8u, 224256ull},  // none
    {0, 32u, 0u, 8u, 224256ull},  // none
    {5, 1024u, 0u, 2u, 240640ull},  // none
    {5, 256u, 0u, 8u, 224256ull},  // none
    {5, 32u, 0u, 16u, 224256ull},  // none
    {10, 1024u, 0u, 2u, 224256ull},  // none
    {10, 256u, 0u, 8u, 224256ull},  // none
    {10, 32u, 0u, 32u, 224256ull},  // none
    {25, 1024u, 0u, 2u, 191488ull},  // none
    {25, 256u, 0u, 8u, 191488ull},  // none
    {25, 32u, 0u, 32u, 191488ull},  // none
    {50, 1024u, 0u, 2u, 121856ull},  // none
    {50, 256u, 0u, 8u, 121856ull},  // none
    {50, 32u, 0u, 32u, 121856ull},  // none
    {75, 1024u, 0u, 2u, 55296ull},  // none
    {75, 256u, 0u, 8u, 55296ull},  // none
    {75, 32u, 0u, 32u, 55296ull},  // none
    {100, 1024u, 0u, 2u, 21504ull},  // none
    {100, 256u, 0u, 8u, 21504ull},  // none
    {100, 32u, 0u, 32u, 21504ull},  // none
    {-1, 1024u, 8192u, 2u, 224256ull},  // dynamic
    {-1, 256u, 8192u, 8u, 121856ull},  // dynamic
    {0, 1024u, 8192u, 1u, 240640ull},  // dynamic
    {0, 256u, 8192u, 1u, 240640ull},  // dynamic
    {10, 1024u, 8192u, 2u, 224256ull},  // dynamic
    {10, 256u, 8192u, 3u, 224256ull},  // dynamic
    {25, 1024u, 8192u, 2u, 191488ull},  // dynamic
    {25, 256u, 8192u, 7u, 191488ull},  // dynamic
    {50, 1024u, 8192u, 2u, 121856ull},  // dynamic
    {50, 256u, 8192u, 8u, 121856ull},  // dynamic
    {75, 1024u, 8192u, 2u, 55296ull},  // dynamic
    {75, 256u, 8192u, 8u, 55296ull},  // dynamic
    {100, 1024u, 8192u, 2u, 21504ull},  // dynamic
    {100, 256u, 8192u, 8u, 21504ull},  // dynamic
    {-1, 1024u, 32768u, 2u, 154624ull},  // dynamic
    {-1, 256u, 32768u, 6u, 21504ull},  // dynamic
    {0, 1024u, 32768u, 1u, 191488ull},  // dynamic
    {0, 256u, 32768u, 1u, 191488ull},  // dynamic
    {10, 1024u, 32768u, 1u, 191488ull},  // dynamic
    {10, 256u, 32768u, 1u, 191488ull},  // dynamic
    {25, 1024u, 32768u, 1u, 191488ull},  // dynamic
    {25, 256u, 32768u, 1u, 191488ull},  // dynamic
    {50, 1024u, 32768u, 2u, 121856ull},  // dynamic
    {50, 256u, 32768u, 4u, 121856ull},  // dynamic
    {75, 1024u, 32768u, 2u, 55296ull},  // dynamic
    {75, 256u, 32768u, 5u, 55296ull},  // dynamic
    {100, 1024u, 32768u, 2u, 21504ull},  // dynamic
    {100, 256u, 32768u, 6u, 21504ull},  // dynamic
    {-1, 1024u, 98304u, 2u, 55296ull},  // dynamic
    {-1, 256u, 98304u, 2u, 55296ull},  // dynamic
    {0, 1024u, 98304u, 1u, 154624ull},  // dynamic
    {0, 256u, 98304u, 1u, 154624ull},  // dynamic
    {10, 1024u, 98304u, 1u, 154624ull},  // dynamic
    {10, 256u, 98304u, 1u, 154624ull},  // dynamic
    {25, 1024u, 98304u, 1u, 154624ull},  // dynamic
    {25, 256u, 98304u, 1u, 154624ull},  // dynamic
    {50, 1024u, 98304u, 1u, 121856ull},  // dynamic
    {50, 256u, 98304u, 1u, 121856ull},  // dynamic
    {75, 1024u, 98304u, 2u, 55296ull},  // dynamic
    {75, 256u, 98304u, 2u, 55296ull},  // dynamic
    {100, 1024u, 98304u, 2u, 21504ull},  // dynamic
    {100, 256u, 98304u, 2u, 21504ull},  // dynamic
};

// ---- The node: the devices these facts describe and the links between them --
// (host code; a node profile measures them, docs/node.md)
// From device `from` to device `to`: what a copy or kernel on `from` gets from `to`'s memory.
struct peer_link {
    int from, to;
    bool peer_access;                // cudaDeviceCanAccessPeer(from, to)
    link_transport transport;        // NVML: NVLink to the peer, through an NVSwitch, or PCIe
    std::uint32_t nvlinks;           // NVLinks of `from` to `to` (nvswitch: all, into the switches)
    link_value nominal_bytes_per_s;  // those links' NVML speeds summed, one direction
    link_value ce_read_bytes_per_s;  // copy engine: cudaMemcpyPeerAsync on `from`'s stream, `to`'s memory into `from`'s
    link_value ce_write_bytes_per_s;  // copy engine: cudaMemcpyPeerAsync on `from`'s stream, `from`'s memory into `to`'s
    link_value sm_read_bytes_per_s;  // SMs of `from` load `to`'s memory (16-byte loads, every SM)
    link_value sm_write_bytes_per_s;  // SMs of `from` store into `to`'s memory (16-byte stores, every SM)
    link_value load_latency_ns;  // one thread of `from` chases pointers in `to`'s memory (ld.global.cg), median
    link_value load_latency_cycles;  // the same chase in `from`'s SM clock cycles, median
};
namespace node {
// Devices these facts describe: 1 unless the profile measured every device of the node
// (gpu_topology_generate(... DEVICES ALL)); their facts agree (docs/node.md).
inline constexpr int device_count = 1;
inline constexpr node_device devices[] = {
    {0, "NVIDIA H100 80GB HBM3", "GPU-a3176e8a-82bd-592d-dfa7-cecd46ede96b"},
};
// Every ordered pair of devices (from, to), measured by the probe.
inline constexpr std::size_t link_count = 0;
inline constexpr const peer_link* links = nullptr;
}  // namespace node

}  // namespace GPU_TOPOLOGY_PROFILE_NS
}  // namespace gpu_topology
#undef GPU_TOPOLOGY_FACT

// The helpers that read these facts (l1_bytes_at, resident_blocks_per_wave, node::find_link).
#include <gpu_topology/fact_helpers.hpp>
#if defined(__CUDACC__) || defined(GPU_TOPOLOGY_WITH_CUDA_RUNTIME)
// Is the running GPU the one these facts describe? (host code, CUDA runtime)
#include <gpu_topology/check.hpp>
#endif
#endif  // __cplusplus
#endif  // GPU_TOPOLOGY_HPP
