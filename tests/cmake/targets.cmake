# What a CMake user gives as TARGET. Each works, or is refused before anything is
# written, naming the target:
#   works    a target named like a layer of the package (render, model, profile, util,
#            kernels, stages); an ALIAS (the target it names gets the header); OBJECT,
#            STATIC and INTERFACE libraries; an IMPORTED library; a target of another
#            directory; one TARGET given twice; two TARGET keywords; SCOPE PUBLIC (the
#            header reaches the library's users in the build tree)
#   refused  a target that does not exist yet; a generator expression; a custom target;
#            an imported executable; a NAME whose target the project has; a target that
#            has another call's header; SCOPE PRIVATE for an interface library; a SCOPE
#            that is none
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
write_project("${WORK}/project" [=[
add_executable(render main.cpp)
gpu_topology_generate(TARGET render)
foreach(layer model profile util kernels stages)
  add_library(${layer} INTERFACE)
  gpu_topology_generate(TARGET ${layer})
endforeach()
add_library(foo STATIC foo.cpp)
add_library(ns::foo ALIAS foo)
gpu_topology_generate(TARGET ns::foo SCOPE PUBLIC)
add_executable(uses_foo main.cpp)
target_link_libraries(uses_foo PRIVATE foo)  # PUBLIC: the header comes with foo
add_library(objects OBJECT foo.cpp)
gpu_topology_generate(TARGET objects)
add_library(iface INTERFACE)
gpu_topology_generate(TARGET iface)
add_executable(uses_iface main.cpp)
target_link_libraries(uses_iface PRIVATE iface)
add_library(prebuilt INTERFACE IMPORTED)
gpu_topology_generate(TARGET prebuilt)
add_executable(uses_prebuilt main.cpp)
target_link_libraries(uses_prebuilt PRIVATE prebuilt)
add_subdirectory(elsewhere)
gpu_topology_generate(TARGET elsewhere)
add_executable(twice main.cpp)
gpu_topology_generate(TARGET twice twice)
add_executable(first main.cpp)
add_executable(second main.cpp)
gpu_topology_generate(NAME pair TARGET first TARGET second)
get_target_property(foo_links foo LINK_LIBRARIES)
get_target_property(twice_links twice LINK_LIBRARIES)
list(LENGTH twice_links twice_count)
message(STATUS "foo links: ${foo_links}; twice links ${twice_count}: ${twice_links}")

if(CASE STREQUAL "later")
  gpu_topology_generate(TARGET later)
  add_executable(later main.cpp)
elseif(CASE STREQUAL "genex")
  gpu_topology_generate(TARGET $<TARGET_NAME:foo>)
elseif(CASE STREQUAL "custom")
  add_custom_target(docs)
  gpu_topology_generate(TARGET docs)
elseif(CASE STREQUAL "tool")
  add_executable(tool IMPORTED)
  gpu_topology_generate(TARGET tool)
elseif(CASE STREQUAL "taken")
  add_library(GPUTopology_mine INTERFACE)
  gpu_topology_generate(NAME mine)
elseif(CASE STREQUAL "again")
  gpu_topology_generate(NAME again TARGET first)
elseif(CASE STREQUAL "scope")
  add_library(iface2 INTERFACE)
  gpu_topology_generate(NAME scope TARGET iface2 SCOPE PRIVATE)
elseif(CASE STREQUAL "sideways")
  add_executable(sideways main.cpp)
  gpu_topology_generate(TARGET sideways SCOPE SIDEWAYS)
endif()
]=])
file(WRITE "${WORK}/project/main.cpp" "#include <gpu_topology.hpp>\nint main() { return gpu_topology::identity.sm_count > 0 ? 0 : 1; }\n")
file(WRITE "${WORK}/project/foo.cpp" "#include <gpu_topology.hpp>\nint foo() { return gpu_topology::identity.sm_count; }\n")
file(WRITE "${WORK}/project/elsewhere/CMakeLists.txt" "add_executable(elsewhere ../main.cpp)\n")
set(build "${WORK}/build")
run(ok "${CMAKE_COMMAND}" -S "${WORK}/project" -B "${build}" -G "${GENERATOR}" ${stored_arg})
expect_not_in("${output}" "CMake Error" "CMake Warning")
expect_in("${output}" "GPUTopology::render" "GPUTopology::ns__foo" "GPUTopology::prebuilt" "GPUTopology::pair"
          "foo links: $<BUILD_INTERFACE:GPUTopology::ns__foo>" "twice links 1: $<BUILD_INTERFACE:GPUTopology::twice>")
run(ok "${CMAKE_COMMAND}" --build "${build}")
foreach(program render uses_foo uses_iface uses_prebuilt elsewhere/elsewhere first second)
  run(ok "${build}/${program}")
endforeach()

foreach(case "later;TARGET 'later' is not a target here: call gpu_topology_generate after"
             "genex;TARGET '$<TARGET_NAME:foo>' is not a target here"
             "custom;TARGET 'docs' is of type UTILITY: nothing of it is compiled here"
             "tool;TARGET 'tool' is of type imported EXECUTABLE: nothing of it is compiled here"
             "taken;NAME 'mine' would make the target GPUTopology::mine, but the project has a target GPUTopology_mine"
             "again;TARGET 'first' has the header of the call 'pair' already"
             "scope;TARGET 'iface2' compiles nothing itself (an interface or imported library): it can only pass the header on, SCOPE INTERFACE, not PRIVATE"
             "sideways;SCOPE 'SIDEWAYS' is not PRIVATE, PUBLIC or INTERFACE")
  list(POP_FRONT case name message)
  run(fail "${CMAKE_COMMAND}" "${build}" -DCASE=${name})
  expect_in("${output}" "gpu_topology_generate: ${message}")
  file(GLOB written "${build}/gpu_topology/${name}" "${build}/gpu_topology/mine" "${build}/_gpu_topology/call-${name}")
  if(written)
    message(FATAL_ERROR "a refused call wrote ${written}")
  endif()
endforeach()
