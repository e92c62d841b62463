// A seeded, bounded mutation fuzz of the stored profiles (issue 20): whatever
// validates must render (header, CMake variables, table, picture), and the
// headers of a sample of them must compile. Mutations are those an audit of
// hostile input tries: numbers at and beyond their bounds, values of another
// type, long and multi-byte text and text that reads as code, keys and rows
// removed or repeated, and bytes of the text flipped or cut.
//
// A time budget, not a count (issue 34: 6000 documents took 132 s under ASan on
// a loaded machine): from seed kSeed, documents are made and checked until
// kBudgetSeconds have passed, at least kMinMutants of them; document i of a
// seed is the same on every machine, a faster one only gets further.
// GPU_TOPOLOGY_FUZZ_SEED, GPU_TOPOLOGY_FUZZ_SECONDS and GPU_TOPOLOGY_FUZZ_MUTANTS
// (an exact count, instead of the budget) override them, to search further or
// to replay a failure by hand. A failing document is written to
// GPU_TOPOLOGY_FUZZ_DIR and its path printed, so the failure can be replayed
// with gpu-topology-probe.
#include "util/json.hpp"
#include "profile/node_profile.hpp"
#include "profile/profile.hpp"
#include "codegen/node.hpp"
#include "pictures/node_svg.hpp"
#include "codegen/render.hpp"
#include "pictures/svg.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace gpu_topology;
using util::Json;
namespace fs = std::filesystem;

constexpr std::uint64_t kSeed = 20;
constexpr double kBudgetSeconds = 3;
constexpr int kMinMutants = 200;
constexpr std::size_t kHeadersToCompile = 32;

std::string repeated(std::string_view piece, std::size_t times) {
    std::string out;
    for (std::size_t i = 0; i < times; ++i) out += piece;
    return out;
}

// Text an audit tries: at and past the length limit, cut-sensitive multi-byte
// characters, and text that is code in C++, CMake, XML or a terminal.
const std::vector<std::string>& hostile_texts() {
    static const std::vector<std::string> texts{
        "", "x", std::string(1500, 'a'), std::string(4096, 'b'), std::string(4097, 'c'),
        "x" + repeated("\xc3\xa9", 1000), repeated("\xc3\xa9", 2048), repeated("\xf0\x9f\x98\x80", 1024),
        "x" + repeated("\xe2\x82\xac", 1365), "\"; #define l1 0 //", "*/ #error x /*", "?\?= ?\?/ ?\?'",
        "]==] ${PWNED} @FACTS@ $ENV{HOME} \\ ;", "<script>&amp;</script>", "a\nb", "\x1b[2J", "\xc2\x9b", "\xff",
        "\xed\xa0\x80", "stored:nvidia-h200.json", "measured", "lower", "unmeasured", "api", "derived", "GPU-0123-abcd",
    };
    return texts;
}

std::vector<Json> numbers_near(double v) {
    return {Json(0), Json(-1), Json(1), Json(0.5), Json(v * 2), Json(v / 2), Json(v + 1), Json(-v), Json(1e15),
            Json(1e300), Json(4294967295.0), Json(4294967296.0), Json(9007199254740992.0), Json(9007199254740994.0),
            Json(1e-300), Json(std::floor(v * 1.01)), Json(std::floor(v * 0.99))};
}

class Mutator {
public:
    explicit Mutator(std::uint64_t seed) : random_(seed) {}

