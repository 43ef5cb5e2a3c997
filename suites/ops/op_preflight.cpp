// What the run's preflight checks for an op case (OpCaseKind::CheckFiles and
// CheckGolden): its input files, and its golden file against the number,
// dtypes and shapes of the outputs the op will produce, known before it runs.
#include <set>

#include <c10/util/Exception.h>

#include "harness/compare/compare.h"
#include "harness/golden/golden.h"
#include "harness/safetensors/safetensors.h"
#include "op_case.h"

namespace suites {
namespace {

// The dtype the golden reference runs the op in (RunReference): floating
// inputs in fp64, the rest as they are. Shape rules may depend on the dtype
// (an index must be integral, a mask bool), so the probe uses these.
at::ScalarType ReferenceDtype(at::ScalarType t) { return at::isFloatingType(t) ? at::kDouble : t; }

// Ops this libtorch (1.13) has no Meta kernel for, as measured over the ops
// suite: probing them on meta tensors throws, and every c10::Error records a
// backtrace (about 2 ms), which was 95% of the preflight's cost. They go
// straight to the CPU run on zeros. A stale entry only takes the CPU path
// for an op that no longer needs it; a missing one still works, by the throw.
bool LacksMetaKernel(const std::string& op) {
  static constexpr const char* kOps[] = {"abs",  "embedding", "index_select", "layer_norm",
                                         "relu", "var",       "where"};
  for (const char* name : kOps) {
    if (op == name) return true;
  }
  return false;
}

Outputs RunOn(const OpCase& oc, const std::vector<InputShape>& inputs, bool meta) {
  Inputs probe;
  for (const InputShape& in : inputs) {
    const auto options = at::TensorOptions().dtype(ReferenceDtype(in.dtype));
    probe.push_back(meta ? at::empty(in.shape, options.device(at::kMeta))
                         : at::zeros(in.shape, options));
  }
  return oc.op->run(probe, oc.attrs);
}

}  // namespace

harness::StatusOr<std::vector<InputShape>> InputShapes(const OpCase& oc) {
  std::vector<InputShape> out;
  for (const OpInput& in : oc.inputs) {
    if (in.file.empty()) {
      // `shape` is the logical shape, permuted (strided) or not.
      out.push_back({in.spec.shape, in.spec.dtype});
      continue;
    }
    SPYRE_ASSIGN_OR_RETURN(auto header, harness::ReadSafetensorsHeader(in.file));
    const harness::SafetensorsEntry* e = header.Find(in.tensor);
    if (e == nullptr) {
      return harness::NotFound(
          in.file + ": has no tensor '" + in.tensor +
          "', which the case's inputs name; fix the suite's \"tensor\" or the file");
    }
    SPYRE_ASSIGN_OR_RETURN(auto dtype,
                           FileInputDtype(in, e->dtype, static_cast<int64_t>(e->shape.size())));
    out.push_back({e->shape, dtype});
  }
  return out;
}

harness::StatusOr<std::optional<std::vector<OutputInfo>>> ExpectedOutputs(const OpCase& oc) {
  SPYRE_ASSIGN_OR_RETURN(auto inputs, InputShapes(oc));
  // Meta tensors carry shapes and dtypes but no data: the op's own shape
  // rules run for free whatever the sizes. An op without a meta kernel runs
  // once on zeros on the CPU instead, as costly as one reference run.
  Outputs outs;
  for (bool meta : {true, false}) {
    if (meta && LacksMetaKernel(oc.op->name)) continue;
    try {
      outs = RunOn(oc, inputs, meta);
      break;
    } catch (const c10::Error&) {
      // The op rejects these inputs on the CPU too: it will say why when the
      // case runs, which is a case error, not something a golden file caused.
      if (!meta) return std::optional<std::vector<OutputInfo>>();
    }
  }
  std::vector<at::ScalarType> in_dtypes;
  for (const InputShape& in : inputs) in_dtypes.push_back(in.dtype);
  const std::vector<at::ScalarType> dtypes = ExpectedOutputDtypes(in_dtypes, outs);
  std::vector<OutputInfo> info;
  for (size_t i = 0; i < outs.size(); ++i) info.push_back({outs[i].sizes().vec(), dtypes[i]});
  return std::optional(std::move(info));
}

harness::Status CheckOpAcceptsInputs(const OpCase& oc, const std::string& suite_file,
                                     const std::string& case_id) {
  SPYRE_ASSIGN_OR_RETURN(const auto inputs, InputShapes(oc));
  for (bool meta : {true, false}) {
    if (meta && LacksMetaKernel(oc.op->name)) continue;
    try {
      RunOn(oc, inputs, meta);
      return harness::Status::Ok();
    } catch (const c10::Error& e) {
      if (meta) continue;  // no meta kernel, or the shapes: the CPU decides
      std::string what = e.what_without_backtrace();
      what = what.substr(0, what.find('\n'));
      return harness::InvalidInput(suite_file + ": case '" + case_id + "' (op " + oc.op->name +
                                   "): libtorch refused it: " + what +
                                   "; fix the case's attrs or inputs");
    } catch (const std::exception& e) {
      // An attribute the op needs for these inputs, missing (pow of one
      // input without "exponent").
      return harness::InvalidInput(suite_file + ": case '" + case_id + "' (op " + oc.op->name +
                                   "): the op could not run: " + e.what() +
                                   "; fix the case's attrs or inputs");
    }
  }
  return harness::Status::Ok();
}

harness::StatusOr<std::optional<Shapes>> ExpectedOutputShapes(const OpCase& oc) {
  SPYRE_ASSIGN_OR_RETURN(auto outs, ExpectedOutputs(oc));
  if (!outs.has_value()) return std::optional<Shapes>();
  Shapes shapes;
  for (const OutputInfo& o : *outs) shapes.push_back(o.shape);
  return std::optional(std::move(shapes));
}

std::string GoldenFixHint(const OpCase& oc, const std::string& suite, const std::string& suites_root,
                          const std::string& golden_path) {
  if (!oc.imported_golden.empty()) {
    return "; it is the case's imported \"golden\" file: fix or re-export it ('golden generate' "
           "leaves imported files alone)";
  }
  return "; regenerate it with '" + harness::GoldenGenerateCommand(suite, suites_root, golden_path) + "'";
}

harness::Status CheckReferenceDtype(at::ScalarType ref, at::ScalarType expected,
                                    const std::string& name, const std::string& path,
                                    const std::string& hint) {
  const std::string problem = harness::ReferenceDtypeProblem(ref, expected);
  if (problem.empty()) return harness::Status::Ok();
  return harness::InvalidInput(path + ": tensor '" + name +
                               "' cannot serve as the golden output: " + problem + hint);
}

harness::Status CheckGoldenOutputs(const OpCase& oc, const harness::SafetensorsHeader& golden,
                                   const std::string& path, const std::string& suite,
                                   const std::string& suites_root) {
  SPYRE_ASSIGN_OR_RETURN(auto expected, ExpectedOutputs(oc));
  const std::string hint = GoldenFixHint(oc, suite, suites_root, path);
  if (!expected.has_value()) {
    // Shapes and dtypes unknown until the case runs (and errors): a golden
    // output is still never fp16 or bf16, less precise than any judge needs.
    for (const harness::SafetensorsEntry& e : golden.tensors) {
      if (e.name.rfind("out", 0) != 0) continue;
      if (e.dtype == at::kHalf || e.dtype == at::kBFloat16) {
        return CheckReferenceDtype(e.dtype, at::kFloat, e.name, path, hint);
      }
    }
    return harness::Status::Ok();
  }
  const std::vector<OutputInfo>& outs = *expected;
  const std::string produces = "the op '" + oc.op->name + "' produces " +
                               std::to_string(outs.size()) + " output(s) for this case's inputs";
  std::set<std::string> names;
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string name = "out" + std::to_string(i);
    names.insert(name);
    const harness::SafetensorsEntry* ref = golden.Find(name);
    if (ref == nullptr) {
      return harness::InvalidInput(path + ": has no tensor '" + name + "'; " + produces + hint);
    }
    SPYRE_RETURN_IF_ERROR(CheckReferenceDtype(ref->dtype, outs[i].dtype, name, path, hint));
    if (ref->shape != outs[i].shape) {
      return harness::InvalidInput(path + ": tensor '" + name + "' has shape " +
                                   harness::ShapeText(ref->shape) + ", the op '" + oc.op->name +
                                   "' produces " + harness::ShapeText(outs[i].shape) +
                                   " for this case's inputs" + hint);
    }
  }
  // The run compares output i with out<i> and counts the file's tensors: one
  // more tensor of any name would be a case error after the timed runs.
  for (const harness::SafetensorsEntry& e : golden.tensors) {
    if (names.count(e.name) == 0) {
      return harness::InvalidInput(path + ": holds tensor '" + e.name +
                                   "', which is not an output; " + produces + hint);
    }
  }
  return harness::Status::Ok();
}

}  // namespace suites
