#include "cache.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gpu_topology::simulate {
namespace {

// Beyond this many blocks or lines a count would take long: a ring no stage makes.
constexpr std::uint64_t kMostSteps = std::uint64_t(1) << 24;

}  // namespace

LineRun lines_of(std::uint64_t offset, std::uint64_t stride, std::uint64_t elements, std::uint64_t line_bytes) {
    if (elements == 0 || stride == 0) return {offset / line_bytes, 1, 0};
    if (stride % line_bytes == 0) return {offset / line_bytes, stride / line_bytes, elements};
    if (line_bytes % stride == 0) {
        const std::uint64_t first = offset / line_bytes, last = (offset + (elements - 1) * stride) / line_bytes;
        return {first, 1, last - first + 1};
    }
    throw std::invalid_argument("the simulated engine models rings whose stride (" + std::to_string(stride) +
                                " B) divides or is a multiple of the line (" + std::to_string(line_bytes) + " B)");
}

CacheLevel::CacheLevel(const CacheGeometry& g, std::uint64_t bytes, std::uint32_t line_bytes, SetIndex index,
                       std::uint64_t salt)
    : lines_(std::max<std::uint64_t>(1, bytes / line_bytes)), line_bytes_(line_bytes), index_(index),
      replacement_(g.replacement), salt_(salt) {
    if (g.sets) sets_ = std::min<std::uint64_t>(g.sets, lines_);
    else if (g.ways) sets_ = std::max<std::uint64_t>(1, lines_ / g.ways);
    else sets_ = 1;
    // A modulo index takes address bits: a power of two of sets; the lines beyond add ways.
    if (index_ == SetIndex::modulo) sets_ = std::bit_floor(sets_);
}

std::uint64_t CacheLevel::set_of(std::uint64_t line) const {
    if (index_ == SetIndex::modulo) return line % sets_;
    // (line mod sets + the block's shift) mod sets, the last by a subtraction: two divisions, not three.
    const std::uint64_t block = line / sets_;
    const std::uint64_t set = (line - block * sets_) + mix(block ^ salt_) % sets_;
    return set >= sets_ ? set - sets_ : set;
}

std::vector<std::uint64_t> CacheLevel::block_shifts(const LineRun& run) const {
    if (run.count == 0 || run.step >= sets_ || index_ == SetIndex::modulo) return {};
    const std::uint64_t first_block = run.first / sets_, last_block = (run.first + (run.count - 1) * run.step) / sets_;
    if (last_block - first_block > kMostSteps) throw std::logic_error("simulated cache: a ring of too many blocks to count");
    std::vector<std::uint64_t> shifts;
    shifts.reserve(last_block - first_block + 1);
    for (std::uint64_t b = first_block; b <= last_block; ++b) shifts.push_back(mix(b ^ salt_) % sets_);
    return shifts;
}

std::uint64_t CacheLevel::line_in_block(std::uint64_t set, std::uint64_t block, std::uint64_t shift) const {
    std::uint64_t offset = set + sets_ - shift;  // (set - shift) mod sets, by a subtraction
    if (offset >= sets_) offset -= sets_;
    return block * sets_ + offset;
}

std::uint64_t CacheLevel::count(const LineRun& run, std::uint64_t set, std::vector<std::uint64_t>* out,
                                const std::vector<std::uint64_t>* shifts) const {
    if (set >= sets_) throw std::logic_error("simulated cache: a set beyond the level's");
    if (run.count == 0) return 0;
    const std::uint64_t last = run.first + (run.count - 1) * run.step;
    std::uint64_t n = 0;
    const auto take = [&](std::uint64_t line) {
        ++n;
        if (out) out->push_back(line);
    };
    if (run.step >= sets_) {  // every line in a block of its own: look at each
        if (run.count > kMostSteps) throw std::logic_error("simulated cache: a ring of too many lines to count");
        for (std::uint64_t i = 0; i < run.count; ++i)
            if (set_of(run.first + i * run.step) == set) take(run.first + i * run.step);
        return n;
    }
    const std::uint64_t first_block = run.first / sets_, last_block = last / sets_;
    if (last_block - first_block > kMostSteps) throw std::logic_error("simulated cache: a ring of too many blocks to count");
    if (shifts && !shifts->empty() && shifts->size() != last_block - first_block + 1)
        throw std::logic_error("simulated cache: block shifts of another run");
    for (std::uint64_t b = first_block; b <= last_block; ++b) {
        // The one line of block b in `set`, and whether the run touches it (no remainder for a run
        // of every line: this loop was a third of a simulated probe's time, and a division costs it
        // more than the rest).
        const std::uint64_t shift = index_ == SetIndex::modulo ? 0
                                    : shifts && !shifts->empty() ? (*shifts)[b - first_block]
                                                                 : mix(b ^ salt_) % sets_;
        const std::uint64_t line = line_in_block(set, b, shift);
        if (line < run.first || line > last || (run.step != 1 && (line - run.first) % run.step != 0)) continue;
        take(line);
    }
    return n;
}

RunCounts::RunCounts(const CacheLevel& level, const LineRun& run)
    : level_(level), run_(run), shifts_(level.block_shifts(run)) {
    const std::uint64_t sets = level.sets();
    if (run.count == 0 || run.step >= sets || sets % run.step != 0) return;
    const std::uint64_t first_block = run.first / sets;
    const std::uint64_t last_block = (run.first + (run.count - 1) * run.step) / sets;
    inner_by_phase_.assign(run.step, 0);
    if (last_block - first_block < 2) return;
    if (shifts_.empty()) {  // a modulo index: no block shifts
        inner_by_phase_[0] = last_block - first_block - 1;
        return;
    }
    for (std::uint64_t b = first_block + 1; b < last_block; ++b) ++inner_by_phase_[shifts_[b - first_block] % run.step];
}

