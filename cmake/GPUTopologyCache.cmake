# This user's cache of what GPUTopology measured and built, shared by every build tree
# and project of the user on this machine:
#   <dir>/profiles/<key>.json    a measurement of a quiet GPU; <key> from what makes it
#                                valid (GPUTopology.cmake, _gpu_topology_measure)
#   <dir>/probes/<key>[.exe]     a probe the nested build made; <key> from its sources,
#                                compilers and options
#   <entry>.sha256               each entry's hash when it was kept: an entry edited since is not used
# <dir> is GPU_TOPOLOGY_CACHE_DIR (the cache variable, else the environment variable), else
# XDG_CACHE_HOME or ~/.cache (/gpu-topology), where the user's GPU locks are too. It is the
# user's own: a directory, not a link, owned by the user, mode 0700 (set when it is not).
# Every entry is distrusted: one that is a link, not a regular file, not the user's,
# writable by others, or not what it was kept as is ignored with one line that says why.
# Entries are written whole (a file of their own, renamed) under a lock, and only inside
# <dir>; a write that fails warns once and the configure goes on without the cache.
# GPU_TOPOLOGY_CACHE=OFF (the cache variable or the environment variable) turns it off.
#   _gpu_topology_user_dirs(PREFIX p)         p_LOCKS, p_CACHE: where the GPU locks and the cache are
#   _gpu_topology_cache_dir(RESULT r)         the cache directory, or "" (off, or not usable)
#   _gpu_topology_cache_put(FROM f TO e WHAT w RESULT kept)
#   _gpu_topology_cached_probe, _gpu_topology_keep_probe: probes (GPUTopologyProbe.cmake)
#   _gpu_topology_cache_take, _gpu_topology_cache_keep: profiles (GPUTopology.cmake)
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)  # return(PROPAGATE), whoever includes this file
# A keyword given "" leaves its variable of cmake_parse_arguments undefined, as in 3.25, on every
# CMake (3.31 and later warn every configure where the policy is not set, CMP0174).
if(POLICY CMP0174)
  cmake_policy(SET CMP0174 OLD)
endif()

# --- the directory ---------------------------------------------------------------------

