# docs/quantities.md is what `gpu-topology-probe docs` renders from the list of quantities.
#   cmake -DPROBE=... -DDOCS=docs/quantities.md -P docs_current.cmake
execute_process(COMMAND "${PROBE}" docs RESULT_VARIABLE rc OUTPUT_VARIABLE rendered)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gpu-topology-probe docs exited ${rc}")
endif()
file(READ "${DOCS}" committed)
if(NOT rendered STREQUAL committed)
  message(FATAL_ERROR "${DOCS} is not what the list of quantities renders; regenerate it with\n"
                      "  gpu-topology-probe docs --output docs/quantities.md")
endif()
