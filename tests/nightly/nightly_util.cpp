#include "nightly/nightly_util.h"

#include <sqlite3.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace nightly_test {

std::map<std::string, std::string> NightlyEnv(const std::map<std::string, std::string>& extra) {
  // Two timing rounds instead of the nightly's 10-20, and confirmations of
  // at most 11 processes instead of 21: the tests check what a night does,
  // not its wall-time resolution, and CI time is short.
  std::map<std::string, std::string> env = {{"SPYRE_REGRESS", SPYRE_REGRESS_BIN},
                                            {"NIGHTLY_ROUNDS", "2"},
                                            {"NIGHTLY_CONFIRM_MAX_ROUNDS", "11"}};
  for (const auto& [k, v] : extra) env[k] = v;
  return env;
}

spyre_test::CommandResult RunStep(const std::string& cwd, const std::string& script,
                                  const std::map<std::string, std::string>& env) {
  const std::string file = cwd + "/.step-" + std::to_string(::getpid()) + ".sh";
  spyre_test::WriteFile(file, script);
  spyre_test::CommandResult r = spyre_test::RunCommand(
      {"/bin/bash", "-c", "cd \"$0\" && exec /bin/bash --noprofile --norc -eo pipefail \"$1\"", cwd,
       file},
      env, 600);
  ::unlink(file.c_str());
  return r;
}

spyre_test::CommandResult RunNightly(const std::vector<std::string>& args,
                                     const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {std::string(SPYRE_SOURCE_DIR) + "/ci/nightly"};
  argv.insert(argv.end(), args.begin(), args.end());
  return spyre_test::RunCommand(argv, env, 600);
}

std::vector<std::string> Query(const std::string& db, const std::string& sql,
                               const std::vector<std::string>& params) {
  std::vector<std::string> out;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db;
    sqlite3_close(h);
    return out;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(h);
  } else {
    for (size_t i = 0; i < params.size(); ++i) {
      sqlite3_bind_text(st, static_cast<int>(i + 1), params[i].c_str(), -1, SQLITE_TRANSIENT);
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out.emplace_back(t == nullptr ? "<null>" : reinterpret_cast<const char*>(t));
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

}  // namespace nightly_test
