#pragma once
// libnvidia-ml.so.1, loaded at run time so the probe runs where it is missing,
// with the few NVML declarations the probe uses (nvml.h is not needed to
// build it). Shared by the contention monitor and the link query.
#include <dlfcn.h>

namespace gpu_topology::stages::nvml {

using Return = int;
using Device = void*;
inline constexpr Return kSuccess = 0;

class Library {
public:
    Library() : handle_(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) {}
    ~Library() {
        if (handle_) dlclose(handle_);
    }
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;
    explicit operator bool() const { return handle_ != nullptr; }
    template <typename F>
    F get(const char* name) const {
        return handle_ ? reinterpret_cast<F>(dlsym(handle_, name)) : nullptr;
    }

private:
    void* handle_;
};

}  // namespace gpu_topology::stages::nvml
