#include "atomic_file.hpp"

#include "input_file.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpu_topology::util {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& file, const std::string& what, int error) {
    throw std::runtime_error(file.string() + ": " + what + ": " + std::strerror(error));
}

// Whether the regular file `file` may be replaced: only what the user could
// write in place. A file without any write permission (0444) is read-only for
// root too, and a file the user may not write (another's) is not theirs to
// replace, though the directory would let a rename do it.
void refuse_read_only(const fs::path& requested, const fs::path& file) {
    struct stat status {};
    if (::stat(file.c_str(), &status) != 0) return;  // gone meanwhile: a new file
    if ((status.st_mode & 0222) != 0 && ::access(file.c_str(), W_OK) == 0) return;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(status.st_mode & 07777));
    throw std::runtime_error(requested.string() + ": refusing to replace a file this user may not write (mode " + mode +
                             ", owner uid " + std::to_string(status.st_uid) + "): make it writable or remove it first");
}

// The regular file a write should replace: `target` itself, or the existing
// regular file a symbolic link at `target` points to (written through, so the
// link stays); a new file where nothing is. Anything else is refused: a
// device, a pipe or a directory (replacing it by a file would lose what it
// was, and reading it could block or never end), a link that points to
// nothing (it would create a file wherever the link says) or to anything but
// a regular file. (refuse_read_only judges the file it finds.)
fs::path resolved_target(const fs::path& target) {
    // "out/" names a directory: no file may be made of it (a write would create the directory, then fail).
    if (!target.has_filename())
        throw std::runtime_error(target.string() + ": refusing to write: the path names a directory, not a file");
    std::error_code error;
    const auto link = fs::symlink_status(target, error);
    if (error || !fs::exists(link)) return target;  // a new file
    fs::path resolved = target;
    if (fs::is_symlink(link)) {
        const auto pointed = fs::status(target, error);
        if (error || !fs::exists(pointed))
            throw std::runtime_error(target.string() + ": refusing to write through a symbolic link to nothing (" +
                                     fs::read_symlink(target, error).string() + "): remove it, or create its file first");
        if (!fs::is_regular_file(pointed))
            throw std::runtime_error(target.string() + ": refusing to write: the link points to something that is "
                                                       "not a regular file (" + fs::read_symlink(target, error).string() + ")");
        resolved = fs::canonical(target, error);
        if (error) throw std::runtime_error(target.string() + ": cannot resolve the symbolic link: " + error.message());
    } else if (!fs::is_regular_file(link)) {
        throw std::runtime_error(target.string() + ": refusing to write: it exists and is not a regular file");
    }
    return resolved;
}

fs::path writable_target(const fs::path& target) {
    const auto resolved = resolved_target(target);
    refuse_read_only(target, resolved);
    return resolved;
}

// Whether `target` holds exactly `content`. Only a regular file of at most that
// size is read (util::read_input_file): a pipe swapped in cannot block it.
bool holds(const fs::path& target, std::string_view content) {
    try {
        return read_input_file(target, content.size(), "file") == content;
    } catch (const InputFileError&) {
        return false;  // absent, not a regular file, or larger
    }
}

// A file descriptor, closed on every way out.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    int close() { return ::close(std::exchange(fd_, -1)); }

private:
    int fd_;
};

