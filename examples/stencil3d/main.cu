// stencil3d: the 25-point star stencil with the block shape gpu_topology.hpp chooses.
//
//   stencil3d                 run the chosen shape on each grid, check it, print GLup/s
//   stencil3d --tune          time the header's short list (star_stencil_shortlist) on each grid and run the
//                             fastest, as a kernel that can afford a few timed launches would
//   stencil3d --check         check the chosen shape, its foldings and the common defaults
//                             against the reference (exit 77 without a GPU)
//   stencil3d --search        time every block shape X*Y*Z = threads (1024 unless --threads; powers of two, Z <= 64),
//                             unfolded and folded 2y / 2z, and compare with the chosen one;
//                             then time the chosen and the 4 fastest others again, in turn
//                             (7 rounds), and compare those medians ("confirmed"); the short list is tuned
//                             first, as --tune does, and its pick confirmed beside them ("tuned")
//   options: --grid NX NY NZ (repeatable; replaces the default grids), --csv FILE (--search),
//            --repeats N (timed runs per shape, median reported; default 7),
//            --threads N (threads per block, a power of two from 64 to 1024; default 1024),
//            --shared-bytes S (each block also takes S bytes of dynamic shared memory, unused, as a
//            kernel that stages tiles would: the driver then leaves less L1, and the chooser is given
//            the L1 the header measured for that kind of launch, l1_bytes_at(0, threads, S))
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

constexpr int kNoGpu = 77;
constexpr std::uint32_t kDefaultThreadsPerBlock = 1024;

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}
void check_launch(const char* kernel) {
    check(cudaGetLastError(), kernel);
}

struct CudaFree {
    void operator()(void* p) const { cudaFree(p); }
};
template <typename T>
std::unique_ptr<T[], CudaFree> device_array(std::size_t count) {
    void* p = nullptr;
    check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    return std::unique_ptr<T[], CudaFree>(static_cast<T*>(p));
}

class Event {
public:
    Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_{};
};

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

using gpu_topology::stencil_block;

std::string describe(const stencil_block& b) {
    std::string s = "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
    if (b.fold_y > 1) s += " fold " + std::to_string(b.fold_y) + "y";
    if (b.fold_z > 1) s += " fold " + std::to_string(b.fold_z) + "z";
    return s;
}

void launch(const stencil_block& b, const double* in, double* out, const Grid& g, std::uint32_t shared_bytes) {
    const dim3 threads(b.x, b.y, b.z);
    const dim3 blocks((g.nx + b.tile_x() - 1) / b.tile_x(), (g.ny + b.tile_y() - 1) / b.tile_y(),
                      (g.nz + b.tile_z() - 1) / b.tile_z());
    if (b.fold_z == 2)
        star25<2, true><<<blocks, threads, shared_bytes>>>(in, out, g, kCoefficients);
    else if (b.fold_y == 2)
        star25<2, false><<<blocks, threads, shared_bytes>>>(in, out, g, kCoefficients);
    else if (b.fold_y == 1 && b.fold_z == 1)
        star25<1, false><<<blocks, threads, shared_bytes>>>(in, out, g, kCoefficients);
    else
        throw std::invalid_argument("folding " + describe(b) + " is not built");
    check_launch("star25");
}

// Every kernel runs at carveout 0: without --shared-bytes no shared memory and the largest L1 (the
// chooser's l1.size_bytes); with it, each block also takes its shared memory out of the carveout.
void prefer_l1(std::uint32_t shared_bytes) {
    for (const void* kernel : {reinterpret_cast<const void*>(star25<1, false>), reinterpret_cast<const void*>(star25<2, false>),
                               reinterpret_cast<const void*>(star25<2, true>)}) {
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0), "carveout");
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)),
              "dynamic shared memory size");
    }
}

