# No generated output names a path in bench/ or docs/measurements/: the stored
# profiles, and the headers, CMake variables and pictures rendered from them under
# generated/, and docs/quantities.md. Those files reach users (installed, or
# copied into their build trees); bench/ and docs/measurements/ are the project's
# workshop, whose files come and go (a reason once sent users to a deleted one).
# (header.generated_is_current checks that the committed files are what the probe
# writes now, so checking them checks the probe's output too.)
#   cmake -DSOURCE_DIR=<repository> -P no_workshop_paths.cmake
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE outputs "${SOURCE_DIR}/generated/*")
list(APPEND outputs "${SOURCE_DIR}/docs/quantities.md")
list(LENGTH outputs count)
if(count LESS 10)
  message(FATAL_ERROR "only ${count} generated files found under ${SOURCE_DIR}/generated: ${outputs}")
endif()
set(found "")
foreach(file IN LISTS outputs)
  file(STRINGS "${file}" lines REGEX "(bench|docs/measurements)/")
  foreach(line IN LISTS lines)
    # A path, not a word ending in "bench" (workbench/): the folder name starts the path or follows a separator.
    if(line MATCHES "(^|[^A-Za-z0-9_.-])((bench|docs/measurements)/[^ \"',;)]*)")
      file(RELATIVE_PATH relative "${SOURCE_DIR}" "${file}")
      list(APPEND found "${relative}: ${CMAKE_MATCH_2}")
    endif()
  endforeach()
endforeach()
if(found)
  list(JOIN found "\n  " found)
  message(FATAL_ERROR "generated files name paths of the project's workshop, which users do not have:\n  ${found}\n"
                      "Say what was found instead (the reasons live in probe/model/quantities.hpp, and stored "
                      "profiles carry them), then regenerate: cmake --build <build> --target gpu_topology_regenerate")
endif()
message("${count} generated files name no path in bench/ or docs/measurements/")
