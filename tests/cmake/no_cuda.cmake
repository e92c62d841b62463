# After "no CUDA compiler", fixing the environment works on the next configure
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A GPU (a stand-in nvidia-smi) and no CUDA compiler: the configure says how to fix it,
# and the fix works on the next configure of the same tree (nothing "not found" is cached).
fake_nvidia_smi("${WORK}")
set(ENV{CUDACXX} "${WORK}/cuda/bin/nvcc")
configure(fail "${example}" "${WORK}/consumer")
expect_in("${output}" "a GPU is present, but the probe cannot be built to measure it"
          "CUDACXX is '${WORK}/cuda/bin/nvcc', and no such file exists" "the next configure looks again")
# Now there is one (a stand-in that fails to compile): the configure goes on to use it.
file(WRITE "${WORK}/cuda/bin/nvcc" "#!/bin/sh\necho \"stand-in nvcc: cannot compile\" >&2\nexit 1\n")
file(CHMOD "${WORK}/cuda/bin/nvcc" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
configure(fail "${example}" "${WORK}/consumer")
expect_in("${output}" "configuring the probe in")
expect_not_in("${output}" "no such file exists")
file(STRINGS "${WORK}/consumer/_gpu_topology/probe-measure/CMakeCache.txt" compiler REGEX "^CMAKE_CUDA_COMPILER:")
if(NOT compiler MATCHES "=${WORK}/cuda/bin/nvcc$")
  message(FATAL_ERROR "the probe's build did not get the CUDA compiler now in CUDACXX: ${compiler}")
endif()
