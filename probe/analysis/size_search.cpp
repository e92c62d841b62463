#include "size_search.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace gpu_topology::analysis {

namespace {

bool fits_reference(const SweepPoint& candidate, const KsReference& reference, const CapacitySearchOptions& options,
                    KsResult* test) {
    const auto result = ks_slower(reference, candidate.cycles);
    if (test) *test = result;
    return result.p_value >= options.alpha || result.statistic < options.min_effect;
}

}  // namespace

bool fits(const SweepPoint& candidate, const SweepPoint& reference, const CapacitySearchOptions& options,
          KsResult* test) {
    return fits_reference(candidate, KsReference(reference.cycles, options.tolerance), options, test);
}

namespace {

// One search: the reference, the points tried, the bracket [lo fits, hi does not].
class Search {
public:
    Search(const MeasureFootprint& measure, const CapacitySearchOptions& options, const SweepPoint* reference = nullptr)
        : measure_(measure), options_(options) {
        if (options.step_bytes == 0 || options.reference_bytes == 0 || options.max_bytes <= options.reference_bytes)
            throw std::invalid_argument("capacity search needs reference < max and a non-zero step");
        reference_ = reference ? *reference : measure(round(options.reference_bytes));
        estimate_.trace.points.push_back(reference_);
        ks_reference_.emplace(reference_.cycles, options.tolerance);
    }
    std::uint64_t round(std::uint64_t bytes) const {
        return std::max(options_.step_bytes, bytes / options_.step_bytes * options_.step_bytes);
    }
    std::uint64_t reference_bytes() const { return reference_.footprint_bytes; }
    std::uint64_t max_bytes() const { return round(options_.max_bytes); }
    std::uint64_t step() const { return options_.step_bytes; }

    bool fits(std::uint64_t bytes) {
        auto point = measure_(bytes);
        KsResult test;
        const bool ok = fits_reference(point, *ks_reference_, options_, &test);
        if (!ok) last_rejection_ = test;
        estimate_.trace.points.push_back(std::move(point));
        return ok;
    }
    // Bisection of [lo, hi] (lo fits, hi does not; `at_hi` the test that rejected hi) down to one step.
    void bisect(std::uint64_t lo, std::uint64_t hi) { bisect(lo, hi, last_rejection_); }
    void bisect(std::uint64_t lo, std::uint64_t hi, KsResult at_hi) {
        while (hi - lo > options_.step_bytes) {
            const std::uint64_t mid = lo + (hi - lo) / options_.step_bytes / 2 * options_.step_bytes;
            if (fits(mid)) {
                lo = mid;
            } else {
                hi = mid;
                at_hi = last_rejection_;
            }
        }
        found(lo, hi, at_hi);
    }
    void found(std::uint64_t lo, std::uint64_t hi, const KsResult& at_hi) {
        estimate_.found = true;
        estimate_.capacity_bytes = lo;
        estimate_.first_miss_bytes = hi;
        estimate_.at_first_miss = at_hi;
        estimate_.confidence = 1.0 - at_hi.p_value;
    }
    void nothing_missed(std::uint64_t largest) { estimate_.capacity_bytes = largest; }
    const KsResult& last_rejection() const { return last_rejection_; }

    CapacityEstimate finish() {
        auto& points = estimate_.trace.points;
        std::sort(points.begin(), points.end(),
                  [](const auto& a, const auto& b) { return a.footprint_bytes < b.footprint_bytes; });
        points.erase(std::unique(points.begin(), points.end(),
                                 [](const auto& a, const auto& b) { return a.footprint_bytes == b.footprint_bytes; }),
                     points.end());
        return std::move(estimate_);
    }

private:
    const MeasureFootprint& measure_;
    const CapacitySearchOptions& options_;
    SweepPoint reference_;
    std::optional<KsReference> ks_reference_;  // reference_ sorted once for every test against it
    KsResult last_rejection_;
    CapacityEstimate estimate_;
};

// Doubling from `lo` (which fits) to the first footprint that does not, then bisection.
void search_upwards(Search& search, std::uint64_t lo) {
    for (std::uint64_t bytes = search.round(lo * 2);; bytes = search.round(bytes * 2)) {
        bytes = std::min(bytes, search.max_bytes());
        if (!search.fits(bytes)) return search.bisect(lo, bytes);
        lo = bytes;
        if (bytes >= search.max_bytes()) return search.nothing_missed(lo);
    }
}

}  // namespace

CapacityEstimate find_capacity(const MeasureFootprint& measure, const CapacitySearchOptions& options) {
    Search search(measure, options);
    search_upwards(search, search.reference_bytes());
    return search.finish();
}

CapacityEstimate find_capacity_near(const MeasureFootprint& measure, const CapacitySearchOptions& options,
                                    const std::vector<std::uint64_t>& hints, const SweepPoint* reference) {
    Search search(measure, options, reference);
    std::uint64_t lo = search.reference_bytes(), hi = 0;  // lo fits; hi (when not 0) does not
    KsResult at_hi;
    const auto not_fitting = [&](std::uint64_t bytes) {
        hi = bytes;
        at_hi = search.last_rejection();
    };
    for (const auto raw : hints) {
        const std::uint64_t hint = search.round(raw);
        if (hint <= lo || (hi && hint >= hi) || hint + search.step() > search.max_bytes()) continue;
        if (!search.fits(hint)) {
            not_fitting(hint);
        } else {
            lo = hint;
            if (hi != hint + search.step()) {
                if (search.fits(hint + search.step())) lo = hint + search.step();
                else not_fitting(hint + search.step());
            }
        }
        if (hi && hi - lo <= search.step()) {
            search.found(lo, hi, at_hi);
            return search.finish();
        }
    }
    if (hi) {
        search.bisect(lo, hi, at_hi);
    } else {
        search_upwards(search, lo);
    }
    return search.finish();
}

}  // namespace gpu_topology::analysis
