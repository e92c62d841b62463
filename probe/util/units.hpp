#pragma once
// Binary size units, once for the whole probe.
#include <cstdint>

namespace gpu_topology::util {

inline constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

}  // namespace gpu_topology::util
