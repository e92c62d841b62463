// The two-profiles test's translation unit, compiled by nvcc.
#include "profile_tu.cpp"
