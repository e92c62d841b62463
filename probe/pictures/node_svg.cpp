// The node picture: a title, one row per device, and the matrix of links
// (from = row, to = column), each cell shaded by its SM read bandwidth and
// carrying every link quantity in its tooltip.
//
// Drawn with the hierarchy picture's primitives (svg_elements.hpp), so the two
// share fonts, colours, escaping and number formats. The document is input:
// it is drawn from whatever it holds (a malformed link is drawn as missing,
// not trusted), every string from it is XML-escaped, and the same document
// always gives the same bytes.
#include "node_svg.hpp"

#include "model/node.hpp"
#include "model/quantities.hpp"
#include "util/atomic_file.hpp"
#include "profile/profile.hpp"
#include "svg.hpp"
#include "svg_elements.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_topology::render {
namespace {

using model::kLinkQuantities;
using model::kQuantities;
using model::LinkQuantity;
using model::QuantityId;
using util::Json;
using svg_elements::clip;
using svg_elements::close_group;
using svg_elements::compact;
using svg_elements::fixed;
using svg_elements::kDot;
using svg_elements::kMuted;
using svg_elements::open_group;
using svg_elements::rect;
using util::format_bandwidth;
using util::format_bytes;
using util::string_at;
using svg_elements::text;

// UTF-8 spelled out, as in svg.cpp.
constexpr std::string_view kArrow = " \xe2\x86\x92 ";  // " → "
constexpr std::string_view kDash = "\xe2\x80\x94";     // "—"

constexpr std::string_view kNotMeasured = "not measured";

// The canvas: at least as wide as the hierarchy picture, wider when the matrix needs it.
constexpr double kMinWidth = 900;
constexpr double kMargin = 16;

// --- reading the node -------------------------------------------------------------

std::optional<double> finite_number(const Json& object, std::string_view key) {
    const Json* n = object.find(key);
    if (!n || !n->is_number() || !std::isfinite(n->as_number())) return std::nullopt;
    return n->as_number();
}

// The device records, at most kMaxNodeDevices of them: validation refuses more,
// and the picture must stay bounded whatever it is given.
std::vector<const Json*> device_list(const Json& node) {
    std::vector<const Json*> devices;
    const Json* list = node.find("devices");
    if (!list || !list->is_array()) return devices;
    for (const Json& d : list->as_array()) {
        if (devices.size() == model::kMaxNodeDevices) break;
        devices.push_back(&d);
    }
    return devices;
}

std::size_t listed_devices(const Json& node) {
    const Json* list = node.find("devices");
    return list && list->is_array() ? list->as_array().size() : 0;
}

// The link of every ordered pair, row-major (from * n + to); nullptr where the
// document has none or only a malformed one. The first of two links for a pair
// wins, so a duplicate cannot change what an earlier cell shows.
std::vector<const Json*> link_matrix(const Json& node, std::size_t n) {
    std::vector<const Json*> matrix(n * n, nullptr);
    const Json* list = node.find("links");
    if (!list || !list->is_array()) return matrix;
    for (const Json& link : list->as_array()) {
        const auto from = finite_number(link, "from"), to = finite_number(link, "to");
        if (!from || !to || *from < 0 || *to < 0 || *from >= double(n) || *to >= double(n)) continue;
        if (*from != std::floor(*from) || *to != std::floor(*to) || *from == *to) continue;
        const Json*& slot = matrix[static_cast<std::size_t>(*from) * n + static_cast<std::size_t>(*to)];
        if (!slot) slot = &link;
    }
    return matrix;
}

// One link quantity as the document gives it: the median and its spread, or why there is none.
struct Measured {
    std::optional<double> value;
    std::optional<double> min, max, repeats;
    std::string reason;
};

Measured read_measured(const Json& link, std::string_view member) {
    Measured m;
    const Json* q = link.find(member);
    if (!q || !q->is_object()) {
        m.reason = "absent from the profile";
        return m;
    }
    m.value = finite_number(*q, "value");
    if (!m.value) {
        const Json* reason = q->find("reason");
        m.reason = reason && reason->is_string() ? reason->as_string() : "no reason given";
        return m;
    }
    if (const Json* spread = q->find("spread"); spread && spread->is_object()) {
        m.min = finite_number(*spread, "min");
        m.max = finite_number(*spread, "max");
        m.repeats = finite_number(*spread, "repeats");
    }
    return m;
}

// What connects two devices, as the route object says; defaults where it says nothing.
struct Route {
    bool present = false;
    bool peer_access = false;
    std::optional<double> performance_rank;
    bool native_atomics = false;
    std::string transport = "unknown";
    double nvlinks = 0;
    std::optional<double> nominal_bytes_per_s;
    std::string source;
};

bool bool_at(const Json& object, std::string_view key) {
    const Json* b = object.find(key);
    return b && b->is_bool() && b->as_bool();
}

Route read_route(const Json& link) {
    Route r;
    const Json* route = link.find("route");
    if (!route || !route->is_object()) return r;
    r.present = true;
    r.peer_access = bool_at(*route, "peer_access");
    r.performance_rank = finite_number(*route, "performance_rank");
    r.native_atomics = bool_at(*route, "native_atomics");
    if (const std::string t = string_at(*route, "transport"); !t.empty()) r.transport = t;
    r.nvlinks = finite_number(*route, "nvlinks").value_or(0);
    r.nominal_bytes_per_s = finite_number(*route, "nominal_bytes_per_s");
    r.source = string_at(*route, "source");
    return r;
}

// Indices of the link quantities the cells show (a misspelt member does not compile).
constexpr std::size_t kSmRead = model::link_quantity_index("sm_read_bytes_per_s");
constexpr std::size_t kCeRead = model::link_quantity_index("ce_read_bytes_per_s");
constexpr std::size_t kLoadLatency = model::link_quantity_index("load_latency_ns");

// A link, read once: the route and every quantity of kLinkQuantities.
struct LinkReading {
    Route route;
    std::array<Measured, kLinkQuantities.size()> values;
};

LinkReading read_link(const Json& link) {
    LinkReading r{read_route(link), {}};
    for (std::size_t i = 0; i < kLinkQuantities.size(); ++i) r.values[i] = read_measured(link, kLinkQuantities[i].member);
    return r;
}

// --- words and numbers ------------------------------------------------------------

std::string format_seconds(double s) { return compact(s) + " s"; }

std::string format_link_value(model::Unit unit, double v) {
    if (unit == model::Unit::bytes_per_s) return format_bandwidth(v);
    // Latencies: whole nanoseconds or cycles read best ("1234 ns"); a tenth below 100.
    return fixed(v, v >= 100 ? 0 : 1) + " " + std::string(to_string(unit));
}

std::string count(double n) { return fixed(n, 0); }

// "NVLink x18", "PCIe", "no P2P": how `from` reaches `to`, in a cell's first line.
std::string transport_label(const Route& r) {
    if (!r.present) return "route unknown";
    if (!r.peer_access) return "no P2P";
    const std::string links = r.nvlinks > 0 ? " x" + count(r.nvlinks) : "";
    if (r.transport == "nvlink") return "NVLink" + links;
    if (r.transport == "nvswitch") return "NVSwitch" + links;
    if (r.transport == "pcie") return "PCIe";
    return "route unknown";
}

std::string describe(const LinkQuantity& q, const Measured& m) {
    std::string s = std::string(q.member) + ": ";
    if (!m.value) return s + std::string(kNotMeasured) + (m.reason.empty() ? "" : ": " + m.reason);
    s += format_link_value(q.unit, *m.value);
    if (m.min && m.max) {
        s += " (" + format_link_value(q.unit, *m.min) + ".." + format_link_value(q.unit, *m.max);
        if (m.repeats) s += ", " + count(*m.repeats) + " repeats";
        s += ")";
    }
    return s;
}

std::string device_name(const Json& device, std::size_t index) {
    const std::string name = string_at(device, "device.name");
    return name.empty() ? "device " + std::to_string(index) : name;
}

std::string gpu(std::size_t index) { return "GPU " + std::to_string(index); }

// The cell's tooltip: the pair, its route, the nominal rate, then every link quantity.
std::string link_tooltip(std::size_t from, std::size_t to, const LinkReading& link) {
    const Route& r = link.route;
    std::string s = gpu(from) + std::string(kArrow) + gpu(to) + ": " + transport_label(r);
    if (r.present) {
        s += "\ntransport " + r.transport + ", " + count(r.nvlinks) + " NVLinks";
        s += std::string("\npeer access ") + (r.peer_access ? "yes" : "no") + ", performance rank " +
             (r.performance_rank && *r.performance_rank >= 0 ? count(*r.performance_rank) : "not reported") +
             ", native atomics " + (r.native_atomics ? "yes" : "no");
        if (!r.source.empty()) s += "\nroute from " + r.source;
    }
    s += r.nominal_bytes_per_s ? "\nnominal " + format_bandwidth(*r.nominal_bytes_per_s) + " per direction"
                               : "\nnominal rate unknown";
    for (std::size_t i = 0; i < kLinkQuantities.size(); ++i) s += "\n" + describe(kLinkQuantities[i], link.values[i]);
    return s;
}

// --- the devices ------------------------------------------------------------------

using svg_elements::Formatter;

std::string format_sm_count(double n) { return count(n); }

// A column of the device table: one quantity of the device's own profile.
struct DeviceColumn {
    std::string_view header;
    QuantityId id;
    Formatter format;
    double x;
};
const std::array kDeviceColumns{
    DeviceColumn{"SMs", model::kSmCount, format_sm_count, 540},
    DeviceColumn{"L2", model::id("L2_SIZE_BYTES"), format_bytes, 600},
    DeviceColumn{"DRAM bandwidth", model::id("DRAM_BANDWIDTH_BYTES_PER_S"), format_bandwidth, 690},
};
constexpr double kIndexX = 16, kNameX = 56, kUuidX = 300;

// What the table shows for a quantity.
std::string shown_in_table(const profile::Value& v, Formatter format) {
    return svg_elements::shown(v, format, kNotMeasured);
}

std::string describe(const model::Quantity& q, const profile::Value& v, Formatter format) {
    std::string s = std::string(q.name) + " (" + std::string(q.label) + "): " + shown_in_table(v, format);
    if (!v.value) return s + (v.reason.empty() ? "" : ": " + v.reason);
    if (v.source) s += ", " + std::string(to_string(*v.source));
    if (v.lower_bound && !v.reason.empty()) s += "; a lower bound: " + v.reason;
    if (!v.doubt.empty()) s += "; not vouched for: " + v.doubt;
    return s;
}

std::string device_tooltip(const Json& device, std::size_t index) {
    std::string s = gpu(index) + ": " + device_name(device, index);
    const std::string uuid = string_at(device, "device.uuid");
    s += "\nUUID " + (uuid.empty() ? std::string("unknown") : uuid);
    for (const auto& c : kDeviceColumns)
        s += "\n" + describe(kQuantities[c.id], profile::read_quantity(device, kQuantities[c.id]), c.format);
    return s;
}

// Rows get closer when there are many devices, so 64 still fit a screen's height.
double device_row_height(std::size_t n) { return n <= 16 ? 18 : 15; }

void draw_device_value(std::string& out, const DeviceColumn& column, double y, const Json& device) {
    const auto& q = kQuantities[column.id];
    const auto v = profile::read_quantity(device, q);
    if (v.value) {
        text(out, column.x, y, shown_in_table(v, column.format));
        return;
    }
    // Its own tooltip: the reason is what a reader hovering "not measured" wants.
    open_group(out, "not-measured", describe(q, v, column.format));
    text(out, column.x, y, kNotMeasured, "fill=\"" + std::string(kMuted) + "\"");
    close_group(out);
}

// Returns the bottom of the table.
double draw_devices(std::string& out, const std::vector<const Json*>& devices, double top) {
    open_group(out, "devices");
    text(out, kIndexX, top, "Devices", "font-size=\"13\" font-weight=\"bold\"");
    const std::string muted = "fill=\"" + std::string(kMuted) + "\"";
    const double header = top + 20;
    text(out, kIndexX, header, "GPU", muted);
    text(out, kNameX, header, "model", muted);
    text(out, kUuidX, header, "UUID", muted);
    for (const auto& c : kDeviceColumns) text(out, c.x, header, c.header, muted);
    const double row = device_row_height(devices.size());
    double y = header;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        y += row;
        const Json& d = *devices[i];
        open_group(out, "device", device_tooltip(d, i));
        text(out, kIndexX, y, std::to_string(i));
        text(out, kNameX, y, clip(device_name(d, i), 36));
        text(out, kUuidX, y, clip(string_at(d, "device.uuid"), 26), muted);
        for (const auto& c : kDeviceColumns) draw_device_value(out, c, y, d);
        close_group(out);
    }
    if (devices.empty()) {
        y += row;
        text(out, kIndexX, y, "no devices in this profile", muted);
    }
    close_group(out);
    return y + 8;
}

