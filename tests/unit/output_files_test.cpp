// The files the probe writes, against hostile surroundings (issues 20, 34): a
// link planted where the temporary file would go, a read-only file, links that
// point to nothing or to no regular file, two outputs that are one file, an
// output that is the input, and one output of several that cannot be written.
#include "util/atomic_file.hpp"
#include "util/input_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

namespace {
using namespace gpu_topology::util;
namespace fs = std::filesystem;

std::string read_text(const fs::path& path) { return read_input_file(path, 1 << 20, "test file"); }

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

unsigned mode_of(const fs::path& path) {
    struct stat s {};
    return ::stat(path.c_str(), &s) == 0 ? s.st_mode & 07777 : 0;
}

// A fresh directory for one test, removed after it.
class OutputFilesTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("gpu-topology-output-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    // The directory's entries other than `expected`: leftover temporary files.
    std::vector<std::string> others(std::initializer_list<const char*> expected) const {
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(dir)) {
            const auto name = e.path().filename().string();
            if (std::find(expected.begin(), expected.end(), name) == expected.end()) found.push_back(name);
        }
        return found;
    }
    fs::path dir;
};

// The attack of issue 20: links planted at the names a pid-based writer would
// use (`<target>.tmp-<pid>`) must not make the write land elsewhere.
TEST_F(OutputFilesTest, PlantedLinksAtLikelyTemporaryNamesAreNotFollowed) {
    const auto victim = dir / "victim";
    write_text(victim, "precious");
    const auto target = dir / "out.hpp";
    for (int pid = ::getpid() - 2; pid <= ::getpid() + 2; ++pid)
        fs::create_symlink(victim, dir / ("out.hpp.tmp-" + std::to_string(pid)));
    write_file_atomically(target, "header");
    EXPECT_EQ(read_text(victim), "precious");
    EXPECT_FALSE(fs::is_symlink(target));
    EXPECT_EQ(read_text(target), "header");
    EXPECT_EQ(others({"victim", "out.hpp"}).size(), 5u) << "only the planted links remain beside it";
}

TEST_F(OutputFilesTest, AReplacedFileKeepsItsMode) {
    const auto header = dir / "gpu_topology.hpp";
    write_text(header, "old");
    ::chmod(header.c_str(), 0640);
    EXPECT_TRUE(write_file_if_changed(header, "new"));
    EXPECT_EQ(read_text(header), "new");
    EXPECT_EQ(mode_of(header), 0640u) << "the replaced file's mode, not the temporary file's 0600";
    ::chmod(header.c_str(), 0664);
    write_file_atomically(header, "newer");
    EXPECT_EQ(mode_of(header), 0664u);
    const mode_t mask = ::umask(022);
    write_file_atomically(dir / "fresh", "x");
    ::umask(mask);
    EXPECT_EQ(mode_of(dir / "fresh"), 0644u) << "a new file: 0666 less the umask, not the temporary file's 0600";
}

// Only a file the user could write in place is replaced (issue 34): a 0444
// file is read-only for root too, though the directory would let a rename
// replace it; refused, whoever runs the probe, and left as it was. One that
// already says what it would be told is no write, and no error.
TEST_F(OutputFilesTest, ReadOnlyFilesAreNotReplaced) {
    const auto header = dir / "gpu_topology.hpp";
    write_text(header, "old");
    ::chmod(header.c_str(), 0444);
    for (const auto& write : std::vector<std::function<void()>>{
             [&] { write_file_atomically(header, "new"); }, [&] { write_file_if_changed(header, "new"); },
             [&] {
                 OutputFiles files;
                 files.write(header, "new");
                 files.commit();
             }}) {
        try {
            write();
            ADD_FAILURE() << "a read-only file was replaced";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("gpu_topology.hpp: refusing to replace a file this user may not write "
                                                 "(mode 0444"),
                      std::string::npos)
                << e.what();
        }
        EXPECT_EQ(read_text(header), "old");
        EXPECT_EQ(mode_of(header), 0444u);
        EXPECT_TRUE(others({"gpu_topology.hpp"}).empty());
    }
    EXPECT_FALSE(write_file_if_changed(header, "old")) << "unchanged: nothing to write";
    EXPECT_THROW(check_writable(header), std::runtime_error) << "nor is it opened for a log written as it goes";
}

