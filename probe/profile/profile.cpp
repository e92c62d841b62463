#include "profile.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

namespace gpu_topology::profile {

Json quantity(double value, std::string_view unit, std::string_view source, std::string_view method,
              double confidence) {
    Json q = Json::object();
    q["value"] = value;
    q["unit"] = unit;
    q["source"] = source;
    q["method"] = method;
    q["confidence"] = std::round(confidence * 1e4) / 1e4;
    return q;
}

Json lower_bound(double value, std::string_view unit, std::string_view method, std::string_view why) {
    Json q = quantity(value, unit, "measured", method, 1.0);
    q["bound"] = "lower";
    q["reason"] = why;
    return q;
}

Json unmeasured(std::string_view unit, std::string_view reason) {
    Json q = Json::object();
    q["value"] = nullptr;
    q["unit"] = unit;
    q["source"] = "unmeasured";
    q["reason"] = reason;
    return q;
}

Json latency(const LatencyFields& f) {
    const auto r = [](double v) { return std::round(v * 100) / 100; };
    Json l = Json::object();
    l["p05"] = r(f.p05);
    l["p50"] = r(f.p50);
    l["mean"] = r(f.mean);
    l["p95"] = r(f.p95);
    l["samples"] = f.samples;
    if (f.sm_clock_khz > 0) l["p50_ns"] = r(f.p50 / f.sm_clock_khz * 1e6);
    l["footprint_bytes"] = f.footprint_bytes;
    l["unit"] = "cycles";
    l["source"] = "measured";
    l["method"] = f.method;
    l["confidence"] = std::round(f.confidence * 1e4) / 1e4;
    return l;
}

void mark_absent_unmeasured(Json& profile, std::string_view reason,
                             const std::function<bool(std::string_view path)>& selects) {
    for (const auto& spec : kQuantities) {
        if (profile.at_path(spec.path) || (selects && !selects(spec.path))) continue;
        Json* node = &profile;
        std::string_view rest = spec.path;
        while (!rest.empty()) {
            const auto dot = rest.find('.');
            node = &(*node)[rest.substr(0, dot)];
            rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
        }
        *node = unmeasured(spec.unit, reason);
    }
}

Value read_quantity(const Json& profile, const QuantitySpec& spec) {
    Value v;
    const Json* node = profile.at_path(spec.path);
    if (!node || !node->is_object()) {
        v.source = "unmeasured";
        v.reason = "absent from the profile";
        return v;
    }
    if (const auto* s = node->find("source"); s && s->is_string()) v.source = s->as_string();
    if (const auto* r = node->find("reason"); r && r->is_string()) v.reason = r->as_string();
    const Json* number = node->find(spec.kind == Kind::latency ? "p50" : "value");
    if (v.source != "unmeasured" && number && number->is_number()) v.value = number->as_number();
    if (const auto* b = node->find("bound"); b && b->is_string()) v.lower_bound = b->as_string() == "lower";
    return v;
}

namespace {

std::string show(const Json* value) {
    if (!value) return "absent";
    auto text = value->dump(-1);
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

class Checker {
public:
    explicit Checker(const Json& root) : root_(root) {}
    std::vector<std::string> errors;

    const Json* require(std::string_view path, std::string_view type) {
        const Json* node = root_.at_path(path);
        if (!node) {
            errors.push_back(std::string(path) + ": missing");
            return nullptr;
        }
        if (node->type_name() != type) {
            errors.push_back(std::string(path) + ": expected " + std::string(type) + ", got " +
                             std::string(node->type_name()) + " (" + show(node) + ")");
            return nullptr;
        }
        return node;
    }
    void non_negative(std::string_view path) {
        if (const auto* n = require(path, "number"); n && n->as_number() < 0)
            errors.push_back(std::string(path) + ": must not be negative (" + show(n) + ")");
    }
    void check_source(std::string_view path, const Json& node, bool latency) {
        const Json* source = node.find("source");
        const std::string at = std::string(path) + ".source";
        if (!source || !source->is_string()) {
            errors.push_back(at + ": expected one of api, measured, derived, unmeasured (" + show(source) + ")");
            return;
        }
        const auto& s = source->as_string();
        if (s == "unmeasured") {
            const Json* reason = node.find("reason");
            if (!reason || !reason->is_string() || reason->as_string().empty())
                errors.push_back(std::string(path) + ".reason: an unmeasured value must say why (" + show(reason) + ")");
            return;
        }
        if (s != "api" && s != "measured" && s != "derived") {
            errors.push_back(at + ": expected one of api, measured, derived, unmeasured (" + show(source) + ")");
            return;
        }
        const std::string p(path);
        if (!latency) non_negative(p + ".value");
        if (const Json* bound = node.find("bound")) {
            if (!bound->is_string() || bound->as_string() != "lower")
                errors.push_back(p + ".bound: expected \"lower\" (" + show(bound) + ")");
            const Json* reason = node.find("reason");
            if (!reason || !reason->is_string() || reason->as_string().empty())
                errors.push_back(p + ".reason: a bound must say what hides the value (" + show(reason) + ")");
        }
        if (s != "api") {
            require(p + ".method", "string");
            if (const auto* c = require(p + ".confidence", "number");
                c && (c->as_number() < 0 || c->as_number() > 1))
                errors.push_back(p + ".confidence: must lie in [0, 1] (" + show(c) + ")");
        }
        if (latency) {
            for (const char* f : {"p05", "p50", "mean", "p95", "samples"}) non_negative(p + "." + f);
            const auto* p05 = node.find("p05");
            const auto* p50 = node.find("p50");
            const auto* p95 = node.find("p95");
            if (p05 && p50 && p95 && p05->is_number() && p50->is_number() && p95->is_number() &&
                !(p05->as_number() <= p50->as_number() && p50->as_number() <= p95->as_number()))
                errors.push_back(p + ": percentiles out of order (p05 " + show(p05) + ", p50 " + show(p50) +
                                 ", p95 " + show(p95) + ")");
        }
    }

private:
    const Json& root_;
};

}  // namespace

std::vector<std::string> validate(const Json& profile) {
    Checker check(profile);
    if (!profile.is_object()) return {"(document): expected a JSON object, got " + std::string(profile.type_name())};
    if (const auto* schema = check.require("schema", "string"); schema && schema->as_string() != kSchema)
        check.errors.push_back("schema: unknown schema " + show(schema) + " (this probe reads " + std::string(kSchema) + ")");
    if (!check.errors.empty()) return check.errors;  // nothing else is meaningful in another schema

    check.require("source", "string");
    check.require("probe.version", "string");
    check.require("device.name", "string");
    check.require("device.uuid", "string");
    if (const auto* cc = check.require("device.cc", "array")) {
        const auto& a = cc->as_array();
        if (a.size() != 2 || !a[0].is_number() || !a[1].is_number())
            check.errors.push_back("device.cc: expected [major, minor] (" + show(cc) + ")");
    }
    check.non_negative("device.sm_count");
    for (const auto& spec : kQuantities) {
        if (const auto* node = check.require(spec.path, "object"))
            check.check_source(spec.path, *node, spec.kind == Kind::latency);
    }
    return check.errors;
}

Json load_profile_text(std::string_view text, const std::string& source) {
    Json document;
    try {
        document = Json::parse(text, source);
    } catch (const JsonError& e) {
        throw ProfileError(e.what());
    }
    const auto errors = validate(document);
    if (!errors.empty()) {
        std::string message = source + ": invalid profile:";
        for (const auto& e : errors) message += "\n  " + e;
        throw ProfileError(message);
    }
    return document;
}

Json load_profile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ProfileError(file.string() + ": cannot open profile");
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return load_profile_text(text, file.string());
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
