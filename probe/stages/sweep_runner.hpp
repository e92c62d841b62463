#pragma once
// Turns a sweep specification (load path, stride, order, carveout) and a list
// of footprints into an analysis::Sweep, using the one pointer-chase engine.
// Every size/line/latency benchmark measures through this class, which also
// subtracts the measured timer overhead, accounts the SM clock seen during the
// chases, and writes each sweep to the raw directory when one is given.
#include "analysis/statistics.hpp"
#include "analysis/sweep.hpp"
#include "kernels/engine.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::stages {

enum class Order { sequential, random };
std::string_view to_string(Order order);

// How each footprint is measured.
//  careful: lane 0 chases every warm pass and times one full pass (the thesis' method);
//           a 150 MiB ring costs about a second.
//  fast:    rings longer than kTimedWindow elements are warmed by the whole block in address
//           order when sequential (Warming::fill) and, unless the spec asks for the whole pass
//           (capacity searches do), time only the first kTimedWindow loads of the pass. Shorter
//           rings are measured exactly as in the careful pace: they cost little, and they are
//           where L1 is sized, whose split under the default carveout the driver chooses by the
//           block's size (a 512-thread filling block gets a larger L1).
//           docs/records/probe.md compares the two paces.
enum class Pace { fast, careful };
inline constexpr std::uint32_t kTimedWindow = 16384;

struct SweepSpec {
    std::string name;
    kernels::LoadPath path = kernels::LoadPath::l1;
    std::uint32_t stride_bytes = 128;
    Order order = Order::sequential;
    int carveout_percent = -1;      // -1: the driver's default choice
    std::uint32_t warm_passes = 1;  // 0: cold (first-touch) pass
    std::uint32_t samples = 1024;   // recorded accesses per footprint
    std::uint32_t min_timed_steps = 0;  // time at least this many loads even for short rings
    // Time every load of the pass in the fast pace too. Capacity decisions need
    // it: near the capacity, which lines miss depends on their place in the ring
    // (on the H200's L2 a window at the ring's start missed a 1.5 MiB overflow).
    bool whole_pass = false;
    std::uint32_t threads_per_block = 0;  // the launch shape (0: the fewest the chase needs)
    std::size_t offset = 0;               // where in the engine's buffer the rings start
    // The kernel that chases, as the driver sees it (engine.hpp): the probe's own,
    // or the plain one declaring `dynamic_shared_bytes`.
    kernels::ChaseKernel kernel = kernels::ChaseKernel::probe;
    std::uint32_t dynamic_shared_bytes = 0;
};

// The timer overhead (clock pair + dependent store) subtracted from every
// sample: the median of several calibration launches, and their spread.
struct TimerOverhead {
    double cycles = 0;
    analysis::LatencySummary across_launches;  // of the launches' medians
    double uncertainty() const { return (across_launches.p95 - across_launches.p05) / 2; }
};

// Footprints from `from` to `to`, `per_doubling` per factor of two, multiples of `align`.
std::vector<std::uint64_t> geometric(std::uint64_t from, std::uint64_t to, int per_doubling, std::uint64_t align);

class SweepRunner {
public:
    SweepRunner(kernels::Engine& engine, std::optional<std::filesystem::path> raw_dir, Pace pace = Pace::fast);

    // Measures the timer overhead that every later sample has subtracted:
    // `launches` launches of 1024 timed empty steps, the median of their
    // medians. Call once, after the clock is warm.
    const TimerOverhead& calibrate_overhead(unsigned launches = 9);
    const TimerOverhead& overhead() const { return overhead_; }

    analysis::SweepPoint measure(const SweepSpec& spec, std::uint64_t footprint_bytes);
    analysis::Sweep run(const SweepSpec& spec, const std::vector<std::uint64_t>& footprints);

    // Turns one chase into a point (overhead subtracted, clock accounted).
    analysis::SweepPoint point_from(const kernels::ChaseResult& result, std::uint64_t footprint_bytes);
    // A sweep of one point, recorded under `name` (first touches, eviction tests).
    analysis::Sweep single_point_sweep(const std::string& name, const std::map<std::string, std::string>& meta,
                                       analysis::SweepPoint point) const;

    // Adds `sweep` to the raw directory (if any) under its name.
    void record(const analysis::Sweep& sweep) const;

    // SM clock over all chases so far: cycles counted / nanoseconds elapsed.
    double measured_clock_khz() const;
    std::uint64_t points_measured() const { return points_; }

    kernels::Engine& engine() { return engine_; }

private:
    kernels::Engine& engine_;
    std::optional<std::filesystem::path> raw_dir_;
    Pace pace_;
    TimerOverhead overhead_;
    std::uint64_t clock_cycles_ = 0;
    std::uint64_t clock_ns_ = 0;
    std::uint64_t points_ = 0;
    std::uint64_t seed_ = 0x9e3779b97f4a7c15ull;
};

}  // namespace gpu_topology::stages
