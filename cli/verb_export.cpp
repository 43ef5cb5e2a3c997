// `spyre-regress export --format csv|jsonl [--table T] [--run RUN] [--suite S]
// [--out PATH]`: flat tables for analysis tools. To stdout: one table
// (default results). With --out DIR and no --table: every table, one file
// each (runs.csv, results.csv, metrics.csv, findings.csv or .jsonl).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli.h"
#include "harness/store/store.h"

namespace harness::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::string table;
  std::string run;
  std::string suite;
  std::string out;
};

StatusOr<int> RunExport(const ExportOptions& o, const GlobalOptions& global) {
  ExportRequest request;
  request.format = o.format == "jsonl" ? ExportFormat::kJsonl : ExportFormat::kCsv;
  request.suite = o.suite;
  SPYRE_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store,
                         Store::Open(global.db, Store::Mode::kReadOnly));
  if (!o.run.empty()) {
    SPYRE_ASSIGN_OR_RETURN(request.run_id, ResolveRunRef(*store, o.run, "--run"));
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool to_dir = !o.out.empty() && (fs::is_directory(o.out, ec) || o.table.empty());
  if (!to_dir) {
    request.table = o.table.empty() ? "results" : o.table;
    if (o.out.empty()) {
      SPYRE_RETURN_IF_ERROR(store->Export(request, std::cout).status());
      return 0;
    }
    std::ofstream file(o.out, std::ios::binary | std::ios::trunc);
    if (!file)
      return IoError("export: cannot write '" + o.out +
                     "': check the directory exists and is writable");
    SPYRE_ASSIGN_OR_RETURN(const int64_t rows, store->Export(request, file));
    if (!global.quiet)
      std::cerr << "export: " << rows << " rows of " << request.table << " to " << o.out << "\n";
    return 0;
  }
  fs::create_directories(o.out, ec);
  if (ec) return IoError("export: cannot create directory '" + o.out + "' (" + ec.message() + ")");
  std::vector<std::string> tables =
      o.table.empty() ? ExportTableNames() : std::vector<std::string>{o.table};
  for (const std::string& table : tables) {
    request.table = table;
    const std::string path = (fs::path(o.out) / (table + "." + o.format)).string();
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file)
      return IoError("export: cannot write '" + path + "': check the directory is writable");
    SPYRE_ASSIGN_OR_RETURN(const int64_t rows, store->Export(request, file));
    if (!global.quiet)
      std::cerr << "export: " << rows << " rows of " << table << " to " << path << "\n";
  }
  return 0;
}

}  // namespace

void AddExportVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "runs, results, metrics and findings as CSV or JSON Lines for analysis tools");
  cmd->add_option("--format", opts->format, "csv or jsonl")
      ->required()
      ->check(CLI::IsMember({"csv", "jsonl"}));
  cmd->add_option("--table", opts->table,
                  "runs, results, metrics or findings (default: results; with --out DIR, all)")
      ->check(CLI::IsMember(ExportTableNames()));
  cmd->add_option("--run", opts->run, "only this run (id, latest, ~N, label:NAME)");
  cmd->add_option("--suite", opts->suite, "only this suite");
  cmd->add_option("--out", opts->out,
                  "a file (one table) or a directory (a file per table); default stdout");
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> { return RunExport(*opts, global); };
  });
}

SPYRE_REGISTER_VERB(78, AddExportVerb);

}  // namespace harness::cli
