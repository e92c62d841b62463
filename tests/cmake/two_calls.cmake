# Two gpu_topology_generate calls own their headers, targets and values; a
# hyphenated TARGET names its call
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
derive_profile("${WORK}/small-l2.json" caches.l2.size_bytes.value 15728640 caches.l2.near_size_bytes.value 7340032
               caches.l2.persisting_max_bytes.value 9830400)  # the set-aside lies within L2
write_project("${WORK}/project" "
add_executable(big big.cpp)
add_executable(small small.cpp)
gpu_topology_generate(NAME big TARGET big PROFILE nvidia-h200)
gpu_topology_generate(NAME small TARGET small PROFILE \"${WORK}/small-l2.json\")
gpu_topology_require(FOR big L2_SIZE_BYTES GREATER 40000000)
gpu_topology_require(FOR small L2_SIZE_BYTES LESS 20000000)
gpu_topology_get(big_l2 L2_SIZE_BYTES FOR big)
gpu_topology_get(small_l2 L2_SIZE_BYTES FOR small)
message(STATUS \"values: big \${big_l2}, small \${small_l2}\")
if(DEFINED AMBIGUOUS)
gpu_topology_require(L2_SIZE_BYTES GREATER 0)
endif()
if(DEFINED AGAIN)
gpu_topology_generate(NAME big PROFILE nvidia-h200)
endif()
if(DEFINED HYPHENATED)
add_library(my-kernels INTERFACE)
gpu_topology_generate(TARGET my-kernels PROFILE nvidia-h200)
gpu_topology_get(hyphenated_l2 L2_SIZE_BYTES FOR my_kernels)
message(STATUS \"my-kernels: GPUTopology::my_kernels, L2 \${hyphenated_l2}\")
add_library(my_kernels INTERFACE)
gpu_topology_generate(TARGET my_kernels PROFILE nvidia-h200)
endif()
")
file(WRITE "${WORK}/project/big.cpp" "#include <gpu_topology.hpp>\nstatic_assert(gpu_topology::l2.size_bytes == 62914560ull);\nint main() {}\n")
file(WRITE "${WORK}/project/small.cpp" "#include <gpu_topology.hpp>\nstatic_assert(gpu_topology::l2.size_bytes == 15728640ull);\nint main() {}\n")
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build" -G "${GENERATOR}" ${real_probe})
expect_in("${output}" "values: big 62914560, small 15728640")
run(ok "${CMAKE_COMMAND}" --build "${WORK}/build")
# The same tree, configured again with each mistake.
run(fail "${CMAKE_COMMAND}" "${WORK}/build" -DAMBIGUOUS=1)
expect_in("${output}" "several gpu_topology_generate() calls (big, small); say which with FOR <name>")
run(fail "${CMAKE_COMMAND}" "${WORK}/build" -UAMBIGUOUS -DAGAIN=1)
expect_in("${output}" "NAME 'big' is used by an earlier call")
# A TARGET that is no C identifier names its call all the same; a second one that maps to it is told apart.
run(fail "${CMAKE_COMMAND}" "${WORK}/build" -UAGAIN -DHYPHENATED=1)
expect_in("${output}" "my-kernels: GPUTopology::my_kernels, L2 62914560"
          "NAME 'my_kernels' (from TARGET my_kernels) is used by an earlier call; give each call its own NAME")
