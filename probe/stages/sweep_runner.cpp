#include "sweep_runner.hpp"

#include "sweep_io/sweep_csv.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpu_topology::stages {

using kernels::ChaseRequest;
using kernels::LoadPath;

std::vector<std::uint64_t> geometric(std::uint64_t from, std::uint64_t to, int per_doubling, std::uint64_t align) {
    std::vector<std::uint64_t> sizes;
    for (double s = double(from); s <= double(to) * 1.0001; s *= std::pow(2.0, 1.0 / per_doubling)) {
        const auto v = static_cast<std::uint64_t>(s) / align * align;
        if (sizes.empty() || v > sizes.back()) sizes.push_back(v);
    }
    return sizes;
}

std::string_view to_string(Order order) { return order == Order::random ? "random" : "sequential"; }

SweepRunner::SweepRunner(kernels::Engine& engine, std::optional<std::filesystem::path> raw_dir, Pace pace)
    : engine_(engine), raw_dir_(std::move(raw_dir)), pace_(pace) {}

const TimerOverhead& SweepRunner::calibrate_overhead(unsigned launches) {
    ChaseRequest request;
    request.path = LoadPath::none;
    request.ring = kernels::Ring{.encoding = kernels::RingEncoding::none, .elements = 1, .stride_bytes = 8};
    request.warm_passes = 0;
    request.timed_steps = 1024;
    request.max_samples = 1024;
    // One launch's median has moved between 2 and 7 cycles from run to run:
    // several launches, and the median of their medians, with its spread.
    std::vector<double> medians;
    for (unsigned i = 0; i < std::max(1u, launches); ++i) {
        const auto result = engine_.chase(request);
        std::vector<double> samples(result.cycles.begin(), result.cycles.end());
        medians.push_back(analysis::median(samples));
    }
    overhead_.across_launches = analysis::summarize(medians);
    overhead_.cycles = overhead_.across_launches.p50;
    return overhead_;
}

analysis::SweepPoint SweepRunner::measure(const SweepSpec& spec, std::uint64_t footprint_bytes) {
    const std::uint64_t elements64 = footprint_bytes / spec.stride_bytes;
    if (elements64 < 1 || elements64 > 0xffffffffull)
        throw std::invalid_argument("footprint " + std::to_string(footprint_bytes) + " B is not a usable ring at stride " +
                                    std::to_string(spec.stride_bytes));
    const auto elements = static_cast<std::uint32_t>(elements64);

    ChaseRequest request;
    request.path = spec.path;
    request.warm_passes = spec.warm_passes;
    request.carveout_percent = spec.carveout_percent;
    request.threads_per_block = spec.threads_per_block;
    request.kernel = spec.kernel;
    request.dynamic_shared_bytes = spec.dynamic_shared_bytes;
    request.ring = spec.order == Order::random
                       ? engine_.link_random(spec.path, spec.offset, elements, spec.stride_bytes, seed_++)
                       : engine_.link_sequential(spec.path, spec.offset, elements, spec.stride_bytes);
    // One full timed pass (so every line's fate is seen), at least `samples` loads;
    // in the fast pace at most a window of the pass.
    const std::uint32_t least = std::max(spec.samples, spec.min_timed_steps);
    request.timed_steps = std::max(elements, least);
    if (pace_ == Pace::fast && elements > std::max(kTimedWindow, least)) {
        if (!spec.whole_pass) request.timed_steps = std::max(kTimedWindow, least);
        if (kernels::fillable(request.ring)) request.warming = kernels::Warming::fill;
    }
    if (spec.warm_passes == 0) request.timed_steps = std::min(request.timed_steps, elements);
    request.max_samples = spec.samples;

    return point_from(engine_.chase(request), std::uint64_t(elements) * spec.stride_bytes);
}

analysis::SweepPoint SweepRunner::point_from(const kernels::ChaseResult& result, std::uint64_t footprint_bytes) {
    if (result.timed_ns > 0) {  // a chase timed in cycles alone says nothing of the clock
        clock_cycles_ += result.timed_cycles;
        clock_ns_ += result.timed_ns;
    }
    ++points_;
    analysis::SweepPoint point;
    point.footprint_bytes = footprint_bytes;
    point.cycles.reserve(result.cycles.size());
    for (auto c : result.cycles) point.cycles.push_back(double(c) - overhead_.cycles);
    return point;
}

analysis::Sweep SweepRunner::single_point_sweep(const std::string& name, const std::map<std::string, std::string>& meta,
                                                analysis::SweepPoint point) const {
    analysis::Sweep sweep;
    sweep.name = name;
    sweep.meta = meta;
    sweep.meta["overhead_cycles"] = std::to_string(overhead_.cycles);
    sweep.points.push_back(std::move(point));
    record(sweep);
    return sweep;
}

analysis::Sweep SweepRunner::run(const SweepSpec& spec, const std::vector<std::uint64_t>& footprints) {
    analysis::Sweep sweep;
    sweep.name = spec.name;
    sweep.meta["path"] = std::string(kernels::to_string(spec.path));
    sweep.meta["stride_bytes"] = std::to_string(spec.stride_bytes);
    sweep.meta["order"] = std::string(to_string(spec.order));
    sweep.meta["carveout_percent"] = std::to_string(spec.carveout_percent);
    sweep.meta["warm_passes"] = std::to_string(spec.warm_passes);
    if (spec.offset) sweep.meta["offset_bytes"] = std::to_string(spec.offset);
    sweep.meta["overhead_cycles"] = std::to_string(overhead_.cycles);
    for (auto footprint : footprints) {
        auto point = measure(spec, footprint);
        if (!sweep.points.empty() && point.footprint_bytes <= sweep.points.back().footprint_bytes) continue;
        sweep.points.push_back(std::move(point));
    }
    record(sweep);
    return sweep;
}

void SweepRunner::record(const analysis::Sweep& sweep) const {
    if (raw_dir_) write_sweep_csv(*raw_dir_ / (sweep.name + ".csv"), sweep);
}

double SweepRunner::measured_clock_khz() const {
    return clock_ns_ == 0 ? 0.0 : double(clock_cycles_) / double(clock_ns_) * 1e6;
}

}  // namespace gpu_topology::stages
