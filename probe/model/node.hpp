#pragma once
// A node: every GPU of one machine, each with its own profile, and the links
// between every ordered pair. The list of link quantities below plays the
// role quantities.hpp plays for one device: the node schema, its validation,
// the header's link table, the printed table and the picture all come from it.
#include "util/json.hpp"
#include "topology.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_topology::model {

inline constexpr std::string_view kNodeSchema = "gpu-topology-node/1";
// A node profile lists at most this many devices (NVIDIA's largest NVLink
// domains within one OS image stay far below it).
inline constexpr std::size_t kMaxNodeDevices = 64;

// One measured quantity of a link from device `from` to device `to`: what a
// kernel or copy on `from` gets from, or gives to, memory on `to`.
struct LinkQuantity {
    std::string_view member;  // the profile key and the header member
    Unit unit;                // bytes/s, ns or cycles
    double min, max;          // the range a value must lie in
    std::string_view label;   // one line for the table and the docs
};

inline constexpr std::array<LinkQuantity, 6> kLinkQuantities{{
    {"ce_read_bytes_per_s", Unit::bytes_per_s, 1e6, 1e14,
     "copy engine: cudaMemcpyPeerAsync on `from`'s stream, `to`'s memory into `from`'s"},
    {"ce_write_bytes_per_s", Unit::bytes_per_s, 1e6, 1e14,
     "copy engine: cudaMemcpyPeerAsync on `from`'s stream, `from`'s memory into `to`'s"},
    {"sm_read_bytes_per_s", Unit::bytes_per_s, 1e6, 1e14, "SMs of `from` load `to`'s memory (16-byte loads, every SM)"},
    {"sm_write_bytes_per_s", Unit::bytes_per_s, 1e6, 1e14, "SMs of `from` store into `to`'s memory (16-byte stores, every SM)"},
    {"load_latency_ns", Unit::ns, 1, 1e6, "one thread of `from` chases pointers in `to`'s memory (ld.global.cg), median"},
    {"load_latency_cycles", Unit::cycles, 1, 1e7, "the same chase in `from`'s SM clock cycles, median"},
}};

// A link quantity as measured: the median of its repeats and their range, or
// why it has no value.
struct LinkValue {
    std::optional<double> value;
    Spread spread;       // when value
    std::string reason;  // when !value
};

// What connects `from` to `to`: how peer access would go, before anything is measured.
struct LinkRoute {
    bool peer_access = false;        // cudaDeviceCanAccessPeer(from, to)
    int performance_rank = -1;       // cudaDevP2PAttrPerformanceRank; -1: not reported
    bool native_atomics = false;     // cudaDevP2PAttrNativeAtomicSupported
    std::string transport;           // "nvlink", "nvswitch", "pcie" or "unknown"
    std::uint32_t nvlinks = 0;       // NVLinks of `from` to `to` (nvswitch: all of them, into the switches)
    std::optional<double> nominal_bytes_per_s;  // those links' NVML speeds summed, one direction
    std::string route_source;        // where transport and nvlinks come from
};

struct Link {
    int from = 0, to = 0;
    LinkRoute route;
    std::array<LinkValue, kLinkQuantities.size()> values;
};

struct NodeTopology {
    std::string probe_version;
    double duration_s = 0;          // the whole node: devices in parallel, then the links
    double slowest_device_s = 0;    // the longest single-device probe among them
    double links_s = 0;
    std::vector<Topology> devices;    // what each device's probe measured, in device order
    std::vector<Link> links;             // every ordered pair
};

util::Json to_json(const NodeTopology& node);

// The index of `member` in kLinkQuantities. Evaluated while compiling (consteval):
// a misspelt member reaches the throw, and the call does not compile.
consteval std::size_t link_quantity_index(std::string_view member) {
    for (std::size_t i = 0; i < kLinkQuantities.size(); ++i)
        if (kLinkQuantities[i].member == member) return i;
    throw std::out_of_range("no link quantity '" + std::string(member) + "'");
}

}  // namespace gpu_topology::model
