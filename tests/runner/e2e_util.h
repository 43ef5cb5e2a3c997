#pragma once
// Helpers for the end-to-end runner tests: the smoke suite's cases (from
// `list --json`, so the tests follow the suite file), store queries, the last
// lines of an output, and a CLI started in the background.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"

namespace runner_e2e {

// case id -> op of every case of `suite`.
inline std::map<std::string, std::string> SuiteCases(const std::string& suite) {
  auto r = spyre_test::RunCli({"list", "--suite", suite, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> cases;
  if (r.exit_code != 0) return cases;
  const nlohmann::json listing = nlohmann::json::parse(r.out);  // must outlive the loop
  for (const auto& c : listing["suites"][0]["cases"]) {
    cases[c["id"].get<std::string>()] = c.value("op", "");
  }
  return cases;
}

// Rows of a query as strings joined by '|' (read-only connection).
inline std::vector<std::string> Query(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return {"<cannot open>"};
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    rows.push_back(std::string("<error: ") + sqlite3_errmsg(db) + ">");
  } else {
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::string row;
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        const unsigned char* t = sqlite3_column_text(s, i);
        row += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      rows.push_back(row);
    }
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

// Runs one statement on a read-write connection (a test that alters what a
// run recorded); "" or the error.
inline std::string Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return "<cannot open>";
  }
  sqlite3_busy_timeout(db, 5000);
  char* error = nullptr;
  std::string out;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    out = error != nullptr ? error : "<error>";
  }
  sqlite3_free(error);
  sqlite3_close(db);
  return out;
}

inline std::string One(const std::string& db_path, const std::string& sql) {
  auto rows = Query(db_path, sql);
  return rows.empty() ? "<no row>" : rows[0];
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// spyre-regress started in the background with output discarded.
class BackgroundCli {
 public:
  BackgroundCli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    pid_ = ::fork();
    if (pid_ == 0) {
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      FILE* devnull = std::fopen("/dev/null", "w");
      if (devnull != nullptr) {
        ::dup2(fileno(devnull), 1);
        ::dup2(fileno(devnull), 2);
      }
      std::vector<std::string> argv = {SPYRE_REGRESS_BIN};
      argv.insert(argv.end(), args.begin(), args.end());
      std::vector<char*> p;
      for (auto& a : argv) p.push_back(a.data());
      p.push_back(nullptr);
      ::execv(p[0], p.data());
      ::_exit(127);
    }
  }
  ~BackgroundCli() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
  }
  pid_t pid() const { return pid_; }
  // Exit code, or 128 + signal.
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    waited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  bool waited_ = false;
};

}  // namespace runner_e2e
