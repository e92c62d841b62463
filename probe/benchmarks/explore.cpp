#include "explore.hpp"

#include "../analysis/statistics.hpp"
#include "questions.hpp"

#include <cmath>
#include <cstdio>

namespace gpu_topology::benchmarks {
namespace {

using kernels::LoadPath;

std::vector<std::uint64_t> linear(std::uint64_t from, std::uint64_t to, std::uint64_t step) {
    std::vector<std::uint64_t> sizes;
    for (auto s = from; s <= to; s += step) sizes.push_back(s);
    return sizes;
}

void report(const analysis::Sweep& sweep) {
    std::fprintf(stderr, "%s:", sweep.name.c_str());
    for (const auto& p : sweep.points) {
        std::fprintf(stderr, " %llu:%.0f", static_cast<unsigned long long>(p.footprint_bytes / 1024),
                     analysis::median(p.cycles));
    }
    std::fprintf(stderr, "\n");
}

}  // namespace

void explore(SweepRunner& runner, const ExploreLimits& limits) {
    constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;
    const auto l2 = limits.l2_bytes;
    auto& engine = runner.engine();

    auto run = [&](SweepSpec spec, const std::vector<std::uint64_t>& sizes) { report(runner.run(spec, sizes)); };

    // First touches before any chase: every 8 B through each path (fetch granularity).
    const std::size_t fresh = engine.buffer_bytes() - 64 * MiB;
    std::size_t region = fresh;
    for (auto path : {LoadPath::l1, LoadPath::texture, LoadPath::readonly}) {
        report(measure_fetch_granularity(runner, path, region, std::string(kernels::to_string(path)) + "_first_touch_stride8")
                   .sweep);
        region += MiB;
    }
    report(measure_fetch_granularity(runner, LoadPath::l2, region, "l2_first_touch_stride8", 300 * MiB, 3 * l2).sweep);
    const std::size_t constant_top = engine.ring_capacity(LoadPath::constant);
    report(measure_fetch_granularity(runner, LoadPath::constant, constant_top - 8 * KiB, "constant_first_touch_stride8")
               .sweep);

    // Eviction under different reuse histories: why the sharing test warms its victim once.
    {
        const auto l1 = measure_capacity(runner, {{.name = "l1_size_carveout0", .path = LoadPath::l1, .stride_bytes = 128,
                                                   .carveout_percent = 0, .samples = 1024},
                                                  4 * KiB, 1 * KiB, 1 * MiB});
        const std::uint64_t victim_bytes = l1.capacity_bytes / 2 / 128 * 128;
        for (std::uint32_t victim_passes : {1u, 2u})
            for (double share : {0.75, 1.0, 1.5})
                for (std::uint32_t other_passes : {1u, 2u, 4u})
                    for (auto other_path : {LoadPath::l1, LoadPath::texture}) {
                        const std::string name = "eviction_v" + std::to_string(victim_passes) + "_" +
                                                 std::string(kernels::to_string(other_path)) + "_x" +
                                                 std::to_string(int(share * 100)) + "_p" + std::to_string(other_passes);
                        const auto answer = measure_eviction(
                            runner, {.path = LoadPath::l1, .footprint_bytes = victim_bytes, .passes = victim_passes},
                            {.path = other_path,
                             .footprint_bytes = std::uint64_t(share * double(l1.capacity_bytes)) / 128 * 128,
                             .offset = (victim_bytes + 4 * KiB) / (4 * KiB) * (4 * KiB),
                             .passes = other_passes},
                            0, name);
                        std::fprintf(stderr, "%s: evicted %d, D %.3f, p50 %.0f -> %.0f\n", name.c_str(),
                                     int(answer.decision.evicted), answer.decision.test.statistic,
                                     answer.decision.alone_p50, answer.decision.disturbed_p50);
                    }
    }

    // Whole hierarchy, one curve per path.
    run({.name = "hierarchy_l1path", .path = LoadPath::l1, .stride_bytes = 128, .samples = 512},
        geometric(8 * KiB, 3 * l2, 4, 128));
    run({.name = "hierarchy_l2path", .path = LoadPath::l2, .stride_bytes = 128, .samples = 512},
        geometric(256 * KiB, 3 * l2, 4, 128));
    run({.name = "hierarchy_texture", .path = LoadPath::texture, .stride_bytes = 128, .samples = 512},
        geometric(8 * KiB, 256 * MiB, 4, 128));

    // L1 around its capacity, per carveout.
    for (int carveout : {-1, 0, 10, 25, 40, 50, 60, 75, 90, 100}) {
        run({.name = "l1_carveout" + (carveout < 0 ? std::string("default") : std::to_string(carveout)),
             .path = LoadPath::l1,
             .stride_bytes = 128,
             .carveout_percent = carveout,
             .samples = 1024},
            linear(4 * KiB, 280 * KiB, 4 * KiB));
    }
    // Texture and read-only around L1's capacity at the max-L1 and max-shared carveouts.
    for (auto path : {LoadPath::texture, LoadPath::readonly})
        for (int carveout : {0, 100})
            run({.name = std::string(kernels::to_string(path)) + "_carveout" + std::to_string(carveout),
                 .path = path,
                 .stride_bytes = 128,
                 .carveout_percent = carveout,
                 .samples = 1024},
                carveout == 0 ? linear(192 * KiB, 280 * KiB, 2 * KiB) : linear(4 * KiB, 64 * KiB, 2 * KiB));
    // L1 line: capacity span at several strides, and random order.
    for (std::uint32_t stride : {32u, 64u, 256u, 512u}) {
        run({.name = "l1_stride" + std::to_string(stride),
             .path = LoadPath::l1,
             .stride_bytes = stride,
             .carveout_percent = 0,
             .samples = 1024},
            linear(128 * KiB, stride >= 256 ? 1152 * KiB : 320 * KiB, stride >= 256 ? 16 * KiB : 4 * KiB));
    }
    run({.name = "l1_random", .path = LoadPath::l1, .stride_bytes = 128, .order = Order::random,
         .carveout_percent = 0, .samples = 1024},
        linear(96 * KiB, 280 * KiB, 2 * KiB));

    // Constant caches: the whole 64 KiB at several strides.
    for (std::uint32_t stride : {16u, 64u, 256u})
        run({.name = "constant_stride" + std::to_string(stride), .path = LoadPath::constant, .stride_bytes = stride,
             .samples = 1024},
            linear(stride * 4, constant_top, std::max<std::uint64_t>(stride * 4, 512)));

    // L2 around half and full capacity.
    run({.name = "l2_fine", .path = LoadPath::l2, .stride_bytes = 128, .samples = 1024},
        linear(l2 / 4, l2 * 3 / 2, l2 / 64));
    run({.name = "l2_fine_random", .path = LoadPath::l2, .stride_bytes = 128, .order = Order::random,
         .samples = 1024},
        linear(l2 / 4, l2 * 3 / 2, l2 / 64));

    // DRAM: cold rings far beyond L2.
    for (auto order : {Order::sequential, Order::random}) {
        const std::uint32_t elements = static_cast<std::uint32_t>(2 * l2 / 128);
        auto ring = order == Order::random ? engine.link_random(LoadPath::l2, 0, elements, 128, 7)
                                           : engine.link_sequential(LoadPath::l2, 0, elements, 128);
        engine.stream_l2(300 * MiB, 3 * l2);
        const auto result = engine.chase({.path = LoadPath::l2, .ring = ring, .warm_passes = 0, .timed_steps = 4096,
                                          .max_samples = 4096});
        report(runner.single_point_sweep(
            std::string("dram_cold_") + (order == Order::random ? "random" : "sequential"),
            {{"path", "l2"}, {"stride_bytes", "128"}, {"warm_passes", "0"}},
            runner.point_from(result, ring.footprint_bytes())));
    }
    // Shared memory latency.
    run({.name = "shared_latency", .path = LoadPath::shared, .stride_bytes = 64, .samples = 2048,
         .min_timed_steps = 4096},
        {4 * KiB, 16 * KiB, 32 * KiB});
}

}  // namespace gpu_topology::benchmarks
