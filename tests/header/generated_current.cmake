# Every file the regenerate target writes (cmake/GPUTopologyRegenerate.cmake: for each
# committed generated/profiles/<name>.json its pre-rendered header, CMake variables,
# profile.sha256 and picture, and docs/quantities.md) is what this probe writes now.
# The script runs into WORK and every file it writes is compared with the committed one.
#   cmake -DPROBE=... -DSOURCE_DIR=<repository> -DWORK=... -P generated_current.cmake
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" -DPROBE=${PROBE} -DSOURCE_DIR=${SOURCE_DIR} -DOUTPUT_DIR=${WORK}
                        -P "${SOURCE_DIR}/cmake/GPUTopologyRegenerate.cmake"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "regenerating into ${WORK} failed: ${err}")
endif()
file(GLOB_RECURSE written RELATIVE "${WORK}" "${WORK}/*")
list(LENGTH written count)
if(count LESS 4)
  message(FATAL_ERROR "the regenerate script wrote only ${count} files: ${written}")
endif()
foreach(file IN LISTS written)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/${file}" "${SOURCE_DIR}/${file}"
                  RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "${SOURCE_DIR}/${file} is stale (or missing); regenerate every derived file with\n"
                        "  cmake --build <build> --target gpu_topology_regenerate")
  endif()
endforeach()
message("${count} derived files are current")
