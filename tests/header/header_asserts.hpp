// Compile-time checks shared by the C++ and CUDA header tests.
#include <gpu_topology.hpp>

namespace gt = gpu_topology;

static_assert(gt::l1.size_bytes == GPU_TOPOLOGY_L1_SIZE_BYTES, "constant and macro agree");
static_assert(gt::l2_near.size_bytes == GPU_TOPOLOGY_L2_NEAR_SIZE_BYTES, "constant and macro agree");
static_assert(gt::l1.line_bytes == GPU_TOPOLOGY_L1_LINE_BYTES && gt::l2.line_bytes == GPU_TOPOLOGY_L2_LINE_BYTES);
static_assert(gt::l1.size_bytes > gt::l1_max_shared_carveout.size_bytes, "max-L1 carveout leaves L1 more room");
static_assert(gt::l2_near.size_bytes <= gt::l2.size_bytes, "near part of L2 within L2");
static_assert(gt::l1.latency_cycles < gt::l2_near.latency_cycles && gt::l2_near.latency_cycles < gt::dram.latency_cycles,
              "latencies grow down the hierarchy");
static_assert(gt::identity.cc_major == GPU_TOPOLOGY_CC_MAJOR && gt::sm_count == GPU_TOPOLOGY_SM_COUNT);
// Helpers: exact arithmetic on known inputs, then on the constants.
static_assert(gt::square_tile_edge<float>(4 * 100 * 100) == 100 && gt::square_tile_edge<float>(4 * 100 * 100 - 1) == 99);
static_assert(gt::cubic_tile_edge<double>(8 * 27) == 3 && gt::cubic_tile_edge<double>(8 * 26) == 2);
static_assert(gt::elements_in<double>(gt::l1) == gt::l1.size_bytes / 8);
static_assert(gt::whole_lines(gt::l1.line_bytes * 3 + 1, gt::l1) == gt::l1.line_bytes * 3);
static_assert(gt::layers_fit(1, gt::l2_near.size_bytes, gt::l2_near) && !gt::layers_fit(2, gt::l2_near.size_bytes, gt::l2_near));
constexpr auto kTile = gt::square_tile_edge<float>(gt::l1.size_bytes / 2);
static_assert(kTile * kTile * sizeof(float) <= gt::l1.size_bytes / 2 &&
              (kTile + 1) * (kTile + 1) * sizeof(float) > gt::l1.size_bytes / 2);
// The cache family: constants agree with their macros; relations hold as measured.
static_assert(gt::texture.size_bytes == GPU_TOPOLOGY_TEXTURE_SIZE_BYTES &&
              gt::readonly.size_bytes == GPU_TOPOLOGY_READONLY_SIZE_BYTES);
static_assert(gt::constant_l1.latency_cycles == GPU_TOPOLOGY_CONSTANT_L1_LATENCY_CYCLES);
static_assert(gt::l1.miss_penalty_cycles == GPU_TOPOLOGY_L1_MISS_PENALTY_CYCLES && gt::l1.per_sm == GPU_TOPOLOGY_L1_PER_SM);
static_assert(gt::same_storage.l1_texture == (GPU_TOPOLOGY_L1_TEXTURE_SAME_STORAGE != 0));
static_assert(gt::same_storage.l1_constant_l1 == (GPU_TOPOLOGY_L1_CONSTANT_L1_SAME_STORAGE != 0));
#ifdef GPU_TOPOLOGY_CONSTANT_L15_SIZE_BYTES_IS_LOWER_BOUND
static_assert(gt::constant_l15_size_is_lower_bound, "the macro and the constant say the same");
#else
static_assert(!gt::constant_l15_size_is_lower_bound);
#endif
static_assert(gt::constant_l1.size_bytes < gt::constant_l15.size_bytes, "L1 in front of L1.5");
static_assert(sizeof(gt::l1_carveouts) / sizeof(gt::l1_carveouts[0]) >= 1);
static_assert(gt::l1_carveouts[0].carveout_percent == 0 && gt::l1_carveouts[0].size_bytes == gt::l1.size_bytes,
              "the first row of the carveout table is the max-L1 carveout");
