#include "atomic_file.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

#include <unistd.h>

namespace gpu_topology::profile {

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
    if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
    auto temporary = target;
    temporary += ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(temporary.string() + ": cannot open for writing");
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            out.close();
            std::filesystem::remove(temporary);
            throw std::runtime_error(temporary.string() + ": write failed");
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error) {
        std::filesystem::remove(temporary);
        throw std::runtime_error(target.string() + ": cannot replace: " + error.message());
    }
}

bool write_file_if_changed(const std::filesystem::path& target, std::string_view content) {
    if (std::ifstream in{target, std::ios::binary}) {
        const std::string existing{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        if (existing == content) return false;
    }
    write_file_atomically(target, content);
    return true;
}

}  // namespace gpu_topology::profile
