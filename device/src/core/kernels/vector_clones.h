#pragma once
// SPYRE_VECTOR_CLONES: compile a hot loop twice, for the SSE2 baseline and
// for AVX2, and pick at load time (GCC function multi-versioning). AVX2
// without FMA performs the same IEEE operations as SSE2, only wider, so both
// clones give bit-identical results; FMA is deliberately not enabled (it
// would change rounding and make results depend on the host CPU).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_ADDRESS__)
#define SPYRE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SPYRE_VECTOR_CLONES
#endif

// Every function defined after this header (include it last) is compiled
// without trapping math, so GCC if-converts the branch-free selects of the
// special functions into vector blends; with trapping math it keeps branches
// and the loops stay scalar. No result changes: FP exception flags are never
// read. (A per-function optimize attribute would block inlining instead.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
