// The JSON reader and the text rules against hostile input (issues 20, 34):
// strict numbers, well-formed UTF-8, surrogate pairs, bounded keys and nesting,
// and error messages that say what they found and quote input without passing
// its control bytes to a terminal.
#include "util/json.hpp"
#include "profile/profile.hpp"
#include "util/text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {
using namespace gpu_topology::profile;
using namespace gpu_topology::util;

std::string parse_error(const std::string& text) {
    try {
        Json::parse(text, "t.json");
    } catch (const JsonError& e) {
        return e.what();
    }
    return "";
}

std::string repeated_object(std::size_t depth) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) text += "{\"a\":";
    return text + "1" + std::string(depth, '}');
}

bool has_raw_control(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = decode_utf8(std::string_view(s).substr(i));
        if (c.length == 0 || (is_control(c.code) && c.code != '\n')) return true;
        i += c.length;
    }
    return false;
}

TEST(JsonNumbers, OnlyTheJsonGrammarIsANumber) {
    for (const char* bad : {"[.5]", "[+1]", "[0x10]", "[1e5.5]"}) EXPECT_NE(parse_error(bad), "") << bad;
    for (const char* bad : {"[0132]", "[132.]", "[-.0]", "[1.e5]", "[1e]", "[1e+]", "[-]", "[00]", "[-01]",
                            "[1..2]", "[--1]"}) {
        const auto error = parse_error(bad);
        EXPECT_NE(error.find("malformed number"), std::string::npos) << bad << ": " << error;
    }
    for (const char* good : {"0", "-0", "0.5", "-0.5e-3", "1E+2", "132", "1e308", "123456789012345678901234567890"})
        EXPECT_EQ(parse_error(good), "") << good;
    EXPECT_EQ(Json::parse("-0.5e-3").as_number(), -0.5e-3);
}

// What a hostile file writes for a number, and an error that says what is wrong
// with it (issue 34: a hex number gave "expected ',' or '}'").
TEST(JsonNumbers, ErrorsSayWhatIsWrongWithTheNumber) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"a": 0x1F})", "t.json:1:7: malformed number '0x1F': hexadecimal is not JSON: numbers are decimal"},
        {"[-0x10]", "malformed number '-0x10': hexadecimal is not JSON"},
        {"[12abc]", "malformed number '12abc': more than a number"},
        {"[1.2.3]", "malformed number '1.2.3': more than a number"},
        {"[1_000]", "malformed number '1_000': more than a number"},
        {"[+1]", "malformed number '+1': a JSON number has no leading '+'"},
        {"[.5]", "malformed number '.5': a JSON number has a digit before its decimal point"},
        {"[NaN]", "unexpected 'NaN': not a JSON value (an object, array, string, number, true, false or null; JSON has no "
                  "NaN or Infinity)"},
        {"[Infinity]", "JSON has no NaN or Infinity"},
        {"[-Infinity]", "malformed number '-Infinity': expected a digit"},
        {"[1e999]", "number out of range: 1e999"},
        {"[undefined]", "unexpected 'undefined': not a JSON value"},
    };
    for (const auto& [text, expected] : cases) {
        const auto error = parse_error(text);
        EXPECT_NE(error.find(expected), std::string::npos) << text << ": " << error;
    }
    // -0 is a number (and a size of -0 is below every size's minimum).
    EXPECT_EQ(parse_error("[-0, -0.0, 0e0]"), "");
    EXPECT_TRUE(std::signbit(Json::parse("-0").as_number()));
}

