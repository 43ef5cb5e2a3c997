#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <unistd.h>

#include "detect/detect.h"

namespace harness {
namespace {

// Inputs of the test itself: a changed suite file or golden file changes
// what is measured, and may be named as the cause as an upstream change is.
bool IsTestInput(const std::string& component) { return component == "suite_files" || component == "golden"; }

// Components upstream of the device under test: a change here is what a
// finding is attributed to. os/cpu/threads are host facts, listed but not
// blamed first.
bool IsUpstream(const std::string& component) {
  static const std::set<std::string> kUpstream = {"libtorch",  "libtorch_package", "blas",
                                                  "compiler",  "libc",    "device",
                                                  "spyre_emu", "profile", "rounding", "cores",
                                                  "faults",    "harness"};
  return kUpstream.count(component) != 0 || component.rfind("tag:", 0) == 0 || IsTestInput(component);
}

std::string Describe(const nlohmann::json& v) {
  // An empty string (no faults, no tag value) reads as a blank otherwise.
  if (v.is_null() || (v.is_string() && v.get<std::string>().empty())) return "(none)";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// BLAS is identified by name, version, the kernel set it chose for the CPU
// and the file it resolved to; its thread count is a setting, reported
// separately.
std::string DescribeBlas(const nlohmann::json& b) {
  if (!b.is_object()) return Describe(b);
  std::string s = b.value("name", "?");
  if (!b.value("version", "").empty()) s += " " + b.value("version", "");
  if (!b.value("core", "").empty()) s += " " + b.value("core", "");
  if (!b.value("path", "").empty()) s += " (" + b.value("path", "") + ")";
  return s;
}

// The device under test is identified by name, version and its library file
// (path and contents): a rebuilt backend library with the same version is a
// change too.
std::string DescribeDevice(const nlohmann::json& d) {
  if (!d.is_object()) return Describe(d);
  std::string s = d.value("name", "?");
  if (!d.value("version", "").empty()) s += " " + d.value("version", "");
  if (!d.value("path", "").empty()) {
    s += " (" + d.value("path", "") + ", sha256 " + d.value("sha256", "").substr(0, 12) + ")";
  }
  return s;
}

// The harness is identified by version and git revision: a new revision can
// carry a changed emulator or comparison, which a finding may be due to.
std::string DescribeComponent(const std::string& component, const nlohmann::json& v) {
  if (component == "blas") return DescribeBlas(v);
  if (component == "device") return DescribeDevice(v);
  if (component == "harness" && v.is_object()) {
    return v.value("version", "?") + " (" + v.value("git", "?") + ")";
  }
  return Describe(v);
}

}  // namespace

std::vector<EnvChange> DiffEnvironments(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<EnvChange> out;
  std::set<std::string> keys;
  for (const auto* j : {&a, &b}) {
    if (!j->is_object()) continue;
    for (const auto& [k, v] : j->items()) if (k != "tags" && k != "fingerprint") keys.insert(k);
  }
  // The package's version says more than libtorch's only when libtorch's
  // stayed the same (a Debian rebuild or patch of one release).
  auto same = [&](const char* k) {
    return a.is_object() && b.is_object() && a.value(k, nlohmann::json()) == b.value(k, nlohmann::json());
  };
  if (!same("libtorch")) keys.erase("libtorch_package");
  // Suite-file digests: a run recorded before they were is not a change.
  const auto has = [](const nlohmann::json& j, const char* k) { return j.is_object() && j.contains(k); };
  if (has(a, "suite_files") && has(b, "suite_files")) {
    keys.erase("suite_files");
    std::set<std::string> suites;
    for (const auto* j : {&a, &b}) {
      if ((*j)["suite_files"].is_object()) {
        for (const auto& [k, v] : (*j)["suite_files"].items()) suites.insert(k);
      }
    }
    for (const std::string& suite : suites) {
      const auto digest = [&](const nlohmann::json& j) {
        return j["suite_files"].is_object() && j["suite_files"].contains(suite)
                   ? Describe(j["suite_files"][suite])
                   : std::string("(none)");
      };
      // A suite only one run ran is not a changed file.
      if (digest(a) != digest(b) && digest(a) != "(none)" && digest(b) != "(none)") {
        out.push_back({"suite_files", suite + " " + digest(a), suite + " " + digest(b), true});
      }
    }
  } else {
    keys.erase("suite_files");
  }
  for (const std::string& k : keys) {
    nlohmann::json va = a.is_object() && a.contains(k) ? a[k] : nlohmann::json();
    nlohmann::json vb = b.is_object() && b.contains(k) ? b[k] : nlohmann::json();
    std::string da = DescribeComponent(k, va), db = DescribeComponent(k, vb);
    if (da != db) out.push_back({k, da, db, IsUpstream(k)});
  }
  std::set<std::string> tags;
  for (const auto* j : {&a, &b}) {
    if (j->is_object() && j->contains("tags") && (*j)["tags"].is_object()) {
      for (const auto& [k, v] : (*j)["tags"].items()) tags.insert(k);
    }
  }
  for (const std::string& t : tags) {
    auto get = [&](const nlohmann::json& j) {
      return j.is_object() && j.contains("tags") && j["tags"].contains(t) ? Describe(j["tags"][t]) : "(none)";
    };
    if (get(a) != get(b)) out.push_back({"tag:" + t, get(a), get(b), true});
  }
  return out;
}

namespace {

// What a fresh worker needs to compute with the baseline's BLAS instead of
// the candidate's: its library file preloaded (its symbols then come first,
// and the library libtorch names is taken as loaded) and OpenBLAS's kernel
// set chosen as the baseline's was. std::nullopt when the baseline's file is
// not there to load.
std::optional<std::map<std::string, std::string>> BaselineBlas(const nlohmann::json& base,
                                                               const nlohmann::json& cand) {
  if (!base.is_object() || !cand.is_object()) return std::nullopt;
  std::map<std::string, std::string> out;
  const std::string path = base.value("path", ""), core = base.value("core", "");
  if (path != cand.value("path", "")) {
    if (path.empty() || ::access(path.c_str(), R_OK) != 0) return std::nullopt;
    out["LD_PRELOAD"] = path;
  }
  if (core != cand.value("core", "")) {
    // Without a kernel set of its own the baseline's library is another
    // one than the candidate's OpenBLAS, and preloading it is enough.
    if (core.empty() && out.empty()) return std::nullopt;
    if (!core.empty()) out["OPENBLAS_CORETYPE"] = core;
  }
  return out;
}

}  // namespace

std::optional<std::map<std::string, std::string>> BaselineWorkerSettings(
    const nlohmann::json& baseline, const nlohmann::json& candidate) {
  static const std::map<std::string, std::string> kSettable = {{"profile", "SPYRE_EMU_PROFILE"},
                                                               {"faults", "SPYRE_EMU_FAULTS"},
                                                               {"rounding", "SPYRE_EMU_ROUNDING"},
                                                               {"cores", "SPYRE_EMU_CORES"}};
  if (!baseline.is_object() || !candidate.is_object()) return std::nullopt;
  std::map<std::string, std::string> settings;
  for (const EnvChange& e : DiffEnvironments(baseline, candidate)) {
    if (e.component == "blas") {
      auto blas = BaselineBlas(baseline["blas"], candidate["blas"]);
      if (!blas) return std::nullopt;
      settings.insert(blas->begin(), blas->end());
      continue;
    }
    // How many workers ran at once is a run option, not the environment.
    if (kSettable.count(e.component) == 0 && e.component != "jobs") return std::nullopt;
  }
  for (const auto& [component, variable] : kSettable) {
    if (!baseline.contains(component)) return std::nullopt;
    const nlohmann::json& v = baseline[component];
    settings[variable] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  // A run's --inject reaches its workers through SPYRE_REGRESS_INJECT, which
  // would override the baseline's faults.
  settings["SPYRE_REGRESS_INJECT"] = settings["SPYRE_EMU_FAULTS"];
  return settings;
}

const char* EnvChangeKind(const std::string& component) {
  static const std::set<std::string> kUpstream = {"libtorch", "libtorch_package", "blas", "compiler", "libc"};
  static const std::set<std::string> kSetting = {"profile", "rounding", "cores"};
  if (kUpstream.count(component) > 0) return "upstream change";
  if (component == "device" || component == "spyre_emu") return "device under test";
  if (kSetting.count(component) > 0) return "emulator setting";
  if (component == "faults") return "injected fault";
  if (IsTestInput(component)) return "test input";
  if (component == "harness") return "harness";
  if (component.rfind("tag:", 0) == 0) return "tag";
  return "host";
}

std::string Attribution(const Comparison& c) {
  // Findings whose cause is not established (wall time within what the case
  // does between runs anyway) are not attributed: when those are all there
  // is, nothing is.
  if (!c.regressions.empty() && std::none_of(c.regressions.begin(), c.regressions.end(),
                                             [](const Finding& f) { return f.env_cause; })) {
    return "";
  }
  std::string s;
  for (const EnvChange& e : c.env_diff) {
    if (!e.upstream) continue;
    s += s.empty() ? "appeared with " : ", ";
    s += (e.component.rfind("tag:", 0) == 0 ? e.component.substr(4) : e.component) + " " + e.baseline + " -> " + e.candidate;
  }
  return s;
}

}  // namespace harness
