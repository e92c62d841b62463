#include "expected.hpp"

#include "cache.hpp"
#include "split.hpp"

#include "model/agreement.hpp"
#include "model/topology.hpp"
#include "profile/profile.hpp"
#include "util/format.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gpu_topology::simulate {
namespace {

using util::MiB;

// The stages' fixed probes that decide whether a quantity can be seen at all
// (stage_tlb.cpp: rings 64 MiB apart in a span of 1.5 GiB or a quarter of the
// device, at most 160 elements; strides 64 MiB down to 4 MiB).
constexpr std::uint64_t kTlbWidestStride = 64 * MiB, kTlbNarrowestStride = 4 * MiB;
constexpr std::uint64_t kTlbMaxElements = 160;
// cache_family.cpp: the constant L1.5 miss latency is the median of 16 first touches 512 B apart.
constexpr int kConstantColdLoads = 16;

// A cache that evicts at random keeps most of a ring a little larger than itself: the
// probe's capacity (the largest footprint whose loads the KS test finds no slower than
// all-hit, with fewer than about 8 % of them missing) lies up to this share above it.
constexpr double kRandomEvictionReach = 1.08;

// Little's law for the probe's read kernels: every SM keeps at most its threads x four
// 16-byte loads in flight, for the latency of the level that serves them.
double reachable(const Architecture& a, double ceiling, double latency_cycles) {
    const double bound = double(a.facts.sm_count) * double(a.facts.max_threads_per_sm) * 64.0 /
                         (latency_cycles / (a.sm_clock_khz * 1e3));
    return ceiling > 0 ? std::min(ceiling, bound) : bound;
}

// What a sequential ring finds of a cache of `bytes` in `g`: every set holds as many of its lines as the
// set with the fewest ways, as the simulated cache spreads them (cache.cpp); lines that do not divide
// evenly into the sets give some sets a way more, which such a ring cannot use (a 16-set L1 of 256 B
// lines holds 23 KiB, 5.75 ways, and a ring 20 KiB). Its share of `bytes`.
double ring_share(const CacheGeometry& g, double bytes) {
    if (bytes <= 0) return 1.0;
    const CacheLevel level(g, std::uint64_t(bytes), g.line_bytes, g.index, 0);
    return double(level.sets() * level.ways(level.sets() - 1) * g.line_bytes) / bytes;  // the last set has the fewest
}

// A level behind L1 as the SMs reach it: no faster than they read L1 (described, or one row of the
// shared-memory banks a cycle), as the simulated engine reads it.
double behind_l1(const Architecture& a, double ceiling) {
    return std::min(ceiling, l1_read_bytes_per_cycle(a) * a.sm_clock_khz * 1e3 * double(a.facts.sm_count));
}

class Builder {
public:
    explicit Builder(const Architecture& a) : a_(a) {}
    void value(std::string_view name, double v, std::string why) { add(name, v, std::move(why)); }
    void none(std::string_view name, std::string why) {
        list_.push_back({std::string(name), std::nullopt, 0, false, std::move(why)});
    }
    void undescribed(std::string_view name, std::string why) {
        list_.push_back({std::string(name), std::nullopt, 0, false, std::move(why), false});
    }
    // A value known to lie in [lo, hi]: its middle, with the half-width added to the tolerance.
    void range(std::string_view name, double lo, double hi, std::string why) {
        add(name, (lo + hi) / 2, std::move(why));
        list_.back().tolerance += (hi - lo) / 2;
    }
    void bound(std::string_view name, double v, std::string why) {
        add(name, v, std::move(why));
        list_.back().lower_bound = true;
    }
    // A capacity of a level with `policy`: its bytes, or up to kRandomEvictionReach above them;
    // down to `lowest` of them where a ring's placement can cost it (see L2 near).
    void capacity(std::string_view name, double v, Replacement policy, std::string why, double lowest = 1,
                  std::string_view lower_why = "a ring placed across the hash's blocks fits up to a way less") {
        const double hi = policy == Replacement::random ? v * kRandomEvictionReach : v;
        if (policy == Replacement::random) why += "; random eviction reaches up to 8 % beyond it";
        if (lowest < 1) why += "; " + std::string(lower_why);
        if (hi > v || lowest < 1) range(name, v * lowest, hi, std::move(why));
        else value(name, v, std::move(why));
    }
    // The expectation added last is a difference of two latencies: known to the sum of their
    // tolerances (a penalty moves by all its latencies move).
    void as_difference(double slower, double faster) {
        auto& e = list_.back();
        const auto& q = model::kQuantities.at(model::find(e.name));
        const double own = model::agreement_tolerance(q, std::abs(*e.value));
        const double parts = model::agreement_tolerance(q, slower) + model::agreement_tolerance(q, faster);
        e.tolerance += std::max(0.0, parts - own);
        e.why += "; within both latencies' tolerances";
    }
    std::vector<Expectation> done() { return std::move(list_); }

private:
    void add(std::string_view name, double v, std::string why) {
        const auto& q = model::kQuantities.at(model::find(name));
        list_.push_back({std::string(name), v, model::agreement_tolerance(q, std::abs(v)), false, std::move(why)});
    }
    const Architecture& a_;
    std::vector<Expectation> list_;
};

std::string kb(double bytes) { return util::format_number(std::round(bytes / 1024 * 100) / 100) + " KiB"; }



void caches(Builder& b, const Architecture& a) {
    const auto& u = a.unified;
    const auto probe_launch = [&](int carveout) { return KernelShape{kernels::ChaseKernel::probe, 0, 32, carveout}; };
    const double l1_max = double(l1_bytes(a, probe_launch(0)));
    const Replacement l1_policy = u.geometry.replacement;
    constexpr std::string_view kUnevenWays = "a sequential ring uses as many ways of every set as the fewest a set has";
    const auto l1_capacity = [&](const char* name, double v, std::string why) {
        b.capacity(name, v, l1_policy, std::move(why), ring_share(u.geometry, v), kUnevenWays);
    };
    l1_capacity("L1_SIZE_BYTES", l1_max,
                "unified " + kb(double(u.bytes)) + " less the split at 0 % (" + kb(double(shared_split(a, probe_launch(0)))) +
                    ") and " + kb(double(u.unusable_bytes)) + " unusable");
    l1_capacity("L1_SIZE_DEFAULT_CARVEOUT_BYTES", double(l1_bytes(a, probe_launch(-1))), "the driver's split for the probe's kernel");
    l1_capacity("L1_SIZE_MAX_SHARED_CARVEOUT_BYTES", double(l1_bytes(a, probe_launch(100))), "the split at 100 %");
    const double near = a.l2.near.cycles;
    struct Path {
        const char* prefix;
        const UnifiedPath& p;
    };
    for (const Path& path : {Path{"L1", u.l1}, Path{"TEXTURE", u.texture}, Path{"READONLY", u.readonly}}) {
        const std::string pre = path.prefix;
        if (pre != "L1") l1_capacity((pre + "_SIZE_BYTES").c_str(), l1_max, "the unified L1 at 0 %");
        b.value(pre + "_LINE_BYTES", path.p.line_bytes, "described line");
        b.value(pre + "_SECTOR_BYTES", u.geometry.fill_bytes, "described fill");
        if (path.p.described) {
            b.value(pre + "_LATENCY_CYCLES", path.p.hit_cycles, "described hit latency");
            b.value(pre + "_MISS_LATENCY_CYCLES", near + path.p.miss_extra_cycles, "near L2 plus the path's miss cost");
            b.value(pre + "_MISS_PENALTY_CYCLES", near + path.p.miss_extra_cycles - path.p.hit_cycles, "miss less hit");
            b.as_difference(near + path.p.miss_extra_cycles, path.p.hit_cycles);
        } else {
            for (const char* q : {"_LATENCY_CYCLES", "_MISS_LATENCY_CYCLES", "_MISS_PENALTY_CYCLES"})
                b.undescribed(pre + q, "no source measured this path: it answers as ld.global.ca does");
        }
        b.value(pre + "_PER_SM", u.instances_per_sm, "described instances");
    }
    const auto& c = a.constant;
    if (!c.described) {
        for (const auto& q : model::kQuantities)
            if (q.object() == "constant_l1" || q.object() == "constant_l15")
                b.undescribed(q.name, "no source describes the constant caches");
    } else {
    b.capacity("CONSTANT_L1_SIZE_BYTES", double(c.l1.bytes), c.l1.replacement, "described");
    b.value("CONSTANT_L1_LINE_BYTES", c.l1.line_bytes, "described line");
    b.value("CONSTANT_L1_SECTOR_BYTES", c.l1.line_bytes, "a miss fills a line");
    b.value("CONSTANT_L1_LATENCY_CYCLES", c.l1_hit.cycles, "described");
    b.value("CONSTANT_L1_MISS_PENALTY_CYCLES", c.l15_hit.cycles - c.l1_hit.cycles, "L1.5 hit less L1 hit");
    b.as_difference(c.l15_hit.cycles, c.l1_hit.cycles);
    b.value("CONSTANT_L1_PER_SM", c.l1_instances_per_sm, "described instances");
    if (c.l15_beyond_array)
        b.bound("CONSTANT_L15_SIZE_BYTES", double(a.facts.constant_bytes), "described as larger than the constant memory");
    else
        b.capacity("CONSTANT_L15_SIZE_BYTES", double(c.l15.bytes), c.l15.replacement, "described");
    b.value("CONSTANT_L15_SECTOR_BYTES", c.l15.line_bytes, "a miss fills a line");
    b.value("CONSTANT_L15_LATENCY_CYCLES", c.l15_hit.cycles, "described");
    // The probe's first touch times kConstantColdLoads lines: their median lies within three of
    // its standard errors (1.25 sigma / sqrt(n)) of near L2's, whose 5-95 % width is 3.29 sigma.
    const double sampled = 3 * 1.2533 * a.l2.near.spread_cycles / 3.29 / std::sqrt(double(kConstantColdLoads));
    const std::string why_sampled = "; the median of " + std::to_string(kConstantColdLoads) + " first touches";
    b.range("CONSTANT_L15_MISS_LATENCY_CYCLES", near + c.miss_extra_cycles - sampled, near + c.miss_extra_cycles + sampled,
            "a first touch of data in near L2" + why_sampled);
    b.range("CONSTANT_L15_MISS_PENALTY_CYCLES", near + c.miss_extra_cycles - c.l15_hit.cycles - sampled,
            near + c.miss_extra_cycles - c.l15_hit.cycles + sampled, "miss less hit" + why_sampled);
    b.as_difference(near + c.miss_extra_cycles, c.l15_hit.cycles);
    }

    const auto& s = a.shared;
    const double hz = a.sm_clock_khz * 1e3, sms = a.facts.sm_count;
    if (s.latency_described) b.value("SHARED_LATENCY_CYCLES", s.latency.cycles, "described");
    else b.undescribed("SHARED_LATENCY_CYCLES", "no source: it answers at the L1 hit latency");
    b.value("SHARED_BANKS", s.banks, "described");
    b.value("SHARED_BANK_BYTES", s.bank_bytes, "described");
    b.value("SHARED_CONFLICT_LATENCY_CYCLES", s.conflict_latency_cycles, "described");
    b.value("SHARED_CONFLICT_ISSUE_CYCLES", s.conflict_issue_cycles, "described");
    const auto rate = [&](const char* q, double per_cycle, double latency_cycles, const char* why_undescribed) {
        if (per_cycle > 0)
            b.value(q, reachable(a, per_cycle * hz * sms, latency_cycles),
                    "bytes a cycle x clock x SMs, or what the threads keep in flight over the latency");
        else
            b.undescribed(q, why_undescribed);
    };
    rate("SHARED_BANDWIDTH_BYTES_PER_S", s.bandwidth_bytes_per_cycle, s.latency.cycles,
         "no source: the simulated reads are bound by what the threads keep in flight");
    rate("L1_BANDWIDTH_BYTES_PER_S", u.bandwidth_bytes_per_cycle, u.l1.hit_cycles,
         "no source: the simulated storage reads one row of its banks a cycle");
}

void l2_and_dram(Builder& b, const Architecture& a) {
    const auto& l2 = a.l2;
    // The probe takes the smaller of two ring placements; the hashed index rotates each aligned
    // block of `sets` lines, so a ring that starts inside a block gives some sets a line more.
    const double near_lines = double(l2.near_bytes) / l2.geometry.line_bytes;
    const double ways = l2.geometry.ways ? l2.geometry.ways : l2.geometry.sets ? near_lines / l2.geometry.sets : 0;
    const double placed = l2.geometry.index == SetIndex::hashed && ways >= 1 ? 1 - 1 / ways : 1;
    b.capacity("L2_NEAR_SIZE_BYTES", double(l2.near_bytes), l2.geometry.replacement,
               l2.far ? "described near part" : "a uniform L2: all of it", placed);
    b.value("L2_LINE_BYTES", l2.geometry.line_bytes, "described line");
    if (l2.dram_fetch_described) b.value("L2_DRAM_FETCH_BYTES", l2.dram_fetch_bytes, "described");
    else b.undescribed("L2_DRAM_FETCH_BYTES", "no source: a miss brings one sector");
    b.value("L2_NEAR_LATENCY_CYCLES", l2.near.cycles, "described");
    if (l2.far)
        b.value("L2_FAR_LATENCY_CYCLES", l2.far->cycles, "described");
    else b.none("L2_FAR_LATENCY_CYCLES", "a uniform L2 has no far part");
    // The curve's rings are sequential: past a TLB level's reach only the first load on each page
    // pays its miss, which no plateau's median shows.
    b.value("DRAM_LATENCY_CYCLES", a.dram.latency.cycles, "described");
    b.value("L2_MISS_PENALTY_CYCLES", a.dram.latency.cycles - l2.near.cycles, "DRAM less near L2");
    b.as_difference(a.dram.latency.cycles, l2.near.cycles);
    if (l2.bandwidth_bytes_per_s > 0)
        b.value("L2_BANDWIDTH_BYTES_PER_S", reachable(a, behind_l1(a, l2.bandwidth_bytes_per_s), l2.near.cycles),
                "described ceiling (at most the SMs' L1 rate), or what the threads keep in flight over the near latency");
    else
        b.undescribed("L2_BANDWIDTH_BYTES_PER_S",
                      "no source: the simulated SMs keep in flight what saturates L1 at its latency");
    b.value("DRAM_BANDWIDTH_BYTES_PER_S", reachable(a, behind_l1(a, a.dram.bandwidth_bytes_per_s), a.dram.latency.cycles),
            "described ceiling (at most the SMs' L1 rate), or what the threads keep in flight over the DRAM latency");
}

void cluster_and_tlb(Builder& b, const Architecture& a) {
    if (a.cluster) {
        b.value("CLUSTER_MAX_BLOCKS", a.cluster->max_blocks, "described");
        b.value("DSMEM_LATENCY_CYCLES", a.cluster->dsmem.cycles, "described (neighbour block)");
        if (a.cluster->bandwidth_bytes_per_s > 0)
            b.value("DSMEM_BANDWIDTH_BYTES_PER_S", a.cluster->bandwidth_bytes_per_s, "described, clusters of 2");
        else
            b.undescribed("DSMEM_BANDWIDTH_BYTES_PER_S", "no source: no remote read kernel answers");
    } else if (a.facts.cc_major >= 9) {
        for (const char* q : {"CLUSTER_MAX_BLOCKS", "DSMEM_LATENCY_CYCLES", "DSMEM_BANDWIDTH_BYTES_PER_S"})
            b.undescribed(q, "no source describes the clusters (the simulated device launches none)");
    } else {
        for (const char* q : {"CLUSTER_MAX_BLOCKS", "DSMEM_LATENCY_CYCLES", "DSMEM_BANDWIDTH_BYTES_PER_S"})
            b.none(q, "no thread block clusters");
    }
    if (a.tlb.empty()) {
        for (const char* q : {"TLB_ENTRIES", "TLB_COVERAGE_BYTES", "TLB_REACH_BYTES", "TLB_MISS_PENALTY_CYCLES"})
            b.none(q, "no TLB described: no load slows by translation");
        return;
    }
    const auto& t = a.tlb.front();
    const std::uint64_t span = std::min<std::uint64_t>(1536 * MiB, std::uint64_t(a.facts.global_bytes) / 4);
    const std::uint64_t longest = std::min(span / kTlbWidestStride, kTlbMaxElements);
    // Elements 64 MiB apart share an entry when an entry maps more.
    const double per_entry = std::max(1.0, double(t.coverage_bytes) / double(kTlbWidestStride));
    const double counted = t.entries * per_entry;
    if (counted >= double(longest)) {
        for (const char* q : {"TLB_ENTRIES", "TLB_COVERAGE_BYTES", "TLB_REACH_BYTES", "TLB_MISS_PENALTY_CYCLES"})
            b.none(q, "more entries than a ring 64 MiB apart can fill in the probe's span");
        return;
    }
    b.value("TLB_ENTRIES", counted, per_entry > 1 ? "entries x (coverage / 64 MiB): elements 64 MiB apart share entries"
                                                  : "described entries");
    b.value("TLB_MISS_PENALTY_CYCLES", t.miss_cycles, "described first-level miss");
    if (t.coverage_bytes < kTlbNarrowestStride * 2 || t.coverage_bytes > kTlbWidestStride) {
        b.none("TLB_COVERAGE_BYTES", "outside what strides of 4 to 64 MiB resolve");
        b.none("TLB_REACH_BYTES", "outside what strides of 4 to 64 MiB resolve");
        return;
    }
    b.value("TLB_COVERAGE_BYTES", double(t.coverage_bytes), "described");
    b.value("TLB_REACH_BYTES", double(t.coverage_bytes) * t.entries, "entries x coverage");
}

void identity(Builder& b, const Architecture& a) {
    const auto& f = a.facts;
    b.value("SM_COUNT", f.sm_count, "API");
    b.value("CC_MAJOR", f.cc_major, "API");
    b.value("CC_MINOR", f.cc_minor, "API");
    b.value("SM_CLOCK_MAX_KHZ", double(f.sm_clock_max_khz), "API");
    b.value("SM_CLOCK_KHZ", a.sm_clock_khz, "described clock while probing");
    b.value("L2_SIZE_BYTES", double(f.l2_bytes), "API");
    b.value("SHARED_SIZE_PER_SM_BYTES", double(f.shared_per_sm_bytes), "API");
    b.value("DRAM_SIZE_BYTES", double(f.global_bytes), "API");
}

void sharing(Builder& b) {
    b.value("L1_TEXTURE_SAME_STORAGE", 1, "one unified storage");
    b.value("L1_READONLY_SAME_STORAGE", 1, "one unified storage");
    b.value("TEXTURE_READONLY_SAME_STORAGE", 1, "one unified storage");
    for (const char* q : {"L1_CONSTANT_L1_SAME_STORAGE", "TEXTURE_CONSTANT_L1_SAME_STORAGE", "READONLY_CONSTANT_L1_SAME_STORAGE"})
        b.value(q, 0, "the constant L1 is a cache of its own");
}

std::string row_name(const util::Json& row) {
    const auto text = [&](const char* key) {
        const auto* v = row.find(key);
        return v && v->is_number() ? util::format_number(v->as_number()) : std::string("?");
    };
    const auto* kind = row.find("kernel_shared");
    return "L1 row: " + (kind && kind->is_string() ? kind->as_string() : std::string("static")) + " " +
           text("shared_bytes_per_block") + " B, carveout " + text("carveout_percent") + ", " + text("threads_per_block") +
           " threads";
}

}  // namespace

