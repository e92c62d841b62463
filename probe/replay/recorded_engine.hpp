#pragma once
// Engines that record and replay: every call a probe makes to the engine, and
// what the GPU answered, as a text log. `probe --record FILE` writes one; a
// ReplayEngine answers the same calls from it on any machine, so every stage,
// the SweepRunner and the analysis run on the CPU (tests/data/*.enginelog) and
// must reproduce the profile of the run that was recorded.
//
// The log's text (engine_log.hpp): a header of device facts, then one request
// line ("> ...") per call and, where the call returns something, one answer
// line ("< ..."). Latency samples are run-length encoded ("33*12" is twelve 33s).
// A replayed log is input: read within bounds, strictly, every error naming
// file:line.
#include "kernels/engine.hpp"
#include "kernels/device_facts.hpp"
#include "engine_log.hpp"

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpu_topology::stages {

using kernels::DeviceFacts;

class RecordingEngine final : public kernels::Engine {
public:
    // Records every call to `inner` into `file` (written as the probe goes).
    RecordingEngine(kernels::Engine& inner, const DeviceFacts& facts, const std::filesystem::path& file);

    std::size_t buffer_bytes() const override { return inner_.buffer_bytes(); }
    std::size_t ring_capacity(kernels::LoadPath path) const override { return inner_.ring_capacity(path); }
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

private:
    void write(const std::string& line);
    kernels::Engine& inner_;
    std::ofstream out_;
    std::filesystem::path file_;
};

class ReplayEngine final : public kernels::Engine {
public:
    // How the probe's calls must follow the log's.
    enum class Matching {
        every_call,   // call for call: a probe that changed its calls diverges at once
        subsequence,  // the probe may leave recorded calls out (a quick level, a budget) but
                      // makes no call the log does not have later on, in the same order
    };
    // Reads a log; throws ReplayError naming the file and line when it is malformed.
    explicit ReplayEngine(const std::filesystem::path& file, Matching matching = Matching::every_call);

    const DeviceFacts& facts() const { return log_.facts; }
    // Calls answered so far (with Matching::subsequence: the log's calls passed), and in the log.
    std::size_t calls_replayed() const { return next_; }
    std::size_t calls_recorded() const { return log_.calls.size(); }
    // "file:line" of the last call answered (of the log's start before any): where
    // to look when what the log answered makes a stage fail.
    std::string where() const;

    std::size_t buffer_bytes() const override { return log_.buffer_bytes; }
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

private:
    // The answer to the next call, which must be `request`; throws ReplayError when it is not.
    const LoggedCall& answer(const std::string& request);
    // The answer's fields, read strictly (errors name the answer's line).
    LogFields fields(const LoggedCall& call) const;
    kernels::ChaseResult result(const LoggedCall& call, std::size_t samples) const;
    double seconds(const LoggedCall& call) const;
    kernels::Ring ring(const LoggedCall& call, std::uint32_t elements, std::uint32_t stride_bytes) const;

    std::filesystem::path file_;
    Matching matching_;
    EngineLog log_;
    std::size_t next_ = 0;
};

}  // namespace gpu_topology::stages
