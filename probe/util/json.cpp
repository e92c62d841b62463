#include "json.hpp"

#include "text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_set>

namespace gpu_topology::util {

std::string_view Json::type_name() const {
    switch (value_.index()) {
        case 0: return "null";
        case 1: return "boolean";
        case 2: return "number";
        case 3: return "string";
        case 4: return "array";
        default: return "object";
    }
}

const Json* Json::find(std::string_view key) const {
    if (!is_object()) return nullptr;
    for (const auto& [k, v] : as_object())
        if (k == key) return &v;
    return nullptr;
}

Json& Json::operator[](std::string_view key) {
    if (is_null()) value_ = Object{};
    auto& object = std::get<Object>(value_);
    for (auto& [k, v] : object)
        if (k == key) return v;
    object.emplace_back(std::string(key), Json{});
    return object.back().second;
}

const Json* Json::at_path(std::string_view dotted) const {
    const Json* node = this;
    while (node && !dotted.empty()) {
        const auto dot = dotted.find('.');
        node = node->find(dotted.substr(0, dot));
        dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
    }
    return node;
}

Json& Json::path_to(std::string_view dotted) {
    Json* node = this;
    while (!dotted.empty()) {
        const auto dot = dotted.find('.');
        node = &(*node)[dotted.substr(0, dot)];
        dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
    }
    return *node;
}

std::string excerpt(const Json* value) {
    if (!value) return "absent";
    return printable(value->dump_prefix(64), 57);
}

std::string string_at(const Json& root, std::string_view path) {
    const Json* node = root.at_path(path);
    return node && node->is_string() ? node->as_string() : std::string{};
}

std::string format_number(double value) {
    if (std::isfinite(value) && value == std::floor(value) && std::abs(value) < 9.007199254740992e15) {
        char buffer[32];
        auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, static_cast<long long>(value));
        return std::string(buffer, end);
    }
    if (!std::isfinite(value)) return "null";
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, end);
}

namespace {

void escape(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                    out += buffer;
                } else {
                    out += char(c);
                }
        }
    }
    out += '"';
}

class Parser {
public:
    Parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

