#include "hierarchy.hpp"

#include "granularity.hpp"

#include <algorithm>
#include <cmath>

namespace gpu_topology::analysis {
namespace {

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
    plateau.lowest_p50 = plateau.highest_p50 = summarize(curve.points[a].cycles).p50;
    for (std::size_t i = a; i < b; ++i) {
        const double p50 = summarize(curve.points[i].cycles).p50;
        plateau.lowest_p50 = std::min(plateau.lowest_p50, p50);
        plateau.highest_p50 = std::max(plateau.highest_p50, p50);
    }
    return plateau;
}

// Every point's median within Plateau::kFlatWithin of the segment's, its edges included.
bool flat(const Sweep& curve, std::size_t begin, std::size_t end) {
    const double level = summarize(pool(curve, begin, end)).p50;
    for (std::size_t i = begin; i < end; ++i)
        if (std::abs(summarize(curve.points[i].cycles).p50 - level) > Plateau::kFlatWithin * level) return false;
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
    const auto median_of = [&](std::pair<std::size_t, std::size_t> s) { return summarize(pool(curve, s.first, s.second)).p50; };
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
    for (; next < segments.size(); ++next) {
        auto [b, e] = segments[next];
        const bool beyond = double(curve.points[e - 1].footprint_bytes) > l2_limit;
        if (beyond) {
            // A level that evicts at random keeps hitting beyond its capacity: a segment that
            // starts well inside L2 and runs past it is still an L2 level, up to the L2 size.
            std::size_t inside = b;
            while (inside < e && double(curve.points[inside].footprint_bytes) <= l2_limit) ++inside;
            if (inside - b < 2 || double(curve.points[b].footprint_bytes) > 0.9 * double(api_l2_bytes)) {
                // A far part that evicts at random while the near part's hits run past their
                // size starts only at the L2 size: a flat segment of two points or more that
                // a slower one follows is still L2 (DRAM is the last level).
                if (h.l2_near && !h.l2_far && next + 1 < segments.size() && e - b >= 2 && flat(curve, b, e)) {
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
        // blend, rising: the plateau is its flat end.
        std::size_t first = b;
        while (e - first > 2 && !flat(curve, first, e)) ++first;
        h.dram = make_plateau(curve, first, e);
    }
    return h;
}

namespace {

// Over a doubling of a ring that a faster level already cannot hold, that level's share of the
// loads falls well below this fraction of what it was (a ring of F bytes over a cache of C keeps
// about C/F of it in the cache, less under LRU). The H100's DRAM loads through near and far L2
// slices, 44 and 56 % of every ring from 54 to 108 MiB, keep theirs.
constexpr double kOwnLevelShareHeld = 0.8;

// When a plateau's samples hold a class of a faster level's loads (without_faster_level's
// rule): the cycle count that parts the classes and the slower class, less rare slow loads.
struct Classes {
    double threshold = 0;
    std::vector<double> slow;
};
std::optional<Classes> faster_level_classes(const std::vector<double>& samples, double faster_level_cycles,
                                            double slower_by) {
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
    const bool near_known = faster_level_cycles > 0 && fast_p50 >= 0.9 * faster_level_cycles &&
                            fast_p50 <= (1 + slower_by) * faster_level_cycles;
    // A fast class that is not the known faster level's and holds most of the loads is the
    // plateau's own level, its slow class the misses that reach past it (a far L2 that evicts
    // at random: a fifth of its loads go on to DRAM).
    const bool own_level = !near_known && 2 * fast.size() > kept.size();
    const bool two_levels = !own_level && (slow_p50 >= 1.5 * fast_p50 || (slow_p50 >= 1.3 * fast_p50 && near_known));
    if (!two_levels) return std::nullopt;
    return Classes{*threshold, std::move(slow)};
}

double share_at_or_below(const std::vector<double>& samples, double threshold) {
    if (samples.empty()) return 0;
    return double(std::count_if(samples.begin(), samples.end(), [&](double c) { return c <= threshold; })) /
           double(samples.size());
}

}  // namespace

std::vector<double> without_faster_level(const std::vector<double>& samples, double faster_level_cycles, double slower_by) {
    return without_faster_level(std::vector<SweepPoint>{{0, samples}}, faster_level_cycles, slower_by);
}

std::vector<double> without_faster_level(const std::vector<SweepPoint>& points, double faster_level_cycles,
                                         double slower_by) {
    std::vector<double> samples;
    for (const auto& p : points) samples.insert(samples.end(), p.cycles.begin(), p.cycles.end());
    const auto classes = faster_level_classes(samples, faster_level_cycles, slower_by);
    if (!classes) return samples;
    // A faster level's hits thin out as the ring outgrows it; a fast class that holds its share
    // over a doubling of the ring is the plateau's own level.
    if (points.size() >= 2 && points.back().footprint_bytes >= 2 * points.front().footprint_bytes &&
        share_at_or_below(points.back().cycles, classes->threshold) >=
            kOwnLevelShareHeld * share_at_or_below(points.front().cycles, classes->threshold))
        return samples;
    return classes->slow;
}

}  // namespace gpu_topology::analysis
