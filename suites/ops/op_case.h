#pragma once
// The "op" case kind's parsed form and the three ways it runs an op: in
// reference precision on the CPU (golden outputs), in the device's format on
// the CPU (the yardstick), and on the device under test.
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "harness/generator.h"
#include "harness/safetensors.h"
#include "harness/status.h"
#include "harness/suite.h"
#include "suites/op_registry.h"

namespace suites {

struct OpInput {
  harness::InputSpec spec;  // generated from the case seed...
  std::string file;         // ...or read from this safetensors file (resolved path)
  std::string tensor;       // tensor name inside `file`
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

// The case's inputs on the CPU, in their own dtypes (and strides).
harness::StatusOr<Inputs> BuildInputs(const OpCase& oc);

// An input's logical shape and dtype, known without generating or reading
// it: a file input's come from the file's safetensors header (its data is
// not read). A file that lacks the named tensor is NotFound.
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

// A golden output is fp32 (or fp64): an integer one would be judged against
// the yardstick's own error from it and pass whatever the device did.
// `name` is the tensor, `path` the file, `suite` the suite to regenerate.
harness::Status CheckReferenceDtype(const at::Tensor& ref, const std::string& name,
                                    const std::string& path, const std::string& suite);

// The golden file (read from `path`) holds exactly the outputs the op
// produces for the case's inputs: out0..outN-1, no other tensor, each a
// golden dtype and of the shape ExpectedOutputShapes gives. Errors name the
// file and tensor, the shape found and expected, and say to regenerate.
harness::Status CheckGoldenOutputs(const OpCase& oc, const harness::SafetensorsFile& golden,
                                   const std::string& path, const std::string& suite);

// SHA-256 digests of the inputs, as a JSON array dump (golden metadata).
std::string InputDigests(const Inputs& inputs);

// Floating inputs converted to fp64, the op run, floating outputs stored as fp32.
Outputs RunReference(const OpCase& oc, const Inputs& inputs);

// Floating inputs rounded through DL16 (fp32), the op run in fp32, outputs
// rounded through DL16: the error the CPU makes in the device's format.
Outputs RunYardstick(const OpCase& oc, const Inputs& inputs);

}  // namespace suites
