#include "engine.hpp"

#include "split.hpp"
#include "kernels/ring_checks.hpp"

#include "util/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace gpu_topology::simulate {

using kernels::ChaseKernel;
using kernels::ChaseRequest;
using kernels::ChaseResult;
using kernels::LoadPath;
using kernels::Ring;
using kernels::RingEncoding;
using kernels::check_encoding;
using kernels::check_ring_fits;
using util::KiB;

namespace {

// Addresses of the __constant__ array and of the other workload's data, apart
// from the ring buffer's (which starts at 0): they share the L2, not lines.
constexpr std::uint64_t kConstantSpace = std::uint64_t(1) << 48;
constexpr std::uint64_t kOtherWorkSpace = std::uint64_t(1) << 52;
// The __constant__ array the probe's kernels declare (one module's most).
constexpr std::size_t kConstantArrayBytes = 64 * KiB;
// Threads a filling warm-up launches (pchase.cu kFillThreads).
constexpr std::uint32_t kFillThreads = 512;
// Sub-partitions of an SM; warps land on them in turn.
constexpr std::uint32_t kSubPartitions = 4;
// Salts of the levels' hashed indices: fixed, as a GPU's hash is.
enum Salt : std::uint64_t { unified_salt = 11, constant_l1_salt = 12, constant_l15_salt = 13, near_salt = 14,
                            far_salt = 15, slice_salt = 16 };

bool unified_path(LoadPath p) { return p == LoadPath::l1 || p == LoadPath::readonly || p == LoadPath::texture; }
bool global_memory(LoadPath p) { return p != LoadPath::constant && p != LoadPath::shared && p != LoadPath::none; }

}  // namespace

kernels::DeviceFacts simulated_facts(const Architecture& arch, const RunOptions& options, int index) {
    kernels::DeviceFacts f = arch.facts;
    f.index = index;
    f.name = arch.name + " (simulated)";
    char uuid[64];
    std::snprintf(uuid, sizeof uuid, "SIM-%016llx-%d",
                  static_cast<unsigned long long>(mix(std::hash<std::string>{}(arch.name) ^ mix(options.seed))), index);
    f.uuid = uuid;
    f.driver_version = 0;
    f.runtime_version = 0;
    return f;
}

// --- what L2 holds of regions no chase warmed ------------------------------------

void L2Contents::add(std::uint64_t begin, std::uint64_t end) {
    if (end <= begin) return;
    if (end - begin > capacity_) begin = end - capacity_;  // a stream keeps its last capacity's worth
    // Cut the new range out of the older ones, then put it last (most recent).
    std::deque<Range> kept;
    held_ = 0;
    for (const auto& r : ranges_) {
        if (r.end <= begin || r.begin >= end) {
            kept.push_back(r);
        } else {
            if (r.begin < begin) kept.push_back({r.begin, begin});
            if (r.end > end) kept.push_back({end, r.end});
        }
    }
    kept.push_back({begin, end});
    for (const auto& r : kept) held_ += r.end - r.begin;
    while (held_ > capacity_) {  // the oldest bytes leave first
        auto& oldest = kept.front();
        const std::uint64_t drop = std::min(held_ - capacity_, oldest.end - oldest.begin);
        oldest.begin += drop;
        held_ -= drop;
        if (oldest.begin == oldest.end) kept.pop_front();
    }
    ranges_ = std::move(kept);
}

L2Contents::Where L2Contents::find(std::uint64_t address) const {
    std::uint64_t newer = 0;  // bytes more recent than the range that holds it
    for (auto r = ranges_.rbegin(); r != ranges_.rend(); ++r) {
        if (address >= r->begin && address < r->end) return newer + (r->end - address) <= near_ ? Where::near : Where::far;
        newer += r->end - r->begin;
    }
    return Where::absent;
}

// --- rings ------------------------------------------------------------------------

