# What the user asked for, recorded once before the first enable_language(CUDA)
# fills in nvcc's default (sm_75 for nvcc 13) and caches it: on re-configures
# that default would look like a choice. Empty: build for the GPU that is here.
if(NOT DEFINED CACHE{GPU_TOPOLOGY_USER_CUDA_ARCHITECTURES})
  set(_asked_archs "")
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(_asked_archs "${CMAKE_CUDA_ARCHITECTURES}")
  elseif(DEFINED ENV{CUDAARCHS})
    set(_asked_archs "$ENV{CUDAARCHS}")
  endif()
  set(GPU_TOPOLOGY_USER_CUDA_ARCHITECTURES "${_asked_archs}" CACHE INTERNAL "CUDA architectures the user asked for")
endif()
