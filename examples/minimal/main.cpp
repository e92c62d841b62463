// Prints what gpu_topology.hpp says about the GPU it was generated for, and a
// tile derived from it.
#include <gpu_topology.hpp>

#include <cstdio>

namespace gt = gpu_topology;

// A fact, or why the probe could not measure it.
template <typename Fact>
void print(const char* what, const Fact& fact, const char* unit) {
    if constexpr (Fact::is_known)
        std::printf("  %-34s %12llu %s%s%s\n", what, static_cast<unsigned long long>(fact.value), unit,
                    fact.is_lower_bound ? " (at least)" : "", fact.vouched ? "" : " (not vouched for)");
    else
        std::printf("  %-34s not measured: %s\n", what, Fact::why::reason);
}

int main() {
    std::printf("%s (%s), cc %d.%d, %d SMs; profile %s%s\n", gt::identity.device_name, gt::identity.device_uuid,
                gt::identity.cc_major, gt::identity.cc_minor, gt::identity.sm_count, gt::identity.profile_source,
                gt::identity.stored ? " (stored: not measured on this machine)" : "");
    print("L1 data, max-L1 carveout", gt::l1.size_bytes, "B");
    print("L1 line", gt::l1.line_bytes, "B");
    print("L1 hit latency", gt::l1.latency_cycles, "cycles");
    print("L2 an SM reuses at near latency", gt::l2.near_size_bytes, "B");
    print("L2 total", gt::l2.size_bytes, "B");
    print("L2 near / far hit latency", gt::l2.near_latency_cycles, "cycles");
    print("", gt::l2.far_latency_cycles, "cycles");
    print("DRAM latency", gt::dram.latency_cycles, "cycles");
    print("shared memory latency", gt::shared.latency_cycles, "cycles");
    // The README's tile: it does not compile when the L1 size is unmeasured.
    constexpr auto edge = gt::square_tile_edge<float>(gt::l1.size_bytes / 2);
    std::printf("square float tile filling half of L1: %llu x %llu\n", static_cast<unsigned long long>(edge),
                static_cast<unsigned long long>(edge));
    return edge > 0 ? 0 : 1;
}
