// The program users run links no libtorch: its ELF file and everything the
// loader maps for it name none, the verbs that only read or write the store
// (and --help, --version) run where libtorch cannot be loaded at all, and the
// verbs that work on tensors load the torch part beside the program, or say
// in one line why they cannot.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using spyre_test::CliPath;
using spyre_test::RunCli;
using spyre_test::RunCommand;
using spyre_test::TempDir;

const std::string kLibDir = std::string(SPYRE_BUILD_DIR) + "/lib/";

bool NamesLibtorch(const std::string& text) {
  return text.find("libtorch") != std::string::npos || text.find("libc10") != std::string::npos;
}

// The shared libraries `file` names in its dynamic section (NEEDED).
std::vector<std::string> Needed(const std::string& file) {
  auto r = RunCommand({"/usr/bin/readelf", "-d", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  static const std::regex kNeeded(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), kNeeded), end; it != end; ++it) {
    names.push_back((*it)[1]);
  }
  return names;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += n + " ";
  return out;
}

TEST(TorchFreeProgramTest, NeitherTheProgramNorALibraryItLoadsNeedsLibtorch) {
  const std::vector<std::string> needed = Needed(CliPath());
  ASSERT_FALSE(needed.empty());
  EXPECT_FALSE(NamesLibtorch(Joined(needed))) << Joined(needed);
  // Everything the loader maps before main, through every library: what
  // ldd lists (the loader stops after loading).
  auto closure = RunCommand({CliPath()}, {{"LD_TRACE_LOADED_OBJECTS", "1"}});
  ASSERT_EQ(closure.exit_code, 0) << closure.err;
  EXPECT_NE(closure.out.find("libspyre_core.so"), std::string::npos) << closure.out;
  EXPECT_NE(closure.out.find("libsqlite3"), std::string::npos) << closure.out;
  EXPECT_FALSE(NamesLibtorch(closure.out)) << closure.out;
  // The torch part is what links it.
  const std::string torch = Joined(Needed(kLibDir + "libspyre_cli_torch.so"));
  EXPECT_TRUE(NamesLibtorch(torch)) << torch;
  EXPECT_NE(torch.find("libspyre_suites.so"), std::string::npos) << torch;
}

// A directory of empty files named as libtorch's libraries, first on the
// library path: a process that loads libtorch fails to.
std::string UnloadableLibtorch(const TempDir& dir) {
  const std::string broken = dir.File("broken-libtorch");
  fs::create_directories(broken);
  int named = 0;
  for (const std::string& lib : Needed(kLibDir + "libspyre_harness.so")) {
    if (!NamesLibtorch(lib)) continue;
    spyre_test::WriteFile(broken + "/" + lib, "");
    ++named;
  }
  EXPECT_GE(named, 2) << "libspyre_harness.so names no libtorch library";
  return broken;
}

TEST(TorchFreeProgramTest, StoreVerbsRunWhereLibtorchCannotBeLoaded) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  // Two runs, through the program users run: `run` loads the torch part.
  for (int i = 0; i < 2; ++i) {
    auto run = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/(exp|mul_scalar)$", "--latency",
                       "none", "--db", db, "-q"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  }
  const std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", UnloadableLibtorch(dir)}};

  // The broken libraries are in the way: a verb that needs them says so,
  // in one line, and names what to do.
  auto list = RunCli({"list"}, env);
  EXPECT_EQ(list.exit_code, 2) << list.err;
  EXPECT_EQ(spyre_test::LineCount(list.err), 1) << list.err;
  EXPECT_NE(list.err.find("`list` needs libtorch: cannot load the torch part of spyre-regress, " +
                          kLibDir + "libspyre_cli_torch.so"),
            std::string::npos)
      << list.err;
  EXPECT_NE(list.err.find("ldd"), std::string::npos) << list.err;

  const std::vector<std::vector<std::string>> verbs = {
      {"--version"},
      {"--help"},
      {"run", "--help"},
      {"report", "--db", db, "--out", dir.File("report")},
      {"history", "--db", db, "--suite", "smoke"},
      {"compare", "--db", db, "--baseline", "~1", "--candidate", "latest"},
      {"runs", "--db", db},
      {"export", "--db", db, "--format", "csv", "--out", dir.File("runs.csv")},
      {"backup", "--db", db, "--to", dir.File("copy.db")},
      {"merge", "--into", dir.File("merged.db"), dir.File("copy.db")},
      {"prune", "--db", dir.File("merged.db"), "--keep-runs", "1"},
  };
  for (const auto& args : verbs) {
    std::string shown;
    for (const std::string& a : args) shown += a + " ";
    auto r = RunCli(args, env);
    EXPECT_EQ(r.exit_code, 0) << shown << "\n" << r.out << r.err;
    EXPECT_EQ(r.err.find("torch part"), std::string::npos) << shown << "\n" << r.err;
  }
  EXPECT_TRUE(fs::exists(dir.File("report/index.html")));
}

TEST(TorchFreeProgramTest, AProgramWithoutItsTorchPartSaysWhereItLooked) {
  TempDir dir;
  // The program alone, without lib/ beside it: the libraries it links are
  // still found (their build path), its torch part is not.
  const std::string bin = dir.File("bin/spyre-regress");
  fs::create_directories(dir.File("bin"));
  fs::copy_file(CliPath(), bin);
  fs::permissions(bin, fs::perms::owner_all);
  auto version = RunCommand({bin, "--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"env"}, {"golden", "verify", "--suite", "smoke"},
                                             {"run", "--suite", "smoke", "--db", dir.File("x.db")}}) {
    std::vector<std::string> argv = {bin};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("the torch part of spyre-regress is missing: no " +
                         dir.File("bin/lib/libspyre_cli_torch.so")),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("build the target spyre-regress"), std::string::npos) << r.err;
  }
  // Nothing was recorded for the run that could not start.
  EXPECT_FALSE(fs::exists(dir.File("x.db")));
}

}  // namespace