struct SimulatedEngine::RingView {
    std::uint64_t base = 0;  // the address space: the buffer (0) or the constant array
    std::uint64_t offset = 0, stride = 8, elements = 1;
    const RingOrder* order = nullptr;  // random rings
    std::uint64_t element(std::uint64_t visit) const { return order ? order->visit_to_element[visit] : visit; }
    std::uint64_t address(std::uint64_t visit) const { return base + offset + element(visit) * stride; }
    std::uint64_t visit_of_element(std::uint64_t e) const { return order ? order->element_to_visit[e] : e; }
    // When in a pass the ring first reaches `line` (lines of `line_bytes`).
    std::uint64_t visit_of_line(std::uint64_t line, std::uint64_t line_bytes) const {
        const std::uint64_t start = line * line_bytes, first = base + offset;
        const std::uint64_t e = start <= first ? 0 : (start - first + stride - 1) / stride;
        return visit_of_element(std::min(e, elements - 1));
    }
    LineRun run(std::uint64_t line_bytes) const { return lines_of(base + offset, stride, elements, line_bytes); }
    std::uint64_t begin() const { return base + offset; }
    std::uint64_t end() const { return base + offset + elements * stride; }
};

SimulatedEngine::RingView SimulatedEngine::view_of(const Ring& ring) const {
    RingView v;
    v.base = ring.encoding == RingEncoding::constant_address ? kConstantSpace : 0;
    v.offset = ring.offset;
    v.stride = ring.stride_bytes;
    v.elements = ring.elements;
    if (!ring.address_order) {
        const auto found = random_rings_.find({ring.offset, ring.elements, ring.stride_bytes});
        if (found == random_rings_.end())
            throw std::invalid_argument("the simulated engine holds no random ring of this shape (link it first)");
        v.order = &found->second;
    }
    return v;
}

void SimulatedEngine::remember(const RingView& ring) { l2_contents_.add(ring.begin(), ring.end()); }

SimulatedEngine::SimulatedEngine(const Architecture& arch, std::size_t buffer_bytes, const RunOptions& options)
    : arch_(arch), buffer_bytes_(buffer_bytes), options_(options), random_(mix(options.seed) ^ 0x5eed),
      l2_contents_(std::uint64_t(arch.facts.l2_bytes), arch.l2.near_bytes) {
    if (buffer_bytes > std::uint64_t(arch.facts.global_bytes))
        throw std::invalid_argument("a buffer of " + std::to_string(buffer_bytes) + " B exceeds the simulated device's " +
                                    std::to_string(arch.facts.global_bytes) + " B of memory");
    busy_countdown_ = 2 * arch_.noise.busy_episode_calls * random_.uniform();
}

std::size_t SimulatedEngine::ring_capacity(LoadPath path) const {
    switch (kernels::encoding_of(path)) {
        case RingEncoding::global_address: return buffer_bytes_;
        case RingEncoding::texel_index: return std::min<std::size_t>(buffer_bytes_, arch_.texture_max_texels * 8);
        case RingEncoding::constant_address: return kConstantArrayBytes;
        case RingEncoding::shared_address:
            return std::size_t(arch_.facts.shared_per_block_optin_bytes) - kProbeStaticSharedBytes;
        case RingEncoding::none: return 0;
    }
    return 0;
}

Ring SimulatedEngine::link_sequential(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride) {
    tick();
    check_ring_fits(path, offset, elements, stride, ring_capacity(path));
    const RingEncoding encoding = kernels::encoding_of(path);
    if (encoding == RingEncoding::shared_address || encoding == RingEncoding::none)
        return Ring{encoding, 0, 0, elements, stride};
    const Ring ring{encoding, offset, offset, elements, stride, true};
    remember(view_of(ring));  // the link kernel (or the host copy) wrote every element through L2
    return ring;
}

