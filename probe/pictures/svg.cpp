#include "svg.hpp"

#include "model/quantities.hpp"
#include "util/atomic_file.hpp"
#include "profile/profile.hpp"
#include "svg_elements.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace gpu_topology::render {
namespace {

using model::kQuantities;
using model::Quantity;
using model::QuantityId;
using util::format_bandwidth;
using util::format_bytes;
using util::Json;
using util::string_at;
using profile::Value;
// The shared primitives (svg_elements.hpp), by name: the node picture draws with the same ones.
using svg_elements::attribute;
using svg_elements::clip;
using svg_elements::close_group;
using svg_elements::compact;
using svg_elements::fixed;
using svg_elements::kDot;
using svg_elements::kGrid;
using svg_elements::kInk;
using svg_elements::kMuted;
using svg_elements::line;
using svg_elements::open_group;
using svg_elements::px;
using svg_elements::Formatter;
using svg_elements::rect;
using svg_elements::shown;
using svg_elements::text;
using svg_elements::text_width;
using svg_elements::title;

// --- the canvas -------------------------------------------------------------------

struct Box {
    double left, top, right, bottom;
    constexpr double width() const { return right - left; }
    constexpr double height() const { return bottom - top; }
};
constexpr double kWidth = 900;
constexpr double kHeight = 520;
constexpr Box kPlot{72, 70, 600, 448};   // latency against footprint
constexpr Box kSide{648, 70, 880, 448};  // bandwidth bars

// --- numbers ----------------------------------------------------------------------

std::string format_cycles(double cycles) { return fixed(cycles, 1) + " cyc"; }

// --- text -------------------------------------------------------------------------

// Length of the UTF-8 sequence at the start of `text` that XML accepts as one
// character; 0 when it is invalid (ill-formed UTF-8, or U+FFFE/F).
std::size_t xml_char_length(std::string_view text) {
    const auto c = util::decode_utf8(text);
    return c.code == 0xfffe || c.code == 0xffff ? 0 : c.length;
}

// --- values -----------------------------------------------------------------------

struct Reading {
    const Quantity* quantity;
    Value value;
};

Reading reading(const Json& root, QuantityId id) {
    return {&kQuantities[id], profile::read_quantity(root, kQuantities[id])};
}


// The tooltip: the name, what the probe said about the value, and why.
std::string describe(const Reading& r, Formatter format) {
    const Value& v = r.value;
    std::string s = std::string(r.quantity->name) + " (" + std::string(r.quantity->label) + "): ";
    if (!v.value) return s + "unmeasured" + (v.reason.empty() ? "" : ": " + v.reason);
    s += shown(v, format) + ", " + std::string(v.source ? to_string(*v.source) : "") + ", confidence " + fixed(v.confidence, 4);
    if (v.lower_bound) s += "; a lower bound" + (v.reason.empty() ? "" : ": " + v.reason);
    if (!v.doubt.empty()) s += "; not vouched for: " + v.doubt;
    return s;
}

// --- the levels -------------------------------------------------------------------

constexpr QuantityId kNoSize = kQuantities.size();

struct Level {
    std::string_view name;
    QuantityId size;  // kNoSize: no size on the footprint axis (DRAM)
    QuantityId latency;
    std::string_view color;
};

// clang-format off
constexpr std::array kLevels{
    Level{"L1", model::id("L1_SIZE_BYTES"), model::id("L1_LATENCY_CYCLES"), "#1f77b4"},
    Level{"L2 near", model::id("L2_NEAR_SIZE_BYTES"), model::id("L2_NEAR_LATENCY_CYCLES"), "#2ca02c"},
    Level{"L2", model::id("L2_SIZE_BYTES"), model::id("L2_FAR_LATENCY_CYCLES"), "#9467bd"},
    Level{"DRAM", kNoSize, model::id("DRAM_LATENCY_CYCLES"), "#d62728"},
};
// clang-format on

struct LevelReading {
    const Level* level;
    std::optional<Reading> size;
    Reading latency;
};

std::vector<LevelReading> read_levels(const Json& root) {
    std::vector<LevelReading> levels;
    for (const auto& level : kLevels) {
        std::optional<Reading> size;
        if (level.size != kNoSize) size = reading(root, level.size);
        levels.push_back({&level, size, reading(root, level.latency)});
    }
    return levels;
}

std::optional<double> size_of(const LevelReading& l) {
    if (!l.size || !l.size->value.value || !(*l.size->value.value > 0)) return std::nullopt;
    return l.size->value.value;
}
std::optional<double> latency_of(const LevelReading& l) {
    const auto& v = l.latency.value.value;
    return v && std::isfinite(*v) && *v >= 0 ? v : std::nullopt;
}

std::string level_label(const LevelReading& l) {
    std::string s(l.level->name);
    if (l.size) s += l.size->value.value ? " " + shown(l.size->value, format_bytes) : " size unmeasured";
    s += l.size ? kDot : std::string_view(" ");
    s += l.latency.value.value ? shown(l.latency.value, format_cycles) : "latency unmeasured";
    return s;
}

std::string level_tooltip(const LevelReading& l) {
    std::string s;
    if (l.size) s += describe(*l.size, format_bytes) + "\n";
    return s + describe(l.latency, format_cycles);
}

// --- the curve --------------------------------------------------------------------

struct Curve {
    std::string path;
    std::vector<std::pair<double, double>> points;   // footprint bytes, p50 cycles
    std::vector<std::pair<double, double>> changes;  // last footprint before, first after
};

// Number pairs of a curve list; pairs that could not be drawn (validation refuses
// them) are left out rather than trusted.
std::vector<std::pair<double, double>> number_pairs(const Json* list) {
    std::vector<std::pair<double, double>> pairs;
    if (!list || !list->is_array()) return pairs;
    for (const Json& pair : list->as_array()) {
        if (!pair.is_array() || pair.as_array().size() != 2) continue;
        const Json& a = pair.as_array()[0];
        const Json& b = pair.as_array()[1];
        if (!a.is_number() || !b.is_number()) continue;
        if (!std::isfinite(a.as_number()) || !std::isfinite(b.as_number())) continue;
        pairs.emplace_back(a.as_number(), b.as_number());
    }
    return pairs;
}

// The profile's latency curve; nullopt when it has none with a point to draw.
std::optional<Curve> read_curve(const Json& root) {
    const Json* node = root.find("curve");
    if (!node || !node->is_object()) return std::nullopt;
    Curve curve;
    curve.path = string_at(*node, "path");
    for (const auto& [bytes, cycles] : number_pairs(node->find("points")))
        if (bytes >= 1 && cycles >= 0) curve.points.emplace_back(bytes, cycles);
    for (auto [before, after] : number_pairs(node->find("change_points"))) {
        if (before > after) std::swap(before, after);
        if (before >= 1) curve.changes.emplace_back(before, after);
    }
    if (curve.points.empty()) return std::nullopt;
    return curve;
}

// --- the axes ---------------------------------------------------------------------

// Footprint on a log2 axis, whole octaves from 2^lo to 2^hi bytes.
struct FootprintAxis {
    int lo = 12, hi = 28;
    double x(double bytes) const {
        const double octave = bytes > 0 ? std::log2(bytes) : lo;
        return std::clamp(kPlot.left + (octave - lo) / (hi - lo) * kPlot.width(), kPlot.left, kPlot.right);
    }
};

// Latency on a linear axis from 0 to a round `max`, ticks every `step`.
struct LatencyAxis {
    double max = 100, step = 20;
    double y(double cycles) const {
        return std::clamp(kPlot.bottom - cycles / max * kPlot.height(), kPlot.top, kPlot.bottom);
    }
};

// Every footprint the picture places: the curve, its change points and the level sizes.
FootprintAxis footprint_axis(const std::optional<Curve>& curve, const std::vector<LevelReading>& levels) {
    std::vector<double> sizes;
    for (const auto& l : levels)
        if (auto s = size_of(l)) sizes.push_back(*s);
    std::vector<double> all = sizes;
    if (curve) {
        for (const auto& [bytes, cycles] : curve->points) all.push_back(bytes);
        for (const auto& [before, after] : curve->changes) all.insert(all.end(), {before, after});
    }
    FootprintAxis axis;
    if (all.empty()) return axis;
    const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
    axis.lo = static_cast<int>(std::floor(std::log2(*lo)));
    axis.hi = static_cast<int>(std::ceil(std::log2(*hi)));
    if (!sizes.empty()) {
        // An octave on each side of the sizes: room for L1's plateau left of it and DRAM's right of L2.
        const auto [small, large] = std::minmax_element(sizes.begin(), sizes.end());
        axis.lo = std::min(axis.lo, static_cast<int>(std::floor(std::log2(*small))) - 1);
        axis.hi = std::max(axis.hi, static_cast<int>(std::ceil(std::log2(*large))) + 1);
    }
    axis.lo = std::clamp(axis.lo, 0, 60);
    axis.hi = std::clamp(axis.hi, axis.lo + 4, 64);
    return axis;
}

// 1, 2 or 5 times a power of ten: steps a reader adds up at a glance.
double round_step(double span, int ticks) {
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0})
        if (m * magnitude >= raw) return m * magnitude;
    return 10 * magnitude;
}

