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
