#pragma once
// The drawing primitives both pictures share (pictures/svg.cpp: the hierarchy,
// pictures/node_svg.cpp: the node): numbers written without a locale, text
// clipped and escaped, and one function per element, so every byte of either
// document is written in one place and the same input gives the same bytes.
//
// Header-only (inline): the two pictures need no extra source file.
#include "util/format.hpp"
#include "util/json.hpp"
#include "util/text.hpp"
#include "profile/profile.hpp"
#include "svg.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

namespace gpu_topology::render::svg_elements {

// UTF-8 spelled out: u8"" literals are char8_t in C++20 and do not mix with std::string.
inline constexpr std::string_view kDot = " \xc2\xb7 ";         // " · "
inline constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // "…"
inline constexpr std::string_view kAtLeast = "\xe2\x89\xa5 ";  // "≥ "

inline constexpr std::string_view kInk = "#222";
inline constexpr std::string_view kMuted = "#666";
inline constexpr std::string_view kGrid = "#e4e4e4";

// --- numbers ----------------------------------------------------------------------

// Fixed point with trailing zeros trimmed, the same profile always the same document.
inline std::string fixed(double value, int decimals) { return util::format_fixed(value, decimals); }

// Coordinates: a tenth of a pixel is finer than any screen shows.
inline std::string px(double value) { return fixed(value, 1); }

// About three significant digits, for labels.
inline std::string compact(double value) { return util::format_significant(value, 3); }

// --- text -------------------------------------------------------------------------

// At most `max_bytes` of `text`, cut on a character boundary, "…" when cut: a
// long name must not run across the picture.
inline std::string clip(std::string_view text, std::size_t max_bytes) { return util::clip(text, max_bytes, kEllipsis); }

// A rough width of `s` at 11 px sans-serif, to size backdrops and columns.
inline double text_width(std::string_view s) {
    std::size_t characters = 0;
    for (const char c : s) characters += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    return 6.2 * static_cast<double>(characters);
}


// --- elements ---------------------------------------------------------------------

inline std::string attribute(std::string_view name, double value) {
    return " " + std::string(name) + "=\"" + px(value) + "\"";
}

// The root element: a white canvas of `width` x `height` in the pictures' font.
inline void open_svg(std::string& out, double width, double height) {
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(width) + "\" height=\"" + px(height) +
           "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
           "\" font-family=\"sans-serif\" font-size=\"11\" fill=\"" + std::string(kInk) + "\">\n";
}
inline void close_svg(std::string& out) { out += "</svg>\n"; }

// Every element is written by one of these. `style` is always a constant of
// the picture's code; only `content` and titles carry text from the profile, escaped.
inline void text(std::string& out, double x, double y, std::string_view content, std::string_view style = {}) {
    out += "<text" + attribute("x", x) + attribute("y", y);
    if (!style.empty()) out += " " + std::string(style);
    out += ">" + xml_escape(content) + "</text>\n";
}

inline std::string title(std::string_view content) { return "<title>" + xml_escape(content) + "</title>"; }

inline void line(std::string& out, double x1, double y1, double x2, double y2, std::string_view style) {
    out += "<line" + attribute("x1", x1) + attribute("y1", y1) + attribute("x2", x2) + attribute("y2", y2) + " " +
           std::string(style) + "/>\n";
}

inline void rect(std::string& out, double x, double y, double w, double h, std::string_view style,
                 std::string_view tooltip = {}) {
    out += "<rect" + attribute("x", x) + attribute("y", y) + attribute("width", std::max(w, 0.0)) +
           attribute("height", std::max(h, 0.0)) + " " + std::string(style);
    out += tooltip.empty() ? "/>\n" : ">" + title(tooltip) + "</rect>\n";
}

// A group: its <title> is the tooltip of everything in it.
inline void open_group(std::string& out, std::string_view css_class, std::string_view tooltip = {}) {
    out += "<g class=\"" + std::string(css_class) + "\">";
    if (!tooltip.empty()) out += title(tooltip);
    out += "\n";
}
inline void close_group(std::string& out) { out += "</g>\n"; }

// What a label shows for a value: the number, marked when it is a lower bound
// or not vouched for; `unmeasured` where there is none.
using Formatter = std::string (*)(double);
inline std::string shown(const profile::Value& v, Formatter format, std::string_view unmeasured = "unmeasured") {
    if (!v.value) return std::string(unmeasured);
    std::string s = (v.lower_bound ? std::string(kAtLeast) : std::string{}) + format(*v.value);
    if (!v.doubt.empty()) s += " (not vouched)";
    return s;
}

}  // namespace gpu_topology::render::svg_elements
