#pragma once
// The one list of quantities. Each row says, once, everything the rest of the
// package needs to know about a quantity:
//   - its name: the header macro GPU_TOPOLOGY_<name>, the CMake variable of the
//     same name and the key gpu_topology_require() accepts;
//   - where it sits in a profile (a dotted path; the last two parts are the
//     header object and member: caches.l1.size_bytes -> gpu_topology::l1.size_bytes);
//   - its shape in the profile, its header type and unit;
//   - the probe stage that measures it ("api" for what the CUDA runtime reports);
//   - the rule a value must meet to be accepted.
// Relations between quantities (a line is no larger than its cache, ...) are
// listed below the quantities. The profile schema and its validation, the
// header, the CMake variables, the printed table and docs/quantities.md are
// all generated from these two lists, so adding a quantity is adding a row
// here plus the stage code that measures it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "units.hpp"

namespace gpu_topology::model {

// Profiles name their schema; a reader refuses any other.
inline constexpr std::string_view kSchema = "gpu-topology/2";

// How a quantity is written in a profile.
enum class Shape : std::uint8_t {
    fact,      // a bare JSON number (identity: SM count, compute capability)
    estimate,  // {"value", "unit", "source", "method", "confidence", ...}
    latency,   // an estimate of a latency distribution: {"p05", "p50", "mean", "p95", ...}; its value is p50
};

// The C++ type a quantity has in gpu_topology.hpp.
enum class HeaderType : std::uint8_t { u32, u64, flag };

inline constexpr double kMaxU32 = 4294967295.0;
inline constexpr double kMaxExactU64 = 9007199254740992.0;  // 2^53: the largest integer a JSON number holds exactly

// What a value must satisfy, besides fitting its header type.
struct Rule {
    double min = 1;
    double max = kMaxU32;
    bool power_of_two = false;
};
// The ranges below hold for every architecture CUDA supports, compute capability
// 5.0 to 12.x (CUDA C++ Programming Guide, "Compute Capabilities": the table
// "Technical Specifications per Compute Capability" and the sections per
// architecture); they are not tuned to the cards measured here.
inline constexpr Rule kBytes{1, kMaxExactU64};
inline constexpr Rule kLine{4, 65536, true};   // lines and fetch granularities
// Latencies and penalties of one load: an L1 hit takes about 30 cycles and a DRAM
// access with a TLB miss about a thousand on every generation measured since
// Maxwell (Jia et al., "Dissecting the NVIDIA Volta/Turing GPU architecture via
// microbenchmarking", 2018/2019); 20 000 cycles, ten microseconds at 2 GHz, is
// far beyond any of them, and a larger number is a broken measurement.
inline constexpr Rule kCycles{1, 20000};
inline constexpr Rule kBandwidth{1e6, 1e15};   // bytes/s
inline constexpr Rule kFlag{0, 1};
inline constexpr Rule kInstances{1, 64};
// An L1 data cache: the smallest of cc 5.0-12.x is 24 KB (the L1/texture cache
// of cc 5.x and 6.0); at the largest shared-memory carveout 28 KB are left on
// cc 8.x-12.x, of which the probe measured 20 KiB on cc 9.0. 8 KiB leaves room
// for a driver that reserves more; fewer bytes are no L1 measurement.
// At most: four times the 256 KB that L1 shares with shared memory on cc 9.0 and 10.x.
inline constexpr Rule kL1Bytes{8192, 1 << 20};
// Compute capabilities CUDA supports: 5.0 (Maxwell) to 12.x (Blackwell). A newer
// major version widens this range, after the rules above were checked against it.
inline constexpr Rule kSupportedCcMajor{5, 12};
// What the CUDA runtime reports, within the table "Technical Specifications per
// Compute Capability" for cc 5.0-12.x, with room to spare: at most 32 resident
// blocks and 2048 threads per SM (at least 16 and 1024), 64 K registers, 64 KB
// of constant memory, 64 to 228 KB of shared memory per SM, a reserved 0 or 1 KB
// per block, clocks below 3 GHz, fewer than 200 SMs, L2 of 256 KB to 126 MB,
// device memory of a few GB to 288 GB.
inline constexpr Rule kSmsPerDevice{1, 1024};
inline constexpr Rule kClockKhz{1e4, 1e7};  // 10 MHz to 10 GHz
inline constexpr Rule kThreadsPerSm{512, 4096};
inline constexpr Rule kBlocksPerSm{8, 64};
inline constexpr Rule kRegistersPerSm{32768, 131072};
inline constexpr Rule kConstantBytes{32768, 131072};
inline constexpr Rule kSharedBytes{16384, 1 << 20};
inline constexpr Rule kReservedSharedBytes{0, 8192};
inline constexpr Rule kL2Bytes{65536, 1ull << 30};
inline constexpr Rule kDeviceMemoryBytes{64ull << 20, 1ull << 42};
inline constexpr Rule kClusterBlocks{1, 64};
// Shared memory has 32 banks of 4 bytes on every cc 5.0-12.x (CUDA C++
// Programming Guide, "Shared Memory" under Compute Capability 5.x and later);
// half and twice that leave room for a measurement, not for 1024 banks of 1 KiB.
inline constexpr Rule kSharedBanks{16, 64, true};
inline constexpr Rule kSharedBankBytes{4, 8, true};

struct Quantity {
    std::string_view name;
    std::string_view path;
    Shape shape;
    HeaderType type;
    Unit unit;
    std::string_view stage;
    Rule rule;
    std::string_view label;  // one line for the printed table and the docs
    // Non-empty: no stage measures this quantity, and why; every profile
    // carries it as unmeasured with this reason (what the data could not tell).
    std::string_view not_measured = {};

