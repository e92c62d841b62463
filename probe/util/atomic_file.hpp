#pragma once
// Writes go to a temporary file beside the target and are renamed over it, so
// an interrupted probe never leaves a half-written profile, header or sweep
// that a later configure would trust.
//
// The temporary file is created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW)
// under an unpredictable name, `<target>.tmp-` and 16 random hexadecimal
// digits, in the target's directory: nobody can plant a link at it beforehand
// to make the probe write elsewhere. It is written, flushed to disk (fsync),
// given the permission bits of the file it replaces (a new file: 0666 less the
// umask) and renamed over the target; on any error it is removed.
//
// What an interrupted write leaves: the target as it was, or wholly replaced;
// never a mix. Killed between creating the temporary file and renaming it (by
// SIGKILL, a crash, a power cut), it leaves that `<target>.tmp-XXXXXXXXXXXXXXXX`
// beside the target; nothing reads such files, and they may be deleted.
// (gpu-topology-probe ignores SIGXFSZ, so a file-size limit is a write error
// that cleans up, not a kill.)
//
// Only regular files are replaced, and only those the user could write in
// place: a read-only file (no write permission, 0444, whoever runs the probe)
// or one the user may not write is refused, although its directory would let
// a rename replace it. A symbolic link at the target is written through to
// the existing regular file it points to (that file is replaced, the link
// stays); a link to nothing or to anything else, and any other existing
// target that is not a regular file (a device, a pipe, a directory), is
// refused with an error, and nothing is ever read from it.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_topology::util {

void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// Like write_file_atomically, but leaves the file (and its timestamp) alone when
// the content is unchanged, so dependent targets are not rebuilt needlessly.
// Returns whether the file was written.
bool write_file_if_changed(const std::filesystem::path& target, std::string_view content);

// Throws std::runtime_error naming `target` unless the rule above lets it be
// written: nothing there, a regular file the user could write, or a link to
// one. For a file written as it goes rather than atomically (an engine log).
void check_writable(const std::filesystem::path& target);

// Whether two paths name one file: by identity (device and inode) where both
// exist, by their normalized absolute paths (symbolic links in the existing
// part resolved) otherwise.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// The files one command writes, all or none: `render --header h --cmake c`
// replaces neither when either cannot be written. Every file is written to its
// temporary file first; only when all are complete are they renamed (a rename
// that fails after others succeeded, which needs the directory to change under
// the probe, is reported naming what was replaced).
class OutputFiles {
public:
    // A file the command reads: no output may replace it.
    void read(const std::filesystem::path& input);
    // A file to write; throws std::runtime_error when it names the same file as
    // another output or an input (`--header X --cmake X`, `svg p.json --output p.json`).
    void write(const std::filesystem::path& target, std::string content, bool only_if_changed = false);
    // Writes them all, or none; returns the files actually replaced.
    std::vector<std::filesystem::path> commit();

private:
    struct Output {
        std::filesystem::path target;
        std::string content;
        bool only_if_changed;
    };
    std::vector<std::filesystem::path> inputs_;
    std::vector<Output> outputs_;
};

}  // namespace gpu_topology::util
