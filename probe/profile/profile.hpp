#pragma once
// A profile is a Json document in schema gpu-topology/1 (docs/profile-schema.md).
// This header builds its parts, loads it with validation, and reads values
// through the schema table.
#include "json.hpp"
#include "schema.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::profile {

// --- building ---------------------------------------------------------------
Json quantity(double value, std::string_view unit, std::string_view source, std::string_view method,
              double confidence);
Json unmeasured(std::string_view unit, std::string_view reason);
// A measured value known only as a lower bound: the true one lies beyond what
// the probe could reach (`why` says what stopped it).
Json lower_bound(double value, std::string_view unit, std::string_view method, std::string_view why);

struct LatencyFields {
    double p05 = 0, p50 = 0, mean = 0, p95 = 0;
    std::uint64_t samples = 0;
    std::uint64_t footprint_bytes = 0;
    double sm_clock_khz = 0;  // to convert p50 to ns; 0: no ns field
    std::string method;
    double confidence = 0;
};
Json latency(const LatencyFields& fields);

// Every schema quantity the profile lacks (of those `selects` picks by path;
// all without it) becomes unmeasured with `reason`, so a probe that skipped a
// question still writes a valid, honest profile.
void mark_absent_unmeasured(Json& profile, std::string_view reason,
                             const std::function<bool(std::string_view path)>& selects = {});

// --- reading ----------------------------------------------------------------
struct Value {
    std::optional<double> value;  // nullopt when unmeasured
    std::string source;           // api | measured | derived | unmeasured
    std::string reason;           // why unmeasured, or what hides a bound
    bool lower_bound = false;     // the value is a lower bound ("bound": "lower")
};
// The value of a schema quantity (a latency reads as its p50).
Value read_quantity(const Json& profile, const QuantitySpec& spec);

// Every problem found, each as "<field>: <what is wrong> (<value>)".
std::vector<std::string> validate(const Json& profile);

class ProfileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses and validates; throws ProfileError naming the file and each bad field.
Json load_profile(const std::filesystem::path& file);
Json load_profile_text(std::string_view text, const std::string& source);

// FNV-1a 64 of the exact bytes, as "fnv1a64:0123456789abcdef".
std::string content_hash(std::string_view bytes);

}  // namespace gpu_topology::profile
