#pragma once
// Writes go to a temporary file beside the target and are renamed over it, so
// an interrupted probe never leaves a half-written profile, header or sweep
// that a later configure would trust.
#include <filesystem>
#include <string_view>

namespace gpu_topology::profile {

void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// Like write_file_atomically, but leaves the file (and its timestamp) alone when
// the content is unchanged, so dependent targets are not rebuilt needlessly.
// Returns whether the file was written.
bool write_file_if_changed(const std::filesystem::path& target, std::string_view content);

}  // namespace gpu_topology::profile
