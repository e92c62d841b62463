// stencil3d: the 25-point star stencil with the launch gpu_topology.hpp chooses: the block shape and
// folding, and for a kernel with shared memory of its own (--shared-bytes) the carveout with them.
//
//   stencil3d                 run the chosen launch on each grid, check it, print GLup/s
//   stencil3d --tune          time the header's short list (star_stencil_launch_shortlist) on each grid and
//                             run the fastest, as a kernel that can afford a few timed launches would
//   stencil3d --check         check the chosen launch, its foldings and the common defaults against the
//                             reference (exit 77 without a GPU)
//   stencil3d --search        time every launch: each block shape X*Y*Z = threads (1024 unless --threads;
//                             powers of two, Z <= 64), unfolded and folded 2y / 2z, at each carveout the header
//                             offers this kernel on the front of resident blocks and L1 (an option with no more
//                             blocks and no more L1 than another is timed with the fastest shapes only); then the
//                             chosen, the tuned, the default launch and the 4 fastest others again, in turn
//                             (7 rounds), and compare those medians ("confirmed"). The short list is tuned first,
//                             as --tune does.
//   options: --grid NX NY NZ (repeatable; replaces the default grids), --csv FILE (--search),
//            --repeats N (timed runs per launch, median reported; default 7),
//            --threads N (threads per block, a power of two from 64 to 1024; default 1024),
//            --shared-bytes S (each block also takes S bytes of dynamic shared memory, unused, as a kernel that
//            stages tiles would: the carveouts and what each leaves come from the header,
//            gpu_topology::carveout_options_for), --min-x N (--search: shapes at least N wide only)
#include "launch.cuh"
#include "stencil.cuh"

#include <gpu_topology/stencil.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr std::uint32_t kDefaultThreadsPerBlock = 1024;

using gpu_topology::carveout_option;
using gpu_topology::stencil_block;
using gpu_topology::stencil_launch;

// Weights of a typical discretisation: c0 and c1..c4 of an 8th-order Laplacian.
constexpr Coefficients kCoefficients{{-3 * 205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560}};

__global__ void fill_random(double* data, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = random_value(i);
}

// Largest |a - b| over the updated points, as the bits of a non-negative double (their order is the values').
__global__ void max_difference(const double* a, const double* b, Grid g, unsigned long long* result) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= g.nx) return;
    const std::size_t p = g.index(x, y, z);
    atomicMax(result, __double_as_longlong(fabs(a[p] - b[p])));
}

// Gathers data[at[i]] into out[i]: the points the host checks, without copying the whole grid.
__global__ void gather(const double* data, const std::size_t* at, double* out, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = data[at[i]];
}

std::string describe(const stencil_block& b) {
    std::string s = "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
    if (b.fold_y > 1) s += " fold " + std::to_string(b.fold_y) + "y";
    if (b.fold_z > 1) s += " fold " + std::to_string(b.fold_z) + "z";
    return s;
}
std::string describe(const carveout_option& o) {
    const std::string where = o.left_to_driver() ? "driver's carveout" : "carveout " + std::to_string(o.carveout_percent) + " %";
    return where + " (" + std::to_string(o.resident_blocks) + " blocks, " + std::to_string(o.l1_bytes / 1024) + " KiB L1" +
           (o.measured ? "" : ", bounds") + ")";
}
std::string describe(const stencil_launch& l) { return describe(l.block) + " at " + describe(l.option); }

gpu_topology::grid_extent extent(const Grid& g) { return {std::uint64_t(g.nx), std::uint64_t(g.ny), std::uint64_t(g.nz)}; }

