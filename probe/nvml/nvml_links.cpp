#include "nvml_links.hpp"

#include "nvml_library.hpp"

namespace gpu_topology::stages {
namespace {

// nvmlPciInfo_t (the v3 layout that nvmlDeviceGetNvLinkRemotePciInfo_v2 fills).
struct NvmlPciInfo {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};
// nvmlFieldValue_t: 40 bytes.
struct NvmlFieldValue {
    unsigned int field_id;
    unsigned int scope_id;
    long long timestamp;
    long long latency_usec;
    int value_type;  // nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint, 6 ushort
    nvml::Return nvml_return;
    union {
        double d;
        unsigned int ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
        int si;
        unsigned short us;
    } value;
};
constexpr unsigned kSpeedMbpsCommon = 90;  // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON (older drivers)
constexpr unsigned kLinkSpeedMbps = 164;   // NVML_FI_DEV_NVLINK_GET_SPEED, scope: the link
constexpr unsigned kMaxLinks = 18;         // NVML_NVLINK_MAX_LINKS (Hopper has 18)
constexpr int kFarEndSwitch = 2;           // NVML_NVLINK_DEVICE_TYPE_SWITCH

std::optional<double> number_of(const NvmlFieldValue& v) {
    switch (v.value_type) {
        case 0: return v.value.d;
        case 1: return double(v.value.ui);
        case 2: return double(v.value.ul);
        case 3: return double(v.value.ull);
        case 4: return double(v.value.sll);
        case 5: return double(v.value.si);
        case 6: return double(v.value.us);
    }
    return std::nullopt;
}

// nvmlInit_v2 and nvmlShutdown around one query.
class Session {
public:
    explicit Session(const nvml::Library& library) : library_(library) {
        const auto init = library.get<nvml::Return (*)()>("nvmlInit_v2");
        open_ = init && init() == nvml::kSuccess;
    }
    ~Session() {
        if (!open_) return;
        if (auto shutdown = library_.get<nvml::Return (*)()>("nvmlShutdown")) shutdown();
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    bool open() const { return open_; }

private:
    const nvml::Library& library_;
    bool open_ = false;
};

}  // namespace

NvlinkRoute nvlink_route(const std::string& from_uuid, const kernels::PciLocation& peer) {
    NvlinkRoute route;
    const nvml::Library library;
    if (!library) return route.reason = "libnvidia-ml.so.1 could not be loaded", route;
    const Session session(library);
    if (!session.open()) return route.reason = "nvmlInit_v2 failed", route;
    const auto by_uuid = library.get<nvml::Return (*)(const char*, nvml::Device*)>("nvmlDeviceGetHandleByUUID");
    const auto state = library.get<nvml::Return (*)(nvml::Device, unsigned, int*)>("nvmlDeviceGetNvLinkState");
    const auto remote = library.get<nvml::Return (*)(nvml::Device, unsigned, NvmlPciInfo*)>(
        "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    const auto fields = library.get<nvml::Return (*)(nvml::Device, int, NvmlFieldValue*)>("nvmlDeviceGetFieldValues");
    const auto far_type = library.get<nvml::Return (*)(nvml::Device, unsigned, int*)>("nvmlDeviceGetNvLinkRemoteDeviceType");
    if (!by_uuid || !state || !remote) return route.reason = "libnvidia-ml.so.1 lacks the NVLink queries", route;
    nvml::Device device = nullptr;
    if (by_uuid(from_uuid.c_str(), &device) != nvml::kSuccess) return route.reason = "NVML does not know " + from_uuid, route;

    route.known = true;
    // Each link's speed (MBps, one direction), summed over the links that count: those to
    // the peer, or, through an NVSwitch, every active link.
    const auto speed_of = [&](unsigned link) -> std::optional<double> {
        if (!fields) return std::nullopt;
        for (const unsigned field : {kLinkSpeedMbps, kSpeedMbpsCommon}) {
            NvmlFieldValue v{};
            v.field_id = field;
            v.scope_id = link;
            if (fields(device, 1, &v) == nvml::kSuccess && v.nvml_return == nvml::kSuccess)
                if (const auto mbps = number_of(v); mbps && *mbps > 0) return *mbps * 1e6;
        }
        return std::nullopt;
    };
    double to_peer_rate = 0, to_switch_rate = 0;
    bool every_rate = true;
    for (unsigned link = 0; link < kMaxLinks; ++link) {
        int active = 0;
        if (state(device, link, &active) != nvml::kSuccess || !active) continue;  // absent, unsupported or down
        ++route.active;
        const auto rate = speed_of(link);
        every_rate = every_rate && rate;
        NvmlPciInfo far{};
        int type = -1;  // nvmlIntNvLinkDeviceType_t: 0 GPU, 1 IBM NPU, 2 switch, 255 unknown
        if (remote(device, link, &far) == nvml::kSuccess && far.domain == peer.domain && far.bus == peer.bus &&
            far.device == peer.device) {
            ++route.to_peer;
            to_peer_rate += rate.value_or(0);
        } else if (far_type && far_type(device, link, &type) == nvml::kSuccess && type == kFarEndSwitch) {
            ++route.to_switch;
            to_switch_rate += rate.value_or(0);
        }
    }
    if ((route.to_peer > 0 || route.to_switch > 0) && every_rate)
        route.bytes_per_s = route.to_peer > 0 ? to_peer_rate : to_switch_rate;
    else if (route.active > 0 && !every_rate)
        route.rate_reason = "NVML reported no speed for some active link";
    return route;
}

void apply_nvlink_route(const std::optional<NvlinkRoute>& nvlink, model::LinkRoute& route) {
    route.transport = "unknown";
    route.nvlinks = 0;
    route.nominal_bytes_per_s.reset();
    if (!nvlink) {
        route.route_source = "CUDA runtime; NVML not consulted (--no-nvml)";
        return;
    }
    if (!nvlink->known) {
        route.route_source = "CUDA runtime; NVML: " + nvlink->reason;
        return;
    }
    route.route_source = "CUDA runtime and NVML";
    route.transport = nvlink->to_peer > 0 ? "nvlink" : nvlink->to_switch > 0 ? "nvswitch" : "pcie";
    route.nvlinks = nvlink->to_peer > 0 ? nvlink->to_peer : nvlink->to_switch;
    if (route.nvlinks > 0) route.nominal_bytes_per_s = nvlink->bytes_per_s;
    if (!nvlink->rate_reason.empty()) route.route_source += " (" + nvlink->rate_reason + ")";
}

}  // namespace gpu_topology::stages
