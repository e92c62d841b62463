#pragma once
// A GPU made of rules, for testing stages without one: an L1 whose size follows
// a table per kind of kernel, carveout and block size (hit below it, miss above
// it), a first TLB level of `tlb_entries` entries of `tlb_coverage` each (every
// access to another entry's region misses once the ring's regions outnumber the
// entries: LRU, cycling), and read rates per level, with a first pass that
// reads from L2. Every call a stage makes that the rules do not cover throws, so
// a test names what it exercises.
#include "kernels/engine.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>

namespace gpu_topology::simulated {

class SimulatedEngine : public kernels::Engine {
public:
    static constexpr std::uint64_t MiB = 1 << 20;
    // L1 bytes a launch of `kernel` with `dynamic` bytes gets at `carveout` with `threads`.
    std::function<std::uint64_t(kernels::ChaseKernel kernel, std::uint32_t dynamic, int carveout,
                                std::uint32_t threads)>
        l1_bytes = [](auto, auto, auto, auto) { return std::uint64_t(240) << 10; };
    double l1_hit_cycles = 32, l1_miss_cycles = 280, l2_cycles = 300;
    std::uint32_t tlb_entries = 15;
    std::uint64_t tlb_coverage = 16 * MiB;
    double tlb_miss_cycles = 10;
    // Strides narrower than this never miss (a structure the rule above does not describe).
    std::uint64_t tlb_blind_below = 0;
    double l1_bytes_per_s = 32e12, shared_bytes_per_s = 33e12, l2_bytes_per_s = 9e12, dram_bytes_per_s = 3e12;
    std::uint32_t sm_count = 132;
    std::uint32_t probe_static_shared = 16;
    std::uint64_t chases = 0;  // chase calls made

    std::size_t buffer_bytes() const override { return std::size_t(4) << 30; }
    std::size_t ring_capacity(kernels::LoadPath path) const override {
        return path == kernels::LoadPath::shared ? 227 << 10 : buffer_bytes();
    }
    kernels::Ring link_sequential(kernels::LoadPath path, std::size_t offset, std::uint32_t elements,
                                  std::uint32_t stride) override {
        return {kernels::encoding_of(path), offset, offset, elements, stride, true};
    }
    kernels::Ring link_random(kernels::LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                              std::uint64_t) override {
        return {kernels::encoding_of(path), offset, offset, elements, stride, false};
    }

    kernels::ChaseResult chase(const kernels::ChaseRequest& q) override {
        ++chases;
        const auto cycles_at = [&](std::uint64_t step) -> double {
            const auto& r = q.ring;
            if (q.path == kernels::LoadPath::l1) {
                const auto l1 = l1_bytes(q.kernel, q.dynamic_shared_bytes, q.carveout_percent,
                                         std::max<std::uint32_t>(q.threads_per_block, 32));
                return r.footprint_bytes() <= l1 ? l1_hit_cycles : l1_miss_cycles;
            }
            if (q.path == kernels::LoadPath::l2) return l2_cycles + tlb_penalty(r, step % r.elements);
            throw std::logic_error("the simulated engine chases l1 and l2 rings only");
        };
        kernels::ChaseResult result;
        const std::uint32_t wanted = std::min(q.max_samples, q.timed_steps);
        const std::uint64_t every = wanted == 0 ? 1 : std::max<std::uint64_t>(1, q.timed_steps / wanted);
        double total = 0;
        for (std::uint64_t step = 0; step < q.timed_steps; ++step) {
            const double c = cycles_at(step);
            total += c;
            if (step % every == 0 && result.cycles.size() < wanted) result.cycles.push_back(std::uint32_t(c));
        }
        result.timed_cycles = std::uint64_t(total);
        result.timed_ns = std::uint64_t(total / 1.98);  // a 1.98 GHz clock
        return result;
    }
    kernels::ChaseResult chase_after(const kernels::ChaseRequest&, const kernels::Disturbance&) override {
        throw std::logic_error("chase_after is not simulated");
    }
    void stream_l2(std::size_t, std::size_t) override {}
    // The first pass of a re-read comes from L2; the rest at the level's rate.
    double time_read(const kernels::ReadRequest& r) override {
        const double bytes = double(kernels::bytes_read(r, sm_count));
        const double pass = bytes / r.passes;
        switch (r.pattern) {
            case kernels::ReadPattern::block_private: return pass / l2_bytes_per_s + (bytes - pass) / l1_bytes_per_s;
            case kernels::ReadPattern::shared: return 2e-6 + bytes / shared_bytes_per_s;
            case kernels::ReadPattern::rotating: return bytes / l2_bytes_per_s;
            case kernels::ReadPattern::streaming: return bytes / dram_bytes_per_s;
        }
        return 0;
    }
    double time_reference_work() override { return 1e-3; }
    kernels::LaunchShape launch_shape(const kernels::KernelLaunch& l) override {
        const std::uint32_t shared =
            (l.kernel == kernels::ChaseKernel::probe ? probe_static_shared : 0) + l.dynamic_shared_bytes;
        return {l.threads_per_block, 2048 / std::max<std::uint32_t>(l.threads_per_block, 32), shared};
    }
    void warm_up(double) override {}
    kernels::SharedAccessTiming time_shared_access(const kernels::SharedAccess&) override {
        throw std::logic_error("shared access is not simulated");
    }
    std::uint32_t max_cluster_blocks() override { return 0; }
    kernels::ChaseResult chase_cluster_shared(std::uint32_t, std::uint32_t) override {
        throw std::logic_error("clusters are not simulated");
    }
    kernels::ClusterRead time_cluster_read(std::uint32_t, bool, std::uint32_t) override {
        throw std::logic_error("clusters are not simulated");
    }

private:
    // A sequential ring cycling through more regions than the level has entries
    // misses on every load that enters another region (LRU evicts each just before its reuse).
    double tlb_penalty(const kernels::Ring& r, std::uint64_t position) const {
        if (r.stride_bytes < tlb_blind_below) return 0;
        const auto region = [&](std::uint64_t i) { return (r.offset + i * r.stride_bytes) / tlb_coverage; };
        std::set<std::uint64_t> regions;
        for (std::uint64_t i = 0; i < r.elements; ++i) regions.insert(region(i));
        if (regions.size() <= tlb_entries) return 0;
        const std::uint64_t before = position == 0 ? r.elements - 1 : position - 1;
        return region(position) != region(before) ? tlb_miss_cycles : 0;
    }
};

}  // namespace gpu_topology::simulated