// --- the matrix -------------------------------------------------------------------

// How big a cell is and what it holds: four lines of text up to 16 devices;
// above that only the shade and the tooltip, so 64 devices stay about 900 px wide.
struct CellSize {
    double width, height;
    double font;        // 0: no text in cells
    bool long_labels;   // "SM read 1.2 TB/s" rather than "SM 1.2 TB/s"
};

CellSize cell_size(std::size_t n) {
    if (n <= 4) return {160, 68, 11, true};
    if (n <= 8) return {104, 62, 11, false};
    if (n <= 16) return {76, 52, 9, false};
    const double side = std::max(14.0, std::floor(832.0 / static_cast<double>(n)));
    return {side, side, 0, false};
}

constexpr double kRowHeaderWidth = 64;
constexpr double kMatrixLeft = kIndexX + kRowHeaderWidth;

// Light for slow links, dark for the fastest: the eye finds the fast pairs first.
std::string shade(double fraction) {
    constexpr std::array<int, 3> kSlow{0xee, 0xf5, 0xfc};
    constexpr std::array<int, 3> kFast{0x4a, 0x90, 0xd9};
    constexpr std::string_view kHex = "0123456789abcdef";
    const double f = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
    std::string color = "#";
    for (std::size_t i = 0; i < 3; ++i) {
        const auto c = static_cast<int>(std::lround(kSlow[i] + (kFast[i] - kSlow[i]) * f));
        color += kHex[static_cast<std::size_t>(c >> 4)];
        color += kHex[static_cast<std::size_t>(c & 15)];
    }
    return color;
}

