#pragma once
// The environment fingerprint (docs/cli.md, `env`):
// everything upstream of a result that could move it. Stored with every run
// (v_runs.env_json) and diffed between runs to attribute regressions.
//
// Keys: libtorch (the version of the library loaded, e.g. "2.6.0"),
// libtorch_package (its Debian package version when a package installed it),
// blas {name, version, path, config, core, threads}, compiler, libc,
// spyre_emu, profile, rounding, cores, faults, os, cpu, threads,
// harness {version, git}, tags {K: V} (every --tag K=V).
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

// The BLAS library that libtorch resolves `sgemm_` to in this process.
struct BlasInfo {
  std::string name;     // "OpenBLAS", "BLIS", "MKL", "reference", or the file name
  std::string version;  // e.g. "0.3.21"; empty when the library does not say
  std::string path;     // the resolved file, symlinks followed
  std::string config;   // openblas_get_config() text when available
  std::string core;     // the kernel set OpenBLAS chose for this CPU
                        // (openblas_get_corename(): "Haswell", "SkylakeX",
                        // "Zen", "Prescott"...); empty for other libraries
  int threads = 0;      // the BLAS library's own thread count, 0 when unknown
};
BlasInfo DetectBlas();

// The libtorch this process runs on. Its headers' TORCH_VERSION says only
// what the build was configured as (Debian's 1.13.1 says 1.13.0), so the
// version comes from the package that installed the loaded library when
// there is one.
struct LibtorchInfo {
  std::string version;  // upstream version: "1.13.1", "2.6.0"; TORCH_VERSION without a package
  std::string package;  // "libtorch1.13 1.13.1+dfsg-4"; empty when no package owns it
  std::string path;     // the loaded libtorch_cpu file
  std::string headers;  // TORCH_VERSION of the headers this harness was built with
};
LibtorchInfo DetectLibtorch();

// The upstream part of a Debian package version: "1:2.6.0+dfsg-7" -> "2.6.0".
std::string UpstreamVersion(const std::string& debian_version);

// Sets the BLAS library's own thread count when it has one to set (OpenBLAS:
// openblas_set_num_threads); returns false when it has none (reference BLAS,
// BLIS, MKL are left alone). OpenBLAS's sgemm rounds differently with one
// thread than with two, so bit-exact CPU outputs need it pinned.
bool PinBlasThreads(int n);

// Sets libtorch's intra-op thread count, and the BLAS's own (PinBlasThreads)
// to the same: `requested` when > 0, else SPYRE_REGRESS_THREADS, else the
// number of online cores. Returns the count in force. An unparsable
// SPYRE_REGRESS_THREADS is an error.
StatusOr<int> ConfigureThreads(int requested);

// Collects the fingerprint. Fails only on a malformed SPYRE_EMU_* setting.
StatusOr<nlohmann::json> CollectFingerprint(const std::map<std::string, std::string>& tags);

// Stable hash of a fingerprint (SHA-256 of its canonical dump, 16 hex chars).
std::string FingerprintHash(const nlohmann::json& fingerprint);

}  // namespace harness
