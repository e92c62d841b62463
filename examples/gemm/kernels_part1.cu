// Part 1 of the SGEMM space's kernels (kernels.cuh).
#include "kernels.cuh"

void add_kernels_part1(std::vector<SgemmKernels>& out) { add_part<1>(out); }
