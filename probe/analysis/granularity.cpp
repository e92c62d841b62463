#include "granularity.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <stdexcept>

namespace gpu_topology::analysis {

std::optional<double> two_class_threshold(std::span<const double> samples) {
    if (samples.size() < 2) return std::nullopt;
    std::vector<double> v(samples.begin(), samples.end());
    std::sort(v.begin(), v.end());
    if (v.front() == v.back()) return std::nullopt;
    const double n = double(v.size());
    double total = 0;
    for (double x : v) total += x;
    double left_sum = 0, best_score = -1, best = v.front();
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
        left_sum += v[i];
        if (v[i] == v[i + 1]) continue;
        const double wl = double(i + 1) / n, wr = 1 - wl;
        const double ml = left_sum / double(i + 1), mr = (total - left_sum) / (n - double(i + 1));
        const double score = wl * wr * (ml - mr) * (ml - mr);
        if (score > best_score) {
            best_score = score;
            best = (v[i] + v[i + 1]) / 2;
        }
    }
    return best;
}

namespace {

// Fetches recur at one distance: most gaps between them are the same. Loads that
// interrupts or clock changes delayed by thousands of cycles lie anywhere, and are
// few: fewer than fetches of the largest granularity a first touch is read for would
// leave.
constexpr double kFetchGapsAgree = 0.5;
constexpr std::uint32_t kLargestFetchBytes = 1024;
constexpr int kMostSlowClassesLeftOut = 3;

}  // namespace

// The two-class threshold of the samples, leaving out a slow class that cannot be
// the fetches: one or two loads, or a few whose gaps agree on no distance (drawn
// GPUs with rare outliers gave four among 1024 first touches 8 B apart, and the gap
// between two of them became the "granularity"). A large class with irregular gaps
// stays: it may be fetches blurred by noise, and its answer is doubted downstream,
// where a level below it could look regular and be vouched for. At most three
// classes are left out; the last threshold stands.
std::optional<Granularity> fetch_granularity(std::span<const double> cycles, std::uint32_t stride_bytes) {
    const auto fewer_than_fetches = static_cast<std::ptrdiff_t>(cycles.size() * stride_bytes / kLargestFetchBytes);
    std::vector<double> kept(cycles.begin(), cycles.end());
    for (int round = 0;; ++round) {
        const auto threshold = two_class_threshold(kept);
        if (!threshold) return std::nullopt;
        const auto slow = std::count_if(kept.begin(), kept.end(), [&](double c) { return c > *threshold; });
        if (slow >= 3 || round == kMostSlowClassesLeftOut) {
            auto answer = fetch_granularity(cycles, stride_bytes, *threshold);
            const bool delayed_loads = answer && slow < fewer_than_fetches && answer->confidence <= kFetchGapsAgree;
            if (!delayed_loads || round == kMostSlowClassesLeftOut) return answer;
        }
        std::erase_if(kept, [&](double c) { return c > *threshold; });
    }
}

std::optional<Granularity> fetch_granularity(std::span<const double> cycles, std::uint32_t stride_bytes,
                                             double threshold) {
    std::vector<std::size_t> slow;
    std::vector<double> slow_cycles, fast_cycles;
    for (std::size_t i = 0; i < cycles.size(); ++i) {
        if (cycles[i] > threshold) slow.push_back(i);
        (cycles[i] > threshold ? slow_cycles : fast_cycles).push_back(cycles[i]);
    }
    if (slow.size() < 3) return std::nullopt;
    std::map<std::size_t, std::size_t> distances;
    for (std::size_t i = 1; i < slow.size(); ++i) ++distances[slow[i] - slow[i - 1]];
    const auto mode = std::max_element(distances.begin(), distances.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    return Granularity{static_cast<std::uint32_t>(mode->first * stride_bytes),
                       double(mode->second) / double(slow.size() - 1), median(slow_cycles),
                       fast_cycles.empty() ? 0.0 : median(fast_cycles)};
}

std::vector<std::uint32_t> line_search_strides(const std::optional<Granularity>& fetch, std::uint32_t widest_first,
                                               std::uint32_t last) {
    if (widest_first == 0 || widest_first > last)
        throw std::invalid_argument("line search strides: the first stride must be at least 1 and at most the last");
    std::uint32_t first = widest_first;
    if (fetch && fetch->bytes >= 32 && std::has_single_bit(fetch->bytes)) first = std::min(first, fetch->bytes);
    std::vector<std::uint32_t> strides;
    for (std::uint32_t s = first; s != 0 && s <= last; s *= 2) strides.push_back(s);
    return strides;
}

std::optional<LineEstimate> line_from_spans(std::vector<StrideSpan> spans, double tolerance) {
    if (spans.size() < 2) return std::nullopt;
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.stride_bytes < b.stride_bytes; });
    const double base = double(spans.front().span_bytes);
    if (base <= 0) return std::nullopt;
    std::size_t line_index = 0;
    for (std::size_t i = 1; i < spans.size(); ++i) {
        if (std::abs(double(spans[i].span_bytes) / base - 1.0) <= tolerance)
            line_index = i;
        else
            break;
    }
    if (line_index + 1 >= spans.size()) return std::nullopt;  // never grew: line >= largest stride tested
    const auto& line = spans[line_index];
    const auto& next = spans[line_index + 1];
    const double expected = double(next.stride_bytes) / double(line.stride_bytes);
    const double ratio = double(next.span_bytes) / double(line.span_bytes);
    if (ratio < 1.0 + (expected - 1.0) / 2) return std::nullopt;  // grew, but not like a line boundary
    // Grew far more than a line boundary gives: the span is another level's. A ring whose reference
    // already overflows the cache (a cache of few lines: draw 85377, eight 128 B lines, spanned 16 KiB
    // at a stride of 128 B) times the level behind it.
    if (ratio > 2 * expected) return std::nullopt;
    const double confidence = std::clamp(1.0 - std::abs(ratio - expected) / expected, 0.0, 1.0);
    return LineEstimate{line.stride_bytes, confidence};
}

std::vector<std::uint64_t> spans_if_line(const StrideSpan& known, std::uint32_t stride) {
    std::vector<std::uint32_t> lines;
    for (std::uint32_t line = 16; line <= 1024; line *= 2) lines.push_back(line);
    const auto distance = [&](std::uint32_t line) { return std::abs(std::log2(double(line) / known.stride_bytes)); };
    std::stable_sort(lines.begin(), lines.end(), [&](auto a, auto b) { return distance(a) < distance(b); });
    std::vector<std::uint64_t> spans;
    for (const auto line : lines) {
        const double grows = std::max(1.0, double(stride) / line) / std::max(1.0, double(known.stride_bytes) / line);
        const auto span = static_cast<std::uint64_t>(std::llround(double(known.span_bytes) * grows));
        if (span > 0 && std::find(spans.begin(), spans.end(), span) == spans.end()) spans.push_back(span);
    }
    return spans;
}

bool span_independent_of_stride(const std::vector<StrideSpan>& spans, double tolerance) {
    if (spans.size() < 2) return false;
    const auto [lo, hi] = std::minmax_element(spans.begin(), spans.end(),
                                              [](const auto& a, const auto& b) { return a.stride_bytes < b.stride_bytes; });
    if (hi->stride_bytes < 4 * lo->stride_bytes) return false;
    const double first = double(lo->span_bytes);  // not captured: Clang before 16 captures no binding
    return std::all_of(spans.begin(), spans.end(), [&](const StrideSpan& s) {
        return std::abs(double(s.span_bytes) - first) <= tolerance * first;
    });
}

}  // namespace gpu_topology::analysis
