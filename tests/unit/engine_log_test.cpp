// Engine logs are input (issue 20): `replay` reads them from regular files of
// bounded size, strictly, every count within what the call asked for, and
// every error names file:line and what was expected there. Each case is the
// recorded H200 log with one line changed.
#include "replay/recorded_engine.hpp"
#include "stages/stages.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {
using namespace gpu_topology;
namespace fs = std::filesystem;

const fs::path kRecorded = fs::path(GPU_TOPOLOGY_REPLAY_DIR) / "nvidia-h100.enginelog";

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The index of the first line that starts with `prefix`.
std::size_t first(const std::vector<std::string>& lines, const std::string& prefix) {
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].rfind(prefix, 0) == 0) return i;
    throw std::logic_error("the recorded log has no line " + prefix);
}

// The error of replaying the recorded log after `edit`, "" when it replays.
std::string replay_error(const std::function<void(std::vector<std::string>&)>& edit) {
    auto lines = lines_of(kRecorded);
    edit(lines);
    const auto file = fs::temp_directory_path() / ("gpu-topology-edited-" + std::to_string(::getpid()) + ".enginelog");
    {
        std::ofstream out(file);
        for (const auto& line : lines) out << line << '\n';
    }
    std::string error;
    try {
        stages::ReplayEngine engine(file);
        stages::Progress quiet(false);
        stages::BlindMonitor blind("replay");
        stages::measure_topology(engine, engine.facts(), {}, quiet, blind);
    } catch (const stages::ReplayError& e) {
        error = e.what();
        error.replace(0, file.string().size(), "log");  // "log:<line>: ..."
    }
    fs::remove(file);
    return error;
}

std::string at_line(std::size_t index) { return "log:" + std::to_string(index + 1) + ": "; }

TEST(EngineLog, TheRecordedLogReplays) { EXPECT_EQ(replay_error([](auto&) {}), ""); }

// One edited line of 47 bytes took 16 GB: a count is checked against what the call asked for first.
TEST(EngineLog, CountsAreBoundedByWhatTheCallAskedFor) {
    for (const std::string count : {"1000000000", "4294967296", "0", "1023"}) {
        std::size_t at = 0;
        const auto error = replay_error([&](auto& lines) {
            at = first(lines, "< result ");
            lines[at] = "< result 1 2 " + count + " 33*" + count;
        });
        EXPECT_EQ(error.rfind(at_line(at) + "sample count must be 1024 (what the call asked for), got '" + count + "'", 0),
                  0u) << error;
    }
    // A count that agrees with the call, and runs that hold more.
    std::size_t at = 0;
    const auto error = replay_error([&](auto& lines) {
        at = first(lines, "< result ");
        lines[at] = "< result 1 2 1024 33*4000000000";
    });
    EXPECT_NE(error.find(at_line(at) + "bad sample '33*4000000000': more samples than the 1024"), std::string::npos) << error;
}

TEST(EngineLog, NumbersAreReadStrictlyAndNamedByLine) {
    struct Case {
        std::string prefix, replacement, expected;
    };
    const std::vector<Case> cases{
        {"buffer ", "buffer 12x", "expected buffer bytes (a whole number), got '12x'"},
        {"buffer ", "buffer 99999999999999999999999", "buffer bytes out of range"},
        {"facts ", "facts 0 9 0 132", "expected driver_version, got the end of the line"},  // a short line
        {"< shape ", "< shape 12x", "expected resident blocks (a whole number), got '12x'"},
        {"< shape ", "< shape 99999999999", "resident blocks out of range: '99999999999'"},
        {"< shape ", "< shape 7 16 extra", "unexpected text at the end of the line: 'extra'"},
        {"< shape ", "< shape 7 extra", "expected shared bytes per block (a whole number), got 'extra'"},
        {"< shape ", "< shape -1", "expected resident blocks (a whole number), got '-1'"},
        {"< seconds ", "< seconds abc", "expected seconds (a number), got 'abc'"},
        {"< seconds ", "< seconds nan", "seconds must be finite"},
        {"< seconds ", "< seconds -1", "seconds must lie in"},
        {"< seconds ", "< seconds 0.5 0.5", "unexpected text at the end of the line"},
        {"< ring ", "< ring 9 0 0 1 1 1", "ring encoding must lie in [0, 4], got '9'"},
        {"< timing ", "< timing 1e999 1", "latency cycles out of range"},
    };
    for (const auto& c : cases) {
        std::size_t at = 0;
        const auto error = replay_error([&](auto& lines) {
            at = first(lines, c.prefix);
            lines[at] = c.replacement;
        });
        EXPECT_EQ(error.rfind(at_line(at) + c.expected, 0), 0u) << c.replacement << ":\n" << error;
    }
}

