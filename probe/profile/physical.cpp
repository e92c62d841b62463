#include "physical.hpp"

#include "model/quantities.hpp"
#include "profile.hpp"

#include <array>
#include <cmath>
#include <map>
#include <optional>

namespace gpu_topology::profile {

using util::excerpt;
using util::format_number;
namespace {

using model::kQuantities;

std::string path_of(std::string_view name) { return std::string(kQuantities[model::find(name)].path); }

// A known value that is no lower bound: what a relation can be checked against.
std::optional<double> exact(const Json& profile, std::string_view name) {
    const Value v = read_quantity(profile, name);
    return v.value && !v.lower_bound ? v.value : std::nullopt;
}

class Physics {
public:
    Physics(const Json& profile, Problems& problems, const std::string& prefix)
        : profile_(profile), problems_(problems), prefix_(prefix) {}

    void relations() {
        for (const auto& r : model::kRelations) {
            const Value a = read_quantity(profile_, r.smaller), b = read_quantity(profile_, r.larger);
            const Value c = r.plus.empty() ? Value{.value = 0} : read_quantity(profile_, r.plus);
            // Unknown, or the larger side may be larger still.
            if (!a.value || !b.value || b.lower_bound || !c.value || c.lower_bound) continue;
            if (r.holds(*a.value, *b.value, *c.value)) continue;
            const std::string bound = r.plus.empty()
                                          ? path_of(r.larger) + " (" + format_number(*b.value) + ")"
                                          : path_of(r.larger) + " + " + path_of(r.plus) + " (" + format_number(*b.value) +
                                                " + " + format_number(*c.value) + " = " +
                                                format_number(*b.value + *c.value) + ")";
            add(path_of(r.smaller) + ": " + format_number(*a.value) + " must be " + (r.strict ? "less than " : "at most ") +
                bound + ": " + std::string(r.why));
        }
    }

    void differences() {
        for (const auto& d : model::kDifferences) {
            const auto whole = exact(profile_, d.difference), minuend = exact(profile_, d.minuend),
                       subtrahend = exact(profile_, d.subtrahend);
            if (!whole || !minuend || !subtrahend || std::abs(*whole - (*minuend - *subtrahend)) <= d.tolerance) continue;
            add(path_of(d.difference) + ": " + format_number(*whole) + " must be " + path_of(d.minuend) + " - " +
                path_of(d.subtrahend) + " (" + format_number(*minuend) + " - " + format_number(*subtrahend) + " = " +
                format_number(*minuend - *subtrahend) + ", within " + format_number(d.tolerance) +
                "): " + std::string(d.why));
        }
    }

    void products() {
        for (const auto& p : model::kProducts) {
            const auto whole = exact(profile_, p.product), a = exact(profile_, p.factor), b = exact(profile_, p.other_factor);
            if (!whole || !a || !b || *whole == *a * *b) continue;
            add(path_of(p.product) + ": " + format_number(*whole) + " must be " + path_of(p.factor) + " x " +
                             path_of(p.other_factor) + " (" + format_number(*a) + " x " + format_number(*b) + " = " +
                             format_number(*a * *b) + "): " + std::string(p.why));
        }
    }

    void compute_capability() {
        const double major = *read_quantity(profile_, kQuantities[model::kCcMajor]).value;
        const double minor = *read_quantity(profile_, kQuantities[model::kCcMinor]).value;
        for (const auto& n : model::kNeedsComputeCapability) {
            const Value v = read_quantity(profile_, n.name);
            if (!v.value || major > n.major || (major == n.major && minor >= n.minor)) continue;
            add(path_of(n.name) + ": " + format_number(*v.value) + " measured, but " + std::string(n.what) +
                             " need compute capability " + std::to_string(n.major) + "." + std::to_string(n.minor) +
                             " or higher (device.cc_major " + format_number(major) + ", device.cc_minor " +
                             format_number(minor) + "); unmeasured on older devices");
        }
    }

    // p50_ns is p50 cycles at the measured SM clock, both rounded to 0.01 when written.
    void nanoseconds() {
        const auto clock_khz = read_quantity(profile_, kQuantities[model::kSmClockKhz]).value;
        for (const auto& q : kQuantities) {
            if (q.shape != model::Shape::latency) continue;
            const Json* ns = profile_.at_path(std::string(q.path) + ".p50_ns");
            const auto cycles = read_quantity(profile_, q).value;
            if (!ns || !cycles) continue;
            const std::string at = std::string(q.path) + ".p50_ns";
            if (!clock_khz) {
                add(at + ": present, but device.sm_clock_khz, the clock it converts with, is unmeasured (" +
                                 excerpt(ns) + ")");
                continue;
            }
            const double expected = *cycles * 1e6 / *clock_khz;
            const double tolerance = 0.01 + 0.01 * 1e6 / *clock_khz + 1e-9 * expected;
            if (std::abs(ns->as_number() - expected) > tolerance)
                add(at + ": " + format_number(ns->as_number()) + " must be p50 (" + format_number(*cycles) +
                                 " cycles) at device.sm_clock_khz (" + format_number(*clock_khz) + " kHz): " +
                                 format_number(std::round(expected * 100) / 100) + " ns");
        }
    }

