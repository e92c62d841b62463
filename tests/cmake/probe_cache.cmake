# The probes the user's cache keeps (GPUTopologyCache.cmake), asked for as a configure asks,
# in scripts of their own: what their key holds and leaves out; one that changed since it was
# kept, is writable by others, lost its hash, is a link or another user's is not used, with one
# line that says why; the cache keeps the four used last. And what turns the cache off.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
# A package of a few sources, whose probe's key is asked for.
file(WRITE "${WORK}/package/probe/main.cpp" "int main() {}\n")
file(WRITE "${WORK}/package/templates/gpu_topology.hpp.in" "// template\n")
file(MAKE_DIRECTORY "${WORK}/tree/_gpu_topology")
# Runs `code` with the package's CMake functions, the cache in WORK/cache; its output in `output`.
function(with_cache code)
  file(WRITE "${WORK}/call.cmake" "include(\"${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake\")\n"
       "set_property(GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR \"${WORK}/package\")\n"
       "set(GPU_TOPOLOGY_BUILD_ROOT \"${WORK}/tree\")\n${code}\n")
  run(ok "${CMAKE_COMMAND}" ${ARGN} -P "${WORK}/call.cmake")
  set(output "${output}" PARENT_SCOPE)
endfunction()
function(key_of out)
  set(quoted "${ARGN}")
  list(TRANSFORM quoted PREPEND "\"")
  list(TRANSFORM quoted APPEND "\"")
  list(JOIN quoted " " quoted)
  with_cache("_gpu_topology_probe_key(${quoted} RESULT key)\nmessage(\"key=\${key}\")")
  string(REGEX MATCH "key=([0-9a-f]+)" ignored "${output}")
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

# The key: the kind, the sources, the options and compilers; not the generator or make program.
find_program(compiler NAMES c++ g++ clang++ REQUIRED)
set(options -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${compiler}")
key_of(ninja KIND render ARGUMENTS -G Ninja -DCMAKE_MAKE_PROGRAM=/usr/bin/ninja ${options})
key_of(make KIND render ARGUMENTS -G "Unix Makefiles" -DCMAKE_MAKE_PROGRAM=/usr/bin/make ${options})
key_of(measure KIND measure ARGUMENTS -G Ninja ${options})
key_of(debug KIND render ARGUMENTS -G Ninja -DCMAKE_BUILD_TYPE= "-DCMAKE_CXX_COMPILER=${compiler}")
file(WRITE "${WORK}/bin/c++" "")  # the key names a compiler by its file; it runs none
key_of(other_compiler KIND render ARGUMENTS -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${WORK}/bin/c++")
file(APPEND "${WORK}/package/probe/main.cpp" "// changed\n")
key_of(changed KIND render ARGUMENTS -G Ninja ${options})
if(NOT ninja STREQUAL make)
  message(FATAL_ERROR "the generator or make program changed the probe's key")
endif()
foreach(other measure debug other_compiler changed)
  if(ninja STREQUAL ${other})
    message(FATAL_ERROR "the probe's key is the same for another ${other}")
  endif()
endforeach()

# A probe kept, then asked for: used; changed since, writable by others, without its hash,
# a link, another user's: not used, and the line says why.
file(WRITE "${WORK}/built/gpu-topology-probe" "#!/bin/sh\necho a stand-in probe\n")
file(CHMOD "${WORK}/built/gpu-topology-probe" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(kept "${WORK}/cache/gpu-topology/probes/${ninja}")
function(keep key)
  string(CONCAT code "_gpu_topology_cache_dir(RESULT cache)\n_gpu_topology_keep_probe(DIRECTORY \"\${cache}\" KEY ${key} "
                     "PROBE \"${WORK}/built/gpu-topology-probe\" STATE \"${WORK}/tree/_gpu_topology\" KEEP 4)")
  with_cache("${code}")
endfunction()
function(asked_for why)
  string(CONCAT code "_gpu_topology_cache_dir(RESULT cache)\n_gpu_topology_cached_probe(DIRECTORY \"\${cache}\" "
                     "KEY ${ninja} RESULT probe)\nmessage(\"probe=\${probe}.\")")
  with_cache("${code}")
  if(why STREQUAL "")
    expect_in("${output}" "probe=${kept}.")
    expect_not_in("${output}" "not using")
  else()
    expect_in("${output}" "not using the cached probe ${kept}: ${why}" "probe=.")
  endif()
endfunction()
keep(${ninja})
asked_for("")
execute_process(COMMAND "${kept}" OUTPUT_VARIABLE said)
expect_in("${said}" "a stand-in probe")  # kept runnable
file(APPEND "${kept}" "# changed\n")
asked_for("its content is not what was kept (SHA-256 ")
keep(${ninja})
file(CHMOD "${kept}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_WRITE GROUP_EXECUTE)
asked_for("other users may write it (mode 770)")
keep(${ninja})
file(REMOVE "${kept}.sha256")
asked_for("its hash ${kept}.sha256: it is missing")
file(REMOVE "${kept}")
file(CREATE_LINK "${WORK}/built/gpu-topology-probe" "${kept}" SYMBOLIC)
asked_for("it is a symbolic link")
file(REMOVE "${kept}")
execute_process(COMMAND id -u OUTPUT_VARIABLE user OUTPUT_STRIP_TRAILING_WHITESPACE)
if(user STREQUAL "0")  # only root can give a file away
  keep(${ninja})
  execute_process(COMMAND chown 65534 "${kept}" COMMAND_ERROR_IS_FATAL ANY)
  asked_for("it belongs to user id 65534, not to this user (0)")
else()
  message(STATUS "a probe of another owner: not tried (only root can make one)")
endif()

# The cache keeps the four probes used last (their files' times: each use touches its file).
foreach(used 1 2 3 4 5)  # kept, then last used at this time
  keep(${used}000)
  execute_process(COMMAND touch -d "@${used}000000" "${WORK}/cache/gpu-topology/probes/${used}000")
endforeach()
keep(${ninja})
file(GLOB left RELATIVE "${WORK}/cache/gpu-topology/probes" "${WORK}/cache/gpu-topology/probes/*.sha256")
list(SORT left)
if(NOT left STREQUAL "3000.sha256;4000.sha256;5000.sha256;${ninja}.sha256")
  message(FATAL_ERROR "the cache did not keep the four probes used last: ${left}")
endif()

# Off: GPU_TOPOLOGY_CACHE, the cache variable or the environment variable, false in any spelling.
foreach(off "-DGPU_TOPOLOGY_CACHE=OFF" "ENV=off" "ENV=No")
  set(ENV{GPU_TOPOLOGY_CACHE} "")
  if(off MATCHES "^ENV=(.*)")
    set(ENV{GPU_TOPOLOGY_CACHE} "${CMAKE_MATCH_1}")
    set(off "")
  endif()
  with_cache("_gpu_topology_cache_dir(RESULT cache)\nmessage(\"cache=\${cache}.\")" ${off})
  expect_in("${output}" "cache=.")
endforeach()
set(ENV{GPU_TOPOLOGY_CACHE} on)
with_cache("_gpu_topology_cache_dir(RESULT cache)\nmessage(\"cache=\${cache}.\")")
expect_in("${output}" "cache=${WORK}/cache/gpu-topology.")
