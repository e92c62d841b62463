// Two profiles in one program (issue: a library built for one GPU and an
// application for another, or per-GPU kernels behind one dispatcher): two
// translation units, one compiled against the H100's gpu_topology.hpp and one
// against the H200's, linked together. Each must see its own facts at run time
// as at compile time, and the two must see different ones. The expected device
// names and near L2 sizes are the stored profiles', read by CMake (EXPECTED_*).
#include "seen.hpp"

#include <cstdio>
#include <cstring>

namespace {

int failures = 0;

unsigned long long number(std::uint64_t n) { return n; }

void expect(bool holds, const char* unit, const char* what) {
    if (holds) return;
    std::printf("FAIL %s: %s\n", unit, what);
    ++failures;
}

// What one translation unit saw: its own profile, the same at run time as at compile time.
void check(const Seen& seen, const char* unit, const char* device_name, std::uint64_t l2_near) {
    const auto& pick = seen.pick;
    std::printf("%s: %s; compile time / run time: near L2 %llu / %llu, l1_bytes_at %llu / %llu, this_gpu L2 %llu / %llu, "
                "pick %ux%ux%u (folds %u %u) / %ux%ux%u (folds %u %u)\n",
                unit, seen.device_name, number(seen.l2_near.at_compile_time), number(seen.l2_near.at_run_time),
                number(seen.l1_at_launch.at_compile_time), number(seen.l1_at_launch.at_run_time),
                number(seen.stencil_l2.at_compile_time), number(seen.stencil_l2.at_run_time), pick.at_compile_time.x,
                pick.at_compile_time.y, pick.at_compile_time.z, pick.at_compile_time.fold_y, pick.at_compile_time.fold_z,
                pick.at_run_time.x, pick.at_run_time.y, pick.at_run_time.z, pick.at_run_time.fold_y, pick.at_run_time.fold_z);
    expect(std::strcmp(seen.device_name, device_name) == 0, unit, "the identity is another GPU's");
    expect(seen.l2_near.at_compile_time == l2_near, unit, "the near L2 constant is not its profile's");
    expect(seen.l2_near.at_run_time == l2_near, unit, "gpu_topology::l2 read at run time is another profile's");
    expect(seen.l1_at_launch.at_run_time == seen.l1_at_launch.at_compile_time, unit,
           "l1_bytes_at() at run time answered from another profile's launches");
    expect(seen.stencil_l2.at_run_time == seen.stencil_l2.at_compile_time, unit,
           "this_gpu() at run time built another profile's machine");
    expect(seen.pick.at_run_time == seen.pick.at_compile_time, unit,
           "choose_star_stencil_block() at run time chose on another profile's machine");
}

}  // namespace

int main() {
    volatile int carveout = kAsked.carveout_percent;  // run-time values: nothing folds the calls
    const Asked asked{carveout, kAsked.threads_per_block, kAsked.shared_bytes_per_block, kAsked.grid, kAsked.radius,
                      kAsked.stencil_threads};
    const Seen h100 = seen_by_h100(asked), h200 = seen_by_h200(asked);
    check(h100, "H100 unit", EXPECTED_H100_NAME, EXPECTED_H100_L2_NEAR);
    check(h200, "H200 unit", EXPECTED_H200_NAME, EXPECTED_H200_L2_NEAR);
    // The checks above can tell the two apart only where the profiles differ.
    expect(h100.l1_at_launch.at_compile_time != h200.l1_at_launch.at_compile_time &&
               h100.stencil_l2.at_compile_time != h200.stencil_l2.at_compile_time &&
               !(h100.pick.at_compile_time == h200.pick.at_compile_time),
           "both units", "the asked launch, L2 or grid no longer tells the two profiles apart: ask another (seen.hpp)");
    if (h100.l2_address || h200.l2_address)
        expect(h100.l2_address != h200.l2_address, "both units", "gpu_topology::l2 is one object in both");
    if (failures) return 1;
    std::printf("each translation unit saw its own profile\n");
    return 0;
}
