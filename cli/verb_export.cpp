// `spyre-regress export --format csv|jsonl [--table T] [--run RUN] [--suite S]
// [--out PATH]`: flat tables for analysis tools. To stdout: one table
// (default results). With --out DIR and no --table: every table, one file
// each (runs.csv, results.csv, metrics.csv, findings.csv or .jsonl).
//
// A file is written whole or not at all (base/output_file.h), never over
// the store, a suite or a golden file; with several files, none is put in
// place until every one has been written.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli.h"
#include "store/store.h"
#include "store/store_queries.h"
#include "base/suggest.h"

namespace harness::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::string table;
  std::string run;
  std::string suite;
  std::string out;
};

// A suite the store has never seen is a typo, not an empty table.
Status CheckSuiteKnown(Store& store, const std::string& suite) {
  if (suite.empty()) return Status::Ok();
  SPYRE_ASSIGN_OR_RETURN(const std::vector<std::string> suites, DistinctRunValues(store, "suite"));
  SPYRE_ASSIGN_OR_RETURN(const std::vector<std::string> with_results, SuitesWithResults(store));
  std::vector<std::string> known;
  for (const std::vector<std::string>* names : {&suites, &with_results}) {
    for (const std::string& n : *names) {
      if (n == suite) return Status::Ok();
      known.push_back(n);
    }
  }
  return NotFound("export --suite '" + suite + "': no run in the store recorded that suite" +
                  DidYouMean(suite, known) + " (spyre-regress runs lists what it holds)");
}

StatusOr<int> RunExport(const ExportOptions& o, const GlobalOptions& global) {
  ExportRequest request;
  request.format = o.format == "jsonl" ? ExportFormat::kJsonl : ExportFormat::kCsv;
  request.suite = o.suite;
  SPYRE_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store,
                         Store::Open(global.db, Store::Mode::kReadOnly));
  if (!o.run.empty()) {
    SPYRE_ASSIGN_OR_RETURN(request.run_id, ResolveRunRef(*store, o.run, "--run"));
  }
  SPYRE_RETURN_IF_ERROR(CheckSuiteKnown(*store, o.suite));
  namespace fs = std::filesystem;
  std::error_code ec;
  if (o.out.empty()) {
    request.table = o.table.empty() ? "results" : o.table;
    SPYRE_RETURN_IF_ERROR(store->Export(request, std::cout).status());
    std::cout.flush();
    if (!std::cout) {
      return IoError("export: writing " + request.table +
                     " to standard output failed (disk full or closed pipe)");
    }
    return 0;
  }
  const bool to_dir = fs::is_directory(o.out, ec) || o.table.empty();
  std::vector<std::pair<std::string, std::string>> files;  // (table, path)
  if (to_dir) {
    SPYRE_RETURN_IF_ERROR(CheckOutputDir(o.out, Protected(global), "export --out"));
    for (const std::string& table :
         o.table.empty() ? ExportTableNames() : std::vector<std::string>{o.table}) {
      files.emplace_back(table, (fs::path(o.out) / (table + "." + o.format)).string());
    }
  } else {
    files.emplace_back(o.table, o.out);
  }
  for (const auto& [table, path] : files) {
    SPYRE_RETURN_IF_ERROR(CheckOutputFile(path, Protected(global), "export --out"));
  }
  OutputDirectory made;
  if (to_dir) {
    if (Status s = made.Create(o.out); !s.ok()) {
      return IoError("export: cannot create directory '" + o.out + "' (" + s.message() +
                     "): choose a writable place for --out");
    }
  }
  std::vector<std::unique_ptr<OutputFile>> outputs;
  std::vector<int64_t> rows;
  for (const auto& [table, path] : files) {
    SPYRE_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out, OutputFile::Create(path, "export"));
    request.table = table;
    StatusOr<int64_t> n = store->Export(request, out->stream());
    // A write that failed says why; the store's answer only says that it did.
    SPYRE_RETURN_IF_ERROR(out->Finish());
    if (!n.ok()) return n.status();
    rows.push_back(*n);
    outputs.push_back(std::move(out));
  }
  for (const auto& out : outputs) SPYRE_RETURN_IF_ERROR(out->Commit());
  made.Keep();
  // With --out, standard output is free for the summary; stderr keeps to
  // errors.
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!global.quiet) {
      std::cout << "export: " << rows[i] << " rows of " << files[i].first << " to "
                << files[i].second << "\n";
    }
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
