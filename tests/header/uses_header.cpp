// Every part of gpu_topology.hpp and the static headers (gpu_topology/stencil.hpp,
// gpu_topology/gemm.hpp, gpu_topology/carveout.hpp, gpu_topology/ctest.hpp) in use, for the strict-warning compiles
// (tests/header/CMakeLists.txt). Generic: it must compile against any GPU's
// header, known values or not.
#include <gpu_topology.hpp>
#include <gpu_topology/carveout.hpp>
#include <gpu_topology/ctest.hpp>
#include <gpu_topology/gemm.hpp>
#include <gpu_topology/stencil.hpp>

#include <cstdio>

namespace gt = gpu_topology;

// A bank geometry of one's own: the padding helpers take any object with banks and bank_bytes.
struct banks32x4 {
    unsigned banks = 32, bank_bytes = 4;
};
struct banks16x8 {
    unsigned banks = 16, bank_bytes = 8;
};

// The old names of renamed quantities still compile, to the new values (with a
// deprecation warning, silenced here: the strict compiles make warnings errors).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#ifdef GPU_TOPOLOGY_L2_DRAM_FETCH_BYTES
static_assert(GPU_TOPOLOGY_L2_SECTOR_BYTES == GPU_TOPOLOGY_L2_DRAM_FETCH_BYTES, "the old macro");
#endif
static_assert(gt::l2.sector_bytes.value_or(0) == gt::l2.dram_fetch_bytes.value_or(0), "the old member");
#pragma GCC diagnostic pop

template <typename Fact>
constexpr unsigned long long or_zero(const Fact& fact) {
    return static_cast<unsigned long long>(fact.value_or(0));
}

int main() {
    constexpr auto edge = gt::square_tile_edge<float>(or_zero(gt::l1.size_bytes) / 2);
    constexpr auto cube = gt::cubic_tile_edge<double>(or_zero(gt::l2.near_size_bytes));
    static_assert(gt::integer_root(1000000, 2) == 1000 && gt::integer_root(27, 3) == 3, "roots");
    static_assert(gt::bytes_of<double>(3) == 24 && gt::elements_in<float>(4096) == 1024, "sizes");
    static_assert(gt::column_conflict_ways<float>(32, banks32x4{}) == 32 &&
                      gt::column_conflict_ways<float>(33, banks32x4{}) == 1 &&
                      gt::column_conflict_ways<char>(1, banks32x4{}) == 1, "a column of 32 floats: 32 ways, padded 1");
    static_assert(gt::conflict_free_pitch<float>(32, banks32x4{}) == 33 &&
                      gt::conflict_free_pitch<double>(32, banks32x4{}) == 33 &&
                      gt::conflict_free_pitch<float>(33, banks32x4{}) == 33, "padding on 32 x 4 B banks");
    static_assert(gt::column_conflict_ways<double>(16, banks16x8{}) == 32 &&
                      gt::conflict_free_pitch<double>(16, banks16x8{}) == 17, "padding on 16 x 8 B banks");
    // The stencil choosers at compile time, on a machine of one's own (this header's may lack a fact);
    // blocks of 64 threads keep the evaluation within every compiler's step limit.
    constexpr gt::stencil_machine machine{256 * 1024, 30'000'000'000'000ull, 128, 32, 50ull << 20,
                                          9'000'000'000'000ull, 3'000'000'000'000ull, 132, 2048};
    constexpr gt::grid_extent grid{256, 256, 256};
    constexpr auto list = gt::star_stencil_shortlist<double>(grid, 4, 64, machine);
    static_assert(list.count >= gt::kStencilShortlistTiles && list.count <= gt::stencil_shortlist::capacity &&
                      list.blocks[0] == gt::choose_star_stencil_block<double>(grid, 4, 64, machine),
                  "the short list, the chooser's pick first");
    // A kernel with shared memory of its own: the carveouts measured rows offer it, and the launch chooser.
    constexpr gt::l1_at_launch rows[] = {{-1, 64, 8192, 24, 120 * 1024}, {0, 64, 8192, 1, 235 * 1024}};
    constexpr gt::sm_shared_limits limits{2048, 32, 228 * 1024, 1024, 21 * 1024};
    constexpr auto options = gt::carveout_options_from(rows, 2, 64, 8192, limits);
    static_assert(options.count == 2 && options.left_to_driver()->resident_blocks == 24, "the driver's split first");
    constexpr auto launch = gt::choose_star_stencil_launch<double>(grid, 4, 64, options, machine);
    static_assert(launch.option.left_to_driver(), "24 resident blocks rather than one");
    // Its short list, a constant expression too (an array of candidates inside: nvcc takes it only with
    // their members initialised): the chosen launch first, the other occupancy (one block) after the
    // chosen option's blocks, the default launch among those.
    constexpr auto launches = gt::star_stencil_launch_shortlist<double>(grid, 4, 64, options, machine);
    static_assert(launches.count >= 3 && launches.launches[0] == launch &&
                      launches.launches[launches.count - 1].option.resident_blocks == 1,
                  "the launch short list");
    static_assert(gt::sgemm_pad_a(128, 8, 32, 4) == 4, "the SGEMM's A slice padded on 32 banks of 4 bytes");
    static_assert(gt::node::find_link(0, 0) == nullptr, "no link from a device to itself");
    const auto wave = gt::resident_blocks_per_wave(256);
    const auto at = gt::l1_launch_count ? gt::l1_bytes_at(0, 1024, 0) : 0;
    // The SGEMM helper's short list on a machine of one's own.
    const gt::gemm_machine gemm{132, 1.98e9, 128, 4, 33'000'000'000'000ull, 9'000'000'000'000ull, 3'000'000'000'000ull,
                                50ull << 20, 500, 65536, 256, 32, 4, 32, rows, 2, limits};
    const auto sgemm = gt::sgemm_tuning_list({1000, 1000, 1000}, false, gt::sgemm_space_on(32, 4, 65536), gemm);
    std::printf("%s %s %d.%d %llu %llu %llu %llu %llu %d %d %u\n", gt::identity.device_name, gt::identity.profile_source,
                gt::identity.cc_major, gt::identity.cc_minor, static_cast<unsigned long long>(edge),
                static_cast<unsigned long long>(cube), static_cast<unsigned long long>(wave),
                static_cast<unsigned long long>(at), or_zero(gt::dram.latency_cycles), int(gt::sharing.l1_texture.vouched),
                gt::ctest_device(), sgemm.count);
    return 0;
}
