# What makes the nested probe build configure again (_gpu_topology_probe_stamp).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# What makes the nested probe build configure again: its arguments, compilers by the
# file they are, and the host compiler nvcc is given: the one the consumer names, else
# CUDAHOSTCXX, else the C++ compiler (CMake 4 names the C++ compiler in the consumer from
# its second configure on where its CUDA comes after gpu_topology_generate: no change).
include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
file(MAKE_DIRECTORY "${WORK}/bin")
file(WRITE "${WORK}/bin/g++-13" "")
file(WRITE "${WORK}/bin/other" "")
file(CREATE_LINK "${WORK}/bin/g++-13" "${WORK}/bin/g++" SYMBOLIC)
unset(ENV{CUDAHOSTCXX})
set(args -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/g++")
_gpu_topology_probe_stamp(ARGUMENTS ${args} RESULT first)
_gpu_topology_probe_stamp(ARGUMENTS ${args} "-DCMAKE_CUDA_HOST_COMPILER=${WORK}/bin/g++-13" RESULT named_same)
_gpu_topology_probe_stamp(ARGUMENTS ${args} "-DCMAKE_CUDA_HOST_COMPILER=${WORK}/bin/other" RESULT named_other)
_gpu_topology_probe_stamp(ARGUMENTS -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/g++-13"
                          RESULT through_the_link)
set(ENV{CUDAHOSTCXX} "${WORK}/bin/other")
_gpu_topology_probe_stamp(ARGUMENTS ${args} RESULT from_environment)
unset(ENV{CUDAHOSTCXX})
if(NOT first STREQUAL named_same)
  message(FATAL_ERROR "naming the C++ compiler (through a link) as the host compiler changed the stamp")
endif()
if(named_other STREQUAL first OR NOT from_environment STREQUAL named_other)
  message(FATAL_ERROR "another host compiler, named or in CUDAHOSTCXX, left the stamp as it was")
endif()
if(NOT through_the_link STREQUAL first)
  message(FATAL_ERROR "a compiler named through a link changed the stamp")
endif()
