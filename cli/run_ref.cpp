// Run references: how a command names a recorded run (cli.h, ResolveRunRef).
#include <cstdlib>
#include <string>

#include "cli.h"
#include "store/store_queries.h"

namespace harness::cli {
namespace {

// A whole non-negative decimal number, or -1.
int64_t Count(const std::string& text) {
  if (text.empty() || text.size() > 12 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::strtoll(text.c_str(), nullptr, 10);
}

std::string Syntax(const std::string& flag, const std::string& ref) {
  return flag + " '" + ref +
         "' is not a run: use a run id, latest, ~N (N runs before the newest) or label:NAME "
         "(see 'spyre-regress runs')";
}

// The id of the run `back` runs before the newest, by id.
StatusOr<int64_t> NthNewest(Store& store, int64_t back, const std::string& flag,
                            const std::string& ref) {
  SPYRE_ASSIGN_OR_RETURN(auto id, NthNewestRunId(store, back));
  if (id) return *id;
  if (back == 0) {
    return NotFound(flag + " '" + ref +
                    "': the store has no runs yet: run `spyre-regress run --suite S` first");
  }
  return NotFound(flag + " '" + ref + "': the store has fewer than " + std::to_string(back + 1) +
                  " runs (see 'spyre-regress runs')");
}

StatusOr<int64_t> ByLabel(Store& store, const std::string& label, const std::string& flag) {
  SPYRE_ASSIGN_OR_RETURN(auto id, NewestRunIdWithLabel(store, label));
  if (!id) {
    return NotFound(flag + " 'label:" + label +
                    "': no run has that label (see 'spyre-regress runs')");
  }
  return *id;
}

StatusOr<int64_t> ById(Store& store, int64_t id, const std::string& flag) {
  SPYRE_ASSIGN_OR_RETURN(auto found, RunExists(store, id));
  if (!found) {
    return NotFound(flag + " " + std::to_string(id) + ": run " + std::to_string(id) +
                    " is not in the store (see 'spyre-regress runs')");
  }
  return id;
}

}  // namespace

bool IsRelativeRunRef(const std::string& ref) {
  if (ref == "latest") return true;
  const std::string tail = ref.rfind("latest~", 0) == 0 ? ref.substr(7)
                           : ref.rfind('~', 0) == 0     ? ref.substr(1)
                                                        : "";
  return Count(tail) >= 0;
}

StatusOr<int64_t> ResolveRunRef(Store& store, const std::string& ref, const std::string& flag) {
  if (ref.rfind("label:", 0) == 0) {
    if (ref.size() == 6) return UsageError(flag + " 'label:' names no label: use label:NAME");
    return ByLabel(store, ref.substr(6), flag);
  }
  if (ref == "latest") return NthNewest(store, 0, flag, ref);
  for (const char* prefix : {"latest~", "~"}) {
    const std::string p = prefix;
    if (ref.rfind(p, 0) != 0) continue;
    const int64_t back = Count(ref.substr(p.size()));
    if (back < 0) return UsageError(Syntax(flag, ref));
    return NthNewest(store, back, flag, ref);
  }
  const int64_t id = Count(ref);
  if (id <= 0) {
    // "-1" reads as an offset: say which spelling that is.
    if (ref.size() > 1 && ref[0] == '-' && Count(ref.substr(1)) > 0) {
      return UsageError(flag + " '" + ref + "': an offset from the newest run is written ~" +
                        ref.substr(1) + " (latest is ~0)");
    }
    return UsageError(Syntax(flag, ref));
  }
  return ById(store, id, flag);
}

}  // namespace harness::cli