// Values no GPU has (issue 34): each fact within the rule of the quantity it
// becomes (model/quantities.hpp), the buffer and the rings within the device's
// memory, a ring of the elements and stride the call asked for.
TEST(EngineLog, ImpossibleValuesAreRefusedByLine) {
    const std::string facts = "facts 0 9 0 132 13000 13000 1980000 62914560 39321600 233472 49152 232448 1024 65536 "
                              "85017493504 2048 32 65536";
    const auto with_fact = [&](std::size_t field, const std::string& value) {
        std::vector<std::string> words;
        std::size_t start = 0;
        for (std::size_t space; (space = facts.find(' ', start)) != std::string::npos; start = space + 1)
            words.push_back(facts.substr(start, space - start));
        words.push_back(facts.substr(start));
        words.at(field + 1) = value;
        std::string line;
        for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
        return line;
    };
    struct Case {
        std::string prefix, replacement, expected;
    };
    const std::vector<Case> cases{
        {"buffer ", "buffer 18446744073709551615",
         "buffer bytes must be at most the 85017493504 bytes of device memory (facts: global_bytes), got "
         "'18446744073709551615'"},
        {"buffer ", "buffer -1", "expected buffer bytes (a whole number), got '-1'"},
        {"buffer ", "buffer 0", "buffer bytes must lie in [1, "},
        {"facts ", with_fact(0, "2147483647"), "index must lie in [0, 63], got '2147483647'"},
        {"facts ", with_fact(1, "99"), "cc_major must lie in [5, 12], got '99'"},
        {"facts ", with_fact(3, "0"), "sm_count must lie in [1, 1024], got '0'"},
        {"facts ", with_fact(4, "7"), "driver_version must lie in [1000, 999999], got '7'"},
        {"facts ", with_fact(7, "9223372036854775807"), "l2_bytes must lie in [65536, 1073741824]"},
        {"facts ", with_fact(14, "1"), "global_bytes must lie in [67108864, 4398046511104], got '1'"},
        {"facts ", with_fact(15, "-2048"), "max_threads_per_sm must lie in [512, 4096], got '-2048'"},
        {"capacities ", "capacities 0 1610612736 1610612736 1610612736 18446744073709551615 65536 232432",
         "capacity must be at most the 85017493504 bytes of device memory"},
        {"< ring ", "< ring 0 0 0 4294967295 128 1", "elements must be "},
        {"< ring ", "< ring 0 -5 0 1 1 1", "expected ring offset (a whole number), got '-5'"},
        {"< ring ", "< ring 0 99999999999 0 1 1 1", "ring offset must lie in [0, 1610612736]"},
        {"name ", "name " + std::string(1 << 20, 'x'), "expected the device name: text without control characters, 1 to 4096 bytes"},
        {"< result ", "< result 1 2 1024 33*1000", "the result holds 1000 samples, not the 1024 it announces"},
    };
    for (const auto& c : cases) {
        std::size_t at = 0;
        const auto error = replay_error([&](auto& lines) {
            at = first(lines, c.prefix);
            lines[at] = c.replacement;
        });
        EXPECT_EQ(error.rfind(at_line(at) + c.expected, 0), 0u) << c.replacement.substr(0, 120) << ":\n" << error.substr(0, 400);
        EXPECT_LT(error.size(), 600u) << "an error quotes a cut line";
    }
}

// A log that went through a Windows editor says so, at its first line.
TEST(EngineLog, WindowsLineEndingsAreNamed) {
    const auto error = replay_error([](auto& lines) {
        for (auto& line : lines) line += '\r';
    });
    EXPECT_EQ(error.rfind("log:1: the line ends in CR (Windows line endings)", 0), 0u) << error;
}

// Lines of a megabyte: an unknown call or a result of a million samples is one short error.
TEST(EngineLog, LongLinesGiveShortErrors) {
    std::size_t at = 0;
    auto error = replay_error([&](auto& lines) {
        at = first(lines, "> reference_work");
        lines[at] = "> reference_work " + std::string(1 << 20, 'x');
    });
    EXPECT_LT(error.size(), 600u) << error.substr(0, 600);
    EXPECT_NE(error.find("the replay diverged"), std::string::npos) << error.substr(0, 600);
    error = replay_error([&](auto& lines) {
        at = first(lines, "< result ");
        std::string samples;
        for (int i = 0; i < 300000; ++i) samples += " 33";
        lines[at] = "< result 1 2 1024" + samples;
    });
    EXPECT_EQ(error.rfind(at_line(at) + "bad sample '33': more samples than the 1024 the call asked for", 0), 0u)
        << error.substr(0, 400);
}

