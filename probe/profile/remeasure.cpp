#include "remeasure.hpp"

#include "profile.hpp"

#include <cmath>

namespace gpu_topology::profile {

std::vector<RemeasureRow> remeasure_rows(const util::Json& expected, const util::Json& measured, model::Cards cards) {
    std::vector<RemeasureRow> rows;
    for (const auto& q : model::kQuantities) {
        const auto want = read_quantity(expected, q);
        if (!want.value || want.source == model::Source::api || !model::is_remeasurable(q) || !want.doubt.empty())
            continue;
        const auto got = read_quantity(measured, q);
        RemeasureRow row{std::string(q.name), *want.value, got.value, got.reason,
                         model::agreement_tolerance(q, std::abs(*want.value), cards), got.doubt, false};
        row.ok = got.value && std::abs(*got.value - *want.value) <= row.tolerance;
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace gpu_topology::profile