std::vector<Expectation> expectations(const Architecture& arch, const util::Json* rows) {
    Builder b(arch);
    identity(b, arch);
    caches(b, arch);
    l2_and_dram(b, arch);
    cluster_and_tlb(b, arch);
    sharing(b);
    auto list = b.done();
    if (rows && rows->is_array()) {
        const auto& q = model::kQuantities.at(model::find("L1_SIZE_BYTES"));
        for (const auto& row : rows->as_array()) {
            const auto* kind = row.find("kernel_shared");
            const auto* bytes = row.find("shared_bytes_per_block");
            const auto* threads = row.find("threads_per_block");
            const auto* carveout = row.find("carveout_percent");
            if (!kind || !bytes || !threads || !carveout) continue;
            KernelShape shape;
            shape.kernel = kind->as_string() == "static" ? kernels::ChaseKernel::probe : kernels::ChaseKernel::plain;
            shape.dynamic_shared_bytes =
                shape.kernel == kernels::ChaseKernel::plain ? static_cast<std::uint32_t>(bytes->as_number()) : 0;
            shape.threads = static_cast<std::uint32_t>(threads->as_number());
            shape.carveout_percent = static_cast<int>(carveout->as_number());
            const double v = double(l1_bytes(arch, shape));
            const double reach = arch.unified.geometry.replacement == Replacement::random ? kRandomEvictionReach : 1.0;
            const double lowest = ring_share(arch.unified.geometry, v);  // see ring_share
            list.push_back({row_name(row), v * (lowest + reach) / 2, model::agreement_tolerance(q, v) + v * (reach - lowest) / 2,
                            false, "split " + kb(double(shared_split(arch, shape))), true});
        }
    }
    return list;
}

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::agrees: return "agrees";
        case Verdict::unmeasured: return "unmeasured";
        case Verdict::doubted: return "not vouched for";
        case Verdict::wrong: return "WRONG";
        case Verdict::missing: return "missing";
        case Verdict::undescribed: return "not described";
    }
    return "?";
}