LatencyAxis latency_axis(const std::optional<Curve>& curve, const std::vector<LevelReading>& levels) {
    double highest = 0;
    if (curve)
        for (const auto& [bytes, cycles] : curve->points) highest = std::max(highest, cycles);
    for (const auto& l : levels)
        if (auto c = latency_of(l)) highest = std::max(highest, *c);
    LatencyAxis axis;
    if (!(highest > 0) || !std::isfinite(highest)) return axis;
    // Headroom above the slowest level keeps the legend (top left) off the curve.
    const double top = highest * 1.12;
    axis.step = round_step(top, 5);
    axis.max = std::ceil(top / axis.step) * axis.step;
    return axis;
}

// --- the main panel ---------------------------------------------------------------

void draw_footprint_ticks(std::string& out, const FootprintAxis& ax) {
    int stride = 1;  // label at most 8 ticks, on powers of 4 when there are many (16 KiB, 64 KiB, ...)
    while ((ax.hi - ax.lo) / stride > 8) stride *= 2;
    for (int e = ax.lo; e <= ax.hi; ++e) {
        const double x = ax.x(std::ldexp(1.0, e));
        line(out, x, kPlot.top, x, kPlot.bottom, "stroke=\"" + std::string(kGrid) + "\"");
        if (e % stride != 0) continue;
        line(out, x, kPlot.bottom, x, kPlot.bottom + 5, "stroke=\"" + std::string(kInk) + "\"");
        text(out, x, kPlot.bottom + 18, format_bytes(std::ldexp(1.0, e)), "text-anchor=\"middle\"");
    }
    text(out, (kPlot.left + kPlot.right) / 2, kPlot.bottom + 38, "footprint (bytes, log scale)",
         "text-anchor=\"middle\" fill=\"#444\"");
}

