// LoadCheckpoint: a Hugging Face checkpoint directory (config.json and one or
// more safetensors files) -> config and weights, checked against the shapes
// the config implies.
#include <filesystem>
#include <set>

#include "harness/safetensors/safetensors.h"
#include "base/input_file.h"
#include "suites/models/checkpoint.h"

namespace suites {
namespace {

namespace fs = std::filesystem;
using harness::InvalidInput;
using harness::NotFound;
using harness::StatusOr;

StatusOr<nlohmann::json> ReadJson(const fs::path& path) {
  auto text =
      harness::ReadInputFile(path.string(), harness::kMaxJsonFileBytes, "checkpoint JSON file");
  if (!text.ok() && text.status().code() == harness::ErrorCode::kNotFound) {
    return NotFound(path.string() + ": cannot open (a checkpoint directory needs it)");
  }
  if (!text.ok()) return text.status();
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range: 1e999
    return InvalidInput(path.string() + ": not valid JSON: " + e.what());
  }
}

// The safetensors files to read, in order: the index's files, or every
// *.safetensors in the directory.
StatusOr<std::vector<std::string>> ShardFiles(const fs::path& dir) {
  std::set<std::string> files;
  const fs::path index = dir / "model.safetensors.index.json";
  if (fs::exists(index)) {
    SPYRE_ASSIGN_OR_RETURN(auto j, ReadJson(index));
    if (!j.contains("weight_map") || !j["weight_map"].is_object()) {
      return InvalidInput(index.string() + ": no 'weight_map' object");
    }
    for (const auto& [name, file] : j["weight_map"].items()) {
      if (!file.is_string())
        return InvalidInput(index.string() + ": weight_map/" + name + " is not a file name");
      const std::string f = file.get<std::string>();
      if (f.find('/') != std::string::npos || f == "..") {
        return InvalidInput(index.string() + ": weight_map/" + name + " names '" + f +
                            "', outside the checkpoint directory");
      }
      files.insert(f);
    }
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".safetensors") files.insert(e.path().filename().string());
    }
    if (files.empty()) {
      return NotFound(dir.string() +
                      ": no *.safetensors files and no model.safetensors.index.json");
    }
  }
  return std::vector<std::string>(files.begin(), files.end());
}

// Encoder checkpoints saved from BertModel have bare names; from BertFor*
// heads the names carry the base model's prefix.
std::string StripEncoderPrefix(const std::string& name) {
  for (const char* prefix : {"bert.", "roberta.", "model."}) {
    const std::string p = prefix;
    if (name.compare(0, p.size(), p) == 0 && name.find("embeddings.") == p.size()) {
      return name.substr(p.size());
    }
    if (name.compare(0, p.size(), p) == 0 && name.find("encoder.") == p.size()) {
      return name.substr(p.size());
    }
  }
  return name;
}

}  // namespace

StatusOr<ModelConfig> LoadCheckpointConfig(const std::string& dir_text) {
  const fs::path dir(dir_text);
  if (!fs::is_directory(dir)) return NotFound(dir_text + ": not a checkpoint directory");
  SPYRE_ASSIGN_OR_RETURN(auto config_json, ReadJson(dir / "config.json"));
  SPYRE_ASSIGN_OR_RETURN(auto config, ConfigFromHfJson(config_json, (dir / "config.json").string()));
  config.name = dir.filename().string();
  return config;
}

StatusOr<CheckpointIndex> IndexCheckpoint(const std::string& dir_text) {
  const fs::path dir(dir_text);
  SPYRE_ASSIGN_OR_RETURN(auto config, LoadCheckpointConfig(dir_text));
  SPYRE_ASSIGN_OR_RETURN(auto files, ShardFiles(dir));

  CheckpointIndex index;
  index.config = config;
  // Expected name -> where it is stored; only headers are read.
  std::map<std::string, StoredTensor> found;
  const bool encoder = config.family == ModelFamily::kEncoder;
  for (const std::string& f : files) {
    const std::string path = (dir / f).string();
    SPYRE_ASSIGN_OR_RETURN(auto header, harness::ReadSafetensorsHeader(path));
    for (const harness::SafetensorsEntry& e : header.tensors) {
      found[encoder ? StripEncoderPrefix(e.name) : e.name] = {path, e.name, e.dtype, e.shape};
    }
  }
  std::string searched;
  for (const auto& f : files) searched += (searched.empty() ? "" : ", ") + f;
  for (const auto& [name, shape] : ExpectedTensors(index.config)) {
    auto it = found.find(name);
    if (it == found.end()) {
      return NotFound(
          dir_text + ": tensor '" + name + "' is missing (searched " + searched +
          "): the checkpoint does not match its config.json; re-export it or fix config.json");
    }
    const StoredTensor& t = it->second;
    if (t.shape != shape) {
      return InvalidInput(t.file + ": tensor '" + name + "' has shape " +
                          harness::ShapeText(t.shape) + ", config.json implies " +
                          harness::ShapeText(shape) +
                          "; re-export the checkpoint or fix config.json");
    }
    if (!at::isFloatingType(t.dtype)) {
      return InvalidInput(t.file + ": tensor '" + name + "' is " + c10::toString(t.dtype) +
                          ", not floating point");
    }
    index.tensors[name] = t;
  }
  return index;
}

StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir_text) {
  SPYRE_ASSIGN_OR_RETURN(auto index, IndexCheckpoint(dir_text));
  // Each file is read once, whatever number of expected tensors it holds.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      by_file;  // file -> (name, stored)
  for (const auto& [name, t] : index.tensors) by_file[t.file].emplace_back(name, t.stored_name);
  Checkpoint ck;
  ck.config = index.config;
  for (const auto& [path, names] : by_file) {
    // The weights were counted against the case memory budget already.
    SPYRE_ASSIGN_OR_RETURN(auto st, harness::ReadSafetensors(path, harness::kCaseMemoryBudget));
    ck.files.push_back(path);
    for (const auto& [name, stored] : names) {
      const at::Tensor* t = st.Find(stored);
      // The header said so a moment ago; only a file replaced in between lands here.
      if (t == nullptr) return NotFound(path + ": tensor '" + stored + "' vanished while reading");
      ck.weights[name] = *t;
    }
  }
  return ck;
}

}  // namespace suites
