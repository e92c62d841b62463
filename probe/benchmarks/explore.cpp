#include "explore.hpp"

#include "../analysis/statistics.hpp"

#include <cmath>
#include <cstdio>

namespace gpu_topology::benchmarks {
namespace {

using kernels::LoadPath;

std::vector<std::uint64_t> geometric(std::uint64_t from, std::uint64_t to, int steps_per_doubling,
                                     std::uint64_t align) {
    std::vector<std::uint64_t> sizes;
    for (double s = double(from); s <= double(to) * 1.0001; s *= std::pow(2.0, 1.0 / steps_per_doubling)) {
        auto v = (static_cast<std::uint64_t>(s) / align) * align;
        if (sizes.empty() || v > sizes.back()) sizes.push_back(v);
    }
    return sizes;
}

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

    auto run = [&](SweepSpec spec, const std::vector<std::uint64_t>& sizes) { report(runner.run(spec, sizes)); };

    // Whole hierarchy, one curve per path.
    run({.name = "hierarchy_l1path", .path = LoadPath::l1, .stride_bytes = 128, .samples = 512},
        geometric(8 * KiB, 3 * l2, 4, 128));
    run({.name = "hierarchy_l2path", .path = LoadPath::l2, .stride_bytes = 128, .samples = 512},
        geometric(256 * KiB, 3 * l2, 4, 128));
    run({.name = "hierarchy_l2path_random", .path = LoadPath::l2, .stride_bytes = 128, .order = Order::random,
         .samples = 512},
        geometric(256 * KiB, 3 * l2, 4, 128));

    // L1 around its capacity, per carveout.
    for (int carveout : {-1, 0, 25, 50, 100}) {
        run({.name = "l1_carveout" + (carveout < 0 ? std::string("default") : std::to_string(carveout)),
             .path = LoadPath::l1,
             .stride_bytes = 128,
             .carveout_percent = carveout,
             .samples = 1024},
            carveout >= 50 ? linear(8 * KiB, 160 * KiB, 2 * KiB) : linear(96 * KiB, 280 * KiB, 2 * KiB));
    }
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

    // L2 around half and full capacity.
    run({.name = "l2_fine", .path = LoadPath::l2, .stride_bytes = 128, .samples = 1024},
        linear(l2 / 4, l2 * 3 / 2, l2 / 64));
    run({.name = "l2_fine_random", .path = LoadPath::l2, .stride_bytes = 128, .order = Order::random,
         .samples = 1024},
        linear(l2 / 4, l2 * 3 / 2, l2 / 64));
    run({.name = "l2_stride256", .path = LoadPath::l2, .stride_bytes = 256, .samples = 1024},
        linear(l2 / 4, l2 * 2, l2 / 32));
    run({.name = "l2_stride64", .path = LoadPath::l2, .stride_bytes = 64, .samples = 1024},
        linear(l2 / 4, l2, l2 / 32));

    // Fetch granularity: the first touch of each line, every 8 bytes.
    // L1: the region sits in L2 (warmed through the L2 path) but not in L1.
    {
        auto& engine = runner.engine();
        const std::size_t region = 256 * MiB;  // never chased through L1 before
        auto ring = engine.link_sequential(region, 1024, 8);
        kernels::ChaseRequest warm{.path = LoadPath::l2, .ring = ring, .warm_passes = 1, .timed_steps = 0};
        engine.chase(warm);
        kernels::ChaseRequest cold{.path = LoadPath::l1, .ring = ring, .warm_passes = 0, .timed_steps = 1024,
                                   .max_samples = 1024};
        auto result = engine.chase(cold);
        analysis::Sweep sweep{.name = "l1_first_touch_stride8", .meta = {{"path", "l1"}, {"stride_bytes", "8"}}};
        analysis::SweepPoint point{.footprint_bytes = 8 * 1024};
        for (auto c : result.cycles) point.cycles.push_back(double(c) - runner.overhead_cycles());
        sweep.points.push_back(point);
        runner.record(sweep);
        report(sweep);
    }
    // L2: the region is flushed from L2 first, then touched through the L2 path.
    {
        auto& engine = runner.engine();
        const std::size_t region = 260 * MiB;
        auto ring = engine.link_sequential(region, 1024, 8);
        engine.flush_l2(300 * MiB, 3 * l2);
        kernels::ChaseRequest cold{.path = LoadPath::l2, .ring = ring, .warm_passes = 0, .timed_steps = 1024,
                                   .max_samples = 1024};
        auto result = engine.chase(cold);
        analysis::Sweep sweep{.name = "l2_first_touch_stride8", .meta = {{"path", "l2"}, {"stride_bytes", "8"}}};
        analysis::SweepPoint point{.footprint_bytes = 8 * 1024};
        for (auto c : result.cycles) point.cycles.push_back(double(c) - runner.overhead_cycles());
        sweep.points.push_back(point);
        runner.record(sweep);
        report(sweep);
    }
    // DRAM: cold rings far beyond L2.
    for (auto order : {Order::sequential, Order::random}) {
        auto& engine = runner.engine();
        const std::uint32_t elements = static_cast<std::uint32_t>(2 * l2 / 128);
        auto ring = order == Order::random ? engine.link_random(0, elements, 128, 7) : engine.link_sequential(0, elements, 128);
        engine.flush_l2(300 * MiB, 3 * l2);
        kernels::ChaseRequest cold{.path = LoadPath::l2, .ring = ring, .warm_passes = 0, .timed_steps = 4096,
                                   .max_samples = 4096};
        auto result = engine.chase(cold);
        analysis::Sweep sweep{.name = std::string("dram_cold_") + (order == Order::random ? "random" : "sequential"),
                              .meta = {{"path", "l2"}, {"stride_bytes", "128"}}};
        analysis::SweepPoint point{.footprint_bytes = std::uint64_t(elements) * 128};
        for (auto c : result.cycles) point.cycles.push_back(double(c) - runner.overhead_cycles());
        sweep.points.push_back(point);
        runner.record(sweep);
        report(sweep);
    }
    // Shared memory latency.
    run({.name = "shared_latency", .path = LoadPath::shared, .stride_bytes = 64, .samples = 2048,
         .min_timed_steps = 4096},
        {4 * KiB, 16 * KiB, 32 * KiB});
}

}  // namespace gpu_topology::benchmarks
