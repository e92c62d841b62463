#include "header_asserts.hpp"

int main() { return gt::l1.size_bytes > 0 ? 0 : 1; }