# RESULT: whether the cache is on: GPU_TOPOLOGY_CACHE, the cache variable and the
# environment variable, neither of them false (OFF, 0, NO, FALSE, N, any case).
function(_gpu_topology_cache_wanted)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  string(TOUPPER "$ENV{GPU_TOPOLOGY_CACHE}" from_environment)
  set(${ARG_RESULT} TRUE)
  if((DEFINED GPU_TOPOLOGY_CACHE AND NOT GPU_TOPOLOGY_CACHE) OR from_environment MATCHES "^(OFF|0|NO|FALSE|N)$")
    set(${ARG_RESULT} FALSE)
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the user's own directory of the package by convention: XDG_CACHE_HOME, else
# ~/.cache, else LOCALAPPDATA (/gpu-topology); "" when none of them is set.
function(_gpu_topology_user_dir)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  set(${ARG_RESULT} "")
  if(NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(${ARG_RESULT} "$ENV{XDG_CACHE_HOME}/gpu-topology")
  elseif(NOT "$ENV{HOME}" STREQUAL "")
    set(${ARG_RESULT} "$ENV{HOME}/.cache/gpu-topology")
  elseif(NOT "$ENV{LOCALAPPDATA}" STREQUAL "")
    set(${ARG_RESULT} "$ENV{LOCALAPPDATA}/gpu-topology")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# What PATH is, itself (a link is not followed), after PREFIX: _USER this process's user
# id, _OWNER the path's, _MODE its permission bits (octal), _TYPE (regular file,
# directory, symbolic link, ...); all but _USER "" when it cannot be told (no such path).
function(_gpu_topology_stat)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PATH;PREFIX" "")
  set(out ${ARG_PREFIX}_USER ${ARG_PREFIX}_OWNER ${ARG_PREFIX}_MODE ${ARG_PREFIX}_TYPE)
  foreach(variable IN LISTS out)
    set(${variable} "")
  endforeach()
  get_property(${ARG_PREFIX}_USER GLOBAL PROPERTY _GPU_TOPOLOGY_USER_ID)
  if("${${ARG_PREFIX}_USER}" STREQUAL "")
    execute_process(COMMAND id -u OUTPUT_VARIABLE ${ARG_PREFIX}_USER OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_USER_ID "${${ARG_PREFIX}_USER}")
  endif()
  # GNU stat, else BSD stat: both examine a link itself unless told otherwise.
  execute_process(COMMAND stat -c "%u %a %F" -- "${ARG_PATH}" RESULT_VARIABLE rc OUTPUT_VARIABLE seen ERROR_QUIET)
  if(NOT rc EQUAL 0)
    execute_process(COMMAND stat -f "%u %Lp %HT" -- "${ARG_PATH}" RESULT_VARIABLE rc OUTPUT_VARIABLE seen ERROR_QUIET)
  endif()
  if(rc EQUAL 0 AND seen MATCHES "^([0-9]+) ([0-7]+) ([^\n]*)")
    set(${ARG_PREFIX}_OWNER "${CMAKE_MATCH_1}")
    set(${ARG_PREFIX}_MODE "${CMAKE_MATCH_2}")
    string(TOLOWER "${CMAKE_MATCH_3}" ${ARG_PREFIX}_TYPE)
  endif()
  return(PROPAGATE ${out})
endfunction()

# RESULT: why DIRECTORY cannot be this user's private directory ("" when it is): it is
# a link or not a directory, cannot be made, or belongs to another user. One of the
# user's own is made mode 0700 (its parents as the umask says).
function(_gpu_topology_private_dir)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;RESULT" "")
  set(${ARG_RESULT} "")
  if(IS_SYMLINK "${ARG_DIRECTORY}")
    set(${ARG_RESULT} "it is a symbolic link")
  elseif(EXISTS "${ARG_DIRECTORY}" AND NOT IS_DIRECTORY "${ARG_DIRECTORY}")
    set(${ARG_RESULT} "it is not a directory")
  else()
    # In a child process: a directory that cannot be made is a reason, not a fatal error.
    set(rc 0)
    if(NOT IS_DIRECTORY "${ARG_DIRECTORY}")
      execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_DIRECTORY}" RESULT_VARIABLE rc
                      OUTPUT_QUIET ERROR_QUIET)
    endif()
    if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${ARG_DIRECTORY}")
      set(${ARG_RESULT} "it cannot be made")
    elseif(CMAKE_HOST_UNIX)
      _gpu_topology_stat(PATH "${ARG_DIRECTORY}" PREFIX dir)
      if(dir_OWNER STREQUAL "")
        set(${ARG_RESULT} "its owner cannot be told (stat)")
      elseif(NOT dir_OWNER STREQUAL dir_USER)
        set(${ARG_RESULT} "it belongs to user id ${dir_OWNER}, not to this user (${dir_USER})")
      elseif(NOT dir_MODE MATCHES "00$")
        file(CHMOD "${ARG_DIRECTORY}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
      endif()
    endif()
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: why FILE, an entry of the cache, is not to be trusted ("" when it is): a link, not
# a regular file, not this user's, or writable by others.
function(_gpu_topology_trusted_file)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FILE;RESULT" "")
  set(${ARG_RESULT} "")
  if(IS_SYMLINK "${ARG_FILE}")
    set(${ARG_RESULT} "it is a symbolic link")
  elseif(NOT EXISTS "${ARG_FILE}")
    set(${ARG_RESULT} "it is missing")
  elseif(IS_DIRECTORY "${ARG_FILE}")
    set(${ARG_RESULT} "it is a directory")
  elseif(CMAKE_HOST_UNIX)
    _gpu_topology_stat(PATH "${ARG_FILE}" PREFIX entry)
    if(NOT entry_TYPE MATCHES "^regular")
      set(${ARG_RESULT} "it is not a regular file (${entry_TYPE})")
    elseif(NOT entry_OWNER STREQUAL entry_USER)
      set(${ARG_RESULT} "it belongs to user id ${entry_OWNER}, not to this user (${entry_USER})")
    elseif(entry_MODE MATCHES "[2367][0-7]$|[2367]$")
      set(${ARG_RESULT} "other users may write it (mode ${entry_MODE})")
    endif()
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Where this configure keeps the user's GPU locks and cache, after PREFIX: _LOCKS (the
# lock directory: GPU_TOPOLOGY_LOCK_DIR, else the user's directory, else this build tree)
# and _CACHE (the cache directory, with its profiles/ and probes/, or "" when it is off or
# cannot be used). Decided once per configure, with one warning for a directory that cannot be used.
function(_gpu_topology_user_dirs)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "PREFIX" "")
  get_property(decided GLOBAL PROPERTY _GPU_TOPOLOGY_LOCK_DIR SET)
  if(NOT decided)
    _gpu_topology_user_dir(RESULT user)
    set(locks "${GPU_TOPOLOGY_LOCK_DIR}")
    set(locks_why "")
    if(locks STREQUAL "" AND NOT user STREQUAL "")
      set(locks "${user}")
      _gpu_topology_private_dir(DIRECTORY "${locks}" RESULT locks_why)
    elseif(NOT locks STREQUAL "")  # the user's choice: any directory that can hold a lock
      execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${locks}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${locks}")
        set(locks_why "it cannot be made")
      endif()
    endif()
    _gpu_topology_cache_wanted(RESULT wanted)
    set(cache "")
    set(cache_why "")
    if(wanted)
      _gpu_topology_cache_candidate(RESULT cache)
      if(cache STREQUAL locks AND "${GPU_TOPOLOGY_LOCK_DIR}" STREQUAL "")
        set(cache_why "${locks_why}")
      elseif(NOT cache STREQUAL "" AND NOT IS_ABSOLUTE "${cache}")
        set(cache_why "it is not an absolute path")
      elseif(NOT cache STREQUAL "")
        _gpu_topology_private_dir(DIRECTORY "${cache}" RESULT cache_why)
      endif()
      if(NOT cache STREQUAL "" AND cache_why STREQUAL "")
        _gpu_topology_cache_parts(DIRECTORY "${cache}" RESULT cache_why)
      endif()
    endif()
    _gpu_topology_user_dirs_warning(LOCKS "${locks}" LOCKS_WHY "${locks_why}" CACHE "${cache}" CACHE_WHY "${cache_why}")
    if(locks STREQUAL "" OR NOT locks_why STREQUAL "")
      _gpu_topology_state_dir(RESULT locks)
    endif()
    if(NOT cache_why STREQUAL "")
      set(cache "")
    endif()
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_LOCK_DIR "${locks}")
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_CACHE_DIR "${cache}")
  endif()
  get_property(${ARG_PREFIX}_LOCKS GLOBAL PROPERTY _GPU_TOPOLOGY_LOCK_DIR)
  get_property(${ARG_PREFIX}_CACHE GLOBAL PROPERTY _GPU_TOPOLOGY_CACHE_DIR)
  return(PROPAGATE ${ARG_PREFIX}_LOCKS ${ARG_PREFIX}_CACHE)
