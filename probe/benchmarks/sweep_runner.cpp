#include "sweep_runner.hpp"

#include "../analysis/statistics.hpp"
#include "../profile/sweep_csv.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpu_topology::benchmarks {

using kernels::ChaseRequest;
using kernels::LoadPath;

SweepRunner::SweepRunner(kernels::ChaseEngine& engine, std::optional<std::filesystem::path> raw_dir, Pace pace)
    : engine_(engine), raw_dir_(std::move(raw_dir)), pace_(pace) {}


double SweepRunner::calibrate_overhead() {
    ChaseRequest request;
    request.path = LoadPath::none;
    request.ring = kernels::Ring{.encoding = kernels::RingEncoding::none, .elements = 1, .stride_bytes = 8};
    request.warm_passes = 0;
    request.timed_steps = 4096;
    request.max_samples = 4096;
    const auto result = engine_.chase(request);
    std::vector<double> samples(result.cycles.begin(), result.cycles.end());
    overhead_cycles_ = analysis::median(samples);
    return overhead_cycles_;
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
    request.ring = spec.order == Order::random
                       ? engine_.link_random(spec.path, 0, elements, spec.stride_bytes, seed_++)
                       : engine_.link_sequential(spec.path, 0, elements, spec.stride_bytes);
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
    clock_cycles_ += result.timed_cycles;
    clock_ns_ += result.timed_ns;
    ++points_;
    analysis::SweepPoint point;
    point.footprint_bytes = footprint_bytes;
    point.cycles.reserve(result.cycles.size());
    for (auto c : result.cycles) point.cycles.push_back(double(c) - overhead_cycles_);
    return point;
}

analysis::Sweep SweepRunner::single_point_sweep(const std::string& name, const std::map<std::string, std::string>& meta,
                                                analysis::SweepPoint point) const {
    analysis::Sweep sweep;
    sweep.name = name;
    sweep.meta = meta;
    sweep.meta["overhead_cycles"] = std::to_string(overhead_cycles_);
    sweep.points.push_back(std::move(point));
    record(sweep);
    return sweep;
}

analysis::Sweep SweepRunner::run(const SweepSpec& spec, const std::vector<std::uint64_t>& footprints) {
    analysis::Sweep sweep;
    sweep.name = spec.name;
    sweep.meta["path"] = std::string(kernels::to_string(spec.path));
    sweep.meta["stride_bytes"] = std::to_string(spec.stride_bytes);
    sweep.meta["order"] = spec.order == Order::random ? "random" : "sequential";
    sweep.meta["carveout_percent"] = std::to_string(spec.carveout_percent);
    sweep.meta["warm_passes"] = std::to_string(spec.warm_passes);
    sweep.meta["overhead_cycles"] = std::to_string(overhead_cycles_);
    for (auto footprint : footprints) {
        auto point = measure(spec, footprint);
        if (!sweep.points.empty() && point.footprint_bytes <= sweep.points.back().footprint_bytes) continue;
        sweep.points.push_back(std::move(point));
    }
    record(sweep);
    return sweep;
}

void SweepRunner::record(const analysis::Sweep& sweep) const {
    if (raw_dir_) profile::write_sweep_csv(*raw_dir_ / (sweep.name + ".csv"), sweep);
}

double SweepRunner::measured_clock_khz() const {
    return clock_ns_ == 0 ? 0.0 : double(clock_cycles_) / double(clock_ns_) * 1e6;
}

std::string describe(const SweepSpec& spec) {
    return std::string(kernels::to_string(spec.path)) + " stride " + std::to_string(spec.stride_bytes) + " B, " +
           (spec.order == Order::random ? "random" : "sequential") + " order, carveout " +
           (spec.carveout_percent < 0 ? std::string("default") : std::to_string(spec.carveout_percent) + "%");
}

}  // namespace gpu_topology::benchmarks
