# The user's cache distrusted: an entry of another GPU, one edited to another GPU's values,
# a truncated or invalid one, one of another owner or writable by others, a link; a cache
# directory that is a link; a write that fails (a full disk). Each is ignored with one line
# that says why, or handled with one warning; the GPU is measured again, and nothing is
# written outside the cache directory. One tree, configured once afresh and three times
# again without its own measurement, so that it asks the cache; the entries alone are
# asked for as a configure asks (a script of their own).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
fake_nvidia_smi("${WORK}")
fake_measures_this_gpu("${WORK}/this-gpu.json")
file(READ "${stored}" json)
set(cache "${WORK}/cache/gpu-topology")
configure(ok "${example}" "${WORK}/tree" -DGPU_TOPOLOGY_PROBE_EXECUTABLE=${fake})
file(GLOB entry "${cache}/profiles/*.json")
file(READ "${entry}" measured)
# What lies outside the cache, to see that nothing is written there.
file(MAKE_DIRECTORY "${WORK}/elsewhere")
file(COPY_FILE "${WORK}/this-gpu.json" "${WORK}/elsewhere/outside.json")
file(SHA256 "${WORK}/elsewhere/outside.json" outside_hash)

# Puts CONTENT (a file, or a link to one with LINK) in the entry's place, with its hash as a
# whole entry kept elsewhere has it (EDITED: the hash of the measurement kept here, as after an
# edit), and asks the cache for it as a configure does (_gpu_topology_cache_take, in a script of
# its own): it must be refused with the line `why` (or, for "", taken), and never be changed by it.
file(WRITE "${WORK}/take.cmake" [=[
include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
_gpu_topology_cache_take(DIRECTORY "${CACHE}" KEY "${KEY}" PROBE "${PROBE}" IDENTITY "${IDENTITY}" DEVICE ${DEVICE} LEVEL full
                         PROFILE "${WORK}/taken/profile.json" NAME "NVIDIA H200" RESULT taken)
message(STATUS "taken: ${taken}")
]=])
get_filename_component(key "${entry}" NAME_WE)
function(distrusted why)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "EDITED" "CONTENT;LINK;MODE;OWNER;DEVICE;IDENTITY" "")
  if(NOT DEFINED ARG_DEVICE)
    set(ARG_DEVICE 0)
  endif()
  if(NOT DEFINED ARG_IDENTITY)
    execute_process(COMMAND "${fake}" identity OUTPUT_VARIABLE ARG_IDENTITY)
  endif()
  file(REMOVE "${entry}")
  if(DEFINED ARG_LINK)
    file(CREATE_LINK "${ARG_LINK}" "${entry}" SYMBOLIC)
  else()
    file(WRITE "${entry}" "${ARG_CONTENT}")
  endif()
  file(SHA256 "${entry}" kept_as)
  if(ARG_EDITED)
    string(SHA256 kept_as "${measured}")
  endif()
  file(WRITE "${entry}.sha256" "${kept_as}\n")
  if(DEFINED ARG_MODE)
    execute_process(COMMAND chmod ${ARG_MODE} "${entry}" COMMAND_ERROR_IS_FATAL ANY)
  endif()
  if(DEFINED ARG_OWNER)
    execute_process(COMMAND chown ${ARG_OWNER} "${entry}" COMMAND_ERROR_IS_FATAL ANY)
  endif()
  file(SHA256 "${entry}" before)
  file(REMOVE_RECURSE "${WORK}/taken")
  file(MAKE_DIRECTORY "${WORK}/taken")
  run(ok "${CMAKE_COMMAND}" -DPACKAGE_SOURCE=${PACKAGE_SOURCE} -DCACHE=${cache} -DKEY=${key} -DPROBE=${PROBE}
      -DIDENTITY=${ARG_IDENTITY} -DDEVICE=${ARG_DEVICE} -DWORK=${WORK} -P "${WORK}/take.cmake")
  file(SHA256 "${entry}" after)
  file(GLOB taken RELATIVE "${WORK}/taken" "${WORK}/taken/*")
  if(why STREQUAL "")
    expect_in("${output}" "measured before on this machine (${entry};" "taken: TRUE")
    if(NOT taken STREQUAL "profile.json;profile.svg")
      message(FATAL_ERROR "the measurement the cache keeps was not taken: ${taken}")
    endif()
  else()
    expect_in("${output}" "not using the cached measurement ${entry}: " "${why}" "taken: FALSE")
    if(taken OR NOT before STREQUAL after)
      message(FATAL_ERROR "a measurement the cache should not be trusted with was used or changed: ${taken}")
    endif()
  endif()