endfunction()

# RESULT: why the cache DIRECTORY (private) cannot hold its profiles/ and probes/ ("" when it
# can): one is there but not a directory, or cannot be made (a full disk).
function(_gpu_topology_cache_parts)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;RESULT" "")
  set(${ARG_RESULT} "")
  foreach(part profiles probes)
    set(dir "${ARG_DIRECTORY}/${part}")
    if(IS_SYMLINK "${dir}" OR (EXISTS "${dir}" AND NOT IS_DIRECTORY "${dir}"))
      set(${ARG_RESULT} "its ${part}/ is not a directory")
    elseif(NOT IS_DIRECTORY "${dir}")
      execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(NOT rc EQUAL 0)
        set(${ARG_RESULT} "its ${part}/ cannot be made")
      endif()
    endif()
  endforeach()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the cache directory asked for: GPU_TOPOLOGY_CACHE_DIR (the cache variable, else
# the environment variable), else the user's directory.
function(_gpu_topology_cache_candidate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  if(DEFINED GPU_TOPOLOGY_CACHE_DIR AND NOT GPU_TOPOLOGY_CACHE_DIR STREQUAL "")
    set(${ARG_RESULT} "${GPU_TOPOLOGY_CACHE_DIR}")
  elseif(NOT "$ENV{GPU_TOPOLOGY_CACHE_DIR}" STREQUAL "")
    set(${ARG_RESULT} "$ENV{GPU_TOPOLOGY_CACHE_DIR}")
  else()
    _gpu_topology_user_dir(RESULT ${ARG_RESULT})
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# The one warning about the lock directory LOCKS and the cache directory CACHE that cannot
# be used (LOCKS_WHY, CACHE_WHY; "" when they can): one for both when they are one directory.
function(_gpu_topology_user_dirs_warning)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "LOCKS;LOCKS_WHY;CACHE;CACHE_WHY" "")
  set(no_locks "the GPU locks are kept in this build tree, so only its own configures wait for each other's probes")
  set(no_cache "no measurement or probe is shared with the user's other build trees")
  if(NOT "${ARG_LOCKS_WHY}" STREQUAL "" AND "${ARG_CACHE}" STREQUAL "${ARG_LOCKS}")
    message(WARNING "GPUTopology: ${ARG_LOCKS} is not used (${ARG_LOCKS_WHY}): ${no_locks}, and ${no_cache}. Set "
                    "XDG_CACHE_HOME, or GPU_TOPOLOGY_LOCK_DIR and GPU_TOPOLOGY_CACHE_DIR, to directories of yours "
                    "(GPU_TOPOLOGY_CACHE=OFF: no cache).")
    return()
  endif()
  if(NOT "${ARG_LOCKS_WHY}" STREQUAL "")
    message(WARNING "GPUTopology: cannot keep the GPU locks in ${ARG_LOCKS} (${ARG_LOCKS_WHY}): ${no_locks}. "
                    "Set GPU_TOPOLOGY_LOCK_DIR to a directory of yours.")
  endif()
  if(NOT "${ARG_CACHE_WHY}" STREQUAL "")
    message(WARNING "GPUTopology: the cache ${ARG_CACHE} is not used (${ARG_CACHE_WHY}): ${no_cache}. Set "
                    "GPU_TOPOLOGY_CACHE_DIR to a directory of yours (GPU_TOPOLOGY_CACHE=OFF: no cache).")
  endif()
endfunction()

# RESULT: the cache directory, or "" when the cache is off or cannot be used (a warning said why).
function(_gpu_topology_cache_dir)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  _gpu_topology_user_dirs(PREFIX dirs)
  set(${ARG_RESULT} "${dirs_CACHE}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# --- entries -----------------------------------------------------------------------------

# Nothing more is written to the cache in this configure: WHAT could not be kept in WHERE
# (WHY). Warns once.
function(_gpu_topology_cache_failed)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "WHAT;WHERE;WHY" "")
  get_property(failed GLOBAL PROPERTY _GPU_TOPOLOGY_CACHE_FAILED)
  if(NOT failed)
    message(WARNING "GPUTopology: cannot keep ${ARG_WHAT} in ${ARG_WHERE} (${ARG_WHY}); this configure goes on "
                    "without the cache, and the user's other build trees measure and build for themselves.")
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_CACHE_FAILED TRUE)
  endif()