// Structure errors name what stands where the grammar wanted something else.
TEST(JsonText, StructureErrorsNameWhatTheyFound) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {std::string("{\0\"a\": 1}", 9), "t.json:1:2: expected a quoted key, got '\\u{0000}' (a control character)"},
        {R"({"a": 1,})", "expected a quoted key, got '}' (JSON allows no comma before '}')"},
        {R"({"a" 1})", "expected ':' after key \"a\", got '1'"},
        {R"({"a": 1 "b": 2})", "expected ',' or '}' in object, got '\"'"},
        {"[1 2]", "expected ',' or ']' in array, got '2'"},
        {"{\"a\": 1", "expected ',' or '}' in object, got the end of the input"},
        {"[\xff]", "unexpected character '\\xff' (not UTF-8)"},
        {"[\xef\xbb\xbf" "1]", "unexpected character '\\u{feff}' (a control character)"},  // a BOM, but not at the start
        {"\xef\xbb\xbf\xef\xbb\xbf{}", "unexpected character '\\u{feff}'"},               // two
        {R"({"a": 1, "a": 2})", "duplicate key \"a\""},
        {R"({"a": {"b": 1, "b": 1}})", "duplicate key \"b\""},
    };
    for (const auto& [text, expected] : cases) {
        const auto error = parse_error(text);
        EXPECT_NE(error.find(expected), std::string::npos) << printable(text) << ": " << error;
        EXPECT_FALSE(has_raw_control(error)) << error;
    }
    EXPECT_EQ(parse_error("\xef\xbb\xbf{}"), "") << "one byte order mark at the start is read";
}

// Nesting is bounded (64 levels) before the stack is: a million brackets are one error, quickly.
TEST(JsonText, DeepNestingIsRefusedNotRecursedInto) {
    EXPECT_EQ(parse_error(std::string(64, '[') + std::string(64, ']')), "");
    for (const std::size_t depth : {66u, 1000000u}) {
        const auto error = parse_error(std::string(depth, '[') + std::string(depth, ']'));
        EXPECT_NE(error.find("nesting deeper than 64 levels"), std::string::npos) << error.substr(0, 200);
        const auto objects = parse_error(repeated_object(depth));
        EXPECT_NE(objects.find("nesting deeper than 64 levels"), std::string::npos) << objects.substr(0, 200);
    }
}

// A document of many small values is refused at kMaxValues, not held in twenty times its size.
TEST(JsonText, ValuesAreBounded) {
    std::string text = "[";
    for (std::size_t i = 0; i + 1 < kMaxValues; ++i) text += "0,";
    text.back() = ']';
    EXPECT_EQ(parse_error(text), "") << "kMaxValues values, the array included";
    text.back() = ',';
    text += "0,0]";
    EXPECT_NE(parse_error(text).find("more than 1048576 values: larger than any profile"), std::string::npos);
}

// An error quotes at most the start of a value, whatever its size.
TEST(JsonText, ExcerptsAreShortWhateverTheValue) {
    Json big = Json::array();
    for (int i = 0; i < 1000000; ++i) big.push_back(Json(i));
    const auto start = std::chrono::steady_clock::now();
    std::string quoted;
    for (int i = 0; i < 1000; ++i) quoted = excerpt(&big);
    // Dumping the whole value each time would write 7 GB; the start of it is a few kilobytes in all.
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
    EXPECT_LE(quoted.size(), 64u);
    EXPECT_EQ(quoted.rfind("[0,1,2,3,", 0), 0u) << quoted;
}

TEST(JsonNumbers, BeyondADoubleIsOutOfRangeNotMalformed) {
    for (const std::string big : {std::string("1e400"), std::string("-1e400"), std::string(400, '9')}) {
        const auto error = parse_error("[" + big + "]");
        EXPECT_NE(error.find("number out of range"), std::string::npos) << error;
        EXPECT_EQ(error.find("malformed"), std::string::npos) << error;
        EXPECT_LT(error.size(), 200u) << "the message quotes a cut number";
    }
}

TEST(JsonText, IllFormedUtf8IsRefused) {
    for (const char* bad : {"\xc0\xaf",            // overlong '/'
                            "\xe0\x80\xaf",        // overlong, three bytes
                            "\xf0\x80\x80\xaf",    // overlong, four bytes
                            "\xed\xa0\x80",        // raw surrogate U+D800
                            "\xf4\x90\x80\x80",    // U+110000
                            "\xf8\x88\x80\x80\x80", "\x80", "\xc3"}) {
        const auto error = parse_error(std::string("[\"a") + bad + "b\"]");
        EXPECT_NE(error.find("invalid UTF-8"), std::string::npos) << error;
        EXPECT_FALSE(has_raw_control(error)) << error;
        EXPECT_FALSE(is_safe_text(bad));
    }
    EXPECT_EQ(Json::parse("\"na\xc3\xafve \xf0\x9f\x98\x80\"").as_string(), "na\xc3\xafve \xf0\x9f\x98\x80");
}

