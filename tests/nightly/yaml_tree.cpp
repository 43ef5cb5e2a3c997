#include "nightly/yaml_tree.h"

#include <yaml.h>

#include <memory>

namespace spyre_test {
namespace {

// Owns one libyaml event.
struct Event {
  yaml_event_t e{};
  bool valid = false;
  ~Event() {
    if (valid) yaml_event_delete(&e);
  }
};

class Reader {
 public:
  explicit Reader(const std::string& text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~Reader() { yaml_parser_delete(&parser_); }

  // The next event into *ev; false (with error_) when the parser fails.
  bool Next(Event* ev) {
    if (!yaml_parser_parse(&parser_, &ev->e)) {
      error_ = "line " + std::to_string(parser_.problem_mark.line + 1) + ", column " +
               std::to_string(parser_.problem_mark.column + 1) + ": " +
               (parser_.problem != nullptr ? parser_.problem : "unknown YAML error") +
               (parser_.context != nullptr ? std::string(" (") + parser_.context + ")" : "");
      return false;
    }
    ev->valid = true;
    return true;
  }

  bool Fail(const yaml_event_t& at, const std::string& what) {
    error_ = "line " + std::to_string(at.start_mark.line + 1) + ", column " +
             std::to_string(at.start_mark.column + 1) + ": " + what;
    return false;
  }

  // Reads the node that starts with `first` (already read) into *out.
  bool Node(const yaml_event_t& first, YamlNode* out) {
    out->line = static_cast<int>(first.start_mark.line) + 1;
    switch (first.type) {
      case YAML_SCALAR_EVENT:
        out->kind = YamlNode::Kind::kScalar;
        out->scalar.assign(reinterpret_cast<const char*>(first.data.scalar.value),
                           first.data.scalar.length);
        return true;
      case YAML_SEQUENCE_START_EVENT:
        out->kind = YamlNode::Kind::kSequence;
        for (;;) {
          Event ev;
          if (!Next(&ev)) return false;
          if (ev.e.type == YAML_SEQUENCE_END_EVENT) return true;
          out->items.emplace_back();
          if (!Node(ev.e, &out->items.back())) return false;
        }
      case YAML_MAPPING_START_EVENT:
        out->kind = YamlNode::Kind::kMapping;
        for (;;) {
          Event key;
          if (!Next(&key)) return false;
          if (key.e.type == YAML_MAPPING_END_EVENT) return true;
          if (key.e.type != YAML_SCALAR_EVENT)
            return Fail(key.e, "a mapping key that is not a scalar");
          std::string name(reinterpret_cast<const char*>(key.e.data.scalar.value),
                           key.e.data.scalar.length);
          if (out->Get(name) != nullptr) return Fail(key.e, "duplicate key '" + name + "'");
          Event value;
          if (!Next(&value)) return false;
          out->entries.emplace_back(name, YamlNode());
          if (!Node(value.e, &out->entries.back().second)) return false;
        }
      case YAML_ALIAS_EVENT:
        return Fail(first, "an alias (*name): not allowed in a workflow");
      default:
        return Fail(first, "unexpected YAML event");
    }
  }

  const std::string& error() const { return error_; }

 private:
  yaml_parser_t parser_{};
  std::string error_;
};

}  // namespace

const YamlNode* YamlNode::Get(const std::string& key) const {
  if (kind != Kind::kMapping) return nullptr;
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

const YamlNode* YamlNode::At(const std::vector<std::string>& path) const {
  const YamlNode* n = this;
  for (const std::string& key : path) {
    if (n == nullptr) return nullptr;
    n = n->Get(key);
  }
  return n;
}

bool ParseYaml(const std::string& text, YamlNode* root, std::string* error) {
  Reader reader(text);
  int documents = 0;
  for (;;) {
    Event ev;
    if (!reader.Next(&ev)) {
      *error = reader.error();
      return false;
    }
    if (ev.e.type == YAML_STREAM_END_EVENT) break;
    if (ev.e.type != YAML_DOCUMENT_START_EVENT) continue;  // stream start
    ++documents;
    Event first;
    if (!reader.Next(&first) || !reader.Node(first.e, root)) {
      *error = reader.error();
      return false;
    }
    Event end;  // document end
    if (!reader.Next(&end)) {
      *error = reader.error();
      return false;
    }
  }
  if (documents != 1) {
    *error = "expected one YAML document, found " + std::to_string(documents);
    return false;
  }
  return true;
}

}  // namespace spyre_test
