// The "op" case kind: one op, its generated (or file) inputs, run on the
// device under test and judged against golden outputs (harness/compare/compare.h).
#include <cmath>

#include "harness/compare/compare.h"
#include "harness/golden/golden.h"
#include "harness/case_kinds/case_kinds.h"
#include "harness/wall_sampler.h"
#include "op_case.h"
#include "suites/device_under_test.h"

namespace suites {
namespace {

using harness::CaseResult;
using harness::CaseStatus;

Inputs ToDevice(const Inputs& inputs) {
  Inputs out;
  for (const auto& t : inputs) out.push_back(t.to(DeviceUnderTest()));
  return out;
}

// Folds one output's comparison into the case's worst values.
void Accumulate(const harness::OutputComparison& c, const harness::Tolerance& t, CaseResult* r) {
  auto worst = [](double* slot, double v, bool larger_is_worse) {
    if (std::isnan(*slot) || (larger_is_worse ? v > *slot : v < *slot)) *slot = v;
  };
  worst(&r->max_abs_err, c.max_abs_err, true);
  worst(&r->max_rel_err, c.max_rel_err, true);
  worst(&r->rel_l2, c.rel_l2, true);
  worst(&r->max_ulp, c.max_ulp, true);
  worst(&r->cosine, c.cosine, false);
  for (auto& m : c.Metrics(t)) r->metrics.push_back(std::move(m));
  if (!c.passed && r->status == CaseStatus::kPassed) {
    r->status = CaseStatus::kFailed;
    r->message = c.message;
  }
}

class OpCaseKind : public harness::CaseKindOf<OpCase> {
 public:
  harness::StatusOr<OpCase> Parse(const harness::SuiteSpec& suite,
                                  const harness::CaseSpec& c) const override {
    return ParseOpCase(suite, c);
  }

  // The preflight's checks (op_preflight.cpp): a broken input file or a
  // golden file with the wrong outputs is exit 2 before anything is recorded.
  harness::Status CheckFiles(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                             const OpCase& oc) const override {
    return CheckOpAcceptsInputs(oc, suite.path.empty() ? suite.name : suite.path, c.id);
  }

  harness::Status CheckGolden(const harness::SuiteSpec& suite, const harness::CaseSpec&,
                              const OpCase& oc, const harness::SafetensorsHeader& golden,
                              const std::string& path) const override {
    return CheckGoldenOutputs(oc, golden, path, suite.name, suite.root);
  }

  bool UsesImportedGolden(const harness::CaseSpec& c, const OpCase&) const override {
    return c.body.contains("golden");
  }

  std::string ImportedGoldenPath(const harness::SuiteSpec&, const harness::CaseSpec&,
                                 const OpCase& oc) const override {
    return oc.imported_golden;
  }

  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec& suite, const harness::CaseSpec& c, const OpCase& oc,
      const harness::ExecOptions&) const override {
    SPYRE_ASSIGN_OR_RETURN(auto inputs, BuildInputs(oc));
    harness::SafetensorsFile f;
    Outputs outs = RunReference(oc, inputs);
    for (size_t i = 0; i < outs.size(); ++i)
      f.tensors.emplace_back("out" + std::to_string(i), outs[i]);
    f.metadata = harness::GeneratorMetadata();
    f.metadata.insert({{"format", "spyre-regress-golden/1"},
                       {"suite", suite.name},
                       {"case", c.id},
                       {"op", oc.op->name},
                       {"attrs", oc.attrs.dump()},
                       {"seed", std::to_string(oc.seed)},
                       {"inputs", c.body["inputs"].dump()},
                       {"input_digests", InputDigests(inputs)},
                       {"reference_dtype", "float64"}});
    return f;
  }