void draw_latency_ticks(std::string& out, const LatencyAxis& ay) {
    const long ticks = std::lround(ay.max / ay.step);
    for (long i = 0; i <= ticks; ++i) {  // counted, not summed: no drift in the last tick
        const double c = static_cast<double>(i) * ay.step;
        const double y = ay.y(c);
        if (c > 0) line(out, kPlot.left, y, kPlot.right, y, "stroke=\"" + std::string(kGrid) + "\"");
        line(out, kPlot.left - 5, y, kPlot.left, y, "stroke=\"" + std::string(kInk) + "\"");
        text(out, kPlot.left - 8, y + 4, fixed(c, 0), "text-anchor=\"end\"");
    }
    const double x = kPlot.left - 48, y = (kPlot.top + kPlot.bottom) / 2;
    text(out, x, y, "latency (cycles, p50)",
         "text-anchor=\"middle\" fill=\"#444\" transform=\"rotate(-90 " + px(x) + " " + px(y) + ")\"");
}

void draw_change_points(std::string& out, const Curve& curve, const FootprintAxis& ax) {
    for (const auto& [before, after] : curve.changes) {
        const double x1 = ax.x(before), x2 = ax.x(after);
        const double w = std::max(x2 - x1, 3.0);  // a narrow change stays visible
        rect(out, std::min(x1, kPlot.right - w), kPlot.top, w, kPlot.height(),
             "class=\"change-point\" fill=\"#f5a623\" fill-opacity=\"0.22\"",
             "change point: the latency changes between " + format_bytes(before) + " and " + format_bytes(after));
    }
}

void draw_curve(std::string& out, const Curve& curve, const FootprintAxis& ax, const LatencyAxis& ay) {
    std::string points;
    for (const auto& [bytes, cycles] : curve.points)
        points += (points.empty() ? "" : " ") + px(ax.x(bytes)) + "," + px(ay.y(cycles));
    open_group(out, "curve", "latency curve, load path " + (curve.path.empty() ? std::string("unnamed") : curve.path));
    out += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"" + std::string(kInk) +
           "\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>\n";
    for (const auto& [bytes, cycles] : curve.points)
        out += "<circle class=\"curve-point\"" + attribute("cx", ax.x(bytes)) + attribute("cy", ay.y(cycles)) +
               " r=\"2.2\" fill=\"" + std::string(kInk) + "\">" +
               title(format_bytes(bytes) + ": " + format_cycles(cycles)) + "</circle>\n";
    close_group(out);
}

