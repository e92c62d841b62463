#pragma once
// One cache level of the simulated GPU and what a cyclic ring leaves in it.
//
// A chase visits the same ring over and over, so each set of a level sees the
// same lines in the same order every pass. Sets are independent: a set that
// receives no more lines than it has ways keeps them all (any policy), and an
// LRU set that receives more misses on every one of them (cyclic access
// defeats LRU). Only sets of another policy that overflow are played load by
// load, and only the sets a recorded load falls in: a chase of a million lines
// that records 1024 loads looks at no more than 1024 sets. Counting the ring's
// lines in a set walks the blocks of `sets` consecutive lines the ring
// touches, not the lines; counting many sets of one ring (RunCounts) takes the
// blocks inside it once, by phase.
#include "architecture.hpp"
#include "random.hpp"

#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

namespace gpu_topology::simulate {

// The lines a ring touches, in address order: `count` lines `step` apart from `first`.
struct LineRun {
    std::uint64_t first = 0, step = 1, count = 0;
};
// The lines of `elements` elements `stride` bytes apart from `offset`, for
// lines of `line_bytes`: a stride that divides the line touches every line in
// between, one that is a multiple of it every (stride / line)-th. Throws
// std::invalid_argument for other strides (the probe's are powers of two).
LineRun lines_of(std::uint64_t offset, std::uint64_t stride, std::uint64_t elements, std::uint64_t line_bytes);

class CacheLevel {
public:
    // `bytes` of capacity shaped by `g` (its bytes are ignored); `salt` makes
    // the hashed index of two levels independent.
    CacheLevel(const CacheGeometry& g, std::uint64_t bytes, std::uint32_t line_bytes, SetIndex index, std::uint64_t salt);
    CacheLevel(const CacheGeometry& g, std::uint64_t bytes, std::uint64_t salt)
        : CacheLevel(g, bytes, g.line_bytes, g.index, salt) {}

    std::uint64_t sets() const { return sets_; }
    std::uint64_t lines() const { return lines_; }
    std::uint32_t line_bytes() const { return line_bytes_; }
    std::uint64_t ways(std::uint64_t set) const { return lines_ / sets_ + (set < lines_ % sets_ ? 1 : 0); }
    std::uint64_t set_of(std::uint64_t line) const;
    Replacement replacement() const { return replacement_; }
    // Lines of `run` in `set` (below sets()); appended to `out` (ascending) when given. `shifts`:
    // block_shifts(run) of this run, for counting many sets of one run (each block's hash once, not
    // once per set).
    std::uint64_t count(const LineRun& run, std::uint64_t set, std::vector<std::uint64_t>* out = nullptr,
                        const std::vector<std::uint64_t>* shifts = nullptr) const;
    // The line of block `block` (of `sets` consecutive lines) that falls in `set`, where the index
    // moves that block by `shift` (0 for a modulo index).
    std::uint64_t line_in_block(std::uint64_t set, std::uint64_t block, std::uint64_t shift) const;
    // Where the hashed index moves each block of `sets` lines that `run` spans (empty where count()
    // looks at each line instead, or the index is modulo).
    std::vector<std::uint64_t> block_shifts(const LineRun& run) const;

private:
    std::uint64_t lines_ = 0, sets_ = 1;
    std::uint32_t line_bytes_ = 128;
    SetIndex index_ = SetIndex::hashed;
    Replacement replacement_ = Replacement::lru;
    std::uint64_t salt_ = 0;
};

// The lines of one run in each set, for many sets of that run. A block of `sets` consecutive
// lines holds one line of every set; a block wholly inside the run is touched at that line
// when the line's offset from the run's first is a multiple of the step. Where the step
// divides the sets, that depends only on the block's shift modulo the step: the blocks
// inside the run are counted by that phase once, and a set's count is its phase's count and
// the two edge blocks looked at. Otherwise CacheLevel::count answers: it walks the lines for a
// step of a block or more, the blocks (each block's shift taken once) for a step that does not
// divide the sets.
class RunCounts {
public:
    RunCounts(const CacheLevel& level, const LineRun& run);
    std::uint64_t count(std::uint64_t set) const;  // set below level.sets(), or std::logic_error
    const std::vector<std::uint64_t>& shifts() const { return shifts_; }  // level.block_shifts(run)

private:
    const CacheLevel& level_;
    LineRun run_;
    std::vector<std::uint64_t> shifts_;
    std::vector<std::uint64_t> inner_by_phase_;  // blocks strictly between the edges, by shift % step; empty: walk
};

// One set played load by load: `ways` slots, lines replaced by the policy. The set receives
// `lines` lines, named by their place among them (0 to lines - 1): what a line holds is then a
// look-up, not a search.
class SetPlay {
public:
    SetPlay(std::uint64_t ways, std::uint64_t lines, Replacement policy, std::uint64_t seed);
    bool access(std::uint64_t line);  // line below `lines`; true: hit

private:
    static constexpr std::uint64_t kAbsent = ~std::uint64_t(0);
    std::uint64_t ways_;
    Replacement policy_;
    Random random_;
    std::vector<std::uint64_t> slot_of_;  // random: per line, its slot, or kAbsent
    std::vector<std::uint64_t> slots_;    // random: the lines held
    std::list<std::uint64_t> recency_;    // LRU: the lines held, least recent first
    std::vector<std::list<std::uint64_t>::iterator> lru_at_;  // LRU: per line, its place in recency_
    std::vector<bool> held_;                                  // LRU: per line, whether it is held
};

// Which of a ring's lines a level holds in the steady state of a chase: after
// `warm_passes` passes, in timed pass p. `visit_of(line)` says when in a pass
// the ring first visits a line (its order within a set, for played sets).
class SteadyState {
public:
    using VisitOf = std::function<std::uint64_t(std::uint64_t line)>;
    SteadyState(const CacheLevel& level, LineRun run, std::uint32_t warm_passes, std::uint64_t seed, VisitOf visit_of)
        : level_(level), run_(run), warm_(warm_passes), seed_(seed), visit_of_(std::move(visit_of)) {}
    bool holds(std::uint64_t line, std::uint64_t timed_pass);

private:
    struct PlayedSet {
        std::vector<std::uint64_t> order;                            // lines by visit
        std::vector<std::pair<std::uint64_t, std::size_t>> by_line;  // (line, its place in `order`), by line
        std::vector<std::vector<bool>> passes;                       // hits per timed pass, in `order`
    };
    struct SetState {
        std::uint64_t lines = 0, ways = 0;
        std::optional<PlayedSet> played;
    };
    SetState& state(std::uint64_t set);

    const CacheLevel& level_;
    LineRun run_;
    std::uint32_t warm_;
    std::uint64_t seed_;
    VisitOf visit_of_;
    std::unordered_map<std::uint64_t, SetState> sets_;
    std::optional<RunCounts> counts_;  // once a set is counted
};

}  // namespace gpu_topology::simulate
