#pragma once
// The probe's result as typed values: one Result per quantity of the list
// (model/quantities.hpp), each carrying how it was obtained, plus the records
// that are not quantities (identity, stages, cross-checks, the carveout table,
// the conditions of the run). Stages fill a Topology; serialize.hpp writes it.
#include "quantities.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpu_topology::model {

enum class Source : std::uint8_t { api, measured, derived };
std::string_view to_string(Source source);
std::optional<Source> source_from(std::string_view text);  // nullopt for any other text

// How much repeated measurements of one value differed.
struct Spread {
    double min = 0, max = 0;
    std::uint32_t repeats = 0;
};

struct Estimate {
    double value = 0;
    Source source = Source::measured;
    std::string method;
    double confidence = 1;     // [0, 1], computed from the data (docs/profile-schema.md)
    bool lower_bound = false;  // the true value is at least `value`
    std::string bound_reason;  // what hid the true value
    std::optional<Spread> spread;
    std::vector<std::pair<std::string, double>> details;  // numbers kept beside the value
    std::string doubt;  // non-empty: measured, but not vouched for, and why
};

struct LatencyEstimate {
    double p05 = 0, p50 = 0, mean = 0, p95 = 0;
    std::uint64_t samples = 0;
    std::uint64_t footprint_bytes = 0;
    double timer_uncertainty_cycles = 0;  // spread of the subtracted timer overhead
    std::string method;
    double confidence = 1;
    std::string doubt;
};

struct Unmeasured {
    std::string reason;
};

using Result = std::variant<Unmeasured, Estimate, LatencyEstimate>;

// Builders for the common cases.
Estimate api_value(double value);
Result unmeasured(std::string reason);

// An independent second measurement that should agree with a first.
struct CrossCheck {
    std::string name;
    double expected = 0, measured = 0, tolerance = 0;
    std::string detail;
    std::vector<QuantityId> concerns;  // the quantities whose confidence it informs
    std::string stage;                 // the stage that made the second measurement
    bool passed() const;
    // 1 while the difference stays within the tolerance, then falling as
    // 2 * tolerance / (difference + tolerance): 0.5 at three tolerances.
    double agreement() const;
};

// The shared memory a measured kernel declares. The driver splits an SM
// between L1 and shared memory by the bytes a block declares (static and
// dynamic alike: 256 B of either gave the same L1 at every carveout), not
// monotonically, so each row says which kernel it describes
// (docs/l1-effective-capacity.md).
enum class KernelShared : std::uint8_t {
    none,     // no shared memory at all
    fixed,    // static shared memory only (the probe's own chase kernel)
    dynamic,  // dynamic shared memory only
};
std::string_view to_string(KernelShared kind);  // "none", "static", "dynamic"
std::optional<KernelShared> kernel_shared_from(std::string_view text);
// Profiles of probe 1.0 measured every row with the probe's chase kernel and
// did not say so: 16 B of static shared memory (ptxas -v, sm_90), its timer's
// dependency store. Their rows read as that kernel's.
inline constexpr std::uint32_t kProbe10KernelSharedBytes = 16;

struct CarveoutRow {
    int carveout_percent = -1;             // requested; -1: left to the driver
    std::uint32_t threads_per_block = 0;   // the launch shape the size belongs to
    KernelShared kernel_shared = KernelShared::fixed;
    std::uint32_t shared_bytes_per_block = 0;  // what the kernel declares per block, static + dynamic
    std::uint32_t resident_blocks = 0;     // blocks of that launch an SM can hold (occupancy API)
    std::optional<std::uint64_t> size_bytes;
    std::string why_unmeasured;
};

struct StageRecord {
    std::string name;
    double seconds = 0;
    std::uint32_t attempts = 1;  // > 1: repeated because the GPU was disturbed
};
struct SkippedStage {
    std::string name, reason;
};

struct ProbeRecord {
    std::string version;
    std::string level, pace;
    std::optional<double> budget_s;
    double duration_s = 0;
    int cuda_runtime = 0, driver = 0;
    std::vector<StageRecord> stages;
    std::vector<SkippedStage> skipped;
    double timer_overhead_cycles = 0;
    Spread timer_overhead_spread;
    std::uint64_t points_measured = 0;
};

// The latency curve through every level (the hierarchy stage), kept in the
// profile so its picture can be drawn again from the profile alone.
struct CurvePoint {
    std::uint64_t footprint_bytes = 0;
    double p50_cycles = 0;
};
struct LatencyCurve {
    std::string path;                // the load path the curve chased
    std::vector<CurvePoint> points;  // ascending footprint
    std::vector<std::pair<std::uint64_t, std::uint64_t>> change_points;  // last footprint before, first after
};

struct DeviceRecord {
    int index = 0;
    std::string name, uuid;
};

// Whether the GPU was the probe's alone while it measured (docs/profile-schema.md).
struct Conditions {
    bool quiet = true;             // nothing else was seen on the GPU
    std::string monitor;           // what watched: "nvml", "reference measurement", ...
    std::vector<std::string> events;  // what was seen, in order
    std::uint32_t retries = 0;     // stages measured again because of a disturbance
    double reference_work_seconds = 0;  // the fastest reference work of the run (0: none timed)
};

class Topology {
public:
    void set(QuantityId id, Result result) { results_.at(id) = std::move(result); }
    const Result* get(QuantityId id) const { return results_.at(id) ? &*results_.at(id) : nullptr; }
    bool has(QuantityId id) const { return results_.at(id).has_value(); }
    // The value of a measured or API quantity; nullopt when unmeasured or absent.
    std::optional<double> value(QuantityId id) const;
    // Marks every absent quantity that `selects` picks unmeasured with `reason`.
    template <typename Select>
    void mark_absent(const std::string& reason, Select&& selects) {
        for (QuantityId id = 0; id < kQuantities.size(); ++id)
            if (!results_[id] && selects(id)) results_[id] = Unmeasured{reason};
    }
    // Forgets every quantity `selects` picks (a stage about to be measured again);
    // everything else, the records beside the results included, stays.
    template <typename Select>
    void forget(Select&& selects) {
        for (QuantityId id = 0; id < kQuantities.size(); ++id)
            if (selects(id)) results_[id].reset();
    }
    // Lowers a measured value's confidence and records why it is not vouched for.
    void doubt(QuantityId id, const std::string& why, double confidence_factor = 0.5);
    // Each failed cross-check withdraws the probe's word for what it concerns,
    // and lowers that confidence by its agreement.
    void apply_cross_checks();
    // A measured value that contradicts a relation of the list (an L1 larger
    // than L2, ...) is not a fact: it becomes unmeasured, its number kept in the reason.
    void enforce_relations();

    // Where the values come from: "measured" on a device, or "simulated:<description>"
    // by the simulated engine (never a device's facts).
    std::string source = "measured";
    ProbeRecord probe;
    DeviceRecord device;
    Conditions conditions;
    std::vector<CrossCheck> cross_checks;
    std::vector<CarveoutRow> carveouts;
    std::optional<LatencyCurve> curve;
    // Measured values enforce_relations() made unmeasured because no GPU CUDA
    // supports has them ("<path>: <value> outside <range>"): a replay blames its log for them.
    std::vector<std::string> refused;

private:
    std::array<std::optional<Result>, kQuantities.size()> results_;
};

}  // namespace gpu_topology::model
