#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "spyre_emu/faults.h"

namespace spyre_emu {
namespace {

constexpr const char* kKindsHelp = "use slow=F, delay=F, error=R, nan, fallback, abort, segv, hang or oom";

struct Span {
  size_t begin;  // offset into the spec
  std::string text;
};

// Splits on `sep`, remembering where each piece starts, and trims spaces.
std::vector<Span> Split(const std::string& s, size_t base, char sep) {
  std::vector<Span> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    size_t b = start, e = end;
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    out.push_back({base + b, s.substr(b, e - b)});
    if (end == s.size()) break;
    start = end + 1;
  }
  return out;
}

bool IsOpName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool ParseNumber(const std::string& s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// The error quotes the user's text: control characters (a newline in the
// variable, say) are written as \xNN so the message stays one line.
std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

class EntryError {
 public:
  EntryError(int index, const Span& entry) : index_(index), entry_(entry) {}
  Status Fail(size_t at, const std::string& what) const {
    return Status(ErrorCode::kInvalidArgument,
                  OneLine("SPYRE_EMU_FAULTS entry " + std::to_string(index_) + " '" + entry_.text +
                          "' (at character " + std::to_string(at + 1) + "): " + what));
  }

 private:
  int index_;
  Span entry_;
};

// request=N and step=N: which request of a serving trace, and at which
// step, a `serving_*` fault point (not an ATen op) misbehaves.
Status ApplyServingIndex(const std::string& op, const std::string& name, bool has_value,
                         const std::string& value, size_t at, const EntryError& err,
                         OpFaults* f) {
  if (op.rfind("serving_", 0) != 0) {
    return err.Fail(at, "'" + name + "' picks a request or step of a serving trace; only the "
                        "serving_* fault points take it, not '" + op + "'");
  }
  double v = 0;
  if (!has_value || !ParseNumber(value, &v) || v < 0 || v != std::floor(v) || v > 1e9) {
    return err.Fail(at, "'" + name + "' needs an integer from 0: " + name + "=N");
  }
  int64_t& field = name == "request" ? f->request : f->step;
  if (field >= 0) return err.Fail(at, "'" + name + "' is given twice for this op");
  field = static_cast<int64_t>(v);
  return Status();
}

// Applies one `KIND[=VALUE]` to *f.
Status ApplyKind(const std::string& op, const Span& kind, const EntryError& err, OpFaults* f) {
  const size_t eq = kind.text.find('=');
  auto trim = [](std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
  };
  const std::string name = trim(kind.text.substr(0, eq));
  const bool has_value = eq != std::string::npos;
  const std::string value = has_value ? trim(kind.text.substr(eq + 1)) : "";
  if (name.empty()) return err.Fail(kind.begin, "empty fault kind; " + std::string(kKindsHelp));
  if (name == "request" || name == "step") {
    return ApplyServingIndex(op, name, has_value, value, kind.begin, err, f);
  }

  if (name == "slow" || name == "delay" || name == "error") {
    double v = 0;
    if (!has_value)
      return err.Fail(kind.begin,
                      "'" + name + "' needs a value: " + name + (name == "error" ? "=R" : "=F"));
    if (!ParseNumber(value, &v))
      return err.Fail(kind.begin, "'" + name + "' value '" + value + "' is not a finite number");
    if (name == "error") {
      if (v <= 0) return err.Fail(kind.begin, "error=" + value + " must be greater than 0");
      if (f->error != 0.0) return err.Fail(kind.begin, "'error' is given twice for this op");
      f->error = v;
      return Status();
    }
    // slow and delay: factors on time.
    double& factor = name == "slow" ? f->slow : f->delay;
    if (v < 1) {
      return err.Fail(kind.begin,
                      name + "=" + value + " must be at least 1 (a factor on time)");
    }
    if (factor != 1.0) return err.Fail(kind.begin, "'" + name + "' is given twice for this op");
    factor = v;
    return Status();
  }
  struct Flag {
    const char* name;
    bool OpFaults::*field;
  };
  static const Flag kFlags[] = {{"nan", &OpFaults::nan},     {"fallback", &OpFaults::fallback},
                                {"abort", &OpFaults::abort}, {"segv", &OpFaults::segv},
                                {"hang", &OpFaults::hang},   {"oom", &OpFaults::oom}};
  for (const Flag& flag : kFlags) {
    if (name != flag.name) continue;
    if (has_value) return err.Fail(kind.begin, "'" + name + "' takes no value");
    if (f->*flag.field) return err.Fail(kind.begin, "'" + name + "' is given twice for this op");
    f->*flag.field = true;
    return Status();
  }
  return err.Fail(kind.begin, "unknown fault kind '" + name + "'; " + kKindsHelp);
}

}  // namespace

Status FaultPlan::Parse(const std::string& spec, FaultPlan* out) {
  FaultPlan plan;
  std::vector<Span> entries = Split(spec, 0, ';');
  // One trailing ';' (and an all-blank spec) is allowed.
  if (entries.size() > 1 && entries.back().text.empty()) entries.pop_back();
  if (entries.size() == 1 && entries[0].text.empty()) {
    *out = plan;
    return Status();
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const Span& entry = entries[i];
    const EntryError err(static_cast<int>(i + 1), entry);
    if (entry.text.empty()) return err.Fail(entry.begin, "empty entry (two ';' in a row?)");
    const size_t ns = entry.text.find("::");
    if (ns != std::string::npos) {
      return err.Fail(entry.begin + ns,
                      "operator names have no namespace: write 'mm', not 'aten::mm'");
    }
    const size_t colon = entry.text.find(':');
    if (colon == std::string::npos) {
      return err.Fail(entry.begin, "expected OP:KIND[=VALUE], e.g. mm:slow=2");
    }
    std::string op = entry.text.substr(0, colon);
    while (!op.empty() && std::isspace(static_cast<unsigned char>(op.back()))) op.pop_back();
    if (!IsOpName(op)) {
      return err.Fail(entry.begin,
                      "'" + op + "' is not an ATen operator name (letters, digits, _)");
    }
    OpFaults& faults = plan.ops_[op];
    for (const Span& kind : Split(entry.text.substr(colon + 1), entry.begin + colon + 1, ',')) {
      Status applied = ApplyKind(op, kind, err, &faults);
      if (!applied.ok()) return applied;
    }
  }
  *out = plan;
  return Status();
}

const OpFaults* FaultPlan::Find(const std::string& op) const {
  auto it = ops_.find(op);
  return it == ops_.end() ? nullptr : &it->second;
}

}  // namespace spyre_emu