// The launches a run makes: threads per block, dynamic shared memory per block, the machine the
// chooser reasons about, the carveouts the header offers such a kernel, and the resident blocks the
// occupancy API reports at each (beside the header's rows).
struct KernelSetup {
    std::uint32_t threads;
    std::uint32_t shared_bytes;
    gpu_topology::stencil_machine machine;
    gpu_topology::carveout_options options;
    std::vector<int> api_blocks;  // per option
    const carveout_option& driver() const { return *options.left_to_driver(); }
    stencil_launch default_launch() const { return {driver(), gpu_topology::default_stencil_block(threads)}; }
    int api_blocks_of(const carveout_option& o) const {
        for (std::uint32_t i = 0; i < options.count; ++i)
            if (options.options[i].carveout_percent == o.carveout_percent) return api_blocks[i];
        return -1;
    }
};

std::string model_text(const stencil_launch& l, const Grid& g, const KernelSetup& k) {
    const auto t = gpu_topology::star_stencil_traffic<double>(l.block, extent(g), kRadius,
                                                              gpu_topology::at_option(k.machine, l.option, k.threads));
    char text[240];
    std::snprintf(text, sizeof text,
                  "model: %.1f GLup/s, L2 %.1f B/update, DRAM %.1f B/update, layer condition y %s z %s, tiles %s L1, "
                  "occupancy x%.2f",
                  1e-9 / t.seconds_per_update, t.l2_bytes_per_update, t.dram_bytes_per_update,
                  t.layer_condition_y ? "met" : "not met", t.layer_condition_z ? "met" : "not met",
                  t.tile_fits_l1 ? "fit" : "exceed", t.occupancy_factor);
    return text;
}

struct Problem {
    Grid grid;
    std::uint32_t shared_bytes;  // dynamic shared memory each block of the timed kernel takes
    std::unique_ptr<double[], CudaFree> in, out, reference;
    std::unique_ptr<unsigned long long[], CudaFree> difference;

    Problem(Grid g, std::uint32_t shared)
        : grid(g),
          shared_bytes(shared),
          in(device_array<double>(g.points_with_halo())),
          out(device_array<double>(g.points_with_halo())),
          reference(device_array<double>(g.points_with_halo())),
          difference(device_array<unsigned long long>(1)) {
        fill_random<<<1024, 256>>>(in.get(), g.points_with_halo());
        check(cudaGetLastError(), "fill_random");
        const dim3 threads(32, 4, 4);
        const dim3 blocks((g.nx + 31) / 32, (g.ny + 3) / 4, (g.nz + 3) / 4);
        star25_reference<<<blocks, threads>>>(in.get(), reference.get(), g, kCoefficients);
        check(cudaGetLastError(), "star25_reference");
        check_reference_on_host();
    }

