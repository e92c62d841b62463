#pragma once
// The shape of a profile around its values: the version of the probe that
// wrote it, its sections (the objects along the quantities' paths), the
// members each section may hold, and which quantities a profile of a given
// version must hold (model::kEveryQuantitySince, model::kAddedSince). A
// section of another type, a member no probe writes (a misspelt quantity) or
// a quantity missing from a profile whose probe writes it is refused, so that
// nothing reads as unmeasured for a reason that is not true.
#include "model/quantities.hpp"
#include "util/json.hpp"

#include <array>
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace gpu_topology::profile {

class Problems;

// A probe version: three whole numbers, "1.2.1".
struct ProbeVersion {
    unsigned major = 0, minor = 0, patch = 0;
    constexpr auto operator<=>(const ProbeVersion&) const = default;
};
constexpr std::optional<ProbeVersion> parse_version(std::string_view text) {
    std::array<unsigned, 3> parts{};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto dot = text.find('.');
        if ((dot == std::string_view::npos) != (i == parts.size() - 1)) return std::nullopt;
        const auto digits = text.substr(0, dot);
        if (digits.empty() || digits.size() > 6 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
        for (const char c : digits) {
            if (c < '0' || c > '9') return std::nullopt;
            parts[i] = parts[i] * 10 + unsigned(c - '0');
        }
        text = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    }
    return ProbeVersion{parts[0], parts[1], parts[2]};
}
static_assert(parse_version(model::kEveryQuantitySince), "model::kEveryQuantitySince is no version");
static_assert(!parse_version("1.2") && !parse_version("1.2.3.4") && !parse_version("01.2.3") && !parse_version(" 1.2.3"));

consteval bool added_since_is_later() {
    for (const auto& a : model::kAddedSince)
        if (!parse_version(a.version) || !(*parse_version(a.version) > *parse_version(model::kEveryQuantitySince)))
            return false;
    return true;
}
static_assert(added_since_is_later(), "a version of model::kAddedSince is none, or not after kEveryQuantitySince");

// The first version whose profiles hold `quantity`.
ProbeVersion first_holding(const model::Quantity& quantity);

// Checks every section of `profile` (one of kSchema, `written_by` read from
// its probe.version; nullopt when that is missing or no version): an object,
// present where the version requires it, holding only quantities, sections
// and model::kOtherMembers (and the old name of a model::kRenamed quantity,
// unless its new name is there too). Problems are named after `prefix`.
void check_sections(const util::Json& profile, const std::optional<ProbeVersion>& written_by, Problems& problems,
                    const std::string& prefix);

// Whether the object at `section` ("" for the document) of `profile` is there and an object.
bool is_section(const util::Json& profile, std::string_view section);

}  // namespace gpu_topology::profile
