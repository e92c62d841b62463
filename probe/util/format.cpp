#include "format.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

namespace gpu_topology::util {

std::string format_fixed(double value, int decimals) {
    if (!std::isfinite(value)) value = 0;
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
    if (ec != std::errc{}) return "0";
    std::string s(buffer, end);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

std::string format_significant(double value, int significant) {
    int whole_digits = 1;
    for (double bound = 10; std::abs(value) >= bound && whole_digits < 16; bound *= 10) ++whole_digits;
    return format_fixed(value, std::max(0, significant - whole_digits));
}

std::string format_bytes(double bytes, int significant) {
    static constexpr std::array<std::string_view, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (!std::isfinite(bytes)) return "? B";
    std::size_t unit = 0;
    // 1023.9 KiB reads better as 1 MiB than as "1024 KiB".
    while (std::abs(bytes) >= 1023.5 && unit + 1 < units.size()) bytes /= 1024, ++unit;
    return (unit == 0 ? format_fixed(bytes, 0) : format_significant(bytes, significant)) + " " + std::string(units[unit]);
}

std::string format_bandwidth(double bytes_per_s, int significant) {
    if (!std::isfinite(bytes_per_s)) return "? B/s";
    if (bytes_per_s >= 999.5e9) return format_significant(bytes_per_s / 1e12, significant) + " TB/s";
    if (bytes_per_s >= 999.5e6) return format_significant(bytes_per_s / 1e9, significant) + " GB/s";
    return format_significant(bytes_per_s / 1e6, significant) + " MB/s";
}

}  // namespace gpu_topology::util
