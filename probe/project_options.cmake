# What both the package (../CMakeLists.txt) and the probe as a project of its own
# (CMakeLists.txt here, the nested build of a consumer's configure) need to know
# before they declare anything, declared once:
#   GPU_TOPOLOGY_VERSION     the probe's version, from version.hpp (the one place it is written)
#   GPU_TOPOLOGY_PROBE_CUDA  the cache option: build the measuring part AUTO (with a CUDA compiler), ON,
#                            OFF, or IF_GPU (AUTO where a GPU is visible at configure time: the ci preset)
#   _gpu_topology_probe_cuda that option, upper case and checked
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/version.hpp" _version_line REGEX "kProbeVersion = \"")
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" GPU_TOPOLOGY_VERSION "${_version_line}")
if(NOT GPU_TOPOLOGY_VERSION)
  message(FATAL_ERROR "GPUTopology: no version in ${CMAKE_CURRENT_LIST_DIR}/version.hpp")
endif()

set(GPU_TOPOLOGY_PROBE_CUDA AUTO CACHE STRING "Build the probe's measuring part (CUDA): AUTO, ON, OFF or IF_GPU")
set_property(CACHE GPU_TOPOLOGY_PROBE_CUDA PROPERTY STRINGS AUTO ON OFF IF_GPU)
string(TOUPPER "${GPU_TOPOLOGY_PROBE_CUDA}" _gpu_topology_probe_cuda)
if(NOT _gpu_topology_probe_cuda MATCHES "^(AUTO|ON|OFF|IF_GPU)$")
  message(FATAL_ERROR "GPU_TOPOLOGY_PROBE_CUDA is '${GPU_TOPOLOGY_PROBE_CUDA}'; use AUTO, ON, OFF or IF_GPU")
endif()
