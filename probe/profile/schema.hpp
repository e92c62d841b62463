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
    quantity,  // {"value": n|null, "unit", "source", "method", "confidence"[, "reason"]}
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
    QuantitySpec{"L1_SIZE_BYTES", "caches.l1.size_bytes", Kind::quantity, "bytes", "L1 data, max-L1 carveout"},
    QuantitySpec{"L1_SIZE_DEFAULT_CARVEOUT_BYTES", "caches.l1.size_bytes_default_carveout", Kind::quantity, "bytes",
                 "L1 data, default carveout"},
    QuantitySpec{"L1_SIZE_MAX_SHARED_CARVEOUT_BYTES", "caches.l1.size_bytes_max_shared_carveout", Kind::quantity,
                 "bytes", "L1 data, max-shared carveout"},
    QuantitySpec{"L1_LINE_BYTES", "caches.l1.line_bytes", Kind::quantity, "bytes", "L1 line"},
    QuantitySpec{"L1_SECTOR_BYTES", "caches.l1.sector_bytes", Kind::quantity, "bytes", "L1 fetch granularity"},
    QuantitySpec{"L1_LATENCY_CYCLES", "caches.l1.latency_cycles", Kind::latency, "cycles", "L1 hit latency"},
    QuantitySpec{"SHARED_SIZE_PER_SM_BYTES", "caches.shared.size_bytes", Kind::quantity, "bytes", "shared memory per SM"},
    QuantitySpec{"SHARED_SIZE_PER_BLOCK_OPTIN_BYTES", "caches.shared.per_block_optin_bytes", Kind::quantity, "bytes",
                 "shared memory per block (opt-in)"},
    QuantitySpec{"SHARED_LATENCY_CYCLES", "caches.shared.latency_cycles", Kind::latency, "cycles",
                 "shared memory load latency"},
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
    QuantitySpec{"DRAM_SIZE_BYTES", "caches.dram.size_bytes", Kind::quantity, "bytes", "device memory"},
    QuantitySpec{"DRAM_LATENCY_CYCLES", "caches.dram.latency_cycles", Kind::latency, "cycles", "DRAM load latency"},
    QuantitySpec{"CONSTANT_SIZE_BYTES", "caches.constant.size_bytes", Kind::quantity, "bytes", "constant memory"},
};

constexpr const QuantitySpec* find_quantity(std::string_view name) {
    for (const auto& q : kQuantities)
        if (q.name == name) return &q;
    return nullptr;
}

}  // namespace gpu_topology::profile