constexpr std::string_view kHatchId = "node-unmeasured";
constexpr std::string_view kSameDeviceFill = "#d9d9d9";
constexpr std::string_view kCellStroke = "stroke=\"#bbb\" stroke-width=\"0.5\"";

std::string hatch_defs() {
    return "<defs><pattern id=\"" + std::string(kHatchId) +
           "\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
           "<rect width=\"6\" height=\"6\" fill=\"#fff\"/>"
           "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#cfcfcf\" stroke-width=\"2\"/></pattern></defs>\n";
}
std::string hatched() { return "fill=\"url(#" + std::string(kHatchId) + ")\""; }

// The best SM read bandwidth among the links: the shade's full scale. 0 when none is measured.
double best_sm_read(const std::vector<std::optional<LinkReading>>& links) {
    double best = 0;
    for (const auto& l : links)
        if (l && l->values[kSmRead].value) best = std::max(best, *l->values[kSmRead].value);
    return best;
}

struct CellBox {
    double x, y;
    const CellSize& size;
};

void cell_lines(std::string& out, const CellBox& box, const std::vector<std::string>& lines) {
    const double lh = box.size.font + 3;
    const double first = box.y + (box.size.height - lh * static_cast<double>(lines.size())) / 2 + box.size.font;
    const std::string style = "text-anchor=\"middle\" font-size=\"" + fixed(box.size.font, 0) + "\"";
    for (std::size_t k = 0; k < lines.size(); ++k)
        text(out, box.x + box.size.width / 2, first + lh * static_cast<double>(k), lines[k], style);
}

