// spyre-regress: the command line. Parses the verb and its flags, then runs
// the verb's action. Usage errors and failed actions print one line on stderr
// and exit 2 (docs/cli.md). The program links no libtorch: the verbs that
// work on tensors load the torch part when they run (torch_part.h).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <streambuf>

#include "validators.h"
#include "cli.h"
#include "command_line.h"
#include "base/build_info.h"
#include "base/exit_signals.h"
#include "base/human_format.h"
#include "base/suggest.h"

namespace harness::cli {
std::vector<std::pair<int, AddVerbFn>>& VerbRegistry() {
  static std::vector<std::pair<int, AddVerbFn>> registry;
  return registry;
}
}  // namespace harness::cli

namespace {

constexpr int kExitUsage = 2;

// The libtorch version is the one the torch part was built against
// (cli/CMakeLists.txt), so that --version loads no libtorch.
std::string VersionLine() {
  return std::string("spyre-regress ") + harness::HarnessVersion() + " (libtorch " +
         SPYRE_TORCH_VERSION_STRING + ", spyre-emu " + SPYRE_EMU_VERSION_STRING + ")";
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// One line, whatever the message holds: a line break inside it (an error
// text of SQLite's, a name read from a file) is written as "; ".
int Fail(const std::string& message) {
  std::string line;
  for (char c : message) {
    if (c == '\n') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else if (c != '\r') {
      line += c;
    }
  }
  std::cerr << "spyre-regress: error: " << harness::EscapeControl(line) << "\n";
  return kExitUsage;
}

// Options of the program itself, which any verb accepts before or after it:
// those that take a value, and flags.
const std::set<std::string> kGlobalWithValue = {
    "--db", "--suites", "--golden", "--thresholds", "--threads", "--device", "--device-lib"};
const std::set<std::string> kGlobalFlags = {"-q", "--quiet", "-h", "--help", "--version"};

std::string OptionName(const std::string& token) { return token.substr(0, token.find('=')); }

bool LooksLikeNumber(const std::string& token) {
  return token.size() > 1 && token[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(token[1])) || token[1] == '.');
}

// The verb names, and for each verb its own sub-verbs (`golden generate`).
struct VerbTable {
  std::vector<std::string> verbs;
  std::map<std::string, std::vector<std::string>> subverbs;
};

VerbTable Verbs(CLI::App& app) {
  VerbTable t;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name().rfind("__", 0) == 0) continue;  // internal (the worker)
    t.verbs.push_back(sub->get_name());
    for (CLI::App* subsub : sub->get_subcommands([](CLI::App*) { return true; })) {
      t.subverbs[sub->get_name()].push_back(subsub->get_name());
    }
  }
  return t;
}

// Moves a verb's options given before the verb (`--suite decode run`) to
// after it, where the parser looks for them; the program's own options stay
// where they are (they are accepted on either side). Tokens after `--` and
// arguments with no verb are left alone.
std::vector<std::string> NormalizeArgs(const std::vector<std::string>& args,
                                       const VerbTable& verbs) {
  std::vector<std::string> kept, moved;
  size_t verb = args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (kGlobalWithValue.count(a) != 0) {
      kept.push_back(a);
      if (i + 1 < args.size()) kept.push_back(args[++i]);
      continue;
    }
    if (kGlobalFlags.count(a) != 0 || kGlobalWithValue.count(OptionName(a)) != 0) {
      kept.push_back(a);
      continue;
    }
    if (std::find(verbs.verbs.begin(), verbs.verbs.end(), a) != verbs.verbs.end()) {
      verb = i;
      break;
    }
    moved.push_back(a);
  }
  if (verb == args.size() || moved.empty()) return args;
  std::vector<std::string> out = kept;
  out.push_back(args[verb]);
  size_t rest = verb + 1;
  auto sub = verbs.subverbs.find(args[verb]);
  if (sub != verbs.subverbs.end() && rest < args.size() &&
      std::find(sub->second.begin(), sub->second.end(), args[rest]) != sub->second.end()) {
    out.push_back(args[rest++]);
  }
  out.insert(out.end(), moved.begin(), moved.end());
  out.insert(out.end(), args.begin() + static_cast<long>(rest), args.end());
  return out;
}

// The option names `app` and the chosen verb path accept ("--repeat", "-j"),
// the verb's own first: of two equally close names the verb's is the likelier.
std::vector<std::string> KnownOptions(const std::vector<CLI::App*>& apps) {
  std::vector<std::string> names;
  for (auto it = apps.rbegin(); it != apps.rend(); ++it) {
    const CLI::App* a = *it;
    for (const CLI::Option* o : a->get_options()) {
      for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    }
  }
  return names;
}

