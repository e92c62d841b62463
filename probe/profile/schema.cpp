#include "schema.hpp"

#include "profile.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace gpu_topology::profile {

using model::kQuantities;
using util::excerpt;
using util::printable;

namespace {

std::string_view parent_of(std::string_view path) {
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}
std::string_view member_of(std::string_view path) {
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

// Each section and the members it may hold, from the list of quantities.
struct Sections {
    std::map<std::string, std::set<std::string>, std::less<>> members;  // section -> its members
    Sections() {
        const auto add = [&](std::string_view path) {
            for (std::string_view p = path; !p.empty(); p = parent_of(p))
                members[std::string(parent_of(p))].insert(std::string(member_of(p)));
        };
        for (const auto& q : kQuantities) add(q.path);
        for (const auto member : model::kOtherMembers) add(member);
    }
};
const Sections& sections() {
    static const Sections kSections;
    return kSections;
}

// The edit distance of two short words (a misspelt key against a member), at most `limit` + 1.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
    if (std::max(a.size(), b.size()) - std::min(a.size(), b.size()) > limit) return limit + 1;
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The member of `section` a misspelt `key` most likely meant, or "".
std::string nearest(const std::set<std::string>& members, std::string_view key) {
    constexpr std::size_t kLimit = 2;
    if (key.size() > 64) return "";
    std::string best;
    std::size_t best_distance = kLimit + 1;
    for (const auto& m : members)
        if (const auto d = edit_distance(key, m, kLimit); d < best_distance) best = m, best_distance = d;
    return best;
}

std::string joined(std::string_view section, std::string_view member) {
    return section.empty() ? std::string(member) : std::string(section) + "." + std::string(member);
}

bool must_hold_section(std::string_view section, const ProbeVersion& written_by) {
    for (const auto& q : kQuantities)
        if (q.path.substr(0, section.size()) == section && q.path.size() > section.size() &&
            q.path[section.size()] == '.' && written_by >= first_holding(q))
            return true;
    return false;
}

}  // namespace

ProbeVersion first_holding(const model::Quantity& quantity) {
    for (const auto& a : model::kAddedSince)
        if (a.name == quantity.name) return *parse_version(a.version);
    return *parse_version(model::kEveryQuantitySince);
}

bool is_section(const util::Json& profile, std::string_view section) {
    const util::Json* node = section.empty() ? &profile : profile.at_path(section);
    return node && node->is_object();
}

void check_sections(const util::Json& profile, const std::optional<ProbeVersion>& written_by, Problems& problems,
                    const std::string& prefix) {
    const std::string version =
        written_by ? std::to_string(written_by->major) + "." + std::to_string(written_by->minor) + "." +
                         std::to_string(written_by->patch)
                   : std::string();
    for (const auto& [section, members] : sections().members) {
        // Parents come first (a map orders "caches" before "caches.l1"); a broken parent was named already.
        if (!section.empty() && !is_section(profile, parent_of(section))) continue;
        const util::Json* node = section.empty() ? &profile : profile.at_path(section);
        if (!node) {
            if (written_by && must_hold_section(section, *written_by))
                problems.add(prefix + section + ": missing (a profile of probe " + version +
                             " holds every section, its quantities measured or marked unmeasured)");
            continue;
        }
        if (!node->is_object()) {
            problems.add(prefix + section + ": expected object, got " + std::string(node->type_name()) + " (" +
                         excerpt(node) + ")");
            continue;
        }
        for (const auto& [key, value] : node->as_object()) {
            if (members.count(key)) continue;
            if (problems.full()) {
                problems.add({});
                continue;
            }
            const std::string at = prefix + joined(section, printable(key));
            // An old name (model::kRenamed) is read as the new one, unless both are there.
            const std::string path = joined(section, key);  // not captured: Clang before 16 captures no binding
            const auto renamed = std::find_if(model::kRenamed.begin(), model::kRenamed.end(),
                                              [&](const auto& r) { return r.old_path == path; });
            if (renamed != model::kRenamed.end()) {
                const auto& now = kQuantities[model::find(renamed->name)];
                if (!node->find(now.member())) continue;
                problems.add(at + ": written under its old name beside its new one, " + std::string(now.path) +
                             ": a profile holds one of them (" + excerpt(&value) + ")");
                continue;
            }
            const std::string meant = nearest(members, key);
            problems.add(at + ": " + (section.empty() ? std::string("the profile") : section) +
                         " has no member of this name" +
                         (meant.empty() ? std::string(" (schema ") + std::string(model::kSchema) + ")"
                                        : "; did you mean " + joined(section, meant) + "?") +
                         " (" + excerpt(&value) + ")");
        }
    }
}

}  // namespace gpu_topology::profile
