// gpu_topology/ctest.hpp: which GPU CTest handed the running test (resource
// allocation, docs/ci.md). A test helper for host code: it reads the
// environment, so the header that kernels include does not bring it along.
// It reads no facts and needs no generated header.
#ifndef GPU_TOPOLOGY_CTEST_HPP
#define GPU_TOPOLOGY_CTEST_HPP

#include <gpu_topology/version.hpp>

#include <cstdio>
#include <cstdlib>

namespace gpu_topology {

// The CUDA device index of the GPU in resource group `group` that CTest allocated to
// the running test (CTEST_RESOURCE_GROUP_<group>_GPUS = "id:3,slots:1" gives 3: the
// ids of the spec file a DEVICES ALL configure writes are CUDA device indices), or
// `group` itself when CTest allocated none: no resource spec file in use, or a test
// that asked for no GPUs (gpu_topology_test_resources).
inline int ctest_device(int group = 0) {
    char name[48];
    std::snprintf(name, sizeof name, "CTEST_RESOURCE_GROUP_%d_GPUS", group);
    const char* count = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
    const char* given = std::getenv(name);
    if (group < 0 || !count || std::atoi(count) <= group || !given) return group;
    if (given[0] != 'i' || given[1] != 'd' || given[2] != ':') return group;
    char* end = nullptr;
    const long id = std::strtol(given + 3, &end, 10);
    return end != given + 3 && id >= 0 && (*end == ',' || *end == '\0') ? static_cast<int>(id) : group;
}

}  // namespace gpu_topology

#endif  // GPU_TOPOLOGY_CTEST_HPP