Ring SimulatedEngine::link_random(LoadPath path, std::size_t offset, std::uint32_t elements, std::uint32_t stride,
                                  std::uint64_t seed) {
    tick();
    check_ring_fits(path, offset, elements, stride, ring_capacity(path));
    const RingEncoding encoding = kernels::encoding_of(path);
    if (encoding == RingEncoding::shared_address || encoding == RingEncoding::none)
        throw std::invalid_argument(std::string(to_string(path)) + " rings are sequential only");
    RingOrder order;
    order.visit_to_element.resize(elements);
    std::iota(order.visit_to_element.begin(), order.visit_to_element.end(), 0u);
    Random shuffle(seed);
    for (std::uint32_t i = elements; i > 1; --i) std::swap(order.visit_to_element[i - 1], order.visit_to_element[shuffle.below(i)]);
    order.element_to_visit.resize(elements);
    for (std::uint32_t v = 0; v < elements; ++v) order.element_to_visit[order.visit_to_element[v]] = v;
    const std::uint32_t first = order.visit_to_element[0];
    // A newer link of the same region replaces the older ring, as in memory; a few shapes are kept.
    if (random_rings_.size() >= 4) random_rings_.clear();
    random_rings_[{offset, elements, stride}] = std::move(order);
    const Ring ring{encoding, offset, offset + std::size_t(first) * stride, elements, stride, false};
    remember(view_of(ring));
    return ring;
}

// --- noise, the clock and the other workload -----------------------------------------

void SimulatedEngine::tick() {
    ++calls_;
    // The clock wanders slowly within the described drift.
    const double drift = arch_.noise.clock_drift;
    clock_factor_ = std::clamp(clock_factor_ + 0.05 * drift * random_.normal(), 1 - drift, 1 + drift);
    if (!options_.busy) return;
    busy_countdown_ -= 1;
    if (busy_countdown_ > 0) return;
    if (!busy_) {
        busy_ = true;  // another process starts
        busy_countdown_ = 2 * arch_.noise.busy_episode_calls * random_.uniform() + 1;
    } else {
        busy_ending_ = true;  // it stops once something has seen it
    }
    if (busy_) l2_contents_.add(kOtherWorkSpace, kOtherWorkSpace + std::uint64_t(arch_.facts.l2_bytes));
}

bool SimulatedEngine::other_work_seen() {
    const bool seen = busy_;
    if (busy_ && busy_ending_) {
        busy_ = busy_ending_ = false;
        busy_countdown_ = 2 * arch_.noise.busy_episode_calls * random_.uniform() + 1;
    }
    return seen;
}

double SimulatedEngine::jitter(double spread_cycles) {
    // Uniform over a width whose 5th to 95th percentile is `spread_cycles`.
    return spread_cycles > 0 ? (random_.uniform() - 0.5) * spread_cycles / 0.9 : 0.0;
}

double SimulatedEngine::noise_cycles() {
    double extra = arch_.noise.jitter_cycles * random_.normal();
    const double outliers = arch_.noise.outlier_rate * (busy_ ? 10 : 1);
    if (random_.chance(outliers)) extra += arch_.noise.outlier_cycles * (0.5 + random_.uniform());
    return extra;
}

ChaseResult SimulatedEngine::result_of(const std::vector<double>& cycles, std::uint64_t timed_steps, bool loads) {
    ChaseResult result;
    result.cycles.reserve(cycles.size());
    double sum = 0;
    // No load returns before it was issued: a timed load takes a cycle beyond the timer's own, at least.
    const double least = std::round(arch_.timer_overhead_cycles) + (loads ? 1 : 0);
    for (const double c : cycles) {
        const double rounded = std::max(least, std::round(c));
        result.cycles.push_back(static_cast<std::uint32_t>(std::min(rounded, 4e9)));
        sum += rounded;
    }
    const double per_step = cycles.empty() ? arch_.timer_overhead_cycles : sum / double(cycles.size());
    const double total = per_step * double(timed_steps);
    result.timed_cycles = static_cast<std::uint64_t>(total);
    result.timed_ns = static_cast<std::uint64_t>(total / clock_hz() * 1e9);
    return result;
}

// --- chases -------------------------------------------------------------------------

