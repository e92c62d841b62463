# find_package in a subdirectory; gpu_topology_generate at the top level
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# find_package in a subdirectory, gpu_topology_generate at the top level: the installed
# probe renders the user's profile there too (nothing is built).
run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
file(WRITE "${WORK}/project/sub/CMakeLists.txt" "find_package(GPUTopology 1 REQUIRED)\n")
file(WRITE "${WORK}/project/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\n"
     "add_subdirectory(sub)\nadd_library(kernels INTERFACE)\n"
     "gpu_topology_generate(TARGET kernels PROFILE \"${WORK}/mine.json\")\n"
     "gpu_topology_get(name DEVICE_NAME)\nmessage(STATUS \"device: \${name}\")\n")
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}"
    -DCMAKE_PREFIX_PATH=${WORK}/prefix)
expect_in("${output}" "device: My H200")
expect_nothing_compiled("${WORK}/build")
