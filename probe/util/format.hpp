#pragma once
// Numbers as the probe shows them to people: the printed table, the pictures
// and messages format sizes and rates here, one way. (Method texts stored in
// profiles keep their own wording: stages/results.cpp.) Built on to_chars,
// not printf: no locale changes a byte, so one profile always gives one text.
#include "units.hpp"

#include <string>

namespace gpu_topology::util {

// Fixed point with `decimals` decimals, trailing zeros trimmed: 2.50 -> "2.5", 3.0 -> "3".
std::string format_fixed(double value, int decimals);
// `significant` digits (at least the whole part), trailing zeros trimmed:
// 241.3 -> "241", 27.25 -> "27.3" with 3, "27.25" with 4.
std::string format_significant(double value, int significant);
// Bytes in binary units: "512 B", "16 KiB", "23.5 MiB" (3 significant digits;
// the table asks for 4: "27.25 MiB"). 1023.5 KiB and up reads as the next unit.
std::string format_bytes(double bytes, int significant);
inline std::string format_bytes(double bytes) { return format_bytes(bytes, 3); }
// Bytes per second in decimal units: "3.06 TB/s", "850 GB/s", "12.5 MB/s".
std::string format_bandwidth(double bytes_per_s, int significant);
inline std::string format_bandwidth(double bytes_per_s) { return format_bandwidth(bytes_per_s, 3); }

}  // namespace gpu_topology::util
