#pragma once
// The "op" case kind's parsed form and the three ways it runs an op: in
// reference precision on the CPU (golden outputs), in the device's format on
// the CPU (the yardstick), and on the device under test.
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "harness/safetensors/safetensors.h"
#include "harness/inputs/generator.h"
#include "base/status.h"
#include "suite_file/suite_file.h"
#include "suites/ops/op_registry.h"

namespace suites {

struct OpInput {
  harness::InputSpec spec;  // generated from the case seed...
  std::string file;         // ...or read from this safetensors file (resolved path)
  std::string tensor;       // tensor name inside `file`
  // A file input's "dtype": its tensor is converted to it (floating to
  // floating; an integer or bool tensor must already have it).
  c10::optional<at::ScalarType> dtype;
  // The case's (or sweep's) dtype: converts a floating tensor, leaves an
  // integer or bool one alone.
  c10::optional<at::ScalarType> case_dtype;
  std::vector<int64_t> permute;  // as a generated input's: a strided view, same logical shape
  std::string pointer;           // where the input is in the suite file, for errors
};

struct OpCase {
  const OpDef* op = nullptr;
  std::vector<OpInput> inputs;
  Attrs attrs;
  uint64_t seed = 0;
  nlohmann::json tolerance;     // overrides (per op from the suite, then per case); may be null
  std::string imported_golden;  // resolved path of an imported golden file, or empty
};

// Parses and checks an expanded case body. Errors name the file's JSON pointer.
harness::StatusOr<OpCase> ParseOpCase(const harness::SuiteSpec& suite, const harness::CaseSpec& c);

// The dtype a file input has in the case, from the dtype `stored` in the
// file and the input's settings (see OpInput); also checks that `permute`
// is a permutation of the tensor's `rank` dims. Errors name the input.
harness::StatusOr<at::ScalarType> FileInputDtype(const OpInput& in, at::ScalarType stored,
                                                 int64_t rank);

// The case's inputs on the CPU, in their own dtypes (and strides).
harness::StatusOr<Inputs> BuildInputs(const OpCase& oc);

// An input's logical shape and dtype, known without generating or reading
// it: a file input's come from the file's safetensors header (its data is
// not read) and its dtype settings. A file that lacks the named tensor is
// NotFound; a dtype the tensor cannot be converted to, or a permute that is
// not a permutation of its dims, is InvalidInput naming the case.
struct InputShape {
  std::vector<int64_t> shape;
  at::ScalarType dtype = at::kFloat;
};
harness::StatusOr<std::vector<InputShape>> InputShapes(const OpCase& oc);

// The shapes of the outputs the op produces for the case's inputs (one per
// output, in order), computed without running the op on real data. Empty
// (nullopt) when the op rejects the inputs themselves: the case reports that
// when it runs. Errors: an input file as in InputShapes.
using Shapes = std::vector<std::vector<int64_t>>;
harness::StatusOr<std::optional<Shapes>> ExpectedOutputShapes(const OpCase& oc);

// The shape and device dtype (ExpectedOutputDtypes) of each output, as
// ExpectedOutputShapes.
struct OutputInfo {
  std::vector<int64_t> shape;
  at::ScalarType dtype = at::kFloat;
};
harness::StatusOr<std::optional<std::vector<OutputInfo>>> ExpectedOutputs(const OpCase& oc);
// Runs the op once on its input shapes (meta tensors, else zeros on the
// CPU): an argument libtorch rejects (a dim past the input's rank, a weight
// of the wrong size) is an InvalidInput naming `suite_file`, the case and
// the op, with libtorch's first line.
harness::Status CheckOpAcceptsInputs(const OpCase& oc, const std::string& suite_file,
                                     const std::string& case_id);

// What to do about a wrong golden file: regenerate it (`suite`), or, for an
// imported file, fix or re-export it ('golden generate' leaves it alone).
std::string GoldenFixHint(const OpCase& oc, const std::string& suite, const std::string& suites_root = "",
                          const std::string& golden_path = "");

// A golden output can serve an output of dtype `expected`
// (harness::ReferenceDtypeProblem): fp32 or fp64 for a floating output, the
// same dtype for an integer or bool one. `name` is the tensor, `path` the
// file, `hint` what to do (GoldenFixHint).
harness::Status CheckReferenceDtype(at::ScalarType ref, at::ScalarType expected,
                                    const std::string& name, const std::string& path,
                                    const std::string& hint);

// The golden file (at `path`, its header) holds exactly the outputs the op
// produces for the case's inputs: out0..outN-1, no other tensor, each of a
// dtype that can serve the output and of the shape ExpectedOutputs gives.
// Errors name the file and tensor, what was found and expected, and say what
// to do (regenerate, or fix an imported file).
harness::Status CheckGoldenOutputs(const OpCase& oc, const harness::SafetensorsHeader& golden,
                                   const std::string& path, const std::string& suite,
                                   const std::string& suites_root = "");

// SHA-256 digests of the inputs, as a JSON array dump (golden metadata).
std::string InputDigests(const Inputs& inputs);

// Floating inputs converted to fp64, the op run, floating outputs stored as fp32.
Outputs RunReference(const OpCase& oc, const Inputs& inputs);
// The same with the floating outputs left in fp64: what the yardstick's own
// error is measured against when a case runs (harness::CompareOutput's
// cpu_ref), independent of the golden file being judged.
Outputs RunReferenceInDouble(const OpCase& oc, const Inputs& inputs);

// The yardstick: the op computed on the CPU the way the device computes it,
// outputs in the dtypes the device returns (ExpectedOutputDtypes). fp16/bf16
// inputs are rounded through DL16 and the op runs in fp32 with its floating
// outputs rounded through DL16 (the error the CPU makes in DL16); fp32
// inputs stay fp32 and the op runs in fp32 (the CPU's own fp32 error).
Outputs RunYardstick(const OpCase& oc, const Inputs& inputs);

// The dtype of each output of the op on the device, given the dtypes of the
// case's inputs and the op's outputs computed on the CPU in any precision:
// floating outputs take the promoted dtype of the floating inputs, the
// others keep their own.
std::vector<at::ScalarType> ExpectedOutputDtypes(const std::vector<at::ScalarType>& inputs,
                                                 const Outputs& outs);

}  // namespace suites