endfunction()

# Copies FROM to the cache entry TO whole: into TO.partial, made the user's alone (EXECUTABLE:
# a program), then renamed (the caller holds the entry's lock). RESULT: whether it was kept;
# when it was not (a full disk), a warning names WHAT, once per configure, and nothing half
# written is left.
function(_gpu_topology_cache_put)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "EXECUTABLE" "FROM;TO;WHAT;RESULT" "")
  set(${ARG_RESULT} FALSE)
  get_property(failed GLOBAL PROPERTY _GPU_TOPOLOGY_CACHE_FAILED)
  if(failed)
    return(PROPAGATE ${ARG_RESULT})
  endif()
  # COPY_FILE writes a new file: one a configure that stopped halfway left, or a link, is
  # replaced, never written through.
  set(partial "${ARG_TO}.partial")
  file(COPY_FILE "${ARG_FROM}" "${partial}" RESULT failure)
  if(failure STREQUAL "0")
    # Whatever the umask (0000 where a CI runner restores caches): an entry others may write is not used.
    set(mode OWNER_READ OWNER_WRITE)
    if(ARG_EXECUTABLE)
      list(APPEND mode OWNER_EXECUTE)
    endif()
    file(CHMOD "${partial}" PERMISSIONS ${mode})
    file(RENAME "${partial}" "${ARG_TO}" RESULT failure)
  endif()
  if(NOT failure STREQUAL "0")
    if(IS_SYMLINK "${partial}" OR (EXISTS "${partial}" AND NOT IS_DIRECTORY "${partial}"))
      file(REMOVE "${partial}")
    endif()
    _gpu_topology_cache_failed(WHAT "${ARG_WHAT}" WHERE "${ARG_TO}" WHY "${failure}")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  set(${ARG_RESULT} TRUE)
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Keeps FROM as the cache entry TO with its hash (TO.sha256, written in STATE, this build
# tree, first), as _gpu_topology_cache_put (EXECUTABLE, WHAT, RESULT). The entry goes first:
# one whose hash is not written yet, or is another's, is not used.
function(_gpu_topology_cache_put_hashed)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "EXECUTABLE" "FROM;TO;WHAT;STATE;RESULT" "")
  get_filename_component(name "${ARG_TO}" NAME)
  set(hash_file "${ARG_STATE}/kept-${name}.sha256")
  file(SHA256 "${ARG_FROM}" hash)
  file(WRITE "${hash_file}" "${hash}\n")
  set(executable "")
  if(ARG_EXECUTABLE)
    set(executable EXECUTABLE)
  endif()
  _gpu_topology_cache_put(FROM "${ARG_FROM}" TO "${ARG_TO}" WHAT "${ARG_WHAT}" ${executable} RESULT ${ARG_RESULT})
  if(${ARG_RESULT})
    _gpu_topology_cache_put(FROM "${hash_file}" TO "${ARG_TO}.sha256" WHAT "the hash of ${ARG_WHAT}"
                            RESULT ${ARG_RESULT})
  endif()
  file(REMOVE "${hash_file}")
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: why CONTENT (the cache's entry ENTRY, or a copy of it) is not what was kept as
# ENTRY ("" when it is): its hash, ENTRY.sha256, is not to be trusted or records another.
function(_gpu_topology_kept_whole)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "ENTRY;CONTENT;RESULT" "")
  _gpu_topology_trusted_file(FILE "${ARG_ENTRY}.sha256" RESULT ${ARG_RESULT})
  if(NOT ${ARG_RESULT} STREQUAL "")
    set(${ARG_RESULT} "its hash ${ARG_ENTRY}.sha256: ${${ARG_RESULT}}")
  else()
    file(STRINGS "${ARG_ENTRY}.sha256" recorded LIMIT_COUNT 1 LIMIT_INPUT 128)
    file(SHA256 "${ARG_CONTENT}" actual)
    if(NOT "${recorded}" STREQUAL actual)
      set(${ARG_RESULT} "its content is not what was kept (SHA-256 ${actual}, kept as '${recorded}')")
    endif()
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: whether FILE can be the lock of a cache entry: file(LOCK) stops the configure on
# a path it cannot open, so one that is missing is made in a child process first. A link is
# removed (file(LOCK) would open its target), and a directory is no lock.
function(_gpu_topology_cache_lockable)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "FILE;RESULT" "")
  if(IS_SYMLINK "${ARG_FILE}")
    file(REMOVE "${ARG_FILE}")
  endif()
  set(rc 0)
  if(IS_DIRECTORY "${ARG_FILE}")
    set(rc "a directory")
  elseif(NOT EXISTS "${ARG_FILE}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E touch "${ARG_FILE}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  endif()
  set(${ARG_RESULT} FALSE)
  if(rc EQUAL 0)
    set(${ARG_RESULT} TRUE)
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# --- probes ------------------------------------------------------------------------------

# RESULT: a hash of the probe's sources (probe/, templates/ of the package), once per configure.
function(_gpu_topology_probe_sources_hash)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "RESULT" "")
  get_property(${ARG_RESULT} GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_SOURCES_HASH)
  if("${${ARG_RESULT}}" STREQUAL "")
    get_property(package_dir GLOBAL PROPERTY GPU_TOPOLOGY_PACKAGE_DIR)
    file(GLOB_RECURSE sources LIST_DIRECTORIES false RELATIVE "${package_dir}" "${package_dir}/probe/*"
         "${package_dir}/templates/*")
    list(SORT sources)
    set(hashes "")
    foreach(source IN LISTS sources)
      file(SHA256 "${package_dir}/${source}" hash)
      string(APPEND hashes "${source} ${hash}\n")
    endforeach()
    string(SHA256 ${ARG_RESULT} "${hashes}")
    set_property(GLOBAL PROPERTY _GPU_TOPOLOGY_PROBE_SOURCES_HASH "${${ARG_RESULT}}")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the cache key of the probe of KIND that the nested build makes with ARGUMENTS
