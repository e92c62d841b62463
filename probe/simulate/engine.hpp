#pragma once
// The simulated engine: kernels::Engine answered from an architecture
// description (architecture.hpp) instead of a GPU. It models what the probe's
// kernels do and see, not a pipeline: dependent loads of a ring in ring order,
// each served by the first level that holds its line (set-associative levels
// with the described index, ways and replacement, sectors filled by the load
// before), with the level's latency, its spread and the run's noise; timed
// reads at the described ceilings (and Little's law); one warp's
// shared-memory accesses against the described banks; cluster reads.
//
// The stages learn nothing from it but what the kernels would: the
// DeviceFacts it reports are the API's fields of the description, and every
// other number reaches them as a latency or a time.
#include "architecture.hpp"
#include "cache.hpp"
#include "random.hpp"

#include "kernels/engine.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gpu_topology::simulate {

// An engine whose buffer lives in another device's memory (the node probe's
// peer engine): every load past L1 crosses the link (the local L2 holds only
// local memory), every read streams at the link's rate.
struct RemoteMemory {
    double latency_ns = 0;
    double read_bytes_per_s = 0;
};

struct RunOptions {
    std::uint64_t seed = 1;
    bool busy = false;  // another workload comes and goes (Noise::busy_*)
    std::optional<RemoteMemory> remote;
};

// What the CUDA runtime would report for the simulated device: the
// description's API fields, a name that says it is simulated and an identity
// no real device has.
kernels::DeviceFacts simulated_facts(const Architecture& arch, const RunOptions& options, int index = 0);

// What the L2 holds of regions no chase has warmed (first touches): the
// regions written or read most recently, up to the L2's capacity, the most
// recent near.
class L2Contents {
public:
    explicit L2Contents(std::uint64_t capacity, std::uint64_t near) : capacity_(capacity), near_(near) {}
    void add(std::uint64_t begin, std::uint64_t end);
    enum class Where { near, far, absent };
    Where find(std::uint64_t address) const;

private:
    struct Range {
        std::uint64_t begin, end;
    };
    std::deque<Range> ranges_;  // oldest first
    std::uint64_t capacity_, near_, held_ = 0;
};

class SimulatedEngine final : public kernels::Engine {
public:
    SimulatedEngine(const Architecture& arch, std::size_t buffer_bytes, const RunOptions& options);

    std::size_t buffer_bytes() const override { return buffer_bytes_; }
    std::size_t ring_capacity(kernels::LoadPath path) const override;
    kernels::Ring link_sequential(kernels::LoadPath path, std::size_t offset, std::uint32_t elements,
                                  std::uint32_t stride_bytes) override;
    kernels::Ring link_random(kernels::LoadPath path, std::size_t offset, std::uint32_t elements,
                              std::uint32_t stride_bytes, std::uint64_t seed) override;
    kernels::ChaseResult chase(const kernels::ChaseRequest& request) override;
    kernels::ChaseResult chase_after(const kernels::ChaseRequest& victim, const kernels::Disturbance& other) override;
    void stream_l2(std::size_t offset, std::size_t bytes) override;
    double time_read(const kernels::ReadRequest& request) override;
    double time_reference_work() override;
    kernels::LaunchShape launch_shape(const kernels::KernelLaunch& launch) override;
    void warm_up(double milliseconds) override;
    kernels::SharedAccessTiming time_shared_access(const kernels::SharedAccess& access) override;
    std::uint32_t max_cluster_blocks() override;
    kernels::ChaseResult chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) override;
    kernels::ClusterRead time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) override;

    // Whether the other workload runs now; a look (this, or the reference
    // work) is what lets an ending episode end: none ends unseen.
    bool other_work_seen();
    std::uint64_t calls() const { return calls_; }

    const Architecture& architecture() const { return arch_; }

private:
    struct RingOrder {
        std::vector<std::uint32_t> visit_to_element, element_to_visit;
    };
    struct RingView;
    struct Levels;
    enum class Served : std::uint8_t { storage, constant_l15, near, far, dram };

    void tick();  // every call: the other workload and the clock move on
    double busy_share() const { return busy_ ? arch_.noise.busy_sm_share : 0.0; }
    double clock_hz() const { return arch_.sm_clock_khz * 1e3 * clock_factor_; }
    RingView view_of(const kernels::Ring& ring) const;
    void remember(const RingView& ring);
    double latency_of(Served served, kernels::LoadPath path, std::uint64_t address, const Levels& levels,
                      double tlb_cycles);
    double jitter(double spread_cycles);
    double noise_cycles();
    // `loads`: the samples time loads (not the timer alone), so none is under the timer's cycles + 1.
    kernels::ChaseResult result_of(const std::vector<double>& cycles, std::uint64_t timed_steps, bool loads = true);
    std::uint64_t l1_capacity(const kernels::ChaseRequest& request, std::uint32_t threads) const;

    Architecture arch_;
    std::size_t buffer_bytes_;
    RunOptions options_;
    Random random_;
    L2Contents l2_contents_;
    std::map<std::tuple<std::size_t, std::uint32_t, std::uint32_t>, RingOrder> random_rings_;
    std::uint64_t calls_ = 0, launches_ = 0;
    double clock_factor_ = 1;
    bool busy_ = false, busy_ending_ = false;
    double busy_countdown_ = 0;
};

}  // namespace gpu_topology::simulate
