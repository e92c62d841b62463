# Archives of engine logs are input (issue 34): an archive whose members would
# land outside the destination ('../', absolute), or that holds a link, a
# directory or any other name than <name>.enginelog, is refused before a byte
# is extracted, naming the archive and the member; a plain one extracts, and a
# link planted at a member's name in the destination is not written through.
#   cmake -DMODULE=<tests/engine_log_archive.cmake> -DWORK_DIR=... -P hostile_archives.cmake
# (The script runs itself with -DARCHIVE=... for each extraction, so that a refusal,
# a FATAL_ERROR, ends that child, not the test.)
cmake_minimum_required(VERSION 3.25)
include("${MODULE}")
if(DEFINED ARCHIVE)
  gpu_topology_extract_engine_logs(ARCHIVE "${ARCHIVE}" DESTINATION "${DESTINATION}")
  return()
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
set(src "${WORK_DIR}/src")
set(dest "${WORK_DIR}/out/replay")
file(MAKE_DIRECTORY "${src}/sub" "${dest}")

# `expected`: a pattern of the refusal, or "" when the archive must extract.
function(extract archive expected)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DMODULE=${MODULE} -DARCHIVE=${archive} -DDESTINATION=${dest}
                          -P "${CMAKE_CURRENT_LIST_FILE}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " err "${err}")  # message() wraps long lines
  if(expected STREQUAL "")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${archive} was refused:\n${err}")
    endif()
  elseif(rc EQUAL 0 OR NOT err MATCHES "${expected}")
    message(FATAL_ERROR "${archive}: exited ${rc}, expected a refusal matching '${expected}':\n${err}")
  endif()
endfunction()

# Archives made with CMake's own tar, from inside src/sub.
function(archive name)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E tar czf "${WORK_DIR}/${name}.tar.gz" ${ARGN}
                  WORKING_DIRECTORY "${src}/sub" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cannot make ${name}.tar.gz: ${err}")
  endif()
endfunction()

file(WRITE "${src}/sub/good.enginelog" "# gpu-topology-engine-log 1\n")
file(WRITE "${src}/escape.enginelog" "written outside\n")
file(CREATE_LINK /etc/hostname "${src}/sub/link.enginelog" SYMBOLIC)
file(MAKE_DIRECTORY "${src}/sub/dir")
file(WRITE "${src}/sub/dir/inner.enginelog" "x\n")
file(WRITE "${src}/sub/CMakeLists.txt" "message(FATAL_ERROR pwned)\n")

archive(good good.enginelog)
archive(dotdot good.enginelog ../escape.enginelog)
archive(symlink link.enginelog)
archive(directory dir)
archive(other_name CMakeLists.txt)
file(WRITE "${WORK_DIR}/garbage.tar.gz" "not an archive at all\n")

extract("${WORK_DIR}/dotdot.tar.gz" "dotdot.tar.gz: member '../escape.enginelog' is not a plain file name")
extract("${WORK_DIR}/symlink.tar.gz" "symlink.tar.gz: member 'link.enginelog' is not a regular file")
extract("${WORK_DIR}/directory.tar.gz" "directory.tar.gz: member 'dir/' is not a plain file name")
extract("${WORK_DIR}/other_name.tar.gz" "other_name.tar.gz: member 'CMakeLists.txt' is not a plain file name")
extract("${WORK_DIR}/garbage.tar.gz" "garbage.tar.gz: not a readable archive")

# Absolute members and hard links: GNU tar writes them (-P keeps a leading '/').
find_program(TAR tar)
if(TAR)
  execute_process(COMMAND "${TAR}" --version OUTPUT_VARIABLE version ERROR_QUIET)
endif()
if(version MATCHES "GNU tar")
  execute_process(COMMAND "${TAR}" -czPf "${WORK_DIR}/absolute.tar.gz" --transform "s|escape|absolute-target|"
                          "${src}/escape.enginelog" RESULT_VARIABLE rc)
  extract("${WORK_DIR}/absolute.tar.gz" "member '/.*/absolute-target.enginelog' is not a plain file name")
  if(EXISTS "${src}/absolute-target.enginelog")
    message(FATAL_ERROR "an absolute member was extracted")
  endif()
  file(CREATE_LINK "${src}/sub/good.enginelog" "${src}/sub/hard.enginelog")
  execute_process(COMMAND "${TAR}" -czf "${WORK_DIR}/hardlink.tar.gz" good.enginelog hard.enginelog
                  WORKING_DIRECTORY "${src}/sub" RESULT_VARIABLE rc)
  extract("${WORK_DIR}/hardlink.tar.gz" "member 'hard.enginelog' is not a regular file")
endif()

file(GLOB written "${WORK_DIR}/out/*" "${dest}/*")
if(NOT written STREQUAL "${dest}")
  message(FATAL_ERROR "a refused archive wrote: ${written}")
endif()

# A plain archive extracts, and a link planted at its member's name is replaced, not followed.
file(WRITE "${WORK_DIR}/victim" "precious\n")
file(CREATE_LINK "${WORK_DIR}/victim" "${dest}/good.enginelog" SYMBOLIC)
extract("${WORK_DIR}/good.tar.gz" "")
file(READ "${WORK_DIR}/victim" victim)
file(READ "${dest}/good.enginelog" good)
if(IS_SYMLINK "${dest}/good.enginelog" OR NOT victim STREQUAL "precious\n" OR NOT good MATCHES "engine-log")
  message(FATAL_ERROR "the plain archive was written through a planted link (victim: ${victim})")
endif()
