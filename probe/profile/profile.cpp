#include "profile.hpp"

#include "model/topology.hpp"
#include "util/input_file.hpp"
#include "physical.hpp"
#include "schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpu_topology::profile {

using util::InputFileError;
using util::JsonError;
using util::excerpt;
using util::format_number;
using util::is_safe_text;
using util::printable;
using util::read_input_file;
using util::string_at;

using model::kQuantities;
using model::Quantity;
using model::Shape;

Value read_quantity(const Json& profile, const Quantity& q) {
    Value v;
    const Json* node = profile.at_path(q.path);
    if (q.shape == Shape::fact) {
        if (node && node->is_number()) v.value = node->as_number(), v.source = model::Source::api;
        else v.reason = "absent from the profile";
        return v;
    }
    if (!node || !node->is_object()) {
        const Json* version = profile.at_path("probe.version");
        v.reason = "not in this profile: the probe that wrote it" +
                   (version && version->is_string() ? " (version " + version->as_string() + ")" : std::string()) +
                   " did not measure this quantity";
        return v;
    }
    const auto text = [&](const char* key) {
        const Json* s = node->find(key);
        return s && s->is_string() ? s->as_string() : std::string{};
    };
    v.source = model::source_from(text("source"));  // "unmeasured" (or anything else): none
    v.reason = text("reason");
    v.doubt = text("doubt");
    if (const Json* c = node->find("confidence"); c && c->is_number()) v.confidence = c->as_number();
    const Json* number = node->find(q.shape == Shape::latency ? "p50" : "value");
    if (v.source && number && number->is_number()) v.value = number->as_number();
    v.lower_bound = text("bound") == "lower";
    return v;
}

Value read_quantity(const Json& profile, std::string_view name) {
    const auto i = model::find(name);
    if (i == kQuantities.size()) throw std::out_of_range("no quantity named " + std::string(name));
    return read_quantity(profile, kQuantities[i]);
}

namespace {

bool is_integer(double v) { return std::isfinite(v) && v == std::floor(v); }
bool is_power_of_two(double v) {
    if (!is_integer(v) || v < 1 || v > 9.007199254740992e15) return false;
    const auto n = static_cast<unsigned long long>(v);
    return (n & (n - 1)) == 0;
}

class Validator {
public:
    Validator(const Json& root, Problems& problems, const std::string& prefix)
        : root_(root), problems_(problems), prefix_(prefix) {}

