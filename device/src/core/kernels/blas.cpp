#include "core/kernels/blas.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace spyre_emu::kernels {
namespace {

struct Resolved {
  SgemmFn fn = nullptr;
  const char* library = "unknown";
};

const Resolved& Resolve() {
  static const Resolved resolved = [] {
    Resolved r;
    void* sym = dlsym(RTLD_DEFAULT, "sgemm_");
    if (sym == nullptr) {
      // Not loaded yet (a torch-free user of the core): load the system BLAS.
      if (void* lib = dlopen("libblas.so.3", RTLD_NOW | RTLD_GLOBAL)) sym = dlsym(lib, "sgemm_");
    }
    if (sym == nullptr) {
      std::fprintf(stderr,
                   "spyre_emu: no BLAS sgemm_ in the process nor in libblas.so.3; install "
                   "libopenblas0-pthread (or any libblas3 provider)\n");
      std::abort();
    }
    r.fn = reinterpret_cast<SgemmFn>(sym);
    Dl_info info;
    if (dladdr(sym, &info) != 0 && info.dli_fname != nullptr) r.library = info.dli_fname;
    return r;
  }();
  return resolved;
}

}  // namespace

SgemmFn Sgemm() { return Resolve().fn; }
const char* SgemmLibrary() { return Resolve().library; }

}  // namespace spyre_emu::kernels