std::uint64_t RunCounts::count(std::uint64_t set) const {
    const std::uint64_t sets = level_.sets(), step = run_.step;
    if (set >= sets) throw std::logic_error("simulated cache: a set beyond the level's");
    if (inner_by_phase_.empty()) return level_.count(run_, set, nullptr, &shifts_);
    const std::uint64_t last = run_.first + (run_.count - 1) * step;
    const std::uint64_t first_block = run_.first / sets, last_block = last / sets;
    const auto shift_of = [&](std::uint64_t b) { return shifts_.empty() ? 0 : shifts_[b - first_block]; };
    // A block inside the run holds the set's line at offset (set - shift) mod sets, touched when
    // (set - shift - first) is a multiple of the step (sets being one): shift = set - first (mod step).
    const std::uint64_t phase = (set % step + step - run_.first % step) % step;
    std::uint64_t n = last_block - first_block >= 2 ? inner_by_phase_[phase] : 0;
    const auto edge = [&](std::uint64_t b) {
        const std::uint64_t line = level_.line_in_block(set, b, shift_of(b));
        return line >= run_.first && line <= last && (line - run_.first) % step == 0 ? 1 : 0;
    };
    n += edge(first_block);
    if (last_block != first_block) n += edge(last_block);
    return n;
}

SetPlay::SetPlay(std::uint64_t ways, std::uint64_t lines, Replacement policy, std::uint64_t seed)
    : ways_(ways), policy_(policy), random_(seed) {
    if (policy == Replacement::lru) {
        lru_at_.resize(lines);
        held_.assign(lines, false);
    } else {
        slot_of_.assign(lines, kAbsent);
    }
}

bool SetPlay::access(std::uint64_t line) {
    if (ways_ == 0) return false;
    if (policy_ == Replacement::lru) {
        if (held_.at(line)) {
            recency_.splice(recency_.end(), recency_, lru_at_[line]);  // most recent last
            return true;
        }
        if (recency_.size() == ways_) {
            held_[recency_.front()] = false;
            recency_.pop_front();
        }
        lru_at_[line] = recency_.insert(recency_.end(), line);
        held_[line] = true;
        return false;
    }
    if (slot_of_.at(line) != kAbsent) return true;
    if (slots_.size() < ways_) {
        slot_of_[line] = slots_.size();
        slots_.push_back(line);
        return false;
    }
    const std::size_t victim = random_.below(slots_.size());
    slot_of_[slots_[victim]] = kAbsent;
    slot_of_[line] = victim;
    slots_[victim] = line;
    return false;
}

SteadyState::SetState& SteadyState::state(std::uint64_t set) {
    const auto found = sets_.find(set);
    if (found != sets_.end()) return found->second;
    if (!counts_) counts_.emplace(level_, run_);
    SetState s;
    s.ways = level_.ways(set);
    s.lines = counts_->count(set);
    return sets_.emplace(set, std::move(s)).first->second;
}

bool SteadyState::holds(std::uint64_t line, std::uint64_t timed_pass) {
    const std::uint64_t set = level_.set_of(line);
    SetState& s = state(set);
    if (s.lines <= s.ways) return true;
    if (level_.replacement() == Replacement::lru || s.ways == 0) return false;
    if (!s.played) {
        PlayedSet p;
        std::vector<std::uint64_t> lines;  // ascending, each once
        level_.count(run_, set, &lines, &counts_->shifts());
        // By visit, lines visited at once in ascending order (a stable sort of ascending lines);
        // each visit asked for once. The places by line follow without a second sort (sorting
        // (visit, line) pairs, then (line, place) pairs, was a sixth of a simulated probe's time).
        std::vector<std::uint64_t> visit(lines.size());
        for (std::size_t k = 0; k < lines.size(); ++k) visit[k] = visit_of_(lines[k]);
        std::vector<std::size_t> by_visit(lines.size());
        std::iota(by_visit.begin(), by_visit.end(), std::size_t(0));
        std::stable_sort(by_visit.begin(), by_visit.end(), [&](std::size_t a, std::size_t b) { return visit[a] < visit[b]; });
        p.order.resize(lines.size());
        p.by_line.resize(lines.size());
        for (std::size_t i = 0; i < by_visit.size(); ++i) {
            p.order[i] = lines[by_visit[i]];
            p.by_line[by_visit[i]] = {lines[by_visit[i]], i};
        }
        s.played = std::move(p);
    }
    auto& p = *s.played;
    if (p.passes.size() <= timed_pass) {
        // Play from the start: warm passes, then every timed pass up to this one.
        SetPlay play(s.ways, p.order.size(), level_.replacement(), mix(seed_ ^ mix(set)));
        p.passes.clear();
        for (std::uint32_t w = 0; w < warm_; ++w)
            for (std::size_t i = 0; i < p.order.size(); ++i) play.access(i);
        for (std::uint64_t t = 0; t <= timed_pass; ++t) {
            std::vector<bool> hits;
            hits.reserve(p.order.size());
            for (std::size_t i = 0; i < p.order.size(); ++i) hits.push_back(play.access(i));
            p.passes.push_back(std::move(hits));
        }
    }
    const auto at = std::lower_bound(p.by_line.begin(), p.by_line.end(), line,
                                     [](const auto& entry, std::uint64_t l) { return entry.first < l; });
    return at != p.by_line.end() && at->first == line && p.passes[timed_pass][at->second];
}

}  // namespace gpu_topology::simulate