// A path removed when it goes out of scope, unless released.
class RemovedUnlessReleased {
public:
    RemovedUnlessReleased() = default;
    RemovedUnlessReleased(RemovedUnlessReleased&& other) noexcept : path_(std::exchange(other.path_, {})) {}
    RemovedUnlessReleased& operator=(RemovedUnlessReleased&&) = delete;
    ~RemovedUnlessReleased() {
        if (!path_.empty()) ::unlink(path_.c_str());
    }
    void hold(fs::path path) { path_ = std::move(path); }
    void release() { path_.clear(); }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

void write_all(int fd, std::string_view content, const fs::path& file) {
    while (!content.empty()) {
        const ssize_t written = ::write(fd, content.data(), content.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) fail(file, "write failed", written < 0 ? errno : EIO);
        content.remove_prefix(static_cast<std::size_t>(written));
    }
}

// A complete copy of the new content beside its target, removed unless publish()
// renames it over the target.
class Temporary {
public:
    Temporary(fs::path target, std::string_view content) : target_(std::move(target)) {
        if (target_.has_parent_path()) fs::create_directories(target_.parent_path());
        // 64 random bits: another user cannot guess the name to plant a link at it, and
        // O_EXCL | O_NOFOLLOW would refuse one that is there anyway.
        std::random_device random;
        for (int attempt = 0; attempt < 16 && file_.path().empty(); ++attempt) {
            char suffix[32];
            const std::uint64_t bits = (std::uint64_t(random()) << 32) ^ random();
            std::snprintf(suffix, sizeof suffix, ".tmp-%016llx", static_cast<unsigned long long>(bits));
            fs::path candidate = target_;
            candidate += suffix;
            const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            if (fd < 0 && errno == EEXIST) continue;
            if (fd < 0) fail(candidate, "cannot create the temporary file", errno);
            file_.hold(candidate);
            Descriptor out(fd);
            write_all(out.get(), content, candidate);
            keep_mode(out.get());
            if (::fsync(out.get()) != 0) fail(candidate, "cannot flush to disk", errno);
            if (out.close() != 0) fail(candidate, "write failed", errno);
        }
        if (file_.path().empty())
            throw std::runtime_error(target_.string() + ": no unused temporary name beside it in 16 tries");
    }
    void publish() {
        if (::rename(file_.path().c_str(), target_.c_str()) != 0) fail(target_, "cannot replace", errno);
        file_.release();
    }
    const fs::path& target() const { return target_; }

private:
    // The replaced file's permission bits (a 0640 header stays 0640); a new one keeps 0666 less the umask.
    void keep_mode(int fd) const {
        struct stat existing {};
        if (::stat(target_.c_str(), &existing) != 0 || !S_ISREG(existing.st_mode)) return;
        if (::fchmod(fd, existing.st_mode & 07777) != 0) fail(file_.path(), "cannot set the mode", errno);
    }

    fs::path target_;
    RemovedUnlessReleased file_;
};

fs::path normalized(const fs::path& path) {
    std::error_code error;
    auto absolute = fs::absolute(path, error);
    if (error) return path.lexically_normal();
    auto canonical = fs::weakly_canonical(absolute, error);
    return error ? absolute.lexically_normal() : canonical;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& requested, std::string_view content) {
    Temporary(writable_target(requested), content).publish();
}

bool write_file_if_changed(const std::filesystem::path& requested, std::string_view content) {
    const fs::path target = resolved_target(requested);
    if (holds(target, content)) return false;  // a read-only file that already says it is left alone
    refuse_read_only(requested, target);
    Temporary(target, content).publish();
    return true;
}

void check_writable(const std::filesystem::path& target) { (void)writable_target(target); }

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    struct stat first {}, second {};
    if (::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0)
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
    return normalized(a) == normalized(b);
}

void OutputFiles::read(const std::filesystem::path& input) { inputs_.push_back(input); }

void OutputFiles::write(const std::filesystem::path& target, std::string content, bool only_if_changed) {
    for (const auto& input : inputs_)
        if (same_file(target, input))
            throw std::runtime_error(target.string() + ": refusing to write over " + input.string() +
                                     ", which this command reads");
    for (const auto& other : outputs_)
        if (same_file(target, other.target))
            throw std::runtime_error(target.string() + ": named for two outputs (also as " + other.target.string() +
                                     "); the second would replace the first");
    outputs_.push_back({target, std::move(content), only_if_changed});
}

std::vector<std::filesystem::path> OutputFiles::commit() {
    // Every target is checked before anything is written, every file complete before any is renamed.
    std::vector<fs::path> targets;
    std::vector<bool> unchanged;
    for (const auto& o : outputs_) {
        targets.push_back(resolved_target(o.target));
        unchanged.push_back(o.only_if_changed && holds(targets.back(), o.content));
        if (!unchanged.back()) refuse_read_only(o.target, targets.back());
    }
    std::vector<Temporary> staged;
    staged.reserve(outputs_.size());
    for (std::size_t i = 0; i < outputs_.size(); ++i)
        if (!unchanged[i]) staged.emplace_back(targets[i], outputs_[i].content);
    std::vector<fs::path> replaced;
    for (auto& file : staged) {
        try {
            file.publish();
        } catch (const std::runtime_error& e) {
            std::string done;
            for (const auto& r : replaced) done += (done.empty() ? "" : ", ") + r.string();
            throw std::runtime_error(std::string(e.what()) + (done.empty() ? "" : " (already replaced: " + done + ")"));
        }
        replaced.push_back(file.target());
    }
    return replaced;
}

}  // namespace gpu_topology::util
