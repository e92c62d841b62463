#include "render.hpp"

#include "../profile/profile.hpp"
#include "../profile/schema.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace gpu_topology::render {
namespace {

using profile::Json;

std::string string_at(const Json& root, std::string_view path) {
    const Json* node = root.at_path(path);
    return node && node->is_string() ? node->as_string() : std::string{};
}

std::string integer_at(const Json& root, std::string_view path) {
    const Json* node = root.at_path(path);
    return node && node->is_number() ? profile::format_number(std::round(node->as_number())) : "0";
}

// C string literal contents: the identity strings are ASCII, but a profile is input.
std::string c_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string source_of(const Json& root, const RenderContext& context) {
    return context.profile_source.empty() ? string_at(root, "source") : context.profile_source;
}

// "{percent, bytes}, ..." from caches.l1.carveouts; an unmeasured size is 0.
std::string carveout_table(const Json& root) {
    const Json* rows = root.at_path("caches.l1.carveouts");
    std::string table;
    if (rows && rows->is_array()) {
        for (const auto& row : rows->as_array()) {
            const Json* percent = row.find("carveout_percent");
            const Json* size = row.find("size_bytes");
            if (!percent || !percent->is_number()) continue;
            table += std::string(table.empty() ? "" : ", ") + "{" + profile::format_number(percent->as_number()) + ", " +
                     (size && size->is_number() ? profile::format_number(size->as_number()) : "0") + "}";
        }
    }
    return table.empty() ? "{-1, 0}" : table;  // no table measured: one unmeasured row
}

std::map<std::string, std::string> substitutions(const Json& root, const RenderContext& context) {
    std::map<std::string, std::string> s;
    s["SCHEMA"] = std::string(profile::kSchema);
    s["PROBE_VERSION"] = c_escape(string_at(root, "probe.version"));
    s["DEVICE_NAME"] = c_escape(string_at(root, "device.name"));
    s["DEVICE_UUID"] = c_escape(string_at(root, "device.uuid"));
    const Json* cc = root.at_path("device.cc");
    s["CC_MAJOR"] = cc ? profile::format_number(cc->as_array()[0].as_number()) : "0";
    s["CC_MINOR"] = cc ? profile::format_number(cc->as_array()[1].as_number()) : "0";
    s["SM_COUNT"] = integer_at(root, "device.sm_count");
    s["MAX_THREADS_PER_SM"] = integer_at(root, "api.max_threads_per_sm");
    s["PROFILE_SOURCE"] = c_escape(source_of(root, context));
    s["PROFILE_HASH"] = c_escape(context.profile_hash);

    std::string macros;
    for (const auto& spec : profile::kQuantities) {
        const auto v = profile::read_quantity(root, spec);
        const std::string name(spec.name);
        s[name + "_IS_LOWER_BOUND"] = v.lower_bound ? "true" : "false";
        if (v.value) {
            const std::string number = profile::format_number(std::round(*v.value));
            s[name] = number;
            macros += "#define GPU_TOPOLOGY_" + name + " " + number + "\n";
            if (v.lower_bound)
                macros += "#define GPU_TOPOLOGY_" + name + "_IS_LOWER_BOUND 1 /* " + v.reason + " */\n";
        } else {
            s[name] = "0";
            macros += "/* GPU_TOPOLOGY_" + name + ": not measured: " + v.reason + " */\n";
        }
    }
    s["MACROS"] = macros;
    s["L1_CARVEOUT_TABLE"] = carveout_table(root);
    return s;
}

std::string human(double value, std::string_view unit) {
    char text[64];
    if (unit == "bytes") {
        if (value >= 1024.0 * 1024 * 1024)
            std::snprintf(text, sizeof text, "%.1f GiB", value / (1024.0 * 1024 * 1024));
        else if (value >= 1024.0 * 1024)
            std::snprintf(text, sizeof text, "%.2f MiB", value / (1024.0 * 1024));
        else if (value >= 1024)
            std::snprintf(text, sizeof text, "%.1f KiB", value / 1024);
        else
            std::snprintf(text, sizeof text, "%.0f B", value);
    } else if (unit == "bool") {
        std::snprintf(text, sizeof text, "%s", value != 0 ? "yes" : "no");
    } else if (unit == "instances") {
        std::snprintf(text, sizeof text, "%.0f", value);
    } else if (unit == "bytes/s") {
        std::snprintf(text, sizeof text, "%.2f TB/s", value / 1e12);
    } else if (unit == "kHz") {
        std::snprintf(text, sizeof text, "%.0f MHz", value / 1000);
    } else {
        std::snprintf(text, sizeof text, "%.0f %s", value, std::string(unit).c_str());
    }
    return text;
}

}  // namespace

