#include <algorithm>
#include <filesystem>

#include "harness/compare/tolerance.h"
#include "harness/safetensors/safetensors.h"
#include "base/input_file.h"
#include "base/suggest.h"
#include "suite_file/confined_path.h"
#include "op_case.h"

namespace suites {
namespace {

using harness::InvalidInput;

harness::StatusOr<OpInput> ParseInput(const harness::SuiteSpec& suite, const nlohmann::json& j,
                                      const std::string& pointer) {
  OpInput in;
  if (j.is_object() && j.contains("file")) {
    if (!j["file"].is_string()) return InvalidInput(pointer + "/file: expected a string");
    SPYRE_ASSIGN_OR_RETURN(
        auto path,
        harness::ResolveInsideRoot(suite.root, j["file"].get<std::string>(), pointer + "/file"));
    std::error_code ec;
    if (const std::string kind = harness::NotRegularFileKind(path); !kind.empty()) {
      return InvalidInput(pointer + "/file: input file " + path + " is " + kind +
                          ", not a regular file; name a safetensors file");
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
      return harness::NotFound(pointer + "/file: input file " + path + " does not exist");
    }
    in.file = path;
    if (!j.contains("tensor") || !j["tensor"].is_string()) {
      return InvalidInput(pointer + ": a file input needs \"tensor\", the tensor's name in the file");
    }
    in.tensor = j["tensor"].get<std::string>();
    in.pointer = pointer;
    for (const auto& [key, value] : j.items()) {
      const std::string where = pointer + "/" + key;
      if (key == "file" || key == "tensor") continue;
      if (key == "dtype" || key == "case_dtype") {
        if (!value.is_string()) return InvalidInput(where + ": expected a dtype name");
        SPYRE_ASSIGN_OR_RETURN_CTX(const auto dtype,
                                   harness::ParseDtypeName(value.get<std::string>()), where);
        (key == "dtype" ? in.dtype : in.case_dtype) = dtype;
      } else if (key == "permute") {
        if (!value.is_array()) return InvalidInput(where + ": expected an array of dims");
        for (const auto& d : value) {
          if (!d.is_number_integer()) return InvalidInput(where + ": expected an array of dims");
          in.permute.push_back(d.get<int64_t>());
        }
      } else {
        return InvalidInput(where +
                            ": a file input takes \"file\", \"tensor\", \"dtype\" and "
                            "\"permute\"; '" +
                            key + "' is for generated inputs");
      }
    }
    return in;
  }
  SPYRE_ASSIGN_OR_RETURN(auto spec, harness::ParseInputSpec(j, pointer));
  in.spec = spec;
  return in;
}

}  // namespace

harness::StatusOr<OpCase> ParseOpCase(const harness::SuiteSpec& suite, const harness::CaseSpec& c) {
  const nlohmann::json& b = c.body;
  const std::string ptr = b.value("pointer", std::string("/cases/?")) + " (case '" + c.id + "')";
  OpCase oc;
  if (!b.contains("op") || !b["op"].is_string()) {
    return InvalidInput(ptr + ": an op case needs \"op\", the op's name");
  }
  const std::string name = b["op"].get<std::string>();
  oc.op = FindOp(name);
  if (oc.op == nullptr) {
    std::string known;
    for (const auto& n : OpNames()) known += (known.empty() ? "" : ", ") + n;
    return InvalidInput(ptr + "/op: unknown op '" + name + "'" +
                        harness::DidYouMean(name, OpNames()) + " (known: " + known + ")");
  }
  if (!b.contains("inputs") || !b["inputs"].is_array()) {
    return InvalidInput(ptr + ": an op case needs \"inputs\", an array");
  }
  const auto n = static_cast<int>(b["inputs"].size());
  if (n < oc.op->min_inputs || n > oc.op->max_inputs) {
    return InvalidInput(ptr + "/inputs: op '" + name + "' takes " +
                        std::to_string(oc.op->min_inputs) + ".." +
                        std::to_string(oc.op->max_inputs) + " inputs, got " + std::to_string(n));
  }
  for (int i = 0; i < n; ++i) {
    SPYRE_ASSIGN_OR_RETURN(auto in,
                           ParseInput(suite, b["inputs"][i], ptr + "/inputs/" + std::to_string(i)));
    oc.inputs.push_back(std::move(in));
  }
  // The generated inputs, their float64 reference copies and the yardstick's
  // own are all built before the op runs: bounded before anything is allocated.
  double need = 0;
  for (const OpInput& in : oc.inputs) {
    if (!in.file.empty()) continue;  // bounded by the file-size limit
    double numel = 1;
    for (int64_t d : in.spec.shape) numel *= static_cast<double>(d);
    need += numel * static_cast<double>(c10::elementSize(in.spec.dtype) + 8 + 4);
  }
  if (need > static_cast<double>(harness::kCaseMemoryBudget)) {
    return InvalidInput(ptr + "/inputs: the inputs need about " +
                        harness::ByteSizeText(static_cast<uint64_t>(std::min(need, 1.8e19))) +
                        " of host memory (with their reference copies), over the " +
                        harness::ByteSizeText(harness::kCaseMemoryBudget) +
                        " budget of one case; use smaller shapes");
  }
  SPYRE_ASSIGN_OR_RETURN(auto attrs,
                         ResolveAttrs(*oc.op, b.value("attrs", nlohmann::json()), ptr + "/attrs"));
  oc.attrs = std::move(attrs);
  oc.seed = b.value("seed", uint64_t{0});
  if (b.contains("tolerance")) {
    oc.tolerance = b["tolerance"];
    harness::Tolerance probe;
    SPYRE_RETURN_IF_ERROR(harness::ApplyToleranceOverrides(oc.tolerance, ptr + "/tolerance", &probe));
  }
  if (b.contains("golden")) {
    SPYRE_ASSIGN_OR_RETURN(
        auto path,
        harness::ResolveInsideRoot(suite.root, b["golden"].get<std::string>(), ptr + "/golden"));
    std::error_code ec;
    if (const std::string kind = harness::NotRegularFileKind(path); !kind.empty()) {
      return InvalidInput(ptr + "/golden: imported golden file " + path + " is " + kind +
                          ", not a regular file; name a safetensors file");
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
      return harness::NotFound(ptr + "/golden: missing imported golden file " + path);
    }
    oc.imported_golden = path;
  }
  return oc;
}

harness::StatusOr<at::ScalarType> FileInputDtype(const OpInput& in, at::ScalarType stored,
                                                 int64_t rank) {
  const std::string what = in.pointer + ": tensor '" + in.tensor + "' of " + in.file + " is " +
                           harness::DtypeName(stored);
  if (!in.permute.empty()) {
    std::vector<int64_t> sorted = in.permute;
    std::sort(sorted.begin(), sorted.end());
    bool is_perm = static_cast<int64_t>(sorted.size()) == rank;
    for (size_t i = 0; is_perm && i < sorted.size(); ++i) is_perm = sorted[i] == int64_t(i);
    if (!is_perm) {
      return InvalidInput(in.pointer + "/permute: expected a permutation of the dims of tensor '" +
                          in.tensor + "' (rank " + std::to_string(rank) + ")");
    }
  }
  const bool floating = at::isFloatingType(stored);
  if (in.dtype.has_value()) {
    if (*in.dtype == stored || (floating && at::isFloatingType(*in.dtype))) return *in.dtype;
    return InvalidInput(what + ", \"dtype\" asks for " + harness::DtypeName(*in.dtype) +
                        ": a file tensor is converted only between floating dtypes; fix the "
                        "input's \"dtype\" or the file");
  }
  if (in.case_dtype.has_value() && floating && at::isFloatingType(*in.case_dtype)) {
    return *in.case_dtype;
  }
  return stored;
}

harness::StatusOr<Inputs> BuildInputs(const OpCase& oc) {
  Inputs out;
  for (size_t i = 0; i < oc.inputs.size(); ++i) {
    const OpInput& in = oc.inputs[i];
    if (in.file.empty()) {
      out.push_back(harness::GenerateInput(in.spec, oc.seed, static_cast<int>(i)));
      continue;
    }
    SPYRE_ASSIGN_OR_RETURN(auto file, harness::ReadSafetensors(in.file));
    const at::Tensor* t = file.Find(in.tensor);
    if (t == nullptr) return harness::NotFound(in.file + ": has no tensor '" + in.tensor + "'");
    SPYRE_ASSIGN_OR_RETURN(auto dtype, FileInputDtype(in, t->scalar_type(), t->dim()));
    at::Tensor x = t->to(dtype);
    if (!in.permute.empty()) {
      // The same logical tensor, stored so that permuting the storage by
      // `permute` gives it back: a strided view, as a generated input's.
      std::vector<int64_t> inverse(in.permute.size());
      for (size_t d = 0; d < in.permute.size(); ++d)
        inverse[in.permute[d]] = static_cast<int64_t>(d);
      x = x.permute(inverse).contiguous().permute(in.permute);
    }
    out.push_back(x);
  }
  return out;
}

std::string InputDigests(const Inputs& inputs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& t : inputs) j.push_back(harness::TensorDigest(t));
  return j.dump();
}

}  // namespace suites
