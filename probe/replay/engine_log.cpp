#include "engine_log.hpp"

#include "util/input_file.hpp"
#include "profile/profile.hpp"

#include <algorithm>
#include <utility>

namespace gpu_topology::stages {

using util::printable;

void LogFields::fail(const std::string& what) const { throw ReplayError(where_ + ": " + what); }

std::string LogFields::quoted(std::string_view token) { return printable(token, 40); }

std::string_view LogFields::next(std::string_view field) {
    if (text_.empty()) fail("expected " + std::string(field) + ", got the end of the line");
    const auto space = text_.find(' ');
    const std::string_view token = text_.substr(0, space);
    text_ = space == std::string_view::npos ? std::string_view{} : text_.substr(space + 1);
    if (token.empty()) fail("expected " + std::string(field) + ", got an empty field (two spaces)");
    return token;
}

void LogFields::expect_word(std::string_view word) {
    const std::string_view token = next(word);
    if (token != word) fail("expected '" + std::string(word) + "', got '" + quoted(token) + "'");
}

std::string_view LogFields::rest() { return std::exchange(text_, std::string_view{}); }

void LogFields::end() const {
    if (!text_.empty()) fail("unexpected text at the end of the line: '" + quoted(text_) + "'");
}

std::string encode_samples(const std::vector<std::uint32_t>& cycles) {
    std::string out;
    for (std::size_t i = 0; i < cycles.size();) {
        std::size_t run = 1;
        while (i + run < cycles.size() && cycles[i + run] == cycles[i]) ++run;
        if (!out.empty()) out += ' ';
        out += std::to_string(cycles[i]);
        if (run > 1) out += "*" + std::to_string(run);
        i += run;
    }
    return out;
}

std::vector<std::uint32_t> decode_samples(std::string_view text, std::size_t max_samples) {
    const auto bad = [](std::string_view token, const std::string& why) {
        throw ReplayError("bad sample '" + printable(token, 40) + "': " + why);
    };
    // First the runs, each checked against what is left of `max_samples`; then the samples.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
    std::size_t total = 0;
    while (!text.empty()) {
        const auto space = text.find(' ');
        const std::string_view token = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
        if (token.empty()) bad(token, "an empty field (two spaces)");
        const auto star = token.find('*');
        const std::string_view value_text = token.substr(0, star);
        std::uint32_t value = 0, run = 1;
        const auto whole = [](std::string_view digits, std::uint32_t& out) {
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
            return ec == std::errc{} && end == digits.data() + digits.size() && !digits.empty();
        };
        if (!whole(value_text, value)) bad(token, "expected cycles, a whole number below 2^32");
        if (star != std::string_view::npos && (!whole(token.substr(star + 1), run) || run == 0))
            bad(token, "expected a run length, a whole number from 1");
        if (run > max_samples - total)
            bad(token, "more samples than the " + std::to_string(max_samples) + " the call asked for");
        total += run;
        runs.emplace_back(value, run);
    }
    std::vector<std::uint32_t> out;
    out.reserve(total);
    for (const auto& [value, run] : runs) out.insert(out.end(), run, value);
    return out;
}

std::string facts_line(const DeviceFacts& facts) {
    std::string line = "facts";
    for (const auto& field : kFactFields)
        std::visit([&](auto member) { line += " " + std::to_string(facts.*member); }, field.member);
    return line;
}

namespace {

// The lines of the header, each once and before the first call.
class HeaderLines {
public:
    HeaderLines(const std::filesystem::path& file, EngineLog& log, std::size_t load_paths)
        : file_(file), log_(log), load_paths_(load_paths) {}