# (under ENVIRONMENT): its sources, the host, its options and architectures, and its
# compilers by the file they are and when that changed. The generator, the make program and
# the CUDA host compiler change nothing in what the probe does and are left out.
function(_gpu_topology_probe_key)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "KIND;RESULT" "ARGUMENTS;ENVIRONMENT")
  _gpu_topology_probe_sources_hash(RESULT sources)
  cmake_host_system_information(RESULT host QUERY OS_NAME OS_PLATFORM)
  set(keyed "${ARG_KIND};${sources};${host};${ARG_ENVIRONMENT}")
  set(skip_next FALSE)
  foreach(argument IN LISTS ARG_ARGUMENTS)
    if(skip_next OR argument STREQUAL "-G" OR argument MATCHES "^-DCMAKE_MAKE_PROGRAM=")
      set(skip_next FALSE)
      if(argument STREQUAL "-G")
        set(skip_next TRUE)
      endif()
      continue()
    elseif(argument MATCHES "^-DCMAKE_CUDA_HOST_COMPILER=")
      # The host compiler of the kernels' host code changes nothing a probe does. A CUDA
      # consumer names the one CMake 4 cached, a C++ one none: their probes are the same.
      continue()
    elseif(argument MATCHES "^-D(CMAKE_[A-Z_]*COMPILER)=(.+)$" AND IS_ABSOLUTE "${CMAKE_MATCH_2}")
      set(name "${CMAKE_MATCH_1}")
      file(REAL_PATH "${CMAKE_MATCH_2}" compiler)
      file(TIMESTAMP "${compiler}" changed "%s" UTC)
      set(argument "-D${name}=${compiler}@${changed}")
    endif()
    string(APPEND keyed ";${argument}")
  endforeach()
  string(SHA256 ${ARG_RESULT} "${keyed}")
  string(SUBSTRING "${${ARG_RESULT}}" 0 24 ${ARG_RESULT})
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the probe the cache DIRECTORY keeps under KEY, when it is there and still what it
# was kept as; "" otherwise (one line says why when one is there but not trusted).
function(_gpu_topology_cached_probe)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;KEY;RESULT" "")
  _gpu_topology_cached_probe_file(DIRECTORY "${ARG_DIRECTORY}" KEY "${ARG_KEY}" RESULT kept)
  set(why "")
  if(NOT EXISTS "${kept}" AND NOT IS_SYMLINK "${kept}")
    set(why "none")
  else()
    _gpu_topology_trusted_file(FILE "${kept}" RESULT why)
  endif()
  if(why STREQUAL "")
    _gpu_topology_kept_whole(ENTRY "${kept}" CONTENT "${kept}" RESULT why)
  endif()
  set(${ARG_RESULT} "")
  if(why STREQUAL "")
    file(TOUCH_NOCREATE "${kept}")  # used now: the probes pruned first are those unused longest
    set(${ARG_RESULT} "${kept}")
  elseif(NOT why STREQUAL "none")
    message(STATUS "GPUTopology: not using the cached probe ${kept}: ${why}")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: the file of the probe of KEY in the cache DIRECTORY.
