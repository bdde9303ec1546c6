// whole file
// Includes the reference solution instead of writing one: the source under solutions/ (nvcc
// on the GPU, and its check of the file on the CPU backend), or the CPU backend's translation
// of it under build/. Where make grade can make mount namespaces, the compile finds both
// folders empty and fails, naming the file; elsewhere the object check refuses the include.
// expect: (does not build: .*|includes (build/(emu|cuda)/)?)solutions/01-naive-gemm/naive_gemm\.cu
#if __has_include("../../solutions/01-naive-gemm/naive_gemm.cu.cpp")
#include "../../solutions/01-naive-gemm/naive_gemm.cu.cpp"
#else
#include "../../solutions/01-naive-gemm/naive_gemm.cu"
#endif