    // Reads `line` when it is a header line; false when it is not one.
    bool read(std::string_view line, std::size_t number) {
        const auto space = line.find(' ');
        const std::string_view word = line.substr(0, space);
        static constexpr std::array<std::string_view, 5> kWords{"facts", "name", "uuid", "buffer", "capacities"};
        const auto known = std::find(kWords.begin(), kWords.end(), word);
        if (known == kWords.end()) return false;
        LogFields fields(space == std::string_view::npos ? std::string_view{} : line.substr(space + 1), where(number));
        if (!log_.calls.empty()) fields.fail("'" + std::string(word) + "' after the first call: the header comes first");
        if (seen_[std::size_t(known - kWords.begin())]++) fields.fail("'" + std::string(word) + "' a second time");
        if (word == "facts") {
            for (const auto& field : kFactFields)
                std::visit([&](auto member) {
                    using T = std::remove_reference_t<decltype(log_.facts.*member)>;
                    const double max = std::min(field.range.max, double(std::numeric_limits<T>::max()));
                    log_.facts.*member = fields.number<T>(field.name, static_cast<T>(field.range.min), static_cast<T>(max));
                }, field.member);
            fields.end();
        } else if (word == "name" || word == "uuid") {
            const std::string text(fields.rest());
            if (text.empty() || !util::is_safe_text(text) || text.size() > profile::kMaxTextBytes)
                fields.fail("expected the device " + std::string(word) + ": text without control characters, 1 to " +
                            std::to_string(profile::kMaxTextBytes) + " bytes");
            (word == "name" ? log_.facts.name : log_.facts.uuid) = text;
        } else if (word == "buffer") {
            log_.buffer_bytes = fields.number<std::size_t>("buffer bytes", 1);
            fields.end();
            buffer_line_ = number;
        } else {
            for (std::size_t i = 0; i < load_paths_; ++i) log_.capacities.push_back(fields.number<std::size_t>("capacity"));
            fields.end();
            capacities_line_ = number;
        }
        return true;
    }
    // Every header line was there, and the buffer and the rings fit the device's memory.
    void complete(std::size_t last_line) const {
        if (!std::all_of(seen_.begin(), seen_.end(), [](int n) { return n == 1; }))
            throw ReplayError(where(last_line) + ": the log lacks one of its header lines (facts, name, uuid, buffer, "
                                                 "capacities)");
        const auto memory = static_cast<std::uint64_t>(log_.facts.global_bytes);
        const std::string of_memory = " bytes of device memory (facts: global_bytes)";
        if (log_.buffer_bytes > memory)
            throw ReplayError(where(buffer_line_) + ": buffer bytes must be at most the " + std::to_string(memory) +
                              of_memory + ", got '" + std::to_string(log_.buffer_bytes) + "'");
        for (const auto capacity : log_.capacities)
            if (capacity > memory)
                throw ReplayError(where(capacities_line_) + ": capacity must be at most the " + std::to_string(memory) +
                                  of_memory + ", got '" + std::to_string(capacity) + "'");
    }

private:
    std::string where(std::size_t line) const { return file_.string() + ":" + std::to_string(line); }
    const std::filesystem::path& file_;
    EngineLog& log_;
    std::size_t load_paths_;
    std::array<int, 5> seen_{};
    std::size_t buffer_line_ = 0, capacities_line_ = 0;
};

const CallKind* call_kind(std::string_view request) {
    const std::string_view word = request.substr(0, request.find(' '));
    for (const auto& kind : kCallKinds)
        if (kind.request == word) return &kind;
    return nullptr;
}

}  // namespace

EngineLog read_engine_log(const std::filesystem::path& file, std::size_t load_paths) {
    std::string text;
    try {
        text = util::read_input_file(file, kMaxEngineLogBytes, "engine log");
    } catch (const util::InputFileError& e) {
        throw ReplayError(e.what());
    }
    EngineLog log;
    HeaderLines header(file, log, load_paths);
    std::size_t number = 0;
    const auto fail = [&](const std::string& what) {
        throw ReplayError(file.string() + ":" + std::to_string(number) + ": " + what);
    };
    const CallKind* open = nullptr;  // the last call, while it still waits for its answer
    const auto answered = [&] {
        if (open)
            throw ReplayError(file.string() + ":" + std::to_string(log.calls.back().line) + ": the call '" +
                              std::string(open->request) + "' has no answer (a line '< " + std::string(open->answer) +
                              " ...' after it)");
    };
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto newline = rest.find('\n');
        const std::string_view line = rest.substr(0, newline);
        rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
        ++number;
        if (!line.empty() && line.back() == '\r') fail("the line ends in CR (Windows line endings): an engine log's lines end in LF");
        if (number == 1) {
            if (line != kEngineLogMagic)
                fail("not an engine log: the first line must be '" + std::string(kEngineLogMagic) + "'");
            continue;
        }
        if (line.empty()) continue;
        if (line.rfind("> ", 0) == 0) {
            answered();
            const CallKind* kind = call_kind(line.substr(2));
            if (!kind) fail("unknown call '" + printable(line.substr(2), 60) + "'");
            log.calls.push_back({std::string(line.substr(2)), {}, number, 0});
            open = kind->answer.empty() ? nullptr : kind;
        } else if (line.rfind("< ", 0) == 0) {
            if (log.calls.empty()) fail("an answer before the first call");
            if (!open)
                fail("an answer to the call '" + printable(log.calls.back().request, 60) + "', which answers nothing");
            if (line.substr(2, line.find(' ', 2) - 2) != open->answer)
                fail("expected the answer '< " + std::string(open->answer) + " ...' to '" + std::string(open->request) +
                     "', got '" + printable(line, 60) + "'");
            log.calls.back().answer = std::string(line.substr(2));
            log.calls.back().answer_line = number;
            open = nullptr;
        } else if (!header.read(line, number)) {
            fail("unexpected line '" + printable(line, 60) + "'");
        }
    }
    if (number == 0) throw ReplayError(file.string() + ":1: not an engine log: the file is empty");
    answered();
    header.complete(number);
    return log;
}

}  // namespace gpu_topology::stages
