# Each wrong option value stops the configure, naming variable and value. One build tree:
# configured with good values, then again with one wrong value at a time (the others good).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(good -DGPU_TOPOLOGY_LEVEL=full -DGPU_TOPOLOGY_TIME_BUDGET= -DGPU_TOPOLOGY_ON_NO_GPU=fallback
         -DGPU_TOPOLOGY_ON_BUSY_GPU=warn -DGPU_TOPOLOGY_PROBE_TIMEOUT=600 -DGPU_TOPOLOGY_DEVICE=0)
configure(ok "${example}" "${WORK}/build" ${stored_arg} ${good})
foreach(case "GPU_TOPOLOGY_LEVEL=thorough" "GPU_TOPOLOGY_TIME_BUDGET=5s" "GPU_TOPOLOGY_TIME_BUDGET=0"
             "GPU_TOPOLOGY_ON_NO_GPU=erorr" "GPU_TOPOLOGY_ON_BUSY_GPU=loud" "GPU_TOPOLOGY_PROBE_TIMEOUT=soon"
             "GPU_TOPOLOGY_DEVICE=first")
  string(REPLACE "=" ";" pair "${case}")
  list(GET pair 0 variable)
  list(GET pair 1 value)
  run(fail "${CMAKE_COMMAND}" "${WORK}/build" ${good} -D${case})
  if(variable STREQUAL "GPU_TOPOLOGY_DEVICE")
    expect_in("${output}" "DEVICE '${value}' is not a device index")
  else()
    expect_in("${output}" "${variable} is '${value}'")
  endif()
endforeach()
# Policies are case-insensitive.
run(ok "${CMAKE_COMMAND}" "${WORK}/build" ${good} -DGPU_TOPOLOGY_ON_NO_GPU=ERROR -DGPU_TOPOLOGY_LEVEL=Quick)
