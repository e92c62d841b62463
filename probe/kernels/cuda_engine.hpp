#pragma once
// The CUDA engine and the device lookup: the only parts of the probe that
// need the CUDA runtime. Everything else works on kernels::Engine and
// kernels::DeviceFacts.
#include "device_facts.hpp"
#include "engine.hpp"

#include <memory>

namespace gpu_topology::kernels {

// An engine on CUDA device `device` owning one buffer of `buffer_bytes` for
// every ring, region and first touch. Every resource lives on that device,
// except that with `memory_device` >= 0 the buffer lives on that peer (peer
// access enabled first): its chases and reads then cross the link, and it has
// no texture rings.
std::unique_ptr<Engine> make_cuda_engine(int device, std::size_t buffer_bytes, int memory_device = -1);

// Lets `device` load and store `peer`'s memory (cudaDeviceEnablePeerAccess;
// enabling it twice is not an error). Leaves `device` current.
void enable_peer_access(int device, int peer);

// What the CUDA runtime reports about device `index`; a missing driver, no
// device, or an index beyond the device count are "no GPU", not errors.
DeviceLookup find_device(int index);

}  // namespace gpu_topology::kernels
