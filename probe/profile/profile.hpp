#pragma once
// Reading profiles: load with a bounded read, validate against the list of
// quantities (model/quantities.hpp) and its relations, and read values back.
// Profiles are input: every field the header or CMake uses is checked for
// type, range and physical sense, and every string for characters that could
// turn data into code, before anything is rendered.
#include "model/node.hpp"
#include "model/quantities.hpp"
#include "model/topology.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpu_topology::profile {

using util::Json;  // profiles are JSON documents

// Profiles larger than this are refused before they are read.
inline constexpr std::uintmax_t kMaxProfileBytes = 16u << 20;
// Every string of a profile, keys included, holds at most this many bytes.
inline constexpr std::size_t kMaxTextBytes = 4096;
static_assert(kMaxTextBytes == util::kMaxKeyBytes, "docs/profile-schema.md gives one bound for keys and text");
// Every list of a profile (the curve's points, the carveout rows, a node's
// links, ...) holds at most this many entries; a probe writes about 100 of each.
inline constexpr std::size_t kMaxListEntries = 4096;
// A device index, in a profile, an engine log or --device: below the most devices one node holds.
inline constexpr double kMaxDeviceIndex = double(model::kMaxNodeDevices - 1);
// Shared memory one block may declare, at most, on any GPU CUDA supports (228 KiB
// on cc 9.0/10.0): a carveout row claiming more is refused.
inline constexpr double kMaxSharedBytesPerBlock = 256 * 1024;

// The kernel an L1 carveout row (caches.l1.carveouts[i]) describes: the
// shared memory it declares per block, and of which kind ("none", "static",
// "dynamic"). Rows of probe 1.0 name none: they are its chase kernel's.
struct RowKernel {
    std::string kind;
    std::uint32_t shared_bytes_per_block = 0;
};
RowKernel kernel_of(const Json& carveout_row);

struct Value {
    std::optional<double> value;  // nullopt when unmeasured
    std::optional<model::Source> source;  // nullopt: unmeasured
    std::string reason;           // why unmeasured, or what hides a bound
    bool lower_bound = false;     // the value is a lower bound ("bound": "lower")
    std::string doubt;            // measured but not vouched for, and why
    double confidence = 1;
};
// The value of a quantity (a latency reads as its p50).
Value read_quantity(const Json& profile, const model::Quantity& quantity);
Value read_quantity(const Json& profile, std::string_view name);  // throws std::out_of_range for an unknown name

// The problems found in a document: the first kMaxListedProblems in full, the
// rest only counted, so that a file of a million bad entries costs neither the
// memory nor the screens of a message per entry.
inline constexpr std::size_t kMaxListedProblems = 50;
class Problems {
public:
    void add(std::string problem);
    // Whether a further problem is only counted: a caller may then skip describing it.
    bool full() const { return listed_.size() >= kMaxListedProblems; }
    std::size_t count() const { return listed_.size() + unlisted_; }
    // The listed problems, then "... and N more problems" when some were only counted.
    std::vector<std::string> list() const;

private:
    std::vector<std::string> listed_;
    std::size_t unlisted_ = 0;
};

// Every problem found, each as "<field>: <what is wrong> (<value>)", at most
// kMaxListedProblems of them and a count of the rest.
std::vector<std::string> validate(const Json& profile);
// The same into `problems`, each field named after `prefix` (a node's "devices[1].").
void validate(const Json& profile, Problems& problems, const std::string& prefix);

class ProfileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses and validates; throws ProfileError naming the file and each bad field.
Json load_profile(const std::filesystem::path& file);
Json load_profile_text(std::string_view text, const std::string& source);
// The two halves, for readers of other schemas: parse (a syntax error becomes a
// ProfileError with file:line:column; members renamed since, model::kRenamed, take
// their new names), and refuse a document `errors` find fault with.
// `renamed` collects each such field as {path now, path as written}, so that
// refuse_invalid can name a bad field as the file wrote it.
using RenamedFields = std::vector<std::pair<std::string, std::string>>;
Json parse_profile_text(std::string_view text, const std::string& source, RenamedFields* renamed = nullptr);
void refuse_invalid(const std::vector<std::string>& errors, const std::string& source, std::string_view what,
                    const RenamedFields& renamed = {});
// The bytes of a profile file, refused when it is not a regular file or too large.
std::string read_profile_bytes(const std::filesystem::path& file);

// FNV-1a 64 of the exact bytes, as "fnv1a64:0123456789abcdef".
std::string content_hash(std::string_view bytes);

}  // namespace gpu_topology::profile
