// explore_common.cuh: what the standalone bench programs (user_kernels.cu, path_latencies.cu,
// explore_tlb_sharing.cu, l1_miss_sources.cu, resident_blocks.cu) share: checked CUDA calls, RAII
// for device memory and events, timed progress on stderr, tables printed aligned to stdout and
// written as one CSV per section, a median, and the device clocks (the probe's own,
// probe/kernels/device_clocks.cuh). Included by each; not part of the build.
#pragma once

#include "../probe/kernels/cuda_check.hpp"
#include "../probe/kernels/device_clocks.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using gpu_topology::kernels::global_ns;
using gpu_topology::kernels::sm_clock;

// ------------------------------------------------------------------------------------------------
// Error checking, RAII, progress
// ------------------------------------------------------------------------------------------------

static void check_cuda(cudaError_t result, const char* call, const char* file, int line) {
    if (result == cudaSuccess) return;
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(result),
                 cudaGetErrorString(result));
    std::exit(1);
}
#define CHECK(call) check_cuda((call), #call, __FILE__, __LINE__)
// A launch reports configuration errors through cudaGetLastError and execution errors at the next
// synchronising call; both are checked right after every launch.
#define CHECK_LAUNCH()                       \
    do {                                     \
        CHECK(cudaGetLastError());           \
        CHECK(cudaDeviceSynchronize());      \
    } while (0)

struct CudaFree {
    void operator()(void* p) const noexcept { cudaFree(p); }  // cannot report from a deleter
};
template <typename T>
using DeviceArray = std::unique_ptr<T[], CudaFree>;

template <typename T>
DeviceArray<T> device_alloc(std::size_t count) {
    void* p = nullptr;
    CHECK(cudaMalloc(&p, count * sizeof(T)));
    return DeviceArray<T>(static_cast<T*>(p));
}

struct EventDestroy {
    void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroy>;

static Event make_event() {
    cudaEvent_t e = nullptr;
    CHECK(cudaEventCreate(&e));
    return Event(e);
}

static const auto g_program_start = std::chrono::steady_clock::now();

static double seconds_since_start() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_program_start).count();
}

__attribute__((format(printf, 1, 2))) static void progress(const char* format, ...) {
    std::fprintf(stderr, "[%7.2f s] ", seconds_since_start());
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
    std::fflush(stderr);
}

// ------------------------------------------------------------------------------------------------
// Tables: printed aligned to stdout, merged into one CSV per section
// ------------------------------------------------------------------------------------------------

static std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    return text;
}

struct Table {
    std::string name;
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    bool print = true;  // false: CSV only (long curves)
    bool csv = true;    // false: stdout only

    void add(std::vector<std::string> row) {
        if (row.size() != columns.size()) {
            std::fprintf(stderr, "table %s: row of %zu cells, %zu columns\n", name.c_str(), row.size(),
                         columns.size());
            std::exit(1);
        }
        rows.push_back(std::move(row));
    }
};

struct Section {
    explicit Section(std::string section_name) : name(std::move(section_name)) {}
    std::string name;
    std::deque<Table> tables;  // a deque: references from table() stay valid as tables are added
    Table& table(std::string table_name, std::vector<std::string> columns) {
        tables.push_back(Table{std::move(table_name), std::move(columns), {}});
        return tables.back();
    }
};

static void print_table(const Table& t) {
    std::vector<std::size_t> width(t.columns.size());
    for (std::size_t c = 0; c < t.columns.size(); ++c) width[c] = t.columns[c].size();
    for (const auto& row : t.rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    const auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
            // The last column is left-aligned and not padded: it holds the long evidence texts.
            if (c + 1 == cells.size() && c > 0) std::printf("  %s", cells[c].c_str());
            else std::printf("%s%*s", c ? "  " : "", static_cast<int>(width[c]), cells[c].c_str());
        }
        std::printf("\n");
    };
    std::printf("-- %s --\n", t.name.c_str());
    line(t.columns);
    for (const auto& row : t.rows) line(row);
}

static std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
}

// One CSV per section: the union of the tables' columns, a leading "table" column naming the table.
static void write_section_csv(const Section& s, const std::string& out_dir) {
    if (out_dir.empty()) return;
    std::vector<std::string> columns;
    for (const auto& t : s.tables)
        if (t.csv)
            for (const auto& c : t.columns)
                if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
    const std::string path = out_dir + "/" + s.name + ".csv";
    std::ofstream out(path);
    if (!out) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        std::exit(1);
    }
    out << "table";
    for (const auto& c : columns) out << ',' << csv_cell(c);
    out << '\n';
    for (const auto& t : s.tables) {
        if (!t.csv) continue;
        for (const auto& row : t.rows) {
            out << csv_cell(t.name);
            for (const auto& c : columns) {
                const auto at = std::find(t.columns.begin(), t.columns.end(), c);
                out << ',' << (at == t.columns.end() ? "" : csv_cell(row[at - t.columns.begin()]));
            }
            out << '\n';
        }
    }
}

static void emit_section(const Section& s, const std::string& out_dir) {
    std::printf("## %s\n", s.name.c_str());
    for (const auto& t : s.tables)
        if (t.print) print_table(t);
    std::printf("\n");
    std::fflush(stdout);
    write_section_csv(s, out_dir);
}

static double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

__device__ __forceinline__ unsigned sm_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

// A value the data never produces: comparing against it keeps every load observable.
constexpr unsigned long long kImpossible = 0x5a5a5a5a5a5a5a5aull;

// Occupies every SM for `duration_ns` (raises the SM clock out of idle).
__global__ void spin_kernel(unsigned long long duration_ns, unsigned long long* sink) {
    const unsigned long long end = global_ns() + duration_ns;
    unsigned long long spins = 0;
    while (global_ns() < end) ++spins;
    if (spins == 0) *sink = spins;
}

// Device 0's properties, named on stdout, its SM clock raised out of idle by 0.3 s of spinning.
// Exits 77 (what CTest takes for "skipped") with the reason where no CUDA device is usable, for
// the reasons the probe gives (gpu_topology::kernels::no_usable_device); any other failure of the
// runtime stops it as a failure.
static cudaDeviceProp open_device(const char* program) {
    int devices = 0;
    const cudaError_t found = cudaGetDeviceCount(&devices);
    if (gpu_topology::kernels::no_usable_device(found) || (found == cudaSuccess && devices == 0)) {
        std::fprintf(stderr, "%s: no usable CUDA device: %s\n", program,
                     found == cudaSuccess ? "none is visible" : cudaGetErrorString(found));
        std::exit(77);
    }
    CHECK(found);
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
    auto sink = device_alloc<unsigned long long>(1);
    spin_kernel<<<prop.multiProcessorCount, 32>>>(300'000'000ull, sink.get());
    CHECK_LAUNCH();
    return prop;
}