endfunction()

distrusted("" CONTENT "${measured}")  # this GPU's own: taken
# Another GPU's measurement, one that claims this GPU with another model's values, and this
# GPU's own edited to another GPU's values (its identity kept, and values the probe validates:
# the H100's shared memory): not what was kept.
string(JSON stored_uuid GET "${json}" device uuid)
distrusted("device.uuid is '${stored_uuid}', this GPU's 'GPU-fake-0000'" CONTENT "${json}")
file(READ "${PACKAGE_SOURCE}/generated/profiles/nvidia-h100.json" h100)
string(JSON h100 SET "${h100}" device uuid "\"GPU-fake-0000\"")
distrusted("device.name is 'NVIDIA H100 80GB HBM3', this GPU's 'NVIDIA H200'" CONTENT "${h100}")
string(JSON h100_shared GET "${h100}" caches shared)
string(JSON edited SET "${measured}" caches shared "${h100_shared}")
string(JSON same EQUAL "${edited}" "${measured}")
if(same)
  message(FATAL_ERROR "the H100's shared memory is this GPU's: the edit changes nothing")
endif()
distrusted("its content is not what was kept (SHA-256 " CONTENT "${edited}" EDITED)
# Truncated (a disk that filled while another program wrote it), and whole but invalid.
string(SUBSTRING "${measured}" 0 4000 truncated)
distrusted("it is not a whole JSON document" CONTENT "${truncated}")
string(JSON invalid SET "${measured}" caches l1 line_bytes value 100)
distrusted("caches.l1.line_bytes" CONTENT "${invalid}")
# Writable by others, a link (to a measurement of this GPU: still not followed), another user's.
distrusted("other users may write it (mode 666)" CONTENT "${measured}" MODE 666)
distrusted("it is a symbolic link" LINK "${WORK}/elsewhere/outside.json")
execute_process(COMMAND id -u OUTPUT_VARIABLE user OUTPUT_STRIP_TRAILING_WHITESPACE)
if(user STREQUAL "0")  # only root can give a file away
  distrusted("it belongs to user id 65534, not to this user (0)" CONTENT "${measured}" OWNER 65534)
else()
  message(STATUS "an entry of another owner: not tried (only root can make one)")
endif()
# A node's measurement (DEVICES ALL) is its devices', each checked as a measurement of one
# (here against the identity of the stored node's two GPUs); not one device's.
file(READ "${PACKAGE_SOURCE}/generated/profiles/nvidia-h200-x2-node.json" node)
set(node_identity "[]")
foreach(i 0 1)
  string(JSON uuid GET "${node}" devices ${i} device uuid)
  string(JSON probe_version GET "${node}" devices ${i} probe version)
  string(JSON node_identity SET "${node_identity}" ${i} "{\"uuid\": \"${uuid}\", \"name\": \"NVIDIA H200\", \"cc\": \"9.0\",
       \"sm_count\": 132, \"driver\": 13000, \"runtime\": 13000, \"probe_version\": \"${probe_version}\"}")
