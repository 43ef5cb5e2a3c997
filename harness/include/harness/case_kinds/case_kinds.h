#pragma once
// Case kinds ("op", "decode", ...) and the registry the runner finds them in.
//
// A kind parses a case body once, when its suite is loaded (so a bad suite
// file fails before anything runs), into its own typed case, and every other
// hook receives that typed case: the run's preflight (CheckFiles,
// CheckGolden), `golden` (ComputeGolden) and Execute, which runs the case in
// a worker process. libtorch exceptions may escape Execute; the worker
// boundary turns them into status `error`.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/case_result.h"
#include "harness/safetensors/safetensors.h"
#include "suite_file/suite_file.h"

namespace harness {

struct ExecOptions {
  std::string suites_dir;
  std::string golden_dir;
  int warmup = -1;  // -1: the suite's default
  int repeat = -1;
  // > 0: wall samples past `repeat`, up to this many, while the case's
  // samples so far are short (a confirmation process: wall_sampler.h).
  int min_repeat = 0;
  // A wall sample times a batch of calls lasting at least this long
  // (harness/wall_sampler.h); -1: kDefaultMinSampleUs, 0: one call.
  double min_sample_us = -1;
  // false: a parity-only case (`run` without a latency verdict for it):
  // the device runs once, no warm-up, no wall samples.
  bool timed = true;
  // false: a timing round of `run --rounds N` (all but the run's main pass).
  // Only the device's timed and traced runs are needed; a kind skips what
  // only judges (golden files, reference runs, comparison). The result's
  // status and metrics then mean nothing and are not recorded.
  bool judged = true;
};

class CaseKind;

// A case body as its kind parsed and checked it, kept in CaseSpec::parsed by
// CaseKind::Parse. Each kind's own type (the T of CaseKindOf<T>) is held in
// one of these; `kind` is the kind that parsed it.
class ParsedCase {
 public:
  explicit ParsedCase(const CaseKind* k) : kind(k) {}
  virtual ~ParsedCase() = default;
  const CaseKind* const kind;
};

// A case kind as the runner, `golden` and the tests call it. Each hook but
// Parse reads the case through c.parsed, so a case is parsed once (when its
// suite is loaded) and a CaseSpec reaches the hooks only from LoadSuite.
// A kind is written as a CaseKindOf<T> (below); SPYRE_REGISTER_CASE_KIND
// turns it into one of these.
class CaseKind {
 public:
  virtual ~CaseKind() = default;
  // Parses and checks c->body into c->parsed; errors name the JSON pointer
  // inside the case.
  virtual Status Parse(const SuiteSpec& suite, CaseSpec* c) const = 0;
  virtual CaseResult Execute(const SuiteSpec& suite, const CaseSpec& c,
                             const ExecOptions& options) const = 0;
  virtual StatusOr<SafetensorsFile> ComputeGolden(const SuiteSpec& suite, const CaseSpec& c,
                                                  const ExecOptions& options) const = 0;
  virtual bool UsesImportedGolden(const CaseSpec& c) const = 0;
  virtual std::string ImportedGoldenPath(const SuiteSpec& suite, const CaseSpec& c) const = 0;
  virtual bool HasGolden(const CaseSpec& c) const = 0;
  virtual Status CheckGolden(const SuiteSpec& suite, const CaseSpec& c,
                             const SafetensorsHeader& golden, const std::string& path) const = 0;
  virtual Status CheckFiles(const SuiteSpec& suite, const CaseSpec& c) const = 0;
  virtual bool TimesHost(const CaseSpec& c) const = 0;
};

// What a case kind implements. Parse reads the case body once into a T;
// every other hook receives that T.
template <typename T>
class CaseKindOf {
 public:
  using Parsed = T;
  virtual ~CaseKindOf() = default;
  // Parses and checks a case body when the suite is loaded (so a bad suite
  // file fails before anything runs); errors name the JSON pointer inside
  // the case.
  virtual StatusOr<T> Parse(const SuiteSpec& suite, const CaseSpec& c) const = 0;
  // Runs the case in a worker process: builds inputs, runs warm-up + repeats
  // on the device under test, compares with the golden outputs and fills a
  // CaseResult (never throws for expected failures).
  virtual CaseResult Execute(const SuiteSpec& suite, const CaseSpec& c, const T& parsed,
                             const ExecOptions& options) const = 0;
  // Computes the case's golden outputs on the CPU in reference precision,
  // with their metadata (what `golden generate` writes and `golden verify`
  // recomputes). Kinds without golden files keep this default, an error.
  virtual StatusOr<SafetensorsFile> ComputeGolden(const SuiteSpec&, const CaseSpec& c, const T&,
                                                  const ExecOptions&) const {
    return InvalidInput("case '" + c.id + "' of kind '" + c.kind + "' has no golden outputs");
  }
  // True when the case names an imported golden file (produced elsewhere),
  // which `golden generate` never overwrites.
  virtual bool UsesImportedGolden(const CaseSpec&, const T&) const { return false; }
  // The resolved path of that imported file ("" when there is none). The
  // run's preflight and `golden verify` check it with CheckGolden, as they
  // check a generated one.
  virtual std::string ImportedGoldenPath(const SuiteSpec&, const CaseSpec&, const T&) const {
    return "";
  }
  // False for kinds that compare with no golden outputs (e.g. "timing",
  // which checks modeled figures against published ones); `golden generate`
  // and `verify` pass over them.
  virtual bool HasGolden(const CaseSpec&, const T&) const { return true; }
  // Checks what a case's golden file (at `path`) holds, from its header
  // (names, dtypes, shapes, metadata), before a run starts, so that a wrong
  // file is exit 2 rather than a recorded case error; what only the values
  // can tell is still found when the case runs. The default accepts any file.
  virtual Status CheckGolden(const SuiteSpec&, const CaseSpec&, const T&,
                             const SafetensorsHeader& /*golden*/,
                             const std::string& /*path*/) const {
    return Status::Ok();
  }
  // Checks the files a case reads other than its golden file (a model's
  // checkpoint, an op's input files) before a run starts, for every selected
  // case, golden or not: a file that cannot serve the case is exit 2 rather
  // than a recorded case error. Must stay cheap (headers, not data): it runs
  // for every case of every run. The default has no files to check.
  virtual Status CheckFiles(const SuiteSpec&, const CaseSpec&, const T&) const {
    return Status::Ok();
  }
  // False for kinds whose cases run nothing on the host worth timing (e.g.
  // "timing", which evaluates the cost model for full-size models): `run
  // --latency all` then takes no wall samples of them and judges no wall
  // time, rather than warning that it has too few.
  virtual bool TimesHost(const CaseSpec&, const T&) const { return true; }
};

namespace case_kinds_internal {

// The error for a case whose c.parsed this kind did not make.
Status NotParsed(const CaseSpec& c);

template <typename T>
class ParsedAs final : public ParsedCase {
 public:
  ParsedAs(const CaseKind* k, T v) : ParsedCase(k), value(std::move(v)) {}
  const T value;
};

// A CaseKindOf<T> (`Kind`) as a CaseKind: parses into c->parsed, then hands
// each hook the T kept there.
template <typename Kind>
class Adapter final : public CaseKind {
  using T = typename Kind::Parsed;

