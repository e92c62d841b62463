#pragma once
// The unit of a quantity: the text a profile writes ("bytes", "bytes/s", ...)
// and what the code decides by it (whole numbers, how far two runs may differ,
// how the table shows a value), as a type.
#include <cstdint>
#include <string_view>

namespace gpu_topology::model {

enum class Unit : std::uint8_t {
    none,  // a count without a unit (compute capability)
    bytes,
    bytes_per_s,
    cycles,
    ns,
    khz,
    flag,  // 0 or 1: whether two caches share storage
    sms,
    banks,
    blocks,
    entries,
    instances,
    registers,
    sets,
    threads,
    ways,
};

// The profile's text for `unit` (the "unit" field; docs/quantities.md).
constexpr std::string_view to_string(Unit unit) {
    switch (unit) {
        case Unit::none: return "";
        case Unit::bytes: return "bytes";
        case Unit::bytes_per_s: return "bytes/s";
        case Unit::cycles: return "cycles";
        case Unit::ns: return "ns";
        case Unit::khz: return "kHz";
        case Unit::flag: return "bool";
        case Unit::sms: return "SMs";
        case Unit::banks: return "banks";
        case Unit::blocks: return "blocks";
        case Unit::entries: return "entries";
        case Unit::instances: return "instances";
        case Unit::registers: return "registers";
        case Unit::sets: return "sets";
        case Unit::threads: return "threads";
        case Unit::ways: return "ways";
    }
    return "";
}

// Whether values in `unit` are counts, so whole numbers: times are medians and may be fractional.
constexpr bool is_whole(Unit unit) { return unit != Unit::cycles && unit != Unit::ns; }

}  // namespace gpu_topology::model