    // The GPU reference against the formula evaluated on the host, at points spread over the grid and its faces.
    void check_reference_on_host() {
        constexpr std::size_t kPoints = 20000;
        std::vector<std::size_t> at(kPoints);
        std::vector<int> px(kPoints), py(kPoints), pz(kPoints);
        for (std::size_t i = 0; i < kPoints; ++i) {
            px[i] = int(i * 7919 % grid.nx), py[i] = int(i * 104729 % grid.ny), pz[i] = int(i * 1299709 % grid.nz);
            at[i] = grid.index(px[i], py[i], pz[i]);
        }
        auto where = device_array<std::size_t>(kPoints);
        auto values = device_array<double>(kPoints);
        check(cudaMemcpy(where.get(), at.data(), kPoints * sizeof(std::size_t), cudaMemcpyHostToDevice), "cudaMemcpy");
        gather<<<64, 256>>>(reference.get(), where.get(), values.get(), kPoints);
        check(cudaGetLastError(), "gather");
        std::vector<double> got(kPoints);
        check(cudaMemcpy(got.data(), values.get(), kPoints * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
        const auto in_at = [&](int x, int y, int z) { return random_value(grid.index(x, y, z)); };
        double worst = 0;
        for (std::size_t i = 0; i < kPoints; ++i) {
            const int x = px[i], y = py[i], z = pz[i];
            double sum = kCoefficients.c[0] * in_at(x, y, z);
            for (int r = 1; r <= kRadius; ++r)
                sum += kCoefficients.c[r] * ((in_at(x - r, y, z) + in_at(x + r, y, z)) +
                                             (in_at(x, y - r, z) + in_at(x, y + r, z)) +
                                             (in_at(x, y, z - r) + in_at(x, y, z + r)));
            worst = std::max(worst, std::fabs(sum - got[i]));
        }
        if (!(worst <= 1e-12)) throw std::runtime_error("the GPU reference differs from the host by " + std::to_string(worst));
    }

    void run(const stencil_launch& l) { launch(l, in.get(), out.get(), grid, kCoefficients, shared_bytes); }

    // Largest difference between the launch's result and the reference.
    double error_of(const stencil_launch& l) {
        check(cudaMemset(out.get(), 0, grid.points_with_halo() * sizeof(double)), "cudaMemset");
        run(l);
        check(cudaMemset(difference.get(), 0, sizeof(unsigned long long)), "cudaMemset");
        max_difference<<<dim3((grid.nx + 255) / 256, grid.ny, grid.nz), 256>>>(out.get(), reference.get(), grid,
                                                                              difference.get());
        check(cudaGetLastError(), "max_difference");
        unsigned long long bits = 0;
        check(cudaMemcpy(&bits, difference.get(), sizeof bits, cudaMemcpyDeviceToHost), "cudaMemcpy");
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }

    // Median GLup/s of `repeats` timed runs after `warmups` untimed ones.
    double glups(const stencil_launch& l, int repeats, int warmups = 2) {
        for (int i = 0; i < warmups; ++i) run(l);
        std::vector<double> ms;
        Event begin, end;
        for (int i = 0; i < repeats; ++i) {
            check(cudaEventRecord(begin.get()), "cudaEventRecord");
            run(l);
            check(cudaEventRecord(end.get()), "cudaEventRecord");
            check(cudaEventSynchronize(end.get()), "cudaEventSynchronize");
            float t = 0;
            check(cudaEventElapsedTime(&t, begin.get(), end.get()), "cudaEventElapsedTime");
            ms.push_back(t);
        }
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        return double(grid.updates()) / (ms[ms.size() / 2] * 1e6);
    }

    // Keeps the GPU busy for about `seconds` with the reference kernel: a card idles at a low clock,
    // and the first timings would otherwise see it rise.
    void warm_up(double seconds) {
        const auto begin = std::chrono::steady_clock::now();
        const dim3 threads(32, 4, 4), blocks((grid.nx + 31) / 32, (grid.ny + 3) / 4, (grid.nz + 3) / 4);
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() < seconds) {
            for (int i = 0; i < 10; ++i) star25_reference<<<blocks, threads>>>(in.get(), out.get(), grid, kCoefficients);
            check(cudaGetLastError(), "star25_reference");
            check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        }
    }
};

// The GPU warms up once per run, on the first grid.
constexpr double kWarmUpSeconds = 0.3;
bool warmed_up = false;
void warm_up_once(Problem& p) {
    if (!warmed_up) p.warm_up(kWarmUpSeconds);
    warmed_up = true;
}

std::vector<stencil_block> every_block(std::uint32_t threads, std::uint32_t min_x) {
    std::vector<stencil_block> blocks;
    for (std::uint32_t x = 1; x <= threads; x *= 2)
        for (std::uint32_t y = 1; x * y <= threads; y *= 2) {
            const std::uint32_t z = threads / (x * y);
            if (z > 64 || x < min_x) continue;
            for (const auto [fy, fz] : {std::pair{1u, 1u}, std::pair{2u, 1u}, std::pair{1u, 2u}})
                blocks.push_back({x, y, z, fy, fz});
        }
    return blocks;
}

// Common block shapes a user might pick by hand (each at the driver's carveout when checked).
const stencil_block kDefaults[] = {{8, 8, 8}, {16, 16, 4}, {32, 32, 1}};

stencil_launch chosen_launch(const Grid& g, const KernelSetup& k) {
    return gpu_topology::choose_star_stencil_launch<double>(extent(g), kRadius, k.threads, k.options, k.machine);
}

int run_check(const std::vector<Grid>& grids, const KernelSetup& k) {
    int failures = 0;
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        const stencil_launch chosen = chosen_launch(g, k);
        const stencil_block b = chosen.block;
        std::vector<stencil_launch> launches{chosen, {chosen.option, {b.x, b.y, b.z}}};
        if (b.z % 2 == 0) launches.push_back({chosen.option, {b.x, b.y, b.z / 2, 1, 2}});
        if (b.y % 2 == 0) launches.push_back({chosen.option, {b.x, b.y / 2, b.z, 2, 1}});
        launches.push_back(k.default_launch());
        for (const auto& d : kDefaults) launches.push_back({k.driver(), d});
        for (const auto& l : launches) {
            const double error = problem.error_of(l);
            const bool ok = error <= 1e-12;
            failures += !ok;
            std::printf("%dx%dx%d %-48s max |error| %.2e %s\n", g.nx, g.ny, g.nz, describe(l).c_str(), error,
                        ok ? "ok" : "WRONG");
        }
    }
    return failures == 0 ? 0 : 1;
}

