// Part 0 of the SGEMM space's kernels (kernels.cuh).
#include "kernels.cuh"

void add_kernels_part0(std::vector<SgemmKernels>& out) { add_part<0>(out); }