  CaseResult Execute(const harness::SuiteSpec& suite, const harness::CaseSpec& c, const OpCase& oc,
                     const harness::ExecOptions& options) const override {
    auto inputs = BuildInputs(oc);
    if (!inputs.ok()) return CaseResult::Error(inputs.status().message());
    const std::string golden_path = oc.imported_golden.empty()
                                        ? harness::GoldenPath(options.golden_dir, suite.name, c.id)
                                        : oc.imported_golden;
    // A timing round reads no golden file: it judges nothing.
    harness::StatusOr<harness::SafetensorsFile> golden = harness::SafetensorsFile();
    if (options.judged) golden = harness::LoadGolden(golden_path, suite, c);
    if (!golden.ok()) return CaseResult::Error(golden.status().message());
    auto digests = golden->metadata.find("input_digests");
    if (options.judged && digests != golden->metadata.end() &&
        digests->second != InputDigests(*inputs)) {
      return CaseResult::Error(
          golden_path +
          ": the inputs differ from those the golden outputs were computed "
          "from (generator or input file changed); regenerate with 'spyre-regress golden "
          "generate --suite " +
          suite.name + "'");
    }

    // Device execution only is timed: inputs are placed before, outputs read after.
    const Inputs device_inputs = ToDevice(*inputs);
    CaseResult r;
    r.status = CaseStatus::kPassed;
    Outputs device_outs;
    harness::TakeWallSamples(
        harness::SamplingFor(suite, options),
        [&] { device_outs = oc.op->run(device_inputs, oc.attrs); }, &r);
    // One more run, untimed, under a trace scope: tracing must not inflate
    // the wall-time samples. The timed runs' outputs are released first, so
    // the peak device memory is the same whether they ran or not.
    device_outs.clear();
    const DeviceProfile profile =
        ProfileOnDevice([&] { device_outs = oc.op->run(device_inputs, oc.attrs); });
    r.modeled_us = profile.modeled_us;
    r.fallback_ops = profile.fallback_ops;
    r.peak_device_bytes = profile.peak_device_bytes;
    r.ops = profile.ops;
    if (!options.judged) return r;

    // The yardstick's outputs have the number, shapes and dtypes the device
    // must return: a golden file that disagrees with them is the file's
    // fault (a case error naming it), a device output that does is a failure.
    const Outputs yard = RunYardstick(oc, *inputs);
    const Outputs fresh = RunReferenceInDouble(oc, *inputs);
    const std::string hint = GoldenFixHint(oc, suite.name, suite.root, golden_path);
    if (golden->tensors.size() != yard.size()) {
      return CaseResult::Error(golden_path + ": holds " + std::to_string(golden->tensors.size()) +
                               " tensors, the op produces " + std::to_string(yard.size()) +
                               " outputs" + hint);
    }
    const int64_t k = oc.op->reduction_length ? oc.op->reduction_length(*inputs, oc.attrs) : 1;
    for (size_t i = 0; i < yard.size(); ++i) {
      const std::string name = "out" + std::to_string(i);
      const at::Tensor* ref = golden->Find(name);
      if (ref == nullptr)
        return CaseResult::Error(golden_path + ": has no tensor '" + name + "'" + hint);
      const at::ScalarType expected = yard[i].scalar_type();
      const harness::Status typed =
          CheckReferenceDtype(ref->scalar_type(), expected, name, golden_path, hint);
      if (!typed.ok()) return CaseResult::Error(typed.message());
      if (ref->sizes() != yard[i].sizes()) {
        return CaseResult::Error(golden_path + ": tensor '" + name + "' has shape " +
                                 harness::ShapeText(ref->sizes()) + ", the op produces " +
                                 harness::ShapeText(yard[i].sizes()) + hint);
      }
    }
    if (device_outs.size() != yard.size()) {
      r.status = CaseStatus::kFailed;
      r.message = "the device returned " + std::to_string(device_outs.size()) +
                  " outputs, the op has " + std::to_string(yard.size());
    }
    for (size_t i = 0; i < device_outs.size() && i < yard.size(); ++i) {
      const std::string name = "out" + std::to_string(i);
      const at::Tensor out = device_outs[i].cpu();
      const at::ScalarType expected = yard[i].scalar_type();
      harness::Tolerance tol = harness::DefaultTolerance(expected, k);
      if (!oc.tolerance.is_null()) {
        harness::Status s = harness::ApplyToleranceOverrides(oc.tolerance, "tolerance", &tol);
        if (!s.ok()) return CaseResult::Error(s.message());
      }
      const at::Tensor* yard_ref = i < fresh.size() ? &fresh[i] : nullptr;
      Accumulate(
          harness::CompareOutput(name, out, *golden->Find(name), &yard[i], tol, expected, yard_ref),
          tol, &r);
    }
    r.extra["op"] = oc.op->name;
    r.extra["reduction_length"] = k;
    r.extra["device"] = DeviceUnderTest().str();
    // Which op's own output departed (a failed case's message names it).
    device_outs.clear();
    RecordOpErrors([&] { device_outs = oc.op->run(device_inputs, oc.attrs); }, &r);
    return r;
  }
};

SPYRE_REGISTER_CASE_KIND("op", OpCaseKind);

}  // namespace
}  // namespace suites