// The short list's fastest launch on one grid, as a kernel would tune itself: every listed launch that
// computes right is timed in turn, kTuneRounds rounds of `repeats` launches each; a launch's rate is
// the median of its rounds, and the launch of the highest rate is kept. Rounds in turn, so that a slow
// moment of the GPU falls on every launch alike.
constexpr int kTuneRounds = 3;

struct Tuned {
    stencil_launch launch;
    double glups = 0;
    std::uint32_t listed = 0;
    std::uint32_t wrong = 0;  // listed but computing wrong results: not timed
    double seconds = 0;       // wall time of the tuning, every check and launch included
};

Tuned tune(Problem& problem, const Grid& g, int repeats, const KernelSetup& k) {
    const auto begin = std::chrono::steady_clock::now();
    const auto list = gpu_topology::star_stencil_launch_shortlist<double>(extent(g), kRadius, k.threads, k.options, k.machine);
    if (list.count == 0) throw std::runtime_error("the header's short list is empty");
    Tuned best{list.launches[0], 0, list.count};
    std::vector<stencil_launch> right;
    for (std::uint32_t i = 0; i < list.count; ++i) {
        if (problem.error_of(list.launches[i]) <= 1e-12) {
            right.push_back(list.launches[i]);
        } else {
            ++best.wrong;
            std::fprintf(stderr, "%dx%dx%d %s: wrong results, not tuned\n", g.nx, g.ny, g.nz, describe(list.launches[i]).c_str());
        }
    }
    if (right.empty()) throw std::runtime_error("every launch of the short list computes wrong results");
    std::vector<std::vector<double>> rounds(right.size());
    for (int r = 0; r < kTuneRounds; ++r)
        for (std::size_t i = 0; i < right.size(); ++i) rounds[i].push_back(problem.glups(right[i], repeats));
    for (std::size_t i = 0; i < right.size(); ++i) {
        std::nth_element(rounds[i].begin(), rounds[i].begin() + rounds[i].size() / 2, rounds[i].end());
        if (const double median = rounds[i][rounds[i].size() / 2]; median > best.glups) {
            best.launch = right[i];
            best.glups = median;
        }
    }
    best.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return best;
}

int run_tuned(const std::vector<Grid>& grids, int repeats, const KernelSetup& k) {
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        warm_up_once(problem);
        const Tuned tuned = tune(problem, g, repeats, k);  // times only launches whose results it checked
        std::printf("%dx%dx%d: %s, %.1f GLup/s, the fastest of %u listed launches (%u wrong) in %.0f ms; "
                    "the model's pick %s\n",
                    g.nx, g.ny, g.nz, describe(tuned.launch).c_str(), tuned.glups, tuned.listed, tuned.wrong,
                    tuned.seconds * 1e3, describe(chosen_launch(g, k)).c_str());
    }
    return 0;
}

