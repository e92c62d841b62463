#include "node_profile.hpp"

#include "model/agreement.hpp"
#include "model/node.hpp"
#include "model/serialize.hpp"
#include "profile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <utility>

namespace gpu_topology::profile {

using util::clip;
using util::excerpt;
using util::format_number;
using util::is_safe_text;

using model::kLinkQuantities;

bool is_node_document(const Json& document) {
    const Json* schema = document.is_object() ? document.find("schema") : nullptr;
    return schema && schema->is_string() && schema->as_string() == model::kNodeSchema;
}

namespace {

bool whole(double v) { return std::isfinite(v) && v == std::floor(v); }

// "GPU-" or "MIG-" then hexadecimal digits and dashes: a node's UUIDs become a
// CMake list, where any other character (a ';') would change its length.
bool is_device_uuid(const std::string& uuid) {
    if (uuid.size() < 5 || uuid.size() > 64 || (uuid.rfind("GPU-", 0) != 0 && uuid.rfind("MIG-", 0) != 0)) return false;
    return std::all_of(uuid.begin() + 4, uuid.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; });
}

class NodeValidator {
public:
    Problems problems;

    void fail(const std::string& path, const std::string& what, const Json* value) {
        if (problems.full()) return problems.add({});  // counted; describing it (excerpt) is not free
        problems.add(path + ": " + what + " (" + excerpt(value) + ")");
    }
    const Json* field(const Json& object, const std::string& path, const char* key, std::string_view type) {
        const Json* node = object.find(key);
        const std::string at = path + "." + key;
        if (!node) {
            problems.add(at + ": missing");
            return nullptr;
        }
        if (node->type_name() != type) {
            fail(at, "expected " + std::string(type) + ", got " + std::string(node->type_name()), node);
            return nullptr;
        }
        return node;
    }
    std::optional<double> number(const Json& object, const std::string& path, const char* key, double min, double max,
                                 bool integer) {
        const Json* n = field(object, path, key, "number");
        if (!n) return std::nullopt;
        const double v = n->as_number();
        if (!std::isfinite(v) || v < min || v > max) {
            fail(path + "." + key, "must lie in [" + format_number(min) + ", " + format_number(max) + "]", n);
            return std::nullopt;
        }
        if (integer && !whole(v)) {
            fail(path + "." + key, "must be a whole number", n);
            return std::nullopt;
        }
        return v;
    }
    void text(const Json& object, const std::string& path, const char* key, bool non_empty) {
        const Json* s = field(object, path, key, "string");
        if (!s) return;
        if (!is_safe_text(s->as_string()) || s->as_string().size() > kMaxTextBytes)
            fail(path + "." + key, "must be text without control characters, at most " + std::to_string(kMaxTextBytes) + " bytes", s);
        else if (non_empty && s->as_string().empty())
            fail(path + "." + key, "must not be empty", s);
    }

    void probe(const Json& node) {
        const Json* probe = field(node, "(node)", "probe", "object");
        if (!probe) return;
        text(*probe, "probe", "version", true);
        for (const char* key : {"duration_s", "slowest_device_s", "links_s"}) number(*probe, "probe", key, 0, 1e6, false);
    }

    // Each device record is a whole profile; its errors are named under devices[i].
    std::size_t devices(const Json& node) {
        const Json* devices = field(node, "(node)", "devices", "array");
        if (!devices) return 0;
        const auto& list = devices->as_array();
        if (list.empty() || list.size() > model::kMaxNodeDevices) {
            fail("devices", "must list 1 to " + std::to_string(model::kMaxNodeDevices) + " devices", devices);
            return 0;
        }
        std::set<std::string> uuids;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = "devices[" + std::to_string(i) + "]";
            const std::size_t before = problems.count();
            validate(list[i], problems, at + ".");
            if (problems.count() != before) continue;
            const Json* index = list[i].at_path("device.index");
            if (!index || !index->is_number() || index->as_number() != double(i))
                fail(at + ".device.index", "must be " + std::to_string(i) + ": devices are listed in index order", index);
            const auto& uuid = list[i].at_path("device.uuid")->as_string();
            // A simulated device (source "simulated:...") has an identity no device has: SIM-<hex>.
            const bool simulated = list[i].at_path("source")->as_string().rfind("simulated:", 0) == 0 &&
                                   uuid.rfind("SIM-", 0) == 0 && is_device_uuid("GPU-" + uuid.substr(4));
            if (!is_device_uuid(uuid) && !simulated)
                fail(at + ".device.uuid", "must be a CUDA UUID: GPU- or MIG- and hexadecimal digits and dashes",
                     list[i].at_path("device.uuid"));
            else if (!uuids.insert(uuid).second)
                fail(at + ".device.uuid", "appears twice", list[i].at_path("device.uuid"));
        }
        return list.size();
    }

