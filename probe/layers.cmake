# Fails when a file of the probe includes a header of a layer above its own, or
# includes by a relative path ("../"). probe/CMakeLists.txt runs it at build time,
# before any layer compiles, with the rules it links the layers' libraries by:
#   cmake -DROOT=<probe/> -DRULES="util=util;model=model,util;...;cli=..." -DSTAMP=<file> -P layers.cmake
# The compiler refuses a climbing include already (each layer's include root holds
# only what it may include); this check adds what the compiler cannot see: a "../"
# include, found beside the including file and so past any include root, and a
# header that no source of its own layer compiles.
# A layer is a folder of ROOT; main.cpp is the cli's; version.hpp, which includes
# nothing, belongs to every layer. Includes are written from ROOT ("util/json.hpp")
# or, for the including file's own folder, by name. Only quoted includes are
# checked: <...> ones are the standard library's and CUDA's.
cmake_minimum_required(VERSION 3.25)

foreach(rule IN LISTS RULES)
  string(REGEX MATCH "^([a-z_]+)=(.*)$" matched "${rule}")
  if(NOT matched)
    message(FATAL_ERROR "layers.cmake: malformed rule '${rule}'")
  endif()
  string(REPLACE "," ";" reach "${CMAKE_MATCH_2}")
  set(reach_${CMAKE_MATCH_1} "${reach}")
  list(APPEND layers ${CMAKE_MATCH_1})
endforeach()

file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/*.hpp" "${ROOT}/*.cpp" "${ROOT}/*.cu" "${ROOT}/*.cuh")
set(violations "")
foreach(file IN LISTS files)
  if(file STREQUAL "main.cpp")
    set(layer cli)
  elseif(file STREQUAL "version.hpp")
    continue()
  else()
    string(REGEX MATCH "^([^/]+)/" matched "${file}")
    set(layer "${CMAKE_MATCH_1}")
  endif()
  if(NOT layer IN_LIST layers)
    list(APPEND violations "${file}: in no layer (a folder of probe/ that probe/CMakeLists.txt names)")
    continue()
  endif()
  file(STRINGS "${ROOT}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "\"([^\"]+)\"" matched "${line}")
    set(included "${CMAKE_MATCH_1}")
    if(included MATCHES "(^|/)\\.\\.?/")
      list(APPEND violations "${file}: includes \"${included}\" by a relative path, which the compiler finds beside the file, past its layer's include root: write it from probe/")
      continue()
    endif()
    if(NOT included MATCHES "^([^/]+)/")  # its own folder's, or version.hpp
      continue()
    endif()
    set(to "${CMAKE_MATCH_1}")
    if(to IN_LIST layers AND NOT to IN_LIST reach_${layer})
      list(APPEND violations "${file}: includes \"${included}\" (layer ${to}), above layer ${layer}, which may include ${reach_${layer}}")
    endif()
  endforeach()
endforeach()

if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "An #include runs up a layer (the layers: probe/CMakeLists.txt):\n  ${text}")
endif()
file(TOUCH "${STAMP}")
