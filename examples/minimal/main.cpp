// Prints what gpu_topology.hpp says about the GPU it was generated for, and a
// tile derived from it.
#include <gpu_topology.hpp>

#include <cstdio>

int main() {
    namespace gt = gpu_topology;
    std::printf("%s (%s), cc %d.%d, %d SMs; profile %s\n", gt::identity.device_name, gt::identity.device_uuid,
                gt::identity.cc_major, gt::identity.cc_minor, gt::identity.sm_count, gt::identity.profile_source);
    std::printf("L1  %8llu B  line %u B  sector %u B  %u cycles\n", (unsigned long long)gt::l1.size_bytes,
                gt::l1.line_bytes, gt::l1.sector_bytes, gt::l1.latency_cycles);
    std::printf("L2  %8llu B near of %llu B  line %u B  %u / %u cycles near / far\n",
                (unsigned long long)gt::l2_near.size_bytes, (unsigned long long)gt::l2.size_bytes, gt::l2.line_bytes,
                gt::l2_near.latency_cycles, gt::l2_far_latency_cycles);
    std::printf("DRAM %u cycles, shared %u cycles\n", gt::dram.latency_cycles, gt::shared.latency_cycles);
    constexpr auto edge = gt::square_tile_edge<float>(gt::l1.size_bytes / 2);
    std::printf("square float tile filling half of L1: %llu x %llu\n", (unsigned long long)edge,
                (unsigned long long)edge);
    return gt::l1.size_bytes > 0 ? 0 : 1;
}
