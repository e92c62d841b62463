# Under load, the probe vouches for no value outside the quiet runs' spread.
#   cmake -DPROBE=... -DLOAD=... -DWORK_DIR=... -P busy_gpu.cmake
# Two quiet probes give each quantity's spread; then two probes run while
# LOAD streams memory on every SM: one watched by NVML and the reference work,
# one by the reference work alone (--no-nvml) against the first quiet run. Each must exit 3 (measured while
# busy), and every value it still vouches for must lie within the quiet spread.
# Without a GPU it prints GPU_TOPOLOGY_SKIPPED (CTest: skipped).
include("${CMAKE_CURRENT_LIST_DIR}/needs_gpu.cmake")
gpu_topology_test_needs_gpu()
foreach(run 1 2)
  execute_process(COMMAND "${PROBE}" probe --output "${WORK_DIR}/quiet${run}.json" --quiet RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "quiet probe ${run} exited ${rc}: the GPU must be idle for this test")
  endif()
endforeach()
foreach(watch nvml reference)
  set(extra "")
  if(watch STREQUAL "reference")
    # The load starts first: the reference work is slow from the probe's first
    # look, and only a quiet run of this model (the CMake package passes its
    # stored profile) shows it slow. Split by sh: WORK_DIR has no spaces.
    set(extra "--no-nvml --quiet-reference ${WORK_DIR}/quiet1.json")
  endif()
  # execute_process runs its commands at the same time: the load for 12 s, and
  # the probe a second after it started.
  execute_process(COMMAND "${LOAD}" 12
                  COMMAND sh -c "sleep 1 && exec \"$0\" probe --output \"$1\" --quiet $2" "${PROBE}"
                          "${WORK_DIR}/busy-${watch}.json" "${extra}"
                  RESULTS_VARIABLE codes ERROR_VARIABLE log)
  list(GET codes 1 rc)
  if(NOT rc EQUAL 3)
    message(FATAL_ERROR "a probe under load (${watch}) exited ${rc}, not 3 (measured while busy):\n${log}")
  endif()
  execute_process(COMMAND "${PROBE}" compare "${WORK_DIR}/busy-${watch}.json" "${WORK_DIR}/quiet1.json"
                          "${WORK_DIR}/quiet2.json" RESULT_VARIABLE rc OUTPUT_VARIABLE report)
  message("${watch}: ${report}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "under load (${watch}) the probe vouched for a value outside the quiet spread")
  endif()
endforeach()
