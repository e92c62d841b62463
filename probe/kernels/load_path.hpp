#pragma once
// Which hardware path a pointer-chase load takes. Adding a cache means adding a
// value here and one `load_next` specialisation in pchase.cu; the benchmarks
// (size, line, latency) are written once against this parameter.
#include <cstdint>
#include <string_view>

namespace gpu_topology::kernels {

enum class LoadPath : std::uint8_t {
    none,    // no load: times the clock read + dependent store alone (overhead)
    l1,      // ld.global.ca: cached in L1 and L2
    l2,      // ld.global.cg: cached in L2 only, bypasses L1
    shared,  // ld.shared: the ring lives in shared memory
};

constexpr std::string_view to_string(LoadPath path) {
    switch (path) {
        case LoadPath::none: return "none";
        case LoadPath::l1: return "l1";
        case LoadPath::l2: return "l2";
        case LoadPath::shared: return "shared";
    }
    return "?";
}

}  // namespace gpu_topology::kernels