 public:
  Status Parse(const SuiteSpec& suite, CaseSpec* c) const override {
    SPYRE_ASSIGN_OR_RETURN(T parsed, kind_.Parse(suite, *c));
    c->parsed = std::make_shared<const ParsedAs<T>>(this, std::move(parsed));
    return Status::Ok();
  }
  CaseResult Execute(const SuiteSpec& suite, const CaseSpec& c,
                     const ExecOptions& options) const override {
    const T* t = Typed(c);
    if (t == nullptr) return CaseResult::Error(NotParsed(c).message());
    return kind_.Execute(suite, c, *t, options);
  }
  StatusOr<SafetensorsFile> ComputeGolden(const SuiteSpec& suite, const CaseSpec& c,
                                          const ExecOptions& options) const override {
    const T* t = Typed(c);
    if (t == nullptr) return NotParsed(c);
    return kind_.ComputeGolden(suite, c, *t, options);
  }
  bool UsesImportedGolden(const CaseSpec& c) const override {
    const T* t = Typed(c);
    return t != nullptr && kind_.UsesImportedGolden(c, *t);
  }
  std::string ImportedGoldenPath(const SuiteSpec& suite, const CaseSpec& c) const override {
    const T* t = Typed(c);
    return t == nullptr ? std::string() : kind_.ImportedGoldenPath(suite, c, *t);
  }
  bool HasGolden(const CaseSpec& c) const override {
    const T* t = Typed(c);
    return t == nullptr || kind_.HasGolden(c, *t);
  }
  Status CheckGolden(const SuiteSpec& suite, const CaseSpec& c, const SafetensorsHeader& golden,
                     const std::string& path) const override {
    const T* t = Typed(c);
    if (t == nullptr) return NotParsed(c);
    return kind_.CheckGolden(suite, c, *t, golden, path);
  }
  Status CheckFiles(const SuiteSpec& suite, const CaseSpec& c) const override {
    const T* t = Typed(c);
    if (t == nullptr) return NotParsed(c);
    return kind_.CheckFiles(suite, c, *t);
  }
  bool TimesHost(const CaseSpec& c) const override {
    const T* t = Typed(c);
    return t != nullptr && kind_.TimesHost(c, *t);
  }

