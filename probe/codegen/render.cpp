#include "render.hpp"

#include "util/format.hpp"

#include "gpu_topology/version.hpp"
#include "model/quantities.hpp"
#include "profile/profile.hpp"
#include "version.hpp"
#include "node.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <vector>

namespace gpu_topology::render {
namespace {

// The version of the static headers a rendered header includes, which it checks: the
// package's, as the probe's is (the two cannot drift apart: the probe does not compile).
struct PackageVersion {
    int major_number, minor_number, patch_number;  // not major, minor: glibc's <sys/sysmacros.h> macros
    constexpr bool operator==(const PackageVersion&) const = default;
};
constexpr PackageVersion kStaticHeaders{GPU_TOPOLOGY_VERSION_MAJOR, GPU_TOPOLOGY_VERSION_MINOR, GPU_TOPOLOGY_VERSION_PATCH};
constexpr PackageVersion parsed_version(std::string_view text) {
    int parts[3] = {0, 0, 0}, part = 0;
    for (const char c : text) {
        if (c == '.') ++part;
        else if (part < 3) parts[part] = parts[part] * 10 + (c - '0');
    }
    return {parts[0], parts[1], parts[2]};
}
static_assert(parsed_version(kProbeVersion) == kStaticHeaders,
              "include/gpu_topology/version.hpp and probe/version.hpp must name the same package version");

using model::HeaderType;
using model::kQuantities;
using model::Quantity;
using util::Json;
using util::string_at;

// How much of a reason or a doubt a table line shows, and how a cut is marked.
constexpr std::size_t kTableTextBytes = 480;
constexpr std::string_view kCutMarker = " [...]";

std::string integer(double value) { return util::format_number(std::round(value)); }

std::string source_of(const Json& root, const RenderContext& context) {
    return context.profile_source.empty() ? string_at(root, "source") : context.profile_source;
}

// Whether the facts were not measured on this machine: any source but "measured"
// (a stored profile, a profile of the user's own chosen by path, a simulated one).
bool is_stored(const std::string& source) { return source != "measured"; }

std::string_view cxx_type(HeaderType type) {
    switch (type) {
        case HeaderType::u32: return "std::uint32_t";
        case HeaderType::u64: return "std::uint64_t";
        case HeaderType::flag: return "bool";
    }
    return "std::uint64_t";
}

std::string cxx_literal(const Quantity& q, double value) {
    switch (q.type) {
        case HeaderType::flag: return value != 0 ? "true" : "false";
        case HeaderType::u32: return integer(value) + "u";
        case HeaderType::u64: return integer(value) + "ull";
    }
    return integer(value);
}

std::string_view cxx_source(std::optional<model::Source> source) {
    return source == model::Source::api ? "source::api" : source == model::Source::derived ? "source::derived" : "source::measured";
}

// The objects of the header, in the order the list first names them.
std::vector<std::string_view> objects() {
    std::vector<std::string_view> names;
    for (const auto& q : kQuantities) {
        bool seen = false;
        for (auto n : names) seen = seen || n == q.object();
        if (!seen) names.push_back(q.object());
    }
    return names;
}

std::string macros(const Json& root) {
    std::string out;
    for (const auto& q : kQuantities) {
        const auto v = profile::read_quantity(root, q);
        const std::string name = "GPU_TOPOLOGY_" + std::string(q.name);
        if (!v.value) {
            out += "#define " + name + "_UNMEASURED 1\n";
            continue;
        }
        out += "#define " + name + " " + integer(*v.value) + "\n";
        if (v.lower_bound) out += "#define " + name + "_IS_LOWER_BOUND 1\n";
    }
    for (const auto& r : model::kRenamed) {
        const std::string old_name = "GPU_TOPOLOGY_" + std::string(r.old_name), name = "GPU_TOPOLOGY_" + std::string(r.name);
        const bool measured = profile::read_quantity(root, r.name).value.has_value();
        out += "#define " + old_name + (measured ? " " + name : "_UNMEASURED 1") + "  // deprecated: " +
               std::string(r.why) + "\n";
    }
    return out;
}

std::string facts(const Json& root) {
    std::string reasons, structs;
    for (auto object : objects()) {
        const std::string type = std::string(object) + "_facts";
        std::string members, values;
        for (const auto& q : kQuantities) {
            if (q.object() != object) continue;
            const auto v = profile::read_quantity(root, q);
            const std::string member(q.member());
            const std::string label = "  // " + std::string(q.label) + (q.unit == model::Unit::none ? "" : ", " + std::string(to_string(q.unit)));
            std::string member_type, value;
            if (v.value) {
                member_type = "known<" + std::string(cxx_type(q.type)) + ">";
                value = "{" + cxx_literal(q, *v.value) + ", " + std::string(cxx_source(v.source)) + ", " +
                        (v.lower_bound ? "true" : "false") + ", " + (v.doubt.empty() ? "true" : "false") + "}";
            } else {
                reasons += "struct " + std::string(q.name) + " {\n    static constexpr const char* reason = \"" +
                           c_string_body(v.reason) + "\";\n};\n";
                member_type = "unknown<" + std::string(cxx_type(q.type)) + ", not_measured::" + std::string(q.name) + ">";
                value = "{}";
            }
            members += "    " + member_type + " " + member + ";" + label + "\n";
            values += std::string(values.empty() ? "" : ",\n") + "    " + value;
            // The old member name, a member like the others (so device code may take it by
            // reference too): gpu_topology::l2.sector_bytes still compiles, with a warning.
            for (const auto& r : model::kRenamed)
                if (r.name == q.name) {
                    members += "    [[deprecated(\"" + std::string(r.why) + "\")]] " + member_type + " " +
                               std::string(r.old_path.substr(r.old_path.rfind('.') + 1)) + ";\n";
                    values += ",\n    " + value;
                }
        }
        const std::string definition = "GPU_TOPOLOGY_FACT " + type + " " + std::string(object) + "{\n" + values + "};\n";
        // Initialising a deprecated member is no use of it: clang would warn (an error under -Werror).
        const bool renamed = members.find("[[deprecated") != std::string::npos;
        structs += "struct " + type + " {\n" + members + "};\n" +
                   (renamed ? "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic push\n"
                              "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n#endif\n" + definition +
                                  "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n"
                            : definition) +
                   "\n";
    }
    return "// Why each unknown fact is unknown.\nnamespace not_measured {\n" + reasons + "}  // namespace not_measured\n\n" +
           structs;
}

// The measured L1 sizes per launch (caches.l1.carveouts), as a table of
// gpu_topology::l1_at_launch rows (gpu_topology/types.hpp) that l1_bytes_at reads.
std::string carveouts(const Json& root) {
    std::string rows;
    std::size_t count = 0;
    if (const Json* table = root.at_path("caches.l1.carveouts"); table && table->is_array()) {
        for (const auto& row : table->as_array()) {
            const Json* size = row.find("size_bytes");
            if (!size || !size->is_number()) continue;
            const auto kernel = profile::kernel_of(row);
            // A trailing comma is allowed, and leaves room for the comment.
            rows += "    {" + integer(row.find("carveout_percent")->as_number()) + ", " +
                    integer(row.find("threads_per_block")->as_number()) + "u, " +
                    std::to_string(kernel.shared_bytes_per_block) + "u, " +
                    integer(row.find("resident_blocks")->as_number()) + "u, " + integer(size->as_number()) +
                    "ull},  // " + kernel.kind + "\n";
            ++count;
        }
    }
    const std::string counted = "inline constexpr std::size_t l1_launch_count = " + std::to_string(count) + ";\n";
    if (!count)
        return counted + "// The L1 per launch was not measured: l1_bytes_at() answers for no launch.\n"
                         "GPU_TOPOLOGY_FACT const l1_at_launch* l1_launches = nullptr;\n";
    return counted + "GPU_TOPOLOGY_FACT l1_at_launch l1_launches[] = {\n" + rows + "};\n";
}

std::map<std::string, std::string> substitutions(const Json& document, const RenderContext& context) {
    const Json root = facts_of(document);
    const std::string source = source_of(root, context);
    const auto fact = [&](model::QuantityId q) {
        const auto v = profile::read_quantity(root, kQuantities[q]);
        return v.value ? integer(*v.value) : std::string("0");
    };
    return {{"SCHEMA", std::string(model::kSchema)},
            {"VERSION", std::string(kProbeVersion)},
            {"VERSION_MAJOR", std::to_string(kStaticHeaders.major_number)},
            {"VERSION_MINOR", std::to_string(kStaticHeaders.minor_number)},
            {"PROBE_VERSION", c_string_body(string_at(root, "probe.version"))},
            {"DEVICE_NAME", c_string_body(string_at(root, "device.name"))},
            {"DEVICE_UUID", c_string_body(string_at(root, "device.uuid"))},
            {"CC_MAJOR", fact(model::kCcMajor)},
            {"CC_MINOR", fact(model::kCcMinor)},
            {"SM_COUNT", fact(model::kSmCount)},
            {"PROFILE_SOURCE", c_string_body(source)},
            {"PROFILE_HASH", c_string_body(context.profile_hash)},
            {"PROFILE_IS_STORED", is_stored(source) ? "1" : "0"},
            {"MACROS", macros(root)},
            {"FACTS", facts(root)},
            {"CARVEOUTS", carveouts(root)},
            {"NODE", node_section(document)}};
}

// The template with every @KEY@ replaced by values[KEY].
std::string filled(std::string_view header_template, const std::map<std::string, std::string>& values) {
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

// The table's sizes and rates carry a digit more than the pictures' (27.25 MiB).
constexpr int kTableDigits = 4;

std::string human(double value, model::Unit unit) {
    if (unit == model::Unit::bytes) return util::format_bytes(value, kTableDigits);
    if (unit == model::Unit::bytes_per_s) return util::format_bandwidth(value, kTableDigits);
    if (unit == model::Unit::flag) return value != 0 ? "yes" : "no";
    if (unit == model::Unit::khz) return util::format_fixed(value / 1000, 0) + " MHz";
    if (unit == model::Unit::none) return util::format_fixed(value, 0);
    return util::format_fixed(value, 0) + " " + std::string(to_string(unit));
}

// `text` followed by spaces up to `width` characters (not bytes: a label may hold UTF-8).
std::string padded(std::string text, std::size_t width) {
    std::size_t characters = 0;
    for (const char c : text) characters += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    if (characters < width) text.append(width - characters, ' ');
    return text;
}

// One line of the table. A reason or a doubt may hold 4096 bytes: each is cut
// at a character boundary and marked, so a line stays a line (no glued
// neighbour) and stays UTF-8 (the CMake summary quotes it).
std::string table_line(const Json& root, const Quantity& q) {
    const auto v = profile::read_quantity(root, q);
    const auto cut = [](const std::string& text) { return util::clip(text, kTableTextBytes, kCutMarker); };
    std::string value = v.value ? human(*v.value, q.unit) : "not measured (" + cut(v.reason) + ")";
    if (v.lower_bound) value = "at least " + value;
    if (v.value && q.shape == model::Shape::latency) {
        const Json* ns = root.at_path(std::string(q.path) + ".p50_ns");
        if (ns && ns->is_number()) value += " (" + integer(ns->as_number()) + " ns)";
    }
    std::string origin = v.value && v.source ? std::string(to_string(*v.source)) : "";
    if (!v.doubt.empty()) origin += ", NOT VOUCHED FOR: " + cut(v.doubt);
    return "  " + padded(std::string(q.label), 44) + " " + padded(value, 22) + " " + origin + "\n";
}

}  // namespace

std::string c_string_body(std::string_view text) {
    if (!util::is_safe_text(text)) throw std::invalid_argument("text with control characters cannot be rendered");
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\' || c == '?') {  // '?': no trigraph can form in C
            out += '\\';
            out += ch;
        } else if (c >= 0x80) {  // octal escapes end after three digits, unlike \x
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\%03o", c);
            out += escaped;
        } else {
            out += ch;
        }
    }
    return out;
}

