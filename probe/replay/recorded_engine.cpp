#include "recorded_engine.hpp"

#include "util/atomic_file.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <sstream>
#include <utility>

namespace gpu_topology::stages {

using kernels::ChaseRequest;
using kernels::ChaseResult;
using kernels::Disturbance;
using kernels::LaunchShape;
using kernels::LoadPath;
using kernels::Ring;

namespace {

constexpr LoadPath kPaths[] = {LoadPath::none,     LoadPath::l1,       LoadPath::l2,    LoadPath::readonly,
                               LoadPath::texture, LoadPath::constant, LoadPath::shared};
constexpr std::uint32_t kRingEncodings = static_cast<std::uint32_t>(kernels::RingEncoding::none) + 1;

std::string ring_text(const Ring& r) {
    std::ostringstream s;
    s << int(r.encoding) << ' ' << r.offset << ' ' << r.first_byte << ' ' << r.elements << ' ' << r.stride_bytes << ' '
      << int(r.address_order);
    return s.str();
}

// The fields of a chase request after its load path, in the order written:
// "<path> ring <ring> warm <passes> <warming> timed <steps> samples <n> carveout <c> threads <t>
// kernel <probe|plain> dynamic_shared <bytes>".
// A replay matches requests as text, so a new field is one entry here (and logs
// recorded before it stop replaying: record them again).
using ChaseField = std::string (*)(const ChaseRequest&);
constexpr std::array<std::pair<std::string_view, ChaseField>, 8> kChaseFields{{
    {"ring", [](const ChaseRequest& q) { return ring_text(q.ring); }},
    {"warm", [](const ChaseRequest& q) { return std::to_string(q.warm_passes) + ' ' + std::to_string(int(q.warming)); }},
    {"timed", [](const ChaseRequest& q) { return std::to_string(q.timed_steps); }},
    {"samples", [](const ChaseRequest& q) { return std::to_string(q.max_samples); }},
    {"carveout", [](const ChaseRequest& q) { return std::to_string(q.carveout_percent); }},
    {"threads", [](const ChaseRequest& q) { return std::to_string(q.threads_per_block); }},
    {"kernel", [](const ChaseRequest& q) { return std::string(kernels::to_string(q.kernel)); }},
    {"dynamic_shared", [](const ChaseRequest& q) { return std::to_string(q.dynamic_shared_bytes); }},
}};

std::string request_text(const ChaseRequest& q) {
    std::string text(kernels::to_string(q.path));
    for (const auto& [name, value] : kChaseFields) text += " " + std::string(name) + " " + value(q);
    return text;
}

// The samples a chase answers with: the CUDA engine records exactly this many
// (kernels/pchase.cu: min(max_samples, timed_steps)), so a log may hold no more.
std::size_t samples_of(const ChaseRequest& q) { return std::min(q.max_samples, q.timed_steps); }

std::string launch_text(const kernels::KernelLaunch& l) {
    return "launch_shape " + std::to_string(l.threads_per_block) + " " + std::to_string(l.carveout_percent) + " " +
           std::string(kernels::to_string(l.kernel)) + " " + std::to_string(l.dynamic_shared_bytes);
}

std::string disturbance_text(const Disturbance& d) {
    std::ostringstream s;
    s << kernels::to_string(d.path) << " ring " << ring_text(d.ring) << " passes " << d.passes << " warp " << d.warp;
    return s.str();
}

std::string read_text(const kernels::ReadRequest& r) {
    std::ostringstream s;
    s << "time_read " << int(r.pattern) << ' ' << int(r.op) << ' ' << r.offset << ' ' << r.bytes << ' ' << r.passes << ' '
      << r.threads << ' ' << r.blocks_per_sm;
    return s.str();
}

std::string result_text(const ChaseResult& r) {
    return "result " + std::to_string(r.timed_cycles) + " " + std::to_string(r.timed_ns) + " " +
           std::to_string(r.cycles.size()) + " " + encode_samples(r.cycles);
}

std::string format_double(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

std::string shared_access_text(const kernels::SharedAccess& a) {
    std::string text = "shared_access " + std::to_string(a.width_bytes);
    for (const auto byte : a.lane_bytes) text += " " + std::to_string(byte);
    return text;
}

std::string cluster_read_text(std::uint32_t blocks, bool remote, std::uint32_t passes) {
    return "cluster_read " + std::to_string(blocks) + " " + (remote ? "remote" : "own") + " " + std::to_string(passes);
}

// Seconds a timed kernel may take: more than an hour is no probe's kernel.
constexpr double kMaxSeconds = 3600;

}  // namespace

// --- recording ------------------------------------------------------------------

RecordingEngine::RecordingEngine(kernels::Engine& inner, const DeviceFacts& f, const std::filesystem::path& file)
    : inner_(inner), file_(file) {
    util::check_writable(file);  // written as the probe goes, but over regular files only, like every output
    out_.open(file);
    if (!out_) throw std::runtime_error(file.string() + ": cannot write the engine log");
    out_ << kEngineLogMagic << "\n" << facts_line(f) << "\n";
    out_ << "name " << f.name << "\nuuid " << f.uuid << "\n";
    out_ << "buffer " << inner.buffer_bytes() << "\ncapacities";
    for (auto path : kPaths) out_ << ' ' << inner.ring_capacity(path);
    out_ << "\n";
}

void RecordingEngine::write(const std::string& line) {
    out_ << line << '\n';
    if (!out_) throw std::runtime_error(file_.string() + ": writing the engine log failed");
}

Ring RecordingEngine::link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride) {
    const Ring ring = inner_.link_sequential(path, offset, elements, stride);
    write("> link " + std::string(kernels::to_string(path)) + " " + std::to_string(offset) + " " +
          std::to_string(elements) + " " + std::to_string(stride));
    write("< ring " + ring_text(ring));
    return ring;
}

Ring RecordingEngine::link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                                  std::uint64_t seed) {
    const Ring ring = inner_.link_random(path, offset, elements, stride, seed);
    write("> link_random " + std::string(kernels::to_string(path)) + " " + std::to_string(offset) + " " +
          std::to_string(elements) + " " + std::to_string(stride) + " " + std::to_string(seed));
    write("< ring " + ring_text(ring));
    return ring;
}

