# A CUDA-only project (project(... LANGUAGES CUDA)) takes the header from a source tree
# (add_subdirectory): the package's own CXX, enabled only in its directory, asks nothing
# of it, and its CUDA code compiles the header as C++17 (cuda_std_17). Slow: a CUDA
# compiler's checks and one nvcc compile. (From the install it worked before: no CXX at all.)
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
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
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${stored_arg}
    -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -DCMAKE_CUDA_ARCHITECTURES=90)
expect_not_in("${output}" "CMake Error" "No known features")
run(ok "${CMAKE_COMMAND}" --build "${WORK}/build")
expect_nothing_compiled("${WORK}/build")