std::string cmake_quoted_body(std::string_view text) {
    if (!util::is_safe_text(text)) throw std::invalid_argument("text with control characters cannot be rendered");
    std::string out;
    for (const char c : text) {
        // In a quoted argument `\;` would keep its backslash; a plain `;` stays one argument.
        if (c == '"' || c == '\\' || c == '$' || c == '@') out += '\\';
        out += c;
    }
    return out;
}

std::string render_header(const Json& document, const RenderContext& context, std::string_view header_template) {
    auto values = substitutions(document, context);
    // The facts' namespace is named for everything else the header says (facts, identity, source,
    // the version of the helpers that open it): headers that differ in anything never share a
    // definition, and two copies of one header share identical ones.
    values["PROFILE_NS"] = "";
    const std::string hash = profile::content_hash(filled(header_template, values));
    values["PROFILE_NS"] = "p_" + hash.substr(hash.find(':') + 1);
    return filled(header_template, values);
}

std::string render_cmake(const Json& document, const RenderContext& context) {
    const Json root = facts_of(document);
    const auto quoted = [](std::string_view text) { return "\"" + cmake_quoted_body(text) + "\""; };
    std::string out = "# Generated by gpu-topology-probe from a profile. Do not edit.\n";
    out += "set(GPU_TOPOLOGY_DEVICE_NAME " + quoted(string_at(root, "device.name")) + ")\n";
    out += "set(GPU_TOPOLOGY_DEVICE_UUID " + quoted(string_at(root, "device.uuid")) + ")\n";
    out += "set(GPU_TOPOLOGY_PROFILE_SOURCE " + quoted(source_of(root, context)) + ")\n";
    out += "set(GPU_TOPOLOGY_PROFILE_HASH " + quoted(context.profile_hash) + ")\n";
    std::string names, doubts;
    for (const auto& q : kQuantities) {
        const auto v = profile::read_quantity(root, q);
        const std::string name = "GPU_TOPOLOGY_" + std::string(q.name);
        names += (names.empty() ? "" : ";") + std::string(q.name);
        if (!v.value) {
            out += "set(" + name + "_UNMEASURED " + quoted(v.reason) + ")\n";
            continue;
        }
        out += "set(" + name + " " + integer(*v.value) + ")\n";
        if (v.lower_bound) out += "set(" + name + "_IS_LOWER_BOUND TRUE)\n";
        if (!v.doubt.empty()) {
            out += "set(" + name + "_DOUBT " + quoted(v.doubt) + ")\n";
            doubts += (doubts.empty() ? "" : ";") + std::string(q.name);
        }
    }
    out += "set(GPU_TOPOLOGY_QUANTITIES \"" + names + "\")\n";
    // Old names of renamed quantities: their variables, and OLD=NEW pairs for gpu_topology_get/_require.
    std::string renamed;
    for (const auto& r : model::kRenamed) {
        const auto v = profile::read_quantity(root, r.name);
        const std::string old_name = "GPU_TOPOLOGY_" + std::string(r.old_name);
        out += v.value ? "set(" + old_name + " " + integer(*v.value) + ")  # deprecated: " + std::string(r.why) + "\n"
                       : "set(" + old_name + "_UNMEASURED " + quoted(v.reason) + ")\n";
        renamed += (renamed.empty() ? "" : ";") + std::string(r.old_name) + "=" + std::string(r.name);
    }
    out += "set(GPU_TOPOLOGY_RENAMED \"" + renamed + "\")\n";
    out += "set(GPU_TOPOLOGY_NOT_VOUCHED_FOR \"" + doubts + "\")\n";
    const Json* quiet = root.at_path("conditions.quiet");
    out += std::string("set(GPU_TOPOLOGY_CONDITIONS_QUIET ") + (quiet && quiet->is_bool() && !quiet->as_bool() ? "FALSE" : "TRUE") + ")\n";
    // The headline a configure prints when it copies a pre-rendered header (lines joined by CMake's \n).
    std::string summary;
    const std::string table = render_table(document, context, false);
    for (std::size_t begin = 0; begin < table.size();) {
        const auto end = std::min(table.find('\n', begin), table.size());
        summary += (summary.empty() ? "" : "\\n") + cmake_quoted_body(table.substr(begin, end - begin));
        begin = end + 1;
    }
    out += "set(GPU_TOPOLOGY_SUMMARY \"" + summary + "\")\n";
    out += node_cmake(document);
    return out;
}

