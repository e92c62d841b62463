// Peer routes and transfers between two devices: host code (the SM store kernel is in read_kernels.cu).
#include "cuda_check.hpp"
#include "cuda_engine.hpp"
#include "cuda_event.hpp"
#include "device_buffer.hpp"
#include "peer_link.hpp"
#include "read_kernels.hpp"

namespace gpu_topology::kernels {
namespace {

// A stream of the current device, destroyed with its owner.
class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~Stream() { cudaStreamDestroy(stream_); }  // cannot throw from a destructor
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_{};
};

}  // namespace

void enable_peer_access(int device, int peer) {
    check(cudaSetDevice(device), "cudaSetDevice");
    const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();  // clears the (non-sticky) error this call recorded
        return;
    }
    check(status, "cudaDeviceEnablePeerAccess");
}

ScopedPeerAccess::ScopedPeerAccess(int device, int peer) : device_(device), peer_(peer) {
    enable_peer_access(device, peer);
}

ScopedPeerAccess::~ScopedPeerAccess() {
    // A destructor cannot throw: a failure here (a context already broken) leaves nothing to undo.
    if (cudaSetDevice(device_) == cudaSuccess) (void)cudaDeviceDisablePeerAccess(peer_);
    (void)cudaGetLastError();
}

PciLocation pci_location(int device) {
    return {static_cast<unsigned>(device_attribute(cudaDevAttrPciDomainId, device, "cudaDeviceGetAttribute(PciDomainId)")),
            static_cast<unsigned>(device_attribute(cudaDevAttrPciBusId, device, "cudaDeviceGetAttribute(PciBusId)")),
            static_cast<unsigned>(device_attribute(cudaDevAttrPciDeviceId, device, "cudaDeviceGetAttribute(PciDeviceId)"))};
}

PeerRoute peer_route(int from, int to) {
    PeerRoute route;
    int can = 0;
    check(cudaDeviceCanAccessPeer(&can, from, to), "cudaDeviceCanAccessPeer");
    route.peer_access = can != 0;
    int value = 0;
    if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, from, to) == cudaSuccess)
        route.performance_rank = value;
    else
        (void)cudaGetLastError();
    if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, from, to) == cudaSuccess)
        route.native_atomics = value != 0;
    else
        (void)cudaGetLastError();
    return route;
}

PeerTransfers time_peer_transfers(int from, int to, std::size_t bytes, unsigned repeats) {
    enable_peer_access(from, to);
    check(cudaSetDevice(to), "cudaSetDevice(peer)");
    DeviceBuffer<unsigned char> remote(bytes);
    check(cudaSetDevice(from), "cudaSetDevice");
    DeviceBuffer<unsigned char> local(bytes);
    check(cudaMemset(local.get(), 1, bytes), "cudaMemset(local)");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const int sms = device_attribute(cudaDevAttrMultiProcessorCount, from, "cudaDeviceGetAttribute(MultiProcessorCount)");
    Stream stream;

    const auto read = [&](cudaStream_t s) {
        check(cudaMemcpyPeerAsync(local.get(), from, remote.get(), to, bytes, s), "cudaMemcpyPeerAsync(read)");
    };
    const auto write = [&](cudaStream_t s) {
        check(cudaMemcpyPeerAsync(remote.get(), to, local.get(), from, bytes, s), "cudaMemcpyPeerAsync(write)");
    };
    const auto store = [&](cudaStream_t s) {
        launch_store(remote.get(), bytes, sms, s);
    };
    PeerTransfers result;
    const auto series = [&](auto&& work, std::vector<double>& rates) {
        const auto timed = [&] { return Event::time([&] { work(stream.get()); }, stream.get()); };
        timed();  // untimed: first touch of the route
        for (unsigned i = 0; i < repeats; ++i) rates.push_back(double(bytes) / timed());
    };
    series(read, result.ce_read);
    series(write, result.ce_write);
    series(store, result.sm_write);
    return result;
}

}  // namespace gpu_topology::kernels
