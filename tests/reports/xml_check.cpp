#include "xml_check.h"

#include <cctype>
#include <cstdlib>

namespace reports_test {

std::vector<const XmlNode*> XmlNode::All(const std::string& n) const {
  std::vector<const XmlNode*> out;
  for (const auto& c : children) {
    if (c->name == n) out.push_back(c.get());
  }
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  std::unique_ptr<XmlNode> Document(std::string* error) {
    if (s_.compare(0, 5, "<?xml") == 0) {
      size_t end = s_.find("?>");
      if (end == std::string::npos) return Fail("unterminated XML declaration", error);
      pos_ = end + 2;
    }
    SkipMisc();
    auto root = Element();
    if (!root) return Fail(error_, error);
    SkipMisc();
    if (pos_ != s_.size()) return Fail("content after the root element", error);
    return root;
  }

 private:
  std::unique_ptr<XmlNode> Fail(const std::string& what, std::string* error) {
    *error = what + " at offset " + std::to_string(pos_);
    return nullptr;
  }
  std::unique_ptr<XmlNode> Err(const std::string& what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(pos_);
    return nullptr;
  }
  bool Eat(const char* lit) {
    const std::string l(lit);
    if (s_.compare(pos_, l.size(), l) != 0) return false;
    pos_ += l.size();
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  void SkipMisc() {
    for (;;) {
      SkipSpace();
      if (s_.compare(pos_, 4, "<!--") != 0) return;
      size_t end = s_.find("-->", pos_);
      pos_ = end == std::string::npos ? s_.size() : end + 3;
    }
  }
  std::string Name() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
            s_[pos_] == '-' || s_[pos_] == ':' || s_[pos_] == '.')) {
      ++pos_;
    }
    return s_.substr(start, pos_ - start);
  }
  // Decodes character data up to `stop`; false on a raw '<', bad entity or control character.
  bool CharData(char stop, std::string* out) {
    while (pos_ < s_.size() && s_[pos_] != stop) {
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '<' && stop != '<') return false;
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
      if (c != '&') {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      size_t semi = s_.find(';', pos_);
      if (semi == std::string::npos) return false;
      const std::string ent = s_.substr(pos_ + 1, semi - pos_ - 1);
      pos_ = semi + 1;
      if (ent == "amp")
        out->push_back('&');
      else if (ent == "lt")
        out->push_back('<');
      else if (ent == "gt")
        out->push_back('>');
      else if (ent == "quot")
        out->push_back('"');
      else if (ent == "apos")
        out->push_back('\'');
      else if (ent.size() > 1 && ent[0] == '#') {
        const long cp = ent[1] == 'x' ? std::strtol(ent.c_str() + 2, nullptr, 16)
                                      : std::strtol(ent.c_str() + 1, nullptr, 10);
        if (cp < 0x20 && cp != 9 && cp != 10 && cp != 13) return false;
        out->push_back('?');  // the code point's value does not matter to the tests
      } else {
        return false;
      }
    }
    return true;
  }
  std::unique_ptr<XmlNode> Element() {
    if (!Eat("<")) return Err("expected '<'");
    auto node = std::make_unique<XmlNode>();
    node->name = Name();
    if (node->name.empty()) return Err("expected an element name");
    for (;;) {
      SkipSpace();
      if (Eat("/>")) return node;
      if (Eat(">")) break;
      std::string attr = Name();
      if (attr.empty()) return Err("expected an attribute name");
      SkipSpace();
      if (!Eat("=")) return Err("expected '=' after attribute " + attr);
      SkipSpace();
      if (!Eat("\"")) return Err("expected a double-quoted value for " + attr);
      std::string value;
      if (!CharData('"', &value) || !Eat("\"")) return Err("bad value of attribute " + attr);
      if (!node->attrs.emplace(attr, value).second) return Err("duplicate attribute " + attr);
    }
    for (;;) {
      if (!CharData('<', &node->text)) return Err("bad character data in <" + node->name + ">");
      if (pos_ >= s_.size()) return Err("unterminated <" + node->name + ">");
      if (s_.compare(pos_, 4, "<!--") == 0) {
        SkipMisc();
        continue;
      }
      if (Eat("</")) {
        if (Name() != node->name) return Err("mismatched end tag for <" + node->name + ">");
        SkipSpace();
        if (!Eat(">")) return Err("expected '>'");
        return node;
      }
      auto child = Element();
      if (!child) return nullptr;
      node->children.push_back(std::move(child));
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::unique_ptr<XmlNode> ParseXml(const std::string& text, std::string* error) {
  Parser p(text);
  return p.Document(error);
}

}  // namespace reports_test