std::vector<Judged> judge(const Architecture& arch, const util::Json& profile, bool measured) {
    std::vector<Judged> out;
    const auto* rows = profile.at_path("caches.l1.carveouts");
    std::map<std::string, const util::Json*> row_by_name;
    if (rows && rows->is_array())
        for (const auto& row : rows->as_array()) row_by_name[row_name(row)] = &row;
    for (auto& e : expectations(arch, rows)) {
        if (const auto a = arch.allowances.find(e.name); measured && a != arch.allowances.end() && e.value) {
            e.tolerance += std::max(a->second.relative * std::abs(*e.value), a->second.at_least);
            e.why += "; allowance: " + a->second.why;
        }
        Judged j{e, std::nullopt, "", Verdict::agrees};
        if (e.name.rfind("L1 row: ", 0) == 0) {
            const auto* row = row_by_name.at(e.name);
            if (const auto* size = row->find("size_bytes"); size && size->is_number()) j.recovered = size->as_number();
            if (const auto* why = row->find("why_unmeasured"); why && why->is_string()) j.note = why->as_string();
        } else {
            const auto v = profile::read_quantity(profile, e.name);
            j.recovered = v.value;
            j.note = v.value ? v.doubt : v.reason;
            if (v.value && !v.doubt.empty()) j.verdict = Verdict::doubted;
        }
        if (!j.recovered) {
            j.verdict = j.note.empty() ? Verdict::missing : Verdict::unmeasured;
        } else if (!e.described || (measured && !e.value)) {
            j.verdict = Verdict::undescribed;
        } else if (j.verdict != Verdict::doubted) {
            const bool fits = e.value && (e.lower_bound ? *j.recovered >= *e.value - e.tolerance
                                                        : std::abs(*j.recovered - *e.value) <= e.tolerance);
            j.verdict = fits ? Verdict::agrees : Verdict::wrong;
        }
        out.push_back(std::move(j));
    }
    return out;
}

