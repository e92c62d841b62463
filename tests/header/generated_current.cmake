# generated/<name>/ holds what the committed generated/profiles/<name>.json renders
# to with this probe (gpu_topology.hpp, gpu_topology_vars.cmake), the hash of the
# profile it was rendered from (profile.sha256: a configure copies the files only
# for that profile), and generated/profiles/<name>.svg its picture. All of them come
# from one command, which this test names when they are stale.
#   cmake -DPROBE=... -DGENERATED=... -DWORK=... -P generated_current.cmake
file(REMOVE_RECURSE "${WORK}")
file(GLOB profiles "${GENERATED}/profiles/*.json")
if(NOT profiles)
  message(FATAL_ERROR "no stored profiles in ${GENERATED}/profiles")
endif()
set(regenerate "cmake --build <build> --target gpu_topology_regenerate")
foreach(profile IN LISTS profiles)
  get_filename_component(name "${profile}" NAME_WE)
  execute_process(COMMAND "${PROBE}" render "${profile}" --header "${WORK}/${name}/gpu_topology.hpp"
                          --cmake "${WORK}/${name}/gpu_topology_vars.cmake" --source "stored:${name}.json"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rendering ${profile} failed: ${err}")
  endif()
  execute_process(COMMAND "${PROBE}" svg "${profile}" --output "${WORK}/${name}.svg" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "drawing ${profile} failed: ${err}")
  endif()
  foreach(pair "${name}/gpu_topology.hpp;${name}/gpu_topology.hpp" "${name}/gpu_topology_vars.cmake;${name}/gpu_topology_vars.cmake"
               "${name}.svg;profiles/${name}.svg")
    list(GET pair 0 fresh)
    list(GET pair 1 committed)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/${fresh}" "${GENERATED}/${committed}"
                    RESULT_VARIABLE differs)
    if(differs)
      message(FATAL_ERROR "${GENERATED}/${committed} is stale; regenerate every derived file with\n  ${regenerate}")
    endif()
  endforeach()
  file(SHA256 "${profile}" hash)
  set(stamp "")
  if(EXISTS "${GENERATED}/${name}/profile.sha256")
    file(STRINGS "${GENERATED}/${name}/profile.sha256" stamp LIMIT_COUNT 1)
  endif()
  if(NOT stamp STREQUAL hash)
    message(FATAL_ERROR "${GENERATED}/${name}/profile.sha256 does not name ${profile} (so a configure renders it "
                        "instead of copying); regenerate every derived file with\n  ${regenerate}")
  endif()
endforeach()