struct SimulatedEngine::Levels {
    std::optional<CacheLevel> storage;  // the unified L1 (through the path's lines) or the constant L1
    std::optional<CacheLevel> constant_l15;
    CacheLevel near, far;
    std::vector<CacheLevel> tlb;
};

std::uint64_t SimulatedEngine::l1_capacity(const ChaseRequest& request, std::uint32_t threads) const {
    const KernelShape shape{request.kernel, request.kernel == ChaseKernel::plain ? request.dynamic_shared_bytes : 0,
                            threads, request.carveout_percent};
    return l1_bytes(arch_, shape);
}

double SimulatedEngine::latency_of(Served served, LoadPath path, std::uint64_t address, const Levels& levels,
                                   double tlb_cycles) {
    const auto& u = arch_.unified;
    const auto& l2 = arch_.l2;
    const UnifiedPath* unified = path == LoadPath::l1         ? &u.l1
                                 : path == LoadPath::readonly ? &u.readonly
                                 : path == LoadPath::texture  ? &u.texture
                                                              : nullptr;
    double extra = unified ? unified->miss_extra_cycles : 0.0;
    if (path == LoadPath::constant) extra = arch_.constant.miss_extra_cycles;
    const double contention = busy_ ? random_.uniform() * 0.2 * arch_.noise.busy_sm_share : 0.0;  // of an L2 or DRAM load
    switch (served) {
        case Served::storage:
            if (unified) return unified->hit_cycles + jitter(u.spread_cycles);
            return arch_.constant.l1_hit.cycles + jitter(arch_.constant.l1_hit.spread_cycles);
        case Served::constant_l15: return arch_.constant.l15_hit.cycles + jitter(arch_.constant.l15_hit.spread_cycles);
        case Served::near:
            if (options_.remote) break;
            {
            const double slice = (unit_of((address / levels.near.line_bytes()) ^ slice_salt) - 0.5) * l2.slice_spread_cycles / 0.9;
            return (l2.near.cycles + slice + jitter(l2.near.spread_cycles - l2.slice_spread_cycles)) * (1 + contention) +
                   extra + tlb_cycles;
            }
        case Served::far:
            if (options_.remote) break;
            return (l2.far->cycles + jitter(l2.far->spread_cycles)) * (1 + contention) + extra + tlb_cycles;
        case Served::dram:
            if (options_.remote) break;
            return (arch_.dram.latency.cycles + jitter(arch_.dram.latency.spread_cycles)) * (1 + contention) + extra +
                   tlb_cycles;
    }
    // Past L1 on a peer's memory: across the link, whatever the local L2 holds.
    return options_.remote->latency_ns * 1e-9 * clock_hz() * (1 + 0.02 * random_.normal()) + extra + tlb_cycles;
}

