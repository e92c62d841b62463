// header_options.cpp: the carveout options a generated header gives kernels of the sizes asked, one
// line each, THREADS:SHARED_BYTES:CARVEOUT BLOCKS (carveout -1: the driver's), so that
// bench/resident_blocks.cu can count the same launches on the GPU beside the occupancy API:
//
//   g++ -std=c++17 -Igenerated/nvidia-h100 -Iinclude bench/header_options.cpp -o /tmp/header_options
//   /tmp/header_options 320:56000 768:70000 > /tmp/options.txt
//   /tmp/resident_blocks $(cut -d' ' -f1 /tmp/options.txt)      # then compare the two, line by line
#include <gpu_topology.hpp>
#include <gpu_topology/carveout.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: header_options THREADS:SHARED_BYTES...\n");
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        unsigned threads = 0, shared = 0;
        char tail = 0;
        if (std::sscanf(argv[i], "%u:%u%c", &threads, &shared, &tail) != 2 || threads == 0) {
            std::fprintf(stderr, "header_options: a kernel is THREADS:SHARED_BYTES, not '%s'\n", argv[i]);
            return 2;
        }
        const auto options = gpu_topology::carveout_options_for(threads, shared);
        if (options.count == 0) std::fprintf(stderr, "header_options: %u threads of %u B fit no SM\n", threads, shared);
        for (unsigned k = 0; k < options.count; ++k)
            std::printf("%u:%u:%d %u\n", threads, shared, options.options[k].carveout_percent,
                        options.options[k].resident_blocks);
    }
}
