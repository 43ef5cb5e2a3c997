// `spyre-regress backup --to FILE`: a consistent copy of the store, safe
// while another process records a run (SQLite's online backup API), checked
// with integrity_check before it replaces FILE. The way to carry the store
// from night to night.
#include <iostream>
#include <memory>

#include "cli.h"
#include "store/store.h"

namespace harness::cli {
namespace {

StatusOr<int> RunBackup(const std::string& to, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store,
                         Store::Open(global.db, Store::Mode::kReadOnly));
  const std::string dest = AbsolutePath(to);
  SPYRE_RETURN_IF_ERROR(CheckOutputFile(dest, Protected(global), "backup --to"));
  SPYRE_RETURN_IF_ERROR(store->BackupTo(dest));
  if (!global.quiet) std::cout << "backup of " << global.db << " written to " << dest << "\n";
  return 0;
}

}  // namespace

void AddBackupVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto to = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "backup", "write a consistent copy of the store (safe while a run is recording)");
  cmd->add_option("--to", *to, "the file to write (replaced once the copy is checked)")->required();
  cmd->callback([to, &global, action] {
    *action = [to, &global]() -> StatusOr<int> { return RunBackup(*to, global); };
  });
}

SPYRE_REGISTER_VERB(77, AddBackupVerb);

}  // namespace harness::cli