    std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }
    template <typename T>
    const T& pick(const std::vector<T>& from) { return from[below(from.size())]; }

    // One change to a random node of `root`.
    void mutate(Json& root) {
        std::vector<Json*> nodes;
        collect(root, nodes);
        Json& node = *pick(nodes);
        switch (below(8)) {
            case 0:
            case 1:  // a number at or beyond a bound
                if (node.is_number()) node = pick(numbers_near(node.as_number()));
                else if (node.is_object() && node.find("value") && node.find("value")->is_number())
                    node["value"] = pick(numbers_near(node.find("value")->as_number()));
                else node = pick(hostile_texts());
                break;
            case 2:  // hostile text
            case 3: {
                if (node.is_object() && !node.as_object().empty())
                    node.as_object()[below(node.as_object().size())].second = pick(hostile_texts());
                else node = pick(hostile_texts());
                break;
            }
            case 4:  // another type
                node = pick(std::vector<Json>{Json(), Json(true), Json(false), Json::array(), Json::object(), Json("1")});
                break;
            case 5:  // a key removed
                if (node.is_object() && !node.as_object().empty())
                    node.as_object().erase(node.as_object().begin() + std::ptrdiff_t(below(node.as_object().size())));
                break;
            case 6:  // an array entry repeated or removed
                if (node.is_array() && !node.as_array().empty()) {
                    auto& a = node.as_array();
                    const auto i = below(a.size());
                    if (below(2)) a.push_back(a[i]);
                    else a.erase(a.begin() + std::ptrdiff_t(i));
                }
                break;
            default: {  // another node's value copied here (copied first: it may lie inside this one)
                Json copy = *pick(nodes);
                node = std::move(copy);
                break;
            }
        }
    }

    // Bytes of the text flipped, cut or doubled: the reader must refuse, never crash.
    void mutate_text(std::string& text) {
        const std::size_t at = below(text.size());
        switch (below(4)) {
            case 0: text[at] = static_cast<char>(below(256)); break;
            case 1: text.resize(at); break;
            case 2: text.insert(at, text.substr(at, below(64))); break;
            default: text.insert(at, pick(std::vector<std::string>{"0", ".", "e400", "\\uD800", "\"", "\xc0\xaf", "-"})); break;
        }
    }

private:
    static void collect(Json& node, std::vector<Json*>& out) {
        out.push_back(&node);
        if (node.is_array())
            for (auto& v : node.as_array()) collect(v, out);
        else if (node.is_object())
            for (auto& [k, v] : node.as_object()) collect(v, out);
    }
    std::mt19937_64 random_;
};

fs::path fuzz_dir() { return GPU_TOPOLOGY_FUZZ_DIR; }

// Writes a failing document where the test's message says.
std::string keep(const std::string& text, const std::string& name) {
    fs::create_directories(fuzz_dir());
    const auto file = fuzz_dir() / name;
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
}

// Every rendering of a valid document; throws what any of them throws.
struct Rendered {
    std::string header;
    bool has_header = false;
};
Rendered render_all(const Json& document) {
    Rendered out;
    const render::RenderContext context{"", "fnv1a64:0"};
    (void)render::render_table(document, context, true);
    (void)render::render_table(document, context, false);
    (void)(profile::is_node_document(document) ? render::node_svg(document) : render::hierarchy_svg(document));
    try {
        (void)render::facts_of(document);
    } catch (const std::invalid_argument&) {
        return out;  // a node of several models: render refuses its header and variables, by design
    }
    out.header = render::render_header(document, context, render::embedded_header_template());
    (void)render::render_cmake(document, context);
    out.has_header = true;
    return out;
}

// Compiles the headers as the strict header test does, one translation unit each.
std::string compile_errors(const std::vector<std::pair<std::string, std::string>>& headers) {
    const auto dir = fuzz_dir() / "headers";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string files;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const auto file = dir / ("h" + std::to_string(i) + ".hpp");
        std::ofstream(file, std::ios::binary) << headers[i].second;
        files += " '" + file.string() + "'";
    }
    const auto log = dir / "compiler.log";
    // A rendered header includes the package's static headers (<gpu_topology/...>).
    const std::string strict = "'" + std::string(GPU_TOPOLOGY_CXX) +
                               "' -std=c++17 -Wall -Wextra -Wpedantic -Wshadow -Werror -fsyntax-only -I '" +
                               std::string(GPU_TOPOLOGY_INCLUDE) + "' -x c++";
    const std::string command = strict + files + " > '" + log.string() + "' 2>&1";
    if (std::system(command.c_str()) == 0) return "";
    // Which one: each alone.
    std::string failed;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const std::string one = strict + " '" + (dir / ("h" + std::to_string(i) + ".hpp")).string() + "' > /dev/null 2>&1";
        if (std::system(one.c_str()) != 0) failed += "\n  " + headers[i].first + " (header " + (dir / ("h" + std::to_string(i) + ".hpp")).string() + ")";
    }
    return "headers that do not compile (" + log.string() + "):" + failed;
}