    constexpr std::string_view member() const { return path.substr(path.rfind('.') + 1); }
    constexpr std::string_view object() const {
        const auto last = path.rfind('.');
        const auto before = path.rfind('.', last - 1);
        return path.substr(before == std::string_view::npos ? 0 : before + 1,
                           last - (before == std::string_view::npos ? 0 : before + 1));
    }
};

using S = Shape;
using H = HeaderType;
using U = Unit;

// clang-format off
inline constexpr std::array kQuantities{
    // --- the device (CUDA runtime) and the clock ----------------------------------------------
    Quantity{"SM_COUNT", "device.sm_count", S::fact, H::u32, U::sms, "api", kSmsPerDevice, "multiprocessors"},
    Quantity{"CC_MAJOR", "device.cc_major", S::fact, H::u32, U::none, "api", kSupportedCcMajor, "compute capability, major"},
    Quantity{"CC_MINOR", "device.cc_minor", S::fact, H::u32, U::none, "api", {0, 9}, "compute capability, minor"},
    Quantity{"SM_CLOCK_MAX_KHZ", "device.sm_clock_max_khz", S::estimate, H::u32, U::khz, "api", kClockKhz, "SM clock, maximum"},
    Quantity{"SM_CLOCK_KHZ", "device.sm_clock_khz", S::estimate, H::u32, U::khz, "warm-up", kClockKhz, "SM clock during the probe"},
    Quantity{"MAX_THREADS_PER_SM", "sm.max_threads", S::estimate, H::u32, U::threads, "api", kThreadsPerSm, "threads per SM, at most"},
    Quantity{"MAX_BLOCKS_PER_SM", "sm.max_blocks", S::estimate, H::u32, U::blocks, "api", kBlocksPerSm, "resident blocks per SM, at most"},
    Quantity{"REGISTERS_PER_SM", "sm.registers", S::estimate, H::u32, U::registers, "api", kRegistersPerSm, "32-bit registers per SM"},
    // --- L1 data (ld.global.ca) ----------------------------------------------------------------
    Quantity{"L1_SIZE_BYTES", "caches.l1.size_bytes", S::estimate, H::u64, U::bytes, "l1 size", kL1Bytes, "L1 data, max-L1 carveout (the probe's kernel, 32-thread blocks; others: l1_bytes_at)"},
    Quantity{"L1_SIZE_DEFAULT_CARVEOUT_BYTES", "caches.l1.size_bytes_default_carveout", S::estimate, H::u64, U::bytes, "l1 size", kL1Bytes, "L1 data, carveout left to the driver (the probe's kernel, 32-thread blocks)"},
    Quantity{"L1_SIZE_MAX_SHARED_CARVEOUT_BYTES", "caches.l1.size_bytes_max_shared_carveout", S::estimate, H::u64, U::bytes, "l1 carveouts", kL1Bytes, "L1 data, max-shared carveout (the probe's kernel, 32-thread blocks)"},
    Quantity{"L1_LINE_BYTES", "caches.l1.line_bytes", S::estimate, H::u32, U::bytes, "l1 path", kLine, "L1 line"},
    Quantity{"L1_SECTOR_BYTES", "caches.l1.sector_bytes", S::estimate, H::u32, U::bytes, "l1 path", kLine, "L1 fetch granularity"},
    Quantity{"L1_LATENCY_CYCLES", "caches.l1.latency_cycles", S::latency, H::u32, U::cycles, "l1 path", kCycles, "L1 hit latency"},
    Quantity{"L1_MISS_LATENCY_CYCLES", "caches.l1.miss_latency_cycles", S::latency, H::u32, U::cycles, "l1 path", kCycles, "L1 miss served by near L2"},
    Quantity{"L1_MISS_PENALTY_CYCLES", "caches.l1.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "l1 path", kCycles, "L1 miss penalty (to L2)"},
    Quantity{"L1_PER_SM", "caches.l1.per_sm", S::estimate, H::u32, U::instances, "l1 path", kInstances, "L1 instances per SM"},
    Quantity{"L1_SETS", "caches.l1.sets", S::estimate, H::u32, U::sets, "-", {1, 1e6}, "L1 sets", "no stage measures it: where the set index is hashed, as on the H200 (no power-of-two stride up to 64 KiB made L1 lines conflict before the capacity filled), a stride sweep cannot count sets"},
    Quantity{"L1_WAYS", "caches.l1.ways", S::estimate, H::u32, U::ways, "-", {1, 1e6}, "L1 ways", "no stage measures it: where the set index is hashed no stride fills one set alone, so no ring shows the associativity"},
    Quantity{"L1_BANDWIDTH_BYTES_PER_S", "caches.l1.bandwidth_bytes_per_s", S::estimate, H::u64, U::bytes_per_s, "bandwidths", kBandwidth, "L1 load bandwidth, all SMs"},
    // --- texture (tex1Dfetch) and read-only (ld.global.nc) paths, max-L1 carveout ---------------
    Quantity{"TEXTURE_SIZE_BYTES", "caches.texture.size_bytes", S::estimate, H::u64, U::bytes, "texture readonly", kL1Bytes, "texture, max-L1 carveout"},
    Quantity{"TEXTURE_LINE_BYTES", "caches.texture.line_bytes", S::estimate, H::u32, U::bytes, "texture readonly", kLine, "texture line"},
    Quantity{"TEXTURE_SECTOR_BYTES", "caches.texture.sector_bytes", S::estimate, H::u32, U::bytes, "texture readonly", kLine, "texture fetch granularity"},
    Quantity{"TEXTURE_LATENCY_CYCLES", "caches.texture.latency_cycles", S::latency, H::u32, U::cycles, "texture readonly", kCycles, "texture hit latency"},
    Quantity{"TEXTURE_MISS_LATENCY_CYCLES", "caches.texture.miss_latency_cycles", S::latency, H::u32, U::cycles, "texture readonly", kCycles, "texture miss served by near L2"},
    Quantity{"TEXTURE_MISS_PENALTY_CYCLES", "caches.texture.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "texture readonly", kCycles, "texture miss penalty (to L2)"},
    Quantity{"TEXTURE_PER_SM", "caches.texture.per_sm", S::estimate, H::u32, U::instances, "texture readonly", kInstances, "texture instances per SM"},
    Quantity{"READONLY_SIZE_BYTES", "caches.readonly.size_bytes", S::estimate, H::u64, U::bytes, "texture readonly", kL1Bytes, "read-only, max-L1 carveout"},
    Quantity{"READONLY_LINE_BYTES", "caches.readonly.line_bytes", S::estimate, H::u32, U::bytes, "texture readonly", kLine, "read-only line"},
    Quantity{"READONLY_SECTOR_BYTES", "caches.readonly.sector_bytes", S::estimate, H::u32, U::bytes, "texture readonly", kLine, "read-only fetch granularity"},
    Quantity{"READONLY_LATENCY_CYCLES", "caches.readonly.latency_cycles", S::latency, H::u32, U::cycles, "texture readonly", kCycles, "read-only hit latency"},
    Quantity{"READONLY_MISS_LATENCY_CYCLES", "caches.readonly.miss_latency_cycles", S::latency, H::u32, U::cycles, "texture readonly", kCycles, "read-only miss served by near L2"},
    Quantity{"READONLY_MISS_PENALTY_CYCLES", "caches.readonly.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "texture readonly", kCycles, "read-only miss penalty (to L2)"},
    Quantity{"READONLY_PER_SM", "caches.readonly.per_sm", S::estimate, H::u32, U::instances, "texture readonly", kInstances, "read-only instances per SM"},
    // --- constant caches (ld.const) ---------------------------------------------------------------
    Quantity{"CONSTANT_SIZE_BYTES", "caches.constant.size_bytes", S::estimate, H::u64, U::bytes, "api", kConstantBytes, "constant memory"},
    Quantity{"CONSTANT_L1_SIZE_BYTES", "caches.constant_l1.size_bytes", S::estimate, H::u64, U::bytes, "constant caches", kBytes, "constant L1"},
    Quantity{"CONSTANT_L1_LINE_BYTES", "caches.constant_l1.line_bytes", S::estimate, H::u32, U::bytes, "constant caches", kLine, "constant L1 line"},
    Quantity{"CONSTANT_L1_SECTOR_BYTES", "caches.constant_l1.sector_bytes", S::estimate, H::u32, U::bytes, "constant caches", kLine, "constant L1 fetch granularity"},
    Quantity{"CONSTANT_L1_LATENCY_CYCLES", "caches.constant_l1.latency_cycles", S::latency, H::u32, U::cycles, "constant caches", kCycles, "constant L1 hit latency"},
    Quantity{"CONSTANT_L1_MISS_PENALTY_CYCLES", "caches.constant_l1.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "constant caches", kCycles, "constant L1 miss penalty (to L1.5)"},
    Quantity{"CONSTANT_L1_PER_SM", "caches.constant_l1.per_sm", S::estimate, H::u32, U::instances, "constant caches", kInstances, "constant L1 instances per SM"},
    Quantity{"CONSTANT_L15_SIZE_BYTES", "caches.constant_l15.size_bytes", S::estimate, H::u64, U::bytes, "constant caches", kBytes, "constant L1.5"},
    Quantity{"CONSTANT_L15_SECTOR_BYTES", "caches.constant_l15.sector_bytes", S::estimate, H::u32, U::bytes, "constant caches", kLine, "constant L1.5 fetch granularity"},
    Quantity{"CONSTANT_L15_LATENCY_CYCLES", "caches.constant_l15.latency_cycles", S::latency, H::u32, U::cycles, "constant caches", kCycles, "constant L1.5 hit latency"},
    Quantity{"CONSTANT_L15_MISS_LATENCY_CYCLES", "caches.constant_l15.miss_latency_cycles", S::latency, H::u32, U::cycles, "constant caches", kCycles, "constant L1.5 miss (first touch) latency"},
    Quantity{"CONSTANT_L15_MISS_PENALTY_CYCLES", "caches.constant_l15.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "constant caches", kCycles, "constant L1.5 miss penalty (to L2)"},
    // --- shared memory ----------------------------------------------------------------------------
    Quantity{"SHARED_SIZE_PER_SM_BYTES", "caches.shared.size_bytes", S::estimate, H::u64, U::bytes, "api", kSharedBytes, "shared memory per SM"},
    Quantity{"SHARED_PER_BLOCK_OPTIN_BYTES", "caches.shared.per_block_optin_bytes", S::estimate, H::u64, U::bytes, "api", kSharedBytes, "shared memory per block (opt-in)"},
    Quantity{"SHARED_RESERVED_PER_BLOCK_BYTES", "caches.shared.reserved_per_block_bytes", S::estimate, H::u32, U::bytes, "api", kReservedSharedBytes, "shared memory the driver reserves per block"},
    Quantity{"SHARED_LATENCY_CYCLES", "caches.shared.latency_cycles", S::latency, H::u32, U::cycles, "latencies", kCycles, "shared memory load latency"},
    Quantity{"SHARED_BANKS", "caches.shared.banks", S::estimate, H::u32, U::banks, "shared banks", kSharedBanks, "shared memory banks"},
    Quantity{"SHARED_BANK_BYTES", "caches.shared.bank_bytes", S::estimate, H::u32, U::bytes, "shared banks", kSharedBankBytes, "shared memory bank width"},
    Quantity{"SHARED_CONFLICT_LATENCY_CYCLES", "caches.shared.conflict_latency_cycles", S::estimate, H::u32, U::cycles, "shared banks", {0, 1e4}, "latency added per extra way of a bank conflict"},
    Quantity{"SHARED_CONFLICT_ISSUE_CYCLES", "caches.shared.conflict_issue_cycles", S::estimate, H::u32, U::cycles, "shared banks", {0, 1e4}, "issue cycles added per extra way of a bank conflict"},
    Quantity{"SHARED_BANDWIDTH_BYTES_PER_S", "caches.shared.bandwidth_bytes_per_s", S::estimate, H::u64, U::bytes_per_s, "bandwidths", kBandwidth, "shared memory load bandwidth, all SMs"},
    // --- L2 and DRAM --------------------------------------------------------------------------------
    Quantity{"L2_SIZE_BYTES", "caches.l2.size_bytes", S::estimate, H::u64, U::bytes, "api", kL2Bytes, "L2 total"},
    Quantity{"L2_PERSISTING_MAX_BYTES", "caches.l2.persisting_max_bytes", S::estimate, H::u64, U::bytes, "api", {0, kL2Bytes.max}, "L2 set-aside for persisting accesses, at most"},
    Quantity{"L2_NEAR_SIZE_BYTES", "caches.l2.near_size_bytes", S::estimate, H::u64, U::bytes, "l2 size", kBytes, "L2 an SM reuses at near latency"},
    Quantity{"L2_LINE_BYTES", "caches.l2.line_bytes", S::estimate, H::u32, U::bytes, "l2 line", kLine, "L2 line"},
    Quantity{"L2_DRAM_FETCH_BYTES", "caches.l2.dram_fetch_bytes", S::estimate, H::u32, U::bytes, "latencies", kLine, "DRAM fetch per L2 miss"},
    Quantity{"L2_NEAR_LATENCY_CYCLES", "caches.l2.near_latency_cycles", S::latency, H::u32, U::cycles, "latencies", kCycles, "L2 near hit latency"},
    Quantity{"L2_FAR_LATENCY_CYCLES", "caches.l2.far_latency_cycles", S::latency, H::u32, U::cycles, "hierarchy curve", kCycles, "L2 far hit latency"},
    Quantity{"L2_MISS_PENALTY_CYCLES", "caches.l2.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "hierarchy curve", kCycles, "L2 near miss penalty (to DRAM)"},
    Quantity{"L2_BANDWIDTH_BYTES_PER_S", "caches.l2.bandwidth_bytes_per_s", S::estimate, H::u64, U::bytes_per_s, "bandwidths", kBandwidth, "L2 read bandwidth, all SMs"},
    Quantity{"DRAM_SIZE_BYTES", "caches.dram.size_bytes", S::estimate, H::u64, U::bytes, "api", kDeviceMemoryBytes, "device memory"},
    Quantity{"DRAM_LATENCY_CYCLES", "caches.dram.latency_cycles", S::latency, H::u32, U::cycles, "hierarchy curve", kCycles, "DRAM load latency"},
    Quantity{"DRAM_BANDWIDTH_BYTES_PER_S", "caches.dram.bandwidth_bytes_per_s", S::estimate, H::u64, U::bytes_per_s, "bandwidths", kBandwidth, "DRAM read bandwidth, all SMs"},
    // --- distributed shared memory (thread block clusters, cc >= 9.0) ------------------------------
    Quantity{"CLUSTER_MAX_BLOCKS", "cluster.max_blocks", S::estimate, H::u32, U::blocks, "dsmem", kClusterBlocks, "blocks per cluster, at most (non-portable sizes allowed)"},
    Quantity{"DSMEM_LATENCY_CYCLES", "cluster.remote_latency_cycles", S::latency, H::u32, U::cycles, "dsmem", kCycles, "load latency from another block's shared memory"},
    Quantity{"DSMEM_BANDWIDTH_BYTES_PER_S", "cluster.remote_bandwidth_bytes_per_s", S::estimate, H::u64, U::bytes_per_s, "dsmem", kBandwidth, "remote shared memory read bandwidth, all SMs"},
    // --- address translation of cudaMalloc memory -----------------------------------------------------
    Quantity{"TLB_ENTRIES", "tlb.entries", S::estimate, H::u32, U::entries, "tlb", {1, 1e6}, "first TLB level entries (elements 64 MiB apart before one slows)"},
    Quantity{"TLB_COVERAGE_BYTES", "tlb.coverage_bytes", S::estimate, H::u64, U::bytes, "tlb", kBytes, "memory one entry of the first TLB level maps"},
    Quantity{"TLB_REACH_BYTES", "tlb.reach_bytes", S::estimate, H::u64, U::bytes, "tlb", kBytes, "first TLB level reach (entries x coverage)"},
    Quantity{"TLB_MISS_PENALTY_CYCLES", "tlb.miss_penalty_cycles", S::estimate, H::u32, U::cycles, "tlb", kCycles, "latency added by a first-level TLB miss"},
    Quantity{"PAGE_BYTES", "tlb.page_bytes", S::estimate, H::u64, U::bytes, "-", kBytes, "page size the driver maps", "latencies show what one TLB entry covers, not whether that is one page or several coalesced; the driver does not report its page size"},
    // --- which caches are one physical storage: 1 same, 0 separate ---------------------------------
    Quantity{"L1_TEXTURE_SAME_STORAGE", "sharing.l1_texture", S::estimate, H::flag, U::flag, "sharing", kFlag, "L1 and texture share storage"},
    Quantity{"L1_READONLY_SAME_STORAGE", "sharing.l1_readonly", S::estimate, H::flag, U::flag, "sharing", kFlag, "L1 and read-only share storage"},
    Quantity{"TEXTURE_READONLY_SAME_STORAGE", "sharing.texture_readonly", S::estimate, H::flag, U::flag, "sharing", kFlag, "texture and read-only share storage"},
    Quantity{"L1_CONSTANT_L1_SAME_STORAGE", "sharing.l1_constant_l1", S::estimate, H::flag, U::flag, "sharing", kFlag, "L1 and constant L1 share storage"},
    Quantity{"TEXTURE_CONSTANT_L1_SAME_STORAGE", "sharing.texture_constant_l1", S::estimate, H::flag, U::flag, "sharing", kFlag, "texture and constant L1 share storage"},
    Quantity{"READONLY_CONSTANT_L1_SAME_STORAGE", "sharing.readonly_constant_l1", S::estimate, H::flag, U::flag, "sharing", kFlag, "read-only and constant L1 share storage"},
};
// clang-format on

// Whether another run on the same GPU must measure `q` alike: not what the CUDA
// runtime reports (stage "api": equal by construction), nor a condition one run
// met (the SM clock it got, which the warm-up stage measures). A re-measurement
// and a node's common facts compare these, and only these.
constexpr bool is_remeasurable(const Quantity& q) { return q.stage != "api" && q.stage != "warm-up"; }

// Index of a quantity in kQuantities. consteval: a misspelt name in a stage
// fails to compile.
using QuantityId = std::size_t;
consteval QuantityId id(std::string_view name) {
    for (std::size_t i = 0; i < kQuantities.size(); ++i)
        if (kQuantities[i].name == name) return i;
    throw "no quantity of this name in model/quantities.hpp";
}
// The same at run time (CMake names, test input); kQuantities.size() when unknown.
constexpr QuantityId find(std::string_view name) {
    for (std::size_t i = 0; i < kQuantities.size(); ++i)
        if (kQuantities[i].name == name) return i;
    return kQuantities.size();
}

// The identity and the clock, which the header, the table and the serializer need by name.
inline constexpr QuantityId kSmCount = id("SM_COUNT");
inline constexpr QuantityId kCcMajor = id("CC_MAJOR");
inline constexpr QuantityId kCcMinor = id("CC_MINOR");
inline constexpr QuantityId kSmClockKhz = id("SM_CLOCK_KHZ");
// What a configure prints when it does not print the whole table.
inline constexpr std::array kHeadline{id("L1_SIZE_BYTES"), id("L2_NEAR_SIZE_BYTES"), id("L2_SIZE_BYTES")};

// `smaller` must not exceed `larger` (strictly less when `strict`), whenever both are known;
// with `plus`, not `larger` + `plus` (whenever all three are known).
struct Relation {
    std::string_view smaller;
    std::string_view larger;
    bool strict;
    std::string_view why;
    // How far a measured `smaller` may exceed `larger`, as a share of `larger`:
    // the measurement's own error, where one side is an estimate of the other.
    double slack = 0;
    std::string_view plus = {};
    // `plus_value` is 0 when the relation has no `plus`.
    constexpr bool holds(double a, double b, double plus_value) const {
        const double bound = (b + plus_value) * (1 + slack);
        return strict ? a < bound : a <= bound;
    }
};

// clang-format off
inline constexpr std::array kRelations{
    Relation{"L1_SECTOR_BYTES", "L1_LINE_BYTES", false, "a fetch fills part of a line"},
    Relation{"L1_LINE_BYTES", "L1_SIZE_BYTES", false, "a cache holds at least one line"},
    Relation{"L1_SIZE_MAX_SHARED_CARVEOUT_BYTES", "L1_SIZE_BYTES", true, "the max-shared carveout leaves L1 less room"},
    Relation{"L1_SIZE_BYTES", "L2_SIZE_BYTES", true, "L1 is smaller than L2"},
    Relation{"L1_LATENCY_CYCLES", "L2_NEAR_LATENCY_CYCLES", true, "an L1 hit is faster than an L2 hit"},
    Relation{"TEXTURE_SECTOR_BYTES", "TEXTURE_LINE_BYTES", false, "a fetch fills part of a line"},
    Relation{"TEXTURE_LINE_BYTES", "TEXTURE_SIZE_BYTES", false, "a cache holds at least one line"},
    Relation{"READONLY_SECTOR_BYTES", "READONLY_LINE_BYTES", false, "a fetch fills part of a line"},
    Relation{"READONLY_LINE_BYTES", "READONLY_SIZE_BYTES", false, "a cache holds at least one line"},
    Relation{"CONSTANT_L1_SECTOR_BYTES", "CONSTANT_L1_LINE_BYTES", false, "a fetch fills part of a line"},
    Relation{"CONSTANT_L1_LINE_BYTES", "CONSTANT_L1_SIZE_BYTES", false, "a cache holds at least one line"},
    Relation{"CONSTANT_L1_SIZE_BYTES", "CONSTANT_L15_SIZE_BYTES", true, "the constant L1 sits in front of the larger L1.5"},
    Relation{"SHARED_PER_BLOCK_OPTIN_BYTES", "SHARED_SIZE_PER_SM_BYTES", false, "a block gets at most an SM's shared memory"},
    Relation{"L2_DRAM_FETCH_BYTES", "L2_LINE_BYTES", false, "a fetch fills part of a line"},
    Relation{"L2_LINE_BYTES", "L2_NEAR_SIZE_BYTES", false, "a cache holds at least one line"},
    Relation{"L2_NEAR_SIZE_BYTES", "L2_SIZE_BYTES", false, "the near part of L2 lies within L2"},
    Relation{"L2_NEAR_LATENCY_CYCLES", "L2_FAR_LATENCY_CYCLES", true, "the far L2 partition is slower"},
    Relation{"L2_NEAR_LATENCY_CYCLES", "DRAM_LATENCY_CYCLES", true, "an L2 hit is faster than DRAM"},
    Relation{"L2_SIZE_BYTES", "DRAM_SIZE_BYTES", true, "L2 caches a larger memory"},
    Relation{"DRAM_BANDWIDTH_BYTES_PER_S", "L2_BANDWIDTH_BYTES_PER_S", true, "L2 serves reads faster than DRAM"},
    Relation{"SHARED_LATENCY_CYCLES", "DSMEM_LATENCY_CYCLES", true, "another SM's shared memory is farther than the own"},
    Relation{"DSMEM_BANDWIDTH_BYTES_PER_S", "SHARED_BANDWIDTH_BYTES_PER_S", true, "remote reads cross the SM-to-SM network"},
    Relation{"TLB_COVERAGE_BYTES", "TLB_REACH_BYTES", false, "the reach is entries times coverage"},
    Relation{"L2_FAR_LATENCY_CYCLES", "DRAM_LATENCY_CYCLES", true, "an L2 hit, even in the far partition, is faster than DRAM"},
    Relation{"L2_PERSISTING_MAX_BYTES", "L2_SIZE_BYTES", false, "the persisting set-aside is a part of L2"},
    Relation{"L1_SIZE_DEFAULT_CARVEOUT_BYTES", "L1_SIZE_BYTES", false, "the max-L1 carveout gives L1 the most room"},
    Relation{"TEXTURE_SIZE_BYTES", "L1_SIZE_BYTES", false, "the texture cache lies in the storage of L1 and shared memory", 0, "SHARED_SIZE_PER_SM_BYTES"},
    Relation{"READONLY_SIZE_BYTES", "L1_SIZE_BYTES", false, "the read-only cache lies in the storage of L1 and shared memory", 0, "SHARED_SIZE_PER_SM_BYTES"},
    Relation{"L2_BANDWIDTH_BYTES_PER_S", "L1_BANDWIDTH_BYTES_PER_S", true, "L1 hits are read faster than L2"},
    // What no GPU of cc 5.0-12.x does: a level nearer the SM is faster than one farther out,
    // a miss waits longer than a hit, and the clock stays within what the API reports.
    Relation{"L1_SIZE_BYTES", "L2_NEAR_SIZE_BYTES", true, "L1 is smaller than the near part of L2"},
    Relation{"DRAM_BANDWIDTH_BYTES_PER_S", "L1_BANDWIDTH_BYTES_PER_S", true, "L1 hits are read faster than DRAM"},
    Relation{"DRAM_BANDWIDTH_BYTES_PER_S", "SHARED_BANDWIDTH_BYTES_PER_S", true, "shared memory is read faster than DRAM"},
    Relation{"L1_LATENCY_CYCLES", "DRAM_LATENCY_CYCLES", true, "an L1 hit is faster than DRAM"},
    Relation{"L1_LATENCY_CYCLES", "L1_MISS_LATENCY_CYCLES", true, "a miss waits for the next level"},
    Relation{"TEXTURE_LATENCY_CYCLES", "TEXTURE_MISS_LATENCY_CYCLES", true, "a miss waits for the next level"},
    Relation{"READONLY_LATENCY_CYCLES", "READONLY_MISS_LATENCY_CYCLES", true, "a miss waits for the next level"},
    Relation{"CONSTANT_L1_LATENCY_CYCLES", "CONSTANT_L15_LATENCY_CYCLES", true, "the constant L1 sits in front of the L1.5"},
    Relation{"CONSTANT_L15_LATENCY_CYCLES", "CONSTANT_L15_MISS_LATENCY_CYCLES", true, "a miss waits for the next level"},
    Relation{"L1_MISS_PENALTY_CYCLES", "L1_MISS_LATENCY_CYCLES", true, "the penalty is part of the miss latency"},
    Relation{"TEXTURE_MISS_PENALTY_CYCLES", "TEXTURE_MISS_LATENCY_CYCLES", true, "the penalty is part of the miss latency"},
    Relation{"READONLY_MISS_PENALTY_CYCLES", "READONLY_MISS_LATENCY_CYCLES", true, "the penalty is part of the miss latency"},
    Relation{"CONSTANT_L1_MISS_PENALTY_CYCLES", "CONSTANT_L15_LATENCY_CYCLES", true, "the penalty is part of the L1.5 latency"},
    Relation{"CONSTANT_L15_MISS_PENALTY_CYCLES", "CONSTANT_L15_MISS_LATENCY_CYCLES", true, "the penalty is part of the miss latency"},
    Relation{"L2_MISS_PENALTY_CYCLES", "DRAM_LATENCY_CYCLES", true, "the penalty is part of the DRAM latency"},
    // The clock is clock64 cycles over globaltimer nanoseconds; a GPU-test probe on an H100 read 1994.75 MHz
    // against a 1980 MHz maximum (+0.75 %), so the estimate may exceed the maximum by its error.
    Relation{"SM_CLOCK_KHZ", "SM_CLOCK_MAX_KHZ", false, "the SM clock stays at or below the maximum the CUDA runtime reports, within 2 % (the estimate's error)", 0.02},
};
// clang-format on

// Every relation names two quantities of the list.
consteval bool relations_name_quantities() {
    for (const auto& r : kRelations) {
        if (find(r.smaller) == kQuantities.size() || find(r.larger) == kQuantities.size()) return false;
        if (!r.plus.empty() && find(r.plus) == kQuantities.size()) return false;
    }
    return true;
}
static_assert(relations_name_quantities(), "a relation names a quantity that is not in kQuantities");

// `product` = `factor` x `other_factor`, whenever all three are known and none is a lower bound.
struct Product {
    std::string_view product;
    std::string_view factor;
    std::string_view other_factor;
    std::string_view why;
};
inline constexpr std::array kProducts{
    Product{"TLB_REACH_BYTES", "TLB_ENTRIES", "TLB_COVERAGE_BYTES", "the reach is entries times coverage"},
};

// A quantity that only devices of at least compute capability `major`.`minor` have:
// on an older one it must be unmeasured.
struct NeedsComputeCapability {
    std::string_view name;
    int major, minor;
    std::string_view what;
};
// Thread block clusters and distributed shared memory came with cc 9.0 (CUDA C++
// Programming Guide, "Thread Block Clusters").
inline constexpr std::array kNeedsComputeCapability{
    NeedsComputeCapability{"CLUSTER_MAX_BLOCKS", 9, 0, "thread block clusters"},
    NeedsComputeCapability{"DSMEM_LATENCY_CYCLES", 9, 0, "distributed shared memory"},
    NeedsComputeCapability{"DSMEM_BANDWIDTH_BYTES_PER_S", 9, 0, "distributed shared memory"},
};

// `difference` = `minuend` - `subtrahend` within `tolerance`, whenever all three are known:
// a penalty the probe derives from two latencies it writes (the difference of
// their medians, rounded to a whole cycle; each median written to 0.01).
struct Difference {
    std::string_view difference;
    std::string_view minuend;
    std::string_view subtrahend;
    std::string_view why;
    double tolerance = 1;
};
// clang-format off
inline constexpr std::array kDifferences{
    Difference{"L1_MISS_PENALTY_CYCLES", "L1_MISS_LATENCY_CYCLES", "L1_LATENCY_CYCLES", "the penalty is the miss latency less the hit latency"},
    Difference{"TEXTURE_MISS_PENALTY_CYCLES", "TEXTURE_MISS_LATENCY_CYCLES", "TEXTURE_LATENCY_CYCLES", "the penalty is the miss latency less the hit latency"},
    Difference{"READONLY_MISS_PENALTY_CYCLES", "READONLY_MISS_LATENCY_CYCLES", "READONLY_LATENCY_CYCLES", "the penalty is the miss latency less the hit latency"},
    Difference{"CONSTANT_L1_MISS_PENALTY_CYCLES", "CONSTANT_L15_LATENCY_CYCLES", "CONSTANT_L1_LATENCY_CYCLES", "a constant L1 miss is served by the L1.5"},
    Difference{"CONSTANT_L15_MISS_PENALTY_CYCLES", "CONSTANT_L15_MISS_LATENCY_CYCLES", "CONSTANT_L15_LATENCY_CYCLES", "the penalty is the miss latency less the hit latency"},
    Difference{"L2_MISS_PENALTY_CYCLES", "DRAM_LATENCY_CYCLES", "L2_NEAR_LATENCY_CYCLES", "an L2 miss is served by DRAM"},
};
// clang-format on

// The sections of a profile are the objects along the quantities' paths
// ("caches", "caches.l1", ...; "" is the document). Besides quantities and
// sections they hold only these members; any other is refused (a misspelt
// quantity would otherwise read as unmeasured).
inline constexpr std::array<std::string_view, 10> kOtherMembers{
    "schema", "source", "probe", "conditions", "curve", "cross_checks",
    "device.index", "device.name", "device.uuid", "caches.l1.carveouts"};
// Every quantity of the list is in every profile a probe of this version or later writes,
// but those added since, each with the version that first writes it: a quantity absent from
// a newer profile is refused, from an older one reads as unmeasured.
inline constexpr std::string_view kEveryQuantitySince = "1.2.1";
struct AddedSince {
    std::string_view name;
    std::string_view version;
};
inline constexpr std::array<AddedSince, 0> kAddedSince{};

consteval bool rules_name_quantities() {
    for (const auto& p : kProducts)
        if (find(p.product) == kQuantities.size() || find(p.factor) == kQuantities.size() ||
            find(p.other_factor) == kQuantities.size())
            return false;
    for (const auto& n : kNeedsComputeCapability)
        if (find(n.name) == kQuantities.size()) return false;
    for (const auto& d : kDifferences)
        if (find(d.difference) == kQuantities.size() || find(d.minuend) == kQuantities.size() ||
            find(d.subtrahend) == kQuantities.size())
            return false;
    for (const auto& a : kAddedSince)
        if (find(a.name) == kQuantities.size()) return false;
    return true;
}
static_assert(rules_name_quantities(), "a product, difference, compute-capability or added-since rule names a quantity that is not in kQuantities");

// Quantities renamed after profiles with the old name were written: such a
// profile reads the old member as the new one (profile::parse_profile_text),
// and the header and the CMake variables keep the old name as a deprecated
// alias. A rename stays within its object (only the member changes).
struct Renamed {
    std::string_view old_name;  // the old macro / CMake variable suffix
    std::string_view old_path;  // where old profiles hold it
    std::string_view name;      // the quantity it is now
    std::string_view why;
};
inline constexpr std::array kRenamed{
    // What the L2 line stage measures is the DRAM fetch granularity, not a sector of
    // L2's own (L1's sector_bytes is one): renamed in probe 1.2.0.
    Renamed{"L2_SECTOR_BYTES", "caches.l2.sector_bytes", "L2_DRAM_FETCH_BYTES", "renamed in probe 1.2.0 (L2_DRAM_FETCH_BYTES, l2.dram_fetch_bytes): what one DRAM fetch brings, not an L2 sector"},
};

consteval bool renames_stay_in_their_object() {
    for (const auto& r : kRenamed) {
        const auto i = find(r.name);
        if (i == kQuantities.size() || find(r.old_name) != kQuantities.size()) return false;
        const auto& q = kQuantities[i];
        const auto parent = q.path.substr(0, q.path.rfind('.'));
        if (r.old_path.substr(0, r.old_path.rfind('.')) != parent || r.old_path == q.path) return false;
    }
    return true;
}
static_assert(renames_stay_in_their_object(), "a rename names no quantity, an old name still in use, or another object");

consteval bool names_and_paths_are_unique() {
    for (std::size_t i = 0; i < kQuantities.size(); ++i)
        for (std::size_t j = i + 1; j < kQuantities.size(); ++j)
            if (kQuantities[i].name == kQuantities[j].name || kQuantities[i].path == kQuantities[j].path) return false;
    return true;
}
static_assert(names_and_paths_are_unique(), "two quantities share a name or a path");

}  // namespace gpu_topology::model
