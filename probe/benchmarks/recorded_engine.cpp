#include "recorded_engine.hpp"

#include <charconv>
#include <cstdio>
#include <sstream>

namespace gpu_topology::benchmarks {

using kernels::ChaseRequest;
using kernels::ChaseResult;
using kernels::Disturbance;
using kernels::LaunchShape;
using kernels::LoadPath;
using kernels::Ring;

namespace {

constexpr const char* kMagic = "# gpu-topology-engine-log 1";
constexpr LoadPath kPaths[] = {LoadPath::none,     LoadPath::l1,       LoadPath::l2,    LoadPath::readonly,
                               LoadPath::texture, LoadPath::constant, LoadPath::shared};

std::string ring_text(const Ring& r) {
    std::ostringstream s;
    s << int(r.encoding) << ' ' << r.offset << ' ' << r.first_byte << ' ' << r.elements << ' ' << r.stride_bytes << ' '
      << int(r.address_order);
    return s.str();
}

Ring parse_ring(std::istringstream& in) {
    Ring r;
    int encoding = 0, order = 0;
    in >> encoding >> r.offset >> r.first_byte >> r.elements >> r.stride_bytes >> order;
    r.encoding = static_cast<kernels::RingEncoding>(encoding);
    r.address_order = order != 0;
    return r;
}

std::string request_text(const ChaseRequest& q) {
    std::ostringstream s;
    s << kernels::to_string(q.path) << " ring " << ring_text(q.ring) << " warm " << q.warm_passes << ' '
      << int(q.warming) << " timed " << q.timed_steps << " samples " << q.max_samples << " carveout "
      << q.carveout_percent << " threads " << q.threads_per_block << " kernel " << kernels::to_string(q.kernel)
      << " dynamic_shared " << q.dynamic_shared_bytes;
    return s.str();
}

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

double parse_seconds(const std::string& text) {
    if (text.rfind("seconds ", 0) != 0) throw ReplayError("expected seconds, got '" + text.substr(0, 60) + "'");
    return std::stod(text.substr(8));
}

std::string result_text(const ChaseResult& r) {
    return "result " + std::to_string(r.timed_cycles) + " " + std::to_string(r.timed_ns) + " " +
           std::to_string(r.cycles.size()) + " " + encode_samples(r.cycles);
}

ChaseResult parse_result(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    std::size_t count = 0;
    ChaseResult r;
    in >> word >> r.timed_cycles >> r.timed_ns >> count;
    if (word != "result" || !in) throw ReplayError("expected a chase result, got '" + text.substr(0, 60) + "'");
    std::string rest;
    std::getline(in, rest);
    r.cycles = decode_samples(rest);
    if (r.cycles.size() != count) throw ReplayError("a chase result holds " + std::to_string(r.cycles.size()) +
                                                    " samples, not the " + std::to_string(count) + " it announces");
    return r;
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

// Reads "<word> <numbers...>" into `values`; throws ReplayError when the answer is another kind.
template <typename... T>
void parse_answer(const std::string& text, const char* word, T&... values) {
    std::istringstream in(text);
    std::string first;
    in >> first;
    (in >> ... >> values);
    if (first != word || !in) throw ReplayError(std::string("expected '") + word + "', got '" + text.substr(0, 60) + "'");
}

}  // namespace

std::string encode_samples(const std::vector<std::uint32_t>& cycles) {
    std::string out;
    for (std::size_t i = 0; i < cycles.size();) {
        std::size_t run = 1;
        while (i + run < cycles.size() && cycles[i + run] == cycles[i]) ++run;
        if (!out.empty()) out += ' ';
        out += std::to_string(cycles[i]);
        if (run > 1) out += "*" + std::to_string(run);
        i += run;
    }
    return out;
}

std::vector<std::uint32_t> decode_samples(const std::string& text) {
    std::vector<std::uint32_t> out;
    std::istringstream in(text);
    std::string token;
    while (in >> token) {
        const auto star = token.find('*');
        std::uint32_t value = 0, run = 1;
        const char* end = token.data() + (star == std::string::npos ? token.size() : star);
        if (std::from_chars(token.data(), end, value).ec != std::errc{} ||
            (star != std::string::npos &&
             std::from_chars(token.data() + star + 1, token.data() + token.size(), run).ec != std::errc{}))
            throw ReplayError("bad sample '" + token + "'");
        out.insert(out.end(), run, value);
    }
    return out;
}

// --- recording ------------------------------------------------------------------

RecordingEngine::RecordingEngine(kernels::Engine& inner, const DeviceFacts& f, const std::filesystem::path& file)
    : inner_(inner), out_(file), file_(file) {
    if (!out_) throw std::runtime_error(file.string() + ": cannot write the engine log");
    out_ << kMagic << "\n";
    out_ << "facts " << f.index << ' ' << f.cc_major << ' ' << f.cc_minor << ' ' << f.sm_count << ' '
         << f.driver_version << ' ' << f.runtime_version << ' ' << f.sm_clock_max_khz << ' ' << f.l2_bytes << ' '
         << f.persisting_l2_max_bytes << ' ' << f.shared_per_sm_bytes << ' ' << f.shared_per_block_bytes << ' '
         << f.shared_per_block_optin_bytes << ' ' << f.reserved_shared_per_block_bytes << ' ' << f.constant_bytes
         << ' ' << f.global_bytes << ' ' << f.max_threads_per_sm << ' ' << f.max_blocks_per_sm << ' '
         << f.registers_per_sm << "\n";
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

ReplayEngine::ReplayEngine(const std::filesystem::path& file, Matching matching) : file_(file), matching_(matching) {
    std::ifstream in(file);
    if (!in) throw ReplayError(file.string() + ": cannot open the engine log");
    std::string line;
    std::size_t number = 0;
    const auto fail = [&](const std::string& what) {
        throw ReplayError(file.string() + ":" + std::to_string(number) + ": " + what);
    };
    if (!std::getline(in, line) || line != kMagic) fail(std::string("not an engine log: the first line must be '") + kMagic + "'");
    ++number;
    while (std::getline(in, line)) {
        ++number;
        if (line.rfind("> ", 0) == 0) {
            calls_.push_back({line.substr(2), {}, number});
        } else if (line.rfind("< ", 0) == 0) {
            if (calls_.empty() || !calls_.back().answer.empty()) fail("an answer without its request");
            calls_.back().answer = line.substr(2);
        } else if (line.rfind("facts ", 0) == 0) {
            std::istringstream s(line.substr(6));
            auto& f = facts_;
            s >> f.index >> f.cc_major >> f.cc_minor >> f.sm_count >> f.driver_version >> f.runtime_version >>
                f.sm_clock_max_khz >> f.l2_bytes >> f.persisting_l2_max_bytes >> f.shared_per_sm_bytes >>
                f.shared_per_block_bytes >> f.shared_per_block_optin_bytes >> f.reserved_shared_per_block_bytes >>
                f.constant_bytes >> f.global_bytes >> f.max_threads_per_sm >> f.max_blocks_per_sm >> f.registers_per_sm;
            if (!s) fail("malformed device facts");
        } else if (line.rfind("name ", 0) == 0) {
            facts_.name = line.substr(5);
        } else if (line.rfind("uuid ", 0) == 0) {
            facts_.uuid = line.substr(5);
        } else if (line.rfind("buffer ", 0) == 0) {
            buffer_bytes_ = std::stoull(line.substr(7));
        } else if (line.rfind("capacities", 0) == 0) {
            std::istringstream s(line.substr(10));
            std::size_t c = 0;
            while (s >> c) capacities_.push_back(c);
            if (capacities_.size() != std::size(kPaths)) fail("expected one capacity per load path");
        } else if (!line.empty()) {
            fail("unexpected line '" + line.substr(0, 40) + "'");
        }
    }
    if (facts_.sm_count == 0 || buffer_bytes_ == 0) fail("the log lacks its device facts or buffer size");
}

const std::string& ReplayEngine::answer(const std::string& request) {
    if (next_ >= calls_.size())
        throw ReplayError(file_.string() + ": the probe made call " + std::to_string(next_ + 1) + " (" +
                          request.substr(0, 80) + "), but the recording ends after " + std::to_string(calls_.size()));
    if (matching_ == Matching::subsequence && calls_[next_].request != request) {
        // The recorded calls up to the next one with this request were left out by this run.
        std::size_t found = next_;
        while (found < calls_.size() && calls_[found].request != request) ++found;
        if (found == calls_.size())
            throw ReplayError(file_.string() + ": the probe made a call the recording does not have after call " +
                              std::to_string(next_) + ":\n  " + request);
        next_ = found;
    }
    const Call& call = calls_[next_];
    if (call.request != request)
        throw ReplayError(file_.string() + ":" + std::to_string(call.line) + ": the replay diverged at call " +
                          std::to_string(next_ + 1) + ": the probe asked\n  " + request + "\nthe recording has\n  " +
                          call.request);
    ++next_;
    return call.answer;
}

std::size_t ReplayEngine::ring_capacity(LoadPath path) const {
    for (std::size_t i = 0; i < std::size(kPaths); ++i)
        if (kPaths[i] == path && i < capacities_.size()) return capacities_[i];
    return 0;
}

Ring ReplayEngine::link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride) {
    std::istringstream in(answer("link " + std::string(kernels::to_string(path)) + " " + std::to_string(offset) + " " +
                                 std::to_string(elements) + " " + std::to_string(stride)));
    std::string word;
    in >> word;
    return parse_ring(in);
}

Ring ReplayEngine::link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                               std::uint64_t seed) {
    std::istringstream in(answer("link_random " + std::string(kernels::to_string(path)) + " " + std::to_string(offset) +
                                 " " + std::to_string(elements) + " " + std::to_string(stride) + " " +
                                 std::to_string(seed)));
    std::string word;
    in >> word;
    return parse_ring(in);
}

ChaseResult ReplayEngine::chase(const ChaseRequest& request) {
    return parse_result(answer("chase " + request_text(request)));
}

ChaseResult ReplayEngine::chase_after(const ChaseRequest& victim, const Disturbance& other) {
    return parse_result(answer("chase_after " + request_text(victim) + " | " + disturbance_text(other)));
}

void ReplayEngine::stream_l2(std::size_t offset, std::size_t bytes) {
    answer("stream_l2 " + std::to_string(offset) + " " + std::to_string(bytes));
}

double ReplayEngine::time_read(const kernels::ReadRequest& request) {
    return parse_seconds(answer(read_text(request)));
}

double ReplayEngine::time_reference_work() { return parse_seconds(answer("reference_work")); }

LaunchShape ReplayEngine::launch_shape(const kernels::KernelLaunch& launch) {
    LaunchShape shape{.threads_per_block = launch.threads_per_block};
    parse_answer(answer(launch_text(launch)), "shape", shape.resident_blocks, shape.shared_bytes_per_block);
    return shape;
}

void ReplayEngine::warm_up(double milliseconds) { answer("warm_up " + format_double(milliseconds)); }

kernels::SharedAccessTiming ReplayEngine::time_shared_access(const kernels::SharedAccess& access) {
    kernels::SharedAccessTiming timing;
    parse_answer(answer(shared_access_text(access)), "timing", timing.latency_cycles, timing.issue_cycles);
    return timing;
}

std::uint32_t ReplayEngine::max_cluster_blocks() {
    std::uint32_t blocks = 0;
    parse_answer(answer("max_cluster_blocks"), "blocks", blocks);
    return blocks;
}

ChaseResult ReplayEngine::chase_cluster_shared(std::uint32_t cluster_blocks, std::uint32_t reader) {
    return parse_result(answer("cluster_chase " + std::to_string(cluster_blocks) + " " + std::to_string(reader)));
}

kernels::ClusterRead ReplayEngine::time_cluster_read(std::uint32_t cluster_blocks, bool remote, std::uint32_t passes) {
    kernels::ClusterRead read;
    parse_answer(answer(cluster_read_text(cluster_blocks, remote, passes)), "read", read.seconds, read.bytes,
                 read.clusters);
    return read;
}

}  // namespace gpu_topology::benchmarks