    void add(const std::string& problem) { problems_.add(prefix_ + problem); }
    void fail(std::string_view path, const std::string& what, const Json* value) {
        if (problems_.full()) return problems_.add({});  // counted; describing it (excerpt) is not free
        add(std::string(path) + ": " + what + " (" + excerpt(value) + ")");
    }
    const Json* require(std::string_view path, std::string_view type) {
        const Json* node = root_.at_path(path);
        if (!node) {
            add(std::string(path) + ": missing");
            return nullptr;
        }
        if (node->type_name() != type) {
            fail(path, "expected " + std::string(type) + ", got " + std::string(node->type_name()), node);
            return nullptr;
        }
        return node;
    }
    void string_field(std::string_view path, bool non_empty = true) {
        if (const auto* s = require(path, "string"); s && non_empty && s->as_string().empty())
            fail(path, "must not be empty", s);
    }
    // Every string of the document, keys included, is safe text of bounded length;
    // every list holds at most kMaxListEntries.
    void strings(const Json& node, const std::string& path) {
        if (node.is_string()) {
            if (!is_safe_text(node.as_string()))
                fail(path, "control characters or invalid UTF-8 are not allowed in profile text", &node);
            else if (node.as_string().size() > kMaxTextBytes)
                fail(path, "text longer than " + std::to_string(kMaxTextBytes) + " bytes", &node);
        } else if (node.is_array()) {
            if (node.as_array().size() > kMaxListEntries)
                return fail(path.empty() ? "(document)" : path,
                            std::to_string(node.as_array().size()) + " entries, more than the " +
                                std::to_string(kMaxListEntries) + " any list of a profile holds",
                            &node);
            for (std::size_t i = 0; i < node.as_array().size(); ++i)
                strings(node.as_array()[i], path + "[" + std::to_string(i) + "]");
        } else if (node.is_object()) {
            for (const auto& [key, value] : node.as_object()) {
                // Keys are quoted escaped: a key is input, and an error message goes to a terminal.
                const std::string at = (path.empty() ? "" : path + ".") + printable(key);
                if (!is_safe_text(key)) fail(at, "control characters or invalid UTF-8 in a key", nullptr);
                else if (key.size() > util::kMaxKeyBytes) fail(at, "key longer than " + std::to_string(util::kMaxKeyBytes) + " bytes", nullptr);
                strings(value, at);
            }
        }
    }
    // A number that fits the quantity's rule and header type.
    void number(const std::string& path, const Json* n, const Quantity& q) {
        if (!n || !n->is_number()) return fail(path, "expected number, got " + std::string(n ? n->type_name() : "nothing"), n);
        const double v = n->as_number();
        const double type_max = q.type == model::HeaderType::u64 ? model::kMaxExactU64
                                : q.type == model::HeaderType::flag ? 1.0 : model::kMaxU32;
        if (!std::isfinite(v) || v < q.rule.min || v > std::min(q.rule.max, type_max))
            return fail(path, "must lie in [" + format_number(q.rule.min) + ", " +
                                  format_number(std::min(q.rule.max, type_max)) + "]", n);
        if (model::is_whole(q.unit) && !is_integer(v)) return fail(path, "must be a whole number", n);
        if (q.rule.power_of_two && !is_power_of_two(v)) fail(path, "must be a power of two", n);
    }
    void quantity(const Quantity& q) {
        if (!is_section(root_, q.path.substr(0, q.path.rfind('.')))) return;  // named by check_sections
        if (q.shape == Shape::fact) {
            number(std::string(q.path), root_.at_path(q.path), q);
            return;
        }
        // A quantity newer than the probe that wrote the profile is not in it, and
        // reads as unmeasured (read_quantity): adding one to the list (with its
        // version in model::kAddedSince) leaves every stored and cached profile
        // valid. From a probe that writes it, it must be there.
        if (!root_.at_path(q.path)) {
            if (written_by_ && *written_by_ >= first_holding(q))
                add(std::string(q.path) + ": missing (probe " + string_at(root_, "probe.version") +
                    " writes every quantity it knows, measured or marked unmeasured with a reason)");
            return;
        }
        const Json* node = require(q.path, "object");
        if (!node) return;
        const std::string p(q.path);
        const Json* unit = node->find("unit");
        if (!unit || !unit->is_string() || unit->as_string() != to_string(q.unit))
            fail(p + ".unit", "expected \"" + std::string(to_string(q.unit)) + "\"", unit);
        const Json* source = node->find("source");
        const std::string s = source && source->is_string() ? source->as_string() : "";
        if (s == "unmeasured") {
            const Json* reason = node->find("reason");
            if (!reason || !reason->is_string() || reason->as_string().empty())
                fail(p + ".reason", "an unmeasured value must say why", reason);
            if (const Json* value = node->find("value"); value && !value->is_null())
                fail(p + ".value", "an unmeasured value must be null", value);
            return;
        }
        if (s != "api" && s != "measured" && s != "derived")
            return fail(p + ".source", "expected one of api, measured, derived, unmeasured", source);
        if (q.shape == Shape::latency) {
            latency(p, *node, q);
        } else {
            number(p + ".value", node->find("value"), q);
            spread(p, *node);
        }
        if (s != "api") {
            string_field(p + ".method");
            if (const auto* c = require(p + ".confidence", "number"); c && !(c->as_number() >= 0 && c->as_number() <= 1))
                fail(p + ".confidence", "must lie in [0, 1]", c);
        }
        if (const Json* bound = node->find("bound")) {
            if (!bound->is_string() || bound->as_string() != "lower") fail(p + ".bound", "expected \"lower\"", bound);
            const Json* reason = node->find("reason");
            if (!reason || !reason->is_string() || reason->as_string().empty())
                fail(p + ".reason", "a bound must say what hides the value", reason);
        }
        if (const Json* doubt = node->find("doubt"); doubt && (!doubt->is_string() || doubt->as_string().empty()))
            fail(p + ".doubt", "expected the reason the value is not vouched for", doubt);
    }
    // The repeats a value is the median of: the value lies within them.
    void spread(const std::string& p, const Json& node) {
        const Json* spread = node.find("spread");
        if (!spread) return;
        if (!spread->is_object()) return fail(p + ".spread", "expected object", spread);
        const Json* lo = spread->find("min");
        const Json* hi = spread->find("max");
        const Json* value = node.find("value");
        whole(p + ".spread.repeats", spread->find("repeats"), 1, 1e6);
        if (!lo || !hi || !lo->is_number() || !hi->is_number() || !value || !value->is_number() ||
            !(lo->as_number() <= value->as_number() && value->as_number() <= hi->as_number()))
            fail(p + ".spread", "expected min <= value <= max, the range of the repeats", spread);
    }
    void latency(const std::string& p, const Json& node, const Quantity& q) {
        number(p + ".p50", node.find("p50"), q);
        for (const char* f : {"p05", "mean", "p95"}) {
            const Json* n = node.find(f);
            if (!n || !n->is_number() || !(n->as_number() >= 0 && n->as_number() <= q.rule.max))
                fail(p + "." + f, "expected a number in [0, " + format_number(q.rule.max) + "]", n);
        }
        if (const Json* ns = node.find("p50_ns"); ns && (!ns->is_number() || !(ns->as_number() >= 0)))
            fail(p + ".p50_ns", "expected nanoseconds, a number of at least 0", ns);
        const Json* samples = node.find("samples");
        if (!samples || !samples->is_number() || !is_integer(samples->as_number()) || samples->as_number() < 1)
            fail(p + ".samples", "expected a whole number of samples, at least 1", samples);
        const auto* p05 = node.find("p05");
        const auto* p50 = node.find("p50");
        const auto* p95 = node.find("p95");
        if (p05 && p50 && p95 && p05->is_number() && p50->is_number() && p95->is_number() &&
            !(p05->as_number() <= p50->as_number() && p50->as_number() <= p95->as_number()))
            add(p + ": percentiles out of order (p05 " + excerpt(p05) + ", p50 " + excerpt(p50) + ", p95 " + excerpt(p95) +
                ")");
    }
    void carveouts() {
        const Json* rows = root_.at_path("caches.l1.carveouts");
        if (!rows) return;
        if (!rows->is_array()) return fail("caches.l1.carveouts", "expected array", rows);
        if (rows->as_array().size() > kMaxListEntries) return;  // named by strings()
        for (std::size_t i = 0; i < rows->as_array().size() && !problems_.full(); ++i) {  // the rest: only counted
            const Json& row = rows->as_array()[i];
            const std::string at = "caches.l1.carveouts[" + std::to_string(i) + "]";
            if (!row.is_object()) {
                fail(at, "expected object", &row);
                continue;
            }
            whole(at + ".carveout_percent", row.find("carveout_percent"), -1, 100);
            whole(at + ".threads_per_block", row.find("threads_per_block"), 1, 1024);
            kernel_of_row(at, row);
            whole(at + ".resident_blocks", row.find("resident_blocks"), 0, 1024);
            const Json* size = row.find("size_bytes");
            if (size && size->is_null()) {
                const Json* reason = row.find("reason");
                if (!reason || !reason->is_string() || reason->as_string().empty())
                    fail(at + ".reason", "an unmeasured size must say why", reason);
            } else {
                whole(at + ".size_bytes", size, 1, model::kMaxU32);
            }
        }
    }
    // Which kernel a row describes: both fields, or neither (probe 1.0's rows).
    void kernel_of_row(const std::string& at, const Json& row) {
        const Json* kind = row.find("kernel_shared");
        const Json* bytes = row.find("shared_bytes_per_block");
        if (!kind && !bytes) return;
        if (!kind || !bytes) return fail(at, "kernel_shared and shared_bytes_per_block come together", kind ? kind : bytes);
        const auto parsed = kind->is_string() ? model::kernel_shared_from(kind->as_string()) : std::nullopt;
        if (!parsed) return fail(at + ".kernel_shared", "expected \"none\", \"static\" or \"dynamic\"", kind);
        whole(at + ".shared_bytes_per_block", bytes, 0, kMaxSharedBytesPerBlock);
        if (bytes->is_number() && (bytes->as_number() == 0) != (*parsed == model::KernelShared::none))
            fail(at + ".shared_bytes_per_block", "a kernel declares shared memory unless its kernel_shared is \"none\"",
                 bytes);
    }
    // Whether the GPU was the probe's alone: the header's and the configure's
    // warnings rest on `quiet`, so it must be a boolean ("no" is no answer).
    void conditions() {
        if (!require("conditions", "object")) return;
        require("conditions.quiet", "boolean");
        require("conditions.monitor", "string");
        if (const Json* events = require("conditions.events", "array"); events && events->as_array().size() <= kMaxListEntries)
            for (std::size_t i = 0; i < events->as_array().size(); ++i)
                if (!events->as_array()[i].is_string())
                    fail("conditions.events[" + std::to_string(i) + "]", "expected string", &events->as_array()[i]);
        whole("conditions.retries", root_.at_path("conditions.retries"), 0, 1000);
        const Json* seconds = root_.at_path("conditions.reference_work_seconds");
        if (seconds && (!seconds->is_number() || !(seconds->as_number() > 0 && seconds->as_number() <= 60)))
            fail("conditions.reference_work_seconds", "expected seconds in (0, 60]", seconds);
    }
    // A profile is what the probe measured, or simulated on a described GPU
    // ("simulated:<description>"); "stored:<name>" (the package's) and "file:<name>"
    // (one chosen by path) are what CMake says of one it did not measure here
    // (render --source), never the profile's own claim.
    void source() {
        const Json* s = require("source", "string");
        if (!s) return;
        const std::string& text = s->as_string();
        const bool simulated = text.rfind("simulated:", 0) == 0 && text.size() > 10;
        if (text != "measured" && !simulated)
            fail("source", "expected \"measured\" or \"simulated:<description>\" (a stored profile is named stored:<file> by the configure that uses it)", s);
    }
    // The hierarchy curve: [footprint, p50 cycles] pairs in ascending footprint,
    // and [last before, first after] footprint pairs of its change points.
    void curve() {
        const Json* curve = root_.at_path("curve");
        if (!curve) return;
        if (!curve->is_object()) return fail("curve", "expected object", curve);
        string_field("curve.path");
        pairs("curve.points", curve->find("points"), model::kMaxExactU64, 1e6, true);
        pairs("curve.change_points", curve->find("change_points"), model::kMaxExactU64, model::kMaxExactU64, false);
    }
    void pairs(const std::string& at, const Json* list, double max_first, double max_second, bool ascending) {
        if (!list || !list->is_array()) return fail(at, "expected array", list);
        if (list->as_array().size() > kMaxListEntries) return;  // named by strings()
        double previous = -1;
        for (std::size_t i = 0; i < list->as_array().size(); ++i) {
            const Json& pair = list->as_array()[i];
            const std::string here = at + "[" + std::to_string(i) + "]";
            if (!pair.is_array() || pair.as_array().size() != 2) {
                fail(here, "expected [footprint bytes, number]", &pair);
                continue;
            }
            const Json& first = pair.as_array()[0];
            const Json& second = pair.as_array()[1];
            whole(here + "[0]", &first, 0, max_first);
            if (!second.is_number() || !(second.as_number() >= 0 && second.as_number() <= max_second))
                fail(here + "[1]", "expected a number in [0, " + format_number(max_second) + "]", &second);
            if (ascending && first.is_number() && !(first.as_number() > previous))
                fail(here + "[0]", "footprints must ascend", &first);
            if (first.is_number()) previous = first.as_number();
        }
    }
    // The probe that wrote the profile: which quantities it must hold follows from its version.
    void version() {
        if (!require("probe", "object")) return;
        const Json* v = require("probe.version", "string");
        if (!v) return;
        written_by_ = parse_version(v->as_string());
        if (!written_by_) fail("probe.version", "expected a version, three whole numbers such as 1.2.1", v);
    }
    const std::optional<ProbeVersion>& written_by() const { return written_by_; }
    // Which device: its name, uuid and index (a device section of another type is named by check_sections).
    void device() {
        if (!is_section(root_, "device")) return;
        string_field("device.name");
        string_field("device.uuid");
        whole("device.index", root_.at_path("device.index"), 0, kMaxDeviceIndex);
    }
    // What each measurement was checked against: a list of objects.
    void cross_checks() {
        const Json* checks = root_.find("cross_checks");
        if (!checks) return;
        if (!checks->is_array()) return fail("cross_checks", "expected array", checks);
        if (checks->as_array().size() > kMaxListEntries) return;  // named by strings()
        for (std::size_t i = 0; i < checks->as_array().size() && !problems_.full(); ++i)
            if (!checks->as_array()[i].is_object())
                fail("cross_checks[" + std::to_string(i) + "]", "expected object", &checks->as_array()[i]);
    }
    void whole(const std::string& path, const Json* n, double min, double max) {
        if (!n || !n->is_number() || !is_integer(n->as_number()) || n->as_number() < min || n->as_number() > max)
            fail(path, "expected a whole number in [" + format_number(min) + ", " + format_number(max) + "]", n);
    }

private:
    const Json& root_;
    Problems& problems_;
    const std::string& prefix_;
    std::optional<ProbeVersion> written_by_;
};

}  // namespace