TEST(EngineLog, AnswersWhereTheCallHasOneOnly) {
    std::size_t at = 0;
    auto error = replay_error([&](auto& lines) {
        at = first(lines, "> stream_l2 ");
        lines.insert(lines.begin() + std::ptrdiff_t(at) + 1, "< seconds 1");
    });
    EXPECT_EQ(error.rfind(at_line(at + 1) + "an answer to the call 'stream_l2", 0), 0u) << error;
    error = replay_error([&](auto& lines) {
        at = first(lines, "> reference_work");
        lines.erase(lines.begin() + std::ptrdiff_t(at) + 1);  // its "< seconds ..."
    });
    EXPECT_EQ(error.rfind(at_line(at) + "the call 'reference_work' has no answer", 0), 0u) << error;
    error = replay_error([&](auto& lines) {
        at = first(lines, "< shape ");
        lines[at] = "< seconds 1";
    });
    EXPECT_EQ(error.rfind(at_line(at) + "expected the answer '< shape ...'", 0), 0u) << error;
    error = replay_error([&](auto& lines) {
        at = first(lines, "> reference_work");
        lines[at] = "> format_disk now";
    });
    EXPECT_EQ(error.rfind(at_line(at) + "unknown call 'format_disk now'", 0), 0u) << error;
    error = replay_error([&](auto& lines) { lines.insert(lines.begin() + 2, "buffer 1"); });
    EXPECT_NE(error.find("'buffer' a second time"), std::string::npos) << error;
    error = replay_error([&](auto& lines) { lines.push_back("name late"); });
    EXPECT_NE(error.find("'name' after the first call"), std::string::npos) << error;
}

TEST(EngineLog, QuotedTextIsEscapedAndTheDeviceNameIsText) {
    auto error = replay_error([&](auto& lines) { lines.push_back("\x1b]0;pwned\x07\x1b[2J"); });
    EXPECT_NE(error.find("unexpected line '\\u{001b}]0;pwned\\u{0007}\\u{001b}[2J'"), std::string::npos) << error;
    error = replay_error([&](auto& lines) { lines[first(lines, "name ")] = "name H200\x1b[2J"; });
    EXPECT_NE(error.find("expected the device name: text without control characters"), std::string::npos) << error;
}

// Only regular files of bounded size, judged on the open file: no FIFO blocks, no device streams.
TEST(EngineLog, OnlyRegularFilesOfBoundedSize) {
    const auto error = [](const fs::path& file) {
        auto done = std::async(std::launch::async, [file] {
            try {
                stages::ReplayEngine engine(file);
            } catch (const stages::ReplayError& e) {
                return std::string(e.what());
            }
            return std::string();
        });
        if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
            ADD_FAILURE() << file << " blocked the reader";
            std::abort();  // a thread stuck in open() cannot be joined
        }
        return done.get();
    };
    EXPECT_EQ(error("/dev/zero"), "/dev/zero: not a regular file");
    EXPECT_EQ(error(fs::temp_directory_path()), fs::temp_directory_path().string() + ": not a regular file");
    const auto fifo = fs::temp_directory_path() / ("gpu-topology-fifo-" + std::to_string(::getpid()));
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(error(fifo), fifo.string() + ": not a regular file");
    fs::remove(fifo);
    const auto huge = fs::temp_directory_path() / ("gpu-topology-huge-" + std::to_string(::getpid()) + ".enginelog");
    { std::ofstream(huge) << "# gpu-topology-engine-log 1\n"; }
    fs::resize_file(huge, stages::kMaxEngineLogBytes + 1);  // sparse: nothing is written
    EXPECT_NE(error(huge).find("bytes is larger than engine log can be"), std::string::npos) << error(huge);
    fs::remove(huge);
    EXPECT_NE(error("/nonexistent.enginelog").find("cannot open engine log: no such file"), std::string::npos);
}

TEST(EngineLog, WhereNamesTheLastCallAnswered) {
    stages::ReplayEngine engine(kRecorded);
    EXPECT_EQ(engine.where(), kRecorded.string() + ":1");
    engine.time_reference_work();
    const auto lines = lines_of(kRecorded);
    EXPECT_EQ(engine.where(), kRecorded.string() + ":" + std::to_string(first(lines, "< seconds ") + 1));
}

}  // namespace