// Where a level's latency line runs: over its plateau on the curve, from the
// size of the level before it to its own size (DRAM: to the right edge). Where
// either size is unknown the line shrinks to a short tick at the known end, so
// it never claims a range the profile does not give.
std::pair<double, double> plateau(const std::vector<LevelReading>& levels, std::size_t i, const FootprintAxis& ax) {
    constexpr double kTick = 24;
    const bool last = i + 1 == levels.size();
    std::optional<double> from, to;
    if (i == 0) from = kPlot.left;
    else if (auto s = size_of(levels[i - 1])) from = ax.x(*s);
    if (auto s = size_of(levels[i])) to = ax.x(*s);
    else if (last) to = kPlot.right;
    if (from && to) return {std::min(*from, *to - kTick / 2), *to};  // crowded sizes still leave a visible tick
    if (to) return {std::max(kPlot.left, *to - kTick), *to};
    if (from) return {*from, std::min(kPlot.right, *from + kTick)};
    return {kPlot.left, kPlot.left + kTick};
}

void draw_levels(std::string& out, const std::vector<LevelReading>& levels, const FootprintAxis& ax,
                 const LatencyAxis& ay) {
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const auto& l = levels[i];
        const std::string color = "stroke=\"" + std::string(l.level->color) + "\"";
        open_group(out, "level", level_tooltip(l));
        if (auto s = size_of(l)) {
            const double x = ax.x(*s);
            line(out, x, kPlot.top, x, kPlot.bottom, color + " stroke-width=\"1.2\" stroke-dasharray=\"5 4\"");
            text(out, x, kPlot.top - 5, l.level->name,
                 "text-anchor=\"middle\" font-size=\"10\" fill=\"" + std::string(l.level->color) + "\"");
        }
        if (auto c = latency_of(l)) {
            const auto [from, to] = plateau(levels, i, ax);
            const double y = ay.y(*c);
            line(out, from, y, to, y, color + " stroke-width=\"2.5\" stroke-opacity=\"0.75\"");
            text(out, from + 3, y - 5, l.level->name, "font-size=\"10\" fill=\"" + std::string(l.level->color) + "\"");
        }
        close_group(out);
    }
}