void Problems::add(std::string problem) {
    if (full()) ++unlisted_;
    else listed_.push_back(std::move(problem));
}

std::vector<std::string> Problems::list() const {
    auto all = listed_;
    if (unlisted_)
        all.push_back("... and " + std::to_string(unlisted_) + " more problems (the first " +
                      std::to_string(kMaxListedProblems) + " are listed)");
    return all;
}

void validate(const Json& profile, Problems& problems, const std::string& prefix) {
    if (!profile.is_object())
        return problems.add(prefix + "(document): expected a JSON object, got " + std::string(profile.type_name()));
    const std::size_t before = problems.count();
    Validator validator(profile, problems, prefix);
    if (const auto* schema = validator.require("schema", "string"); schema && schema->as_string() != model::kSchema)
        validator.fail("schema", "unknown schema (this probe reads " + std::string(model::kSchema) + ")", schema);
    if (problems.count() != before) return;  // nothing else is meaningful in another schema

    validator.strings(profile, "");
    validator.source();
    validator.version();
    check_sections(profile, validator.written_by(), problems, prefix);
    validator.device();
    for (const auto& q : kQuantities) validator.quantity(q);
    validator.carveouts();
    validator.curve();
    validator.conditions();
    validator.cross_checks();
    if (problems.count() != before) return;
    physical_errors(profile, problems, prefix);  // between values that are each valid
}

