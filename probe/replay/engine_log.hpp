#pragma once
// The text of an engine log, which RecordingEngine writes and ReplayEngine
// answers from (recorded_engine.hpp):
//
//   # gpu-topology-engine-log 1
//   facts <index> <cc_major> ...          the device facts (kFactFields, in order)
//   name <device name>
//   uuid <device uuid>
//   buffer <bytes>
//   capacities <ring capacity per load path>
//   > <call> <request fields>             one line per engine call (kCallKinds)
//   < <answer> <answer fields>            its answer, exactly when the call has one
//
// A log is input: it is read from a regular file of at most kMaxEngineLogBytes,
// strictly (each number one whole token in its type's range, nothing left over,
// every count within what the request asked), and every error names
// `file:line` and what was expected there.
#include "kernels/device_facts.hpp"
#include "model/quantities.hpp"
#include "profile/profile.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace gpu_topology::stages {

using kernels::DeviceFacts;

class ReplayError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kEngineLogMagic = "# gpu-topology-engine-log 1";
// The logs of whole probes on an H100 and an H200 hold 2.4 MB each.
inline constexpr std::uintmax_t kMaxEngineLogBytes = 256u << 20;

// The facts line, one entry per field in the order it is written; the
// recorder and the reader both go by this list, so a new fact is one entry.
// Each is read within the range any GPU CUDA supports has: the rule of the
// quantity it becomes (model/quantities.hpp), or its own.
using FactMember = std::variant<int DeviceFacts::*, std::int64_t DeviceFacts::*>;
struct FactField {
    std::string_view name;
    FactMember member;
    model::Rule range;
};
// consteval: a misspelt name does not compile (model::id).
consteval model::Rule rule_of(std::string_view quantity) { return model::kQuantities[model::id(quantity)].rule; }
inline constexpr model::Rule kDeviceIndex{0, profile::kMaxDeviceIndex};
// CUDA versions as the runtime reports them: 1000 x major + 10 x minor (13.0 is 13000).
inline constexpr model::Rule kCudaVersion{1000, 999999};
inline constexpr std::array<FactField, 18> kFactFields{{
    {"index", &DeviceFacts::index, kDeviceIndex},
    {"cc_major", &DeviceFacts::cc_major, rule_of("CC_MAJOR")},
    {"cc_minor", &DeviceFacts::cc_minor, rule_of("CC_MINOR")},
    {"sm_count", &DeviceFacts::sm_count, rule_of("SM_COUNT")},
    {"driver_version", &DeviceFacts::driver_version, kCudaVersion},
    {"runtime_version", &DeviceFacts::runtime_version, kCudaVersion},
    {"sm_clock_max_khz", &DeviceFacts::sm_clock_max_khz, rule_of("SM_CLOCK_MAX_KHZ")},
    {"l2_bytes", &DeviceFacts::l2_bytes, rule_of("L2_SIZE_BYTES")},
    {"persisting_l2_max_bytes", &DeviceFacts::persisting_l2_max_bytes, rule_of("L2_PERSISTING_MAX_BYTES")},
    {"shared_per_sm_bytes", &DeviceFacts::shared_per_sm_bytes, rule_of("SHARED_SIZE_PER_SM_BYTES")},
    {"shared_per_block_bytes", &DeviceFacts::shared_per_block_bytes, model::kSharedBytes},
    {"shared_per_block_optin_bytes", &DeviceFacts::shared_per_block_optin_bytes, rule_of("SHARED_PER_BLOCK_OPTIN_BYTES")},
    {"reserved_shared_per_block_bytes", &DeviceFacts::reserved_shared_per_block_bytes, rule_of("SHARED_RESERVED_PER_BLOCK_BYTES")},
    {"constant_bytes", &DeviceFacts::constant_bytes, rule_of("CONSTANT_SIZE_BYTES")},
    {"global_bytes", &DeviceFacts::global_bytes, rule_of("DRAM_SIZE_BYTES")},
    {"max_threads_per_sm", &DeviceFacts::max_threads_per_sm, rule_of("MAX_THREADS_PER_SM")},
    {"max_blocks_per_sm", &DeviceFacts::max_blocks_per_sm, rule_of("MAX_BLOCKS_PER_SM")},
    {"registers_per_sm", &DeviceFacts::registers_per_sm, rule_of("REGISTERS_PER_SM")},
}};