ChaseResult SimulatedEngine::chase(const ChaseRequest& request) {
    tick();
    ++launches_;
    check_encoding(request.path, request.ring);
    if (request.kernel == ChaseKernel::probe && request.dynamic_shared_bytes != 0)
        throw std::invalid_argument("only the plain chase kernel declares dynamic shared memory of its own");
    if (request.warming == kernels::Warming::fill && request.warm_passes > 0 && !kernels::fillable(request.ring))
        throw std::invalid_argument("only global and texture rings linked in address order can be warmed by filling");
    const std::uint32_t wanted = std::min(request.max_samples, request.timed_steps);
    const std::uint64_t every = wanted == 0 ? 1 : std::max<std::uint64_t>(1, request.timed_steps / wanted);
    std::vector<double> cycles;
    cycles.reserve(wanted);
    const double overhead = arch_.timer_overhead_cycles;

    if (request.path == LoadPath::none) {
        for (std::uint32_t i = 0; i < wanted; ++i) cycles.push_back(overhead + noise_cycles() * 0.25);
        return result_of(cycles, request.timed_steps, false);
    }
    if (request.path == LoadPath::shared) {
        if (request.kernel == ChaseKernel::plain)
            throw std::invalid_argument("the plain chase kernel chases no shared-memory rings");
        if (request.ring.stride_bytes % 4 != 0) throw std::invalid_argument("shared ring stride must be a multiple of 4 bytes");
        const auto& s = arch_.shared.latency;
        for (std::uint32_t i = 0; i < wanted; ++i) cycles.push_back(overhead + s.cycles + jitter(s.spread_cycles) + noise_cycles());
        return result_of(cycles, request.timed_steps);
    }

    const RingView ring = view_of(request.ring);
    const std::uint32_t warps = request.warming == kernels::Warming::fill && request.warm_passes > 0 ? kFillThreads / 32 : 1;
    const std::uint32_t threads = std::max(32 * warps, request.threads_per_block);
    const double share = 1 - 0.5 * busy_share();  // of L2 the probe keeps while another workload streams through it
    Levels levels{std::nullopt, std::nullopt,
                  CacheLevel(arch_.l2.geometry, std::uint64_t(double(arch_.l2.near_bytes) * share), near_salt),
                  CacheLevel(arch_.l2.geometry, std::uint64_t(double(arch_.l2.geometry.bytes) * share), far_salt),
                  {}};
    const auto& u = arch_.unified;
    if (unified_path(request.path)) {
        const UnifiedPath& p = request.path == LoadPath::texture ? u.texture : u.l1;
        levels.storage.emplace(u.geometry, l1_capacity(request, threads), p.line_bytes, p.index, unified_salt);
    } else if (request.path == LoadPath::constant) {
        levels.storage.emplace(arch_.constant.l1, arch_.constant.l1.bytes, constant_l1_salt);
        levels.constant_l15.emplace(arch_.constant.l15, arch_.constant.l15.bytes, constant_l15_salt);
    }
    if (global_memory(request.path))
        for (const auto& t : arch_.tlb)
            levels.tlb.emplace_back(CacheGeometry{.line_bytes = 1, .ways = t.ways, .index = SetIndex::modulo},
                                    std::uint64_t(t.entries) * t.coverage_bytes,
                                    static_cast<std::uint32_t>(std::min<std::uint64_t>(t.coverage_bytes, 1u << 31)),
                                    SetIndex::modulo, 0);

    // A cold first pass (no warm-up) leaves what one warm pass would: later passes are steady.
    const std::uint32_t warm = std::max(request.warm_passes, 1u);
    const bool cold_start = request.warm_passes == 0;
    const std::uint64_t seed = mix(options_.seed ^ mix(launches_));
    const auto visit_in = [&](std::uint64_t line_bytes) {
        return [&ring, line_bytes](std::uint64_t line) { return ring.visit_of_line(line, line_bytes); };
    };
    std::optional<SteadyState> storage, l15;
    if (levels.storage)
        storage.emplace(*levels.storage, ring.run(levels.storage->line_bytes()), warm, seed,
                        visit_in(levels.storage->line_bytes()));
    if (levels.constant_l15)
        l15.emplace(*levels.constant_l15, ring.run(levels.constant_l15->line_bytes()), warm, seed ^ 1,
                    visit_in(levels.constant_l15->line_bytes()));
    SteadyState near(levels.near, ring.run(levels.near.line_bytes()), warm, seed ^ 2, visit_in(levels.near.line_bytes()));
    SteadyState far(levels.far, ring.run(levels.far.line_bytes()), warm, seed ^ 3, visit_in(levels.far.line_bytes()));
    std::vector<SteadyState> tlb;
    for (const auto& t : levels.tlb) tlb.emplace_back(t, ring.run(t.line_bytes()), warm, seed ^ 4, visit_in(t.line_bytes()));

    const std::uint32_t storage_fill =
        levels.storage ? (request.path == LoadPath::constant ? arch_.constant.l1.line_bytes : u.geometry.fill_bytes) : 0;
    const std::uint64_t n = ring.elements;
    for (std::uint32_t r = 0; r < wanted; ++r) {
        const std::uint64_t step = std::uint64_t(r) * every;
        const std::uint64_t pass = step / n, visit = step % n;
        const bool cold = cold_start && pass == 0;
        const std::uint64_t address = ring.address(visit);
        const bool has_previous = !(cold && visit == 0);
        const std::uint64_t previous = ring.address((visit + n - 1) % n);
        const auto same = [&](std::uint64_t unit) { return has_previous && address / unit == previous / unit; };
        const std::uint64_t steady_pass = cold_start ? pass - 1 : pass;
        const auto holds = [&](SteadyState& s, const CacheLevel& l) { return !cold && s.holds(address / l.line_bytes(), steady_pass); };

        Served served = Served::dram;
        if (levels.storage && (same(storage_fill) || holds(*storage, *levels.storage))) {
            served = Served::storage;
        } else if (levels.constant_l15 && (same(levels.constant_l15->line_bytes()) || holds(*l15, *levels.constant_l15))) {
            served = Served::constant_l15;
        } else if (same(arch_.l2.dram_fetch_bytes)) {
            served = Served::near;
        } else if (cold) {
            const auto where = l2_contents_.find(address);
            served = where == L2Contents::Where::near ? Served::near : where == L2Contents::Where::far ? Served::far : Served::dram;
            if (served == Served::far && !arch_.l2.far) served = Served::near;
        } else if (holds(near, levels.near)) {
            served = Served::near;
        } else if (arch_.l2.far && holds(far, levels.far)) {
            served = Served::far;
        }
        double tlb_cycles = 0;
        if (served != Served::storage && served != Served::constant_l15)
            for (std::size_t t = 0; t < tlb.size(); ++t) {
                // The load before it in the ring, within what one entry maps, left the entry there.
                if (same(levels.tlb[t].line_bytes()) || tlb[t].holds(address / levels.tlb[t].line_bytes(), cold ? 0 : steady_pass))
                    break;
                tlb_cycles += arch_.tlb[t].miss_cycles;
            }
        cycles.push_back(overhead + latency_of(served, request.path, address, levels, tlb_cycles) + noise_cycles());
    }
    remember(ring);
    return result_of(cycles, request.timed_steps);
}

