#pragma once
// The "op" case kind's parsed form and the three ways it runs an op: in
// reference precision on the CPU (golden outputs), in the device's format on
// the CPU (the yardstick), and on the device under test.
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "harness/generator.h"
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

// SHA-256 digests of the inputs, as a JSON array dump (golden metadata).
std::string InputDigests(const Inputs& inputs);

// Floating inputs converted to fp64, the op run, floating outputs stored as fp32.
Outputs RunReference(const OpCase& oc, const Inputs& inputs);

// Floating inputs rounded through DL16 (fp32), the op run in fp32, outputs
// rounded through DL16: the error the CPU makes in the device's format.
Outputs RunYardstick(const OpCase& oc, const Inputs& inputs);

}  // namespace suites
