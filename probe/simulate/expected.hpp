#pragma once
// What a description implies the probe should find, quantity by quantity,
// and the verdict on a profile the simulated probe recovered from it. A
// recovered value must agree with the described one within the tolerance a
// real card gets between runs (model/agreement.hpp), or be unmeasured with a
// reason; a vouched value outside it, or one the description says no kernel
// can show, is wrong. Values the probe does not vouch for are listed apart:
// the trust machinery withdrew them, which is its job.
#include "architecture.hpp"

#include "model/quantities.hpp"
#include "util/json.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpu_topology::simulate {

struct Expectation {
    std::string name;  // a kQuantities name, or "L1 row: <launch>" for a carveout row
    std::optional<double> value;  // none: no kernel of the probe can show it (and why)
    double tolerance = 0;
    bool lower_bound = false;     // the description gives only "at least"
    std::string why;              // where the value comes from, or why there is none
    bool described = true;        // false: no source gives it, so no value is right or wrong
};

// Everything `arch` implies for the probe's quantities and its carveout table
// (`rows`: the profile's caches.l1.carveouts, whose launches are looked up).
std::vector<Expectation> expectations(const Architecture& arch, const util::Json* rows = nullptr);

enum class Verdict : std::uint8_t {
    agrees,      // vouched, within the tolerance
    unmeasured,  // the probe says it could not measure it, and why
    doubted,     // measured but not vouched for (busy GPU, failed cross-check)
    wrong,       // vouched, and outside the tolerance or where nothing can be seen
    missing,     // absent from the profile
    undescribed, // a value the description has no source for
};
std::string_view to_string(Verdict v);

struct Judged {
    Expectation expected;
    std::optional<double> recovered;
    std::string note;  // the profile's reason or doubt
    Verdict verdict = Verdict::agrees;
};
// `profile` against `arch`. A profile the simulated probe recovered is held to
// the real card's tolerance; one measured on a real card of the described
// model (`measured`) also gets each quantity's allowance of the description,
// for sources that measured it another way than the probe does.
std::vector<Judged> judge(const Architecture& arch, const util::Json& profile, bool measured = false);
// A node profile of simulated devices (simulate --node): every device as judge()
// does, each quantity named "device <i>: <name>", and every link's values
// against the description's links.
std::vector<Judged> judge_node(const Architecture& arch, const util::Json& node);
bool any_wrong(const std::vector<Judged>& judged);
// One line per wrong verdict, "  NAME: described X, recovered Y\n"; "" when none.
std::string wrong_lines(const std::vector<Judged>& judged);

}  // namespace gpu_topology::simulate
