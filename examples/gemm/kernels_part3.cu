// Part 3 of the SGEMM space's kernels (kernels.cuh).
#include "kernels.cuh"

void add_kernels_part3(std::vector<SgemmKernels>& out) { add_part<3>(out); }
