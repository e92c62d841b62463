# Usage errors exit 2, naming the problem, whether or not a GPU is present.
#   cmake -DPROBE=... -P usage.cmake
foreach(case "nonsense" "probe;--bogus" "probe;--level;thorough" "probe;--budget;-1" "probe;--device;x"
             "render" "validate;a.json;b.json" "check" "compare;only-one.json" "replay"
             "probe;--all-devices;--device;1" "probe;--all-devices;--raw;dir" "identity;--all-devices;--device;0")
  execute_process(COMMAND "${PROBE}" ${case} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "'${case}' exited ${rc}, not 2 (usage error):\n${err}")
  endif()
  if(NOT err MATCHES "usage: gpu-topology-probe")
    message(FATAL_ERROR "'${case}' did not print the usage:\n${err}")
  endif()
endforeach()
execute_process(COMMAND "${PROBE}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "exit codes")
  message(FATAL_ERROR "--help exited ${rc}:\n${out}")
endif()
