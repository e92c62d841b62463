#pragma once
// The architecture descriptions in the repository (architectures/*.json), which the
// simulate tests run: one place that says where they are and lists them in name order.
#include <algorithm>
#include <filesystem>
#include <vector>

namespace gpu_topology::test {

inline std::filesystem::path architectures() { return std::filesystem::path(GPU_TOPOLOGY_ARCHITECTURES); }

inline std::vector<std::filesystem::path> descriptions() {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(architectures()))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace gpu_topology::test
