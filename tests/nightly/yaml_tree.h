#pragma once
// A YAML document read with libyaml (Debian's libyaml-dev) into a small tree,
// for the tests that check and replay the GitHub Actions workflow. libyaml is
// a complete YAML 1.1 parser, so a document it refuses is not valid YAML.
// Scalars stay text (no type resolution: `on` stays "on", `1` stays "1").
// Aliases and duplicate mapping keys are errors (GitHub refuses both in a
// workflow), as are documents other than exactly one.
#include <string>
#include <utility>
#include <vector>

namespace spyre_test {

struct YamlNode {
  enum class Kind { kScalar, kSequence, kMapping };
  Kind kind = Kind::kScalar;
  std::string scalar;                                     // kScalar
  std::vector<YamlNode> items;                            // kSequence
  std::vector<std::pair<std::string, YamlNode>> entries;  // kMapping, in document order
  int line = 0;                                           // 1-based, where the node starts

  // The value of `key` in a mapping; nullptr when absent or not a mapping.
  const YamlNode* Get(const std::string& key) const;
  // Get() along a path of keys, e.g. At({"jobs", "merge", "steps"}).
  const YamlNode* At(const std::vector<std::string>& path) const;
  bool IsScalar() const { return kind == Kind::kScalar; }
  bool IsSequence() const { return kind == Kind::kSequence; }
  bool IsMapping() const { return kind == Kind::kMapping; }
};

// Parses `text`; on failure returns false and sets *error to
// "line L, column C: problem".
bool ParseYaml(const std::string& text, YamlNode* root, std::string* error);

}  // namespace spyre_test