function(_gpu_topology_cached_probe_file)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;KEY;RESULT" "")
  set(${ARG_RESULT} "${ARG_DIRECTORY}/probes/${ARG_KEY}")
  if(CMAKE_HOST_WIN32)
    string(APPEND ${ARG_RESULT} ".exe")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Keeps the probe PROBE, just built, in the cache DIRECTORY under KEY with its hash
# (written in STATE, this build tree, first), and prunes the probes unused longest: the
# cache keeps KEEP of them.
function(_gpu_topology_keep_probe)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;KEY;PROBE;STATE;KEEP" "")
  _gpu_topology_cached_probe_file(DIRECTORY "${ARG_DIRECTORY}" KEY "${ARG_KEY}" RESULT kept)
  _gpu_topology_cache_put_hashed(FROM "${ARG_PROBE}" TO "${kept}" WHAT "the probe" STATE "${ARG_STATE}" EXECUTABLE
                                 RESULT stored)
  if(NOT stored)
    return()
  endif()
  message(VERBOSE "GPUTopology: kept the probe for the user's other build trees: ${kept}")
  _gpu_topology_prune_probes(DIRECTORY "${ARG_DIRECTORY}" KEEP ${ARG_KEEP})
endfunction()

# Removes from the cache DIRECTORY all probes but the KEEP used last (by their files' times,
# which each use renews).
function(_gpu_topology_prune_probes)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;KEEP" "")
  file(GLOB hashes "${ARG_DIRECTORY}/probes/*.sha256")
  set(by_use "")
  foreach(hash_file IN LISTS hashes)
    string(REGEX REPLACE "\\.sha256$" "" probe "${hash_file}")
    set(used 0)
    if(EXISTS "${probe}" AND NOT IS_SYMLINK "${probe}")
      file(TIMESTAMP "${probe}" used "%s" UTC)
    endif()
    list(APPEND by_use "${used}|${probe}")
  endforeach()
  list(SORT by_use COMPARE NATURAL ORDER DESCENDING)
  list(LENGTH by_use count)
  if(count GREATER ARG_KEEP)
    list(SUBLIST by_use ${ARG_KEEP} -1 unused)
    foreach(entry IN LISTS unused)
      string(REGEX REPLACE "^[0-9]*[|]" "" probe "${entry}")
      string(REGEX REPLACE "\\.exe$" "" key_path "${probe}")
      file(REMOVE "${probe}" "${probe}.sha256" "${key_path}.lock")
    endforeach()
  endif()
endfunction()

# --- profiles ----------------------------------------------------------------------------

