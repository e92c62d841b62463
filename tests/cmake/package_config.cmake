# find_package(GPUTopology ...) as users write it against the install: a version of the
# same major works; a range that reaches another major is refused by the version file
# (SameMajorVersion, as the README says); the package has no components: a required one
# is refused with that reason, an optional one is reported not found.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
run(ok "${CMAKE_COMMAND}" --install "${PACKAGE_BUILD}" --prefix "${WORK}/prefix")
file(WRITE "${WORK}/project/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES CXX)
separate_arguments(request UNIX_COMMAND "${REQUEST}")
find_package(GPUTopology ${request} REQUIRED)
message(STATUS "found GPUTopology ${GPUTopology_VERSION}; component x found: [${GPUTopology_x_FOUND}]")
]=])
set(n 0)
foreach(case "ok;1" "ok;1.0...<2.0" "ok;1;OPTIONAL_COMPONENTS;x" "fail;1.0...2.0;version"
             "fail;1;COMPONENTS;x;GPUTopology has no components, so none of x can be found"
             "fail;2;version")
  list(POP_FRONT case expect)
  set(message "")
  if(expect STREQUAL "fail")
    list(POP_BACK case message)
  endif()
  list(JOIN case " " request)
  math(EXPR n "${n} + 1")
  run(${expect} "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${WORK}/build${n}" -G "${GENERATOR}"
      -DCMAKE_PREFIX_PATH=${WORK}/prefix "-DREQUEST=${request}")
  message(STATUS "find_package(GPUTopology ${request}): ${expect}")
  if(expect STREQUAL "ok")
    expect_in("${output}" "found GPUTopology 1.")
  else()
    expect_in("${output}" "${message}")
  endif()
endforeach()
expect_in("${output}" "compatible")