int run_chosen(const std::vector<Grid>& grids, int repeats, const KernelSetup& k) {
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        warm_up_once(problem);
        const stencil_launch chosen = chosen_launch(g, k);
        const double error = problem.error_of(chosen);
        if (!(error <= 1e-12)) throw std::runtime_error("the chosen launch computes wrong results: " + std::to_string(error));
        std::printf("%dx%dx%d: %s, %.1f GLup/s (checked: max |error| %.1e)\n  %s\n", g.nx, g.ny, g.nz,
                    describe(chosen).c_str(), problem.glups(chosen, repeats), error, model_text(chosen, g, k).c_str());
    }
    return 0;
}

// One pass over hundreds of launches leans high at its top: its best is the largest of hundreds of
// medians, so a launch that ran fast once by chance stands first. The chosen launch, the tuned one,
// the default launch and the kConfirmShapes fastest others are therefore timed again, one after
// another, kConfirmRounds rounds: each one's confirmed rate is the median of its rounds, and the
// "confirmed" ratios compare those alone.
constexpr std::size_t kConfirmShapes = 4;
constexpr int kConfirmRounds = 7;
// An option dominated by another (no more blocks, no more L1) is timed with this many of the fastest
// shapes of the others, and the chosen and tuned blocks: enough to see whether the front misses a launch.
constexpr std::size_t kDominatedShapes = 4;

struct Timed {
    stencil_launch launch;
    bool front = true;  // its option is on the front: every shape was timed at it
    double glups = 0;
    double confirmed = 0;  // 0: not confirmed
};

struct Search {
    std::vector<Timed> timed;
    Timed* find(const stencil_launch& l) {
        for (auto& t : timed)
            if (t.launch == l) return &t;
        return nullptr;
    }
    const Timed& best_by(double Timed::*field) const {
        return *std::max_element(timed.begin(), timed.end(), [&](const Timed& a, const Timed& b) { return a.*field < b.*field; });
    }
};

void write_csv_header(std::ofstream& csv) {
    csv << "grid,shared_bytes,threads,carveout,resident_blocks,api_resident_blocks,l1_bytes,option_measured,front,"
           "x,y,z,fold_y,fold_z,glups,model_glups,model_l2_bytes,model_dram_bytes,layer_y,layer_z,fits_l1,"
           "l1_reuse_lost,chosen,tuned,default_launch,confirmed_glups\n";
}

