#include "detect/attribution.h"

#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <fstream>
#include <set>

#include "base/human_format.h"
#include "base/sha256.h"

namespace harness {
namespace {

// The emulator settings a worker takes from its environment.
const std::map<std::string, std::string>& EmulatorVariables() {
  static const std::map<std::string, std::string> kVariables = {{"profile", "SPYRE_EMU_PROFILE"},
                                                                {"faults", "SPYRE_EMU_FAULTS"},
                                                                {"rounding", "SPYRE_EMU_ROUNDING"},
                                                                {"cores", "SPYRE_EMU_CORES"}};
  return kVariables;
}

std::string Text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.is_null() ? std::string() : v.dump();
}

// Why a component that is not a worker setting cannot be swapped here.
std::string WhyNot(const std::string& component) {
  if (component == "libtorch" || component == "libtorch_package") {
    return "the harness is built against one libtorch: run the other build in this root, or this "
           "build in the other's (ci/stack), to separate it";
  }
  if (component == "compiler") return "a build setting: the harness on this machine was built once";
  if (component == "libc") return "the C library of this root: it comes with the whole stack";
  if (component == "harness") return "another build of the harness itself";
  if (component == "os") return "the operating system of this machine";
  if (component == "cpu") return "another machine: run the two configurations on one host";
  if (component.rfind("tag:", 0) == 0) return "a label given to the run, not a setting";
  if (component == "suite_files") return "the suite file as it is now is the candidate's; the baseline's text is not kept";
  return "not a setting a worker can take";
}

std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  Sha256 h;
  std::string buffer(1 << 16, '\0');
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    h.Update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  return h.FinishHex();
}

// One side of a BLAS swap: the file to preload (unless it is the one this
// machine resolves anyway) and the kernel set. Empty `why` on success.
struct BlasSide {
  std::map<std::string, std::string> env;
  std::string why;
};
BlasSide SideOfBlas(const nlohmann::json& recorded, const std::string& given, const nlohmann::json& here,
                    const char* flag) {
  BlasSide out;
  if (!recorded.is_object()) {
    out.why = "the run recorded no BLAS library";
    return out;
  }
  const std::string path = given.empty() ? recorded.value("path", "") : given;
  const std::string here_path = here.is_object() ? here.value("path", "") : "";
  if (path.empty()) {
    out.why = std::string("the run recorded no BLAS file; give one with ") + flag;
    return out;
  }
  if (given.empty() && path == here_path && here.is_object() &&
      (recorded.value("name", "") != here.value("name", "") ||
       recorded.value("version", "") != here.value("version", ""))) {
    out.why = "the file " + path + " holds " + here.value("name", "?") + " " +
              here.value("version", "") + " on this machine, not the run's " +
              recorded.value("name", "?") + " " + recorded.value("version", "") +
              "; give a copy of the run's library with " + flag;
    return out;
  }
  // The library this machine resolves anyway needs no file; any other must be there.
  if (path != here_path && ::access(path.c_str(), R_OK) != 0) {
    out.why = "the run's BLAS file " + path + " is not on this machine; give a copy with " + flag;
    return out;
  }
  if (path != here_path) out.env["LD_PRELOAD"] = path;
  const std::string core = recorded.value("core", "");
  if (!core.empty()) out.env["OPENBLAS_CORETYPE"] = core;
  return out;
}

// One side of a device swap: the recorded library, or the file given in
// its place, holding the recorded SHA-256.
struct DeviceSide {
  std::string path, why;
};
DeviceSide SideOfDevice(const nlohmann::json& recorded, const std::string& given, const char* flag) {
  DeviceSide out;
  const std::string sha = recorded.is_object() ? recorded.value("sha256", "") : "";
  const std::string path = given.empty() && recorded.is_object() ? recorded.value("path", "") : given;
  if (path.empty() || sha.empty()) {
    out.why = "the run recorded no device library file and hash";
    return out;
  }
  const std::string found = FileSha256(path);
  if (found.empty()) {
    out.why = "the run's device library " + path + " is not on this machine; give a copy with " + flag;
  } else if (found != sha) {
    out.why = "the device library " + path + " has changed since the run (SHA-256 " +
              found.substr(0, 12) + ", recorded " + sha.substr(0, 12) + "); give the run's with " + flag;
  } else {
    out.path = path;
  }
  return out;
}

int PopCount(uint32_t m) { return static_cast<int>(std::bitset<32>(m).count()); }

std::string Names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return s;
}

}  // namespace