ChaseResult RecordingEngine::chase(const ChaseRequest& request) {
    auto result = inner_.chase(request);
    write("> chase " + request_text(request));
    write("< " + result_text(result));
    return result;
}

ChaseResult RecordingEngine::chase_after(const ChaseRequest& victim, const Disturbance& other) {
    auto result = inner_.chase_after(victim, other);
    write("> chase_after " + request_text(victim) + " | " + disturbance_text(other));
    write("< " + result_text(result));
    return result;
}

void RecordingEngine::stream_l2(std::size_t offset, std::size_t bytes) {
    inner_.stream_l2(offset, bytes);
    write("> stream_l2 " + std::to_string(offset) + " " + std::to_string(bytes));
}

double RecordingEngine::time_read(const kernels::ReadRequest& request) {
    const double seconds = inner_.time_read(request);
    write("> " + read_text(request));
    write("< seconds " + format_double(seconds));
    return seconds;
}

double RecordingEngine::time_reference_work() {
    const double seconds = inner_.time_reference_work();
    write("> reference_work");
    write("< seconds " + format_double(seconds));
    return seconds;
}

LaunchShape RecordingEngine::launch_shape(const kernels::KernelLaunch& launch) {
    const auto shape = inner_.launch_shape(launch);
    write("> " + launch_text(launch));
    write("< shape " + std::to_string(shape.resident_blocks) + " " + std::to_string(shape.shared_bytes_per_block));
    return shape;
}

void RecordingEngine::warm_up(double milliseconds) {
    inner_.warm_up(milliseconds);
    write("> warm_up " + format_double(milliseconds));
}

kernels::SharedAccessTiming RecordingEngine::time_shared_access(const kernels::SharedAccess& access) {
    const auto timing = inner_.time_shared_access(access);
    write("> " + shared_access_text(access));
    write("< timing " + format_double(timing.latency_cycles) + " " + format_double(timing.issue_cycles));
    return timing;
}

