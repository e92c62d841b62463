#include "architecture.hpp"

#include "model/node.hpp"
#include "model/quantities.hpp"
#include "stages/stages.hpp"
#include "util/format.hpp"
#include "util/input_file.hpp"
#include "util/json.hpp"
#include "util/text.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <initializer_list>

namespace gpu_topology::simulate {
namespace {

using util::GiB;
using util::Json;
using util::KiB;
using util::MiB;

constexpr std::size_t kMaxText = 1024;      // a cite, a note, a source's title
constexpr std::size_t kMaxSources = 64;
constexpr std::size_t kMaxListEntries = 64;  // supported sizes, steps, exceptions, TLB levels
constexpr std::size_t kMaxReportedErrors = 40;

bool is_power_of_two(double v) {
    if (!(v >= 1) || v != std::floor(v) || v > 9007199254740992.0) return false;
    const auto u = static_cast<std::uint64_t>(v);
    return (u & (u - 1)) == 0;
}

struct Range {
    double min, max;
    bool whole = true;
    bool power_of_two = false;
};
// Bounds that hold for every GPU CUDA has supported and leave room for newer
// ones; a value outside them is a mistake in the description, not a GPU.
constexpr Range kCount{1, 1 << 20};
// Latencies, their spreads and extra cycles: at most a quarter of what a profile may hold (20000),
// so that a path's sum (a TLB miss on a DRAM access) with its spread and noise stays a profile's
// value. The largest any source gives is under 1000 (a V100's DRAM, in clocks).
constexpr Range kCycles{0, 5000, false};
constexpr Range kPositiveCycles{1, 5000, false};
constexpr Range kLineBytes{4, 4096, true, true};
constexpr Range kWays{0, 1 << 16};
constexpr Range kRate{1e6, 1e16, false};
// A device fact a profile holds: the profile's own rule (model/quantities.hpp), so that what a
// description says is what a profile may say.
constexpr Range fact_range(model::Rule rule) { return {rule.min, rule.max, true, rule.power_of_two}; }
// A link's rate and latency, measured with noise (0.5 % a repeat): the profile's range with a tenth to spare.
constexpr const model::LinkQuantity& kSmReadRate = model::kLinkQuantities[model::link_quantity_index("sm_read_bytes_per_s")];
constexpr const model::LinkQuantity& kLinkLatencyNs = model::kLinkQuantities[model::link_quantity_index("load_latency_ns")];
constexpr Range kLinkRate{1.1 * kSmReadRate.min, 0.9 * kSmReadRate.max, false};
constexpr Range kPerCycle{1, 4096, false};
constexpr Range kShare{0, 1, false};

// Reads the description, collecting every error before it gives up.
class Reader {
public:
    Reader(std::string file, Architecture& arch) : file_(std::move(file)), arch_(arch) {}

    void fail(const std::string& path, const std::string& what, const Json* value = nullptr) {
        errors_.push_back(path + ": " + what + (value ? ", got " + util::excerpt(value) : ""));
    }
    bool failed() const { return !errors_.empty(); }
    void throw_if_failed() const {
        if (errors_.empty()) return;
        std::string text = util::printable(file_, 200) + ": not a usable architecture description (" +
                           std::to_string(errors_.size()) + (errors_.size() == 1 ? " error" : " errors") + ")";
        for (std::size_t i = 0; i < errors_.size() && i < kMaxReportedErrors; ++i)
            text += "\n  " + util::printable(errors_[i], 300);
        if (errors_.size() > kMaxReportedErrors) text += "\n  ...";
        throw DescriptionError(text);
    }

    // Every key of `object` must be one of `allowed`.
    void only(const Json& object, const std::string& path, std::initializer_list<std::string_view> allowed) {
        for (const auto& [key, value] : object.as_object())
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
                fail(join(path, key), "unknown field (a misspelt name?)");
    }
    const Json* object(const Json& parent, const std::string& path, std::string_view key, bool required) {
        const Json* j = parent.find(key);
        const std::string at = join(path, key);
        if (!j) {
            if (required) fail(at, "missing");
            return nullptr;
        }
        if (!j->is_object()) {
            fail(at, "expected an object", j);
            return nullptr;
        }
        return j;
    }

    // The value of the cited leaf `key` of `parent`, its citation recorded.
    const Json* leaf(const Json& parent, const std::string& path, std::string_view key, bool required) {
        const std::string at = join(path, key);
        const Json* j = parent.find(key);
        if (!j) {
            if (required) fail(at, "missing");
            return nullptr;
        }
        if (!j->is_object() || !j->find("value") || !j->find("cite")) {
            fail(at, "expected {\"value\": ..., \"cite\": \"<source>: where\"}", j);
            return nullptr;
        }
        only(*j, at, {"value", "cite", "method", "note"});
        Citation c;
        c.cite = text(*j, at, "cite", true);
        c.method = text(*j, at, "method", false);
        c.note = text(*j, at, "note", false);
        if (!c.cite.empty()) {
            const auto end = c.cite.find_first_of(":, ");
            const std::string key_part = c.cite.substr(0, end);
            if (!arch_.sources.count(key_part))
                fail(at + ".cite", "names no entry of \"sources\" (a cite starts with its source's key)", j->find("cite"));
        }
        arch_.citations[at] = std::move(c);
        return j->find("value");
    }

    std::string text(const Json& parent, const std::string& path, std::string_view key, bool required) {
        const Json* j = parent.find(key);
        const std::string at = join(path, key);
        if (!j) {
            if (required) fail(at, "missing");
            return {};
        }
        if (!j->is_string() || j->as_string().empty() || j->as_string().size() > kMaxText ||
            !util::is_safe_text(j->as_string())) {
            fail(at, "expected text of 1 to " + std::to_string(kMaxText) + " bytes without control characters", j);
            return {};
        }
        return j->as_string();
    }