    // The carveout table (caches.l1.carveouts): each row a launch measured once,
    // a size an L1 can have, and a launch shape an SM can hold. Each row's own
    // fields were checked before (profile.cpp); these checks relate it to the
    // other rows and to the quantities.
    void carveouts() {
        const Json* rows = profile_.at_path("caches.l1.carveouts");
        if (!rows) return;
        const auto l1 = exact(profile_, "L1_SIZE_BYTES"), shared = exact(profile_, "SHARED_SIZE_PER_SM_BYTES");
        const auto max_threads = exact(profile_, "MAX_THREADS_PER_SM"), max_blocks = exact(profile_, "MAX_BLOCKS_PER_SM");
        const double smallest = kQuantities[model::find("L1_SIZE_BYTES")].rule.min;
        std::map<std::string, std::size_t> launches;  // launch key -> first row
        for (std::size_t i = 0; i < rows->as_array().size(); ++i) {
            const Json& row = rows->as_array()[i];
            const std::string at = "caches.l1.carveouts[" + std::to_string(i) + "]";
            const auto [first, fresh] = launches.emplace(carveout_launch_key(row), i);
            if (!fresh) {
                const Json& earlier = rows->as_array()[first->second];
                const std::string other = "caches.l1.carveouts[" + std::to_string(first->second) + "]";
                add(at + ": " + (row.dump(-1) == earlier.dump(-1)
                                                  ? "repeats " + other + ": one row per launch"
                                                  : "contradicts " + other + ": the same launch (" +
                                                        carveout_launch_key(row) + ") with another result"));
            }
            const double blocks = row.find("resident_blocks")->as_number();
            const double threads = row.find("threads_per_block")->as_number();
            if (max_blocks && blocks > *max_blocks)
                add(at + ".resident_blocks: " + format_number(blocks) + " must be at most sm.max_blocks (" +
                                 format_number(*max_blocks) + "): an SM holds no more blocks");
            if (max_threads && blocks * threads > *max_threads)
                add(at + ".resident_blocks: " + format_number(blocks) + " blocks of " + format_number(threads) +
                                 " threads must fit sm.max_threads (" + format_number(*max_threads) + ")");
            const Json* size = row.find("size_bytes");
            if (!size->is_number()) continue;  // unmeasured, with its reason
            const double bytes = size->as_number();
            if (bytes < smallest)
                add(at + ".size_bytes: " + format_number(bytes) + " bytes is no L1: every L1 of compute "
                                 "capability 5.0 to 12.x holds at least " + format_number(smallest));
            if (l1 && shared && bytes > *l1 + *shared)
                add(at + ".size_bytes: " + format_number(bytes) + " must be at most caches.l1.size_bytes + "
                                 "caches.shared.size_bytes (" + format_number(*l1 + *shared) +
                                 "): L1 and shared memory share one storage");
        }
    }

private:
    void add(const std::string& problem) { problems_.add(prefix_ + problem); }
    const Json& profile_;
    Problems& problems_;
    const std::string& prefix_;
};

// The fields that tell one measured launch from another: the carveout asked
// for, the block size, and the kind of kernel (the shared memory it declares,
// which changes the split the driver picks). Rows that lack a field are all
// one kind for it. A new field that tells launches apart is one more entry.
constexpr std::array<std::string_view, 4> kLaunchFields{"carveout_percent", "threads_per_block", "kernel_shared",
                                                        "shared_bytes_per_block"};

}  // namespace

std::string carveout_launch_key(const Json& row) {
    std::string key;
    for (const auto field : kLaunchFields)
        if (const Json* value = row.find(field)) key += (key.empty() ? "" : ", ") + std::string(field) + " " + excerpt(value);
    return key;
}

void physical_errors(const Json& profile, Problems& problems, const std::string& prefix) {
    Physics physics(profile, problems, prefix);
    physics.relations();
    physics.differences();
    physics.products();
    physics.compute_capability();
    physics.nanoseconds();
    physics.carveouts();
}

}  // namespace gpu_topology::profile
