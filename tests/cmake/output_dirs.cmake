# Where a call writes its header, and the build that keeps it there:
#   OUTPUT_DIR relative (to the calling binary directory), with spaces, inside the source
#   tree: each works; one OUTPUT_DIR for two calls is refused, naming both, before the second
#   writes anything; a gpu_topology.hpp there that GPUTopology did not write (the project's
#   own, a link) is refused and left as it was; a deleted header is written again by the
#   build, with Ninja, Unix Makefiles and Ninja Multi-Config.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
derive_profile("${WORK}/small-l2.json" caches.l2.size_bytes.value 15728640 caches.l2.near_size_bytes.value 7340032
               caches.l2.persisting_max_bytes.value 9830400)  # the set-aside lies within L2
write_project("${WORK}/project" "
add_executable(relative main.cpp)
gpu_topology_generate(TARGET relative OUTPUT_DIR inc)
add_executable(spaced main.cpp)
gpu_topology_generate(TARGET spaced OUTPUT_DIR \"\${CMAKE_BINARY_DIR}/my headers/gpu\")
add_executable(in_source main.cpp)
gpu_topology_generate(TARGET in_source OUTPUT_DIR \"\${CMAKE_CURRENT_SOURCE_DIR}/generated here\")
if(DEFINED SHARED)
  add_executable(small main.cpp)
  gpu_topology_generate(TARGET small OUTPUT_DIR inc PROFILE \"${WORK}/small-l2.json\")
endif()
if(DEFINED THEIRS)
  add_executable(theirs main.cpp)
  gpu_topology_generate(TARGET theirs OUTPUT_DIR \"\${THEIRS}\")
endif()
")
file(WRITE "${WORK}/project/main.cpp" "#include <gpu_topology.hpp>\nstatic_assert(gpu_topology::identity.sm_count == 132);\nint main() {}\n")
set(build "${WORK}/build")
configure(ok "${WORK}/project" "${build}" ${stored_arg})
foreach(header "${build}/inc" "${build}/my headers/gpu" "${WORK}/project/generated here")
  if(NOT EXISTS "${header}/gpu_topology.hpp")
    message(FATAL_ERROR "no header in ${header}")
  endif()
endforeach()
run(ok "${CMAKE_COMMAND}" --build "${build}")

# One OUTPUT_DIR, two calls (two profiles): refused; the first call's header stays.
file(SHA256 "${build}/inc/gpu_topology.hpp" before)
run(fail "${CMAKE_COMMAND}" "${build}" -DSHARED=ON)
expect_in("${output}" "OUTPUT_DIR ${build}/inc is the output directory of the call 'relative'"
          "give this one (small) another")
file(SHA256 "${build}/inc/gpu_topology.hpp" after)
if(NOT before STREQUAL after OR EXISTS "${build}/_gpu_topology/call-small")
  message(FATAL_ERROR "the refused call wrote its header or rendered its profile")
endif()

# A gpu_topology.hpp of the project's own, and a link: refused, left as they were.
file(WRITE "${WORK}/theirs/gpu_topology.hpp" "// the project's own header\n")
file(MAKE_DIRECTORY "${WORK}/linked")
file(CREATE_LINK "${WORK}/theirs/gpu_topology.hpp" "${WORK}/linked/gpu_topology.hpp" SYMBOLIC)
foreach(case "theirs;is not a header GPUTopology wrote, and it is not replaced" "linked;is a link or a directory")
  list(POP_FRONT case dir message)
  run(fail "${CMAKE_COMMAND}" "${build}" -USHARED "-DTHEIRS=${WORK}/${dir}")
  expect_in("${output}" "${WORK}/${dir}/gpu_topology.hpp ${message}")
endforeach()
file(READ "${WORK}/theirs/gpu_topology.hpp" theirs)
if(NOT theirs STREQUAL "// the project's own header\n")
  message(FATAL_ERROR "the project's own gpu_topology.hpp was changed:\n${theirs}")
endif()

# A deleted header is written again by the build, whatever the generator.
foreach(generator "${GENERATOR}" "Unix Makefiles" "Ninja Multi-Config")
  string(MAKE_C_IDENTIFIER "${generator}" tree)
  run(ok "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/${tree}" -G "${generator}"
      -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE} ${stored_arg})
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/${tree}" --config Release)
  file(REMOVE "${WORK}/${tree}/gpu_topology/minimal/gpu_topology.hpp")
  run(ok "${CMAKE_COMMAND}" --build "${WORK}/${tree}" --config Release)
  expect_in("${output}" "writing ${WORK}/${tree}/gpu_topology/minimal/gpu_topology.hpp again")
  run(ok "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/${tree}" -C Release -LE gpu)
  expect_in("${output}" "100% tests passed")
endforeach()