std::vector<std::string> link_lines(const LinkReading& link, bool long_labels) {
    const auto value = [&](std::size_t i) {
        const auto& m = link.values[i];
        return m.value ? format_link_value(kLinkQuantities[i].unit, *m.value) : std::string(kDash);
    };
    return {transport_label(link.route), (long_labels ? "SM read " : "SM ") + value(kSmRead),
            (long_labels ? "CE read " : "CE ") + value(kCeRead), (long_labels ? "latency " : "") + value(kLoadLatency)};
}

void draw_same_device_cell(std::string& out, const CellBox& box, std::size_t i) {
    open_group(out, "same-device", gpu(i) + ": the same device, no link");
    rect(out, box.x, box.y, box.size.width, box.size.height,
         "fill=\"" + std::string(kSameDeviceFill) + "\" " + std::string(kCellStroke));
    if (box.size.font > 0) cell_lines(out, box, {std::string(kDash)});
    close_group(out);
}

void draw_missing_cell(std::string& out, const CellBox& box, std::size_t from, std::size_t to) {
    open_group(out, "missing-link", gpu(from) + std::string(kArrow) + gpu(to) + ": no link in the profile");
    rect(out, box.x, box.y, box.size.width, box.size.height,
         "fill=\"#fff\" stroke=\"#999\" stroke-width=\"0.5\" stroke-dasharray=\"3 3\"");
    if (box.size.font > 0) cell_lines(out, box, {"no link"});
    close_group(out);
}