// What went wrong when the parser found words it did not expect: an unknown
// verb, sub-verb or flag, each with the closest known name. "" when none of
// those explains it.
std::string ExplainExtras(CLI::App& app, const std::vector<std::string>& args,
                          const VerbTable& verbs) {
  std::vector<CLI::App*> path = {&app};
  std::string verb_path;
  size_t i = 0;
  // The verb and sub-verb, past the program's own options.
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (kGlobalWithValue.count(a) != 0) {
      ++i;
      continue;
    }
    if (!a.empty() && a[0] == '-') continue;
    if (std::find(verbs.verbs.begin(), verbs.verbs.end(), a) == verbs.verbs.end()) {
      return "unknown verb '" + a + "'" + harness::DidYouMean(a, verbs.verbs) +
             " (see 'spyre-regress --help' for the verbs)";
    }
    verb_path = a;
    path.push_back(app.get_subcommand(a));
    auto sub = verbs.subverbs.find(a);
    if (sub != verbs.subverbs.end() && i + 1 < args.size() && args[i + 1][0] != '-') {
      const std::string& s = args[i + 1];
      if (std::find(sub->second.begin(), sub->second.end(), s) == sub->second.end()) {
        return "unknown '" + a + "' verb '" + s + "'" + harness::DidYouMean(s, sub->second) +
               " (see 'spyre-regress " + a + " --help')";
      }
      verb_path += " " + s;
      path.push_back(path.back()->get_subcommand(s));
      ++i;
    }
    break;
  }
  const std::vector<std::string> known = KnownOptions(path);
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || LooksLikeNumber(a)) continue;
    // "-j4" is "-j" with its value attached.
    const std::string name = a[1] == '-' ? OptionName(a) : a.substr(0, 2);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return "unknown flag '" + name + "'" + (verb_path.empty() ? "" : " for '" + verb_path + "'") +
           harness::DidYouMean(name, known) + " (see 'spyre-regress " +
           (verb_path.empty() ? "" : verb_path + " ") + "--help')";
  }
  return "";
}

// The global paths, made absolute: the store (LocateStore's order), the
// suites, and the golden files, which follow --suites when only it is given.
void ResolvePaths(CLI::App& app, const std::string& db_flag, harness::cli::GlobalOptions* g) {
  g->db = harness::cli::LocateStore(db_flag, &g->db_origin);
  const bool suites_given =
      app.get_option("--suites")->count() > 0 || std::getenv("SPYRE_REGRESS_SUITES") != nullptr;
  const bool golden_given =
      app.get_option("--golden")->count() > 0 || std::getenv("SPYRE_REGRESS_GOLDEN") != nullptr;
  g->suites_dir = harness::cli::AbsolutePath(g->suites_dir);
  if (suites_given && !golden_given) {
    g->golden_dir = (std::filesystem::path(g->suites_dir).parent_path() / "golden").string();
  }
  g->golden_dir = harness::cli::AbsolutePath(g->golden_dir);
}

// Writes what a stream is given to the stream's own buffer with control
// characters other than line feed and tab escaped (harness::EscapeControl),
// while it lives and when `active`.
class TerminalEscaper : public std::streambuf {
 public:
  TerminalEscaper(std::ostream& stream, bool active) : stream_(stream) {
    if (!active) return;
    target_ = stream.rdbuf(this);
  }
  ~TerminalEscaper() override {
    if (target_ == nullptr) return;
    if (pending_c2_) target_->sputc('\xC2');
    target_->pubsync();
    stream_.rdbuf(target_);
  }
  TerminalEscaper(const TerminalEscaper&) = delete;
  TerminalEscaper& operator=(const TerminalEscaper&) = delete;

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    Put(traits_type::to_char_type(ch));
    return ch;
  }
  std::streamsize xsputn(const char* text, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) Put(text[i]);
    return n;
  }
  int sync() override { return target_->pubsync(); }

 private:
  void Put(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (pending_c2_) {
      // U+0080..U+009F are two bytes in UTF-8, the first 0xC2.
      pending_c2_ = false;
      const std::string pair = std::string("\xC2") + c;
      Write(u >= 0x80 && u <= 0x9F ? harness::EscapeControl(pair) : pair);
      return;
    }
    if (u == 0xC2) {
      pending_c2_ = true;
    } else if (c == '\n' || c == '\t' || (u >= 0x20 && u != 0x7F)) {
      target_->sputc(c);
    } else {
      Write(harness::EscapeControl(std::string(1, c)));
    }
  }
  void Write(const std::string& s) { target_->sputn(s.data(), static_cast<std::streamsize>(s.size())); }

  std::ostream& stream_;
  std::streambuf* target_ = nullptr;
  bool pending_c2_ = false;
};