void draw_legend(std::string& out, const std::vector<LevelReading>& levels, const std::optional<Curve>& curve) {
    std::vector<std::string> labels;
    for (const auto& l : levels) labels.push_back(level_label(l));
    double width = 0;
    for (const auto& s : labels) width = std::max(width, text_width(s));
    const double row = 16, x = kPlot.left + 10, top = kPlot.top + 8;
    const std::size_t rows = labels.size() + (curve ? 2 : 0);
    open_group(out, "legend");
    rect(out, x - 6, top, std::min(width + 40, kPlot.width() - 20), row * static_cast<double>(rows) + 8,
         "fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"#ccc\"");
    double y = top + 16;
    for (std::size_t i = 0; i < levels.size(); ++i, y += row) {
        open_group(out, "level-label", level_tooltip(levels[i]));
        const std::string swatch = "stroke=\"" + std::string(levels[i].level->color) + "\" stroke-width=\"2.5\"";
        line(out, x, y - 4, x + 18, y - 4, swatch);
        text(out, x + 24, y, labels[i]);
        close_group(out);
    }
    if (curve) {
        line(out, x, y - 4, x + 18, y - 4, "stroke=\"" + std::string(kInk) + "\" stroke-width=\"1.5\"");
        text(out, x + 24, y, "p50 latency, load path " + (curve->path.empty() ? std::string("unnamed") : curve->path));
        y += row;
        rect(out, x + 4, y - 10, 10, 10, "fill=\"#f5a623\" fill-opacity=\"0.35\"");
        text(out, x + 24, y, "change point of the curve");
    }
    close_group(out);
}

void draw_main_panel(std::string& out, const Json& root) {
    const auto curve = read_curve(root);
    const auto levels = read_levels(root);
    const auto ax = footprint_axis(curve, levels);
    const auto ay = latency_axis(curve, levels);
    open_group(out, "main");
    draw_footprint_ticks(out, ax);
    draw_latency_ticks(out, ay);
    if (curve) draw_change_points(out, *curve, ax);
    draw_levels(out, levels, ax, ay);
    if (curve) draw_curve(out, *curve, ax, ay);
    else
        text(out, (kPlot.left + kPlot.right) / 2, (kPlot.top + kPlot.bottom) / 2, "no latency curve in this profile",
             "class=\"no-curve\" text-anchor=\"middle\" font-size=\"14\" fill=\"" + std::string(kMuted) + "\"");
    rect(out, kPlot.left, kPlot.top, kPlot.width(), kPlot.height(), "fill=\"none\" stroke=\"#999\"");
    draw_legend(out, levels, curve);
    close_group(out);
}

// --- the bandwidth panel ----------------------------------------------------------

struct Bandwidth {
    std::string_view name;
    QuantityId id;
    std::string_view color;
};
constexpr std::array kBandwidths{
    Bandwidth{"L1", model::id("L1_BANDWIDTH_BYTES_PER_S"), "#1f77b4"},
    Bandwidth{"shared", model::id("SHARED_BANDWIDTH_BYTES_PER_S"), "#17becf"},
    Bandwidth{"L2", model::id("L2_BANDWIDTH_BYTES_PER_S"), "#9467bd"},
    Bandwidth{"DRAM", model::id("DRAM_BANDWIDTH_BYTES_PER_S"), "#d62728"},
};

void draw_side_panel(std::string& out, const Json& root) {
    std::vector<Reading> readings;
    double highest = 0;
    for (const auto& b : kBandwidths) {
        readings.push_back(reading(root, b.id));
        if (const auto& v = readings.back().value.value; v && std::isfinite(*v)) highest = std::max(highest, *v);
    }
    open_group(out, "bandwidths");
    text(out, kSide.left, kSide.top + 4, "Bandwidth, all SMs", "font-size=\"13\" font-weight=\"bold\"");
    const double row = 56, bar = 16;
    for (std::size_t i = 0; i < kBandwidths.size(); ++i) {
        const auto& b = kBandwidths[i];
        const auto& r = readings[i];
        const double y = kSide.top + 30 + row * static_cast<double>(i);
        open_group(out, "bandwidth", describe(r, format_bandwidth));
        const std::string style = r.value.value ? std::string{} : "fill=\"" + std::string(kMuted) + "\"";
        text(out, kSide.left, y, std::string(b.name) + std::string(kDot) + shown(r.value, format_bandwidth), style);
        if (r.value.value && highest > 0) {
            const double w = std::max(1.0, *r.value.value / highest * kSide.width());
            rect(out, kSide.left, y + 6, w, bar, "fill=\"" + std::string(b.color) + "\" fill-opacity=\"0.8\"");
        } else {
            // An empty, dashed bar: the level exists, its bandwidth is not known.
            rect(out, kSide.left, y + 6, kSide.width(), bar, "fill=\"none\" stroke=\"#aaa\" stroke-dasharray=\"3 3\"");
        }
        close_group(out);
    }
    close_group(out);
}

// --- the title --------------------------------------------------------------------

void draw_title(std::string& out, const Json& root) {
    const std::string name = string_at(root, "device.name");
    std::string details;
    const auto add = [&](const std::string& part) {
        if (!part.empty()) details += (details.empty() ? "" : std::string(kDot)) + clip(part, 64);
    };
    add(string_at(root, "device.uuid"));
    const std::string version = string_at(root, "probe.version");
    add(version.empty() ? std::string{} : "probe " + version);
    add(string_at(root, "source"));
    open_group(out, "title");
    text(out, 16, 26, name.empty() ? std::string("unnamed device") : clip(name, 72),
         "font-size=\"17\" font-weight=\"bold\"");
    text(out, 16, 45, details, "fill=\"" + std::string(kMuted) + "\"");
    close_group(out);
}

}  // namespace

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            // XML refuses a document with one bad byte; a '?' keeps the rest readable.
            const std::size_t length = xml_char_length(text.substr(i));
            out += length ? text.substr(i, length) : "?";
            i += length ? length : 1;
            continue;
        }
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            case '\n': out += "&#10;"; break;  // line breaks in tooltips
            default: out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
        }
        ++i;
    }
    return out;
}

std::string hierarchy_svg(const util::Json& profile) {
    std::string out;
    svg_elements::open_svg(out, kWidth, kHeight);
    rect(out, 0, 0, kWidth, kHeight, "fill=\"#fff\"");
    draw_title(out, profile);
    draw_main_panel(out, profile);
    draw_side_panel(out, profile);
    svg_elements::close_svg(out);
    return out;
}

void write_hierarchy_svg(const util::Json& profile, const std::filesystem::path& file) {
    util::write_file_atomically(file, hierarchy_svg(profile));
}

}  // namespace gpu_topology::render
