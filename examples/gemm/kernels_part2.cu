// Part 2 of the SGEMM space's kernels (kernels.cuh).
#include "kernels.cuh"

void add_kernels_part2(std::vector<SgemmKernels>& out) { add_part<2>(out); }
