# What the probe writes, from the command line (issue 20): a full standard
# output is a failure, no output replaces an input or another output, several
# outputs are written all or none, and a file-size limit leaves no temporary file.
#   cmake -DPROBE=... -DPROFILE=nvidia-h100.json -DWORK_DIR=... -P hostile_files.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# `expect` (0 or 1) is the exit code; `pattern` must appear on stderr.
function(run expect pattern)
  execute_process(COMMAND "${PROBE}" ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect OR NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "'${ARGN}' exited ${rc} (expected ${expect}, stderr matching '${pattern}'):\n${err}")
  endif()
endfunction()

# Standard output that takes nothing: exit 1 with a message, for every command that prints.
foreach(command "docs" "svg;${PROFILE}" "show;${PROFILE}" "render;${PROFILE};--table" "validate;${PROFILE}" "version")
  execute_process(COMMAND "${PROBE}" ${command} OUTPUT_FILE /dev/full RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "cannot write to standard output")
    message(FATAL_ERROR "'${command} > /dev/full' exited ${rc}:\n${err}")
  endif()
endforeach()

# Command-line text that an error quotes reaches the terminal escaped.
string(ASCII 27 escape)
string(ASCII 7 bell)
execute_process(COMMAND "${PROBE}" "${escape}]0;pwned${bell}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR err MATCHES "${escape}" OR NOT err MATCHES "u\\{001b\\}")
  message(FATAL_ERROR "an unknown command's name reached the terminal raw (exit ${rc}):\n${err}")
endif()

# An output that is the input, or two outputs that are one file.
file(COPY_FILE "${PROFILE}" "${WORK_DIR}/own.json")
file(SHA256 "${WORK_DIR}/own.json" before)
run(1 "refusing to write over own.json" svg own.json --output own.json)
run(1 "refusing to write over" render own.json --header ./sub/../own.json)
file(SHA256 "${WORK_DIR}/own.json" after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the profile was replaced by its own output")
endif()
run(1 "named for two outputs" render own.json --header x.hpp --cmake x.hpp)
run(1 "named for two outputs" render own.json --header x.hpp --cmake ./x.hpp)
if(EXISTS "${WORK_DIR}/x.hpp")
  message(FATAL_ERROR "a refused render wrote x.hpp")
endif()

# All outputs or none: a header beside variables that cannot be written stays as it was.
file(WRITE "${WORK_DIR}/h.hpp" "old header\n")
run(1 "/dev/full: refusing to write" render own.json --header h.hpp --cmake /dev/full)
file(READ "${WORK_DIR}/h.hpp" header)
if(NOT header STREQUAL "old header\n")
  message(FATAL_ERROR "render replaced the header although the variables could not be written")
endif()
run(0 "" render own.json --header h.hpp --cmake vars.cmake)

# A file-size limit: an error that cleans up after itself, not a kill that leaves its temporary file.
find_program(SH sh)
if(SH)
  file(WRITE "${WORK_DIR}/big.hpp" "old header\n")
  execute_process(COMMAND "${SH}" -c "ulimit -f 4 && exec \"$0\" render own.json --header big.hpp" "${PROBE}"
                  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  file(GLOB leftovers "${WORK_DIR}/big.hpp.tmp-*")
  file(READ "${WORK_DIR}/big.hpp" header)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "write failed" OR leftovers OR NOT header STREQUAL "old header\n")
    message(FATAL_ERROR "a write beyond the file-size limit exited ${rc}, left '${leftovers}':\n${err}")
  endif()
endif()

# A replayed log whose values no GPU gives is the log's fault, not the probe's:
# every timing a picosecond makes bandwidths beyond any GPU.
if(LOG)
  file(READ "${LOG}" log)
  string(REGEX REPLACE "\n< seconds [0-9.e+-]+" "\n< seconds 1e-12" log "${log}")
  file(WRITE "${WORK_DIR}/tiny.enginelog" "${log}")
  run(1 "tiny.enginelog: the engine log answers what no GPU does: its replay gives an invalid profile: caches"
      replay tiny.enginelog --quiet --output tiny.json)
  run(1 "refusing to write over tiny.enginelog" replay tiny.enginelog --output tiny.enginelog)
  run(1 "refusing to write over tiny.svg" replay tiny.svg --output tiny.json)
  execute_process(COMMAND "${PROBE}" replay tiny.enginelog --quiet WORKING_DIRECTORY "${WORK_DIR}" ERROR_VARIABLE err
                  OUTPUT_QUIET)
  if(err MATCHES "produced an invalid")
    message(FATAL_ERROR "a bad engine log was blamed on the probe:\n${err}")
  endif()
endif()

# --- issue 34: inputs and outputs that are not what they seem --------------------------

# Files that are no profile: a directory, a device, a /proc file, a FIFO (which must not block).
file(MAKE_DIRECTORY "${WORK_DIR}/a_directory")
run(1 "a_directory: not a regular file" validate a_directory)
run(1 "/dev/zero: not a regular file" validate /dev/zero)
run(1 "/proc/self/status: holds more than the 0 bytes its size says" validate /proc/self/status)
find_program(MKFIFO mkfifo)
if(MKFIFO)
  execute_process(COMMAND "${MKFIFO}" "${WORK_DIR}/fifo")
  execute_process(COMMAND "${PROBE}" validate fifo WORKING_DIRECTORY "${WORK_DIR}" TIMEOUT 20
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "fifo: not a regular file")
    message(FATAL_ERROR "validate of a FIFO exited ${rc}:\n${err}")
  endif()
endif()

# JSON that says what is wrong with it.
file(WRITE "${WORK_DIR}/hex.json" "{\"schema\": 0x1F}")
run(1 "hex.json:1:12: malformed number '0x1F': hexadecimal is not JSON" validate hex.json)
string(ASCII 1 soh)
file(WRITE "${WORK_DIR}/control.json" "{${soh}\"schema\": 1}")
run(1 "control.json:1:2: expected a quoted key, got '\\\\u\\{0001\\}' \\(a control character\\)" validate control.json)

# A profile with whole sections of the wrong type, a misspelt quantity: refused, each by name.
file(READ "${PROFILE}" stored)
string(JSON broken SET "${stored}" tlb 42)
string(JSON broken SET "${broken}" caches "[]")
string(JSON broken SET "${broken}" sm size_byte "{}")
file(WRITE "${WORK_DIR}/sections.json" "${broken}")
run(1 "sections.json: invalid profile:\n.*  tlb: expected object, got number \\(42\\)" validate sections.json)
run(1 "\n  caches: expected object, got array" validate sections.json)
run(1 "sm.size_byte: sm has no member of this name" render sections.json --header never.hpp)
if(EXISTS "${WORK_DIR}/never.hpp")
  message(FATAL_ERROR "a refused profile was rendered")
endif()

# A file name of terminal escapes reaches standard output escaped.
string(ASCII 27 esc)
file(COPY_FILE "${PROFILE}" "${WORK_DIR}/${esc}]0;pwned${bell}.json")
execute_process(COMMAND "${PROBE}" validate "${esc}]0;pwned${bell}.json" WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR out MATCHES "${esc}" OR out MATCHES "${bell}" OR NOT out MATCHES "u\\{001b\\}\\]0;pwned")
  message(FATAL_ERROR "validate printed a file name's escapes raw (exit ${rc}):\n${out}${err}")
endif()

# Only regular files the user could write are replaced (README, "Command line"): not a
# read-only one (0444, for root too), a directory, a device or a link to nothing;
# a link to a regular file is written through.
file(WRITE "${WORK_DIR}/read_only.svg" "old\n")
file(CHMOD "${WORK_DIR}/read_only.svg" PERMISSIONS OWNER_READ GROUP_READ WORLD_READ)
run(1 "read_only.svg: refusing to replace a file this user may not write \\(mode 0444" svg own.json --output read_only.svg)
file(READ "${WORK_DIR}/read_only.svg" kept)
if(NOT kept STREQUAL "old\n")
  message(FATAL_ERROR "a read-only output was replaced")
endif()
run(1 "a_directory: refusing to write: it exists and is not a regular file" svg own.json --output a_directory)
run(1 "/dev/zero: refusing to write: it exists and is not a regular file" svg own.json --output /dev/zero)
run(1 "not_yet/: refusing to write: the path names a directory, not a file" svg own.json --output not_yet/)
if(EXISTS "${WORK_DIR}/not_yet")
  message(FATAL_ERROR "a refused output made a directory")
endif()
run(1 "/proc/self/status: refusing to replace a file this user may not write" svg own.json --output /proc/self/status)
file(CREATE_LINK "${WORK_DIR}/nowhere/planted.svg" "${WORK_DIR}/dangling.svg" SYMBOLIC)
run(1 "dangling.svg: refusing to write through a symbolic link to nothing" svg own.json --output dangling.svg)
if(EXISTS "${WORK_DIR}/nowhere")
  message(FATAL_ERROR "a dangling link was written through")
endif()
file(WRITE "${WORK_DIR}/real.svg" "old\n")
file(CREATE_LINK "${WORK_DIR}/real.svg" "${WORK_DIR}/live.svg" SYMBOLIC)
run(0 "" svg own.json --output live.svg)
file(READ "${WORK_DIR}/real.svg" drawn)
if(NOT IS_SYMLINK "${WORK_DIR}/live.svg" OR NOT drawn MATCHES "<svg")
  message(FATAL_ERROR "a link to a regular file was not written through")
endif()
