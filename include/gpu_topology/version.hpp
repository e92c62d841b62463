/* gpu_topology/version.hpp: the version of GPUTopology's static headers
 * (<gpu_topology/...>), which is the package's. A generated gpu_topology.hpp
 * includes it and stops with an #error unless these are the static headers of
 * the version that rendered it, or of a later minor version of the same major
 * one. C and C++.
 */
#ifndef GPU_TOPOLOGY_VERSION_HPP
#define GPU_TOPOLOGY_VERSION_HPP

#define GPU_TOPOLOGY_VERSION_MAJOR 1
#define GPU_TOPOLOGY_VERSION_MINOR 3
#define GPU_TOPOLOGY_VERSION_PATCH 1

#endif  // GPU_TOPOLOGY_VERSION_HPP