std::vector<std::string> validate(const Json& profile) {
    Problems problems;
    validate(profile, problems, "");
    return problems.list();
}

RowKernel kernel_of(const Json& row) {
    const Json* kind = row.find("kernel_shared");
    const Json* bytes = row.find("shared_bytes_per_block");
    if (!kind || !bytes || !kind->is_string() || !bytes->is_number())
        return {std::string(model::to_string(model::KernelShared::fixed)), model::kProbe10KernelSharedBytes};
    // Validation refuses other kinds; a name that reaches the header is one of the three.
    const auto parsed = model::kernel_shared_from(kind->as_string());
    return {parsed ? std::string(model::to_string(*parsed)) : std::string("unknown"),
            static_cast<std::uint32_t>(std::clamp(bytes->as_number(), 0.0, kMaxSharedBytesPerBlock))};
}

namespace {
// A member an older probe wrote under a name since changed (model::kRenamed)
// takes the new name where it stands, unless the new one is there too.
void read_old_names(Json& profile, const std::string& prefix, RenamedFields& renamed) {
    if (!profile.is_object()) return;
    for (const auto& r : model::kRenamed) {
        const auto dot = r.old_path.rfind('.');
        const Json* parent = profile.at_path(r.old_path.substr(0, dot));
        if (!parent || !parent->is_object()) continue;
        const auto& quantity = kQuantities[model::find(r.name)];
        if (parent->find(quantity.member())) continue;
        for (auto& [key, value] : profile.path_to(r.old_path.substr(0, dot)).as_object())
            if (key == r.old_path.substr(dot + 1)) {
                key = std::string(quantity.member());
                renamed.push_back({prefix + std::string(quantity.path), prefix + std::string(r.old_path)});
            }
    }
}
}  // namespace