std::vector<SwapComponent> PlanSwaps(const nlohmann::json& baseline, const nlohmann::json& candidate,
                                     const nlohmann::json& here, const SwapFiles& files) {
  std::vector<SwapComponent> out;
  const auto get = [](const nlohmann::json& env, const std::string& key) {
    return env.is_object() && env.contains(key) ? env[key] : nlohmann::json();
  };
  for (const EnvChange& e : DiffEnvironments(baseline, candidate)) {
    if (e.component == "jobs") continue;
    SwapComponent s;
    s.component = e.component;
    s.baseline = e.baseline;
    s.candidate = e.candidate;
    const auto variable = EmulatorVariables().find(e.component);
    if (variable != EmulatorVariables().end()) {
      const nlohmann::json b = get(baseline, e.component), c = get(candidate, e.component);
      if (b.is_null() || c.is_null()) {
        s.why_not = "one of the runs did not record it";
      } else {
        s.swappable = true;
        s.how = variable->second;
        s.baseline_env[variable->second] = Text(b);
        s.candidate_env[variable->second] = Text(c);
        if (e.component == "faults") {
          // --inject reaches the workers through this one, which would win.
          s.baseline_env["SPYRE_REGRESS_INJECT"] = Text(b);
          s.candidate_env["SPYRE_REGRESS_INJECT"] = Text(c);
        }
      }
    } else if (e.component == "threads") {
      const nlohmann::json b = get(baseline, "threads"), c = get(candidate, "threads");
      if (b.is_number_integer() && c.is_number_integer() && b.get<int>() > 0 && c.get<int>() > 0) {
        s.swappable = true;
        s.how = "the workers' libtorch and BLAS threads";
        s.baseline_threads = b.get<int>();
        s.candidate_threads = c.get<int>();
      } else {
        s.why_not = "one of the runs did not record a thread count";
      }
    } else if (e.component == "blas") {
      const BlasSide b = SideOfBlas(get(baseline, "blas"), files.baseline_blas, get(here, "blas"),
                                    "--baseline-blas");
      const BlasSide c = SideOfBlas(get(candidate, "blas"), files.candidate_blas, get(here, "blas"),
                                    "--candidate-blas");
      s.why_not = !b.why.empty() ? b.why : c.why;
      s.swappable = s.why_not.empty();
      if (s.swappable) {
        s.baseline_env = b.env;
        s.candidate_env = c.env;
        // Neither side may inherit the other's preload (a side that is not
        // OpenBLAS has no kernel set, and the other's setting is idle there).
        for (auto* side : {&s.baseline_env, &s.candidate_env}) side->emplace("LD_PRELOAD", "");
        s.how = "LD_PRELOAD of each run's BLAS file and OPENBLAS_CORETYPE of its kernel set";
      }
    } else if (e.component == "device") {
      const DeviceSide b = SideOfDevice(get(baseline, "device"), files.baseline_device_lib,
                                        "--baseline-device-lib");
      const DeviceSide c = SideOfDevice(get(candidate, "device"), files.candidate_device_lib,
                                        "--candidate-device-lib");
      s.why_not = !b.why.empty() ? b.why : c.why;
      s.swappable = s.why_not.empty();
      if (s.swappable) {
        s.how = "each run's device library, checked by its SHA-256";
        s.baseline_env["SPYRE_REGRESS_DEVICE_LIB"] = b.path;
        s.candidate_env["SPYRE_REGRESS_DEVICE_LIB"] = c.path;
      }
    } else {
      s.why_not = WhyNot(e.component);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<uint32_t> ConfigurationMasks(int k) {
  if (k <= 0) return {0, 1};
  const uint32_t full = (1u << k) - 1;
  std::vector<uint32_t> masks;
  if (k <= 3) {
    for (uint32_t m = 0; m <= full; ++m) masks.push_back(m);
  } else {
    masks.push_back(0);
    for (int i = 0; i < k; ++i) masks.push_back(1u << i);
    for (int i = 0; i < k; ++i) masks.push_back(full & ~(1u << i));
    masks.push_back(full);
  }
  std::stable_sort(masks.begin(), masks.end(),
                   [](uint32_t a, uint32_t b) { return PopCount(a) < PopCount(b); });
  masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
  return masks;
}

std::string ConfigurationName(uint32_t mask, const std::vector<SwapComponent>& swappable) {
  if (swappable.empty()) return mask == 0 ? "baseline" : "baseline again";
  if (mask == 0) return "baseline";
  if (mask == (1u << swappable.size()) - 1) return "candidate";
  std::string s;
  for (size_t i = 0; i < swappable.size(); ++i) {
    if ((mask >> i) & 1u) s += (s.empty() ? "" : " + ") + swappable[i].component;
  }
  return s;
}

void ConfigurationSettings(uint32_t mask, const std::vector<SwapComponent>& swappable,
                           std::map<std::string, std::string>* env, int* threads) {
  for (size_t i = 0; i < swappable.size(); ++i) {
    const bool cand = (mask >> i) & 1u;
    const SwapComponent& s = swappable[i];
    for (const auto& [k, v] : cand ? s.candidate_env : s.baseline_env) (*env)[k] = v;
    if (s.component == "threads") *threads = cand ? s.candidate_threads : s.baseline_threads;
  }
}

std::string StepEffect::Text() const { return status.empty() ? HumanChange(ratio) : status; }

const char* CauseVerdictName(CauseVerdict v) {
  switch (v) {
    case CauseVerdict::kCaused: return "caused";
    case CauseVerdict::kTogether: return "together";
    case CauseVerdict::kEach: return "each";
    case CauseVerdict::kNotSeparable: return "not_separable";
    case CauseVerdict::kNotReproduced: return "not_reproduced";
    case CauseVerdict::kUndecided: return "undecided";
  }
  return "undecided";
}

Cause Attribute(const std::vector<SwapComponent>& swappable,
                      const std::vector<std::string>& unswapped,
                      const std::map<uint32_t, StepEffect>& steps,
                      std::optional<bool> unswapped_reproduced, bool rounds_short) {
  Cause a;
  const int k = static_cast<int>(swappable.size());
  const uint32_t full = k == 0 ? 1u : (1u << k) - 1;
  for (const auto& [mask, effect] : steps) {
    a.evidence["steps"].push_back({{"configuration", ConfigurationName(mask, swappable)},
                                   {"mask", mask},
                                   {"reproduced", effect.reproduced},
                                   {"effect", effect.Text()}});
  }
  a.evidence["not_swapped"] = unswapped;
  const auto rep = [&](uint32_t m) {
    const auto it = steps.find(m);
    return it != steps.end() && it->second.reproduced;
  };
  const auto effect = [&](uint32_t m) {
    const auto it = steps.find(m);
    return it == steps.end() ? std::string("?") : it->second.Text();
  };
  // The BLAS without its file path: the sentence names the library.
  const auto value = [](const SwapComponent& s, const std::string& v) {
    return EnvValueText(s.component == "blas" ? v.substr(0, v.find(" (/")) : v);
  };
  const auto change = [&](const SwapComponent& s) {
    return s.component + " " + value(s, s.baseline) + " -> " + value(s, s.candidate);
  };
  const std::string unswapped_names = Names(unswapped);
  if (rounds_short) {
    a.verdict = CauseVerdict::kUndecided;
    a.text = "undecided: the time budget ended before enough rounds for a wall-time verdict "
             "(give bisect a larger --budget)";
    return a;
  }
  if (k == 0 || !rep(full)) {
    const std::string swapped_names =
        k == 1 ? swappable[0].component : std::string("every swappable component");
    const std::string tried = k == 0 ? std::string()
                                     : "; " + swapped_names + " ruled out: swapping " +
                                           (k == 1 ? "it" : "them") + " makes no difference here (" +
                                           effect(full) + ")";
    if (!unswapped.empty() && unswapped_reproduced.value_or(true)) {
      a.verdict = CauseVerdict::kNotSeparable;
      a.components = unswapped;
      a.text = "appeared with " + unswapped_names + " (not separable here: " +
               (unswapped.size() == 1 ? "it cannot" : "they cannot") + " be swapped on this machine" +
               tried + (unswapped_reproduced ? "; the baseline's settings here still show it" : "") + ")";
      return a;
    }
    a.verdict = CauseVerdict::kNotReproduced;
    a.text = k == 0 ? "not reproduced: the two runs' configurations are the same here, and two sets of "
                      "fresh processes of it differ by " + effect(1) + " (noise or a flake)"
                    : "not reproduced: with every component swapped the change is " + effect(full) +
                          " (noise or a flake)";
    if (!unswapped.empty()) a.text += "; " + unswapped_names + " could not be swapped and do not show it either";
    return a;
  }
  // The smallest configurations that reproduce it.
  std::vector<uint32_t> minimal;
  for (const auto& [mask, e] : steps) {
    if (mask == 0 || !e.reproduced) continue;
    bool smaller = false;
    for (const auto& [other, o] : steps) {
      if (other != 0 && other != mask && (other & mask) == other && o.reproduced) smaller = true;
    }
    if (!smaller) minimal.push_back(mask);
  }
  const std::string also = unswapped.empty() ? std::string()
                                             : "; " + unswapped_names + " also changed and could not be swapped";
  const auto names_of = [&](uint32_t m) {
    std::vector<std::string> n;
    for (int i = 0; i < k; ++i) {
      if ((m >> i) & 1u) n.push_back(swappable[static_cast<size_t>(i)].component);
    }
    return n;
  };
  if (minimal.size() == 1 && PopCount(minimal[0]) == 1) {
    const uint32_t m = minimal[0];
    const int i = __builtin_ctz(m);
    a.verdict = CauseVerdict::kCaused;
    a.components = {swappable[static_cast<size_t>(i)].component};
    // Another component alone moved the time by a finding's size without
    // reaching the judge's level: said, not hidden under "caused by".
    std::string short_of_level;
    for (int j = 0; j < k; ++j) {
      const auto it = steps.find(1u << j);
      if (j == i || it == steps.end() || it->second.reproduced || !it->second.status.empty()) continue;
      const double r = it->second.ratio;
      if (std::isfinite(r) && r > 0 && std::fabs(std::log(r)) >= std::log(1.05)) {
        short_of_level += "; " + swappable[static_cast<size_t>(j)].component + " alone " + effect(1u << j) +
                          ", short of the judge's level (more --max-rounds may settle it)";
      }
    }
    a.text = "caused by " + change(swappable[static_cast<size_t>(i)]) + " (reproduced: " + effect(m) +
             " with it alone" + (k > 1 ? ", " + effect(full & ~m) + " without" : std::string()) + also +
             short_of_level + ")";
    return a;
  }
  if (minimal.size() == 1 && (k <= 3 || PopCount(minimal[0]) == 2)) {
    const uint32_t m = minimal[0];
    a.verdict = CauseVerdict::kTogether;
    a.components = names_of(m);
    std::string alone;
    for (int i = 0; i < k; ++i) {
      if ((m >> i) & 1u) alone += ", " + swappable[static_cast<size_t>(i)].component + " alone " + effect(1u << i);
    }
    a.text = "caused by " + Names(a.components) + " together (reproduced: " + effect(m) + " with " +
             (PopCount(m) == 2 ? "both" : "all of them") + alone + also + ")";
    return a;
  }
  if (minimal.size() > 1 &&
      std::all_of(minimal.begin(), minimal.end(), [](uint32_t m) { return PopCount(m) == 1; })) {
    a.verdict = CauseVerdict::kEach;
    std::string each;
    for (uint32_t m : minimal) {
      const SwapComponent& s = swappable[static_cast<size_t>(__builtin_ctz(m))];
      a.components.push_back(s.component);
      each += (each.empty() ? "" : "; ") + change(s) + ": " + effect(m) + " alone";
    }
    a.text = "caused by each of " + Names(a.components) + " on its own (reproduced: " + each + also + ")";
    return a;
  }
  a.verdict = CauseVerdict::kNotSeparable;
  std::set<std::string> involved;
  for (uint32_t m : minimal) {
    for (const std::string& n : names_of(m)) involved.insert(n);
  }
  a.components.assign(involved.begin(), involved.end());
  a.text = "appeared with " + Names(a.components) + " (not separable here: " +
           (minimal.size() > 1 ? "several different combinations reproduce it"
                               : "no single component reproduces it, and not every combination was tried") +
           "; " + effect(full) + " with all of them" + also + ")";
  return a;
}

void AttachAttributions(const std::vector<AttributionRow>& rows, Comparison* c) {
  std::vector<const AttributionRow*> ordered;
  for (const AttributionRow& r : rows) {
    if (r.run_id == c->candidate_run.run_id && r.baseline_run_id == c->baseline_run.run_id) {
      ordered.push_back(&r);
    }
  }
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const AttributionRow* a, const AttributionRow* b) { return a->bisect_id < b->bisect_id; });
  for (Finding& f : c->regressions) {
    for (const AttributionRow* r : ordered) {
      if (r->suite == f.suite && r->case_name == f.case_id && r->kind == FindingKindName(f.kind)) {
        f.cause_verdict = r->verdict;
        f.cause = r->text;
      }
    }
  }
}

}  // namespace harness
