// gpu_topology/types.hpp: the types a generated gpu_topology.hpp states its
// facts in. They read no facts, so they are the same for every GPU and live in
// plain namespace gpu_topology; a program may include them with no generated
// header, or beside several (a dispatcher over kernels built for several GPUs).
// C++17, host and device code.
#ifndef GPU_TOPOLOGY_TYPES_HPP
#define GPU_TOPOLOGY_TYPES_HPP

#include <gpu_topology/version.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(__CUDACC__)
#define GPU_TOPOLOGY_HD __host__ __device__
#else
#define GPU_TOPOLOGY_HD
#endif

namespace gpu_topology {

// Where a known value comes from.
enum class source : unsigned char {
    api,       // reported by the CUDA runtime
    measured,  // measured by the probe
    derived,   // computed from measured values
};

// A value the profile knows.
template <typename T>
struct known {
    T value;
    source from;
    bool is_lower_bound;  // only a lower bound is known: the true value is at least `value`
    bool vouched;         // measured cleanly (idle GPU, repeats and cross-checks agree)
    static constexpr bool is_known = true;
    GPU_TOPOLOGY_HD constexpr operator T() const noexcept { return value; }
    template <typename U>
    GPU_TOPOLOGY_HD constexpr T value_or(U) const noexcept {
        return value;
    }
};

// A value the probe could not measure. It converts to nothing, so it cannot
// reach tiling arithmetic; `Why` names the quantity and holds the reason.
template <typename T, typename Why>
struct unknown {
    using why = Why;  // why::reason says why it is unknown
    static constexpr bool is_known = false;
    static constexpr bool is_lower_bound = false;
    static constexpr bool vouched = false;
    template <typename U>
    GPU_TOPOLOGY_HD constexpr T value_or(U fallback) const noexcept {
        return static_cast<T>(fallback);
    }
};

// Which GPU the facts describe (gpu_topology::identity).
struct identity_t {
    const char* device_name;
    const char* device_uuid;
    int cc_major;
    int cc_minor;
    int sm_count;
    const char* profile_source;  // "measured", or where the facts come from: "stored:<name>", "file:<name>"
    const char* profile_hash;
    bool stored;                 // the facts were not measured on this machine
};

// Effective L1 measured for one launch at one requested carveout
// (cudaFuncAttributePreferredSharedMemoryCarveout; -1: left to the driver), by a kernel
// declaring `shared_bytes_per_block` of shared memory (static and dynamic together):
// a row of gpu_topology::l1_launches.
struct l1_at_launch {
    int carveout_percent;
    std::uint32_t threads_per_block;
    std::uint32_t shared_bytes_per_block;
    std::uint32_t resident_blocks;  // blocks of that launch an SM can hold there (occupancy API)
    std::uint64_t size_bytes;
};

// ---- The node: the devices the facts describe and the links between them ----
// (host code; a node profile measures them, docs/node.md)
struct node_device {
    int index;
    const char* name;
    const char* uuid;
};
enum class link_transport : unsigned char { nvlink, nvswitch, pcie, unknown };

// Called only when a program reads an unmeasured link value: in a constant
// expression that is a compile error (this function is not constexpr), at run
// time it stops the program with the reason instead of returning a number.
[[noreturn]] inline void unmeasured_link_value(const char* reason) {
    std::fprintf(stderr, "gpu_topology: a link value the probe did not measure was read: %s\n", reason);
    std::abort();
}
// A value of one link: measured (value) or not (reason). Read it with get(),
// or choose a fallback explicitly with value_or().
struct link_value {
    double value;
    bool known;
    const char* reason;  // why it is unknown
    constexpr double get() const { return known ? value : (unmeasured_link_value(reason), 0.0); }
    constexpr double value_or(double fallback) const { return known ? value : fallback; }
};

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_TYPES_HPP