Json parse_profile_text(std::string_view text, const std::string& source, RenamedFields* renamed) {
    RenamedFields ignored;
    RenamedFields& out = renamed ? *renamed : ignored;
    Json document;
    try {
        document = Json::parse(text, source);
    } catch (const JsonError& e) {
        throw ProfileError(e.what());
    }
    read_old_names(document, "", out);
    // A node profile holds one profile per device.
    if (document.is_object() && document.find("devices") && document.find("devices")->is_array()) {
        auto& devices = document["devices"].as_array();
        for (std::size_t i = 0; i < devices.size(); ++i)
            read_old_names(devices[i], "devices[" + std::to_string(i) + "].", out);
    }
    return document;
}

void refuse_invalid(const std::vector<std::string>& errors, const std::string& source, std::string_view what,
                    const RenamedFields& renamed) {
    if (errors.empty()) return;
    std::string message = source + ": invalid " + std::string(what) + ":";
    for (const auto& e : errors) {
        message += "\n  " + e;
        // An error about a field the file wrote under its old name says so.
        for (const auto& [now, written] : renamed)
            if (e.rfind(now, 0) == 0 && (e.size() == now.size() || e[now.size()] == '.' || e[now.size()] == ':')) {
                message += " (written as " + written + ")";
                break;
            }
    }
    throw ProfileError(message);
}

Json load_profile_text(std::string_view text, const std::string& source) {
    RenamedFields renamed;
    auto document = parse_profile_text(text, source, &renamed);
    refuse_invalid(validate(document), source, "profile", renamed);
    return document;
}

std::string read_profile_bytes(const std::filesystem::path& file) {
    try {
        return read_input_file(file, kMaxProfileBytes, "profile");
    } catch (const InputFileError& e) {
        throw ProfileError(e.what());
    }
}

Json load_profile(const std::filesystem::path& file) {
    return load_profile_text(read_profile_bytes(file), file.string());
}

std::string content_hash(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char text[32];
    std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return text;
}

}  // namespace gpu_topology::profile