// The launches a run makes: threads per block, dynamic shared memory per block, and the machine the
// chooser reasons about (the header's, with the L1 measured for such a launch).
struct KernelSetup {
    std::uint32_t threads;
    std::uint32_t shared_bytes;
    gpu_topology::stencil_machine machine;
};

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
        check_launch("fill_random");
        const dim3 threads(32, 4, 4);
        const dim3 blocks((g.nx + 31) / 32, (g.ny + 3) / 4, (g.nz + 3) / 4);
        star25_reference<<<blocks, threads>>>(in.get(), reference.get(), g, kCoefficients);
        check_launch("star25_reference");
        check_reference_on_host();
    }

    // The GPU reference against the formula evaluated on the host, at points spread over the grid and its faces.
    void check_reference_on_host() {
        std::vector<double> got(grid.points_with_halo());
        check(cudaMemcpy(got.data(), reference.get(), got.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
        const auto in_at = [&](int x, int y, int z) { return random_value(grid.index(x, y, z)); };
        double worst = 0;
        for (std::uint64_t i = 0; i < 20000; ++i) {
            const int x = int(i * 7919 % grid.nx), y = int(i * 104729 % grid.ny), z = int(i * 1299709 % grid.nz);
            double sum = kCoefficients.c[0] * in_at(x, y, z);
            for (int r = 1; r <= kRadius; ++r)
                sum += kCoefficients.c[r] * ((in_at(x - r, y, z) + in_at(x + r, y, z)) +
                                             (in_at(x, y - r, z) + in_at(x, y + r, z)) +
                                             (in_at(x, y, z - r) + in_at(x, y, z + r)));
            worst = std::max(worst, std::fabs(sum - got[grid.index(x, y, z)]));
        }
        if (!(worst <= 1e-12)) throw std::runtime_error("the GPU reference differs from the host by " + std::to_string(worst));
    }

    // Largest difference between `b`'s result and the reference.
    double error_of(const stencil_block& b) {
        check(cudaMemset(out.get(), 0, grid.points_with_halo() * sizeof(double)), "cudaMemset");
        launch(b, in.get(), out.get(), grid, shared_bytes);
        check(cudaMemset(difference.get(), 0, sizeof(unsigned long long)), "cudaMemset");
        max_difference<<<dim3((grid.nx + 255) / 256, grid.ny, grid.nz), 256>>>(out.get(), reference.get(), grid,
                                                                              difference.get());
        check_launch("max_difference");
        unsigned long long bits = 0;
        check(cudaMemcpy(&bits, difference.get(), sizeof bits, cudaMemcpyDeviceToHost), "cudaMemcpy");
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }

    // Median GLup/s of `repeats` timed runs after two warm-up runs.
    double glups(const stencil_block& b, int repeats) {
        for (int i = 0; i < 2; ++i) launch(b, in.get(), out.get(), grid, shared_bytes);
        std::vector<double> ms;
        Event begin, end;
        for (int i = 0; i < repeats; ++i) {
            check(cudaEventRecord(begin.get()), "cudaEventRecord");
            launch(b, in.get(), out.get(), grid, shared_bytes);
            check(cudaEventRecord(end.get()), "cudaEventRecord");
            check(cudaEventSynchronize(end.get()), "cudaEventSynchronize");
            float t = 0;
            check(cudaEventElapsedTime(&t, begin.get(), end.get()), "cudaEventElapsedTime");
            ms.push_back(t);
        }
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        return double(grid.updates()) / (ms[ms.size() / 2] * 1e6);
    }
};

std::vector<stencil_block> every_block(std::uint32_t threads) {
    std::vector<stencil_block> blocks;
    for (std::uint32_t x = 1; x <= threads; x *= 2)
        for (std::uint32_t y = 1; x * y <= threads; y *= 2) {
            const std::uint32_t z = threads / (x * y);
            if (z > 64) continue;
            for (const auto [fy, fz] : {std::pair{1u, 1u}, std::pair{2u, 1u}, std::pair{1u, 2u}})
                blocks.push_back({x, y, z, fy, fz});
        }
    return blocks;
}

const stencil_block kDefaults[] = {{8, 8, 8}, {16, 16, 4}, {32, 32, 1}};

gpu_topology::grid_extent extent(const Grid& g) { return {std::uint64_t(g.nx), std::uint64_t(g.ny), std::uint64_t(g.nz)}; }

std::string model_text(const stencil_block& b, const Grid& g) {
    const auto t = gpu_topology::star_stencil_traffic<double>(b, extent(g), kRadius);
    char text[160];
    std::snprintf(text, sizeof text, "model: L2 %.1f B/update, DRAM %.1f B/update, layer condition y %s z %s, tile %s L1",
                  t.l2_bytes_per_update, t.dram_bytes_per_update, t.layer_condition_y ? "met" : "not met",
                  t.layer_condition_z ? "met" : "not met", t.tile_fits_l1 ? "fits" : "exceeds");
    return text;
}

int run_check(const std::vector<Grid>& grids, const KernelSetup& k) {
    int failures = 0;
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        const auto chosen = gpu_topology::choose_star_stencil_block<double>(extent(g), kRadius, k.threads, k.machine);
        std::vector<stencil_block> blocks{chosen, {chosen.x, chosen.y, chosen.z}};
        if (chosen.z % 2 == 0) blocks.push_back({chosen.x, chosen.y, chosen.z / 2, 1, 2});
        if (chosen.y % 2 == 0) blocks.push_back({chosen.x, chosen.y / 2, chosen.z, 2, 1});
        blocks.insert(blocks.end(), std::begin(kDefaults), std::end(kDefaults));
        for (const auto& b : blocks) {
            const double error = problem.error_of(b);
            const bool ok = error <= 1e-12;
            failures += !ok;
            std::printf("%dx%dx%d %-22s max |error| %.2e %s\n", g.nx, g.ny, g.nz, describe(b).c_str(), error,
                        ok ? "ok" : "WRONG");
        }
    }
    return failures == 0 ? 0 : 1;
}

