#include "atomic_file.hpp"

#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <unistd.h>

namespace gpu_topology::profile {
namespace {

namespace fs = std::filesystem;

// The regular file a write should replace: `target` itself, or what a symbolic
// link at `target` points to (written through, so the link stays). Anything
// else (a device, a pipe, a directory) is refused: replacing it by a file would
// lose what it was, and reading it could block or never end.
fs::path writable_target(const fs::path& target) {
    std::error_code error;
    const auto link = fs::symlink_status(target, error);
    if (error || !fs::exists(link)) return target;  // a new file
    fs::path resolved = target;
    if (fs::is_symlink(link)) {
        resolved = fs::weakly_canonical(target, error);
        if (error) throw std::runtime_error(target.string() + ": cannot resolve the symbolic link: " + error.message());
        const auto pointed = fs::status(resolved, error);
        if (!error && fs::exists(pointed) && !fs::is_regular_file(pointed))
            throw std::runtime_error(target.string() + ": refusing to write: the link points to something that is "
                                                       "not a regular file (" + resolved.string() + ")");
        return resolved;
    }
    if (!fs::is_regular_file(link))
        throw std::runtime_error(target.string() + ": refusing to write: it exists and is not a regular file");
    return resolved;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& requested, std::string_view content) {
    const fs::path target = writable_target(requested);
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    auto temporary = target;
    temporary += ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(temporary.string() + ": cannot open for writing");
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            out.close();
            fs::remove(temporary);
            throw std::runtime_error(temporary.string() + ": write failed");
        }
    }
    std::error_code error;
    fs::rename(temporary, target, error);
    if (error) {
        fs::remove(temporary);
        throw std::runtime_error(target.string() + ": cannot replace: " + error.message());
    }
}

bool write_file_if_changed(const std::filesystem::path& requested, std::string_view content) {
    const fs::path target = writable_target(requested);
    std::error_code error;
    // Only a regular file of the same size can hold the same content: nothing else is read.
    if (fs::is_regular_file(target, error) && fs::file_size(target, error) == content.size() && !error) {
        std::ifstream in(target, std::ios::binary);
        std::string existing(content.size(), '\0');
        if (in.read(existing.data(), static_cast<std::streamsize>(existing.size())) && existing == content)
            return false;
    }
    write_file_atomically(target, content);
    return true;
}

}  // namespace gpu_topology::profile
