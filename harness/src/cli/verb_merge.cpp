// `spyre-regress merge --into DB SRC.db...`: combines shard stores.
#include <iostream>
#include <memory>

#include "cli.h"
#include "harness/store.h"

namespace harness::cli {
namespace {

struct MergeOptions {
  std::string into;
  std::vector<std::string> sources;
};

}  // namespace

void AddMergeVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "combine shard stores into one (each run copied once; a run merged before is refused)");
  cmd->add_option("--into", opts->into, "the store to merge into (created when missing)")->required();
  cmd->add_option("sources", opts->sources, "shard stores to read (never modified)")->required();
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      StatusOr<std::unique_ptr<Store>> into = Store::Open(opts->into);
      if (!into.ok()) return into.status();
      int runs = 0;
      for (const std::string& src : opts->sources) {
        StatusOr<int> copied = (*into)->MergeFrom(src);
        if (!copied.ok()) return copied.status();
        runs += *copied;
        if (!global.quiet) std::cerr << "merged " << *copied << " run(s) from " << src << "\n";
      }
      std::cout << "merged " << runs << " run(s) from " << opts->sources.size() << " store(s) into "
                << opts->into << "\n";
      return 0;
    };
  });
}

SPYRE_REGISTER_VERB(70, AddMergeVerb);

}  // namespace harness::cli
