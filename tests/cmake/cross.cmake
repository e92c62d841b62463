# Cross-compiling with a user's profile: the probe that renders it is a host program
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# Cross-compiling with a user's profile: the probe that renders it runs here, so it is
# built with a host compiler, never the target's (a stand-in that cannot link host programs).
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
file(WRITE "${WORK}/cross/fake-cross-c++" [=[#!/bin/sh
for argument in "$@"; do
case "$argument" in -c|-E) exec c++ "$@" ;; esac
done
echo "fake-cross-c++: cannot link programs for this host" >&2
exit 1
]=])
file(CHMOD "${WORK}/cross/fake-cross-c++" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(WRITE "${WORK}/toolchain.cmake" "set(CMAKE_SYSTEM_NAME Linux)\nset(CMAKE_SYSTEM_PROCESSOR fakearch)\n"
     "set(CMAKE_CXX_COMPILER \"${WORK}/cross/fake-cross-c++\")\nset(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)\n")
set(ENV{CXX} "${WORK}/cross/fake-cross-c++")  # as a cross environment often sets it
write_project("${WORK}/project" "add_library(kernels INTERFACE)\ngpu_topology_generate(TARGET kernels)\n")
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}"
    -DCMAKE_TOOLCHAIN_FILE=${WORK}/toolchain.cmake -DCMAKE_MAKE_PROGRAM=${fake_make}
    -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json)
expect_in("${output}" "building the probe (render only) - done")
file(STRINGS "${WORK}/build/_gpu_topology/probe-render/CMakeCache.txt" compiler REGEX "^CMAKE_CXX_COMPILER:")
if(compiler MATCHES "fake-cross")
  message(FATAL_ERROR "the probe that renders was configured with the target's compiler: ${compiler}")
endif()
# GPU_TOPOLOGY_HOST_CXX_COMPILER names the host compiler.
find_program(host_compiler NAMES c++ g++ clang++ REQUIRED)
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/named" -G "${GENERATOR}"
    -DCMAKE_TOOLCHAIN_FILE=${WORK}/toolchain.cmake -DCMAKE_MAKE_PROGRAM=${fake_make}
    -DGPU_TOPOLOGY_PROFILE=${WORK}/mine.json -DGPU_TOPOLOGY_HOST_CXX_COMPILER=${host_compiler})
file(STRINGS "${WORK}/named/_gpu_topology/probe-render/CMakeCache.txt" compiler REGEX "^CMAKE_CXX_COMPILER:")
string(REGEX REPLACE "^[^=]*=" "" compiler "${compiler}")
if(NOT compiler STREQUAL host_compiler)
  message(FATAL_ERROR "GPU_TOPOLOGY_HOST_CXX_COMPILER=${host_compiler} was not used: ${compiler}")
endif()
