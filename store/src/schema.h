#pragma once
// The store's schema as forward migrations. Migration i (1-based) takes a
// store from version i-1 to i; released migrations are never edited, a change
// is a new migration appended to the list. Views are the stable interface
// (docs/store.md) and are recreated by the migration that changes them.
#include <vector>

namespace harness::store_internal {

// The SQL of every migration, in order; the schema version is the list size.
const std::vector<const char*>& Migrations();

}  // namespace harness::store_internal
