#pragma once
// The one list of quantities a profile carries. Validation, the header
// (constants and GPU_TOPOLOGY_<NAME> macros), the CMake variables read by
// gpu_topology_require() and the printed table are all driven by this table:
// adding a quantity is adding a row.
#include <array>
#include <string_view>

namespace gpu_topology::profile {

inline constexpr std::string_view kSchema = "gpu-topology/1";

enum class Kind {
    quantity,  // {"value": n|null, "unit", "source", "method", "confidence"[, "reason"][, "bound": "lower"]}
    latency,   // {"p05","p50","mean","p95","samples","p50_ns","footprint_bytes","source","method","confidence"}
};

struct QuantitySpec {
    std::string_view name;  // GPU_TOPOLOGY_<name>; also the CMake variable and require() key
    std::string_view path;  // dotted JSON path in the profile
    Kind kind;
    std::string_view unit;
    std::string_view label;  // for the printed table
};

inline constexpr std::array kQuantities{
    QuantitySpec{"SM_CLOCK_KHZ", "device.sm_clock_khz.measured", Kind::quantity, "kHz", "SM clock during the probe"},
    QuantitySpec{"SM_CLOCK_MAX_KHZ", "device.sm_clock_khz.max", Kind::quantity, "kHz", "SM clock, maximum"},
    // L1 data (ld.global.ca)
    QuantitySpec{"L1_SIZE_BYTES", "caches.l1.size_bytes", Kind::quantity, "bytes", "L1 data, max-L1 carveout"},
    QuantitySpec{"L1_SIZE_DEFAULT_CARVEOUT_BYTES", "caches.l1.size_bytes_default_carveout", Kind::quantity, "bytes",
                 "L1 data, default carveout"},
    QuantitySpec{"L1_SIZE_MAX_SHARED_CARVEOUT_BYTES", "caches.l1.size_bytes_max_shared_carveout", Kind::quantity,
                 "bytes", "L1 data, max-shared carveout"},
    QuantitySpec{"L1_LINE_BYTES", "caches.l1.line_bytes", Kind::quantity, "bytes", "L1 line"},
    QuantitySpec{"L1_SECTOR_BYTES", "caches.l1.sector_bytes", Kind::quantity, "bytes", "L1 fetch granularity"},
    QuantitySpec{"L1_LATENCY_CYCLES", "caches.l1.latency_cycles", Kind::latency, "cycles", "L1 hit latency"},
    QuantitySpec{"L1_MISS_PENALTY_CYCLES", "caches.l1.miss_penalty_cycles", Kind::quantity, "cycles",
                 "L1 miss penalty (to L2)"},
    QuantitySpec{"L1_PER_SM", "caches.l1.per_sm", Kind::quantity, "instances", "L1 instances per SM"},
    // texture (tex1Dfetch)
    QuantitySpec{"TEXTURE_SIZE_BYTES", "caches.texture.size_bytes", Kind::quantity, "bytes",
                 "texture, max-L1 carveout"},
    QuantitySpec{"TEXTURE_LINE_BYTES", "caches.texture.line_bytes", Kind::quantity, "bytes", "texture line"},
    QuantitySpec{"TEXTURE_SECTOR_BYTES", "caches.texture.sector_bytes", Kind::quantity, "bytes",
                 "texture fetch granularity"},
    QuantitySpec{"TEXTURE_LATENCY_CYCLES", "caches.texture.latency_cycles", Kind::latency, "cycles",
                 "texture hit latency"},
    QuantitySpec{"TEXTURE_MISS_PENALTY_CYCLES", "caches.texture.miss_penalty_cycles", Kind::quantity, "cycles",
                 "texture miss penalty (to L2)"},
    QuantitySpec{"TEXTURE_PER_SM", "caches.texture.per_sm", Kind::quantity, "instances", "texture instances per SM"},
    // read-only (ld.global.nc)
    QuantitySpec{"READONLY_SIZE_BYTES", "caches.readonly.size_bytes", Kind::quantity, "bytes",
                 "read-only, max-L1 carveout"},
    QuantitySpec{"READONLY_LINE_BYTES", "caches.readonly.line_bytes", Kind::quantity, "bytes", "read-only line"},
    QuantitySpec{"READONLY_SECTOR_BYTES", "caches.readonly.sector_bytes", Kind::quantity, "bytes",
                 "read-only fetch granularity"},
    QuantitySpec{"READONLY_LATENCY_CYCLES", "caches.readonly.latency_cycles", Kind::latency, "cycles",
                 "read-only hit latency"},
    QuantitySpec{"READONLY_MISS_PENALTY_CYCLES", "caches.readonly.miss_penalty_cycles", Kind::quantity, "cycles",
                 "read-only miss penalty (to L2)"},
    QuantitySpec{"READONLY_PER_SM", "caches.readonly.per_sm", Kind::quantity, "instances",
                 "read-only instances per SM"},
    // constant caches (ld.const)
    QuantitySpec{"CONSTANT_L1_SIZE_BYTES", "caches.constant_l1.size_bytes", Kind::quantity, "bytes", "constant L1"},
    QuantitySpec{"CONSTANT_L1_LINE_BYTES", "caches.constant_l1.line_bytes", Kind::quantity, "bytes",
                 "constant L1 line"},
    QuantitySpec{"CONSTANT_L1_SECTOR_BYTES", "caches.constant_l1.sector_bytes", Kind::quantity, "bytes",
                 "constant L1 fetch granularity"},
    QuantitySpec{"CONSTANT_L1_LATENCY_CYCLES", "caches.constant_l1.latency_cycles", Kind::latency, "cycles",
                 "constant L1 hit latency"},
    QuantitySpec{"CONSTANT_L1_MISS_PENALTY_CYCLES", "caches.constant_l1.miss_penalty_cycles", Kind::quantity,
                 "cycles", "constant L1 miss penalty (to L1.5)"},
    QuantitySpec{"CONSTANT_L1_PER_SM", "caches.constant_l1.per_sm", Kind::quantity, "instances",
                 "constant L1 instances per SM"},
    QuantitySpec{"CONSTANT_L15_SIZE_BYTES", "caches.constant_l15.size_bytes", Kind::quantity, "bytes",
                 "constant L1.5"},
    QuantitySpec{"CONSTANT_L15_SECTOR_BYTES", "caches.constant_l15.sector_bytes", Kind::quantity, "bytes",
                 "constant L1.5 fetch granularity"},
    QuantitySpec{"CONSTANT_L15_LATENCY_CYCLES", "caches.constant_l15.latency_cycles", Kind::latency, "cycles",
                 "constant L1.5 hit latency"},
    QuantitySpec{"CONSTANT_L15_MISS_PENALTY_CYCLES", "caches.constant_l15.miss_penalty_cycles", Kind::quantity,
                 "cycles", "constant L1.5 miss penalty (to L2)"},
    QuantitySpec{"CONSTANT_SIZE_BYTES", "caches.constant.size_bytes", Kind::quantity, "bytes", "constant memory"},
    // shared memory
    QuantitySpec{"SHARED_SIZE_PER_SM_BYTES", "caches.shared.size_bytes", Kind::quantity, "bytes", "shared memory per SM"},
    QuantitySpec{"SHARED_SIZE_PER_BLOCK_OPTIN_BYTES", "caches.shared.per_block_optin_bytes", Kind::quantity, "bytes",
                 "shared memory per block (opt-in)"},
    QuantitySpec{"SHARED_LATENCY_CYCLES", "caches.shared.latency_cycles", Kind::latency, "cycles",
                 "shared memory load latency"},
    // L2 and DRAM
    QuantitySpec{"L2_SIZE_BYTES", "caches.l2.size_bytes", Kind::quantity, "bytes", "L2 total"},
    QuantitySpec{"L2_NEAR_SIZE_BYTES", "caches.l2.near_size_bytes", Kind::quantity, "bytes",
                 "L2 an SM reuses at near latency"},
    QuantitySpec{"L2_LINE_BYTES", "caches.l2.line_bytes", Kind::quantity, "bytes", "L2 line"},
    QuantitySpec{"L2_SECTOR_BYTES", "caches.l2.sector_bytes", Kind::quantity, "bytes",
                 "L2 fetch granularity from DRAM"},
    QuantitySpec{"L2_NEAR_LATENCY_CYCLES", "caches.l2.near_latency_cycles", Kind::latency, "cycles",
                 "L2 near hit latency"},
    QuantitySpec{"L2_FAR_LATENCY_CYCLES", "caches.l2.far_latency_cycles", Kind::latency, "cycles",
                 "L2 far hit latency"},
    QuantitySpec{"L2_MISS_PENALTY_CYCLES", "caches.l2.miss_penalty_cycles", Kind::quantity, "cycles",
                 "L2 near miss penalty (to DRAM)"},
    QuantitySpec{"L2_BANDWIDTH_BYTES_PER_S", "caches.l2.bandwidth_bytes_per_s", Kind::quantity, "bytes/s",
                 "L2 read bandwidth, all SMs"},
    QuantitySpec{"DRAM_SIZE_BYTES", "caches.dram.size_bytes", Kind::quantity, "bytes", "device memory"},
    QuantitySpec{"DRAM_BANDWIDTH_BYTES_PER_S", "caches.dram.bandwidth_bytes_per_s", Kind::quantity, "bytes/s",
                 "DRAM read bandwidth, all SMs"},
    QuantitySpec{"DRAM_LATENCY_CYCLES", "caches.dram.latency_cycles", Kind::latency, "cycles", "DRAM load latency"},
    // which caches are one physical storage (1) or separate (0)
    QuantitySpec{"L1_TEXTURE_SAME_STORAGE", "sharing.l1_texture", Kind::quantity, "bool", "L1 and texture share storage"},
    QuantitySpec{"L1_READONLY_SAME_STORAGE", "sharing.l1_readonly", Kind::quantity, "bool",
                 "L1 and read-only share storage"},
    QuantitySpec{"TEXTURE_READONLY_SAME_STORAGE", "sharing.texture_readonly", Kind::quantity, "bool",
                 "texture and read-only share storage"},
    QuantitySpec{"L1_CONSTANT_L1_SAME_STORAGE", "sharing.l1_constant_l1", Kind::quantity, "bool",
                 "L1 and constant L1 share storage"},
    QuantitySpec{"TEXTURE_CONSTANT_L1_SAME_STORAGE", "sharing.texture_constant_l1", Kind::quantity, "bool",
                 "texture and constant L1 share storage"},
    QuantitySpec{"READONLY_CONSTANT_L1_SAME_STORAGE", "sharing.readonly_constant_l1", Kind::quantity, "bool",
                 "read-only and constant L1 share storage"},
};

constexpr const QuantitySpec* find_quantity(std::string_view name) {
    for (const auto& q : kQuantities)
        if (q.name == name) return &q;
    return nullptr;
}

}  // namespace gpu_topology::profile
