#pragma once
// Fault injection: the SPYRE_EMU_FAULTS spec (docs/device.md), torch-free.
//
//   SPYRE_EMU_FAULTS="mm:slow=3;_softmax:error=0.01,nan;gelu:fallback"
//
// Entries `OP:KIND[=VALUE]` are separated by `;`; several kinds for one op are
// separated by `,`. OP is the ATen operator name without namespace and
// overload (`mm`, `_softmax`, `native_layer_norm`, `add`...): letters, digits
// and `_`, not starting with a digit. KIND:
//   slow=F    modeled and wall time x F (F >= 1, finite)
//   delay=F   wall time x F only (F >= 1, finite): the modeled time and every
//             output stay exactly as they are, as when the host, not the
//             device, got slower (a BLAS or compiler change); with slow=S,
//             wall time x S*F
//   error=R   outputs perturbed by relative magnitude R (R > 0, finite),
//             deterministically: out[i] * (1 + R * s_i), s_i = +-1 from i
//   nan       the output's first element becomes NaN
//   fallback  the device kernel is disabled; the op runs on the CPU fallback
//   abort     the process aborts (SIGABRT) when the op runs
//   segv      the process dies of SIGSEGV when the op runs
//   hang      the op never returns
//   oom       the op fails with the device's out-of-memory error
// An OP named serving_* is not an ATen operator but a fault point of the
// harness's serving engine (the device never runs it; the serving case kind
// reads the spec): serving_drop, serving_free_early, serving_slow_prefill.
// They take two more kinds, request=N (a request's index in the trace) and
// step=N (an engine step), both integers from 0; no other op takes them.
// serving_slow_prefill takes slow=F as well.
// Spaces around entries, ops, kinds and values are ignored; an empty spec (or
// only spaces) injects nothing; one trailing `;` is allowed. Anything else
// malformed (unknown kind, missing or extra value, bad number, empty entry,
// an op given the same kind twice) is an error naming the entry, its text and
// its character position, never ignored. The same op may appear in several
// entries; their kinds add up.
#include <cstdint>
#include <map>
#include <string>

#include "spyre_emu/status.h"

namespace spyre_emu {

struct OpFaults {
  double slow = 1.0;   // time multiplier; 1 = not slowed
  double delay = 1.0;  // wall-time multiplier, modeled time untouched; 1 = none
  double error = 0.0;  // relative perturbation; 0 = none
  bool nan = false;
  bool fallback = false;
  bool abort = false;
  bool segv = false;
  bool hang = false;
  bool oom = false;
  int64_t request = -1;  // serving_* fault points: the request, -1 none given
  int64_t step = -1;     // and the step
  // What the op's host time is stretched by: slow and delay together.
  double wall_factor() const { return slow * delay; }
  bool any() const {
    return slow != 1.0 || delay != 1.0 || error != 0.0 || nan || fallback || abort || segv || hang ||
           oom || request >= 0 || step >= 0;
  }
};

class FaultPlan {
 public:
  // Parses `spec` into *out. A malformed spec is kInvalidArgument with one
  // line such as
  //   SPYRE_EMU_FAULTS entry 2 'mm:slw=2' (at character 9): unknown fault kind
  //   'slw'; use slow=F, delay=F, error=R, nan, fallback, abort, segv, hang or oom
  // and leaves *out unchanged.
  static Status Parse(const std::string& spec, FaultPlan* out);

  // The faults for `op`, or nullptr when it has none.
  const OpFaults* Find(const std::string& op) const;
  bool empty() const { return ops_.empty(); }
  const std::map<std::string, OpFaults>& ops() const { return ops_; }

 private:
  std::map<std::string, OpFaults> ops_;
};

// The crash kinds, for the glue and the tests: each one does what it says
// and never returns.
[[noreturn]] void CrashWithAbort(const std::string& op);
[[noreturn]] void CrashWithSegv(const std::string& op);
[[noreturn]] void HangForever(const std::string& op);

// The `error=R` perturbation of element `index`: the factor 1 + R * s where
// s = +1 or -1 from a hash of the index (deterministic, no RNG state).
float ErrorFactor(double relative, int64_t index);

}  // namespace spyre_emu