// The program: main, and what a worker forked from the run's zygote runs.
int Main(int argc, char** argv) {
  using harness::cli::GlobalOptions;
  CLI::App app{"spyre-regress: regression and parity testing for PyTorch accelerator backends, "
               "on an emulated IBM Spyre device.",
               "spyre-regress"};
  app.set_version_flag("--version", VersionLine());
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the verb

  GlobalOptions global;
  const std::string root = harness::cli::DefaultProjectRoot();
  std::string db_flag;
  global.suites_dir = root + "/suites";
  global.golden_dir = root + "/golden";
  app.add_option("--db", db_flag,
                 "SQLite store (else SPYRE_REGRESS_DB, else the nearest spyre-regress.db in this "
                 "directory or an enclosing one, else <project root>/spyre-regress.db)");
  app.add_option("--suites", global.suites_dir, "directory of suite files")
      ->envname("SPYRE_REGRESS_SUITES")->capture_default_str();
  app.add_option(
         "--golden", global.golden_dir,
         "directory of golden outputs (default: golden/ beside --suites when that is given)")
      ->envname("SPYRE_REGRESS_GOLDEN")
      ->capture_default_str();
  global.thresholds = root + "/config/thresholds.json";
  app.add_option("--thresholds", global.thresholds, "regression detection thresholds (JSON)")
      ->envname("SPYRE_REGRESS_THRESHOLDS")->capture_default_str();
  app.add_option(
         "--threads", global.threads,
         "libtorch and BLAS threads (default: 1 for run's workers and env, else online cores)")
      ->envname("SPYRE_REGRESS_THREADS")
      ->check(harness::cli::InRange(1, 1024));
  app.add_flag("-q,--quiet", global.quiet, "plain output, no progress bar");
  std::string device, device_lib;
  app.add_option("--device", device,
                 "device under test: emulator (default) or cpu (libtorch's own kernels)")
      ->envname("SPYRE_REGRESS_DEVICE");
  app.add_option("--device-lib", device_lib,
                 "device under test: a shared library that registers a PrivateUse1 backend "
                 "(docs/backends.md)")
      ->envname("SPYRE_REGRESS_DEVICE_LIB");

  harness::cli::VerbAction action;
  auto registry = harness::cli::VerbRegistry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, add] : registry) add(app, global, &action);

  const VerbTable verbs = Verbs(app);
  std::vector<std::string> args(argv + 1, argv + argc);
  // Newer CLI11 releases skip an environment value that does not convert
  // instead of refusing it: the thread count from the environment is
  // checked here, so a typo there is an error on every version.
  if (const char* env_threads = std::getenv("SPYRE_REGRESS_THREADS"); env_threads != nullptr) {
    std::string value = env_threads;
    std::string problem = harness::cli::InRange(1, 1024)(value);
    if (problem.empty() && value.find_first_not_of("0123456789") != std::string::npos) {
      problem = "'" + value + "' is not a whole number; give a number from 1 to 1024";
    }
    if (!problem.empty()) {
      return Fail("SPYRE_REGRESS_THREADS='" + std::string(env_threads) +
                  "' (the environment's value for --threads): " + problem);
    }
  }
  args = NormalizeArgs(args, verbs);
  try {
    // CLI11 takes the arguments last first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
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
    // Unknown verbs, sub-verbs and flags are named with the closest match.
    const std::string explained = ExplainExtras(app, args, verbs);
    if (!explained.empty()) return Fail(explained);
    // CLI11's own message says what; add where to look.
    return Fail(std::string(e.what()) + " (see 'spyre-regress --help')");
  }
  ResolvePaths(app, db_flag, &global);
  // The device is loaded where cases run or the fingerprint is taken; the
  // choice reaches workers through the environment.
  if (!device.empty()) ::setenv("SPYRE_REGRESS_DEVICE", device.c_str(), 1);
  if (!device_lib.empty()) {
    ::setenv("SPYRE_REGRESS_DEVICE_LIB", harness::cli::AbsolutePath(device_lib).c_str(), 1);
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
  } catch (const std::exception& e) {
    // A libtorch exception is turned into a Status in the torch part
    // (cli/torch/entry.cpp).
    return Fail("unexpected failure: " + FirstLine(e.what()));
  }
}

}  // namespace

int harness::cli::RunCommandLine(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  return Main(static_cast<int>(copy.size()), args.data());
}

namespace {

bool IsWorker(int argc, char** argv) {
  return argc >= 2 && argv[1] != nullptr && std::strcmp(argv[1], "__worker") == 0;
}

// The signal handlers go in before any library's initialisers run (libtorch
// and its dependencies take a moment to load): from the program's first
// instruction on, SIGINT, SIGTERM and SIGHUP end it with one line. A run's
// workers die of a signal as they always did, and their supervisor reports
// it.
void InstallSignalsFirst(int argc, char** argv, char**) {
  if (!IsWorker(argc, argv)) harness::InstallExitSignals();
}
__attribute__((section(".preinit_array"), used)) void (*const kInstallSignalsFirst)(
    int, char**, char**) = InstallSignalsFirst;

}  // namespace

int main(int argc, char** argv) {
  const bool worker = IsWorker(argc, argv);
  if (!worker) harness::InstallExitSignals();  // a no-op when done first
  // Text recorded by users (labels, suite names, notes, environment values)
  // reaches the terminal through std::cout and std::cerr; none of it may move
  // the cursor, recolour the terminal or set its title. A pipe or file gets
  // the bytes as they are.
  TerminalEscaper out(std::cout, !worker && ::isatty(STDOUT_FILENO) == 1);
  TerminalEscaper err(std::cerr, !worker && ::isatty(STDERR_FILENO) == 1);
  return Main(argc, argv);
}