std::string render_table(const Json& document, const RenderContext& context, bool full) {
    std::string out = node_table(document, full);
    Json root;
    try {
        root = facts_of(document);
    } catch (const std::invalid_argument& e) {  // a table still shows such a node: device 0, and why
        out += std::string(e.what()) + "\nDevice 0:\n";
        root = document.find("devices")->as_array().front();
    }
    const auto fact = [&](model::QuantityId q) {
        const auto v = profile::read_quantity(root, kQuantities[q]);
        return v.value ? integer(*v.value) : std::string("?");
    };
    out += string_at(root, "device.name") + " (" + string_at(root, "device.uuid") + "), cc " + fact(model::kCcMajor) +
           "." + fact(model::kCcMinor) + ", " + fact(model::kSmCount) + " SMs, profile " + source_of(root, context) +
           "\n";
    if (full) {
        for (const auto& q : kQuantities) out += table_line(root, q);
        return out;
    }
    std::size_t unmeasured = 0;
    for (model::QuantityId i = 0; i < kQuantities.size(); ++i) {
        const auto v = profile::read_quantity(root, kQuantities[i]);
        unmeasured += !v.value;
        const bool headline = std::find(model::kHeadline.begin(), model::kHeadline.end(), i) != model::kHeadline.end();
        if (headline || !v.doubt.empty()) out += table_line(root, kQuantities[i]);
    }
    out += "  " + std::to_string(kQuantities.size() - unmeasured) + " of " + std::to_string(kQuantities.size()) +
           " quantities known";
    if (unmeasured) out += ", " + std::to_string(unmeasured) + " unmeasured";
    out += " (the whole table: cmake --log-level=VERBOSE, or gpu-topology-probe show)\n";
    return out;
}

