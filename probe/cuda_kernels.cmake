# The probe's CUDA kernels, compiled by nvcc directly rather than through CMake's CUDA
# language. Enabling the language identifies the compiler first (a compiler-id build, an ABI
# try_compile, the native architectures): 2.8 s of the README's 12-15 s first configure on a
# 16-core GPU machine, 5-7 s on two cores, and a C++-only consumer's nested probe build paid it
# again. nvcc needs none of it for three sources of known flags: it is the toolkit's own
# driver, and CUDAToolkit (FindCUDAToolkit, which needs no CUDA language) gives the runtime to
# link. What the language would have given is given here: the host compiler (CMAKE_CUDA_HOST_COMPILER,
# else CUDAHOSTCXX, else the C++ compiler, as CMake 4 does), -forward-unknown-to-host-compiler,
# CMAKE_CUDA_FLAGS (or CUDAFLAGS) and CMAKE_CUDA_FLAGS_<CONFIG> (CMake's defaults for nvcc where
# unset), -fPIC under CMAKE_POSITION_INDEPENDENT_CODE, CMAKE_CUDA_COMPILER_LAUNCHER (ccache), the
# architectures as CUDA_ARCHITECTURES spells them. Ninja and Makefiles track each object's headers
# from nvcc's dependency file. Not given: an entry in compile_commands.json.
#
#   _gpu_topology_nvcc_library(<target> NVCC <nvcc> SOURCES <.cu>... [ARCHITECTURES <arch>...]
#                              [OPTIONS <nvcc option>...] [INCLUDES_FROM <target>])
# An interface library that links a static archive of the objects and CUDA::cudart_static.
# ARCHITECTURES as the CUDA_ARCHITECTURES property spells them (90-real, 80, 90a-virtual, native,
# all, all-major); none: nvcc's default. INCLUDES_FROM: a target whose interface include
# directories and compile definitions the sources compile with.

# RESULT: nvcc's options for ARCHITECTURES spelt as CUDA_ARCHITECTURES spells them.
function(_gpu_topology_nvcc_architectures)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "ARCHITECTURES")
  set(options "")
  foreach(arch IN LISTS ARG_ARCHITECTURES)
    if(arch MATCHES "^(native|all|all-major)$")
      list(APPEND options "-arch=${arch}")
    elseif(arch MATCHES "^([0-9]+[a-z]?)(-real|-virtual)?$")
      set(number "${CMAKE_MATCH_1}")
      if(CMAKE_MATCH_2 STREQUAL "-real")
        set(code "sm_${number}")
      elseif(CMAKE_MATCH_2 STREQUAL "-virtual")
        set(code "compute_${number}")
      else()
        set(code "[compute_${number},sm_${number}]")
      endif()
      list(APPEND options "--generate-code=arch=compute_${number},code=${code}")
    else()
      message(FATAL_ERROR "GPUTopology: '${arch}' is not a CUDA architecture (such as 80, 90-real or native)")
    endif()
  endforeach()
  set(${ARG_RESULT} "${options}" PARENT_SCOPE)
endfunction()

# RESULT: the host compiler nvcc is given: CMAKE_CUDA_HOST_COMPILER, else the CUDAHOSTCXX
# environment variable, else the project's C++ compiler (the one that compiles the rest of the
# probe, so that one compiler's objects and library meet at the link).
function(_gpu_topology_nvcc_host_compiler)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  if(CMAKE_CUDA_HOST_COMPILER)
    set(${ARG_RESULT} "${CMAKE_CUDA_HOST_COMPILER}" PARENT_SCOPE)
  elseif(NOT "$ENV{CUDAHOSTCXX}" STREQUAL "")
    set(${ARG_RESULT} "$ENV{CUDAHOSTCXX}" PARENT_SCOPE)
  else()
    set(${ARG_RESULT} "${CMAKE_CXX_COMPILER}" PARENT_SCOPE)
  endif()
endfunction()