    Json parse_document() {
        Json value = parse_value(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the JSON value");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
            if (text_[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        const std::string end = pos_ >= text_.size() ? " (the input ends here: truncated file?)" : "";
        throw JsonError(std::string(source_) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                        what + end);
    }
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                                       text_[pos_] == '\t'))
            ++pos_;
    }
    // What stands at the current position, for an error: "'x'", or "the end of the input".
    std::string found() const {
        if (pos_ >= text_.size()) return "the end of the input";
        const std::size_t length = std::max<std::size_t>(decode_utf8(text_.substr(pos_)).length, 1);
        const auto c = decode_utf8(text_.substr(pos_, length));
        return "'" + printable(text_.substr(pos_, length)) + "'" +
               (c.length == 0 ? " (not UTF-8)" : is_control(c.code) ? " (a control character)" : "");
    }
    // The word at the current position (letters, digits and what numbers hold), for an error.
    std::string word_at(std::size_t start) const {
        std::size_t end = start;
        while (end < text_.size() && end - start < 40 &&
               (std::isalnum(static_cast<unsigned char>(text_[end])) || std::string_view("+-._").find(text_[end]) != std::string_view::npos))
            ++end;
        return std::string(text_.substr(start, end - start));
    }
    bool consume(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }
    Json parse_value(int depth) {
        if (depth > 64) fail("nesting deeper than 64 levels");
        if (++values_ > kMaxValues) fail("more than " + std::to_string(kMaxValues) + " values: larger than any profile");
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end of input (truncated file?)");
        const char c = text_[pos_];
        if (c == '{') return parse_object(depth);
        if (c == '[') return parse_array(depth);
        if (c == '"') return Json(parse_string());
        if (consume("true")) return Json(true);
        if (consume("false")) return Json(false);
        if (consume("null")) return Json(nullptr);
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
        if (c == '+' || c == '.') {
            const std::string word = word_at(pos_);
            fail("malformed number '" + printable(word, 40) + "': " +
                 (c == '+' ? "a JSON number has no leading '+'" : "a JSON number has a digit before its decimal point"));
        }
        if (std::isalpha(static_cast<unsigned char>(c))) {
            const std::string word = word_at(pos_);
            fail("unexpected '" + printable(word, 40) + "': not a JSON value (an object, array, string, number, true, "
                 "false or null" + (word == "NaN" || word == "Infinity" || word == "nan" || word == "inf"
                                        ? "; JSON has no NaN or Infinity)" : ")"));
        }
        fail("unexpected character " + found());
    }
    // The JSON grammar (RFC 8259, section 6): -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    // from_chars alone would take "0132", "132." and "-.0"; a number the grammar
    // allows but a double cannot hold (1e400, 400 digits) is out of range, not malformed.
    Json parse_number() {
        const std::size_t start = pos_;
        const auto digit = [&] { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; };
        const auto digits = [&] {
            const std::size_t first = pos_;
            while (digit()) ++pos_;
            return pos_ > first;
        };
        const auto malformed = [&](const char* what) {
            const std::string number = word_at(start);
            pos_ = start;
            fail("malformed number '" + printable(number, 40) + "': " + what);
        };
        if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '0') {
            ++pos_;
            if (digit()) malformed("no leading zeros");
        } else if (!digits()) {
            malformed("expected a digit");
        }
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (!digits()) malformed("expected a digit after the decimal point");
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (!digits()) malformed("expected a digit in the exponent");
        }
        // "0x1F", "1.2.3", "12abc": a number runs into more of what is no number.
        if (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                                    text_[pos_] == '_'))
            malformed(text_[pos_] == 'x' || text_[pos_] == 'X' ? "hexadecimal is not JSON: numbers are decimal"
                                                               : "more than a number (JSON numbers are decimal digits)");
        double value = 0;
        const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
        if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
            const std::string number(text_.substr(start, pos_ - start));
            pos_ = start;
            fail("number out of range: " + printable(number, 40) + " (a double holds about 1e-308 to 1.8e308)");
        }
        if (ec != std::errc{} || end != text_.data() + pos_) malformed("not a number");
        return Json(value);
    }
    std::string parse_string() {
        ++pos_;  // opening quote
        std::string out;
        while (true) {
            if (pos_ >= text_.size()) fail("unterminated string (truncated file?)");
            const char c = text_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character inside a string");
            if (static_cast<unsigned char>(c) >= 0x80) {
                const auto character = decode_utf8(text_.substr(pos_ - 1));
                if (character.length == 0) {
                    --pos_;
                    fail("invalid UTF-8 in a string (byte " + printable(text_.substr(pos_, 1)) +
                         "): overlong, a surrogate, above U+10FFFF or truncated");
                }
                out.append(text_.substr(pos_ - 1, character.length));
                pos_ += character.length - 1;
                continue;
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= text_.size()) fail("unterminated escape");
            const char e = text_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    // A UTF-16 surrogate pair is one code point, written as the 4 bytes of its
                    // UTF-8 (not 6 of CESU-8); a lone surrogate is no character at all.
                    char32_t code = hex4();
                    if (code >= 0xdc00 && code <= 0xdfff) fail("lone low surrogate in a \\u escape");
                    if (code >= 0xd800 && code <= 0xdbff) {
                        if (text_.substr(pos_, 2) != "\\u") fail("high surrogate \\u escape without its low half");
                        pos_ += 2;
                        const char32_t low = hex4();
                        if (low < 0xdc00 || low > 0xdfff) fail("high surrogate \\u escape without its low half");
                        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                    }
                    append_utf8(out, code);
                    break;
                }
                default: fail("unknown escape '\\" + printable(std::string_view(&e, 1)) + "'");
            }
        }
    }
    // The four hexadecimal digits of a \u escape.
    char32_t hex4() {
        if (pos_ + 4 > text_.size()) fail("short \\u escape");
        unsigned code = 0;
        const auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code, 16);
        if (ec != std::errc{} || end != text_.data() + pos_ + 4) fail("bad \\u escape");
        pos_ += 4;
        return code;
    }
    Json parse_array(int depth) {
        ++pos_;
        Json array = Json::array();
        skip_space();
        if (consume("]")) return array;
        while (true) {
            array.push_back(parse_value(depth + 1));
            skip_space();
            if (consume("]")) return array;
            if (!consume(",")) fail("expected ',' or ']' in array, got " + found());
        }
    }
    Json parse_object(int depth) {
        ++pos_;
        Json::Object members;
        std::unordered_set<std::string> keys;  // duplicate keys found in constant time, not by a scan
        skip_space();
        if (consume("}")) return Json(std::move(members));
        while (true) {
            skip_space();
            if (pos_ >= text_.size() || text_[pos_] != '"')
                fail("expected a quoted key, got " + found() +
                     (pos_ < text_.size() && text_[pos_] == '}' ? " (JSON allows no comma before '}')" : ""));
            const std::size_t key_start = pos_;
            std::string key = parse_string();
            if (key.size() > kMaxKeyBytes) {
                pos_ = key_start;
                fail("key of " + std::to_string(key.size()) + " bytes, longer than " + std::to_string(kMaxKeyBytes));
            }
            if (!keys.insert(key).second) fail("duplicate key \"" + printable(key) + "\"");
            skip_space();
            if (!consume(":")) fail("expected ':' after key \"" + printable(key) + "\", got " + found());
            Json value = parse_value(depth + 1);
            members.emplace_back(std::move(key), std::move(value));
            skip_space();
            if (consume("}")) return Json(std::move(members));
            if (!consume(",")) fail("expected ',' or '}' in object, got " + found());
        }
    }

    std::string_view text_;
    std::string_view source_;
    std::size_t pos_ = 0;
    std::size_t values_ = 0;
};

}  // namespace

