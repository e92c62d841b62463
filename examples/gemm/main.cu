// gemm: a shared-memory-tiled SGEMM (sgemm.cuh) whose block tile, k-tile, thread tile, padding and
// carveout come from gpu_topology.hpp (gpu_topology::choose_sgemm), beside cuBLAS's SGEMM as the roof.
//
//   gemm                  run the helper's configuration on each product, check it, print TFLOP/s
//   gemm --tune           time the helper's short list (gpu_topology::sgemm_tuning_list) and run the fastest
//   gemm --check          check the helper's configuration, its short list and the common default against the
//                         reference (exit 77 without a GPU)
//   gemm --search         time every configuration of the space (gpu_topology::sgemm_space_here: block shapes
//                         with their thread tiles, depths 8/16/32, unpadded and padded) at two carveouts each: the
//                         helper's for those tiles and the one leaving the most L1; then the chosen, the tuned, the
//                         default and the 4 fastest others again, in turn, with cuBLAS (7 rounds: "confirmed").
//                         The short list is tuned first, as --tune does.
//   options: --shape M N K (repeatable; replaces the default products), --csv FILE (--search),
//            --repeats N (timed runs per configuration, median reported; default 5)
// Matrices are row-major floats in [-1, 1); C = A B (alpha 1, beta 0). Results are checked against a
// double-precision reference at every element of C's first and last rows and columns (where partial
// tiles lie) and 4096 others; the reference itself against the host at 64 of them. cuBLAS (FP32, no
// TF32) runs where the build found it (GEMM_WITH_CUBLAS).
#include "kernels.cuh"

#include <gpu_topology/gemm.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#ifdef GEMM_WITH_CUBLAS
#include <cublas_v2.h>
#endif

namespace {

namespace gt = gpu_topology;
using gt::carveout_option;
using gt::sgemm_tile;

// Reproducible pseudo-random values in [-1, 1), the same on host and device: A's element i is value(i),
// B's value(i + kOffsetB).
constexpr std::uint64_t kOffsetB = 1ull << 40;
__host__ __device__ inline float value(std::uint64_t i) {
    i += 0x9e3779b97f4a7c15ull;
    i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
    i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
    i ^= i >> 31;
    return float(double(i >> 40) * (2.0 / 16777216.0) - 1.0);
}

__global__ void fill(float* data, std::size_t count, std::uint64_t offset) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = value(i + offset);
}

// The reference at the checked elements: each (row, column) of C in double, and the sum of the products'
// magnitudes, which scales the rounding a float sum may show.
__global__ void reference_at(const float* a, const float* b, int n, int k, const int2* at, std::size_t count,
                             double* exact, double* scale) {
    for (std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; s < count; s += std::size_t(gridDim.x) * blockDim.x) {
        const int row = at[s].x, col = at[s].y;
        double sum = 0, magnitude = 0;
        for (int i = 0; i < k; ++i) {
            const double p = double(a[std::size_t(row) * k + i]) * double(b[std::size_t(i) * n + col]);
            sum += p;
            magnitude += fabs(p);
        }
        exact[s] = sum;
        scale[s] = magnitude;
    }
}

__global__ void gather(const float* c, int n, const int2* at, std::size_t count, float* out) {
    for (std::size_t s = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; s < count; s += std::size_t(gridDim.x) * blockDim.x)
        out[s] = c[std::size_t(at[s].x) * n + at[s].y];
}

// A float sum of k products may differ from the exact one by about k units of rounding of the products'
// magnitudes; 64 float epsilons of that sum bound what any summation order here shows, while a wrong
// tile is off by the size of the values.
constexpr double kTolerance = 64 * 1.1920928955078125e-07;

std::string describe(const sgemm_tile& t) {
    return std::to_string(t.block_m) + "x" + std::to_string(t.block_n) + "x" + std::to_string(t.block_k) + " " +
           std::to_string(t.thread_m) + "x" + std::to_string(t.thread_n) + " pad " + std::to_string(t.pad_a);
}
std::string describe(const carveout_option& o) {
    return o.left_to_driver() ? "driver's carveout" : "carveout " + std::to_string(o.carveout_percent) + " %";
}