// The short list's fastest shape on one grid, as a kernel would tune itself: every listed shape that
// computes right is timed in turn, kTuneRounds rounds of `repeats` launches each; a shape's rate is
// the median of its rounds, and the shape of the highest rate is kept. Rounds in turn, so that a slow
// moment of the GPU falls on every shape alike.
constexpr int kTuneRounds = 3;

struct Tuned {
    stencil_block block;
    double glups = 0;
    std::uint32_t shapes = 0;  // listed
    std::uint32_t wrong = 0;   // listed but computing wrong results: not timed
    double seconds = 0;        // wall time of the tuning, every check and launch included
};

Tuned tune(Problem& problem, const Grid& g, int repeats, const KernelSetup& k) {
    const auto begin = std::chrono::steady_clock::now();
    const auto list = gpu_topology::star_stencil_shortlist<double>(extent(g), kRadius, k.threads, k.machine);
    Tuned best{list.blocks[0], 0, list.count};
    std::vector<stencil_block> right;
    for (std::uint32_t i = 0; i < list.count; ++i) {
        if (problem.error_of(list.blocks[i]) <= 1e-12) {
            right.push_back(list.blocks[i]);
        } else {
            ++best.wrong;
            std::fprintf(stderr, "%dx%dx%d %s: wrong results, not tuned\n", g.nx, g.ny, g.nz, describe(list.blocks[i]).c_str());
        }
    }
    if (right.empty()) throw std::runtime_error("every shape of the short list computes wrong results");
    std::vector<std::vector<double>> rounds(right.size());
    for (int r = 0; r < kTuneRounds; ++r)
        for (std::size_t i = 0; i < right.size(); ++i) rounds[i].push_back(problem.glups(right[i], repeats));
    for (std::size_t i = 0; i < right.size(); ++i) {
        std::nth_element(rounds[i].begin(), rounds[i].begin() + rounds[i].size() / 2, rounds[i].end());
        if (const double median = rounds[i][rounds[i].size() / 2]; median > best.glups) {
            best.block = right[i];
            best.glups = median;
        }
    }
    best.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return best;
}

