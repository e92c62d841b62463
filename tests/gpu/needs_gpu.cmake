# Included by the GPU test scripts (cmake -P): gpu_topology_test_needs_gpu() empties
# WORK_DIR and, where PROBE finds no GPU, prints GPU_TOPOLOGY_SKIPPED, which CTest
# reports as skipped (SKIP_REGULAR_EXPRESSION), and ends the script. A macro, so its
# return() ends the script that calls it (cmake_language(EXIT) needs CMake 3.29).
macro(gpu_topology_test_needs_gpu)
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  execute_process(COMMAND "${PROBE}" identity RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE why)
  if(rc EQUAL 77)
    message("GPU_TOPOLOGY_SKIPPED: ${why}")
    return()
  endif()
endmacro()