// The space's kernels, their registers (as compiled) and options.
struct Kernels {
    std::vector<SgemmKernels> all;
    std::vector<sgemm_tile> tiles;
    std::vector<std::uint32_t> registers;
    gt::gemm_machine machine = gt::this_gpu_gemm();
    const SgemmKernels& of(const sgemm_tile& t) const {
        for (const auto& k : all)
            if (k.tile == t) return k;
        throw std::runtime_error("no kernel of " + describe(t));
    }
    std::uint32_t registers_of(const sgemm_tile& t) const {
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].tile == t) return registers[i];
        return 0;
    }
    // The helper's calls, with the registers the compiler gave each kernel.
    gt::sgemm_known_registers registers_known() const { return {tiles.data(), registers.data(), tiles.size()}; }
    gt::sgemm_config chosen(const gt::gemm_extent& e) const { return gt::choose_sgemm(e, false, registers_known()); }
    gt::sgemm_shortlist list(const gt::gemm_extent& e) const { return gt::sgemm_tuning_list(e, false, registers_known()); }
    carveout_option option(const sgemm_tile& t) const { return gt::sgemm_option(t, machine, registers_of(t)); }
    // The common default a user would write: 128 x 128 x 8 blocks of 8 x 8 thread tiles, unpadded, the driver's carveout.
    gt::sgemm_config common() const {
        const sgemm_tile t{128, 128, 8, 8, 8, 0};
        const auto options = gt::sgemm_options(t, machine);
        return {t, *options.left_to_driver()};
    }
    double model_tflops(const gt::sgemm_config& c, const gt::gemm_extent& e) const {
        return 2.0 * double(e.m) * e.n * e.k / gt::sgemm_estimate_of(c, e, false, machine, registers_of(c.tile)).seconds / 1e12;
    }
};

Kernels load_kernels() {
    Kernels k;
    k.all = every_kernel();
    for (const auto& entry : k.all) {
        cudaFuncAttributes attributes{};
        check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(entry.per_launch)), "cudaFuncGetAttributes");
        k.tiles.push_back(entry.tile);
        k.registers.push_back(std::uint32_t(attributes.numRegs));
    }
    return k;
}

struct Product {
    int m, n, k;
    std::unique_ptr<float[], CudaFree> a, b, c;
    std::vector<int2> at;  // the checked elements
    std::unique_ptr<int2[], CudaFree> at_device;
    std::unique_ptr<double[], CudaFree> exact, scale;
    std::unique_ptr<float[], CudaFree> gathered;
    std::vector<double> exact_host, scale_host;