void draw_link_cell(std::string& out, const CellBox& box, std::size_t from, std::size_t to, const LinkReading& link,
                    double best) {
    const auto& sm = link.values[kSmRead].value;
    const std::string fill = sm && best > 0 ? "fill=\"" + shade(*sm / best) + "\"" : hatched();
    open_group(out, "link", link_tooltip(from, to, link));
    rect(out, box.x, box.y, box.size.width, box.size.height, fill + " " + std::string(kCellStroke));
    if (box.size.font > 0) cell_lines(out, box, link_lines(link, box.size.long_labels));
    close_group(out);
}

void draw_matrix_headers(std::string& out, std::size_t n, const CellSize& cell, double top) {
    const std::string muted = "fill=\"" + std::string(kMuted) + "\"";
    const double font = cell.font > 0 ? std::max(cell.font, 10.0) : 8;
    const std::string size = "font-size=\"" + fixed(font, 0) + "\"";
    text(out, kIndexX, top - 8, "from \xe2\x86\x93 to \xe2\x86\x92", muted + " font-size=\"10\"");
    for (std::size_t j = 0; j < n; ++j) {
        const double x = kMatrixLeft + cell.width * (static_cast<double>(j) + 0.5);
        text(out, x, top - 8, cell.font > 0 ? gpu(j) : std::to_string(j), "text-anchor=\"middle\" " + size);
    }
    for (std::size_t i = 0; i < n; ++i) {
        const double y = top + cell.height * (static_cast<double>(i) + 0.5) + font / 3;
        text(out, kMatrixLeft - 6, y, gpu(i), "text-anchor=\"end\" " + size);
    }
}

struct MatrixDrawn {
    double bottom;
    double best;  // the shade's full scale; 0 when no SM read is measured
    bool cell_text;
};

MatrixDrawn draw_matrix(std::string& out, const Json& node, std::size_t n, double top) {
    const CellSize cell = cell_size(n);
    const auto links = link_matrix(node, n);
    std::vector<std::optional<LinkReading>> readings(links.size());
    for (std::size_t k = 0; k < links.size(); ++k)
        if (links[k]) readings[k] = read_link(*links[k]);
    const double best = best_sm_read(readings);

    open_group(out, "links");
    text(out, kIndexX, top, "Links: from = row, to = column", "font-size=\"13\" font-weight=\"bold\"");
    const double cells_top = top + 36;
    draw_matrix_headers(out, n, cell, cells_top);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const CellBox box{kMatrixLeft + cell.width * static_cast<double>(j),
                              cells_top + cell.height * static_cast<double>(i), cell};
            if (i == j) draw_same_device_cell(out, box, i);
            else if (const auto& link = readings[i * n + j]) draw_link_cell(out, box, i, j, *link, best);
            else draw_missing_cell(out, box, i, j);
        }
    close_group(out);
    return {cells_top + cell.height * static_cast<double>(n), best, cell.font > 0};
}

double matrix_width(std::size_t n) { return kMatrixLeft + cell_size(n).width * static_cast<double>(n); }

// --- the legend and the title -------------------------------------------------------

