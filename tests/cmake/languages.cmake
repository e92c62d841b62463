# A C-only project takes the header from a source tree (add_subdirectory) and from the
# install: the package's own CXX, enabled only in its directory, asks nothing of it, and
# C reads the facts as macros.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
file(WRITE "${WORK}/C/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.25)
project(only LANGUAGES C)
if(FROM_SOURCE)
  add_subdirectory("${PACKAGE}" gpu_topology EXCLUDE_FROM_ALL)
else()
  find_package(GPUTopology 1 REQUIRED)
endif()
add_executable(facts main.c)
gpu_topology_generate(TARGET facts)
]=])
file(WRITE "${WORK}/C/main.c" [=[
#include <gpu_topology.hpp>
#include <stdio.h>
int main(void) { printf("%s: %d SMs\n", GPU_TOPOLOGY_DEVICE_NAME, GPU_TOPOLOGY_SM_COUNT); return 0; }
]=])
foreach(way source install)
  set(from_source OFF)
  if(way STREQUAL "source")
    set(from_source ON)
  endif()
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/C" -B "${WORK}/C-${way}" -G "${GENERATOR}" ${stored_arg}
      -DFROM_SOURCE=${from_source} -DPACKAGE=${PACKAGE_SOURCE} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  expect_not_in("${output}" "CMake Error" "No known features")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/C-${way}")
  run(ok "${WORK}/C-${way}/facts")
  expect_in("${output}" "NVIDIA H200: 132 SMs")
endforeach()