// The calls of kernels::Engine a log holds: the first word of the request and
// the first word of its answer ("": the call answers nothing).
struct CallKind {
    std::string_view request;
    std::string_view answer;
};
inline constexpr std::array<CallKind, 13> kCallKinds{{
    {"link", "ring"},
    {"link_random", "ring"},
    {"chase", "result"},
    {"chase_after", "result"},
    {"cluster_chase", "result"},
    {"stream_l2", ""},
    {"time_read", "seconds"},
    {"reference_work", "seconds"},
    {"launch_shape", "shape"},
    {"warm_up", ""},
    {"shared_access", "timing"},
    {"max_cluster_blocks", "blocks"},
    {"cluster_read", "read"},
}};

struct LoggedCall {
    std::string request, answer;     // without their "> " and "< "
    std::size_t line = 0, answer_line = 0;
};
struct EngineLog {
    DeviceFacts facts;
    std::size_t buffer_bytes = 0;         // at most the device's memory (facts.global_bytes)
    std::vector<std::size_t> capacities;  // one per load path, each at most the device's memory
    std::vector<LoggedCall> calls;
};

// Reads and checks a whole log: its header once each and before the calls,
// `load_paths` capacities, every call a known one, every answer where (and
// only where) its call has one. Throws ReplayError "file:line: ...".
EngineLog read_engine_log(const std::filesystem::path& file, std::size_t load_paths);
// The facts line as the recorder writes it.
std::string facts_line(const DeviceFacts& facts);

// The space-separated fields of one log line, read strictly.
class LogFields {
public:
    // `where`: "file:line", for the errors.
    LogFields(std::string_view text, std::string where) : text_(text), where_(std::move(where)) {}

    [[noreturn]] void fail(const std::string& what) const;
    // The next field must be `word`.
    void expect_word(std::string_view word);
    // The next field as a number of type T in [min, max]: all of it a number
    // ("12x" is not), finite, within the range.
    template <typename T>
    T number(std::string_view field, T min = std::numeric_limits<T>::lowest(), T max = std::numeric_limits<T>::max()) {
        const std::string_view token = next(field);
        T value{};
        const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (ec == std::errc::result_out_of_range) fail(std::string(field) + " out of range: '" + quoted(token) + "'");
        if (ec != std::errc{} || end != token.data() + token.size())
            fail("expected " + std::string(field) + " (" + (std::is_integral_v<T> ? "a whole number" : "a number") +
                 "), got '" + quoted(token) + "'");
        if constexpr (std::is_floating_point_v<T>)
            if (!std::isfinite(value)) fail(std::string(field) + " must be finite, got '" + quoted(token) + "'");
        if (value < min || value > max)
            fail(std::string(field) + (min == max ? " must be " + number_text(min) + " (what the call asked for)"
                                                  : " must lie in [" + number_text(min) + ", " + number_text(max) + "]") +
                 ", got '" + quoted(token) + "'");
        return value;
    }
    // What is left of the line (the samples of a chase result).
    std::string_view rest();
    // Nothing may be left.
    void end() const;

private:
    std::string_view next(std::string_view field);
    static std::string quoted(std::string_view token);
    template <typename T>
    static std::string number_text(T v) {
        if constexpr (std::is_floating_point_v<T>) {
            char text[32];
            const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
            return std::string(text, end);
        } else {
            return std::to_string(v);
        }
    }
    std::string_view text_;
    std::string where_;
};

// Latency samples run-length encoded: "33*12" is twelve 33s.
std::string encode_samples(const std::vector<std::uint32_t>& cycles);
// Throws ReplayError when a token is malformed or the runs add up to more than
// `max_samples`, before anything that large is allocated.
std::vector<std::uint32_t> decode_samples(std::string_view text, std::size_t max_samples);

}  // namespace gpu_topology::stages