int run_search(const std::vector<Grid>& grids, int repeats, const std::string& csv_path, const KernelSetup& k,
               std::uint32_t min_x) {
    std::ofstream csv;
    if (!csv_path.empty()) {
        csv.open(csv_path);
        if (!csv) throw std::runtime_error(csv_path + ": cannot write");
        write_csv_header(csv);
    }
    const auto blocks = every_block(k.threads, min_x);
    std::vector<carveout_option> front, dominated;
    for (std::uint32_t i = 0; i < k.options.count; ++i) {
        bool beaten = false;
        for (std::uint32_t j = 0; j < k.options.count; ++j)
            beaten = beaten || gpu_topology::dominated(k.options.options[i], k.options.options[j]);
        (beaten ? dominated : front).push_back(k.options.options[i]);
    }
    bool any_wrong = false;  // a wrong result fails the search, after every grid has been searched
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        warm_up_once(problem);
        const stencil_launch chosen = chosen_launch(g, k), common = k.default_launch();
        const std::string name = std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
        const Tuned tuned = tune(problem, g, repeats, k);  // first, as a kernel would, before any launch is searched
        // Each block's results once: the carveout changes where the data sits, not what is computed.
        std::vector<stencil_block> right;
        int wrong = 0;
        const auto computes_right = [&](const stencil_block& b) {
            const double error = problem.error_of({k.driver(), b});
            if (error <= 1e-12) return true;
            std::fprintf(stderr, "%s %s: max |error| %.2e\n", name.c_str(), describe(b).c_str(), error);
            return false;
        };
        for (const auto& b : blocks) {
            if (computes_right(b)) right.push_back(b);
            else ++wrong;
        }
        // One untimed launch where the carveout changes (the SM's split is set anew), then each block's runs.
        Search s;
        for (const auto& o : front) {
            int warmups = 1;
            for (const auto& b : right) {
                s.timed.push_back({{o, b}, true, problem.glups({o, b}, repeats, warmups)});
                warmups = 0;
            }
        }
        if (s.timed.empty()) {
            std::fprintf(stderr, "grid %s: every shape computed wrong results\n", name.c_str());
            any_wrong = true;
            continue;
        }
        // The dominated options, with the fastest blocks of the front and the chosen and tuned blocks.
        std::vector<stencil_block> fastest;
        {
            std::vector<const Timed*> by_rate;
            for (const auto& t : s.timed) by_rate.push_back(&t);
            std::sort(by_rate.begin(), by_rate.end(), [](const Timed* a, const Timed* b) { return a->glups > b->glups; });
            for (const Timed* t : by_rate)
                if (fastest.size() < kDominatedShapes &&
                    std::find(fastest.begin(), fastest.end(), t->launch.block) == fastest.end())
                    fastest.push_back(t->launch.block);
            for (const auto& b : {chosen.block, tuned.launch.block})
                if (std::find(fastest.begin(), fastest.end(), b) == fastest.end()) fastest.push_back(b);
        }
        const auto time_launch = [&](const stencil_launch& l, bool on_front) {
            if (s.find(l)) return;
            const bool known = std::find(right.begin(), right.end(), l.block) != right.end();
            if (!known && !computes_right(l.block)) {  // a block the search left out (--min-x) and wrong
                ++wrong;
                return;
            }
            if (!known) right.push_back(l.block);
            s.timed.push_back({l, on_front, problem.glups(l, repeats, 1)});
        };
        for (const auto& o : dominated)
            for (const auto& b : fastest) time_launch({o, b}, false);
        // The chosen, tuned and default launches, wherever they lie.
        for (const auto& l : {chosen, tuned.launch, common}) time_launch(l, false);

        // The confirmation: the chosen, tuned and default launches and the fastest others, in turn, round after round.
        std::vector<Timed*> confirm;
        {
            std::vector<Timed*> by_rate;
            for (auto& t : s.timed) by_rate.push_back(&t);
            std::sort(by_rate.begin(), by_rate.end(), [](const Timed* a, const Timed* b) { return a->glups > b->glups; });
            for (const auto& l : {chosen, tuned.launch, common})
                if (Timed* t = s.find(l); t && std::find(confirm.begin(), confirm.end(), t) == confirm.end()) confirm.push_back(t);
            const std::size_t named = confirm.size();
            for (Timed* t : by_rate)
                if (confirm.size() < named + kConfirmShapes && std::find(confirm.begin(), confirm.end(), t) == confirm.end())
                    confirm.push_back(t);
        }
        std::vector<std::vector<double>> rounds(confirm.size());
        for (int r = 0; r < kConfirmRounds; ++r)
            for (std::size_t i = 0; i < confirm.size(); ++i) rounds[i].push_back(problem.glups(confirm[i]->launch, repeats, 1));
        for (std::size_t i = 0; i < confirm.size(); ++i) {
            std::nth_element(rounds[i].begin(), rounds[i].begin() + rounds[i].size() / 2, rounds[i].end());
            confirm[i]->confirmed = rounds[i][rounds[i].size() / 2];
        }

        const auto rate_of = [&](const stencil_launch& l, double Timed::*field) {
            const Timed* t = s.find(l);
            return t ? t->*field : 0.0;
        };
        if (csv)
            for (const auto& t : s.timed) {
                const auto& [o, b] = t.launch;
                const auto traffic = gpu_topology::star_stencil_traffic<double>(
                    b, extent(g), kRadius, gpu_topology::at_option(k.machine, o, k.threads));
                csv << name << ',' << k.shared_bytes << ',' << k.threads << ',' << o.carveout_percent << ','
                    << o.resident_blocks << ',' << k.api_blocks_of(o) << ',' << o.l1_bytes << ',' << o.measured << ','
                    << t.front << ',' << b.x << ',' << b.y << ',' << b.z << ',' << b.fold_y << ',' << b.fold_z << ','
                    << t.glups << ',' << 1e-9 / traffic.seconds_per_update << ',' << traffic.l2_bytes_per_update << ','
                    << traffic.dram_bytes_per_update << ',' << traffic.layer_condition_y << ','
                    << traffic.layer_condition_z << ',' << traffic.tile_fits_l1 << ',' << traffic.l1_reuse_lost << ','
                    << (t.launch == chosen) << ',' << (t.launch == tuned.launch) << ',' << (t.launch == common) << ',';
                if (t.confirmed > 0) csv << t.confirmed;
                csv << '\n';
            }
        csv.flush();  // a search stopped later keeps this grid
        const Timed& best = s.best_by(&Timed::glups);
        const Timed& best_confirmed = s.best_by(&Timed::confirmed);
        const double chosen_rate = rate_of(chosen, &Timed::glups), chosen_confirmed = rate_of(chosen, &Timed::confirmed);
        const double common_confirmed = rate_of(common, &Timed::confirmed);
        std::printf("grid %s (%u B shared, %u threads: %zu launches over %zu carveouts, %d wrong)\n", name.c_str(),
                    k.shared_bytes, k.threads, s.timed.size(), front.size() + dominated.size(), wrong);
        std::printf("  chosen %-52s %7.1f GLup/s   %s\n", describe(chosen).c_str(), chosen_rate, model_text(chosen, g, k).c_str());
        std::printf("  best   %-52s %7.1f GLup/s   chosen/best = %.3f\n", describe(best.launch).c_str(), best.glups,
                    chosen_rate / best.glups);
        std::printf("  confirmed (%zu launches, %d rounds): chosen %.1f, best %s %.1f GLup/s   confirmed chosen/best = %.3f\n",
                    confirm.size(), kConfirmRounds, chosen_confirmed, describe(best_confirmed.launch).c_str(),
                    best_confirmed.confirmed, chosen_confirmed / best_confirmed.confirmed);
        std::printf("  default %-51s %7.1f GLup/s confirmed   chosen/default = %.3f   confirmed default/best = %.3f\n",
                    describe(common).c_str(), common_confirmed, chosen_confirmed / common_confirmed,
                    common_confirmed / best_confirmed.confirmed);
        std::printf("  tuned %-53s (fastest of %u listed, %u wrong, %.0f ms) confirmed %.1f GLup/s   "
                    "confirmed tuned/best = %.3f\n",
                    describe(tuned.launch).c_str(), tuned.listed, tuned.wrong, tuned.seconds * 1e3,
                    rate_of(tuned.launch, &Timed::confirmed),
                    rate_of(tuned.launch, &Timed::confirmed) / best_confirmed.confirmed);
        std::fflush(stdout);
        any_wrong = any_wrong || wrong > 0;
    }
    return any_wrong ? 1 : 0;
}