# RESULT: how the measurement of one device, TEXT, differs from what `identity` says of the
# GPU at INDEX (IDENTITY), measured at LEVEL on a quiet GPU; "" when it does not.
function(_gpu_topology_measurement_of)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TEXT;IDENTITY;INDEX;LEVEL;RESULT" "")
  set(${ARG_RESULT} "")
  foreach(field uuid name sm_count probe_version driver runtime cc)
    string(JSON want_${field} GET "${ARG_IDENTITY}" ${field})
  endforeach()
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)$" cc "${want_cc}")
  set(want_cc_major "${CMAKE_MATCH_1}")
  set(want_cc_minor "${CMAKE_MATCH_2}")
  set(want_source measured)
  set(want_quiet ON)
  set(want_index "${ARG_INDEX}")
  set(want_level "${ARG_LEVEL}")
  # Sections first, then their fields: a profile is parsed again for every GET.
  foreach(section device probe conditions)
    string(JSON ${section} ERROR_VARIABLE missing GET "${ARG_TEXT}" ${section})
    if(missing)
      set(${ARG_RESULT} "it has no '${section}'")
      return(PROPAGATE ${ARG_RESULT})
    endif()
  endforeach()
  string(JSON source ERROR_VARIABLE missing GET "${ARG_TEXT}" source)
  foreach(check source:source conditions.quiet:quiet device.index:index probe.level:level device.uuid:uuid
                device.name:name device.sm_count:sm_count device.cc_major:cc_major device.cc_minor:cc_minor
                probe.version:probe_version probe.driver:driver probe.cuda_runtime:runtime)
    string(REGEX MATCH "^([a-z_]+)[.]?([a-z_]*):([a-z_]+)$" check "${check}")
    set(field "${CMAKE_MATCH_3}")
    set(got "${${CMAKE_MATCH_1}}")
    set(path "${CMAKE_MATCH_1}")
    if(NOT CMAKE_MATCH_2 STREQUAL "")
      set(path "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
      string(JSON got ERROR_VARIABLE missing GET "${got}" ${CMAKE_MATCH_2})
    endif()
    if(missing)
      set(${ARG_RESULT} "it has no ${path}")
    elseif(NOT got STREQUAL want_${field})
      string(SUBSTRING "${got}" 0 80 got)
      set(${ARG_RESULT} "${path} is '${got}', this GPU's '${want_${field}}'")
    endif()
    if(NOT ${ARG_RESULT} STREQUAL "")
      return(PROPAGATE ${ARG_RESULT})
    endif()
  endforeach()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: why the profile TEXT is not a measurement of the device(s) IDENTITY describes
# (DEVICE: an index, or ALL for a node), at LEVEL, on quiet GPUs; "" when it is.
function(_gpu_topology_measurement_mismatch)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TEXT;IDENTITY;DEVICE;LEVEL;RESULT" "")
  set(${ARG_RESULT} "")
  string(JSON schema ERROR_VARIABLE broken GET "${ARG_TEXT}" schema)
  if(broken)
    string(REGEX REPLACE "\n.*" "" broken "${broken}")
    set(${ARG_RESULT} "it is not a whole JSON document (${broken})")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  set(other "")
  if(ARG_DEVICE STREQUAL "ALL" AND NOT schema MATCHES "^gpu-topology-node/")
    set(other "it is not a node profile (schema '${schema}')")
  elseif(ARG_DEVICE STREQUAL "ALL")
    string(JSON count ERROR_VARIABLE broken LENGTH "${ARG_TEXT}" devices)
    string(JSON here LENGTH "${ARG_IDENTITY}")
    set(other "it has ${count} devices, this node ${here}")
    if(NOT broken AND count EQUAL here)
      set(other "")
      math(EXPR last "${here} - 1")
      foreach(i RANGE ${last})
        string(JSON device GET "${ARG_TEXT}" devices ${i})
        string(JSON identity GET "${ARG_IDENTITY}" ${i})
        _gpu_topology_measurement_of(TEXT "${device}" IDENTITY "${identity}" INDEX ${i} LEVEL "${ARG_LEVEL}"
                                     RESULT other)
        if(NOT other STREQUAL "")
          set(other "device ${i}: ${other}")
          break()
        endif()
      endforeach()
    endif()
  elseif(schema MATCHES "^gpu-topology-node/")
    set(other "it is a node profile, not one of device ${ARG_DEVICE}")
  else()
    _gpu_topology_measurement_of(TEXT "${ARG_TEXT}" IDENTITY "${ARG_IDENTITY}" INDEX "${ARG_DEVICE}"
                                 LEVEL "${ARG_LEVEL}" RESULT other)
  endif()
  if(NOT other STREQUAL "")
    set(${ARG_RESULT} "it describes other devices, settings or probe: ${other}")
  endif()
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# RESULT: whether the cache DIRECTORY keeps a measurement under KEY that is of the GPU(s)
# IDENTITY (DEVICE, LEVEL) and valid (PROBE validates it and draws its picture): then it
# becomes this build tree's measurement PROFILE (with its picture) and a line says so.
# One that is not is ignored with one line that says why. NAME names the GPU in messages.
function(_gpu_topology_cache_take)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;KEY;PROBE;IDENTITY;DEVICE;LEVEL;PROFILE;NAME;RESULT" "")
  set(${ARG_RESULT} FALSE)
  set(entry "${ARG_DIRECTORY}/profiles/${ARG_KEY}.json")
  if(NOT EXISTS "${entry}" AND NOT IS_SYMLINK "${entry}")
    message(VERBOSE "GPUTopology: no measurement of these devices in the cache (${entry})")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  # Checked as a copy in this build tree: what is checked is what is used.
  string(REGEX REPLACE "\\.json$" "" copy "${ARG_PROFILE}")
  set(copy "${copy}.from-cache")
  _gpu_topology_trusted_file(FILE "${entry}" RESULT why)
  if(why STREQUAL "")
    file(COPY_FILE "${entry}" "${copy}.json" RESULT failure)
    if(NOT failure STREQUAL "0")
      set(why "it cannot be copied into this build tree (${failure})")
    endif()
  endif()
  if(why STREQUAL "")
    _gpu_topology_kept_whole(ENTRY "${entry}" CONTENT "${copy}.json" RESULT why)
  endif()
  if(why STREQUAL "")
    file(READ "${copy}.json" text)
    _gpu_topology_measurement_mismatch(TEXT "${text}" IDENTITY "${ARG_IDENTITY}" DEVICE "${ARG_DEVICE}"
                                       LEVEL "${ARG_LEVEL}" RESULT why)
  endif()
  if(why STREQUAL "")
    execute_process(COMMAND "${ARG_PROBE}" svg "${copy}.json" --output "${copy}.svg"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE invalid)
    if(NOT rc EQUAL 0)
      string(REPLACE "${copy}.json: " "" invalid "${invalid}")  # the copy: the line names the entry
      string(STRIP "${invalid}" invalid)
      string(REGEX REPLACE "\n[ \t]*" " " why "${invalid}")
    endif()
  endif()
  if(NOT why STREQUAL "")
    message(STATUS "GPUTopology: not using the cached measurement ${entry}: ${why}")
    file(REMOVE "${copy}.json" "${copy}.svg")
    return(PROPAGATE ${ARG_RESULT})
  endif()
  string(REGEX REPLACE "\\.json$" ".svg" picture "${ARG_PROFILE}")
  file(RENAME "${copy}.svg" "${picture}")
  file(RENAME "${copy}.json" "${ARG_PROFILE}")
  message(STATUS "GPUTopology: ${ARG_NAME}: measured before on this machine (${entry}; GPU_TOPOLOGY_REPROBE=ON "
                 "measures again)")
  set(${ARG_RESULT} TRUE)
  return(PROPAGATE ${ARG_RESULT})
endfunction()

# Keeps this build tree's measurement PROFILE, of a quiet GPU, in the cache DIRECTORY under KEY,
# with its hash.
function(_gpu_topology_cache_keep)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;KEY;PROFILE" "")
  set(lock "${ARG_DIRECTORY}/profiles/${ARG_KEY}.lock")
  _gpu_topology_cache_lockable(FILE "${lock}" RESULT lockable)
  set(locked "${lock} cannot be a lock")
  if(lockable)
    file(LOCK "${lock}" GUARD FUNCTION TIMEOUT 60 RESULT_VARIABLE locked)
  endif()
  if(NOT locked EQUAL 0)
    message(VERBOSE "GPUTopology: the measurement is not kept in the cache: ${locked}")
    return()
  endif()
  set(entry "${ARG_DIRECTORY}/profiles/${ARG_KEY}.json")
  get_filename_component(state "${ARG_PROFILE}" DIRECTORY)
  _gpu_topology_cache_put_hashed(FROM "${ARG_PROFILE}" TO "${entry}" WHAT "the measurement" STATE "${state}" RESULT kept)
  if(kept)
    message(VERBOSE "GPUTopology: kept the measurement for the user's other build trees: ${entry}")
  endif()
endfunction()

cmake_policy(POP)