    void route(const Json& link, const std::string& path) {
        const Json* route = field(link, path, "route", "object");
        if (!route) return;
        const std::string at = path + ".route";
        field(*route, at, "peer_access", "boolean");
        field(*route, at, "native_atomics", "boolean");
        number(*route, at, "performance_rank", -1, 1000, true);
        number(*route, at, "nvlinks", 0, 64, true);
        if (const Json* t = field(*route, at, "transport", "string")) {
            static const std::set<std::string> kTransports{"nvlink", "nvswitch", "pcie", "unknown"};
            if (!kTransports.count(t->as_string()))
                fail(at + ".transport", "must be nvlink, nvswitch, pcie or unknown", t);
        }
        if (const Json* nominal = route->find("nominal_bytes_per_s"); !nominal || !nominal->is_null())
            number(*route, at, "nominal_bytes_per_s", 1e6, 1e14, false);
        text(*route, at, "source", true);
    }

    void value(const Json& link, const std::string& path, const model::LinkQuantity& q) {
        const std::string at = path + "." + std::string(q.member);
        const Json* v = field(link, path, std::string(q.member).c_str(), "object");
        if (!v) return;
        if (const Json* unit = field(*v, at, "unit", "string"); unit && unit->as_string() != to_string(q.unit))
            fail(at + ".unit", "must be " + std::string(to_string(q.unit)), unit);
        const Json* number_node = v->find("value");
        if (number_node && number_node->is_null()) {
            text(*v, at, "reason", true);
            return;
        }
        const auto median = number(*v, at, "value", q.min, q.max, false);
        const Json* spread = field(*v, at, "spread", "object");
        if (!spread || !median) return;
        const auto lo = number(*spread, at + ".spread", "min", q.min, q.max, false);
        const auto hi = number(*spread, at + ".spread", "max", q.min, q.max, false);
        number(*spread, at + ".spread", "repeats", 1, 1e6, true);
        if (lo && hi && !(*lo <= *median && *median <= *hi))
            fail(at + ".spread", "must bracket the value: min <= value <= max", spread);
    }

    void links(const Json& node, std::size_t device_count) {
        const Json* links = field(node, "(node)", "links", "array");
        if (!links || device_count == 0) return;  // without devices, no link can be checked (devices says why)
        std::set<std::pair<int, int>> pairs;
        const auto& list = links->as_array();
        // Counted before any is read: a file of a million links is one problem, not millions.
        if (list.size() > device_count * (device_count - 1))
            return fail("links", std::to_string(list.size()) + " links, but a node of " + std::to_string(device_count) +
                                     " devices has one for each of its " +
                                     std::to_string(device_count * (device_count - 1)) + " ordered pairs",
                        links);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = "links[" + std::to_string(i) + "]";
            if (!list[i].is_object()) {
                fail(at, "expected object", &list[i]);
                continue;
            }
            const double last = device_count == 0 ? 0 : double(device_count - 1);
            const auto from = number(list[i], at, "from", 0, last, true);
            const auto to = number(list[i], at, "to", 0, last, true);
            if (from && to && *from == *to) fail(at + ".to", "a link joins two different devices", list[i].find("to"));
            if (from && to && !pairs.insert({int(*from), int(*to)}).second)
                fail(at, "a second link from " + format_number(*from) + " to " + format_number(*to), nullptr);
            route(list[i], at);
            for (const auto& q : kLinkQuantities) value(list[i], at, q);
        }
        missing_links(*links, pairs, device_count);
    }
    // One link per ordered pair (docs/profile-schema.md): n devices have n(n-1),
    // both directions of every pair, which the header and the picture index by.
    void missing_links(const Json& links, const std::set<std::pair<int, int>>& pairs, std::size_t device_count) {
        std::string missing;
        std::size_t count = 0;
        for (std::size_t a = 0; a < device_count; ++a)
            for (std::size_t b = 0; b < device_count; ++b)
                if (a != b && !pairs.count({int(a), int(b)}) && ++count <= 8)
                    missing += (missing.empty() ? "" : ", ") + std::to_string(a) + " -> " + std::to_string(b);
        if (count)
            fail("links", "a node of " + std::to_string(device_count) + " devices has a link for each of the " +
                              std::to_string(device_count * (device_count - 1)) + " ordered pairs; " +
                              std::to_string(count) + " missing: " + missing + (count > 8 ? ", ..." : ""),
                 &links);
    }
};

}  // namespace