std::vector<Judged> judge_node(const Architecture& arch, const util::Json& node) {
    std::vector<Judged> out;
    const auto* devices = node.find("devices");
    if (devices && devices->is_array())
        for (std::size_t i = 0; i < devices->as_array().size(); ++i)
            for (auto& j : judge(arch, devices->as_array()[i])) {
                j.expected.name = "device " + std::to_string(i) + ": " + j.expected.name;
                out.push_back(std::move(j));
            }
    const auto* links = node.find("links");
    if (!arch.links || !links || !links->is_array()) return out;
    const auto& l = *arch.links;
    const std::map<std::string, std::pair<double, double>> described{
        // member -> (value, relative tolerance: a real link's run-to-run spread, as agreement.hpp's rules)
        {"ce_read_bytes_per_s", {l.copy_bytes_per_s, 0.15}},
        {"ce_write_bytes_per_s", {l.copy_bytes_per_s, 0.15}},
        {"sm_read_bytes_per_s", {l.sm_read_bytes_per_s, 0.15}},
        {"sm_write_bytes_per_s", {l.sm_write_bytes_per_s, 0.15}},
        {"load_latency_ns", {l.latency_ns, 0.05}},
        {"load_latency_cycles", {l.latency_ns * 1e-9 * arch.sm_clock_khz * 1e3, 0.05 + arch.noise.clock_drift}},
    };
    for (const auto& link : links->as_array()) {
        const std::string name = "link " + util::format_number(link.find("from")->as_number()) + " -> " +
                                 util::format_number(link.find("to")->as_number()) + ": ";
        for (const auto& [member, want] : described) {
            const bool latency = member.rfind("load_latency", 0) == 0;
            Judged j{{name + member, want.first, want.first * want.second, false,
                      latency && !l.latency_described ? "no source: a remote load costs a local DRAM load" : "described link",
                      !latency || l.latency_described},
                     std::nullopt, "", Verdict::agrees};
            const auto* v = link.find(member);
            if (v && v->is_object() && v->find("value") && v->find("value")->is_number())
                j.recovered = v->find("value")->as_number();
            if (!j.recovered) {
                const auto* reason = v && v->is_object() ? v->find("reason") : nullptr;
                j.note = reason && reason->is_string() ? reason->as_string() : "";
                j.verdict = j.note.empty() ? Verdict::missing : Verdict::unmeasured;
            } else if (!j.expected.described) {
                j.verdict = Verdict::undescribed;
            } else if (std::abs(*j.recovered - want.first) > j.expected.tolerance) {
                j.verdict = Verdict::wrong;
            }
            out.push_back(std::move(j));
        }
    }
    return out;
}

bool any_wrong(const std::vector<Judged>& judged) {
    return std::any_of(judged.begin(), judged.end(), [](const Judged& j) { return j.verdict == Verdict::wrong; });
}

std::string wrong_lines(const std::vector<Judged>& judged) {
    std::string text;
    for (const auto& j : judged)
        if (j.verdict == Verdict::wrong)
            text += "  " + j.expected.name + ": described " +
                    (j.expected.value ? util::format_number(*j.expected.value) : std::string("none")) + ", recovered " +
                    util::format_number(*j.recovered) + "\n";
    return text;
}

}  // namespace gpu_topology::simulate