TEST(JsonText, SurrogatePairsDecodeToOneCodePoint) {
    EXPECT_EQ(Json::parse(R"("\uD83D\uDE00")").as_string(), "\xf0\x9f\x98\x80");  // 4 bytes, not 6 of CESU-8
    EXPECT_EQ(Json::parse(R"("\u00e9\u20ac")").as_string(), "\xc3\xa9\xe2\x82\xac");
    for (const char* lone : {R"("\uD800")", R"("\uDC00")", R"("\uD800x")", R"("\uD800\u0041")", R"("\uDBFF\uD800")"}) {
        const auto error = parse_error(lone);
        EXPECT_NE(error.find("surrogate"), std::string::npos) << lone << ": " << error;
    }
}

TEST(JsonText, ErrorMessagesEscapeWhatTheyQuote) {
    const std::string esc = "\x1b]0;pwned\x07\x1b[2J";
    EXPECT_FALSE(has_raw_control(parse_error("{\"" + esc + "\": 1, \"" + esc + "\": 2}")));  // duplicate key (raw ESC refused)
    const std::string escaped_key = R"("\u001b]0;pwned\u0007\u001b[2J")";
    const auto duplicate = parse_error("{" + escaped_key + ": 1, " + escaped_key + ": 2}");
    EXPECT_NE(duplicate.find("duplicate key"), std::string::npos) << duplicate;
    EXPECT_FALSE(has_raw_control(duplicate)) << duplicate;
    EXPECT_FALSE(has_raw_control(parse_error("[\x1b[2J]")));
    EXPECT_FALSE(has_raw_control(parse_error("[\xc2\x9b" "2J]")));  // C1 CSI
    EXPECT_FALSE(has_raw_control(parse_error("[\"\\\x1b\"]")));     // an unknown escape
    // Validation errors quote keys and values escaped too.
    auto profile = Json::object();
    profile["schema"] = std::string(gpu_topology::model::kSchema);
    profile["\x1b[2J\xc2\x9b"] = "\x1b]0;title\x07";
    std::string all;
    for (const auto& e : validate(profile)) all += e + "\n";
    EXPECT_NE(all.find("control characters"), std::string::npos) << all;
    EXPECT_FALSE(has_raw_control(all));
    EXPECT_EQ(printable("a\x1b[2J\n\xff\xc2\x9b"), "a\\u{001b}[2J\\n\\xff\\u{009b}");
}

TEST(JsonText, KeysLongerThanTheDocumentedLimitAreRefused) {
    const std::string key(1 << 20, 'k');
    const auto error = parse_error("{\"" + key + "\": 1}");
    EXPECT_NE(error.find("longer than 4096"), std::string::npos) << error.substr(0, 200);
    EXPECT_LT(error.size(), 300u);
    EXPECT_EQ(parse_error("{\"" + std::string(4096, 'k') + "\": 1}"), "");
}

TEST(SafeText, ControlCharactersOfEveryKindAreNot) {
    EXPECT_FALSE(is_safe_text("\x7f"));
    EXPECT_FALSE(is_safe_text("\xc2\x85"));  // NEL, C1
    EXPECT_FALSE(is_safe_text("admin\xe2\x80\xae" "txt.exe"));  // U+202E, right-to-left override
    EXPECT_FALSE(is_safe_text("\xe2\x81\xa6"));                   // U+2066, left-to-right isolate
    EXPECT_EQ(printable("a\xe2\x80\xae" "b"), "a\\u{202e}b");
    EXPECT_TRUE(is_safe_text("\xc2\xa0\xef\xbf\xbd"));
}

TEST(Clip, CutsOnCharacterBoundariesAndMarksTheCut) {
    const std::string e_acute = "\xc3\xa9";
    std::string text = "x";
    for (int i = 0; i < 1000; ++i) text += e_acute;
    for (std::size_t max : {1u, 2u, 3u, 1022u, 1023u}) {
        const auto cut = clip(text, max, "...");
        EXPECT_TRUE(is_safe_text(cut)) << max;
        EXPECT_LE(cut.size(), max + 3);
        EXPECT_EQ(cut.substr(cut.size() - 3), "...");
    }
    EXPECT_EQ(clip("short", 10, "..."), "short");
}

}  // namespace