TEST(ProfileFuzz, WhatValidatesRendersAndItsHeaderCompiles) {
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    std::uint64_t seed = kSeed;
    if (const char* text = std::getenv("GPU_TOPOLOGY_FUZZ_SEED")) seed = std::strtoull(text, nullptr, 10);
    double budget = kBudgetSeconds;
    if (const char* text = std::getenv("GPU_TOPOLOGY_FUZZ_SECONDS")) budget = std::strtod(text, nullptr);
    int exact = 0;  // 0: as many as the budget allows
    if (const char* text = std::getenv("GPU_TOPOLOGY_FUZZ_MUTANTS")) exact = std::atoi(text);
    const auto more = [&](int done) { return exact > 0 ? done < exact : done < kMinMutants || elapsed() < budget; };
    Mutator mutator(seed);
    std::vector<Json> seeds;
    for (const char* name : {"nvidia-h200.json", "nvidia-h100.json", "nvidia-h200-x2-node.json"})
        seeds.push_back(profile::load_any_profile(fs::path(GPU_TOPOLOGY_PROFILES) / name));

    std::size_t valid = 0;
    std::vector<std::pair<std::string, std::string>> headers;  // (document file, header)
    std::vector<std::string> texts_of_headers;
    int mutants = 0;
    for (int i = 0; more(i); ++i, ++mutants) {
        Json document = seeds[std::size_t(i) % seeds.size()];
        const std::size_t changes = 1 + mutator.below(3);
        for (std::size_t c = 0; c < changes; ++c) mutator.mutate(document);
        std::string text = document.dump();
        if (mutator.below(8) == 0) mutator.mutate_text(text);
        const std::string name = "mutant-" + std::to_string(seed) + "-" + std::to_string(i) + ".json";

        Json accepted;
        try {
            accepted = profile::load_any_profile_text(text, name);
        } catch (const profile::ProfileError&) {
            continue;  // refused: fine, as long as it is refused by name
        } catch (const std::exception& e) {
            FAIL() << "reading threw " << e.what() << " instead of ProfileError; the input: " << keep(text, name);
        }
        ++valid;
        Rendered rendered;
        try {
            rendered = render_all(accepted);
        } catch (const std::exception& e) {
            FAIL() << "a profile that validates does not render: " << e.what() << "\nthe input: " << keep(text, name);
        }
        // A sample of the headers, spread over the run (every document differs from its seed).
        if (rendered.has_header && headers.size() < kHeadersToCompile && valid % 8 == 1) {
            headers.emplace_back(name, rendered.header);
            texts_of_headers.push_back(text);
        }
    }
    EXPECT_GT(valid, std::size_t(mutants / 20)) << "too few mutants validate to test rendering";
    ASSERT_FALSE(headers.empty());
    const auto errors = compile_errors(headers);
    if (!errors.empty()) {
        for (std::size_t i = 0; i < headers.size(); ++i) keep(texts_of_headers[i], headers[i].first);
        FAIL() << errors;
    }
    std::printf("%d mutants (seed %llu, %s): %zu validated and rendered, %zu headers compiled, %.1f s\n", mutants,
                static_cast<unsigned long long>(seed),
                exact > 0 ? "an exact count" : ("a budget of " + std::to_string(int(budget)) + " s").c_str(), valid,
                headers.size(), elapsed());
}

}  // namespace