    Product(int m_, int n_, int k_)
        : m(m_),
          n(n_),
          k(k_),
          a(device_array<float>(std::size_t(m_) * k_)),
          b(device_array<float>(std::size_t(k_) * n_)),
          c(device_array<float>(std::size_t(m_) * n_)) {
        fill<<<1024, 256>>>(a.get(), std::size_t(m) * k, 0);
        check(cudaGetLastError(), "fill");
        fill<<<1024, 256>>>(b.get(), std::size_t(k) * n, kOffsetB);
        check(cudaGetLastError(), "fill");
        for (int j = 0; j < n; ++j) at.push_back({0, j}), at.push_back({m - 1, j});
        for (int i = 1; i + 1 < m; ++i) at.push_back({i, 0}), at.push_back({i, n - 1});
        for (std::uint64_t s = 0; s < 4096; ++s) at.push_back({int(s * 7919 % std::uint64_t(m)), int(s * 104729 % std::uint64_t(n))});
        at_device = device_array<int2>(at.size());
        exact = device_array<double>(at.size());
        scale = device_array<double>(at.size());
        gathered = device_array<float>(at.size());
        check(cudaMemcpy(at_device.get(), at.data(), at.size() * sizeof(int2), cudaMemcpyHostToDevice), "cudaMemcpy");
        reference_at<<<256, 128>>>(a.get(), b.get(), n, k, at_device.get(), at.size(), exact.get(), scale.get());
        check(cudaGetLastError(), "reference_at");
        exact_host.resize(at.size());
        scale_host.resize(at.size());
        check(cudaMemcpy(exact_host.data(), exact.get(), at.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
        check(cudaMemcpy(scale_host.data(), scale.get(), at.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
        check_reference_on_host();
    }

    // The GPU reference against the host's, at 64 of the checked elements.
    void check_reference_on_host() const {
        for (std::size_t s = 0; s < at.size(); s += std::max<std::size_t>(1, at.size() / 64)) {
            double sum = 0;
            for (int i = 0; i < k; ++i)
                sum += double(value(std::uint64_t(at[s].x) * k + i)) * double(value(std::uint64_t(i) * n + at[s].y + kOffsetB));
            if (!(std::fabs(sum - exact_host[s]) <= 1e-9 * (1 + scale_host[s])))
                throw std::runtime_error("the GPU reference differs from the host at (" + std::to_string(at[s].x) + ", " +
                                         std::to_string(at[s].y) + "): " + std::to_string(exact_host[s]) + " against " +
                                         std::to_string(sum));
        }
    }

    gt::gemm_extent extent() const { return {std::uint64_t(m), std::uint64_t(n), std::uint64_t(k)}; }
    double flops() const { return 2.0 * double(m) * n * k; }
    std::string name() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

    void run(const SgemmKernels& kernels, const carveout_option& o) {
        launch(kernels, o, m, n, k, 1.0f, a.get(), b.get(), 0.0f, c.get());
    }

    // The largest error at the checked elements over its tolerance (at most 1 is right), after C is
    // filled with NaNs: an element a launch does not write fails.
    template <typename Run>
    double error_of(Run&& run_once) {
        check(cudaMemset(c.get(), 0xff, std::size_t(m) * n * sizeof(float)), "cudaMemset");
        run_once();
        gather<<<64, 256>>>(c.get(), n, at_device.get(), at.size(), gathered.get());
        check(cudaGetLastError(), "gather");
        std::vector<float> got(at.size());
        check(cudaMemcpy(got.data(), gathered.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        double worst = 0;
        for (std::size_t s = 0; s < at.size(); ++s) {
            const double over = std::fabs(double(got[s]) - exact_host[s]) / (kTolerance * scale_host[s] + 1e-30);
            if (!(over <= worst)) worst = std::isnan(over) ? INFINITY : over;
        }
        return worst;
    }

    // Median TFLOP/s of `repeats` timed runs after `warmups` untimed ones.
    template <typename Run>
    double tflops(Run&& run_once, int repeats, int warmups) {
        for (int i = 0; i < warmups; ++i) run_once();
        std::vector<double> ms;
        Event begin, end;
        for (int i = 0; i < repeats; ++i) {
            check(cudaEventRecord(begin.get()), "cudaEventRecord");
            run_once();
            check(cudaEventRecord(end.get()), "cudaEventRecord");
            check(cudaEventSynchronize(end.get()), "cudaEventSynchronize");
            float t = 0;
            check(cudaEventElapsedTime(&t, begin.get(), end.get()), "cudaEventElapsedTime");
            ms.push_back(t);
        }
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        return flops() / (ms[ms.size() / 2] * 1e9);
    }
};

#ifdef GEMM_WITH_CUBLAS
void check(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(status)));
}
// cuBLAS's SGEMM on the same row-major matrices (C^T = B^T A^T in its column-major terms), FP32 without TF32.
class Cublas {
public:
    Cublas() {
        check(cublasCreate(&handle_), "cublasCreate");
        check(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
    ~Cublas() { cublasDestroy(handle_); }
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
    void run(Product& p) {
        const float alpha = 1, beta = 0;
        check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &alpha, p.b.get(), p.n, p.a.get(), p.k, &beta,
                          p.c.get(), p.n),
              "cublasSgemm");
        check(cudaGetLastError(), "cublasSgemm");
    }

private:
    cublasHandle_t handle_{};
};
#else
// Built without cuBLAS: no roof to report.
class Cublas {
public:
    void run(Product&) { throw std::logic_error("built without cuBLAS"); }
};
#endif
constexpr bool kWithCublas =
#ifdef GEMM_WITH_CUBLAS
    true;
#else
    false;
#endif

// Keeps the GPU busy for about `seconds`: a card idles at a low clock.
void warm_up(Product& p, const Kernels& k, double seconds) {
    const auto begin = std::chrono::steady_clock::now();
    const gt::sgemm_config c = k.common();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() < seconds) {
        for (int i = 0; i < 4; ++i) p.run(k.of(c.tile), c.option);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
}
constexpr double kWarmUpSeconds = 0.3;

std::string config_text(const gt::sgemm_config& c, const Kernels& k) {
    return describe(c.tile) + " at " + describe(c.option) + " (" + std::to_string(k.registers_of(c.tile)) + " registers)";
}

// The short list's fastest configuration: each listed one that computes right is timed in turn, kTuneRounds
// rounds of `repeats` runs; its rate is the median of its rounds.
constexpr int kTuneRounds = 3;
struct Tuned {
    gt::sgemm_config config;
    double tflops = 0;
    std::uint32_t listed = 0, wrong = 0;
    double seconds = 0;
};
Tuned tune(Product& p, const Kernels& k, int repeats) {
    const auto begin = std::chrono::steady_clock::now();
    const auto list = k.list(p.extent());
    if (list.count == 0) throw std::runtime_error("the helper's short list is empty");
    Tuned best{list.configs[0], 0, list.count};
    std::vector<gt::sgemm_config> right;
    for (std::uint32_t i = 0; i < list.count; ++i) {
        const auto& c = list.configs[i];
        if (p.error_of([&] { p.run(k.of(c.tile), c.option); }) <= 1) {
            right.push_back(c);
        } else {
            ++best.wrong;
            std::fprintf(stderr, "%s %s: wrong results, not tuned\n", p.name().c_str(), config_text(c, k).c_str());
        }
    }
    if (right.empty()) throw std::runtime_error("every configuration of the short list computes wrong results");
    std::vector<std::vector<double>> rounds(right.size());
    for (int r = 0; r < kTuneRounds; ++r)
        for (std::size_t i = 0; i < right.size(); ++i)
            rounds[i].push_back(p.tflops([&] { p.run(k.of(right[i].tile), right[i].option); }, repeats, 1));
    for (std::size_t i = 0; i < right.size(); ++i) {
        std::nth_element(rounds[i].begin(), rounds[i].begin() + rounds[i].size() / 2, rounds[i].end());
        if (const double median = rounds[i][rounds[i].size() / 2]; median > best.tflops) best.config = right[i], best.tflops = median;
    }
    best.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return best;
}

int run_check(const std::vector<Product*>& products, const Kernels& k, Cublas& cublas) {
    int failures = 0;
    for (Product* p : products) {
        std::vector<gt::sgemm_config> configs{k.chosen(p->extent()), k.common()};
        const auto list = k.list(p->extent());
        configs.insert(configs.end(), list.configs, list.configs + list.count);
        for (const auto& c : configs) {
            const double error = p->error_of([&] { p->run(k.of(c.tile), c.option); });
            failures += !(error <= 1);
            std::printf("%s %-64s error %.3g of its tolerance %s\n", p->name().c_str(), config_text(c, k).c_str(), error,
                        error <= 1 ? "ok" : "WRONG");
        }
        if (kWithCublas) {
            const double error = p->error_of([&] { cublas.run(*p); });
            failures += !(error <= 1);
            std::printf("%s %-64s error %.3g of its tolerance %s\n", p->name().c_str(), "cuBLAS", error, error <= 1 ? "ok" : "WRONG");
        }
    }
    return failures == 0 ? 0 : 1;
}

int run_chosen(const std::vector<Product*>& products, const Kernels& k, Cublas& cublas, int repeats, bool tuned_mode) {
    for (Product* p : products) {
        gt::sgemm_config c = k.chosen(p->extent());
        std::string how = "the helper's configuration";
        if (tuned_mode) {
            const Tuned t = tune(*p, k, repeats);
            c = t.config;
            how = "the fastest of " + std::to_string(t.listed) + " listed (" + std::to_string(t.wrong) + " wrong) in " +
                  std::to_string(int(t.seconds * 1e3)) + " ms";
        }
        const double error = p->error_of([&] { p->run(k.of(c.tile), c.option); });
        if (!(error <= 1)) throw std::runtime_error(p->name() + ": " + config_text(c, k) + " computes wrong results");
        const double rate = p->tflops([&] { p->run(k.of(c.tile), c.option); }, repeats, 2);
        std::printf("%s: %s, %s: %.2f TFLOP/s (model %.2f)", p->name().c_str(), config_text(c, k).c_str(), how.c_str(), rate,
                    k.model_tflops(c, p->extent()));
        if (kWithCublas) std::printf("; cuBLAS %.2f TFLOP/s", p->tflops([&] { cublas.run(*p); }, repeats, 2));
        std::printf("\n");
    }
    return 0;
}

// The search: every configuration once per carveout, then the named and fastest ones confirmed in turn.
constexpr std::size_t kConfirmConfigs = 4;
constexpr int kConfirmRounds = 7;

struct Timed {
    gt::sgemm_config config;
    bool cublas = false;
    double tflops = 0, confirmed = 0;
};

int run_search(const std::vector<Product*>& products, const Kernels& k, Cublas& cublas, int repeats, const std::string& csv_path) {
    std::ofstream csv;
    if (!csv_path.empty()) {
        csv.open(csv_path);
        if (!csv) throw std::runtime_error(csv_path + ": cannot write");
        csv << "shape,m,n,k,kind,block_m,block_n,block_k,thread_m,thread_n,pad_a,threads,shared_bytes,registers,"
               "registers_estimated,carveout,resident_blocks,tflops,model_tflops,chosen,tuned,default_config,confirmed_tflops\n";
    }
    bool any_wrong = false;
    for (Product* p : products) {
        const gt::gemm_extent e = p->extent();
        const gt::sgemm_config chosen = k.chosen(e), common = k.common();
        const Tuned tuned = tune(*p, k, repeats);
        std::vector<Timed> timed;
        int wrong = 0;
        const auto find = [&](const gt::sgemm_config& c) -> Timed* {
            for (auto& t : timed)
                if (!t.cublas && t.config == c) return &t;
            return nullptr;
        };
        for (const auto& kernels : k.all) {
            const sgemm_tile& t = kernels.tile;
            const carveout_option helper = k.option(t);
            if (!(p->error_of([&] { p->run(kernels, helper); }) <= 1)) {
                ++wrong;
                std::fprintf(stderr, "%s %s: wrong results\n", p->name().c_str(), describe(t).c_str());
                continue;
            }
            // The helper's carveout for these tiles, and the one leaving the most L1.
            const auto options = gt::sgemm_options(t, k.machine);
            carveout_option most_l1 = helper;
            for (std::uint32_t i = 0; i < options.count; ++i)
                if (options.options[i].l1_bytes > most_l1.l1_bytes) most_l1 = options.options[i];
            for (const carveout_option& o : {helper, most_l1}) {
                const gt::sgemm_config c{t, o};
                if (find(c)) continue;
                timed.push_back({c, false, p->tflops([&] { p->run(kernels, o); }, repeats, 1)});
            }
        }
        for (const auto& c : {chosen, tuned.config, common})
            if (!find(c)) timed.push_back({c, false, p->tflops([&] { p->run(k.of(c.tile), c.option); }, repeats, 1)});
        if (kWithCublas) {
            if (!(p->error_of([&] { cublas.run(*p); }) <= 1)) throw std::runtime_error(p->name() + ": cuBLAS computes wrong results");
            timed.push_back({{}, true, p->tflops([&] { cublas.run(*p); }, repeats, 2)});
        }
        // The confirmation, in turn: the chosen, tuned and default configurations, the fastest others, cuBLAS.
        std::vector<Timed*> confirm;
        for (const auto& c : {chosen, tuned.config, common})
            if (Timed* t = find(c); t && std::find(confirm.begin(), confirm.end(), t) == confirm.end()) confirm.push_back(t);
        std::vector<Timed*> by_rate;
        for (auto& t : timed)
            if (!t.cublas) by_rate.push_back(&t);
        std::sort(by_rate.begin(), by_rate.end(), [](const Timed* a, const Timed* b) { return a->tflops > b->tflops; });
        const std::size_t named = confirm.size();
        for (Timed* t : by_rate)
            if (confirm.size() < named + kConfirmConfigs && std::find(confirm.begin(), confirm.end(), t) == confirm.end())
                confirm.push_back(t);
        for (auto& t : timed)
            if (t.cublas) confirm.push_back(&t);
        std::vector<std::vector<double>> rounds(confirm.size());
        for (int r = 0; r < kConfirmRounds; ++r)
            for (std::size_t i = 0; i < confirm.size(); ++i) {
                Timed& t = *confirm[i];
                rounds[i].push_back(t.cublas ? p->tflops([&] { cublas.run(*p); }, repeats, 1)
                                             : p->tflops([&] { p->run(k.of(t.config.tile), t.config.option); }, repeats, 1));
            }
        for (std::size_t i = 0; i < confirm.size(); ++i) {
            std::nth_element(rounds[i].begin(), rounds[i].begin() + rounds[i].size() / 2, rounds[i].end());
            confirm[i]->confirmed = rounds[i][rounds[i].size() / 2];
        }
        if (csv)
            for (const auto& t : timed) {
                csv << p->name() << ',' << p->m << ',' << p->n << ',' << p->k << ',';
                if (t.cublas) {
                    csv << "cublas,,,,,,,,,,,,," << t.tflops << ",,0,0,0,";
                } else {
                    const sgemm_tile& tile = t.config.tile;
                    const auto estimate = gt::sgemm_estimate_of(t.config, e, false, k.machine, k.registers_of(tile));
                    csv << "config," << tile.block_m << ',' << tile.block_n << ',' << tile.block_k << ',' << tile.thread_m << ','
                        << tile.thread_n << ',' << tile.pad_a << ',' << tile.threads() << ',' << tile.shared_bytes() << ','
                        << k.registers_of(tile) << ',' << gt::sgemm_registers(tile, k.machine) << ','
                        << t.config.option.carveout_percent << ',' << estimate.resident_blocks << ',' << t.tflops << ','
                        << k.model_tflops(t.config, e) << ',' << (t.config == chosen) << ',' << (t.config == tuned.config) << ','
                        << (t.config == common) << ',';
                }
                if (t.confirmed > 0) csv << t.confirmed;
                csv << '\n';
            }
        csv.flush();  // a search stopped later keeps this product
        const auto best_by = [&](double Timed::*field) -> const Timed& {
            const Timed* best = nullptr;
            for (const auto& t : timed)
                if (!t.cublas && (!best || t.*field > best->*field)) best = &t;
            return *best;
        };
        const Timed& best = best_by(&Timed::tflops);
        const Timed& best_confirmed = best_by(&Timed::confirmed);
        const Timed* c = find(chosen);
        const Timed* tu = find(tuned.config);
        const Timed* d = find(common);
        std::printf("shape %s (%zu configurations timed, %d wrong)\n", p->name().c_str(), timed.size(), wrong);
        std::printf("  chosen  %-62s %7.2f TFLOP/s   model %.2f\n", config_text(chosen, k).c_str(), c->tflops,
                    k.model_tflops(chosen, e));
        std::printf("  best    %-62s %7.2f TFLOP/s   chosen/best = %.3f\n", config_text(best.config, k).c_str(), best.tflops,
                    c->tflops / best.tflops);
        std::printf("  confirmed (%zu, %d rounds): chosen %.2f, best %s %.2f TFLOP/s   confirmed chosen/best = %.3f\n",
                    confirm.size(), kConfirmRounds, c->confirmed, config_text(best_confirmed.config, k).c_str(),
                    best_confirmed.confirmed, c->confirmed / best_confirmed.confirmed);
        std::printf("  default %-62s %7.2f TFLOP/s confirmed   confirmed default/best = %.3f\n", config_text(common, k).c_str(),
                    d->confirmed, d->confirmed / best_confirmed.confirmed);
        std::printf("  tuned   %-62s (fastest of %u listed, %u wrong, %.0f ms) confirmed %.2f TFLOP/s   confirmed tuned/best = %.3f\n",
                    config_text(tuned.config, k).c_str(), tuned.listed, tuned.wrong, tuned.seconds * 1e3, tu->confirmed,
                    tu->confirmed / best_confirmed.confirmed);
        if (kWithCublas)
            std::printf("  cublas  %7.2f TFLOP/s confirmed   confirmed chosen/cublas = %.3f\n", timed.back().confirmed,
                        c->confirmed / timed.back().confirmed);
        std::fflush(stdout);
        any_wrong = any_wrong || wrong > 0;
    }
    return any_wrong ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string mode = "run", csv;
        int repeats = 5;
        std::vector<std::array<int, 3>> shapes;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--check" || a == "--search" || a == "--tune") {
                mode = a.substr(2);
            } else if (a == "--csv" && i + 1 < argc) {
                csv = argv[++i];
            } else if (a == "--repeats" && i + 1 < argc) {
                repeats = std::max(1, std::atoi(argv[++i]));
            } else if (a == "--shape" && i + 3 < argc) {
                const long m = std::atol(argv[i + 1]), n = std::atol(argv[i + 2]), k = std::atol(argv[i + 3]);
                i += 3;
                if (m < 1 || n < 1 || k < 1 || m > 65536 || n > 65536 || k > 65536 || double(m) * n > 4e8 ||
                    double(m) * k > 4e8 || double(k) * n > 4e8) {
                    std::fprintf(stderr, "gemm: --shape needs M, N, K from 1 to 65536, each matrix at most 4e8 elements\n");
                    return 2;
                }
                shapes.push_back({int(m), int(n), int(k)});
            } else {
                std::fprintf(stderr, "gemm: unknown argument %s (see the comment at the top of main.cu)\n", a.c_str());
                return 2;
            }
        }
        int devices = 0;
        if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
            std::fprintf(stderr, "gemm: no CUDA device\n");
            return kNoGpu;
        }
        if (shapes.empty())
            shapes = mode == "check" ? std::vector<std::array<int, 3>>{{257, 131, 77}, {64, 64, 64}}
                                     : std::vector<std::array<int, 3>>{{2048, 2048, 2048}, {4096, 256, 4096}, {1999, 1531, 1023}};
        Kernels kernels = load_kernels();
        std::printf("gpu_topology.hpp: %s; the space: %zu configurations; %s\n", gt::identity.device_name, kernels.all.size(),
                    kWithCublas ? "cuBLAS beside" : "built without cuBLAS");
        Cublas cublas;
        std::vector<std::unique_ptr<Product>> owned;
        std::vector<Product*> products;
        for (const auto& s : shapes) {
            owned.push_back(std::make_unique<Product>(s[0], s[1], s[2]));
            products.push_back(owned.back().get());
        }
        if (mode == "check") return run_check(products, kernels, cublas);
        warm_up(*products.front(), kernels, kWarmUpSeconds);
        if (mode == "search") return run_search(products, kernels, cublas, repeats, csv);
        return run_chosen(products, kernels, cublas, repeats, mode == "tune");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gemm: %s\n", e.what());
        return 1;
    }
}