# OPTIONS: the build type's flags, as CMake's CUDA language would give them (its defaults for
# nvcc where CMAKE_CUDA_FLAGS_<CONFIG> is unset), one generator expression per build type.
function(_gpu_topology_nvcc_config_flags)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  set(default_Debug "-g")
  set(default_Release "-O3 -DNDEBUG")
  set(default_RelWithDebInfo "-O2 -g -DNDEBUG")
  set(default_MinSizeRel "-O1 -DNDEBUG")
  set(by_config "")
  foreach(config Debug Release RelWithDebInfo MinSizeRel)
    string(TOUPPER "${config}" upper)
    set(config_flags "${default_${config}}")
    if(DEFINED CMAKE_CUDA_FLAGS_${upper})
      set(config_flags "${CMAKE_CUDA_FLAGS_${upper}}")
    endif()
    separate_arguments(config_flags NATIVE_COMMAND "${config_flags}")
    list(JOIN config_flags "$<SEMICOLON>" config_flags)
    list(APPEND by_config "$<$<CONFIG:${config}>:${config_flags}>")
  endforeach()
  set(${ARG_RESULT} "${by_config}" PARENT_SCOPE)
endfunction()

function(_gpu_topology_nvcc_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "NVCC;INCLUDES_FROM" "SOURCES;ARCHITECTURES;OPTIONS")
  _gpu_topology_nvcc_architectures(ARCHITECTURES ${ARG_ARCHITECTURES} RESULT architectures)
  _gpu_topology_nvcc_host_compiler(RESULT host)
  set(common -forward-unknown-to-host-compiler -ccbin "${host}" ${architectures} ${ARG_OPTIONS})
  set(flags "${CMAKE_CUDA_FLAGS}")
  if(NOT DEFINED CMAKE_CUDA_FLAGS)
    set(flags "$ENV{CUDAFLAGS}")
  endif()
  separate_arguments(flags NATIVE_COMMAND "${flags}")
  list(APPEND common ${flags})
  if(CMAKE_POSITION_INDEPENDENT_CODE)
    list(APPEND common -Xcompiler=-fPIC)
  endif()
  _gpu_topology_nvcc_config_flags(RESULT by_config)
  if(ARG_INCLUDES_FROM)
    set(includes "$<TARGET_PROPERTY:${ARG_INCLUDES_FROM},INTERFACE_INCLUDE_DIRECTORIES>")
    set(definitions "$<TARGET_PROPERTY:${ARG_INCLUDES_FROM},INTERFACE_COMPILE_DEFINITIONS>")
    list(APPEND common "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
                       "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>")
  endif()
  # One folder per configuration where a generator builds several from one tree.
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.dir")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    string(APPEND dir "/$<CONFIG>")
  endif()
  set(objects "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(name "${source}" NAME)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(object "${dir}/${name}.o")
    # The folder made first: Ninja makes an output's folder, Make does not.
    add_custom_command(OUTPUT "${object}" COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
                       COMMAND ${CMAKE_CUDA_COMPILER_LAUNCHER} "${ARG_NVCC}" ${common} ${by_config}
                               -MD -MF "${object}.d" -c "${path}" -o "${object}"
                       DEPENDS "${path}" DEPFILE "${object}.d" COMMAND_EXPAND_LISTS VERBATIM
                       COMMENT "Building CUDA object ${target}.dir/${name}.o")
    list(APPEND objects "${object}")
  endforeach()
  # The archive is made by a command too, and the library is an interface that links it by its
  # path: CMake's Ninja generator holds every compile of a target that links a target with
  # custom commands until those commands are done (they might write headers), which kept the
  # host units above the kernels waiting for them (2 of a nested build's 7 s on an H200). With
  # Ninja the link alone waits for the archive; other generators order whole targets anyway.
  set(archive "${dir}/${CMAKE_STATIC_LIBRARY_PREFIX}${target}${CMAKE_STATIC_LIBRARY_SUFFIX}")
  add_custom_command(OUTPUT "${archive}" COMMAND "${CMAKE_COMMAND}" -E rm -f "${archive}"
                     COMMAND "${CMAKE_AR}" qcs "${archive}" ${objects} DEPENDS ${objects} VERBATIM
                     COMMENT "Linking CUDA static library ${target}.dir/${target}")
  add_custom_target(${target}_archive DEPENDS "${archive}")
  add_library(${target} INTERFACE)
  target_link_libraries(${target} INTERFACE "${archive}" CUDA::cudart_static)
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    add_dependencies(${target} ${target}_archive)
  endif()
endfunction()
