#pragma once
// Reading the files the probe is given (profiles, engine logs): only regular
// files, of bounded size. The file is opened without blocking (O_NONBLOCK) and
// judged by its open descriptor (fstat), so a FIFO, a device such as /dev/zero
// or a directory is refused before a byte is read, even one swapped in after a
// look at the path, and a file that grows while it is read (or a /proc file,
// whose size is 0 whatever it holds) is refused too.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpu_topology::util {

class InputFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The bytes of `file`; throws InputFileError "<file>: ..." naming `what` it
// should have been ("profile", "engine log") when it cannot be read, is not a
// regular file or holds more than `max_bytes`.
std::string read_input_file(const std::filesystem::path& file, std::uintmax_t max_bytes, std::string_view what);

}  // namespace gpu_topology::util
