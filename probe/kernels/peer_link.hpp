#pragma once
// What the CUDA runtime says about the way from one device to another, and
// the transfers that need no pointer chase: copy-engine copies both ways and
// SM stores into the peer's memory. (SM loads from the peer and the remote
// load latency use the engine itself, with its buffer on the peer:
// make_cuda_engine(from, bytes, to).)
#include <cstddef>
#include <vector>

namespace gpu_topology::kernels {

struct PciLocation {
    unsigned domain = 0, bus = 0, device = 0;
};
PciLocation pci_location(int device);

struct PeerRoute {
    bool peer_access = false;   // cudaDeviceCanAccessPeer
    int performance_rank = -1;  // cudaDevP2PAttrPerformanceRank (-1: not reported)
    bool native_atomics = false;
};
PeerRoute peer_route(int from, int to);

// Peer access from `device` to `peer` for as long as it lives: enabled when
// made, disabled when destroyed, so measuring every pair of a large node never
// holds more peer connections than one (CUDA limits them per device).
class ScopedPeerAccess {
public:
    ScopedPeerAccess(int device, int peer);
    ~ScopedPeerAccess();
    ScopedPeerAccess(const ScopedPeerAccess&) = delete;
    ScopedPeerAccess& operator=(const ScopedPeerAccess&) = delete;

private:
    int device_, peer_;
};

// Bytes per second of each repeat.
struct PeerTransfers {
    std::vector<double> ce_read, ce_write, sm_write;
};
// Times `repeats` copies of `bytes` each way (cudaMemcpyPeerAsync on a stream
// of `from`) and `repeats` SM store passes from `from` into `to`'s memory,
// after one untimed warm-up each. Needs peer access from `from` to `to`.
PeerTransfers time_peer_transfers(int from, int to, std::size_t bytes, unsigned repeats);

}  // namespace gpu_topology::kernels
