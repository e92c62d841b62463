# Regenerates every file derived from the stored profiles and the list of
# quantities, with the probe just built (run it after changing either):
#   cmake --build <build> --target gpu_topology_regenerate
# For each generated/profiles/<name>.json:
#   generated/<name>/gpu_topology.hpp and gpu_topology_vars.cmake  (what a configure copies)
#   generated/<name>/profile.sha256   (which profile they were rendered from: a configure
#                                      copies them only for that profile, GPUTopology.cmake)
#   generated/profiles/<name>.svg     (its picture)
# and docs/quantities.md. Rendering validates each profile first, so an invalid one
# stops here with its file and field named, and nothing after it is written.
# OUTPUT_DIR (default SOURCE_DIR) writes the same tree elsewhere: the test that the
# committed files are current (tests/header/generated_current.cmake) compares with it.
#   cmake -DPROBE=<gpu-topology-probe> -DSOURCE_DIR=<repository> [-DOUTPUT_DIR=<dir>] -P GPUTopologyRegenerate.cmake
cmake_minimum_required(VERSION 3.25)
foreach(required PROBE SOURCE_DIR)
  if(NOT ${required})
    message(FATAL_ERROR "GPUTopologyRegenerate.cmake: -D${required}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(STRIP "${err}${out}" why)
    message(FATAL_ERROR "regenerating ${what} failed: ${why}")
  endif()
endfunction()

if(NOT OUTPUT_DIR)
  set(OUTPUT_DIR "${SOURCE_DIR}")
endif()
file(GLOB profiles "${SOURCE_DIR}/generated/profiles/*.json")
if(NOT profiles)
  message(FATAL_ERROR "no stored profiles in ${SOURCE_DIR}/generated/profiles")
endif()
set(generated "${OUTPUT_DIR}/generated")
foreach(profile IN LISTS profiles)
  get_filename_component(name "${profile}" NAME_WE)
  run("${profile}" "${PROBE}" render "${profile}" --header "${generated}/${name}/gpu_topology.hpp"
      --cmake "${generated}/${name}/gpu_topology_vars.cmake" --source "stored:${name}.json")
  run("the picture of ${profile}" "${PROBE}" svg "${profile}" --output "${generated}/profiles/${name}.svg")
  file(SHA256 "${profile}" hash)
  file(WRITE "${generated}/${name}/profile.sha256" "${hash}\n")
  message(STATUS "regenerated ${generated}/${name}/ and ${generated}/profiles/${name}.svg")
endforeach()
run("docs/quantities.md" "${PROBE}" docs --output "${OUTPUT_DIR}/docs/quantities.md")
message(STATUS "regenerated ${OUTPUT_DIR}/docs/quantities.md")