std::vector<std::string> validate_node(const Json& node) {
    NodeValidator validator;
    if (!is_node_document(node)) {
        const Json* schema = node.is_object() ? node.find("schema") : nullptr;
        validator.fail("schema", "not a node profile (" + std::string(model::kNodeSchema) + ")", schema);
        return validator.problems.list();
    }
    validator.probe(node);
    validator.links(node, validator.devices(node));
    return validator.problems.list();
}

Json load_any_profile_text(std::string_view text, const std::string& source) {
    RenamedFields renamed;
    auto document = parse_profile_text(text, source, &renamed);
    if (is_node_document(document)) refuse_invalid(validate_node(document), source, "node profile", renamed);
    else refuse_invalid(validate(document), source, "profile", renamed);
    return document;
}

Json load_any_profile(const std::filesystem::path& file) {
    return load_any_profile_text(read_profile_bytes(file), file.string());
}

// Profile text is at most kMaxTextBytes a string (validate): a reason joined
// from many devices is cut to fit, on a character boundary, and marked.
std::string fitted(const std::string& text) { return clip(text, kMaxTextBytes - 6, " [...]"); }

NodeFacts node_facts(const Json& document) {
    NodeFacts result;
    const auto& devices = document.find("devices")->as_array();
    const Json& first = devices.front();
    const auto device = [](std::size_t i) { return "device " + std::to_string(i); };

    // One model: the same name and every value the CUDA runtime reports.
    for (std::size_t i = 1; i < devices.size(); ++i) {
        const auto& name_a = first.at_path("device.name")->as_string();
        const auto& name_b = devices[i].at_path("device.name")->as_string();
        if (name_a != name_b) result.model_differences.push_back(device(i) + ": model " + name_b + ", device 0: " + name_a);
        for (const auto& q : model::kQuantities) {
            const auto x = read_quantity(first, q), y = read_quantity(devices[i], q);
            if (x.value && y.value && (x.source == model::Source::api || y.source == model::Source::api) && *x.value != *y.value)
                result.model_differences.push_back(device(i) + ": " + std::string(q.name) + " " + format_number(*y.value) +
                                                   ", device 0: " + format_number(*x.value) +
                                                   " (reported by the CUDA runtime)");
        }
    }
    if (!result.model_differences.empty()) return result;

    result.facts = first;
    for (const auto& q : model::kQuantities) {
        if (!model::is_remeasurable(q)) continue;
        if (!read_quantity(first, q).value) continue;               // unmeasured already
        // What any device does not vouch for, the common facts do not vouch for either.
        std::string doubts;
        std::vector<std::pair<std::size_t, double>> vouched;
        for (std::size_t i = 0; i < devices.size(); ++i) {
            const auto v = read_quantity(devices[i], q);
            if (!v.value) continue;  // unmeasured on that device: nothing to compare
            if (!v.doubt.empty()) doubts += (doubts.empty() ? "" : "; ") + device(i) + ": " + v.doubt;
            else vouched.emplace_back(i, *v.value);
        }
        if (!doubts.empty()) result.facts.path_to(q.path)["doubt"] = fitted(doubts);
        if (vouched.size() < 2) continue;
        // Every device against every other: the whole spread must lie within the tolerance of two
        // cards of one model.
        const auto [lo, hi] = std::minmax_element(vouched.begin(), vouched.end(),
                                                  [](const auto& a, const auto& b) { return a.second < b.second; });
        const double tolerance = model::agreement_tolerance(q, std::abs(lo->second), model::Cards::other_of_model);
        if (hi->second - lo->second <= tolerance) continue;
        std::string values;
        for (const auto& [i, v] : vouched) values += (values.empty() ? "" : ", ") + format_number(v) + " on " + device(i);
        const std::string why = fitted("differs between the node's devices: " + values + " (tolerance " +
                                       format_number(std::round(tolerance)) + ")");
        result.facts.path_to(q.path) = model::unmeasured_json(q, why);
        result.withheld.push_back(std::string(q.name) + ": " + why);
    }

    // Quiet only if every device was; every device's events, each naming its device.
    bool quiet = true;
    Json events = Json::array();
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (const Json* q = devices[i].at_path("conditions.quiet"); q && q->is_bool() && !q->as_bool()) quiet = false;
        if (const Json* list = devices[i].at_path("conditions.events"); list && list->is_array())
            for (const auto& e : list->as_array())
                if (e.is_string()) events.push_back(fitted(device(i) + ": " + e.as_string()));
    }
    if (result.facts.find("conditions")) {
        result.facts.path_to("conditions.quiet") = quiet;
        result.facts.path_to("conditions.events") = std::move(events);
    }
    return result;
}

}  // namespace gpu_topology::profile
