# With a CUDA compiler: a CUDA-only consumer that sets no architectures gets a measuring
# probe built for the GPU here (and the architectures GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES
# adds), and compiles the header as CUDA; a re-configure builds nothing; nor does another
# project's first configure, which takes the probe and the measurement from the user's cache
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A CUDA consumer that sets no architectures: its CUDA language caches nvcc's default,
# which the probe that measures must not take (it would run as JIT-compiled PTX, without
# the cluster facts). Here a GPU of compute capability 9.0 (a stand-in nvidia-smi); the
# nested configure is real, its build a stand-in that "builds" the stand-in probe.
fake_nvidia_smi("${WORK}")
fake_measures_this_gpu("${WORK}/this-gpu.json")
set(ENV{FAKE_BUILT_PROBE} "${fake}")
# The consumer is CUDA only (project(... LANGUAGES CUDA)) and takes the header from the source
# tree: the package's own CXX, enabled only in its directory, asks nothing of it, and its CUDA
# code compiles the header as C++17 (cuda_std_17).
write_project("${WORK}/project" "add_executable(facts main.cu)\ngpu_topology_generate(TARGET facts)\n")
file(READ "${WORK}/project/CMakeLists.txt" text)
string(REPLACE "LANGUAGES CXX" "LANGUAGES CUDA" text "${text}")
file(WRITE "${WORK}/project/CMakeLists.txt" "${text}")
file(WRITE "${WORK}/project/main.cu" [=[
#include <gpu_topology.hpp>
#include <cstdio>
__global__ void edge(unsigned long long* out) { *out = gpu_topology::square_tile_edge<float>(49152); }
int main() { std::printf("%s: %d SMs\n", gpu_topology::identity.device_name, gpu_topology::identity.sm_count); }
]=])
set(args -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DCMAKE_MAKE_PROGRAM=${fake_make})
# GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES adds to the GPU's architecture; it never replaces it.
set(with_80 ${args} -DGPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES=80)
set(seed_checks OFF)  # the consumer's own CUDA compiler checks, which the nested configure takes
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${with_80})
set(seed_checks ON)
expect_our_lines("${stdout}" 12 "first measured configure")
expect_in("${output}" "building the probe (measuring, 90-real, 80) - done (" "probing NVIDIA H200")
expect_not_in("${output}" "CMake Error" "No known features")
file(STRINGS "${WORK}/build/CMakeCache.txt" consumer_architectures REGEX "^CMAKE_CUDA_ARCHITECTURES:")
file(STRINGS "${WORK}/build/_gpu_topology/probe-measure/CMakeCache.txt" probe_architectures
     REGEX "^CMAKE_CUDA_ARCHITECTURES:")
message(STATUS "the consumer: ${consumer_architectures}; its probe: ${probe_architectures}")
if(NOT probe_architectures MATCHES "=90-real.?;80$")  # file(STRINGS) keeps the ; as \;
  message(FATAL_ERROR "the probe was not built for the GPU here (9.0) and 80: ${probe_architectures}")
endif()
# The probe's configure identified no CUDA compiler (its kernels compile with nvcc directly,
# probe/cuda_kernels.cmake), and its kernels compile with the consumer's nvcc for 9.0 and 80.
file(READ "${WORK}/build/_gpu_topology/probe-measure-configure.log" nested_log)
expect_not_in("${nested_log}" "The CUDA compiler identification" "Detecting CUDA compiler ABI info")
file(READ "${WORK}/build/_gpu_topology/probe-measure/build.ninja" nested_rules)
expect_in("${nested_rules}" "${CUDA_COMPILER} -forward-unknown-to-host-compiler -ccbin "
          "--generate-code=arch=compute_90,code=sm_90 --generate-code=arch=compute_80,code=[compute_80,sm_80]")
