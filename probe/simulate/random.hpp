#pragma once
// Deterministic randomness for the simulated engine: the same description and
// seed give the same profile on every machine and standard library (the
// docs table of simulated architectures is checked against a fresh run), so
// nothing here uses <random>'s distributions or a transcendental function.
#include <cstdint>

namespace gpu_topology::simulate {

// SplitMix64: a hash of one 64-bit value (set indices, slices, seeds).
constexpr std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
// A hash of `x` as a number in [0, 1).
constexpr double unit_of(std::uint64_t x) { return double(mix(x) >> 11) * 0x1.0p-53; }

// xoshiro256**: one stream of draws.
class Random {
public:
    explicit Random(std::uint64_t seed) {
        for (auto& s : state_) s = seed = mix(seed);
    }
    std::uint64_t next() {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
    bool chance(double p) { return uniform() < p; }
    // About normal, mean 0 and standard deviation 1 (Irwin-Hall of 4 uniforms, scaled).
    double normal() { return (uniform() + uniform() + uniform() + uniform() - 2.0) * 1.7320508075688772; }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t state_[4]{};
};

}  // namespace gpu_topology::simulate
