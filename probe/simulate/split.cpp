#include "split.hpp"

#include <algorithm>
#include <cmath>

namespace gpu_topology::simulate {
namespace {

const KindRule& rule_of(const SplitRule& rule, const KernelShape& shape) {
    if (shape.kernel == kernels::ChaseKernel::probe) return rule.fixed;
    return shape.dynamic_shared_bytes ? rule.dynamic : rule.none;
}

std::uint64_t step_for(const std::vector<ThreadStep>& steps, std::uint32_t threads) {
    for (const auto& s : steps)
        if (threads <= s.threads_at_most) return s.bytes;
    return steps.empty() ? 0 : steps.back().bytes;
}

// The smallest supported size holding `bytes`, or the largest.
std::uint64_t round_up(const std::vector<std::uint64_t>& sizes, double bytes) {
    for (const auto s : sizes)
        if (double(s) >= bytes) return s;
    return sizes.back();
}

std::uint32_t blocks_by_threads(const Architecture& arch, std::uint32_t threads) {
    const auto t = std::max<std::uint32_t>(threads, 1);
    return static_cast<std::uint32_t>(std::min<std::int64_t>(arch.facts.max_blocks_per_sm, arch.facts.max_threads_per_sm / t));
}

}  // namespace

std::uint64_t shared_split(const Architecture& arch, const KernelShape& shape) {
    const auto& rule = arch.unified.split;
    const std::uint32_t declared = shape.declared_bytes();
    for (const auto& e : rule.exceptions)
        if (e.kernel == shape.kernel && e.declared_bytes == declared && e.threads == shape.threads &&
            e.carveout_percent == shape.carveout_percent)
            return e.shared_bytes;
    const KindRule& kind = rule_of(rule, shape);
    const double one_block = double(declared) + double(arch.facts.reserved_shared_per_block_bytes);
    double want = 0;
    if (shape.carveout_percent >= 0) {
        want = shape.carveout_percent / 100.0 * kind.percent_of_bytes;
    } else {
        switch (kind.default_split) {
            case DefaultSplit::least: break;
            case DefaultSplit::by_threads: want = double(step_for(kind.default_by_threads, shape.threads)); break;
            case DefaultSplit::occupancy: {
                // As many blocks as the block size allows, each with its shared memory and reservation,
                // as far as the largest split holds them.
                const double most = double(rule.supported_shared_bytes.back());
                const double fit = one_block > 0 ? std::floor(most / one_block) : 1e9;
                want = std::min<double>(blocks_by_threads(arch, shape.threads), fit) * one_block;
                break;
            }
        }
    }
    want = std::max({want, one_block, double(step_for(kind.least_by_threads, shape.threads))});
    return round_up(rule.supported_shared_bytes, want);
}

std::uint64_t l1_bytes(const Architecture& arch, const KernelShape& shape) {
    const std::uint64_t taken = shared_split(arch, shape) + arch.unified.unusable_bytes;
    return arch.unified.bytes > taken ? arch.unified.bytes - taken : 0;
}

double l1_read_bytes_per_cycle(const Architecture& arch) {
    return arch.unified.bandwidth_bytes_per_cycle > 0 ? arch.unified.bandwidth_bytes_per_cycle
                                                      : double(arch.shared.banks) * arch.shared.bank_bytes;
}

std::uint32_t resident_blocks(const Architecture& arch, const KernelShape& shape) {
    const auto& rule = arch.unified.split;
    const double unit = rule.allocation_unit_bytes;
    const double per_block =
        std::ceil(double(shape.declared_bytes()) / unit) * unit + double(arch.facts.reserved_shared_per_block_bytes);
    // The calculator reads the carveout as the Programming Guide defines it: a share of the
    // largest split, rounded up to a supported size and never below one block's need.
    const double most = double(rule.supported_shared_bytes.back());
    const double config = shape.carveout_percent < 0
                              ? most
                              : double(round_up(rule.supported_shared_bytes,
                                                std::max(shape.carveout_percent / 100.0 * most, per_block)));
    std::uint32_t blocks = blocks_by_threads(arch, shape.threads);
    if (per_block > 0) blocks = std::min<std::uint32_t>(blocks, static_cast<std::uint32_t>(config / per_block));
    return blocks;
}

}  // namespace gpu_topology::simulate