    bool in_range(const std::string& at, const Json* v, const Range& r) {
        if (!v || !v->is_number()) {
            fail(at, "expected a number", v);
            return false;
        }
        const double x = v->as_number();
        if (!(x >= r.min && x <= r.max) || (r.whole && x != std::floor(x))) {
            fail(at, std::string("expected ") + (r.whole ? "a whole number" : "a number") + " in [" +
                         util::format_number(r.min) + ", " + util::format_number(r.max) + "]",
                 v);
            return false;
        }
        if (r.power_of_two && !is_power_of_two(x)) {
            fail(at, "expected a power of two", v);
            return false;
        }
        return true;
    }

    // A cited number; `fallback` when it is optional and absent (or wrong: the error is kept).
    double number(const Json& parent, const std::string& path, std::string_view key, const Range& r,
                  std::optional<double> fallback = std::nullopt) {
        const Json* v = leaf(parent, path, key, !fallback);
        if (!v) return fallback.value_or(r.min);
        return in_range(join(path, key), v, r) ? v->as_number() : fallback.value_or(r.min);
    }
    std::optional<double> optional_number(const Json& parent, const std::string& path, std::string_view key,
                                          const Range& r) {
        const Json* v = leaf(parent, path, key, false);
        if (!v) return std::nullopt;
        if (!in_range(join(path, key), v, r)) return std::nullopt;
        return v->as_number();
    }
    std::string choice(const Json& parent, const std::string& path, std::string_view key,
                       std::initializer_list<std::string_view> allowed, std::optional<std::string> fallback = {}) {
        const Json* v = leaf(parent, path, key, !fallback);
        if (!v) return fallback.value_or(std::string(*allowed.begin()));
        if (!v->is_string() || std::find(allowed.begin(), allowed.end(), v->as_string()) == allowed.end()) {
            std::string list;
            for (auto a : allowed) list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
            fail(join(path, key), "expected one of " + list, v);
            return fallback.value_or(std::string(*allowed.begin()));
        }
        return v->as_string();
    }
    // A cited list of numbers.
    std::vector<double> numbers(const Json& parent, const std::string& path, std::string_view key, const Range& r,
                                bool required) {
        const Json* v = leaf(parent, path, key, required);
        std::vector<double> out;
        if (!v) return out;
        const std::string at = join(path, key);
        if (!v->is_array() || v->as_array().empty() || v->as_array().size() > kMaxListEntries) {
            fail(at, "expected a list of 1 to " + std::to_string(kMaxListEntries) + " numbers", v);
            return out;
        }
        for (std::size_t i = 0; i < v->as_array().size(); ++i)
            if (in_range(at + "[" + std::to_string(i) + "]", &v->as_array()[i], r)) out.push_back(v->as_array()[i].as_number());
        return out;
    }
    // A cited list of [threads at most, bytes] pairs, ascending in threads.
    std::vector<ThreadStep> steps(const Json& parent, const std::string& path, std::string_view key, bool required) {
        const Json* v = leaf(parent, path, key, required);
        std::vector<ThreadStep> out;
        if (!v) return out;
        const std::string at = join(path, key);
        if (!v->is_array() || v->as_array().size() > kMaxListEntries) {
            fail(at, "expected a list of [threads at most, bytes] pairs", v);
            return out;
        }
        for (std::size_t i = 0; i < v->as_array().size(); ++i) {
            const Json& pair = v->as_array()[i];
            const std::string here = at + "[" + std::to_string(i) + "]";
            if (!pair.is_array() || pair.as_array().size() != 2) {
                fail(here, "expected [threads at most, bytes]", &pair);
                continue;
            }
            if (!in_range(here + "[0]", &pair.as_array()[0], {1, 4096}) ||
                !in_range(here + "[1]", &pair.as_array()[1], {0, double(4 * MiB)}))
                continue;
            const ThreadStep s{static_cast<std::uint32_t>(pair.as_array()[0].as_number()),
                               static_cast<std::uint64_t>(pair.as_array()[1].as_number())};
            if (!out.empty() && s.threads_at_most <= out.back().threads_at_most)
                fail(here + "[0]", "thread counts must ascend", &pair.as_array()[0]);
            out.push_back(s);
        }
        return out;
    }

