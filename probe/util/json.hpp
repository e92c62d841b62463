#pragma once
// A small JSON value (parse, build, print) for the profile format.
//
// Hand-written on purpose: the probe must configure on any machine with only
// the CUDA toolkit and the standard library, and a profile is a few kilobytes
// of plain objects, strings and numbers. Parse errors name line and column.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gpu_topology::util {

// Keys longer than this are refused while parsing (a profile's keys are short
// names; docs/profile-schema.md promises the bound for every string).
inline constexpr std::size_t kMaxKeyBytes = 4096;
// A document holds at most this many values (a profile about 2000, a node of
// 64 devices about 100 000): parsing stops there, so a file of small values
// (16 MiB of "0,") cannot take twenty times its size in memory.
inline constexpr std::size_t kMaxValues = 1 << 20;

class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Json {
public:
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order

    Json() = default;  // null
    Json(std::nullptr_t) {}
    Json(bool b) : value_(b) {}
    Json(double d) : value_(d) {}
    Json(int i) : value_(double(i)) {}
    Json(std::int64_t i) : value_(double(i)) {}
    Json(std::uint64_t i) : value_(double(i)) {}
    Json(std::uint32_t i) : value_(double(i)) {}
    Json(const char* s) : value_(std::string(s)) {}
    Json(std::string s) : value_(std::move(s)) {}
    Json(std::string_view s) : value_(std::string(s)) {}
    Json(Array a) : value_(std::move(a)) {}
    Json(Object o) : value_(std::move(o)) {}
    static Json object() { Json j; j.value_ = Object{}; return j; }
    static Json array() { Json j; j.value_ = Array{}; return j; }

    bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
    bool is_bool() const { return std::holds_alternative<bool>(value_); }
    bool is_number() const { return std::holds_alternative<double>(value_); }
    bool is_string() const { return std::holds_alternative<std::string>(value_); }
    bool is_array() const { return std::holds_alternative<Array>(value_); }
    bool is_object() const { return std::holds_alternative<Object>(value_); }
    std::string_view type_name() const;

    bool as_bool() const { return std::get<bool>(value_); }
    double as_number() const { return std::get<double>(value_); }
    const std::string& as_string() const { return std::get<std::string>(value_); }
    const Array& as_array() const { return std::get<Array>(value_); }
    const Object& as_object() const { return std::get<Object>(value_); }
    Array& as_array() { return std::get<Array>(value_); }
    Object& as_object() { return std::get<Object>(value_); }

    // Object access: find returns nullptr when absent; operator[] inserts.
    const Json* find(std::string_view key) const;
    Json& operator[](std::string_view key);
    // Dotted path lookup ("caches.l1.size_bytes"); nullptr when any step is absent.
    const Json* at_path(std::string_view dotted) const;
    // The same path for writing: the objects along it are created where absent.
    Json& path_to(std::string_view dotted);
    void push_back(Json v) { std::get<Array>(value_).push_back(std::move(v)); }

    // `indent` < 0: compact. Numbers that are whole print without a fraction.
    std::string dump(int indent = 2) const;
    // Compact JSON, cut once it reaches `max_bytes`: the start of a value of any size, in time of that size.
    std::string dump_prefix(std::size_t max_bytes) const;
    // Throws JsonError "<source>:<line>:<column>: <what>". A leading UTF-8 byte
    // order mark is skipped. Linear in the size of the text. Strict: RFC 8259
    // numbers only (no "0132", "132.", "-.0"; 1e400 is out of range), strings of
    // well-formed UTF-8 whose \u surrogate pairs decode to one code point,
    // keys of at most kMaxKeyBytes, at most kMaxValues values, nested at most 64
    // deep; what an error quotes is escaped (text.hpp).
    static Json parse(std::string_view text, std::string_view source = "<json>");

private:
    void dump_to(std::string& out, int indent, int depth, std::size_t limit) const;
    std::variant<std::nullptr_t, bool, double, std::string, Array, Object> value_;
};

std::string format_number(double value);

// The string at a dotted path of `root`, or "" when it is absent or not a string.
std::string string_at(const Json& root, std::string_view path);

// A value as an error message quotes it: compact JSON cut to about 60 bytes,
// control characters escaped (util::printable), or "absent". Its cost does not
// grow with the size of the value.
std::string excerpt(const Json* value);

}  // namespace gpu_topology::util