void Json::dump_to(std::string& out, int indent, int depth, std::size_t limit) const {
    if (out.size() >= limit) return;
    const auto newline = [&](int d) {
        if (indent < 0) return;
        out += '\n';
        out.append(std::size_t(indent * d), ' ');
    };
    switch (value_.index()) {
        case 0: out += "null"; break;
        case 1: out += as_bool() ? "true" : "false"; break;
        case 2: out += format_number(as_number()); break;
        case 3: escape(out, as_string()); break;
        case 4: {
            const auto& a = as_array();
            if (a.empty()) {
                out += "[]";
                break;
            }
            const bool scalars = indent < 0 || std::all_of(a.begin(), a.end(), [](const Json& v) {
                                     return !v.is_array() && !v.is_object();
                                 });
            out += '[';
            for (std::size_t i = 0; i < a.size() && out.size() < limit; ++i) {
                if (i) out += scalars || indent < 0 ? (indent < 0 ? "," : ", ") : ",";
                if (!scalars) newline(depth + 1);
                a[i].dump_to(out, indent, depth + 1, limit);
            }
            if (!scalars) newline(depth);
            out += ']';
            break;
        }
        default: {
            const auto& o = as_object();
            if (o.empty()) {
                out += "{}";
                break;
            }
            out += '{';
            for (std::size_t i = 0; i < o.size() && out.size() < limit; ++i) {
                if (i) out += ',';
                newline(depth + 1);
                escape(out, o[i].first);
                out += indent < 0 ? ":" : ": ";
                o[i].second.dump_to(out, indent, depth + 1, limit);
            }
            newline(depth);
            out += '}';
        }
    }
}

std::string Json::dump(int indent) const {
    std::string out;
    dump_to(out, indent, 0, std::string::npos);
    if (indent >= 0) out += '\n';
    return out;
}

std::string Json::dump_prefix(std::size_t max_bytes) const {
    std::string out;
    dump_to(out, -1, 0, max_bytes);
    return out.size() > max_bytes ? out.substr(0, max_bytes) : out;
}

Json Json::parse(std::string_view text, std::string_view source) {
    constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
    if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) text.remove_prefix(kByteOrderMark.size());
    return Parser(text, source).parse_document();
}

}  // namespace gpu_topology::util
