// spyre-regress: the command line. Parses the verb and its flags, then runs
// the verb's action. Usage errors and failed actions print one line on stderr
// and exit 2 (docs/cli.md).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

#include "cli.h"
#include "harness/build_info.h"
#include "spyre_emu/spyre_emu.h"

namespace harness::cli {
std::vector<std::pair<int, AddVerbFn>>& VerbRegistry() {
  static std::vector<std::pair<int, AddVerbFn>> registry;
  return registry;
}
}  // namespace harness::cli

namespace {

constexpr int kExitUsage = 2;

std::string VersionLine() {
  return std::string("spyre-regress ") + harness::HarnessVersion() + " (libtorch " + TORCH_VERSION +
         ", spyre-emu " + spyre_emu::Version() + ")";
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

int Fail(const std::string& message) {
  std::cerr << "spyre-regress: error: " << message << "\n";
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using harness::cli::GlobalOptions;
  CLI::App app{"spyre-regress: regression and parity testing for PyTorch accelerator backends, "
               "on an emulated IBM Spyre device.",
               "spyre-regress"};
  app.set_version_flag("--version", VersionLine());
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the verb

  GlobalOptions global;
  const std::string root = harness::cli::DefaultProjectRoot();
  global.db = "spyre-regress.db";
  global.suites_dir = root + "/suites";
  global.golden_dir = root + "/golden";
  app.add_option("--db", global.db, "SQLite store")->envname("SPYRE_REGRESS_DB")->capture_default_str();
  app.add_option("--suites", global.suites_dir, "directory of suite files")
      ->envname("SPYRE_REGRESS_SUITES")->capture_default_str();
  app.add_option("--golden", global.golden_dir, "directory of golden outputs")
      ->envname("SPYRE_REGRESS_GOLDEN")->capture_default_str();
  global.thresholds = root + "/config/thresholds.json";
  app.add_option("--thresholds", global.thresholds, "regression detection thresholds (JSON)")
      ->envname("SPYRE_REGRESS_THRESHOLDS")->capture_default_str();
  app.add_option("--threads", global.threads,
                 "libtorch and BLAS threads (default: 1 for run's workers, else online cores)")
      ->envname("SPYRE_REGRESS_THREADS")
      ->check(CLI::Range(1, 1024));
  app.add_flag("-q,--quiet", global.quiet, "plain output, no progress bar");

  harness::cli::VerbAction action;
  auto verbs = harness::cli::VerbRegistry();
  std::sort(verbs.begin(), verbs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, add] : verbs) add(app, global, &action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << VersionLine() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // A lone unknown word lands in remaining(): name it as an unknown verb.
    std::vector<std::string> extra = app.remaining();
    if (app.get_subcommands().empty() && !extra.empty() && extra.front().rfind("-", 0) != 0) {
      return Fail("unknown verb '" + extra.front() + "' (see 'spyre-regress --help' for the verbs)");
    }
    // CLI11's own message says what; add where to look.
    return Fail(std::string(e.what()) + " (see 'spyre-regress --help')");
  }
  if (!action) return Fail("no verb given (see 'spyre-regress --help')");
  // Detection reads its thresholds through the environment, so the run's
  // regression hook and every verb see the same file.
  // The default file is optional; a file the user named must exist.
  const bool named = app.get_option("--thresholds")->count() > 0 || std::getenv("SPYRE_REGRESS_THRESHOLDS");
  if (named || ::access(global.thresholds.c_str(), F_OK) == 0) {
    ::setenv("SPYRE_REGRESS_THRESHOLDS", global.thresholds.c_str(), 1);
  }
  try {
    harness::StatusOr<int> code = action();
    if (!code.ok()) return Fail(code.status().message());
    return *code;
  } catch (const c10::Error& e) {
    // libtorch's message carries a backtrace after its first line.
    return Fail("unexpected failure in libtorch: " + FirstLine(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return Fail("unexpected failure: " + FirstLine(e.what()));
  }
}
