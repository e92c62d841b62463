#pragma once
// Line and fetch granularity from measurements, independent of the GPU.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gpu_topology::analysis {

// Threshold that splits samples into a fast and a slow class (Otsu: maximal
// between-class variance). Returns nullopt when all samples are equal.
std::optional<double> two_class_threshold(std::span<const double> samples);

struct Granularity {
    std::uint32_t bytes = 0;
    double confidence = 0;  // share of slow-to-slow distances equal to `bytes`
    double slow_p50 = 0;    // median latency of the fetches: which level served them
    double fast_p50 = 0;    // median latency of the accesses a fetch brought in
};

// First touch of consecutive addresses `stride_bytes` apart: every fetch from
// the next level is slow, the accesses it brought in are fast. The distance
// between slow accesses is the fetch granularity.
std::optional<Granularity> fetch_granularity(std::span<const double> first_touch_cycles, std::uint32_t stride_bytes);
// The same with the slow class chosen by the caller: loads slower than
// `threshold` (between the latency of the level in front and of the level that
// fetches), when a first touch also shows a level in between.
std::optional<Granularity> fetch_granularity(std::span<const double> first_touch_cycles, std::uint32_t stride_bytes,
                                             double threshold);

// The strides a line search tries: doubling from `widest_first`, or from a finer fetch granularity
// (a line holds at least one fetch, so it is no smaller), to `last`. A granularity under 32 B or
// no power of two is no line's (the gap between delayed loads, not fetches) and is left out.
// Never empty: `widest_first` must be at least 1 and at most `last` (std::invalid_argument).
std::vector<std::uint32_t> line_search_strides(const std::optional<Granularity>& fetch, std::uint32_t widest_first,
                                               std::uint32_t last);

struct StrideSpan {
    std::uint32_t stride_bytes = 0;
    std::uint64_t span_bytes = 0;  // largest fitting ring footprint at this stride
};

struct LineEstimate {
    std::uint32_t line_bytes = 0;
    double confidence = 0;  // how close the span ratio at twice the line is to 2
};

// A cache holds capacity/line lines. A ring touching one word per `stride`
// fills one line per element while stride <= line (span stays at capacity),
// and spreads over stride/line times the capacity once stride > line. The line
// is the largest stride whose span still equals the smallest stride's; a span
// that grows by about 2 at twice that stride confirms it. One that grows less than
// 1.5 times or more than 4 times gives no line.
std::optional<LineEstimate> line_from_spans(std::vector<StrideSpan> spans, double tolerance = 0.12);

// Where the span at `stride` would be, given the span at another stride, for each
// line from 16 B to 1 KiB: a ring takes a line per element once its stride
// reaches the line, so the span grows as max(1, stride / line). First the line
// equal to the known stride (the stride a probe chooses is its guess of the
// line), then lines ever further from it; each span once. Hints for
// find_capacity_near: a search that starts at the right one measures two
// footprints instead of a doubling and a bisection.
std::vector<std::uint64_t> spans_if_line(const StrideSpan& known, std::uint32_t stride);

// True when the span is the same (within `tolerance`) at every stride, the
// largest at least four times the smallest: the signature of a cache whose
// sets are indexed by plain address bits, where strides beyond the line fall
// into fewer sets instead of spreading. Its line cannot be read from spans.
bool span_independent_of_stride(const std::vector<StrideSpan>& spans, double tolerance = 0.12);

}  // namespace gpu_topology::analysis