int run_tuned(const std::vector<Grid>& grids, int repeats, const KernelSetup& k) {
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        const auto chosen = gpu_topology::choose_star_stencil_block<double>(extent(g), kRadius, k.threads, k.machine);
        const Tuned tuned = tune(problem, g, repeats, k);  // times only shapes whose results it checked
        std::printf("%dx%dx%d: block %s, %.1f GLup/s, the fastest of %u listed shapes (%u wrong) in %.0f ms; "
                    "the model's pick %s\n",
                    g.nx, g.ny, g.nz, describe(tuned.block).c_str(), tuned.glups, tuned.shapes, tuned.wrong,
                    tuned.seconds * 1e3, describe(chosen).c_str());
    }
    return 0;
}

int run_chosen(const std::vector<Grid>& grids, int repeats, const KernelSetup& k) {
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        const auto chosen = gpu_topology::choose_star_stencil_block<double>(extent(g), kRadius, k.threads, k.machine);
        const double error = problem.error_of(chosen);
        if (!(error <= 1e-12)) throw std::runtime_error("the chosen shape computes wrong results: " + std::to_string(error));
        std::printf("%dx%dx%d: block %s, %.1f GLup/s (checked: max |error| %.1e)\n  %s\n", g.nx, g.ny, g.nz,
                    describe(chosen).c_str(), problem.glups(chosen, repeats), error, model_text(chosen, g).c_str());
    }
    return 0;
}

// One pass over 168 shapes leans high at its top: its best is the largest of 168 medians, so a
// shape that ran fast once by chance stands first. The chosen shape, the tuned one and the
// kConfirmShapes fastest others are therefore timed again, one after another, kConfirmRounds rounds:
// each one's confirmed rate is the median of its rounds, and "confirmed chosen/best" and "confirmed
// tuned/best" compare those alone.
constexpr std::size_t kConfirmShapes = 4;
constexpr int kConfirmRounds = 7;

struct Timed {
    stencil_block block;
    double glups = 0;
    double confirmed = 0;  // 0: not confirmed
};

