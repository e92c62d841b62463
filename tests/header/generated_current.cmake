# generated/<name>/gpu_topology.hpp and gpu_topology_vars.cmake are what the
# committed generated/profiles/<name>.json renders to with this probe; a
# configure without a GPU copies them instead of building the probe.
#   cmake -DPROBE=... -DGENERATED=... -DWORK=... -P generated_current.cmake
file(REMOVE_RECURSE "${WORK}")
file(GLOB profiles "${GENERATED}/profiles/*.json")
if(NOT profiles)
  message(FATAL_ERROR "no stored profiles in ${GENERATED}/profiles")
endif()
foreach(profile IN LISTS profiles)
  get_filename_component(name "${profile}" NAME_WE)
  execute_process(COMMAND "${PROBE}" render "${profile}" --header "${WORK}/${name}/gpu_topology.hpp"
                          --cmake "${WORK}/${name}/gpu_topology_vars.cmake" --source "stored:${name}.json"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rendering ${profile} failed: ${err}")
  endif()
  foreach(file gpu_topology.hpp gpu_topology_vars.cmake)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/${name}/${file}" "${GENERATED}/${name}/${file}"
                    RESULT_VARIABLE differs)
    if(differs)
      message(FATAL_ERROR "${GENERATED}/${name}/${file} is stale; regenerate it with\n"
                          "  gpu-topology-probe render generated/profiles/${name}.json --header generated/${name}/gpu_topology.hpp "
                          "--cmake generated/${name}/gpu_topology_vars.cmake --source stored:${name}.json")
    endif()
  endforeach()
endforeach()