    static std::string join(const std::string& path, std::string_view key) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }

private:
    std::string file_;
    Architecture& arch_;
    std::vector<std::string> errors_;
};

SetIndex index_of(const std::string& s) { return s == "modulo" ? SetIndex::modulo : SetIndex::hashed; }
Replacement replacement_of(const std::string& s) { return s == "random" ? Replacement::random : Replacement::lru; }

// A cache's geometry (bytes set by the caller).
CacheGeometry geometry(Reader& r, const Json& o, const std::string& path, std::uint32_t fill_default_line = 0) {
    CacheGeometry g;
    g.line_bytes = static_cast<std::uint32_t>(r.number(o, path, "line_bytes", kLineBytes));
    g.fill_bytes = static_cast<std::uint32_t>(
        r.number(o, path, "fill_bytes", kLineBytes, fill_default_line ? std::optional<double>(fill_default_line) : std::nullopt));
    const bool by_ways = o.find("ways") != nullptr, by_sets = o.find("sets") != nullptr;
    if (by_ways == by_sets) r.fail(path, "needs exactly one of \"ways\" (sets follow from the capacity) and \"sets\" (ways follow)");
    if (by_ways) g.ways = static_cast<std::uint32_t>(r.number(o, path, "ways", kWays));
    if (by_sets) g.sets = static_cast<std::uint32_t>(r.number(o, path, "sets", {1, 1 << 20}));
    g.index = index_of(r.choice(o, path, "index", {"hashed", "modulo"}));
    if (by_sets && g.index == SetIndex::modulo && !std::has_single_bit(g.sets))
        r.fail(path + ".sets", "a modulo index takes address bits: its sets are a power of two, not " +
                                   std::to_string(g.sets));
    g.replacement = replacement_of(r.choice(o, path, "replacement", {"lru", "random"}, "lru"));
    if (g.fill_bytes > g.line_bytes)
        r.fail(path + ".fill_bytes", "a fill is at most a line (" + std::to_string(g.line_bytes) + " B)");
    return g;
}

Latency latency(Reader& r, const Json& o, const std::string& path, std::string_view key, std::string_view spread_key) {
    Latency l;
    l.cycles = r.number(o, path, key, kPositiveCycles);
    l.spread_cycles = r.number(o, path, spread_key, kCycles, 0.0);
    return l;
}

KindRule kind_rule(Reader& r, const Json& o, const std::string& path) {
    KindRule k;
    r.only(o, path, {"percent_of_bytes", "least_by_threads", "default", "default_by_threads"});
    k.percent_of_bytes = r.number(o, path, "percent_of_bytes", {0, double(64 * MiB)});
    k.least_by_threads = r.steps(o, path, "least_by_threads", false);
    const auto d = r.choice(o, path, "default", {"occupancy", "least", "by_threads"});
    k.default_split = d == "least" ? DefaultSplit::least : d == "by_threads" ? DefaultSplit::by_threads : DefaultSplit::occupancy;
    k.default_by_threads = r.steps(o, path, "default_by_threads", k.default_split == DefaultSplit::by_threads);
    if (k.default_split != DefaultSplit::by_threads && !k.default_by_threads.empty())
        r.fail(path + ".default_by_threads", "only with \"default\": \"by_threads\"");
    return k;
}

void read_split(Reader& r, const Json& o, const std::string& path, Architecture& a) {
    auto& s = a.unified.split;
    r.only(o, path, {"supported_shared_bytes", "allocation_unit_bytes", "none", "static", "dynamic", "exceptions"});
    for (double v : r.numbers(o, path, "supported_shared_bytes", {0, double(4 * MiB)}, true))
        s.supported_shared_bytes.push_back(static_cast<std::uint64_t>(v));
    if (!std::is_sorted(s.supported_shared_bytes.begin(), s.supported_shared_bytes.end()) ||
        std::adjacent_find(s.supported_shared_bytes.begin(), s.supported_shared_bytes.end()) != s.supported_shared_bytes.end())
        r.fail(path + ".supported_shared_bytes", "sizes must ascend");
    s.allocation_unit_bytes = static_cast<std::uint32_t>(r.number(o, path, "allocation_unit_bytes", {1, 65536, true, true}));
    if (const Json* k = r.object(o, path, "none", true)) s.none = kind_rule(r, *k, path + ".none");
    if (const Json* k = r.object(o, path, "static", true)) s.fixed = kind_rule(r, *k, path + ".static");
    if (const Json* k = r.object(o, path, "dynamic", true)) s.dynamic = kind_rule(r, *k, path + ".dynamic");
    const Json* list = o.find("exceptions");
    if (!list) return;
    const std::string at = path + ".exceptions";
    if (!list->is_array() || list->as_array().size() > kMaxListEntries)
        return r.fail(at, "expected a list of at most " + std::to_string(kMaxListEntries) + " cited rows", list);
    for (std::size_t i = 0; i < list->as_array().size(); ++i) {
        const std::string here = at + "[" + std::to_string(i) + "]";
        const Json& row = list->as_array()[i];
        if (!row.is_object()) {
            r.fail(here, "expected an object", &row);
            continue;
        }
        r.only(row, here, {"kernel", "declared_bytes", "threads", "carveout_percent", "shared_bytes"});
        SplitException e;
        const auto kernel = r.choice(row, here, "kernel", {"none", "static", "dynamic"});
        e.kernel = kernel == "static" ? kernels::ChaseKernel::probe : kernels::ChaseKernel::plain;
        e.declared_bytes = static_cast<std::uint32_t>(r.number(row, here, "declared_bytes", {0, double(4 * MiB)}));
        e.threads = static_cast<std::uint32_t>(r.number(row, here, "threads", {1, 4096}));
        e.carveout_percent = static_cast<int>(r.number(row, here, "carveout_percent", {-1, 100}));
        e.shared_bytes = static_cast<std::uint64_t>(r.number(row, here, "shared_bytes", {0, double(4 * MiB)}));
        if ((kernel == "none") != (e.declared_bytes == 0))
            r.fail(here + ".declared_bytes", "a kernel of kind \"none\" declares 0 bytes, the others more");
        s.exceptions.push_back(e);
    }
}

void read_device(Reader& r, const Json& d, Architecture& a) {
    const std::string p = "device";
    r.only(d, p, {"cc_major", "cc_minor", "sm_count", "sm_clock_max_khz", "l2_bytes", "persisting_l2_max_bytes",
                  "shared_per_sm_bytes", "shared_per_block_optin_bytes", "reserved_shared_per_block_bytes",
                  "constant_bytes", "global_bytes", "max_threads_per_sm", "max_blocks_per_sm", "registers_per_sm",
                  "texture_1d_linear_max_texels"});
    auto& f = a.facts;
    const auto whole = [&](std::string_view key, Range range) { return static_cast<std::int64_t>(r.number(d, p, key, range)); };
    f.cc_major = static_cast<int>(whole("cc_major", fact_range(model::kSupportedCcMajor)));
    f.cc_minor = static_cast<int>(whole("cc_minor", {0, 9}));
    f.sm_count = static_cast<int>(whole("sm_count", fact_range(model::kSmsPerDevice)));
    f.sm_clock_max_khz = whole("sm_clock_max_khz", fact_range(model::kClockKhz));
    // Up to 4 times the largest L2 made (a B200's 126 MB): the probe's buffer grows with the L2, and
    // the simulated caches count a ring's lines block by block (1 GiB: "a ring of too many lines").
    f.l2_bytes = whole("l2_bytes", {double(256 * KiB), double(512 * MiB)});
    f.persisting_l2_max_bytes =
        static_cast<std::int64_t>(r.number(d, p, "persisting_l2_max_bytes", {0, double(1024 * MiB)}, 0.0));
    f.shared_per_sm_bytes = whole("shared_per_sm_bytes", fact_range(model::kSharedBytes));
    f.shared_per_block_optin_bytes = whole("shared_per_block_optin_bytes", fact_range(model::kSharedBytes));
    f.reserved_shared_per_block_bytes = whole("reserved_shared_per_block_bytes", fact_range(model::kReservedSharedBytes));
    f.constant_bytes = whole("constant_bytes", fact_range(model::kConstantBytes));
    f.global_bytes = whole("global_bytes", {double(512 * MiB), model::kDeviceMemoryBytes.max});
    f.max_threads_per_sm = whole("max_threads_per_sm", fact_range(model::kThreadsPerSm));
    f.max_blocks_per_sm = whole("max_blocks_per_sm", fact_range(model::kBlocksPerSm));
    f.registers_per_sm = whole("registers_per_sm", fact_range(model::kRegistersPerSm));
    // The Programming Guide's table gives 2^27 or 2^28 texels from compute capability 5.0 on; the probe
    // keeps its texture rings within the reach (stage_family.cpp).
    a.texture_max_texels = static_cast<std::uint64_t>(
        r.number(d, p, "texture_1d_linear_max_texels", {double(1u << 27), double(1ull << 40)}, double(1u << 28)));
    if (f.persisting_l2_max_bytes > f.l2_bytes) r.fail(p + ".persisting_l2_max_bytes", "larger than l2_bytes");
    if (f.shared_per_block_optin_bytes > f.shared_per_sm_bytes)
        r.fail(p + ".shared_per_block_optin_bytes", "larger than shared_per_sm_bytes");
    f.shared_per_block_bytes = std::min<std::int64_t>(48 * KiB, f.shared_per_block_optin_bytes);
}

void read_unified(Reader& r, const Json& u, Architecture& a) {
    const std::string p = "unified_l1";
    r.only(u, p, {"bytes", "unusable_bytes", "line_bytes", "fill_bytes", "ways", "sets", "index", "replacement",
                  "hit_latency_cycles", "spread_cycles", "bandwidth_bytes_per_cycle_per_sm", "instances_per_sm",
                  "l1_miss_extra_cycles", "readonly", "texture", "split"});
    auto& l = a.unified;
    l.bytes = static_cast<std::uint64_t>(r.number(u, p, "bytes", {double(8 * KiB), double(16 * MiB)}));
    l.unusable_bytes = static_cast<std::uint64_t>(r.number(u, p, "unusable_bytes", {0, double(1 * MiB)}, 0.0));
    l.geometry = geometry(r, u, p);
    l.l1.hit_cycles = r.number(u, p, "hit_latency_cycles", kPositiveCycles);
    l.l1.miss_extra_cycles = r.number(u, p, "l1_miss_extra_cycles", kCycles, 0.0);
    l.l1.line_bytes = l.geometry.line_bytes;
    l.l1.index = l.geometry.index;
    l.spread_cycles = r.number(u, p, "spread_cycles", kCycles, 0.0);
    l.bandwidth_bytes_per_cycle = r.optional_number(u, p, "bandwidth_bytes_per_cycle_per_sm", kPerCycle).value_or(0);
    l.instances_per_sm = static_cast<std::uint32_t>(r.number(u, p, "instances_per_sm", {1, 4}, 1.0));
    // A path no source measured answers as ld.global.ca does (the same storage), undescribed.
    l.readonly = l.l1;
    l.texture = l.l1;
    l.readonly.described = l.texture.described = false;
    if (const Json* ro = r.object(u, p, "readonly", false)) {
        r.only(*ro, p + ".readonly", {"hit_latency_cycles", "miss_extra_cycles"});
        l.readonly.described = true;
        l.readonly.hit_cycles = r.number(*ro, p + ".readonly", "hit_latency_cycles", kPositiveCycles);
        l.readonly.miss_extra_cycles = r.number(*ro, p + ".readonly", "miss_extra_cycles", kCycles, 0.0);
    }
    if (const Json* t = r.object(u, p, "texture", false)) {
        l.texture.described = true;
        const std::string tp = p + ".texture";
        r.only(*t, tp, {"hit_latency_cycles", "miss_extra_cycles", "line_bytes", "index"});
        l.texture.hit_cycles = r.number(*t, tp, "hit_latency_cycles", kPositiveCycles);
        l.texture.miss_extra_cycles = r.number(*t, tp, "miss_extra_cycles", kCycles, 0.0);
        l.texture.line_bytes = static_cast<std::uint32_t>(r.number(*t, tp, "line_bytes", kLineBytes, double(l.geometry.line_bytes)));
        l.texture.index = index_of(r.choice(*t, tp, "index", {"hashed", "modulo"}, l.geometry.index == SetIndex::hashed ? "hashed" : "modulo"));
        if (l.texture.line_bytes < l.geometry.fill_bytes)
            r.fail(tp + ".line_bytes", "smaller than the storage's fill (" + std::to_string(l.geometry.fill_bytes) + " B)");
    }
    if (const Json* s = r.object(u, p, "split", true)) read_split(r, *s, p + ".split", a);
}

void read_shared(Reader& r, const Json& s, Architecture& a) {
    const std::string p = "shared";
    r.only(s, p, {"latency_cycles", "spread_cycles", "banks", "bank_bytes", "conflict_latency_cycles",
                  "conflict_issue_cycles", "issue_cycles", "bandwidth_bytes_per_cycle_per_sm"});
    auto& m = a.shared;
    m.latency_described = s.find("latency_cycles") != nullptr;
    if (m.latency_described) m.latency = latency(r, s, p, "latency_cycles", "spread_cycles");
    else m.latency = {a.unified.l1.hit_cycles, 0};
    m.banks = static_cast<std::uint32_t>(r.number(s, p, "banks", {2, 128, true, true}));
    m.bank_bytes = static_cast<std::uint32_t>(r.number(s, p, "bank_bytes", {4, 64, true, true}));
    m.conflict_latency_cycles = r.number(s, p, "conflict_latency_cycles", {0, 1000, false});
    m.conflict_issue_cycles = r.number(s, p, "conflict_issue_cycles", {0, 1000, false});
    m.issue_cycles = r.number(s, p, "issue_cycles", {0.25, 1000, false});
    m.bandwidth_bytes_per_cycle = r.optional_number(s, p, "bandwidth_bytes_per_cycle_per_sm", kPerCycle).value_or(0);
}

void read_constant(Reader& r, const Json& c, Architecture& a) {
    const std::string p = "constant";
    r.only(c, p, {"l1", "l15", "miss_extra_cycles"});
    auto& k = a.constant;
    if (const Json* l1 = r.object(c, p, "l1", true)) {
        const std::string lp = p + ".l1";
        r.only(*l1, lp, {"bytes", "line_bytes", "ways", "sets", "index", "replacement", "hit_latency_cycles", "spread_cycles",
                         "instances_per_sm"});
        k.l1 = geometry(r, *l1, lp, 1);
        k.l1.fill_bytes = k.l1.line_bytes;
        k.l1.bytes = static_cast<std::uint64_t>(r.number(*l1, lp, "bytes", {64, double(1 * MiB)}));
        k.l1_hit = latency(r, *l1, lp, "hit_latency_cycles", "spread_cycles");
        k.l1_instances_per_sm = static_cast<std::uint32_t>(r.number(*l1, lp, "instances_per_sm", {1, 4}, 1.0));
    }
    if (const Json* l15 = r.object(c, p, "l15", true)) {
        const std::string lp = p + ".l15";
        r.only(*l15, lp, {"bytes", "bytes_at_least", "line_bytes", "ways", "sets", "index", "replacement", "hit_latency_cycles",
                          "spread_cycles"});
        k.l15 = geometry(r, *l15, lp, 1);
        k.l15.fill_bytes = k.l15.line_bytes;
        const bool exact = l15->find("bytes") != nullptr, bound = l15->find("bytes_at_least") != nullptr;
        if (exact == bound) r.fail(lp, "needs exactly one of \"bytes\" and \"bytes_at_least\"");
        k.l15_beyond_array = !exact;
        if (exact) k.l15.bytes = static_cast<std::uint64_t>(r.number(*l15, lp, "bytes", {64, double(16 * MiB)}));
        if (bound) {
            const double least = r.number(*l15, lp, "bytes_at_least", {64, double(16 * MiB)});
            // Larger than anything the 64 KiB array can hold: every ring fits.
            k.l15_beyond_array = least >= double(a.facts.constant_bytes);
            k.l15.bytes = static_cast<std::uint64_t>(std::max(least, 4.0 * double(a.facts.constant_bytes)));
            if (!k.l15_beyond_array)
                r.fail(lp + ".bytes_at_least", "a lower bound below the constant memory size says nothing: give \"bytes\"");
        }
        k.l15_hit = latency(r, *l15, lp, "hit_latency_cycles", "spread_cycles");
    }
    k.miss_extra_cycles = r.number(c, p, "miss_extra_cycles", kCycles, 0.0);
}

void read_l2(Reader& r, const Json& o, Architecture& a) {
    const std::string p = "l2";
    r.only(o, p, {"line_bytes", "fill_bytes", "dram_fetch_bytes", "ways", "sets", "index", "replacement", "near_bytes",
                  "near_latency_cycles", "near_spread_cycles", "slice_spread_cycles", "far_latency_cycles",
                  "far_spread_cycles", "bandwidth_bytes_per_s", "far_bandwidth_bytes_per_s"});
    auto& l = a.l2;
    l.geometry = geometry(r, o, p);
    l.geometry.bytes = static_cast<std::uint64_t>(a.facts.l2_bytes);
    l.dram_fetch_described = o.find("dram_fetch_bytes") != nullptr;
    l.dram_fetch_bytes = static_cast<std::uint32_t>(r.number(o, p, "dram_fetch_bytes", kLineBytes, double(l.geometry.fill_bytes)));
    l.near_bytes = static_cast<std::uint64_t>(r.number(o, p, "near_bytes", {double(64 * KiB), double(1024 * MiB)}, double(a.facts.l2_bytes)));
    l.near = latency(r, o, p, "near_latency_cycles", "near_spread_cycles");
    l.slice_spread_cycles = r.number(o, p, "slice_spread_cycles", kCycles, 0.0);
    if (o.find("far_latency_cycles")) l.far = latency(r, o, p, "far_latency_cycles", "far_spread_cycles");
    l.bandwidth_bytes_per_s = r.optional_number(o, p, "bandwidth_bytes_per_s", kRate).value_or(0);
    l.far_bandwidth_bytes_per_s = r.optional_number(o, p, "far_bandwidth_bytes_per_s", kRate);
    if (l.near_bytes > l.geometry.bytes) r.fail(p + ".near_bytes", "larger than device.l2_bytes");
    if (l.near_bytes < l.geometry.bytes && !l.far)
        r.fail(p + ".far_latency_cycles", "an L2 whose near part is smaller than the whole needs a far latency");
    if (l.far && l.near_bytes == l.geometry.bytes)
        r.fail(p + ".far_latency_cycles", "a uniform L2 (near_bytes = l2_bytes) has no far latency");
    if (l.far && l.far->cycles <= l.near.cycles) r.fail(p + ".far_latency_cycles", "must exceed the near latency");
    if (l.slice_spread_cycles > l.near.spread_cycles)
        r.fail(p + ".slice_spread_cycles", "part of near_spread_cycles, so at most it");
    if (l.dram_fetch_bytes < l.geometry.fill_bytes || l.dram_fetch_bytes > l.geometry.line_bytes)
        r.fail(p + ".dram_fetch_bytes", "between the fill (" + std::to_string(l.geometry.fill_bytes) + " B) and the line (" +
                                             std::to_string(l.geometry.line_bytes) + " B)");
}

void read_tlb(Reader& r, const Json& list, Architecture& a) {
    const std::string p = "tlb";
    if (!list.is_array() || list.as_array().size() > 4) return r.fail(p, "expected a list of at most 4 levels", &list);
    for (std::size_t i = 0; i < list.as_array().size(); ++i) {
        const std::string here = p + "[" + std::to_string(i) + "]";
        const Json& level = list.as_array()[i];
        if (!level.is_object()) {
            r.fail(here, "expected an object", &level);
            continue;
        }
        r.only(level, here, {"entries", "coverage_bytes", "ways", "miss_penalty_cycles"});
        TlbLevel t;
        t.entries = static_cast<std::uint32_t>(r.number(level, here, "entries", {1, 1 << 16}));
        t.coverage_bytes = static_cast<std::uint64_t>(r.number(level, here, "coverage_bytes", {4096, double(1 * GiB), true, true}));
        t.ways = static_cast<std::uint32_t>(r.number(level, here, "ways", {0, 1 << 16}));
        t.miss_cycles = r.number(level, here, "miss_penalty_cycles", kCycles);
        if (t.ways && t.entries % t.ways) r.fail(here + ".ways", "must divide the entries");
        if (!a.tlb.empty() && t.entries * double(t.coverage_bytes) <= a.tlb.back().entries * double(a.tlb.back().coverage_bytes))
            r.fail(here, "a later level reaches no further than the one before it");
        a.tlb.push_back(t);
    }
}

void read_cluster(Reader& r, const Json& o, Architecture& a) {
    const std::string p = "cluster";
    r.only(o, p, {"max_blocks", "dsmem_latency_cycles", "dsmem_spread_cycles", "dsmem_far_extra_cycles",
                  "dsmem_bandwidth_bytes_per_s", "large_cluster_share"});
    Cluster c;
    c.max_blocks = static_cast<std::uint32_t>(r.number(o, p, "max_blocks", {2, 64}));
    c.dsmem = latency(r, o, p, "dsmem_latency_cycles", "dsmem_spread_cycles");
    c.far_extra_cycles = r.number(o, p, "dsmem_far_extra_cycles", kCycles, 0.0);
    c.bandwidth_bytes_per_s = r.optional_number(o, p, "dsmem_bandwidth_bytes_per_s", kRate).value_or(0);
    c.large_cluster_share = r.number(o, p, "large_cluster_share", {0.05, 1, false}, 1.0);
    if (c.dsmem.cycles <= a.shared.latency.cycles)
        r.fail(p + ".dsmem_latency_cycles", "must exceed the shared-memory latency");
    a.cluster = c;
}

void read_links(Reader& r, const Json& o, Architecture& a) {
    const std::string p = "links";
    r.only(o, p, {"devices", "transport", "nvlinks", "sm_read_bytes_per_s", "sm_write_bytes_per_s", "copy_bytes_per_s",
                  "latency_ns"});
    Links l;
    l.devices = static_cast<std::uint32_t>(r.number(o, p, "devices", {2, 16}));
    l.transport = r.choice(o, p, "transport", {"nvlink", "pcie"});
    l.nvlinks = static_cast<std::uint32_t>(r.number(o, p, "nvlinks", {0, 64}, 0.0));
    l.sm_read_bytes_per_s = r.number(o, p, "sm_read_bytes_per_s", kLinkRate);
    l.sm_write_bytes_per_s = r.number(o, p, "sm_write_bytes_per_s", kLinkRate, l.sm_read_bytes_per_s);
    l.copy_bytes_per_s = r.number(o, p, "copy_bytes_per_s", kLinkRate, l.sm_read_bytes_per_s);
    l.latency_described = o.find("latency_ns") != nullptr;
    l.latency_ns = r.number(o, p, "latency_ns", {10, 0.9 * kLinkLatencyNs.max, false},
                            a.dram.latency.cycles / (a.sm_clock_khz * 1e3) * 1e9);
    if ((l.transport == "nvlink") != (l.nvlinks > 0)) r.fail(p + ".nvlinks", "NVLink routes have links, PCIe routes none");
    a.links = l;
}

void read_noise(Reader& r, const Json& o, Architecture& a) {
    const std::string p = "noise";
    r.only(o, p, {"jitter_cycles", "outlier_rate", "outlier_cycles", "clock_drift", "busy_sm_share", "busy_episode_calls"});
    auto& n = a.noise;
    // Up to 10 cycles (a clock read jitters by 1 or 2): seven descriptions, four seeds, quiet and busy,
    // no wrong value vouched for there; at 20 a constant miss latency 8 % off, at 50 phantom TLBs.
    n.jitter_cycles = r.number(o, p, "jitter_cycles", {0, 10, false}, n.jitter_cycles);
    // Up to 0.3 % (15 times the default): at 1 % of 5000-cycle outliers an H100's 10-cycle TLB miss
    // penalty read 14 on one seed of three.
    n.outlier_rate = r.number(o, p, "outlier_rate", {0, 0.003, false}, n.outlier_rate);
    n.outlier_cycles = r.number(o, p, "outlier_cycles", kCycles, n.outlier_cycles);
    n.clock_drift = r.number(o, p, "clock_drift", {0, 0.1, false}, n.clock_drift);
    n.busy_sm_share = r.number(o, p, "busy_sm_share", {0.05, 0.95, false}, n.busy_sm_share);
    n.busy_episode_calls = r.number(o, p, "busy_episode_calls", {10, 1e6, false}, n.busy_episode_calls);
}

void read_allowances(Reader& r, const Json& o, Architecture& a) {
    const std::string p = "allowances";
    for (const auto& [name, entry] : o.as_object()) {
        const std::string here = p + "." + name;
        if (!entry.is_object()) {
            r.fail(here, "expected an object", &entry);
            continue;
        }
        r.only(entry, here, {"relative", "at_least"});
        const std::string_view quantity = name;  // a plain variable: Clang before 16 captures no binding
        const bool known = std::any_of(model::kQuantities.begin(), model::kQuantities.end(),
                                       [&](const model::Quantity& q) { return q.name == quantity; });
        if (!known) r.fail(here, "no quantity of a profile has this name (docs/quantities.md)");
        if (!entry.find("relative") && !entry.find("at_least")) r.fail(here, "allows nothing: give relative or at_least");
        Architecture::Allowance w;
        w.relative = r.number(entry, here, "relative", {0, 10, false}, 0.0);
        w.at_least = r.number(entry, here, "at_least", {0, 1e12, false}, 0.0);
        const auto c = a.citations.find(here + (entry.find("relative") ? ".relative" : ".at_least"));
        if (c != a.citations.end()) w.why = c->second.cite + (c->second.note.empty() ? "" : ": " + c->second.note);
        a.allowances[name] = w;
    }
}

// What no GPU does: relations between fields of different sections.
void check_physics(Reader& r, const Architecture& a) {
    const auto& u = a.unified;
    const auto& sizes = u.split.supported_shared_bytes;
    if (!sizes.empty() && sizes.back() != std::uint64_t(a.facts.shared_per_sm_bytes))
        r.fail("unified_l1.split.supported_shared_bytes", "the largest must be device.shared_per_sm_bytes (" +
                                                               std::to_string(a.facts.shared_per_sm_bytes) + ")");
    if (!sizes.empty() && sizes.back() + u.unusable_bytes + 8 * KiB > u.bytes)
        r.fail("unified_l1.bytes", "leaves less than 8 KiB of L1 beside the largest shared-memory split");
    // A split the driver picks is one the SM supports.
    const std::string split = "unified_l1.split";
    const auto supported = [&](std::uint64_t bytes) {
        return sizes.empty() ? bytes <= std::uint64_t(a.facts.shared_per_sm_bytes)
                             : std::find(sizes.begin(), sizes.end(), bytes) != sizes.end();
    };
    // A rule's step is rounded up to a supported split (split.cpp); it asks for no more than the SM has.
    const std::pair<const KindRule*, const char*> kinds[] = {{&u.split.none, "none"}, {&u.split.fixed, "static"},
                                                             {&u.split.dynamic, "dynamic"}};
    for (const auto& [rule, name] : kinds)
        for (const auto& [steps, key] : {std::pair{&rule->least_by_threads, "least_by_threads"},
                                          std::pair{&rule->default_by_threads, "default_by_threads"}})
            for (std::size_t i = 0; i < steps->size(); ++i)
                if ((*steps)[i].bytes > std::uint64_t(a.facts.shared_per_sm_bytes))
                    r.fail(split + "." + name + "." + key + "[" + std::to_string(i) + "][1]",
                           "more than device.shared_per_sm_bytes (" + std::to_string((*steps)[i].bytes) + " B)");
    for (std::size_t i = 0; i < u.split.exceptions.size(); ++i)
        if (!supported(u.split.exceptions[i].shared_bytes))
            r.fail(split + ".exceptions[" + std::to_string(i) + "].shared_bytes",
                   "not a split the SM supports (" + std::to_string(u.split.exceptions[i].shared_bytes) + " B)");
    if (u.geometry.fill_bytes > u.geometry.line_bytes) return;  // reported with the geometry
    if (a.sm_clock_khz > double(a.facts.sm_clock_max_khz)) r.fail("sm_clock_khz", "above device.sm_clock_max_khz");
    if (a.constant.l1.bytes >= a.constant.l15.bytes) r.fail("constant.l1.bytes", "must be smaller than the L1.5");
    if (a.constant.l1.line_bytes > a.constant.l1.bytes) r.fail("constant.l1.line_bytes", "larger than the cache");
    if (a.constant.l1.bytes > std::uint64_t(a.facts.constant_bytes) / 2)
        r.fail("constant.l1.bytes", "the probe sizes the constant L1 with rings of at most half the constant memory");
    if (a.l2.geometry.line_bytes > a.l2.near_bytes / 64) r.fail("l2.line_bytes", "too large for the L2");
    // Random replacement is played load by load in every set a ring overfills, which takes time and
    // memory that grow with the ways: at most 1024 ways a set (a 512 MiB L2 of 1024 ways: 16 s and
    // 0.4 GB on the CPU machine), but a cache of at most 32768 lines (an L1) may be one set.
    constexpr std::uint64_t kMostRandomWays = 1024, kMostRandomLinesInOneSet = 32768;
    const auto random_ways = [&](const CacheGeometry& g, std::uint64_t bytes, const std::string& at) {
        if (g.replacement != Replacement::random) return;
        const std::uint64_t lines = std::max<std::uint64_t>(1, bytes / std::max<std::uint32_t>(1, g.line_bytes));
        const std::uint64_t ways = g.ways ? g.ways : g.sets ? (lines + g.sets - 1) / g.sets : lines;
        if (ways > kMostRandomWays && lines > kMostRandomLinesInOneSet)
            r.fail(at + ".replacement", "random replacement with " + std::to_string(ways) + " ways a set in " +
                                            std::to_string(lines) + " lines (at most " + std::to_string(kMostRandomWays) +
                                            " ways, or " + std::to_string(kMostRandomLinesInOneSet) +
                                            " lines in all): describe fewer ways, or lru");
    };
    random_ways(u.geometry, u.bytes, "unified_l1");
    random_ways(a.constant.l1, a.constant.l1.bytes, "constant.l1");
    random_ways(a.constant.l15, a.constant.l15.bytes, "constant.l15");
    random_ways(a.l2.geometry, std::uint64_t(a.facts.l2_bytes), "l2");
    // The shapes the property test checks the probe on: outside them a split's L1 part need not be
    // whole ways of whole sets (64 sets of 128 B lines hold 16 KiB where 21 KiB are described), lines
    // of 8 B or 4 KiB are counted wrongly, and the probe reads what the cache holds, not the description.
    const auto& g = u.geometry;
    if (g.sets > 16) r.fail("unified_l1.sets", "at most 16, got " + std::to_string(g.sets));
    if (g.ways != 0 && (g.ways < 4 || g.ways > 64))
        r.fail("unified_l1.ways", "0 (fully associative) or 4 to 64, got " + std::to_string(g.ways));
    const auto line_within = [&](const CacheGeometry& c, std::uint32_t least, std::uint32_t most, const std::string& at) {
        if (c.line_bytes < least || c.line_bytes > most)
            r.fail(at, std::to_string(least) + " to " + std::to_string(most) + " B, got " + std::to_string(c.line_bytes));
    };
    line_within(g, 64, 256, "unified_l1.line_bytes");
    line_within(a.constant.l1, 32, 128, "constant.l1.line_bytes");
    line_within(a.constant.l15, 64, 512, "constant.l15.line_bytes");
    // The probe's buffer (stages::BufferLayout) lies in device memory.
    const stages::BufferLayout layout(std::uint64_t(a.facts.l2_bytes), std::uint64_t(a.facts.global_bytes));
    if (layout.buffer_bytes > std::uint64_t(a.facts.global_bytes))
        r.fail("device.global_bytes", "smaller than the probe's buffer for this L2 (" +
                                          std::to_string(layout.buffer_bytes) + " B)");
    if (u.l1.hit_cycles >= a.l2.near.cycles) r.fail("unified_l1.hit_latency_cycles", "must be below the L2 latency");
    const double slowest_l2 = a.l2.far ? a.l2.far->cycles : a.l2.near.cycles;
    if (a.dram.latency.cycles <= slowest_l2) r.fail("dram.latency_cycles", "must exceed the L2 latencies");
    if (a.constant.described && a.constant.l15_hit.cycles < kLeastL15OverConstantL1 * a.constant.l1_hit.cycles)
        r.fail("constant.l15.hit_latency_cycles", "must be at least " + util::format_number(kLeastL15OverConstantL1) +
                                                      " times the constant L1's (" +
                                                      util::format_number(a.constant.l1_hit.cycles) + " cycles)");
    if (a.cluster && a.facts.cc_major < 9) r.fail("cluster", "clusters need compute capability 9.0 or newer");
}

}  // namespace

