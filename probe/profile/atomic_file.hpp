#pragma once
// Writes go to a temporary file beside the target and are renamed over it, so
// an interrupted probe never leaves a half-written profile, header or sweep
// that a later configure would trust.
//
// Only regular files are written. A symbolic link is written through (the file
// it points to is replaced, the link stays); any other existing target that is
// not a regular file (a device, a pipe, a directory) is refused with an error,
// and nothing is ever read from it.
#include <filesystem>
#include <string_view>

namespace gpu_topology::profile {

void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// Like write_file_atomically, but leaves the file (and its timestamp) alone when
// the content is unchanged, so dependent targets are not rebuilt needlessly.
// Returns whether the file was written.
bool write_file_if_changed(const std::filesystem::path& target, std::string_view content);

}  // namespace gpu_topology::profile