endforeach()
distrusted("" CONTENT "${node}" DEVICE ALL IDENTITY "${node_identity}")
distrusted("it is a node profile, not one of device 0" CONTENT "${node}" IDENTITY "${node_identity}")
string(JSON node SET "${node}" devices 1 device sm_count 114)
distrusted("device 1: device.sm_count is '114', this GPU's '132'" CONTENT "${node}" DEVICE ALL IDENTITY "${node_identity}")
# In a configure: the link is ignored, the GPU measured again, and the new measurement takes
# the link's place (the link is replaced, never written through; nor is a link where the
# new measurement is written first, as /dev/full or another user's file could be).
distrusted("it is a symbolic link" LINK "${WORK}/elsewhere/outside.json")
# Links where the locks are are not followed either (file(LOCK) would make their targets).
file(CREATE_LINK "${WORK}/elsewhere/through-the-partial-entry" "${entry}.partial" SYMBOLIC)
string(REGEX REPLACE "json$" "lock" entry_lock "${entry}")
file(REMOVE "${entry_lock}" "${cache}/GPU_fake_0000.lock")
file(CREATE_LINK "${WORK}/elsewhere/through-the-entry-lock" "${entry_lock}" SYMBOLIC)
file(CREATE_LINK "${WORK}/elsewhere/through-the-gpu-lock" "${cache}/GPU_fake_0000.lock" SYMBOLIC)
reconfigure_unmeasured("${WORK}/tree")
expect_in("${output}" "not using the cached measurement ${entry}: it is a symbolic link" "probing NVIDIA H200"
          "cannot use the lock ${cache}/GPU_fake_0000.lock")
file(READ "${entry}" kept)
if(IS_SYMLINK "${entry}" OR NOT kept STREQUAL measured)
  message(FATAL_ERROR "the new measurement did not take the place of the link ${entry}")
endif()
file(REMOVE "${cache}/GPU_fake_0000.lock")
# A write that fails, as on a full disk (here: a directory where the entry is written first):
# one warning, the configure goes on, nothing half written is left.
file(REMOVE "${entry}")
file(MAKE_DIRECTORY "${entry}.partial/blocked")
reconfigure_unmeasured("${WORK}/tree")
expect_in("${output}" "probing" "cannot keep the measurement in ${entry} (" "goes on without the cache")
if(EXISTS "${entry}")
  message(FATAL_ERROR "a failed write left an entry ${entry}")
endif()
file(REMOVE_RECURSE "${entry}.partial")
# A disk that fills while the entry is written: the write fails part way (here at a file size
# limit, `ulimit -f`, which any user may set; writes past it fail as on a full disk). The
# measurement is kept as a configure keeps it (_gpu_topology_cache_keep, in a script of its own).
file(WRITE "${WORK}/keep.cmake" [=[
include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
_gpu_topology_cache_keep(DIRECTORY "${CACHE}" KEY "${KEY}" PROFILE "${PROFILE}")
]=])
file(REMOVE "${entry}.sha256")
file(MAKE_DIRECTORY "${WORK}/full-disk")
file(COPY_FILE "${WORK}/this-gpu.json" "${WORK}/full-disk/profile.json")
run(ok sh -c "trap '' XFSZ && ulimit -f 8 && exec \"$@\"" sh "${CMAKE_COMMAND}" -DPACKAGE_SOURCE=${PACKAGE_SOURCE}
    -DCACHE=${cache} -DKEY=${key} -DPROFILE=${WORK}/full-disk/profile.json -P "${WORK}/keep.cmake")
# CMake words the failed write its own way: "File too large" (3.25), "File too large (output)" (4.4).
expect_in("${output}" "cannot keep the measurement in ${entry} (File too large" "goes on without the cache")
file(GLOB left "${cache}/profiles/${key}.*")
list(FILTER left EXCLUDE REGEX "[.]lock$")
if(left)
  message(FATAL_ERROR "a write that failed part way left ${left}")
endif()
# Two configures that keep one entry at once (as configures whose GPU locks are not shared
# would): one whole entry with its hash, nothing partial. Two at once of a whole configure: cmake.profile_cache.
twice_at_once(keep "${CMAKE_COMMAND}" -DPACKAGE_SOURCE=${PACKAGE_SOURCE} -DCACHE=${cache} -DKEY=${key}
              -DPROFILE=${WORK}/full-disk/profile.json -P "${WORK}/keep.cmake")
file(SHA256 "${WORK}/full-disk/profile.json" whole)
file(SHA256 "${entry}" kept_hash)
file(STRINGS "${entry}.sha256" recorded)
file(GLOB left "${cache}/profiles/*.partial")
if(NOT kept_hash STREQUAL whole OR NOT recorded STREQUAL whole OR left)
  message(FATAL_ERROR "two keeps at once left ${entry} (${kept_hash}), its hash '${recorded}' and ${left}; "
                      "the measurement is ${whole}")