Architecture parse_architecture(std::string_view text, const std::string& file) {
    Json root;
    try {
        root = Json::parse(text, file);
    } catch (const util::JsonError& e) {
        throw DescriptionError(e.what());
    }
    Architecture a;
    a.file = file;
    Reader r(file, a);
    if (!root.is_object()) {
        r.fail("(top level)", "expected an object", &root);
        r.throw_if_failed();
    }
    r.only(root, "", {"schema", "name", "sources", "device", "sm_clock_khz", "timer_overhead_cycles", "unified_l1",
                      "shared", "constant", "l2", "dram", "tlb", "cluster", "links", "noise", "allowances", "notes"});
    if (const Json* s = root.find("schema"); !s || !s->is_string() || s->as_string() != kArchitectureSchema)
        r.fail("schema", "expected \"" + std::string(kArchitectureSchema) + "\"", s);
    a.name = r.text(root, "", "name", true);
    if (const Json* sources = r.object(root, "", "sources", true)) {
        if (sources->as_object().empty() || sources->as_object().size() > kMaxSources)
            r.fail("sources", "expected 1 to " + std::to_string(kMaxSources) + " sources");
        for (const auto& [key, title] : sources->as_object()) {
            const bool good_key = !key.empty() && key.size() <= 32 &&
                                  std::all_of(key.begin(), key.end(), [](char c) {
                                      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                                  });
            if (!good_key) r.fail("sources." + key, "a source key is 1 to 32 of a-z, 0-9, - and _");
            a.sources[key] = r.text(*sources, "sources", key, true);
        }
    }
    if (r.failed()) r.throw_if_failed();  // cites are checked against the sources

    if (const Json* d = r.object(root, "", "device", true)) read_device(r, *d, a);
    a.facts.name = a.name;
    a.sm_clock_khz = r.number(root, "", "sm_clock_khz", {1e4, 1e7}, double(a.facts.sm_clock_max_khz));
    a.timer_overhead_cycles = r.number(root, "", "timer_overhead_cycles", {0, 1000, false});
    if (const Json* u = r.object(root, "", "unified_l1", true)) read_unified(r, *u, a);
    if (const Json* s = r.object(root, "", "shared", true)) read_shared(r, *s, a);
    if (const Json* c = r.object(root, "", "constant", false)) {
        read_constant(r, *c, a);
    } else {
        // Not described: caches of the sizes MT4G found from Volta to Hopper answer, at the
        // unified L1's latency and halfway to near L2; no verdict is given on them.
        a.constant.described = false;
    }
    if (const Json* l = r.object(root, "", "l2", true)) read_l2(r, *l, a);
    if (const Json* d = r.object(root, "", "dram", true)) {
        r.only(*d, "dram", {"latency_cycles", "spread_cycles", "bandwidth_bytes_per_s"});
        a.dram.latency = latency(r, *d, "dram", "latency_cycles", "spread_cycles");
        a.dram.bandwidth_bytes_per_s = r.number(*d, "dram", "bandwidth_bytes_per_s", kRate);
    }
    if (const Json* t = root.find("tlb")) read_tlb(r, *t, a);
    if (const Json* c = r.object(root, "", "cluster", false)) read_cluster(r, *c, a);
    if (const Json* l = r.object(root, "", "links", false)) read_links(r, *l, a);
    if (const Json* n = r.object(root, "", "noise", false)) read_noise(r, *n, a);
    if (const Json* w = r.object(root, "", "allowances", false)) read_allowances(r, *w, a);
    if (const Json* notes = root.find("notes"); notes && (!notes->is_array() || notes->as_array().size() > kMaxListEntries))
        r.fail("notes", "expected a list of at most " + std::to_string(kMaxListEntries) + " texts", notes);
    else if (notes)
        for (std::size_t i = 0; i < notes->as_array().size(); ++i) {
            const Json& note = notes->as_array()[i];
            const bool text = note.is_string() && !note.as_string().empty() && note.as_string().size() <= kMaxText &&
                              util::is_safe_text(note.as_string());
            if (!text)
                r.fail("notes[" + std::to_string(i) + "]",
                       "expected text of 1 to " + std::to_string(kMaxText) + " bytes without control characters", &note);
        }
    if (!a.constant.described) {
        a.constant.l1_hit = {a.unified.l1.hit_cycles, 0};
        a.constant.l15_hit = {(a.unified.l1.hit_cycles + a.l2.near.cycles) / 2, 0};
    }
    if (!r.failed()) check_physics(r, a);
    r.throw_if_failed();
    return a;
}

Architecture load_architecture(const std::filesystem::path& file) {
    std::string text;
    try {
        text = util::read_input_file(file, kMaxDescriptionBytes, "architecture description");
    } catch (const util::InputFileError& e) {
        throw DescriptionError(e.what());
    }
    return parse_architecture(text, file.string());
}

}  // namespace gpu_topology::simulate
