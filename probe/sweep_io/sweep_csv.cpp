#include "sweep_csv.hpp"

#include "util/atomic_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpu_topology::stages {
namespace {
constexpr const char* kMagic = "# gpu-topology-sweep 1";

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
    throw std::runtime_error(source + ":" + std::to_string(line) + ": " + what);
}
}  // namespace

void write_sweep_csv(std::ostream& out, const analysis::Sweep& sweep) {
    out << kMagic << "\n# name=" << sweep.name << "\n";
    for (const auto& [key, value] : sweep.meta) out << "# " << key << "=" << value << "\n";
    out << "footprint_bytes,cycles\n";
    for (const auto& point : sweep.points) {
        out << point.footprint_bytes << ',';
        for (std::size_t i = 0; i < point.cycles.size(); ++i) {
            if (i) out << ' ';
            out << point.cycles[i];
        }
        out << '\n';
    }
}

void write_sweep_csv(const std::filesystem::path& file, const analysis::Sweep& sweep) {
    std::ostringstream text;
    write_sweep_csv(text, sweep);
    util::write_file_atomically(file, text.str());
}

analysis::Sweep read_sweep_csv(std::istream& in, const std::string& source) {
    analysis::Sweep sweep;
    std::string line;
    int number = 0;
    if (!std::getline(in, line) || line != kMagic)
        fail(source, 1, std::string("not a sweep file: first line must be '") + kMagic + "'");
    ++number;
    bool header_seen = false;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty()) continue;
        if (line[0] == '#') {
            const auto eq = line.find('=');
            if (eq == std::string::npos || line.size() < 3) fail(source, number, "metadata line without key=value");
            const std::string key = line.substr(2, eq - 2);
            const std::string value = line.substr(eq + 1);
            if (key == "name")
                sweep.name = value;
            else
                sweep.meta[key] = value;
            continue;
        }
        if (!header_seen) {
            if (line != "footprint_bytes,cycles") fail(source, number, "expected header 'footprint_bytes,cycles'");
            header_seen = true;
            continue;
        }
        const auto comma = line.find(',');
        if (comma == std::string::npos) fail(source, number, "row without ',' between footprint and cycles");
        analysis::SweepPoint point;
        try {
            std::size_t used = 0;
            point.footprint_bytes = std::stoull(line.substr(0, comma), &used);
            if (used != comma) throw std::invalid_argument("trailing characters");
        } catch (const std::exception&) {
            fail(source, number, "footprint_bytes '" + line.substr(0, comma) + "' is not a whole number");
        }
        std::istringstream values(line.substr(comma + 1));
        std::string token;
        while (values >> token) {
            try {
                std::size_t used = 0;
                point.cycles.push_back(std::stod(token, &used));
                if (used != token.size()) throw std::invalid_argument("trailing characters");
            } catch (const std::exception&) {
                fail(source, number, "latency '" + token + "' is not a number");
            }
        }
        if (point.cycles.empty()) fail(source, number, "row has no latency samples");
        if (!sweep.points.empty() && point.footprint_bytes <= sweep.points.back().footprint_bytes)
            fail(source, number, "footprints must ascend");
        sweep.points.push_back(std::move(point));
    }
    if (!header_seen) fail(source, number, "missing header 'footprint_bytes,cycles'");
    return sweep;
}

analysis::Sweep read_sweep_csv(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file.string() + ": cannot open sweep file");
    return read_sweep_csv(in, file.string());
}

}  // namespace gpu_topology::stages