# And what the identification caches besides, as the consumer's tree has it: the executable
# format (install's RPATH editing), strip (`cmake --install --strip`), ar.
foreach(entry CMAKE_EXECUTABLE_FORMAT CMAKE_STRIP CMAKE_AR)
  file(STRINGS "${WORK}/build/CMakeCache.txt" consumer REGEX "^${entry}:")
  file(STRINGS "${WORK}/build/_gpu_topology/probe-measure/CMakeCache.txt" nested REGEX "^${entry}:")
  if(consumer STREQUAL "" OR NOT nested STREQUAL consumer)
    message(FATAL_ERROR "the seeded probe tree has '${nested}' where the consumer's has '${consumer}'")
  endif()
endforeach()
# The README's second configure: nothing configured or built again, a few lines.
file(TIMESTAMP "${WORK}/build/_gpu_topology/probe-measure/gpu-topology-configured.stamp" stamp_before "%s")
file(REMOVE "${WORK}/make.log")
run(ok "${CMAKE_COMMAND}" "${WORK}/build")
expect_our_lines("${stdout}" 3 "re-configure")
expect_not_in("${output}" "building the probe" "configuring")
file(TIMESTAMP "${WORK}/build/_gpu_topology/probe-measure/gpu-topology-configured.stamp" stamp_after "%s")
if(EXISTS "${WORK}/make.log" OR NOT stamp_before STREQUAL stamp_after)
  message(FATAL_ERROR "the re-configure configured or built the probe again")
endif()
# Another project (C++ only, the same probe options) on this machine, through add_subdirectory:
# its first configure builds no probe and runs no measurement (the user's cache has both), and
# writes the header of the measurement, byte for byte.
file(REMOVE "${WORK}/probe.log")
write_project("${WORK}/other" "add_executable(other \"${example}/main.cpp\")\ngpu_topology_generate(TARGET other)\n")
run(ok "${CMAKE_COMMAND}" -S "${WORK}/other" -B "${WORK}/other-build" -G "${GENERATOR}" ${with_80})
expect_in("${output}" "NVIDIA H200: measured before on this machine")
expect_not_in("${output}" "building the probe" "probing" "not using")
expect_nothing_compiled("${WORK}/other-build")
if(EXISTS "${WORK}/make.log" OR EXISTS "${WORK}/probe.log")
  message(FATAL_ERROR "a new tree of a cached GPU built the probe or measured")
endif()
file(SHA256 "${WORK}/build/gpu_topology/facts/gpu_topology.hpp" measured)
file(SHA256 "${WORK}/other-build/gpu_topology/other/gpu_topology.hpp" reused)
if(NOT measured STREQUAL reused)
  message(FATAL_ERROR "the header from the cache differs from the header of the measurement")
endif()
# The README's first command, twice (a cache of its own, so that the first one builds): the
# package's own project without its tests identifies no CUDA compiler, nor does its probe's.
set(ENV{GPU_TOPOLOGY_CACHE_DIR} "${WORK}/readme-cache")
set(readme -DGPU_TOPOLOGY_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release ${args})
run(ok "${CMAKE_COMMAND}" -S "${PACKAGE_SOURCE}" -B "${WORK}/readme" -G "${GENERATOR}" ${readme})
expect_in("${output}" "building the probe (measuring, 90-real) - done (")
expect_not_in("${output}" "The CUDA compiler identification")
file(READ "${WORK}/readme/_gpu_topology/probe-measure-configure.log" nested_log)
expect_not_in("${nested_log}" "The CUDA compiler identification" "The CXX compiler identification")
file(REMOVE "${WORK}/make.log")
run(ok "${CMAKE_COMMAND}" "${WORK}/readme")
expect_our_lines("${stdout}" 3 "the README's re-configure")
expect_not_in("${output}" "building the probe")
if(EXISTS "${WORK}/make.log")
  message(FATAL_ERROR "the README's re-configure built the probe again")
endif()
# The consumer's CUDA code compiles with the header.
run(ok "${CMAKE_COMMAND}" --build "${WORK}/build")
unset(ENV{GPU_TOPOLOGY_CACHE_DIR})
run(fail "${CMAKE_COMMAND}" "${WORK}/build" -DGPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES=sm_80)
expect_in("${output}" "GPU_TOPOLOGY_PROBE_CUDA_ARCHITECTURES has 'sm_80'")
