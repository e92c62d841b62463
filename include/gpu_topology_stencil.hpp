// The stencil model's former path: include <gpu_topology/stencil.hpp> instead.
#include <gpu_topology/stencil.hpp>