std::uint32_t RecordingEngine::max_cluster_blocks() {
    const auto blocks = inner_.max_cluster_blocks();
    write("> max_cluster_blocks");
    write("< blocks " + std::to_string(blocks));
    return blocks;
}

ChaseResult RecordingEngine::chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) {
    auto result = inner_.chase_cluster_shared(cluster_blocks, reader);
    write("> cluster_chase " + std::to_string(cluster_blocks) + " " + std::to_string(reader));
    write("< " + result_text(result));
    return result;
}

kernels::ClusterRead RecordingEngine::time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) {
    const auto read = inner_.time_cluster_read(cluster_blocks, remote, passes);
    write("> " + cluster_read_text(cluster_blocks, remote, passes));
    write("< read " + format_double(read.seconds) + " " + std::to_string(read.bytes) + " " + std::to_string(read.clusters));
    return read;
}

// --- replaying -------------------------------------------------------------------

ReplayEngine::ReplayEngine(const std::filesystem::path& file, Matching matching)
    : file_(file), matching_(matching), log_(read_engine_log(file, std::size(kPaths))) {}

std::string ReplayEngine::where() const {
    const std::size_t line = next_ == 0 ? 1 : std::max(log_.calls[next_ - 1].line, log_.calls[next_ - 1].answer_line);
    return file_.string() + ":" + std::to_string(line);
}

const LoggedCall& ReplayEngine::answer(const std::string& request) {
    const auto& calls = log_.calls;
    if (next_ >= calls.size())
        throw ReplayError(file_.string() + ": the probe made call " + std::to_string(next_ + 1) + " (" +
                          request.substr(0, 80) + "), but the recording ends after " + std::to_string(calls.size()));
    if (matching_ == Matching::subsequence && calls[next_].request != request) {
        // The recorded calls up to the next one with this request were left out by this run.
        std::size_t found = next_;
        while (found < calls.size() && calls[found].request != request) ++found;
        if (found == calls.size())
            throw ReplayError(file_.string() + ": the probe made a call the recording does not have after call " +
                              std::to_string(next_) + ":\n  " + request);
        next_ = found;
    }
    const LoggedCall& call = calls[next_];
    if (call.request != request)
        throw ReplayError(file_.string() + ":" + std::to_string(call.line) + ": the replay diverged at call " +
                          std::to_string(next_ + 1) + ": the probe asked\n  " + request + "\nthe recording has\n  " +
                          util::printable(call.request, 200));
    ++next_;
    return call;
}

LogFields ReplayEngine::fields(const LoggedCall& call) const {
    return LogFields(call.answer, file_.string() + ":" + std::to_string(call.answer_line));
}

// "result <timed cycles> <timed ns> <count> <samples>": exactly `samples` samples.
ChaseResult ReplayEngine::result(const LoggedCall& call, std::size_t samples) const {
    auto in = fields(call);
    ChaseResult r;
    in.expect_word("result");
    r.timed_cycles = in.number<std::uint64_t>("timed cycles");
    r.timed_ns = in.number<std::uint64_t>("timed nanoseconds");
    const auto count = in.number<std::size_t>("sample count", samples, samples);
    try {
        r.cycles = decode_samples(in.rest(), count);
    } catch (const ReplayError& e) {
        in.fail(e.what());
    }
    if (r.cycles.size() != count)
        in.fail("the result holds " + std::to_string(r.cycles.size()) + " samples, not the " + std::to_string(count) +
                " it announces");
    return r;
}

double ReplayEngine::seconds(const LoggedCall& call) const {
    auto in = fields(call);
    in.expect_word("seconds");
    const double s = in.number<double>("seconds", std::numeric_limits<double>::min(), kMaxSeconds);
    in.end();
    return s;
}