bool power_of_two(long v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string mode = "run", csv;
        int repeats = 7;
        std::uint32_t threads = kDefaultThreadsPerBlock, shared_bytes = 0, min_x = 1;
        std::vector<Grid> grids;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--check" || a == "--search" || a == "--tune") {
                mode = a.substr(2);
            } else if (a == "--csv" && i + 1 < argc) {
                csv = argv[++i];
            } else if (a == "--threads" && i + 1 < argc) {
                const long t = std::atol(argv[++i]);
                if (t < 64 || t > 1024 || !power_of_two(t)) {
                    std::fprintf(stderr, "stencil3d: --threads needs a power of two from 64 to 1024, not %s\n", argv[i]);
                    return 2;
                }
                threads = static_cast<std::uint32_t>(t);
            } else if (a == "--shared-bytes" && i + 1 < argc) {
                const long bytes = std::atol(argv[++i]);
                if (bytes < 0 || bytes > 227 * 1024) {
                    std::fprintf(stderr, "stencil3d: --shared-bytes needs 0 to 232448 bytes, not %s\n", argv[i]);
                    return 2;
                }
                shared_bytes = static_cast<std::uint32_t>(bytes);
            } else if (a == "--min-x" && i + 1 < argc) {
                const long x = std::atol(argv[++i]);
                if (!power_of_two(x) || x > 1024) {
                    std::fprintf(stderr, "stencil3d: --min-x needs a power of two from 1 to 1024, not %s\n", argv[i]);
                    return 2;
                }
                min_x = static_cast<std::uint32_t>(x);
            } else if (a == "--repeats" && i + 1 < argc) {
                repeats = std::max(1, std::atoi(argv[++i]));
            } else if (a == "--grid" && i + 3 < argc) {
                Grid g{std::atoi(argv[i + 1]), std::atoi(argv[i + 2]), std::atoi(argv[i + 3])};
                i += 3;
                if (g.nx < 1 || g.ny < 2 || g.nz < 2 || g.ny % 2 || g.nz % 2) {
                    std::fprintf(stderr, "stencil3d: --grid needs NX >= 1 and even NY, NZ >= 2\n");
                    return 2;
                }
                grids.push_back(g);
            } else {
                std::fprintf(stderr, "stencil3d: unknown argument %s (see the comment at the top of main.cu)\n", a.c_str());
                return 2;
            }
        }
        int devices = 0;
        if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
            std::fprintf(stderr, "stencil3d: no CUDA device\n");
            return kNoGpu;
        }
        if (grids.empty()) {
            // One grid whose xy planes of tiles fit near L2 (the layer condition holds), and ones whose planes do not.
            grids = mode == "check" ? std::vector<Grid>{{128, 96, 64}, {64, 64, 64}}
                                    : std::vector<Grid>{{256, 256, 256}, {512, 512, 512}, {1024, 1024, 128}};
        }
        allow_dynamic_shared(shared_bytes);
        KernelSetup setup{threads, shared_bytes, gpu_topology::this_gpu(), gpu_topology::carveout_options_for(threads, shared_bytes), {}};
        if (setup.options.count == 0 || !setup.options.left_to_driver()) {
            std::fprintf(stderr, "stencil3d: blocks of %u threads with %u B of shared memory do not fit an SM\n", threads,
                         shared_bytes);
            return 2;
        }
        namespace gt = gpu_topology;
        std::printf("gpu_topology.hpp: %s, L1 %llu B, near L2 %llu B, L2 %.2f TB/s, DRAM %.2f TB/s, %u SMs\n",
                    gt::identity.device_name, static_cast<unsigned long long>(gt::l1.size_bytes),
                    static_cast<unsigned long long>(gt::l2.near_size_bytes), double(gt::l2.bandwidth_bytes_per_s) / 1e12,
                    double(gt::dram.bandwidth_bytes_per_s) / 1e12, static_cast<unsigned>(gt::device.sm_count));
        std::printf("blocks of %u threads with %u B of shared memory: the header's carveouts, and the resident blocks the "
                    "occupancy API reports\n", threads, shared_bytes);
        for (std::uint32_t i = 0; i < setup.options.count; ++i) {
            const carveout_option& o = setup.options.options[i];
            setup.api_blocks.push_back(api_resident_blocks(o, threads, shared_bytes));
            std::printf("  %-50s occupancy API: %d blocks%s\n", describe(o).c_str(), setup.api_blocks.back(),
                        setup.api_blocks.back() == int(o.resident_blocks) ? "" : "  (differs from the header's rows)");
        }
        if (mode == "check") return run_check(grids, setup);
        if (mode == "search") return run_search(grids, repeats, csv, setup, min_x);
        if (mode == "tune") return run_tuned(grids, repeats, setup);
        return run_chosen(grids, repeats, setup);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stencil3d: %s\n", e.what());
        return 1;
    }
}