std::string render_header(const Json& root, const RenderContext& context, std::string_view header_template) {
    const auto values = substitutions(root, context);
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const auto open = header_template.find('@', pos);
        if (open == std::string_view::npos) break;
        const auto close = header_template.find('@', open + 1);
        if (close == std::string_view::npos) throw std::runtime_error("template: unmatched '@'");
        const std::string key(header_template.substr(open + 1, close - open - 1));
        const auto found = values.find(key);
        if (found == values.end()) throw std::runtime_error("template: unknown placeholder @" + key + "@");
        out.append(header_template.substr(pos, open - pos));
        out += found->second;
        pos = close + 1;
    }
    out.append(header_template.substr(pos));
    return out;
}

std::string render_cmake(const Json& root, const RenderContext& context) {
    // Strings in CMake bracket arguments need no escaping.
    std::string out = "# Generated by gpu-topology-probe from the profile. Do not edit.\n";
    out += "set(GPU_TOPOLOGY_DEVICE_NAME [==[" + string_at(root, "device.name") + "]==])\n";
    out += "set(GPU_TOPOLOGY_DEVICE_UUID [==[" + string_at(root, "device.uuid") + "]==])\n";
    out += "set(GPU_TOPOLOGY_PROFILE_SOURCE [==[" + source_of(root, context) + "]==])\n";
    out += "set(GPU_TOPOLOGY_PROFILE_HASH [==[" + context.profile_hash + "]==])\n";
    out += "set(GPU_TOPOLOGY_SM_COUNT " + integer_at(root, "device.sm_count") + ")\n";
    std::string names;
    for (const auto& spec : profile::kQuantities) {
        const auto v = profile::read_quantity(root, spec);
        const std::string name(spec.name);
        names += (names.empty() ? "" : ";") + name;
        if (v.value)
            out += "set(GPU_TOPOLOGY_" + name + " " + profile::format_number(std::round(*v.value)) + ")\n";
        else
            out += "set(GPU_TOPOLOGY_" + name + "_UNMEASURED [==[" + v.reason + "]==])\n";
    }
    out += "set(GPU_TOPOLOGY_QUANTITIES \"" + names + "\")\n";
    return out;
}

std::string render_table(const Json& root, const RenderContext& context) {
    std::string out;
    char line[512];
    const Json* cc = root.at_path("device.cc");
    std::snprintf(line, sizeof line, "%s (%s), cc %s.%s, %s SMs, profile %s\n", string_at(root, "device.name").c_str(),
                  string_at(root, "device.uuid").c_str(),
                  cc ? profile::format_number(cc->as_array()[0].as_number()).c_str() : "?",
                  cc ? profile::format_number(cc->as_array()[1].as_number()).c_str() : "?",
                  integer_at(root, "device.sm_count").c_str(), source_of(root, context).c_str());
    out += line;
    for (const auto& spec : profile::kQuantities) {
        const auto v = profile::read_quantity(root, spec);
        std::string value = v.value ? human(*v.value, spec.unit) : "not measured (" + v.reason + ")";
        if (v.lower_bound) value = "at least " + value;
        if (v.value && spec.kind == profile::Kind::latency) {
            const Json* ns = root.at_path(std::string(spec.path) + ".p50_ns");
            if (ns && ns->is_number()) value += " (" + profile::format_number(std::round(ns->as_number())) + " ns)";
        }
        std::snprintf(line, sizeof line, "  %-40s %-22s %s\n", std::string(spec.label).c_str(), value.c_str(),
                      v.value ? v.source.c_str() : "");
        out += line;
    }
    return out;
}

}  // namespace gpu_topology::render
