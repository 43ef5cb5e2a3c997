// The verbs around the store, through the built CLI: what every reader says
// of a killed run, merges that are all or nothing, stored text that cannot
// reach a terminal raw, one meaning of --filter, and signals at any moment.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_command.h"
#include "support/temp_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using spyre_test::RunCli;
using spyre_test::TempDir;

std::string Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    char* err = nullptr;
    auto row = [](void* o, int n, char** values, char**) {
      auto* text = static_cast<std::string*>(o);
      for (int i = 0; i < n; ++i) *text += std::string(i ? "|" : "") + (values[i] ? values[i] : "");
      *text += "\n";
      return 0;
    };
    if (sqlite3_exec(db, sql.c_str(), row, &out, &err) != SQLITE_OK) {
      out = std::string("SQL error: ") + (err ? err : "?");
      sqlite3_free(err);
    }
  }
  sqlite3_close(db);
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One quick recorded run of `smoke`.
void Record(const std::string& db, const std::string& filter = "^smoke/add\\.") {
  auto r = RunCli({"--db", db, "--quiet", "run", "--suite", "smoke", "--filter", filter,
                   "--baseline", "none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

std::vector<std::string> PartialFiles(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    const std::string name = f.path().filename().string();
    if (name.find(".partial-") != std::string::npos || name.find(".tmp") != std::string::npos) {
      found.push_back(f.path().string());
    }
  }
  return found;
}

// A run whose supervisor is gone reads `aborted` in every reader: runs,
// export (both formats) and report, with the same note.
TEST(SideDoorsTest, AKilledRunIsAbortedInEveryReader) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  ASSERT_NO_FATAL_FAILURE(Record(db));
  // What kill -9 of the supervisor leaves: `running`, a pid that is gone.
  ASSERT_EQ(Sql(db, "UPDATE runs SET status = 'running', finished_at = NULL, "
                    "pid = 2147483646, pid_start = 1"),
            "");
  auto runs = RunCli({"--db", db, "runs", "--json"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("\"status\": \"aborted\""), std::string::npos) << runs.out;
  auto csv = RunCli({"--db", db, "export", "--format", "csv", "--table", "runs"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",aborted,"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find(",running,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("supervisor"), std::string::npos) << "the note says why: " << csv.out;
  auto jsonl = RunCli({"--db", db, "export", "--format", "jsonl", "--table", "runs"});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  EXPECT_NE(jsonl.out.find("\"status\":\"aborted\""), std::string::npos) << jsonl.out;
  // The reader changed nothing: the table still says what was recorded.
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "running\n");
}

// Several sources are merged in one transaction: one that cannot be merged
// leaves the target exactly as it was, and the message says so truly.
TEST(SideDoorsTest, MergingSeveralSourcesIsAllOrNothing) {
  TempDir dir;
  const std::string a = dir.File("a.db"), b = dir.File("b.db"), into = dir.File("into.db");
  ASSERT_NO_FATAL_FAILURE(Record(a));
  ASSERT_NO_FATAL_FAILURE(Record(b, "^smoke/mul_scalar$"));
  // b's run is also already in the target: the second source fails.
  auto first = RunCli({"merge", "--into", into, b});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string before = Slurp(into);
  auto both = RunCli({"merge", "--into", into, a, b});
  EXPECT_EQ(both.exit_code, 2) << both.out;
  EXPECT_EQ(spyre_test::LineCount(both.err), 1) << both.err;
  EXPECT_NE(both.err.find("nothing was merged"), std::string::npos) << both.err;
  EXPECT_EQ(Sql(into, "SELECT count(*) FROM runs"), "1\n") << "a's run went in alone";
  EXPECT_EQ(Slurp(into), before);
  // Named twice: refused before anything is written.
  auto twice = RunCli({"merge", "--into", dir.File("new.db"), a, dir.File("./a.db")});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("twice"), std::string::npos) << twice.err;
  EXPECT_FALSE(fs::exists(dir.File("new.db")));
}

// A label recorded before labels were checked (or merged from another
// store) holding a line break and escape sequences: the runs table keeps one
// line per run, and nothing printed on a terminal carries an escape byte.
TEST(SideDoorsTest, StoredControlCharactersNeverReachATerminalRaw) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  ASSERT_NO_FATAL_FAILURE(Record(db));
  ASSERT_EQ(Sql(db, "UPDATE runs SET label = 'night' || char(10) || '9    forged row' || "
                    "char(27) || ']0;owned' || char(7) || char(27) || '[31m'"),
            "");
  auto runs = RunCli({"--db", db, "runs"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(runs.out.find('\x1b'), std::string::npos) << runs.out;
  EXPECT_EQ(runs.out.find("\n9    forged"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("night\\n9"), std::string::npos) << runs.out;
  // On a terminal (a pty from script(1)) even raw CSV is escaped; in a pipe
  // the bytes are the data.
  const std::string script = spyre_test::FindProgram({"script"});
  ASSERT_NE(script, "") << "script(1) (util-linux) is needed for a terminal";
  const std::string cmd = "'" + spyre_test::CliPath() + "' --db '" + db +
                          "' export --format csv --table runs";
  auto tty = spyre_test::RunCommand({script, "-qec", cmd, "/dev/null"});
  if (tty.exit_code != 0 && (tty.err + tty.out).find("pseudo-terminal") != std::string::npos) {
    // A root without /dev/pts (a bare chroot): no terminal to test on here.
    GTEST_SKIP() << "no pseudo-terminal on this host: " << tty.err << tty.out;
  }
  ASSERT_EQ(tty.exit_code, 0) << tty.err << tty.out;
  EXPECT_EQ(tty.out.find('\x1b'), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\\x1b]0;owned\\x07"), std::string::npos) << tty.out;
  auto pipe = RunCli({"--db", db, "export", "--format", "csv", "--table", "runs"});
  EXPECT_NE(pipe.out.find("\x1b]0;owned\x07"), std::string::npos) << "a pipe gets the bytes";
}

// `golden generate --filter` chooses what `run --filter` chooses: the
// pattern is searched in "<suite>/<case id>".
TEST(SideDoorsTest, GoldenGenerateFilterMeansWhatRunFilterMeans) {
  TempDir dir;
  auto gen = RunCli({"golden", "generate", "--suite", "smoke", "--golden", dir.File("g"),
                     "--filter", "^smoke/mul_scalar$"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_NE(gen.out.find("wrote 1 file(s)"), std::string::npos) << gen.out;
  EXPECT_TRUE(fs::exists(dir.File("g/smoke/mul_scalar.safetensors")));
  EXPECT_TRUE(PartialFiles(dir.path()).empty());
}

// A child process of the built CLI, stderr kept.
struct Child {
  pid_t pid = -1;
  std::string err_path;
};

Child Spawn(const std::vector<std::string>& args, const std::string& err_path) {
  std::vector<std::string> argv = {spyre_test::CliPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Child c;
  c.err_path = err_path;
  if (posix_spawn(&c.pid, raw[0], &actions, nullptr, raw.data(), environ) != 0) c.pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return c;
}

// Whether `pid` has a handler for `sig` (its /proc status SigCgt mask).
bool Catches(pid_t pid, int sig) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long mask = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (mask >> (sig - 1)) & 1ULL;
  }
  return false;
}

int WaitExit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// SIGTERM and SIGHUP as soon as the program can see them (its handlers are
// in place before libtorch or the store is loaded): exit 2 and one line,
// for a run in its first instants and for a verb that loads libtorch.
TEST(SideDoorsTest, SignalsInTheFirstInstantsAreOneLineAndExitTwo) {
  TempDir dir;
  struct Case {
    std::vector<std::string> args;
    int sig;
    const char* name;
  };
  const std::vector<Case> cases = {
      {{"--db", dir.File("a.db"), "--quiet", "run", "--suite", "smoke", "--baseline", "none"},
       SIGTERM, "SIGTERM"},
      {{"--db", dir.File("b.db"), "--quiet", "run", "--suite", "smoke", "--baseline", "none"},
       SIGHUP, "SIGHUP"},
      {{"--quiet", "golden", "generate", "--suite", "smoke", "--golden", dir.File("g")}, SIGTERM,
       "SIGTERM"},
      {{"--quiet", "golden", "generate", "--suite", "smoke", "--golden", dir.File("h")}, SIGINT,
       "SIGINT"}};
  for (const Case& c : cases) {
    Child child = Spawn(c.args, dir.File("err.txt"));
    ASSERT_GT(child.pid, 0);
    bool ready = false;
    for (int i = 0; i < 2000 && !ready; ++i) {
      ready = Catches(child.pid, c.sig);
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(ready) << c.name << " is never caught";
    ::kill(child.pid, c.sig);
    const int code = WaitExit(child.pid);
    const std::string err = Slurp(child.err_path);
    EXPECT_EQ(code, 2) << c.name << ": " << err;
    EXPECT_EQ(spyre_test::LineCount(err), 1) << err;
    EXPECT_NE(err.find(std::string("stopped by ") + c.name), std::string::npos) << err;
  }
  EXPECT_TRUE(PartialFiles(dir.path()).empty());
  for (const char* db : {"a.db", "b.db"}) {
    if (!fs::exists(dir.File(db))) continue;
    EXPECT_EQ(Sql(dir.File(db), "PRAGMA integrity_check"), "ok\n");
    EXPECT_EQ(Sql(dir.File(db), "SELECT count(*) FROM runs WHERE status != 'aborted'"), "0\n");
  }
}

// SIGHUP while a run records (its terminal closed): the workers stop, the
// run is aborted with what it recorded, exit 2, one line naming SIGHUP.
TEST(SideDoorsTest, SighupMidRunAbortsTheRun) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  Child child = Spawn({"--db", db, "--quiet", "run", "--suite", "smoke", "--baseline", "none",
                       "--inject", "mm:hang", "--timeout", "120"},
                      dir.File("err.txt"));
  ASSERT_GT(child.pid, 0);
  // A result recorded: until then the store may not exist or not have its
  // tables yet (an error here), which is not a count.
  long recorded = 0;
  for (int i = 0; i < 1200 && recorded < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!fs::exists(db)) continue;
    const std::string n = Sql(db, "SELECT count(*) FROM results");
    if (!n.empty() && std::isdigit(static_cast<unsigned char>(n[0]))) recorded = std::stol(n);
  }
  ASSERT_GE(recorded, 1) << "the run recorded nothing";
  ::kill(child.pid, SIGHUP);
  EXPECT_EQ(WaitExit(child.pid), 2);
  const std::string err = Slurp(child.err_path);
  EXPECT_EQ(spyre_test::LineCount(err), 1) << err;
  EXPECT_NE(err.find("stopped by SIGHUP"), std::string::npos) << err;
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "aborted\n");
  EXPECT_EQ(Sql(db, "PRAGMA integrity_check"), "ok\n");
}

}  // namespace
