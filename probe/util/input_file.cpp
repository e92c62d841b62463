#include "input_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpu_topology::util {

std::string read_input_file(const std::filesystem::path& file, std::uintmax_t max_bytes, std::string_view what) {
    const auto fail = [&](const std::string& why) { throw InputFileError(file.string() + ": " + why); };
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        fail("cannot open " + std::string(what) + ": " + (errno == ENOENT ? "no such file" : std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat status {};
    if (::fstat(fd, &status) != 0) fail("cannot read " + std::string(what) + ": " + std::strerror(errno));
    if (!S_ISREG(status.st_mode)) fail("not a regular file");
    const auto size = static_cast<std::uintmax_t>(status.st_size);
    const auto too_large = [&](std::uintmax_t bytes) {
        fail(std::to_string(bytes) + " bytes is larger than " + std::string(what == "profile" ? "a profile" : what) +
             " can be (" + std::to_string(max_bytes) + ")");
    };
    if (size > max_bytes) too_large(size);
    std::string text(static_cast<std::size_t>(size) + 1, '\0');  // one byte more: a file that grew is seen
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("cannot read " + std::string(what) + ": " + std::strerror(errno));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    // More bytes than the file had when opened: it grew, or it is a /proc or /sys file, whose size says nothing.
    if (got > size)
        fail("holds more than the " + std::to_string(size) + " bytes its size says (a file that grows, or of /proc or "
             "/sys): not a stable regular file");
    text.resize(got);
    return text;
}

}  // namespace gpu_topology::util
