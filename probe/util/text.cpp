#include "text.hpp"

#include <cstdio>

namespace gpu_topology::util {

Utf8Char decode_utf8(std::string_view text) {
    if (text.empty()) return {};
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return {lead, 1};
    // C0 and C1 would start overlong two-byte forms, F5..FF code points above U+10FFFF.
    const std::size_t length = lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3
                               : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
    if (length == 0 || length > text.size()) return {};
    char32_t code = lead & (0xffu >> (length + 1));
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(k) & 0xc0) != 0x80) return {};
        code = (code << 6) | (byte(k) & 0x3fu);
    }
    const char32_t smallest = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
    if (code < smallest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return {};
    return {code, length};
}

void append_utf8(std::string& out, char32_t code) {
    if (code < 0x80) {
        out += char(code);
    } else if (code < 0x800) {
        out += char(0xc0 | (code >> 6));
        out += char(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
        out += char(0xe0 | (code >> 12));
        out += char(0x80 | ((code >> 6) & 0x3f));
        out += char(0x80 | (code & 0x3f));
    } else {
        out += char(0xf0 | (code >> 18));
        out += char(0x80 | ((code >> 12) & 0x3f));
        out += char(0x80 | ((code >> 6) & 0x3f));
        out += char(0x80 | (code & 0x3f));
    }
}

bool is_safe_text(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = decode_utf8(text.substr(i));
        if (c.length == 0 || is_control(c.code)) return false;
        i += c.length;
    }
    return true;
}

namespace {

std::string escaped(std::string_view text, std::size_t max_bytes, bool keep_newlines) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (out.size() >= max_bytes) return out + "...";
        const auto c = decode_utf8(text.substr(i));
        char code[16];
        if (c.length == 0) {
            std::snprintf(code, sizeof code, "\\x%02x", static_cast<unsigned char>(text[i]));
            out += code;
            ++i;
            continue;
        }
        if (c.code == '\n') out += keep_newlines ? "\n" : "\\n";
        else if (c.code == '\t') out += "\\t";
        else if (is_control(c.code)) std::snprintf(code, sizeof code, "\\u{%04x}", unsigned(c.code)), out += code;
        else out.append(text.substr(i, c.length));
        i += c.length;
    }
    return out;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) { return escaped(text, max_bytes, false); }

std::string printable_lines(std::string_view text) { return escaped(text, std::string_view::npos, true); }

std::string clip(std::string_view text, std::size_t max_bytes, std::string_view marker) {
    if (text.size() <= max_bytes) return std::string(text);
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // back to a lead byte
    return std::string(text.substr(0, cut)) + std::string(marker);
}

}  // namespace gpu_topology::util