// "ring <encoding> <offset> <first byte> <elements> <stride> <address order>":
// the elements and the stride the call asked for (the engines link exactly those).
Ring ReplayEngine::ring(const LoggedCall& call, std::uint32_t elements, std::uint32_t stride_bytes) const {
    auto in = fields(call);
    in.expect_word("ring");
    Ring r;
    r.encoding = static_cast<kernels::RingEncoding>(in.number<std::uint32_t>("ring encoding", 0, kRingEncodings - 1));
    r.offset = in.number<std::size_t>("ring offset", 0, log_.buffer_bytes);
    r.first_byte = in.number<std::size_t>("first byte", 0, log_.buffer_bytes);
    r.elements = in.number<std::uint32_t>("elements", elements, elements);
    r.stride_bytes = in.number<std::uint32_t>("stride bytes", stride_bytes, stride_bytes);
    r.address_order = in.number<std::uint32_t>("address order (0 or 1)", 0, 1) != 0;
    in.end();
    return r;
}

std::size_t ReplayEngine::ring_capacity(LoadPath path) const {
    for (std::size_t i = 0; i < std::size(kPaths); ++i)
        if (kPaths[i] == path && i < log_.capacities.size()) return log_.capacities[i];
    return 0;
}

Ring ReplayEngine::link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride) {
    return ring(answer("link " + std::string(kernels::to_string(path)) + " " + std::to_string(offset) + " " +
                       std::to_string(elements) + " " + std::to_string(stride)),
                elements, stride);
}

Ring ReplayEngine::link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                               std::uint64_t seed) {
    return ring(answer("link_random " + std::string(kernels::to_string(path)) + " " + std::to_string(offset) + " " +
                       std::to_string(elements) + " " + std::to_string(stride) + " " + std::to_string(seed)),
                elements, stride);
}

ChaseResult ReplayEngine::chase(const ChaseRequest& request) {
    return result(answer("chase " + request_text(request)), samples_of(request));
}

ChaseResult ReplayEngine::chase_after(const ChaseRequest& victim, const Disturbance& other) {
    return result(answer("chase_after " + request_text(victim) + " | " + disturbance_text(other)), samples_of(victim));
}

void ReplayEngine::stream_l2(std::size_t offset, std::size_t bytes) {
    answer("stream_l2 " + std::to_string(offset) + " " + std::to_string(bytes));
}

double ReplayEngine::time_read(const kernels::ReadRequest& request) { return seconds(answer(read_text(request))); }

double ReplayEngine::time_reference_work() { return seconds(answer("reference_work")); }

LaunchShape ReplayEngine::launch_shape(const kernels::KernelLaunch& launch) {
    auto in = fields(answer(launch_text(launch)));
    in.expect_word("shape");
    const auto blocks = in.number<std::uint32_t>("resident blocks", 0, 65536);
    const auto shared = in.number<std::uint32_t>("shared bytes per block", 0, 1u << 20);
    in.end();
    return {launch.threads_per_block, blocks, shared};
}

void ReplayEngine::warm_up(double milliseconds) { answer("warm_up " + format_double(milliseconds)); }

kernels::SharedAccessTiming ReplayEngine::time_shared_access(const kernels::SharedAccess& access) {
    auto in = fields(answer(shared_access_text(access)));
    in.expect_word("timing");
    kernels::SharedAccessTiming timing;
    timing.latency_cycles = in.number<double>("latency cycles", 0, 1e6);
    timing.issue_cycles = in.number<double>("issue cycles", 0, 1e6);
    in.end();
    return timing;
}

std::uint32_t ReplayEngine::max_cluster_blocks() {
    auto in = fields(answer("max_cluster_blocks"));
    in.expect_word("blocks");
    const auto blocks = in.number<std::uint32_t>("cluster blocks", 0, 1024);
    in.end();
    return blocks;
}

ChaseResult ReplayEngine::chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) {
    return result(answer("cluster_chase " + std::to_string(cluster_blocks) + " " + std::to_string(reader)),
                  kernels::kClusterChaseSamples);
}

kernels::ClusterRead ReplayEngine::time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) {
    auto in = fields(answer(cluster_read_text(cluster_blocks, remote, passes)));
    in.expect_word("read");
    kernels::ClusterRead read;
    read.seconds = in.number<double>("seconds", 0, kMaxSeconds);
    read.bytes = in.number<std::uint64_t>("bytes");
    read.clusters = in.number<std::uint32_t>("clusters");
    in.end();
    return read;
}

}  // namespace gpu_topology::stages