int run_search(const std::vector<Grid>& grids, int repeats, const std::string& csv_path, const KernelSetup& k) {
    std::ofstream csv;
    if (!csv_path.empty()) {
        csv.open(csv_path);
        if (!csv) throw std::runtime_error(csv_path + ": cannot write");
        csv << "grid,x,y,z,fold_y,fold_z,glups,model_l2_bytes,model_dram_bytes,layer_y,layer_z,fits_l1,chosen,"
               "confirmed_glups,tuned\n";
    }
    const auto blocks = every_block(k.threads);
    bool any_wrong = false;  // a wrong result fails the search, after every grid has been searched
    for (const auto& g : grids) {
        Problem problem(g, k.shared_bytes);
        const auto chosen = gpu_topology::choose_star_stencil_block<double>(extent(g), kRadius, k.threads, k.machine);
        const std::string name = std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
        const Tuned tuned = tune(problem, g, repeats, k);  // first, as a kernel would, before any shape is searched
        std::vector<Timed> timed;
        int wrong = 0;
        for (const auto& b : blocks) {
            const double error = problem.error_of(b);
            if (!(error <= 1e-12)) {
                ++wrong;
                std::fprintf(stderr, "%s %s: max |error| %.2e\n", name.c_str(), describe(b).c_str(), error);
                continue;
            }
            timed.push_back({b, problem.glups(b, repeats)});
        }
        if (timed.empty()) {
            std::fprintf(stderr, "grid %s: every shape computed wrong results\n", name.c_str());
            any_wrong = true;
            continue;
        }
        const auto rate_of = [&](const stencil_block& b, double Timed::*field) {
            for (const auto& t : timed)
                if (t.block == b) return t.*field;
            return 0.0;
        };
        const auto best_by = [&](double Timed::*field) {
            return *std::max_element(timed.begin(), timed.end(),
                                     [&](const Timed& a, const Timed& b) { return a.*field < b.*field; });
        };

        // The confirmation: the chosen shape and the fastest others, in turn, round after round.
        std::vector<Timed*> confirm;
        std::vector<Timed*> by_rate;
        for (auto& t : timed) by_rate.push_back(&t);
        std::sort(by_rate.begin(), by_rate.end(), [](const Timed* a, const Timed* b) { return a->glups > b->glups; });
        for (Timed* t : by_rate)
            if (confirm.size() < kConfirmShapes && !(t->block == chosen) && !(t->block == tuned.block)) confirm.push_back(t);
        for (auto& t : timed)
            if (t.block == chosen || t.block == tuned.block) confirm.push_back(&t);
        std::vector<std::vector<double>> rounds(confirm.size());
        for (int r = 0; r < kConfirmRounds; ++r)
            for (std::size_t i = 0; i < confirm.size(); ++i) rounds[i].push_back(problem.glups(confirm[i]->block, repeats));
        for (std::size_t i = 0; i < confirm.size(); ++i) {
            std::nth_element(rounds[i].begin(), rounds[i].begin() + rounds[i].size() / 2, rounds[i].end());
            confirm[i]->confirmed = rounds[i][rounds[i].size() / 2];
        }

        if (csv)
            for (const auto& t : timed) {
                const auto& b = t.block;
                const auto traffic = gpu_topology::star_stencil_traffic<double>(b, extent(g), kRadius);
                csv << name << ',' << b.x << ',' << b.y << ',' << b.z << ',' << b.fold_y << ',' << b.fold_z << ','
                    << t.glups << ',' << traffic.l2_bytes_per_update << ',' << traffic.dram_bytes_per_update << ','
                    << traffic.layer_condition_y << ',' << traffic.layer_condition_z << ',' << traffic.tile_fits_l1
                    << ',' << (b == chosen) << ',';
                if (t.confirmed > 0) csv << t.confirmed;
                csv << ',' << (b == tuned.block) << '\n';
            }
        const double chosen_rate = rate_of(chosen, &Timed::glups);
        const Timed best = best_by(&Timed::glups), best_confirmed = best_by(&Timed::confirmed);
        const double chosen_confirmed = rate_of(chosen, &Timed::confirmed);
        std::printf("grid %s (%zu shapes, %d wrong)\n", name.c_str(), blocks.size(), wrong);
        std::printf("  chosen %-22s %7.1f GLup/s   %s\n", describe(chosen).c_str(), chosen_rate, model_text(chosen, g).c_str());
        std::printf("  best   %-22s %7.1f GLup/s   chosen/best = %.3f\n", describe(best.block).c_str(), best.glups,
                    chosen_rate / best.glups);
        std::printf("  confirmed (%zu shapes, %d rounds): chosen %.1f, best %s %.1f GLup/s   confirmed chosen/best = %.3f\n",
                    confirm.size(), kConfirmRounds, chosen_confirmed, describe(best_confirmed.block).c_str(),
                    best_confirmed.confirmed, chosen_confirmed / best_confirmed.confirmed);
        std::printf("  tuned %-22s (fastest of %u listed, %u wrong, %.0f ms) confirmed %.1f GLup/s   "
                    "confirmed tuned/best = %.3f\n",
                    describe(tuned.block).c_str(), tuned.shapes, tuned.wrong, tuned.seconds * 1e3,
                    rate_of(tuned.block, &Timed::confirmed), rate_of(tuned.block, &Timed::confirmed) / best_confirmed.confirmed);
        // The common defaults outside this search's thread count (e.g. (8,8,8), 512 threads, beside 1024).
        std::vector<std::pair<stencil_block, double>> defaults;
        for (const auto& d : kDefaults) {
            if (d.threads() == k.threads) {
                if (const double rate = rate_of(d, &Timed::glups); rate > 0) defaults.emplace_back(d, rate);
            } else if (problem.error_of(d) <= 1e-12) {
                defaults.emplace_back(d, problem.glups(d, repeats));
            }
        }
        for (const auto& [b, rate] : defaults)
            std::printf("  default %-21s %7.1f GLup/s   chosen/default = %.3f\n", describe(b).c_str(), rate,
                        chosen_rate / rate);
        any_wrong = any_wrong || wrong > 0;
    }
    return any_wrong ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string mode = "run", csv;
        int repeats = 7;
        std::uint32_t threads = kDefaultThreadsPerBlock, shared_bytes = 0;
        std::vector<Grid> grids;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--check" || a == "--search" || a == "--tune") {
                mode = a.substr(2);
            } else if (a == "--csv" && i + 1 < argc) {
                csv = argv[++i];
            } else if (a == "--threads" && i + 1 < argc) {
                threads = static_cast<std::uint32_t>(std::atoi(argv[++i]));
                if (threads < 64 || threads > 1024 || (threads & (threads - 1)) != 0) {
                    std::fprintf(stderr, "stencil3d: --threads needs a power of two from 64 to 1024, not %s\n", argv[i]);
                    return 2;
                }
            } else if (a == "--shared-bytes" && i + 1 < argc) {
                const long bytes = std::atol(argv[++i]);
                if (bytes < 0 || bytes > 227 * 1024) {
                    std::fprintf(stderr, "stencil3d: --shared-bytes needs 0 to 232448 bytes, not %s\n", argv[i]);
                    return 2;
                }
                shared_bytes = static_cast<std::uint32_t>(bytes);
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
        prefer_l1(shared_bytes);
        KernelSetup setup{threads, shared_bytes, gpu_topology::this_gpu()};
        if (shared_bytes > 0) {
            // The L1 such a launch gets, as the header measured it; none measured: no answer, not a guess.
            setup.machine.l1_bytes = gpu_topology::l1_bytes_at(0, threads, shared_bytes);
            if (setup.machine.l1_bytes == 0) {
                std::fprintf(stderr, "stencil3d: gpu_topology.hpp measured no launch of %u threads with %u bytes of shared "
                                     "memory at carveout 0 (l1_launches[]): pick a measured size\n", threads, shared_bytes);
                return 2;
            }
            // And as many resident blocks as the driver holds with that shared memory (one fewer block
            // per SM changes the chooser's waves and what lies between a tile and its neighbours).
            int resident = 0;
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, star25<2, true>, int(threads), shared_bytes),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
            setup.machine.threads_per_sm = std::uint32_t(resident > 0 ? resident : 1) * threads;
            std::printf("each block takes %u B of shared memory: the chooser counts on %llu B of L1 and %d resident "
                        "blocks of %u threads per SM\n", shared_bytes, static_cast<unsigned long long>(setup.machine.l1_bytes),
                        resident, threads);
        }
        namespace gt = gpu_topology;
        std::printf("gpu_topology.hpp: %s, L1 %llu B, near L2 %llu B, L2 %.2f TB/s, DRAM %.2f TB/s, %u SMs\n",
                    gt::identity.device_name, static_cast<unsigned long long>(gt::l1.size_bytes),
                    static_cast<unsigned long long>(gt::l2.near_size_bytes), double(gt::l2.bandwidth_bytes_per_s) / 1e12,
                    double(gt::dram.bandwidth_bytes_per_s) / 1e12, static_cast<unsigned>(gt::device.sm_count));
        if (mode == "check") return run_check(grids, setup);
        if (mode == "search") return run_search(grids, repeats, csv, setup);
        if (mode == "tune") return run_tuned(grids, repeats, setup);
        return run_chosen(grids, repeats, setup);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stencil3d: %s\n", e.what());
        return 1;
    }
}
