# What a configure says when the header is not this machine's measurement:
#   the stored profile that stands in for a missing GPU: one short warning on the first
#   configure that says how to silence it (GPU_TOPOLOGY_PROFILE=<name>, not -Wno-dev) and
#   how to stop instead, and one status line on a re-configure that changes nothing;
#   --log-level=VERBOSE shows every quantity of a stored profile (no probe renders it)
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(no_gpu "${CMAKE_COMMAND}" -E env CUDA_VISIBLE_DEVICES=)
run(ok ${no_gpu} "${CMAKE_COMMAND}" -S "${example}" -B "${WORK}/fallback" -G "${GENERATOR}"
    -DGPU_TOPOLOGY_SOURCE_DIR=${PACKAGE_SOURCE})
expect_in("${output}" "describes the GPU of the stored profile nvidia-h200.json, not one measured here"
          "-DGPU_TOPOLOGY_PROFILE=nvidia-h200 chooses it on purpose and silences this warning"
          "-DGPU_TOPOLOGY_ON_NO_GPU=error stops the configure instead")
# The warning, from "CMake Warning" to the blank line after its call stack.
string(REGEX MATCH "CMake Warning[^\n]*\n(([^\n]+\n)*\n)+" warning "${output}")
string(REPLACE ";" "," counted "${warning}")  # one line, one list element
string(REGEX MATCHALL "[^\n]*[^ \n][^\n]*" lines "${counted}")
list(LENGTH lines count)
message(STATUS "the fallback warning: ${count} lines:\n${warning}")
if(count GREATER 8)
  message(FATAL_ERROR "the fallback warning takes ${count} lines, more than 8")
endif()
run(ok ${no_gpu} "${CMAKE_COMMAND}" "${WORK}/fallback")
expect_not_in("${output}" "CMake Warning")
expect_in("${output}" "still describes the stored profile nvidia-h200.json, not a GPU measured here")
expect_our_lines("${stdout}" 3 "re-configure on the stored profile")
# Chosen on purpose: a status line, no warning.
run(ok ${no_gpu} "${CMAKE_COMMAND}" "${WORK}/fallback" ${stored_arg})
expect_not_in("${output}" "CMake Warning")
expect_in("${output}" "describes the GPU of the stored profile")

# Every quantity with --log-level=VERBOSE, from the pre-rendered stored profile.
run(ok "${CMAKE_COMMAND}" --log-level=VERBOSE "${WORK}/fallback" ${stored_arg})
expect_in("${output}" "every quantity of" "SM_COUNT = 132" "L1_SIZE_BYTES = 248832"
          "CONSTANT_L15_SIZE_BYTES = at least 65536" "L1_SETS = unmeasured: ")
expect_nothing_compiled("${WORK}/fallback")
