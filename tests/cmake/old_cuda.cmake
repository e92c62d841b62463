# A GPU (a stand-in nvidia-smi) and a CUDA toolkit older than the probe's kernels need (a
# stand-in nvcc of CUDA 11.8 beside this machine's toolkit headers and libraries, given as
# CUDA_INCLUDE_DIR and CUDA_LIBRARY_DIR): the configure names the toolkit it found and the
# version the probe needs, and compiles nothing with it.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
fake_nvidia_smi("${WORK}")
set(old "${WORK}/cuda-11.8")
file(MAKE_DIRECTORY "${old}/bin")
file(CREATE_LINK "${CUDA_INCLUDE_DIR}" "${old}/include" SYMBOLIC)
file(CREATE_LINK "${CUDA_LIBRARY_DIR}" "${old}/lib64" SYMBOLIC)
# Every call is logged beside it, so that the test sees what the configure asked of it.
file(WRITE "${old}/bin/nvcc" [=[#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls.log"
case "$*" in
*--version*) echo "nvcc: NVIDIA (R) Cuda compiler driver"; echo "Cuda compilation tools, release 11.8, V11.8.89" ;;
*) echo "stand-in nvcc of CUDA 11.8 asked to: $*" >&2; exit 1 ;;
esac
]=])
file(CHMOD "${old}/bin/nvcc" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(ENV{CUDACXX} "${old}/bin/nvcc")
configure(fail "${example}" "${WORK}/consumer")
expect_in("${output}" "the CUDA toolkit found (${old}/bin/nvcc) is 11.8.89, and the probe's kernels need CUDA 12.0 or later"
          "choose a stored profile with GPU_TOPOLOGY_PROFILE")
expect_not_in("${output}" "stand-in nvcc of CUDA 11.8 asked to: -")
# It was asked its version, and never to compile.
file(STRINGS "${old}/bin/calls.log" calls)
expect_in("${calls}" "--version")
foreach(call IN LISTS calls)
  if(call MATCHES "(^| )(-c|-o|-ptx|-cubin|-fatbin|-arch|-gencode|--generate-code)( |=|$)|\\.cu( |$)")
    message(FATAL_ERROR "the configure asked the CUDA 11.8 nvcc to compile: ${call}")
  endif()
endforeach()
