#pragma once
// Text that comes from files (profiles, engine logs) is input. The rules for
// it live here, once: what well-formed UTF-8 is, what text may reach a header
// or a CMake script, how an error message quotes input without letting its
// bytes act on a terminal, and how long text is cut without splitting a
// character.
//
// Hand-written: the probe depends on the standard library alone, which has no
// UTF-8 validation (std::codecvt_utf8 is deprecated and accepts surrogates).
#include <cstddef>
#include <string>
#include <string_view>

namespace gpu_topology::util {

// The code point the UTF-8 sequence at the start of `text` spells, and its
// length in bytes; length 0 when the sequence is ill-formed (Unicode 15,
// table 3-7): a stray continuation byte, a truncated sequence, an overlong
// form, a UTF-16 surrogate (U+D800..U+DFFF) or a code point above U+10FFFF.
struct Utf8Char {
    char32_t code = 0;
    std::size_t length = 0;
};
Utf8Char decode_utf8(std::string_view text);

// Appends `code` (at most U+10FFFF, no surrogate) as UTF-8.
void append_utf8(std::string& out, char32_t code);

// Whether `code` is a control character: C0, DEL or C1 (U+0080..U+009F, which
// terminals also obey: U+009B starts a control sequence), a bidirectional
// formatting character, which reorders what a reader sees of a header, a CMake
// script or a message ("Trojan Source", CVE-2021-42574), or U+FEFF, a byte
// order mark inside text, which shows as nothing.
constexpr bool is_control(char32_t code) {
    return code < 0x20 || (code >= 0x7f && code < 0xa0) || code == 0x61c || code == 0x200e || code == 0x200f ||
           (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code == 0xfeff;
}

// True when `text` is well-formed UTF-8 without control characters: safe to
// place, escaped, in a C++ string literal or a CMake argument.
bool is_safe_text(std::string_view text);

// `text` for an error message: control characters and bytes that are not
// UTF-8 written as \n, \t, \xNN or \u{NNNN}, cut to about
// `max_bytes` on a character boundary ("..." when cut). Nothing a file holds
// can then retitle or clear the terminal that shows the message.
std::string printable(std::string_view text, std::size_t max_bytes = 80);
// A whole message for a terminal: like printable, but uncut and keeping its
// line breaks. Every message gpu-topology-probe prints passes through it, so a
// file name or an argument that quotes control bytes is escaped as well.
std::string printable_lines(std::string_view text);

// At most `max_bytes` of `text`, cut on a character boundary, with `marker`
// appended when it was cut (the result is then at most max_bytes +
// marker.size()). `text` must be well-formed UTF-8 (validated profile text).
std::string clip(std::string_view text, std::size_t max_bytes, std::string_view marker);

}  // namespace gpu_topology::util
