#include "hierarchy.hpp"

#include "granularity.hpp"

#include <algorithm>
#include <cmath>

namespace gpu_topology::analysis {
namespace {

double median_at(const Sweep& curve, std::size_t i) { return median(curve.points[i].cycles); }

Plateau make_plateau(const Sweep& curve, std::size_t begin, std::size_t end) {
    // Leave out the points next to a change where possible: they are often a
    // blend of two levels.
    std::size_t a = begin, b = end;
    if (b - a >= 4) {
        ++a;
        --b;
    }
    Plateau plateau{curve.points[begin].footprint_bytes, curve.points[end - 1].footprint_bytes,
                    summarize(pool(curve, a, b))};
    plateau.lowest_p50 = plateau.highest_p50 = median_at(curve, a);
    for (std::size_t i = a + 1; i < b; ++i) {
        plateau.lowest_p50 = std::min(plateau.lowest_p50, median_at(curve, i));
        plateau.highest_p50 = std::max(plateau.highest_p50, median_at(curve, i));
    }
    return plateau;
}

// Every point of [begin, end), its edges too, within Plateau::kFlatWithin of their pooled median.
bool every_point_level(const Sweep& curve, std::size_t begin, std::size_t end) {
    const double level = median(pool(curve, begin, end));
    for (std::size_t i = begin; i < end; ++i)
        if (std::abs(median_at(curve, i) - level) > Plateau::kFlatWithin * level) return false;
    return true;
}

}  // namespace

Hierarchy interpret_hierarchy(const Sweep& curve, std::uint64_t api_l2_bytes, bool starts_in_l1,
                              const ChangePointOptions& options) {
    Hierarchy h;
    h.change_points = detect_change_points(curve, options);
    std::vector<std::pair<std::size_t, std::size_t>> segments;
    std::size_t begin = 0;
    for (const auto& cp : h.change_points) {
        segments.emplace_back(begin, cp.index);
        begin = cp.index;
    }
    segments.emplace_back(begin, curve.points.size());

    // Neighbouring segments whose median latencies differ by less than
    // kSameLevel are one level: a weak change point there marks a shoulder of
    // partial hits or a drift, not a new cache (the smallest real step seen,
    // far L2 to DRAM on Hopper, is about 1.4x).
    constexpr double kSameLevel = 1.15;
    const auto median_of = [&](std::pair<std::size_t, std::size_t> s) { return median(pool(curve, s.first, s.second)); };
    for (std::size_t i = 1; i < segments.size();) {
        const double a = median_of(segments[i - 1]), b = median_of(segments[i]);
        if (std::max(a, b) < kSameLevel * std::min(a, b)) {
            segments[i - 1].second = segments[i].second;
            segments.erase(segments.begin() + std::ptrdiff_t(i));
        } else {
            ++i;
        }
    }

    std::size_t next = 0;
    if (starts_in_l1 && !segments.empty()) h.l1 = make_plateau(curve, segments[next].first, segments[next].second), ++next;

    const double l2_limit = double(api_l2_bytes) * 1.05;
    // Far L2 over near: the H100's 1.83, the simulated domain's edge 1.3.
    constexpr double kFarOverNear = 1.3;
    for (; next < segments.size(); ++next) {
        auto [b, e] = segments[next];
        const bool beyond = double(curve.points[e - 1].footprint_bytes) > l2_limit;
        if (beyond) {
            // A level that evicts at random keeps hitting beyond its capacity: a segment that
            // starts well inside L2 and runs past it is still an L2 level, up to the L2 size.
            std::size_t inside = b;
            while (inside < e && double(curve.points[inside].footprint_bytes) <= l2_limit) ++inside;
            const bool from_l2_size = double(curve.points[b].footprint_bytes) > 0.9 * double(api_l2_bytes);
            if (inside - b < 2 || from_l2_size) {
                // A far part that evicts at random while the near part's hits run past their
                // size starts only at the L2 size: a level segment of two points or more, a far
                // part's step above near L2, that a slower one follows is still L2 (DRAM is the
                // last level).
                if (from_l2_size && h.l2_near && !h.l2_far && next + 1 < segments.size() && e - b >= 2 &&
                    every_point_level(curve, b, e) && median_of(segments[next]) >= kFarOverNear * h.l2_near->latency.p50 &&
                    median_of(segments[next + 1]) > median_of(segments[next])) {
                    h.l2_far = make_plateau(curve, b, e);
                    ++next;
                }
                break;
            }
            e = inside;
        }
        if (!h.l2_near)
            h.l2_near = make_plateau(curve, b, e);
        else if (!h.l2_far)
            h.l2_far = make_plateau(curve, b, e);
        if (beyond) break;
    }
    // DRAM: the last segment, if it starts at or beyond the L2 size. A short
    // segment straddling the L2 size is the transition and belongs to neither.
    const auto [b, e] = segments.back();
    if (double(curve.points[b].footprint_bytes) >= double(api_l2_bytes) * 0.95 && next < segments.size()) {
        // Reached through hits of an L2 that evicts at random, the segment begins with their
        // blend, rising: leading points well below the rest's level (by twice a plateau's
        // spread; a recorded H200 curve's DRAM points wander by 8 %) are left out, three kept.
        std::size_t first = b;
        while (e - first > 3 &&
               median_at(curve, first) < (1 - 2 * Plateau::kFlatWithin) * median(pool(curve, first + 1, e)))
            ++first;
        h.dram = make_plateau(curve, first, e);
    }
    return h;
}

namespace {

// Over a doubling of a ring that a faster level already cannot hold, that level's share of the
// loads falls well below this fraction of what it was (a ring of F bytes over a cache of C keeps
// about C/F of it in the cache, less under LRU). The H100's DRAM loads through near and far L2
// slices, 44 and 56 % of every ring from 54 to 108 MiB, keep theirs. A share that holds stays
// within this fraction of what it was either way: one that grows was not there to begin with.
constexpr double kOwnLevelShareHeld = 0.8;

// When a plateau's samples hold a class of a faster level's loads (without_faster_level's
// rule): the cycle count that parts the classes, the slower class (less rare slow loads), and
// whether the fast class is the known faster level's and how many loads it holds.
struct Classes {
    double threshold = 0;
    std::vector<double> slow;
    bool fast_is_known_level = false;
    bool fast_holds_most = false;
};
std::optional<Classes> faster_level_classes(const std::vector<double>& samples, double faster_level_cycles) {
    // Rare slow loads (interrupts: under 2 % of them) are no level: set aside, at most
    // twice, before two levels are looked for; each level then holds a fifth of the loads.
    std::vector<double> kept = samples;
    std::optional<double> threshold;
    for (int round = 0; round < 3; ++round) {
        threshold = two_class_threshold(kept);
        if (!threshold) return std::nullopt;
        const auto slow = std::count_if(kept.begin(), kept.end(), [&](double c) { return c > *threshold; });
        if (50 * slow >= std::ptrdiff_t(kept.size())) break;
        if (round == 2) return std::nullopt;
        std::erase_if(kept, [&](double c) { return c > *threshold; });
    }
    std::vector<double> fast, slow;
    for (const double s : kept) (s > *threshold ? slow : fast).push_back(s);
    if (5 * fast.size() < kept.size() || 5 * slow.size() < kept.size()) return std::nullopt;
    const double fast_p50 = median(fast), slow_p50 = median(slow);
    const bool known = faster_level_cycles > 0 && fast_p50 >= 0.9 * faster_level_cycles &&
                       fast_p50 <= 1.1 * faster_level_cycles;
    const bool two_levels = slow_p50 >= 1.5 * fast_p50 || (slow_p50 >= 1.3 * fast_p50 && known);
    if (!two_levels) return std::nullopt;
    return Classes{*threshold, std::move(slow), known, 2 * fast.size() > kept.size()};
}

double share_at_or_below(const std::vector<double>& samples, double threshold) {
    if (samples.empty()) return 0;
    return double(std::count_if(samples.begin(), samples.end(), [&](double c) { return c <= threshold; })) /
           double(samples.size());
}

}  // namespace

std::vector<double> without_faster_level(const std::vector<double>& samples, double faster_level_cycles) {
    return without_faster_level(std::vector<SweepPoint>{{0, samples}}, faster_level_cycles);
}

std::vector<double> without_faster_level(const std::vector<SweepPoint>& points, double faster_level_cycles) {
    std::vector<double> samples;
    for (const auto& p : points) samples.insert(samples.end(), p.cycles.begin(), p.cycles.end());
    const auto classes = faster_level_classes(samples, faster_level_cycles);
    if (!classes) return samples;
    // A faster level's hits thin out as the ring outgrows it; a fast class that holds its share
    // over a doubling of the ring is the plateau's own level. One that grows was not there from the
    // plateau's start, so it is not its own either (draw 69205: near hits of a hashed L2, none at
    // the far plateau's first point, two fifths at its last).
    if (points.size() >= 2 && points.back().footprint_bytes >= 2 * points.front().footprint_bytes) {
        const double first = share_at_or_below(points.front().cycles, classes->threshold);
        const double last = share_at_or_below(points.back().cycles, classes->threshold);
        return last >= kOwnLevelShareHeld * first && kOwnLevelShareHeld * last <= first ? samples : classes->slow;
    }
    // Over less than a doubling the shares say nothing: a fast class of no known level that holds
    // most of the loads is the plateau's own, its slow class the misses that reach past it (a
    // far L2 that evicts at random sends a fifth of its loads on to DRAM).
    if (!classes->fast_is_known_level && classes->fast_holds_most) return samples;
    return classes->slow;
}

}  // namespace gpu_topology::analysis