 private:
  const T* Typed(const CaseSpec& c) const {
    if (c.parsed == nullptr || c.parsed->kind != this) return nullptr;
    return &static_cast<const ParsedAs<T>&>(*c.parsed).value;
  }
  Kind kind_;
};

}  // namespace case_kinds_internal

// Registry of case kinds by name ("op", "decode", ...).
using CaseKindFactory = std::function<std::unique_ptr<CaseKind>()>;
void RegisterCaseKind(const std::string& name, CaseKindFactory factory);
const CaseKind* FindCaseKind(const std::string& name);  // nullptr when unknown
std::string CaseKindNames();                            // "decode, op, ..." for error messages

// Registers a kind from a static object in the kind's own file:
//   SPYRE_REGISTER_CASE_KIND("op", OpCaseKind);
struct CaseKindRegistrar {
  CaseKindRegistrar(const std::string& name, CaseKindFactory factory) {
    RegisterCaseKind(name, std::move(factory));
  }
};
#define SPYRE_REGISTER_CASE_KIND(name, Type)                            \
  static ::harness::CaseKindRegistrar spyre_case_kind_registrar_##Type( \
      name, [] {                                                        \
        return std::unique_ptr<::harness::CaseKind>(                    \
            new ::harness::case_kinds_internal::Adapter<Type>());       \
      })

// Fault points: places in a case kind, not ATen operators, where a fault
// spec (SPYRE_EMU_FAULTS, run --inject) makes the kind misbehave on
// purpose, e.g. the serving engine's "serving_drop". A kind registers its
// own when it loads; `run --inject` accepts their names beside the ops the
// device runs, and the kind reads their entries from the spec itself.
void RegisterFaultPoint(const std::string& name);
bool IsFaultPoint(const std::string& name);
struct FaultPointRegistrar {
  explicit FaultPointRegistrar(const std::string& name) { RegisterFaultPoint(name); }
};
// The spec a kind reads its fault points' entries from: the one a paired
// timing last switched this process to (SetFaultPointSpec), else
// SPYRE_REGRESS_INJECT (run --inject) when set and not empty, else
// SPYRE_EMU_FAULTS, else "".
std::string FaultPointSpec();
// Called with every fault switch of a paired timing (runner/worker_loop.h),
// beside the device's own, so the kind's faults switch with the device's.
void SetFaultPointSpec(const std::string& spec);

// Looks up the case's kind and executes it; an unknown kind or an exception
// becomes status `error` with the message.
CaseResult ExecuteCase(const SuiteSpec& suite, const CaseSpec& c, const ExecOptions& options);

}  // namespace harness