endif()
# A cache directory that is a link: not used, not even for the GPU locks, and nothing is written where it leads.
file(MAKE_DIRECTORY "${WORK}/linked")
file(CREATE_LINK "${WORK}/elsewhere" "${WORK}/linked/gpu-topology" SYMBOLIC)
set(ENV{XDG_CACHE_HOME} "${WORK}/linked")
reconfigure_unmeasured("${WORK}/tree")
expect_in("${output}" "GPUTopology: ${WORK}/linked/gpu-topology is not used (it is a symbolic link)" "probing")
file(GLOB_RECURSE written RELATIVE "${WORK}/elsewhere" LIST_DIRECTORIES true "${WORK}/elsewhere/*")
file(SHA256 "${WORK}/elsewhere/outside.json" hash_after)
if(NOT written STREQUAL "outside.json" OR NOT hash_after STREQUAL outside_hash)
  message(FATAL_ERROR "something was written outside the cache directory: ${written}")
endif()
# A cache directory of the user's that others may enter is made the user's alone (0700); another
# user's (only root can make one) or a relative path is not used, as a configure decides (a
# script of its own).
file(WRITE "${WORK}/dirs.cmake" [=[
include("${PACKAGE_SOURCE}/cmake/GPUTopologyProbe.cmake")
_gpu_topology_cache_dir(RESULT cache)
message(STATUS "cache: '${cache}'")
]=])
file(MAKE_DIRECTORY "${WORK}/open/gpu-topology")
file(CHMOD "${WORK}/open/gpu-topology" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_WRITE GROUP_EXECUTE WORLD_READ WORLD_WRITE WORLD_EXECUTE)
set(ENV{XDG_CACHE_HOME} "${WORK}/open")
run(ok "${CMAKE_COMMAND}" -DPACKAGE_SOURCE=${PACKAGE_SOURCE} -P "${WORK}/dirs.cmake")
expect_in("${output}" "cache: '${WORK}/open/gpu-topology'")
execute_process(COMMAND stat -c %a "${WORK}/open/gpu-topology" OUTPUT_VARIABLE mode OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT mode STREQUAL "700")
  message(FATAL_ERROR "the user's cache directory that others could enter is mode ${mode}, not 700")
endif()
if(user STREQUAL "0")
  execute_process(COMMAND chown 65534 "${WORK}/open/gpu-topology" COMMAND_ERROR_IS_FATAL ANY)
  run(ok "${CMAKE_COMMAND}" -DPACKAGE_SOURCE=${PACKAGE_SOURCE} -P "${WORK}/dirs.cmake")
  expect_in("${output}" "${WORK}/open/gpu-topology is not used (it belongs to user id 65534, not to this user (0))"
            "cache: ''")
else()
  message(STATUS "a cache directory of another owner: not tried (only root can make one)")
endif()
# A relative GPU_TOPOLOGY_CACHE_DIR would be a directory in each build tree: not used.
set(ENV{GPU_TOPOLOGY_CACHE_DIR} "relative/cache")
run(ok "${CMAKE_COMMAND}" -DPACKAGE_SOURCE=${PACKAGE_SOURCE} -P "${WORK}/dirs.cmake")
expect_in("${output}" "the cache relative/cache is not used (it is not an absolute path)" "cache: ''")
unset(ENV{GPU_TOPOLOGY_CACHE_DIR})
# In the cache, only what it keeps: the GPU's lock, measurements and their locks, no probe.
file(GLOB_RECURSE kept RELATIVE "${cache}" LIST_DIRECTORIES true "${cache}/*")
list(FILTER kept EXCLUDE REGEX "^(GPU_fake_0000\\.lock|profiles|profiles/[0-9a-f]+\\.(json|json\\.sha256|lock)|probes)$")
if(kept)
  message(FATAL_ERROR "the cache holds what it should not: ${kept}")
endif()
