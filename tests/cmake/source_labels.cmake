# Where a header's facts come from, in its GPU_TOPOLOGY_PROFILE_SOURCE: file:<name> for a
# profile chosen by path, stored:<name> for one of the package's stored profiles; neither
# is vouched for as this machine's (GPU_TOPOLOGY_PROFILE_IS_STORED 1, identity.stored).
# The renderer decides the latter: it must take every source but "measured" for not
# measured here (probe/codegen, is_stored).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
derive_profile("${WORK}/mine.json" device.name "\"My H200\"")
foreach(case "${WORK}/mine.json;file:mine.json;the profile file" "nvidia-h100;stored:nvidia-h100.json;the stored profile")
  list(POP_FRONT case profile label what)
  string(MAKE_C_IDENTIFIER "${label}" tree)
  configure(ok "${example}" "${WORK}/${tree}" ${real_probe} -DGPU_TOPOLOGY_PROFILE=${profile})
  expect_in("${output}" "describes the GPU of ${what} ")
  file(READ "${WORK}/${tree}/gpu_topology/minimal/gpu_topology.hpp" header)
  expect_in("${header}" "#define GPU_TOPOLOGY_PROFILE_SOURCE \"${label}\"" "#define GPU_TOPOLOGY_PROFILE_IS_STORED 1")
endforeach()