ChaseResult SimulatedEngine::chase_after(const ChaseRequest& victim, const kernels::Disturbance& other) {
    tick();
    ++launches_;
    if (victim.path == LoadPath::shared || other.path == LoadPath::shared)
        throw std::invalid_argument("chase_after works on cached paths, not on shared memory");
    check_encoding(victim.path, victim.ring);
    check_encoding(other.path, other.ring);
    if (other.warp >= 32) throw std::invalid_argument("the disturbing warp must be < 32");
    if (victim.path == LoadPath::none || other.path == LoadPath::none || victim.path == LoadPath::l2)
        throw std::invalid_argument("the simulated eviction test needs a cached victim path and a disturbing path");

    const RingView v = view_of(victim.ring), o = view_of(other.ring);
    const std::uint32_t threads = std::max(32 * (other.warp + 1), victim.threads_per_block);
    const bool victim_constant = victim.path == LoadPath::constant;
    const auto& u = arch_.unified;
    const UnifiedPath& vp = victim.path == LoadPath::texture ? u.texture : u.l1;
    const CacheLevel storage = victim_constant
                                   ? CacheLevel(arch_.constant.l1, arch_.constant.l1.bytes, constant_l1_salt)
                                   : CacheLevel(u.geometry, l1_capacity(victim, threads), vp.line_bytes, vp.index, unified_salt);
    // The other warp's loads reach the victim's storage when they go through the same
    // kind of cache and its sub-partition uses the same instance.
    const std::uint32_t instances = victim_constant ? arch_.constant.l1_instances_per_sm : u.instances_per_sm;
    const auto instance = [&](std::uint32_t warp) { return (warp % kSubPartitions) * instances / kSubPartitions; };
    const bool same_storage = victim_constant == (other.path == LoadPath::constant) && other.path != LoadPath::l2 &&
                              instance(0) == instance(other.warp);

    const std::uint64_t lb = storage.line_bytes();
    const LineRun victim_lines = v.run(lb), other_lines = o.run(lb);
    const std::uint32_t wanted = std::min(victim.max_samples, victim.timed_steps);
    const std::uint64_t every = wanted == 0 ? 1 : std::max<std::uint64_t>(1, victim.timed_steps / wanted);
    const std::uint64_t passes = victim.timed_steps / std::max<std::uint64_t>(1, v.elements) + 1;
    std::map<std::uint64_t, std::map<std::uint64_t, std::vector<bool>>> played;  // set -> line -> hits per timed pass
    const std::uint64_t seed = mix(options_.seed ^ mix(launches_));
    const auto play_set = [&](std::uint64_t set) -> std::map<std::uint64_t, std::vector<bool>>& {
        auto& lines = played[set];
        if (!lines.empty()) return lines;
        std::vector<std::uint64_t> mine, theirs;
        storage.count(victim_lines, set, &mine);
        if (same_storage) storage.count(other_lines, set, &theirs);
        std::stable_sort(mine.begin(), mine.end(),
                         [&](std::uint64_t a, std::uint64_t b) { return v.visit_of_line(a, lb) < v.visit_of_line(b, lb); });
        // The set's lines by place: the victim's first (by visit), then the other warp's data,
        // never the victim's lines.
        SetPlay play(storage.ways(set), mine.size() + theirs.size(), storage.replacement(), mix(seed ^ set));
        for (std::uint32_t w = 0; w < std::max(1u, victim.warm_passes); ++w)
            for (std::size_t i = 0; i < mine.size(); ++i) play.access(i);
        for (std::uint32_t p = 0; p < other.passes; ++p)
            for (std::size_t i = 0; i < theirs.size(); ++i) play.access(mine.size() + i);
        for (std::uint64_t p = 0; p < passes; ++p)
            for (std::size_t i = 0; i < mine.size(); ++i) lines[mine[i]].push_back(play.access(i));
        return lines;
    };

    std::vector<double> cycles;
    cycles.reserve(wanted);
    Levels levels{std::nullopt, std::nullopt, CacheLevel(arch_.l2.geometry, arch_.l2.near_bytes, near_salt),
                  CacheLevel(arch_.l2.geometry, arch_.l2.geometry.bytes, far_salt), {}};
    for (std::uint32_t r = 0; r < wanted; ++r) {
        const std::uint64_t step = std::uint64_t(r) * every, pass = step / v.elements, visit = step % v.elements;
        const std::uint64_t address = v.address(visit), previous = v.address((visit + v.elements - 1) % v.elements);
        const std::uint64_t line = address / lb;
        const std::uint32_t unit = victim_constant ? arch_.constant.l1.line_bytes : u.geometry.fill_bytes;
        const bool hit = address / unit == previous / unit || play_set(storage.set_of(line))[line].at(pass);
        // A victim's miss finds its lines in the level behind: L1.5, or near L2.
        const Served served = hit ? Served::storage : victim_constant ? Served::constant_l15 : Served::near;
        cycles.push_back(arch_.timer_overhead_cycles + latency_of(served, victim.path, address, levels, 0) + noise_cycles());
    }
    remember(v);
    remember(o);
    return result_of(cycles, victim.timed_steps);
}

void SimulatedEngine::stream_l2(std::size_t offset, std::size_t bytes) {
    tick();
    l2_contents_.add(offset, offset + bytes);
}

kernels::LaunchShape SimulatedEngine::launch_shape(const kernels::KernelLaunch& launch) {
    tick();
    if (launch.kernel == ChaseKernel::probe && launch.dynamic_shared_bytes != 0)
        throw std::invalid_argument("only the plain chase kernel declares dynamic shared memory of its own");
    const KernelShape shape{launch.kernel, launch.dynamic_shared_bytes, launch.threads_per_block, launch.carveout_percent};
    return {launch.threads_per_block, resident_blocks(arch_, shape), shape.declared_bytes()};
}

void SimulatedEngine::warm_up(double) { tick(); }

}  // namespace gpu_topology::simulate
