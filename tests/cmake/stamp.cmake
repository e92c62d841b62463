# What makes the nested probe build configure again (_gpu_topology_probe_stamp).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# What makes the nested probe build configure again: its arguments, compilers by the
# file they are, and the CUDA host compiler the consumer names or else the one the
# probe's configure found (CMake 4 caches one in the consumer from its second
# configure on: the same compiler, no change).
include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
file(MAKE_DIRECTORY "${WORK}/bin")
file(WRITE "${WORK}/bin/g++-13" "")
file(CREATE_LINK "${WORK}/bin/g++-13" "${WORK}/bin/g++" SYMBOLIC)
set(args -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/g++")
_gpu_topology_probe_stamp(ARGUMENTS ${args} CONFIGURED_HOST "" RESULT first)
_gpu_topology_probe_stamp(ARGUMENTS ${args} CONFIGURED_HOST "${WORK}/bin/g++-13" RESULT configured)
_gpu_topology_probe_stamp(ARGUMENTS ${args} "-DCMAKE_CUDA_HOST_COMPILER=${WORK}/bin/g++"
                          CONFIGURED_HOST "${WORK}/bin/g++-13" RESULT named_same)
_gpu_topology_probe_stamp(ARGUMENTS ${args} "-DCMAKE_CUDA_HOST_COMPILER=${WORK}/bin/other"
                          CONFIGURED_HOST "${WORK}/bin/g++-13" RESULT named_other)
_gpu_topology_probe_stamp(ARGUMENTS -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/g++-13"
                          CONFIGURED_HOST "" RESULT through_the_link)
if(NOT configured STREQUAL named_same)
  message(FATAL_ERROR "naming the host compiler the probe's configure found (through a link) changed the stamp")
endif()
if(named_other STREQUAL configured OR first STREQUAL configured)
  message(FATAL_ERROR "another host compiler left the stamp as it was")
endif()
if(NOT through_the_link STREQUAL first)
  message(FATAL_ERROR "a compiler named through a link changed the stamp")
endif()
