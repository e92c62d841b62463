# examples/minimal three ways (WAY: subdirectory, fetchcontent, installed), with a stored
# profile chosen on purpose (a status line, no warning); GPUTopology::gpu-topology-probe each way;
# installing a tree that was configured but not built says to build it
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(seed_checks OFF)  # a user's first configure, compiler checks included
set(args ${stored_arg})
# Every way of consuming the package offers the same targets: checked when the project is read.
file(WRITE "${WORK}/targets.cmake" [=[
if(CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)  # the consumer's project(), not the package's
cmake_language(DEFER CALL _check_targets)
endif()
function(_check_targets)
if(NOT TARGET GPUTopology::gpu-topology-probe)
  message(FATAL_ERROR "no target GPUTopology::gpu-topology-probe")
endif()
get_target_property(type GPUTopology::gpu-topology-probe TYPE)
message(STATUS "target GPUTopology::gpu-topology-probe: ${type}")
endfunction()
]=])
list(APPEND args -DCMAKE_PROJECT_INCLUDE=${WORK}/targets.cmake)
if(NOT WAY STREQUAL "fetchcontent")  # examples/minimal; the FetchContent project requires it itself
  list(APPEND args -DMINIMAL_REQUIRE_L2_NEAR=1048576)
endif()
if(WAY STREQUAL "installed")
  # The package as a user installs it: the tested build tree, no second build.
  run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
  run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/consumer" -G "${GENERATOR}"
      -DCMAKE_PREFIX_PATH=${WORK}/prefix ${args})
  if(NOT EXISTS "${WORK}/prefix/bin/gpu-topology-probe")
    message(FATAL_ERROR "the install has no prebuilt probe")
  endif()
elseif(WAY STREQUAL "fetchcontent")
  file(WRITE "${WORK}/project/CMakeLists.txt"
       "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\ninclude(FetchContent)\n"
       "FetchContent_Declare(GPUTopology SOURCE_DIR \"${PACKAGE_SOURCE}\")\nFetchContent_MakeAvailable(GPUTopology)\n"
       "add_executable(minimal \"${example}/main.cpp\")\ngpu_topology_generate(TARGET minimal)\n"
       "gpu_topology_require(L2_NEAR_SIZE_BYTES GREATER_EQUAL 1048576)\n"
       "enable_testing()\nadd_test(NAME minimal.prints COMMAND minimal)\ngpu_topology_add_tests()\n")
  run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/consumer" -G "${GENERATOR}" ${args})
else()
  configure(ok "${example}" "${WORK}/consumer" ${args})
endif()
# A stored profile chosen on purpose is a status line, not a warning.
expect_in("${output}" "requirement met: L2_NEAR_SIZE_BYTES" "describes the GPU of the stored profile"
          "target GPUTopology::gpu-topology-probe: EXECUTABLE")
expect_not_in("${output}" "CMake Warning")
expect_nothing_compiled("${WORK}/consumer")
# The package imposes no CUDA on its consumer.
file(STRINGS "${WORK}/consumer/CMakeCache.txt" cuda REGEX "^CMAKE_CUDA_COMPILER:")
if(cuda)
  message(FATAL_ERROR "the consumer's project got CUDA enabled: ${cuda}")
endif()
run(ok "${CMAKE_COMMAND}" --build "${WORK}/consumer")
# The consumer's own tests; its GPU tests are registered (cmake.gpu_identity runs them on a GPU).
run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/consumer" --output-on-failure -LE gpu)
expect_in("${output}" "minimal.prints" "100% tests passed")
run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/consumer" -N -L gpu)
expect_in("${output}" "gpu_topology.minimal.identity" "gpu_topology.minimal.remeasure")
# A second configure reuses everything and leaves the header alone.
file(TIMESTAMP "${WORK}/consumer/gpu_topology/minimal/gpu_topology.hpp" before "%s")
run(ok "${CMAKE_COMMAND}" "${WORK}/consumer")
file(TIMESTAMP "${WORK}/consumer/gpu_topology/minimal/gpu_topology.hpp" after "%s")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "a reconfigure rewrote an unchanged header")
endif()
if(WAY STREQUAL "installed")
  # The package's own tree, configured and not built: installing it says what to do first.
  run(ok "${CMAKE_COMMAND}" -S "${PACKAGE_SOURCE}" -B "${WORK}/unbuilt" -G "${GENERATOR}" ${stored_arg}
      -DGPU_TOPOLOGY_BUILD_TESTS=OFF -DGPU_TOPOLOGY_PROBE_CUDA=OFF)
  run(fail "${CMAKE_COMMAND}" --install "${WORK}/unbuilt" --prefix "${WORK}/unbuilt-prefix")
  expect_in("${output}" "GPUTopology: nothing to install yet: build first (cmake --build ${WORK}/unbuilt)")
  # The pre-rendered header is copied only for the profile it was rendered from. An
  # installed profile edited since is rendered again (a valid edit shows in the header)
  # and so validated (an invalid one stops the configure, naming the field).
  set(installed_profile "${WORK}/prefix/share/GPUTopology/generated/profiles/nvidia-h200.json")
  file(READ "${installed_profile}" json)
  string(JSON json SET "${json}" device name "\"NVIDIA H200 (edited)\"")
  file(WRITE "${installed_profile}" "${json}")
  run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/edited" -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${WORK}/prefix
      ${stored_arg})
  file(READ "${WORK}/edited/gpu_topology/minimal/gpu_topology.hpp" header)
  expect_in("${header}" "#define GPU_TOPOLOGY_DEVICE_NAME \"NVIDIA H200 (edited)\"")
  string(JSON json SET "${json}" caches l1 size_bytes value "\"big\"")
  file(WRITE "${installed_profile}" "${json}")
  run(fail "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/edited-invalid" -G "${GENERATOR}"
      -DCMAKE_PREFIX_PATH=${WORK}/prefix ${stored_arg})
  expect_in("${output}" "nvidia-h200.json: invalid profile" "caches.l1.size_bytes.value: expected number")
endif()