// "Only regular files are replaced" (DESIGN.md §5), links included: a link is
// written through to the regular file it points to, and refused when it points
// to nothing (it would create a file wherever the link says) or to anything else.
TEST_F(OutputFilesTest, LinksAreWrittenThroughToRegularFilesOnly) {
    const auto file = dir / "real.hpp";
    write_text(file, "old");
    fs::create_symlink(file, dir / "live.hpp");
    write_file_atomically(dir / "live.hpp", "new");
    EXPECT_TRUE(fs::is_symlink(dir / "live.hpp"));
    EXPECT_EQ(read_text(file), "new");

    const auto elsewhere = dir / "elsewhere" / "planted.hpp";
    fs::create_symlink(elsewhere, dir / "dangling.hpp");
    EXPECT_THROW(write_file_atomically(dir / "dangling.hpp", "x"), std::runtime_error);
    EXPECT_THROW(write_file_if_changed(dir / "dangling.hpp", "x"), std::runtime_error);
    EXPECT_THROW(check_writable(dir / "dangling.hpp"), std::runtime_error);
    EXPECT_NO_THROW(check_writable(dir / "live.hpp"));
    EXPECT_NO_THROW(check_writable(dir / "new.log"));
    EXPECT_FALSE(fs::exists(dir / "elsewhere"));
    EXPECT_TRUE(fs::is_symlink(dir / "dangling.hpp"));

    fs::create_symlink("/dev/null", dir / "device.hpp");
    fs::create_symlink(dir, dir / "directory.hpp");
    for (const char* name : {"device.hpp", "directory.hpp"})
        EXPECT_THROW(write_file_atomically(dir / name, "x"), std::runtime_error) << name;
    EXPECT_EQ(others({"real.hpp", "live.hpp", "dangling.hpp", "device.hpp", "directory.hpp"}).size(), 0u);
}

TEST_F(OutputFilesTest, AllOrNone) {
    const auto header = dir / "h";
    write_text(header, "old header");
    OutputFiles files;
    files.write(header, "new header");
    files.write("/dev/full", "variables");
    EXPECT_THROW(files.commit(), std::runtime_error);
    EXPECT_EQ(read_text(header), "old header");
    EXPECT_TRUE(others({"h"}).empty()) << others({"h"}).front();
    // A directory where an output would go: refused before anything is written.
    fs::create_directories(dir / "cmake");
    OutputFiles again;
    again.write(header, "new header");
    again.write(dir / "cmake", "variables");
    EXPECT_THROW(again.commit(), std::runtime_error);
    EXPECT_EQ(read_text(header), "old header");
}

TEST_F(OutputFilesTest, TwoOutputsOfOneFileOrAnOutputOverAnInputAreRefused) {
    const auto profile = dir / "own.json";
    write_text(profile, "{}");
    fs::create_directories(dir / "sub");
    fs::create_symlink(profile, dir / "link.json");
    const auto refused = [&](const fs::path& input, const fs::path& a, const fs::path& b) {
        OutputFiles files;
        if (!input.empty()) files.read(input);
        try {
            files.write(a, "1");
            files.write(b, "2");
        } catch (const std::runtime_error&) {
            return true;
        }
        return false;
    };
    EXPECT_TRUE(refused({}, dir / "x", dir / "x"));                    // neither exists: by path
    EXPECT_TRUE(refused({}, dir / "x", dir / "sub" / ".." / "x"));     // normalized
    EXPECT_TRUE(refused({}, profile, dir / "link.json"));              // by identity
    EXPECT_TRUE(refused(profile, dir / "other.svg", dir / "own.json"));  // svg own.json --output own.json
    EXPECT_TRUE(refused(dir / "link.json", dir / "own.json", dir / "other"));
    EXPECT_FALSE(refused(profile, dir / "a", dir / "b"));
    EXPECT_EQ(read_text(profile), "{}");
    EXPECT_TRUE(same_file(profile, dir / "sub" / ".." / "own.json"));
}

}  // namespace