std::string render_quantity_docs() {
    std::string out =
        "# Quantities\n\n"
        "Generated by `gpu-topology-probe docs` from `probe/model/quantities.hpp` (the regenerate target writes it);\n"
        "the test `header.generated_is_current` fails when this file and the list differ. Each name is the header macro `GPU_TOPOLOGY_<NAME>`, the CMake\n"
        "variable of the same name and a key of `gpu_topology_require()`; the header member is\n"
        "`gpu_topology::<object>.<member>`.\n\n"
        "| name | header | profile path | unit | rule | stage | what |\n|---|---|---|---|---|---|---|\n";
    for (const auto& q : kQuantities) {
        std::string rule = "[" + util::format_number(q.rule.min) + ", " + util::format_number(q.rule.max) + "]";
        if (q.rule.power_of_two) rule += ", power of two";
        out += "| `" + std::string(q.name) + "` | `" + std::string(q.object()) + "." + std::string(q.member()) + "` (" +
               std::string(cxx_type(q.type)) + ") | `" + std::string(q.path) + "` | " + std::string(to_string(q.unit)) + " | " +
               rule + " | " + std::string(q.stage) + " | " + std::string(q.label) + " |\n";
    }
    out += "\n## Relations\n\nChecked whenever the values they name are known; a profile that breaks one is refused.\n\n";
    for (const auto& r : model::kRelations)
        out += "- `" + std::string(r.smaller) + "` " + (r.strict ? "<" : "≤") + " `" + std::string(r.larger) + "`" +
               (r.plus.empty() ? "" : " + `" + std::string(r.plus) + "`") + ": " + std::string(r.why) + "\n";
    for (const auto& d : model::kDifferences)
        out += "- `" + std::string(d.difference) + "` = `" + std::string(d.minuend) + "` − `" + std::string(d.subtrahend) +
               "` (within " + util::format_number(d.tolerance) + "): " + std::string(d.why) + "\n";
    return out;
}

}  // namespace gpu_topology::render