void draw_legend(std::string& out, const MatrixDrawn& matrix, std::size_t drawn, std::size_t listed, double top) {
    open_group(out, "legend");
    const std::string muted = "fill=\"" + std::string(kMuted) + "\"";
    const std::string scale =
        matrix.best > 0 ? "Cell shade: SM read bandwidth relative to the best measured link (" +
                              format_bandwidth(matrix.best) + "); lighter = slower"
                        : "Cell shade: no link has a measured SM read bandwidth";
    std::string notes = scale;
    if (!matrix.cell_text) notes += std::string(kDot) + "hover a cell for its values";
    if (listed > drawn) notes += std::string(kDot) + "the first " + std::to_string(drawn) + " of " +
                                 std::to_string(listed) + " devices drawn";
    text(out, kIndexX, top, notes, muted);
    const double y = top + 10, side = 12;
    double x = kIndexX;
    for (const double fraction : {0.2, 0.4, 0.6, 0.8, 1.0}) {
        rect(out, x, y, side, side, "fill=\"" + shade(fraction) + "\" " + std::string(kCellStroke));
        x += side + 2;
    }
    text(out, x + 4, y + 10, "slower" + std::string(kArrow) + "faster");
    const auto swatch = [&](double at, std::string_view fill, std::string_view label) {
        rect(out, at, y, side, side, std::string(fill) + " " + std::string(kCellStroke));
        text(out, at + side + 6, y + 10, label);
    };
    swatch(220, hatched(), "SM read not measured");
    swatch(380, "fill=\"" + std::string(kSameDeviceFill) + "\"", "same device");
    swatch(490, "fill=\"#fff\"", "no link in the profile");
    close_group(out);
}

// "NVIDIA H200", or "NVIDIA H200, NVIDIA H100" for a mixed node: each model once, in device order.
std::string model_names(const std::vector<const Json*>& devices) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        std::string name = device_name(*devices[i], i);
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
    std::string s;
    for (const auto& name : names) s += (s.empty() ? "" : ", ") + name;
    return s;
}

void draw_title(std::string& out, const Json& node, const std::vector<const Json*>& devices, std::size_t listed) {
    std::string headline = std::to_string(listed) + (listed == 1 ? " device" : " devices");
    if (!devices.empty()) headline += ": " + model_names(devices);
    const Json empty = Json::object();
    const Json* probe = node.find("probe");
    const Json& p = probe && probe->is_object() ? *probe : empty;
    std::string details;
    const auto add = [&](const std::string& part) { details += (details.empty() ? "" : std::string(kDot)) + part; };
    if (const std::string version = string_at(p, "version"); !version.empty()) add("probe " + clip(version, 64));
    if (const auto duration = finite_number(p, "duration_s")) {
        std::string d = "node probe " + format_seconds(*duration);
        const auto slowest = finite_number(p, "slowest_device_s");
        const auto links = finite_number(p, "links_s");
        if (slowest && links)
            d += " (slowest device " + format_seconds(*slowest) + ", links " + format_seconds(*links) + ")";
        add(d);
    } else {
        add("node probe duration unknown");
    }
    open_group(out, "title");
    text(out, 16, 26, clip(headline, 110), "font-size=\"17\" font-weight=\"bold\"");
    text(out, 16, 45, details, "fill=\"" + std::string(kMuted) + "\"");
    close_group(out);
}

}  // namespace

std::string node_svg(const util::Json& node) {
    const auto devices = device_list(node);
    const std::size_t listed = listed_devices(node);
    const std::size_t n = devices.size();

    // Drawn first into `body`: the canvas's height is known only once the matrix is placed.
    std::string body;
    draw_title(body, node, devices, listed);
    const double devices_bottom = draw_devices(body, devices, 76);
    const MatrixDrawn matrix = draw_matrix(body, node, n, devices_bottom + 28);
    const double legend_top = matrix.bottom + 26;
    draw_legend(body, matrix, n, listed, legend_top);

    const double width = std::max(kMinWidth, matrix_width(n) + kMargin);
    const double height = legend_top + 10 + 12 + kMargin;
    std::string out;
    svg_elements::open_svg(out, width, height);
    out += hatch_defs();
    rect(out, 0, 0, width, height, "fill=\"#fff\"");
    out += body;
    svg_elements::close_svg(out);
    return out;
}

void write_node_svg(const util::Json& node, const std::filesystem::path& file) {
    util::write_file_atomically(file, node_svg(node));
}

}  // namespace gpu_topology::render
