#pragma once
// The host BLAS's sgemm_ (Fortran interface), found at run time.
//
// The core is a static library that must not choose a BLAS for its users:
// libtorch already loads one (OpenBLAS via libblas.so.3 on Debian), and the
// emulated matmul must run on that same library so that the benchmark
// compares like with like. So sgemm_ is looked up in the process first
// (RTLD_DEFAULT) and only then in libblas.so.3. A host without any BLAS is a
// broken installation: the first matmul aborts with a message saying so.
namespace spyre_emu::kernels {

using SgemmFn = void (*)(const char* transa, const char* transb, const int* m, const int* n,
                         const int* k, const float* alpha, const float* a, const int* lda,
                         const float* b, const int* ldb, const float* beta, float* c,
                         const int* ldc);

// The resolved sgemm_ (never null; resolved once, thread-safe).
SgemmFn Sgemm();
// Where it came from: the library path that dladdr names, or "unknown".
const char* SgemmLibrary();

}  // namespace spyre_emu::kernels
