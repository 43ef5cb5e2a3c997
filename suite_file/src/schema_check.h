#pragma once
// Validation of a suite document against suites/schema.json. Supports the
// JSON Schema subset the schema uses: type, properties, required,
// additionalProperties, items, minItems, enum, minimum, exclusiveMinimum,
// pattern, anyOf and local "$ref": "#/$defs/name".
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

// Checks `doc` against `schema`; the error names the JSON pointer of the
// first offending value and the problem.
Status ValidateJsonSchema(const nlohmann::json& doc, const nlohmann::json& schema);

// Validates a suite document with <suites_dir>/schema.json, or, when that
// directory has none, the schema of the source tree the harness was built from.
Status CheckAgainstSchema(const nlohmann::json& doc, const std::string& suites_dir);

}  // namespace harness
