#pragma once
// Which hardware path a pointer-chase load takes. Adding a cache means adding a
// value here, one `load_next` specialisation in pchase.cu and one row in the
// cache table (probe/stages/cache_family.hpp); the questions (size, line,
// latency, sharing, count) are written once against this parameter.
#include <cstdint>
#include <string_view>

namespace gpu_topology::kernels {

enum class LoadPath : std::uint8_t {
    none,      // no load: times the clock read + dependent store alone (overhead)
    l1,        // ld.global.ca: cached in L1 and L2
    l2,        // ld.global.cg: cached in L2 only, bypasses L1
    readonly,  // ld.global.nc (__ldg): the read-only data path
    texture,   // tex1Dfetch on a linear texture object over the ring buffer
    constant,  // ld.const from a __constant__ array: constant L1 / L1.5 caches
    shared,    // ld.shared: the ring lives in shared memory
};

constexpr std::string_view to_string(LoadPath path) {
    switch (path) {
        case LoadPath::none: return "none";
        case LoadPath::l1: return "l1";
        case LoadPath::l2: return "l2";
        case LoadPath::readonly: return "readonly";
        case LoadPath::texture: return "texture";
        case LoadPath::constant: return "constant";
        case LoadPath::shared: return "shared";
    }
    return "?";
}

// How a ring's elements name their successor: the value a load on this path
// needs as its next address. Rings are linked for one encoding and chased only
// on paths with that encoding.
enum class RingEncoding : std::uint8_t {
    global_address,    // generic address in the engine's buffer (l1, l2, readonly)
    texel_index,       // index of an 8-byte texel of the buffer's texture object
    constant_address,  // .const state-space address inside the engine's __constant__ array
    shared_address,    // built by the kernel in shared memory
    none,
};

constexpr RingEncoding encoding_of(LoadPath path) {
    switch (path) {
        case LoadPath::l1:
        case LoadPath::l2:
        case LoadPath::readonly: return RingEncoding::global_address;
        case LoadPath::texture: return RingEncoding::texel_index;
        case LoadPath::constant: return RingEncoding::constant_address;
        case LoadPath::shared: return RingEncoding::shared_address;
        case LoadPath::none: return RingEncoding::none;
    }
    return RingEncoding::none;
}

}  // namespace gpu_topology::kernels
