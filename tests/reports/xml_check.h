#pragma once
// A small XML 1.0 reader for the JUnit tests: elements, attributes, text,
// the five named entities and character references, the XML declaration and
// comments. Anything else (unbalanced tags, raw '<' or '&' in text, control
// characters, duplicate attributes, unquoted values) is an error naming the
// byte offset. Enough to prove junit.xml is well-formed; not a general parser.
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace reports_test {

struct XmlNode {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlNode>> children;
  std::string text;  // concatenated character data, entities decoded

  // Children named `name`.
  std::vector<const XmlNode*> All(const std::string& name) const;
  bool Has(const std::string& attr) const { return attrs.count(attr) != 0; }
};

// Parses a whole document. On error returns nullptr and sets *error.
std::unique_ptr<XmlNode> ParseXml(const std::string& text, std::string* error);

}  // namespace reports_test
